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

Kingmaking (``quality:kingmaking``, ``kingmaking``): after a recorded game, a sample of the
choices of seats that could no longer win (their estimate below ``Flow.out_of_contention`` at
every checkpoint from some round to the end) is changed one at a time, and the game played
again from its seed with that one choice changed, to see whether the winner changes. The
sample is drawn from a stream of its own (``kingmaking_stream``), so the recorded game's draws
are untouched.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analyzer.errors import TurnCapExceeded
from analyzer.model.base import seed_stream
from analyzer.model.play import offered, play, spare_declared

#: ``rounds.parquet``'s columns (pandas dtypes), one row per checkpoint and seat
ROUND_COLUMNS = {"game_id": "int64", "variant": "string", "round": "int64", "seat": "int64",
                 "score": "float64", "estimate": "float64", "out": "bool"}
#: ``kingmaking.parquet``'s columns, one row per game and arm (``--kingmaking-samples``):
#: ``kingmade`` 1 when a tried choice of a seat out of contention changed the winner, else 0;
#: ``playouts`` the counterfactual games played; ``candidates`` the (decision, other choice)
#: pairs that could have been tried; ``cpu_seconds`` the CPU time of the playouts (the only
#: column that is not a function of the seed)
KINGMAKING_COLUMNS = {"game_id": "int64", "variant": "string", "kingmade": "int64",
                      "playouts": "int64", "candidates": "int64", "cpu_seconds": "float64"}
