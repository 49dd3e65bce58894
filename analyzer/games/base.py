"""The contract between a game package and the game-agnostic rest of analyzer.

Every game package ``analyzer/games/<game>/`` exposes one ``SPEC: GameSpec``. The runner,
stats and report see a game only through it and through the records it returns.
Nothing outside ``analyzer/games/<game>/`` imports a game's internals.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.machinery
import random
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.errors import RuleError

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
    ``[GAP → DEFAULT]`` of the rules file) or ``"user"`` (a scenario override or user table).
    """

    name: str
    value: Any
    provenance: str
    section: str = ""  # e.g. "docs/rules/rattus.md §5.2"


@dataclass(frozen=True)
class GameSpec:
    """What a game package offers the runner, the CLI and the report.

    Attributes
    ----------
    name : str
        Scenario ``game =`` value, e.g. ``"rattus"``.
    min_players, max_players : int
        Inclusive player range with every expansion (Rattus: 2–6); ``make_config`` refuses a
        count the chosen expansions do not allow.
    expansions : tuple of str
        Expansion names a scenario may list, e.g. ``("africanus",)``.
    rules_version : str
        Bumped whenever a rule change can move results; copied into every game record.
    make_config : callable
        ``make_config(players: int, expansions: Sequence[str], rules: Mapping[str, Any])
        -> config``. Raises ``RuleError(field, message)`` for an unknown or bad rule option,
        content name, data-table file, or a player count the expansions do not allow.
    play_game : callable
        ``play_game(config, policies, seed, log=None) -> (game_record, seat_records)``.
        ``policies``: a policy name or object for every seat, or a sequence of them, one per
        seat (``resolve_policies``, the one rule every game uses). ``seed``: int or
        ``numpy.random.SeedSequence``. ``log``: ``None`` or a callable taking one line of the
        readable replay log. Records are dicts of plain scalars whose keys equal
        ``game_columns`` / ``seat_columns``.
    policies : mapping of str to type
        Policy registry: name -> frozen dataclass with typed, defaulted parameters.
    game_columns, seat_columns : mapping of str to str
        Declared record columns -> pandas dtype (include the COMMON_* columns).
    rule_values : callable
        ``rule_values(config) -> list[RuleValue]``: every content table and rule option in use,
        with provenance, for the report's "labelled defaults in use" list.
    content : mapping of str to tuple of str
        Names a scenario may use, by kind (``"cards"``, ``"buildings"``, ``"sites"``...), for
        ``analyzer list``.
    rule_options : mapping of str to str
        Every rule option name -> one-line help with its default; for ``analyzer list`` and
        for the loader's "allowed" lists.
    ablations : callable, optional
        ``ablations(config) -> list[Ablation]``: one "without this card/building/special card"
        variant per item in play, for ``analyzer ablate``. ``None``: the game offers none.
    new_state : callable, optional
        ``new_state(config, seed, log=None) -> GameState``: the forward model (``games/forward.py``)
        paused at the game's first decision; ``seed`` as for ``play_game``.
    title : str
        The game's name in help texts, e.g. ``"Rattus (+ Africanus)"`` (default: ``name``).
    item_kind : str
        What ``analyzer ablate`` takes out, in the report's words: ``"class card"``,
        ``"building"``... (default ``"item"``).
    sections : callable, optional
        ``sections() -> tuple of StudySection``: the game's own report sections (its
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
    """

    name: str
    min_players: int
    max_players: int
    expansions: tuple[str, ...]
    rules_version: str
    make_config: Callable[[int, Sequence[str], Mapping[str, Any]], Any]
    play_game: Callable[..., tuple[dict, list[dict]]]
    policies: Mapping[str, type]
    game_columns: Mapping[str, str]
    seat_columns: Mapping[str, str]
    rule_values: Callable[[Any], list[RuleValue]]
    content: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    rule_options: Mapping[str, str] = field(default_factory=dict)
    ablations: Callable[[Any], list[Ablation]] | None = None
    new_state: Callable[..., Any] | None = None
    title: str = ""
    item_kind: str = "item"
    sections: Callable[[], Sequence[StudySection]] | None = None
    benchmark: Benchmark | None = None
    content_groups: Mapping[str, tuple[str, Mapping[str, str]]] = field(default_factory=dict)
    tables: Mapping[str, Path] = field(default_factory=dict)

    def display_name(self) -> str:
        """``title``, or ``name`` when the game gives none."""
        return self.title or self.name

    def bench_table(self) -> Benchmark:
        """``benchmark``, or 4 players (clipped to the game's range) without expansions."""
        if self.benchmark is not None:
            return self.benchmark
        return Benchmark(players=min(max(4, self.min_players), self.max_players))


