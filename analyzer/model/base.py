"""The contract between a game package and the game-agnostic rest of analyzer.

Every game package ``analyzer/games/<game>/`` exposes one ``SPEC: GameSpec``. The runner,
stats and report see a game only through it and through the records it returns.
Nothing outside ``analyzer/games/<game>/`` imports a game's internals.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import importlib
import importlib.machinery
import random
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.errors import RuleError

if typing.TYPE_CHECKING:
    from analyzer.model.content import ContentPrior

# Columns every record carries, whatever the game. The runner adds game_id/seed/variant.
COMMON_GAME_COLUMNS: dict[str, str] = {
    "n_players": "int64",
    "rounds": "int64",  # turns or rounds, as the game counts them
    "end": "string",  # "trigger" (a normal end) or "turn_cap"
    "winner_seats": "string",  # comma-separated seat numbers, e.g. "0" or "1,3"
    "rules_version": "string",
}
COMMON_SEAT_COLUMNS: dict[str, str] = {
    "seat": "int64",
    "policy": "string",
    "score": "float64",
    "rank": "int64",  # 1 = best; tied seats share the best rank
    "won": "float64",  # 1/k for a k-way tie for first, else 0
    # turn-order position when the game starts, 0 = the start player (who is not always seat 0)
    "start_position": "int64",
}
# Seat columns with a meaning the game-agnostic report knows: a game records the ones that apply
# to it, with these dtypes (the report reads them only when present).
SHARED_SEAT_COLUMNS: dict[str, str] = {
    "died": "int64",  # 1 = the seat's player died (a death rate is shown)
    "tiebreak": "float64",  # the key that breaks a tie on score, higher wins
}


@dataclass(frozen=True)
class RuleValue:
    """One rule value with where it comes from (the provenance tags of ``docs/rules/<game>.md``).

    ``provenance`` is one of ``"seed"``, ``"rulebook"``, ``"default"`` (a labelled
    ``[GAP → DEFAULT]`` of the rules file) or ``"user"`` (set by the scenario: an option it
    names, whatever the value, or a user table).
    """

    name: str
    value: Any
    provenance: str
    section: str = ""  # e.g. "docs/rules/rattus.md §5.2"


# ---------------------------------------------------------------- player counts


@dataclass(frozen=True)
class PlayerCounts:
    """The player counts and expansions a game allows, stated once for the whole program.

    Attributes
    ----------
    game : str
        The game's registry name, for messages.
    low, high : int
        Inclusive player range without expansions.
    expansions : tuple of str
        Every expansion a scenario may list.
    raised : mapping of str to int
        Expansion -> the most players it allows (Rattus: ``{"africanus": 6}``).
    """

    game: str
    low: int
    high: int
    expansions: tuple[str, ...] = ()
    raised: Mapping[str, int] = field(default_factory=dict)

    @property
    def most(self) -> int:
        """Most players with every expansion."""
        return max([self.high, *self.raised.values()])

    def check(self, players: Any, expansions: Sequence[str] = ()) -> tuple[str, ...]:
        """The expansions as a tuple, after checking them and ``players`` against each other.

        Raises
        ------
        RuleError
            ``"expansions"``: an unknown or repeated expansion; ``"players"``: not an integer,
            or a count the expansions do not allow.
        """
        exps = tuple(expansions)
        for e in exps:
            if e not in self.expansions:
                raise RuleError("expansions", f"unknown expansion {e!r} of {self.game} "
                                              f"(allowed: {', '.join(self.expansions) or 'none'})")
        if len(set(exps)) != len(exps):
            raise RuleError("expansions", f"an expansion is listed twice (got {list(exps)!r})")
        if not isinstance(players, int) or isinstance(players, bool):
            raise RuleError("players", f"must be an integer (got {players!r})")
        high = max([self.high, *(self.raised[e] for e in exps if e in self.raised)])
        if not self.low <= players <= high:
            more = "".join(f"; {self.high + 1}{'' if top == self.high + 1 else f'-{top}'} players need the {e} "
                           "expansion" for e, top in self.raised.items() if e not in exps and top > high)
            with_ = f" with {', '.join(exps)}" if exps else ""
            raise RuleError("players", f"{players} is outside {self.game}'s range "
                                       f"(allowed: {self.low}..{high}{with_}{more})")
        return exps


# ---------------------------------------------------------------- rule options

PROVENANCES = ("seed", "rulebook", "default")  # tags of docs/rules/<game>.md; "user" = set by the scenario


@dataclass(frozen=True)
class Option:
    """One rule option, declared once: default, allowed values, rules section, help, provenance.

    ``check`` is the only type and bounds check of a rule option, ``OptionSet.resolve`` the only
    resolver, and ``analyzer list rules`` prints ``OptionSet.describe``; a game adds only its
    cross-field checks (e.g. a list whose length depends on another option).

    Attributes
    ----------
    name : str
        Key under a scenario's ``[rules]``.
    default : Any
        Value when the scenario does not set it; ``None``: not set (e.g. a user table, or an
        explicit list that replaces a random draw).
    type : type
        ``bool``, ``int``, ``float``, ``str``, ``list`` (of ``item``) or ``Path`` (a path to a
        TOML file, written as a string). An int is never a bool; an int is accepted for a float.
    choices : tuple
        Allowed values of a ``str`` option or of the items of a list of ``str`` (empty: any).
    low, high : float or None
        Inclusive bounds of an ``int``/``float`` option or of each number in a list (``None``:
        unbounded on that side).
    item : type or None
        Type of a list's items.
    length : int or None
        Exact length of a list (otherwise any length >= 1).
    also : tuple
        Values allowed besides the type, e.g. ``("random",)`` for a seat number.
    allowed : str
        What the game's own check allows beyond ``type``, for ``list rules`` (e.g. "a region
        name in use"); replaces the generated text.
    section : str
        Section of ``docs/rules/<game>.md``, e.g. ``"§7 C.2"``.
    help : str
        One line, with units.
    provenance : str
        Tag of the default in the rules file: ``"seed"``, ``"rulebook"`` or ``"default"``.
    provenance_at : mapping of int to str
        Player counts at which the default carries another tag (Rattus ``cubes_per_player`` is
        a labelled default for colours 5-6).
    alternatives : tuple
        Other values a source or the rules file documents for a labelled default (e.g. the
        alternative spread table); ``analyzer robustness`` re-runs a study with each. A ``bool``
        default's alternative is the other value and a ``str`` option's are its other
        ``choices`` without being listed; a simulator guard (a turn cap) lists none.
    guard : bool
        A simulator guard (a round or turn cap that stops a runaway game), not a rule of the
        game: ``analyzer balance`` never varies it (``analyzer.study.knobs``).
    """

    name: str
    default: Any
    type: type
    section: str
    help: str
    provenance: str = "default"
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    item: type | None = None
    length: int | None = None
    also: tuple = ()
    allowed: str = ""
    provenance_at: Mapping[int, str] = field(default_factory=dict)
    alternatives: tuple = ()
    guard: bool = False

    def allowed_text(self) -> str:
        """What the option accepts, e.g. ``"integer 1..6"`` or ``"one of discard, deck_bottom"``."""
        if self.allowed:
            return self.allowed
        extra = "".join(f"{v!r} or " for v in self.also)
        if self.type is list:
            what = f"list of {self.length}" if self.length else "non-empty list of"
            return f"{extra}{what} {_plural(self._scalar_text(self.item))}"
        return extra + self._scalar_text(self.type)

    def _scalar_text(self, kind: type | None) -> str:
        if kind is bool:
            return "true or false"
        if kind is Path:
            return "path to a TOML file"
        if self.choices:
            return ", ".join(map(str, self.choices))
        if kind in (int, float):
            name = "integer" if kind is int else "number"
            if self.low is not None and self.high is not None:
                return f"{name} {_num(self.low)}..{_num(self.high)}"
            if self.low is not None:
                return f"{name} >= {_num(self.low)}"
            if self.high is not None:
                return f"{name} <= {_num(self.high)}"
            return name
        return "string"

    def check(self, value: Any) -> Any:
        """``value`` if the option allows it (a list comes back as a tuple, an int for a float
        as a float).

        Raises
        ------
        RuleError
            ``RuleError(name, "must be <allowed> (got <value>)")``.
        """
        if value in self.also and not isinstance(value, bool):
            return value
        if self.type is list:
            ok = isinstance(value, (list, tuple)) and len(value) >= 1 and (
                self.length is None or len(value) == self.length)
            items = tuple(self._scalar(v, self.item) for v in value) if ok else ()
            if ok and _BAD not in items:
                return items
            got = f"{value[items.index(_BAD)]!r} in {value!r}" if ok else repr(value)
        else:
            out = self._scalar(value, self.type)
            if out is not _BAD:
                return out
            got = repr(value)
        text = self.allowed_text()
        if self.choices and self.type is str and not self.allowed:
            text = "one of " + text
        article = "an " if text.startswith("integer") else "a " if text.startswith(_NOUNS) else ""
        raise RuleError(self.name, f"must be {article}{text} (got {got})")

    def _scalar(self, value: Any, kind: type | None) -> Any:
        if kind is bool:
            return value if isinstance(value, bool) else _BAD
        if kind is Path:
            return str(value) if isinstance(value, (str, Path)) and str(value) else _BAD
        if kind in (int, float):
            if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
                return _BAD
            if (self.low is not None and not value >= self.low) or (self.high is not None and not value <= self.high):
                return _BAD  # written so that NaN is refused
            return float(value) if kind is float else value
        if kind is str:
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                return _BAD
            return value
        return value  # kind None: any item


_BAD = object()  # sentinel of Option._scalar: the value is not allowed
_NOUNS = ("number", "string", "path", "list", "non-empty")  # allowed texts read "must be a ..."


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _plural(text: str) -> str:
    return {"true or false": "booleans", "path to a TOML file": "paths", "string": "strings"}.get(
        text, text.replace("integer", "integers", 1).replace("number", "numbers", 1))


@dataclass(frozen=True)
class OptionSet:
    """A game's rule options, in the order ``analyzer list rules`` shows them.

    Attributes
    ----------
    game : str
        The game's registry name; options cite ``docs/rules/<game>.md``.
    options : tuple of Option
    """

    game: str
    options: tuple[Option, ...]

    @property
    def rules_file(self) -> str:
        """The project's rules reference the options cite, e.g. ``"docs/rules/rattus.md"``."""
        return f"docs/rules/{self.game}.md"

    def __iter__(self):
        return iter(self.options)

    def __len__(self) -> int:
        return len(self.options)

    def __contains__(self, name: object) -> bool:
        return any(o.name == name for o in self.options)

    def __getitem__(self, name: str) -> Option:
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    def names(self) -> list[str]:
        """Option names in declaration order."""
        return [o.name for o in self.options]

    def describe(self, name: str) -> str:
        """One line for ``analyzer list rules``, the same shape in every game:
        ``default <value>; allowed: <values>; <help> [<provenance>] (<rules section>)``."""
        o = self[name]
        prov = o.provenance
        for tag in sorted(set(o.provenance_at.values())):
            counts = ", ".join(str(n) for n in sorted(o.provenance_at) if o.provenance_at[n] == tag)
            prov += f"; {tag} at {counts} players"
        default = "unset" if o.default is None else repr(list(o.default) if isinstance(o.default, tuple)
                                                           else o.default)
        alts = ""
        if o.alternatives and "alternative" not in o.help:
            alts = "; documented alternative " + ", ".join(repr(v) for v in o.alternatives)
        return (f"default {default}; allowed: {o.allowed_text()}; {o.help}{alts} [{prov}] "
                f"({self.rules_file} {o.section})")

    def resolve(self, players: int, rules: Mapping[str, Any]) -> ResolvedOptions:
        """Every option's value for one scenario: the scenario's, checked, or the default.

        Parameters
        ----------
        players : int
            Player count (a default's provenance may depend on it).
        rules : mapping of str to Any
            The scenario's ``[rules]``.

        Raises
        ------
        RuleError
            An unknown option (with "did you mean ...?") or a value its ``Option.check`` refuses.
        """
        for key in rules:
            if key not in self:
                near = difflib.get_close_matches(str(key), self.names(), n=1)
                hint = f"did you mean {near[0]!r}? " if near else ""
                raise RuleError(key, f"unknown rule option of {self.game} ({hint}see "
                                     f"`analyzer list rules --game {self.game}`)")
        values = {o.name: o.check(rules[o.name]) if o.name in rules else o.default for o in self.options}
        return ResolvedOptions(self, players, values, frozenset(rules))


