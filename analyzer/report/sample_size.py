"""Small-sample honesty: the line a report opens with when its run is too small to answer.

A run of a few games gives intervals so wide that no answer below means anything; the report
says so in its first lines, with how many games would do. The yardstick is the one every study
shares: a seat's win share, whose 95 % interval at ``n`` games and a fair share ``p = 1/players``
has half-width about ``1.96 √(p (1 − p) / n)`` (the normal approximation to Wilson's). A run is
small when that half-width exceeds ``SMALL_HALF_WIDTH`` (an effect of 10 pp could not be told
from none); the games that bring it to ``TARGET_HALF_WIDTH`` are ``(1.96 / h)² p (1 − p)``,
rounded up to a hundred. Names no game.
"""

from __future__ import annotations

import math

Z95 = 1.959963984540054
SMALL_HALF_WIDTH = 0.05  # above ±5 pp on a win share the run is too small to answer
TARGET_HALF_WIDTH = 0.025  # the games suggested give ±2.5 pp


def half_width(games: int, players: int) -> float:
    """The 95 % half-width (0–1) of a fair seat's win share over ``games`` games."""
    p = 1.0 / max(players, 2)
    return Z95 * math.sqrt(p * (1 - p) / max(games, 1))


def games_for(players: int, target: float = TARGET_HALF_WIDTH) -> int:
    """Games per arm that give a fair seat's win share a 95 % half-width of ``target``,
    rounded up to a hundred."""
    p = 1.0 / max(players, 2)
    return math.ceil((Z95 / target) ** 2 * p * (1 - p) / 100.0) * 100


def small_run(games: int, players: int, unit: str = "games per arm") -> str:
    """The opening line of a report over too few games (``""`` when the run is large enough):
    how uncertain the answers are and how many games would do.

    Parameters
    ----------
    games : int
        Games per arm (per seating for a tournament: give ``unit``).
    players : int
        Seats per game (the fair share is ``1 / players``).
    unit : str
        What ``games`` counts, for the sentence.
    """
    if games <= 0 or half_width(games, players) <= SMALL_HALF_WIDTH:
        return ""
    need = games_for(players)
    return (f"**Too few games to answer: only {games:,} {unit}.** At this size a seat's win "
            f"share is known to about ±{100 * half_width(games, players):.0f} pp (95 %), so "
            "every answer below is too uncertain to act on unless its effect is larger than "
            f"that. About {need:,} {unit} (`--games {need}`) bring it to "
            f"±{100 * TARGET_HALF_WIDTH:.1f} pp.")


__all__ = ["games_for", "half_width", "small_run"]
