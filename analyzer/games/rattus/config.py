"""Frozen Rattus configuration: game content from ``data/*.toml`` plus the scenario's rule options.

Everything the engine indexes in its hot loop (adjacency, Knight reach, caravan paths, token
effects, region-card masks) is precomputed here once, as tuples of small ints
(docs/rules/rattus.md §3–§5, §9, §13). A user may replace a content table with their own TOML file
(``map_file``, ``tokens_file``, ``region_cards_file``); a bad table raises ``RuleError`` naming
the option, what is wrong and what is allowed.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from analyzer.errors import RuleError
from analyzer.model.base import Option, OptionSet, PlayerCounts, RuleValue
from analyzer.model.tables import builtin_table, check_keys, integer, load_table, one_of, rows

RULES_VERSION = "rattus-1"

CLASSES: Final[tuple[str, ...]] = ("peasantry", "bourgeoisie", "church", "chivalry", "magic", "royalty", "islam")
CLASS_INDEX: Final[dict[str, int]] = {c: i for i, c in enumerate(CLASSES)}
SYMBOLS: tuple[str, ...] = CLASSES + ("M", "A")
SHORT = {"peasantry": "Pe", "bourgeoisie": "Bo", "church": "Ch", "chivalry": "Kn", "magic": "Ma",
         "royalty": "Ro", "islam": "Is", "M": "M", "A": "A"}
PLAYERS = PlayerCounts("rattus", 2, 4, expansions=("africanus",), raised={"africanus": 6})  # §3.3
ALL_CLASSES_MASK = (1 << len(CLASSES)) - 1
_PACKAGE = "analyzer.games.rattus"

# Built-in tables, loaded once (python-chess style: tables at import, indexed later).
_CARDS: dict = builtin_table(_PACKAGE, "cards.toml")
# provenance of each built-in content table as a whole (its top-level ``provenance`` key)
_BUILTIN_PROVENANCE = {name: builtin_table(_PACKAGE, name)["provenance"]
                       for name in ("map.toml", "tokens.toml", "region_cards.toml")}
CARD_NAMES: Final[tuple[str, ...]] = tuple(c["name"] for c in _CARDS["cards"])
CARD_CLASS: Final[tuple[int, ...]] = tuple(CLASS_INDEX[c["class"]] for c in _CARDS["cards"])
CARD_EXPANSION: tuple[str, ...] = tuple(c["expansion"] for c in _CARDS["cards"])
CARD_INDEX: Final[dict[str, int]] = {n: i for i, n in enumerate(CARD_NAMES)}
BASE_CARDS: tuple[str, ...] = tuple(n for n, e in zip(CARD_NAMES, CARD_EXPANSION) if e == "base")


# The rule options: docs/rules/rattus.md §13 (default parameter sheet) and every [GAP → DEFAULT].
OPTIONS = OptionSet("rattus", (
    Option("cubes_per_player", 20, int, "§3.1, §11", "cubes each player owns (cubes)", "rulebook",
         low=1, high=40, provenance_at={5: "default", 6: "default"}),
    Option("rat_cap", 3, int, "§7 C.2", "most rat tokens a region may hold (tokens)", "rulebook", low=1, high=6),
    Option("spread_table", (0, 1, 2, 2), list, "§7 C.2", "new rats placed by rats present on arrival, indexed "
         "0..rat_cap (tokens); alternative [0, 1, 1, 2]", "rulebook", item=int, low=0, high=6,
         allowed="list of rat_cap + 1 integers 0..6"),
    Option("knight_range", 2, int, "§8.1", "plague-piece steps with the Knight at 2-4 players (steps)", "rulebook",
         low=1, high=4),
    Option("knight_range_5_6", 3, int, "§11", "plague-piece steps with the Knight at 5-6 players (steps)", "rulebook",
         low=1, high=4),
    Option("knight_adds_two_neutral_cubes", False, bool, "§8.1",
         "the plague piece counts as 2 neutral cubes for thresholds when the Knight is in play"),
    Option("opening_pairs_distinct_regions", True, bool, "§6.1", "the two opening pairs go into two different regions"),
    Option("placement_mandatory", False, bool, "§7 B", "placing cubes (phase B) is mandatory: before phase C the "
         "player places cubes in a region where at least one goes, when any region allows it"),
    Option("knight_moves_plague_in_final_round", False, bool, "§10.2", "in the final round the Knight holder may "
         "move the plague piece within Knight range: no new rats, no plague"),
    Option("africanus_tokens_replace_base", True, bool, "§3.2",
         "with Africanus the 65 Africanus tokens replace the 49 base tokens at every player count"),
    Option("base_tokens_removed", (12, 6, 0), list, "§5.3", "base tokens removed unseen at 2, 3, 4 players (tokens)",
         "rulebook", item=int, low=0, high=100, length=3),
    Option("africanus_tokens_removed_per_unused_region", 3, int, "§5.3",
         "Africanus tokens removed unseen per region not in use (tokens)", low=0, high=6),
    Option("class_cards_in_play", 6, int, "§6.2", "class cards in play at 2-4 players with Africanus (cards)",
         "rulebook", low=1, high=10),
    Option("class_cards_in_play_5_6", 8, int, "§11", "class cards in play at 5-6 players (cards)", "rulebook",
         low=1, high=10),
    Option("same_class_cards_stack", True, bool, "§5.1",
         "a holder of k cards of one class loses k cubes per matching symbol; false = 1"),
    Option("region_cards_dealt", 3, int, "§6.2", "region cards dealt to each player at setup (cards)", "rulebook",
         low=0, high=5),
    Option("region_card_must_match_plague_region", False, bool, "§9", "a region card protects only if it names the "
         "plague region"),
    Option("region_card_points", 1, int, "§9", "points per region card in hand whose region the holder has the "
         "majority in (points)", low=0, high=10),
    Option("region_card_majority_ties_count", True, bool, "§9",
         "a tie for most cubes counts as the majority for region-card scoring"),
    Option("explorer_cubes", 1, int, "§8.2", "cubes the Explorer places in the chosen card's region (cubes)",
         low=1, high=3),
    Option("astronomer_leftovers", "discard", str, "§8.2", "fate of the two cards the Astronomer does not keep",
         choices=("discard", "deck_bottom")),
    Option("diplomat_discs", 15, int, "§6.2", "diplomat discs in the shared supply (discs)", "rulebook",
         low=0, high=30),
    Option("diplomat_points_first", 4, int, "§2.3", "points for most diplomat discs, no tie (points)", "seed",
         low=0, high=20),
    Option("diplomat_points_second", 2, int, "§2.3", "points for second most diplomat discs, no tie (points)", "seed",
         low=0, high=20),
    Option("diplomat_tie_first_pool", 6, int, "§2.3", "points split (floor) among players tied for most discs "
         "(points)", "seed", low=0, high=40),
    Option("diplomat_tie_second_pool", 2, int, "§2.3", "points split (floor) among players tied for second most "
         "discs (points)", "seed", low=0, high=40),
    Option("diplomat_2p_tie_points", 3, int, "§2.3", "points each at 2 players when both tie for most discs "
         "(points); alternative 2", low=0, high=20, alternatives=(2,)),
    Option("caravan_start", "random", str, "§6.2", "caravan start region", allowed="random or a region name in use"),
    Option("plague_start", "random", str, "§6.1", "plague piece start region",
         allowed="random or a region name in use"),
    Option("max_rounds", 100, int, "§10.1", "simulator guard: after this many rounds the final round and final "
         "plague are played, end = turn_cap (rounds)", low=1, high=10000, guard=True),
    Option("max_turns", 5000, int, "§10.1", "hard cap on regular turns; exceeding it raises TurnCapExceeded "
         "naming the seed (turns)", low=1, high=100000, guard=True),
    Option("class_cards", None, list, "§6.2", "class cards in play (6, or 8 at 5-6 players); unset: the six base "
         "cards, or with africanus the Knight plus random others drawn per game", item=str,
           allowed="list of card names (`analyzer list cards --game rattus`)"),
    Option("map_file", None, Path, "§3.3, §4", "TOML file replacing the built-in map and adjacency (layout of "
         "data/map.toml)"),
    Option("tokens_file", None, Path, "§5.2", "TOML file replacing the built-in rat-token lists (layout of "
         "data/tokens.toml)"),
    Option("region_cards_file", None, Path, "§9", "TOML file replacing the built-in region-card deck, africanus "
         "only (layout of data/region_cards.toml)"),
))


# The rule options whose reads a game records (GameSpec.consults): bit i of ``reads[0]`` is
# CONSULTS[i], set wherever the rules or a player read the option where its value can matter.
CONSULTS: Final[tuple[str, ...]] = (
    "knight_adds_two_neutral_cubes", "knight_moves_plague_in_final_round", "same_class_cards_stack",
    "region_card_must_match_plague_region", "astronomer_leftovers", "diplomat_2p_tie_points",
    "region_card_majority_ties_count", "placement_mandatory", "opening_pairs_distinct_regions")
READ_KNIGHT_NEUTRAL: Final = 1  # the plague resolved in the plague piece's region, Knight in play
READ_KNIGHT_FINAL: Final = 2  # the Knight holder's final-round move was offered
READ_STACK: Final = 4  # a seat with cubes held 2+ cards of an unprotected class on a token
READ_CARD_ELSEWHERE: Final = 8  # a region card naming another region could have protected
READ_ASTRONOMER: Final = 16  # the Astronomer's leftovers were placed
READ_DIPLOMAT_2P_TIE: Final = 32  # diplomats scored at 2 players with a tie
READ_TIES_COUNT: Final = 64  # a region card's holder tied for most cubes in its region
# phase C or a region without rats was offered where the other value withholds it, and the pick
# could change: not a unique best that stays legal (``engine.Game.spare``); the value true, which
# offers less, sets it wherever the other value would offer more
READ_PLACEMENT: Final = 128
# a second opening pair was asked where the other value offers the seat's first region too
# (false) or withholds it (true), and the pick could change: false, which offers more, reads it
# unless the pick stays legal under true; true unless the player declares that its pick would
# be the same with that region offered too (``engine.Game.widening``, ``spare``)
READ_OPENING: Final = 256


@dataclass(frozen=True, slots=True)
class RattusConfig:
    """Everything one game needs, precomputed (docs/rules/rattus.md §3–§13).

    Regions are indexed ``0..n_regions-1`` in map-file order restricted to the regions in use;
    seats ``0..n_players-1`` clockwise (§6.1). Tokens are ``(threshold, n_A, n_M, classes)`` with
    ``classes`` a tuple of class indices into ``CLASSES``, one entry per printed class symbol.
    Region cards are ``rcard_region[i]`` (region index) and ``rcard_mask[i]`` (bit mask of the
    classes it may protect; "?" = all classes). Scalar rule options keep their ``OPTIONS`` names.
    """

    n_players: int
    expansions: tuple[str, ...]
    africanus: bool
    region_names: tuple[str, ...]
    adj: tuple[tuple[int, ...], ...]
    knight_reach: tuple[tuple[int, ...], ...]
    caravan_paths: tuple[tuple[tuple[int, int], ...], ...]
    token_set: str
    tokens: tuple[tuple[int, int, int, tuple[int, ...]], ...]
    token_labels: tuple[str, ...]
    starting_tokens: tuple[int, ...]
    normal_tokens: tuple[int, ...]
    tokens_removed: int
    class_cards: tuple[str, ...] | None  # None: drawn per game (§6.2)
    cards_in_play_count: int
    rcard_region: tuple[int, ...]
    rcard_mask: tuple[int, ...]
    rcard_labels: tuple[str, ...]
    # expected effect of one random token of the set, by cubes present (0..threshold_top): for greedy policies
    exp_a: tuple[float, ...]
    exp_m: tuple[float, ...]
    exp_c: tuple[tuple[float, ...], ...]
    threshold_top: int  # the token set's largest threshold: from this many cubes on, every token acts
    # scalar rule options (OPTIONS)
    cubes_per_player: int
    rat_cap: int
    spread_table: tuple[int, ...]
    knight_steps: int
    knight_adds_two_neutral_cubes: bool
    opening_pairs_distinct_regions: bool
    placement_mandatory: bool
    knight_moves_plague_in_final_round: bool
    same_class_cards_stack: bool
    region_cards_dealt: int
    region_card_must_match_plague_region: bool
    region_card_points: int
    region_card_majority_ties_count: bool
    explorer_cubes: int
    astronomer_leftovers: str
    diplomat_discs: int
    diplomat_points: tuple[int, int, int, int, int]  # first, second, tie-first pool, tie-second pool, 2p tie
    caravan_start: int  # -1 = random
    plague_start: int  # -1 = random
    max_rounds: int
    max_turns: int
    rule_values: tuple[RuleValue, ...]
    # labelled defaults, for the acted_* counters (metrics.GUESSES): bit r set when region r in
    # use is a stand-in of the built-in map (AF1-AF5, §4.3), and the names of the rule values
    # whose provenance is "default"
    guessed_regions: int = 0
    labelled_defaults: frozenset[str] = frozenset()
    rules_version: str = RULES_VERSION
    # the options of CONSULTS read in the game being played (bits); the runner resets it
    reads: list[int] = field(default_factory=lambda: [0], compare=False, hash=False, repr=False)

    @property
    def n_regions(self) -> int:
        """Number of regions in use (8/10/12/15/17 with the built-in map, §3.3)."""
        return len(self.region_names)


# ---------------------------------------------------------------- data tables (built-in or user)

_REGION_KEYS = ("name", "board", "players", "neighbours", "provenance")


def _parse_map(table: dict, option: str, players: int, source: str
               ) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...], frozenset[str], int]:
    """Regions in use at ``players``, their adjacency (§3.3, §4), every region name of the
    map, and a bit mask of the regions in use whose own ``provenance`` is ``"default"`` (the
    stand-in regions AF1-AF5 of §4.3); checks names, player counts, symmetry and neighbours."""
    check_keys(option, source, "", table, ("provenance", "section", "regions"))
    regions = rows(option, source, table, "regions", _REGION_KEYS)
    names: list[str] = []
    nbrs: dict[str, list[str]] = {}
    used: list[str] = []
    guessed = 0
    for i, reg in enumerate(regions):
        where = f"{source}: [[regions]] {i + 1}"
        name = reg.get("name")
        if not isinstance(name, str) or not name:
            raise RuleError(option, f"{where}: name must be a non-empty string (got {name!r})")
        if name in nbrs:
            raise RuleError(option, f"{where}: region {name!r} is listed twice")
        pl = reg.get("players", [2, 3, 4, 5, 6])
        if not isinstance(pl, list):
            raise RuleError(option, f"{where}: players must be a list of player counts 2..6 (got {pl!r})")
        for p in pl:
            integer(option, f"{where}: players", p, 2, 6)
        nb = reg.get("neighbours")
        if not isinstance(nb, list) or any(not isinstance(x, str) for x in nb):
            raise RuleError(option, f"{where}: neighbours must be a list of region names (got {nb!r})")
        names.append(name)
        nbrs[name] = nb
        if players in pl:
            if reg.get("provenance") == "default":
                guessed |= 1 << len(used)
            used.append(name)
    for name, nb in nbrs.items():
        for other in nb:
            if other not in nbrs:
                raise RuleError(option, f"{source}: region {name!r}: unknown neighbour {other!r} "
                                        f"(known: {', '.join(names)})")
            if other == name:
                raise RuleError(option, f"{source}: region {name!r} lists itself as a neighbour")
            if name not in nbrs[other]:
                raise RuleError(option, f"{source}: adjacency not symmetric: {name!r} lists {other!r} "
                                        f"but not the reverse")
    if len(used) < 2:
        raise RuleError(option, f"{source}: fewer than 2 regions in use at {players} players")
    index = {n: i for i, n in enumerate(used)}
    adj = []
    for name in used:
        row = tuple(sorted(index[x] for x in set(nbrs[name]) if x in index))
        if not row:
            raise RuleError(option, f"{source}: region {name!r} has no neighbour in use at {players} players")
        adj.append(row)
    return tuple(used), tuple(adj), frozenset(names), guessed


def _parse_symbols(option: str, where: str, symbols: Any) -> tuple[int, int, tuple[int, ...]]:
    if not isinstance(symbols, list) or any(not isinstance(s, str) for s in symbols):
        raise RuleError(option, f"{where}: symbols must be a list of strings (got {symbols!r})")
    for sym in symbols:
        one_of(option, where, sym, SYMBOLS, "symbol")
    n_a = symbols.count("A")
    n_m = symbols.count("M")
    classes = tuple(sorted(CLASS_INDEX[s] for s in symbols if s in CLASS_INDEX))
    return n_a, n_m, classes


def _parse_tokens(table: dict, option: str, key: str, source: str) -> tuple[list, list[str], list[bool]]:
    """The token list ``[[key]]`` (``base`` or ``africanus``) as ``(threshold, n_A, n_M,
    classes)`` tuples, their labels and starting flags (§5.1, §5.2)."""
    check_keys(option, source, "", table, ("provenance", "section", "base", "africanus"))
    out, labels, start = [], [], []
    for i, t in enumerate(rows(option, source, table, key, ("threshold", "symbols", "starting", "provenance"))):
        where = f"{source}: [[{key}]] {i + 1}"
        thr = integer(option, f"{where}: threshold", t.get("threshold"), 1, 6)
        n_a, n_m, classes = _parse_symbols(option, where, t.get("symbols"))
        st = t.get("starting", False)
        if not isinstance(st, bool):
            raise RuleError(option, f"{where}: starting must be true or false (got {st!r})")
        out.append((thr, n_a, n_m, classes))
        labels.append(f"{thr}+" + "+".join(SHORT[s] for s in t["symbols"]) if t["symbols"] else f"{thr}+")
        start.append(st)
    return out, labels, start


def _parse_region_cards(table: dict, option: str, used: Sequence[str], all_names: frozenset[str], source: str):
    """The region-card deck restricted to the regions in use (§6.2 step 5, §9)."""
    check_keys(option, source, "", table, ("provenance", "section", "cards"))
    region_of, masks, labels = [], [], []
    index = {n: i for i, n in enumerate(used)}
    for i, c in enumerate(rows(option, source, table, "cards", ("region", "symbols", "provenance"))):
        where = f"{source}: [[cards]] {i + 1}"
        reg = one_of(option, where, c.get("region"), tuple(sorted(all_names)), "region")
        sy = c.get("symbols")
        if sy == ["?"]:
            mask, label = ALL_CLASSES_MASK, "?"
        else:
            if (not isinstance(sy, list) or not 1 <= len(sy) <= 2 or any(not isinstance(s, str) or s not in CLASS_INDEX for s in sy)
                    or len(set(sy)) != len(sy)):
                raise RuleError(option, f"{where}: symbols must be [\"?\"] or one or two different class names "
                                        f"(allowed: {', '.join(CLASSES)}; got {sy!r})")
            mask = sum(1 << CLASS_INDEX[s] for s in sy)
            label = "+".join(SHORT[s] for s in sy)
        if reg in index:  # §6.2 step 5: cards naming a region not in use leave the deck
            region_of.append(index[reg])
            masks.append(mask)
            labels.append(f"{reg}:{label}")
    return tuple(region_of), tuple(masks), tuple(labels)


# ---------------------------------------------------------------- derived tables

def _reach(adj: Sequence[Sequence[int]], steps: int) -> tuple[tuple[int, ...], ...]:
    """Regions at graph distance 1..steps from each region (§7 C.1, Knight)."""
    out = []
    for start in range(len(adj)):
        seen = {start}
        frontier = [start]
        for _ in range(steps):
            nxt = []
            for r in frontier:
                for x in adj[r]:
                    if x not in seen:
                        seen.add(x)
                        nxt.append(x)
            frontier = nxt
        seen.discard(start)
        out.append(tuple(sorted(seen)))
    return tuple(out)


def _caravan_paths(adj: Sequence[Sequence[int]]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Legal two-step caravan moves (middle, end), end != start, per start region (§2.2)."""
    return tuple(tuple((m, e) for m in adj[s] for e in adj[m] if e != s) for s in range(len(adj)))