@dataclass(frozen=True)
class ResolvedOptions:
    """The rule options of one scenario: checked values, and which of them the scenario set.

    Attributes
    ----------
    options : OptionSet
    players : int
    values : mapping of str to Any
        Every option's value (the default where the scenario sets none).
    user : frozenset of str
        The options the scenario set: their provenance is ``"user"``, whatever the value.
    """

    options: OptionSet
    players: int
    values: Mapping[str, Any]
    user: frozenset[str]

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def provenance(self, name: str) -> str:
        """``"user"`` when the scenario set ``name``, else the tag of its default at this player count."""
        if name in self.user:
            return "user"
        o = self.options[name]
        return o.provenance_at.get(self.players, o.provenance)

    def same_named(self, config: type, but: Collection[str] = ()) -> dict[str, Any]:
        """The values of the options named like a field of dataclass ``config`` (except those
        in ``but``, which the game derives itself), as keyword arguments for it: a config keeps
        a scalar rule option under the option's name."""
        names = {f.name for f in dataclasses.fields(config)} - set(but)
        return {name: value for name, value in self.values.items() if name in names}

    def rule_value(self, name: str, value: Any = None, provenance: str = "") -> RuleValue:
        """The ``RuleValue`` of option ``name`` (its value and provenance unless given)."""
        return RuleValue(name, self.values[name] if value is None else value,
                         provenance or self.provenance(name),
                         f"{self.options.rules_file} {self.options[name].section}")

    def rule_values(self, idle: Collection[str] = ()) -> list[RuleValue]:
        """The options that acted, in declaration order: every option except those in ``idle``
        (the game's rules never consulted them in this setting) and those left unset
        (value ``None``)."""
        return [self.rule_value(o.name) for o in self.options
                if o.name not in idle and self.values[o.name] is not None]


