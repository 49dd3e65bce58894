"""Rattus Cartus setup, round structure and the forward model (docs/rules/cartus.md §3, §4, §7).

A game in progress is a ``CartusState``: the position (``state.State``) plus the rules program
(its ``stack`` of steps and the pending decision). ``apply(action)`` answers the pending
decision and runs the program, chance included, up to the next decision or the end. Phases A–C
and E are the steps in this module; phase D (building resolution, actions, special cards) lives
in ``resolution.py``; final scoring in ``scoring.py``. Players see a seat's ``CartusView``
(``view.py``), never the state.

The decisions of rules §11 are asked exactly where the rules ask them, one seat at a time, even
when only one answer is possible (the built-in ``random`` policy draws from its generator there,
and its games must stay the same).
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from operator import sub
from typing import Any

import numpy as np

from analyzer.errors import IllegalChoice, TurnCapExceeded
from analyzer.games.cartus import chance, metrics, resolution, scoring
from analyzer.games.cartus import view as seatview
from analyzer.games.cartus.config import PASS, READ_PASS_MODE, CartusConfig
from analyzer.games.cartus.resolution import cards_text, draw_cards
from analyzer.games.cartus.scoring import Outcome
from analyzer.games.cartus.state import (
    CARDS,
    DECISION_NAMES,
    ENTER,
    FIELDS,
    GIVE,
    HOSPITAL,
    LOOK,
    NO_DECISION,
    OP_ACTIONS,
    OP_CLEANUP,
    OP_END_ROUND,
    OP_ENTER,
    OP_GIVE_TO,
    OP_LOOK,
    OP_PERFORM,
    OP_RESOLVE,
    OP_REVEAL,
    OP_ROUND,
    OP_SPECIAL,
    OP_SUPPLY,
    SUPPLY,
    TARGET,
    USE_PASS,
    Log,
    State,
    next_uid,
    positions,
)
from analyzer.games.cartus.view import CartusView
from analyzer.model.base import seed_of
from analyzer.model.copying import copy_fields
from analyzer.model.draws import copy_rng
from analyzer.model.logtext import plural

# ---------------------------------------------------------------- setup and phases A–C, E


def choose_buildings(cfg: CartusConfig, rng: random.Random) -> tuple[int, ...]:
    """The 30 building card ids of one game (rules §3 building selection, modes a/b/c).

    ``explicit``: the listed cards; ``random_buildings``: per class one of its buildings at even
    odds, all 5 copies; ``random_cards``: per class 5 of its cards. The 2-player Guard Tower
    exclusion is already applied to ``cfg.class_pools``.
    """
    if cfg.selection == "explicit":
        return cfg.fixed_cards
    cards: list[int] = []
    for pool in cfg.class_pools:
        if cfg.selection == "random_cards":
            cards.extend(chance.sample(rng, pool, 5))
        else:
            blds = sorted({cfg.card_building[c] for c in pool})
            b = chance.sample(rng, blds, 1)[0]
            cards.extend(c for c in pool if cfg.card_building[c] == b)
    return tuple(sorted(cards))


def card_name(cfg: CartusConfig, c: int) -> str:
    """``"monastery:2"``: a building card by building and copy number (rules §3)."""
    return f"{cfg.building_names[cfg.card_building[c]]}:{c % cfg.copies + 1}"


def setup(st: State) -> None:
    """A new game: buildings, Nun-row, hands, piles, start player (rules §3 steps 1–8).

    Every seat holds ``cfg.start_hand`` population cards and ``cfg.start_rats``; the program
    starts with round 1.
    """
    cfg, rng, log = st.cfg, st.rng, st.log
    st.in_play = choose_buildings(cfg, rng)
    pop = list(cfg.population)
    chance.shuffle(rng, pop)
    for _ in range(cfg.nun_row_size):
        k, nuns = pop.pop()
        st.nun_row.append(nuns)
        st.nun_row_class.append(k)
    for seat in range(cfg.n_players):
        for _ in range(cfg.start_hand):
            st.hands[seat][pop.pop()[0]] += 1
    st.deck = [k for k, _ in pop]
    bdeck = list(st.in_play)
    chance.shuffle(rng, bdeck)
    st.replacement = [bdeck.pop() for _ in range(cfg.replacement)]
    st.building_deck = bdeck
    st.start = st.first_start = chance.pick(rng, cfg.n_players) if cfg.start_player == "random" else 0
    if log:
        log(f"setup: {cfg.n_players} players, buildings in play: " + ", ".join(card_name(cfg, c) for c in st.in_play))
        log(f"setup: start player seat {st.start}; {len(st.deck)} cards in the population deck")
        log("legend: row positions and Nun-row positions count from 1; end of round: hand = cards in hand,"
            " [roy3 chu1] = influence per class (" + ", ".join(f"{k[:3]} = {k}" for k in cfg.class_names) + ")")
    st.stack.append((OP_ROUND, 0, 0, 0))


def start_round(st: State) -> None:
    """Phase A (rules §4): draw the row; while all its cards are one building, swap the last
    for the top of the replacement pile (the swapped card goes under it, in the open). Then
    queue phases B–E in turn order from the start player."""
    cfg, log = st.cfg, st.log
    st.round += 1
    st.protected = 0
    st.round_influence = [0] * st.n
    cb = cfg.card_building
    row = [st.building_deck.pop() for _ in range(cfg.row_size)]
    if log:
        log(f"round {st.round}: start seat {st.start}; row " + ", ".join(card_name(cfg, c) for c in row))
    swaps = 0
    while all(cb[c] == cb[row[0]] for c in row):
        swaps += 1
        if swaps > len(st.replacement) + 1:
            raise TurnCapExceeded(f"phase A replacement never ends (round {st.round}); replay seed {seed_of(st.seed)}")
        old = row[-1]
        if len(st.replacement) <= st.known_bottom:  # only cards put under in the open are left
            st.known_bottom -= 1
        row[-1] = st.replacement.pop()
        st.replacement.insert(0, old)
        st.known_bottom += 1
        if log:
            log(f"  all {cfg.building_names[cb[old]]}: {card_name(cfg, old)} goes under the replacement pile,"
                f" {card_name(cfg, row[-1])} takes its place")
    st.row = row
    st.entries = [[] for _ in row]
    st.sizes = [[] for _ in row]
    st.revealed = 0
    n, stack = st.n, st.stack
    stack.append((OP_END_ROUND, 0, 0, 0))
    for r in range(len(row) - 1, -1, -1):
        stack.append((OP_RESOLVE, r, 0, 0))
    for i in range(n - 1, -1, -1):
        stack.append((OP_ENTER, (st.start + i) % n, -1, 0))
    for i in range(n - 1, -1, -1):
        stack.append((OP_SUPPLY, (st.start + i) % n, 0, 0))


def answer_supply(st: State, seat: int, r: int) -> None:
    """Phase B: ``seat`` uses the supply icons of open card ``r``: draw, discard rats, then one
    look per look icon (rules §4 phase B)."""
    draw, rats, looks = st.cfg.card_icons[st.row[r]]
    got = draw_cards(st, seat, draw) if draw else 0
    x = min(rats, st.rats[seat])
    st.rats[seat] -= x
    st.rats_discarded[seat] += x
    if st.log:
        st.log(f"  seat {seat} supplies at row {r + 1}: draws {got}, discards {plural(x, 'rat')}")
    for _ in range(looks):
        st.stack.append((OP_LOOK, seat, 0, 0))


def open_rows(st: State, exclude: int) -> tuple[int, ...]:
    """Row positions ``seat`` may enter: those with a free space, other than ``exclude``
    (the first building of a Pass turn; rules §4 phase C, §6)."""
    spaces = st.cfg.building_spaces
    return tuple(r for r in range(len(st.row)) if r != exclude and (not spaces or len(st.entries[r]) < spaces))


def ask_enter(st: State, seat: int, exclude: int) -> None:
    """Phase C: ``seat`` enters one open building (``exclude`` >= 0: the second, with a Pass)."""
    rows = open_rows(st, exclude)
    if rows:
        st.post(ENTER, seat, exclude, opts=rows)


def answer_cards(st: State, seat: int, r: int, first: bool, c: tuple[int, ...]) -> None:
    """Phase C: one disc into row ``r`` with ``c`` face down; after the first building a held
    Pass may send the second disc into another one (rules §4 phase C, §6)."""
    hand = st.hands[seat]
    hand[:] = map(sub, hand, c)  # c[PASS] == 0
    st.entries[r].append((seat, c))
    n_cards = sum(c)
    st.sizes[r].append((seat, n_cards))
    cfg = st.cfg
    if cfg.building_action[cfg.card_building[st.row[r]]] == "guard_tower":
        st.protected |= 1 << seat
    if st.log:
        st.log(f"  seat {seat} enters row {r + 1} (space {len(st.entries[r])}) with {plural(n_cards, 'card')}")
    if first and hand[PASS] and open_rows(st, r):
        cfg.reads[0] |= READ_PASS_MODE
        if cfg.pass_mode == "second_building":
            st.post(USE_PASS, seat, r)


def answer_use_pass(st: State, seat: int, first: int, use: bool) -> None:
    """Phase C: a Pass played goes back to its supply; the second disc enters a building other
    than ``first`` (rules §6)."""
    if use:
        st.hands[seat][PASS] -= 1
        st.supply[PASS] += 1
        st.acted_pass += 1
        if st.log:
            st.log(f"  seat {seat} plays a Pass")
        ask_enter(st, seat, first)


def end_round(st: State) -> None:
    """Phase E: the row leaves the game and the start player passes clockwise; after the last
    round the game ends and is scored (rules §4 phase E, §7)."""
    st.row = []
    st.entries = []
    st.sizes = []
    st.revealed = 0
    st.start = (st.start + 1) % st.n
    if st.log:
        st.log(f"  end of round {st.round}: {st.describe()}")
    if st.round < st.cfg.rounds:
        st.stack.append((OP_ROUND, 0, 0, 0))


def run(st: State) -> None:
    """Run the rules program until a decision is pending or the program is done."""
    stack = st.stack
    while st.dec_kind == NO_DECISION and stack:
        op, a, b, c = stack.pop()
        if op == OP_REVEAL:
            resolution.reveal(st, a, b)
        elif op == OP_PERFORM:
            resolution.perform(st, a, b, c == 1)
        elif op == OP_SUPPLY:
            st.post(SUPPLY, a, opts=positions(len(st.row)))
        elif op == OP_ENTER:
            ask_enter(st, a, b)
        elif op == OP_LOOK:
            resolution.ask_look(st, a)
        elif op == OP_RESOLVE:
            resolution.resolve(st, a)
        elif op == OP_ACTIONS:
            resolution.actions(st, a)
        elif op == OP_CLEANUP:
            resolution.cleanup(st, a)
        elif op == OP_SPECIAL:
            resolution.special(st, a, b, c)
        elif op == OP_GIVE_TO:
            resolution.give_to(st, a, b, c)
        elif op == OP_END_ROUND:
            end_round(st)
        elif op == OP_ROUND:
            start_round(st)


# ---------------------------------------------------------------- the forward model


class CartusState(State):
    """A Rattus Cartus game in progress (the forward model of ``model/forward.py``).

    Actions by decision kind (rules §11): ``supply``, ``look``, ``enter``, ``target``: an int
    (row position, Nun-row position, row position, seat); ``use_pass``: a bool; ``cards``,
    ``give``, ``hospital``: a tuple of ``N_TYPES`` card counts (``config.py`` card types).
    ``legal_actions()`` lists the count vectors in lexicographic order; it can be long for a
    large hand, so the play loop never needs it and ``apply`` checks an answer directly.
    """

    outcome: Outcome | None = None  # the final scores, once the game is over

    def copy(self) -> CartusState:
        """An independent copy of this position (``copy_fields`` over ``state.FIELDS``): the
        generator, the log and ``uid`` shared, ``outcome`` not set (``clone`` and
        ``determinize`` set them)."""
        return copy_fields(self, FIELDS)

    # -- asking
    def is_terminal(self) -> bool:
        """True once the last round is over (scores are final)."""
        return self.dec_kind == NO_DECISION

    def current_seat(self) -> int:
        """The seat that answers the pending decision."""
        return self.dec_seat

    def decision_kind(self) -> str:
        """``supply``, ``look``, ``enter``, ``cards``, ``use_pass``, ``target``, ``give`` or
        ``hospital`` (rules §11); ``""`` at the end."""
        return DECISION_NAMES[self.dec_kind]

    def legal_actions(self) -> tuple:
        """The answers the deciding seat is offered, in a fixed order (see the class docstring)."""
        return seatview.legal_actions(self)

    def search_actions(self) -> tuple:
        """A few legal answers worth searching (``view.search_actions``): all of them except
        for card choices, where every subset of a hand would be too many."""
        return seatview.search_actions(self)

    def describe_action(self, action: Hashable) -> str:
        """A short readable name of ``action`` at the pending decision."""
        return seatview.describe_action(self, action)

    # -- advancing
    def apply(self, action: Any) -> None:
        """Answer the pending decision with ``action`` and run on to the next one.

        Raises
        ------
        IllegalChoice
            ``action`` is not one of ``legal_actions()``: an int where a bool is asked (or the
            reverse), a float, a list, a count vector outside the hand, … (never coerced); or
            the game is over.
        """
        kind, seat = self.dec_kind, self.dec_seat
        if not seatview.is_legal(self, action):
            raise IllegalChoice(seat if kind != NO_DECISION else -1, DECISION_NAMES[kind], action,
                                seatview.legal_actions(self))
        a, b, c = self.dec_a, self.dec_b, self.dec_c
        self.dec_kind = NO_DECISION
        if kind == SUPPLY:
            answer_supply(self, seat, action)
        elif kind == CARDS:
            answer_cards(self, seat, a, b < 0, action)
        elif kind == ENTER:
            # the cards for the building entered are the same seat's next decision
            self.post(CARDS, seat, action, a)
        elif kind == LOOK:
            resolution.answer_look(self, seat, action)
        elif kind == USE_PASS:
            answer_use_pass(self, seat, a, action)
        elif kind == TARGET:
            resolution.answer_target(self, seat, b, action)
        elif kind == GIVE:
            resolution.answer_give(self, seat, a, c, action)
        elif kind == HOSPITAL:
            resolution.answer_hospital(self, seat, b, action)
        self._run()

    def _run(self) -> None:
        if self.dec_kind == NO_DECISION:
            run(self)
            if self.dec_kind == NO_DECISION and self.outcome is None:
                self.outcome = scoring.outcome(self)
                if self.log:
                    for line in scoring.describe(self, self.outcome):
                        self.log(line)

    def clone(self) -> CartusState:
        """An independent copy, chance generator included (its replay log is not copied)."""
        other = self.copy()
        other.uid = next_uid()
        other.rng = copy_rng(self.rng)  # not random.Random(): that reads the OS's entropy first
        other.log = None
        other.outcome = self.outcome
        return other

    # -- what a seat sees
    def view(self, seat: int) -> CartusView:
        """What ``seat``'s player decides from (``view.CartusView``)."""
        return CartusView(self, seat)

    def information_key(self, seat: int) -> Hashable:
        """What ``seat`` can see (``view.information_key``)."""
        return seatview.information_key(self, seat)

    def determinize(self, seat: int, seed: int) -> CartusState:
        """A copy with everything hidden from ``seat`` redrawn (``view.redraw_hidden``) and
        future chance drawn from ``random.Random(seed)``; same ``information_key(seat)``."""
        other = self.copy()
        other.uid = next_uid()
        other.log = None
        other.outcome = self.outcome
        other.rng = random.Random(seed)
        seatview.redraw_hidden(other, seat, other.rng)
        return other

    # -- results
    def returns(self) -> tuple[float, ...]:
        """Each seat's win share: 1/k for a k-way tie, 0 for every seat when all die (rules §7.3)."""
        out = self.outcome
        if out is None:
            raise ValueError("returns() of a game in progress: use heuristic_returns()")
        return out.won

    def heuristic_returns(self, scale: float = 0.0, rats_ahead: float = 0.0) -> tuple[float, ...]:
        """Win shares estimated from the position as if the game were scored now (rules §7):
        the plague with the Nun-row as it lies, majorities and tokens as they stand.

        ``scale`` 0 (default): the win shares of that scoring. ``scale`` > 0: shares in
        proportion to ``exp(score / scale)`` times the chance of surviving, a logistic curve of
        the nuns' margin over the seat's rats plus ``rats_ahead`` (rats still expected; 1 rat
        wide); they sum to less than 1 when everybody may die. Both are ``ismcts`` parameters
        (``leaf_scale``, ``leaf_rats``)."""
        out = self.outcome if self.outcome is not None else scoring.outcome(self)
        if scale <= 0.0:
            return out.won
        n = self.n
        top = max(out.scores)
        live = [1.0 / (1.0 + math.exp(min(50.0, self.rats[s] + rats_ahead - out.nuns - 0.5))) for s in range(n)]
        w = [live[s] * math.exp((out.scores[s] - top) / scale) for s in range(n)]
        total = sum(w)
        if total <= 0.0:
            return tuple(0.0 for _ in range(n))
        dead_all = 1.0
        for x in live:
            dead_all *= 1.0 - x
        return tuple((1.0 - dead_all) * x / total for x in w)

    def records(self, policy_names: Sequence[str]) -> tuple[dict, list[dict]]:
        """The game record and one seat record per seat (``metrics``), at the end."""
        out = self.outcome
        if out is None:
            raise ValueError("records() of a game in progress")
        return metrics.game_record(self, out), metrics.seat_records(self, out, list(policy_names))


def start(cfg: CartusConfig, chance: random.Random, seed: int | np.random.SeedSequence,
          log: Log = None) -> CartusState:
    """A new game set up with chance generator ``chance`` and run to its first decision
    (docs/rules/cartus.md §3): the ``start`` of ``forward.ForwardGame``; ``seed`` is named in
    messages only."""
    st = CartusState(cfg)
    st.rng = chance
    st.seed = seed
    st.log = log
    setup(st)
    st._run()
    return st


__all__ = ["CartusState", "cards_text", "start"]
