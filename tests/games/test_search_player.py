"""The games' search player (``ismcts``, model/ismcts.py and model/treesearch.py): its tuned
rollout, its leaf-evaluation parameters, the compiled shuffle of determinizations."""

from __future__ import annotations

import importlib.machinery
import math
import os
import random
import runpy
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from analyzer.games import available_games, get_game
from analyzer.model.base import build_policy, game_streams
from analyzer.model.draws import shuffle
from analyzer.study.tune import dimensions

ROOT = Path(__file__).resolve().parents[2]
PURE = os.environ.get("ANALYZER_PURE_PYTHON") == "1"


def _params(path: Path) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)["params"]


@pytest.mark.parametrize("game", available_games())
def test_tuned_rollout_is_the_shipped_tuned_greedy(game):
    """``rollout = "tuned"`` plays the weights of scenarios/tuned/<game>-greedy.toml: the game's
    packaged copy holds the same parameters, and the rollout factory builds that policy."""
    spec = get_game(game)
    shipped = _params(ROOT / "scenarios" / "tuned" / f"{game}-greedy.toml")
    packaged = _params(ROOT / "analyzer" / "games" / game / "greedy-tuned.toml")
    assert packaged == shipped
    assert spec.policies["ismcts"].ROLLOUTS["tuned"]() == build_policy(spec.policies, "greedy", shipped)


def _mid_game(game: str, seed: int = 3, decisions: int = 60):
    spec = get_game(game)
    config = spec.make_config(4, spec.bench_table().expansions, {})
    state = spec.new_state(config, seed)
    _, rngs = game_streams(seed, 4)
    greedy = [build_policy(spec.policies, "greedy").player(s) for s in range(4)]
    for _ in range(decisions):
        s = state.current_seat()
        state.apply(greedy[s].choose(state.view(s), rngs[s]))
    return state


def test_rattus_leaf_scale_is_the_softmax_scale():
    """``leaf_scale`` is the softmax scale of ``heuristic_returns`` (docs/rules/rattus.md §10.4
    scores): the default is the engine's ``HEURISTIC_SCALE``; shares are a softmax of the same
    scores at every scale, so ratios between two seats are exp(score gap / scale)."""
    from analyzer.games.rattus.engine import HEURISTIC_SCALE

    state = _mid_game("rattus")
    pol = build_policy(get_game("rattus").policies, "ismcts", {"leaf_scale": 0.5})
    assert pol.leaf_returns(state) == state.heuristic_returns(0.5)
    base = state.heuristic_returns()
    assert base == state.heuristic_returns(HEURISTIC_SCALE)
    sharp = state.heuristic_returns(0.5)
    for p in range(4):  # the score gap read at one scale predicts the ratio at another
        gap = HEURISTIC_SCALE * math.log(base[0] / base[p])
        assert sharp[0] / sharp[p] == pytest.approx(math.exp(gap / 0.5), rel=1e-9)
    flat = state.heuristic_returns(1e9)
    assert flat == pytest.approx((0.25,) * 4)


def test_pyramidion_leaf_weights_reach_the_estimate():
    """Known answer (docs/rules/pyramidion.md §9): VP 2 and 0, three goods and no tile against
    none and one slave-driver tile; with good = 1, tile = 2, scale = 1 the scores are 5 and 2,
    so the shares are e^5 / (e^5 + e^2) and e^2 / (e^5 + e^2)."""
    from analyzer.games.pyramidion import default_config, new_state

    game = new_state(default_config(2), 1)
    st = game.st
    st.vp = [2, 0]
    st.goods = [[3] + [0] * (len(st.goods[0]) - 1), [0] * len(st.goods[1])]
    st.sd_owner = [1] + [-1] * (len(st.sd_owner) - 1)
    want = (math.exp(5) / (math.exp(5) + math.exp(2)), math.exp(2) / (math.exp(5) + math.exp(2)))
    assert game.heuristic_returns(1.0, 2.0, 1.0) == pytest.approx(want)
    pol = build_policy(get_game("pyramidion").policies, "ismcts",
                       {"leaf_good": 1.0, "leaf_tile": 2.0, "leaf_scale": 1.0})
    assert pol.leaf_returns(game) == pytest.approx(want)


