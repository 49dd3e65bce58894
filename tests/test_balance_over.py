"""``analyzer balance --over players,content[:K]`` (issue #35 item 2): the worst case over the
player ladder's rungs and content draws, and the range of values within ±D in every one.

The toy (tests/robusttoy.py) has the answers in closed form: with plain players the start
player's edge is 0 at ``steps = 5``, with bold ones at ``steps = 3``; each step moves the lead
0.1 (±9.5 pp at two players), so the worst case over both is smallest at 4 (each 9.5 pp away)
and, within ±14 pp, 4 alone holds for both; 2–3 hold for bold players only, 5–6 for plain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import robusttoy
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.errors import OptionError
from analyzer.games import register_game
from analyzer.report.balancing import over_summary, runs
from analyzer.study.balance import balance
from analyzer.study.over import Over, parse_over, ranges, robust

register_game(robusttoy.SPEC)
cli = CliRunner()

TOY = """\
name = "rtoy"
game = "robusttoy"
players = 2
games = 300
seed = 5

[rules]
steps = 5
edge = 0.0

[[seats]]
policy = "plain"
"""
START = "first_player:base"
ARGS = {"finding": START, "vary": "rules.steps=0..10", "tolerance": 14, "budget": 11 * 400,
        "validation_games": 2000, "jobs": 1}


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    path = tmp_path / "rtoy.toml"
    path.write_text(TOY)
    return path


# ------------------------------------------------------------------ the pieces


def test_parse_over_reads_the_parts_and_refuses_the_rest():
    assert parse_over("players,content:4") == Over(True, 4, None)
    assert parse_over("content") == Over(False, 2, None)
    assert parse_over(" content:1 , players", 0.9) == Over(True, 1, 0.9)
    assert parse_over(None) is None
    for bad, word in (("teams", "not a part"), ("content:0", "K is the number"),
                      ("content:x", "K is the number"), ("players,players", "twice"),
                      ("players:3", "not a part"), ("", "not a part")):
        with pytest.raises(OptionError, match=word):
            parse_over(bad)
    with pytest.raises(OptionError, match="must be in"):
        parse_over("players", 0.0)
    with pytest.raises(OptionError, match="only with"):
        parse_over(None, 0.5)


def test_robust_takes_the_worst_or_the_stated_quantile_with_its_sign():
    gaps = [0.01, -0.05, 0.03, float("nan")]
    assert robust(gaps) == (-0.05, 1)
    # sizes 0.01, 0.03, 0.05: the q-quantile is the ceil(3q)-th
    assert robust(gaps, 0.5) == (0.03, 2)
    assert robust(gaps, 0.3) == (0.01, 0)
    assert robust(gaps, 0.9) == (-0.05, 1)
    assert robust([float("nan")])[1] is None


def test_ranges_and_runs():
    rows = [{"knob": 0, "value": v, "cell": c, "shown": ok}
            for v, c, ok in [(1, "a", True), (1, "b", True), (2, "a", True), (2, "b", True),
                             (3, "a", True), (3, "b", False), (4, "a", False),
                             (4, "b", False)]]
    (r,) = ranges(rows, [{"path": "rules.x", "label": "x"}], ["a", "b"])
    assert r["holds"] == [1, 2] and r["holds_text"] == "1–2"
    assert r["partial"] == [[3, ["a"]]]
    assert runs([1, 2, 3, 5, 7, 8]) == "1–3, 5, 7–8" and runs([]) == "none"


# ------------------------------------------------------------------ the study


def test_over_players_takes_the_worst_case_and_gives_the_range(toy, tmp_path):
    one = balance(toy, out=tmp_path / "one", **{**ARGS, "validation_games": 200})
    assert one.values == {"rules.steps": 5}  # the scenario's players alone
    res = balance(toy, over="players", ladder="bold", out=tmp_path / "over", **ARGS)
    assert res.values == {"rules.steps": 4}  # each rung 0.1 of lead away, not 0 and 0.2
    study = res.summary["run"]["study"]
    over = study["over"]
    assert [c["name"] for c in over["cells"]] == ["own/built-in", "players-bold/built-in"]
    assert over["shown"] and over["failing"] == []
    (r,) = over["ranges"]
    assert r["holds"] == [4] and r["values"] == list(range(11))
    assert r["partial"] == [[2, ["players-bold/built-in"]], [3, ["players-bold/built-in"]],
                            [5, ["own/built-in"]], [6, ["own/built-in"]]]
    assert over_summary(study).startswith(
        "steps = 4 (the worst case over the cells): balanced within ±14 pp for every player "
        "and draw (2 players). The values within ±14 pp in every cell: steps 4. 2–3 hold only "
        "for bold. 5–6 hold only for the scenario's players")
    # the scenario's own cell at the value found is the check's balanced estimate (same seeds)
    assert over["at_found"]["own/built-in"]["estimate"] == pytest.approx(
        study["check"]["findings"]["balanced"][START]["estimate"])
    # common seeds: plain at 5 and bold at 3 both lead by 0, so on the same games they are
    # the same games (and so at 6 and 4, 4 and 2)
    est = {(r["value"], r["cell"]): r["estimate"] for r in over["rows"]}
    for v in (4, 5, 6):
        assert est[(v, "own/built-in")] == est[(v - 2, "players-bold/built-in")]
    # games: 11 settings x 2 cells x 400 in the search, 11 x 2 x 2000 in the check
    assert over["search_games_played"] == 11 * 2 * 400
    assert over["games_played"] == 11 * 2 * 2000
    md = (Path(res.out_dir) / "report.md").read_text()
    assert "## Across players and content draws" in md and "5–6 hold only for" in md
    answers = json.loads((Path(res.out_dir) / "summary.json").read_text())
    first = answers["results"]["balance"]["findings"]["findings"][0]
    assert first["key"] == f"balance:at_value:{START}" and "over players" in first["sentence"]
    assert "--over players --ladder bold" in study["command"]


def test_over_players_and_content_draws_each_guessed_table(toy, tmp_path):
    res = balance(toy, over="players,content:1", ladder="bold", out=tmp_path / "both", **ARGS)
    over = res.summary["run"]["study"]["over"]
    names = [c["name"] for c in over["cells"]]
    assert names == ["own/built-in", "own/content-bonus-1", "players-bold/built-in",
                     "players-bold/content-bonus-1"]
    assert over["cells"][1]["differs"] == f"start bonus {robusttoy.DRAWN}"
    assert (Path(res.out_dir) / "drawn-tables").is_dir()
    # worst cases: steps 4 -> 0.17 of lead (plain on the draw), 5 -> 0.2 (bold), 3 -> 0.27
    assert res.values == {"rules.steps": 4}
    # plain players on the drawn table lead by -0.17 at 4 (-15.5 pp): not within ±14 pp
    assert not over["shown"] and over["failing"] == ["own/content-bonus-1"]
    assert over["ranges"][0]["holds"] == []
    assert over_summary(res.summary["run"]["study"]).startswith(
        "steps = 4 (the worst case over the cells): not shown within ±14 pp for every player "
        "and draw (2 players × (the built-in tables + 1 content draw)): not shown for the scenario's players with every "
        "bonus draw. The values within ±14 pp in every cell: steps: none. ")


def test_the_study_files_balance_questions_are_answered_from_the_own_cell(tmp_path):
    """A study file asking the balance's own keys (``balance:at_value:KEY``,
    ``balance:change:KEY``) gets them answered in the report's questions paragraph, not "not
    computed there": at the value found from the games of the scenario's own cell (players and
    content as they are: the over check's ``own/built-in`` cell, on the check's seeds), and the
    paired change; each once in the Answers table."""
    path = tmp_path / "rtoy.toml"
    path.write_text(TOY + f"""