@dataclass(frozen=True)
class GameSpec:
    """What a game package offers the runner, the CLI and the report.

    Attributes
    ----------
    name : str
        Scenario ``game =`` value, e.g. ``"rattus"``.
    players : PlayerCounts
        The player counts and expansions the game allows (stated once; ``make_config``, the
        scenario loader and the API all check against it).
    rules_version : str
        Bumped whenever a rule change can move results; copied into every game record.
    make_config : callable
        ``make_config(players: int, expansions: Sequence[str], rules: Mapping[str, Any])
        -> config``. Raises ``RuleError(field, message)`` for an unknown or bad rule option,
        content name, data-table file, or a player count the expansions do not allow.
    play_game : callable
        ``play_game(config, policies, seed, log=None) -> (game_record, seat_records)``:
        ``forward.ForwardGame(start, policies).play_game``, the one play loop (parameters
        there). Records are dicts of plain scalars keyed by ``game_columns`` / ``seat_columns``.
    policies : mapping of str to type
        Policy registry: name -> frozen dataclass whose parameters are declared with ``param``.
    game_columns, seat_columns : mapping of str to str
        Declared record columns -> pandas dtype (include the COMMON_* columns).
    rule_values : callable
        ``rule_values(config) -> list[RuleValue]``: every content table and rule option that
        acted in a game under ``config``, with provenance, for the report's "labelled defaults
        in use" list.
    options : OptionSet
        The game's rule options (``analyzer list rules`` formats them).
    content : mapping of str to tuple of str
        Names a scenario may use, by kind (``"cards"``, ``"buildings"``, ``"sites"``...), for
        ``analyzer list``.
    ablations : callable, optional
        ``ablations(config) -> list[Ablation]``: one "without this card/building/special card"
        variant per item in play, for ``analyzer ablate``. ``None``: the game offers none.
    new_state : callable, optional
        ``new_state(config, seed, log=None) -> GameState``: the forward model (``model/forward.py``)
        paused at the game's first decision; ``seed`` as for ``play_game``
        (``forward.ForwardGame.new_state``).
    title : str
        The game's name in help texts, e.g. ``"Rattus (+ Africanus)"`` (default: ``name``).
    item_kind : str
        What ``analyzer ablate`` takes out, in the report's words: ``"class card"``,
        ``"building"``... (default ``"item"``).
    sections : callable, optional
        ``sections() -> tuple of StudySection`` (``analyzer.report.extension``, the report's
        extension point; not imported here, the model sits below the report): the game's own report sections (its
        ``study.py``), called by the report after the generic ones, in this order. A callable so
        that the study module (pandas, matplotlib) is imported only when a report is built, not
        by the workers that play games. ``None``: the generic report only.
    benchmark : Benchmark, optional
        The table ``analyzer bench`` plays and its targets (``None``: 4 players, or the
        nearest count the game allows, no expansion, no target).
    content_groups : mapping of str to (str, mapping of str to str)
        For a content kind whose names come in groups: ``kind -> (what a group is called,
        name -> its group)``, e.g. ``"buildings" -> ("class", {"palace": "royalty", ...})``;
        ``analyzer list`` shows each name's group.
    tables : mapping of str to Path
        Each ``*_file`` rule option -> the built-in TOML table it replaces. The run facts say
        how a user's table differs from it (``analyzer.tablediff``); an option not listed is
        shown by its path only.
    guesses : tuple of GuessCounter
        The labelled defaults the game counts where they act (each a game record column).
    content_priors : tuple of ContentPrior
        One per guessed content table: what is known about it, what a plausible alternative
        varies, and ``draw(seed) -> table`` (``analyzer/model/content.py``); ``analyzer list
        content`` shows them.
    flow : model.flow.Flow, optional
        What a round is, the visible score, the position estimate, the close margin and who is
        out (``analyzer/model/flow.py``): the runner then records a checkpoint after every
        round (``rounds.parquet``), and its ``play_game`` takes ``checkpoints=``. ``None``: no
        checkpoints, no quality findings.
    consults : tuple of str
        The rule options whose reads the game records per game (bit ``i`` of a game's mask is
        ``consults[i]``, set in the config's one-element ``reads`` list wherever the option is
        read; per decision and player where it narrows or widens the options: ``forward``).
        A game whose mask lacks an option's bit is the same game, seed for seed, under any
        other value of it (``runner.copy_from``). An option not listed counts as consulted in
        every game; docs/architecture.md (``SPEC.consults``) has the whole contract.
    """

    name: str
    players: PlayerCounts
    rules_version: str
    make_config: Callable[[int, Sequence[str], Mapping[str, Any]], Any]
    play_game: Callable[..., tuple[dict, list[dict]]]
    policies: Mapping[str, type]
    game_columns: Mapping[str, str]
    seat_columns: Mapping[str, str]
    rule_values: Callable[[Any], list[RuleValue]]
    options: OptionSet
    content: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    ablations: Callable[[Any], list[Ablation]] | None = None
    new_state: Callable[..., Any] | None = None
    title: str = ""
    item_kind: str = "item"
    sections: Callable[[], Sequence[Any]] | None = None  # of report.extension.StudySection
    benchmark: Benchmark | None = None
    content_groups: Mapping[str, tuple[str, Mapping[str, str]]] = field(default_factory=dict)
    tables: Mapping[str, Path] = field(default_factory=dict)
    guesses: tuple[GuessCounter, ...] = ()
    content_priors: tuple[ContentPrior, ...] = ()
    flow: Any = None  # model.flow.Flow (flow imports nothing of base; kept loose for the layers)
    consults: tuple[str, ...] = ()

    def consult_bit(self, option: str) -> int:
        """The bit of ``option`` in a game's mask of consulted options (``consults``); 0 when
        the game does not track it (then it counts as consulted in every game)."""
        return 1 << self.consults.index(option) if option in self.consults else 0

    def default_config(self, players: int, expansions: Sequence[str] = (), **rules: Any) -> Any:
        """``make_config(players, expansions, rules)``: the game's defaults unless overridden."""
        return self.make_config(players, expansions, rules)

    def display_name(self) -> str:
        """``title``, or ``name`` when the game gives none."""
        return self.title or self.name

    def bench_table(self) -> Benchmark:
        """``benchmark``, or 4 players (clipped to the game's range) without expansions."""
        if self.benchmark is not None:
            return self.benchmark
        return Benchmark(players=min(max(4, self.min_players), self.max_players))

    @property
    def min_players(self) -> int:
        """Fewest players the game allows."""
        return self.players.low

    @property
    def max_players(self) -> int:
        """Most players the game allows with every expansion."""
        return self.players.most

    @property
    def expansions(self) -> tuple[str, ...]:
        """Expansion names a scenario may list."""
        return self.players.expansions


