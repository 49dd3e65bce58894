"""The play loop and the legality check of every game, compiled with mypyc (setup.py).

Both run at every decision of every game, so they are compiled like the engines; the contract
they serve (``GameState``, ``SeatView``, ``Player``) is stated in ``forward.py``, which exports
them as ``forward.play`` and ``forward.offered``. This module imports nothing of analyzer.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any


def lead(values: list[float], i: int) -> float:
    """``values[i]`` minus the largest other value: how clearly a player chose option ``i``
    (the ``lead`` of the player contract in ``forward.py``); inf when there is no other."""
    other = -math.inf
    for j in range(len(values)):
        if j != i and values[j] > other:
            other = values[j]
    return values[i] - other


def _same(a: Any, b: Any) -> bool:
    """Equal in value and in type, all the way down (``1.0`` and ``True`` are not ``1``)."""
    if type(a) is not type(b):
        return False
    if type(a) is tuple:
        if len(a) != len(b):
            return False
        return all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def offered(options: tuple, action: Any) -> int:
    """Where ``action`` is among the distinct ``options``: its index, or -1 when it is not one
    of them in value and in type all the way down (``1.0``, ``True`` and ``numpy.int64(1)`` are
    not ``1``; a list is not a tuple).

    The legality check of every game's ``apply``: a player mostly hands back the offered object
    itself, found by identity first.
    """
    n = len(options)
    for i in range(n):
        if options[i] is action:
            return i
    for i in range(n):  # not ``index``: 0 == False == 0.0, and the first equal one may be another type
        if _same(options[i], action):
            return i
    return -1


def spare_declared(state: Any, player: Any, action: Any) -> None:
    """At a narrowed decision (``state.narrowing`` nonzero; ``forward.GameState``), before
    ``apply(action)``: hand the state what ``player`` declared its answer was picked among
    (``player.pick_among``, ``forward.Player``), so that the state can leave the decision's
    consult bits unset when all of those options are legal under the other value too. A player
    that declares nothing (no ``pick_among``, empty, or without ``action`` in it: not this
    answer's) leaves them to be set.

    Where the other value would also add options (``state.widening``, a tuple), the player
    must also keep its pick with those offered too (``player.keeps_pick(view, added)`` true,
    asked with the deciding seat's view); a player without ``keeps_pick`` leaves the bits set.
    """
    among = getattr(player, "pick_among", ())
    if not among or offered(tuple(among), action) < 0:
        return
    added = getattr(state, "widening", ())
    if added:
        keeps = getattr(player, "keeps_pick", None)
        if keeps is None or not keeps(state.view(state.current_seat()), tuple(added)):
            return
    state.spare(tuple(among))


def play(state: Any, players: Sequence[Any], seat_rngs: Sequence[random.Random]) -> None:
    """Advance ``state`` (a ``forward.GameState``) to its end, asking the deciding seat's player
    at every decision.

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

    A state that records its consulted rule options per player (``spare``) is told at every
    narrowed decision what the player declared its answer was picked among, and whether it
    keeps it where the other value adds options (``spare_declared``).
    """
    # the methods looked up once: this loop runs at every decision of every game
    is_terminal, current_seat, view, apply = state.is_terminal, state.current_seat, state.view, state.apply
    choose = [p.choose for p in players]
    rngs = list(seat_rngs)
    if not hasattr(state, "spare"):  # a game whose decisions never narrow
        while not is_terminal():
            seat = current_seat()
            apply(choose[seat](view(seat), rngs[seat]))
        return
    while not is_terminal():
        seat = current_seat()
        action = choose[seat](view(seat), rngs[seat])
        if state.narrowing:  # the one test per decision: rare, see ``spare_declared``
            spare_declared(state, players[seat], action)
        apply(action)
