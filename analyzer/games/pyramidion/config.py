"""Pyramidion configuration: data tables + rule options → one frozen ``PyramidionConfig``.

The TOML tables in ``data/`` are read once (``tomllib``), checked, and flattened into tuples of
small ints so the engine only indexes them. Every ``[GAP → DEFAULT]`` of
``docs/rules/pyramidion.md`` that needs a scenario option is a named option in ``RULE_OPTIONS``.
"""

from __future__ import annotations

import importlib.resources
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

from analyzer.errors import RuleError
from analyzer.games.base import RuleValue
from analyzer.games.tables import check_keys, option_help

# From the package, not __file__: this module is compiled (setup.py) and mypyc's __file__ of a
# module in a compiled group names a wrong folder.
DATA = Path(str(importlib.resources.files("analyzer.games.pyramidion"))) / "data"
RULES = "docs/rules/pyramidion.md"

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

# name -> (default, allowed description, rules section). The one place options are declared.
_OPTIONS: dict[str, tuple[Any, str, str]] = {
    "target_vp": (10, "int >= 1", "§6"),
    "deck": ("default48", '"default48"', "§3, §10.2"),
    "boat_set": ("size_eq_vp", '"size_eq_vp" or "bordspeler"', "§9"),
    "distribution": ("default10", '"default10"', "§5 phase 2"),
    "executioner": ("discard_after_revolt", '"discard_after_revolt" or "discard_on_play"', "§10.2"),
    "philosopher": ("wins_ties", '"wins_ties" or "none"', "§10.2"),
    "supply_limited": (True, "true or false", "§3.1"),
    "goods_visible": (True, "true or false", "§3.1"),
    "revolt_winner_must_survive": (True, "true or false", "§5 phase 5 step 4"),
    "no_tile_left": ("cannot_place", '"cannot_place" or "move_own_tile"', "§5 phase 5 step 5"),
    "giza_tile_lost_on_revolt": (False, "true or false", "§5 phase 6"),
    "loading_pass_is_final": (False, "true or false", "§5 phase 7"),
    "phase8_slave_driver_benefit": ("none", '"none", "good_of_site" or "keep_card"', "§5 phase 8"),
    "discard_unplayed_drawn_cards": (True, "true or false", "§5 phase 8"),
    "tiebreak": (("boats", "goods", "shared"), 'list of "boats", "goods", ending with "shared"', "§6"),
    "start_player": ("random", '"random" or a seat number 0..players-1', "§4"),
    "boat_vp_public": (True, "true or false", "§5 phase 7"),
    "max_rounds": (50, "int >= 1", "§6"),
    "sites_file": ("", "path to a TOML file of [[site]] tables (empty = built-in)", "§7"),
    "cards_file": ("", "path to a TOML file of [[starting]] and [[common]] tables", "§10.2"),
    "boats_file": ("", "path to a TOML file of [[boat]] tables (overrides boat_set)", "§9"),
    "revolt_tiles_file": ("", "path to a TOML file of [[tile]] tables", "§8"),
    "distribution_file": ("", "path to a TOML file of [[card]] tables", "§5 phase 2"),
}
_HELP: dict[str, str] = {
    "target_vp": "VP that ends the game at the end of the round it is reached",
    "deck": "the character-card deck",
    "boat_set": "which built-in boat table is used (boats_file overrides it)",
    "distribution": "the distribution-card deck",
    "executioner": "when a played Executioner is discarded",
    "philosopher": "wins_ties: the Philosopher token's holder wins ties in the slave-driver, negotiator and merchant steps; none: no effect",
    "supply_limited": "goods come from a limited supply",
    "goods_visible": "policies may see every player's goods",
    "revolt_winner_must_survive": "only players who survived the revolt can win it",
    "no_tile_left": "what happens when a player has no tile left to place",
    "giza_tile_lost_on_revolt": "whether a revolt also costs the Giza tile",
    "loading_pass_is_final": "a player who passes in loading may not load later that round",
    "phase8_slave_driver_benefit": "what the Slave Driver gives in phase 8",
    "discard_unplayed_drawn_cards": "cards drawn but not played are discarded at round end",
    "tiebreak": "order of tie-breaks for the winner",
    "start_player": "who starts",
    "boat_vp_public": "policies may see the VP of loaded boats",
    "max_rounds": "round cap (a game reaching it ends as turn_cap)",
    "sites_file": "user TOML replacing data/sites.toml",
    "cards_file": "user TOML replacing data/cards.toml",
    "boats_file": "user TOML replacing the built-in boat table",
    "revolt_tiles_file": "user TOML replacing data/revolt_tiles.toml",
    "distribution_file": "user TOML replacing data/distribution.toml",
}
RULE_OPTIONS: dict[str, str] = {
    k: option_help(d, allowed, _HELP[k], f"{RULES} {sec}") for k, (d, allowed, sec) in _OPTIONS.items()
}
_CHOICES = {
    "deck": ("default48",),
    "boat_set": ("size_eq_vp", "bordspeler"),
    "distribution": ("default10",),
    "executioner": ("discard_after_revolt", "discard_on_play"),
    "philosopher": ("wins_ties", "none"),
    "no_tile_left": ("cannot_place", "move_own_tile"),
    "phase8_slave_driver_benefit": ("none", "good_of_site", "keep_card"),
}