@dataclass(frozen=True)
class GuessCounter:
    """A labelled default counted where it decides something in a game.

    A game record carries ``column`` (int64): how many times, in that game, play went down a
    rule path that exists only because no source says (a ``[GAP → DEFAULT]`` of
    ``docs/rules/<game>.md``) or used guessed content (a stand-in region entered, a guessed
    token face revealed). The report shows, per counter, the share of games where it acted
    (count > 0), and each key finding whether its games lean on them.

    Attributes
    ----------
    column : str
        The game record column, ``"acted_<name>"``; declared in ``GameSpec.game_columns``.
    default : str
        The labelled default's name as ``rule_values`` gives it: a rule option (e.g.
        ``"diplomat_2p_tie_points"``) or a content table (e.g. ``"map"``).
    what : str
        One line saying what happened, e.g. ``"a stand-in Africa region (AF1–AF5) was
        entered"``.
    section : str
        Where the default is stated, e.g. ``"docs/rules/rattus.md §4.3"``.
    """

    column: str
    default: str
    what: str
    section: str


@dataclass(frozen=True)
class Benchmark:
    """The table ``analyzer bench`` plays for a game: every seat one policy, ``players`` seats.

    Attributes
    ----------
    players : int
        Player count of the standard table.
    expansions : tuple of str
        Expansions in play.
    targets : mapping of str to float
        Policy name -> required one-core rate [games/s]; a policy not listed has no target.
    search_seconds : float, optional
        Most CPU seconds per game, on one core, of a game with one ``ismcts`` seat (default
        parameters) and ``greedy`` at the other seats (None: no target).
    """

    players: int
    expansions: tuple[str, ...] = ()
    targets: Mapping[str, float] = field(default_factory=dict)
    search_seconds: float | None = None


