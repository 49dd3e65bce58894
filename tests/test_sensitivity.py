"""analyzer sensitivity (issue #35): each knob's row equals a separate compare of the base and
that knob's setting on the same seeds (estimate and interval exactly), Holm over every knob x
direction row, guards and unused values left out, the tornado chart and the Answers, and bad
input (one line, exit 2). The toy game (tests/balancetoy.py) has its start player's lead in
closed form: ``edge + 0.1 (steps − 5) − 0.1 lag + (bonus − 0.1)``."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from pathlib import Path

import balancetoy
import numpy as np
import pytest
from typer.testing import CliRunner

from analyzer import api, stats
from analyzer.cli import app
from analyzer.games import register_game
from analyzer.model.base import Option, OptionSet
from analyzer.report import sensitivity as report_sensitivity
from analyzer.scenario import load_scenario
from analyzer.study import sensitivity as S

register_game(balancetoy.SPEC)
cli = CliRunner()

TOY = """\
name = "stoy"
game = "balancetoy"
players = 3
games = {games}
seed = 11

[rules]
steps = 5
edge = 0.1
"""
SEATS = """
[[seats]]
policy = "plain"
"""
KEY = "first_player:base"


def _write(tmp_path: Path, name: str = "stoy.toml", games: int = 120, rules: str = "") -> Path:
    path = tmp_path / name
    path.write_text(TOY.format(games=games).replace("name = \"stoy\"",
                                                    f"name = \"{Path(name).stem}\"")
                    + rules + SEATS)
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One sensitivity of the toy (every knob it uses, 120 games per arm)."""
    tmp = tmp_path_factory.mktemp("sens")
    res = api.sensitivity(_write(tmp), finding=KEY, out=tmp / "out", jobs=1)
    return tmp, res


def _rows(res) -> list[dict]:
    return res.summary["results"]["sensitivity"]["rows"]


def test_each_row_equals_a_compare_of_the_two_settings(run):
    """The row of steps + 1 (the start player's lead + 0.1) equals the paired change of the
    start player's advantage a compare of the scenario and the scenario with steps = 6 gives
    (``start_adv:VARIANT``), to the last bit: estimate, interval and p-value."""
    tmp, res = run
    row = next(r for r in _rows(res) if r["path"] == "rules.steps" and r["direction"] == 1)
    assert row["value"] == 6 and row["games"] == 120
    other = _write(tmp, "steps6.toml", rules="").read_text().replace("steps = 5", "steps = 6")
    (tmp / "steps6.toml").write_text(other)
    cmp = api.compare([_write(tmp), tmp / "steps6.toml"], out=tmp / "cmp", jobs=1)
    rec = next(r for r in cmp.summary["results"]["findings"]["findings"]
               if r["key"] == "start_adv:steps6")
    assert (row["estimate"], row["lo"], row["hi"]) == (rec["estimate"], rec["lo"], rec["hi"])
    assert row["p_value"] == rec["p_value"]
    assert row["estimate"] > 0  # a larger lead: a larger start-player advantage


def test_a_table_number_row_equals_a_compare_too(run):
    """The bonus table's start value one step up (a table knob) against a compare of the
    scenario and one with a bonus file at that value."""
    tmp, res = run
    row = next(r for r in _rows(res) if r["path"] == "tables.bonus.start.value"
               and r["direction"] == 1)
    bonus = tmp / "bonus.toml"
    bonus.write_text(f"[[bonus]]\nname = \"start\"\nvalue = {row['value']!r}\n\n"
                     "[[bonus]]\nname = \"other\"\nvalue = 0.0\n")
    other = _write(tmp, "bonusup.toml", rules=f"bonus_file = \"{bonus}\"\n")
    cmp = api.compare([_write(tmp), other], out=tmp / "cmp2", jobs=1)
    rec = next(r for r in cmp.summary["results"]["findings"]["findings"]
               if r["key"] == "start_adv:bonusup")
    assert (row["estimate"], row["lo"], row["hi"]) == (rec["estimate"], rec["lo"], rec["hi"])


