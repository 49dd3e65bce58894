"""Pure scoring of a finished Pyramidion position (docs/rules/pyramidion.md §6)."""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Sequence

from analyzer.model.base import rank_and_won


def tiebreak_keys(boats: Sequence[int], goods: Sequence[int], order: Sequence[str]) -> list[list[int]]:
    """Tie-break key columns in the configured order (§6 default: boats, goods, shared).

    Parameters
    ----------
    boats, goods : sequence of int, shape (n_seats,)
        Boats loaded and goods left (statues count) per seat.
    order : sequence of str
        ``tiebreak`` option, e.g. ``("boats", "goods", "shared")``; "shared" ends the list.
    """
    cols = {"boats": list(boats), "goods": list(goods)}
    return [cols[k] for k in order if k != "shared"]


def final_ranking(vp: Sequence[int], boats: Sequence[int], goods: Sequence[int],
                  order: Sequence[str] = ("boats", "goods", "shared")) -> tuple[list[int], list[float], list[int]]:
    """Ranks, win shares and winner seats from final VP (§6: most VP wins, then tie-breaks).

    Returns
    -------
    (list of int, list of float, list of int)
        Rank per seat (1 = best), ``won`` per seat (1/k for a k-way shared win) and the
        winner seats in seat order.
    """
    ranks, won = rank_and_won(list(vp), tiebreak_keys(boats, goods, order))
    return ranks, won, [s for s, r in enumerate(ranks) if r == 1]
