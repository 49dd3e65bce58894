"""Content priors of Rattus: plausible token lists, maps and region-card decks.

The ranges and their reasoning are in ``docs/rules/rattus.md §5.4`` (tokens), ``§4.4`` (map)
and ``§9.1`` (region cards); each draw keeps every fact of §4.1, §5.2, §3 and §9 and passes
``config.make_config`` through the matching ``*_file`` option.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from analyzer.games.rattus.config import CLASSES
from analyzer.model.content import ContentPrior, composition, fill_rows
from analyzer.model.tables import builtin_table

_RULES = "docs/rules/rattus.md"
_BUILTIN_MAP = builtin_table("analyzer.games.rattus", "map.toml")

# ---------------------------------------------------------------- tokens (§5.4)

# The two tokens of the German worked example (§12 Q3), kept exactly in both sets, and the
# "4+" with Royalty, M and A a Japanese review pictures (§5.2), kept as well.
EXAMPLE_TOKENS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (1, ("bourgeoisie", "church")),
    (2, ("M", "bourgeoisie", "church")),
    (4, ("M", "royalty", "A")),
)


def token_counts(n: int) -> dict[str, range]:
    """The ranges §5.4 keeps for a set of ``n`` tokens: tokens at threshold 1+ (a little over
    10 %: more than 10 %, at most 13 %) and at 4+ to 6+ (about 60 %: 55 % to 65 %)."""
    return {"ones": range(n // 10 + 1, int(0.13 * n) + 1),
            "high": range(-(-55 * n // 100), 65 * n // 100 + 1)}


# set -> (tokens, starting tokens, classes on the tokens, symbols per class today, M today, A today)
TOKEN_SETS = {
    "base": (49, 12, CLASSES[:6], 12, 14, 8),
    "africanus": (65, 17, CLASSES, 16, 19, 11),
}
_SPREAD = {"base": 3, "africanus": 4}  # how far a class, M or A may move from today's count


def _thresholds(rng: random.Random, n: int) -> list[int]:
    r = token_counts(n)
    ones = rng.choice(r["ones"])
    high = rng.choice(r["high"])
    n2, n3 = composition(rng, n - ones - high, 2, low=3)
    n4, n5, n6 = composition(rng, high, 3, low=3)
    return [t for t, k in zip(range(1, 7), (ones, n2, n3, n4, n5, n6)) for _ in range(k)]


def _symbol_counts(rng: random.Random, classes: Sequence[str], mean: int, m: int, a: int, spread: int,
                   royalty_first: bool) -> dict[str, int]:
    counts = {c: mean + rng.randint(-spread, spread) for c in classes}
    if royalty_first:  # the review's family: the King's symbol is the one found most often
        counts["royalty"] = mean + rng.randint(2, 2 * spread)
        for c in classes:
            if c != "royalty":
                counts[c] = min(counts[c], counts["royalty"] - 1)
    counts["M"] = m + rng.randint(-spread, spread)
    counts["A"] = a + rng.randint(-3, 3)
    return counts


def _token_set(rng: random.Random, name: str, royalty_first: bool) -> list[dict]:
    n, n_start, classes, mean, m, a = TOKEN_SETS[name]
    while True:  # redraw the rare mix whose symbols do not fit 1-3 per token
        thresholds = _thresholds(rng, n)
        counts = _symbol_counts(rng, classes, mean, m, a, _SPREAD[name], royalty_first)
        free = list(range(n))
        fixed: dict[int, tuple[str, ...]] = {}
        for thr, syms in EXAMPLE_TOKENS:
            i = next(i for i in free if thresholds[i] == thr)
            free.remove(i)
            fixed[i] = syms
            for s in syms:
                counts[s] -= 1
        rest = sum(counts.values())
        k = len(free)
        # capacities 1..3 adding up to `rest`: x3 three-symbol tokens, x1 = x3 - (rest - 2k) one-symbol
        x3_low, x3_high = max(0, rest - 2 * k), (rest - k) // 2
        if min(counts.values()) < 0 or x3_low > x3_high:
            continue
        x3 = rng.randint(x3_low, x3_high)
        x1 = x3 - (rest - 2 * k)
        caps = [1] * x1 + [3] * x3 + [2] * (k - x1 - x3)
        rng.shuffle(caps)
        try:
            rows = fill_rows(rng, caps, {s: c for s, c in counts.items() if c})
        except ValueError:
            continue
        break
    symbols = dict(fixed)
    symbols.update(zip(free, rows))
    starting = set(rng.sample(range(n), n_start))
    order = {s: i for i, s in enumerate(("M", *CLASSES, "A"))}
    return [{"threshold": thresholds[i], "symbols": sorted(symbols[i], key=order.__getitem__),
             "starting": i in starting} for i in range(n)]


def draw_tokens(rng: random.Random) -> dict:
    """Both token lists (§5.4): the base 49 and the Africanus 65, one class-frequency family
    for both (around equal, or Royalty the most frequent, at even odds)."""
    royalty_first = rng.random() < 0.5
    return {"provenance": "default", "section": f"{_RULES} §5.4",
            "base": _token_set(rng, "base", royalty_first),
            "africanus": _token_set(rng, "africanus", royalty_first)}


def symbol_tally(tokens: Sequence[dict]) -> Counter:
    """How many tokens of a list carry each symbol."""
    return Counter(s for t in tokens for s in t["symbols"])


def _short(sym: str) -> str:
    return sym if sym in ("M", "A") else sym.capitalize()


def tokens_summary(table: dict) -> str:
    """E.g. ``"base 49: Royalty most frequent (on 18 tokens), then Church 14; M 12, A 9;
    africanus 65: ..."``; today's lists have every class on 12 (16) tokens."""
    parts = []
    for name in ("base", "africanus"):
        tokens = table.get(name) or []
        tally = symbol_tally(tokens)
        classes = sorted((c for c in CLASSES if tally[c]), key=lambda c: (-tally[c], CLASSES.index(c)))
        top, second = classes[0], classes[1]
        lead = (f"{_short(top)} on {tally[top]} of {len(tokens)} tokens, next {_short(second)} {tally[second]}"
                if tally[top] > tally[second] else
                f"{_short(top)} and {_short(second)} most frequent ({tally[top]} of {len(tokens)} tokens)")
        ones = sum(t["threshold"] == 1 for t in tokens)
        high = sum(t["threshold"] >= 4 for t in tokens)
        parts.append(f"{name}: {lead}; M {tally['M']}, A {tally['A']}; {ones} at 1+, {high} at 4+ to 6+")
    return "; ".join(parts)


