"""The compiled game modules (setup.py, mypyc) are in use and play exactly the games
the pure-Python source plays (so an extension left stale after an edit shows here)."""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analyzer.games import available_games, get_game

ROOT = Path(__file__).resolve().parents[1]
PURE = os.environ.get("ANALYZER_PURE_PYTHON") == "1"


def compiled() -> dict[str, tuple[str, ...]]:
    """Package -> module names: the shared ``COMPILED_MODULES`` of ``analyzer.model`` and every
    game's (``analyzer.games.<game>``): the list setup.py compiles."""
    packages = ["analyzer.model", *(f"analyzer.games.{g}" for g in available_games())]
    return {p: importlib.import_module(p).COMPILED_MODULES for p in packages}


def test_setup_compiles_what_each_game_lists(monkeypatch):
    """setup.py reads each game's ``COMPILED_MODULES`` literal with ast (pip's build environment
    has none of the run-time dependencies to import the package with) and gets exactly what the
    package says; every listed module exists."""
    import setuptools

    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: None)  # read setup.py, build nothing
    monkeypatch.setenv("ANALYZER_PURE_PYTHON", "1")
    setup_py = runpy.run_path(str(ROOT / "setup.py"))
    listed = compiled()
    assert set(listed) == {"analyzer.model", *(f"analyzer.games.{g}" for g in available_games())}
    assert "play" in listed["analyzer.model"]
    assert setup_py["compiled_modules"]() == listed
    for package, modules in listed.items():
        for m in modules:
            assert (ROOT.joinpath(*package.split(".")) / f"{m}.py").is_file(), (package, m)


@pytest.mark.skipif(PURE, reason="installed with ANALYZER_PURE_PYTHON=1: nothing is compiled")
@pytest.mark.parametrize(("package", "name"), [(p, m) for p, ms in compiled().items() for m in ms])
def test_module_is_compiled(package, name):
    """Each module a game lists in ``COMPILED_MODULES`` is imported from its C extension (`make
    test` builds it)."""
    folder = ROOT.joinpath(*package.split("."))
    # what a fresh import finds (an imported compiled module's own __spec__ names a wrong path)
    origin = Path(importlib.machinery.PathFinder.find_spec(name, [str(folder)]).origin)
    assert origin.suffix == ".so", f"{package}.{name} is not compiled: run `make test` to build it"


# (game, players, expansions, rule options, policies, seed): every policy of each compiled game,
# mixed tables, and rule options that take other branches (docs/rules/cartus.md §3 selection modes,
# §4 D b ties, §5 Guard Tower, §6 targets; docs/rules/rattus.md with and without Africanus)
CARTUS_OPTIONS = [{"building_selection": "random_buildings"}, {"building_set_name": "first_game"},
                  {"tie_mode": "first_entered_premium", "sword_target": "any_player", "flute_target": "any_player"},
                  {"guard_tower_givers": "rechecked", "sword_chooser": "random", "rats_visible": False},
                  {"pass_mode": "none", "building_spaces": 2, "start_player": "random"}]
GAMES = ([("cartus", n, [], {}, policy, seed) for n in (2, 4, 5) for policy in ("greedy", "cautious", "random")
          for seed in range(3)]
         + [("cartus", 4, [], {}, ["greedy", "random", "cautious", "greedy"], 9)]
         + [("cartus", n, [], opts, "greedy", seed) for opts in CARTUS_OPTIONS for n, seed in ((3, 11), (4, 12))]
         + [("rattus", n, exp, {}, policy, seed) for n in (2, 4) for exp in ([], ["africanus"])
            for policy in ("greedy", "random") for seed in range(2)]
         + [("rattus", 3, ["africanus"], {}, ["greedy", "random", "greedy"], 5)]
         + [("pyramidion", n, [], {}, [policy] * n, seed) for n in (2, 3, 4)
            for policy in ("greedy", "tile-builder", "random") for seed in range(2)]
         + [("pyramidion", 4, [], {}, ["greedy", "tile-builder", "random", "greedy"], 7)])

PLAY = """
import json, sys
import numpy as np
from analyzer.games import get_game
out = []
for game, n, exp, opts, pol, seed in json.load(sys.stdin):
    spec = get_game(game)
    assert spec.play_game.__module__ and not sys.modules[spec.play_game.__module__].__spec__.origin.endswith(".so")
    out.append(spec.play_game(spec.make_config(n, exp, opts), pol, np.random.SeedSequence(seed)))
print(json.dumps(out))
"""


def _play_here() -> list:
    out = []
    for game, n, exp, opts, pol, seed in GAMES:
        spec = get_game(game)
        out.append(spec.play_game(spec.make_config(n, exp, opts), pol, np.random.SeedSequence(seed)))
    return json.loads(json.dumps(out))


def test_pure_python_source_plays_the_same_games(tmp_path):
    """The same seeds give identical records from a copy of the package without extensions."""
    shutil.copytree(ROOT / "analyzer", tmp_path / "analyzer", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", PLAY], input=json.dumps(GAMES), cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _play_here() == json.loads(done.stdout), \
        "the compiled extensions play other games than the source: run `make test` to rebuild them"


def test_policy_descriptions_survive_compilation():
    """mypyc drops docstrings; `analyzer list policies` reads them from the source instead
    (model.base.policy_doc), so every built-in policy keeps its one-line description."""
    from analyzer import api

    rows = api.catalogue("policies")
    assert {r["game"] for r in rows} >= set(available_games())
    empty = [(r["game"], r["policy"]) for r in rows if not r["doc"]]
    assert not empty, empty
    greedy = next(r["doc"] for r in rows if (r["game"], r["policy"]) == ("cartus", "greedy"))
    assert greedy == "One-step value maximiser: influence majorities, premium actions, risk of dying."
    random_doc = next(r["doc"] for r in rows if (r["game"], r["policy"]) == ("cartus", "random"))
    assert random_doc == "Uniformly random legal choices; each hand card is played with play_prob."


@pytest.mark.parametrize("game", available_games())
def test_policy_name_is_not_a_parameter(game):
    """A policy's only name is its registry key: no ``name``/``NAME`` attribute (which mypyc
    would make a dataclass field) becomes a parameter, compiled or not."""
    from analyzer.errors import RuleError
    from analyzer.model.base import build_policy, policy_params

    spec = get_game(game)
    for pname, cls in spec.policies.items():
        assert not {"name", "NAME"} & {p[0] for p in policy_params(cls)}, pname
        for attr in ("name", "NAME"):
            with pytest.raises(RuleError, match="unknown parameter"):
                build_policy(spec.policies, pname, {attr: "x"})
