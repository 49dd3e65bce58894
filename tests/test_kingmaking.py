"""quality:kingmaking (issue #36): counterfactual replays of the choices of seats that could no
longer win, on a toy with a planted kingmaker and one where no choice matters
(tests/kingtoy.py); records unchanged with the test on; determinism over jobs and chunks; the
flag's errors; a smoke run on each real game."""

from __future__ import annotations

import json

import kingtoy
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from analyzer import api, runner
from analyzer.cli import app
from analyzer.errors import OptionError
from analyzer.games import get_game, register_game
from analyzer.model.base import build_policy, game_streams
from analyzer.model.flow import (
    Checkpoints,
    Decision,
    Kingmaking,
    kingmaking,
    kingmaking_stream,
    out_from,
    play_recorded,
    play_with_choice,
)
from analyzer.report import finding_keys, quality, units

register_game(kingtoy.SPEC)


def _scenario(mode: str, games: int = 30, name: str = "king", variants: str = "") -> str:
    return (f'name = "{name}"\ngame = "kingtoy"\nplayers = 3\ngames = {games}\nseed = 5\n'
            f'seat_rotation = false\n\n[rules]\nmode = "{mode}"\n\n[[seats]]\n'
            f'policy = "random"\n{variants}')


def _one(mode: str, seed: int, samples: int) -> tuple[dict, Checkpoints, Kingmaking]:
    cfg = kingtoy.make_config(3, (), {"mode": mode})
    marks, king = Checkpoints(kingtoy.FLOW), Kingmaking(samples)
    game, _ = kingtoy.SPEC.play_game(cfg, "random", seed, checkpoints=marks,
                                         kingmaking_test=king)
    return game, marks, king


def test_planted_kingmaker_found_in_every_game_with_enough_samples():
    won = set()
    for seed in range(20):
        game, _, king = _one("planted", seed, samples=3)
        # seat 2 is out from round 4 on (estimate < 5 %): 3 decisions, 1 other option each
        assert king.candidates == 3 and king.kingmade == 1, (seed, king)
        assert 1 <= king.playouts <= 3
        won.add(game["winner_seats"])
    assert won == {"0", "1"}  # seat 2 makes either king
    # with one sample only the last-round choice (1 pair in 3) can show it: a share near 1/3
    shares = [_one("planted", seed, samples=1)[2].kingmade for seed in range(90)]
    assert 0.15 < sum(shares) / len(shares) < 0.55


def test_no_kingmaking_where_no_choice_matters():
    for seed in range(10):
        _, _, king = _one("null", seed, samples=10)
        assert king.candidates == 3 and king.playouts == 3 and king.kingmade == 0


def test_replaying_the_taken_choice_replays_the_game():
    """Common random numbers: the replay from the seed with the choice actually taken is the
    recorded game (same coin, same winner); with the other choice the coin is the same and the
    winner flips."""
    cfg = kingtoy.make_config(3, (), {"mode": "planted"})
    for seed in range(8):
        marks, decisions = Checkpoints(kingtoy.FLOW), []
        chance, rngs = game_streams(seed, 3)
        state = kingtoy.start(cfg, chance, seed)
        players = [kingtoy.Coin()] * 3
        play_recorded(state, players, rngs, marks, decisions)
        last = len(decisions) - 1
        assert decisions[last].seat == 2 and decisions[last].options == 2
        for option, same in ((decisions[last].chosen, True), (1 - decisions[last].chosen, False)):
            chance, rngs = game_streams(seed, 3)
            again = kingtoy.start(cfg, chance, seed)
            play_with_choice(again, players, rngs, last, option)
            assert again.coin == state.coin
            assert (again.returns() == state.returns()) == same


