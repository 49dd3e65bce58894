"""Heuristic Pyramidion players (docs/rules/pyramidion.md §14.1–14.2).

A policy is a frozen dataclass of typed parameters; ``policy.player(seat)`` makes the player of
one seat in one game, whose ``choose(view, rng)`` returns one of ``view.legal_actions()``. A
player decides from its seat's ``View`` (view.py): its own hand and the public board, never the
game itself (§14.2), and draws any randomness from its seat's ``rng``. Values are in
"VP-equivalents": a good that ends on a boat is worth about 1 VP.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from mypy_extensions import mypyc_attr

from analyzer.games.pyramidion.config import (
    BANDIT,
    EXECUTIONER,
    GODDESS,
    HIGH_PRIEST,
    MERCHANT,
    NEGOTIATOR,
    ORDINARY,
    PHILOSOPHER,
    PLAYER_ORDER,
    REVOLT,
    SLAVE_DRIVER,
    STATUE,
    STONE_DRAGGER,
    THIEF,
)
from analyzer.games.pyramidion.state import (
    ACTIVATE,
    CAIRO,
    EXECUTIONER_TARGET,
    GODDESS_CATEGORY,
    KEEP,
    LOAD,
    PLAY,
    RECRUIT,
    THIEF_TARGET,
)
from analyzer.games.pyramidion.view import View
from analyzer.model.base import param, param_default
from analyzer.model.play import lead


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class RandomPolicy:
    """Uniformly random among the legal options (a baseline, not a player)."""

    def player(self, seat: int) -> RandomPlayer:
        """The player of one seat in one game."""
        return RandomPlayer()


class RandomPlayer:
    """Plays ``RandomPolicy``."""

    def choose(self, view: View, rng: random.Random) -> Any:
        """A uniformly random legal action (``rng`` is the seat's own stream)."""
        options = view.legal_actions()
        return options[rng.randrange(len(options))]


def _lack(row: list[int], seat: int, minimum: int) -> int:
    """Points ``seat`` still lacks to win a category with totals ``row`` right now: beat every
    opponent and meet ``minimum`` (a total of 0 never wins); <= 0 means he wins it already."""
    mine = row[seat]
    best_opp = 0  # totals are >= 0
    for s in range(len(row)):
        if s != seat and row[s] > best_opp:
            best_opp = row[s]
    return (best_opp + 1 if best_opp >= minimum else (minimum if minimum > 0 else 1)) - mine


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class GreedyPolicy:
    """One-step greedy: at each decision take the option with the best immediate value.

    Card play: a card is worth the values of the contests (slave-driver tile, negotiator tile,
    the site's goods) it turns from lost to won, minus ``card_cost`` per point it spends from
    the round's hand; it passes when nothing is worth its cost. Loading: loads whenever it can
    pay for a boat, choosing the load worth most as the boat's VP less ``statue_cost`` per
    statue it would spend, plus ``tile_use_bonus`` per slave-driver tile used (so a cheaper boat
    paid with its own goods can beat a bigger one paid with statues, and tiles are used before
    its own goods). Special cards add their own effect's worth (``stone_dragger_goods`` ...).
    """

    good_value: float = param(0.8, low=0, high=5, help="value of one good taken (VP)")
    slave_driver_tile: float = param(1.2, low=0, high=10, help="value of winning a slave-driver tile (VP)")
    negotiator_tile: float = param(1.5, low=0, high=10, help="value of winning a negotiator tile (VP)")
    player_order: float = param(0.3, low=0, high=5, help="value of a Giza player-order tile (VP)")
    card_cost: float = param(0.25, low=0, high=2, help="cost per card point spent at the round's first site, "
                             "falling to 0 at its last (VP per point)")
    progress: float = param(0.4, low=0, high=1, help="share of a contest's value credited to a card that does not "
                            "win it alone but the hand can (share)")
    recruit_below: int = param(3, low=0, high=10, help="recruit away a common card whose best value is at most "
                               "this (card points)")
    revolt_margin: int = param(10, low=0, high=50, help="influence needed before playing a revolt card (points)")
    own_tile_share: float = param(0.5, low=0, high=1, help="share of a tile's value when the seat already holds "
                                  "that tile (share)")
    stone_dragger_goods: float = param(0.8, low=0, high=5, help="worth of a Stone Dragger's own effect (goods)")
    philosopher_value: float = param(0.2, low=0, high=5, help="worth of taking the Philosopher from another seat (VP)")
    revolt_goods: float = param(1.5, low=0, high=5, help="worth of a revolt card played with the influence lead "
                                "(goods)")
    revolt_penalty: float = param(1.0, low=0, high=5, help="cost of a revolt card played without the lead or the "
                                  "margin (VP)")
    executioner_value: float = param(0.4, low=0, high=5, help="worth of an Executioner when another seat has a "
                                     "card in play (VP)")
    statue_want: float = param(10.0, low=0, high=20, help="how much a statue is wanted when stealing, against the "
                               "units the boats on display still need (units)")
    thief_lead_weight: float = param(0.1, low=0, high=2, help="weight of the victim's lead (VP, or boats when VP "
                                     "are hidden) when stealing a good (per VP)")
    cairo_cost: float = param(1.5, low=0, high=10, help="cost of a Cairo exchange (units)")
    cairo_reserve: int = param(2, low=0, high=10, help="units of the kind given kept beyond what the boats need "
                               "(units)")
    statue_cost: float = param(0.3, low=0, high=3, help="cost per statue spent on a load (VP)")
    tile_use_bonus: float = param(0.05, low=0, high=1, help="worth per slave-driver tile used on a load (VP)")

    def player(self, seat: int) -> GreedyPlayer:
        """The player of one seat in one game, with these parameters."""
        return GreedyPlayer(self, seat)


class GreedyPlayer:
    """Plays ``GreedyPolicy`` (or a persona built on it) for one seat (see there)."""

    def __init__(self, policy: GreedyPolicy, seat: int):
        self.seat = seat
        self.good_value = policy.good_value
        self.slave_driver_tile = policy.slave_driver_tile
        self.negotiator_tile = policy.negotiator_tile
        self.player_order = policy.player_order
        self.card_cost = policy.card_cost
        self.progress = policy.progress
        self.recruit_below = policy.recruit_below
        self.revolt_margin = policy.revolt_margin
        self.own_tile_share = policy.own_tile_share
        self.stone_dragger_goods = policy.stone_dragger_goods
        self.philosopher_value = policy.philosopher_value
        self.revolt_goods = policy.revolt_goods
        self.revolt_penalty = policy.revolt_penalty
        self.executioner_value = policy.executioner_value
        self.statue_want = policy.statue_want
        self.thief_lead_weight = policy.thief_lead_weight
        self.cairo_cost = policy.cairo_cost
        self.cairo_reserve = policy.cairo_reserve
        self.statue_cost = policy.statue_cost
        self.tile_use_bonus = policy.tile_use_bonus
        # how clearly the last answer was chosen (``forward.Player``): its score minus the best
        # other option's (cards of one kind count as one option), in the decision's own units
        # (VP for most); inf for one option or an answer not chosen by comparing scores
        self.lead = math.inf

    # -- dispatch

    def choose(self, view: View, rng: random.Random) -> Any:
        """The best legal action for the pending decision (state.py D1–D6)."""
        kind = view.decision_kind()
        options = view.legal_actions()
        seat = self.seat
        self.lead = math.inf  # each decision that compares scores sets its own
        if kind == PLAY:
            i = self._play(view, seat, options)
        elif kind == LOAD:
            i = self._load(view, seat, options)
        elif kind == ACTIVATE:
            i = self._activate(view, seat, options)
        elif kind == GODDESS_CATEGORY:
            i = self._goddess(view, seat)
        elif kind == RECRUIT:
            i = self._recruit(view, options)
        elif kind == EXECUTIONER_TARGET:
            i = self._executioner(view, seat, options)
        elif kind == THIEF_TARGET:
            i = self._thief(view, seat, options)
        elif kind == CAIRO:
            i = self._cairo(view, seat, options)
        elif kind == KEEP:
            i = self._keep(view, options)
        else:
            i = 0
        return options[i]

    # -- helpers

    def _contest_values(self, st: View, seat: int, site: int) -> tuple[float, float, float]:
        """What winning each category at ``site`` is worth to ``seat`` now."""
        own = self.own_tile_share
        v0 = self.slave_driver_tile * (own if st.sd_owner[site] == seat else 1.0)
        v1 = self.negotiator_tile * (own if st.ng_owner[site] == seat else 1.0)
        v2 = self.good_value * st.site_goods[site]
        return v0, v1, v2

    @staticmethod
    def _wins(totals: list[list[int]], cat: int, seat: int, mine: int, minimum: int) -> bool:
        if mine < minimum or mine <= 0:
            return False
        row = totals[cat]
        return all(s == seat or row[s] < mine for s in range(len(row)))

    # -- decisions

    def _play(self, st: View, seat: int, options: tuple[int, ...]) -> int:
        cfg = st.cfg
        site = st.site
        tot = st.totals
        mins = cfg.site_min[site]
        v0, v1, v2 = vals = self._contest_values(st, seat, site)
        # need[k]: points ``seat`` still lacks to win category k right now
        need = (n0, n1, n2) = (_lack(tot[0], seat, mins[0]), _lack(tot[1], seat, mins[1]),
                               _lack(tot[2], seat, mins[2]))
        # A card unplayed at the end of the round is wasted: its cost shrinks with the number
        # of activations still to come this round.
        total = st.n * cfg.activations_per_player
        later = total - st.sundial.count(True) - 1
        unit = self.card_cost * later / (total - 1) if total > 1 else 0.0
        reach_of, cats, play_info = cfg.card_reach, cfg.card_cats, cfg.card_play_info
        h0 = h1 = h2 = 0  # what the whole hand could still add per category (Goddess not counted)
        for c in options[1:]:
            v = reach_of[c]
            h0 += v[0]
            h1 += v[1]
            h2 += v[2]
        # What a card's value in category k earns: ``hit`` when it reaches need[k] alone
        # (nothing if k is won already), else ``miss`` (a share if the rest of the hand can).
        progress = self.progress
        hit = (v0 if n0 > 0 else 0.0, v1 if n1 > 0 else 0.0, v2 if n2 > 0 else 0.0)
        miss = (v0 * progress if h0 >= n0 else 0.0, v1 * progress if h1 >= n1 else 0.0,
                v2 * progress if h2 >= n2 else 0.0)
        # a slave driver's own effect (``_special``, inlined: it is the most common one)
        giza = (self.player_order if cfg.site_ability[site] == PLAYER_ORDER
                and seat not in st.giza_tiles else 0.0)
        best_i, best = 0, 0.0
        best_kind, second = -2, -math.inf  # the best's card kind (-2: option 0), the best other kind's value
        last = -1
        for i in range(1, len(options)):
            kind, t, k, vk, points = play_info[options[i]]
            # A card of the same kind as the option before it has the same value and never
            # beats it strictly (the hand is sorted, so equal cards are mostly neighbours).
            if kind == last:
                continue
            last = kind
            if k >= 0:  # a card with one category: the usual case
                gain = hit[k] if vk >= need[k] else miss[k]
            elif t == GODDESS:
                gain = 0.0
                for k in range(3):
                    if 0 < need[k] <= vk and vals[k] > gain:
                        gain = vals[k]
            else:
                gain = 0.0
                for k, vk in cats[options[i]]:
                    gain += hit[k] if vk >= need[k] else miss[k]
            cost = unit * points
            if t == SLAVE_DRIVER:
                if giza:
                    gain += giza
            elif t > GODDESS:
                gain, cost = self._special(st, seat, site, t, tot[0][seat], gain, cost)
            net = gain - cost
            if net > best:
                if kind != best_kind:
                    second = best
                best_i, best, best_kind = i, net, kind
            elif kind != best_kind and net > second:
                second = net
        self.lead = best - second
        return best_i

    def _special(self, st: View, seat: int, site: int, t: int, influence: int,
                 gain: float, cost: float) -> tuple[float, float]:
        """Adjust a special card's (gain, cost) for its type's own effect (§10.2); the slave
        driver's own effect (a Giza tile) is valued in ``_play``."""
        if t == HIGH_PRIEST:
            cost = 0.0
        elif t == STONE_DRAGGER:
            gain += self.good_value * self.stone_dragger_goods
        elif t == BANDIT:
            gain += self.good_value if st.site_goods[site] else 0.0
        elif t == THIEF:
            gain += self.good_value if any(st.goods_count(q) for q in range(st.n) if q != seat) else 0.0
        elif t == PHILOSOPHER:
            gain += self.philosopher_value if st.philosopher != seat else 0.0
        elif t == REVOLT:
            ahead = all(st.totals[0][q] < influence for q in range(st.n) if q != seat)
            gain += self.good_value * self.revolt_goods if ahead and influence >= self.revolt_margin \
                else -self.revolt_penalty
        elif t == EXECUTIONER:
            gain += self.executioner_value if any(st.pc_alive[j] and st.pc_seat[j] != seat
                               for j in range(len(st.pc_card))) else 0.0
        return gain, cost

    def _goddess(self, st: View, seat: int) -> int:
        cfg = st.cfg
        site = st.site
        tot = st.totals
        mins = cfg.site_min[site]
        vals = self._contest_values(st, seat, site)
        g = cfg.goddess_value
        best_k, best = 0, -1.0
        scores = []
        for k in range(3):
            mine = tot[k][seat]  # the engine asks before the Goddess's value is added
            v = vals[k] * (self._wins(tot, k, seat, mine + g, mins[k]) - self._wins(tot, k, seat, mine, mins[k]))
            scores.append(v)
            if v > best:
                best_k, best = k, v
        self.lead = lead(scores, best_k)
        return best_k

    def _activate(self, st: View, seat: int, options: tuple[int, ...]) -> int:
        # the sum of ``_contest_values`` per site, inlined
        sd, ng, gv, own = self.slave_driver_tile, self.negotiator_tile, self.good_value, self.own_tile_share
        sd_owner, ng_owner, goods = st.sd_owner, st.ng_owner, st.site_goods
        best_i, best = 0, -1.0
        scores = []
        for i, s in enumerate(options):
            v = (sd * (own if sd_owner[s] == seat else 1.0) + ng * (own if ng_owner[s] == seat else 1.0)
                 + gv * goods[s])
            scores.append(v)
            if v > best:
                best_i, best = i, v
        self.lead = lead(scores, best_i)
        return best_i

    def _recruit(self, st: View, options: tuple) -> int:
        cfg = st.cfg
        best_i, best = 0, self.recruit_below + 1
        scores = [-float(best)]  # option 0 at the threshold; fewer points is better: negated
        at = [0]
        for i in range(1, len(options)):
            c = options[i]
            if cfg.card_owner[c] >= 0 or cfg.card_type[c] not in (MERCHANT, NEGOTIATOR, SLAVE_DRIVER):
                continue  # keep starting cards (they come back anyway) and specials
            pts = max(cfg.card_val[c])
            scores.append(-float(pts))
            if pts < best:
                best_i, best = i, pts
                at.append(len(scores) - 1)
        self.lead = lead(scores, at[-1])
        return best_i

    def _executioner(self, st: View, seat: int, options: tuple) -> int:
        cfg = st.cfg
        best_i, best = 0, -1
        scores = []
        for i, j in enumerate(options):
            c = st.pc_card[j]
            pts = cfg.goddess_value if st.pc_cat[j] >= 0 else max(cfg.card_val[c])
            scores.append(float(pts))
            if pts > best:
                best_i, best = i, pts
        self.lead = lead(scores, best_i)
        return best_i

    def _needs(self, st: View) -> list[int]:
        """Units of each ordinary kind the boats on display ask for beyond what ``seat`` holds."""
        need = [0] * ORDINARY
        for b in st.display:
            for k, n in enumerate(st.cfg.boat_need[b]):
                need[k] += n
        own = st.own_goods
        return [need[k] - own[k] for k in range(ORDINARY)]

    def _thief(self, st: View, seat: int, options: tuple) -> int:
        """Take the good most needed for the boats on display from the leading opponent (by VP,
        or by boats loaded when VP are hidden: §5 phase 7 ``boat_vp_public``). With hidden goods
        (§3.1 ``goods_visible``) only the opponent is chosen: the leading one."""
        cfg = st.cfg
        need = self._needs(st)
        best_i, best = 0, -1e9
        scores = []
        for i, (q, k) in enumerate(options):
            standing = st.vp(q) if cfg.boat_vp_public else st.boat_count(q)
            if cfg.goods_visible:
                v = (self.statue_want if k == STATUE else need[k]) + self.thief_lead_weight * standing
            else:
                v = float(standing)
            scores.append(v)
            if v > best:
                best_i, best = i, v
        self.lead = lead(scores, best_i)
        return best_i

    def _cairo(self, st: View, seat: int, options: tuple) -> int:
        need = self._needs(st)
        best_i, best = 0, 0.0
        scores, at = [0.0], 0  # option 0 (no trade) at 0; a trade only for a needed good
        for i in range(1, len(options)):
            give, take = divmod(options[i], ORDINARY)
            v = need[take] - self.cairo_cost - max(need[give] + self.cairo_reserve, 0)
            if need[take] > 0:
                scores.append(v)
                if v > best:
                    best_i, best, at = i, v, len(scores) - 1
        self.lead = lead(scores, at)
        return best_i

    def _load(self, st: View, seat: int, options: tuple) -> int:
        cfg = st.cfg
        g = st.own_goods
        items, kind = cfg.boat_need_items, cfg.site_kind
        best_i, best = 0, 0.0
        scores = [0.0]  # option 0 (load nothing) at 0
        for i in range(1, len(options)):
            b, used = options[i]
            statues = 0
            for k, nk in items[b]:
                r = nk - g[k]
                if r > 0 and used:
                    r -= sum(1 for s in used if kind[s] == k)
                if r > 0:
                    statues += r
            v = cfg.boat_vp[b] + self.tile_use_bonus * len(used) - self.statue_cost * statues
            scores.append(v)
            if v > best:
                best_i, best = i, v
        self.lead = lead(scores, best_i)
        return best_i

    def _keep(self, st: View, options: tuple) -> int:
        cfg = st.cfg
        best_i, best = 0, 0
        scores = [0.0]  # option 0 at 0 points
        for i in range(1, len(options)):
            pts = cfg.card_points[options[i]]
            scores.append(float(pts))
            if pts > best:
                best_i, best = i, pts
        self.lead = lead(scores, best_i)
        return best_i


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class TileBuilderPolicy(GreedyPolicy):
    """Greedy that invests in tiles: slave-driver and negotiator tiles are worth about twice
    greedy's value and goods on a site a quarter, and it commits its hand to a tile contest the
    hand can win (full ``progress``). Against greedy players, on the same seeds and seats, it
    wins more tiles, keeps more on the board and takes fewer goods as merchant (a long-game
    strategy: goods every round, cheaper loading)."""

    good_value: float = param_default(GreedyPolicy, "good_value", 0.2)
    slave_driver_tile: float = param_default(GreedyPolicy, "slave_driver_tile", 2.5)
    negotiator_tile: float = param_default(GreedyPolicy, "negotiator_tile", 3.0)
    player_order: float = param_default(GreedyPolicy, "player_order", 0.1)
    card_cost: float = param_default(GreedyPolicy, "card_cost", 0.2)
    progress: float = param_default(GreedyPolicy, "progress", 1.0)


POLICIES: dict[str, type] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "tile-builder": TileBuilderPolicy,
}
