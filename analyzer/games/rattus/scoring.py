"""Final scoring: pure functions of a finished position (docs/rules/rattus.md §2.3, §9, §10.4, §10.5)."""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Sequence

from analyzer.games.rattus.config import READ_TIES_COUNT

DEFAULT_DIPLOMAT_POINTS = (4, 2, 6, 2, 3)  # first, second, tie-first pool, tie-second pool, 2p tie each


def diplomat_points(diplomats: Sequence[int], n_players: int, table: Sequence[int] = DEFAULT_DIPLOMAT_POINTS) -> list[int]:
    """Points per seat from the final diplomat-disc counts (§2.3, Q9, Q10).

    Parameters
    ----------
    diplomats : sequence of int, shape (n_seats,)
        Discs of each seat still on the board after the final plague.
    n_players : int
        Player count; at 2 players second place scores nothing.
    table : sequence of int, length 5
        ``(first, second, tie-first pool, tie-second pool, 2-player tie each)``, default
        ``(4, 2, 6, 2, 3)``.

    Returns
    -------
    list of int, shape (n_seats,)
        Most discs alone: ``first``; tied for most (k seats): ``floor(pool/k)`` each and no second
        place; second alone: ``second``; tied for second: ``floor(pool2/k)`` each. A seat with no
        disc never scores (§2.3 default).
    """
    first, second, pool1, pool2, tie2p = table
    out = [0] * len(diplomats)
    counted = [d for d in diplomats if d > 0]
    if not counted:
        return out
    top = max(counted)
    firsts = [s for s, d in enumerate(diplomats) if d == top]
    if len(firsts) > 1:
        each = tie2p if n_players == 2 else pool1 // len(firsts)
        for s in firsts:
            out[s] = each
        return out
    out[firsts[0]] = first
    if n_players == 2:
        return out
    rest = [d for d in counted if d < top]
    if not rest:
        return out
    runner = max(rest)
    seconds = [s for s, d in enumerate(diplomats) if d == runner]
    each = second if len(seconds) == 1 else pool2 // len(seconds)
    for s in seconds:
        out[s] = each
    return out


def region_card_points(hands: Sequence[Sequence[int]], cubes: Sequence[Sequence[int]], card_region: Sequence[int],
                       points: int = 1, ties_count: bool = True, reads: list[int] | None = None) -> list[int]:
    """Points for region cards in hand (§9 default, Q17).

    Parameters
    ----------
    hands : sequence of sequence of int, shape (n_seats, cards)
        Region-card ids in each hand.
    cubes : sequence of sequence of int, shape (n_regions, n_seats)
        Cubes per region and seat after the final plague.
    card_region : sequence of int
        Region index named by each card id.
    points : int
        Points per scoring card.
    ties_count : bool
        A tie for most cubes counts as the majority.
    reads : list of int, optional
        The config's ``reads``: ``config.READ_TIES_COUNT`` is set when a card's holder ties
        (only then does ``ties_count`` decide).

    Returns
    -------
    list of int, shape (n_seats,)
        A card scores if its holder has at least 1 cube in its region and the (tied) majority.
    """
    alone, tied = region_card_majorities(hands, cubes, card_region)
    if reads is not None and any(tied):
        reads[0] |= READ_TIES_COUNT
    return [points * (alone[p] + (tied[p] if ties_count else 0)) for p in range(len(hands))]


def region_card_majorities(hands: Sequence[Sequence[int]], cubes: Sequence[Sequence[int]],
                           card_region: Sequence[int]) -> tuple[list[int], list[int]]:
    """Per seat, its region cards in hand whose region it leads alone, and those whose region it
    ties for most cubes (at least 1 cube): the cards §9's labelled defaults decide.

    Parameters as ``region_card_points``. Returns ``(alone, tied)``, each shape (n_seats,).
    """
    alone = [0] * len(hands)
    tied = [0] * len(hands)
    for p, hand in enumerate(hands):
        for cid in hand:
            row = cubes[card_region[cid]]
            mine = row[p]
            if mine == 0:
                continue
            others = 0  # most cubes of another seat (counts are >= 0; no generator per card)
            for q in range(len(row)):
                if q != p and row[q] > others:
                    others = row[q]
            if mine > others:
                alone[p] += 1
            elif mine == others:
                tied[p] += 1
    return alone, tied


def tiebreak_keys(n_players: int, last_seat: int) -> list[float]:
    """Tie-break key per seat, higher wins (§10.5): the player who would play next wins ties.

    Order: ``last_seat + 1, last_seat + 2, …, last_seat``; the player who ended the game loses
    every tie. Keys are ``n_players - 1`` down to ``0`` along that order.
    """
    return [float(n_players - 1 - ((s - last_seat - 1) % n_players)) for s in range(n_players)]
