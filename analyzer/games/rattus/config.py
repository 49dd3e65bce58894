"""Frozen Rattus configuration: game content from ``data/*.toml`` plus the scenario's rule options.

Everything the engine indexes in its hot loop (adjacency, Knight reach, caravan paths, token
effects, region-card masks) is precomputed here once, as tuples of small ints
(docs/rules/rattus.md §3–§5, §9, §13). A user may replace a content table with their own TOML file
(``map_file``, ``tokens_file``, ``region_cards_file``); a bad table raises ``RuleError`` naming
the option, what is wrong and what is allowed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from analyzer.errors import RuleError
from analyzer.games.base import RuleValue
from analyzer.games.tables import check_keys, option_help

RULES_VERSION = "rattus-1"

CLASSES: tuple[str, ...] = ("peasantry", "bourgeoisie", "church", "chivalry", "magic", "royalty", "islam")
CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}
SYMBOLS: tuple[str, ...] = CLASSES + ("M", "A")
SHORT = {"peasantry": "Pe", "bourgeoisie": "Bo", "church": "Ch", "chivalry": "Kn", "magic": "Ma",
         "royalty": "Ro", "islam": "Is", "M": "M", "A": "A"}
EXPANSIONS: tuple[str, ...] = ("africanus",)
ALL_CLASSES_MASK = (1 << len(CLASSES)) - 1

# Options that are not scalar entries of data/rules.toml: name -> help.
_EXTRA_OPTIONS: dict[str, str] = {
    "class_cards": "class cards in play: list of card names (6, or 8 at 5-6 players); default: the six "
                   "base cards, or with africanus the Knight plus random others drawn per game",
    "map_file": "TOML file replacing the built-in map and adjacency (layout of data/map.toml)",
    "tokens_file": "TOML file replacing the built-in rat-token lists (layout of data/tokens.toml)",
    "region_cards_file": "TOML file replacing the built-in region-card deck (layout of data/region_cards.toml)",
}

# Scalar option checks: name -> (type, low, high) or (str, allowed values).
_CHECKS: dict[str, tuple] = {
    "cubes_per_player": (int, 1, 40), "rat_cap": (int, 1, 6), "knight_range": (int, 1, 4),
    "knight_range_5_6": (int, 1, 4), "africanus_tokens_removed_per_unused_region": (int, 0, 6),
    "class_cards_in_play": (int, 1, 10), "class_cards_in_play_5_6": (int, 1, 10),
    "region_cards_dealt": (int, 0, 5), "region_card_points": (int, 0, 10), "explorer_cubes": (int, 1, 3),
    "diplomat_discs": (int, 0, 30), "diplomat_points_first": (int, 0, 20),
    "diplomat_points_second": (int, 0, 20), "diplomat_tie_first_pool": (int, 0, 40),
    "diplomat_tie_second_pool": (int, 0, 40), "diplomat_2p_tie_points": (int, 0, 20),
    "max_rounds": (int, 1, 10000), "max_turns": (int, 1, 100000),
    "knight_adds_two_neutral_cubes": (bool,), "opening_pairs_distinct_regions": (bool,),
    "africanus_tokens_replace_base": (bool,), "same_class_cards_stack": (bool,),
    "region_card_must_match_plague_region": (bool,), "region_card_majority_ties_count": (bool,),
    "astronomer_leftovers": (str, ("discard", "deck_bottom")),
}


def _read_data(name: str) -> dict:
    return tomllib.loads(resources.files("analyzer.games.rattus").joinpath("data", name).read_text("utf-8"))


# Built-in tables, loaded once at import (python-chess style: tables at import, indexed later).
_RULES: dict = _read_data("rules.toml")
_CARDS: dict = _read_data("cards.toml")
_MAP: dict = _read_data("map.toml")
_TOKENS: dict = _read_data("tokens.toml")
_REGION_CARDS: dict = _read_data("region_cards.toml")

CARD_NAMES: tuple[str, ...] = tuple(c["name"] for c in _CARDS["cards"])
CARD_CLASS: tuple[int, ...] = tuple(CLASS_INDEX[c["class"]] for c in _CARDS["cards"])
CARD_EXPANSION: tuple[str, ...] = tuple(c["expansion"] for c in _CARDS["cards"])
CARD_INDEX = {n: i for i, n in enumerate(CARD_NAMES)}
BASE_CARDS: tuple[str, ...] = tuple(n for n, e in zip(CARD_NAMES, CARD_EXPANSION) if e == "base")

def _allowed(name: str) -> str:
    """Allowed values or type of a scalar option of data/rules.toml, as ``list rules`` shows it."""
    check = _CHECKS.get(name)
    if name == "spread_table":
        return "list of integers >= 0, rat_cap + 1 entries"
    if name == "base_tokens_removed":
        return "list of 3 integers >= 0 (2, 3, 4 players)"
    if name in ("caravan_start", "plague_start"):
        return "\"random\" or a region name in use"
    if check is None:
        return "any"
    if check[0] is bool:
        return "true or false"
    if check[0] is int:
        return f"integer {check[1]}-{check[2]}"
    return ", ".join(check[1])


_EXTRA_DEFAULTS: dict[str, tuple[Any, str]] = {
    "class_cards": (None, "list of card names (see `analyzer list cards --game rattus`)"),
    "map_file": (None, "path to a TOML file"),
    "tokens_file": (None, "path to a TOML file"),
    "region_cards_file": (None, "path to a TOML file (africanus only)"),
}
_EXTRA_SECTIONS = {"class_cards": "docs/rules/rattus.md §6.2", "map_file": "docs/rules/rattus.md §3.3, §4",
                   "tokens_file": "docs/rules/rattus.md §5.2", "region_cards_file": "docs/rules/rattus.md §9"}

RULE_OPTIONS: dict[str, str] = {
    **{k: option_help(v["value"], _allowed(k), f"{v['help']} [{v['provenance']}]", v["section"])
       for k, v in _RULES.items()},
    **{k: option_help(_EXTRA_DEFAULTS[k][0], _EXTRA_DEFAULTS[k][1], h, _EXTRA_SECTIONS[k])
       for k, h in _EXTRA_OPTIONS.items()},
}


@dataclass(frozen=True, slots=True)
class RattusConfig:
    """Everything one game needs, precomputed (docs/rules/rattus.md §3–§13).

    Regions are indexed ``0..n_regions-1`` in map-file order restricted to the regions in use;
    seats ``0..n_players-1`` clockwise (§6.1). Tokens are ``(threshold, n_A, n_M, classes)`` with
    ``classes`` a tuple of class indices into ``CLASSES``, one entry per printed class symbol.
    Region cards are ``rcard_region[i]`` (region index) and ``rcard_mask[i]`` (bit mask of the
    classes it may protect; "?" = all classes). Scalar rule options keep their data-file names.
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
    # expected effect of one random token of the set, by cubes present (0..6): for greedy policies
    exp_a: tuple[float, ...]
    exp_m: tuple[float, ...]
    exp_c: tuple[tuple[float, ...], ...]
    # scalar rule options (data/rules.toml)
    cubes_per_player: int
    rat_cap: int
    spread_table: tuple[int, ...]
    knight_steps: int
    knight_adds_two_neutral_cubes: bool
    opening_pairs_distinct_regions: bool
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
    rules_version: str = RULES_VERSION

    @property
    def n_regions(self) -> int:
        """Number of regions in use (8/10/12/15/17 with the built-in map, §3.3)."""
        return len(self.region_names)


