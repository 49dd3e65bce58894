"""Registry of the games analyzer can play: name -> ``GameSpec`` (see ``model/base.py``).

A game is a subpackage ``analyzer/games/<name>/`` exposing ``SPEC``: the registry finds the
packages in this folder, so adding a game touches only its own folder. Packages are imported
lazily, so that a command about one game never pays for the others; an error while importing
one is a bug and propagates with its traceback (a game never silently drops out of the list).

Which build of the game engines runs, compiled with mypyc or pure Python, is asked here too
(``engine_modules``, ``build``): setup.py compiles the modules each game package lists in
``COMPILED_MODULES`` (and the shared ones of ``analyzer.model``) to C extensions that sit beside
the ``.py`` files and are imported first. Without a working C compiler, or with
``ANALYZER_PURE_PYTHON=1``, it installs the pure-Python package: the same games, about 2x
slower. ``analyzer --version`` and ``analyzer bench`` say which of the two is running (README,
"Install").
"""

from __future__ import annotations

import importlib
import importlib.machinery
import pkgutil
from types import ModuleType

from analyzer.errors import RuleError
from analyzer.model import COMPILED_MODULES
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


# ------------------------------------------------------------------ which build runs


def engine_modules() -> list[str]:
    """Full names of the modules setup.py compiles: ``analyzer.model``'s shared
    ``COMPILED_MODULES``, then each game package's (the game packages are imported)."""
    names = [f"analyzer.model.{m}" for m in COMPILED_MODULES]
    for game in available_games():
        package = importlib.import_module(f"{__name__}.{game}")
        names += [f"{package.__name__}.{m}" for m in getattr(package, "COMPILED_MODULES", ())]
    return names


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a C extension (a ``.so``/``.pyd`` file), not from
    Python source or bytecode."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)


def describe_build(compiled: int, total: int) -> str:
    """The build in words, from how many of the ``total`` engine modules run compiled:
    ``"compiled engines (mypyc)"``, ``"pure Python engines (not compiled: about 2x slower;
    see README)"`` or ``"partly compiled engines (3 of 40 modules; reinstall to compile
    all)"``."""
    if total and compiled == total:
        return "compiled engines (mypyc)"
    if compiled == 0:
        return "pure Python engines (not compiled: about 2x slower; see README)"
    return f"partly compiled engines ({compiled} of {total} modules; reinstall to compile all)"


def build() -> str:
    """The running build in words (``describe_build``), from the engine modules as imported."""
    modules = [importlib.import_module(name) for name in engine_modules()]
    return describe_build(sum(is_compiled(m) for m in modules), len(modules))