TOKENS = ContentPrior(
    table="tokens", option="tokens_file", section=f"{_RULES} §5.4",
    known=("49 base tokens (12 starting) and 65 Africanus tokens (17 starting) (§3)",
           ("thresholds 1+ to 6+; a little over 10 % act at 1+ (here 10-13 %), about 60 % need more "
           "than 3 cubes (here 55-65 %) (§5.2)"),
           ("the worked example's '1+ Bourgeoisie, Church' and '2+ M, Bourgeoisie, Church', and the "
           "pictured '4+ M, Royalty, A', in both sets (§5.2, §12 Q3)"),
           "1 to 3 symbols per token, none printed twice; Islam only on Africanus tokens"),
    varies=("how many tokens at each threshold, within the kept shares (at least 3 at each of 2+ to 6+)",
            ("class-symbol frequencies: each class today's count (12 base, 16 Africanus) +-3 (+-4); in "
            "half the draws Royalty is the most frequent class (+2 to +6 (+8) over today's), after a "
            "French review"),
            ("M on today's count +-3 (+-4), A on today's +-3; which tokens carry which symbols; which "
            "tokens are starting tokens")),
    generate=draw_tokens, summary=tokens_summary, rule_values=("tokens",),
    header="Both lists are drawn; `africanus_tokens_replace_base` still decides which one plays.",
    plural="token lists",
)

# ---------------------------------------------------------------- map (§4.4)