def _expectations(tokens: Sequence[tuple]) -> tuple[tuple, tuple, tuple]:
    """Mean A, M and per-class symbol count of one token from the set, given cubes present
    0..(the set's largest threshold; with more cubes every token acts, as with that many)."""
    n = len(tokens)
    exp_a, exp_m, exp_c = [], [], []
    for cubes in range(max(t[0] for t in tokens) + 1):
        act = [t for t in tokens if t[0] <= cubes]
        exp_a.append(sum(t[1] for t in act) / n)
        exp_m.append(sum(t[2] for t in act) / n)
        exp_c.append(tuple(sum(t[3].count(k) for t in act) / n for k in range(len(CLASSES))))
    return tuple(exp_a), tuple(exp_m), tuple(exp_c)


# ---------------------------------------------------------------- building


def _check_class_cards(value: tuple, players: int, africanus: bool, count: int) -> tuple[str, ...]:
    if any(not isinstance(v, str) for v in value):
        raise RuleError("class_cards", f"must be a list of card names (got {list(value)!r})")
    for v in value:
        if v not in CARD_INDEX:
            raise RuleError("class_cards", f"unknown card {v!r} (allowed: {', '.join(CARD_NAMES)})")
        if CARD_EXPANSION[CARD_INDEX[v]] == "africanus" and not africanus:
            raise RuleError("class_cards", f"card {v!r} needs the africanus expansion (base cards: "
                                           f"{', '.join(BASE_CARDS)})")
    dup = sorted({v for v in value if value.count(v) > 1})
    if dup:
        raise RuleError("class_cards", f"card {dup[0]!r} named twice (each card at most once)")
    if len(value) != count:
        raise RuleError("class_cards", f"needs exactly {count} cards at {players} players (got {len(value)})")
    return tuple(sorted(value, key=CARD_INDEX.__getitem__))


