"""The one run machinery (analyzer/studies.py, rundir.py, study/run.py, keywords.py,
study_cli.py) and the faults of issue #22 (its section 2), one test or more per fault."""

from __future__ import annotations

import inspect
import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
import toygame
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from analyzer import api, runner, studies, study_cli
from analyzer.cli import app
from analyzer.errors import OptionError, RunInterrupted, ScenarioError
from analyzer.keywords import accepts, describe
from analyzer.rundir import RunDir, read_fingerprint
from analyzer.study import robustness
from analyzer.study import run as study_run

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
cli = CliRunner()

ROBUST_TOY = """\
name = "tie-study"
game = "toy"
players = 3
games = 60
seed = 5
[rules]
sides = 2
cards = ["peasant", "merchant"]
[[seats]]
policy = "random"
"""


def _one_line(res, fragment: str, code: int = 2) -> str:
    assert res.exit_code == code, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], res.stderr
    assert "Traceback" not in res.output
    return lines[0]


# ------------------------------------------------------------------ one registry, one set of flags


def test_every_study_kind_is_declared_once_and_resolves():
    assert list(studies.STUDIES) == ["simulate", "compare", "sweep", "ablate", "tournament",
                                     "tune", "robustness", "balance", "sensitivity",
                                     "quality"]
    for kind in studies.STUDIES.values():
        func = kind.api
        assert getattr(api, func.__name__) is func and func.__name__ in api.__all__
        assert getattr(func, "checked", False), kind.kind  # arguments checked (analyzer.keywords)
        assert callable(kind.tell)
        if kind.command:
            assert callable(studies.load(kind.command))
        if kind.section:
            assert callable(studies.load(kind.section))
        if kind.own_report:
            own = studies.load(kind.own_report)
            assert callable(getattr(own, "build", None)) or (callable(own.numbers)
                                                             and callable(own.write))
        if kind.half_width:
            assert callable(studies.load(kind.half_width))
        assert callable(studies.load(kind.answers))  # its answers in a fixed order


