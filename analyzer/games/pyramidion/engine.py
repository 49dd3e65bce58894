"""Pyramidion rules engine as a forward model: set-up, the eight phases of a round, and the
program counter that pauses the game at each decision (model/forward.py).

A ``Game`` is a game in progress: ``apply(action)`` runs the rules up to the next decision,
chance included (from the game's own generator). Every rule lives here, in ``site_play.py``
(phase 5, one site at a time: card play and resolution), ``loading.py`` (phase 7 loads) or
``resolution.py`` (pure step rules). A rule that needs a decision ends with ``decide(seat,
kind, options)``; the decision's handler (``on_<kind>``) carries the rule on when the action
comes in. A decision with one option is taken at once without asking anyone. All chance goes
through the named draws of ``chance.py`` so a test can force outcomes by setting the piles.
Sections refer to ``docs/rules/pyramidion.md``.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from analyzer.errors import IllegalChoice, TurnCapExceeded
from analyzer.games.pyramidion.chance import (
    draw_card,
    draw_start_player,
    shuffle,
)
from analyzer.games.pyramidion.config import (
    GOODS,
    ORDINARY,
    READ_DISCARD_UNPLAYED,
    READ_LOADING_PASS,
    PyramidionConfig,
)
from analyzer.games.pyramidion.loading import load_options, pay_boat
from analyzer.games.pyramidion.metrics import Tally, game_record, seat_records
from analyzer.games.pyramidion.resolution import new_player_order
from analyzer.games.pyramidion.scoring import final_ranking
from analyzer.games.pyramidion.site_play import CATEGORY, SitePlay
from analyzer.games.pyramidion.state import (
    ACTIVATE,
    ACTIVATION,
    CAIRO,
    CARD_TURN,
    EXECUTIONER_TARGET,
    GODDESS_CATEGORY,
    KEEP,
    KEEPING,
    LOAD,
    LOADING,
    NO_GOOD,
    NOBODY,
    PASS,
    PLAY,
    RECRUIT,
    ROUND_END,
    ROUND_START,
    THIEF_TARGET,
    State,
)
from analyzer.games.pyramidion.view import View
from analyzer.model import draws
from analyzer.model.base import seed_of
from analyzer.model.play import offered

__all__ = ["Game", "start"]

# Safety net against an engine bug: no legal game comes near this many decisions per round.
MAX_DECISIONS_PER_ROUND = 5000
# heuristic_returns' defaults: VP per good held, VP per slave-driver tile held, softmax scale (VP)
LEAF_GOOD = 0.6
LEAF_TILE = 0.3
LEAF_SCALE = 1.5


class Game(SitePlay):
    """One game in progress (the ``GameState`` of model/forward.py).

    Parameters
    ----------
    cfg : PyramidionConfig
    chance : random.Random
        The chance stream (``game_streams`` child 0).
    log : callable or None
        Receives readable replay lines; ``None`` means no log work at all.
    state : State, optional
        A hand-built position (tests); default is a fresh set-up (§4) before any chance.
    """

    def __init__(self, cfg: PyramidionConfig, chance: random.Random,
                 log: Callable[[str], None] | None = None, state: State | None = None):
        self.cfg = cfg
        self.rng = chance
        self.log = log
        self.st = state if state is not None else State.empty(cfg)
        self._zeros = (0,) * cfg.players  # templates to reset per-site rows without allocating
        self._nones = (-1,) * cfg.players
        # Safety net against an engine bug (loops are finite by construction).
        self.decision_cap = MAX_DECISIONS_PER_ROUND * (cfg.max_rounds + 1)
        self.seed: Any = "?"  # the game seed (int or SeedSequence), named in messages only

    # ------------------------------------------------------------ the forward-model interface

    def is_terminal(self) -> bool:
        """True once the game is over (§6)."""
        return self.st.end != ""

    def current_seat(self) -> int:
        """The seat that decides next."""
        return self.st.to_move

    def decision_kind(self) -> str:
        """The pending decision's kind (state.py D1–D6), "" at the end."""
        return self.st.kind

    def legal_actions(self) -> tuple:
        """The options of the pending decision, in the fixed order of §14.3 (at least two; ``()``
        at the end)."""
        return self.st.options

    def search_actions(self) -> tuple:
        """What a search branches on: every legal option (``forward.GameState.search_actions``)."""
        return self.st.options

    def apply(self, action: Hashable) -> None:
        """Take ``action`` for the pending decision and play on to the next one (or the end).

        Raises
        ------
        IllegalChoice
            ``action`` is not one of ``legal_actions()`` (``forward.offered``: a float or a bool
            is never an int here), or the game is over.
        """
        st = self.st
        options = st.options
        i = offered(options, action)
        if i < 0:
            raise IllegalChoice(st.to_move if st.kind else -1, st.kind, action, options)
        self.take(st.kind, options[i])
        self.advance()

    def clone(self) -> Game:
        """An independent copy, chance generator included, without the replay log."""
        g = Game(self.cfg, draws.copy_rng(self.rng), None, self.st.copy())
        g.seed = self.seed
        return g

    def view(self, seat: int) -> View:
        """What ``seat``'s player may see (§14.2)."""
        return View(self, seat)

    def information_key(self, seat: int) -> Hashable:
        """Everything ``seat`` can see: equal for two states exactly when it cannot tell them
        apart (§14.2; §3.1 and §5 phase 7 variants hide goods and boats)."""
        return information_key(self, seat)

    def determinize(self, seat: int, seed: int) -> Game:
        """A copy with what ``seat`` cannot see redrawn and chance reseeded from ``seed``."""
        return determinize(self, seat, seed)

    def returns(self) -> tuple[float, ...]:
        """Each seat's win share at the end (§6: 1/k for a k-way shared win)."""
        st = self.st
        _, won, _ = final_ranking(st.vp, [len(b) for b in st.boats], [sum(g) for g in st.goods],
                                  self.cfg.tiebreak)
        return tuple(won)

    def heuristic_returns(self, good: float = LEAF_GOOD, tile: float = LEAF_TILE,
                          scale: float = LEAF_SCALE) -> tuple[float, ...]:
        """An estimate of ``returns()`` from the position: a softmax, in units of ``scale`` VP,
        over VP plus ``good`` per good and ``tile`` per slave-driver tile held (they load the
        next boats: a good ≈ 1 VP once loaded, §9). The three are ``ismcts`` parameters
        (``leaf_good``, ``leaf_tile``, ``leaf_scale``)."""
        st = self.st
        score = [st.vp[p] + good * sum(st.goods[p]) + tile * st.sd_owner.count(p) for p in range(st.n)]
        top = max(score)
        w = [math.exp((s - top) / scale) for s in score]
        total = sum(w)
        return tuple(x / total for x in w)

    def records(self, policy_names: Sequence[str]) -> tuple[dict, list[dict]]:
        """The game record and one seat record per seat at the end (``metrics.py``)."""
        st = self.st
        goods = [sum(g) for g in st.goods]
        ranks, won, winners = final_ranking(st.vp, [len(b) for b in st.boats], goods, self.cfg.tiebreak)
        return (game_record(st, st.tally, st.end, winners),
                seat_records(st, st.tally, list(policy_names), ranks, won))

    # ------------------------------------------------------------ the program counter

    def decide(self, seat: int, kind: str, options: tuple) -> None:
        """``seat`` must choose one of ``options`` for ``kind``: the game pauses there, or, with
        a single option, takes it at once (nobody is asked)."""
        st = self.st
        st.to_move = seat
        if len(options) == 1:
            self.take(kind, options[0])
            return
        st.decisions += 1
        if st.decisions > self.decision_cap:
            raise TurnCapExceeded(f"pyramidion game passed {self.decision_cap} decisions in round "
                                  f"{st.round}; replay seed {seed_of(self.seed)}")
        st.kind = kind
        st.options = options

    def take(self, kind: str, choice: Any) -> None:
        """Carry on the rule that asked ``kind`` with ``choice`` (one of its options)."""
        st = self.st
        st.kind = ""
        st.options = ()
        if kind == PLAY:
            self.on_play(choice)
        elif kind == ACTIVATE:
            self.on_activate(choice)
        elif kind == LOAD:
            self.on_load(choice)
        elif kind == GODDESS_CATEGORY:
            self.on_goddess(choice)
        elif kind == RECRUIT:
            self.on_recruit(choice)
        elif kind == EXECUTIONER_TARGET:
            self.on_executioner(choice)
        elif kind == THIEF_TARGET:
            self.on_thief(choice)
        elif kind == CAIRO:
            self.on_cairo(choice)
        elif kind == KEEP:
            self.on_keep(choice)
        else:
            raise AssertionError(f"unknown decision kind {kind!r}")

    def advance(self) -> None:
        """Run the rules until a decision is pending or the game is over."""
        st = self.st
        while st.kind == "" and st.end == "":
            self.run_step()

    def run_step(self) -> None:
        """Run the rules at the program counter ``st.step`` up to its next step or decision."""
        step = self.st.step
        if step == CARD_TURN:
            self.card_turn()
        elif step == ACTIVATION:
            self.activation()
        elif step == LOADING:
            self.loading_turn()
        elif step == ROUND_START:
            self.start_round()
        elif step == ROUND_END:
            self.phase8()
        elif step == KEEPING:
            self.keeping_turn()
        else:
            raise AssertionError(f"unknown step {step}")

    @property
    def tally(self) -> Tally:
        """The running counts for the records (``metrics.Tally``)."""
        return self.st.tally

    # ------------------------------------------------------------ supply helpers (§3.1)

    def take_supply(self, kind: int, n: int) -> int:
        """Take up to ``n`` goods of ``kind`` from the supply; returns how many were taken."""
        st = self.st
        if self.cfg.supply_limited and st.supply[kind] < n:
            n = max(st.supply[kind], 0)
        st.supply[kind] -= n
        return n

    def gain(self, seat: int, kind: int, n: int) -> int:
        got = self.take_supply(kind, n)
        self.st.goods[seat][kind] += got
        return got

    # ------------------------------------------------------------ set-up (§4)

    def setup(self) -> None:
        """Shuffle the decks and stacks and choose the start player (§4)."""
        st, cfg, rng = self.st, self.cfg, self.rng
        shuffle(rng, st.draw_pile)
        shuffle(rng, st.boat_deck)
        shuffle(rng, st.dist_deck)
        shuffle(rng, st.revolt_stack)
        start = cfg.start_player if cfg.start_player >= 0 else draw_start_player(rng, st.n)
        st.order = [(start + i) % st.n for i in range(st.n)]
        st.tally.start_order = list(st.order)
        st.step = ROUND_START

    # ------------------------------------------------------------ phases 1-4 (no decisions)

    def start_round(self) -> None:
        """A new round (§5): phases 1–4, then phase 5's first activation."""
        st = self.st
        st.round += 1
        st.boats_before_round = [len(b) for b in st.boats]
        if self.log:
            self.log(f"Round {st.round} (order {st.order})")
        self.phase1_boats()
        self.phase2_goods()
        self.phase3_negotiators()
        self.phase4_cards()
        st.act_i = 0
        st.step = ACTIVATION

    def phase1_boats(self) -> None:
        """Phase 1 (§5): refill the display to ``boats_on_display`` from the boat deck."""
        st = self.st
        while len(st.display) < self.cfg.boats_on_display and st.boat_deck:
            st.display.append(st.boat_deck.pop())
        if self.log:
            self.log("  boats: " + ", ".join(self._boat_text(b) for b in sorted(st.display)))

    def phase2_goods(self) -> None:
        """Phase 2 (§5): turn up a distribution card; each site gets its own kind of good,
        served in site-table order from the (possibly short) supply."""
        st, cfg = self.st, self.cfg
        if not st.dist_deck:
            st.dist_deck, st.dist_discard = st.dist_discard, []
            shuffle(self.rng, st.dist_deck)
        card = st.dist_deck.pop()
        st.dist_discard.append(card)
        amounts = cfg.dist_goods[card]
        for s in range(cfg.n_sites):
            if amounts[s]:
                st.site_goods[s] += self.take_supply(cfg.site_kind[s], amounts[s])
        if self.log:
            self.log("  goods on sites: " + ", ".join(
                f"{cfg.site_names[s]}={st.site_goods[s]} {GOODS[cfg.site_kind[s]]}"
                for s in range(cfg.n_sites)))

    def phase3_negotiators(self) -> None:
        """Phase 3 (§5): each negotiator tile takes 1 good from its site (automatic)."""
        st, cfg = self.st, self.cfg
        for p in st.order:
            for s in range(cfg.n_sites):
                if st.ng_owner[s] == p and st.site_goods[s] > 0:
                    st.site_goods[s] -= 1
                    st.goods[p][cfg.site_kind[s]] += 1
                    st.tally.goods_negotiator[p] += 1
                    if self.log:
                        self.log(f"  negotiator: seat {p} takes 1 {GOODS[cfg.site_kind[s]]} "
                                 f"from {cfg.site_names[s]}")

    def phase4_cards(self) -> None:
        """Phase 4 (§5): starting cards come back; each player draws ``cards_drawn`` cards."""
        st = self.st
        for p in st.order:
            st.hand[p] += st.aside[p] + st.kept[p]
            st.aside[p] = []
            st.kept[p] = []
            for _ in range(self.cfg.cards_drawn):
                draw_card(st, self.rng, p)
            st.hand[p].sort()
        if self.log:
            self.log("  hands: " + ", ".join(f"seat {p}={len(st.hand[p])}" for p in range(st.n)))

    # ------------------------------------------------------------ phase 5 (site_play.py) and 6

    def activation(self) -> None:
        """Phase 5 (§5): in player order, twice round, each player activates a site (D1);
        after the last activation, phase 6 and the start of phase 7."""
        st, cfg = self.st, self.cfg
        n = st.n
        if st.act_i == n * cfg.activations_per_player:
            self.phase6_order()
            st.load_i = 0
            st.passes = 0
            st.out[:] = [False] * n
            st.step = LOADING
            return
        sundial = st.sundial
        self.decide(st.order[st.act_i % n], ACTIVATE,
                    tuple([s for s in range(cfg.n_sites) if not sundial[s]]))

    def phase6_order(self) -> None:
        """Phase 6 (§5): Giza's player-order tiles set the new order (unchanged if none): tile
        holders first, by tile number."""
        st = self.st
        takers = [p for p in st.giza_tiles if p != NOBODY]
        if takers:
            st.order = new_player_order(st.order, takers)
            if self.log:
                self.log(f"  player order: {st.order}")

    # ------------------------------------------------------------ phase 7 (§5)

    def loading_turn(self) -> None:
        """Phase 7 (§5): in player order, load one boat per turn (D5) until N passes in a row
        (or, variant, everyone has passed once) or no boat is left."""
        st = self.st
        if not st.display:
            st.step = ROUND_END
            return
        p = st.order[st.load_i % st.n]
        st.load_i += 1
        if st.out[p]:
            return
        # a player who cannot pay for any boat passes (the one option)
        self.decide(p, LOAD, (PASS,) + load_options(st, p))

    def on_load(self, choice: Any) -> None:
        st, cfg = self.st, self.cfg
        p = st.to_move
        if choice == PASS:
            st.passes += 1
            cfg.reads[0] |= READ_LOADING_PASS
            if cfg.loading_pass_is_final:
                st.out[p] = True
                if all(st.out):
                    st.step = ROUND_END
            elif st.passes >= st.n:
                st.step = ROUND_END
        else:
            self.load(p, choice[0], choice[1])
            st.passes = 0

    def load_options(self, p: int) -> tuple:
        """Legal loads for ``p`` (§5 phase 7); see ``loading.load_options``."""
        return load_options(self.st, p)

    def load(self, p: int, b: int, used: tuple) -> None:
        """Load boat ``b`` (§5 phase 7): pay it (``loading.pay_boat``) and take the boat card."""
        st, cfg = self.st, self.cfg
        pay_boat(st, p, b, used)
        st.tally.goods_slave_driver[p] += len(used)
        st.display.remove(b)
        st.boats[p].append(b)
        st.vp[p] += cfg.boat_vp[b]
        if st.first_to_target < 0 and st.vp[p] >= cfg.target_vp:
            st.first_to_target = p
        if self.log:
            self.log(f"  seat {p} loads {self._boat_text(b)}"
                     + (f" using slave drivers at {[cfg.site_names[s] for s in used]}" if used else "")
                     + f" -> {st.vp[p]} VP")

    # ------------------------------------------------------------ phase 8 (§5) and the end (§6)

    def phase8(self) -> None:
        """Phase 8 (§5): the slave-driver benefit variant, then ``finish_round``."""
        st, cfg = self.st, self.cfg
        if cfg.phase8_benefit == "good_of_site":
            for p in st.order:
                for s in range(cfg.n_sites):
                    if st.sd_owner[s] == p:
                        st.tally.goods_phase8[p] += self.gain(p, cfg.site_kind[s], 1)
        elif cfg.phase8_benefit == "keep_card":
            st.keep_i = 0
            st.keep_left = -1
            st.step = KEEPING
            return
        self.finish_round()

    def keeping_turn(self) -> None:
        """Variant B (§5 phase 8): in player order, each slave-driver tile lets its owner keep
        one unplayed common card (D6); declining ends his keeping."""
        st, cfg = self.st, self.cfg
        if st.keep_i == st.n:
            self.finish_round()
            return
        p = st.order[st.keep_i]
        if st.keep_left < 0:
            st.keep_left = st.sd_owner.count(p)
        if st.keep_left == 0:
            st.keep_i += 1
            st.keep_left = -1
            return
        self.decide(p, KEEP, (PASS,) + tuple([c for c in st.hand[p] if cfg.card_owner[c] < 0]))

    def on_keep(self, c: int) -> None:
        st = self.st
        p = st.to_move
        if c == PASS:
            st.keep_i += 1
            st.keep_left = -1
            return
        st.hand[p].remove(c)
        st.kept[p].append(c)
        st.keep_left -= 1

    def finish_round(self) -> None:
        """The rest of phase 8 (§5): discard unplayed drawn cards, reset sundials, Giza tiles
        and used marks; then the end check (§6)."""
        st, cfg = self.st, self.cfg
        for p in range(st.n):
            keep = []
            for c in st.hand[p]:
                if cfg.card_owner[c] >= 0:
                    st.aside[p].append(c)
                else:
                    cfg.reads[0] |= READ_DISCARD_UNPLAYED
                    if cfg.discard_unplayed_drawn_cards:
                        st.discard_pile.append(c)
                    else:
                        keep.append(c)
            st.hand[p] = keep
        for s in range(cfg.n_sites):
            st.sundial[s] = False
            st.sd_used[s] = False
        st.giza_tiles = [NOBODY] * st.n
        if self.log:
            self.log("  VP: " + ", ".join(f"seat {p}={st.vp[p]}" for p in range(st.n)))
        if max(st.vp) >= cfg.target_vp or (not st.display and not st.boat_deck):
            self.game_over("trigger")
        elif st.round >= cfg.max_rounds:
            self.game_over("turn_cap")
        else:
            st.step = ROUND_START

    def game_over(self, end: str) -> None:
        """The game ends (§6): ``end`` is ``"trigger"`` or ``"turn_cap"``."""
        st = self.st
        st.end = end
        st.to_move = NOBODY
        if st.vp.count(max(st.vp)) > 1:  # the tie-break of §6 [G] decides the winner
            st.tally.acted_tiebreak += 1
        if self.log:
            _, _, winners = final_ranking(st.vp, [len(b) for b in st.boats], [sum(g) for g in st.goods],
                                          self.cfg.tiebreak)
            self.log(f"Game over after round {st.round} ({end}): winners {winners}")
            self.log(st.describe())

    # ------------------------------------------------------------ text for the log only

    def _boat_text(self, b: int) -> str:
        cfg = self.cfg
        need = " ".join(f"{n} {GOODS[k]}" for k, n in enumerate(cfg.boat_need[b]) if n)
        return f"{cfg.boat_names[b]}[{need}: {cfg.boat_vp[b]} VP]"

    def describe_action(self, action: Any) -> str:
        """A readable name of one option of the pending decision (for the replay log)."""
        st, cfg, kind = self.st, self.cfg, self.st.kind
        if kind == ACTIVATE:
            return cfg.site_names[action]
        if kind == GODDESS_CATEGORY:
            return CATEGORY[action]
        if action == PASS:
            return {CAIRO: "no conversion", RECRUIT: "no recruiting", KEEP: "keep nothing"}.get(kind, "pass")
        if kind in (PLAY, RECRUIT, KEEP):
            verb = {PLAY: "play", RECRUIT: "recruit away", KEEP: "keep"}[kind]
            return f"{verb} {self.card_text(action)}"
        if kind == CAIRO:
            give, take = divmod(action, ORDINARY)
            return f"2 {GOODS[give]} for 1 {GOODS[take]}"
        if kind == EXECUTIONER_TARGET:
            return f"mark seat {st.pc_seat[action]}'s {self.card_text(st.pc_card[action])}"
        if kind == THIEF_TARGET:
            q, k = action
            return f"steal from seat {q}" + ("" if k == NO_GOOD else f" 1 {GOODS[k]}")
        if kind == LOAD:
            b, used = action
            return f"load {self._boat_text(b)}" + (
                f" with slave drivers at {', '.join(cfg.site_names[s] for s in used)}" if used else "")
        return repr(action)


