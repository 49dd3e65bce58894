"""Rattus Cartus heuristic players: ``random``, ``greedy``, ``cautious`` (rules/cartus.md §11).

A policy answers the decision points the engine offers, one method each:

=================  =========================================================  =========================
method             decision (rules §11 #)                                      returns
=================  =========================================================  =========================
``supply``         whose supply icons to use (1)                              row position
``look``           which Nun-row card to look at (2, 11)                      position 0..4
``enter``          which open building to enter (3, 5)                        one of ``rows``
``cards``          which cards to put face down (4)                           count vector (no Pass)
``use_pass``       play a Pass for a second building (5)                      bool
``target``         Sword / Flute target (6, 8)                                one of ``candidates``
``give``           which cards to hand over, Sword / Guard Tower (7, 9)       count vector, sum == k
``hospital``       which hand cards to trade for rats (10)                    count vector, sum <= cap
=================  =========================================================  =========================

Each method gets the state, the deciding seat and that seat's own generator. A policy may
read public information, its own hand and the Nun-row positions it has looked at
(``state.seen``), of an entry only ``sum(counts)``, and other rat totals only when
``cfg.rats_visible``.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field

from analyzer.games.cartus.config import FLUTE, JOKER, N_TYPES, PASS, SWORD
from analyzer.games.cartus.scoring import seat_points
from analyzer.games.cartus.state import State


def _random_subset(rng: random.Random, hand: list[int], k: int) -> list[int]:
    pool = [t for t, c in enumerate(hand) for _ in range(c)]
    out = [0] * N_TYPES
    for t in rng.sample(pool, k):
        out[t] += 1
    return out


@dataclass(frozen=True)
class Random:
    """Uniformly random legal choices; each hand card is played with ``play_prob``."""

    play_prob: float = field(default=0.5, metadata={"help": "chance each playable hand card is played [0-1]"})
    pass_prob: float = field(default=0.5, metadata={"help": "chance a held Pass is used [0-1]"})
    name = "random"

    def __post_init__(self):
        for f in ("play_prob", "pass_prob"):
            v = getattr(self, f)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{f} must be in [0, 1] (got {v})")

    def supply(self, st: State, seat: int, rng: random.Random) -> int:
        return rng.randrange(len(st.row))

    def look(self, st: State, seat: int, rng: random.Random) -> int:
        return rng.randrange(len(st.nun_row))

    def enter(self, st: State, seat: int, rows: tuple[int, ...], rng: random.Random) -> int:
        return rows[rng.randrange(len(rows))]

    def cards(self, st: State, seat: int, r: int, rng: random.Random) -> list[int]:
        p = self.play_prob
        out = [0] * N_TYPES
        for t, c in enumerate(st.hands[seat][:PASS]):
            for _ in range(c):
                if rng.random() < p:
                    out[t] += 1
        return out

    def use_pass(self, st: State, seat: int, rng: random.Random) -> bool:
        return rng.random() < self.pass_prob

    def target(self, st: State, seat: int, kind: str, candidates: tuple[int, ...], rng: random.Random) -> int:
        return candidates[rng.randrange(len(candidates))]

    def give(self, st: State, seat: int, k: int, to: int, kind: str, rng: random.Random) -> list[int]:
        return _random_subset(rng, st.hands[seat], k)

    def hospital(self, st: State, seat: int, cap: int, rng: random.Random) -> list[int]:
        return _random_subset(rng, st.hands[seat], rng.randint(0, cap))


@functools.lru_cache(maxsize=16)
def _nun_cdf(population: tuple[tuple[int, int], ...], size: int) -> tuple[tuple[float, ...], ...]:
    """``cdf[u][x]`` = P(sum of ``u`` random Nun-row cards <= x), u = 0..size (with replacement)."""
    one: dict[int, float] = {}
    for _, nuns in population:
        one[nuns] = one.get(nuns, 0.0) + 1.0 / len(population)
    dist = {0: 1.0}
    out = []
    for u in range(size + 1):
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


def death_prob(st: State, seat: int, rats: int) -> float:
    """P(nun total < ``rats``), i.e. of dying with ``rats``, given the cards ``seat`` saw (rules §7.1)."""
    cfg = st.cfg
    seen = st.seen[seat]
    known, unknown = 0, 0
    for p, v in enumerate(st.nun_row):
        if (seen >> p) & 1:
            known += v
        else:
            unknown += 1
    x = rats - known - 1  # death iff unknown sum <= x
    if x < 0:
        return 0.0
    cdf = _nun_cdf(cfg.population, cfg.nun_row_size)[unknown]
    return cdf[x] if x < len(cdf) else 1.0


@dataclass(frozen=True)
class Greedy:
    """One-step value maximiser: influence majorities, premium actions, risk of dying.

    Values are in expected VP. A rat's cost is the rise in P(death) (exact nun-sum
    distribution given the looked-at cards) times ``life_value``.
    """

    life_value: float = field(default=40.0, metadata={"help": "VP at stake when dying (>= 0)"})
    rat_buffer: int = field(default=1, metadata={"help": "rats assumed still to come when judging risk (>= 0)"})
    track_weight: float = field(default=1.0, metadata={"help": "weight of the track-points gain (>= 0)"})
    influence_value: float = field(default=0.6, metadata={"help": "VP per influence point beyond the track gain"})
    card_value: float = field(default=0.8, metadata={"help": "VP of a population card kept in hand"})
    joker_value: float = field(default=1.2, metadata={"help": "VP of a joker in hand"})
    sword_value: float = field(default=1.0, metadata={"help": "VP of a Sword in hand"})
    flute_value: float = field(default=1.0, metadata={"help": "VP of a Flute in hand"})
    pass_value: float = field(default=1.0, metadata={"help": "VP of a Pass in hand"})
    gold_value: float = field(default=2.0, metadata={"help": "VP of a Gold card"})
    look_value: float = field(default=0.8, metadata={"help": "VP of looking at an unseen Nun-row card"})
    protect_value: float = field(default=1.5, metadata={"help": "VP of Guard Tower protection"})
    max_offclass: int = field(default=6, metadata={"help": "most off-class cards played into one building"})
    name = "greedy"

    def __post_init__(self):
        for f in ("life_value", "track_weight", "card_value", "joker_value", "look_value", "gold_value"):
            if getattr(self, f) < 0:
                raise ValueError(f"{f} must be >= 0 (got {getattr(self, f)})")
        if self.rat_buffer < 0 or self.max_offclass < 0:
            raise ValueError("rat_buffer and max_offclass must be >= 0")
        object.__setattr__(self, "_memo", {})  # seat -> (position key, plans); not a parameter

    # -- value helpers
    def _risk(self, st: State, seat: int, rats: int) -> float:
        return self.life_value * death_prob(st, seat, max(0, rats) + self.rat_buffer)

    def _relief(self, st: State, seat: int, x: int) -> float:
        r = st.rats[seat]
        return self._risk(st, seat, r) - self._risk(st, seat, r - min(x, r)) + 0.2 * min(x, r)

    def _action(self, st: State, seat: int, b: int, premium: bool, extra_inf: int) -> float:
        cfg = st.cfg
        kind = cfg.building_action[b]
        amt = cfg.premium[b] if premium else cfg.standard[b]
        if kind == "vp_tokens":
            return amt * cfg.vp_token_value
        if kind == "gold":
            return amt * self.gold_value
        if kind == "discard_rats":
            return self._relief(st, seat, amt)
        if kind == "hospital":
            return self._relief(st, seat, amt[0] + amt[1]) - amt[1] * self.card_value * 0.5
        if kind == "pass":
            return amt * self.pass_value
        if kind == "joker":
            return amt * self.joker_value
        if kind == "sword":
            return amt * self.sword_value
        if kind == "flute":
            return amt * self.flute_value
        if kind == "draw":
            return amt * self.card_value
        if kind == "brewery":
            return (st.round_influence[seat] + extra_inf) // amt * self.card_value
        if kind == "look":
            unseen = len(st.nun_row) - st.seen[seat].bit_count()
            return min(amt, unseen) * self.look_value
        if kind == "guard_tower":
            if not premium:
                return self.protect_value
            mine = sum(st.hands[seat]) - extra_inf
            got = sum(min(amt, sum(st.hands[s])) for s in range(st.n)
                      if s != seat and not (st.protected >> s) & 1 and sum(st.hands[s]) >= mine)
            return 0.5 * got * self.card_value + self.protect_value
        return 0.0

    def _plans(self, st: State, seat: int) -> dict[int, tuple[float, list[int]]]:
        """Best plan per open row for ``seat``'s current hand, memoised for this exact position
        (``enter``, ``cards`` and ``use_pass`` ask about the same position back to back)."""
        key = (st.round, tuple(st.hands[seat]), tuple(map(len, st.entries)))
        memo = self._memo.get(seat)
        if memo is not None and memo[0] is st and memo[1] == key:  # `is`: never a stale game
            return memo[2]
        plans: dict[int, tuple[float, list[int]]] = {}
        self._memo[seat] = (st, key, plans)
        return plans

    def _plan(self, st: State, seat: int, r: int) -> tuple[float, list[int]]:
        """Best ``(value, counts)`` for entering row ``r`` with the current hand (one step ahead)."""
        plans = self._plans(st, seat)
        got = plans.get(r)
        if got is None:
            got = plans[r] = self._make_plan(st, seat, r)
        return got

    def _make_plan(self, st: State, seat: int, r: int) -> tuple[float, list[int]]:
        cfg = st.cfg
        hand = st.hands[seat]
        b = cfg.card_building[st.row[r]]
        k = cfg.building_class[b]
        kind = cfg.building_action[b]
        others_here = [(s, sum(c)) for s, c in st.entries[r] if s != seat]
        best_other = max((x for _, x in others_here), default=-1)
        entered = sum(len(e) for e in st.entries)
        to_come = entered < st.n - 1
        inf = [st.influence[s][k] for s in range(st.n) if s != seat]
        mine0 = st.influence[seat][k]
        pts, tie = cfg.track_points, cfg.track_tie
        base_pts = seat_points(inf, mine0, pts, tie)
        # off-class cards, most plentiful class first
        off = sorted((t for t in range(JOKER) if t != k for _ in range(hand[t])), key=lambda t: -hand[t])
        n_off = min(len(off), self.max_offclass)
        rats0 = st.rats[seat]
        # risk table: life_value * P(death) with x more rats
        known = unknown = 0
        for p, v in enumerate(st.nun_row):
            if (st.seen[seat] >> p) & 1:
                known += v
            else:
                unknown += 1
        cdf = _nun_cdf(cfg.population, cfg.nun_row_size)[unknown]
        life = self.life_value
        risk = []
        for x in range(n_off + 1):
            y = rats0 + x + self.rat_buffer - known - 1
            risk.append(life * (0.0 if y < 0 else cdf[y] if y < len(cdf) else 1.0))
        flat = kind not in ("brewery", "guard_tower")
        if flat:
            prem_flat = self._action(st, seat, b, True, 0)
            std_flat = self._action(st, seat, b, False, 0)
        base = [0] * N_TYPES
        base[k] = hand[k]
        base[JOKER] = hand[JOKER]
        if others_here and max(sum(st.hands[s]) for s, _ in others_here) >= 2:
            base[SWORD] = hand[SWORD]
        if others_here and rats0 > 0:
            base[FLUTE] = min(hand[FLUTE], (rats0 + cfg.flute_rats - 1) // cfg.flute_rats)
        special_v = 0.3 * (self.sword_value * base[SWORD] + self.flute_value * base[FLUTE])
        need = max(best_other + 1, cfg.premium_min_cards)
        best_v, best_c = -1e9, base
        for x in range(n_off + 1):
            for jokers in ((hand[JOKER], 0) if hand[JOKER] else (0,)):
                g = hand[k] + jokers + x
                v = self.track_weight * (seat_points(inf, mine0 + g, pts, tie) - base_pts)
                v += self.influence_value * g - (risk[x] - risk[0]) - 0.1 * x
                v -= self.card_value * (hand[k] + x) + self.joker_value * jokers - special_v
                if g >= need:
                    p = 0.75 if to_come else 1.0
                elif g == best_other and g >= cfg.premium_min_cards:
                    p = 0.5
                else:
                    p = 0.0
                if flat:
                    v += p * prem_flat + (1 - p) * std_flat
                else:
                    v += (p * self._action(st, seat, b, True, g) if p else 0.0) + (
                        1 - p) * self._action(st, seat, b, False, g)
                if v > best_v:
                    c = base.copy()
                    c[JOKER] = jokers
                    for t in off[:x]:
                        c[t] += 1
                    best_v, best_c = v, c
        return best_v, best_c

    # -- decisions
    def supply(self, st: State, seat: int, rng: random.Random) -> int:
        unseen = len(st.nun_row) - st.seen[seat].bit_count()
        best, best_r = -1e9, 0
        for r, c in enumerate(st.row):
            d, x, looks = st.cfg.card_icons[c]
            v = d * self.card_value + self._relief(st, seat, x) + min(looks, unseen) * self.look_value
            if v > best:
                best, best_r = v, r
        return best_r

    def look(self, st: State, seat: int, rng: random.Random) -> int:
        seen = st.seen[seat]
        for p in range(len(st.nun_row)):
            if not (seen >> p) & 1:
                return p
        return 0

    def enter(self, st: State, seat: int, rows: tuple[int, ...], rng: random.Random) -> int:
        best, best_r = -1e9, rows[0]
        for r in rows:
            v = self._plan(st, seat, r)[0]
            if v > best:
                best, best_r = v, r
        return best_r

    def cards(self, st: State, seat: int, r: int, rng: random.Random) -> list[int]:
        return self._plan(st, seat, r)[1]

    def use_pass(self, st: State, seat: int, rng: random.Random) -> bool:
        entered = {r for r, row in enumerate(st.entries) for s, _ in row if s == seat}
        rows = [r for r in range(len(st.row)) if r not in entered]
        return any(self._plan(st, seat, r)[0] > self.pass_value for r in rows)

    def target(self, st: State, seat: int, kind: str, candidates: tuple[int, ...], rng: random.Random) -> int:
        if kind == "sword" or not st.cfg.rats_visible:
            return max(candidates, key=lambda s: (sum(st.hands[s]), -s))
        return max(candidates, key=lambda s: (st.rats[s], -s))

    def give(self, st: State, seat: int, k: int, to: int, kind: str, rng: random.Random) -> list[int]:
        hand = st.hands[seat]
        left = hand.copy()
        out = [0] * N_TYPES
        for _ in range(k):
            pop = [t for t in range(JOKER) if left[t]]
            if pop:  # give from the class held most (least needed per card)
                t = max(pop, key=lambda t: left[t])
            else:
                t = next(t for t in (PASS, FLUTE, SWORD, JOKER) if left[t])
            left[t] -= 1
            out[t] += 1
        return out

    def hospital(self, st: State, seat: int, cap: int, rng: random.Random) -> list[int]:
        best_x, best_v = 0, 0.0
        for x in range(1, cap + 1):
            v = self._relief(st, seat, x) - x * self.card_value
            if v > best_v:
                best_x, best_v = x, v
        return self.give(st, seat, best_x, seat, "hospital", rng)


@dataclass(frozen=True)
class Cautious(Greedy):
    """Greedy that fears the plague: no off-class cards, a wide rat buffer, a high life value."""

    life_value: float = field(default=80.0, metadata={"help": "VP at stake when dying (>= 0)"})
    rat_buffer: int = field(default=3, metadata={"help": "rats assumed still to come when judging risk (>= 0)"})
    max_offclass: int = field(default=0, metadata={"help": "most off-class cards played into one building"})
    name = "cautious"


POLICIES: dict[str, type] = {"random": Random, "greedy": Greedy, "cautious": Cautious}

