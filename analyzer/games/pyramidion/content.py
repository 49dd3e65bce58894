"""Content priors of Pyramidion: plausible sites, character cards, boats, revolt tiles and
distribution cards.

Every number of these tables is a labelled default (``docs/rules/pyramidion.md`` §7–§10, §5
phase 2). The ranges a draw takes each value from, and their reasoning, are in §7.1, §8.1, §9.1,
§10.3 and §5 phase 2 ("Plausible alternatives"); each draw keeps the confirmed facts and passes
``config.make_config`` through the matching ``*_file`` option.
"""

from __future__ import annotations

import random
from collections import Counter

from analyzer.games.pyramidion.config import GOODS, ORDINARY
from analyzer.model.content import ContentPrior, composition
from analyzer.model.tables import builtin_table

_RULES = "docs/rules/pyramidion.md"
_PACKAGE = "analyzer.games.pyramidion"
_SITES = builtin_table(_PACKAGE, "sites.toml")
_CARDS = builtin_table(_PACKAGE, "cards.toml")
KINDS = GOODS[:ORDINARY]

# ---------------------------------------------------------------- sites (§7.1)

MINIMUM_RANGE = range(3, 8)  # each of a site's three minimums (§7.1)
_OWN_KIND_SITES = ("Abu Simbel", "Alexandria")  # the sites the distribution cards feed double (§5 phase 2)


def draw_sites(rng: random.Random) -> dict:
    """A site table (§7.1): names, order and Giza's ability kept; minimums from
    ``MINIMUM_RANGE``; the card-draw and conversion abilities on two other sites; camel and wood
    on the two sites with a kind of their own, worker, food and stone two sites each."""
    names = [s["name"] for s in _SITES["site"]]
    others = [n for n in names if n not in _OWN_KIND_SITES]
    own = ["camel", "wood"]
    rng.shuffle(own)
    shared = ["worker", "worker", "food", "food", "stone", "stone"]
    rng.shuffle(shared)
    produces = dict(zip(_OWN_KIND_SITES, own)) | dict(zip(others, shared))
    ability = {n: "none" for n in names} | {"Giza": "player_order"}
    card_draw, conversion = rng.sample([n for n in names if n != "Giza"], 2)
    ability[card_draw], ability[conversion] = "card_draw", "conversion"
    rows = [{"name": n, "produces": produces[n],
             **{k: rng.choice(MINIMUM_RANGE) for k in ("min_influence", "min_negotiation", "min_trade")},
             "ability": ability[n], "provenance": "default"} for n in names]
    return {"site": rows}


def _mean_minimum(table: dict) -> float:
    rows = table["site"]
    return sum(r[k] for r in rows for k in ("min_influence", "min_negotiation", "min_trade")) / (3 * len(rows))


def sites_summary(table: dict) -> str:
    """E.g. ``"card draw at Luxor, conversion at Philae; Abu Simbel wood, Alexandria camel;
    minimums 5.2 on average (today 4.6)"``."""
    rows = {r["name"]: r for r in table["site"]}
    at = {r["ability"]: n for n, r in rows.items()}
    own = ", ".join(f"{n} {rows[n]['produces']}" for n in _OWN_KIND_SITES)
    return (f"card draw at {at.get('card_draw', 'none')}, conversion at {at.get('conversion', 'none')}; "
            f"{own}; minimums {_mean_minimum(table):.1f} on average (today {_mean_minimum(_SITES):.1f})")


SITES = ContentPrior(
    table="sites", option="sites_file", section=f"{_RULES} §7.1",
    known=("the eight sites, by name (§7); Giza's player-order ability (§5 phase 6)",
           "three minimums per site; Thebes' influence minimum at most 7 (§7)",
           "abilities that draw cards and convert goods exist (§7)"),
    varies=(f"each of the 24 minimums, {MINIMUM_RANGE.start}-{MINIMUM_RANGE.stop - 1} (today 4-6)",
            "which two other sites draw a card and convert goods",
            ("which site produces what: camel and wood on Abu Simbel and Alexandria (either way round), "
            "worker, food and stone on two of the other six each")),
    generate=draw_sites, summary=sites_summary, rule_values=("site",),
)

# ---------------------------------------------------------------- character cards (§10.3)

# (type, category, how many in the common deck or None when drawn, value range)
STARTING_RANGE = range(2, 5)  # each starting card's value and the Goddess's (§10.3)
COMMON_RANGES = {"merchant": range(2, 9), "negotiator": range(2, 9), "slave_driver": range(3, 8)}
COMMON_COUNTS = {"merchant": 12, "negotiator": 16, "slave_driver": 8}  # §3
CATEGORY = {"merchant": "trade", "negotiator": "negotiation", "slave_driver": "influence",
            "revolt": "influence", "high_priest": "influence", "executioner": "influence",
            "stone_dragger": "influence", "thief": "trade", "bandit": "trade", "philosopher": "negotiation"}