# ---------------------------------------------------------------- user tables

def _load_user_table(option: str, path: Any, layout: str) -> dict:
    if not isinstance(path, (str, Path)):
        raise RuleError(option, f"must be a path to a TOML file (got {path!r})")
    try:
        return tomllib.loads(Path(path).read_text("utf-8"))
    except OSError as err:
        raise RuleError(option, f"cannot read {str(path)!r}: {err.strerror} (expected a TOML file laid out "
                                f"like {layout})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise RuleError(option, f"{str(path)!r} is not valid TOML: {err}") from None


def _parse_map(table: dict, option: str, players: int, source: str = "data/map.toml"
               ) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """Regions in use and their adjacency at ``players`` (§3.3, §4); checks symmetry and neighbours."""
    check_keys(option, source, "", table, ("provenance", "section", "regions"))
    regions = table.get("regions")
    if not isinstance(regions, list) or not regions:
        raise RuleError(option, "needs a non-empty [[regions]] array (fields: name, players, neighbours)")
    names: list[str] = []
    nbrs: dict[str, list[str]] = {}
    used: list[str] = []
    for i, reg in enumerate(regions):
        if not isinstance(reg, dict):
            raise RuleError(option, f"regions[{i}] must be a table")
        check_keys(option, source, f"regions[{i}]", reg, ("name", "board", "players", "neighbours", "provenance"))
        name = reg.get("name")
        if not isinstance(name, str) or not name:
            raise RuleError(option, f"regions[{i}].name must be a non-empty string")
        if name in nbrs:
            raise RuleError(option, f"region {name!r} is listed twice")
        pl = reg.get("players", [2, 3, 4, 5, 6])
        if not isinstance(pl, list) or any(not isinstance(p, int) or not 2 <= p <= 6 for p in pl):
            raise RuleError(option, f"regions[{i}].players must be a list of player counts 2-6 (got {pl!r})")
        nb = reg.get("neighbours")
        if not isinstance(nb, list) or any(not isinstance(x, str) for x in nb):
            raise RuleError(option, f"region {name!r}: neighbours must be a list of region names")
        names.append(name)
        nbrs[name] = nb
        if players in pl:
            used.append(name)
    for name, nb in nbrs.items():
        for other in nb:
            if other not in nbrs:
                raise RuleError(option, f"region {name!r}: unknown neighbour {other!r} (known: {', '.join(names)})")
            if other == name:
                raise RuleError(option, f"region {name!r} lists itself as a neighbour")
            if name not in nbrs[other]:
                raise RuleError(option, f"adjacency not symmetric: {name!r} lists {other!r} but not the reverse")
    if len(used) < 2:
        raise RuleError(option, f"fewer than 2 regions in use at {players} players")
    index = {n: i for i, n in enumerate(used)}
    adj = []
    for name in used:
        row = tuple(sorted(index[x] for x in set(nbrs[name]) if x in index))
        if not row:
            raise RuleError(option, f"region {name!r} has no neighbour in use at {players} players")
        adj.append(row)
    return tuple(used), tuple(adj)


def _parse_symbols(option: str, where: str, symbols: Any) -> tuple[int, int, tuple[int, ...]]:
    if not isinstance(symbols, list) or any(not isinstance(s, str) for s in symbols):
        raise RuleError(option, f"{where}: symbols must be a list of strings")
    bad = [s for s in symbols if s not in SYMBOLS]
    if bad:
        raise RuleError(option, f"{where}: unknown symbol {bad[0]!r} (allowed: {', '.join(SYMBOLS)})")
    n_a = symbols.count("A")
    n_m = symbols.count("M")
    classes = tuple(sorted(CLASS_INDEX[s] for s in symbols if s in CLASS_INDEX))
    return n_a, n_m, classes


def _parse_tokens(table: dict, option: str, key: str, source: str = "data/tokens.toml"
                  ) -> tuple[list, list[str], list[bool]]:
    check_keys(option, source, "", table, ("provenance", "section", "base", "africanus"))
    toks = table.get(key)
    if not isinstance(toks, list) or not toks:
        raise RuleError(option, f"needs a non-empty [[{key}]] array (fields: threshold, symbols, starting)")
    out, labels, start = [], [], []
    for i, t in enumerate(toks):
        where = f"{key}[{i}]"
        if not isinstance(t, dict):
            raise RuleError(option, f"{where} must be a table")
        check_keys(option, source, where, t, ("threshold", "symbols", "starting", "provenance"))
        thr = t.get("threshold")
        if not isinstance(thr, int) or isinstance(thr, bool) or not 1 <= thr <= 6:
            raise RuleError(option, f"{where}: threshold must be an integer 1-6 (got {thr!r})")
        n_a, n_m, classes = _parse_symbols(option, where, t.get("symbols"))
        st = t.get("starting", False)
        if not isinstance(st, bool):
            raise RuleError(option, f"{where}: starting must be true or false (got {st!r})")
        out.append((thr, n_a, n_m, classes))
        labels.append(f"{thr}+" + "+".join(SHORT[s] for s in t["symbols"]) if t["symbols"] else f"{thr}+")
        start.append(st)
    return out, labels, start


def _parse_region_cards(table: dict, option: str, used: Sequence[str], all_names: set[str],
                        source: str = "data/region_cards.toml"):
    check_keys(option, source, "", table, ("provenance", "section", "cards"))
    cards = table.get("cards")
    if not isinstance(cards, list):
        raise RuleError(option, "needs a [[cards]] array (fields: region, symbols)")
    region_of, masks, labels = [], [], []
    index = {n: i for i, n in enumerate(used)}
    for i, c in enumerate(cards):
        where = f"cards[{i}]"
        if not isinstance(c, dict):
            raise RuleError(option, f"{where} must be a table")
        check_keys(option, source, where, c, ("region", "symbols", "provenance"))
        reg = c.get("region")
        if reg not in all_names:
            raise RuleError(option, f"{where}: unknown region {reg!r} (allowed: {', '.join(sorted(all_names))})")
        sy = c.get("symbols")
        if sy == ["?"]:
            mask, label = ALL_CLASSES_MASK, "?"
        else:
            if (not isinstance(sy, list) or not 1 <= len(sy) <= 2 or len(set(sy)) != len(sy)
                    or any(s not in CLASS_INDEX for s in sy)):
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
    """Mean A, M and per-class symbol count of one token from the set, given cubes present 0..6."""
    n = len(tokens)
    exp_a, exp_m, exp_c = [], [], []
    for cubes in range(7):
        act = [t for t in tokens if t[0] <= cubes]
        exp_a.append(sum(t[1] for t in act) / n)
        exp_m.append(sum(t[2] for t in act) / n)
        exp_c.append(tuple(sum(t[3].count(k) for t in act) / n for k in range(len(CLASSES))))
    return tuple(exp_a), tuple(exp_m), tuple(exp_c)


# ---------------------------------------------------------------- building

def _check_option(name: str, value: Any) -> Any:
    check = _CHECKS.get(name)
    if name == "spread_table":
        if (not isinstance(value, list) or not value
                or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value)):
            raise RuleError(name, f"must be a list of non-negative integers indexed by rats present (got {value!r})")
        return tuple(value)
    if name == "base_tokens_removed":
        if (not isinstance(value, list) or len(value) != 3
                or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value)):
            raise RuleError(name, f"must be a list of 3 non-negative integers for 2, 3, 4 players (got {value!r})")
        return tuple(value)
    if name in ("caravan_start", "plague_start"):
        if not isinstance(value, str):
            raise RuleError(name, f"must be 'random' or a region name (got {value!r})")
        return value
    if check is None:
        return value
    if check[0] is bool:
        if not isinstance(value, bool):
            raise RuleError(name, f"must be true or false (got {value!r})")
    elif check[0] is int:
        if not isinstance(value, int) or isinstance(value, bool) or not check[1] <= value <= check[2]:
            raise RuleError(name, f"must be an integer {check[1]}-{check[2]} (got {value!r})")
    elif check[0] is str and value not in check[1]:
        raise RuleError(name, f"must be one of {', '.join(check[1])} (got {value!r})")
    return value