# ---------------------------------------------------------------- information sets


def _hidden_cards(st: State, q: int) -> list[int]:
    """Cards in seat ``q``'s hand or kept that the other seats cannot see (drawn cards)."""
    pub = st.pub
    return [c for c in st.hand[q] if not pub[c]] + [c for c in st.kept[q] if not pub[c]]


def information_key(game: Game, seat: int) -> Hashable:
    """What ``seat`` knows (§14.2): its own hand; every public fact; of a hidden card only in
    whose hand it is and from which reshuffle of the draw pile it came; goods and boats of the
    others as far as the §3.1 / §5 phase 7 options show them."""
    st, cfg = game.st, game.cfg
    others = []
    for q in range(st.n):
        if q == seat:
            continue
        hidden = _hidden_cards(st, q)
        others.append((
            tuple(c for c in st.hand[q] if st.pub[c]), tuple(c for c in st.kept[q] if st.pub[c]),
            tuple(sorted(st.epoch[c] for c in hidden)),
            tuple(st.goods[q]) if cfg.goods_visible else sum(st.goods[q]),
            tuple(st.boats[q]) if cfg.boat_vp_public else (len(st.boats[q]), st.boats_before_round[q]),
        ))
    return (
        seat, st.step, st.kind, st.to_move, st.options if st.to_move == seat else len(st.options),
        st.end, st.round, tuple(st.order), st.act_i, st.turn, tuple(st.passed), tuple(st.acted),
        st.load_i, st.passes, tuple(st.out), st.keep_i, st.keep_left,
        tuple(st.hand[seat]), tuple(st.kept[seat]), tuple(st.goods[seat]), tuple(st.boats[seat]),
        tuple(others), tuple(tuple(a) for a in st.aside), tuple(st.discard_pile), len(st.draw_pile),
        st.reshuffles, tuple(st.supply), tuple(st.site_goods), tuple(st.sd_owner),
        tuple(st.ng_owner), tuple(st.sd_used), tuple(st.sundial), tuple(st.sd_left),
        tuple(st.ng_left), tuple(st.display), len(st.boat_deck), tuple(st.dist_discard),
        len(st.dist_deck), len(st.revolt_stack), st.philosopher, tuple(st.giza_tiles), st.site,
        tuple(st.pc_seat), tuple(st.pc_card), tuple(st.pc_cat), tuple(st.pc_alive),
        tuple(st.pc_mark), tuple(tuple(t) for t in st.totals),
    )


