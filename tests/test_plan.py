"""analyzer/plan.py and the --plan / --time run flags (issue #37 item 1) on the toy game."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer import plan, rundir, runner
from analyzer.cli import app
from analyzer.errors import OptionError
from analyzer.scenario import load_scenario, with_overrides
from analyzer.study import robustness

cli = CliRunner()
MEASURED_LOAD = plan.load  # (the tests run on an idle machine of two cores: ``idle``)


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
    with pytest.raises(OptionError, match="too short") as refused:
        plan.fit(parts, 0.01, jobs=1)
    assert "fixed size" not in str(refused.value)
    with pytest.raises(OptionError, match="too short") as refused:  # 3 s fixed: not 1 game
        plan.fit(fixed, 2.0, jobs=1)
    # the search part's 3 s of play and its report: all but the 0.03 s of the scaled part
    alone = re.search(r"one game per arm, with the start-up and reports, takes about (.+) on 1 "
                      r"worker\(s\), of which the "
                      r"parts of fixed size \(search\) take about (.+): make them smaller",
                      str(refused.value))
    assert alone and alone[1] == alone[2], str(refused.value)
    with plan.mode(plan.Mode(budget=600.0)):
        est = plan.settle(parts, jobs=1)
    assert est.games == 13333 and est.wall == pytest.approx(600.0, rel=1e-3)  # 2/3 of a core
    monkeypatch.setattr(plan, "load", lambda: 0.0)
    with plan.mode(plan.Mode(budget=600.0)):
        est = plan.settle(parts, jobs=1)
    assert est.games == 20000 and est.cpu == pytest.approx(600.0)
    assert "±" in est.summary() and "chose 20,000 games" in est.summary()
    assert not est.capped and "not used up" not in est.summary()
    with plan.mode(plan.Mode(budget=3600.0 * 1e5)):  # more than the most a run plays
        est = plan.settle(parts, jobs=1, most=5000)  # (a study's own most: its chunk size)
    assert est.games == 5000 and est.capped
    assert "the most a run plays: the budget is not used up" in est.summary()


def test_time_runs_the_chosen_games_and_the_report_states_the_estimate(toy_file, tmp_path,
                                                                        monkeypatch, cache):
    monkeypatch.setattr(plan, "speed", lambda *args: 0.001)
    out = tmp_path / "out"
    res = cli.invoke(app, ["simulate", str(toy_file), "--time", "1m",
                           "--jobs", "1", "--out", str(out), "--plan"])
    assert res.exit_code == 0 and "20,000 games per arm" in res.stdout  # 60 s / 3 ms
    assert "is not used" not in res.stderr
    both = cli.invoke(app, ["simulate", str(toy_file), "--time", "1m", "--games", "100",
                            "--jobs", "1", "--out", str(out), "--plan"])
    assert both.exit_code == 0 and "20,000 games per arm" in both.stdout  # --time decides
    assert "note: --time chooses the games per arm: --games 100 is not used" in both.stderr
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


# ------------------------------------------------------------------ the estimate's arithmetic


def fake_speed(*args):
    """A fake calibration: 10 ms a game, twice that with rounds, (1 + samples) times that with
    the kingmaking test (``speed``'s positional arguments: spec, arm, seed, rotate, cpu,
    rounds, kingmaking)."""
    rounds = len(args) > 5 and args[5]
    samples = args[6] if len(args) > 6 else 0
    return 0.01 * (2 if rounds else 1) * (1 + samples)


@pytest.fixture
def fake(monkeypatch, cache):
    """Known costs: ``fake_speed``, no worker start-up, no report measured."""
    monkeypatch.setattr(plan, "speed", fake_speed)
    monkeypatch.setattr(plan, "startup", lambda jobs, backend="loky": 0.0)
    monkeypatch.setattr(plan, "report_cost", lambda game, kind, arms=0, rounds=False: None)


def test_a_known_cost_a_game_gives_a_known_estimate_with_rounds_and_kingmaking(toy_file, fake):
    sc = load_scenario(toy_file)  # three arms
    part = [plan.Part("run", sc, 1000)]  # 4 chunks of 250
    base = plan.estimate(part, jobs=1)
    assert base.cpu == pytest.approx(3 * 1000 * 0.01)  # 30 s
    assert base.wall == pytest.approx(30.0)  # one worker, idle
    assert plan.estimate(part, jobs=1, rounds=True).cpu == pytest.approx(60.0)
    assert plan.estimate(part, jobs=1, rounds=True, kingmaking=4).cpu == pytest.approx(300.0)
    two = plan.estimate(part, jobs=2)  # 4 chunks on 2 workers: 2 rounds of 7.5 s
    assert two.wall == pytest.approx(15.0) and two.cpu == pytest.approx(30.0)
    assert base.unmeasured and "reports left out" in base.summary()


def test_the_chunks_set_the_rounds_of_the_workers():
    # 3 chunks on 2 workers: 2 rounds of a chunk (a third of the CPU) each
    assert plan.play_wall(30.0, 750, 250, 2, 2, 0.0) == pytest.approx(20.0)
    # one chunk plays in the main process: one worker, whatever --jobs
    assert plan.play_wall(30.0, 250, 250, 2, 2, 0.0) == pytest.approx(30.0)
    # three runs one after the other, each one chunk: serial
    assert plan.play_wall(30.0, 300, 250, 2, 2, 0.0, runs=3) == pytest.approx(30.0)
    # a busy machine: 2 workers beside a load of 2 get half a core each
    assert plan.play_wall(30.0, 1000, 250, 2, 2, 2.0) == pytest.approx(30.0)


def test_start_up_and_reports_are_added_to_the_wall(toy_file, fake, monkeypatch):
    sc = load_scenario(toy_file)
    monkeypatch.setattr(plan, "startup", lambda jobs, backend="loky": 2.0)
    monkeypatch.setattr(plan, "report_cost", lambda game, kind, arms=0, rounds=False: {
        "simulate": 1.5, "robustness": 4.0}[kind])
    parts = [plan.Part("a", sc, 1000), plan.Part("b", sc, 1000)]  # 15 s of play each
    est = plan.estimate(parts, jobs=2)
    assert est.wall == pytest.approx(2.0 + 2 * (15.0 + 1.5))
    one = plan.estimate([plan.Part("a", sc, 250)], jobs=2)  # one chunk: no worker started
    assert one.startup == 0 and one.wall == pytest.approx(7.5 + 1.5)
    assert est.tail == pytest.approx(1.5) and est.reports == pytest.approx(3.0)
    closing = plan.estimate(parts, jobs=2, final="robustness")
    assert closing.wall == pytest.approx(est.wall + 4.0) and closing.tail == pytest.approx(4.0)
    monkeypatch.setattr(plan, "load", lambda: 2.0)  # a report in one process: 2/3 of a core
    assert plan.estimate([plan.Part("a", sc, 0)], jobs=2).lines[0].report == \
        pytest.approx(2.25)
    silent = plan.estimate([plan.Part("a", sc, 1000, reports=0)], jobs=2)
    assert silent.lines[0].report == 0 and "0 s of reports" in silent.summary()
    # --time fits the start-up and the reports too: (60 - 2 - 1.5) s x 2 workers / 30 ms
    monkeypatch.setattr(plan, "load", lambda: 0.0)
    assert plan.fit([plan.Part("a", sc, 10)], 60.0, jobs=2) == 3766


def test_a_copying_rule_condition_is_priced_at_the_share_that_consults(toy_file, fake, tmp_path,
                                                                       monkeypatch):
    sc = load_scenario(toy_file)
    arms = tuple(runner.plan_arms(sc))
    monkeypatch.setattr(plan, "consulted_share",
                        lambda spec, a, option, run_dir=None: (0.25, "fake"))
    copy = plan.Part("rule", sc, 1000, copy=plan.Copy("x", arms))
    est = plan.estimate([copy], jobs=1)
    assert est.cpu == pytest.approx(7.5) and est.lines[0].share == 0.25
    assert "25 % played, the rest copied" in est.text()
    # the kingmaking test copies nothing: a full replay
    assert plan.estimate([copy], jobs=1, rounds=True, kingmaking=1).lines[0].share == 1.0


class ConsultingSpec:
    """A game that records two options' consults (bits 1 and 2)."""

    name, flow, consults = "fake", None, ("alpha", "beta")

    def consult_bit(self, option):
        return 1 << self.consults.index(option) if option in self.consults else 0