@dataclass(frozen=True)
class StudySection:
    """One of a game's own report sections, declared in its ``study.py``.

    Attributes
    ----------
    key : str
        Where its numbers go in ``summary.json["results"]``, e.g. ``"sultan"``.
    build : callable
        ``build(doc, games, seats, players, run) -> dict or None``. ``doc``: the
        ``analyzer.report.document.Doc`` to fill; ``games``, ``seats``: the record tables
        (``analyzer.report.records.Table`` or DataFrames; read only the columns used, one
        variant at a time where possible); ``players``: the player count; ``run``: the run
        facts (``summary.json["run"]``, may be empty). Returns the numbers for
        ``summary.json``, or ``None`` when the section does not apply to these records (then
        it writes nothing and has no key).
    replaces_balance : callable, optional
        ``replaces_balance(games) -> bool``: True when, for these records, the section shows
        each arm's balance itself; with many arms the generic balance section is then left out.
    """

    key: str
    build: Callable[..., dict | None]
    replaces_balance: Callable[[Any], bool] | None = None


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
    """

    players: int
    expansions: tuple[str, ...] = ()
    targets: Mapping[str, float] = field(default_factory=dict)


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


def game_streams(seed: int | np.random.SeedSequence, n_seats: int) -> tuple[random.Random, list[random.Random]]:
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

    Returns
    -------
    (random.Random, list of random.Random)
        The chance generator and ``n_seats`` seat generators.
    """
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    # The children spawn() would make, built without spawn() so the caller's object is not
    # mutated: the same SeedSequence passed twice must replay the same game.
    children = [np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (k,), pool_size=ss.pool_size)
                for k in range(n_seats + 1)]
    gens = [random.Random(int(c.generate_state(2, np.uint64)[0])) for c in children]
    return gens[0], gens[1:]


def seed_of(seed: int | np.random.SeedSequence) -> str:
    """A printable form of a game seed, for error messages that say how to replay a game."""
    if isinstance(seed, np.random.SeedSequence):
        return f"root {seed.entropy} game {tuple(seed.spawn_key)}"
    return str(seed)


def build_policy(registry: Mapping[str, type], name: str, params: Mapping[str, Any] | None = None):
    """Make a policy object from its registered name and typed parameters.

    Parameters
    ----------
    registry : mapping of str to type
        A game's ``SPEC.policies``.
    name : str
        Registered policy name.
    params : mapping, optional
        Parameter values; each name must be a field of the policy dataclass and each value of
        its annotated type (an int is accepted for a float field).

    Raises
    ------
    RuleError
        Unknown policy or parameter, wrong type, or a value the policy's own checks refuse
        (its ``__post_init__`` raising ``ValueError``).
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
            params[key] = float(value)
        elif want in (int, float, str, bool) and (
            not isinstance(value, want) or (want is int and isinstance(value, bool))
        ):
            raise RuleError(f"params.{key}", f"must be {want.__name__} (got {value!r})")
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


# Class attributes naming a policy: mypyc turns them into dataclass fields of compiled policies.
_POLICY_NAME_ATTRS = frozenset({"name", "NAME"})


def parameter_fields(cls: type) -> list[dataclasses.Field]:
    """The fields of a policy dataclass that are parameters: not its internal caches
    (``init=False``) and not its registered name, which mypyc (setup.py) makes a field."""
    return [f for f in dataclasses.fields(cls) if f.init and f.name not in _POLICY_NAME_ATTRS]


def policy_params(cls: type) -> list[tuple[str, str, Any, str]]:
    """``(name, type, default, help)`` for each parameter of a policy class, for ``analyzer list``.

    The help text is the field's ``metadata["help"]`` when given.
    """
    hints = typing.get_type_hints(cls)
    out = []
    for f in parameter_fields(cls):
        t = hints.get(f.name, Any)
        out.append((f.name, getattr(t, "__name__", str(t)), f.default, f.metadata.get("help", "")))
    return out



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
