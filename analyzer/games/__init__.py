"""Registry of the games analyzer can play: name -> ``GameSpec`` (see ``games/base.py``).

Game packages are imported lazily so that a command about one game never pays for the others.
"""

from __future__ import annotations

import importlib

from analyzer.errors import RuleError
from analyzer.games.base import GameSpec

GAMES: tuple[str, ...] = ("rattus", "cartus", "pyramidion")

# Extra specs registered at run time (tests register a toy game here); never used by the CLI.
_REGISTERED: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> None:
    """Make ``spec`` available to ``get_game(spec.name)``; a test hook for toy games."""
    _REGISTERED[spec.name] = spec


def get_game(name: str) -> GameSpec:
    """The ``GameSpec`` of a registered game.

    Raises
    ------
    RuleError
        ``name`` is not a registered game (or its package is not built yet).
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name not in GAMES:
        allowed = ", ".join((*GAMES, *_REGISTERED))
        raise RuleError("game", f"unknown game {name!r} (allowed: {allowed})")
    try:
        module = importlib.import_module(f"analyzer.games.{name}")
    except ModuleNotFoundError as err:
        if err.name and err.name.startswith(f"analyzer.games.{name}"):
            raise RuleError("game", f"game {name!r} is not implemented yet") from None
        raise
    return module.SPEC


def available_games() -> list[str]:
    """Names of the registered games whose package imports."""
    out = []
    for name in GAMES:
        try:
            get_game(name)
        except RuleError:
            continue
        out.append(name)
    return out
