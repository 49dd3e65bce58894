"""Rattus players: ``random`` and ``greedy`` (rules/rattus.md §15 decision points).

A policy is a frozen dataclass of typed parameters with one method
``choose(state, seat, kind, options, rng, ctx) -> option`` returning one element of ``options``.
Policies read only public information (cube counts, token counts, cards held, own region-card
hand, what the Witch showed through ``ctx``), never a face-down token's identity.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from operator import mul
from typing import Any

from analyzer.games.rattus.cards import majority_holders
from analyzer.games.rattus.config import CARD_CLASS, CARD_INDEX
from analyzer.games.rattus.plague import losses
from analyzer.games.rattus.state import State

_PEASANT = CARD_INDEX["peasant"]


@dataclass(frozen=True)
class RandomPolicy:
    """Uniform among the legal options at every decision point (uses only the seat's generator)."""

    name = "random"

    def choose(self, state: State, seat: int, kind: str, options: tuple, rng: random.Random, ctx: Any = None) -> Any:
        """One option drawn uniformly from ``options``."""
        return options[rng.randrange(len(options))]


def _param(default: float, help_text: str) -> Any:
    return field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class GreedyPolicy:
    """One-ply evaluation of every legal option with fixed, documented weights.

    The value of a position for seat p is, summed over regions, p's cubes there minus the expected
    cubes p loses to the rats (tokens present + ``future_rats``, each costing the set's mean
    A/M/class damage at the current cube count, times ``plague_risk``), minus ``opponent_weight``
    times the mean of the same value over the other seats. Each option is applied to the live
    lists, evaluated on the regions it touches, and undone (no copies). Ties are broken by the
    seat's generator, so play is deterministic given the seed.
    """

    name = "greedy"

    plague_risk: float = _param(1.0, "weight of expected cubes lost to rats already on the board (0-3)")
    future_rats: float = _param(0.5, "extra rats assumed to reach every region before it is resolved (tokens, 0-3)")
    opponent_weight: float = _param(1.0, "weight of the opponents' mean value against one's own (0-2)")
    card_value: float = _param(0.6, "value of holding a class card beyond its risk, per card (points, 0-5)")
    take_threshold: float = _param(0.2, "minimum net value to take a card (points, -5-5)")
    diplomat_value: float = _param(1.5, "value of a diplomat disc placed (points, 0-5)")
    region_card_keep: float = _param(0.4, "value of keeping a region card that does not score now (points, 0-3)")
    caravan_opponent_weight: float = _param(0.7, "cost per bonus cube given to an opponent by a caravan move (0-2)")

    def __post_init__(self):
        limits = {"plague_risk": (0, 3), "future_rats": (0, 3), "opponent_weight": (0, 2), "card_value": (0, 5),
                  "take_threshold": (-5, 5), "diplomat_value": (0, 5), "region_card_keep": (0, 3),
                  "caravan_opponent_weight": (0, 2)}
        for name, (lo, hi) in limits.items():
            v = getattr(self, name)
            if not lo <= v <= hi:
                raise ValueError(f"{name} must be in [{lo}, {hi}] (got {v})")

    # ------------------------------------------------------------ position value

    def _values(self, st: State, r: int) -> list[float]:
        """Per-seat value of region ``r``: cubes minus expected rat losses (see class doc)."""
        row = st.cubes[r]
        tot = sum(row)
        if tot == 0:
            return [0.0] * len(row)
        cfg = st.cfg
        k = (len(st.tokens[r]) + self.future_rats) * self.plague_risk
        t = min(6, tot)
        ea, em, ec = cfg.exp_a[t], cfg.exp_m[t], cfg.exp_c[t]
        top = max(row)
        out = []
        held = st.held_class
        for q, c in enumerate(row):
            if not c:
                out.append(0.0)
                continue
            loss = k * (ea + (em if c == top else 0.0) + sum(map(mul, ec, held[q])))
            out.append(c - (min(c, loss)))
        return out

    def _rel(self, st: State, p: int, regions) -> float:
        n = st.cfg.n_players
        w = self.opponent_weight / (n - 1)
        total = 0.0
        for r in regions:
            v = self._values(st, r)
            total += v[p] * (1 + w) - w * sum(v)
        return total

    def _pick(self, options, scores, rng):
        best = max(scores)
        idx = [i for i, s in enumerate(scores) if s >= best - 1e-9]
        return options[idx[0] if len(idx) == 1 else idx[rng.randrange(len(idx))]]

    # ------------------------------------------------------------ option values

    def _place_value(self, st: State, p: int, r: int, k: int) -> float:
        k = min(k, st.supply_cubes[p])
        if k <= 0:
            return -0.01
        before = self._rel(st, p, (r,))
        st.cubes[r][p] += k
        after = self._rel(st, p, (r,))
        st.cubes[r][p] -= k
        return after - before

    def _take_value(self, st: State, p: int, card: int) -> float:
        """Card value minus the extra expected losses of holding it, plus the relief of its
        previous holder weighted as an opponent (uncapped linear estimate, O(regions))."""
        cls = CARD_CLASS[card]
        prev = st.holder[card]
        cfg = st.cfg
        w = self.opponent_weight / (cfg.n_players - 1)
        risk = 0.0
        for r, row in enumerate(st.cubes):
            mine = row[p]
            other = row[prev] if prev >= 0 else 0
            if not (mine or other):
                continue
            tot = sum(row)
            per = (len(st.tokens[r]) + self.future_rats) * self.plague_risk * cfg.exp_c[min(6, tot)][cls]
            risk += per * ((1 if mine else 0) - (w if other else 0))
        return self.card_value - risk

    def _merchant_value(self, st: State, p: int, opt) -> float:
        src, dst, k, _ = opt
        before = self._rel(st, p, (src, dst))
        st.cubes[src][p] -= k
        st.cubes[dst][p] += k
        after = self._rel(st, p, (src, dst))
        st.cubes[src][p] += k
        st.cubes[dst][p] -= k
        return after - before - 0.05

    def _monk_value(self, st: State, p: int, opt) -> float:
        src, i, dst = opt
        before = self._rel(st, p, (src, dst))
        st.tokens[dst].append(st.tokens[src].pop(i))
        after = self._rel(st, p, (src, dst))
        st.tokens[src].insert(i, st.tokens[dst].pop())
        return after - before - 0.05

    def _king_value(self, st: State, p: int, r: int) -> float:
        before = self._rel(st, p, (r,))
        st.cubes[r][p] -= 1
        after = self._rel(st, p, (r,))
        st.cubes[r][p] += 1
        return after - before + 1.0

    def _sultan_value(self, st: State, p: int, r: int) -> float:
        v = self._values(st, r)[p]
        c = st.cubes[r][p]
        return self.diplomat_value * (v / c if c else 0.0)

    def _trader_value(self, st: State, p: int, opt) -> float:
        mid, _ = opt
        val = 0.0
        for r in (st.caravan, mid):
            for q in majority_holders(st.cubes[r], p):
                if st.supply_cubes[q] > 0:
                    val += 1.0 if q == p else -self.caravan_opponent_weight
        return val

    def _card_score_value(self, st: State, p: int, cid: int) -> float:
        row = st.cubes[st.cfg.rcard_region[cid]]
        mine = row[p]
        other = max(c for q, c in enumerate(row) if q != p)
        return 1.0 * (mine - other) if mine else -1.0

    def _plague_value(self, st: State, p: int, d: int) -> float:
        cfg = st.cfg
        k = len(st.tokens[d])
        row = st.cubes[d]
        tot = sum(row)
        if not k or not tot:
            return 0.0
        t = min(6, tot)
        top = max(row)
        dmg = []
        for q, c in enumerate(row):
            if not c:
                dmg.append(0.0)
                continue
            loss = k * (cfg.exp_a[t] + (cfg.exp_m[t] if c == top else 0.0) + sum(map(mul, cfg.exp_c[t], st.held_class[q])))
            dmg.append(min(c, loss))
        n = cfg.n_players
        return self.opponent_weight * (sum(dmg) - dmg[p]) / (n - 1) - dmg[p]

    def _ability_value(self, st: State, p: int, name: str, opts: tuple) -> float:
        if name == "sultan":
            return max(self._sultan_value(st, p, r) for r in opts)
        if name in ("astronomer", "explorer"):
            return 0.5
        if name == "witch":
            return 0.1 if any(st.cubes[r][p] for r, _ in opts) else -1.0
        return max(self._score(st, p, name, o) for o in opts)

    def _score(self, st: State, p: int, kind: str, o) -> float:
        if kind == "merchant":
            return self._merchant_value(st, p, o)
        if kind == "monk":
            return self._monk_value(st, p, o)
        if kind == "king":
            return self._king_value(st, p, o)
        if kind == "trader":
            return self._trader_value(st, p, o)
        if kind == "peasant":
            return self._place_value(st, p, o, 1)
        return 0.0

    # ------------------------------------------------------------ the decision

    def choose(self, state: State, seat: int, kind: str, options: tuple, rng: random.Random, ctx: Any = None) -> Any:
        """The option with the highest one-ply value (ties broken by ``rng``)."""
        st, p = state, seat
        if kind in ("step", "final_step"):
            scores = []
            for o in options:
                if o in ("plague", "done"):
                    scores.append(0.0)
                elif o == "take":
                    cards = [c for c, h in enumerate(st.holder) if h not in (-2, p)]
                    scores.append(max(self._take_value(st, p, c) for c in cards) - self.take_threshold)
                elif o == "place":
                    extra = 1 if st.holder[_PEASANT] == p else 0
                    scores.append(max(self._place_value(st, p, r, len(st.tokens[r]) + extra)
                                      for r in range(st.cfg.n_regions)))
                else:
                    scores.append(self._ability_value(st, p, o, ctx[CARD_INDEX[o]]))
            return self._pick(options, scores, rng)
        if kind == "take":
            return self._pick(options, [self._take_value(st, p, c) for c in options], rng)
        if kind == "place":
            extra = 1 if st.holder[_PEASANT] == p else 0
            return self._pick(options, [self._place_value(st, p, r, len(st.tokens[r]) + extra) for r in options], rng)
        if kind == "opening":
            return self._pick(options, [self._place_value(st, p, r, 2) - 0.3 * sum(st.cubes[r])
                                        for r in options], rng)
        if kind == "plague_move":
            return self._pick(options, [self._plague_value(st, p, d) for d in options], rng)
        if kind == "spread":
            return self._pick(options, [sum(st.cubes[x]) - 2 * st.cubes[x][p] for x in options], rng)
        if kind in ("merchant", "monk", "king", "trader", "peasant"):
            return self._pick(options, [self._score(st, p, kind, o) for o in options], rng)
        if kind == "sultan":
            return self._pick(options, [self._sultan_value(st, p, r) for r in options], rng)
        if kind == "caravan_bonus":
            return True
        if kind == "witch_first":
            return self._pick(options, [st.cubes[r][p] for r, _ in options], rng)
        if kind == "witch_second":
            return self._pick(options, [sum(st.cubes[r]) - 2 * st.cubes[r][p] for r, _ in options], rng)
        if kind == "witch_swap":
            return self._witch_swap(st, p, ctx)
        if kind in ("astronomer", "explorer"):
            if kind == "explorer":
                return self._pick(options, [self._place_value(st, p, st.cfg.rcard_region[c], 1) for c in options], rng)
            return self._pick(options, [self._card_score_value(st, p, c) for c in options], rng)
        if kind == "region_card":
            return self._region_card(st, p, options, ctx)
        return options[0]  # final_order and anything without a preference

    def _witch_swap(self, st: State, p: int, ctx) -> bool:
        (r1, _), (r2, _), a, b = ctx
        cfg = st.cfg

        def hurt(r: int, tid: int) -> float:
            row = st.cubes[r]
            if sum(row) < cfg.tokens[tid][0]:
                return 0.0
            lost = losses(row, st.held_class, cfg.tokens[tid], [0] * len(row), cfg.same_class_cards_stack)
            return lost[p] - self.opponent_weight * (sum(lost) - lost[p]) / (len(row) - 1)

        keep = hurt(r1, a) + hurt(r2, b)
        swap = hurt(r1, b) + hurt(r2, a)
        return swap < keep

    def _region_card(self, st: State, p: int, options: tuple, ctx) -> Any:
        r, tid = ctx
        cfg = st.cfg
        token = cfg.tokens[tid]
        best, best_v = None, 0.0
        for o in options:
            if o is None:
                continue
            cid, k = o
            saved = min(token[3].count(k) * st.held_class[p][k], st.cubes[r][p])
            keep = cfg.region_card_points if self._card_score_value(st, p, cid) >= 0 else self.region_card_keep
            v = saved - keep
            if v > best_v:
                best, best_v = o, v
        return best


POLICIES: dict[str, type] = {"random": RandomPolicy, "greedy": GreedyPolicy}