def test_holm_over_every_row(run):
    """The Holm-adjusted p-values are Holm's step-down over all knob x direction rows
    (computed here by hand), and the report says the family."""
    _tmp, res = run
    rows = _rows(res)
    p = np.array([r["p_value"] for r in rows])
    order = np.argsort(p)
    m = len(p)
    adj = np.empty(m)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        adj[j] = running
    assert np.allclose([r["p_holm"] for r in rows], adj)
    assert any(r["p_holm"] > r["p_value"] for r in rows)
    text = (res.out_dir / "report.md").read_text()
    assert f"corrected over all {m} knob × direction rows" in text


def test_rows_sorted_by_absolute_effect_with_units(run):
    _tmp, res = run
    rows = _rows(res)
    sizes = [abs(r["estimate"]) for r in rows]
    assert sizes == sorted(sizes, reverse=True)
    assert rows[0]["text"].startswith(("+1 on steps: +", "-1 on steps: -", "+1 on lag: -"))
    assert " pp [" in rows[0]["text"]


def test_knobs_used_guards_and_refused(run):
    """The knobs are the toy's: edge, steps, lag and the bonus table's start value (they move
    the lead the game lists as acting); the guard max_rolls is never a candidate; the unused
    bonus entry is left out and said; lag cannot go below its bound 0."""
    tmp, res = run
    scenario = load_scenario(_write(tmp))
    assert "rules.max_rolls" not in S.candidates(scenario)
    study = res.summary["run"]["study"]
    assert {m["path"] for m in study["moves"]} == {"rules.edge", "rules.steps", "rules.lag",
                                                   "tables.bonus.start.value"}
    assert "tables.bonus.other.value" in study["unused"]
    assert study["refused"] == [{"path": "rules.lag", "direction": -1, "value": -1,
                                 "why": study["refused"][0]["why"]}]
    edge = [m for m in study["moves"] if m["path"] == "rules.edge"]
    assert [m["value"] for m in edge] == pytest.approx([0.09, 0.11])  # 10 % of 0.1


def test_report_answers_first_and_tornado(run):
    _tmp, res = run
    text = (res.out_dir / "report.md").read_text()
    assert text.index("Answers") < text.index("Sensitivity: each knob")
    assert (res.out_dir / "charts" / "sensitivity_tornado.png").stat().st_size > 1000
    answers = res.summary["results"]["answers"]["answers"]
    assert answers and answers[0]["key"].startswith("sensitivity:rules.")
    # the caption says the order the answers are in (largest effect first, not "fixed")
    assert "the sensitivity study's own questions, largest absolute effect first" in text
    assert "in a fixed order" not in text
    assert [abs(a["estimate"]) for a in answers] == sorted((abs(a["estimate"])
                                                            for a in answers), reverse=True)
    # one minus sign in the Answers, the sensitivity table and the command line's rows: the
    # report's own (``document.value_text``), never a Unicode minus beside an ASCII one
    import re

    assert not re.search("\u2212[0-9]", text) and re.search(r"\[-[0-9]", text)
    rows = res.summary["results"]["sensitivity"]["rows"]
    assert any("-" in r["text"] for r in rows) and not any("\u2212" in r["text"] for r in rows)


def test_the_per_game_effect_is_the_paired_difference():
    """``effect`` pairs on the shared games only, in game order."""
    import pandas as pd

    base = pd.Series([0.0, 1.0, 0.5, 0.2], index=[3, 1, 2, 0])
    arm = pd.Series([1.0, 1.0, 0.0], index=[1, 2, 3])
    d = report_sensitivity.effect(base, arm, "pp")
    ref = stats.paired_difference([1.0, 0.5, 0.0], [1.0, 1.0, 0.0], bounds=(-1.0, 1.0))
    assert (d.mean, d.lo, d.hi) == (ref.mean, ref.lo, ref.hi)


def test_only_and_step(tmp_path):
    res = api.sensitivity(_write(tmp_path, games=40), finding=KEY, only="rules.st*,rules.lag",
                          step="2", out=tmp_path / "o", jobs=1)
    moves = res.summary["run"]["study"]["moves"]
    assert {(m["path"], m["value"]) for m in moves} == {("rules.steps", 3), ("rules.steps", 7),
                                                        ("rules.lag", 2)}


def _one_line(args, fragment):
    res = cli.invoke(app, args)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], res.stderr
    assert "Traceback" not in res.output
    return lines[0]


