"""Rattus Cartus heuristic players: ``random``, ``greedy``, ``cautious`` (docs/rules/cartus.md §11).

A policy is a frozen set of parameters; ``policy.player(seat)`` makes the player of one seat of
one game, and ``player.choose(view, rng)`` answers the decision pending in ``view`` (a
``view.CartusView``: only what the seat may see) with the seat's own generator. ``choose``
hands each decision kind to one method:

=================  =========================================================  =========================
method             decision (rules §11 #)                                      returns
=================  =========================================================  =========================
``supply``         whose supply icons to use (1)                              row position
``look``           which Nun-row card to look at (2, 11)                      position 0..4
``enter``          which open building to enter (3, 5)                        one of ``view.options``
``cards``          which cards to put face down (4)                           count tuple (no Pass)
``use_pass``       play a Pass for a second building (5)                      bool
``target``         Sword / Flute target (6, 8)                                one of ``view.options``
``give``           which cards to hand over, Sword / Guard Tower (7, 9)       count tuple, sum == k
``hospital``       which hand cards to trade for rats (10)                    count tuple, sum <= cap
=================  =========================================================  =========================

Count tuples have one entry per card type (``config.py``: the six classes, then joker, Sword,
Flute, Pass).
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

from analyzer.games.cartus.config import FLUTE, JOKER, N_TYPES, PASS, SWORD, CartusConfig
from analyzer.games.cartus.scoring import above_equal, rank_table
from analyzer.games.cartus.state import CARDS, ENTER, GIVE, HOSPITAL, LOOK, SUPPLY, TARGET, USE_PASS
from analyzer.games.cartus.view import CartusView
from analyzer.model.base import param, param_default
from analyzer.model.play import lead


def _random_subset(rng: random.Random, hand: list[int], k: int) -> tuple[int, ...]:
    pool = [t for t, c in enumerate(hand) for _ in range(c)]
    out = [0] * N_TYPES
    for t in rng.sample(pool, k):
        out[t] += 1
    return tuple(out)


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
class Player:
    """The player of one seat of one game: ``choose`` hands each decision to its method."""

    def choose(self, view: CartusView, rng: random.Random) -> object:
        """An answer to ``view``'s pending decision (one of ``view.legal_actions()``)."""
        kind = view.kind
        if kind == CARDS:
            return self.cards(view, rng)
        if kind == ENTER:
            return self.enter(view, rng)
        if kind == SUPPLY:
            return self.supply(view, rng)
        if kind == USE_PASS:
            return self.use_pass(view, rng)
        if kind == LOOK:
            return self.look(view, rng)
        if kind == TARGET:
            return self.target(view, rng)
        if kind == GIVE:
            return self.give(view, rng)
        if kind == HOSPITAL:
            return self.hospital(view, rng)
        raise ValueError(f"seat {view.seat} has no decision to answer")

    def supply(self, view: CartusView, rng: random.Random) -> int:
        raise NotImplementedError

    def look(self, view: CartusView, rng: random.Random) -> int:
        raise NotImplementedError

    def enter(self, view: CartusView, rng: random.Random) -> int:
        raise NotImplementedError

    def cards(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        raise NotImplementedError

    def use_pass(self, view: CartusView, rng: random.Random) -> bool:
        raise NotImplementedError

    def target(self, view: CartusView, rng: random.Random) -> int:
        raise NotImplementedError

    def give(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        raise NotImplementedError

    def hospital(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        raise NotImplementedError


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class Random(Player):
    """Uniformly random legal choices; each hand card is played with ``play_prob``.

    Keeps no state, so one object plays every seat.
    """

    play_prob: float = param(0.5, low=0, high=1, help="chance each playable hand card is played (probability)")
    pass_prob: float = param(0.5, low=0, high=1, help="chance a held Pass is used (probability)")

    def player(self, seat: int) -> Random:
        return self

    def _pick(self, view: CartusView, rng: random.Random) -> int:
        opts = view.options
        return opts[rng.randrange(len(opts))]

    def supply(self, view: CartusView, rng: random.Random) -> int:
        return self._pick(view, rng)

    def look(self, view: CartusView, rng: random.Random) -> int:
        return self._pick(view, rng)

    def enter(self, view: CartusView, rng: random.Random) -> int:
        return self._pick(view, rng)

    def cards(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        p = self.play_prob
        out = [0] * N_TYPES
        hand = view.hand
        for t in range(PASS):
            for _ in range(hand[t]):
                if rng.random() < p:
                    out[t] += 1
        return tuple(out)

    def use_pass(self, view: CartusView, rng: random.Random) -> bool:
        return rng.random() < self.pass_prob

    def target(self, view: CartusView, rng: random.Random) -> int:
        return self._pick(view, rng)

    def give(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        return _random_subset(rng, view.hand, view.give_count)

    def hospital(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        return _random_subset(rng, view.hand, rng.randint(0, view.hospital_cap))


# what ``_make_plan`` returns for a plan below its floor
_REJECTED: Final = (-math.inf, 0, 0, 0, 0)

# action kinds whose value does not depend on the position (GreedyPlayer._tables)
_CONSTANT_ACTIONS: Final = frozenset({"vp_tokens", "gold", "pass", "joker", "sword", "flute", "draw"})


class _Tables:
    """A greedy player's look-ahead tables for its game's config (``GreedyPlayer._tables``).

    ``track[above][equal]`` = a seat's majority points with ``above`` seats ahead of it and
    ``equal`` tied with it (rules §7.2, ``scoring.rank_table``); ``acts[b]`` = building
    ``b``'s class, whether its value is flat in the cards played, and for actions whose value
    does not depend on the position the mixed values ``(need, half, none, max)`` of
    ``_make_plan`` with ``premium_chance`` / all of the premium chance (index 0: more players
    still to enter, 1: nobody else to come). ``track_rows`` caches ``_track_row`` by the other seats'
    influence on a track (values of one game, so as small as a game's range of them).
    """

    def __init__(self, cfg: CartusConfig, track: tuple[tuple[float, ...], ...],
                 acts: tuple[tuple[int, bool, tuple[tuple[float, float, float, float], ...] | None], ...]) -> None:
        self.cfg = cfg
        self.track = track
        self.acts = acts
        self.track_rows: dict[tuple[int, ...], tuple[list[float], float]] = {}


class _Context:
    """What every row's plan shares in one position (``GreedyPlayer._position``): the tables,
    the off-class costs ``off_cost[x]`` and their running maxima, ``last`` (1: nobody else is
    still to enter), the Flutes worth playing, the population cards held, the off-class cap,
    the per-card values (influence, card, joker, ``weapon_share`` x Sword and x Flute) and
    ``seen_nuns``."""

    def __init__(self, tables: _Tables, off_cost: list[float], off_max: list[float], last: int, flutes: int,
                 n_pop: int, max_off: int, iv: float, cv: float, jv: float, sv: float, fv: float,
                 seen: tuple[int, int]) -> None:
        self.tables = tables
        self.off_cost = off_cost
        self.off_max = off_max
        self.last = last
        self.flutes = flutes
        self.n_pop = n_pop
        self.max_off = max_off
        self.iv = iv
        self.cv = cv
        self.jv = jv
        self.sv = sv
        self.fv = fv
        self.seen = seen


def _mixed(p_need: float, p_tie: float, prem: float, std: float) -> tuple[float, float, float, float]:
    """Expected action value when the premium chance is ``p_need`` (enough cards), ``p_tie``
    (tied) or 0 (too few), as ``p * prem + (1 - p) * std``; and the largest of the three."""
    out = (p_need * prem + (1 - p_need) * std, p_tie * prem + (1 - p_tie) * std, 0.0 * prem + (1 - 0.0) * std)
    return (*out, max(out))


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class Greedy:
    """One-step value maximiser: influence majorities, premium actions, risk of dying.

    Values are in expected VP. A rat's cost is the rise in P(death) (exact nun-sum
    distribution given the looked-at cards) times ``life_value``. Supply: the row card whose
    icons are worth most (cards, rat relief, looks); look: the first Nun-row card not yet
    seen; enter and cards: the building and cards with the best one-step value (track
    points, the expected premium or standard action, rats); Pass: when another building is
    worth more than the Pass; Sword: the largest hand, Flute: the most rats (largest hand
    when rats are hidden); give: from the class held most; Hospital: the number of cards that
    relieves most risk beyond their value.
    """

    life_value: float = param(40.0, low=0, high=400, help="VP at stake when dying (VP)")
    rat_buffer: int = param(1, low=0, high=20, help="rats assumed still to come when judging risk (rats)")
    track_weight: float = param(1.0, low=0, high=5, help="weight of the track-points gain (multiplier)")
    influence_value: float = param(0.6, low=0, high=5, help="value per influence point beyond the track gain (VP)")
    card_value: float = param(0.8, low=0, high=10, help="value of a population card kept in hand (VP)")
    joker_value: float = param(1.2, low=0, high=10, help="value of a joker in hand (VP)")
    sword_value: float = param(1.0, low=0, high=10, help="value of a Sword in hand (VP)")
    flute_value: float = param(1.0, low=0, high=10, help="value of a Flute in hand (VP)")
    pass_value: float = param(1.0, low=0, high=10, help="value of a Pass in hand (VP)")
    gold_value: float = param(2.0, low=0, high=20, help="value of a Gold card (VP)")
    look_value: float = param(0.8, low=0, high=10, help="value of looking at an unseen Nun-row card (VP)")
    protect_value: float = param(1.5, low=0, high=10, help="value of Guard Tower protection (VP)")
    max_offclass: int = param(6, low=0, high=30, help="most off-class cards played into one building (cards)")
    rat_value: float = param(0.2, low=0, high=5, help="value per rat discarded beyond the fall in the risk of "
                             "dying (VP)")
    offclass_cost: float = param(0.1, low=0, high=5, help="cost per off-class card played beyond its card value "
                                 "and influence (VP)")
    premium_chance: float = param(0.75, low=0, high=1, help="chance credited to the premium with the most cards "
                                  "while others may still enter (probability)")
    tie_premium_chance: float = param(0.5, low=0, high=1, help="chance credited to the premium when tied for the "
                                      "most cards (probability)")
    weapon_share: float = param(0.3, low=0, high=1, help="share of a Sword's or Flute's hand value gained by "
                                "playing it into a building with others (share)")
    taken_card_share: float = param(0.5, low=0, high=2, help="share of a card's value gained per card the Guard "
                                    "Tower premium takes (share)")
    traded_card_share: float = param(0.5, low=0, high=2, help="share of a card's value lost per hand card traded "
                                     "for rats at the Hospital (share)")

    def player(self, seat: int) -> GreedyPlayer:
        """A fresh player for ``seat`` of one game, with its own tables and caches."""
        return GreedyPlayer(self, seat)


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
@dataclass(frozen=True)
class Cautious(Greedy):
    """Greedy that fears the plague: no off-class cards, a wide rat buffer, a high life value."""

    life_value: float = param_default(Greedy, "life_value", 80.0)
    rat_buffer: int = param_default(Greedy, "rat_buffer", 3)
    max_offclass: int = param_default(Greedy, "max_offclass", 0)


@mypyc_attr(allow_interpreted_subclasses=True)  # user policies may subclass
class GreedyPlayer(Player):
    """The player of one seat of one game for a ``Greedy`` policy (see there): the policy's
    parameters, and what this player has worked out so far (tables, caches, the plans of the
    position it is deciding in)."""

    def __init__(self, policy: Greedy, seat: int) -> None:
        self.seat = seat
        self.life_value = policy.life_value
        self.rat_buffer = policy.rat_buffer
        self.track_weight = policy.track_weight
        self.influence_value = policy.influence_value
        self.card_value = policy.card_value
        self.joker_value = policy.joker_value
        self.sword_value = policy.sword_value
        self.flute_value = policy.flute_value
        self.pass_value = policy.pass_value
        self.gold_value = policy.gold_value
        self.look_value = policy.look_value
        self.protect_value = policy.protect_value
        self.max_offclass = policy.max_offclass
        self.rat_value = policy.rat_value
        self.offclass_cost = policy.offclass_cost
        self.premium_chance = policy.premium_chance
        self.tie_premium_chance = policy.tie_premium_chance
        self.weapon_share = policy.weapon_share
        self.taken_card_share = policy.taken_card_share
        self.traded_card_share = policy.traded_card_share
        self.tables: _Tables | None = None
        # the plans of the last phase-C position asked about: enter, cards and use_pass ask
        # about one position back to back
        self.plans_key: tuple[int, ...] = ()
        self.plans: dict[int, tuple[float, int, int, int, int]] = {}
        self.context: _Context | None = None
        # the gap of each plan in ``plans`` (its value minus the best other count of off-class
        # cards and jokers for that row), for ``lead``
        self.plan_gaps: dict[int, float] = {}
        # how clearly the last answer was chosen (``forward.Player``): its value minus the best
        # other option's (VP); inf for one option or an answer not chosen by comparing values.
        # ``enter`` prunes the rows that cannot win, so it knows its lead only when the caller
        # sets ``want_lead`` first (each row then valued in full; the choice is the same);
        # otherwise its lead is nan (unknown)
        self.lead = math.inf
        self.want_lead = False

    # -- value helpers
    def _relief(self, view: CartusView, x: int, seen: tuple[int, int] | None = None) -> float:
        """Value of discarding up to ``x`` rats: the fall in the risk of dying (``life_value``
        x P(death) with ``rat_buffer`` more rats) plus ``rat_value`` per rat. ``seen``:
        ``view.seen_nuns()`` when the caller has it already."""
        r = view.rats(self.seat)
        m = min(x, r)
        known, unknown = seen or view.seen_nuns()
        cdf = view.cfg.nun_cdf[unknown]
        life, buf = self.life_value, self.rat_buffer
        y = max(0, r) + buf - known - 1
        before = life * (0.0 if y < 0 else cdf[y] if y < len(cdf) else 1.0)
        y = max(0, r - m) + buf - known - 1
        after = life * (0.0 if y < 0 else cdf[y] if y < len(cdf) else 1.0)
        return before - after + self.rat_value * m

    def _constant_action(self, cfg: CartusConfig, kind: str, amt: int) -> float:
        """Value of an action that does not depend on the position (``_CONSTANT_ACTIONS``)."""
        if kind == "vp_tokens":
            return amt * cfg.vp_token_value
        if kind == "gold":
            return amt * self.gold_value
        if kind == "pass":
            return amt * self.pass_value
        if kind == "joker":
            return amt * self.joker_value
        if kind == "sword":
            return amt * self.sword_value
        if kind == "flute":
            return amt * self.flute_value
        return amt * self.card_value  # draw

    def _action(self, view: CartusView, b: int, premium: bool, extra_inf: int,
                seen: tuple[int, int] | None = None) -> float:
        """Value of building ``b``'s premium or standard action with ``extra_inf`` cards played
        (rules §5); ``seen``: ``view.seen_nuns()`` when the caller has it."""
        cfg = view.cfg
        kind = cfg.building_action[b]
        amt = cfg.premium[b] if premium else cfg.standard[b]
        if kind in _CONSTANT_ACTIONS:
            return self._constant_action(cfg, kind, amt)
        if kind == "discard_rats":
            return self._relief(view, amt, seen)
        if kind == "hospital":
            return self._relief(view, amt[0] + amt[1], seen) - amt[1] * self.card_value * self.traded_card_share
        if kind == "brewery":
            return (view.round_influence[self.seat] + extra_inf) // amt * self.card_value
        if kind == "look":
            unseen = view.nun_row_size - view.seen(self.seat).bit_count()
            return min(amt, unseen) * self.look_value
        if kind == "guard_tower":
            if not premium:
                return self.protect_value
            seat = self.seat
            mine = view.hand_size(seat) - extra_inf
            prot = view.protected
            got = 0
            for s in range(view.n_players):
                if s != seat and not (prot >> s) & 1:
                    h = view.hand_size(s)
                    if h >= mine:
                        got += min(amt, h)
            return self.taken_card_share * got * self.card_value + self.protect_value
        return 0.0

    def _grown(self, view: CartusView, b: int, g0: int, n_g: int, p_need: float, need: int,
               half: int) -> list[float]:
        """Expected value of a Brewery or Guard Tower action (``_action``) for ``g0 + i`` cards
        played, ``i < n_g``: premium with ``p_need`` from index ``need`` on, ``tie_premium_chance``
        at ``half``."""
        cfg = view.cfg
        seat = self.seat
        pa, sa = cfg.premium[b], cfg.standard[b]
        cv = self.card_value
        tie = self.tie_premium_chance
        out = []
        if cfg.building_action[b] == "brewery":  # draw (influence this round) // amount cards
            ri = view.round_influence[seat]
            for i in range(n_g):
                p = p_need if i >= need else tie if i == half else 0.0
                g = ri + g0 + i
                out.append(p * (g // pa * cv) + (1 - p) * (g // sa * cv))
            return out
        # Guard Tower: premium takes up to ``pa`` cards from each unprotected player holding at
        # least as many cards as the holder after playing; both actions protect
        prot = view.protected
        others = [view.hand_size(s) for s in range(view.n_players) if s != seat and not (prot >> s) & 1]
        own, pv, take = view.hand_size(seat), self.protect_value, self.taken_card_share
        for i in range(n_g):
            p = p_need if i >= need else tie if i == half else 0.0
            mine = own - g0 - i
            got = sum(min(h, pa) for h in others if h >= mine)
            out.append(p * (take * got * cv + pv) + (1 - p) * pv)
        return out

    def _tables(self, cfg: CartusConfig) -> _Tables:
        """The look-ahead tables (``_Tables``) of ``cfg``, built on this player's first decision."""
        got = self.tables
        if got is not None and got.cfg is cfg:
            return got
        track = tuple(tuple(map(float, row)) for row in rank_table(cfg.track_points, cfg.track_tie, cfg.n_players))
        acts = []
        for b, kind in enumerate(cfg.building_action):
            mixed = None
            if kind in _CONSTANT_ACTIONS:
                prem = self._constant_action(cfg, kind, cfg.premium[b])
                std = self._constant_action(cfg, kind, cfg.standard[b])
                tie = self.tie_premium_chance
                mixed = (_mixed(self.premium_chance, tie, prem, std), _mixed(1.0, tie, prem, std))
            acts.append((cfg.building_class[b], kind not in ("brewery", "guard_tower"), mixed))
        tables = _Tables(cfg, track, tuple(acts))
        self.tables = tables
        return tables

    def _track_row(self, tables: _Tables, others: tuple[int, ...]) -> tuple[list[float], float]:
        """``track_weight`` x a seat's points on one track (rules §7.2) for each own influence
        0, 1, …, max(others) + 1, given the other seats' influence ``others`` (sorted); any
        larger influence scores as the last entry. With the row's largest entry, for
        ``_make_plan``'s bound. Cached per ``others``."""
        got = tables.track_rows.get(others)
        if got is not None:
            return got
        track, tw = tables.track, self.track_weight
        row = [0.0]  # 0 influence scores nothing
        for val in range(1, (others[-1] if others else 0) + 2):
            above, equal = above_equal(others, val)
            row.append(tw * track[above][equal])
        got = tables.track_rows[others] = (row, max(row))
        return got

    def _position(self, view: CartusView) -> tuple[dict[int, tuple[float, int, int, int, int]], _Context]:
        """``(plans, context)`` of the current phase-C position: ``plans`` fills per row;
        ``context`` holds what every row shares (``_make_plan``). Kept while the game, round,
        hand and entries stay the same (``enter``, ``cards`` and ``use_pass`` ask back to back)."""
        seat = self.seat
        hand = view.hand
        n_rows = len(view.row)
        key = (view.game_id, view.round, *hand, *[len(view.sizes(r)) for r in range(n_rows)])
        ctx = self.context
        if ctx is not None and key == self.plans_key:
            return self.plans, ctx
        cfg = view.cfg
        tables = self._tables(cfg)
        # the risk of x more rats (rules §7.1), as the cost of x off-class cards beyond their
        # card value and influence: off_cost[x] = (iv - cv - offclass_cost) x - (risk(x) - risk(0))
        seen = known, unknown = view.seen_nuns()
        rats0 = view.rats(seat)
        y0 = rats0 + self.rat_buffer - known - 1
        n_pop = hand[0] + hand[1] + hand[2] + hand[3] + hand[4] + hand[5]
        top = min(n_pop, self.max_offclass)
        iv, cv = self.influence_value, self.card_value
        cdf, life = cfg.nun_cdf[unknown], self.life_value
        nrt = len(cdf)
        r0 = 0.0 if y0 < 0 else life * cdf[y0] if y0 < nrt else life
        step = iv - cv - self.offclass_cost
        off_cost = [0.0]
        for x in range(1, top + 1):
            y = y0 + x
            off_cost.append(step * x - ((0.0 if y < 0 else life * cdf[y] if y < nrt else life) - r0))
        off_max = [0.0]  # off_max[x] = max(off_cost[:x + 1]), for _make_plan's bound
        for v in off_cost[1:]:
            off_max.append(max(off_max[-1], v))
        entered = sum(len(view.sizes(r)) for r in range(n_rows))
        fr = cfg.flute_rats
        flutes = min(hand[FLUTE], (rats0 + fr - 1) // fr) if rats0 > 0 else 0
        ctx = _Context(tables, off_cost, off_max, 0 if entered < view.n_players - 1 else 1, flutes, n_pop,
                       self.max_offclass, iv, cv, self.joker_value, self.weapon_share * self.sword_value,
                       self.weapon_share * self.flute_value, seen)
        plans: dict[int, tuple[float, int, int, int, int]] = {}
        self.plans_key, self.plans, self.context = key, plans, ctx
        self.plan_gaps = {}
        return plans, ctx

    def _plan(self, view: CartusView, r: int) -> tuple[float, int, int, int, int]:
        """Best plan for entering row ``r`` with the current hand (one step ahead):
        ``(value, off-class cards, jokers, Swords, Flutes)``; ``_counts`` turns it into cards."""
        plans, ctx = self._position(view)
        got = plans.get(r)
        if got is None:
            got = plans[r] = self._make_plan(view, r, ctx)
        return got

    @staticmethod
    def _counts(hand: list[int], k: int, plan: tuple[float, int, int, int, int]) -> tuple[int, ...]:
        """The cards of ``plan`` for a class-``k`` building: every class-``k`` card, the plan's
        jokers, Swords and Flutes, and its off-class cards, most plentiful class first (ties:
        lower class first)."""
        _, off, jokers, swords, flutes = plan
        c = [0] * N_TYPES
        c[k] = hand[k]
        c[JOKER], c[SWORD], c[FLUTE] = jokers, swords, flutes
        if off:
            for t in sorted((t for t in range(JOKER) if t != k and hand[t]), key=lambda t: -hand[t]):
                if not off:
                    break
                take = min(off, hand[t])
                c[t] += take
                off -= take
        return tuple(c)

    def _make_plan(self, view: CartusView, r: int, ctx: _Context,
                   floor: float = -1e9) -> tuple[float, int, int, int, int]:
        """Try every count ``x`` of off-class cards (most plentiful class first) with all or
        none of the jokers; the first best value wins (fewest off-class cards, then all jokers).

        The value of ``g = hk + j + x`` cards (``hk`` of the building's class ``k``, ``j``
        jokers) splits into a part that depends on ``g`` only (track points, rules §7.2, and
        the expected action, §4 D b), the per-position cost of ``x`` off-class cards
        (``_position``) and constants.

        ``floor``: plans worth less than this are not wanted (``enter`` already has a better
        row); such a plan comes back with value ``-inf`` and must not be memoised. For a flat
        action the best track points plus the best action plus the least off-class cost bound
        the plan from above, so a row that cannot reach ``floor`` is dropped before its
        candidates are built.
        """
        cfg = view.cfg
        seat = self.seat
        hand = view.hand
        b = cfg.card_building[view.row[r]]
        tables = ctx.tables
        k, flat, mixed = tables.acts[b]
        best_other = -1  # most cards of another entrant here (-1: nobody else here)
        other_hand = -1  # largest hand among the other entrants here
        for s, nc in view.sizes(r):
            if s != seat:
                best_other = max(best_other, nc)
                other_hand = max(other_hand, view.hand_size(s))
        hk, hj = hand[k], hand[JOKER]
        n_off = min(ctx.n_pop - hk, ctx.max_off)
        n_g = hj + n_off + 1  # g runs over hk .. hk + n_g - 1
        # majority points (rules §7.2) of own influence mine0 + g, from the other seats' values
        others = [row[k] for row in view.influence]
        mine0 = others.pop(seat)
        others.sort()
        inf = tuple(others)
        got = tables.track_rows.get(inf)
        pts, pts_max = got if got is not None else self._track_row(tables, inf)
        n_pts = len(pts)
        base_pts = pts[mine0] if mine0 < n_pts else pts[n_pts - 1]
        # expected action (rules §4 D b): premium for most cards; 3/4 sure while others may
        # still come, a coin flip on a tie, none with too few
        pmc = cfg.premium_min_cards
        need = (best_other + 1 if best_other >= pmc else pmc) - hk  # index of the first g with the premium
        half = best_other - hk if best_other >= pmc else -1  # index of the tied g
        sword_n = hand[SWORD] if other_hand >= 2 else 0
        flute_n = ctx.flutes if best_other >= 0 else 0
        iv, jv, last = ctx.iv, ctx.jv, ctx.last
        extra = (iv - ctx.cv) * hk - base_pts + (ctx.sv * sword_n + ctx.fv * flute_n)
        off_cost = ctx.off_cost
        lo = mine0 + hk
        by_g: list[float] = []  # track points + expected action of g = hk + i cards, i < n_g
        if flat:
            if mixed is None:  # Monastery, Hospital, Tent: by rats and looks
                m = _mixed(1.0 if last else self.premium_chance, self.tie_premium_chance,
                           self._action(view, b, True, 0, ctx.seen), self._action(view, b, False, 0, ctx.seen))
            else:
                m = mixed[last]
            a_need, a_half, a_none, a_max = m
            # upper bound (rounding is monotone, so the same additions in the same order bound
            # every candidate); jokers only add when they are worth more as influence
            bound = pts_max + a_max + ctx.off_max[n_off]
            if hj and iv > jv:
                bound += (iv - jv) * hj
            if bound + extra < floor:
                return _REJECTED
            for i in range(n_g):
                g = lo + i
                by_g.append((pts[g] if g < n_pts else pts[n_pts - 1])
                            + (a_half if i == half else a_none if i < need else a_need))
        else:  # Brewery / Guard Tower: the value grows with the cards played
            act = self._grown(view, b, hk, n_g, 1.0 if last else self.premium_chance, need, half)
            for i in range(n_g):
                g = lo + i
                by_g.append((pts[g] if g < n_pts else pts[n_pts - 1]) + act[i])
        best_v, best_x = by_g[0] + off_cost[0], 0  # no jokers; the first best x wins
        second = -math.inf  # the best other candidate's value (for ``lead``)
        for x in range(1, n_off + 1):
            v = by_g[x] + off_cost[x]
            if v > best_v:
                second = best_v
                best_v, best_x = v, x
            elif v > second:
                second = v
        best_j = 0
        if hj:  # all jokers
            m1, x1 = by_g[hj] + off_cost[0], 0
            s1 = -math.inf
            for x in range(1, n_off + 1):
                v = by_g[hj + x] + off_cost[x]
                if v > m1:
                    s1 = m1
                    m1, x1 = v, x
                elif v > s1:
                    s1 = v
            m1 += (iv - jv) * hj
            s1 += (iv - jv) * hj
            if m1 > best_v or (m1 == best_v and x1 <= best_x):
                second = max(best_v, s1)
                best_v, best_x, best_j = m1, x1, hj
            else:
                second = max(second, m1)
        gap = best_v - second
        best_v += extra
        if best_v < floor:
            return _REJECTED
        self.plan_gaps[r] = gap
        return best_v, best_x, best_j, sword_n, flute_n

    # -- decisions
    def supply(self, view: CartusView, rng: random.Random) -> int:
        cfg = view.cfg
        seen = view.seen_nuns()
        icons = cfg.card_icons
        best, best_r = -1e9, 0
        values = []
        for r, c in enumerate(view.row):
            d, x, looks = icons[c]
            v = d * self.card_value + self._relief(view, x, seen) + min(looks, seen[1]) * self.look_value
            values.append(v)
            if v > best:
                best, best_r = v, r
        self.lead = lead(values, best_r)
        return best_r

    def look(self, view: CartusView, rng: random.Random) -> int:
        self.lead = math.inf
        seen = view.seen(self.seat)
        for p in range(view.nun_row_size):
            if not (seen >> p) & 1:
                return p
        return 0

    def enter(self, view: CartusView, rng: random.Random) -> int:
        plans, ctx = self._position(view)
        rows = view.options
        best, best_r = -1e9, rows[0]
        for r in rows:
            got = plans.get(r)
            if got is None:
                # only rows that can beat ``best`` matter here (a later row needs more)
                got = self._make_plan(view, r, ctx, best)
                if got[0] == -math.inf:
                    continue
                plans[r] = got
            if got[0] > best:
                best, best_r = got[0], r
        if not self.want_lead:
            self.lead = math.inf if len(rows) == 1 else math.nan
            return best_r
        other = -math.inf  # every other row valued in full (a plan is the same with or without a floor)
        for r in rows:
            if r != best_r:
                got = plans.get(r)
                if got is None:
                    got = plans[r] = self._make_plan(view, r, ctx)
                other = max(other, got[0])
        self.lead = best - other
        return best_r

    def cards(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        cfg = view.cfg
        r = view.entry_row
        plan = self._plan(view, r)
        self.lead = self.plan_gaps.get(r, math.inf)  # the best other count of off-class cards and jokers
        return self._counts(view.hand, cfg.building_class[cfg.card_building[view.row[r]]], plan)

    def use_pass(self, view: CartusView, rng: random.Random) -> bool:
        self.lead = math.inf
        seat = self.seat
        plans, ctx = self._position(view)
        floor = self.pass_value
        for r in range(len(view.row)):
            if any(s == seat for s, _ in view.sizes(r)):  # entered already
                continue
            got = plans.get(r)
            if got is None:
                got = self._make_plan(view, r, ctx, floor)  # only a plan worth the Pass matters
                if got[0] == -math.inf:
                    continue
                plans[r] = got
            if got[0] > floor:
                return True
        return False

    def target(self, view: CartusView, rng: random.Random) -> int:
        self.lead = math.inf
        cands = view.options
        if view.target_kind == "sword" or not view.cfg.rats_visible:
            return max(cands, key=lambda s: (view.hand_size(s), -s))
        return max(cands, key=lambda s: (view.rats(s), -s))

    def give(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        self.lead = math.inf
        return self._give(view.hand, view.give_count)

    @staticmethod
    def _give(hand: list[int], k: int) -> tuple[int, ...]:
        """``k`` cards from the class held most, one at a time (least needed per card; ties:
        lower class first); without population cards: Passes, Flutes, Swords, then jokers."""
        left = hand[:JOKER]
        out = [0] * N_TYPES
        for i in range(k):
            most = max(left)
            if not most:
                k -= i
                for t in (PASS, FLUTE, SWORD, JOKER):
                    out[t] = x = min(k, hand[t])
                    k -= x
                break
            t = left.index(most)
            left[t] -= 1
            out[t] += 1
        return tuple(out)

    def hospital(self, view: CartusView, rng: random.Random) -> tuple[int, ...]:
        best_x, best_v = 0, 0.0
        values = [0.0]  # no trade
        for x in range(1, view.hospital_cap + 1):
            v = self._relief(view, x) - x * self.card_value
            values.append(v)
            if v > best_v:
                best_x, best_v = x, v
        self.lead = lead(values, best_x)
        return self._give(view.hand, best_x)


POLICIES: dict[str, type] = {"random": Random, "greedy": Greedy, "cautious": Cautious}
