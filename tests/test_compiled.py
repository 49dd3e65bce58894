"""The compiled Rattus Cartus modules (setup.py, mypyc; issue 7) are current and play exactly
the games the pure-Python source plays."""

from __future__ import annotations

import ast
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analyzer.games.cartus import default_config, play_game

ROOT = Path(__file__).resolve().parents[1]
PURE = os.environ.get("ANALYZER_PURE_PYTHON") == "1"


def compiled_names() -> tuple[str, ...]:
    """``CARTUS_MODULES`` of setup.py, read without running setup()."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CARTUS_MODULES":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no CARTUS_MODULES")


@pytest.mark.skipif(PURE, reason="installed with ANALYZER_PURE_PYTHON=1: nothing is compiled")
@pytest.mark.parametrize("name", compiled_names())
def test_cartus_module_is_compiled_and_current(name):
    """Each module is imported from its C extension, built after the source last changed;
    a stale one means `make test` (or `pip install -e .`) was skipped after an edit."""
    folder = ROOT / "analyzer" / "games" / "cartus"
    # what a fresh import finds (an imported compiled module's own __spec__ names a wrong path)
    origin = Path(importlib.machinery.PathFinder.find_spec(name, [str(folder)]).origin)
    source = folder / f"{name}.py"
    assert origin.suffix == ".so", f"{name} is not compiled: run `make test` to build it"
    assert origin.stat().st_mtime >= source.stat().st_mtime, \
        f"{origin.name} is older than {source.name}: run `make test` to rebuild it"


# 24 games over every policy and the three building-selection modes' default (rules/cartus.md §3)
GAMES = [(players, policy, seed) for players in (2, 4, 5) for policy in ("greedy", "cautious", "random")
         for seed in range(3)] + [(4, ["greedy", "random", "cautious", "greedy"], 9)]

PLAY = """
import json, sys
import numpy as np
import analyzer.games.cartus.policies as policies
from analyzer.games.cartus import default_config, play_game
assert policies.__spec__.origin.endswith(".py"), policies.__spec__.origin
out = [play_game(default_config(n), pol, np.random.SeedSequence(seed)) for n, pol, seed in json.load(sys.stdin)]
print(json.dumps(out))
"""


def test_pure_python_source_plays_the_same_games(tmp_path):
    """The same seeds give identical records from a copy of the package without extensions."""
    shutil.copytree(ROOT / "analyzer", tmp_path / "analyzer", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", PLAY], input=json.dumps(GAMES), cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    pure = json.loads(done.stdout)
    here = [play_game(default_config(n), pol, np.random.SeedSequence(seed)) for n, pol, seed in GAMES]
    assert json.loads(json.dumps(here)) == pure
