"""Scenario files: load, validate and normalise a study description.

A scenario is a TOML file::

    name = "africanus-sultan"
    game = "rattus"
    expansions = ["africanus"]
    players = 4
    games = 10000
    seed = 20261129
    seat_rotation = true          # default: each policy plays each seat equally often

    [rules]                       # rule options and content choices of the game
    class_cards = ["knight", "monk", "witch", "king", "sultan", "trader"]

    [[seats]]                     # one entry for every seat, or exactly `players` entries
    policy = "greedy"
    params = {}                   # typed policy parameters
    name = "greedy"               # display name in the records (default: the policy name)
    # params_file = "tuned.toml"  # parameters from a file (``analyzer tune`` writes one);
                                  # read next to the scenario; ``params`` set here win

    [[variants]]                  # compared against the base on the same game seeds
    name = "without-sultan"
    rules = { class_cards = ["knight", "monk", "witch", "king", "merchant", "trader"] }
    # seats = [...]               # optional: replaces the base seats
    # players = 5                 # optional: another player count (its games are not paired
                                  # with the base's; one base [[seats]] entry, or its own seats)

Every problem of a file is found (``Problems``) and raised together as one ``ScenarioError``,
one line per problem reading ``FILE: FIELD: what is wrong``; a check that needs a field that
failed (the seats need the player count) is skipped.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Collection, Mapping
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import tomli_w

from analyzer import userfiles
from analyzer.errors import OptionError, RuleError, ScenarioError
from analyzer.games import get_game
from analyzer.model.base import GameSpec, build_policy

TOP_KEYS = (
    "name", "description", "game", "expansions", "players", "games", "seed", "seat_rotation",
    "rules", "seats", "variants", "questions",
)
SEAT_KEYS = ("policy", "params", "params_file", "name")
PARAMS_FILE_KEYS = ("game", "policy", "params")
VARIANT_KEYS = ("name", "description", "rules", "unset", "seats", "players")
QUESTION_KEYS = ("ask", "finding", "tolerance")
BASE = "base"  # the variant name of the base arm in every record
MAX_SEED = 2**63 - 1  # seeds are stored in an int64 column
MAX_GAMES = 100_000_000  # games per variant; more would take days and terabytes of records


@dataclass(frozen=True)
class Seat:
    """One seat's player: display ``name``, registered ``policy`` and its ``params``."""

    name: str
    policy: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Arm:
    """The base or one variant: the rule options and one ``Seat`` per seat (before rotation).

    ``players``: the arm's player count when it differs from the scenario's (``None``: the
    scenario's); such an arm plays the same game seeds, but its games are other games, not
    paired with the base's seat by seat (``Scenario.arm_players``).
    """

    name: str
    rules: Mapping[str, Any]
    seats: tuple[Seat, ...]
    description: str = ""
    players: int | None = None


