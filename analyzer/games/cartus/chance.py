"""Every chance event of Rattus Cartus goes through these few named draws.

Tests force an outcome by building the piles directly or by monkeypatching one of these
functions. ``rng`` is always the game's chance generator (``game_streams`` child 0).
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import random
from collections.abc import Sequence


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle a pile in place (population deck, discard pile, building deck; rules §3, §4).

    The same Fisher-Yates walk and draws as ``random.Random.shuffle`` (so the same order for
    the same generator state; ``tests/games/cartus`` checks it), without a method call per card.
    """
    bits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        items[i], items[j] = items[j], items[i]


def sample(rng: random.Random, items: Sequence, k: int) -> list:
    """``k`` distinct items at random (building selection modes b and c, rules §3)."""
    return rng.sample(items, k)


def pick(rng: random.Random, n: int) -> int:
    """A uniform integer in ``0..n-1`` (random start player, rules §3 step 8)."""
    return rng.randrange(n)


def random_cards(rng: random.Random, hand: Sequence[int], k: int) -> list[int]:
    """``k`` random cards of a hand count vector, as a count vector (``sword_chooser = random``)."""
    pool = [t for t, c in enumerate(hand) for _ in range(c)]
    out = [0] * len(hand)
    for t in rng.sample(pool, k):
        out[t] += 1
    return out