# §4.1: links the sources establish (Anglia joins Gallia or Hispania, or both), and non-links.
FIXED_LINKS = (("Gallia", "Hispania"), ("Hispania", "Italia"), ("Russia", "Tartaria"))
ANGLIA_LINKS = (("Anglia", "Gallia"), ("Anglia", "Hispania"))
NON_LINKS = (("Germania", "Turcia"), ("Hispania", "Polonia"), ("Italia", "Polonia"))
# Geographically plausible links between European regions, each with the chance a draw keeps
# it: a land border 0.8-0.95, a plausible border or short sea arrow 0.6-0.8, a longer sea arrow
# 0.2-0.4 (§4.4).
EUROPE_CANDIDATES: tuple[tuple[str, str, float], ...] = (
    ("Anglia", "Gallia", 0.9), ("Anglia", "Hispania", 0.2), ("Anglia", "Scandia", 0.6),
    ("Anglia", "Germania", 0.4), ("Gallia", "Germania", 0.95), ("Gallia", "Italia", 0.9),
    ("Italia", "Germania", 0.8), ("Italia", "Hungaria", 0.8), ("Italia", "Bulgaria", 0.2),
    ("Italia", "Turcia", 0.3), ("Germania", "Scandia", 0.8), ("Germania", "Polonia", 0.95),
    ("Germania", "Hungaria", 0.8), ("Scandia", "Polonia", 0.6), ("Scandia", "Russia", 0.7),
    ("Polonia", "Hungaria", 0.8), ("Polonia", "Russia", 0.9), ("Polonia", "Tartaria", 0.7),
    ("Hungaria", "Bulgaria", 0.9), ("Hungaria", "Tartaria", 0.6), ("Hungaria", "Turcia", 0.2),
    ("Bulgaria", "Turcia", 0.95), ("Bulgaria", "Tartaria", 0.7), ("Turcia", "Tartaria", 0.6),
)
AFRICA = ("AF1", "AF2", "AF3", "AF4", "AF5")  # west to east
# links inside North Africa: neighbours in the west-east strip, and a region reaching past one
AFRICA_CANDIDATES = tuple((AFRICA[i], AFRICA[i + 1], 0.85) for i in range(4)) + tuple(
    (AFRICA[i], AFRICA[i + 2], 0.2) for i in range(3))
# which European regions North Africa touches: Gibraltar, Sicily, the Levant and the sea between
TOUCH_CANDIDATES: tuple[tuple[str, str, float], ...] = (
    ("Hispania", "AF1", 0.9), ("Hispania", "AF2", 0.3), ("Gallia", "AF2", 0.2), ("Italia", "AF2", 0.5),
    ("Italia", "AF3", 0.5), ("Turcia", "AF4", 0.3), ("Turcia", "AF5", 0.9),
)


def used_at(players: int) -> list[str]:
    """The regions in use at ``players`` (§3.3, from the built-in map's ``players`` lists)."""
    return [r["name"] for r in _BUILTIN_MAP["regions"] if players in r["players"]]


def connected(names: Sequence[str], links: set[frozenset]) -> bool:
    """Whether the regions ``names`` form one connected graph over ``links``."""
    names = list(names)
    seen, stack = {names[0]}, [names[0]]
    while stack:
        here = stack.pop()
        for other in names:
            if other not in seen and frozenset((here, other)) in links:
                seen.add(other)
                stack.append(other)
    return len(seen) == len(names)


def caravan_moves_everywhere(names: Sequence[str], links: set[frozenset]) -> bool:
    """Whether from every region a two-step caravan move exists that does not end where it
    started (§2.2, §4.2)."""
    def nb(r: str) -> list[str]:
        return [o for o in names if frozenset((r, o)) in links]
    return all(any(e != s for m in nb(s) for e in nb(m)) for s in names)


def map_links(table: dict) -> set[frozenset]:
    """The undirected links of a map table."""
    return {frozenset((r["name"], o)) for r in table["regions"] for o in r["neighbours"]}


def draw_map(rng: random.Random) -> dict:
    """A map (§4.4): the §4.1 links and non-links kept, every other link drawn from the
    candidate lists; connected, with a caravan move from every region, at 2 to 6 players."""
    while True:
        links = {frozenset(pair) for pair in FIXED_LINKS}
        for a, b, p in EUROPE_CANDIDATES + AFRICA_CANDIDATES + TOUCH_CANDIDATES:
            if rng.random() < p:
                links.add(frozenset((a, b)))
        if not any(frozenset(pair) in links for pair in ANGLIA_LINKS):
            continue
        if all(connected(used_at(n), links) and caravan_moves_everywhere(used_at(n), links) for n in range(2, 7)):
            break
    regions = [dict(r) for r in _BUILTIN_MAP["regions"]]
    order = [r["name"] for r in regions]
    for r in regions:
        r["neighbours"] = [o for o in order if frozenset((r["name"], o)) in links]
    return {"provenance": "default", "section": f"{_RULES} §4.4", "regions": regions}


def _pair(link: frozenset) -> str:
    a, b = sorted(link, key=[r["name"] for r in _BUILTIN_MAP["regions"]].index)
    return f"{a}-{b}"