def test_the_consulted_share_comes_from_a_run_then_the_calibration(tmp_path, cache, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = ConsultingSpec()
    arm = runner.ArmPlan("base", 4, (), "{}", (("a", "greedy", "{}"),))
    assert plan.consulted_share(spec, [arm], "gamma")[0] == 1.0  # not recorded
    assert plan.consulted_share(spec, [arm], "alpha")[0] == 1.0  # not measured
    monkeypatch.setattr(plan, "_machine", lambda: {"node": "test"})
    plan._store(plan.arm_key(spec, arm), {"cpu_per_game": 0.01,
                                          "consulted": {"1": 10, "2": 25, "3": 5, "0": 0}})
    assert plan.consulted_share(spec, [arm], "alpha")[0] == pytest.approx(15 / 40)
    assert plan.consulted_share(spec, [arm], "beta")[0] == pytest.approx(30 / 40)
    run = tmp_path / "run"
    (run / "chunks").mkdir(parents=True)
    pq.write_table(pa.table({"game_id": [0, 1, 2, 3], "variant": ["base"] * 4,
                             "consulted": [1, 0, 0, -1]}),
                   run / "chunks" / "consults-000000000-000000004.parquet")
    share, said = plan.consulted_share(spec, [arm], "alpha", run)
    assert share == pytest.approx(0.5) and "4 games" in said  # -1: counted as consulting


def test_the_calibration_plays_the_runs_own_chunks_with_rounds_and_kingmaking(toy_file,
                                                                            monkeypatch):
    sc = load_scenario(toy_file)
    arm = runner.plan_arms(sc)[0]
    calls = []

    def play(spec, arms, seed, first, stop, rotate, rounds, kingmaking, masks):
        calls.append((first, stop, rounds, kingmaking))
        masks.extend((i, arms[0].name, 2) for i in range(first, stop))
    monkeypatch.setattr(runner, "play_chunk", lambda *a, masks: play(*a, masks=masks))
    monkeypatch.setattr(plan, "MAX_GAMES", 15)
    got = plan.calibrate(sc.spec, arm, sc.seed, True, 60.0, True, 3)
    assert calls == [(0, 1, True, 3), (1, 3, True, 3), (3, 7, True, 3), (7, 15, True, 3)]
    assert got.games == 15 and got.consulted == {2: 15} and got.cpu_per_game > 0


def test_a_report_cost_is_kept_per_game_and_kind_with_the_nearest_for_the_rest(cache):
    assert plan.report_cost("rattus", "simulate") is None
    plan.record_report("rattus", "simulate", 3.0)
    plan.record_report("cartus", "simulate", 5.0)
    plan.record_report("rattus", "robustness", 8.0)
    plan.record_report("rattus", "simulate", 1.0, 3, True)  # three arms, rounds recorded
    assert plan.report_cost("rattus", "simulate") == 3.0
    assert plan.report_cost("rattus", "simulate", 3, True) == 1.0
    assert plan.report_cost("rattus", "simulate", 2) == pytest.approx(2.0)  # the game's kind
    assert plan.report_cost("pyramidion", "simulate") == pytest.approx(3.0)  # the kind's mean
    assert plan.report_cost("pyramidion", "sweep") == pytest.approx(17 / 4)  # any kind's
    # a balance setting's findings are priced by settings only, and price no report
    assert plan.report_cost("rattus", "balance-setting") is None
    plan.record_report("cartus", "balance-setting", 0.5)
    assert plan.report_cost("rattus", "balance-setting") == pytest.approx(0.5)
    assert plan.report_cost("pyramidion", "sweep") == pytest.approx(17 / 4)
    # a run's numbers only (a robustness condition, issue #37): its own kind once measured;
    # before that the whole reports of the game (an upper bound), never a setting's findings
    assert plan.report_cost("rattus", plan.NUMBERS) == pytest.approx((3.0 + 8.0 + 1.0) / 3)
    plan.record_report("cartus", plan.NUMBERS, 0.8)
    assert plan.report_cost("rattus", plan.NUMBERS) == pytest.approx(0.8)
    plan.record_report("rattus", plan.NUMBERS, 0.6)
    assert plan.report_cost("rattus", plan.NUMBERS) == pytest.approx(0.6)
    assert plan.report_cost("pyramidion", "sweep") == pytest.approx(17 / 4)  # not a report
    assert plan.report_cost("rattus", "balance-setting") == pytest.approx(0.5)


def test_a_robustness_check_prices_and_records_its_conditions_as_numbers_only(toy_file,
                                                                              tmp_path, cache):
    """The replicate and the conditions write only the numbers the check reads (issue #37):
    their report cost is kept as ``plan.NUMBERS``'s and a plan prices them so; the base's
    is a whole report's."""
    out = tmp_path / "o"
    words = ["robustness", str(toy_file), "--players", "random", "--content", "0", "--games",
             "30", "--jobs", "1", "--out", str(out)]
    done = cli.invoke(app, words)
    assert done.exit_code == 0, done.output
    kinds = {e.get("kind") for e in json.loads(cache.read_text()).values()
             if isinstance(e, dict) and "report_cpu" in e}
    assert {"simulate", plan.NUMBERS, "robustness"} <= kinds
    sc = load_scenario(toy_file)
    replicate = robustness.replicate_condition(sc)
    conditions, _ = robustness.player_conditions(sc, ["random"], 30, 30)
    parts = robustness.plan_parts(sc, replicate, conditions, 30)
    assert [p.kind for p in parts] == ["simulate"] + [plan.NUMBERS] * (len(parts) - 1)


def test_the_report_states_the_estimate_against_what_was_spent_since():
    facts = {"cpu": 10.0, "wall": 30.0, "tail": 5.0, "elapsed": 50.0, "played": 12.0,
             "assumes": "x"}
    text = plan.against(facts, 99.0, 99.0)  # the facts' own actuals win
    assert "12 s CPU (1.20x the estimate)" in text
    assert "50 s wall up to this report" in text and "(2.00x the estimate)" in text
    old = plan.against({"cpu": 10.0, "wall": 20.0, "assumes": "x"}, 5.0, 10.0)  # older facts
    assert "(0.50x the estimate)" in old


def test_a_run_records_its_report_cost_and_its_actual(toy_file, tmp_path, cache):
    out = tmp_path / "o"
    began = time.monotonic()
    res = cli.invoke(app, ["simulate", str(toy_file), "--games", "30", "--jobs", "1",
                           "--out", str(out)])
    took = time.monotonic() - began
    assert res.exit_code == 0, res.output
    assert plan.report_cost("toy", "simulate") > 0  # measured by the run, for the next plan
    est = json.loads((out / "summary.json").read_text())["run"]["estimate"]
    assert est["played"] > 0 and est["tail"] == 0  # none measured before
    # from when the estimate was made: the estimate's start was the CPU seconds spent so far
    # (a field added before it shifted the positional arguments) and a robustness check said
    # "6 h 12 min wall" for a run of 2 s, the machine's uptime
    assert 0 < est["elapsed"] <= took
    again = cli.invoke(app, ["simulate", str(toy_file), "--games", "30", "--jobs", "1",
                             "--out", str(out), "--force"])
    est = json.loads((out / "summary.json").read_text())["run"]["estimate"]
    assert again.exit_code == 0 and est["tail"] > 0 and est["reports"] == est["tail"]
    assert "wall up to this report (the estimate less this report's own" in \
        (out / "report.md").read_text()


@pytest.mark.parametrize("rate,running,average,busy", [
    (0.5, 1, 9.0, 3.0), (0.25, None, 0.0, 7.0), (1.0, None, 0.4, 0.4), (1.0, None, 5.0, 1.0),
    (1.0, 1, 0.8, 0.0), (1.0, 2, 0.0, 1.0), (1.0, 6, 0.0, 1.0)])
def test_the_load_is_the_share_of_a_core_measured_now(monkeypatch, rate, running, average, busy):
    """A probe that gets ``rate`` of a core on two cores: ``2 / rate - 1`` others; with a
    whole core, the runnable processes counted during the probe less the probe itself, at most
    one other; without that count, the (lagging) load average. The case of 0.8 with one
    runnable: the load average still raised by a run that had ended, on an idle machine."""
    clock = {"wall": 0.0, "cpu": 0.0}

    def tick():
        clock["wall"] += 0.001
        clock["cpu"] += 0.001 * rate
        return clock["wall"]
    monkeypatch.setattr(plan.time, "monotonic", tick)
    monkeypatch.setattr(plan.time, "process_time", lambda: clock["cpu"])
    monkeypatch.setattr(plan.os, "getloadavg", lambda: (average, 0.0, 0.0))
    monkeypatch.setattr(plan, "_runnable", lambda: running)
    assert MEASURED_LOAD() == pytest.approx(busy, rel=0.05)


def test_the_runnable_count_is_read_from_the_kernel(tmp_path, monkeypatch):
    proc = tmp_path / "loadavg"
    proc.write_text("0.49 0.94 1.07 3/78 14760\n")
    monkeypatch.setattr(plan, "RUNNABLE_FILE", str(proc))
    assert plan._runnable() == 3
    monkeypatch.setattr(plan, "RUNNABLE_FILE", str(tmp_path / "none"))
    assert plan._runnable() is None


def test_a_speed_measured_before_a_change_to_the_engines_is_not_reused(tmp_path, monkeypatch):
    """The cache key names the sources that play a game: new default parameters of a search
    player (its ``search.py``) left the version string as it was, and the plan priced the new
    player at the old player's measured speed."""
    files = {p.as_posix() for p in rundir.engine_files()}
    assert any(f.endswith("games/rattus/search.py") for f in files)
    assert any(f.endswith("model/treesearch.py") for f in files)
    source = tmp_path / "search.py"
    source.write_text("ITERATIONS = 30\n")
    monkeypatch.setattr(rundir, "engine_files", lambda: [source])
    rundir.engines.cache_clear()
    before = plan._machine_key()
    source.write_text("ITERATIONS = 15\n")
    rundir.engines.cache_clear()
    assert plan._machine_key() != before
    rundir.engines.cache_clear()


def test_a_game_costs_the_slope_of_the_chunks_past_the_first():
    """``plan.per_game``: a chunk's fixed cost and the first chunk's warm-up are not a game's
    cost (chunks of 2, 4 and 8 games at 0.01 s a game plus 0.01 s each: 0.01 s a game)."""
    assert plan.per_game([(1, 0.5), (2, 0.03), (4, 0.05), (8, 0.09)]) == pytest.approx(0.01)
    assert plan.per_game([(1, 0.4)]) == pytest.approx(0.4)  # one game: all of it
    assert plan.per_game([(1, 0.4), (2, 0.3)]) == pytest.approx(0.15)  # one later size
    # a slope that is not positive (noise): the later chunks' seconds over their games
    assert plan.per_game([(1, 1.0), (2, 0.2), (4, 0.1)]) == pytest.approx(0.3 / 6)
