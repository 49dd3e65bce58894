"""Fixes of the fresh-user report (CLI, runner, run options): one test per finding."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import toygame
from typer.testing import CliRunner

from analyzer import plan
from analyzer.cli import app
from analyzer.games import available_games

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
ALL_COMMANDS = ["simulate", "validate", "report", "list", "replay", "bench", "sweep", "ablate",
                "compare"]


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_help_keeps_bracketed_defaults(command):
    res = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert " ." not in res.stdout
    if command in ("simulate", "sweep", "ablate", "compare"):
        assert "all cores" in res.stdout


def _hint_command(output: str) -> list[str]:
    line = output.strip().splitlines()[-1]
    return shlex.split(line.split("resume with: ")[1])


def test_sweep_interrupted_then_resumed_with_the_printed_command(toy_file, tmp_path,
                                                                  monkeypatch):
    out = tmp_path / "sw"
    args = ["sweep", str(toy_file), "--param", "params.boost=0,1", "--games", "600", "--jobs",
            "1", "--target-ci", "0.4", "--out", str(out), "--quiet"]
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [3 * 250])  # 3 arms: one chunk done
    res = runner.invoke(app, args)
    assert res.exit_code == 130, res.output
    command = _hint_command(res.output)
    assert command[-1] == "--resume" and "--target-ci" in command and "--param" in command
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [])
    res = runner.invoke(app, [*command[1:], "--quiet", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    full = runner.invoke(app, [*args[:-3], "--out", str(tmp_path / "full"), "--quiet"])
    assert full.exit_code == 0, full.output
    for name in ("games.parquet", "seats.parquet"):
        assert (out / name).read_bytes() == (tmp_path / "full" / name).read_bytes()


def test_ablate_accepts_resume(tmp_path):
    out = tmp_path / "ab"
    for extra in ([], ["--resume"]):
        res = runner.invoke(app, ["ablate", str(ROOT / "scenarios" / "cartus-first-game.toml"),
                                  "--games", "4", "--jobs", "1",
                                  "--out", str(out), "--quiet", *extra])
        assert res.exit_code == 0, res.output


def test_simulate_hint_keeps_every_option(toy_file, tmp_path, monkeypatch):
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [3 * 10])
    res = runner.invoke(app, ["simulate", str(toy_file), "--games", "50", "--seed", "3",
                              "--chunk-size", "10", "--target-ci", "0.3", "--backend",
                              "sequential", "--out", str(tmp_path / "o"), "--quiet"])
    assert res.exit_code == 130, res.output
    command = _hint_command(res.output)
    for opt in ("--games", "--seed", "--chunk-size", "--target-ci", "--backend", "--out"):
        assert opt in command, command


def _one_line(res, fragment: str) -> None:
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("analyzer: error: ") and fragment in lines[0], \
        res.stderr


@pytest.mark.parametrize("args, fragment", [
    (["--games", "100000001"], "--games: at most 100,000,000"),
    (["--games", "99999999999999999999999"], "--games: at most"),
    (["--jobs", "5000"], "--jobs: at most 1024"),
    (["--games", "2000000", "--chunk-size", "1"], "--chunk-size:"),
    (["--backend", "dask", "--scheduler", "nonsense"], "--scheduler: 'nonsense' is not an address"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1"], "tcp://HOST:PORT"),
    (["--target-ci", "0.9"], "--target-ci: must be a half-width"),
    (["--target-ci", "0"], "--target-ci"),
    (["--target-ci", "-0.1"], "--target-ci"),
])
def test_run_limits_refused_before_anything_is_written(toy_file, tmp_path, args, fragment):
    out = tmp_path / "D"
    _one_line(runner.invoke(app, ["simulate", str(toy_file), "--out", str(out), "--quiet",
                                  *args]), fragment)
    assert not out.exists()


def test_scenario_games_limit(write_scenario):
    path = write_scenario('game = "toy"\nplayers = 3\ngames = 9223372036854775807\n'
                          '[[seats]]\npolicy = "random"\n')
    _one_line(runner.invoke(app, ["validate", str(path)]), "games: at most 100,000,000")


def test_unreachable_scheduler_leaves_nothing(toy_file, tmp_path, monkeypatch):
    pytest.importorskip("dask.distributed")
    from analyzer import runner as run_mod

    monkeypatch.setattr(run_mod, "DASK_CONNECT_TIMEOUT", "1s")
    out = tmp_path / "D"
    _one_line(runner.invoke(app, ["simulate", str(toy_file), "--backend", "dask", "--scheduler",
                                  "tcp://127.0.0.1:1", "--out", str(out), "--quiet"]),
              "--scheduler: cannot connect")
    assert not out.exists()


def test_out_and_name_paths_are_checked(toy_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _one_line(runner.invoke(app, ["simulate", str(toy_file), "--out", "", "--quiet"]),
              "--out: empty path")
    for name in ("../../esc_test", "", "..", "a/b"):
        _one_line(runner.invoke(app, ["compare", str(toy_file), str(toy_file), "--name", name,
                                      "--games", "5", "--quiet"]), "--name:")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy.toml"]
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    _one_line(runner.invoke(app, ["simulate", str(toy_file), "--games", "5", "--out", str(busy),
                                  "--quiet"]), "not a run directory")
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]
    run_dir = tmp_path / "run"
    for _ in range(2):  # re-running into a run directory still works
        res = runner.invoke(app, ["simulate", str(toy_file), "--games", "5", "--out",
                                  str(run_dir), "--quiet"])
        assert res.exit_code == 0, res.output


def test_resume_with_another_chunk_size_is_refused(toy_file, tmp_path):
    out = tmp_path / "r"
    args = ["simulate", str(toy_file), "--games", "30", "--jobs", "1", "--out", str(out),
            "--quiet"]
    assert runner.invoke(app, [*args, "--chunk-size", "10"]).exit_code == 0
    _one_line(runner.invoke(app, [*args, "--chunk-size", "7", "--resume"]),
              "--chunk-size: the run in")
    res = runner.invoke(app, [*args, "--chunk-size", "10", "--resume"])
    assert res.exit_code == 0 and "(3 chunk(s) resumed)" in res.stdout, res.output


@pytest.mark.parametrize("args, fragment", [
    (["--players", "3"], "--players: only without SCENARIO"),
    (["--seed", "7"], "--seed: only without SCENARIO"),
    (["--expansion", "africanus"], "--expansion: only without SCENARIO"),
    ([], "--game: missing"),
])
def test_replay_with_scenario_refuses_game_options(toy_file, args, fragment):
    extra = [] if fragment.startswith("--game") else ["--game", "0"]
    _one_line(runner.invoke(app, ["replay", str(toy_file), *extra, *args]), fragment)


def test_sigterm_stops_a_loky_run_like_ctrl_c_and_kills_the_workers(tmp_path):
    psutil = pytest.importorskip("psutil")
    path = tmp_path / "term.toml"
    path.write_text('name = "term"\ngame = "rattus"\nexpansions = ["africanus"]\nplayers = 4\n'
                    'games = 4000\nseed = 5\n[[seats]]\npolicy = "random"\n')
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "analyzer", "simulate", str(path), "--jobs",
                             "2", "--chunk-size", "10", "--out", str(out), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 60
    while len(list((out / "chunks").glob("games-*.parquet"))) < 2:
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()
        time.sleep(0.01)
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert workers
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    line = err.strip().splitlines()[-1]
    assert line.startswith("analyzer: interrupted: ") and line.endswith("--resume"), err
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE], alive


def test_bench_flags_target_misses(tmp_path, monkeypatch):
    from analyzer import bench as bench_mod

    rows = [bench_mod.BenchRow("rattus", 4, "greedy", 150.0, 500.0, 4, 0.8, 90.0, 300.0),
            bench_mod.BenchRow("cartus", 4, "greedy", 1500.0, 5000.0, 4, 0.8, 90.0, 1000.0),
            bench_mod.BenchRow("cartus", 4, "random", 1500.0, 5000.0, 4, 0.8, 90.0, None)]
    search_rows = [bench_mod.SearchBenchRow("cartus", 4, 30, 1800.0, 8, 0.62, 0.5),
                   bench_mod.SearchBenchRow("pyramidion", 4, 30, 7000.0, 8, 0.41, 0.5)]
    monkeypatch.setattr(bench_mod, "bench", lambda *a, **k: rows)
    monkeypatch.setattr(bench_mod, "bench_search", lambda *a, **k: search_rows)
    monkeypatch.setattr(plan, "load", lambda: 0.0)  # an idle machine: no note
    res = runner.invoke(app, ["bench", "--out", str(tmp_path / "b.json")])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].split()[-2:] == ["target", "check"]
    assert [ln.split()[-1] for ln in lines[1:4]] == ["MISS", "ok", "-"]
    assert lines[5].split()[-2:] == ["target", "check"]
    assert [ln.split()[-1] for ln in lines[6:8]] == ["MISS", "ok"]
    assert json.loads((tmp_path / "b.json").read_text())["search_rows"][0]["iterations_per_s"] == 1800.0
    assert "MISS" in runner.invoke(app, ["bench", "--help"]).stdout
    monkeypatch.setattr(plan, "load", lambda: 2.0)  # two other processes running: said, kept
    busy = runner.invoke(app, ["bench", "--out", str(tmp_path / "b.json")])
    assert busy.stdout.startswith("note: 2.0 other runnable process(es) at the start")
    assert json.loads((tmp_path / "b.json").read_text())["settings"]["load_at_start"] == 2.0


def test_bench_search_times_searched_decisions_only():
    """The search table counts decisions the ismcts player searched (not forced answers) and
    plays one ismcts seat against greedy (few decisions and games: a smoke run, not a timing)."""
    from analyzer import bench as bench_mod

    searched, rate = bench_mod.search_iteration_rate("pyramidion", 4, (), decisions=3)
    assert 1 <= searched <= 3 and rate > 0
    assert bench_mod.search_game_cost("pyramidion", 4, (), games=1) > 0


@pytest.mark.parametrize("args, fragment", [
    (["simulate", "s.toml", "--seed", "1.5"], "Invalid value for '--seed'"),
    (["simulate", "s.toml", "--backend", "foo"], "Invalid value for '--backend'"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["simulate", "s.toml", "--resum"], "No such option: --resum"),
])
def test_usage_errors_are_one_line(args, fragment):
    _one_line(runner.invoke(app, args), fragment)


@pytest.mark.parametrize("args, fragment", [
    (["--game", "nosuch"], f"--game: unknown game 'nosuch' (allowed: {', '.join(available_games())})"),
    (["--games", "0"], "--games: must be an integer from 1 to 10,000,000 (got 0)"),
    (["--repeats", "-1"], "--repeats: must be an integer from 1 to 10,000,000 (got -1)"),
    (["--parallel-games", "100000000000"], "--parallel-games: must be an integer from 1"),
    (["--out", "/nonexistent-folder/b.json"], "--out: /nonexistent-folder/b.json must be a file path"),
])
def test_bench_bad_input_is_one_line_before_any_run(args, fragment, monkeypatch):
    from analyzer import bench as bench_mod

    def never(*a, **k):
        raise AssertionError("bench ran")

    monkeypatch.setattr(bench_mod, "bench", never)
    _one_line(runner.invoke(app, ["bench", *args]), fragment)


def test_bare_analyzer_prints_the_help_once():
    res = subprocess.run([sys.executable, "-m", "analyzer"], capture_output=True, text=True, check=False)
    assert res.returncode == 2
    assert (res.stdout + res.stderr).count("Usage") == 1, res.stdout + res.stderr
    assert "simulate" in res.stdout