SPECIAL_RANGE = range(3)  # a revolt or special card's value (§10.3)
DRAWN_SPECIALS = ("high_priest", "executioner", "stone_dragger", "thief", "bandit")  # 8 cards, each at least 1


def _card(kind: str, value: int, count: int) -> dict:
    vals = {k: 0 for k in ("influence", "negotiation", "trade")} | {CATEGORY[kind]: value}
    return {"type": kind, **vals, "count": count, "provenance": "default"}


WORKED_INFLUENCE = (7, 9, 14, 15)  # Thebes 7; Luxor 9, 14 and more than 14 (§10.1)
WORKED_TRADE = (6,)  # Karnak (§10.1)
DRAWN_PER_ROUND = 4  # a hand is the 5 starting cards + 4 drawn (§10.1)


def _sums(values: list[int], most: int) -> set[int]:
    """Every total of at most ``most`` of ``values`` (each used once)."""
    fewest = {0: 0}  # total -> fewest cards that make it
    for v in values:
        for total, k in list(fewest.items()):
            if k < most and fewest.get(total + v, most + 1) > k + 1:
                fewest[total + v] = k + 1
    return set(fewest)


def _hand_totals(table: dict, own: list[int], category: str) -> set[int]:
    """Totals in ``category`` one hand can show: any of its own starting ``own`` values plus
    at most ``DRAWN_PER_ROUND`` common cards."""
    deck = [r[category] for r in table["common"] for _ in range(r["count"]) if r[category]]
    drawn = _sums(deck, DRAWN_PER_ROUND)
    return {a + b for a in _sums(own, len(own)) for b in drawn}


def keeps_worked_examples(table: dict) -> bool:
    """Whether one hand of ``table`` can still reach the worked examples' totals (§10.1):
    influence 7, 9, 14 and 15 with its slave driver and Goddess; trade 6 with its merchants
    and Goddess."""
    start = {r["type"]: r for r in table["starting"]}
    goddess = start["goddess"]["value"]
    influence = _hand_totals(table, [start["slave_driver"]["influence"], goddess], "influence")
    trade = _hand_totals(table, [start["merchant"]["trade"]] * 2 + [goddess], "trade")
    return set(WORKED_INFLUENCE) <= influence and set(WORKED_TRADE) <= trade


def draw_cards(rng: random.Random) -> dict:
    """A card table (§10.3): the types and counts of the starting and common decks kept; every
    value drawn from its range; the 8 special cards other than the Philosopher split anew
    among five types. A draw whose hands cannot reach the worked examples' totals
    (``keeps_worked_examples``; about 1 draw in 7,000) is drawn again from the same ``rng``."""
    while True:
        table = _draw_cards_once(rng)
        if keeps_worked_examples(table):
            return table


def _draw_cards_once(rng: random.Random) -> dict:
    s = {k: rng.choice(STARTING_RANGE) for k in ("merchant", "negotiator", "slave_driver", "goddess")}
    starting = [_card("merchant", s["merchant"], 2), _card("negotiator", s["negotiator"], 1),
                _card("slave_driver", s["slave_driver"], 1),
                {"type": "goddess", "value": s["goddess"], "count": 1, "provenance": "default"}]
    common = []
    for kind, n in COMMON_COUNTS.items():
        for value, count in sorted(Counter(rng.choice(COMMON_RANGES[kind]) for _ in range(n)).items()):
            common.append(_card(kind, value, count))
    common.append(_card("revolt", rng.choice(SPECIAL_RANGE), 3))
    for kind, count in zip(DRAWN_SPECIALS, composition(rng, 8, len(DRAWN_SPECIALS), low=1)):
        common.append(_card(kind, rng.choice(SPECIAL_RANGE), count))
    common.append(_card("philosopher", rng.choice(SPECIAL_RANGE), 1))
    return {"starting": starting, "common": common}


def _mean(rows: list[dict], kind: str) -> float:
    cards = [(r[CATEGORY[kind]], r["count"]) for r in rows if r["type"] == kind]
    return sum(v * c for v, c in cards) / sum(c for _, c in cards)