# each game's own leaf-evaluation constants (a game without any: an empty set)
LEAF = {"rattus": {"leaf_scale"}, "cartus": {"leaf_scale", "leaf_rats"},
        "pyramidion": {"leaf_good", "leaf_tile", "leaf_scale"}}


@pytest.mark.parametrize("game", available_games())
def test_leaf_parameters_are_tunable(game):
    """``analyzer tune`` reaches the leaf evaluation: each constant is a bounded numeric
    parameter of ``ismcts``, as are the search's own."""
    assert game in LEAF, f"give {game}'s leaf constants in LEAF (an empty set if none)"
    dims, _ = dimensions(get_game(game), "ismcts")
    assert LEAF[game] | {"exploration", "prior", "rollout_depth", "tree_depth"} <= {
        d.name for d in dims}


def test_cartus_searches_the_heuristics_own_card_choice():
    """Cartus searches a few card sets per decision (``search_actions``); the rollout policy's
    own choice is always among the root actions, where it is not one of them too."""
    spec = get_game("cartus")
    config = spec.make_config(4, (), {})
    pol = build_policy(spec.policies, "ismcts", {"iterations": 8, "rollout": "greedy", "prior": 1.0})
    greedy = build_policy(spec.policies, "greedy")  # plays off-class cards the sets leave out
    found = 0
    for seed in range(60):
        state = spec.new_state(config, seed)
        _, rngs = game_streams(seed, 4)
        movers = [greedy.player(s) for s in range(4)]
        while not state.is_terminal() and found < 3:
            s = state.current_seat()
            view = state.view(s)
            choice = greedy.player(s).choose(view, random.Random(seed))
            if state.decision_kind() == "cards" and choice not in view.search_actions():
                searcher = pol.player(s)
                searcher.choose(view, random.Random(seed))
                assert choice in searcher.last_root.children
                found += 1
            state.apply(movers[s].choose(view, rngs[s]))
        if found >= 3:
            break
    assert found >= 3


@settings(max_examples=200, deadline=None)
@given(hst.integers(0, 2**63 - 1), hst.integers(0, 120))
def test_compiled_shuffle_is_random_shuffle(seed, n):
    """``draws.shuffle`` gives the order ``random.Random.shuffle`` gives and leaves the
    generator in the same state (so determinizations and records are unchanged)."""
    a, b = list(range(n)), list(range(n))
    r1, r2 = random.Random(seed), random.Random(seed)
    r1.shuffle(a)
    shuffle(r2, b)
    assert a == b and r1.getstate() == r2.getstate()


def test_setup_compiles_the_shared_search_modules(monkeypatch):
    """setup.py compiles the search loop and the shuffle beside the game engines; each is a C
    extension once installed (unless ANALYZER_PURE_PYTHON=1)."""
    import setuptools

    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: None)
    monkeypatch.setenv("ANALYZER_PURE_PYTHON", "1")
    shared = runpy.run_path(str(ROOT / "setup.py"))["compiled_modules"]()["analyzer.model"]
    assert {"draws", "treesearch"} <= set(shared)
    if PURE:
        return
    folder = ROOT / "analyzer" / "model"
    for name in ("draws", "treesearch"):
        origin = Path(importlib.machinery.PathFinder.find_spec(name, [str(folder)]).origin)
        assert origin.suffix == ".so", f"{name} is not compiled: run `make test` to build it"


