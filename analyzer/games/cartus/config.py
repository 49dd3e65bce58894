"""Frozen Rattus Cartus configuration built once from ``data/*.toml`` and the rule options.

Content (buildings, supply icons, component counts) is data; every ``[G]``/``DEFAULT`` of
``docs/rules/cartus.md`` (§9 parameter sheet) is a named rule option with that default. The engine
only indexes the precomputed tuples of :class:`CartusConfig`.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from analyzer.errors import RuleError
from analyzer.model.base import Option, OptionSet, PlayerCounts, RuleValue
from analyzer.model.tables import check_keys, entry, integer, load_table, one_of, provenance

_PACKAGE = "analyzer.games.cartus"
PLAYERS = PlayerCounts("cartus", 2, 5)  # §1

# Card types in a hand vector: 0..5 are the population classes (in class order), then these.
JOKER: Final = 6
SWORD: Final = 7
FLUTE: Final = 8
PASS: Final = 9
N_TYPES: Final = 10

# Building action kinds (rules §5); amounts per kind are documented in data/buildings.toml.
ACTION_KINDS = (
    "vp_tokens", "gold", "discard_rats", "hospital", "pass", "joker",
    "guard_tower", "sword", "draw", "brewery", "look", "flute",
)
_PAIR_KINDS = ("hospital",)

# The rule options: docs/rules/cartus.md §9 (parameter sheet) and every DEFAULT [G].
OPTIONS = OptionSet("cartus", (
    Option("building_selection", "random_cards", str, "§3", "how the 30 building cards are chosen: random_cards"
           " = mode (c) 5 random cards per class; random_buildings = mode (b); explicit = `buildings` or "
           "`building_set_name`", choices=("random_cards", "random_buildings", "explicit")),
    Option("buildings", None, list, "§3 mode (a)", "explicit cards: 'building' (all 5 copies) or "
           "'building:copy', 30 cards, 5 per class (names: `analyzer list buildings --game cartus`)", item=str),
    Option("building_set_name", None, str, "§1 setup note", "a named explicit set (first_game = the "
           "[first_game] entry of data/components.toml)", choices=("first_game",)),
    Option("guard_tower_2p", "exclude", str, "§3", "random modes leave the Guard Tower out at 2 players",
           choices=("exclude", "allow")),
    Option("tie_mode", "all_tied_premium", str, "§4 phase D b", "who gets the premium action on a tie for most "
           "cards", choices=("all_tied_premium", "first_entered_premium", "nobody_premium")),
    Option("premium_min_cards", 1, int, "§4 phase D b", "cards (population + jokers) needed for the premium "
           "(cards)", low=0, high=60, alternatives=(0,)),
    Option("sword_target", "same_building", str, "§6", "who a Sword may hit", choices=("same_building", "any_player")),
    Option("sword_chooser", "victim", str, "§6", "who picks the cards a Sword takes", choices=("victim", "random")),
    Option("flute_target", "same_building", str, "§6", "who a Flute may hit", choices=("same_building", "any_player")),
    Option("flute_rats", 2, int, "§6", "rats moved by one Flute, at most what the owner has (rats)", low=1, high=20,
           alternatives=(1,)),
    Option("pass_mode", "second_building", str, "§6", "what a Pass does", choices=("second_building", "none")),
    Option("vp_token_value", 1, int, "§7.2", "VP per Palace VP token (VP)", low=0, high=20),
    Option("track_points", (10, 5, 2), list, "§7.2", "VP for 1st, 2nd, 3rd... most on a track (VP)", "rulebook",
           item=int, low=0, high=1000),
    Option("track_tie", "split_down", str, "§7.2", "tie rule of majorities", choices=("split_down", "all_full", "none")),
    Option("hand_scoring", "majority_like_track", str, "§7.2", "how population cards + jokers left in hand score",
           choices=("majority_like_track", "1vp_each")),
    Option("gold_scoring", "majority_like_track", str, "§7.2", "how Gold scores",
           choices=("majority_like_track", "1vp_each")),
    Option("dead_excluded_from_majorities", False, bool, "§7.2", "dead players count 0 in majorities"),
    Option("all_dead_result", "no_winner", str, "§7.1", "result when everyone dies",
           choices=("no_winner", "fewest_rats")),
    Option("last_round_actions", True, bool, "§4 phase E", "building actions happen in the last round"),
    Option("building_spaces", 0, int, "§4 phase C", "disc spaces per building, 0 = unlimited (spaces)",
           low=0, high=10, alternatives=(5,)),
    Option("start_player", "seat0", str, "§3", "who starts", choices=("seat0", "random")),
    Option("guard_tower_givers", "fixed_at_start", str, "§5", "when Guard Tower givers are decided",
           choices=("fixed_at_start", "rechecked")),
    Option("rats_visible", True, bool, "§11", "policies may read every rat total"),
    Option("buildings_file", None, Path, "§2, §5", "user TOML replacing data/buildings.toml"),
    Option("supply_icons_file", None, Path, "§4 phase B", "user TOML replacing data/supply_icons.toml"),
    Option("components_file", None, Path, "§2, §3", "user TOML replacing data/components.toml"),
))
RULES = OPTIONS.rules_file
# Options that take effect only when a building of this action kind can be in play (§5, §6).
_NEEDS_KIND = {"sword_target": "sword", "sword_chooser": "sword", "flute_target": "flute", "flute_rats": "flute",
               "pass_mode": "pass", "gold_scoring": "gold", "vp_token_value": "vp_tokens",
               "guard_tower_givers": "guard_tower"}


@dataclass(frozen=True, slots=True)
class CartusConfig:
    """Everything one Rattus Cartus game needs, precomputed (docs/rules/cartus.md §2–§7, §9).

    Buildings are indexed ``b = 0..11`` in data order (class A then B, classes in
    ``class_names`` order); building cards ``c = 5*b + copy - 1`` (0..59).
    """

    n_players: int
    rounds: int
    row_size: int
    replacement: int
    class_names: tuple[str, ...]
    building_names: tuple[str, ...]
    building_class: tuple[int, ...]
    building_action: tuple[str, ...]
    premium: tuple[Any, ...]
    standard: tuple[Any, ...]
    copies: int
    card_building: tuple[int, ...]
    card_class: tuple[int, ...]
    card_icons: tuple[tuple[int, int, int], ...]  # (draw, rats discarded, looks) per card
    selection: str
    fixed_cards: tuple[int, ...]  # explicit mode: the 30 card ids
    class_pools: tuple[tuple[int, ...], ...]  # random modes: candidate card ids per class
    population: tuple[tuple[int, int], ...]  # (class, nun symbols) per population card
    supply: tuple[int, ...]  # start supply per card type (JOKER..PASS at their indices, else 0)
    gold_total: int
    vp_total: int
    start_rats: int
    start_hand: int
    nun_row_size: int
    tie_mode: str
    premium_min_cards: int
    sword_target: str
    sword_chooser: str
    flute_target: str
    flute_rats: int
    pass_mode: str
    vp_token_value: int
    track_points: tuple[int, ...]
    track_tie: str
    hand_scoring: str
    gold_scoring: str
    dead_excluded_from_majorities: bool
    all_dead_result: str
    last_round_actions: bool
    building_spaces: int
    start_player: str
    guard_tower_givers: str
    rats_visible: bool
    rule_values: tuple[RuleValue, ...]
    # derived tables for the policies' look-ahead (not rule options)
    nun_cdf: tuple[tuple[float, ...], ...]  # [u][x] = P(sum of u random Nun-row cards <= x)
    # the options of CONSULTS read in the game being played (bits); the runner resets it
    reads: list[int] = dataclasses.field(default_factory=lambda: [0], compare=False, hash=False,
                                         repr=False)


# The rule options whose reads a game records (GameSpec.consults): bit i of ``reads[0]`` is
# CONSULTS[i], set wherever the rules or a player read the option where its value can matter.
CONSULTS: Final[tuple[str, ...]] = ("tie_mode", "pass_mode", "sword_chooser",
                                    "dead_excluded_from_majorities", "all_dead_result")
READ_TIE_MODE: Final = 1  # entrants tied for the most cards in a building, premium at stake
READ_PASS_MODE: Final = 2  # a first entrant held a Pass with a row still open
READ_SWORD_CHOOSER: Final = 4  # a Sword took cards
READ_DEAD_EXCLUDED: Final = 8  # majorities scored with a player dead of the plague
READ_ALL_DEAD: Final = 16  # every player died of the plague


# ---------------------------------------------------------------- data tables (built-in or user)

DEFAULT_CLASSES = ("royalty", "church", "bourgeoisie", "chivalry", "peasantry", "magic")
DEFAULT_BUILDINGS = (
    "palace", "treasury", "monastery", "hospital", "office", "marketplace",
    "guard_tower", "castle", "farm", "brewery", "fortune_tellers_tent", "magic_b",
)
# Index of the guessed 12th building (rules §2 [G]); a buildings table keeps this order.
MAGIC_B: Final = 11


def _buildings(path: Any, vals: list[RuleValue]) -> tuple:
    field = "buildings_file"
    data, source, user = load_table(field, path, _PACKAGE, "buildings.toml")
    check_keys(field, source, "", data, ("classes", "building"))
    classes, _prov, _sec = entry(field, source, data, "classes", user)
    if classes != list(DEFAULT_CLASSES):
        raise RuleError(field, f"{source}: [classes].value must be {list(DEFAULT_CLASSES)} (got {classes!r})")
    rows = data.get("building")
    if not isinstance(rows, list) or len(rows) != len(DEFAULT_BUILDINGS):
        raise RuleError(field, f"{source}: needs exactly {len(DEFAULT_BUILDINGS)} [[building]] tables")
    names, bclass, action, prem, std = [], [], [], [], []
    for i, row in enumerate(rows):
        want = DEFAULT_BUILDINGS[i]
        where = f"{source}: [[building]] {i + 1}"
        check_keys(field, source, f"[[building]] {i + 1}", row,
                   ("name", "class", "action", "premium", "standard", "provenance", "section"))
        if row.get("name") != want:
            raise RuleError(field, f"{where}: must be named {want!r} (got {row.get('name')!r};"
                                   f" order: {', '.join(DEFAULT_BUILDINGS)})")
        where = f"{source}: building {want!r}"
        if row.get("class") != DEFAULT_CLASSES[i // 2]:
            raise RuleError(field, f"{where}: class must be {DEFAULT_CLASSES[i // 2]!r} (got {row.get('class')!r})")
        kind = one_of(field, where, row.get("action"), ACTION_KINDS, "action")
        amounts: list[Any] = []  # ints, or (free rats, max cards) pairs
        for key in ("premium", "standard"):
            v = row.get(key)
            if kind in _PAIR_KINDS:
                if not (isinstance(v, list) and len(v) == 2):
                    raise RuleError(field, f"{where}: {key}: {kind} needs [free rats, max cards] (got {v!r})")
                amounts.append(tuple(integer(field, f"{where}: {key}", x) for x in v))
            else:
                amounts.append(integer(field, f"{where}: {key}", v, 1 if kind == "brewery" else 0))
        prov = provenance(field, where, row, user)
        names.append(want)
        bclass.append(i // 2)
        action.append(kind)
        prem.append(amounts[0])
        std.append(amounts[1])
        vals.append(RuleValue(f"building.{want}", f"{kind} premium={amounts[0]} standard={amounts[1]}",
                              prov, f"{RULES} {row.get('section', '§5')}"))
    return tuple(names), tuple(bclass), tuple(action), tuple(prem), tuple(std)


def _parse_icons(text: Any, field: str, where: str) -> tuple[int, int, int]:
    if not isinstance(text, str) or not text:
        raise RuleError(field, f"{where}: icon set must be a string like 'D2+L1' (got {text!r})")
    draw = rats = looks = 0
    for part in text.split("+"):
        kind, num = part[:1].upper(), part[1:]
        if not kind or kind not in "DRL" or not num.isdigit():
            raise RuleError(field, f"{where}: bad icon {part!r} in {text!r} (allowed: D<n>, R<n>, L<n>)")
        if kind == "D":
            draw += int(num)
        elif kind == "R":
            rats += int(num)
        else:
            looks += int(num)
    return draw, rats, looks


def _icons(path: Any, names: tuple[str, ...], copies: int, vals: list[RuleValue]) -> tuple:
    field = "supply_icons_file"
    data, source, user = load_table(field, path, _PACKAGE, "supply_icons.toml")
    check_keys(field, source, "", data, ("default", "building"))
    default, prov, sec = entry(field, source, data, "default", user)
    per = data.get("building", {})
    check_keys(field, source, "[building]", per, names)
    out: list[tuple[int, int, int]] = []
    for name in names:
        row, rprov = (default, prov)
        if name in per:
            row, rprov, _ = entry(field, source, per, name, user, f"[building.{name}]")
        if not isinstance(row, list) or len(row) != copies:
            raise RuleError(field, f"{source}: {name}: needs {copies} icon sets, one per copy (got {row!r})")
        out.extend(_parse_icons(t, field, f"{source}: {name} copy {k + 1}") for k, t in enumerate(row))
        if name in per:
            vals.append(RuleValue(f"supply_icons.{name}", list(row), rprov, f"{RULES} §4 phase B"))
    vals.append(RuleValue("supply_icons_per_copy", list(default), prov, f"{RULES} {sec}"))
    return tuple(out)


_COMPONENT_KEYS = ("population_per_class", "copies_per_building", "jokers", "swords", "flutes", "passes",
                   "gold", "vp_tokens", "start_rats", "start_hand", "nun_row", "nun_split_per_class",
                   "player_counts", "first_game")


def _components(path: Any, n: int, vals: list[RuleValue]) -> dict:
    field = "components_file"
    data, source, user = load_table(field, path, _PACKAGE, "components.toml")
    check_keys(field, source, "", data, _COMPONENT_KEYS)
    out: dict[str, Any] = {}
    for key in _COMPONENT_KEYS[:11]:
        v, prov, sec = entry(field, source, data, key, user)
        out[key] = integer(field, f"{source}: [{key}]", v, 1 if key in ("population_per_class", "copies_per_building")
                           else 0)
        vals.append(RuleValue(key, v, prov, f"{RULES} {sec}"))
    split, prov, sec = entry(field, source, data, "nun_split_per_class", user)
    where = f"{source}: [nun_split_per_class]"
    if not isinstance(split, list) or not all(isinstance(p, list) and len(p) == 2 for p in split):
        raise RuleError(field, f"{where}: list of [nuns, cards] pairs expected (got {split!r})")
    pairs = [(integer(field, f"{where}: nun symbols", a), integer(field, f"{where}: card count", b))
             for a, b in split]
    if sum(b for _, b in pairs) != out["population_per_class"]:
        raise RuleError(field, f"{where}: card counts add up to {sum(b for _, b in pairs)}, must equal "
                               f"population_per_class = {out['population_per_class']}")
    out["nun_split"] = pairs
    vals.append(RuleValue("nun_split_per_class", split, prov, f"{RULES} {sec}"))
    table, prov, sec = entry(field, source, data, "player_counts", user)
    row = table.get(str(n)) if isinstance(table, dict) else None
    if not (isinstance(row, list) and len(row) == 3):
        allowed = ", ".join(sorted(table)) if isinstance(table, dict) else "none"
        raise RuleError(field, f"{source}: [player_counts]: no [rounds, buildings per round, replacement pile] "
                               f"entry for {n} players (has: {allowed})")
    rounds, per_round, repl = (integer(field, f"{source}: [player_counts] {n}", x, 1) for x in row)
    total = 6 * 5  # 5 building cards per class are in play (rules §3)
    if rounds * per_round + repl != total:
        raise RuleError(field, f"{source}: [player_counts] {n}: rounds x buildings per round + replacement pile"
                               f" = {rounds * per_round + repl}, must equal the 30 building cards in play")
    if per_round < 2:
        raise RuleError(field, f"{source}: [player_counts] {n}: at least 2 buildings per round (got {per_round})")
    population = 6 * out["population_per_class"]
    if out["nun_row"] + out["start_hand"] * n > population:
        raise RuleError(field, f"{source}: Nun-row + start hands need {out['nun_row'] + out['start_hand'] * n} "
                               f"cards, only {population} population cards")
    out["rounds"], out["row_size"], out["replacement"] = rounds, per_round, repl
    vals.append(RuleValue("player_counts", {str(n): row}, prov, f"{RULES} {sec}"))
    first, prov, sec = entry(field, source, data, "first_game", user)
    if not isinstance(first, list) or not all(isinstance(x, str) for x in first):
        raise RuleError(field, f"{source}: [first_game]: must be a list of building names (got {first!r})")
    for name in first:
        one_of(field, f"{source}: [first_game]", name.partition(":")[0], DEFAULT_BUILDINGS, "building")
    out["first_game"] = first
    out["first_game_value"] = RuleValue("first_game", first, prov, f"{RULES} {sec}")
    return out


# ---------------------------------------------------------------- derived tables


def nun_sum_cdf(population: Sequence[tuple[int, int]], size: int) -> tuple[tuple[float, ...], ...]:
    """``cdf[u][x]`` = P(sum of ``u`` random Nun-row cards <= x), u = 0..size (rules §7.1).

    Cards are drawn with replacement from ``population`` (``(class, nuns)`` pairs), so a player
    who has seen some Nun-row cards can price the rest; built once per config.
    """
    one: dict[int, float] = {}
    for _, nuns in population:
        one[nuns] = one.get(nuns, 0.0) + 1.0 / len(population)
    dist = {0: 1.0}
    out = []
    for _u in range(size + 1):
        top = max(dist)
        acc, cdf = 0.0, []
        for x in range(top + 1):
            acc += dist.get(x, 0.0)
            cdf.append(min(acc, 1.0))
        out.append(tuple(cdf))
        nxt: dict[int, float] = {}
        for a, pa in dist.items():
            for b, pb in one.items():
                nxt[a + b] = nxt.get(a + b, 0.0) + pa * pb
        dist = nxt
    return tuple(out)


# ---------------------------------------------------------------- building selection


def building_set_id(names: Sequence[str]) -> str:
    """Canonical id of a building selection.

    Parameters
    ----------
    names : sequence of str
        Building names, one per card in play (repeats allowed) or one per building used
        with all its copies. Order does not matter.

    Returns
    -------
    str
        Names in canonical building order joined by ``"+"``; a building present with fewer
        than 5 cards is written ``name*k`` (only when the names are given per card).

    Raises
    ------
    RuleError
        An unknown building name.

    Examples
    --------
    >>> building_set_id(["farm", "palace"])
    'palace+farm'
    """
    names = list(names)
    counts: dict[str, int] = {}
    for name in names:
        if name not in DEFAULT_BUILDINGS:
            raise RuleError("buildings", f"unknown building {name!r} (allowed: {', '.join(DEFAULT_BUILDINGS)})")
        counts[name] = counts.get(name, 0) + 1
    per_card = len(names) > len(counts)
    parts = []
    for name in DEFAULT_BUILDINGS:
        k = counts.get(name, 0)
        if k:
            parts.append(f"{name}*{k}" if per_card and k != 5 else name)
    return "+".join(parts)


def one_per_class_sets() -> list[tuple[str, ...]]:
    """The 2**6 = 64 "one building per class" selections, in canonical order (rules §3 mode b).

    Returns
    -------
    list of tuple of str, length 64
        Each tuple holds 6 building names, one per class in class order; the first is all
        "A" buildings (palace, monastery, office, guard_tower, farm, fortune_tellers_tent).
        Use one as rule option ``buildings`` (``building_selection = "explicit"``).
    """
    pairs = [DEFAULT_BUILDINGS[2 * k: 2 * k + 2] for k in range(len(DEFAULT_CLASSES))]
    return [tuple(p) for p in itertools.product(*pairs)]


def _explicit_cards(items: Any, names: tuple[str, ...], copies: int, field: str = "buildings"
                    ) -> tuple[int, ...]:
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        raise RuleError(field, f"must be a list of building names or 'building:copy' cards (got {items!r})")
    cards: list[int] = []
    for item in items:
        name, _, copy = item.partition(":")
        if name not in names:
            raise RuleError(field, f"unknown building {name!r} (allowed: {', '.join(names)})")
        b = names.index(name)
        if not copy:
            cards.extend(range(b * copies, (b + 1) * copies))
            continue
        if not copy.isdigit() or not 1 <= int(copy) <= copies:
            raise RuleError(field, f"{item!r}: copy must be 1..{copies}")
        cards.append(b * copies + int(copy) - 1)
    if len(set(cards)) != len(cards):
        raise RuleError(field, "a building card is listed twice")
    per_class = [0] * 6
    for c in cards:
        per_class[(c // copies) // 2] += 1
    if per_class != [5] * 6:
        detail = ", ".join(f"{DEFAULT_CLASSES[k]}={per_class[k]}" for k in range(6))
        raise RuleError(field, f"needs exactly 5 cards per class, 30 in all (got {detail})")
    return tuple(sorted(cards))


# ---------------------------------------------------------------- make_config


def _idle(players: int, selection: str, kinds: set[str]) -> set[str]:
    """The options the rules never consult in this setting, left out of ``rule_values``."""
    idle = {name for name, kind in _NEEDS_KIND.items() if kind not in kinds}
    if players != 2 or selection == "explicit":
        idle.add("guard_tower_2p")
    return idle


def make_config(players: int, expansions: Sequence[str] = (), rules: Mapping[str, Any] | None = None) -> CartusConfig:
    """Build the frozen config for one scenario (GameSpec.make_config; docs/rules/cartus.md §2–§9).

    Parameters
    ----------
    players : int
        2..5 (rules §1).
    expansions : sequence of str
        Must be empty: Rattus Cartus has no expansion here.
    rules : mapping, optional
        Rule options (``OPTIONS``); unknown names are refused.

    Returns
    -------
    CartusConfig

    Raises
    ------
    RuleError
        Bad player count, any expansion, unknown option, bad value, bad or inconsistent data table,
        unknown building or a building set with the wrong number of cards per class.
    """
    rules = dict(rules or {})
    PLAYERS.check(players, expansions)
    opt = OPTIONS.resolve(players, rules)
    vals: list[RuleValue] = []
    names, bclass, action, prem, std = _buildings(opt["buildings_file"], vals)
    comp = _components(opt["components_file"], players, vals)
    copies = comp["copies_per_building"]
    if copies != 5:
        raise RuleError("components_file", f"copies_per_building must be 5 (got {copies})")
    icons = _icons(opt["supply_icons_file"], names, copies, vals)

    selection = opt["building_selection"]
    given = opt["buildings"] is not None or opt["building_set_name"] is not None
    if given and "building_selection" not in rules:
        selection = "explicit"
    fixed: tuple[int, ...] = ()
    if selection == "explicit":
        if (opt["buildings"] is None) == (opt["building_set_name"] is None):
            raise RuleError("buildings", "explicit selection needs exactly one of `buildings`"
                                         " or `building_set_name` (allowed set names: first_game)")
        if opt["buildings"] is not None:
            fixed = _explicit_cards(list(opt["buildings"]), names, copies)
        else:  # building_set_name: the set comes from the components table
            fixed = _explicit_cards(list(comp["first_game"]), names, copies, "components_file (first_game)")
            vals.append(comp["first_game_value"])
    elif given:
        raise RuleError("buildings", f"`buildings`/`building_set_name` need building_selection = 'explicit'"
                                     f" (got {selection!r})")
    gt = names.index("guard_tower")
    pools = []
    for k in range(len(DEFAULT_CLASSES)):
        bs = [b for b in (2 * k, 2 * k + 1) if not (players == 2 and opt["guard_tower_2p"] == "exclude" and b == gt)]
        pools.append(tuple(c for b in bs for c in range(b * copies, (b + 1) * copies)))

    population = tuple((k, nuns) for k in range(6) for nuns, cnt in comp["nun_split"] for _ in range(cnt))
    supply = [0] * N_TYPES
    supply[JOKER], supply[SWORD], supply[FLUTE], supply[PASS] = (
        comp["jokers"], comp["swords"], comp["flutes"], comp["passes"])
    in_play = fixed if selection == "explicit" else tuple(c for pool in pools for c in pool)
    idle = _idle(players, selection, {action[c // copies] for c in in_play})
    used = {names[c // copies] for c in in_play}  # a building's rows act only when it can be in play
    vals = [v for v in vals if v.name.partition(".")[0] not in ("building", "supply_icons")
            or v.name.partition(".")[2] in used]
    sel = opt.rule_value("building_selection", selection, "user" if given else "")
    vals += [sel if v.name == "building_selection" else v for v in opt.rule_values(idle | _FILE_OPTIONS)]
    return CartusConfig(
        n_players=players, rounds=comp["rounds"], row_size=comp["row_size"], replacement=comp["replacement"],
        class_names=DEFAULT_CLASSES, building_names=names, building_class=bclass, building_action=action,
        premium=prem, standard=std, copies=copies,
        card_building=tuple(c // copies for c in range(len(names) * copies)),
        card_class=tuple(bclass[c // copies] for c in range(len(names) * copies)),
        card_icons=icons, selection=selection, fixed_cards=fixed, class_pools=tuple(pools),
        population=population, supply=tuple(supply), gold_total=comp["gold"], vp_total=comp["vp_tokens"],
        start_rats=comp["start_rats"], start_hand=comp["start_hand"], nun_row_size=comp["nun_row"],
        rule_values=tuple(vals), nun_cdf=nun_sum_cdf(population, comp["nun_row"]),
        **opt.same_named(CartusConfig),  # tie_mode, track_points, ... keep their option names
    )


_FILE_OPTIONS = frozenset({"buildings_file", "supply_icons_file", "components_file"})  # listed by their tables