@dataclass(frozen=True)
class Ablation:
    """One leave-one-out variant of a game: the base without one item, as the rules replace it.

    Attributes
    ----------
    item : str
        The card, building or special card taken out, e.g. ``"sultan"``.
    rules : mapping
        Rule-option overrides applied on top of the base's rules; a value ``None`` removes
        that option (back to its default).
    replaced_by : str
        What takes the item's place, for the table (``""``: nothing, the item is removed).
    usage : tuple of str
        Seat-record columns whose sum says how much a seat used the item in a game (picks the
        "seat that used it most"); empty when the records do not say.
    files : mapping of str to str
        Generated data tables: rule option (a ``*_file`` option) -> TOML text. The caller
        writes each to a file and points the option at it.
    """

    item: str
    rules: Mapping[str, Any]
    replaced_by: str = ""
    usage: tuple[str, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)


def config_rule_values(config: Any) -> list[RuleValue]:
    """``GameSpec.rule_values`` of a game whose config keeps them in its ``rule_values`` field."""
    return list(config.rule_values)


def game_streams(seed: int | np.random.SeedSequence, n_seats: int, replay: int = 0
                 ) -> tuple[random.Random, list[random.Random]]:
    """Independent generators for one game: one for chance, one per seat.

    Child 0 of the game's SeedSequence drives every chance event (token draws, shuffles);
    child ``1 + s`` drives seat ``s``'s policy, so changing one seat's policy never shifts a
    token draw and variant comparisons stay paired.

    Parameters
    ----------
    seed : int or numpy.random.SeedSequence
        The game's seed; an int ``s`` means ``SeedSequence(s)``.
    n_seats : int
        Number of seats.
    replay : int
        ``0`` (every run): the streams above. ``r >= 1``: the same chance stream (child 0,
        the same deal) with seat ``s``'s player drawing from grandchild ``(1 + s, r)``
        instead, a stream of its own per replay (``analyzer quality --luck``, issue #36).

    Returns
    -------
    (random.Random, list of random.Random)
        The chance generator and ``n_seats`` seat generators.
    """
    if replay and (not isinstance(replay, int) or replay < 0):
        raise ValueError(f"replay must be a whole number >= 0 (got {replay!r})")
    keys = [(0,)] + [(k, replay) if replay else (k,) for k in range(1, n_seats + 1)]
    gens = [seed_stream(seed, *key) for key in keys]
    return gens[0], gens[1:]