def test_cartus_leaf_estimate_weighs_scores_by_the_chance_of_surviving():
    """Known answers (docs/rules/cartus.md §7): with 10 nuns on the Nun-row, seats with no rats
    survive almost surely and one with 100 rats dies, so the shares are a softmax of the first
    three seats' scores now at ``scale`` and 0; with 8 rats each and 4 more expected, each
    survives with probability 1 / (1 + e^1.5) and the shares add up to the chance that someone
    does, 1 - (1 - p)^4."""
    from analyzer.games.cartus import scoring

    state = _mid_game("cartus", seed=5, decisions=40)
    state.nun_row = [2, 2, 2, 2, 2]
    state.rats = [0, 0, 0, 100]
    scores = scoring.outcome(state).scores
    w = [math.exp(x / 5.0) for x in scores[:3]]
    want = [x / sum(w) for x in w] + [0.0]
    assert state.heuristic_returns(5.0) == pytest.approx(want, abs=1e-3)
    assert state.heuristic_returns() == scoring.outcome(state).won  # scale 0: scored as it stands
    state.rats = [8, 8, 8, 8]
    p = 1 / (1 + math.exp(1.5))
    assert sum(state.heuristic_returns(5.0, 4.0)) == pytest.approx(1 - (1 - p) ** 4)
    pol = build_policy(get_game("cartus").policies, "ismcts", {"leaf_scale": 5.0, "leaf_rats": 4.0})
    assert pol.leaf_returns(state) == state.heuristic_returns(5.0, 4.0)


def test_rattus_world_clones_carry_its_generator():
    """A determinized Rattus game's clone has the world's generator state, and the clone plays
    on as the world does."""
    state = _mid_game("rattus", seed=4, decisions=50)
    seat = state.current_seat()
    for seed in (1, 2**62 + 3):
        world = state.view(seat).determinize(seed)
        twin = world.clone()
        assert twin.rng.getstate() == world.rng.getstate()
        greedy = build_policy(get_game("rattus").policies, "greedy")
        for game in (world, twin):  # the same play and chance from the same streams
            movers, rngs = [greedy.player(s) for s in range(4)], [random.Random(s) for s in range(4)]
            while not game.is_terminal():
                s = game.current_seat()
                game.apply(movers[s].choose(game.view(s), rngs[s]))
        assert world.returns() == twin.returns()


# Records of seeded games with every seat a search player, pinned from main at commit f1b0649
# (before the search was made cheaper, issue #37): the speed-ups change no decision. The hash is
# of the records' JSON (sorted keys, floats rounded to 9 places).
PINNED = {"rattus": "3895fec20f19197d", "cartus": "3a61f2c19f16274f", "pyramidion": "adeab9eeeae5d4c2"}


def _rounded(x):
    if isinstance(x, float):
        return round(x, 9)
    if isinstance(x, dict):
        return {str(k): _rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v) for v in x]
    return x


def _records_hash(game: str, games: int = 2) -> str:
    """A hash of the records of ``games`` seeded 4-player games of ``game`` at its benchmark
    table, every seat ``ismcts`` at 6 iterations, ``close`` inf and the exact early stop
    (``settle`` 1; its other parameters the defaults)."""
    import hashlib
    import json

    spec = get_game(game)
    config = spec.make_config(4, spec.bench_table().expansions, {})
    pol = build_policy(spec.policies, "ismcts", {"iterations": 6, "close": math.inf, "settle": 1.0})
    out = hashlib.sha256()
    for seed in range(games):
        records = spec.play_game(config, [pol] * 4, 70 + seed)
        out.update(json.dumps(_rounded(records), sort_keys=True, default=str).encode())
    return out.hexdigest()[:16]


@pytest.mark.parametrize("game", available_games())
def test_search_records_are_pinned(game):
    """Seeded games with four search players give the records pinned before the search was
    made cheaper (``PINNED``): copies, generators and the collector pause change no decision,
    nor does ``close`` at its always-search setting (inf) or ``settle`` at its exact one (1)."""
    assert _records_hash(game) == PINNED[game]
