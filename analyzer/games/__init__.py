"""Registry of the games analyzer can play: name -> ``GameSpec`` (see ``model/base.py``).

A game is a subpackage ``analyzer/games/<name>/`` exposing ``SPEC``: the registry finds the
packages in this folder, so adding a game touches only its own folder. Packages are imported
lazily, so that a command about one game never pays for the others; an error while importing
one is a bug and propagates with its traceback (a game never silently drops out of the list).
"""

from __future__ import annotations

import importlib
import pkgutil

from analyzer.errors import RuleError
from analyzer.model.base import GameSpec

# Extra specs registered at run time (tests register a toy game here); never used by the CLI.
_REGISTERED: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> None:
    """Make ``spec`` available to ``get_game(spec.name)``; a test hook for toy games."""
    _REGISTERED[spec.name] = spec


def available_games() -> list[str]:
    """Names of the game packages in ``analyzer/games/``, alphabetical (not the ones
    ``register_game`` added). Nothing is imported."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def get_game(name: str) -> GameSpec:
    """The ``GameSpec`` of a game: a package of ``analyzer/games/`` or a registered spec.

    Raises
    ------
    RuleError
        ``name`` is not a game.
    Exception
        Whatever importing the game's package raised (a bug in the package, not a user error).
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    games = available_games()
    if name not in games:
        allowed = ", ".join((*games, *_REGISTERED))
        raise RuleError("game", f"unknown game {name!r} (allowed: {allowed})")
    return importlib.import_module(f"{__name__}.{name}").SPEC
