"""Build hook: compile the game engines with mypyc (issue 7: games/s per core).

The modules stay ordinary, readable Python and are the source of truth; mypyc compiles them
unchanged to C extensions that sit beside them and are imported first. Set
``ANALYZER_PURE_PYTHON=1`` when installing to skip compiling (same games, 1.5-2.5x slower).
Everything else about the package is in ``pyproject.toml``.
"""

import ast
import os
from pathlib import Path

from setuptools import setup

GAMES = Path(__file__).resolve().parent / "analyzer" / "games"


def compiled_modules() -> dict[str, tuple[str, ...]]:
    """Package -> the modules one game runs through: ``""`` for the shared ones of
    ``analyzer/games`` (the play loop), then each game's, from the ``COMPILED_MODULES`` tuple of
    the package's ``__init__.py``, read with ast. Nothing is imported: the run-time dependencies
    are not installed in pip's isolated build environment."""
    out = {}
    for init in [GAMES / "__init__.py", *sorted(GAMES.glob("*/__init__.py"))]:
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED_MODULES":
                out["" if init.parent == GAMES else init.parent.name] = tuple(ast.literal_eval(node.value))
    return out


ext_modules = []
if os.environ.get("ANALYZER_PURE_PYTHON") != "1":
    from mypyc.build import mypycify

    for game, modules in compiled_modules().items():
        package = "analyzer.games" + (f".{game}" if game else "")
        sources = [f"{package.replace('.', '/')}/{m}.py" for m in modules]
        # type-check the compiled modules only, not all they import; numpy and the other run-time
        # dependencies are not installed yet in pip's isolated build environment
        flags = ["--follow-imports=silent", "--ignore-missing-imports"]
        ext_modules += mypycify([*sources, *flags], group_name=f"{package}.native")

setup(ext_modules=ext_modules)