[[questions]]
ask = "Where is the start player's edge at the steps found?"
finding = "balance:at_value:{START}"

[[questions]]
ask = "How much do those steps change it?"
finding = "balance:change:{START}"
""")
    args = {**ARGS, "budget": 11 * 100, "validation_games": 400}
    res = balance(path, over="players", ladder="bold", out=tmp_path / "q", **args)
    study = res.summary["run"]["study"]
    asked = study["check"]["questions"]["balanced"]
    own = study["over"]["at_found"]["own/built-in"]
    at = asked[f"balance:at_value:{START}"]
    assert at["estimate"] == pytest.approx(own["estimate"])
    assert (at["lo"], at["hi"]) == pytest.approx((own["lo"], own["hi"]))
    change = study["check"]["paired"][f"change:{START}"]
    assert asked[f"balance:change:{START}"]["estimate"] == pytest.approx(change["diff"])
    assert study["check"]["questions"]["original"][f"balance:change:{START}"] is None
    md = (Path(res.out_dir) / "report.md").read_text()
    para = next(line for line in md.splitlines()
                if line.startswith("**The study file's questions at the value found**"))
    assert "not computed there" not in para and "(as it is: " in para
    answers = res.summary["results"]["answers"]["answers"]
    keys = [a["key"] for a in answers]
    assert keys.count(f"balance:at_value:{START}") == 1
    assert keys.count(f"balance:change:{START}") == 1


# ------------------------------------------------------------------ faults


@pytest.mark.parametrize("args, message", [
    (["--over", "teams", "--tolerance", "5"], "--over: 'teams' is not a part of --over"),
    (["--over", "content:0", "--tolerance", "5"], "K is the number of draws"),
    (["--over", "players"], "--over: needs --tolerance D"),
    (["--over", "players", "--tolerance", "5"], "has no player of robusttoy other than"),
    (["--over-quantile", "0.5", "--tolerance", "5"], "only with --over"),
    (["--ladder", "bold", "--tolerance", "5"], "only with --over players"),
    (["--over", "players", "--ladder", "brave", "--tolerance", "5"],
     "--ladder: 'brave' is not a robusttoy policy"),
])
def test_bad_over_is_one_line_exit_2_and_writes_nothing(toy, tmp_path, args, message):
    out = tmp_path / "out"
    r = cli.invoke(app, ["balance", str(toy), "--finding", START, "--vary",
                         "rules.steps=0..10", "--out", str(out), *args])
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    assert not out.exists()


def test_content_without_a_guessed_table_is_refused(tmp_path):
    path = tmp_path / "own.toml"
    table = tmp_path / "bonus.toml"
    table.write_text('[[bonus]]\nname = "start"\nvalue = 0.1\n')
    path.write_text(TOY.replace("[rules]\n", f'[rules]\nbonus_file = "{table}"\n'))
    out = tmp_path / "out"
    r = cli.invoke(app, ["balance", str(path), "--finding", START, "--vary",
                         "rules.steps=0..10", "--tolerance", "5", "--over", "content:2",
                         "--out", str(out)])
    assert r.exit_code == 2, r.output
    assert "--over: content: rtoy uses no guessed content table" in r.output
    assert not out.exists()


def test_a_cells_test_is_tost_on_the_finding_or_on_the_difference(toy):
    """A cell holds when the 90 % interval of its finding (``--equalize``: of the difference,
    standard error the root sum of squares) lies inside target ± D."""
    from analyzer.scenario import load_scenario
    from analyzer.study import knobs
    from analyzer.study.balance import Plan, Study, _cell_test

    scenario = load_scenario(toy)
    steps = knobs.knob(scenario, "rules.steps=0..10")
    p = Plan(scenario, (steps,), (START,), False, 0.1, Study("simulate"), Study("simulate"),
             "scan", (), 11, 200, 1, 400, 2200, {}, tolerance=0.05)
    rec = {"estimate": 0.13, "se": 0.01, "lo": 0.11, "hi": 0.15}
    t = _cell_test(p, {START: rec})  # 0.13 ± 1.645 x 0.01 = [0.1136, 0.1464] inside 0.05..0.15
    assert t["shown"] and t["lo90"] == pytest.approx(0.13 - 0.016449, abs=1e-5)
    assert not _cell_test(p, {START: {**rec, "estimate": 0.14}})["shown"]  # 0.1564 > 0.15
    assert not _cell_test(p, {})["shown"]  # not computed: nothing shown
    q = Plan(scenario, (steps,), ("a", "b"), True, None, Study("simulate"), Study("simulate"),
             "scan", (), 11, 200, 1, 400, 2200, {}, tolerance=0.05)
    both = {"a": {"estimate": 0.03, "se": 0.006}, "b": {"estimate": 0.0, "se": 0.008}}
    t = _cell_test(q, both)  # 0.03 ± 1.645 x 0.01: [0.0136, 0.0464] inside ±0.05
    assert t["shown"] and t["se"] == pytest.approx(0.01) and t["what"] == "a − b"
    assert not _cell_test(q, {**both, "a": {"estimate": 0.04, "se": 0.006}})["shown"]
