"""Game flow: a checkpoint after every round of a game, for the quality findings (issue #36).

A game declares once, in its own package (``games/<game>/flow.py``), what a round is, what each
seat's visible score is, how the position is estimated and what margin counts as a close finish
(``Flow``); ``GameSpec.flow`` carries it. The shared play loop (``play_recorded``) then records,
after every round and once more at the end, per seat: the score, the position estimate (the
``heuristic_returns`` the game's search player stops its playouts with; at the end the win
shares ``returns()``) and whether the seat is out of the game (eliminated). The runner writes
them to ``rounds.parquet`` (``ROUND_COLUMNS``).

Recording reads the state only: it draws no random number and changes nothing, so the games,
and so ``games.parquet`` and ``seats.parquet``, are the same with it on or off.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: ``rounds.parquet``'s columns (pandas dtypes), one row per checkpoint and seat
ROUND_COLUMNS = {"game_id": "int64", "variant": "string", "round": "int64", "seat": "int64",
                 "score": "float64", "estimate": "float64", "out": "bool"}


def _nobody_out(state: Any) -> Sequence[bool]:
    return ()


@dataclass(frozen=True)
class Flow:
    """What a game declares for its checkpoints (see the module docstring).

    Attributes
    ----------
    rounds_done : callable
        ``rounds_done(state) -> int``: the rounds completed at a non-terminal state (0 during the
        first). A checkpoint is taken whenever it changes; the end is one more checkpoint, the
        last round (a round cut short by the end counts as one).
    scores : callable
        ``scores(state) -> sequence of float``: each seat's visible score, in points (the
        game's own unit; at the end the final score).
    estimate : callable
        ``estimate(state) -> sequence of float``: each seat's estimated win share at a
        non-terminal state (the game's ``heuristic_returns`` at its search player's leaf
        parameters). At the end the loop records ``returns()`` instead.
    close_margin : float
        A finish is close when the winner's final score is at most this many points above the
        best other seat's (not out) (``quality:close_finish``).
    out : callable, optional
        ``out(state) -> sequence of bool``: the seats out of the game (eliminated); ``None``:
        the game eliminates nobody (no ``quality:eliminated``).
    round_name : str
        What a round is, in words, for the report (``"round of turns"``).
    """

    rounds_done: Callable[[Any], int]
    scores: Callable[[Any], Sequence[float]]
    estimate: Callable[[Any], Sequence[float]]
    close_margin: float = 0.0
    out: Callable[[Any], Sequence[bool]] | None = None
    round_name: str = "round"

    @property
    def eliminates(self) -> bool:
        """Whether the game can put a seat out before or at its end."""
        return self.out is not None


@dataclass
class Checkpoints:
    """The checkpoints of one game (``play_recorded`` fills ``rows``).

    ``rows``: one ``(round, scores, estimates, out)`` per checkpoint, rounds increasing; the last
    is the end (estimates = the win shares).
    """

    flow: Flow
    rows: list[tuple[int, tuple[float, ...], tuple[float, ...], tuple[bool, ...]]] = \
        field(default_factory=list)

    def take(self, state: Any, round_no: int, final: bool) -> None:
        """Record ``state`` as the checkpoint after round ``round_no``."""
        f = self.flow
        scores = tuple(float(x) for x in f.scores(state))
        est = state.returns() if final else f.estimate(state)
        out = tuple(bool(x) for x in (f.out or _nobody_out)(state)) or (False,) * len(scores)
        self.rows.append((round_no, scores, tuple(float(x) for x in est), out))


def play_recorded(state: Any, players: Sequence[Any], seat_rngs: Sequence[random.Random],
                  marks: Checkpoints) -> None:
    """``forward.play`` (the same decisions, the same draws) with a checkpoint into ``marks``
    after every round (``Flow.rounds_done`` changed) and at the end.

    Raises
    ------
    IllegalChoice, TurnCapExceeded
        As ``forward.play``.
    """
    is_terminal, current_seat, view, apply = state.is_terminal, state.current_seat, state.view, state.apply
    choose = [p.choose for p in players]
    rngs = list(seat_rngs)
    rounds_done = marks.flow.rounds_done
    done = rounds_done(state) if not is_terminal() else 0
    last = 0
    while not is_terminal():
        seat = current_seat()
        apply(choose[seat](view(seat), rngs[seat]))
        if is_terminal():
            break
        r = rounds_done(state)
        if r != done:
            done = last = r
            marks.take(state, r, False)
    marks.take(state, last + 1, True)


__all__ = ["ROUND_COLUMNS", "Checkpoints", "Flow", "play_recorded"]
