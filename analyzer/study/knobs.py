"""What ``analyzer balance --vary PATH=LO..HI`` may change, and a scenario with it changed.

A knob is one number of a scenario's game:

- ``rules.NAME``: a numeric rule option (``int`` or ``float``, ``analyzer list rules``),
  inside its declared bounds; an ``int`` option stays an integer; a simulator guard (a round
  or turn cap, ``Option.guard``) is no rule of the game and is never a knob (issue #35);
- ``tables.TABLE.ENTRY.FIELD``: a number in one of the game's content tables, the TOML file a
  ``TABLE_file`` rule option replaces (``GameSpec.tables``). ``ENTRY`` names a top-level table
  of the file, an entry of an array of tables by its ``name`` (or, without one, its first text
  field), or an array entry by position (``ARRAY[0]``); ``FIELD`` is a key of it, dotted for a
  nested one and with ``[I]`` for a list item (``FIELD[1]``). The
  table changed is the one the scenario's base arm plays (its own file, else the built-in), and
  it is written back as TOML in the same layout (``tomli_w``), so the ``*_file`` option can name
  it.

``knob`` checks a path and its range against the game (one ``OptionError`` naming what is
allowed) and ``setting`` gives the scenario with the knobs at some values: every arm that plays
the base arm's value of the option gets the new one; an arm that sets its own keeps it. This
module names no game: options and tables come from the ``GameSpec``.
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tomli_w

from analyzer import userfiles
from analyzer.errors import OptionError, RuleError
from analyzer.files import atomic_write
from analyzer.scenario import Scenario
from analyzer.study.search import Dimension

_VARY = re.compile(r"^\s*(?P<path>[^=\s](?:[^=]*[^=\s])?)\s*=\s*(?P<lo>\S+?)\s*\.\.\s*(?P<hi>\S+)\s*$")
_STEP = re.compile(r"^(?P<key>[^\[\]]+)(?:\[(?P<index>\d+)\])?$")
_INT = re.compile(r"^[+-]?\d+$")
_UNNAMEABLE = set(".[]=")   # a name with one of these is given by its position in a path
FILE_SUFFIX = "_file"


@dataclass(frozen=True)
class Knob:
    """One number ``analyzer balance`` varies.

    Attributes
    ----------
    path : str
        As given: ``rules.NAME`` or ``tables.TABLE.ENTRY.FIELD``.
    option : str
        The rule option the knob sets: ``NAME``, or the table's ``*_file`` option.
    table : str or None
        ``TABLE`` of a table knob (``None``: a rule option).
    steps : tuple
        From the table's top to the number: keys (str) and list positions (int).
    source : str or None
        The table file the base arm plays (its own, else the built-in one).
    kind : type
        ``int`` or ``float``: the values the knob takes.
    low, high : float
        The range searched (inclusive).
    start : float or None
        The number in the scenario's base arm.
    """

    path: str
    option: str
    table: str | None
    steps: tuple[str | int, ...]
    source: str | None
    kind: type
    low: float
    high: float
    start: float | None

    @property
    def dimension(self) -> Dimension:
        """The knob as a search dimension (``analyzer.study.search.Dimension``: ``[0, 1]``
        mapped onto ``low..high``, an ``int`` rounded)."""
        return Dimension(self.path, self.kind, self.low, self.high)

    def label(self) -> str:
        """The knob's short name for tables and charts: ``NAME`` or ``TABLE.ENTRY.FIELD``."""
        return self.path.split(".", 1)[1]


def parse_vary(text: str) -> tuple[str, int | float, int | float]:
    """``PATH=LO..HI`` as ``(path, lo, hi)``; ``lo`` and ``hi`` are ints when written as whole
    numbers.

    Raises
    ------
    OptionError
        Not of that shape, or a bound that is not a number.
    """
    m = _VARY.match(text)
    if not m:
        raise OptionError("vary", f"{text!r} must read PATH=LO..HI with PATH rules.NAME or "
                                  "tables.TABLE.ENTRY.FIELD (e.g. rules.NAME=0..6)")
    bounds = []
    for word in (m["lo"], m["hi"]):
        try:
            bounds.append(int(word) if _INT.match(word) else float(word))
        except ValueError:
            raise OptionError("vary", f"{m['path']}: {word!r} is not a number (give "
                                      "PATH=LO..HI)") from None
    return m["path"], bounds[0], bounds[1]


