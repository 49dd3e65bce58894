"""analyzer/plan.py and the --plan / --time run flags (issue #37 item 1) on the toy game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer import plan, runner
from analyzer.cli import app
from analyzer.errors import OptionError
from analyzer.scenario import load_scenario, with_overrides

cli = CliRunner()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh speed cache for one test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "analyzer" / "speed.json"


@pytest.fixture(autouse=True)
def idle(monkeypatch):
    """An idle machine of two cores, whatever the test machine's load (see test_load)."""
    monkeypatch.setattr(plan, "load", lambda: 0.0)
    monkeypatch.setattr(plan.os, "cpu_count", lambda: 2)


@pytest.fixture
def no_play(monkeypatch):
    """Fail the test if a study plays a chunk (calibration plays in this process only)."""
    def refuse(*args, **kwargs):
        raise AssertionError("a game was played")
    monkeypatch.setattr(runner, "run", refuse)


@pytest.mark.parametrize("args", [
    ["simulate", "{toy}"],
    ["sweep", "{toy}", "--param", "params.boost=0,1"],
    ["ablate", "{shipped}"],  # the toy game has no ablations
    ["compare", "{toy}", "{toy}"],
    ["robustness", "{toy}", "--players", "random", "--content", "0"],
])
def test_plan_prints_the_plan_writes_nothing_plays_nothing(toy_file, tmp_path, cache, no_play,
                                                            args):
    out = tmp_path / "out"
    shipped = Path(__file__).parents[1] / "scenarios" / "africanus-sultan.toml"
    words = [{"{toy}": str(toy_file), "{shipped}": str(shipped)}.get(a, a) for a in args]
    res = cli.invoke(app, [*words, "--games", "40", "--out", str(out), "--plan"])
    assert res.exit_code == 0, res.output
    assert not out.exists() and not (tmp_path / "reports").exists()
    last = res.stdout.strip().splitlines()[-1]
    assert last.startswith("plan: ") and "CPU" in last and "wall" in last and "±" in last
    assert "40 games" in res.stdout
    assert cache.exists()  # the speed was measured and kept


def test_estimate_scales_with_games_and_arms(toy_file, cache):
    sc = load_scenario(toy_file)  # three arms
    one = plan.Part("run", with_overrides(sc, games=100), 100)
    small = plan.estimate([one], jobs=1)
    double = plan.estimate([plan.Part("run", sc, 200)], jobs=1)
    assert double.cpu == pytest.approx(2 * small.cpu)
    base_only = plan.estimate([plan.Part("run", sc.__class__(**{**sc.__dict__,
                                                               "arms": sc.arms[:1]}), 100)], 1)
    rates = [plan.speed(sc.spec, arm, sc.seed) for arm in runner.plan_arms(sc)]
    assert small.cpu == pytest.approx(100 * sum(rates))
    assert base_only.cpu == pytest.approx(100 * rates[0])
    assert plan.estimate([one, one], jobs=1).cpu == pytest.approx(2 * small.cpu)
    # wall: CPU over min(jobs, cores) workers; one worker for the sequential backend
    assert small.wall == pytest.approx(small.cpu)
    assert plan.estimate([one], jobs=64, backend="sequential").wall == pytest.approx(small.cpu)


def test_time_picks_the_games_that_fit_a_known_speed(toy_file, monkeypatch, cache):
    sc = load_scenario(toy_file)
    monkeypatch.setattr(plan, "speed", lambda *args: 0.01)  # 3 arms
    parts = [plan.Part("run", sc, 60)]
    assert plan.fit(parts, 60.0, jobs=1) == 2000  # 60 s / (3 x 0.01 s)
    assert plan.fit(parts, 60.0, jobs=2) == 4000
    assert plan.fit(parts, 60.0, jobs=8) == 4000  # two cores
    fixed = [*parts, plan.Part("search", sc, 100, scales=False)]  # 3 s of fixed play
    assert plan.fit(fixed, 60.0, jobs=1) == 1900
    monkeypatch.setattr(plan, "load", lambda: 2.0)  # two busy processes: half the cores
    assert plan.fit(parts, 60.0, jobs=2) == 2000
    with pytest.raises(OptionError, match="too short"):
        plan.fit(parts, 0.01, jobs=1)
    with plan.mode(plan.Mode(budget=600.0)):
        est = plan.settle(parts, jobs=1)
    assert est.games == 13333 and est.wall == pytest.approx(600.0, rel=1e-3)  # 2/3 of a core
    monkeypatch.setattr(plan, "load", lambda: 0.0)
    with plan.mode(plan.Mode(budget=600.0)):
        est = plan.settle(parts, jobs=1)
    assert est.games == 20000 and est.cpu == pytest.approx(600.0)
    assert "±" in est.summary() and "chose 20,000 games" in est.summary()


