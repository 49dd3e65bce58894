"""Pyramidion configuration: data tables + rule options → one frozen ``PyramidionConfig``.

The TOML tables in ``data/`` are read once (``tomllib``), checked, and flattened into tuples of
small ints so the engine only indexes them. Every ``[GAP → DEFAULT]`` of
``docs/rules/pyramidion.md`` that needs a scenario option is a named option in ``OPTIONS``.
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
from analyzer.model.base import Option, OptionSet, PlayerCounts, ResolvedOptions, RuleValue
from analyzer.model.tables import (
    builtin_table,
    check_keys,
    integer,
    load_table,
    one_of,
    provenance,
    rows,
)

_PACKAGE = "analyzer.games.pyramidion"
PLAYERS = PlayerCounts("pyramidion", 2, 4)  # §2: 5 players is bad input

# Goods: five ordinary kinds (index 0-4) and the wild statue (5). rules §3.1
GOODS: tuple[str, ...] = ("stone", "wood", "food", "camel", "worker", "statue")
ORDINARY: Final = 5
STATUE: Final = 5

# Card types (rules §10). Index = type id used by the engine.
CARD_TYPES: tuple[str, ...] = (
    "merchant", "negotiator", "slave_driver", "goddess", "revolt", "high_priest",
    "executioner", "stone_dragger", "thief", "bandit", "philosopher",
)
# Final: mypyc compiles these in place (a plain module constant is a dict look-up at each use)
MERCHANT: Final = 0
NEGOTIATOR: Final = 1
SLAVE_DRIVER: Final = 2
GODDESS: Final = 3
REVOLT: Final = 4
HIGH_PRIEST: Final = 5
EXECUTIONER: Final = 6
STONE_DRAGGER: Final = 7
THIEF: Final = 8
BANDIT: Final = 9
PHILOSOPHER: Final = 10
# The special cards (§3: 13 of them, the 4 Goddesses among them; §10.2): every type but the
# merchant, negotiator and slave driver and the revolt card, which §3 and §10.1 count as a type
# of its own.
SPECIAL_CARDS: tuple[str, ...] = tuple(t for i, t in enumerate(CARD_TYPES)
                                       if i not in (MERCHANT, NEGOTIATOR, SLAVE_DRIVER, REVOLT))

# Site abilities (rules §7).
ABILITIES: tuple[str, ...] = ("none", "player_order", "card_draw", "conversion")
NO_ABILITY: Final = 0
PLAYER_ORDER: Final = 1
CARD_DRAW: Final = 2
CONVERSION: Final = 3

DEFAULT_SITES: tuple[str, ...] = (
    "Giza", "Thebes", "Luxor", "Karnak", "Abu Simbel", "Alexandria", "Cairo", "Philae",
)

# The rule options: docs/rules/pyramidion.md §12 (suggested scenario options) and §3.1 (supply).
OPTIONS = OptionSet("pyramidion", (
    Option("target_vp", 10, int, "§6", "VP that ends the game at the end of the round it is reached (VP)",
           "rulebook", low=1, high=1000),
    Option("deck", "default48", str, "§3, §10.2", "the character-card deck (cards_file replaces it)",
           choices=("default48",)),
    Option("boat_set", "size_eq_vp", str, "§9", "which built-in boat table is used (boats_file replaces it)",
           choices=("size_eq_vp", "bordspeler")),
    Option("distribution", "default10", str, "§5 phase 2", "the distribution-card deck (distribution_file "
           "replaces it)", choices=("default10",)),
    Option("executioner", "discard_after_revolt", str, "§10.2", "when a played Executioner is discarded",
           choices=("discard_after_revolt", "discard_on_play")),
    Option("philosopher", "wins_ties", str, "§10.2", "wins_ties: the Philosopher token's holder wins ties in the "
           "slave-driver, negotiator and merchant steps; none: no effect", choices=("wins_ties", "none")),
    Option("supply_limited", True, bool, "§3.1", "goods come from a limited supply"),
    Option("supply_per_good", 35, int, "§3.1", "tokens of each ordinary good in a limited supply (goods)", low=0,
           high=1000),
    Option("statues", 10, int, "§3.1", "statues in a limited supply (goods)", low=0, high=1000),
    Option("goods_visible", True, bool, "§3.1", "policies may see every player's goods"),
    Option("revolt_winner_must_survive", True, bool, "§5 phase 5 step 4",
           "only players who survived the revolt can win it"),
    Option("no_tile_left", "cannot_place", str, "§5 phase 5 step 5", "what happens when a player has no tile "
           "left to place", choices=("cannot_place", "move_own_tile")),
    Option("giza_tile_lost_on_revolt", False, bool, "§5 phase 6", "whether a revolt also costs the Giza tile"),
    Option("loading_pass_is_final", False, bool, "§5 phase 7",
           "a player who passes in loading may not load later that round"),
    Option("phase8_slave_driver_benefit", "none", str, "§5 phase 8", "what the Slave Driver gives in phase 8",
           choices=("none", "good_of_site", "keep_card")),
    Option("discard_unplayed_drawn_cards", True, bool, "§5 phase 8",
           "cards drawn but not played are discarded at round end"),
    Option("tiebreak", ("boats", "goods", "shared"), list, "§6", "order of tie-breaks for the winner", item=str,
           choices=("boats", "goods", "shared"), allowed='list of "boats", "goods", ending with "shared", '
           "each at most once"),
    Option("start_player", "random", int, "§4", "who starts", low=0, also=("random",),
           allowed='"random" or a seat number 0..players-1'),
    Option("boat_vp_public", True, bool, "§5 phase 7", "policies may see the VP of loaded boats"),
    Option("max_rounds", 50, int, "§6", "round cap; a game reaching it ends as turn_cap (rounds)",
           low=1, high=10000, guard=True),
    Option("sites_file", None, Path, "§7", "user TOML of [[site]] tables replacing data/sites.toml"),
    Option("cards_file", None, Path, "§10.2", "user TOML of [[starting]] and [[common]] tables replacing "
           "data/cards.toml"),
    Option("boats_file", None, Path, "§9", "user TOML of [[boat]] tables replacing the built-in boat table"),
    Option("revolt_tiles_file", None, Path, "§8", "user TOML of [[tile]] tables replacing "
           "data/revolt_tiles.toml"),
    Option("distribution_file", None, Path, "§5 phase 2", "user TOML of [[card]] tables replacing "
           "data/distribution.toml"),
))
RULES = OPTIONS.rules_file


# The rule options whose reads a game records (GameSpec.consults): bit i of ``reads[0]`` is
# CONSULTS[i], set wherever the rules or a player read the option where its value can matter.
CONSULTS: Final[tuple[str, ...]] = ("philosopher", "giza_tile_lost_on_revolt", "loading_pass_is_final",
                                    "discard_unplayed_drawn_cards")
READ_PHILOSOPHER: Final = 1  # a site's steps were resolved with the Philosopher token held
READ_GIZA_LOST: Final = 2  # a revolt hit the card that took a Giza tile
READ_LOADING_PASS: Final = 4  # a player passed in the loading phase
READ_DISCARD_UNPLAYED: Final = 8  # a drawn card was left unplayed at the end of a round


@dataclass(frozen=True)
class PyramidionConfig:
    """Everything a Pyramidion game needs, flattened into tuples of ints (rules §3–§10).

    Card *instances* are numbered: ``0 .. n_common-1`` are the common deck, then each seat's
    starting cards. ``card_type[i]``, ``card_val[i]`` (influence, negotiation, trade) and
    ``card_owner[i]`` (seat for a starting card, -1 for a common card) describe instance ``i``.
    """

    players: int
    options: Mapping[str, Any]
    rule_values: tuple[RuleValue, ...]
    # sites (§7)
    site_names: tuple[str, ...]
    site_kind: tuple[int, ...]
    site_min: tuple[tuple[int, int, int], ...]  # (influence, negotiation, trade) per site
    site_ability: tuple[int, ...]
    # cards (§10)
    card_type: tuple[int, ...]
    card_val: tuple[tuple[int, int, int], ...]
    card_owner: tuple[int, ...]
    n_common: int
    starting: tuple[tuple[int, ...], ...]  # instance ids of each seat's starting cards
    goddess_value: int
    # boats (§9)
    boat_names: tuple[str, ...]
    boat_need: tuple[tuple[int, ...], ...]  # units per ordinary kind, length 5
    boat_vp: tuple[int, ...]
    # revolt tiles (§8) and distribution cards (§5 phase 2)
    revolt_strength: tuple[int, ...]
    revolt_good: tuple[int, ...]
    dist_goods: tuple[tuple[int, ...], ...]  # goods per site, per distribution card
    # numbers (data/game.toml) and options
    boats_on_display: int
    cards_drawn: int
    activations_per_player: int
    tiles_per_colour: int
    supply_start: tuple[int, ...]  # per good incl. statue
    target_vp: int
    max_rounds: int
    executioner_on_play: bool
    philosopher_wins_ties: bool
    supply_limited: bool
    goods_visible: bool
    revolt_winner_must_survive: bool
    move_own_tile: bool
    giza_tile_lost_on_revolt: bool
    loading_pass_is_final: bool
    phase8_benefit: str
    discard_unplayed_drawn_cards: bool
    tiebreak: tuple[str, ...]
    start_player: int  # -1 = random
    boat_vp_public: bool
    # derived in __post_init__
    card_cats: tuple[tuple[tuple[int, int], ...], ...] = ()
    card_points: tuple[int, ...] = ()
    card_reach: tuple[tuple[int, int, int], ...] = ()  # card_val, (0, 0, 0) for a Goddess
    card_kind: tuple[int, ...] = ()  # equal (type, values) share a number
    # per card for the greedy card choice: (kind, type, category, value, points) where category
    # and value are those of its one non-zero category, or (-1, goddess value) for a Goddess
    # and (-1, 0) for a card with several (or no) non-zero categories
    card_play_info: tuple[tuple[int, int, int, int, int], ...] = ()
    boat_need_items: tuple[tuple[tuple[int, int], ...], ...] = ()  # (kind, units) with units > 0
    boat_plain_load: tuple[tuple[int, tuple], ...] = ()  # the load option (b, ()) per boat
    # the options of CONSULTS read in the game being played (bits); the runner resets it
    reads: list[int] = field(default_factory=lambda: [0], compare=False, hash=False, repr=False)

    @property
    def n_sites(self) -> int:
        return len(self.site_names)

    @property
    def n_players(self) -> int:
        """The player count (``players``), under the name every game's config gives it."""
        return self.players

    def __post_init__(self) -> None:
        # Derived per-card tables for the policies' hot loop: (category, value) pairs with a
        # non-zero value, and the card's total points.
        cats = tuple(tuple((k, v[k]) for k in range(3) if v[k]) for v in self.card_val)
        object.__setattr__(self, "card_cats", cats)
        object.__setattr__(self, "card_points", tuple(
            self.goddess_value if t == GODDESS else sum(v)
            for t, v in zip(self.card_type, self.card_val)))
        object.__setattr__(self, "card_reach", tuple(
            (0, 0, 0) if t == GODDESS else v for t, v in zip(self.card_type, self.card_val)))
        kinds: dict[tuple[int, tuple[int, ...]], int] = {}
        object.__setattr__(self, "card_kind", tuple(
            kinds.setdefault((t, v), len(kinds)) for t, v in zip(self.card_type, self.card_val)))
        object.__setattr__(self, "card_play_info", tuple(
            (kind, t, *(cat[0] if len(cat) == 1 and t != GODDESS
                        else (-1, self.goddess_value if t == GODDESS else 0)), pts)
            for kind, t, cat, pts in zip(self.card_kind, self.card_type, cats, self.card_points)))
        object.__setattr__(self, "boat_need_items", tuple(
            tuple((k, n) for k, n in enumerate(need) if n) for need in self.boat_need))
        object.__setattr__(self, "boat_plain_load", tuple((b, ()) for b in range(len(self.boat_need))))