def knob(scenario: Scenario, text: str) -> Knob:
    """The knob ``text`` (``PATH=LO..HI``) names in ``scenario``, checked.

    Raises
    ------
    OptionError
        (keyword ``vary``) a malformed text; an unknown option, table, entry or field (with the
        allowed ones); an option or field that is not a number; a range outside the option's
        bounds, empty, or not whole numbers for an integer; a bound the game refuses.
    """
    path, lo, hi = parse_vary(text)
    head, _, rest = path.partition(".")
    if head == "rules" and rest and "." not in rest:
        found = _rule(scenario, path, rest, lo, hi)
    elif head == "tables" and rest:
        found = _table(scenario, path, rest.split("."), lo, hi)
    else:
        raise OptionError("vary", f"{path}: PATH must be rules.NAME or tables.TABLE.ENTRY.FIELD")
    _refused(scenario, found, found.low)
    _refused(scenario, found, found.high)
    return found


def _range(path: str, kind: type, lo: float, hi: float, what: str) -> None:
    if kind is int and not (isinstance(lo, int) and isinstance(hi, int)):
        raise OptionError("vary", f"{path}: {what} is an integer, so give whole numbers "
                                  f"(got {lo}..{hi})")
    if not lo < hi:
        raise OptionError("vary", f"{path}: LO must be below HI (got {lo}..{hi})")


def _numeric(option: Any) -> bool:
    """Whether every value of a rule option is a number (a range of it can be searched)."""
    return option.type in (int, float) and not option.also


def _knob_option(option: Any) -> bool:
    """Whether a rule option may be a knob: numeric and not a simulator guard."""
    return _numeric(option) and not getattr(option, "guard", False)


def _numeric_options(scenario: Scenario) -> str:
    rows = [f"{o.name} ({o.allowed_text()})" for o in scenario.spec.options if _knob_option(o)]
    return ", ".join(rows) or "none"


