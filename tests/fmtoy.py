"""A tiny trick-taking game with hidden hands, written as a forward model (model/forward.py).

Cards ``1..4n`` are dealt four to each of ``n`` seats, face down. Four tricks: the leader plays a
card, then the other seats clockwise; the highest card takes the trick and its taker leads the
next. Most tricks wins (ties share). Hidden information: the other seats' hands. Used to test the
forward-model contract and the ISMCTS player without a real engine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from analyzer.errors import IllegalChoice
from analyzer.model.forward import offered

HAND = 4


class TrickState:
    """A game in progress: hands, the trick on the table, tricks won, whose turn."""

    __slots__ = ("hands", "leader", "log", "n", "played", "rng", "table", "to_move", "tricks")

    def __init__(self, n: int, seed: int, log=None):
        self.n = n
        self.rng = random.Random(seed)
        deck = list(range(1, HAND * n + 1))
        self.rng.shuffle(deck)
        self.hands = [sorted(deck[HAND * s: HAND * (s + 1)]) for s in range(n)]
        self.tricks = [0] * n
        self.table: list[tuple[int, int]] = []  # (seat, card) of the trick in progress
        self.played: list[tuple[int, int]] = []  # every (seat, card) so far, in order
        self.leader = 0
        self.to_move = 0
        self.log = log

    def is_terminal(self) -> bool:
        return not self.hands[self.to_move] and not self.table

    def current_seat(self) -> int:
        return self.to_move

    def decision_kind(self) -> str:
        return "" if self.is_terminal() else "lead" if not self.table else "follow"

    def legal_actions(self) -> tuple:
        return tuple(self.hands[self.to_move])

    def search_actions(self) -> tuple:
        return self.legal_actions()

    def apply(self, action) -> None:
        hand = self.hands[self.to_move]
        if offered(tuple(hand), action) < 0:
            raise IllegalChoice(self.to_move, self.decision_kind(), action, tuple(hand))
        hand.remove(action)
        self.table.append((self.to_move, action))
        self.played.append((self.to_move, action))
        if self.log is not None:
            self.log(f"seat {self.to_move} plays {action}")
        if len(self.table) < self.n:
            self.to_move = (self.to_move + 1) % self.n
            return
        taker = max(self.table, key=lambda sc: sc[1])[0]
        self.tricks[taker] += 1
        self.table = []
        self.leader = self.to_move = taker

    def clone(self) -> TrickState:
        other = type(self).__new__(type(self))  # a subclass (tests/newgame/tricks) stays itself
        other.n, other.leader, other.to_move, other.log = self.n, self.leader, self.to_move, None
        other.hands = [list(h) for h in self.hands]
        other.tricks = list(self.tricks)
        other.table = list(self.table)
        other.played = list(self.played)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        return other

    def information_key(self, seat: int):
        return (seat, tuple(self.hands[seat]), tuple(self.played), self.to_move)

    def determinize(self, seat: int, seed: int) -> TrickState:
        other = self.clone()
        other.rng = random.Random(seed)
        pool = sorted(c for s in range(self.n) if s != seat for c in self.hands[s])  # canonical: depends on the information set only
        other.rng.shuffle(pool)
        for s in range(self.n):
            if s != seat:
                k = len(self.hands[s])
                other.hands[s], pool = sorted(pool[:k]), pool[k:]
        return other

    def view(self, seat: int) -> TrickView:
        return TrickView(self, seat)

    def returns(self) -> tuple[float, ...]:
        best = max(self.tricks)
        k = self.tricks.count(best)
        return tuple(1.0 / k if t == best else 0.0 for t in self.tricks)

    def heuristic_returns(self) -> tuple[float, ...]:
        total = sum(self.tricks)
        return tuple(t / total if total else 1.0 / self.n for t in self.tricks)

    def records(self, policy_names):
        r = self.returns()
        return {"n_players": self.n}, [{"seat": s, "policy": policy_names[s], "won": r[s]} for s in range(self.n)]


class TrickView:
    """What one seat sees: its hand, the cards played, tricks won."""

    __slots__ = ("_st", "log", "n_players", "seat")

    def __init__(self, st: TrickState, seat: int):
        self._st, self.seat, self.n_players, self.log = st, seat, st.n, st.log

    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(self._st.hands[self.seat])

    @property
    def table(self) -> tuple[tuple[int, int], ...]:
        return tuple(self._st.table)

    def decision_kind(self) -> str:
        return self._st.decision_kind() if self._st.to_move == self.seat else ""

    def legal_actions(self) -> tuple:
        return self._st.legal_actions() if self._st.to_move == self.seat else ()

    def search_actions(self) -> tuple:
        return self.legal_actions()

    def determinize(self, seed: int) -> TrickState:
        return self._st.determinize(self.seat, seed)

    def describe_action(self, action) -> str:
        return f"card {action}"


@dataclass(frozen=True)
class RandomPolicy:
    def player(self, seat: int):
        return self

    def choose(self, view, rng):
        acts = view.legal_actions()
        return acts[rng.randrange(len(acts))]


@dataclass(frozen=True)
class GreedyPolicy:
    """Lead the highest card; follow with the lowest card that takes the trick, else the lowest."""

    def player(self, seat: int):
        return self

    def choose(self, view, rng):
        hand = view.hand
        if not view.table:
            return hand[-1]
        best = max(card for _, card in view.table)
        over = [c for c in hand if c > best]
        return over[0] if over else hand[0]