@pytest.mark.parametrize("kind", list(studies.STUDIES))
def test_every_study_command_takes_the_same_run_flags(kind):
    command = study_cli.command(studies.STUDIES[kind])
    params = set(inspect.signature(command).parameters)
    assert set(studies.RUN_FLAGS) <= params, set(studies.RUN_FLAGS) - params
    res = cli.invoke(app, [kind, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    for name in studies.RUN_FLAGS:
        assert "--" + name.replace("_", "-") in res.stdout, (kind, name)
    # a command whose games --time cannot size (``budgets``: why) says so where it lists it
    said = " ".join(res.stdout.split("--time")[1].split("--help")[0].split())
    budgets = studies.STUDIES[kind].budgets
    assert said == (f"<str> Not supported by this command yet ({budgets})." if budgets is not True
                    else said) and said.startswith("<str> A wall-time budget") == (
        budgets is True), (kind, said)


def test_help_names_every_study_command():
    res = cli.invoke(app, ["--help"], env={"COLUMNS": "200"})
    flags = " ".join(res.stdout.split("Each takes the same run flags")[1].split())
    assert flags.startswith("(" + " ".join("--" + k.replace("_", "-")
                                           for k in studies.RUN_FLAGS) + ")")
    listing = res.stdout.split("Study commands:")[1]
    for kind in studies.STUDIES:
        assert kind in listing and f"  {kind}" in res.stdout.split("Commands")[1]
    assert "robustness" in (ROOT / "analyzer" / "study_cli.py").read_text().split('"""')[1]


def test_the_fingerprint_is_parsed_in_one_place_and_ablate_has_no_out_checked():
    users = [p.name for p in (ROOT / "analyzer").rglob("*.py")
             if "fingerprint.json" in p.read_text() or "FINGERPRINT" in p.read_text()]
    assert users == ["rundir.py"]
    assert "out_checked" not in inspect.signature(api.simulate).parameters
    assert "_prepare_out" not in (ROOT / "analyzer" / "study" / "tune.py").read_text()
    assert "_arm_setup" not in (ROOT / "analyzer" / "api.py").read_text()
    assert callable(robustness.defaults_in_use)


def test_sweep_ablate_and_compare_take_backend_and_chunk_size(toy_file, tmp_path):
    """The run flags they lacked: same records whatever the chunk size or backend."""
    a = cli.invoke(app, ["sweep", str(toy_file), "--param", "params.boost=0,1", "--games", "12",
                         "--jobs", "1", "--out", str(tmp_path / "a"), "--quiet"])
    b = cli.invoke(app, ["sweep", str(toy_file), "--param", "params.boost=0,1", "--games", "12",
                         "--backend", "sequential", "--chunk-size", "5", "--out",
                         str(tmp_path / "b"), "--quiet", "--csv"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    import pandas as pd

    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "a" / "seats.parquet"),
                                  pd.read_parquet(tmp_path / "b" / "seats.parquet"))
    assert (tmp_path / "b" / "seats.csv").is_file()
    c = cli.invoke(app, ["compare", str(toy_file), str(toy_file), "--games", "6", "--chunk-size",
                         "4", "--backend", "sequential", "--out", str(tmp_path / "c"), "--quiet"])
    assert c.exit_code == 0, c.output
    assert json.loads((tmp_path / "c" / "summary.json").read_text())["run"]["chunk_size"] == 4


def test_tune_report_has_the_labelled_defaults_appendix(tmp_path, write_scenario):
    path = write_scenario('name = "t"\ngame = "toy"\nplayers = 3\ngames = 10\nseed = 1\n'
                          '[[seats]]\npolicy = "biased"\n')
    res = api.tune(path, seat=0, budget=80, games=20, popsize=4, validation_games=10, jobs=1,
                   out=tmp_path / "t")
    assert "tie_to_start" in [d["name"] for d in res.summary["run"]["defaults"]["base"]]
    text = (tmp_path / "t" / "report.md").read_text()
    assert "## Appendix: labelled defaults in use" in text and "tie_to_start" in text


# ------------------------------------------------------------------ fault 1: a stop anywhere

_DRIVER = textwrap.dedent("""
    import sys, time, pathlib
    sys.path.insert(0, {tests!r})
    import toygame
    from analyzer.games import register_game
    register_game(toygame.SPEC)
    from analyzer import report
    marker, real = pathlib.Path(sys.argv[1]), report.render
    def slow(run_dir):  # the report phase: says it has begun, then takes its time
        marker.write_text("report")
        time.sleep(120)
        return real(run_dir)
    report.render = slow
    from analyzer.cli import app
    app(sys.argv[2:], prog_name="analyzer")
""")


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_in_the_report_phase_says_what_is_saved_and_resumes(toy_file, tmp_path, sig,
                                                                     code):
    out, marker = tmp_path / "out", tmp_path / "marker"
    proc = subprocess.Popen(
        [sys.executable, "-c", _DRIVER.format(tests=str(TESTS)), str(marker), "simulate",
         str(toy_file), "--games", "30", "--chunk-size", "10", "--jobs", "1", "--out", str(out),
         "--quiet"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("analyzer: interrupted: the records of all 3 chunks saved in "), err
    assert "the report not yet written" in lines[0] and lines[0].endswith("--resume")
    command = shlex.split(lines[0].split("resume with: ")[1])
    res = cli.invoke(app, [*command[1:], "--quiet"])
    assert res.exit_code == 0 and "(3 chunk(s) resumed)" in res.stdout, res.output
    assert (out / "report.html").is_file()


def test_ctrl_c_in_a_cma_es_step_counts_the_generations(write_scenario, tmp_path, monkeypatch):
    import cma

    path = write_scenario('name = "t"\ngame = "toy"\nplayers = 3\ngames = 10\nseed = 1\n'
                          '[[seats]]\npolicy = "biased"\n')
    calls = []
    real = cma.CMAEvolutionStrategy.tell

    def tell(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cma.CMAEvolutionStrategy, "tell", tell)
    res = cli.invoke(app, ["tune", str(path), "--seat", "0", "--budget", "400", "--games", "20",
                           "--popsize", "4", "--validation-games", "10", "--jobs", "1", "--out",
                           str(tmp_path / "t"), "--quiet"])
    line = _one_line(res, "interrupted: 2 of 5 generations saved in ", 130)
    assert line.endswith("--resume") and "analyzer tune" in line


def test_ctrl_c_between_robustness_conditions_and_the_report_names_what_is_missing(
        tmp_path, monkeypatch):
    """Faults 1 and 7: a stop between two conditions says which runs are finished; `analyzer
    report DIR` then names the missing conditions (and does not call the check finished)."""
    path = tmp_path / "toy.toml"
    path.write_text(ROBUST_TOY)
    out = tmp_path / "run"
    calls = []
    real = robustness.simulate

    def simulate(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # the replicate, a condition, then the stop
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(robustness, "simulate", simulate)
    args = ["robustness", str(path), "--players", "random,biased", "--jobs", "1", "--out",
            str(out), "--quiet"]
    res = cli.invoke(app, args)
    line = _one_line(res, "interrupted: the base run, its replicate and 1 of 2 conditions "
                          "finished in ", 130)
    assert line.endswith("--resume")
    res = cli.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    assert "robustness check incomplete: 1 of 2 conditions finished; missing: " \
           "tie_to_start = false (default true)" in res.stdout
    text = (out / "report.md").read_text()
    assert "The robustness check of this run is incomplete" in text
    assert "tie_to_start = false (default true)" in text.split("## Robustness")[1]
    monkeypatch.setattr(robustness, "simulate", real)
    res = cli.invoke(app, [*args, "--resume"])
    assert res.exit_code == 0, res.output
    assert "incomplete" not in (out / "report.md").read_text()


def test_a_stop_before_anything_is_saved_says_so(toy_file, monkeypatch):
    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(study_run, "load_scenario", stop)
    res = cli.invoke(app, ["simulate", str(toy_file), "--games", "5"])
    line = _one_line(res, "interrupted: nothing saved yet; resume with: analyzer simulate", 130)
    assert "--games 5" in line


# ------------------------------------------------------------------ fault 2: limits first


@pytest.mark.parametrize("args, fragment", [
    (["--validation-games", str(10 ** 12)], "--validation-games: at most 100,000,000"),
    (["--budget", str(10 ** 12)], ("--budget: 1,000,000,000,000 games make 1,250,000,000 "
                                   "generations of 4 candidates x 200 games; at most 10,000")),
    (["--popsize", "1000000"], "--popsize: at most 1,000 candidates per generation"),
    (["--games", str(10 ** 12)], "--games: at most 100,000,000"),
    (["--games", "100000000", "--budget", "400000000"],
     "--games: 100,000,000 games make more than 1,000,000 chunks of 63"),
])
def test_tune_sizes_are_checked_before_anything_runs(write_scenario, tmp_path, args, fragment,
                                                     monkeypatch):
    path = write_scenario('name = "t"\ngame = "toy"\nplayers = 3\ngames = 10\n'
                          '[[seats]]\npolicy = "biased"\n')

    def never(*a, **k):
        raise AssertionError("a game was played")

    monkeypatch.setattr(runner, "run", never)
    out = tmp_path / "never"
    base = ["tune", str(path), "--seat", "0", "--popsize", "4", "--out", str(out), "--quiet"]
    _one_line(cli.invoke(app, [*base, *args]), fragment)
    assert not out.exists()


def test_a_sweep_of_too_many_values_is_refused_first(toy_file, tmp_path):
    values = ",".join(str(v) for v in range(3000))
    out = tmp_path / "never"
    _one_line(cli.invoke(app, ["sweep", str(toy_file), "--param", f"params.boost={values}",
                               "--out", str(out)]), "--param: 3,000 value combinations")
    assert not out.exists()


# ------------------------------------------------------------------ fault 3: API types


CASES = {  # function -> (required arguments, keyword arguments the fuzz draws for)
    "simulate": (lambda f: ([f], {}), ["games", "seed", "jobs", "backend", "scheduler", "out",
                                       "chunk_size", "resume", "force", "progress",
                                       "target_ci", "csv", "study"]),
    "sweep": (lambda f: ([f, ["params.boost=0,1"]], {}), ["metric", "correction"]),
    "ablate": (lambda f: ([f], {}), ["correction"]),
    "compare": (lambda f: ([[f, f]], {}), ["name"]),
    "tournament": (lambda f: ([f], {}), ["games", "seed", "bootstrap"]),
    "tune": (lambda f: ([f], {"seat": 0}), ["seat", "budget", "games", "popsize",
                                           "validation_games", "opponents", "seed", "jobs",
                                           "backend", "scheduler", "out", "chunk_size",
                                           "resume", "force", "csv", "log"]),
    "robustness": (lambda f: ([f], {}), ["players", "defaults", "content", "content_tables",
                                         "games", "search_games", "seed", "jobs", "out",
                                         "resume", "force", "progress", "say"]),
    "replay": (lambda f: (["toy", 3], {}), ["game", "players", "expansions", "seed", "policy",
                                            "rules", "log"]),
    "replay_scenario": (lambda f: ([f, 0], {}), ["index", "variant", "log"]),
    "catalogue": (lambda f: (["games"], {}), ["kind", "game"]),
    "validate": (lambda f: ([f], {}), ["path_or_scenario"]),
    "render_report": (lambda f: ([f], {}), ["run_dir"]),
}
WRONG = st.one_of(st.floats(allow_nan=True), st.text(max_size=4), st.booleans(), st.none(),
                  st.integers(-3, 3), st.lists(st.integers(0, 3), max_size=2),
                  st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
                  st.just(b"x"), st.just(object()))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_api_keyword_types(data, toy_file, tmp_path, monkeypatch):
    """Any value of a wrong type for any keyword of any API function: one ``OptionError``
    naming the keyword, and nothing written."""
    monkeypatch.chdir(tmp_path)
    name = data.draw(st.sampled_from(sorted(CASES)))
    args_of, keywords = CASES[name]
    func = getattr(api, name)
    keyword = data.draw(st.sampled_from(keywords))
    value = data.draw(WRONG)
    hint = func.__wrapped__.__annotations__ and \
        __import__("typing").get_type_hints(func.__wrapped__)[keyword]
    assume(not accepts(value, hint))
    args, kwargs = args_of(str(toy_file))
    params = list(inspect.signature(func).parameters)
    if keyword in params[:len(args)]:
        args[params.index(keyword)] = value
    else:
        kwargs[keyword] = value
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(OptionError) as info:
        func(*args, **kwargs)
    assert str(info.value).startswith(f"{keyword}: must be {describe(hint)} (got "), info.value
    assert sorted(tmp_path.rglob("*")) == before


@pytest.mark.parametrize("call, fragment", [
    (lambda f: api.simulate(f, games=20.5), "games: must be an integer or None (got 20.5)"),
    (lambda f: api.simulate(f, games="100"), "games: must be an integer or None (got '100')"),
    (lambda f: api.simulate(f, jobs="2"), "jobs: must be an integer or None (got '2')"),
    (lambda f: api.simulate(f, out=5), "out: must be a string or a path or None (got 5)"),
    (lambda f: api.tune(f, seat=0, popsize=4.5), "popsize: must be an integer or None"),
    (lambda f: api.tune(f, seat="0"), "seat: must be an integer (got '0')"),
    (lambda f: api.tournament(f, games="20"), "games: must be an integer or None (got '20')"),
    (lambda f: api.replay("pyramidion", "4"), "players: must be an integer (got '4')"),
    (lambda f: api.simulate(f, gmaes=5), "gmaes: not a keyword argument of simulate"),
])
def test_the_api_type_errors_of_the_trial(toy_file, tmp_path, monkeypatch, call, fragment):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OptionError) as info:
        call(str(toy_file))
    assert str(info.value).startswith(fragment), str(info.value)
    assert list(tmp_path.iterdir()) == [toy_file]  # no reports/<name>/chunks/fingerprint.json


def test_numpy_integers_are_integers(toy_file, tmp_path):
    res = api.simulate(toy_file, games=np.int64(6), jobs=np.int32(1), out=tmp_path / "n")
    assert res.summary["run"]["games"] == 6


# ------------------------------------------------------------------ fault 4: --players ""


def test_empty_players_are_refused_and_a_string_is_one_rung_or_a_list(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_text(ROBUST_TOY)
    out = tmp_path / "never"
    _one_line(cli.invoke(app, ["robustness", str(path), "--players", "", "--out", str(out)]),
              "--players: an empty entry in ''; give comma-separated entries, or none")
    _one_line(cli.invoke(app, ["robustness", str(path), "--players", "random,,biased"]),
              "--players: an empty entry")
    assert not out.exists()
    assert robustness.ladder_tokens("players", "random") == ["random"]
    assert robustness.ladder_tokens("players", " random, biased ") == ["random", "biased"]
    assert robustness.ladder_tokens("players", "none") == []
    assert robustness.ladder_tokens("players", ["none"]) == []
    res = api.robustness(path, players="biased", defaults="none", games=20, jobs=1,
                         out=tmp_path / "r")
    data = json.loads((tmp_path / "r" / "robustness" / "robustness.json").read_text())
    assert [c["name"] for c in data["conditions"]] == ["players-biased"]
    assert res.summary["results"]["robustness"]


# ------------------------------------------------------------------ fault 5: temporary files


def test_resume_cleans_the_temporary_files_of_a_killed_run(toy_file, tmp_path):
    out = tmp_path / "r"
    args = ["simulate", str(toy_file), "--games", "20", "--chunk-size", "10", "--jobs", "1",
            "--out", str(out), "--quiet"]
    assert cli.invoke(app, args).exit_code == 0
    stale = [out / ".games.parquet.tmp4242", out / "chunks" / ".seats-0.parquet.tmp4243",
             out / "charts" / ".x.png.tmp7"]
    for p in stale:
        p.write_bytes(b"half")
    res = cli.invoke(app, [*args, "--resume"])
    assert res.exit_code == 0 and "(2 chunk(s) resumed)" in res.stdout, res.output
    assert not [p for p in stale if p.exists()]
    assert not list(out.rglob(".*.tmp*"))


# ------------------------------------------------------------------ fault 6: the real cause


def test_resume_into_another_studys_directory_names_out_not_the_chunk_size(toy_file, tmp_path):
    out = tmp_path / "sw"
    res = cli.invoke(app, ["sweep", str(toy_file), "--param", "params.boost=0,1", "--games", "6",
                           "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    line = _one_line(cli.invoke(app, ["simulate", str(toy_file), "--out", str(out), "--resume",
                                      "--chunk-size", "3", "--quiet"]), "--out: ")
    assert "holds the sweep of 'toy-study' (seed 42), not a run" in line
    assert "--chunk-size" not in line


def test_interrupted_tune_counts_generations(write_scenario, tmp_path, monkeypatch):
    path = write_scenario('name = "t"\ngame = "toy"\nplayers = 3\ngames = 10\nseed = 1\n'
                          '[[seats]]\npolicy = "biased"\n')
    # 3 generations of 4 candidates x 20 games, then 2 candidates and 1 chunk of the 4th
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [3 * 80 + 2 * 20 + 5 + 1])
    with pytest.raises(RunInterrupted) as info:
        api.tune(path, seat=0, budget=400, games=20, popsize=4, validation_games=10,
                 backend="sequential", chunk_size=5, out=tmp_path / "t")
    assert str(info.value).startswith("interrupted: 3 of 5 generations saved in ")
    gen = tmp_path / "t" / "search" / "gen-0003"
    assert (f"(2 of 4 candidates saved in {gen}; 1 of 4 chunks saved in {gen / 'c02'})"
            in str(info.value))


# ------------------------------------------------------------------ fault 8: out removed


def test_the_run_directory_removed_mid_run_is_one_line(toy_file, tmp_path, monkeypatch):
    import shutil

    out = tmp_path / "gone"
    real = runner.write_parquet_atomic
    calls = []

    def write(table, path):
        calls.append(1)
        if len(calls) == 3:
            shutil.rmtree(out)
        return real(table, path)

    monkeypatch.setattr(runner, "write_parquet_atomic", write)
    res = cli.invoke(app, ["simulate", str(toy_file), "--games", "30", "--chunk-size", "10",
                           "--jobs", "1", "--out", str(out), "--quiet"])
    _one_line(res, f"analyzer: error: --out: {out} was removed during the run")
    assert not out.exists()  # never re-created


# ------------------------------------------------------------------ fault 9: progress lines


def test_progress_lines_at_a_steady_interval_with_an_injected_clock():
    now = [100.0]
    lines: list[str] = []
    bar = runner.ProgressLines(1000, 200, lambda: now[0], lines.append, every=30)
    bar(100)  # 0 s: no line yet
    now[0] = 110.0
    bar.tick()
    assert lines == []
    now[0] = 130.0
    bar(200)  # 300 new games in 30 s: 10 games/s, 500 left
    assert lines == ["progress: 500/1,000 games (50.0 %), 10 games/s, about 50 s left"]
    now[0] = 150.0
    bar.tick()  # 20 s since the last line: none
    now[0] = 160.0
    bar.tick()  # 60 s: one line even without a finished chunk
    assert lines[-1] == "progress: 500/1,000 games (50.0 %), 5.0 games/s, about 1 min 40 s left"
    assert len(lines) == 2


def test_progress_of_a_slow_player_is_not_zero_games_a_second():
    now = [0.0]
    lines: list[str] = []
    bar = runner.ProgressLines(400, 0, lambda: now[0], lines.append, every=30)
    now[0] = 30.0
    bar.tick()  # nothing done yet
    now[0] = 60.0
    bar(24)  # 24 games in 60 s: 0.4 games/s, i.e. 2.5 s a game; 376 left: 940 s
    now[0] = 90.0
    bar(147)  # 171 games in 90 s: 1.9 games/s; 229 left: 121 s
    assert lines == ["progress: 0/400 games (0.0 %), no game done yet, time left unknown yet",
                     "progress: 24/400 games (6.0 %), 2.5 s/game, about 15 min 40 s left",
                     "progress: 171/400 games (42.8 %), 1.9 games/s, about 2 min 01 s left"]


def test_the_progress_bar_on_a_terminal_shows_seconds_a_game(monkeypatch, capsys):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich draws its bar as on a terminal
    monkeypatch.setenv("COLUMNS", "160")
    now = [0.0]
    with runner._progress(True, 100, 0, lambda: now[0]) as advance:
        now[0] = 50.0
        advance(20)  # 20 games in 50 s: 2.5 s a game
    err = capsys.readouterr().err
    assert "2.5 s/game" in err and "0 games/s" not in err


def test_a_slow_run_ends_with_seconds_a_game_not_zero_games_a_second(toy_file, tmp_path, monkeypatch):
    from dataclasses import replace
    from types import SimpleNamespace

    run = {"games": 20, "arms": ["base"], "chunks_resumed": 0, "games_per_second": 0.25}

    def fake(*args, **kwargs):
        return SimpleNamespace(summary={"run": run}, out_dir=tmp_path)

    monkeypatch.setitem(studies.kinds(), "simulate", replace(studies.kinds()["simulate"], api=fake))
    res = cli.invoke(app, ["simulate", str(toy_file), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "20 games x 1 variant(s) (0 chunk(s) resumed), 4.0 s/game" in res.output


def test_a_run_off_a_terminal_prints_progress_lines(toy_file, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "PROGRESS_EVERY", 0.0)
    res = cli.invoke(app, ["simulate", str(toy_file), "--games", "20", "--chunk-size", "10",
                           "--jobs", "1", "--out", str(tmp_path / "p")])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("progress: ")]
    assert lines and lines[-1].startswith("progress: 60/60 games (100.0 %), ")


# ------------------------------------------------------------------ fault 10: every problem


def test_validate_reports_every_problem_one_line_each(write_scenario):
    path = write_scenario('game = "toy"\nplayers = 3\ngmaes = 5\nseed = -1\n[rules]\n'
                          'sides = 99\n[[seats]]\npolicy = "biased"\nparams = { boots = 1 }\n'
                          '[[seats]]\npolicy = "oracle"\n[[seats]]\npolicy = "random"\n'
                          '[[variants]]\nname = "base"\n')
    res = cli.invoke(app, ["validate", str(path)])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    expected = [f"{path}: gmaes: unknown key", f"{path}: seed: must be in 0..2**63-1",
                f"{path}: seats[0].params.boots: unknown parameter",
                f"{path}: seats[1]: unknown policy 'oracle'",
                f"{path}: variants[0].name: 'base' is reserved"]
    assert len(lines) == len(expected), lines
    for line, start in zip(lines, expected):
        assert line.startswith(f"analyzer: error: {start}"), (line, start)
    with pytest.raises(ScenarioError) as info:
        api.validate(path)
    assert info.value.problems and len(info.value.problems) == len(expected)


def test_one_problem_is_still_one_line(write_scenario):
    path = write_scenario('game = "toy"\nplayers = 3\n[rules]\nsides = 99\n'
                          '[[seats]]\npolicy = "random"\n')
    _one_line(cli.invoke(app, ["validate", str(path)]), "rules.sides:")


# ------------------------------------------------------------------ the run directory


def test_run_dir_refuses_another_run_and_keeps_one_fingerprint(tmp_path):
    rd = RunDir.choose(tmp_path / "d", tmp_path / "x", {"name": "a", "seed": 1, "kind": "sweep"})
    with rd.session():
        rd.prepare_chunks({"scenario": "h", "seed": 1, "name": "a", "kind": "sweep"})
        rd.saved = "something"
    assert read_fingerprint(rd.chunks)["kind"] == "sweep"
    assert rd.stored() == {"name": "a", "seed": 1, "kind": "sweep"}
    with pytest.raises(OptionError, match="holds the sweep of 'a' \\(seed 1\\), not the run of"):
        RunDir.choose(tmp_path / "d", tmp_path / "x", {"name": "a", "seed": 1,
                                                        "kind": "simulate"})
    with pytest.raises(OptionError, match="empty path"):
        RunDir.choose(" ", tmp_path / "x", {"name": "a", "seed": 1, "kind": "sweep"})


def test_a_user_error_before_anything_is_saved_leaves_no_directory(tmp_path):
    rd = RunDir(tmp_path / "new", {"name": "a", "seed": 1, "kind": "simulate"})
    with pytest.raises(ScenarioError), rd.session():
        raise ScenarioError("refused before any game")
    assert not (tmp_path / "new").exists()


def test_keyboard_interrupt_in_a_session_is_a_run_interrupted(tmp_path):
    rd = RunDir(tmp_path / "s", {"name": "a", "seed": 1, "kind": "simulate"})
    with pytest.raises(RunInterrupted) as info, rd.session():
        rd.saved = "3 of 9 things saved in somewhere"
        raise KeyboardInterrupt
    assert str(info.value).startswith("interrupted: 3 of 9 things saved in somewhere; resume")
    assert isinstance(info.value.__context__, KeyboardInterrupt)
    assert os.path.isdir(tmp_path / "s")


_PLAIN_DRIVER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    import toygame
    from analyzer.games import register_game
    register_game(toygame.SPEC)
    from analyzer.cli import app
    app(sys.argv[1:], prog_name="analyzer")
""")


def test_ctrl_c_of_a_parallel_run_is_one_line_without_joblib_warning(toy_file, tmp_path):
    """Ctrl-C of a run on two worker processes printed joblib's UserWarning ("tasks which
    were still being processed by the workers have been cancelled") before the one line
    (break-it trial)."""
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", _PLAIN_DRIVER.format(tests=str(TESTS)), "simulate",
         str(toy_file), "--games", "100000", "--chunk-size", "20", "--jobs", "2", "--out",
         str(out), "--quiet"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    end = time.monotonic() + 120
    while len(list(out.glob("chunks/games-*.parquet"))) < 2:
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("analyzer: interrupted: "), err