# ---------------------------------------------------------------- data tables (built-in or user)


def _kind(field: str, where: str, value: Any, allow_statue: bool = False) -> int:
    return GOODS.index(one_of(field, where, value, GOODS if allow_statue else GOODS[:ORDINARY], "good"))


def _load_sites(field: str, path: Any, players: int, acts: int, prov: list[RuleValue]):
    data, source, user = load_table(field, path, _PACKAGE, "sites.toml")
    check_keys(field, source, "", data, ("site",))
    names: list[str] = []
    kinds, mins, abil = [], [], []
    for i, row in enumerate(rows(field, source, data, "site", (
            "name", "produces", "min_influence", "min_negotiation", "min_trade", "ability", "provenance"))):
        where = f"{source}: [[site]] {i + 1}"
        name = row.get("name")
        if not isinstance(name, str) or not name:
            raise RuleError(field, f"{where}: needs a non-empty name (got {name!r})")
        if name in names:
            raise RuleError(field, f"{where}: duplicate site name {name!r}")
        where = f"{source}: site {name!r}"
        kinds.append(_kind(field, where, row.get("produces")))
        mins.append(tuple(integer(field, f"{where}: {k}", row.get(k))
                          for k in ("min_influence", "min_negotiation", "min_trade")))
        ab = one_of(field, where, row.get("ability", "none"), ABILITIES, "ability")
        abil.append(ABILITIES.index(ab))
        names.append(name)
        prov.append(RuleValue(f"site.{name}", {"produces": row["produces"], "minimums": mins[-1], "ability": ab},
                              provenance(field, where, row, user), f"{RULES} §7"))
    if len(names) < players * acts:
        raise RuleError(field, f"{source}: {len(names)} sites is too few: {players} players activate "
                               f"{players * acts} sites a round (need at least that many)")
    if abil.count(PLAYER_ORDER) > 1:
        raise RuleError(field, f"{source}: at most one site may have ability 'player_order'")
    return tuple(names), tuple(kinds), tuple(mins), tuple(abil)


