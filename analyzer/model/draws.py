"""Random draws shared by the engines, compiled with mypyc (setup.py).

``shuffle`` is ``random.Random.shuffle`` and ``randbelow(rng, n)`` is ``rng.randrange(n)``
without the interpreter: the same walk with the same ``getrandbits`` draws, so the same
generator state gives the same result and leaves the same state. Determinizing a state for
search (``GameState.determinize``) shuffles every hidden pool once per search iteration, where
the interpreted ``random.shuffle`` cost about a third of a determinization; ``randbelow`` is
drawn at every token reveal and every tie a player breaks.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

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


def copy_rng(rng: random.Random) -> random.Random:
    """An independent generator in the same state as ``rng`` (``getstate``/``setstate``; no
    seeding, so no read of the OS's entropy as ``random.Random()`` does)."""
    other = random.Random.__new__(random.Random)
    other.setstate(rng.getstate())
    return other


def randbelow(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n >= 1``: a uniform int in ``[0, n)``, the same value as
    ``randrange`` draws and the same generator state afterwards.

    Raises
    ------
    ValueError
        ``n < 1`` (as ``randrange``).
    """
    if n <= 0:
        raise ValueError("empty range for randbelow()")
    bits = rng.getrandbits
    k = n.bit_length()
    r: int = bits(k)
    while r >= n:
        r = bits(k)
    return r