def _idle(players: int, africanus: bool, token_set: str, class_cards: tuple[str, ...] | None) -> set[str]:
    """The options the rules never consult in this setting, left out of ``rule_values``."""
    def in_play(card: str) -> bool:  # None: the base six, or with Africanus any card may be drawn
        return card in class_cards if class_cards is not None else (africanus or card in BASE_CARDS)

    idle = {"knight_range_5_6" if players <= 4 else "knight_range",
            "base_tokens_removed" if token_set == "africanus" else "africanus_tokens_removed_per_unused_region"}
    if not in_play("knight"):
        idle |= {"knight_range", "knight_range_5_6", "knight_adds_two_neutral_cubes"}
    if not africanus or players >= 5:
        idle |= {"africanus_tokens_replace_base", "class_cards_in_play"}
    if players <= 4:
        idle.add("class_cards_in_play_5_6")
    if not africanus:
        idle |= {"region_cards_dealt", "region_card_must_match_plague_region", "region_card_points",
                 "region_card_majority_ties_count"}
    islam = [c for c in CARD_NAMES if CARD_CLASS[CARD_INDEX[c]] == CLASS_INDEX["islam"] and in_play(c)]
    if len(islam) < 2:  # §5.1: stacking needs two cards of one class (only Islam has several)
        idle.add("same_class_cards_stack")
    if not in_play("explorer"):
        idle.add("explorer_cubes")
    if not in_play("astronomer"):
        idle.add("astronomer_leftovers")
    if not in_play("trader"):
        idle.add("caravan_start")
    diplomats = ("diplomat_discs", "diplomat_points_first", "diplomat_points_second", "diplomat_tie_first_pool",
                 "diplomat_tie_second_pool", "diplomat_2p_tie_points")
    if not in_play("sultan"):
        idle |= set(diplomats)
    elif players == 2:  # §2.3: at 2 players only first place scores, a tie scores the 2p points
        idle |= {"diplomat_points_second", "diplomat_tie_first_pool", "diplomat_tie_second_pool"}
    else:
        idle.add("diplomat_2p_tie_points")
    return idle


