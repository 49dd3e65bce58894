"""analyzer/runner.py: seeds, seat rotation, chunking, jobs, resume and interruption (toy game)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import toygame

from analyzer import api, rundir, runner
from analyzer.errors import ScenarioError
from analyzer.scenario import load_scenario


def _tables(out):
    games = pd.read_parquet(out / "games.parquet").sort_values(["game_id", "variant"])
    seats = pd.read_parquet(out / "seats.parquet").sort_values(["game_id", "variant", "seat"])
    return games.reset_index(drop=True), seats.reset_index(drop=True)


def test_game_seed_is_spawn_key_of_root():
    """Game i draws from SeedSequence(root, spawn_key=(i,)) — a fresh object every call."""
    a, b = runner.game_seed(7, 3), runner.game_seed(7, 3)
    assert a is not b and a.spawn_key == (3,) and a.entropy == 7
    assert np.array_equal(a.generate_state(4), np.random.SeedSequence(7, spawn_key=(3,)).generate_state(4))


def test_rotation_gives_each_policy_each_seat_equally():
    """Over n consecutive games each policy entry sits once at each seat."""
    n = 4
    seen = {(s, (s + runner.rotation(i, n)) % n) for i in range(n) for s in range(n)}
    assert len(seen) == n * n
    assert runner.rotation(5, 4, rotate=False) == 0


def test_plan_chunks_cover_range():
    assert runner.plan_chunks(10, 4) == [(0, 4), (4, 8), (8, 10)]


def test_play_chunk_independent_of_chunking(toy_file):
    """Two chunks give exactly the rows of one chunk over the same range."""
    sc = load_scenario(toy_file)
    arms = runner.plan_arms(sc)
    whole = runner.play_chunk(sc.spec, arms, 5, 0, 10)
    parts = [runner.play_chunk(sc.spec, arms, 5, a, b) for a, b in [(0, 3), (3, 10)]]
    for k in (2, 3):
        joined = pd.concat([p[k].to_pandas() for p in parts], ignore_index=True)
        pd.testing.assert_frame_equal(whole[k].to_pandas(), joined)


def test_policy_column_follows_rotation(toy_file):
    sc = load_scenario(toy_file)
    _, _, _, seats = runner.play_chunk(sc.spec, runner.plan_arms(sc)[:1], 1, 0, 3)
    df = seats.to_pandas()
    # game i, seat s plays entry (s + i) % 3 of [bold, random, biased]
    names = ["bold", "random", "biased"]
    for row in df.itertuples():
        assert row.policy == names[(row.seat + row.game_id) % 3]


def test_identical_variant_reproduces_base(write_scenario):
    """A variant with the base's rules replays the same seeds: identical records."""
    path = write_scenario('game = "toy"\nplayers = 2\ngames = 20\nseed = 3\n[[seats]]\n'
                          'policy = "biased"\n[[variants]]\nname = "same"\n')
    sc = load_scenario(path)
    _, _, _, seats = runner.play_chunk(sc.spec, runner.plan_arms(sc), sc.seed, 0, 20)
    df = seats.to_pandas()
    base = df[df.variant == "base"].drop(columns="variant").reset_index(drop=True)
    same = df[df.variant == "same"].drop(columns="variant").reset_index(drop=True)
    pd.testing.assert_frame_equal(base, same)


