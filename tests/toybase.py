"""The skeleton shared by the open-information toy games of the tests (``flowtoy``,
``kingtoy``, ``lucktoy``): a view that shows everything, a state whose seats move in turn
choosing from a fixed action list, the record rows, a softmax estimate and three policies.

A toy game subclasses ``OpenState``: it sets ``KIND`` (its decision's name) and ``ACTIONS``,
keeps ``n`` (seats) and ``to_move`` (the seat to move), and writes ``is_terminal``, ``act`` (the
effect of an action already checked to be legal), ``returns``, ``records`` and ``clone``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from analyzer.errors import IllegalChoice
from analyzer.model.forward import offered


class OpenView:
    """What a seat sees: everything (a game without hidden information)."""

    def __init__(self, state: OpenState, seat: int):
        self.state, self.seat, self.n_players, self.log = state, seat, state.n, None

    def decision_kind(self) -> str:
        return self.state.decision_kind() if self.state.to_move == self.seat else ""

    def legal_actions(self) -> tuple:
        return self.state.legal_actions() if self.state.to_move == self.seat else ()

    def search_actions(self) -> tuple:
        return self.legal_actions()

    def describe_action(self, action) -> str:
        return str(action)


class OpenState:
    """A toy game in progress whose seats move in turn, each choosing one of ``ACTIONS``."""

    KIND = ""
    ACTIONS: tuple = ()
    n: int
    to_move: int

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def act(self, action) -> None:
        """The effect of ``action``, a legal action of the seat to move."""
        raise NotImplementedError

    def current_seat(self) -> int:
        return self.to_move

    def decision_kind(self) -> str:
        return "" if self.is_terminal() else self.KIND

    def legal_actions(self) -> tuple:
        return () if self.is_terminal() else self.ACTIONS

    def search_actions(self) -> tuple:
        return self.legal_actions()

    def apply(self, action) -> None:
        if offered(self.legal_actions(), action) < 0:
            raise IllegalChoice(self.to_move, self.decision_kind(), action, self.legal_actions())
        self.act(action)

    def view(self, seat: int) -> OpenView:
        return OpenView(self, seat)

    def rows(self, names, scores: Sequence[float], won: Sequence[float], ranks: Sequence[int],
             rounds: int, version: str, **extra) -> tuple[dict, list[dict]]:
        """The game record (``winner_seats``: the seats with a share of the win; ``extra``
        columns last) and one seat record per seat."""
        game = {"n_players": self.n, "rounds": rounds, "end": "trigger",
                "winner_seats": ",".join(str(s) for s in range(self.n) if won[s] > 0),
                "rules_version": version, **extra}
        seats = [{"seat": s, "policy": names[s], "score": float(scores[s]), "rank": ranks[s],
                  "won": won[s], "start_position": s} for s in range(self.n)]
        return game, seats


def softmax(scores: Sequence[float]) -> tuple[float, ...]:
    """``exp(x) / Σ exp`` of the scores: a win-share estimate."""
    top = max(scores)
    w = [math.exp(x - top) for x in scores]
    return tuple(x / sum(w) for x in w)


@dataclass(frozen=True)
class First:
    """Always takes the first legal action."""

    def player(self, seat: int):
        return self

    def choose(self, view, rng):
        return view.legal_actions()[0]


@dataclass(frozen=True)
class Last:
    """Always takes the last legal action."""

    def player(self, seat: int):
        return self

    def choose(self, view, rng):
        return view.legal_actions()[-1]


@dataclass(frozen=True)
class Coin:
    """Takes a legal action at random (draws from its seat's stream)."""

    def player(self, seat: int):
        return self

    def choose(self, view, rng):
        return rng.choice(view.legal_actions())