def _check_class_cards(value: Any, players: int, africanus: bool, count: int) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or any(not isinstance(v, str) for v in value):
        raise RuleError("class_cards", f"must be a list of card names (got {value!r})")
    for v in value:
        if v not in CARD_INDEX:
            raise RuleError("class_cards", f"unknown card {v!r} (allowed: {', '.join(CARD_NAMES)})")
        if CARD_EXPANSION[CARD_INDEX[v]] == "africanus" and not africanus:
            raise RuleError("class_cards", f"card {v!r} needs the africanus expansion (base cards: "
                                           f"{', '.join(BASE_CARDS)})")
    dup = sorted({v for v in value if list(value).count(v) > 1})
    if dup:
        raise RuleError("class_cards", f"card {dup[0]!r} named twice (each card at most once)")
    if len(value) != count:
        raise RuleError("class_cards", f"needs exactly {count} cards at {players} players (got {len(value)})")
    return tuple(sorted(value, key=CARD_INDEX.__getitem__))


def make_config(players: int, expansions: Sequence[str] = (), rules: Mapping[str, Any] | None = None) -> RattusConfig:
    """Build the frozen config for one scenario (docs/rules/rattus.md §3.3, §6, §13).

    Parameters
    ----------
    players : int
        Player count, 2-4 (2-6 with ``"africanus"``).
    expansions : sequence of str
        Subset of ``("africanus",)``.
    rules : mapping of str to Any, optional
        Rule options by name (see ``RULE_OPTIONS``); missing ones take their default.

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
    exps = tuple(expansions)
    for e in exps:
        if e not in EXPANSIONS:
            raise RuleError("expansions", f"unknown expansion {e!r} (allowed: {', '.join(EXPANSIONS)})")
    africanus = "africanus" in exps
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= (6 if africanus else 4):
        allowed = "2-6 with africanus" if africanus else "2-4 (5-6 need the africanus expansion)"
        raise RuleError("players", f"unsupported player count {players!r} (allowed: {allowed})")
    for key in rules:
        if key not in RULE_OPTIONS:
            raise RuleError(key, f"unknown rule option (allowed: {', '.join(sorted(RULE_OPTIONS))})")

    opts: dict[str, Any] = {}
    values: list[RuleValue] = []
    for key, entry in _RULES.items():
        user = key in rules
        opts[key] = _check_option(key, rules[key] if user else entry["value"])
        values.append(RuleValue(key, opts[key], "user" if user else entry["provenance"], entry["section"]))

    map_table = _load_user_table("map_file", rules["map_file"], "data/map.toml") if "map_file" in rules else _MAP
    region_names, adj = _parse_map(map_table, "map_file", players, str(rules.get("map_file", "data/map.toml")))
    all_region_names = {r["name"] for r in map_table["regions"]}
    values.append(RuleValue("map", {n: tuple(region_names[j] for j in adj[i]) for i, n in enumerate(region_names)},
                            "user" if "map_file" in rules else _MAP["provenance"], _MAP["section"]))

    tok_table = (_load_user_table("tokens_file", rules["tokens_file"], "data/tokens.toml")
                 if "tokens_file" in rules else _TOKENS)
    use_afr = africanus and (opts["africanus_tokens_replace_base"] or players >= 5)
    token_set = "africanus" if use_afr else "base"
    tok_source = str(rules.get("tokens_file", "data/tokens.toml"))
    tokens, labels, starting = _parse_tokens(tok_table, "tokens_file", token_set, tok_source)
    other_set = "base" if token_set == "africanus" else "africanus"
    if other_set in tok_table:  # the list not in use is still checked (a typo there is a typo)
        _parse_tokens(tok_table, "tokens_file", other_set, tok_source)
    n_start = sum(starting)
    if n_start < len(region_names):
        raise RuleError("tokens_file", f"[[{token_set}]] has {n_start} starting tokens but {len(region_names)} "
                                       f"regions are in use at {players} players (needs at least one per region)")
    unused_starters = n_start - len(region_names)
    if token_set == "base":
        removed = opts["base_tokens_removed"][players - 2] if players <= 4 else 0
    else:
        removed = opts["africanus_tokens_removed_per_unused_region"] * unused_starters
    if removed > len(tokens) - len(region_names):
        raise RuleError("tokens_file", f"{removed} tokens to remove unseen but only "
                                       f"{len(tokens) - len(region_names)} in the supply")
    values.append(RuleValue("tokens", tuple(f"{lab}{'*' if s else ''}" for lab, s in zip(labels, starting)),
                            "user" if "tokens_file" in rules else _TOKENS["provenance"], _TOKENS["section"]))
    values.append(RuleValue("tokens_removed", removed, "user" if "tokens_file" in rules else
                            ("rulebook" if token_set == "base" else "default"), "docs/rules/rattus.md §5.3"))

    if africanus:
        rc_table = (_load_user_table("region_cards_file", rules["region_cards_file"], "data/region_cards.toml")
                    if "region_cards_file" in rules else _REGION_CARDS)
        rc_region, rc_mask, rc_labels = _parse_region_cards(
            rc_table, "region_cards_file", region_names, all_region_names,
            str(rules.get("region_cards_file", "data/region_cards.toml")))
        values.append(RuleValue("region_cards", rc_labels, "user" if "region_cards_file" in rules
                                else _REGION_CARDS["provenance"], _REGION_CARDS["section"]))
    else:
        if "region_cards_file" in rules:
            raise RuleError("region_cards_file", "region cards need the africanus expansion")
        rc_region, rc_mask, rc_labels = (), (), ()

    count = opts["class_cards_in_play_5_6"] if players >= 5 else (opts["class_cards_in_play"] if africanus else 6)
    if "class_cards" in rules:
        class_cards = _check_class_cards(rules["class_cards"], players, africanus, count)
        values.append(RuleValue("class_cards", class_cards, "user", "docs/rules/rattus.md §6.2"))
    elif africanus:
        if count > len(CARD_NAMES):
            raise RuleError("class_cards_in_play", f"at most {len(CARD_NAMES)} cards exist (got {count})")
        class_cards = None
        values.append(RuleValue("class_cards", f"knight + {count - 1} random of the other "
                                f"{len(CARD_NAMES) - 1}, per game", "default", "docs/rules/rattus.md §6.2"))
    else:
        class_cards = BASE_CARDS
        values.append(RuleValue("class_cards", class_cards, "rulebook", "docs/rules/rattus.md §6.1"))

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
    return RattusConfig(
        n_players=players, expansions=exps, africanus=africanus, region_names=region_names, adj=adj,
        knight_reach=_reach(adj, steps), caravan_paths=_caravan_paths(adj), token_set=token_set,
        tokens=tuple(tokens), token_labels=tuple(labels),
        starting_tokens=tuple(i for i, s in enumerate(starting) if s),
        normal_tokens=tuple(i for i, s in enumerate(starting) if not s), tokens_removed=removed,
        class_cards=class_cards, cards_in_play_count=count, rcard_region=rc_region, rcard_mask=rc_mask,
        rcard_labels=rc_labels, exp_a=exp_a, exp_m=exp_m, exp_c=exp_c,
        cubes_per_player=opts["cubes_per_player"], rat_cap=opts["rat_cap"], spread_table=spread,
        knight_steps=steps, knight_adds_two_neutral_cubes=opts["knight_adds_two_neutral_cubes"],
        opening_pairs_distinct_regions=opts["opening_pairs_distinct_regions"],
        same_class_cards_stack=opts["same_class_cards_stack"], region_cards_dealt=opts["region_cards_dealt"],
        region_card_must_match_plague_region=opts["region_card_must_match_plague_region"],
        region_card_points=opts["region_card_points"],
        region_card_majority_ties_count=opts["region_card_majority_ties_count"],
        explorer_cubes=opts["explorer_cubes"], astronomer_leftovers=opts["astronomer_leftovers"],
        diplomat_discs=opts["diplomat_discs"],
        diplomat_points=(opts["diplomat_points_first"], opts["diplomat_points_second"],
                         opts["diplomat_tie_first_pool"], opts["diplomat_tie_second_pool"],
                         opts["diplomat_2p_tie_points"]),
        caravan_start=region_option("caravan_start"), plague_start=region_option("plague_start"),
        max_rounds=opts["max_rounds"], max_turns=opts["max_turns"], rule_values=tuple(values),
    )


def default_config(players: int, expansions: Sequence[str] = (), **rule_options: Any) -> RattusConfig:
    """``make_config`` with rule options as keyword arguments (see ``make_config``)."""
    return make_config(players, expansions, rule_options)


def rule_values(config: RattusConfig) -> list[RuleValue]:
    """Every table and rule option of ``config`` with its provenance (user overrides: ``"user"``)."""
    return list(config.rule_values)