def test_bad_input_is_one_line(tmp_path):
    path = str(_write(tmp_path, games=40))
    out = ["--out", str(tmp_path / "bad"), "--jobs", "1", "--quiet"]
    line = _one_line(["sensitivity", path, "--finding", "first_playr:base", *out],
                     "unknown finding key")
    assert "first_player:base" in line
    _one_line(["sensitivity", path, "--finding", KEY, "--only", "rules.stepz", *out],
              "did you mean 'steps'")
    _one_line(["sensitivity", path, "--finding", KEY, "--only", "rules.max_rolls", *out],
              "simulator guard")
    _one_line(["sensitivity", path, "--finding", KEY, "--only", "tables.nothing.*", *out],
              "matches no knob")
    _one_line(["sensitivity", path, "--finding", KEY, "--step", "abc", *out],
              "--step: must be a number")
    _one_line(["sensitivity", path, "--finding", KEY, "--step", "nan", *out], "--step")
    _one_line(["sensitivity", path, "--finding", KEY, "--step", "0.5", "--only", "rules.steps",
               *out], "not a whole number")
    _one_line(["sensitivity", path, "--finding", "score:base", *out], "unknown finding key")
    # under stats.MIN_GAMES games the rows had intervals the Answers called "too few games"
    _one_line(["sensitivity", path, "--finding", KEY, "--games", "5", *out],
              "--games: 5 games per arm are fewer than the 20 a paired difference needs; give "
              "at least --games 20")
    assert not (tmp_path / "bad").exists()


def test_a_scenario_with_no_numeric_knob_is_one_line(tmp_path):
    """A game whose only rule options are a word and a guard, and no table."""
    flat = OptionSet("flattoy", (
        Option("mode", "plain", str, "rule 7", "a text option", choices=("plain", "fancy")),
        Option("max_rolls", 100, int, "rule 9", "a guard", low=1, high=1000, guard=True)))

    def make_config(players, expansions, rules):
        balancetoy.PLAYERS.check(players, expansions)
        flat.resolve(players, rules)
        return balancetoy.Config(players, 0.0, 1.0, 0.0, 1.0)

    register_game(replace(balancetoy.SPEC, name="flattoy", options=flat, tables={},
                          make_config=make_config))
    path = tmp_path / "flat.toml"
    path.write_text('name = "flat"\ngame = "flattoy"\nplayers = 3\ngames = 20\nseed = 1\n'
                    + SEATS)
    _one_line(["sensitivity", str(path), "--finding", KEY, "--out", str(tmp_path / "f"),
               "--quiet"], "no numeric rule option or table value to move")


def test_summary_is_json_and_rerenders(run):
    """``analyzer report`` of the run gives the same rows."""
    _tmp, res = run
    api.render_report(res.out_dir)
    again = json.loads((res.out_dir / "summary.json").read_text())
    assert again["results"]["sensitivity"]["rows"] == json.loads(json.dumps(
        res.summary["results"]["sensitivity"]["rows"]))