def _rule(scenario: Scenario, path: str, name: str, lo: float, hi: float) -> Knob:
    spec = scenario.spec
    if name not in spec.options:
        near = difflib.get_close_matches(name, spec.options.names(), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise OptionError("vary", f"{path}: unknown rule option of {spec.name}{hint}; numeric "
                                  f"options: {_numeric_options(scenario)}")
    option = spec.options[name]
    if not _numeric(option):  # also an option whose values include a word (a seat or "random")
        raise OptionError("vary", f"{path}: not a numeric option ({option.allowed_text()}); "
                                  f"numeric options: {_numeric_options(scenario)}")
    if getattr(option, "guard", False):  # a cap that stops a runaway game, not a rule
        raise OptionError("vary", f"{path}: a simulator guard (a cap that stops a runaway "
                                  "game), not a rule of the game, so not a knob; numeric "
                                  f"options: {_numeric_options(scenario)}")
    _range(path, option.type, lo, hi, name)
    if (option.low is not None and lo < option.low) or (option.high is not None
                                                        and hi > option.high):
        raise OptionError("vary", f"{path}: {lo}..{hi} is outside the option's bounds (allowed: "
                                  f"{option.allowed_text()})")
    base = scenario.arms[0]
    try:
        start = spec.options.resolve(scenario.players, base.rules)[name]
    except (RuleError, KeyError):
        start = None
    return Knob(path, name, None, (), None, option.type, float(lo), float(hi),
                None if start is None else float(start))


def _table(scenario: Scenario, path: str, parts: list[str], lo: float, hi: float) -> Knob:
    spec = scenario.spec
    tables = {o[: -len(FILE_SUFFIX)]: o for o in spec.tables if o.endswith(FILE_SUFFIX)}
    name = parts[0]
    if name not in tables:
        raise OptionError("vary", f"{path}: unknown table {name!r} of {spec.name} (allowed: "
                                  f"{', '.join(tables) or 'none'})")
    option = tables[name]
    data = read_table(scenario, option)
    if len(parts) < 3:
        raise OptionError("vary", f"{path}: give tables.{name}.ENTRY.FIELD (entries: "
                                  f"{', '.join(entries(data))})")
    where, entry = _entry(data, parts[1], path)
    steps, value = _field(entry, parts[2:], path, parts[1])
    kind = int if isinstance(value, int) else float
    _range(path, kind, lo, hi, f"{parts[1]}.{'.'.join(parts[2:])} in the table")
    return Knob(path, option, name, (*where, *steps), source_of(scenario, option), kind,
                float(lo), float(hi), float(value))


def source_of(scenario: Scenario, option: str) -> str:
    """The table file the base arm of ``scenario`` plays for ``option``: its own, else the
    game's built-in one."""
    return str(scenario.arms[0].rules.get(option) or scenario.spec.tables[option])


def read_table(scenario: Scenario, option: str) -> dict[str, Any]:
    """The table of ``option`` the base arm plays, as parsed TOML.

    Raises
    ------
    OptionError
        The file cannot be read or parsed (the scenario's own table file).
    """
    path = Path(source_of(scenario, option))
    try:
        return userfiles.read_toml(path)
    except userfiles.UnreadableFile as err:
        raise OptionError("vary", f"cannot read the {option} table {path} ({err.reason})") from None


def _label(entry: Mapping[str, Any]) -> str | None:
    """How an array entry is named: its ``name``, else its first text field."""
    if isinstance(entry.get("name"), str):
        return entry["name"]
    return next((v for v in entry.values() if isinstance(v, str)), None)


def _arrays(data: Mapping[str, Any]) -> list[str]:
    return [k for k, v in data.items() if isinstance(v, list) and v
            and all(isinstance(e, dict) for e in v)]


def entries(data: Mapping[str, Any]) -> list[str]:
    """The entry names a path may give in this table (``ENTRY`` of the module docstring): its
    top-level tables, the named entries of its arrays of tables (a name used twice by its
    position, ``ARRAY[I]``, also when the other use is in another array or a top-level
    table)."""
    out = [k for k, v in data.items() if isinstance(v, dict)]
    labels = [_label(e) for key in _arrays(data) for e in data[key]] + list(out)
    for key in _arrays(data):
        for i, entry in enumerate(data[key]):
            lab = _label(entry)
            named = lab is not None and labels.count(lab) == 1 and not _UNNAMEABLE & set(lab)
            out.append(lab if named else f"{key}[{i}]")
    return out


def _entry(data: Mapping[str, Any], text: str, path: str) -> tuple[tuple, Mapping[str, Any]]:
    m = _STEP.match(text)
    if m and m["index"] is not None and m["key"] in _arrays(data):
        i = int(m["index"])
        if i < len(data[m["key"]]):
            return (m["key"], i), data[m["key"]][i]
    elif isinstance(data.get(text), dict):
        return (text,), data[text]
    else:
        found = [(k, i) for k in _arrays(data) for i, e in enumerate(data[k]) if _label(e) == text]
        if len(found) == 1:
            k, i = found[0]
            return (k, i), data[k][i]
        if len(found) > 1:
            raise OptionError("vary", f"{path}: {text!r} names {len(found)} entries; give one "
                                      "by position (" + ", ".join(f"{k}[{i}]" for k, i in found)
                              + ")")
    near = difflib.get_close_matches(text, entries(data), n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    raise OptionError("vary", f"{path}: no entry {text!r} in the table{hint}; entries: "
                              f"{', '.join(entries(data))}")


def _numbers(node: Any, prefix: str = "") -> list[str]:
    """The paths of every number below ``node`` (``premium``, ``premium[1]``, ``goods.wood``)."""
    if isinstance(node, bool):
        return []
    if isinstance(node, (int, float)):
        return [prefix]
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _numbers(v, f"{prefix}.{k}" if prefix else k)]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _numbers(v, f"{prefix}[{i}]")]
    return []


