"""The named chance draws of a Pyramidion game (docs/rules/pyramidion.md §14.1).

All chance goes through these functions, so a test can force outcomes by setting the piles.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import random

from analyzer.games.pyramidion.state import State


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle a deck or stack in place (boats, cards, distribution cards, revolt tiles)."""
    rng.shuffle(items)


def draw_start_player(rng: random.Random, n: int) -> int:
    """The random start player (§4)."""
    return rng.randrange(n)


def reshuffle_discards(st: State, rng: random.Random) -> None:
    """The common discard pile becomes the new, shuffled draw pile (§5 phase 4 default).

    ``reshuffles`` counts these: a card drawn afterwards is known to come from the new pile.
    """
    st.draw_pile, st.discard_pile = st.discard_pile, []
    shuffle(rng, st.draw_pile)
    st.reshuffles += 1


def draw_card(st: State, rng: random.Random, seat: int) -> bool:
    """Draw the top common card into ``seat``'s hand (§5 phase 4); reshuffle the discards if the
    pile is empty. Returns ``False`` when both piles are empty (nothing drawn). The card is
    hidden from the other seats."""
    if not st.draw_pile:
        if not st.discard_pile:
            return False
        reshuffle_discards(st, rng)
    c = st.draw_pile.pop()
    st.pub[c] = False
    st.epoch[c] = st.reshuffles
    st.hand[seat].append(c)
    return True


def draw_revolt_tiles(st: State, k: int) -> list[int]:
    """Take ``k`` revolt tiles from the top of the stack (§5 phase 5 step 4)."""
    return [st.revolt_stack.pop() for _ in range(k)]


def draw_good(rng: random.Random, goods: list[int]) -> int:
    """A good kind drawn blind from a holding (one draw among its tokens): the Thief's take
    when goods are hidden (§3.1 variant, §10.2 Thief)."""
    i = rng.randrange(sum(goods))
    for k, count in enumerate(goods):
        if i < count:
            return k
        i -= count
    raise AssertionError("draw_good from an empty holding")