#: the estimated win share below which a seat is out of contention, unless a game declares its
#: own (``Flow.out_of_contention``). A labelled default of this project (a guess, not a rule):
#: one chance in twenty by the search player's own leaf estimate.
OUT_OF_CONTENTION = 0.05
#: the child of a game's SeedSequence the kingmaking sample draws from: far past chance
#: (child 0) and the seats (child 1 + s), so no game stream is shared or shifted
KINGMAKING_CHILD = 2**32 - 1


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
    out_of_contention : float
        A seat whose estimate stays below this win share at every checkpoint from some round
        to the end (its final win share included) could no longer win from that round on
        (``quality:kingmaking``). Default ``OUT_OF_CONTENTION``, a labelled default.
    """

    rounds_done: Callable[[Any], int]
    scores: Callable[[Any], Sequence[float]]
    estimate: Callable[[Any], Sequence[float]]
    close_margin: float = 0.0
    out: Callable[[Any], Sequence[bool]] | None = None
    round_name: str = "round"
    out_of_contention: float = OUT_OF_CONTENTION

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
        out = (tuple(bool(x) for x in f.out(state)) if f.out else ()) or (False,) * len(scores)
        self.rows.append((round_no, scores, tuple(float(x) for x in est), out))


def play_recorded(state: Any, players: Sequence[Any], seat_rngs: Sequence[random.Random],
                  marks: Checkpoints, decisions: list[Decision] | None = None) -> None:
    """``forward.play`` (the same decisions, the same draws) with a checkpoint into ``marks``
    after every round (``Flow.rounds_done`` changed) and at the end.

    ``decisions``: when given, gets one ``Decision`` per decision of the game, in order (read
    from the state: nothing drawn, nothing changed). Narrowed decisions are spared as in
    ``forward.play`` (``play.spare_declared``), so the consulted options are the same too.

    Raises
    ------
    IllegalChoice, TurnCapExceeded
        As ``forward.play``.
    """
    is_terminal, current_seat, view, apply = state.is_terminal, state.current_seat, state.view, state.apply
    legal_actions = state.legal_actions
    choose = [p.choose for p in players]
    rngs = list(seat_rngs)
    rounds_done = marks.flow.rounds_done
    done = rounds_done(state) if not is_terminal() else 0
    last = 0
    narrows = hasattr(state, "spare")
    while not is_terminal():
        seat = current_seat()
        action = choose[seat](view(seat), rngs[seat])
        if narrows and state.narrowing:  # as ``forward.play``: the same consulted options
            spare_declared(state, players[seat], action)
        if decisions is not None:
            legal = legal_actions()
            decisions.append(Decision(seat, len(marks.rows) - 1, len(legal),
                                      offered(legal, action)))
        apply(action)
        if is_terminal():
            break
        r = rounds_done(state)
        if r != done:
            done = last = r
            marks.take(state, r, False)
    marks.take(state, last + 1, True)


@dataclass(frozen=True)
class Decision:
    """One decision of a recorded game: the deciding ``seat``, ``checkpoint`` (the index in
    ``Checkpoints.rows`` of the last checkpoint before it, -1 in the first round), ``options``
    (how many legal actions it had) and ``chosen`` (the index of the one taken)."""

    seat: int
    checkpoint: int
    options: int
    chosen: int


def play_with_choice(state: Any, players: Sequence[Any], seat_rngs: Sequence[random.Random],
                     decision: int, option: int) -> None:
    """Play ``state`` to its end as ``forward.play`` does, except that at decision number
    ``decision`` (0 = the first) the seat's player is asked as usual (its stream advances as in
    the game) and then option ``option`` of the legal actions is taken instead of its answer.
    The decisions before it are spared as ``forward.play`` spares them; that one is not.

    Raises
    ------
    IllegalChoice, TurnCapExceeded
        As ``forward.play``.
    RuntimeError
        The game ended before decision ``decision`` (a replay that is not the recorded game).
    """
    is_terminal, current_seat, view, apply = state.is_terminal, state.current_seat, state.view, state.apply
    narrows = hasattr(state, "spare")
    for _ in range(decision):
        if is_terminal():
            break
        seat = current_seat()
        action = players[seat].choose(view(seat), seat_rngs[seat])
        if narrows and state.narrowing:
            spare_declared(state, players[seat], action)
        apply(action)
    if is_terminal():
        raise RuntimeError(f"the replayed game ended before its decision {decision}: the game "
                           "is not a function of its seed")
    seat = current_seat()
    players[seat].choose(view(seat), seat_rngs[seat])
    apply(state.legal_actions()[option])  # not the player's pick: never spared
    play(state, players, seat_rngs)


def winners(returns: Sequence[float]) -> frozenset[int]:
    """The seats with the top win share, none when nobody wins (all shares 0)."""
    top = max(returns, default=0.0)
    return frozenset(s for s, x in enumerate(returns) if x == top and top > 0)


def out_from(marks: Checkpoints, threshold: float) -> list[int]:
    """Per seat, the first checkpoint index ``k`` (into ``marks.rows``, before the end) from
    which its estimate is below ``threshold`` at every checkpoint to the end, the end's win
    share included; ``len(marks.rows)`` for a seat never out of contention."""
    rows = marks.rows
    n = len(rows[-1][2]) if rows else 0
    first = []
    for seat in range(n):
        k = len(rows)
        while k > 0 and rows[k - 1][2][seat] < threshold:
            k -= 1
        first.append(k)
    return first


def kingmaking_stream(seed: int | np.random.SeedSequence) -> random.Random:
    """The kingmaking sample's generator of a game: child ``KINGMAKING_CHILD`` of its
    SeedSequence (``base.game_streams`` uses children 0 .. n_seats; this one is unused by
    play)."""
    return seed_stream(seed, KINGMAKING_CHILD)


@dataclass
class Kingmaking:
    """The kingmaking test of one game (``kingmaking``): ``samples`` in, the rest out.

    Attributes
    ----------
    samples : int
        At most this many counterfactual choices tried in the game (the budget, >= 1).
    kingmade : int
        1 when a tried choice changed the winner (``kingmaking``), else 0.
    playouts : int
        Counterfactual games played (at most ``samples``).
    candidates : int
        The (decision, other option) pairs of seats out of contention that could be tried.
    cpu_seconds : float
        CPU time of the playouts.
    """

    samples: int
    kingmade: int = 0
    playouts: int = 0
    candidates: int = 0
    cpu_seconds: float = 0.0


def kingmaking(result: Kingmaking, marks: Checkpoints, decisions: Sequence[Decision],
               rng: random.Random,
               replay: Callable[[int, int], Sequence[float]]) -> Kingmaking:
    """Whether a seat that could no longer win made a choice that changed the winner of the
    game recorded in ``marks`` and ``decisions`` (``play_recorded``); fills ``result``.

    The candidates are every pair (decision d, option j) where the seat deciding at d is out of
    contention from the last checkpoint before d on (``out_from`` at the flow's
    ``out_of_contention``) and j is one of its legal options other than the one taken. Up to
    ``result.samples`` of them are drawn without replacement, uniformly, from ``rng`` (the
    game's own ``kingmaking_stream``), and tried in decision order: ``replay(d, j)`` plays the
    game again from its seed (the same chance and seat streams: common random numbers) with
    option j taken at decision d and returns its win shares. The game is kingmade when a
    replay's winners differ from the game's and the changed seat is not among them (a choice
    that would have made the seat itself win shows it was not out of contention, and is not
    kingmaking). A replay that runs past the engine's turn cap counts as no change. Trying
    stops at the first change.
    """
    start = time.process_time()
    if not marks.rows:
        return result
    first = out_from(marks, marks.flow.out_of_contention)
    pairs = [(d, j) for d, dec in enumerate(decisions)
             if dec.checkpoint >= 0 and dec.checkpoint >= first[dec.seat]
             for j in range(dec.options) if j != dec.chosen]
    result.candidates = len(pairs)
    chosen = sorted(rng.sample(pairs, min(result.samples, len(pairs))))
    actual = winners(marks.rows[-1][2])
    for d, j in chosen:
        result.playouts += 1
        try:
            shares = replay(d, j)
        except TurnCapExceeded:
            continue
        now = winners(shares)
        if now != actual and decisions[d].seat not in now:
            result.kingmade = 1
            break
    result.cpu_seconds = time.process_time() - start
    return result


__all__ = ["KINGMAKING_COLUMNS", "OUT_OF_CONTENTION", "ROUND_COLUMNS", "Checkpoints", "Decision",
           "Flow", "Kingmaking", "kingmaking", "kingmaking_stream", "out_from", "play_recorded",
           "play_with_choice", "winners"]
