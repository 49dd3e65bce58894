"""The forward model every game offers: a game in progress that can be asked, copied and advanced.

This is the shape of OpenSpiel's ``State`` and TAG's forward model (docs/architecture.md). A
game package's ``new_state(config, seed)`` returns a ``GameState`` paused at its first decision;
``apply`` runs the rules, chance included (from the state's own generator), up to the next
decision. A decision with a single legal option is taken inside the engine, so a non-terminal
state always offers at least two actions and a player is never asked a question with one answer.

Players see a ``SeatView``: what one seat may see (its own hand, the public board, what it has
been shown), never the state itself. Search players (``ismcts``) get full states only through
``SeatView.determinize``, which redraws everything hidden from the seat.

``play`` is the whole play loop; each game's ``play_game`` is ``play`` plus set-up and records.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class GameState(Protocol):
    """A game in progress (the stable forward-model interface).

    Actions are hashable and compare by value; ``legal_actions()`` lists them in a deterministic
    order. Chance is resolved inside ``apply`` from the state's own generator, so two copies made
    by ``clone`` and advanced with the same actions play the same game.
    """

    def is_terminal(self) -> bool:
        """True once the game is over (scores are final)."""
        ...

    def current_seat(self) -> int:
        """The seat that decides next (only at a non-terminal state)."""
        ...

    def decision_kind(self) -> str:
        """What is being decided, e.g. ``"place"``, ``"enter"``, ``"load"`` (game's own names)."""
        ...

    def legal_actions(self) -> tuple:
        """The options the deciding seat is offered: at least two, deterministic order."""
        ...

    def apply(self, action: Hashable) -> None:
        """Take ``action`` and advance to the next decision (or the end).

        Raises
        ------
        IllegalChoice
            ``action`` is not one of ``legal_actions()`` (never coerced or fixed).
        """
        ...

    def clone(self) -> GameState:
        """An independent copy, generators included, without the replay log."""
        ...

    def information_key(self, seat: int) -> Hashable:
        """What ``seat`` can see: equal keys exactly when the seat cannot tell two states apart."""
        ...

    def determinize(self, seat: int, seed: int) -> GameState:
        """A copy with everything hidden from ``seat`` redrawn uniformly among the arrangements
        consistent with what it has seen, and future chance reseeded from ``seed``; the copy's
        ``information_key(seat)`` equals this state's."""
        ...

    def view(self, seat: int) -> SeatView:
        """What ``seat``'s player is given to decide from."""
        ...

    def returns(self) -> tuple[float, ...]:
        """Each seat's win share at a terminal state: 1/k for a k-way tie for first, 0 for every
        seat when nobody wins."""
        ...

    def heuristic_returns(self) -> tuple[float, ...]:
        """An estimate of ``returns()`` at a non-terminal state (shares summing to at most 1),
        for search that stops a playout early."""
        ...

    def records(self, policy_names: Sequence[str]) -> tuple[dict, list[dict]]:
        """The game record and one seat record per seat, at a terminal state (what ``play_game``
        returns)."""
        ...


@runtime_checkable
class SeatView(Protocol):
    """One seat's view of a state at that seat's decision.

    A game's view adds read-only accessors for what the seat may see (public board, its own
    hand…); the members below are the ones every player may rely on.
    """

    seat: int
    n_players: int
    log: Callable[[str], None] | None  # the replay log, None when nobody reads it

    def decision_kind(self) -> str:
        """As ``GameState.decision_kind``."""
        ...

    def legal_actions(self) -> tuple:
        """As ``GameState.legal_actions``."""
        ...

    def determinize(self, seed: int) -> GameState:
        """``GameState.determinize(self.seat, seed)`` of the state behind the view."""
        ...

    def describe_action(self, action: Hashable) -> str:
        """A short readable name of one legal action, for the replay log."""
        ...


@runtime_checkable
class Player(Protocol):
    """Plays one seat of one game: may keep memory between its decisions in that game."""

    def choose(self, view: Any, rng: random.Random) -> Hashable:
        """One of ``view.legal_actions()``; any randomness comes from ``rng`` (the seat's stream)."""
        ...


@runtime_checkable
class Policy(Protocol):
    """A registered player kind with frozen, validated parameters (``build_policy``)."""

    def player(self, seat: int) -> Player:
        """A fresh player for ``seat`` of one game (stateless policies may return themselves)."""
        ...


def play(state: GameState, players: Sequence[Player], seat_rngs: Sequence[random.Random]) -> None:
    """Advance ``state`` to its end, asking the deciding seat's player at every decision.

    Parameters
    ----------
    state : GameState
        Advanced in place.
    players : sequence of Player, one per seat
    seat_rngs : sequence of random.Random, one per seat
        Seat ``s``'s player draws only from ``seat_rngs[s]``.

    Raises
    ------
    IllegalChoice
        A player chose an action that was not offered.
    TurnCapExceeded
        The engine's hard cap on turns was passed (the message names the seed).
    """
    while not state.is_terminal():
        seat = state.current_seat()
        state.apply(players[seat].choose(state.view(seat), seat_rngs[seat]))