_CARD_KEYS = ("type", "count", "influence", "negotiation", "trade", "value", "provenance")


def _card_rows(field: str, source: str, data: dict, key: str, user: bool):
    out = []
    for i, row in enumerate(rows(field, source, data, key, _CARD_KEYS)):
        where = f"{source}: [[{key}]] {i + 1}"
        t = CARD_TYPES.index(one_of(field, where, row.get("type"), CARD_TYPES, "card type"))
        count = integer(field, f"{where}: count", row.get("count", 1))
        vals: tuple[int, ...]  # (influence, negotiation, trade)
        if t == GODDESS:
            v = integer(field, f"{where}: value", row.get("value"))
            vals = (v, v, v)
        else:
            vals = tuple(integer(field, f"{where}: {k}", row.get(k, 0)) for k in ("influence", "negotiation", "trade"))
        out.append((t, vals, count, provenance(field, where, row, user)))
    return out


def _load_cards(field: str, path: Any, players: int, prov: list[RuleValue]):
    data, source, user = load_table(field, path, _PACKAGE, "cards.toml")
    check_keys(field, source, "", data, ("starting", "common"))
    starting = _card_rows(field, source, data, "starting", user)
    common = _card_rows(field, source, data, "common", user)
    goddesses = {v[0] for t, v, c, _ in starting + common if t == GODDESS and c}
    if len(goddesses) > 1:
        raise RuleError(field, f"{source}: all goddess cards must share one value (got {sorted(goddesses)})")
    ctype, cval, cowner = [], [], []
    for t, vals, count, p in common:
        ctype += [t] * count
        cval += [vals] * count
        cowner += [-1] * count
        prov.append(RuleValue(f"card.common.{CARD_TYPES[t]}.{'/'.join(map(str, vals))}", count, p,
                              f"{RULES} §10.2"))
    n_common = len(ctype)
    if n_common < 1:
        raise RuleError(field, f"{source}: the common deck is empty (need at least one [[common]] card)")
    start_ids = []
    for seat in range(players):
        ids = []
        for t, vals, count, _ in starting:
            for _ in range(count):
                ids.append(len(ctype))
                ctype.append(t)
                cval.append(vals)
                cowner.append(seat)
        start_ids.append(tuple(ids))
    for t, vals, count, p in starting:
        prov.append(RuleValue(f"card.starting.{CARD_TYPES[t]}.{'/'.join(map(str, vals))}", count, p,
                              f"{RULES} §10.2"))
    gval = goddesses.pop() if goddesses else 0
    return tuple(ctype), tuple(cval), tuple(cowner), n_common, tuple(start_ids), gval


