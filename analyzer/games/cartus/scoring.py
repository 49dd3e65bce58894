"""End of a Rattus Cartus game: the plague, the scores, the winner (docs/rules/cartus.md §7).

Pure functions of plain numbers, plus ``outcome(state)`` that applies them to a finished game.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from analyzer.games.cartus.config import JOKER, READ_ALL_DEAD, READ_DEAD_EXCLUDED
from analyzer.games.cartus.state import State
from analyzer.model.base import rank_and_won


def majority_points(values: Sequence[int], points: Sequence[int] = (10, 5, 2),
                    tie: str = "split_down") -> list[int]:
    """Points per seat for one majority (a track, hand cards or Gold; rules §7.2).

    Ranks are counted over the seats with more than 0; a seat with 0 scores nothing.

    Parameters
    ----------
    values : sequence of int, shape (n_seats,)
        Influence (or cards) per seat.
    points : sequence of int
        Points of the 1st, 2nd, 3rd… rank; ranks beyond it pay 0.
    tie : {"split_down", "all_full", "none"}
        ``split_down``: tied seats share the points of the ranks they occupy, rounded down;
        ``all_full``: each tied seat scores the best rank they share; ``none``: tied seats
        score nothing (and still use up their ranks).

    Returns
    -------
    list of int, shape (n_seats,)

    Examples
    --------
    >>> majority_points([6, 6, 3, 3, 0])
    [7, 7, 1, 1, 0]
    """
    out = [0] * len(values)
    pos = 0
    for v in sorted({x for x in values if x > 0}, reverse=True):
        group = [s for s, x in enumerate(values) if x == v]
        k = len(group)
        if tie == "split_down":
            each = sum(points[pos:pos + k]) // k
        elif tie == "all_full":
            each = points[pos] if pos < len(points) else 0
        else:
            each = points[pos] if (k == 1 and pos < len(points)) else 0
        for s in group:
            out[s] = each
        pos += k
        if pos >= len(points):
            break
    return out


def above_equal(others: Sequence[int], value: int) -> tuple[int, int]:
    """``(how many of others are above value, how many equal it)``: a seat's place on a track
    (rules §7.2)."""
    above = equal = 0
    for x in others:
        if x > value:
            above += 1
        elif x == value:
            equal += 1
    return above, equal


def seat_points(others: Sequence[int], value: int, points: Sequence[int] = (10, 5, 2),
                tie: str = "split_down") -> int:
    """One seat's points of ``majority_points`` given the other seats' values (rules §7.2).

    Equal to ``majority_points(others + [value], points, tie)[-1]``, in O(n) without sorting;
    for a policy's look-ahead.
    """
    if value <= 0:
        return 0
    above, equal = above_equal(others, value)
    if above >= len(points):
        return 0
    if tie == "split_down":
        return sum(points[above:above + equal + 1]) // (equal + 1)
    if tie == "all_full" or not equal:
        return points[above]
    return 0


@functools.cache
def rank_table(points: tuple[int, ...], tie: str, n: int) -> tuple[tuple[int, ...], ...]:
    """``table[above][equal]``: a seat's ``majority_points`` with ``above`` of the other
    ``n - 1`` seats ahead of it and ``equal`` tied with it (``seat_points``; rules §7.2)."""
    return tuple(tuple(seat_points([2] * above + [1] * equal, 1, points, tie) for equal in range(n - above))
                 for above in range(n))


def _majority(values: Sequence[int], table: tuple[tuple[int, ...], ...]) -> list[int]:
    """``majority_points(values, points, tie)`` through ``rank_table(points, tie, len(values))``."""
    srt = sorted(values)
    n = len(srt)
    out = []
    for v in values:
        if v <= 0:
            out.append(0)
        else:
            hi = bisect_right(srt, v)
            out.append(table[n - hi][hi - bisect_left(srt, v, 0, hi) - 1])
    return out


def track_points(influence: Sequence[int], points: Sequence[int] = (10, 5, 2)) -> list[int]:
    """Points per seat on one influence track under the default tie rule (rules §7.2).

    Parameters
    ----------
    influence : sequence of int, shape (n_seats,)
    points : sequence of int
        1st / 2nd / 3rd rank points (default 10 / 5 / 2).

    Returns
    -------
    list of int, shape (n_seats,)
        Tied seats share the points of the ranks they occupy, rounded down; 0 influence
        scores nothing.
    """
    return majority_points(influence, points, "split_down")


def tie_scores(values: Sequence[int], places: int) -> bool:
    """Whether the tie rule of a majority decides points: two or more seats above 0 share a
    value whose best place still pays (one of the first ``places``) (rules §7.2 ties [G]).

    Examples
    --------
    >>> tie_scores([6, 6, 3, 0], 3), tie_scores([6, 5, 4, 3, 3], 3), tie_scores([0, 0, 4, 1], 3)
    (True, False, False)
    """
    pos = 0
    for v in sorted({x for x in values if x > 0}, reverse=True):
        k = values.count(v)
        if k > 1:
            return True
        pos += k
        if pos >= places:
            break
    return False


def survivors(rats: Sequence[int], nuns: int) -> list[bool]:
    """Who survives the plague: rats not more than the Nun-row's nun total (rules §7.1 step 3).

    Parameters
    ----------
    rats : sequence of int, shape (n_seats,)
        Rat totals.
    nuns : int
        Sum of the nun symbols of the Nun-row (0–20 by default).

    Returns
    -------
    list of bool
        ``True`` for a survivor; equal to the nun total survives.
    """
    return [r <= nuns for r in rats]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game: plague, score parts per seat, ranks and win shares (rules §7)."""

    nuns: int
    alive: tuple[bool, ...]
    tracks: tuple[tuple[int, ...], ...]  # [seat][class] track points
    vp_score: tuple[int, ...]
    gold_score: tuple[int, ...]
    hand_score: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    won: tuple[float, ...]
    winners: tuple[int, ...]
    majority_ties: int = 0  # majorities (tracks, hand, Gold) whose points a tie rule split (§7.2 [G])
    dead_in_majorities: int = 0  # majorities where a dead seat held a paying place (§7.2 [G])


