"""analyzer tune: the parameter space, determinism (same seeds => same tuned.toml whatever the
jobs and chunks), resume, the fresh-seed check, tuned.toml as a params_file of a scenario seat
and a pool entrant, bad options, and the CLI and API on every game."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import toygame
from typer.testing import CliRunner

from analyzer import api, runner
from analyzer.cli import app
from analyzer.errors import ScenarioError
from analyzer.games import available_games, get_game
from analyzer.scenario import load_scenario, read_params_file
from analyzer.study.tournament import load_pool
from analyzer.study.tune import Dimension, derived_seed, dimensions, tune

SCENARIO = """\
name = "toy-tune"
game = "toy"
players = 3
seed = 9

[[seats]]
policy = "biased"
name = "me"
params = { boost = 0.3, chance = 0.3, label = "y" }

[[seats]]
policy = "biased"

[[seats]]
policy = "random"
"""

ROOT = Path(__file__).resolve().parents[1]

SMALL = {"budget": 240, "games": 20, "popsize": 4, "validation_games": 60}


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy-tune.toml"
    path.write_text(SCENARIO)
    return path


def test_dimensions_decode_inside_the_bounds():
    d = Dimension("n", int, 0, 30)
    assert [d.decode(x) for x in (-1, 0, 0.5, 0.51, 1, 2)] == [0, 0, 15, 15, 30, 30]
    f = Dimension("w", float, -5, 5)
    assert f.decode(0.123456) == pytest.approx(-3.765)  # 4 significant digits
    assert f.decode(f.encode(1.25)) == 1.25
    dims, fixed = dimensions(get_game("toy"), "biased")
    assert [(x.name, x.kind, x.low, x.high) for x in dims] == [("boost", float, 0, 5),
                                                                ("chance", float, 0, 1)]
    assert fixed == ["label"]  # a str parameter is kept as the seat has it
    assert derived_seed(9, 1, 1) != derived_seed(9, 1, 2) != derived_seed(9, 2)


def test_tune_finds_a_better_toy_player_and_checks_it_on_fresh_seeds(scenario_file, tmp_path):
    """The toy's biased player wins more with a larger bonus: the tuned seat beats its start
    on fresh seeds, paired, and the report says so."""
    res = tune(scenario_file, seat=0, out=tmp_path / "t", jobs=1, budget=600, games=50,
               validation_games=400)
    fig = res.summary["results"]["tune"]
    assert fig["tuned"]["rate"] > fig["start"]["rate"] + 0.2
    assert fig["difference"]["lo"] > 0 and fig["difference"]["significant"]
    assert fig["games"] == 400 and fig["difference"]["n"] == 400
    assert res.tuned["boost"] > 0.3 and res.tuned["label"] == "y"
    study = res.summary["run"]["study"]
    assert study["generations"] == 600 // (6 * 50) and len(study["history"]) == 2
    search = pd.read_parquet(res.out_dir / "search.parquet")
    assert len(search) == 2 * 6 and set(search["games"]) == {50}
    # every candidate of a generation played the same seeds: the check's seeds are new
    seeds = [h["seed"] for h in study["history"]] + [study["validation_seed"]]
    assert len(set(seeds)) == 3
    text = (res.out_dir / "report.md").read_text()
    assert "## Tuned against start, on fresh seeds" in text and "Tuned − start: +" in text
    # the Answers, then the key findings: the paired difference, the same numbers, Holm over
    # the two listed
    assert text.split("\n## ")[1].startswith("Answers")
    assert text.split("\n## ")[2].startswith("Key findings")
    key = {f["key"]: f for f in fig["findings"]["findings"]}
    d = key["tuned_minus_start"]
    assert (d["estimate"], d["lo"], d["hi"]) == (fig["difference"]["diff"],
                                                fig["difference"]["lo"], fig["difference"]["hi"])
    assert d["holds"] and fig["findings"]["tested"] == 2
    assert "The tuned parameters change the win rate of the tuned seat (`me*`) by +" in text
    for chart in ("convergence.png", "trajectories.png"):
        assert (res.out_dir / "charts" / chart).is_file()
    before = json.loads((res.out_dir / "summary.json").read_text())["results"]
    api.render_report(res.out_dir)  # re-renders from the records and run facts alone
    assert json.loads((res.out_dir / "summary.json").read_text())["results"] == before


def test_same_seeds_same_tuned_toml_whatever_the_jobs(scenario_file, tmp_path):
    one = tune(scenario_file, seat=0, out=tmp_path / "one", jobs=1, **SMALL)
    two = tune(scenario_file, seat=0, out=tmp_path / "two", jobs=2, chunk_size=3, **SMALL)
    assert one.tuned_file.read_text() == two.tuned_file.read_text()
    pd.testing.assert_frame_equal(pd.read_parquet(one.out_dir / "search.parquet"),
                                  pd.read_parquet(two.out_dir / "search.parquet"))
    other = tune(scenario_file, seat=0, out=tmp_path / "three", jobs=1, seed=10, **SMALL)
    assert other.tuned_file.read_text() != one.tuned_file.read_text()


def test_interrupted_and_resumed_equals_uninterrupted(scenario_file, tmp_path, monkeypatch):
    full = tune(scenario_file, seat=0, out=tmp_path / "full", backend="sequential",
                chunk_size=5, **SMALL)
    cut = tmp_path / "cut"
    # generation 1: 4 candidates x 20 games; stop in generation 2 after its first candidate
    # and one chunk (5 games) of the second: each candidate has its own chunks (issue #35)
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [4 * 20 + 20 + 5 + 3])
    with pytest.raises(runner.RunInterrupted, match=r"1 of 3 generations saved in .* \(1 of 4 "
                                                    r"candidates saved in .*gen-0001; 1 of 4 "
                                                    r"chunks saved in .*gen-0001/c01\)"):
        tune(scenario_file, seat=0, out=cut, backend="sequential", chunk_size=5, **SMALL)
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [])
    res = tune(scenario_file, seat=0, out=cut, backend="sequential", chunk_size=5, resume=True,
               **SMALL)
    # generation 1 (4 candidates x 4 chunks), the first candidate of generation 2 and one chunk
    assert res.summary["run"]["chunks_resumed"] == 4 * 4 + 4 + 1
    assert res.tuned_file.read_text() == full.tuned_file.read_text()
    pd.testing.assert_frame_equal(pd.read_parquet(cut / "seats.parquet"),
                                  pd.read_parquet(full.out_dir / "seats.parquet"))
    # a resume with another budget is another run: refused, nothing replaced
    with pytest.raises(ScenarioError, match="whose budget differs"):
        tune(scenario_file, seat=0, out=cut, backend="sequential", chunk_size=5, resume=True,
             **{**SMALL, "budget": 480})


def test_tuned_toml_is_a_params_file_for_a_seat_and_an_entrant(scenario_file, tmp_path):
    res = tune(scenario_file, seat=0, out=tmp_path / "t", jobs=1, **SMALL)
    tuned = dict(res.tuned)
    (tmp_path / "use.toml").write_text(
        'name = "use"\ngame = "toy"\nplayers = 3\n[[seats]]\nparams_file = "t/tuned.toml"\n'
        'name = "tuned"\n[[seats]]\npolicy = "random"\n[[seats]]\npolicy = "random"\n')
    seat = load_scenario(tmp_path / "use.toml").arms[0].seats[0]
    assert (seat.policy, dict(seat.params)) == ("biased", tuned)
    (tmp_path / "pool.toml").write_text(
        'name = "p"\ngame = "toy"\nplayers = 3\n[[entrants]]\npolicy = "random"\n'
        '[[entrants]]\nname = "tuned"\nparams_file = "t/tuned.toml"\n')
    entrant = load_pool(tmp_path / "pool.toml").entrants[1]
    assert (entrant.policy, dict(entrant.params)) == ("biased", tuned)


def test_opponents_from_a_pool(scenario_file, tmp_path):
    (tmp_path / "pool.toml").write_text(
        'name = "p"\ngame = "toy"\nplayers = 3\n[[entrants]]\npolicy = "random"\n'
        '[[entrants]]\nname = "b"\npolicy = "biased"\n[[entrants]]\nname = "c"\n'
        'policy = "biased"\nparams = { boost = 2.0 }\n')
    res = tune(scenario_file, seat=0, out=tmp_path / "t", jobs=1,
               opponents=tmp_path / "pool.toml", **SMALL)
    study = res.summary["run"]["study"]
    assert study["tables"] == [["random", "b"], ["random", "c"], ["b", "c"]]
    fig = res.summary["results"]["tune"]
    assert fig["tables"] == 3 and fig["games"] == 3 * 20  # 60 games split over 3 tables
    seats = pd.read_parquet(res.out_dir / "seats.parquet")
    assert sorted(seats["variant"].unique()) == [f"{a}:t{t:02d}" for a in ("start", "tuned")
                                                 for t in range(3)]


@pytest.mark.parametrize("kwargs, flag, message", [
    ({"seat": 3}, "--seat", "3 is outside 0..2"),
    ({"seat": 2}, "--seat", "policy 'random' has no numeric parameter"),
    ({"seat": 0, "budget": 10}, "--budget", "less than one generation"),
    ({"seat": 0, "games": 0}, "--games", "must be at least 1"),
    # under stats.MIN_GAMES per candidate no win rate is estimated: refused before play
    ({"seat": 0, "games": 19, "budget": 10000}, "--games",
     "19 games per candidate are fewer than the 20 a win rate needs to be estimated"),
    ({"seat": 0, "popsize": 1}, "--popsize", "must be at least 2"),
    ({"seat": 0, "validation_games": 1}, "--validation-games", "must be at least 2"),
    ({"seat": 0, "jobs": 0}, "--jobs", "must be at least 1"),
])
def test_bad_options_are_one_line_and_write_nothing(scenario_file, tmp_path, kwargs, flag,
                                                    message):
    out = tmp_path / "never"
    with pytest.raises(ScenarioError, match=message):
        tune(scenario_file, out=out, **kwargs)
    args = ["tune", str(scenario_file), "--out", str(out)]
    for key, value in kwargs.items():
        args += [f"--{key.replace('_', '-')}", str(value)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"analyzer: error: {flag}: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_opponents_of_another_game_refused(scenario_file, tmp_path):
    game = next(g for g in available_games())
    (tmp_path / "pool.toml").write_text(
        f'name = "p"\ngame = "{game}"\nplayers = {get_game(game).bench_table().players}\n'
        '[[entrants]]\npolicy = "random"\n[[entrants]]\npolicy = "greedy"\n')
    result = CliRunner().invoke(app, ["tune", str(scenario_file), "--seat", "0", "--opponents",
                                      str(tmp_path / "pool.toml"), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and f"--opponents: {tmp_path / 'pool.toml'} is a pool of" \
        in result.stderr
    assert not (tmp_path / "x").exists()
    # a scenario given where a pool belongs says so, naming the flag
    result = CliRunner().invoke(app, ["tune", str(scenario_file), "--seat", "0", "--opponents",
                                      str(scenario_file), "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--opponents: " in result.stderr
    assert "is not a tournament pool" in result.stderr and not (tmp_path / "x").exists()


@pytest.mark.parametrize("game", available_games())
def test_cli_and_api_on_every_game(game, tmp_path):
    spec = get_game(game)
    players = spec.bench_table().players
    path = tmp_path / f"{game}.toml"
    path.write_text(f'name = "{game}-tune"\ngame = "{game}"\nplayers = {players}\nseed = 4\n'
                    '[[seats]]\npolicy = "greedy"\n' + '[[seats]]\npolicy = "random"\n'
                    * (players - 1))
    small = ["--budget", "40", "--games", "20", "--popsize", "2", "--validation-games", "4",
             "--jobs", "1"]
    result = CliRunner().invoke(app, ["tune", str(path), "--seat", "0", "--out",
                                      str(tmp_path / "cli"), "--quiet", *small])
    assert result.exit_code == 0, result.output + result.stderr
    assert "params file: " in result.stdout and "tuned - start" in result.stdout
    # four check seeds: the command line says so as the report does (no interval)
    assert "too few games to estimate: 4 seeds" in result.stdout
    res = tune(path, seat=0, out=tmp_path / "api", budget=40, games=20, popsize=2,
               validation_games=4, jobs=1)
    assert res.tuned_file.read_text() == (tmp_path / "cli" / "tuned.toml").read_text()
    dims, _ = dimensions(spec, "greedy")
    assert set(res.tuned) >= {d.name for d in dims}


@pytest.mark.parametrize("game", available_games())
def test_shipped_tuned_greedy_is_a_params_file_made_by_its_tune_scenario(game):
    """scenarios/tuned/<game>-greedy.toml: every tunable greedy parameter, inside its declared
    bounds; the command in its header tunes seat 0 of scenarios/<game>-greedy-tune.toml, a
    greedy seat of the same game, and names the options that fix the result."""
    spec = get_game(game)
    path = ROOT / "scenarios" / "tuned" / f"{game}-greedy.toml"
    policy, params = read_params_file(path, None, spec)
    dims, _ = dimensions(spec, "greedy")
    assert policy == "greedy" and {d.name for d in dims} <= set(params)
    assert all(d.low <= params[d.name] <= d.high for d in dims)
    command = next(line for line in path.read_text().splitlines() if "analyzer tune " in line)
    words = command.split("analyzer tune ", 1)[1].split()
    assert words[0] == f"scenarios/{game}-greedy-tune.toml"
    assert {"--seat", "--budget", "--games", "--popsize", "--validation-games", "--seed"} <= set(words)
    scenario = load_scenario(ROOT / words[0])
    assert scenario.game == game and scenario.arms[0].seats[0].policy == "greedy"
    assert str(scenario.seed) == words[words.index("--seed") + 1]


def test_fresh_seed_check_counts_games_nobody_won_in_the_fair_share():
    """By hand: four seeds at three seats. A fair seat wins 1/3 of a game someone won and 0
    of one nobody won; the seat's win share above it is a per-seed difference; the key
    findings are the tuned − start difference and the tuned seat above its fair share."""
    from analyzer.report import findings
    from analyzer.report.tuning import key_findings, numbers

    won = {"start": [(1, 0, 0), (0, 0, 0), (0, 1, 0), (0.5, 0.5, 0)],
           "tuned": [(1, 0, 0), (1, 0, 0), (0, 0, 0), (1, 0, 0)]}
    seats = pd.DataFrame([
        {"variant": arm, "game_id": g, "policy": pol, "won": float(w)}
        for arm, games in won.items() for g, row in enumerate(games)
        for pol, w in zip(("me*", "biased", "random"), row)])
    check = numbers({"study": {"label": "me*", "dimensions": []}}, seats)
    assert check["players"] == 3 and check["tables"] == 1 and check["games"] == 4
    assert check["start"]["fair"] == pytest.approx(0.25) == check["tuned"]["fair"]
    assert check["start"]["above_fair"]["diff"] == pytest.approx((2 / 3 + 0 - 1 / 3 + 1 / 6) / 4)
    assert check["tuned"]["above_fair"]["diff"] == pytest.approx(0.5)
    assert check["difference"]["diff"] == pytest.approx(0.375)
    found = key_findings(check, "me*")
    assert [f.key for f in found] == ["tuned_minus_start", "tuned_above_fair"]
    assert found[0].estimate == pytest.approx(0.375) and found[0].null == 0.0
    # four seeds are below stats.MIN_GAMES: no interval, no test ("too few games to estimate")
    assert not any(a.tested for a in findings.assess(found))
    assert "too few games to estimate (4 games" in found[0].sentence()


def test_the_check_seed_comes_from_the_whole_run_identity(scenario_file, tmp_path):
    """Issue #21: two tunes with budgets 3,300 and 2,200 were checked on identical games. The
    check's root seed now depends on every option of the run (and is printed), not only on
    the scenario's seed; the same tune keeps it (resume, determinism)."""
    from analyzer.study.tune import plan

    scenario = api.validate(scenario_file)

    def seed(**kw):
        opts = {"budget": 3300, "games": 50, "popsize": 6, "validation_games": 400, **kw}
        return plan(scenario, 0, **opts).check_seed

    assert seed() == seed()
    others = {seed(budget=2200), seed(games=40), seed(popsize=8), seed(validation_games=300)}
    assert seed() not in others and len(others) == 4
    assert plan(scenario, 1, budget=3300, games=50, popsize=6,
                validation_games=400).check_seed != seed()
    lines = []
    res = tune(scenario_file, seat=0, out=tmp_path / "t", jobs=1, log=lines.append, **SMALL)
    check = res.summary["run"]["study"]["validation_seed"]
    assert check == plan(scenario, 0, **SMALL).check_seed
    assert f"check seed {check}" in lines[-1]
    text = (res.out_dir / "report.md").read_text()
    assert "picking the best of several tunes by their checks brings the winner's curse back" in (
        text)


