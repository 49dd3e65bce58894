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


def shuffle(rng: random.Random, items: list) -> int:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does (same result, same
    generator state afterwards). Returns the 32-bit words drawn from ``rng`` (each
    ``getrandbits(k)`` here has ``k`` <= 32 and draws one word; see ``advanced``)."""
    bits = rng.getrandbits
    words = 0
    i = len(items) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j: int = bits(k)
        words += 1
        while j >= n:
            j = bits(k)
            words += 1
        items[i], items[j] = items[j], items[i]
        i -= 1
    return words


def advanced(seed: int, words: int) -> random.Random:
    """``random.Random(seed)`` after ``words`` 32-bit words were drawn from it: the state that
    any ``words`` draws ``getrandbits(k)`` with 1 <= ``k`` <= 32 (``shuffle``, ``randbelow``)
    leave, reached in one draw of ``32 * words`` bits (the Mersenne Twister hands out one word
    per draw of at most 32 bits, and a wider draw takes its words in turn).

    A copy of a generator known this way costs a seeding, about a third of copying its state
    (``getstate`` then ``setstate``, 625 Python ints each way).
    """
    rng = random.Random(seed)
    if words > 0:
        rng.getrandbits(32 * words)
    return rng


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