def test_adding_a_variant_leaves_base_records_unchanged(toy_file, write_scenario, tmp_path):
    text = toy_file.read_text().split("[[variants]]")[0]
    alone = api.simulate(write_scenario(text, "alone.toml"), jobs=1, out=tmp_path / "a")
    full = api.simulate(toy_file, jobs=1, out=tmp_path / "b")
    a = alone.seats.sort_values(["game_id", "seat"]).reset_index(drop=True)
    b = full.seats[full.seats.variant == "base"].sort_values(["game_id", "seat"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_jobs_chunks_and_backends_give_identical_records(toy_file, tmp_path):
    """--jobs 1 ≡ --jobs 2 ≡ other chunk sizes ≡ sequential backend (sorted by game id)."""
    runs = [
        {"jobs": 1, "chunk_size": 250},
        {"jobs": 2, "chunk_size": 7},
        {"jobs": 2, "chunk_size": 13, "backend": "sequential"},
    ]
    results = [_tables(api.simulate(toy_file, out=tmp_path / f"r{k}", **kw).out_dir)
               for k, kw in enumerate(runs)]
    for games, seats in results[1:]:
        pd.testing.assert_frame_equal(games, results[0][0])
        pd.testing.assert_frame_equal(seats, results[0][1])


def test_resume_after_lost_chunks_equals_uninterrupted(toy_file, tmp_path):
    out = tmp_path / "run"
    api.simulate(toy_file, out=out, jobs=1, chunk_size=10)
    want = _tables(out)
    parts = sorted((out / "chunks").glob("*.parquet"))
    for p in parts[::3]:  # lose some chunk parts, as a kill would
        p.unlink()
    (out / "seats.parquet").unlink()
    res = api.simulate(toy_file, out=out, jobs=2, chunk_size=10, resume=True)
    assert 0 < res.summary["run"]["chunks_resumed"] < 6
    got = _tables(out)
    pd.testing.assert_frame_equal(got[0], want[0])
    pd.testing.assert_frame_equal(got[1], want[1])


def test_ctrl_c_saves_chunks_and_resume_completes(toy_file, tmp_path, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) after some chunks: message with counts; resume ≡ full run."""
    full = tmp_path / "full"
    api.simulate(toy_file, out=full, jobs=1, chunk_size=10)
    out = tmp_path / "cut"
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [3 * 25])  # 3 arms x 25 games: 2 chunks done
    with pytest.raises(runner.RunInterrupted) as info:
        api.simulate(toy_file, out=out, backend="sequential", chunk_size=10)
    assert "2 of 6 chunks saved" in str(info.value)
    # the API names its keyword argument; the CLI gives its command (test_cli_fixes)
    assert str(info.value).endswith("resume with: the same call with resume=True")
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [])
    res = api.simulate(toy_file, out=out, backend="sequential", chunk_size=10, resume=True)
    assert res.summary["run"]["chunks_resumed"] == 2
    for a, b in zip(_tables(out), _tables(full)):
        pd.testing.assert_frame_equal(a, b)


def test_resume_refuses_a_different_run(toy_file, tmp_path):
    out = tmp_path / "run"
    api.simulate(toy_file, out=out, jobs=1)
    with pytest.raises(ScenarioError, match="whose seed differs"):
        api.simulate(toy_file, out=out, jobs=1, seed=99, resume=True)
    data = toy_file.read_text().replace("sides = 6", "sides = 8")
    other = tmp_path / "other.toml"
    other.write_text(data)
    with pytest.raises(ScenarioError, match="whose scenario differs"):
        api.simulate(other, out=out, jobs=1, resume=True)


def test_resume_refuses_chunks_played_by_other_engine_sources(toy_file, tmp_path):
    """The version string does not move with every change to the rules or players, so the
    fingerprint also holds the engine sources' hash: chunks played by other sources are
    refused, not mixed with this code's games."""
    out = tmp_path / "run"
    api.simulate(toy_file, out=out, jobs=1)
    path = out / "chunks" / "fingerprint.json"
    stored = json.loads(path.read_text())
    assert stored["engine"] == rundir.engines()
    api.simulate(toy_file, out=out, jobs=1, resume=True)  # the same sources: resumed
    path.write_text(json.dumps({**stored, "engine": "0" * 16}))
    with pytest.raises(ScenarioError, match="whose engine differs"):
        api.simulate(toy_file, out=out, jobs=1, resume=True)


def test_bad_run_options(toy_file, tmp_path):
    """The API names its keyword arguments, never a command-line flag (the CLI translates)."""
    for kw, msg in [({"jobs": 0}, "^jobs: must be at least 1"),
                    ({"chunk_size": 0}, "^chunk_size: must be at least 1"),
                    ({"backend": "mpi"}, "^backend: unknown backend 'mpi'"),
                    ({"scheduler": "tcp://x:1"}, "^scheduler: only used with backend='dask'$"),
                    ({"games": 0}, "^games: must be at least 1"), ({"seed": -1}, "^seed: must be"),
                    ({"target_ci": 0.7}, "^target_ci: must be a half-width"),
                    ({"out": " "}, "^out: empty path .*out='reports/run1'")]:
        with pytest.raises(ScenarioError, match=msg) as info:
            api.simulate(toy_file, out=tmp_path / "x", **kw) if "out" not in kw else \
                api.simulate(toy_file, **kw)
        assert "--" not in str(info.value)
    assert not (tmp_path / "x").exists()


def test_record_columns_are_declared_plus_ids(toy_file, tmp_path):
    res = api.simulate(toy_file, out=tmp_path / "r", jobs=1)
    spec = toygame.SPEC
    assert list(res.games.columns) == ["game_id", "seed", "variant", *spec.game_columns]
    assert list(res.seats.columns) == ["game_id", "variant", *spec.seat_columns]
    assert len(res.games) == 60 * 3 and len(res.seats) == 60 * 3 * 3
    assert set(res.games["seed"]) == {42}


def test_dask_local_cluster_matches_loky(toy_file, tmp_path):
    """--backend dask (a LocalCluster) gives the same records as loky."""
    pytest.importorskip("dask.distributed")
    a = _tables(api.simulate(toy_file, out=tmp_path / "l", jobs=2, chunk_size=20).out_dir)
    b = _tables(api.simulate(toy_file, out=tmp_path / "d", jobs=2, chunk_size=20,
                             backend="dask").out_dir)
    pd.testing.assert_frame_equal(a[1], b[1])


@pytest.mark.parametrize("part", ["games", "seats"])
def test_resume_replays_a_chunk_cut_short_and_says_so(toy_file, tmp_path, capsys, part):
    """A chunk file cut short (a full disk, a copy interrupted) is played again on --resume,
    with one line saying so; the records equal a clean run's."""
    out = tmp_path / "run"
    api.simulate(toy_file, out=out, jobs=1, chunk_size=10)
    want = _tables(out)
    victim = sorted((out / "chunks").glob(f"{part}-*.parquet"))[2]
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    capsys.readouterr()
    res = api.simulate(toy_file, out=out, jobs=1, chunk_size=10, resume=True)
    lines = [x for x in capsys.readouterr().err.splitlines() if "cannot be read" in x]
    assert len(lines) == 1 and victim.name in lines[0] and "again" in lines[0], lines
    assert res.summary["run"]["chunks_resumed"] == 5
    got = _tables(out)
    pd.testing.assert_frame_equal(got[0], want[0])
    pd.testing.assert_frame_equal(got[1], want[1])


@pytest.mark.parametrize("part", ["games", "seats"])
def test_resume_replays_a_chunk_holding_another_chunks_games(toy_file, tmp_path, capsys, part):
    """Another chunk's file under a chunk's name reads fine but holds other games: --resume
    kept it and the records held those games twice (break-it trial). It is played again,
    said in one line, and the records equal a clean run's."""
    out = tmp_path / "run"
    api.simulate(toy_file, out=out, jobs=1, chunk_size=10)
    want = _tables(out)
    files = sorted((out / "chunks").glob(f"{part}-*.parquet"))
    files[2].write_bytes(files[3].read_bytes())
    capsys.readouterr()
    api.simulate(toy_file, out=out, jobs=1, chunk_size=10, resume=True)
    lines = [x for x in capsys.readouterr().err.splitlines() if "cannot be read" in x]
    assert len(lines) == 1 and files[2].name in lines[0] and "holds games" in lines[0], lines
    got = _tables(out)
    pd.testing.assert_frame_equal(got[0], want[0])
    pd.testing.assert_frame_equal(got[1], want[1])


def test_resume_with_a_fingerprint_cut_short_is_one_line_naming_it(toy_file, tmp_path):
    """A damaged ``fingerprint.json`` is named as such, not as a run of another scenario; the
    chunks are kept for a look, and a run without resume plays them again."""
    out = tmp_path / "run"
    api.simulate(toy_file, out=out, jobs=1, chunk_size=10)
    fingerprint = out / "chunks" / "fingerprint.json"
    fingerprint.write_text(fingerprint.read_text()[:20])
    with pytest.raises(ScenarioError, match="fingerprint.json cannot be read") as info:
        api.simulate(toy_file, out=out, jobs=1, chunk_size=10, resume=True)
    assert "different" not in str(info.value) and len(str(info.value).splitlines()) == 1
    assert len(list((out / "chunks").glob("games-*.parquet"))) == 6
    res = api.simulate(toy_file, out=out, jobs=1, chunk_size=10)
    assert res.summary["run"]["chunks_resumed"] == 0


def test_a_full_disk_in_a_parallel_run_shows_no_joblib_warning(toy_file, tmp_path, monkeypatch,
                                                              recwarn):
    """A full disk while two workers play: joblib warned that queued chunks were cancelled or
    left unused (a UserWarning before the one line; break-it trial). It is not shown."""
    import errno

    from analyzer.errors import AnalyzerError

    real, calls = runner.write_parquet_atomic, []

    def full(table, path):
        calls.append(path)
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(table, path)

    monkeypatch.setattr(runner, "write_parquet_atomic", full)
    with pytest.raises((OSError, AnalyzerError)):
        api.simulate(toy_file, out=tmp_path / "run", jobs=2, chunk_size=5, games=2000)
    assert not [w for w in recwarn if "tasks" in str(w.message)], [str(w.message) for w in recwarn]
