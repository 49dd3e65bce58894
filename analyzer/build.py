"""Which build of the game engines runs: compiled with mypyc or pure Python.

setup.py compiles the modules each game lists in ``COMPILED_MODULES`` (and the shared ones of
``analyzer.model``) to C extensions that sit beside the ``.py`` files and are imported first.
Without a working C compiler, or with ``ANALYZER_PURE_PYTHON=1``, it installs the pure-Python
package: the same games, about 2x slower. ``analyzer --version`` and ``analyzer bench`` say
which of the two is running (README, "Install").
"""

from __future__ import annotations

import importlib
import importlib.machinery
from types import ModuleType

from analyzer.games import available_games
from analyzer.model import COMPILED_MODULES


def engine_modules() -> list[str]:
    """Full names of the modules setup.py compiles: ``analyzer.model``'s shared
    ``COMPILED_MODULES``, then each game package's (the game packages are imported)."""
    names = [f"analyzer.model.{m}" for m in COMPILED_MODULES]
    for game in available_games():
        package = importlib.import_module(f"analyzer.games.{game}")
        names += [f"{package.__name__}.{m}" for m in getattr(package, "COMPILED_MODULES", ())]
    return names


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a C extension (a ``.so``/``.pyd`` file), not from
    Python source or bytecode."""
    return isinstance(getattr(module, "__loader__", None), importlib.machinery.ExtensionFileLoader)


def describe(compiled: int, total: int) -> str:
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
    """The running build in words (``describe``), from the engine modules as imported."""
    modules = [importlib.import_module(name) for name in engine_modules()]
    return describe(sum(is_compiled(m) for m in modules), len(modules))