def test_out_of_contention_from_the_estimates():
    marks = Checkpoints(kingtoy.FLOW)
    marks.rows = [(1, (1, 1, 0), (0.45, 0.45, 0.10), (False,) * 3),
                  (2, (2, 2, 0), (0.48, 0.48, 0.04), (False,) * 3),
                  (3, (3, 2, 0), (0.60, 0.37, 0.06), (False,) * 3),
                  (4, (4, 2, 0), (0.70, 0.27, 0.03), (False,) * 3),
                  (5, (5, 2, 0), (1.0, 0.0, 0.0), (False,) * 3)]
    # seat 2 dips under 5 % in round 2 but comes back: out only from round 4; seat 1 from the
    # end only (no decision after it); seat 0 won
    assert out_from(marks, 0.05) == [5, 4, 3]
    tried = []

    def replay(d, j):
        tried.append((d, j))
        return (0.0, 1.0, 0.0) if d == 4 else (1.0, 0.0, 0.0)

    decisions = [Decision(2, -1, 3, 0), Decision(2, 1, 3, 0), Decision(2, 3, 3, 1),
                 Decision(1, 3, 2, 0), Decision(2, 3, 2, 0), Decision(0, 3, 2, 0)]
    king = kingmaking(Kingmaking(50), marks, decisions, kingmaking_stream(1), replay)
    # only seat 2's decisions after checkpoint 3 count: d=2 (2 others), d=4 (1 other)
    assert king.candidates == 3 and king.kingmade == 1
    assert sorted(tried) == tried and tried[-1] == (4, 1)
    # a change that makes the changed seat itself win is no kingmaking
    king = kingmaking(Kingmaking(50), marks, decisions, kingmaking_stream(1),
                      lambda d, j: (0.0, 0.0, 1.0))
    assert king.kingmade == 0 and king.playouts == 3


def _drop_cpu(path) -> pd.DataFrame:
    return pd.read_parquet(path).drop(columns="cpu_seconds")


def test_records_identical_with_the_test_on_and_off(tmp_path, write_scenario):
    path = write_scenario(_scenario("planted", games=20))
    off = api.simulate(path, out=tmp_path / "off", jobs=1, chunk_size=5, rounds=True)
    on = api.simulate(path, out=tmp_path / "on", jobs=1, chunk_size=5, rounds=True,
                      kingmaking_samples=3)
    for name in ("games.parquet", "seats.parquet", "rounds.parquet"):
        assert (off.out_dir / name).read_bytes() == (on.out_dir / name).read_bytes(), name
    assert not (off.out_dir / "kingmaking.parquet").exists()
    king = pd.read_parquet(on.out_dir / "kingmaking.parquet")
    assert len(king) == 20 and king["kingmade"].eq(1).all()
    keys = {r["key"]: r for r in finding_keys.read(on.out_dir)}
    assert keys["quality:kingmaking:base"]["estimate"] == 1.0
    assert "quality:kingmaking:base" not in {r["key"] for r in finding_keys.read(off.out_dir)}
    summary = json.loads((on.out_dir / "summary.json").read_text())
    facts = summary["run"]["kingmaking"]
    assert facts["samples"] == 3 and facts["playouts"] == king["playouts"].sum()
    assert facts["out_of_contention"] == kingtoy.FLOW.out_of_contention
    # every number of summary.json has its unit (as tests/test_summary_units.py checks)
    body = {k: summary[k] for k in ("schema_version", "run", "results")}
    assert units.missing(body) == []
    table = units.table(())
    got = {path: units.unit_of(path, chain, table) for path, _, chain in units.numbers(body)}
    assert got["run.kingmaking.cpu_seconds"] == "seconds"
    assert got["run.kingmaking.out_of_contention"] == units.SHARE
    text = (on.out_dir / "report.md").read_text()
    assert "Kingmaking (`quality:kingmaking`)" in text and "CPU s" in text
    assert "20 games had a choice to try (3.0 candidates per game" in text
    assert "20 were kingmade" in text