def test_cli_says_the_balance_command_of_the_top_knobs(tmp_path):
    """The command line ends with the ``analyzer balance`` command that varies the top 3 knobs
    (those that hold after Holm first), each over 3 steps either side where the game allows:
    steps 5 (bounds 0..10) over 2..8, lag 0 (bounds 0..4) over 0..3; and that command runs."""
    path = _write(tmp_path, games=200)
    res = cli.invoke(app, ["sensitivity", str(path), "--finding", KEY, "--only",
                           "rules.steps,rules.lag", "--out", str(tmp_path / "o"), "--jobs", "1",
                           "--quiet"])
    assert res.exit_code == 0, res.output
    rows = json.loads((tmp_path / "o" / "summary.json").read_text())["results"][
        "sensitivity"]["rows"]
    assert f"largest: {rows[0]['text']} — " in res.stdout  # (its verdict: the test below)
    line = next(x for x in res.stdout.splitlines() if x.startswith("to balance on the"))
    # what the knobs are, named: not "the top 3 knobs"
    assert line.startswith(f"to balance on the 2 knob(s) with the largest effect on {KEY} in "
                           "this run (steps, lag): "), line
    command = line.split("): ", 1)[1]
    assert "--vary rules.steps=2..8" in command and "--vary rules.lag=0..3" in command
    words = shlex.split(command)[2:] + ["--budget", "560", "--validation-games", "40",
                                        "--out", str(tmp_path / "b"), "--jobs", "1", "--quiet"]
    ran = cli.invoke(app, ["balance", *words])
    assert ran.exit_code == 0, ran.output
    # balance --vary top:K@RUN_DIR starts from the same knobs and ranges
    top = cli.invoke(app, ["balance", str(path), "--finding", KEY, "--vary",
                           f"top:2@{tmp_path / 'o'}", "--budget", "560", "--validation-games",
                           "40", "--out", str(tmp_path / "t"), "--jobs", "1"])
    assert top.exit_code == 0, top.output
    assert (f"--vary top:2@{tmp_path / 'o'}: the 2 knob(s) with the largest effect on {KEY} in "
            f"the sensitivity run {tmp_path / 'o'}") in top.stderr
    knobs = json.loads((tmp_path / "t" / "summary.json").read_text())["run"]["study"]["knobs"]
    assert {(k["path"], k["low"], k["high"]) for k in knobs} == {("rules.steps", 2, 8),
                                                                  ("rules.lag", 0, 3)}
    base = ["balance", str(path), "--finding", KEY, "--out", str(tmp_path / "x"), "--quiet"]
    _one_line([*base, "--vary", "top:x"], "give top:K")
    _one_line([*base, "--vary", f"top:2@{tmp_path / 'none'}"], "no finished sensitivity run")
    # a mismatched or stale run directory is named: another finding, another scenario, or
    # a knob's value changed in the scenario since the sensitivity moved it
    top2 = ["--vary", f"top:2@{tmp_path / 'o'}"]
    line = _one_line(["balance", str(path), "--finding", "seat:worst", *top2, "--out",
                      str(tmp_path / "x"), "--quiet"], f"{tmp_path / 'o'} ranks the knobs by "
                     f"their effect on {KEY}, not on seat:worst")
    other = _write(tmp_path, "other.toml", games=200)
    _one_line(["balance", str(other), "--finding", KEY, *top2, "--out", str(tmp_path / "x"),
               "--quiet"], f"{tmp_path / 'o'} is a sensitivity run of scenario 'stoy', not of "
                           "'other'")
    path.write_text(path.read_text().replace("steps = 5", "steps = 6"))
    _one_line([*base, *top2], f"{tmp_path / 'o'} is stale: it moved rules.steps from 5, and "
                              "the scenario now has 6; run analyzer sensitivity")
    assert not (tmp_path / "x").exists()


def test_top_knobs_prefer_those_that_hold():
    rows = [{"path": "a", "estimate": 0.5, "holds": False},
            {"path": "b", "estimate": -0.1, "holds": True},
            {"path": "b", "estimate": 0.05, "holds": False},
            {"path": "c", "estimate": 0.2, "holds": False},
            {"path": "d", "estimate": float("nan"), "holds": False}]
    assert [r["path"] for r in S.top_knobs(rows)] == ["b", "a", "c"]
    assert S.top_knobs(rows)[0]["estimate"] == -0.1


def test_ctrl_c_keeps_the_finished_chunks_and_resume_plays_the_rest(tmp_path, monkeypatch):
    """A stop during play keeps every finished chunk; ``resume`` plays only the rest (the probe
    again, then the chunks not saved) and gives the same rows as a run never stopped."""
    from analyzer import runner

    path = _write(tmp_path, games=40)
    opts = {"finding": KEY, "only": "rules.steps", "jobs": 1, "backend": "sequential",
            "chunk_size": 10}
    full = api.sensitivity(path, out=tmp_path / "full", **opts)
    cut = tmp_path / "cut"
    # the probe plays 40 games; then chunks of 10 games x 3 arms: stop in the third chunk
    monkeypatch.setattr(balancetoy, "INTERRUPT_AFTER", [40 + 2 * 30 + 5])
    with pytest.raises(runner.RunInterrupted, match="2 of 4 chunks saved"):
        api.sensitivity(path, out=cut, **opts)
    monkeypatch.setattr(balancetoy, "INTERRUPT_AFTER", [10 ** 6])
    res = api.sensitivity(path, out=cut, resume=True, **opts)
    assert 10 ** 6 - balancetoy.INTERRUPT_AFTER[0] == 40 + 2 * 30  # the probe, 2 chunks
    assert _rows(res) == _rows(full)