def test_a_tiny_check_says_too_few_games_and_no_interval_leaves_the_possible_range():
    """Five seeds: a paired t interval of win shares is ±124 pp; the check says "too few games
    to estimate" and keeps every bound inside ±100 pp."""
    from analyzer.report.tuning import difference_text, numbers

    won = {"start": [0, 1, 0, 0, 1], "tuned": [1, 0, 0, 1, 0]}
    seats = pd.DataFrame([
        {"variant": arm, "game_id": g, "policy": pol, "won": float(w if pol == "me*" else 1 - w)}
        for arm, ws in won.items() for g, w in enumerate(ws) for pol in ("me*", "other")])
    check = numbers({"study": {"label": "me*", "dimensions": []}}, seats)
    d = check["difference"]
    assert d["too_few"] and -1 <= d["lo"] and d["hi"] <= 1
    assert difference_text(d) == "+0.0 pp (too few games to estimate: 5 seeds; at least 20 needed)"
    assert all(-1 <= check[a]["above_fair"][k] <= 1 for a in ("start", "tuned")
               for k in ("lo", "hi"))


def test_numbers_is_the_check_by_hand_and_the_tuned_params():
    """One table, four seeds at two seats: the tuned seat wins 3 of 4 games with the tuned
    parameters and 1 of 4 with the start ones; its win rates carry statsmodels' Wilson
    interval, the paired difference is the mean of the per-seed differences (+1, 0, +1, 0),
    and ``params`` are the dimensions' tuned values; ``findings`` are the two key findings,
    too few seeds to test."""
    from statsmodels.stats.proportion import proportion_confint

    from analyzer.report.tuning import numbers

    won = {"start": [1, 0, 0, 0], "tuned": [1, 1, 1, 0]}
    seats = pd.DataFrame([
        {"variant": arm, "game_id": g, "policy": pol, "won": float(w if pol == "me*" else 1 - w)}
        for arm, ws in won.items() for g, w in enumerate(ws) for pol in ("me*", "other")])
    run = {"study": {"label": "me*", "dimensions": [{"name": "boost", "tuned": 0.7},
                                                    {"name": "chance", "tuned": 0.2}]}}
    n = numbers(run, seats)
    assert list(n) == ["games", "tables", "players", "start", "tuned", "difference", "params",
                       "findings"]
    assert (n["games"], n["tables"], n["players"]) == (4, 1, 2)
    for arm, k in (("start", 1), ("tuned", 3)):
        lo, hi = proportion_confint(k, 4, method="wilson")
        assert (n[arm]["rate"], n[arm]["lo"], n[arm]["hi"]) == pytest.approx((k / 4, lo, hi))
        assert n[arm]["fair"] == 0.5
    assert n["difference"]["diff"] == pytest.approx(0.5) and n["difference"]["n"] == 4
    assert n["params"] == {"boost": 0.7, "chance": 0.2}
    assert [r["key"] for r in n["findings"]["findings"]] == ["tuned_minus_start",
                                                            "tuned_above_fair"]
    assert n["findings"]["tested"] == 0  # four seeds: too few games to estimate