def cards_summary(table: dict) -> str:
    """E.g. ``"merchants 5.1, negotiators 4.8, slave drivers 5.4 on average (today 4.6, 4.6, 5.0);
    starting 3/2/4, Goddess 4; specials HP 1, Ex 3, SD 2, Th 1, Ba 1"``."""
    common, start = table["common"], {r["type"]: r for r in table["starting"]}
    means = ", ".join(f"{_mean(common, k):.1f}" for k in COMMON_COUNTS)
    today = ", ".join(f"{_mean(_CARDS['common'], k):.1f}" for k in COMMON_COUNTS)
    counts = {k: sum(r["count"] for r in common if r["type"] == k) for k in DRAWN_SPECIALS}
    specials = ", ".join(f"{k.replace('_', ' ')} {n}" for k, n in counts.items())
    return (f"merchants, negotiators, slave drivers {means} on average (today {today}); starting "
            f"{start['merchant']['trade']}/{start['negotiator']['negotiation']}/"
            f"{start['slave_driver']['influence']}, Goddess {start['goddess']['value']}; {specials}")


CARDS = ContentPrior(
    table="cards", option="cards_file", section=f"{_RULES} §10.3",
    known=("a starting deck of 2 merchants, 1 negotiator, 1 slave driver, 1 Goddess per player (§10.1)",
           ("a common deck of 12 merchants, 16 negotiators, 8 slave drivers, 3 revolt cards and 9 "
           "special cards, the Philosopher among them (§3)"),
           ("each card one number in its category; the Goddess one value in a declared category "
           "(§10.1, §10.2)")),
    varies=((f"starting values and the Goddess's, {STARTING_RANGE.start}-{STARTING_RANGE.stop - 1} "
            "each (today 3)"),
            ("each common merchant and negotiator 2-8, slave driver 3-7 (today 2-8 and 3-7, "
            "4.6 and 5.0 on average)"),
            (f"the value of the revolt cards and of each special type, {SPECIAL_RANGE.start}-"
            f"{SPECIAL_RANGE.stop - 1} (today 1-2)"),
            ("how the 8 specials besides the Philosopher split among High Priest, Executioner, "
            "Stone dragger, Thief and Bandit (each at least 1; today 2, 2, 2, 1, 1)"),
            ("not here: the special cards' effects, whose alternative readings are the rule options "
            "`executioner` and `philosopher` (varied as rule defaults)")),
    generate=draw_cards, summary=cards_summary, rule_values=("card",),
)

# ---------------------------------------------------------------- boats (§9.1)

BOAT_SIZES = range(2, 6)  # goods a boat asks for; its VP equal the size (§9)


def draw_boats(rng: random.Random) -> dict:
    """A boat table (§9.1): 20 different boats, sizes 2-5 (at least one of 2 and one of 5),
    at most 2 of a kind per boat, VP = size."""
    while True:
        sizes = sorted(rng.choice(BOAT_SIZES) for _ in range(20))
        if sizes[0] == BOAT_SIZES.start and sizes[-1] == BOAT_SIZES.stop - 1:
            break
    seen: set[tuple[int, ...]] = set()
    boats = []
    for i, size in enumerate(sizes):
        while True:
            need = [0] * ORDINARY
            while sum(need) < size:
                k = rng.randrange(ORDINARY)
                if need[k] < 2:
                    need[k] += 1
            if tuple(need) not in seen:
                break
        seen.add(tuple(need))
        boats.append({"name": f"B{i + 1}", "goods": {KINDS[k]: n for k, n in enumerate(need) if n},
                      "vp": size, "provenance": "default"})
    return {"boat": boats}


def boats_summary(table: dict) -> str:
    """E.g. ``"sizes 2/3/4/5: 6/4/5/5 boats, 69 goods; most asked worker 17, least wood 11
    (today 5 of each size, 70 goods, 14 of each kind)"``."""
    sizes = Counter(sum(b["goods"].values()) for b in table["boat"])
    kinds = Counter(k for b in table["boat"] for k, n in b["goods"].items() for _ in range(n))
    top = max(KINDS, key=lambda k: kinds[k])
    low = min(KINDS, key=lambda k: kinds[k])
    return (f"sizes 2/3/4/5: {'/'.join(str(sizes[s]) for s in BOAT_SIZES)} boats, {sum(kinds.values())} "
            f"goods; most asked {top} {kinds[top]}, least {low} {kinds[low]} (today 5 of each size, "
            "70 goods, 14 of each kind)")


BOATS = ContentPrior(
    table="boats", option="boats_file", section=f"{_RULES} §9.1",
    known=("20 boats, each a different combination of goods, counted per kind (§9)",
           "more goods, more VP; boats of 2 and of 5 VP exist (§9, S8)"),
    varies=("each boat's size, 2-5 goods (at least one boat of each end), VP = size",
            "its goods, any ordinary kinds, at most 2 of one kind",
            "not here: VP = size - 1 (the 1-5 VP reading), the rule option `boat_set`"),
    generate=draw_boats, summary=boats_summary, rule_values=("boat",),
)

# ---------------------------------------------------------------- revolt tiles (§8.1)

STRENGTH_RANGE = range(3, 11)  # a tile's strength (§8.1)