def determinize(game: Game, seat: int, seed: int) -> Game:
    """A copy of ``game`` in which everything hidden from ``seat`` is redrawn uniformly among
    the arrangements consistent with what it knows, and chance is reseeded from ``seed``.

    Redrawn (§14.2): the other seats' drawn cards and the draw pile (cards drawn since the same
    reshuffle are exchanged among themselves), the order of the boat deck, the distribution
    deck and the revolt-tile stack; with ``goods_visible = false`` the other seats' goods (their
    counts stay); with ``boat_vp_public = false`` the other seats' boats and the boat deck
    (counts stay; nobody had reached the target at the last round end). Every pool is sorted
    before it is shuffled, so the result depends only on the information set and ``seed``.
    """
    rng = random.Random(seed)
    st = game.st.copy()
    cfg = game.cfg
    n = st.n
    # cards: one pool per reshuffle epoch, the draw pile belonging to the current one
    pools: dict[int, list[int]] = {st.reshuffles: list(st.draw_pile)}
    hand_eps: list[list[int]] = [[] for _ in range(n)]  # epochs of the hidden cards, per seat
    kept_eps: list[list[int]] = [[] for _ in range(n)]
    pub, epoch = st.pub, st.epoch
    for q in range(n):
        if q == seat:
            continue
        for c in st.hand[q] + st.kept[q]:
            if not pub[c]:
                pools.setdefault(epoch[c], []).append(c)
        hand_eps[q] = [epoch[c] for c in st.hand[q] if not pub[c]]
        kept_eps[q] = [epoch[c] for c in st.kept[q] if not pub[c]]
        st.hand[q] = [c for c in st.hand[q] if pub[c]]
        st.kept[q] = [c for c in st.kept[q] if pub[c]]
    for e in sorted(pools):
        pool = sorted(pools[e])
        draws.shuffle(rng, pool)
        pools[e] = pool
    for q in range(n):  # a card taken from the draw pile may carry a stale public mark
        for e in hand_eps[q]:
            c = pools[e].pop()
            epoch[c] = e
            pub[c] = False
            st.hand[q].append(c)
        for e in kept_eps[q]:
            c = pools[e].pop()
            epoch[c] = e
            pub[c] = False
            st.kept[q].append(c)
        st.hand[q].sort()
    st.draw_pile = pools[st.reshuffles]
    # decks and stacks whose order nobody knows
    st.dist_deck.sort()
    draws.shuffle(rng, st.dist_deck)
    st.revolt_stack.sort()
    draws.shuffle(rng, st.revolt_stack)
    if cfg.boat_vp_public:
        st.boat_deck.sort()
        draws.shuffle(rng, st.boat_deck)
    else:
        _redraw_boats(st, seat, rng)
    if not cfg.goods_visible:
        tokens = sorted(k for q in range(n) if q != seat for k in range(len(GOODS))
                        for _ in range(st.goods[q][k]))
        draws.shuffle(rng, tokens)
        for q in range(n):
            if q != seat:
                count = sum(st.goods[q])
                st.goods[q] = [0] * len(GOODS)
                for k in tokens[:count]:
                    st.goods[q][k] += 1
                tokens = tokens[count:]
    g = Game(cfg, rng, None, st)  # future chance goes on from the same generator
    g.seed = game.seed
    return g


