"""The compiled Rattus Cartus modules (setup.py, mypyc; issue 7) are in use and play exactly
the games the pure-Python source plays (so an extension left stale after an edit shows here)."""

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
def test_cartus_module_is_compiled(name):
    """Each module listed in setup.py is imported from its C extension (`make test` builds it)."""
    folder = ROOT / "analyzer" / "games" / "cartus"
    # what a fresh import finds (an imported compiled module's own __spec__ names a wrong path)
    origin = Path(importlib.machinery.PathFinder.find_spec(name, [str(folder)]).origin)
    assert origin.suffix == ".so", f"{name} is not compiled: run `make test` to build it"


# 34 games: every policy at 2, 4 and 5 players, mixed tables, and rule options that take
# other branches (rules/cartus.md §3 selection modes, §4 D b ties, §5 Guard Tower, §6 targets)
OPTIONS = [{"building_selection": "random_buildings"}, {"building_set_name": "first_game"},
           {"tie_mode": "first_entered_premium", "sword_target": "any_player", "flute_target": "any_player"},
           {"guard_tower_givers": "rechecked", "sword_chooser": "random", "rats_visible": False},
           {"pass_mode": "none", "building_spaces": 2, "start_player": "random"}]
GAMES = ([(players, policy, seed, {}) for players in (2, 4, 5) for policy in ("greedy", "cautious", "random")
          for seed in range(3)]
         + [(4, ["greedy", "random", "cautious", "greedy"], 9, {})]
         + [(n, "greedy", seed, opts) for opts in OPTIONS for n, seed in ((3, 11), (4, 12))])

PLAY = """
import json, sys
import numpy as np
import analyzer.games.cartus.policies as policies
from analyzer.games.cartus import default_config, play_game
assert policies.__spec__.origin.endswith(".py"), policies.__spec__.origin
out = [play_game(default_config(n, **o), pol, np.random.SeedSequence(s)) for n, pol, s, o in json.load(sys.stdin)]
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
    here = [play_game(default_config(n, **o), pol, np.random.SeedSequence(s)) for n, pol, s, o in GAMES]
    assert json.loads(json.dumps(here)) == pure