def outcome(st: State) -> Outcome:
    """Reveal the Nun-row, mark the dead, score everyone, pick the winner (rules §7.1–§7.3).

    Majorities count every seat unless ``dead_excluded_from_majorities`` (then the dead count
    0). The winner is the surviving seat with most VP, then fewest rats; a further tie is
    shared. If all die: no winner, or (``all_dead_result = fewest_rats``) the fewest rats win.
    """
    cfg, n = st.cfg, st.n
    nuns = sum(st.nun_row)
    alive = survivors(st.rats, nuns)
    table = rank_table(cfg.track_points, cfg.track_tie, n)  # majority_points as a lookup
    dead_out = False
    if not all(alive):
        cfg.reads[0] |= READ_DEAD_EXCLUDED
        dead_out = cfg.dead_excluded_from_majorities

    places = len(cfg.track_points)
    # [ties, dead in majorities]: a list, as mypyc's nested functions rebind no outer name
    acted = [0, 0]
    some_dead = any(alive) and not all(alive)  # the rule on the dead can shift survivors' points

    def maj(vals: Sequence[int]) -> list[int]:
        if some_dead and any(v > 0 and not alive[s] for s, v in enumerate(vals)):
            raw = _majority(vals, table)  # the dead counted, as by default
            if any(raw[s] > 0 for s in range(n) if not alive[s]):
                acted[1] += 1
        if dead_out:
            vals = [v if alive[s] else 0 for s, v in enumerate(vals)]
        if tie_scores(vals, places):
            acted[0] += 1
        return _majority(vals, table)

    tracks = tuple(zip(*map(maj, zip(*st.influence))))  # [seat][class]
    held = [sum(h[:JOKER + 1]) for h in st.hands]
    hand = held if cfg.hand_scoring == "1vp_each" else maj(held)
    gold = list(st.gold) if cfg.gold_scoring == "1vp_each" else maj(st.gold)
    vp = [v * cfg.vp_token_value for v in st.vp]
    scores = [sum(tracks[s]) + vp[s] + gold[s] + hand[s] for s in range(n)]
    neg_rats = [-r for r in st.rats]
    if any(alive):
        ranks, won = rank_and_won([1 if a else 0 for a in alive], (scores, neg_rats))
    else:
        cfg.reads[0] |= READ_ALL_DEAD
        if cfg.all_dead_result == "fewest_rats":
            ranks, won = rank_and_won(neg_rats)
        else:
            ranks, _ = rank_and_won(scores, (neg_rats,))
            won = [0.0] * n
    winners = tuple(s for s in range(n) if won[s] > 0)
    return Outcome(nuns, tuple(alive), tracks, tuple(vp), tuple(gold), tuple(hand), tuple(scores),
                   tuple(ranks), tuple(won), winners, acted[0], acted[1])


def describe(st: State, out: Outcome) -> list[str]:
    """Replay-log lines for the end of the game (rules §7)."""
    lines = [f"end: Nun-row {'+'.join(map(str, st.nun_row))} = {out.nuns} nuns"]
    names = st.cfg.class_names
    for s in range(st.n):
        tracks = ", ".join(f"{names[k]} {v}" for k, v in enumerate(out.tracks[s]) if v) or "none"
        lines.append(f"end: seat {s} rats {st.rats[s]} {'survives' if out.alive[s] else 'dies'};"
                     f" tracks {sum(out.tracks[s])} ({tracks}) vp {out.vp_score[s]}"
                     f" gold {out.gold_score[s]} hand {out.hand_score[s]} = {out.scores[s]} (rank {out.ranks[s]})")
    lines.append("end: winner " + (", ".join(f"seat {s}" for s in out.winners) if out.winners else "none (all dead)"))
    return lines
