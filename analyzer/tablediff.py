"""What a user's data table changes against the built-in table it replaces, for any game.

A scenario may replace a game's built-in TOML table with its own file (a ``*_file`` rule option
the game lists in ``GameSpec.tables``). At run time ``run_facts`` compares the two files and
keeps a short list of what differs in ``summary.json["run"]["tables"]``; the report shows it
from there, so ``analyzer report DIR`` re-renders it without the files.

The comparison knows no game. An *entry* of a table is one row of an array of tables
(``[[site]]``) or one other top-level key (a table or a value). Rows are matched by their
``name`` when every row of that array, in both files, has a distinct one; otherwise the two
arrays are aligned as sequences (``difflib``), so a row taken out does not shift the rows after
it. Keys that only say where a value comes from (``provenance``, ``section``) are not compared:
every value of a user's table is the user's. Both files are read by the one table loader
(``analyzer.model.tables``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from analyzer.errors import RuleError
from analyzer.model.tables import PROVENANCE_KEY, read_table

META_KEYS = frozenset({PROVENANCE_KEY, "section"})
SHOWN = 8  # changes kept per table in the run facts; the rest are only counted
VALUE_WIDTH = 40  # characters of one value in a change line
LINE_WIDTH = 160  # characters of what changed in one entry
_MISSING = object()


@dataclass(frozen=True)
class TableDiff:
    """The entries of a user's table that differ from the built-in table's.

    Attributes
    ----------
    entries : int
        Entries in the built-in table.
    changes : tuple of (str, str)
        ``(entry, what changed)`` for each entry that differs, built-in order first, then the
        added entries, e.g. ``("[[row]] 4", "threshold 1 → 2")``, ``("[[item]] north",
        "removed")``, ``("[[item]] south", "added (kind = b, size = 4)")``, ``("[[row]] 5",
        "removed (threshold = 2)")``, ``("[[row]]", "added as row 7 (threshold = 3)")``.
    """

    entries: int
    changes: tuple[tuple[str, str], ...]


def compare(builtin: Mapping[str, Any], user: Mapping[str, Any]) -> TableDiff:
    """Compare two parsed TOML tables entry by entry (see the module docstring)."""
    changes: list[tuple[str, str]] = []
    added: list[tuple[str, str]] = []
    entries = 0
    for key in [*builtin, *(k for k in user if k not in builtin)]:
        if key in META_KEYS:
            continue
        old, new = builtin.get(key, _MISSING), user.get(key, _MISSING)
        if all(v is _MISSING or _is_rows(v) for v in (old, new)):
            a, b = ([] if v is _MISSING else [_strip(r) for r in v] for v in (old, new))
            entries += len(a)
            rows = _by_name if _has_names(a) and _has_names(b) else _by_order
            rows(f"[[{key}]]", a, b, changes, added)
            continue
        label = f"[{key}]" if isinstance(new if old is _MISSING else old, dict) else key
        entries += old is not _MISSING
        if new is _MISSING:
            changes.append((label, "removed"))
        elif old is _MISSING:
            new = _strip(new)
            added.append((label, _cut(f"added ({_fields(new) if isinstance(new, dict) else _show(new)})",
                                      LINE_WIDTH)))
        elif _strip(old) != _strip(new):
            changes.append((label, _cut(_changed(_strip(old), _strip(new)), LINE_WIDTH)))
    return TableDiff(entries, tuple(changes + added))


def _by_name(label: str, old: list[dict], new: list[dict], changes: list, added: list) -> None:
    """Rows matched by their ``name``."""
    a, b = {r["name"]: r for r in old}, {r["name"]: r for r in new}
    for name, row in a.items():
        if name not in b:
            changes.append((f"{label} {name}", "removed"))
        elif b[name] != row:
            changes.append((f"{label} {name}", _cut(_changed(row, b[name]), LINE_WIDTH)))
    for name, row in b.items():
        if name not in a:
            fields = _fields({k: v for k, v in row.items() if k != "name"})
            added.append((f"{label} {name}", _cut(f"added ({fields})", LINE_WIDTH)))


def _by_order(label: str, old: list[dict], new: list[dict], changes: list, added: list) -> None:
    """Rows without distinct names, aligned as sequences: a row taken out or put in does not
    shift the rest; a row edited in place is one change. Numbered as in the built-in table."""
    a, b = ([json.dumps(r, sort_keys=True, default=str) for r in rows] for rows in (old, new))
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(paired):
            changes.append((f"{label} {i1 + k + 1}",
                            _cut(_changed(old[i1 + k], new[j1 + k]), LINE_WIDTH)))
        changes += [(f"{label} {i + 1}", _cut(f"removed ({_fields(old[i])})", LINE_WIDTH))
                    for i in range(i1 + paired, i2)]
        added += [(label, _cut(f"added as row {j + 1} ({_fields(new[j])})", LINE_WIDTH))
                  for j in range(j1 + paired, j2)]


def run_facts(tables: Mapping[str, Path], arms: Iterable[tuple[str, Mapping[str, Any]]],
              shown: int = SHOWN) -> list[dict[str, Any]]:
    """The user tables of a run and what each changes, for ``summary.json["run"]["tables"]``.

    Parameters
    ----------
    tables : mapping of str to Path
        The game's ``GameSpec.tables``: rule option -> the built-in file it replaces.
    arms : iterable of (str, mapping)
        Each arm's name and rule options (a ``*_file`` value is a path).
    shown : int
        Change lines kept per table.

    Returns
    -------
    list of dict
        One per distinct (option, file), in arm order: ``option``, ``path`` (as in the rules),
        ``file`` (the path shown: relative to the working directory when under it),
        ``builtin`` (``data/<name>.toml``), ``arms`` (names of the arms that use it), and
        either ``entries`` (of the built-in table), ``differ`` (entries that differ) and
        ``changes`` (the first ``shown`` as ``{"entry", "change"}``), or ``error`` when a file
        cannot be read as TOML.
    """
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for name, rules in arms:
        for option, value in rules.items():
            if option not in tables or not isinstance(value, (str, Path)) or not str(value):
                continue
            key = (option, str(value))
            if key in out:
                out[key]["arms"].append(name)
                continue
            builtin = Path(tables[option])
            fact: dict[str, Any] = {"option": option, "path": str(value), "file": shown_path(value),
                                    "builtin": f"{builtin.parent.name}/{builtin.name}", "arms": [name]}
            try:
                diff = compare(read_table(option, builtin), read_table(option, value))
            except RuleError as err:
                fact["error"] = f"not compared ({err.message})"
            else:
                fact.update(entries=diff.entries, differ=len(diff.changes),
                            changes=[{"entry": e, "change": c} for e, c in diff.changes[:shown]])
            out[key] = fact
    return list(out.values())


def shown_path(path: str | Path) -> str:
    """``path`` relative to the working directory when it lies under it, else as given."""
    try:
        rel = os.path.relpath(Path(path).resolve(), Path.cwd())
    except ValueError:  # another drive
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _is_rows(value: Any) -> bool:
    """An array of tables (``[[key]]``)."""
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def _has_names(rows: list[dict]) -> bool:
    names = [r.get("name") for r in rows]
    return all(isinstance(n, str) for n in names) and len(set(names)) == len(names)


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in META_KEYS}
    return value


def _flat(value: dict, prefix: str = "") -> dict[str, Any]:
    """Nested tables as dotted keys: ``{"goods": {"stone": 1}}`` -> ``{"goods.stone": 1}``."""
    out: dict[str, Any] = {}
    for k, v in value.items():
        if isinstance(v, dict) and v:
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _changed(old: Any, new: Any) -> str:
    """``"threshold 1 → 2, symbols [M] → [A]"`` for two tables, ``"1 → 2"`` for two values."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return f"{_show(old)} → {_show(new)}"
    a, b = _flat(old), _flat(new)
    keys = [*a, *(k for k in b if k not in a)]
    return ", ".join(f"{k} {_show(a[k]) if k in a else '(none)'} → {_show(b[k]) if k in b else '(none)'}"
                     for k in keys if a.get(k, _MISSING) != b.get(k, _MISSING))


def _fields(value: dict) -> str:
    return ", ".join(f"{k} = {_show(v)}" for k, v in _flat(value).items())


def _show(value: Any, width: int = VALUE_WIDTH) -> str:
    """A value as it reads in TOML, without string quotes, cut to ``width`` characters."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = f"{value:g}"
    elif isinstance(value, list):
        text = "[" + ", ".join(_show(v, width) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + _fields(value) + "}"
    else:
        text = str(value)
    return _cut(text, width)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"