def _load_boats(field: str, path: Any, boat_set: str, prov: list[RuleValue]):
    builtin = "boats.toml" if boat_set == "size_eq_vp" else "boats_bordspeler.toml"
    data, source, user = load_table(field, path, _PACKAGE, builtin)
    check_keys(field, source, "", data, ("boat",))
    names, needs, vps = [], [], []
    for i, row in enumerate(rows(field, source, data, "boat", ("name", "goods", "vp", "provenance"))):
        name = str(row.get("name", f"boat {i + 1}"))
        where = f"{source}: boat {name!r}"
        goods = row.get("goods")
        if not isinstance(goods, dict) or not goods:
            raise RuleError(field, f"{where}: needs goods = {{ kind = count, ... }} (got {goods!r})")
        need = [0] * ORDINARY
        for k, n in goods.items():
            need[_kind(field, where, k)] = integer(field, f"{where}: goods.{k}", n)
        if sum(need) == 0:
            raise RuleError(field, f"{where}: asks for no goods (need at least 1)")
        vp = integer(field, f"{where}: vp", row.get("vp"))
        names.append(name)
        needs.append(tuple(need))
        vps.append(vp)
        prov.append(RuleValue(f"boat.{name}", {"goods": dict(goods), "vp": vp}, provenance(field, where, row, user),
                              f"{RULES} §9"))
    return tuple(names), tuple(needs), tuple(vps)