def make_config(players: int, expansions: Sequence[str] = (), rules: Mapping[str, Any] | None = None) -> RattusConfig:
    """Build the frozen config for one scenario (docs/rules/rattus.md §3.3, §6, §13).

    Parameters
    ----------
    players : int
        Player count, 2-4 (2-6 with ``"africanus"``).
    expansions : sequence of str
        Subset of ``("africanus",)``.
    rules : mapping of str to Any, optional
        Rule options by name (see ``OPTIONS``); missing ones take their default.

    Returns
    -------
    RattusConfig

    Raises
    ------
    RuleError
        Unknown expansion or rule option, bad option value, a player count the expansions do not
        allow, bad ``class_cards``, or a missing/malformed/inconsistent user table.
    """
    rules = dict(rules or {})
    exps = PLAYERS.check(players, expansions)
    africanus = "africanus" in exps
    opts = OPTIONS.resolve(players, rules)
    values: list[RuleValue] = []

    map_table, map_source, map_user = load_table("map_file", opts["map_file"], _PACKAGE, "map.toml")
    region_names, adj, all_region_names, guessed_regions = _parse_map(map_table, "map_file", players,
                                                                       map_source)
    map_prov = _BUILTIN_PROVENANCE["map.toml"] if not map_user else "user"
    values.append(RuleValue("map", {n: tuple(region_names[j] for j in adj[i]) for i, n in enumerate(region_names)},
                            map_prov, f"{OPTIONS.rules_file} §4.2, §4.3"))

    tok_table, tok_source, tok_user = load_table("tokens_file", opts["tokens_file"], _PACKAGE, "tokens.toml")
    use_afr = africanus and (opts["africanus_tokens_replace_base"] or players >= 5)
    token_set = "africanus" if use_afr else "base"
    tokens, labels, starting = _parse_tokens(tok_table, "tokens_file", token_set, tok_source)
    other_set = "base" if token_set == "africanus" else "africanus"
    if other_set in tok_table:  # the list not in use is still checked (a typo there is a typo)
        _parse_tokens(tok_table, "tokens_file", other_set, tok_source)
    n_start = sum(starting)
    if n_start < len(region_names):
        raise RuleError("tokens_file", f"{tok_source}: [[{token_set}]] has {n_start} starting tokens but "
                                       f"{len(region_names)} regions are in use at {players} players (needs at "
                                       f"least one per region)")
    if token_set == "base":
        removed = opts["base_tokens_removed"][players - 2] if players <= 4 else 0
    else:  # §5.3: per region of the map not in use at this player count (not per unused starter)
        removed = opts["africanus_tokens_removed_per_unused_region"] * (len(all_region_names) - len(region_names))
    if removed > len(tokens) - len(region_names):
        raise RuleError("tokens_file", f"{tok_source}: {removed} tokens to remove unseen but only "
                                       f"{len(tokens) - len(region_names)} in the supply")
    values.append(RuleValue("tokens", tuple(f"{lab}{'*' if s else ''}" for lab, s in zip(labels, starting)),
                            "user" if tok_user else _BUILTIN_PROVENANCE["tokens.toml"],
                            f"{OPTIONS.rules_file} §5.2"))
    removed_opt = "base_tokens_removed" if token_set == "base" else "africanus_tokens_removed_per_unused_region"
    values.append(RuleValue("tokens_removed", removed, "user" if tok_user else opts.provenance(removed_opt),
                            f"{OPTIONS.rules_file} §5.3"))

    if africanus:
        rc_table, rc_source, rc_user = load_table("region_cards_file", opts["region_cards_file"], _PACKAGE,
                                                  "region_cards.toml")
        rc_region, rc_mask, rc_labels = _parse_region_cards(rc_table, "region_cards_file", region_names,
                                                            all_region_names, rc_source)
        values.append(RuleValue("region_cards", rc_labels, "user" if rc_user else
                                _BUILTIN_PROVENANCE["region_cards.toml"], f"{OPTIONS.rules_file} §9"))
    else:
        if opts["region_cards_file"] is not None:
            raise RuleError("region_cards_file", "region cards need the africanus expansion")
        rc_region, rc_mask, rc_labels = (), (), ()

    count = opts["class_cards_in_play_5_6"] if players >= 5 else (opts["class_cards_in_play"] if africanus else 6)
    class_cards: tuple[str, ...] | None
    if opts["class_cards"] is not None:
        class_cards = _check_class_cards(opts["class_cards"], players, africanus, count)
        values.append(RuleValue("class_cards", class_cards, "user", f"{OPTIONS.rules_file} §6.2"))
    elif africanus:
        if count > len(CARD_NAMES):
            raise RuleError("class_cards_in_play", f"at most {len(CARD_NAMES)} cards exist (got {count})")
        class_cards = None
        values.append(RuleValue("class_cards", f"knight + {count - 1} random of the other "
                                f"{len(CARD_NAMES) - 1}, per game", "default", f"{OPTIONS.rules_file} §6.2"))
    else:
        class_cards = BASE_CARDS
        values.append(RuleValue("class_cards", class_cards, "rulebook", f"{OPTIONS.rules_file} §6.1"))

    def region_option(key: str) -> int:
        v = opts[key]
        if v == "random":
            return -1
        if v not in region_names:
            raise RuleError(key, f"must be 'random' or a region in use (allowed: {', '.join(region_names)})")
        return region_names.index(v)

    spread = opts["spread_table"]
    if len(spread) != opts["rat_cap"] + 1:
        raise RuleError("spread_table", f"needs {opts['rat_cap'] + 1} entries (rats 0..rat_cap) (got {len(spread)})")
    steps = opts["knight_range_5_6"] if players >= 5 else opts["knight_range"]
    exp_a, exp_m, exp_c = _expectations(tokens)
    idle = _idle(players, africanus, token_set, class_cards)
    skip = idle | {"class_cards", "map_file", "tokens_file", "region_cards_file"}  # listed as tables above
    rule_values = tuple(opts.rule_values(skip) + values)
    return RattusConfig(
        n_players=players, expansions=exps, africanus=africanus, region_names=region_names, adj=adj,
        knight_reach=_reach(adj, steps), caravan_paths=_caravan_paths(adj), token_set=token_set,
        tokens=tuple(tokens), token_labels=tuple(labels),
        starting_tokens=tuple(i for i, s in enumerate(starting) if s),
        normal_tokens=tuple(i for i, s in enumerate(starting) if not s), tokens_removed=removed,
        class_cards=class_cards, cards_in_play_count=count, rcard_region=rc_region, rcard_mask=rc_mask,
        rcard_labels=rc_labels, exp_a=exp_a, exp_m=exp_m, exp_c=exp_c, threshold_top=len(exp_a) - 1,
        knight_steps=steps, diplomat_points=(opts["diplomat_points_first"], opts["diplomat_points_second"],
                         opts["diplomat_tie_first_pool"], opts["diplomat_tie_second_pool"],
                         opts["diplomat_2p_tie_points"]),
        caravan_start=region_option("caravan_start"), plague_start=region_option("plague_start"),
        rule_values=rule_values, guessed_regions=0 if map_user else guessed_regions,
        labelled_defaults=frozenset(v.name for v in rule_values if v.provenance == "default"),
        **opts.same_named(RattusConfig, but=("class_cards", "caravan_start", "plague_start")),
    )