def _field(entry: Any, parts: list[str], path: str, name: str) -> tuple[tuple, float]:
    steps: list[str | int] = []
    node = entry
    for part in parts:
        m = _STEP.match(part)
        ok = m is not None and isinstance(node, dict) and m["key"] in node
        if ok:
            steps.append(m["key"])
            node = node[m["key"]]
            if m["index"] is not None:
                i = int(m["index"])
                ok = isinstance(node, list) and i < len(node)
                if ok:
                    steps.append(i)
                    node = node[i]
        if not ok:
            break
    else:
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            return tuple(steps), node
    allowed = _numbers(entry)
    raise OptionError("vary", f"{path}: {'.'.join(parts)!r} is not a number of {name} "
                              f"(numbers there: {', '.join(allowed) or 'none'})")


def changed_table(data: Mapping[str, Any], changes: Sequence[tuple[tuple, int | float]]
                  ) -> dict[str, Any]:
    """A deep copy of ``data`` with each ``(steps, value)`` of ``changes`` set."""
    out = copy.deepcopy(dict(data))
    for steps, value in changes:
        node: Any = out
        for step in steps[:-1]:
            node = node[step]
        node[steps[-1]] = value
    return out


def table_text(knobs: Sequence[Knob], values: Sequence[int | float], data: Mapping[str, Any],
               header: str = "") -> str:
    """The table of ``knobs`` (all of one table) at ``values`` as TOML, in the layout of the
    table read (``tomli_w``), after a comment naming what changed and ``header``."""
    changed = changed_table(data, [(k.steps, v) for k, v in zip(knobs, values)])
    lines = [f"# {k.path.split('.', 2)[2]} = {v!r} (was {_plain(k.start)} in {k.source})"
             for k, v in zip(knobs, values)]
    lines += [f"# {line}" for line in header.splitlines()]
    return "\n".join(lines) + "\n\n" + tomli_w.dumps(changed)


def _plain(x: float | None) -> str:
    return "?" if x is None else (str(int(x)) if float(x).is_integer() else repr(x))


def setting(scenario: Scenario, knobs: Sequence[Knob], values: Sequence[int | float],
            folder: Path, names: Mapping[str, str] | None = None) -> Scenario:
    """``scenario`` with every knob at its value.

    A rule knob sets its option; the knobs of one table write that table once, changed, to
    ``folder`` (named ``names[TABLE]``, else ``TABLE-<hash of its text>.toml``, so equal
    settings share a file and a file is never rewritten with other content), and set its
    ``*_file`` option to it. An arm takes the new option values unless it sets its own (a value
    other than the base arm's).
    """
    spec_rules: dict[str, Any] = {}
    by_table: dict[str, list[tuple[Knob, int | float]]] = {}
    for k, v in zip(knobs, values):
        if k.table is None:
            spec_rules[k.option] = v
        else:
            by_table.setdefault(k.option, []).append((k, v))
    for option, pairs in by_table.items():
        first = pairs[0][0]
        text = table_text([k for k, _ in pairs], [v for _, v in pairs],
                          read_table(scenario, option))
        name = (names or {}).get(first.table or "") or (
            f"{first.table}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.toml")
        path = Path(folder) / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(path, text)
        spec_rules[option] = str(path.resolve())
    base = scenario.arms[0].rules
    arms = []
    for arm in scenario.arms:
        own = {o: v for o, v in spec_rules.items() if arm.rules.get(o) == base.get(o)}
        arms.append(replace(arm, rules={**arm.rules, **own}))
    return replace(scenario, arms=tuple(arms))


def _refused(scenario: Scenario, k: Knob, value: float) -> None:
    """Raise ``OptionError`` when the game refuses the knob at ``value`` in some arm (a
    cross-field check of the game, a table its loader refuses); the table is written to a
    temporary folder only."""
    v = int(value) if k.kind is int else value
    with tempfile.TemporaryDirectory(prefix="analyzer-knob-") as tmp:
        folder = Path(tmp).resolve()
        changed = setting(scenario, [k], [v], folder, {k.table or "": f"{k.table}.toml"})
        try:
            for arm in changed.arms:
                scenario.spec.make_config(changed.arm_players(arm), changed.expansions,
                                          arm.rules)
        except RuleError as err:
            text = (err.message if err.field == k.option else str(err)).replace(
                f"{folder}/", "the changed ")
            raise OptionError("vary", f"{k.path}: the game refuses {v} ({text})") from None


__all__ = ["Knob", "changed_table", "entries", "knob", "parse_vary", "read_table",
           "setting", "source_of", "table_text"]