def _load_revolt(field: str, path: Any, prov: list[RuleValue]):
    data, source, user = load_table(field, path, _PACKAGE, "revolt_tiles.toml")
    check_keys(field, source, "", data, ("tile",))
    strength, good = [], []
    for i, row in enumerate(rows(field, source, data, "tile", ("strength", "good", "provenance"))):
        where = f"{source}: [[tile]] {i + 1}"
        strength.append(integer(field, f"{where}: strength", row.get("strength")))
        good.append(_kind(field, where, row.get("good"), allow_statue=True))
        prov.append(RuleValue(f"revolt_tile.{i + 1}", {"strength": strength[-1], "good": row["good"]},
                              provenance(field, where, row, user), f"{RULES} §8"))
    return tuple(strength), tuple(good)


def _load_distribution(field: str, path: Any, site_names: Sequence[str], prov: list[RuleValue],
                       sites_path: Any = None):
    data, source, user = load_table(field, path, _PACKAGE, "distribution.toml")
    check_keys(field, source, "", data, ("card",))
    cards = rows(field, source, data, "card", ("name", "goods", "provenance"))
    if not user and sites_path is not None:  # the user changed the sites but kept the built-in distribution table
        builtin_sites = {s for r in cards for s in r.get("goods", {})}
        if builtin_sites != set(site_names):
            raise RuleError("sites_file", f"{str(sites_path)!r}: the built-in distribution table "
                                          f"(data/distribution.toml) no longer matches these sites (it gives goods "
                                          f"to {', '.join(sorted(builtin_sites))}; sites here: "
                                          f"{', '.join(site_names)}); also set distribution_file to a table "
                                          f"naming every site")
    out = []
    for i, row in enumerate(cards):
        name = str(row.get("name", f"card {i + 1}"))
        where = f"{source}: distribution card {name!r}"
        goods = row.get("goods")
        if not isinstance(goods, dict):
            raise RuleError(field, f"{where}: needs goods = {{ \"<site>\" = count, ... }} (got {goods!r})")
        for site in goods:
            one_of(field, where, site, tuple(site_names), "site")
        missing = [s for s in site_names if s not in goods]
        if missing:
            raise RuleError(field, f"{where}: no count for site {missing[0]!r} (every site needs one; "
                                   f"sites: {', '.join(site_names)})")
        out.append(tuple(integer(field, f"{where}: {s}", goods[s]) for s in site_names))
        prov.append(RuleValue(f"distribution.{name}", dict(goods), provenance(field, where, row, user),
                              f"{RULES} §5 phase 2"))
    return tuple(out)


# ---------------------------------------------------------------- make_config


def _idle(opts: ResolvedOptions, card_types: set[int], abilities: tuple[int, ...]) -> set[str]:
    """The options the rules never consult in this setting, left out of ``rule_values``."""
    idle = {name for name, table in (("deck", "cards_file"), ("boat_set", "boats_file"),
                                     ("distribution", "distribution_file")) if opts[table] is not None}
    if EXECUTIONER not in card_types:
        idle.add("executioner")
    if PHILOSOPHER not in card_types:
        idle.add("philosopher")
    if REVOLT not in card_types:
        idle |= {"revolt_winner_must_survive", "giza_tile_lost_on_revolt"}
    if PLAYER_ORDER not in abilities:
        idle.add("giza_tile_lost_on_revolt")
    if not opts["supply_limited"]:
        idle |= {"supply_per_good", "statues"}
    return idle