def map_summary(table: dict) -> str:
    """E.g. ``"Europe +Anglia-Germania -Gallia-Italia (22 links); Africa AF1-AF2, ...;
    touches Hispania-AF1, Turcia-AF5"``."""
    new, old = map_links(table), map_links(_BUILTIN_MAP)
    africa = set(AFRICA)
    europe_new = {k for k in new if not k & africa}
    europe_old = {k for k in old if not k & africa}
    added = sorted(_pair(k) for k in europe_new - europe_old)
    gone = sorted(_pair(k) for k in europe_old - europe_new)
    change = " ".join([f"+{p}" for p in added] + [f"-{p}" for p in gone]) or "as built in"
    inner = sorted(_pair(k) for k in new if k <= africa)
    touch = sorted(_pair(k) for k in new if len(k & africa) == 1)
    return (f"Europe {change} ({len(europe_new)} links); Africa {', '.join(inner) or 'no inner link'}; "
            f"touches {', '.join(touch)}")


MAP = ContentPrior(
    table="map", option="map_file", section=f"{_RULES} §4.4",
    known=("the regions, their boards and the player counts each is in use at (§3.3)",
           ("links Gallia-Hispania, Hispania-Italia, Russia-Tartaria, and Anglia-Gallia or "
           "Anglia-Hispania (§4.1)"),
           "non-links Germania-Turcia, Hispania-Polonia, Italia-Polonia (§4.1)",
           "connected, with a two-step caravan move from every region, at every player count (§4.2)"),
    varies=(("every other European link, kept with a chance from a written list of geographic "
            "candidates (land border 0.8-0.95, plausible border or short sea arrow 0.6-0.8, longer "
            "sea arrow 0.2-0.4); 19.5 European links a draw on average (today 22)"),
            ("North Africa's inner links (neighbours in the west-east strip 0.85, a region reaching "
            "past one 0.2) and which European regions it touches (Hispania, Gallia, Italia, Turcia)")),
    generate=draw_map, summary=map_summary, rule_values=("map",), plural="maps",
)

# ---------------------------------------------------------------- region cards (§9.1)

PAIRS = tuple((a, b) for i, a in enumerate(CLASSES) for b in CLASSES[i + 1:])
WILD_RANGE = range(3, 16)  # "?" cards in the deck, at most one per region (§9.1)
CLASS_SPREAD = 3  # a class's cards may differ from the mean (2 x two-symbol cards / 7) by this much


def draw_region_cards(rng: random.Random) -> dict:
    """A region-card deck (§9.1): 3 cards per region; a random number of "?" cards, each on its
    own region; the other cards two different classes, every pair equally likely, redrawn until
    every class is within ``CLASS_SPREAD`` cards of the mean."""
    names = [r["name"] for r in _BUILTIN_MAP["regions"]]
    wild = set(rng.sample(names, rng.choice(WILD_RANGE)))
    mean = 2 * (3 * len(names) - len(wild)) / len(CLASSES)
    while True:  # classes around equal: each within 3 of the mean
        cards = []
        for name in names:
            for k in range(3):
                symbols = ["?"] if k == 0 and name in wild else list(rng.choice(PAIRS))
                cards.append({"region": name, "symbols": symbols})
        tally = Counter(s for c in cards for s in c["symbols"] if s != "?")
        if all(abs(tally[c] - mean) <= CLASS_SPREAD for c in CLASSES):
            return {"provenance": "default", "section": f"{_RULES} §9.1", "cards": cards}


def region_cards_summary(table: dict) -> str:
    """E.g. ``"12 '?' cards of 51; Islam on 14, Royalty on 10"`` (today 9 '?' and 12 of each class)."""
    cards = table["cards"]
    wild = sum(c["symbols"] == ["?"] for c in cards)
    tally = Counter(s for c in cards for s in c["symbols"] if s != "?")
    top = max(CLASSES, key=lambda c: (tally[c], -CLASSES.index(c)))
    low = min(CLASSES, key=lambda c: (tally[c], CLASSES.index(c)))
    return (f"{wild} '?' cards of {len(cards)}; most often {_short(top)} ({tally[top]} cards), least "
            f"{_short(low)} ({tally[low]})")


REGION_CARDS = ContentPrior(
    table="region_cards", option="region_cards_file", section=f"{_RULES} §9.1",
    known=("51 cards, 3 naming each region (§9)",
           "each card shows two class symbols or '?' (§9)"),
    varies=((f"how many '?' cards ({WILD_RANGE.start}-{WILD_RANGE.stop - 1}, at most one per region; "
            "today 9) and where"),
            ("the two classes of every other card: any of the 21 pairs of the 7 classes, equally likely, "
            f"each class within {CLASS_SPREAD} cards of the mean (today exactly 12 each)")),
    generate=draw_region_cards, summary=region_cards_summary, rule_values=("region_cards",),
    plural="region-card decks",
)

PRIORS = (TOKENS, MAP, REGION_CARDS)
