"""Build hook: compile the Rattus Cartus hot loop with mypyc (issue 7: greedy >= 1,000 games/s).

The modules stay ordinary, readable Python and are the source of truth; mypyc compiles them
unchanged to C extensions that sit beside them and are imported first. Set
``ANALYZER_PURE_PYTHON=1`` when installing to skip compiling (same results, about 1.5x slower).
Everything else about the package is in ``pyproject.toml``.
"""

import os

from setuptools import setup

# the Rattus Cartus modules a game runs through (tests/test_compiled.py reads this tuple)
CARTUS_MODULES = ("config", "chance", "state", "scoring", "resolution", "policies", "engine")

ext_modules = []
if os.environ.get("ANALYZER_PURE_PYTHON") != "1":
    from mypyc.build import mypycify

    # --follow-imports=silent: type-check the compiled modules only, not all they import
    sources = [f"analyzer/games/cartus/{m}.py" for m in CARTUS_MODULES]
    ext_modules = mypycify([*sources, "--follow-imports=silent"], group_name="analyzer.games.cartus.native")

setup(ext_modules=ext_modules)
