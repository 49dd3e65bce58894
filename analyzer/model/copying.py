"""One way to copy a game position, shared by every game.

A game's ``State`` is a dataclass: its fields are listed once, in the class body. ``copy_fields``
copies any such position from that list, so adding a field never means editing a copy. (A game
may write a hot ``copy`` out field by field, a third of the cost compiled; a test sets every
field and compares it with ``copy_fields``, so a field it leaves out fails.)
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of the dataclass ``cls`` in declaration order (``dataclasses.fields``).

    Raises ``TypeError`` if ``cls`` is not a dataclass."""
    return tuple([f.name for f in fields(cls)])


def copy_fields(src: T, names: tuple[str, ...]) -> T:
    """A new object of ``src``'s class, its ``__init__`` not run, with each field in ``names``
    taken from ``src``: a list is copied, a list of lists one level deeper; anything else
    (numbers, strings, tuples, dicts of options, the config, a generator) is shared, so a field
    holding another mutable object must be copied by the caller."""
    cls: Any = type(src)
    out = cls.__new__(cls)
    for name in names:
        x = getattr(src, name)
        if type(x) is list:
            x = [r[:] for r in x] if x and type(x[0]) is list else x[:]
        setattr(out, name, x)
    return out
