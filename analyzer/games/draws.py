"""Random draws shared by the engines, compiled with mypyc (setup.py).

``shuffle`` is ``random.Random.shuffle`` without the interpreter: the same Fisher–Yates walk
with the same draws, so the same generator state gives the same order. Determinizing a state
for search (``GameState.determinize``) shuffles every hidden pool once per search iteration,
where the interpreted ``random.shuffle`` cost about a third of a determinization.
"""

from __future__ import annotations

import random


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does (same result, same
    generator state afterwards)."""
    bits = rng.getrandbits
    i = len(items) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j: int = bits(k)
        while j >= n:
            j = bits(k)
        items[i], items[j] = items[j], items[i]
        i -= 1