def seed_stream(seed: int | np.random.SeedSequence, *key: int) -> random.Random:
    """The generator of child ``key`` (a spawn-key suffix) of a game's SeedSequence (an int
    ``s`` means ``SeedSequence(s)``)."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    # the child spawn() would make, built without spawn() so the caller's object is not
    # mutated: the same SeedSequence passed twice must replay the same game
    child = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, *key),
                                   pool_size=ss.pool_size)
    return random.Random(int(child.generate_state(2, np.uint64)[0]))


def seed_of(seed: int | np.random.SeedSequence) -> str:
    """A printable form of a game seed, for error messages that say how to replay a game."""
    if isinstance(seed, np.random.SeedSequence):
        return f"root {seed.entropy} game {tuple(seed.spawn_key)}"
    return str(seed)


def param(default: float, *, low: float, high: float, help: str, tunable: bool = True) -> Any:
    """Declare one policy parameter: a dataclass field whose metadata holds its inclusive
    bounds and its help (with units), so that ``build_policy`` enforces the bounds and
    ``analyzer list policies`` shows them.

    ``tunable=False`` keeps the parameter out of ``analyzer tune``: a budget of effort (time or
    iterations a decision), where more is stronger and slower, so a search would only raise
    it towards its bound (3,600 s a decision) instead of finding a better player.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Careful:
    ...     risk: float = param(1.0, low=0, high=3, help="weight of expected losses")
    >>> build_policy({"careful": Careful}, "careful", {"risk": 2}).risk
    2.0
    """
    return field(default=default, metadata={"low": low, "high": high, "help": help,
                                            "tunable": tunable})


def param_default(cls: type, name: str, default: float) -> Any:
    """Parameter ``name`` of policy class ``cls`` declared again with another default: same
    bounds and help (for a named strategy that subclasses a policy and changes its weights)."""
    inherited = next(f for f in dataclasses.fields(cls) if f.name == name)
    return field(default=default, metadata=inherited.metadata)


def build_policy(registry: Mapping[str, type], name: str, params: Mapping[str, Any] | None = None):
    """Make a policy object from its registered name and typed parameters.

    Parameters
    ----------
    registry : mapping of str to type
        A game's ``SPEC.policies``.
    name : str
        Registered policy name.
    params : mapping, optional
        Parameter values; each name must be a field of the policy dataclass, each value of its
        annotated type (an int is accepted for a float field) and inside the bounds its
        ``param`` declaration gives.

    Raises
    ------
    RuleError
        Unknown policy or parameter, wrong type, a value outside its declared bounds, or a
        value the policy's own ``__post_init__`` refuses (``ValueError``).
    """
    if name not in registry:
        raise RuleError("policy", f"unknown policy {name!r} (allowed: {', '.join(sorted(registry))})")
    cls = registry[name]
    params = dict(params or {})
    fields = {f.name: f for f in parameter_fields(cls)}
    hints = typing.get_type_hints(cls)
    for key, value in params.items():
        if key not in fields:
            allowed = ", ".join(sorted(fields)) or "none"
            raise RuleError(f"params.{key}", f"unknown parameter of policy {name!r} (allowed: {allowed})")
        want = hints.get(key)
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            params[key] = value = float(value)
        elif want in (int, float, str, bool) and (
            not isinstance(value, want) or (want is int and isinstance(value, bool))
        ):
            raise RuleError(f"params.{key}", f"must be {want.__name__} (got {value!r})")
        low, high = fields[key].metadata.get("low"), fields[key].metadata.get("high")
        if want in (int, float) and ((low is not None and not value >= low) or (high is not None and not value <= high)):
            raise RuleError(f"params.{key}", f"must be in {_bounds_text(low, high)} (got {value!r})")
    try:
        return cls(**params)
    except (ValueError, TypeError) as err:
        raise RuleError("params", f"policy {name!r}: {err}") from None


def resolve_policies(registry: Mapping[str, type], policies: Any, n: int) -> list:
    """The policy object of each seat, from what a caller of ``play_game`` gave.

    One rule for every game: a single registered name or a single policy object means every
    seat plays it; a sequence (list or tuple) gives one name or object per seat. A name is
    built with its default parameters, a fresh object per seat.

    Parameters
    ----------
    registry : mapping of str to type
        The game's ``SPEC.policies``.
    policies : str, policy object, or sequence of them
    n : int
        Number of seats.

    Returns
    -------
    list
        ``n`` policy objects, by seat.

    Raises
    ------
    RuleError
        A sequence whose length is not ``n``, or an unknown policy name.
    """
    if isinstance(policies, str) or not isinstance(policies, Sequence):
        policies = [policies] * n
    if len(policies) != n:
        raise RuleError("seats", f"{n} players need {n} policies, one per seat (got {len(policies)}); "
                                 "a single name or policy plays every seat")
    return [build_policy(registry, p) if isinstance(p, str) else p for p in policies]


def _bounds_text(low: float | None, high: float | None) -> str:
    if low is None and high is None:
        return ""
    lo = "-inf" if low is None else _num(low)
    hi = "inf" if high is None else _num(high)
    return f"[{lo}, {hi}]"


def parameter_fields(cls: type) -> list[dataclasses.Field]:
    """The fields of a policy dataclass that are parameters (not its internal caches,
    ``init=False``). A policy's only name is its registry key."""
    return [f for f in dataclasses.fields(cls) if f.init]


