"""Pure functions for the site resolution steps (docs/rules/pyramidion.md §5 phase 5, steps 4–7).

They depend only on the totals, the revolt strength, the site minimum and the Philosopher
holder (§14.3), so they are tested directly with the seed's worked examples.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Sequence


def revolt_result(influence: Sequence[int], has_cards: Sequence[bool], strength: int,
                  winner_must_survive: bool = True) -> tuple[list[bool], int]:
    """Who loses his cards to a revolt and who puts it down (§5 phase 5 step 4, §1.1).

    Parameters
    ----------
    influence : sequence of int, shape (n_seats,)
        Each seat's influence total at the site (points).
    has_cards : sequence of bool, shape (n_seats,)
        Whether the seat has any card at the site; seats without cards are unaffected.
    strength : int
        Sum of the drawn revolt tiles' values.
    winner_must_survive : bool
        Default ``True``: only seats with influence >= strength can win. ``False``: the unique
        highest influence among seats with cards wins even if it is below the strength.

    Returns
    -------
    (list of bool, int)
        ``lost[s]`` (influence below the strength: discards all his cards there) and the winner
        seat, or -1 when nobody qualifies or the highest total is shared.
    """
    n = len(influence)
    lost = [has_cards[s] and influence[s] < strength for s in range(n)]
    cands = [s for s in range(n) if has_cards[s] and (not winner_must_survive or not lost[s])]
    if not cands:
        return lost, -1
    best = max(influence[s] for s in cands)
    top = [s for s in cands if influence[s] == best]
    return lost, top[0] if len(top) == 1 else -1


def step_winner(totals: Sequence[int], minimum: int, philosopher: int = -1) -> int:
    """The seat that wins a slave-driver, negotiator or merchant step (§5 phase 5 steps 5–7).

    Parameters
    ----------
    totals : sequence of int, shape (n_seats,)
        Each seat's total in the step's category over the cards still at the site (points).
    minimum : int
        The site's minimum requirement for that category (points).
    philosopher : int
        Seat holding the Philosopher token when its tie rule is on (§10.2), else -1.

    Returns
    -------
    int
        The unique highest total if it reaches the minimum; on a shared highest total the
        Philosopher holder if he is among the tied seats (and reaches the minimum); else -1.
        A total of 0 is a total like any other: it meets a minimum of 0 (a site where no card
        is left changes nothing, but that is the caller's test: ``SitePlay.resolve``).
    """
    best = max(totals)
    if best < minimum:
        return -1
    winner = -1
    for s, t in enumerate(totals):
        if t == best:
            if winner >= 0:
                return philosopher if philosopher >= 0 and totals[philosopher] == best else -1
            winner = s
    return winner


def new_player_order(order: Sequence[int], takers: Sequence[int]) -> list[int]:
    """Player order after phase 6 (§5 phase 6): tile holders first, in tile order, then the rest.

    Parameters
    ----------
    order : sequence of int
        The previous player order (seats).
    takers : sequence of int
        Seats in the order they took player-order tiles at Giza (tile 1 first).
    """
    return list(takers) + [p for p in order if p not in takers]


# -- Stable interface (used by checks outside the project): keep names, signatures, meaning.

def revolt(influence: Sequence[int], strength: int) -> tuple[list[bool], int | None]:
    """A revolt at a site, for the seats that played cards there (§1.1, §5 phase 5 step 4).

    Parameters
    ----------
    influence : sequence of int, shape (n_seats,)
        Influence each of those seats committed at the site (points).
    strength : int
        Revolt strength: the sum of the drawn revolt tiles' values.

    Returns
    -------
    (list of bool, int or None)
        ``discards[s]`` is true when seat ``s``'s influence is below the strength (it discards
        every card it has at the site); the second value is the seat that takes the tiles'
        goods — the single highest influence among the seats that stay — or ``None`` when
        nobody stays or the highest total is shared.

    Examples
    --------
    The seed's Luxor example: strength 13; Red 9 leaves, Yellow 14 stays, Blue 15 takes the goods.

    >>> revolt([9, 14, 15], 13)
    ([True, False, False], 2)
    """
    lost, winner = revolt_result(influence, [True] * len(influence), strength)
    return lost, (None if winner < 0 else winner)


def award(totals: Sequence[int], minimum: int) -> int | None:
    """The seat that wins a slave-driver, negotiator or merchant step (§1.2, §5 phase 5 steps 5–7).

    Parameters
    ----------
    totals : sequence of int, shape (n_seats,)
        Each seat's total in the step's category at the site (points).
    minimum : int
        The site's minimum requirement for that category (points).

    Returns
    -------
    int or None
        The seat with the single highest total if that total is at least ``minimum``; ``None``
        on a shared highest total or below the minimum. (The engine's ``step_winner`` adds the
        Philosopher's tie rule of §10.2.)

    Examples
    --------
    >>> award([7, 3, 5], 6)   # Thebes: Blue's 7 meets the minimum
    0
    >>> award([6, 6], 5)      # Karnak: a 6–6 trade tie leaves the goods
    """
    best = max(totals)
    if best < minimum:
        return None
    top = [s for s, t in enumerate(totals) if t == best]
    return top[0] if len(top) == 1 else None