@dataclass(frozen=True)
class PyramidionConfig:
    """Everything a Pyramidion game needs, flattened into tuples of ints (rules §3–§10).

    Card *instances* are numbered: ``0 .. n_common-1`` are the common deck, then each seat's
    starting cards. ``card_type[i]``, ``card_val[i]`` (influence, negotiation, trade) and
    ``card_owner[i]`` (seat for a starting card, -1 for a common card) describe instance ``i``.
    """

    players: int
    options: Mapping[str, Any]
    provenance: tuple[RuleValue, ...]
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

    @property
    def n_sites(self) -> int:
        return len(self.site_names)

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


# ---------------------------------------------------------------- table loading


def _read_toml(path: Path, field: str, what: str) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise RuleError(field, f"file not found: {str(path)!r} (give a path to a TOML file of {what})") from None
    except OSError as err:
        raise RuleError(field, f"cannot read {str(path)!r}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise RuleError(field, f"{str(path)!r} is not valid TOML: {err}") from None


@cache
def _builtin(name: str) -> dict:
    with open(DATA / name, "rb") as fh:
        return tomllib.load(fh)


def _table(field: str, user: str, builtin: str, what: str, layout: dict[str, tuple[str, ...]]
           ) -> tuple[dict, str | None]:
    """The parsed table and ``None`` (built-in) or the user's path.

    ``layout`` maps each allowed top-level array (``[[key]]``) to the keys its tables allow;
    any other key, at either level, is refused naming the file, the key and the allowed keys.
    """
    data = _read_toml(Path(user), field, what) if user else _builtin(builtin)
    source = user or f"data/{builtin}"
    check_keys(field, source, "", data, tuple(layout))
    for key, allowed in layout.items():
        rows = data.get(key)
        if isinstance(rows, list):
            for i, row in enumerate(rows):
                check_keys(field, source, f"[[{key}]] {i + 1}", row, allowed)
    return data, (user or None)


def _nonneg_int(field: str, where: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RuleError(field, f"{where}: must be an int >= 0 (got {value!r})")
    return value


def _entries(field: str, data: dict, key: str) -> list[dict]:
    rows = data.get(key)
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise RuleError(field, f"needs a non-empty list of [[{key}]] tables")
    return rows


def _prov(field: str, where: str, row: dict, user: str | None) -> str:
    if user is not None:
        return "user"
    return row.get("provenance", "default")


def _kind(field: str, where: str, value: Any, allow_statue: bool = False) -> int:
    allowed = GOODS if allow_statue else GOODS[:ORDINARY]
    if value not in allowed:
        raise RuleError(field, f"{where}: unknown good {value!r} (allowed: {', '.join(allowed)})")
    return GOODS.index(value)


def _load_sites(field: str, user: str, players: int, acts: int, prov: list[RuleValue]):
    data, src = _table(field, user, "sites.toml", "[[site]] tables", {"site": (
        "name", "produces", "min_influence", "min_negotiation", "min_trade", "ability", "provenance")})
    rows = _entries(field, data, "site")
    names, kinds, mins, abil = [], [], [], []
    for i, row in enumerate(rows):
        where = f"site {i + 1}"
        name = row.get("name")
        if not isinstance(name, str) or not name:
            raise RuleError(field, f"{where}: needs a non-empty name")
        if name in names:
            raise RuleError(field, f"duplicate site name {name!r}")
        where = f"site {name!r}"
        kinds.append(_kind(field, where, row.get("produces")))
        mins.append(tuple(_nonneg_int(field, f"{where} {k}", row.get(k))
                          for k in ("min_influence", "min_negotiation", "min_trade")))
        ab = row.get("ability", "none")
        if ab not in ABILITIES:
            raise RuleError(field, f"{where}: unknown ability {ab!r} (allowed: {', '.join(ABILITIES)})")
        abil.append(ABILITIES.index(ab))
        names.append(name)
        prov.append(RuleValue(f"site.{name}", {"produces": row["produces"], "minimums": mins[-1],
                                               "ability": ab}, _prov(field, where, row, src), f"{RULES} §7"))
    if len(names) < players * acts:
        raise RuleError(field, f"{len(names)} sites is too few: {players} players activate "
                               f"{players * acts} sites a round (need at least that many)")
    if abil.count(PLAYER_ORDER) > 1:
        raise RuleError(field, "at most one site may have ability 'player_order'")
    return tuple(names), tuple(kinds), tuple(mins), tuple(abil)


def _card_rows(field: str, rows: list[dict], key: str):
    out = []
    for i, row in enumerate(rows):
        where = f"[[{key}]] {i + 1}"
        t = row.get("type")
        if t not in CARD_TYPES:
            raise RuleError(field, f"{where}: unknown card type {t!r} (allowed: {', '.join(CARD_TYPES)})")
        count = _nonneg_int(field, f"{where} count", row.get("count", 1))
        vals: tuple[int, ...]  # (influence, negotiation, trade)
        if t == "goddess":
            v = _nonneg_int(field, f"{where} value", row.get("value"))
            vals = (v, v, v)
        else:
            vals = tuple(_nonneg_int(field, f"{where} {k}", row.get(k, 0))
                         for k in ("influence", "negotiation", "trade"))
        out.append((CARD_TYPES.index(t), vals, count, row))
    return out


def _load_cards(field: str, user: str, players: int, prov: list[RuleValue]):
    card_keys = ("type", "count", "influence", "negotiation", "trade", "value", "provenance")
    data, src = _table(field, user, "cards.toml", "[[starting]] and [[common]] tables",
                       {"starting": card_keys, "common": card_keys})
    starting = _card_rows(field, _entries(field, data, "starting"), "starting")
    common = _card_rows(field, _entries(field, data, "common"), "common")
    goddesses = {v[0] for t, v, c, _ in starting + common if t == GODDESS and c}
    if len(goddesses) > 1:
        raise RuleError(field, f"all goddess cards must share one value (got {sorted(goddesses)})")
    ctype, cval, cowner = [], [], []
    for t, vals, count, row in common:
        ctype += [t] * count
        cval += [vals] * count
        cowner += [-1] * count
        prov.append(RuleValue(f"card.common.{CARD_TYPES[t]}.{'/'.join(map(str, vals))}",
                              count, _prov(field, "", row, src), f"{RULES} §10.2"))
    n_common = len(ctype)
    if n_common < 1:
        raise RuleError(field, "the common deck is empty (need at least one [[common]] card)")
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
    for t, vals, count, row in starting:
        prov.append(RuleValue(f"card.starting.{CARD_TYPES[t]}.{'/'.join(map(str, vals))}",
                              count, _prov(field, "", row, src), f"{RULES} §10.2"))
    gval = goddesses.pop() if goddesses else 0
    return tuple(ctype), tuple(cval), tuple(cowner), n_common, tuple(start_ids), gval


def _load_boats(field: str, user: str, boat_set: str, prov: list[RuleValue]):
    builtin = "boats.toml" if boat_set == "size_eq_vp" else "boats_bordspeler.toml"
    data, src = _table(field, user, builtin, "[[boat]] tables", {"boat": ("name", "goods", "vp", "provenance")})
    names, needs, vps = [], [], []
    for i, row in enumerate(_entries(field, data, "boat")):
        name = row.get("name", f"boat {i + 1}")
        where = f"boat {name!r}"
        goods = row.get("goods")
        if not isinstance(goods, dict) or not goods:
            raise RuleError(field, f"{where}: needs goods = {{ kind = count, ... }}")
        need = [0] * ORDINARY
        for k, n in goods.items():
            need[_kind(field, where, k)] = _nonneg_int(field, f"{where} goods.{k}", n)
        if sum(need) == 0:
            raise RuleError(field, f"{where}: asks for no goods (need at least 1)")
        vp = _nonneg_int(field, f"{where} vp", row.get("vp"))
        names.append(str(name))
        needs.append(tuple(need))
        vps.append(vp)
        prov.append(RuleValue(f"boat.{name}", {"goods": dict(goods), "vp": vp},
                              _prov(field, where, row, src), f"{RULES} §9"))
    return tuple(names), tuple(needs), tuple(vps)


def _load_revolt(field: str, user: str, prov: list[RuleValue]):
    data, src = _table(field, user, "revolt_tiles.toml", "[[tile]] tables",
                       {"tile": ("strength", "good", "provenance")})
    rows = _entries(field, data, "tile")
    strength, good = [], []
    for i, row in enumerate(rows):
        where = f"tile {i + 1}"
        strength.append(_nonneg_int(field, f"{where} strength", row.get("strength")))
        good.append(_kind(field, where, row.get("good"), allow_statue=True))
        prov.append(RuleValue(f"revolt_tile.{i + 1}", {"strength": strength[-1], "good": row["good"]},
                              _prov(field, where, row, src), f"{RULES} §8"))
    return tuple(strength), tuple(good)


def _load_distribution(field: str, user: str, site_names: Sequence[str], prov: list[RuleValue],
                       sites_user: str = ""):
    data, src = _table(field, user, "distribution.toml", "[[card]] tables",
                       {"card": ("name", "goods", "provenance")})
    if not user and sites_user:  # the user changed the sites but kept the built-in distribution table
        builtin_sites = set().union(*(r.get("goods", {}) for r in data.get("card", [])))
        if builtin_sites != set(site_names):
            raise RuleError("sites_file", f"{sites_user!r}: the built-in distribution table (data/distribution.toml)"
                                          f" no longer matches these sites (it gives goods to "
                                          f"{', '.join(sorted(builtin_sites))}; sites here: "
                                          f"{', '.join(site_names)}); also set distribution_file to a table "
                                          f"naming every site")
    cards = []
    for i, row in enumerate(_entries(field, data, "card")):
        name = row.get("name", f"card {i + 1}")
        where = f"distribution card {name!r}"
        goods = row.get("goods")
        if not isinstance(goods, dict):
            raise RuleError(field, f"{where}: needs goods = {{ \"<site>\" = count, ... }}")
        unknown = sorted(set(goods) - set(site_names))
        if unknown:
            raise RuleError(field, f"{where}: unknown site {unknown[0]!r} (allowed: {', '.join(site_names)})")
        missing = [s for s in site_names if s not in goods]
        if missing:
            raise RuleError(field, f"{where}: no count for site {missing[0]!r} (every site needs one; "
                                   f"sites: {', '.join(site_names)})")
        cards.append(tuple(_nonneg_int(field, f"{where} {s}", goods[s]) for s in site_names))
        prov.append(RuleValue(f"distribution.{name}", dict(goods), _prov(field, where, row, src),
                              f"{RULES} §5 phase 2"))
    return tuple(cards)


# ---------------------------------------------------------------- options


def _option(rules: Mapping[str, Any], name: str, kind: type) -> Any:
    default = _OPTIONS[name][0]
    value = rules.get(name, default)
    allowed = _OPTIONS[name][1]
    if kind is bool:
        if not isinstance(value, bool):
            raise RuleError(name, f"must be {allowed} (got {value!r})")
    elif kind is int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise RuleError(name, f"must be {allowed} (got {value!r})")
    elif kind is str:
        if not isinstance(value, str):
            raise RuleError(name, f"must be {allowed} (got {value!r})")
        if name in _CHOICES and value not in _CHOICES[name]:
            raise RuleError(name, f"unknown value {value!r} (allowed: {allowed})")
    return value


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
        Rule options by name (``RULE_OPTIONS``); missing ones take their default.

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
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
        raise RuleError("players", f"Pyramidion takes 2..4 players (got {players!r})")
    if expansions:
        raise RuleError("expansions", f"Pyramidion has no expansions (got {list(expansions)!r}; allowed: none)")
    unknown = sorted(set(rules) - set(_OPTIONS))
    if unknown:
        raise RuleError(unknown[0], f"unknown rule option (allowed: {', '.join(_OPTIONS)})")
    opts: dict[str, Any] = {}
    for name, (default, _, _) in _OPTIONS.items():
        if name in ("tiebreak", "start_player"):
            continue  # checked below
        kind = type(default)
        opts[name] = _option(rules, name, kind)
    tb = rules.get("tiebreak", _OPTIONS["tiebreak"][0])
    if (not isinstance(tb, (list, tuple)) or not tb or tb[-1] != "shared"
            or any(k not in ("boats", "goods") for k in tb[:-1]) or len(set(tb)) != len(tb)):
        raise RuleError("tiebreak", f"must be a {_OPTIONS['tiebreak'][1]}, each at most once (got {tb!r})")
    opts["tiebreak"] = tuple(tb)
    sp = rules.get("start_player", "random")
    if sp == "random":
        start = -1
    elif isinstance(sp, int) and not isinstance(sp, bool) and 0 <= sp < players:
        start = sp
    else:
        raise RuleError("start_player", f'must be "random" or a seat number 0..{players - 1} (got {sp!r})')
    opts["start_player"] = sp

    game = _builtin("game.toml")
    prov: list[RuleValue] = []
    for key, entry in game.items():
        prov.append(RuleValue(key, entry["value"], entry["provenance"], f"{RULES} {entry['section']}"))
    for name, (default, _, sec) in _OPTIONS.items():
        if name.endswith("_file") and not opts[name]:
            continue
        given = rules.get(name, default)
        user = name in rules and (tuple(given) if isinstance(given, list) else given) != default
        prov.append(RuleValue(name, opts[name], "user" if user else "default", f"{RULES} {sec}"))
    acts = game["activations_per_player"]["value"]
    names, kinds, mins, abil = _load_sites("sites_file", opts["sites_file"], players, acts, prov)
    ctype, cval, cowner, n_common, start_ids, gval = _load_cards("cards_file", opts["cards_file"], players, prov)
    if not opts["cards_file"]:
        gval = game["goddess_value"]["value"]
    boat_names, needs, vps = _load_boats("boats_file", opts["boats_file"], opts["boat_set"], prov)
    rs, rg = _load_revolt("revolt_tiles_file", opts["revolt_tiles_file"], prov)
    n_revolt_cards = sum(1 for t in ctype[:n_common] if t == REVOLT)
    if n_revolt_cards > len(rs):
        raise RuleError("revolt_tiles_file", f"{len(rs)} revolt tiles but {n_revolt_cards} revolt cards "
                                             f"in the deck (need at least one tile per revolt card)")
    dist = _load_distribution("distribution_file", opts["distribution_file"], names, prov, opts["sites_file"])
    sup = game["supply_per_good"]["value"]
    return PyramidionConfig(
        players=players, options=opts, provenance=tuple(prov),
        site_names=names, site_kind=kinds, site_min=mins, site_ability=abil,
        card_type=ctype, card_val=cval, card_owner=cowner, n_common=n_common,
        starting=start_ids, goddess_value=gval,
        boat_names=boat_names, boat_need=needs, boat_vp=vps,
        revolt_strength=rs, revolt_good=rg, dist_goods=dist,
        boats_on_display=game["boats_on_display"]["value"],
        cards_drawn=game["cards_drawn_per_round"]["value"],
        activations_per_player=acts,
        tiles_per_colour=game["tiles_per_colour"]["value"],
        supply_start=(sup,) * ORDINARY + (game["statues"]["value"],),
        target_vp=opts["target_vp"], max_rounds=opts["max_rounds"],
        executioner_on_play=opts["executioner"] == "discard_on_play",
        philosopher_wins_ties=opts["philosopher"] == "wins_ties",
        supply_limited=opts["supply_limited"], goods_visible=opts["goods_visible"],
        revolt_winner_must_survive=opts["revolt_winner_must_survive"],
        move_own_tile=opts["no_tile_left"] == "move_own_tile",
        giza_tile_lost_on_revolt=opts["giza_tile_lost_on_revolt"],
        loading_pass_is_final=opts["loading_pass_is_final"],
        phase8_benefit=opts["phase8_slave_driver_benefit"],
        discard_unplayed_drawn_cards=opts["discard_unplayed_drawn_cards"],
        tiebreak=opts["tiebreak"], start_player=start, boat_vp_public=opts["boat_vp_public"],
    )


def rule_values(config: PyramidionConfig) -> list[RuleValue]:
    """Every data-table entry and rule option in use, with provenance (for the report)."""
    return list(config.provenance)