def _redraw_boats(st: State, seat: int, rng: random.Random) -> None:
    """``boat_vp_public = false``: the other seats' boats and the deck are one pool; each seat
    keeps its boat count, and no seat may have held ``target_vp`` at the last round end (the
    game would be over): drawn again until that holds (at most 200 tries, then the last draw)."""
    cfg = st.cfg
    pool = sorted(st.boat_deck + [b for q in range(st.n) if q != seat for b in st.boats[q]])
    for _ in range(200):
        draws.shuffle(rng, pool)
        i = 0
        ok = True
        for q in range(st.n):
            if q == seat:
                continue
            k = len(st.boats[q])
            st.boats[q] = pool[i:i + k]
            i += k
            if st.round > 1 and sum(cfg.boat_vp[b] for b in st.boats[q][:st.boats_before_round[q]]) >= cfg.target_vp:
                ok = False
        st.boat_deck = pool[i:]
        if ok:
            break
    for q in range(st.n):
        st.vp[q] = sum(cfg.boat_vp[b] for b in st.boats[q])


# ---------------------------------------------------------------- set-up


def start(config: PyramidionConfig, chance: random.Random, seed, log: Callable[[str], None] | None = None
          ) -> Game:
    """A new game paused at its first decision (§4 set-up, then round 1 up to D1): the ``start``
    of ``forward.ForwardGame``.

    Parameters
    ----------
    config : PyramidionConfig
    chance : random.Random
        Every chance event of the game is drawn from it (``game_streams`` child 0).
    seed : int or numpy.random.SeedSequence
        Named in the message of ``TurnCapExceeded``.
    log : callable or None
        Receives readable replay lines.
    """
    game = Game(config, chance, log)
    game.seed = seed
    game.setup()
    game.advance()
    return game