def test_an_unknown_finding_is_refused_before_any_game(tmp_path, monkeypatch):
    """``--finding`` is held against the plan of the scenario's run (``analyzer findings
    SCENARIO.toml``) before the probe plays a game (it used to take a 100-game probe), and the
    suggestions are keys that run makes, never another study kind's families."""
    from analyzer.errors import OptionError

    def no_game(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(S, "probe", no_game)
    monkeypatch.setattr(S.StudyRun, "play_arms", no_game)
    path = _write(tmp_path, games=40)
    for key, says in (("first_playr:base", "did you mean 'first_player:base'?"),
                      ("seat:wrst", "did you mean 'seat:worst'"),
                      ("score:base", "base is the reference"),
                      ("win_rate:plain", "several policies")):
        with pytest.raises(OptionError) as err:
            api.sensitivity(path, finding=key, out=tmp_path / "o", jobs=1)
        line = str(err.value)
        assert says in line and "unknown finding key" in line, line
        for other in ("tuned_minus_start", "sensitivity", "balance", "rating_gap", "item"):
            assert other not in line.replace("a sensitivity of", ""), line
    with pytest.raises(OptionError, match="no key of this run starts with 'nothing:'; its "
                                          "families: first_player, seat;"):
        api.sensitivity(path, finding="nothing:x", out=tmp_path / "o", jobs=1)
    assert not (tmp_path / "o").exists()


def test_a_quality_finding_needs_rounds_a_sensitivity_does_not_record(tmp_path):
    import flowtoy

    register_game(flowtoy.SPEC)
    path = tmp_path / "race.toml"
    path.write_text('name = "race"\ngame = "flowtoy"\nplayers = 2\ngames = 40\nseed = 7\n\n'
                    '[rules]\nrounds = 6\n\n[[seats]]\npolicy = "random"\n')
    from analyzer.errors import OptionError

    with pytest.raises(OptionError, match="measured only with --rounds.*analyzer sensitivity "
                                          "records no rounds"):
        api.sensitivity(path, finding="quality:rounds:base", out=tmp_path / "o", jobs=1)


def test_every_candidate_of_a_table_with_a_name_in_two_arrays_names_one_entry(tmp_path):
    """Pyramidion's card table has a `merchant` in `starting` and seven in `common`, its site
    table an `Abu Simbel`: every candidate path must name one entry and parse as a knob, or
    the sensitivity of a plain scenario stops before any game ("'merchant' names 8 entries")
    and the sites' numbers are refused as "not played" ("must read PATH=LO..HI")."""
    from analyzer.study import knobs
    data = {"starting": [{"name": "a", "n": 1}], "common": [{"name": "a", "n": 2},
                                                           {"name": "b", "n": 3},
                                                           {"name": "c.d", "n": 4}]}
    assert knobs.entries(data) == ["starting[0]", "common[0]", "b", "common[2]"]
    path = tmp_path / "p.toml"
    path.write_text('name = "p"\ngame = "pyramidion"\nplayers = 3\ngames = 20\n'
                    '[[seats]]\npolicy = "greedy"\n')
    scenario = load_scenario(path)
    paths = [p for p in S.candidates(scenario) if p.startswith("tables.")]
    assert any(p.startswith("tables.sites.Abu Simbel.") for p in paths)
    paths = [p for p in paths if "Abu Simbel" in p or ".starting" in p or ".merchant" in p]
    _, refused, _ = S.moves(scenario, paths, None, tmp_path)
    assert not [r for r in refused if "must read" in r["why"] or "entries" in r["why"]]


def test_numbers_pairs_each_move_with_the_base_and_holm_over_the_rows(monkeypatch):
    """By hand, with each arm's per-game values given (``arm_findings`` stubbed): the row of a
    move is the mean of its per-game differences from the base on the shared games with
    scipy's paired t interval and test; Holm over the two rows; the larger effect first; the
    per-game differences come apart from the numbers for ``summary.json``."""
    import pandas as pd
    from scipy import stats as sps

    from analyzer.report import findings

    base = pd.Series([0.0, 1.0, 0.0, 1.0, 0.0, 1.0], index=range(6))
    up = pd.Series([1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0], index=range(7))  # game 6 unshared
    down = pd.Series([0.0, 1.0, 0.0, 0.0, 0.0, 1.0], index=range(6))
    per_arm = {"base": base, "up": up, "down": down}
    record = {"key": KEY, "sentence": "at the base"}
    monkeypatch.setattr(report_sensitivity, "arm_findings",
                        lambda run, g, s, arm, folder: ([record], {KEY: per_arm[arm]}))
    moves = [{"path": "rules.x", "label": "x", "direction": d, "start": 1, "value": 1 + d,
              "step": 1, "arm": arm} for d, arm in ((-1, "down"), (1, "up"))]
    run = {"study": {"finding": KEY, "unit": "pp", "scale": 100, "moves": moves}}
    seats = pd.DataFrame({"variant": ["base"] * 6, "game_id": range(6)})
    n = report_sensitivity.numbers(run, seats)
    assert list(n) == ["finding", "unit", "scale", "base", "rows", "refused", "unused",
                       "correction", "findings"]
    assert n["base"] == record and n["correction"] == "holm"
    first, second = n["rows"]
    assert (first["arm"], first["games"], second["arm"]) == ("up", 6, "down")
    found = {f.key: f for f in n["findings"].pop(findings.ASSESSED)[0]}
    assert list(found[f"sensitivity:{first['path']}:up"].per_game) == [1.0, 0.0, 1.0, 0.0, 0.0,
                                                                       0.0]
    assert [r["key"] for r in n["findings"]["findings"]] == [
        f"sensitivity:{first['path']}:up", f"sensitivity:{second['path']}:down"]
    p = []
    for row, arm in ((first, up), (second, down)):
        ref = sps.ttest_rel(arm.loc[range(6)], base)
        lo, hi = ref.confidence_interval()
        assert (row["estimate"], row["lo"], row["hi"], row["p_value"]) == pytest.approx(
            (float(np.mean(arm.loc[range(6)] - base)), lo, hi, ref.pvalue))
        p.append(ref.pvalue)
    low, high = sorted(p)  # Holm over two: the smaller times 2, the larger at least that
    holm = {low: min(1.0, 2 * low), high: max(min(1.0, 2 * low), high)}
    assert [r["p_holm"] for r in n["rows"]] == pytest.approx([holm[q] for q in p])
    assert first["text"] == (f"+1 on x: +{100 * first['estimate']:.1f} pp "
                             f"[{100 * first['lo']:+.1f}, {100 * first['hi']:+.1f}]")


@pytest.mark.parametrize("holds, said", [
    ((False, False), ("largest: +1 on x: -10.0 pp [-22.1, +2.1] — not significant after Holm; "
                     "none of the 2 moves holds: these effects may be noise")),
    ((True, False), ("largest: +1 on x: -10.0 pp [-22.1, +2.1] — holds after Holm; 1 of the 2 "
                    "moves hold")),
    ((False, True), ("largest: +1 on x: -10.0 pp [-22.1, +2.1] — not significant after Holm; 1 "
                    "of the 2 moves hold"))])
def test_the_largest_effect_says_whether_it_holds(holds, said):
    """The command line named the largest effect and suggested a balance on it when no move
    held after Holm (a reader took noise for a lead): it says the largest's verdict and how
    many moves hold."""
    from types import SimpleNamespace

    rows = [{"text": "+1 on x: -10.0 pp [-22.1, +2.1]", "holds": holds[0], "estimate": -0.1},
            {"text": "-1 on y: +4.0 pp [-8.0, +16.0]", "holds": holds[1], "estimate": 0.04}]
    run = SimpleNamespace(games=40, arms=[1, 2, 3], study={"moves": [], "finding": "k"},
                          scenario_file="/no/such/file.toml")  # no balance command to say
    lines: list[str] = []
    S.tell(run, {"rows": rows}, None, lines.append)
    assert lines[1] == said