def make_config(players: int, expansions: Sequence[str] = (), rules: Mapping[str, Any] | None = None
                ) -> PyramidionConfig:
    """Build the frozen config for one scenario (docs/rules/pyramidion.md §2–§12).

    Parameters
    ----------
    players : int
        Number of seats, 2..4 (5 is bad input, §2).
    expansions : sequence of str
        Must be empty: Pyramidion has no expansion here.
    rules : mapping of str to Any, optional
        Rule options by name (``OPTIONS``); missing ones take their default.

    Returns
    -------
    PyramidionConfig

    Raises
    ------
    RuleError
        Bad player count, any expansion, unknown option, bad option value, or a missing,
        malformed or inconsistent user data table (the field names the option).
    """
    rules = dict(rules or {})
    PLAYERS.check(players, expansions)
    opts = OPTIONS.resolve(players, rules)
    tb = opts["tiebreak"]
    if tb[-1] != "shared" or "shared" in tb[:-1] or len(set(tb)) != len(tb):
        raise RuleError("tiebreak", f"must be a {OPTIONS['tiebreak'].allowed_text()} (got {list(tb)!r})")
    sp = opts["start_player"]
    if sp != "random" and sp >= players:
        raise RuleError("start_player", f'must be "random" or a seat number 0..{players - 1} (got {sp!r})')

    game = builtin_table(_PACKAGE, "game.toml")
    prov: list[RuleValue] = [RuleValue(key, entry["value"], entry["provenance"], f"{RULES} {entry['section']}")
                             for key, entry in game.items()
                             if not (key == "goddess_value" and opts["cards_file"] is not None)]
    tables: list[RuleValue] = []
    acts = game["activations_per_player"]["value"]
    names, kinds, mins, abil = _load_sites("sites_file", opts["sites_file"], players, acts, tables)
    ctype, cval, cowner, n_common, start_ids, gval = _load_cards("cards_file", opts["cards_file"], players, tables)
    if opts["cards_file"] is None:
        gval = game["goddess_value"]["value"]
    boat_names, needs, vps = _load_boats("boats_file", opts["boats_file"], opts["boat_set"], tables)
    rs, rg = _load_revolt("revolt_tiles_file", opts["revolt_tiles_file"], tables)
    n_revolt_cards = sum(1 for t in ctype[:n_common] if t == REVOLT)
    if n_revolt_cards > len(rs):
        raise RuleError("revolt_tiles_file", f"{len(rs)} revolt tiles but {n_revolt_cards} revolt cards "
                                             f"in the deck (need at least one tile per revolt card)")
    dist = _load_distribution("distribution_file", opts["distribution_file"], names, tables, opts["sites_file"])
    if REVOLT not in ctype:  # §8: the revolt tiles act only through revolt cards
        tables = [v for v in tables if not v.name.startswith("revolt_tile.")]
    prov += opts.rule_values(_idle(opts, set(ctype), abil)) + tables
    return PyramidionConfig(
        players=players, options=dict(opts.values), rule_values=tuple(prov),
        site_names=names, site_kind=kinds, site_min=mins, site_ability=abil,
        card_type=ctype, card_val=cval, card_owner=cowner, n_common=n_common,
        starting=start_ids, goddess_value=gval,
        boat_names=boat_names, boat_need=needs, boat_vp=vps,
        revolt_strength=rs, revolt_good=rg, dist_goods=dist,
        boats_on_display=game["boats_on_display"]["value"],
        cards_drawn=game["cards_drawn_per_round"]["value"],
        activations_per_player=acts,
        tiles_per_colour=game["tiles_per_colour"]["value"],
        supply_start=(opts["supply_per_good"],) * ORDINARY + (opts["statues"],),
        executioner_on_play=opts["executioner"] == "discard_on_play",
        philosopher_wins_ties=opts["philosopher"] == "wins_ties",
        move_own_tile=opts["no_tile_left"] == "move_own_tile",
        phase8_benefit=opts["phase8_slave_driver_benefit"],
        start_player=-1 if sp == "random" else sp,
        **opts.same_named(PyramidionConfig, but=("start_player",)),  # target_vp, tiebreak, ... by name
    )
