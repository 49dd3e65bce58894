"""How the seats of each arm were laid out: what a per-seat or per-position number can show.

Read from the records and the run facts, never from a game: per arm, whether several policies
play (``mixed``), whether the start player moves from game to game (``start_random``: a seat's
``start_position`` takes several values) and whether the runner rotated the policies over the
seats (``run["seat_rotation"]``, on when not recorded). From these:

* ``seats_exchangeable``: every seat is the same in expectation — the start player moves and
  either one policy plays every seat or the policies rotate over the seats. A seat's win rate is
  then ``(1 − q)/n`` whatever the rules (``q`` = share of games nobody won): per-seat win rates
  cannot show a change that acts on every seat, so the report shows game-level outcomes instead.
* ``position_confounded``: several policies, no rotation and a start player who never moves, so
  each policy always sits at the same turn-order position: a position effect cannot be told
  apart from a policy difference, and the position test is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analyzer.report.records import Table, as_table


@dataclass(frozen=True)
class SeatDesign:
    """The seat layout of one arm (see the module docstring)."""

    mixed: bool
    start_random: bool
    rotation: bool

    @property
    def seats_exchangeable(self) -> bool:
        """Every seat has the same expected win rate by design."""
        return self.start_random and (self.rotation or not self.mixed)

    @property
    def position_confounded(self) -> bool:
        """Each policy always plays from the same turn-order position."""
        return self.mixed and not self.rotation and not self.start_random


def designs(seats: Table | pd.DataFrame, run: Mapping[str, Any] | None = None) -> dict[str, SeatDesign]:
    """The ``SeatDesign`` of every arm (variant) of ``seats``, in order of first appearance.

    Reads ``variant, seat, policy, start_position`` (without ``start_position`` the start player
    counts as fixed: seat = position).
    """
    seats = as_table(seats)
    rotation = bool((run or {}).get("seat_rotation", True))
    layout = seats.derived.get("seat_layout")
    if layout is None:  # read once per table: (mixed, start moves) per variant
        layout = {}
        cols = ("variant", "seat", "policy", "start_position")
        for var in seats.variants():
            s = seats.read(cols, [var])
            moves = ("start_position" in s and bool(
                (s.groupby("seat", observed=True)["start_position"].nunique() > 1).any()))
            layout[var] = (s["policy"].nunique() > 1, moves)
        seats.derived["seat_layout"] = layout
    return {var: SeatDesign(mixed, moves, rotation) for var, (mixed, moves) in layout.items()}


def all_exchangeable(found: Mapping[str, SeatDesign]) -> bool:
    """Every arm's seats are exchangeable (so no per-seat win-rate comparison is shown)."""
    return bool(found) and all(d.seats_exchangeable for d in found.values())


def exchangeable_reason(found: Mapping[str, SeatDesign]) -> str:
    """The sentence saying why per-seat win rates are left out."""
    why = ("the policies rotate over the seats" if any(d.mixed for d in found.values())
           else "every seat plays the same policy")
    return (f"The start player moves from game to game and {why}, so every seat has the same "
            "chance to win by design: a seat's win rate is (1 − q)/n whatever the rules or "
            "parameters (q = share of games nobody won) and per-seat win rates cannot show a "
            "change that acts on every seat.")
