"""Build hook: compile the three game engines with mypyc (issue 7: games/s per core).

The modules stay ordinary, readable Python and are the source of truth; mypyc compiles them
unchanged to C extensions that sit beside them and are imported first. Set
``ANALYZER_PURE_PYTHON=1`` when installing to skip compiling (same games, 1.5-2.5x slower).
Everything else about the package is in ``pyproject.toml``.
"""

import os

from setuptools import setup

# game -> the modules one game runs through (tests/test_compiled.py reads this dict)
COMPILED = {
    "cartus": ("config", "chance", "state", "scoring", "resolution", "policies", "engine"),
    "rattus": ("config", "state", "plague", "cards", "scoring", "policies", "engine"),
    "pyramidion": ("config", "chance", "state", "resolution", "loading", "metrics", "site_play", "policies",
                   "scoring", "engine"),
}

ext_modules = []
if os.environ.get("ANALYZER_PURE_PYTHON") != "1":
    from mypyc.build import mypycify

    for game, modules in COMPILED.items():
        sources = [f"analyzer/games/{game}/{m}.py" for m in modules]
        # type-check the compiled modules only, not all they import; numpy and the other run-time
        # dependencies are not installed yet in pip's isolated build environment
        flags = ["--follow-imports=silent", "--ignore-missing-imports"]
        ext_modules += mypycify([*sources, *flags], group_name=f"analyzer.games.{game}.native")

setup(ext_modules=ext_modules)