def policy_params(cls: type) -> list[tuple[str, str, Any, str, str]]:
    """``(name, type, default, bounds, help)`` for each parameter of a policy class, for
    ``analyzer list policies``; ``bounds`` reads ``"[0, 3]"`` (``""`` when none are declared)."""
    hints = {name: getattr(t, "__name__", str(t)) for name, t in typing.get_type_hints(cls).items()}
    return [(f.name, hints.get(f.name, "Any"), f.default,
             _bounds_text(f.metadata.get("low"), f.metadata.get("high")),
             f.metadata.get("help", "")) for f in parameter_fields(cls)]


def policy_doc(cls: type) -> str:
    """The first paragraph of a policy class's docstring as plain text on one line ("" if none).

    mypyc does not keep docstrings, so for a class of a compiled module (setup.py) the docstring
    is read from the module's source file beside its extension.
    """
    doc = cls.__doc__ or ""
    if not doc.strip() or doc.startswith("filler docstring"):
        doc = ""
        package, _, module = cls.__module__.rpartition(".")
        # searched afresh: a compiled module's own __spec__ may name a wrong folder
        spec = importlib.machinery.PathFinder.find_spec(module, importlib.import_module(package).__path__)
        source = Path(spec.origin).with_name(module + ".py") if spec and spec.origin else None
        if source is not None and source.is_file():
            for node in ast.parse(source.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
                    doc = ast.get_docstring(node) or ""
                    break
    return " ".join(doc.strip().split("\n\n")[0].replace("``", "").split())  # plain text: no RST literals

def rank_and_won(scores: Sequence[float], tiebreak: Sequence[Sequence[float]] = ()) -> tuple[list[int], list[float]]:
    """Ranks (1 = best) and win shares from final scores and optional tie-break keys.

    Seats compare by ``(score, *tiebreak_keys)``, higher is better; seats equal on every key
    share a rank, and a k-way tie for first gives each ``won = 1/k``.

    Parameters
    ----------
    scores : sequence of float, shape (n_seats,)
    tiebreak : sequence of sequences, each shape (n_seats,)
        Further keys, higher is better (negate a "fewer wins" key before passing it).

    Returns
    -------
    (list of int, list of float)
    """
    n = len(scores)
    keys = [tuple([scores[s]] + [k[s] for k in tiebreak]) for s in range(n)]
    ranks = [1 + sum(1 for o in range(n) if keys[o] > keys[s]) for s in range(n)]
    first = [s for s in range(n) if ranks[s] == 1]
    won = [1.0 / len(first) if ranks[s] == 1 else 0.0 for s in range(n)]
    return ranks, won
