"""Rattus players: ``random`` and ``greedy`` (docs/rules/rattus.md §15 decision points).

A policy is a frozen dataclass of typed parameters (``analyzer.model.forward.Policy``);
``policy.player(seat)`` makes the player of one seat for one game, and
``player.choose(view, rng)`` returns one of ``view.legal_actions()``. Players decide from the
seat's ``RattusView`` only: the public board (cube counts, rat counts, cards held), the seat's own
region cards and what the Witch showed it, never a face-down token's face or another hand.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Final

from mypy_extensions import i64, mypyc_attr

from analyzer.games.rattus.cards import majority_holders
from analyzer.games.rattus.config import CARD_CLASS, CARD_INDEX, RattusConfig
from analyzer.games.rattus.plague import losses
from analyzer.games.rattus.state import NOT_IN_PLAY
from analyzer.games.rattus.view import RattusView
from analyzer.model.base import param
from analyzer.model.draws import randbelow

_PEASANT: Final = CARD_INDEX["peasant"]


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class RandomPolicy:
    """Uniform among the legal options at every decision point (uses only the seat's generator)."""

    def player(self, seat: int) -> RandomPolicy:
        """The policy itself: it keeps nothing between decisions."""
        return self

    def choose(self, view: RattusView, rng: random.Random) -> Any:
        """One option drawn uniformly from ``view.legal_actions()``."""
        options = view.legal_actions()
        return options[randbelow(rng, len(options))]


class _RegionValues:
    """Per-seat greedy values of a region, computed from (cubes per seat, rats there).

    Values depend only on those counts, the class cards held, the config's damage tables and the
    policy's weights; the class damage per seat is kept until a class card changes hands (or the
    config or the seat changes). It lives as long as its player (one seat of one game). A seat's
    value is its cubes minus its expected losses (see ``GreedyPolicy``). Nothing is cached per
    region: computing a region's value allocates nothing and costs less than looking it up.
    """

    __slots__ = ("cfg", "cls", "fr", "holder", "oth", "ow", "own", "pr", "seat")

    def __init__(self, future_rats: float, plague_risk: float, opponent_weight: float):
        self.fr, self.pr, self.ow = future_rats, plague_risk, opponent_weight
        self.oth = self.own = 0.0  # the weights of ``relative``, set by sync()
        self.cfg: RattusConfig | None = None
        self.seat = -1  # the seat whose ``relative`` values are asked for
        self.holder: list[int] = []
        self.cls: list[list[float]] = []  # [cubes present][seat]: expected class damage of one token

    def sync(self, view: RattusView) -> None:
        """Recompute the class damage if the config, the seat or the class cards held differ from
        when it was computed."""
        holder = view.holder
        if self.cfg is not view.cfg or self.seat != view.seat or self.holder != holder:
            cfg = view.cfg
            self.cfg, self.holder, self.seat = cfg, holder[:], view.seat
            self.oth = self.ow / (cfg.n_players - 1)
            self.own = 1 + self.oth
            held = [[(k, c) for k, c in enumerate(h) if c] for h in view.held_class]
            self.cls = []
            for ec in cfg.exp_c:
                out = []
                for pairs in held:
                    x = 0.0
                    for k, c in pairs:
                        x += ec[k] * c
                    out.append(x)
                self.cls.append(out)

    def class_loss(self, t: int) -> list[float]:
        """Per seat: expected class-symbol damage of one token at ``t`` cubes, given the cards held."""
        return self.cls[t]

    def relative(self, row: list[int], n_tokens: int, d: int, own: float, oth: float) -> float:
        """The one greedy valuation of a region holding ``row`` cubes (with ``d`` more of the
        seat's) and ``n_tokens`` rats: the seat's value there times ``own``, minus ``oth`` times
        the sum of every seat's value there (summed in seat order). A seat's value is its cubes
        minus its expected losses, at least none (``GreedyPolicy``). ``own = 1, oth = 0`` gives
        the seat's own value alone, exactly. The hottest function of the greedy player: native
        64-bit ints (``i64``) spare the compiled code its checks on Python ints."""
        p: i64 = self.seat
        dd: i64 = d
        n: i64 = len(row)
        tot: i64 = 0
        top: i64 = 0
        q: i64 = 0
        while q < n:
            c: i64 = row[q]
            if q == p:
                c += dd
            tot += c
            top = max(top, c)
            q += 1
        if tot == 0:
            return 0.0
        cfg = self.cfg
        assert cfg is not None  # set by sync()
        k = (n_tokens + self.fr) * self.pr
        t: i64 = min(cfg.threshold_top, tot)
        ea, em = cfg.exp_a[t], cfg.exp_m[t]
        cls = self.cls[t]
        total = mine = 0.0
        q = 0
        while q < n:
            c = row[q]
            if q == p:
                c += dd
            x = 0.0
            if c:
                loss = k * (ea + (em if c == top else 0.0) + cls[q])
                cubes = float(c)  # exact: the same comparison and difference as with the int
                if loss < cubes:
                    x = cubes - loss
            total += x
            if q == p:
                mine = x
            q += 1
        return mine * own - oth * total


class _Valuation:
    """Seat ``p``'s greedy valuation of one position that does not change while it is in use.

    The value of a region for p is p's value there times ``1 + w`` minus ``w`` times the sum over
    all seats (``w`` = opponent weight / (n - 1)). Values of the regions as they are, and of a
    region with p's cubes or its token count changed by ``d``, are computed by the player's
    ``_RegionValues`` and kept while the valuation is in use (one option's regions are most
    often another's), so an option is scored by re-valuing only the regions it touches, without
    copying, applying or undoing anything.
    """

    __slots__ = ("_alt", "_caravan", "_now", "_occ_damage", "_occ_factor", "_occ_rows", "fr", "oth", "own", "p", "pr",
                 "rats", "rv", "st")

    def __init__(self, pl: GreedyPlayer, view: RattusView):
        pol = pl.policy
        self.st, self.p = view, view.seat
        self.rats = view.rats
        rv = self.rv = pl.region_values
        rv.sync(view)
        self.oth, self.own = rv.oth, rv.own
        self.fr, self.pr = pol.future_rats, pol.plague_risk
        self._now: list[float | None] = [None] * len(self.rats)
        self._alt: dict[int, float] = {}
        self._caravan: float | None = None  # caravan bonus value of the caravan's region (Trader)
        self._occ_rows: list[list[int]] | None = None
        self._occ_factor: list[float] = []
        self._occ_damage: list[tuple[float, ...]] = []

    def class_loss(self, t: int) -> list[float]:
        """Per seat: expected class-symbol damage of one token at ``t`` cubes, given the cards held."""
        return self.rv.class_loss(t)

    def own_value(self, r: int) -> float:
        """p's own value of region ``r`` as it is (its cubes there minus its expected losses)."""
        return self.rv.relative(self.st.cubes[r], self.rats[r], 0, 1.0, 0.0)

    def now(self, r: int) -> float:
        """Value of region ``r`` as it is."""
        x = self._now[r]
        if x is None:
            x = self._now[r] = self.rv.relative(self.st.cubes[r], self.rats[r], 0, self.own, self.oth)
        return x

    def with_cubes(self, r: int, d: int) -> float:
        """Value of region ``r`` with ``d`` more cubes of p (``d`` < 0: fewer)."""
        key = r * 64 + d * 2 + 32  # |d| <= 15
        x = self._alt.get(key)
        if x is None:
            x = self._alt[key] = self.rv.relative(self.st.cubes[r], self.rats[r], d, self.own, self.oth)
        return x

    def with_tokens(self, r: int, d: int) -> float:
        """Value of region ``r`` with ``d`` more rats."""
        key = r * 64 + d * 2 + 33
        x = self._alt.get(key)
        if x is None:
            x = self._alt[key] = self.rv.relative(self.st.cubes[r], self.rats[r] + d, 0, self.own, self.oth)
        return x

    def occupied(self) -> list[list[int]]:
        """Cubes per seat of each region holding cubes; ``_occ_factor`` and ``_occ_damage`` hold,
        for the same regions, the rats factor and the mean class damage per token."""
        got = self._occ_rows
        if got is None:
            exp_c, top = self.st.cfg.exp_c, self.st.cfg.threshold_top
            fr, pr, rats = self.fr, self.pr, self.rats
            got = []
            for r, row in enumerate(self.st.cubes):
                tot = sum(row)
                if tot:
                    got.append(row)
                    self._occ_factor.append((rats[r] + fr) * pr)
                    self._occ_damage.append(exp_c[min(top, tot)])
            self._occ_rows = got
        return got


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class GreedyPolicy:
    """One-ply evaluation of every legal option with fixed, documented weights.

    The value of a position for seat p is, summed over regions, p's cubes there minus the expected
    cubes p loses to the rats (tokens present + ``future_rats``, each costing the set's mean
    A/M/class damage at the current cube count, times ``plague_risk``), minus ``opponent_weight``
    times the mean of the same value over the other seats. Each option is scored by re-valuing
    only the regions it touches (no copies). The scores behind a "step" choice are reused for the
    sub-decision that follows it. Ties are broken by the seat's generator, so play is
    deterministic given the seed.
    """

    plague_risk: float = param(1.0, low=0, high=3, help="weight of expected cubes lost to rats already on the "
                               "board (multiplier)")
    future_rats: float = param(0.5, low=0, high=3, help="extra rats assumed to reach every region before it is "
                               "resolved (tokens)")
    opponent_weight: float = param(1.0, low=0, high=2, help="weight of the opponents' mean value against one's own "
                                   "(multiplier)")
    card_value: float = param(0.6, low=0, high=5, help="value of holding a class card beyond its risk, per card "
                              "(points)")
    take_threshold: float = param(0.2, low=-5, high=5, help="minimum net value to take a card (points)")
    diplomat_value: float = param(1.5, low=0, high=5, help="value of a diplomat disc placed (points)")
    region_card_keep: float = param(0.4, low=0, high=3, help="value of keeping a region card that does not score "
                                    "now (points)")
    caravan_opponent_weight: float = param(0.7, low=0, high=2, help="cost per bonus cube given to an opponent by a "
                                           "caravan move (cubes)")

    def player(self, seat: int) -> GreedyPlayer:
        """A fresh greedy player for ``seat`` of one game."""
        return GreedyPlayer(self, seat)


class GreedyPlayer:
    """The greedy player of one seat in one game (``GreedyPolicy`` has the rules it follows).

    Keeps two things between decisions: the region-value table (``_RegionValues``) and the scores
    a "step" decision computed for the sub-decision it chose, reused if that sub-decision is the
    very next decision of the game on the same view.
    """

    __slots__ = (
        "caravan_opponent_weight",
        "card_value",
        "diplomat_value",
        "lead",
        "memo",
        "opponent_weight",
        "pick_among",
        "policy",
        "region_card_keep",
        "region_values",
        "seat",
        "take_threshold",
    )

    def __init__(self, policy: GreedyPolicy, seat: int):
        self.policy = policy
        self.seat = seat
        # the weights the evaluation reads, as native floats (a policy's attributes are read
        # generically: its class may be subclassed by interpreted code)
        self.card_value = policy.card_value
        self.take_threshold = policy.take_threshold
        self.diplomat_value = policy.diplomat_value
        self.opponent_weight = policy.opponent_weight
        self.caravan_opponent_weight = policy.caravan_opponent_weight
        self.region_card_keep = policy.region_card_keep
        self.region_values = _RegionValues(policy.future_rats, policy.plague_risk, policy.opponent_weight)
        # (view, serial of the step decision, step chosen, its options, their scores)
        self.memo: tuple | None = None
        # what the last answer was picked among (``forward.Player``): the single best, or the
        # tied best drawn among by one draw; set by ``_pick`` (scores each depend on their own
        # option only; the memo is a cache only), () after any other answer
        self.pick_among: tuple = ()
        # how clearly the last answer was chosen (``forward.Player``): the best score minus the
        # best other option's, in points (0 for a tie); inf after any other answer
        self.lead = math.inf

    def _pick(self, options: tuple, scores: list[float], rng: random.Random) -> Any:
        """The option with the highest score; among those within 1e-9 of it, one drawn by ``rng``
        (no draw when there is a single best); ``pick_among`` gets the best, or the tied best;
        ``lead`` the best score minus the best other (0 for tied best, inf for one option)."""
        top = max(scores)
        cut = top - 1e-9
        first, ties = -1, 0
        second = -math.inf
        for i in range(len(scores)):
            x = scores[i]
            if x >= cut:
                if not ties:
                    first = i
                ties += 1
            elif x > second:
                second = x
        if ties == 1:
            self.lead = top - second
            self.pick_among = (options[first],)
            return options[first]
        self.lead = 0.0
        idx = [i for i in range(len(scores)) if scores[i] >= cut]
        self.pick_among = tuple([options[i] for i in idx])
        return options[idx[randbelow(rng, len(idx))]]

    def keeps_pick(self, view: RattusView, added: tuple) -> bool:
        """``forward.Player.keeps_pick``: after ``choose`` at a decision on ``view``, whether the
        answer would be the same, with the same draw, had the regions ``added`` been offered too.

        At an opening decision (§6.1: the seat's first region, which the rule option
        ``opening_pairs_distinct_regions`` false adds at its second pair): true when each added
        region scores strictly below the cut ``_pick`` used (the best offered score - 1e-9), so
        the best, or the tied best in the same order, and the draw among them are unchanged.
        Scores each depend on their own region only; nothing is drawn or kept. Any other
        decision: false (not scored here).
        """
        if view.decision_kind() != "opening" or not added:
            return False
        cut = max(self._opening_scores(view, view.legal_actions())) - 1e-9
        return max(self._opening_scores(view, added)) < cut

    def _opening_scores(self, view: RattusView, regions: tuple) -> list[float]:
        """Per region: the value of an opening pair there (2 cubes) less 0.3 per cube already
        there (§6.1); each score depends on its own region only."""
        v = _Valuation(self, view)
        values = self._place_values(v, regions, [2] * len(regions))
        cubes = view.cubes
        return [x - 0.3 * sum(cubes[r]) for x, r in zip(values, regions)]

    # ------------------------------------------------------------ option values (on a _Valuation)

    def _place_values(self, v: _Valuation, regions: tuple[int, ...], ks: list[int]) -> list[float]:
        """Value of putting ``ks[i]`` cubes (capped by the supply) into ``regions[i]``, for each i."""
        supply = v.st.supply_cubes[v.p]
        cubes, rats, rv = v.st.cubes, v.rats, v.rv
        out = []
        for i in range(len(regions)):
            r = regions[i]
            k = min(ks[i], supply)
            if k <= 0:
                out.append(-0.01)
                continue
            # not v.with_cubes: each region and count is valued once here, nothing to keep
            out.append(rv.relative(cubes[r], rats[r], k, v.own, v.oth) - v.now(r))
        return out

    def _place_value(self, v: _Valuation, r: int, k: int) -> float:
        return self._place_values(v, (r,), [k])[0]

    def _take_values(self, v: _Valuation, cards: tuple[int, ...]) -> list[float]:
        """Per card: its value minus the extra expected losses of holding it, plus the relief of its
        previous holder weighted as an opponent (uncapped linear estimate, O(regions)); cards of
        one class held by one seat (or untaken) share it."""
        st, p, w = v.st, v.p, v.oth
        holder = st.holder
        card_value = self.card_value
        rows = v.occupied()
        factor, damage = v._occ_factor, v._occ_damage
        out = []
        done: dict[int, float] = {}  # by class and previous holder
        for card in cards:
            cls = CARD_CLASS[card]
            prev = holder[card]
            key = cls * 64 + prev + 2  # prev >= -2
            got = done.get(key)
            if got is not None:
                out.append(got)
                continue
            risk = 0.0
            if prev < 0:  # an untaken card: only p's own regions count
                for i in range(len(rows)):
                    if rows[i][p]:
                        risk += factor[i] * damage[i][cls]
            else:
                for i in range(len(rows)):
                    row = rows[i]
                    mine = row[p]
                    other = row[prev]
                    if mine or other:
                        # floats only (1.0, 0.0), the same values as ints here, no boxed arithmetic
                        risk += factor[i] * damage[i][cls] * ((1.0 if mine else 0.0) - (w if other else 0.0))
            value = done[key] = card_value - risk
            out.append(value)
        return out

    def _merchant_value(self, v: _Valuation, opt: tuple[int, int, int, bool]) -> float:
        src, dst, k, _ = opt  # the disc does not change the value
        return (v.with_cubes(src, -k) + v.with_cubes(dst, k)) - (v.now(src) + v.now(dst)) - 0.05

    def _monk_value(self, v: _Valuation, opt: tuple[int, int, int]) -> float:
        src, _, dst = opt  # which of the face-down tokens moves is unknown to the player
        return (v.with_tokens(src, -1) + v.with_tokens(dst, 1)) - (v.now(src) + v.now(dst)) - 0.05

    def _king_value(self, v: _Valuation, r: int) -> float:
        return v.with_cubes(r, -1) - v.now(r) + 1.0

    def _sultan_value(self, v: _Valuation, r: int) -> float:
        c = v.st.cubes[r][v.p]
        return self.diplomat_value * (v.own_value(r) / c if c else 0.0)

    def _trader_value(self, v: _Valuation, opt: tuple[int, int]) -> float:
        mid, _ = opt
        start = v._caravan  # the start region's part is the same for every path: kept
        if start is None:
            start = v._caravan = self._bonus_value(v, v.st.caravan, 0.0)
        return self._bonus_value(v, mid, start)

    def _bonus_value(self, v: _Valuation, r: int, val: float) -> float:
        """``val`` plus the caravan bonus cubes offered in region ``r``: +1 for p's, minus
        ``caravan_opponent_weight`` for each opponent's (majority holders with a cube in supply)."""
        p, supply, w = v.p, v.st.supply_cubes, self.caravan_opponent_weight
        for q in majority_holders(v.st.cubes[r], p):
            if supply[q] > 0:
                val += 1.0 if q == p else -w
        return val

    def _card_score_value(self, view: RattusView, cid: int) -> float:
        p = self.seat
        row = view.cubes[view.cfg.rcard_region[cid]]
        mine = row[p]
        other = max(c for q, c in enumerate(row) if q != p)
        return 1.0 * (mine - other) if mine else -1.0

    def _plague_value(self, v: _Valuation, d: int) -> float:
        st = v.st
        cfg = st.cfg
        k = v.rats[d]
        row = st.cubes[d]
        tot = top = 0
        for c in row:
            tot += c
            top = max(top, c)
        if not k or not tot:
            return 0.0
        t = min(cfg.threshold_top, tot)
        ea, em, cls = cfg.exp_a[t], cfg.exp_m[t], v.class_loss(t)
        dmg: list[float] = []
        for q in range(len(row)):
            c = row[q]
            if not c:
                dmg.append(0.0)
                continue
            x = k * (ea + (em if c == top else 0.0) + cls[q])
            dmg.append(x if x < c else float(c))  # min(c, x) as a float: the same value
        return self.opponent_weight * (sum(dmg) - dmg[v.p]) / (cfg.n_players - 1) - dmg[v.p]

    def _scores(self, v: _Valuation, kind: str, options: tuple) -> list[float]:
        """Values of the options of one ability (or of the final-round Peasant)."""
        if kind == "merchant":
            return [self._merchant_value(v, o) for o in options]
        if kind == "monk":
            return [self._monk_value(v, o) for o in options]
        if kind == "king":
            return [self._king_value(v, o) for o in options]
        if kind == "trader":
            return [self._trader_value(v, o) for o in options]
        if kind == "peasant":
            return [self._place_value(v, o, 1) for o in options]
        if kind == "sultan":
            return [self._sultan_value(v, o) for o in options]
        if kind == "knight":  # final round (rule option): where a plague would hurt the others most
            return [self._plague_value(v, o) for o in options]
        return [0.0] * len(options)

    # ------------------------------------------------------------ the decision

    def _step(self, view: RattusView, options: tuple, rng: random.Random) -> str:
        """Next step of a turn: the best value each step can reach (0 for ending the turn).

        The scores of the chosen step's own options are kept for the sub-decision that follows."""
        p = self.seat
        abil: dict[int, tuple] = view.context()
        v = _Valuation(self, view)
        scores = []
        subs: dict[str, tuple[tuple, list[float]]] = {}
        for step in options:
            o: str = step
            if o == "plague" or o == "done":
                s = 0.0
            elif o == "take":
                holder = view.holder
                cards = tuple([c for c in range(len(holder)) if holder[c] != NOT_IN_PLAY and holder[c] != p])
                sub = self._take_values(v, cards)
                subs[o] = (cards, sub)
                s = max(sub) - self.take_threshold
            elif o == "place":
                regions = tuple(range(view.cfg.n_regions))
                extra = 1 if view.holder[_PEASANT] == p else 0
                sub = self._place_values(v, regions, [n + extra for n in v.rats])
                subs[o] = (regions, sub)
                s = max(sub)
            elif o == "astronomer" or o == "explorer":
                s = 0.5
            elif o == "witch":
                s = 0.1 if any(view.cubes[r][p] for r, _ in abil[CARD_INDEX[o]]) else -1.0
            else:
                opts = abil[CARD_INDEX[o]]
                sub = self._scores(v, o, opts)
                subs[o] = (opts, sub)
                s = max(sub)
            scores.append(s)
        choice = self._pick(options, scores, rng)
        if choice in subs:
            self.memo = (view, view.serial, choice, *subs[choice])
        return choice

    def choose(self, view: RattusView, rng: random.Random) -> Any:
        """The option with the highest one-ply value (ties broken by ``rng``)."""
        kind = view.decision_kind()
        options = view.legal_actions()
        self.pick_among = ()  # declared by ``_pick`` only
        self.lead = math.inf  # likewise
        memo = self.memo
        if memo is not None:
            self.memo = None
            if (memo[0] is view and memo[1] + 1 == view.serial and memo[2] == kind
                    and (memo[3] is options or memo[3] == options)):
                return self._pick(options, memo[4], rng)
        p = self.seat
        if kind in ("step", "final_step"):
            return self._step(view, options, rng)
        if kind == "take":
            return self._pick(options, self._take_values(_Valuation(self, view), options), rng)
        if kind == "place":
            v = _Valuation(self, view)
            extra = 1 if view.holder[_PEASANT] == p else 0
            return self._pick(options, self._place_values(v, options, [v.rats[r] + extra for r in options]), rng)
        if kind == "opening":
            return self._pick(options, self._opening_scores(view, options), rng)
        if kind == "plague_move":
            v = _Valuation(self, view)
            return self._pick(options, [self._plague_value(v, d) for d in options], rng)
        if kind == "spread":
            cubes = view.cubes
            return self._pick(options, [float(sum(cubes[x]) - 2 * cubes[x][p]) for x in options], rng)
        if kind in ("merchant", "monk", "king", "trader", "peasant", "sultan", "knight"):
            return self._pick(options, self._scores(_Valuation(self, view), kind, options), rng)
        if kind == "caravan_bonus":
            return True
        if kind == "witch_first":
            cubes = view.cubes
            return self._pick(options, [float(cubes[r][p]) for r, _ in options], rng)
        if kind == "witch_second":
            cubes = view.cubes
            return self._pick(options, [float(sum(cubes[r]) - 2 * cubes[r][p]) for r, _ in options], rng)
        if kind == "witch_swap":
            return self._witch_swap(view)
        if kind == "explorer":
            v = _Valuation(self, view)
            return self._pick(options, [self._place_value(v, view.cfg.rcard_region[c], 1) for c in options], rng)
        if kind == "astronomer":
            return self._pick(options, [self._card_score_value(view, c) for c in options], rng)
        if kind == "region_card":
            return self._region_card(view, options)
        return options[0]  # final_order and anything without a preference

    def _witch_swap(self, view: RattusView) -> bool:
        """Swap when the two faces shown hurt this seat less (relative to the others) the other way round."""
        (r1, _), (r2, _), a, b = view.context()
        cfg = view.cfg
        p = self.seat
        w = self.opponent_weight

        def hurt(r: int, tid: int) -> float:
            row = view.cubes[r]
            if sum(row) < cfg.tokens[tid][0]:
                return 0.0
            lost = losses(row, view.held_class, cfg.tokens[tid], [0] * len(row), cfg.same_class_cards_stack,
                          cfg.reads)
            return lost[p] - w * (sum(lost) - lost[p]) / (len(row) - 1)

        keep = hurt(r1, a) + hurt(r2, b)
        swap = hurt(r1, b) + hurt(r2, a)
        return swap < keep

    def _region_card(self, view: RattusView, options: tuple) -> Any:
        """Play the card saving the most cubes now, net of what keeping it would score."""
        r, tid = view.context()
        cfg = view.cfg
        p = self.seat
        token = cfg.tokens[tid]
        best, best_v = None, 0.0
        for o in options:
            if o is None:
                continue
            cid, k = o
            saved = min(token[3].count(k) * view.held_class[p][k], view.cubes[r][p])
            keep = cfg.region_card_points if self._card_score_value(view, cid) >= 0 else self.region_card_keep
            v = saved - keep
            if v > best_v:
                best, best_v = o, v
        return best


POLICIES: dict[str, type] = {"random": RandomPolicy, "greedy": GreedyPolicy}