def test_same_seed_same_result_whatever_the_jobs_and_chunks(tmp_path):
    arm = runner.ArmPlan("base", 3, (), json.dumps({"mode": "planted"}),
                         tuple((f"p{s}", "random", "{}") for s in range(3)))
    kw = {"rounds": True, "kingmaking": 1}
    one = runner.run(kingtoy.SPEC, [arm], 9, 24, tmp_path / "one", backend="sequential",
                     chunk_size=24, **kw)
    two = runner.run(kingtoy.SPEC, [arm], 9, 24, tmp_path / "two", jobs=2, chunk_size=5, **kw)
    again = runner.run(kingtoy.SPEC, [arm], 9, 24, tmp_path / "again", backend="sequential",
                       chunk_size=24, **kw)
    frames = []
    for i, res in enumerate((one, two, again)):
        runner.aggregate(res.parts("kingmaking"), tmp_path / f"k{i}.parquet")
        frames.append(_drop_cpu(tmp_path / f"k{i}.parquet"))
    pd.testing.assert_frame_equal(frames[0], frames[1])
    pd.testing.assert_frame_equal(frames[0], frames[2])
    # one sample of three pairs: some games found kingmade, some not (the sample is seeded)
    assert 0 < frames[0]["kingmade"].sum() < 24


def test_paired_change_between_arms(tmp_path, write_scenario):
    variant = '\n[[variants]]\nname = "null"\nrules = { mode = "null" }\n'
    path = write_scenario(_scenario("planted", games=20, variants=variant))
    res = api.simulate(path, out=tmp_path / "run", jobs=1, rounds=True, kingmaking_samples=3)
    keys = {r["key"]: r for r in finding_keys.read(res.out_dir)}
    assert keys["quality:kingmaking:null"]["estimate"] == 0.0
    change = keys["quality:kingmaking:null:change"]
    assert change["estimate"] == -1.0 and change["null"] == 0
    other = write_scenario(_scenario("null", games=20, name="b"), "b.toml")
    res = api.compare([path, other], out=tmp_path / "cmp", jobs=1, rounds=True,
                      kingmaking_samples=2)
    assert any(k.startswith("quality:kingmaking:") and k.endswith(":change")
               for k in (r["key"] for r in finding_keys.read(res.out_dir)))
    res = api.sweep(path, "rules.rounds=5,7", out=tmp_path / "sweep", jobs=1, rounds=True,
                    kingmaking_samples=2)
    assert quality.key("kingmaking", "base") in {r["key"] for r in
                                                 finding_keys.read(res.out_dir)}


def test_resume_replays_a_chunk_without_its_kingmaking_part(tmp_path, write_scenario):
    path = write_scenario(_scenario("planted", games=15))
    kw = {"jobs": 1, "chunk_size": 5, "rounds": True, "kingmaking_samples": 1}
    whole = api.simulate(path, out=tmp_path / "whole", **kw)
    run = tmp_path / "cut"
    api.simulate(path, out=run, **kw)
    (run / "chunks" / "kingmaking-000000005-000000010.parquet").unlink()
    (run / "summary.json").unlink()
    again = api.simulate(path, out=run, resume=True, **kw)
    assert again.summary["run"]["chunks_resumed"] == 2
    for name in ("games.parquet", "seats.parquet", "rounds.parquet"):
        assert pq.read_table(whole.out_dir / name).equals(pq.read_table(run / name))
    pd.testing.assert_frame_equal(_drop_cpu(whole.out_dir / "kingmaking.parquet"),
                                  _drop_cpu(run / "kingmaking.parquet"))


def test_a_question_on_kingmaking_says_the_flag_it_needs(tmp_path, write_scenario):
    q = '\n[[questions]]\nask = "Kingmakers?"\nfinding = "quality:kingmaking:base"\n'
    path = write_scenario(_scenario("planted", games=20) + q)
    res = api.simulate(path, out=tmp_path / "r", jobs=1, rounds=True)
    answers = res.summary["results"]["answers"]["answers"]
    said = json.dumps(answers)
    assert "quality:kingmaking:base" in said and "--kingmaking-samples" in said
    res = api.simulate(path, out=tmp_path / "k", jobs=1, rounds=True, kingmaking_samples=3)
    row = next(a for a in res.summary["results"]["answers"]["answers"]
               if a.get("key") == "quality:kingmaking:base")
    assert row["estimate"] == 100.0  # in the unit the report shows: %


