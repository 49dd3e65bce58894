"""The API's arguments checked against their annotations before anything runs.

Every public function of the Python API (``analyzer.api``) is wrapped in ``checked``: an
argument of the wrong type (``games="100"``, ``jobs=2.5``, ``out=5``, ``seat="0"``) is one
``OptionError`` naming the argument and the types allowed, raised before the function's body,
so nothing is played or written; an unknown keyword is one too. Numbers of an integral or real
type (``numpy.int64``) are passed on as ``int`` / ``float``. Values inside the right type
(``games=0``) are the function's own checks.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import os
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from analyzer.errors import OptionError

_NAMES = {bool: "true or false", int: "an integer", float: "a number", str: "a string",
          type(None): "None"}
# a value of each plain type; a bool is not an integer here
_PLAIN = {bool: lambda v: isinstance(v, bool), str: lambda v: isinstance(v, str),
          int: lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool),
          float: lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool),
          type(None): lambda v: v is None}


def accepts(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the type ``hint`` (an annotation: a class, ``X | Y``,
    ``Sequence[str]``, ``list[str]``, ``dict[...]``, ``Callable``, ``Any``). A ``bool`` is not
    an integer here, a ``str`` is not a sequence of strings, a path is a ``str`` or an
    ``os.PathLike``."""
    origin = typing.get_origin(hint)
    if hint is Any or hint is None and value is None:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(accepts(value, h) for h in typing.get_args(hint))
    if hint in _PLAIN:
        return _PLAIN[hint](value)
    if isinstance(hint, type) and issubclass(hint, os.PathLike):
        return isinstance(value, os.PathLike)
    if origin in (list, tuple, Sequence) or hint in (list, tuple, Sequence):
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            return False
        args = typing.get_args(hint)
        item = args[0] if args else Any
        return all(accepts(v, item) for v in value)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        return isinstance(value, Mapping)
    if origin is Callable or hint is Callable:
        return callable(value)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # an annotation this checker does not read: left to the function


def describe(hint: Any) -> str:
    """The type ``hint`` in words: ``"an integer or None"``."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        words = list(dict.fromkeys(describe(h) for h in typing.get_args(hint)))
        return " or ".join(words)
    if hint in _NAMES:
        return _NAMES[hint]
    if isinstance(hint, type) and issubclass(hint, os.PathLike):
        return "a path"
    if origin in (list, tuple, Sequence) or hint in (list, tuple, Sequence):
        args = typing.get_args(hint)
        return f"a list of {_plural(describe(args[0]))}" if args else "a list"
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        return "a table (dict)"
    if origin is Callable or hint is Callable:
        return "a function"
    return getattr(hint, "__name__", str(hint))


def _plural(word: str) -> str:
    return {"an integer": "integers", "a string": "strings", "a number": "numbers",
            "a path": "paths"}.get(word, word)


def _plain(value: Any) -> Any:
    """An integral or real number of another type (``numpy.int64``) as ``int`` / ``float``."""
    if isinstance(value, bool) or type(value) in (int, float):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def checked(func: Callable) -> Callable:
    """``func`` with its arguments checked against its annotations (module docstring).

    Raises
    ------
    OptionError
        An argument of the wrong type, or a keyword ``func`` does not take (``**kwargs``
        passed on are checked by the function they reach).
    """
    signature = inspect.signature(func)
    hints: dict[str, Any] = {}

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not hints:  # read once, at the first call: the annotations name later classes
            hints.update(typing.get_type_hints(func))
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            raise _refusal(func, signature, args, kwargs) from None
        for name, value in list(bound.arguments.items()):
            kind = signature.parameters[name].kind
            if kind in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL):
                continue
            hint = hints.get(name, Any)
            if not accepts(value, hint):
                raise OptionError(name, f"must be {describe(hint)} (got {value!r})")
            bound.arguments[name] = _plain(value)
        return func(*bound.args, **bound.kwargs)

    wrapper.checked = True  # type: ignore[attr-defined]
    return wrapper


def _refusal(func: Callable, signature: inspect.Signature, args: tuple,
             kwargs: dict) -> OptionError:
    """The error of a call ``signature.bind`` refused: an unknown keyword, a missing required
    argument, or too many positional ones."""
    params = signature.parameters
    named = [p.name for p in params.values()
             if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    for key in kwargs:
        if key not in params and not takes_any:
            return OptionError(key, f"not a keyword argument of {func.__name__} (allowed: "
                                    f"{', '.join(named)})")
    positional = [p for p in params.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i, p in enumerate(positional):
        if i >= len(args) and p.name not in kwargs and p.default is p.empty:
            return OptionError(p.name, "missing (a required argument)")
    for p in params.values():
        if p.kind is p.KEYWORD_ONLY and p.default is p.empty and p.name not in kwargs:
            return OptionError(p.name, "missing (a required keyword argument)")
    return OptionError("arguments", f"{func.__name__} takes {len(positional)} positional "
                                    f"argument(s) (got {len(args)})")