def draw_revolt_tiles(rng: random.Random) -> dict:
    """Six revolt tiles (§8.1): a worker tile and a food tile whose strengths add up to 13 (the
    Luxor example); four more with strengths from ``STRENGTH_RANGE`` and any good, a statue on
    at least one tile."""
    a = rng.choice([s for s in STRENGTH_RANGE if 13 - s in STRENGTH_RANGE])
    pair = [(a, "worker"), (13 - a, "food")]
    while True:
        more = [(rng.choice(STRENGTH_RANGE), rng.choice(GOODS)) for _ in range(4)]
        if any(g == "statue" for _, g in more):
            break
    tiles = sorted(pair + more)
    return {"tile": [{"strength": s, "good": g, "provenance": "default"} for s, g in tiles]}


def revolt_tiles_summary(table: dict) -> str:
    """E.g. ``"strengths 3, 6, 7, 8, 9, 10 (sum 43; today 4-9, 39); statues on 2 tiles"``."""
    tiles = table["tile"]
    strengths = sorted(t["strength"] for t in tiles)
    statues = sum(t["good"] == "statue" for t in tiles)
    return (f"strengths {', '.join(map(str, strengths))} (sum {sum(strengths)}; today 4-9, 39); "
            f"statue on {statues} tile{'s' if statues != 1 else ''}")


REVOLT_TILES = ContentPrior(
    table="revolt_tiles", option="revolt_tiles_file", section=f"{_RULES} §8.1",
    known=("6 tiles, each a strength and goods (§8)",
           "two tiles adding up to 13 with one worker and one food (the Luxor example, §11 T1)"),
    varies=((f"the other four strengths, {STRENGTH_RANGE.start}-{STRENGTH_RANGE.stop - 1}, and their "
            "goods (any good or a statue; at least one statue, the statues' only source)"),
            "the example pair's split of 13 (3+10 to 10+3)"),
    generate=draw_revolt_tiles, summary=revolt_tiles_summary, rule_values=("revolt_tile",),
)

# ---------------------------------------------------------------- distribution cards (§5 phase 2)

KIND_PER_CARD = range(1, 5)  # goods of one kind a card sends out, all its sites together
CARD_TOTAL = range(10, 15)  # goods one card sends out
SITE_MAX = 3  # goods one site receives from one card


def draw_distribution(rng: random.Random) -> dict:
    """Ten distribution cards (§5 phase 2) for the built-in sites: each kind 1-4 goods per card,
    split among the sites producing it (0-3 a site), 10-14 goods a card."""
    sites = [(s["name"], s["produces"]) for s in _SITES["site"]]
    cards = []
    for i in range(10):
        while True:
            goods = {}
            for kind in KINDS:
                at = [n for n, k in sites if k == kind]
                total = rng.choice([t for t in KIND_PER_CARD if t <= SITE_MAX * len(at)])
                while True:
                    split = composition(rng, total, len(at))
                    if max(split) <= SITE_MAX:
                        break
                goods.update(zip(at, split))
            if sum(goods.values()) in CARD_TOTAL:
                break
        cards.append({"name": f"D{i + 1}", "goods": {n: goods[n] for n, _ in sites}, "provenance": "default"})
    return {"card": cards}


def kind_totals(table: dict) -> dict[str, int]:
    """Goods of each kind the whole deck sends out (with the built-in sites' production)."""
    produces = {s["name"]: s["produces"] for s in _SITES["site"]}
    return {k: sum(n for card in table["card"] for site, n in card["goods"].items()
                   if produces[site] == k) for k in KINDS}


def distribution_summary(table: dict) -> str:
    """E.g. ``"over the deck stone 25, wood 22, food 27, camel 24, worker 21 (today 24 each)"``."""
    totals = kind_totals(table)
    return "over the deck " + ", ".join(f"{k} {n}" for k, n in totals.items()) + " (today 24 each)"


DISTRIBUTION = ContentPrior(
    table="distribution", option="distribution_file", section=f"{_RULES} §5 phase 2",
    known=("10 distribution cards, each telling how many goods each of the 8 sites receives (§5 phase 2)",
           "goods differ from site to site in number (§5 phase 2, S13)"),
    varies=((f"per card, each kind {KIND_PER_CARD.start}-{KIND_PER_CARD.stop - 1} goods split among the "
            f"sites producing it (0-{SITE_MAX} a site; today 2-3 per kind), {CARD_TOTAL.start}-"
            f"{CARD_TOTAL.stop - 1} goods a card (today 12)"),),
    generate=draw_distribution, summary=distribution_summary, rule_values=("distribution",),
    header="Laid out for the built-in sites (data/sites.toml).",
)

PRIORS = (SITES, CARDS, BOATS, REVOLT_TILES, DISTRIBUTION)