def test_flag_needs_rounds_and_a_count(tmp_path, write_scenario):
    path = write_scenario(_scenario("planted", games=10))
    with pytest.raises(OptionError, match="only with rounds=True"):
        api.simulate(path, out=tmp_path / "a", jobs=1, kingmaking_samples=2)
    with pytest.raises(OptionError, match="0 or more"):
        api.simulate(path, out=tmp_path / "b", jobs=1, rounds=True, kingmaking_samples=-1)
    assert not (tmp_path / "a").exists()
    for command in (["simulate", str(path)], ["compare", str(path), str(path)],
                    ["sweep", str(path), "--param", "rules.rounds=5,7"]):
        res = CliRunner().invoke(app, [*command, "--kingmaking-samples", "2", "--out",
                                       str(tmp_path / "cli")])
        assert res.exit_code == 2, res.output
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and "--kingmaking-samples: only with --rounds" in lines[0], lines
        assert "Traceback" not in res.output


@pytest.mark.parametrize("name,players", [("rattus", 4), ("cartus", 4), ("pyramidion", 3)])
def test_a_replay_with_the_choice_taken_is_the_recorded_game(name, players):
    """The counterfactual's common random numbers on each game: replayed from the seed with
    fresh players and the choice actually taken at a decision, the game ends as recorded."""
    spec = get_game(name)
    cfg = spec.make_config(players, (), {})
    pols = [build_policy(spec.policies, "greedy", {}) for _ in range(players)]
    seed = runner.game_seed(4, 1)
    _, rngs = game_streams(seed, players)
    state = spec.new_state(cfg, seed)
    marks, decisions = Checkpoints(spec.flow), []
    play_recorded(state, [p.player(s) for s, p in enumerate(pols)], rngs, marks, decisions)
    recorded = state.records(["greedy"] * players)
    for d in (0, len(decisions) // 2, len(decisions) - 1):
        _, rngs = game_streams(seed, players)
        again = spec.new_state(cfg, seed)
        play_with_choice(again, [p.player(s) for s, p in enumerate(pols)], rngs, d,
                         decisions[d].chosen)
        assert again.records(["greedy"] * players) == recorded, (name, d)


@pytest.mark.parametrize("name,players", [("rattus", 4), ("cartus", 4), ("pyramidion", 3)])
def test_every_game_runs_the_kingmaking_test(tmp_path, write_scenario, name, players):
    spec = get_game(name)
    arm = runner.ArmPlan("base", players, (), "{}",
                         tuple((f"p{s}", "greedy", "{}") for s in range(players)))
    off = runner.play_chunk(spec, [arm], 3, 0, 4, rounds=True)
    on = runner.play_chunk(spec, [arm], 3, 0, 4, rounds=True, kingmaking=2)
    assert all(on[k].equals(off[k]) for k in (2, 3, 4))  # games, seats, rounds unchanged
    assert on[5].num_rows == 4
    path = write_scenario(f'name = "{name}-king"\ngame = "{name}"\nplayers = {players}\n'
                          'games = 20\nseed = 3\n\n[[seats]]\npolicy = "greedy"\n')
    res = api.simulate(path, out=tmp_path / name, jobs=1, rounds=True, kingmaking_samples=4)
    value = {r["key"]: r for r in finding_keys.read(res.out_dir)}["quality:kingmaking:base"]
    assert 0.0 <= value["estimate"] <= 1.0
    king = pq.read_table(res.out_dir / "kingmaking.parquet").to_pandas()
    assert len(king) == 20 and (king["playouts"] <= 4).all()
    assert (king["playouts"] <= king["candidates"]).all()


def test_resume_with_other_kingmaking_samples_names_what_differs(tmp_path, write_scenario):
    path = write_scenario(_scenario("planted", games=10))
    kw = {"jobs": 1, "chunk_size": 5, "rounds": True}
    run = tmp_path / "run"
    api.simulate(path, out=run, kingmaking_samples=1, **kw)
    (run / "summary.json").unlink()
    with pytest.raises(OptionError) as refused:
        api.simulate(path, out=run, resume=True, kingmaking_samples=2, **kw)
    text = str(refused.value)
    assert "holds a run whose kingmaking differs from this one's (stored: " in text
    assert "kingmaking 1)" in text