def test_time_runs_the_chosen_games_and_the_report_states_the_estimate(toy_file, tmp_path,
                                                                        monkeypatch, cache):
    monkeypatch.setattr(plan, "speed", lambda *args: 0.001)
    out = tmp_path / "out"
    res = cli.invoke(app, ["simulate", str(toy_file), "--time", "1m",
                           "--jobs", "1", "--out", str(out), "--plan"])
    assert res.exit_code == 0 and "20,000 games per arm" in res.stdout  # 60 s / 3 ms
    monkeypatch.setattr(plan, "speed", lambda *args: 0.1)
    res = cli.invoke(app, ["simulate", str(toy_file), "--time", "3s", "--jobs", "1",
                           "--backend", "sequential", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "chose 10 games per arm" in res.stderr
    run = json.loads((out / "summary.json").read_text())["run"]
    assert run["games"] == 10 and run["estimate"]["cpu"] == pytest.approx(3.0)
    assert run["cpu_seconds"] > 0
    html = (out / "report.html").read_text()
    assert "Estimated before play for a --time budget of 3.0 s" in html and "actual:" in html


def test_time_sizes_the_base_and_every_condition_of_a_robustness_check(toy_file, tmp_path,
                                                                      monkeypatch, cache):
    monkeypatch.setattr(plan, "speed", lambda *args: 0.001)
    res = cli.invoke(app, ["robustness", str(toy_file), "--players", "random", "--content", "0",
                           "--time", "1m", "--plan", "--out", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    # base, replicate, players-random, one rule: 12 arms x 1 ms a game, 60 s on 2 workers
    assert len(lines) == 5 and all("3 arm(s) x 10,000 games" in line for line in lines[:4])
    assert "chose 10,000 games per arm" in lines[-1] and not (tmp_path / "o").exists()


@pytest.mark.parametrize("value", ["10x", "0m", "-5s", "m", "10 minutes"])
def test_bad_time_is_one_line_exit_2(toy_file, tmp_path, value):
    res = cli.invoke(app, ["simulate", str(toy_file), "--time", value, "--out",
                           str(tmp_path / "out")])
    assert res.exit_code == 2
    assert res.stderr.strip().count("\n") == 0 and "--time" in res.stderr
    assert "Traceback" not in res.output and not (tmp_path / "out").exists()


@pytest.mark.parametrize("text,seconds", [("90s", 90), ("10m", 600), ("1.5h", 5400)])
def test_parse_time(text, seconds):
    assert plan.parse_time(text) == seconds


def test_the_cache_is_reused(toy_file, cache, monkeypatch):
    sc = load_scenario(toy_file)
    arm = runner.plan_arms(sc)[0]
    first = plan.speed(sc.spec, arm, sc.seed)
    assert json.loads(cache.read_text())[plan.arm_key(sc.spec, arm)]["cpu_per_game"] == first
    monkeypatch.setattr(plan, "calibrate", lambda *a, **k: pytest.fail("measured again"))
    assert plan.speed(sc.spec, arm, sc.seed) == first
    other = runner.plan_arms(sc)[1]  # other rules: another key, measured
    assert plan.arm_key(sc.spec, other) != plan.arm_key(sc.spec, arm)


POOL = """\
name = "toy-pool"
game = "toy"
players = 3
games = 30
seed = 4

[[entrants]]
policy = "random"

[[entrants]]
policy = "biased"

[[entrants]]
name = "bold"
policy = "biased"
params = { boost = 1.0 }
"""


def test_tune_and_tournament_plan_tune_and_balance_time_not_yet(toy_file, tmp_path, cache, no_play):
    pool = tmp_path / "pool.toml"
    pool.write_text(POOL)
    out = tmp_path / "o"
    tune = cli.invoke(app, ["tune", str(toy_file), "--seat", "0", "--budget", "400", "--games",
                            "20", "--validation-games", "50", "--plan", "--out", str(out)])
    assert tune.exit_code == 0, tune.output
    assert "check on fresh seeds" in tune.stdout and "x 20 deal(s)" in tune.stdout
    tour = cli.invoke(app, ["tournament", str(pool), "--time", "1h", "--plan", "--out",
                            str(out)])
    assert tour.exit_code == 0, tour.output
    assert "--time 1 h 00 min chose" in tour.stdout
    assert not out.exists()
    for words in (["tune", str(toy_file), "--seat", "0", "--time", "1m"],
                  ["balance", str(toy_file), "--finding", "x", "--vary", "rules.sides=2..8",
                   "--time", "1m"]):
        res = cli.invoke(app, [*words, "--out", str(out)])
        assert res.exit_code == 2 and ": not supported by" in res.stderr, res.output
        assert res.stderr.strip().count("\n") == 0 and not out.exists()


def test_seat_half_width_is_wilson_at_the_fair_share():
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(100, 400, method="wilson")
    assert plan.seat_half_width(400, 4) == pytest.approx((hi - lo) / 2)


def test_load_shares_the_cores():
    assert plan.capacity(2, 2, 0.0) == 2  # idle: one core each
    assert plan.capacity(2, 2, 2.0) == pytest.approx(1.0)  # four runnable on two cores
    assert plan.capacity(1, 4, 2.0) == 1  # a core left free
    assert plan.capacity(4, 4, 4.0) == pytest.approx(2.0)


def test_a_robustness_plan_leaves_out_the_runs_finished_earlier(toy_file, tmp_path, cache):
    out = tmp_path / "o"
    words = ["robustness", str(toy_file), "--players", "random", "--content", "0", "--games",
             "30", "--jobs", "1", "--out", str(out)]
    first = cli.invoke(app, [*words, "--plan"])
    assert "base: 3 arm(s) x 30 games" in first.stdout and "players-random" in first.stdout
    done = cli.invoke(app, words)
    assert done.exit_code == 0, done.output
    assert "plan: 4 part(s)" in done.stderr  # said before play
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert data["estimate"]["cpu"] > 0 and data["actual"]["cpu"] > 0
    assert "The whole check. Estimated before play" in (out / "report.md").read_text()
    again = cli.invoke(app, [*words, "--plan"])
    assert again.exit_code == 0 and again.stdout.startswith("plan: 0 part(s), 0 arm(s), 0 games")


def test_a_tournament_sized_by_time_reports_its_estimate(tmp_path, monkeypatch, cache):
    pool = tmp_path / "pool.toml"
    pool.write_text(POOL)
    monkeypatch.setattr(plan, "speed", lambda *args: 0.01)
    out = tmp_path / "o"
    res = cli.invoke(app, ["tournament", str(pool), "--time", "1s", "--jobs", "1", "--backend",
                           "sequential", "--out", str(out)])
    assert res.exit_code == 0, res.output
    run = json.loads((out / "summary.json").read_text())["run"]
    arms = len(run["arms"])
    assert run["games"] == 100 // arms  # deals: 1 s / (arms x 10 ms)
    assert "Estimated before play for a --time budget of 1.0 s" in (out / "report.md").read_text()


def test_a_tune_reports_its_estimate_against_its_search_and_check(toy_file, tmp_path, cache):
    out = tmp_path / "o"
    res = cli.invoke(app, ["tune", str(toy_file), "--seat", "0", "--budget", "160", "--games",
                           "20", "--popsize", "4", "--validation-games", "20", "--jobs", "1",
                           "--backend", "sequential", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "plan: 2 part(s)" in res.stderr  # said before play
    run = json.loads((out / "summary.json").read_text())["run"]
    assert run["estimate"]["cpu"] > 0 and run["cpu_seconds"] > 0
    assert "Estimated before play" in (out / "report.md").read_text()