@dataclass(frozen=True)
class Question:
    """One ``[[questions]]`` entry: ``ask``, the question in words, and ``finding``, the key of
    the key finding or measured figure of the run that answers it (``analyzer findings
    RUN_DIR`` lists a run's keys); the report's Answers table opens with it (issue #25).
    ``tolerance``: a practical threshold in the finding's unit (``2`` = ±2 pp for a finding in
    pp); the answer's verdict then says whether an equivalence test shows the finding within
    it of no effect (issue #34)."""

    ask: str
    finding: str
    tolerance: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The question as plain TOML-able data (``tolerance`` only when given)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class Scenario:
    """A validated scenario. ``arms[0]`` is the base (named ``"base"``), then the variants.

    Attributes
    ----------
    file : str
        Where it came from, for messages (``"<scenario>"`` when built from a dict).
    games : int
        Number of games per arm; game ``i`` uses ``SeedSequence(seed, spawn_key=(i,))``.
    """

    file: str
    name: str
    game: str
    expansions: tuple[str, ...]
    players: int
    games: int
    seed: int
    seat_rotation: bool
    arms: tuple[Arm, ...]
    description: str = ""
    questions: tuple[Question, ...] = ()

    @property
    def spec(self) -> GameSpec:
        """The game's ``GameSpec``."""
        return get_game(self.game)

    def arm_players(self, arm: Arm) -> int:
        """The player count of ``arm``: its own, else the scenario's."""
        return self.players if arm.players is None else arm.players

    def to_dict(self) -> dict[str, Any]:
        """The scenario as plain TOML-able data (variants fully spelled out)."""
        out: dict[str, Any] = {
            "name": self.name, "game": self.game, "expansions": list(self.expansions),
            "players": self.players, "games": self.games, "seed": self.seed,
            "seat_rotation": self.seat_rotation,
        }
        if self.description:
            out["description"] = self.description
        out["rules"] = dict(self.arms[0].rules)
        out["seats"] = [_seat_dict(s) for s in self.arms[0].seats]
        if len(self.arms) > 1:
            base = self.arms[0].rules
            out["variants"] = [
                {"name": a.name, **({"description": a.description} if a.description else {}),
                 **({"players": a.players} if a.players is not None else {}),
                 # a base option the variant removed (``add_variants``' ``None``)
                 **({"unset": unset} if (unset := [k for k in base if k not in a.rules])
                    else {}),
                 "rules": dict(a.rules), "seats": [_seat_dict(s) for s in a.seats]}
                for a in self.arms[1:]
            ]
        if self.questions:
            out["questions"] = [q.as_dict() for q in self.questions]
        return out

    def fingerprint(self) -> str:
        """A hash of the rules, seats and variants (not ``seed``, ``games`` or ``name``)."""
        data = self.to_dict()
        for key in ("name", "description", "games", "seed", "questions"):
            data.pop(key, None)
        for v in data.get("variants", []):
            v.pop("description", None)
            v.pop("unset", None)  # read off its rules: the hash stays what it was
        text = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _seat_dict(seat: Seat) -> dict[str, Any]:
    return {"policy": seat.policy, "name": seat.name, "params": dict(seat.params)}


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file.

    Relative paths in rule options ending in ``_file`` (and a seat's ``params_file``) are
    resolved against the file's folder.

    Raises
    ------
    ScenarioError
        Missing or unreadable file, malformed TOML, or any invalid field (see ``parse_scenario``).
    """
    data, label = read_toml(path)
    return parse_scenario(data, file=label, base_dir=Path(path).parent)


def read_toml(path: str | Path) -> tuple[dict[str, Any], str]:
    """The parsed TOML of a study file and its label for messages (the path as given).

    Raises
    ------
    ScenarioError
        Missing or unreadable file, malformed TOML.
    """
    path = Path(path)
    label = str(path)
    try:
        return userfiles.read_toml(path), label
    except userfiles.UnreadableFile as err:
        if err.kind == "directory":
            raise ScenarioError(f"{label}: a directory, not a study file (give a .toml file)") from None
        raise ScenarioError(f"{label}: {err.reason}") from None


class _Skip(Exception):
    """A check failed and noted its problem (``Problems.fail``): skip the rest of it."""


class Problems:
    """Every problem of one study file, each a line ``FILE: FIELD: what is wrong``.

    ``fail(field, message)`` notes a problem and stops the check it is in; ``check()`` is a
    block whose failure stops only itself, so the next field is still checked; ``raise_any``
    raises them together.
    """

    def __init__(self, file: str):
        self.file = file
        self.lines: list[str] = []

    def fail(self, fld: str, msg: str):
        """Note a problem and stop the current check."""
        self.lines.append(f"{self.file}: {fld}: {msg}" if fld else f"{self.file}: {msg}")
        raise _Skip

    def check(self) -> AbstractContextManager[None]:
        """A block whose failure (``fail``) is noted and skipped."""
        return suppress(_Skip)

    def raise_any(self) -> None:
        """Raise every problem noted so far as one ``ScenarioError`` (one line each)."""
        if self.lines:
            raise ScenarioError.of(self.lines)


def parse_scenario(data: Mapping[str, Any], file: str = "<scenario>",
                   base_dir: Path | None = None) -> Scenario:
    """Validate scenario data (as parsed from TOML) into a ``Scenario``.

    Every arm's rules go through the game's ``make_config`` and every seat through
    ``build_policy``, so a returned scenario runs.

    Raises
    ------
    ScenarioError
        Every problem found, one line each (``Problems``): unknown key, game, expansion,
        card, policy or parameter; wrong type; player count outside the game's range;
        games < 1; bad seed; duplicate or reserved variant names.
    """
    problems = Problems(file)
    fail, each = problems.fail, problems.check
    head = parse_head(data, base_dir, TOP_KEYS, problems)
    if head.spec is None or head.players is None or head.expansions is None:
        problems.raise_any()  # the rest needs the game, its player count and expansions
    spec, players, rules = head.spec, head.players, head.rules
    rotation = True
    with each():
        rotation = typed(data, "seat_rotation", bool, fail, default=True)
    seats = None
    with each():
        seats = _seats(data.get("seats"), "seats", players, spec, fail, base_dir, each)
    arms = [Arm(BASE, rules, seats or ())]
    taken = {BASE}
    variants: list = []
    with each():
        variants = typed(data, "variants", list, fail, default=[])
    for j, var in enumerate(variants):
        arm = _variant(var, f"variants[{j}]", taken, data, head, seats, problems, base_dir)
        if arm is not None:
            arms.append(arm)
            taken.add(arm.name)
    if seats is not None:
        memo: dict[tuple, RuleError | None] = {}
        # the base's error, said once for the base, not again for each variant
        inherited = rules_error(spec, players, head.expansions, rules, memo)
        for i, arm in enumerate(arms):
            with each():
                own = {k for k, v in arm.rules.items() if k not in rules or rules[k] != v}
                check_rules(spec, arm.players or players, head.expansions, arm.rules,
                            f"variants[{i - 1}].rules" if i else "rules", fail, memo,
                            inherited=inherited if i else None, own=own)
    questions: tuple[Question, ...] = ()
    with each():
        questions = parse_questions(data, fail)
    problems.raise_any()
    return Scenario(file, head.name, spec.name, tuple(head.expansions), players, head.games,
                    head.seed, rotation, tuple(arms), head.description, questions)


def parse_questions(data: Mapping[str, Any], fail) -> tuple[Question, ...]:
    """The ``[[questions]]`` of a scenario or pool: each a table of ``ask`` and ``finding``,
    both non-empty strings, and optionally ``tolerance``, a positive finite number (in the
    finding's unit). Whether ``finding`` names a key of the run is checked where the keys can
    be known (``analyzer.report.answers``)."""
    out = []
    for j, entry in enumerate(typed(data, "questions", list, fail, default=[])):
        at = f"questions[{j}]"
        known_keys(entry, at, QUESTION_KEYS, fail)
        ask, finding = (typed(entry, key, str, fail, where=at, limit=limit).strip()
                        for key, limit in (("ask", TEXT_MAX), ("finding", NAME_MAX)))
        if not ask:
            fail(f"{at}.ask", "must not be empty")
        if not finding:
            fail(f"{at}.finding", "must not be empty (a key as `analyzer findings RUN_DIR` "
                                  "lists, e.g. first_player:base)")
        tolerance = entry.get("tolerance")
        if "tolerance" in entry and (isinstance(tolerance, bool) or not isinstance(
                tolerance, (int, float)) or not math.isfinite(tolerance) or tolerance <= 0):
            fail(f"{at}.tolerance", "must be a positive, finite number in the finding's unit "
                 f"(e.g. 2 for ±2 pp; got {shown(tolerance)})")
        out.append(Question(ask, finding, None if tolerance is None else float(tolerance)))
    return tuple(out)


def _variant(var: Any, where: str, taken: set[str], data: Mapping[str, Any], head: Head,
             seats: tuple[Seat, ...] | None, problems: Problems,
             base_dir: Path | None) -> Arm | None:
    """One ``[[variants]]`` entry as an ``Arm``; ``None`` when a field of it failed (each
    failure noted in ``problems``) or the base seats it would copy failed."""
    fail, each, before = problems.fail, problems.check, len(problems.lines)
    spec, players = head.spec, head.players
    found: dict[str, Any] = {}
    with each():
        known_keys(var, where, VARIANT_KEYS, fail, each)
        with each():
            vname = typed(var, "name", str, fail, where=where, limit=NAME_MAX)
            if vname == BASE or not vname:
                fail(f"{where}.name", f"{vname!r} is reserved for the base scenario")
            if vname in taken:  # a set: a file of 60,000 variants is checked in linear time
                fail(f"{where}.name", f"duplicate variant name {vname!r}")
            found["name"] = vname
        with each():
            found["rules"] = _rules(typed(var, "rules", dict, fail, default={}, where=where),
                                    f"{where}.rules", base_dir)
        with each():
            found["description"] = typed(var, "description", str, fail, "", where, TEXT_MAX)
        with each():
            found["unset"] = _unset(var, where, head.rules, found.get("rules") or {}, fail)
        vplayers = typed(var, "players", int, fail, default=players, where=where)
        try:
            spec.players.check(vplayers, head.expansions)
        except RuleError as err:
            fail(f"{where}.players", err.message)
        if "seats" in var:
            found["seats"] = _seats(var["seats"], f"{where}.seats", vplayers, spec, fail,
                                    base_dir, each)
        elif seats is None:
            return None  # the base seats failed: noted there
        elif vplayers == players:
            found["seats"] = seats
        elif len(data["seats"]) == 1:  # one player at every seat: as many seats as players
            found["seats"] = seats[:1] * vplayers
        else:
            fail(f"{where}.seats", f"missing: the base lists {players} seats, so a variant "
                                   f"with {vplayers} players needs its own (1 entry for all "
                                   f"seats or exactly {vplayers})")
        if len(problems.lines) == before:
            rules = {k: v for k, v in {**head.rules, **found["rules"]}.items()
                     if k not in found["unset"]}
            return Arm(found["name"], rules, found["seats"], found["description"],
                       None if vplayers == players else vplayers)
    return None


def _unset(var: Mapping[str, Any], where: str, base: Mapping[str, Any],
           own: Mapping[str, Any], fail) -> frozenset[str]:
    """A variant's ``unset``: rule options of the base's ``[rules]`` the variant leaves at
    the game's default (an ablation that replaces a named set by its own list). Each must be
    set in the base's ``[rules]`` and not again in the variant's own ``rules``."""
    names = typed(var, "unset", list, fail, default=[], where=where)
    for i, name in enumerate(names):
        at = f"{where}.unset[{i}]"
        if not isinstance(name, str) or name not in base:
            fail(at, f"must name a rule option of the base's [rules] (set there: "
                     f"{', '.join(base) or 'none'}; got {shown(name)})")
        if name in own:
            fail(at, f"{name!r} is also set in this variant's rules: give one of the two")
    return frozenset(names)


@dataclass(frozen=True)
class Head:
    """The top-level fields a scenario and a tournament pool share (``parse_head``)."""

    name: str
    description: str
    spec: GameSpec
    expansions: tuple[str, ...]
    players: int
    games: int
    seed: int
    rules: Mapping[str, Any]


# a key that only another kind of study file has: what the file is and which command reads it
OTHER_KIND = {"entrants": "; this is a tournament pool: use `analyzer tournament`",
              "seats": "; this is a scenario: use `analyzer simulate` (a tournament pool names "
                       "its [[entrants]])",
              "variants": "; this is a scenario: use `analyzer simulate` (a tournament pool "
                          "has no variants)"}


def parse_head(data: Mapping[str, Any], base_dir: Path | None, allowed: tuple[str, ...],
               problems: Problems) -> Head:
    """Check the top-level fields a study file shares with a scenario: only ``allowed`` keys;
    ``name`` (default: the file name), ``description``, ``game``, ``expansions``,
    ``players``, ``games``, ``seed`` and ``[rules]`` (relative ``*_file`` paths resolved
    against ``base_dir``; the caller checks the rules with ``check_rules``).

    Every failure is noted in ``problems`` (the caller raises them) and leaves its field
    ``None``; a study file of another kind raises its one ``ScenarioError`` at once.
    """
    fail, each, file = problems.fail, problems.check, problems.file
    if not isinstance(data, Mapping):
        fail("scenario", f"must be a table (got {type(data).__name__})")
    if "entrants" in data and ("seats" in data or "variants" in data):
        raise ScenarioError(f"{file}: entrants: a study file is a scenario ([[seats]], "
                            "[[variants]]: analyzer simulate) or a tournament pool ([[entrants]]: "
                            "analyzer tournament), not both")
    other = next((k for k in data if k not in allowed and k in OTHER_KIND), None)
    if other is not None:  # another kind of study file: that is the one problem to tell
        raise ScenarioError(f"{file}: {other}: unknown key (allowed: {', '.join(allowed)})"
                            f"{OTHER_KIND[other]}")
    known_keys(data, "", allowed, fail, each)
    got: dict[str, Any] = {"rules": {}}
    with each():
        name = typed(data, "name", str, fail, default=None)
        if name is None and base_dir is not None:
            name = Path(file).stem
        if not name:
            fail("name", "missing (give the study a name)")
        if len(name) > NAME_MAX:
            fail("name", f"at most {NAME_MAX} characters (got {shown(name)})")
        if not valid_name(name):
            fail("name", f"only letters, digits and -_. are allowed, not dots alone "
                         f"(got {name!r})")
        got["name"] = name
    with each():
        got["description"] = typed(data, "description", str, fail, "", limit=TEXT_MAX)
    with each():
        try:
            got["spec"] = get_game(typed(data, "game", str, fail))
        except RuleError as err:
            fail("game", err.message)
    with each():
        listed = typed(data, "expansions", list, fail, default=[])
        for j, exp in enumerate(listed):
            if not isinstance(exp, str):
                fail(f"expansions[{j}]", f"must be a string (got {exp!r})")
        got["expansions"] = tuple(listed)
    with each():
        count = typed(data, "players", int, fail)
        if "spec" in got and "expansions" in got:
            try:
                got["spec"].players.check(count, got["expansions"])
            except RuleError as err:
                if err.field == "expansions":
                    del got["expansions"]
                fail(err.field, err.message)
        got["players"] = count
    for key, default in (("games", 1000), ("seed", 0)):
        with each():
            value = typed(data, key, int, fail, default)
            if count_problem(key, value):
                fail(key, count_problem(key, value))
            got[key] = value
    with each():
        got["rules"] = _rules(typed(data, "rules", dict, fail, default={}), "rules", base_dir)
    return Head(**{f.name: got.get(f.name) for f in fields(Head)})


def count_problem(key: str, value: int) -> str:
    """What is wrong with a scenario's ``games`` or ``seed`` (``""``: nothing)."""
    if key == "games" and value < 1:
        return f"must be at least 1 (got {value})"
    if key == "games" and value > MAX_GAMES:
        return f"at most {MAX_GAMES:,} per variant (got {value})"
    if key == "seed" and not 0 <= value <= MAX_SEED:
        return f"must be in 0..2**63-1 (got {value})"
    return ""


def rules_error(spec: GameSpec, players: int, expansions: tuple[str, ...],
                rules: Mapping[str, Any],
                memo: dict[tuple, RuleError | None] | None = None) -> RuleError | None:
    """The ``RuleError`` the game's ``make_config`` raises for ``rules``, else None; with
    ``memo``, the same rules at the same player count are checked once."""
    memo = {} if memo is None else memo
    key = (players, tuple(expansions), json.dumps(rules, sort_keys=True, default=repr))
    if key not in memo:
        try:
            spec.make_config(players, tuple(expansions), rules)
            memo[key] = None
        except RuleError as err:
            memo[key] = err
    return memo[key]


def check_rules(spec: GameSpec, players: int, expansions: tuple[str, ...],
                rules: Mapping[str, Any], where: str, fail,
                memo: dict[tuple, RuleError | None] | None = None,
                inherited: RuleError | None = None,
                own: Collection[str] = ()) -> RuleError | None:
    """``fail`` with the field inside ``where`` (e.g. ``rules``) unless the game's
    ``make_config`` accepts ``rules``; returns the error found, else None. With ``memo`` (one
    dict per study file) the same rules at the same player count are checked once: many
    variants often share their rules. A variant's error equal to ``inherited`` (the base's) on
    a field the variant does not set itself (``own``: its rule options that differ from the
    base's) is the base's mistake, already said: not said again."""
    found = rules_error(spec, players, expansions, rules, memo)
    if found is None:
        return None
    option = re.split(r"[.\[]", found.field, maxsplit=1)[0]
    said = inherited is not None and (found.field, found.message) == (inherited.field,
                                                                      inherited.message)
    if said and option not in own:
        return found
    fld = f"{where}.{found.field}" if found.field not in ("", "players") else (found.field or where)
    fail(fld, found.message)
    return found


def valid_name(name: str) -> bool:
    """Whether ``name`` can name a run directory (``reports/NAME``): letters, digits and
    ``-_.``, not empty and not dots alone (``.``, ``..``)."""
    return bool(name.strip(".")) and all(c.isalnum() or c in "-_." for c in name)


def with_overrides(scenario: Scenario, games: int | None = None, seed: int | None = None) -> Scenario:
    """The scenario with a caller's ``games`` / ``seed`` (``--games`` / ``--seed``) applied.

    Raises
    ------
    OptionError
        ``games`` outside 1..MAX_GAMES or ``seed`` outside 0..2**63-1.
    """
    for key, value in (("games", games), ("seed", seed)):
        if value is not None:
            if count_problem(key, value):
                raise OptionError(key, count_problem(key, value))
            scenario = replace(scenario, **{key: value})
    return scenario


def to_toml(scenario: Scenario) -> str:
    """The scenario as TOML text (``tomli_w``) that ``load_scenario`` reads back to an equal
    scenario."""
    return tomli_w.dumps(scenario.to_dict())


def key_at(where: str, key: str) -> str:
    """The field ``key`` of the table at ``where`` (``seats[2].name``; ``key`` at the top)."""
    return f"{where}.{key}" if where else key


def known_keys(table, where: str, allowed, fail, each=None) -> None:
    """Fail unless ``table`` is a table whose keys are all in ``allowed``; with ``each``
    (``Problems.check``) every unknown key is noted."""
    if not isinstance(table, Mapping):
        fail(where, f"must be a table (got {table!r})")
    for key in [key for key in table if key not in allowed]:
        with (each or nullcontext)():
            fail(key_at(where, key), f"unknown key (allowed: {', '.join(allowed)})")


def typed(data, key, want, fail, default=..., where="", limit=0):
    """``data[key]`` checked against type ``want``; ``default`` when absent (required if none).
    With ``limit`` a string (also the default) must be printable text of at most ``limit``
    characters (``text_problem``)."""
    if key not in data and default is ...:
        fail(key_at(where, key), "missing")
    value = data.get(key, default)
    if key in data and (not isinstance(value, want) or want is int and isinstance(value, bool)):
        fail(key_at(where, key), f"must be {_TYPE_NAMES.get(want, want.__name__)} (got {shown(value)})")
    if limit and isinstance(value, str) and text_problem(value, limit):
        fail(key_at(where, key), text_problem(value, limit))
    return value


_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false", list: "a list",
               dict: "a table"}

#: The longest name (a variant's, a seat's or entrant's, a finding key) and the longest text (a
#: question, a description) a study file may give: each is shown in tables, charts and folders.
NAME_MAX = 200
TEXT_MAX = 1000
# characters that reorder or hide text around them (bidirectional overrides and isolates)
_BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def shown(value: Any, width: int = 60) -> str:
    """``repr(value)`` for a one-line message, a long one cut (``'xxx…' (10,000 characters)``)."""
    text = repr(value)
    if len(text) <= width:
        return text
    size = f" ({len(value):,} characters)" if isinstance(value, str) else ""
    return f"{text[:width]}…{size}"


def text_problem(text: str, limit: int) -> str:
    """What keeps ``text`` (a name or a sentence a report shows) out of a report: a control
    character (also a line or paragraph separator, a bidirectional override) or more than
    ``limit`` characters; ``""`` when it is fine."""
    for i, c in enumerate(text):
        if c in _BIDI or unicodedata.category(c) in ("Cc", "Zl", "Zp"):
            return (f"must not hold control characters (got U+{ord(c):04X} at position {i} of "
                    f"{shown(text)}; allowed: printable text)")
    if len(text) > limit:
        return f"at most {limit} characters (got {shown(text)})"
    return ""


def _rules(rules: dict, where: str, base_dir: Path | None) -> dict:
    """Rule options with relative ``*_file`` paths resolved against the scenario's folder."""
    out = dict(rules)
    for key, value in rules.items():
        if key.endswith("_file") and isinstance(value, str) and base_dir is not None:
            p = Path(value)
            if not p.is_absolute():
                p = base_dir / p
                # unresolvable (a symlink loop): as given, the table reader refuses it by name
                with suppress(OSError, RuntimeError):
                    p = p.resolve()
            out[key] = str(p)
    return out


def _seats(raw, where: str, players: int, spec: GameSpec, fail, base_dir: Path | None,
           each) -> tuple[Seat, ...]:
    """The seats of ``raw`` (a list of seat tables); every seat's problem is noted (``each``),
    then ``fail`` stops here after them."""
    if raw is None:
        fail(where, f"missing (give one [[seats]] entry for all seats or {players}; "
                    f"policies: {', '.join(sorted(spec.policies))})")
    if not isinstance(raw, list) or not raw:
        fail(where, f"must be a non-empty list of seat tables (got {raw!r})")
    if len(raw) not in (1, players):
        fail(where, f"{len(raw)} entries for {players} players (give 1 entry for all seats or "
                    f"exactly {players})")
    seats: list[Seat] = []
    for j, entry in enumerate(raw):
        with each():
            seats.append(parse_seat(entry, f"{where}[{j}]", spec, fail, base_dir))
    if len(seats) < len(raw):
        raise _Skip  # every failed seat was noted
    by_name: dict[str, Seat] = {}
    for j, seat in enumerate(seats):
        other = by_name.setdefault(seat.name, seat)
        if other != seat:
            fail(f"{where}[{j}].name", f"two seats named {seat.name!r} differ in policy or params; "
                                       "give each a distinct name")
    if len(seats) == 1:
        seats = seats * players
    return tuple(seats)


def parse_seat(entry, at: str, spec: GameSpec, fail, base_dir: Path | None = None) -> Seat:
    """One ``[[seats]]`` table (or a pool's ``[[entrants]]``) as a checked ``Seat``.

    Keys: ``policy``, ``params``, ``params_file`` (``read_params_file``, relative to
    ``base_dir``; its parameters first, then ``params`` on top) and ``name`` (default: the
    params file's stem, else the policy). ``policy`` may be left out when the params file
    names one. ``fail(field, message)`` raises the caller's
    error; ``at`` prefixes every field (``seats[2]``).
    """
    known_keys(entry, at, SEAT_KEYS, fail)
    policy = typed(entry, "policy", str, fail, default=None, where=at)
    params = typed(entry, "params", dict, fail, default={}, where=at)
    path = typed(entry, "params_file", str, fail, default=None, where=at)
    if path is not None:
        try:
            policy, from_file = read_params_file(path, base_dir, spec, policy)
        except ScenarioError as err:
            fail(f"{at}.params_file", str(err))
        params = {**from_file, **params}
    elif policy is None:
        fail(f"{at}.policy", f"missing (policies: {', '.join(sorted(spec.policies))})")
    try:
        build_policy(spec.policies, policy, params)
    except RuleError as err:
        fail(at if err.field == "policy" else f"{at}.{err.field}", err.message)
    # a player from a parameters file is named by the file (its stem), not by its policy
    name = typed(entry, "name", str, fail, Path(path).stem if path is not None else policy, at,
                 NAME_MAX)
    if not name:
        fail(f"{at}.name", "must not be empty")
    return Seat(name, policy, dict(params))


def read_params_file(path: str | Path, base_dir: Path | None, spec: GameSpec,
                     policy: str | None = None) -> tuple[str, dict[str, Any]]:
    """Read a policy-parameters file (``params_file``; ``analyzer tune`` writes them).

    The file is TOML with ``params`` (a table of parameter values) and, optionally, ``game``
    and ``policy``, which must then match the scenario's game and the seat's policy::

        game = "GAME"
        policy = "greedy"
        [params]
        some_weight = 1.25

    A relative ``path`` is read from ``base_dir`` (the scenario's folder); ``policy`` is the
    seat's (``None``: the file's). Returns the policy and its parameters, checked with
    ``build_policy`` (names, types, bounds).

    Raises
    ------
    ScenarioError
        ``PATH: FIELD: what is wrong``: missing or unreadable file, malformed TOML, an unknown
        key, another game or policy, an unknown parameter or a value outside its bounds.
    """
    p = Path(path)
    if not p.is_absolute() and base_dir is not None:
        p = base_dir / p
    label = str(path) if str(p) == str(path) else f"{path} (read as {p})"

    def fail(fld: str, msg: str):
        raise ScenarioError(f"{label}: {fld}: {msg}")

    try:
        data = userfiles.read_toml(p)
    except userfiles.UnreadableFile as err:
        raise ScenarioError(f"{label}: {err.reason}") from None
    if "entrants" in data or "seats" in data:  # a study file where a parameters file belongs
        kind = "a tournament pool" if "entrants" in data else "a scenario"
        raise ScenarioError(f"{label}: this is {kind}, not a parameters file (a [params] table "
                            "of one policy, as analyzer tune writes)")
    known_keys(data, "", PARAMS_FILE_KEYS, fail)
    game = typed(data, "game", str, fail, default=spec.name)
    if game != spec.name:
        fail("game", f"the parameters are for {game!r}, not {spec.name!r}")
    named = typed(data, "policy", str, fail, default=None)
    if named is not None and policy is not None and named != policy:
        fail("policy", f"the parameters are for policy {named!r}, not {policy!r}")
    policy = policy or named
    if policy is None:
        fail("policy", "missing here and in the seat (name the policy in one of them)")
    params = typed(data, "params", dict, fail)
    try:
        build_policy(spec.policies, policy, params)
    except RuleError as err:
        fail(err.field or "params", err.message)
    return policy, dict(params)


def add_variants(scenario: Scenario, variants: list[tuple], where: str = "variants",
                 option: bool = False) -> Scenario:
    """The scenario with more arms, each the base with some rule options changed.

    Shared by the study commands that expand one scenario into many variants (``sweep``,
    ``ablate``). Every new arm is checked with the game's ``make_config``.

    Parameters
    ----------
    variants : list of (name, rule overrides, description[, seats[, players]])
        Overrides apply on top of the base's rules; a value ``None`` removes the option.
        ``seats`` (a tuple of ``Seat``, one per seat) replaces the base seats; each seat's
        policy parameters are checked with ``build_policy``. ``players``: the arm's player
        count when it differs from the scenario's (``seats`` must then be given, one per
        seat).
    where : str
        What made the variants, named in messages (``"ablate"``); or, with ``option``, the
        keyword argument they came from (``"params"`` of ``sweep``): an ``OptionError``.

    Raises
    ------
    ScenarioError
        A duplicate arm name, overrides the game refuses or a bad policy parameter.
    """
    def refuse(message: str) -> ScenarioError:
        return OptionError(where, message) if option else ScenarioError(f"{where}: {message}")

    base = scenario.arms[0]
    arms = list(scenario.arms)
    taken = {a.name for a in arms}
    for name, overrides, desc, *rest in variants:
        seats = rest[0] if rest and rest[0] is not None else base.seats
        players = rest[1] if len(rest) > 1 and rest[1] != scenario.players else None
        if name in taken:
            raise refuse(f"duplicate variant name {name!r}")
        if text_problem(str(name), 10 * NAME_MAX):  # a value given on the command line
            raise refuse(f"variant {shown(name)}: {text_problem(str(name), 10 * NAME_MAX)}")
        rules = {k: v for k, v in {**base.rules, **overrides}.items() if v is not None}
        try:
            scenario.spec.make_config(players or scenario.players, scenario.expansions, rules)
        except RuleError as err:
            raise refuse(f"variant {name!r}: {err}") from None
        for seat in seats:
            try:
                build_policy(scenario.spec.policies, seat.policy, seat.params)
            except RuleError as err:
                raise refuse(f"variant {name!r}: policy {seat.policy!r}: {err}") from None
        arms.append(Arm(name, rules, tuple(seats), desc, players))
        taken.add(name)
    return replace(scenario, arms=tuple(arms))
