"""Every answer says whether to act (issue #34 items 4 and 5): the verdict column without and
with a robustness check, a question's tolerance tested by ``stats.equivalence``, and the
"Also found" lines under the Answers, a seat-order imbalance at any seat among them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analyzer.report import answers, robustness
from analyzer.report.document import Doc
from analyzer.report.first_player import first_player


def _rec(key="policy:a:x", est=0.02, lo=0.01, hi=0.03, **kw):
    base = {"key": key, "estimate": est, "lo": lo, "hi": hi, "unit": "pp", "scale": 100,
            "digits": 1, "signed": True, "null": 0.0, "holds": True, "figure": False,
            "exact": False, "se": (hi - lo) / (2 * 1.959964), "t_df": None, "size": 0.5,
            "sentence": f"{key} moves by {{value}}"}
    return {**base, **kw}


# ------------------------------------------------------------------ 4. the verdict


def test_without_robustness_the_verdict_is_the_runs_holm_correction():
    assert answers.verdict(_rec(holds=True)) == "significant after Holm over this run's findings"
    assert answers.verdict(_rec(holds=False)) == "not significant"
    assert answers.verdict(_rec(figure=True, null=None)) == "measured figure"
    # a sweep's own per-arm value is read from a section, not tested in the family
    own = {k: v for k, v in _rec().items() if k != "holds"}
    assert answers.verdict(own) == "measured figure"
    assert answers.verdict(_rec(estimate=None, not_estimated=True)).startswith("no answer")


def test_a_tolerance_says_balanced_only_when_the_equivalence_test_shows_it():
    # +0.5 pp with se 0.5 pp: the 90 % interval [−0.32, +1.32] pp lies inside ±2 pp
    tight = _rec(est=0.005, lo=0.005 - 0.0098, hi=0.005 + 0.0098, se=0.005)
    said = answers.verdict(tight, tolerance=2)
    assert said.startswith(("significant after Holm", "not significant"))
    assert "; balanced within ±2 pp (equivalence test, p = " in said
    # the same estimate with se 1.5 pp: the upper test fails (z = (0.5 − 2) / 1.5 = −1, p = 0.16)
    wide = _rec(est=0.005, lo=0.005 - 0.0294, hi=0.005 + 0.0294, se=0.015, holds=False)
    assert answers.verdict(wide, tolerance=2) == "not significant; not shown within ±2 pp"
    # tolerance is in the shown unit: ±0.2 pp is too tight for the first one
    assert answers.verdict(tight, tolerance=0.2).endswith("not shown within ±0.2 pp")
    # with t degrees of freedom the test is wider: 4 df turn the tight case down at ±1.5 pp
    assert "balanced" in answers.tolerance_text(tight, 1.5)
    assert answers.tolerance_text({**tight, "t_df": 4}, 1.5) == "not shown within ±1.5 pp"


def _robust(row_extra, conds):
    row = {"key": "item:trader", "estimate": -0.05, "lo": -0.12, "hi": 0.02, "unit": "pp",
           "scale": 100, "digits": 1, "signed": True, "null": 0.0, **row_extra}
    return row, {"conditions": conds, "findings": [row]}


TOKEN_LISTS = [{"name": f"content-tokens-{i}", "kind": "content", "label": f"tokens draw {i}",
                "table": "tokens", "draws_noun": "token lists"} for i in range(4)]


def test_unresolved_says_what_flipped_the_sign():
    """The Trader: not significant here (−5.0 pp), two of four token lists give +14.9 and
    +23.8 pp (issue #34)."""
    values = [0.149, -0.03, 0.238, -0.08]
    row, data = _robust({
        "verdict": "unresolved", "base_significant": False,
        "states": {c["name"]: "wide" for c in TOKEN_LISTS},
        "by_condition": {c["name"]: {"estimate": v, "null": 0.0}
                         for c, v in zip(TOKEN_LISTS, values)}}, TOKEN_LISTS)
    said = answers.verdict(row, data)
    assert said == ("unresolved: not significant in this run after Holm; flips sign under 2 of "
                    "4 token lists: +14.9, +23.8; too uncertain under 2 of 4 token lists: "
                    "-3.0, -8.0")


def test_sensitive_names_the_players_that_moved_it_and_holds_counts_the_conditions():
    ladder = [{"name": f"players-{p}", "kind": "players", "label": f"every seat: {p}"}
              for p in ("random", "greedy")]
    rule = [{"name": "rule-x", "kind": "rule", "label": "x = true"}]
    row, data = _robust({
        "estimate": 0.05, "verdict": "sensitive", "base_significant": True,
        "sensitive_to": ["players-random"],
        "states": {"players-random": "lost", "players-greedy": "same", "rule-x": "same"},
        "by_condition": {"players-random": {"estimate": 0.004}, "players-greedy":
                         {"estimate": 0.06}, "rule-x": {"estimate": 0.05}}}, ladder + rule)
    assert answers.verdict(row, data) == ("sensitive: loses significance under 1 of 2 ladder "
                                          "players: random +0.4")
    row.update(verdict="holds", sensitive_to=[],
               states={k: "same" for k in row["states"]})
    assert answers.verdict(row, data, tolerance=3) .startswith(
        "holds under all 3 other conditions; not shown within ±3 pp")
    assert robustness.short_verdict({**row, "verdict": "unchecked"}, data).startswith(
        "not checked")


# ------------------------------------------------------------------ 5. also found


def _seats(rates: list[float], games: int = 3000, seed: int = 1) -> pd.DataFrame:
    """Synthetic seat records of three rotated positions: one winner per game, position k
    winning with probability ``rates[k]``."""
    rng = np.random.default_rng(seed)
    winner = rng.choice(len(rates), size=games, p=rates)
    rows = [{"variant": "base", "game_id": g, "seat": (k + g) % len(rates),
             "start_position": k, "policy": "greedy", "won": float(winner[g] == k)}
            for g in range(games) for k in range(len(rates))]
    return pd.DataFrame(rows)


def test_a_low_middle_seat_is_also_found(tmp_path):
    fp = first_player(Doc(tmp_path), _seats([0.36, 0.29, 0.35]),
                      {"arms": [{"name": "base"}], "seat_rotation": True})
    results = {"studies": {"first_player": fp}}
    line = answers.seat_order(results)
    assert line.startswith("Seat order: the turn-order positions of `base` do not all win "
                           "equally often (chi-square test of every position at once, p < 0.001 "
                           "after Holm over the arms, not over this run's findings)")
    assert line.endswith("furthest from a fair 33.3 % is position 2 (the second to move), "
                         "below it: 29.2 % [27.6, 30.8] of the games.")
    found = answers.also_found([_rec("policy:a:x", size=0.9), _rec("policy:a:y", size=0.2),
                                _rec("policy:a:z", size=0.5), _rec("policy:a:w", size=2.0,
                                                                   holds=False)],
                               results, asked=["policy:a:x"])
    assert found[0] == line
    assert [f.split("`")[1] for f in found[1:]] == ["policy:a:z", "policy:a:y"]


def test_a_fair_seat_order_is_not_also_found(tmp_path):
    fp = first_player(Doc(tmp_path), _seats([1 / 3, 1 / 3, 1 / 3], seed=3),
                      {"arms": [{"name": "base"}], "seat_rotation": True})
    assert answers.seat_order({"studies": {"first_player": fp}}) == ""
    assert answers.also_found([], {"studies": {"first_player": fp}}, []) == []


# ------------------------------------------------------------------ 7. units and names


def test_a_seat_from_a_parameters_file_is_named_by_the_file(tmp_path):
    from conftest import TOY_SCENARIO

    from analyzer.scenario import load_scenario
    from analyzer.study import robustness as study_robustness

    (tmp_path / "bold-weights.toml").write_text(
        'policy = "biased"\n[params]\nboost = 2.0\nchance = 0.7\n')
    text = TOY_SCENARIO.replace('policy = "biased"\nname = "bold"\nparams = { boost = 1.0, '
                                'chance = 0.8 }', 'params_file = "bold-weights.toml"')
    (tmp_path / "s.toml").write_text(text)
    sc = load_scenario(tmp_path / "s.toml")
    assert [s.name for s in sc.arms[0].seats] == ["bold-weights", "random", "biased"]
    assert sc.arms[0].seats[0].params == {"boost": 2.0, "chance": 0.7}
    # a ladder player from a file: its label names the file, not its values
    conds, _ = study_robustness.player_conditions(
        sc, [str(tmp_path / "bold-weights.toml")], 20, 20)
    assert conds[0].label == ("every seat: bold-weights (biased, parameters from "
                              "bold-weights.toml)")


def test_finding_records_say_the_unit_their_numbers_are_stored_in():
    from analyzer.report.findings import Finding, _record, assess

    share = Finding("x {value}", 0.12, 0.10, 0.14, "pp", 100, 1, True, 0.0, games=400,
                    key="a")
    points = Finding("y {value}", 1.5, 1.0, 2.0, "points", 1, 2, True, 0.0, games=400,
                     key="b")
    recs = {r["key"]: r for r in (_record(a) for a in assess([share, points]))}
    assert (recs["a"]["unit"], recs["a"]["value_unit"]) == ("pp", "share")
    assert (recs["b"]["unit"], recs["b"]["value_unit"]) == ("points", "points")


def test_findings_json_and_csv_give_key_question_interval_unit_verdict(tmp_path):
    import csv
    import io
    import json

    from conftest import TOY_SCENARIO
    from typer.testing import CliRunner

    from analyzer import api
    from analyzer.cli import app

    path = tmp_path / "s.toml"
    path.write_text(TOY_SCENARIO + '[[questions]]\nask = "Start edge?"\n'
                    'finding = "first_player:base"\ntolerance = 50\n')
    api.simulate(path, games=60, jobs=1, out=tmp_path / "run", progress=False)
    got = CliRunner().invoke(app, ["findings", str(tmp_path / "run"), "--json"])
    assert got.exit_code == 0, got.stdout
    rows = {r["key"]: r for r in json.loads(got.stdout)}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    start = rows["first_player:base"]
    answer = summary["results"]["answers"]["answers"][0]
    assert start["question"] == "Start edge?" and start["unit"] == "pp"
    assert (start["estimate"], start["lo"], start["hi"]) == pytest.approx(
        (answer["estimate"], answer["lo"], answer["hi"]))
    # ±50 pp around no effect: a 60-game interval is well inside it
    assert start["verdict"] == answer["verdict"] and "; balanced within ±50 pp" in start["verdict"]
    assert set(start) == {"key", "question", "estimate", "lo", "hi", "unit", "null", "verdict"}
    unasked = [r for k, r in rows.items() if k != "first_player:base"]
    assert unasked and all(r["question"] == "" and r["verdict"] for r in unasked)
    table = list(csv.DictReader(io.StringIO(
        CliRunner().invoke(app, ["findings", str(tmp_path / "run"), "--csv"]).stdout)))
    assert [r["key"] for r in table] == list(rows)
    assert float(table[list(rows).index("first_player:base")]["estimate"]) == pytest.approx(
        start["estimate"])
    both = CliRunner().invoke(app, ["findings", str(tmp_path / "run"), "--csv", "--json"])
    assert both.exit_code == 2


def test_the_answers_chart_keeps_a_readable_scale_for_a_share():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    narrow = {"ask": "edge?", "key": "first_player:base",
              "record": _rec("first_player:base", 0.014, -0.001, 0.029)}
    fig = Figure()
    answers.draw([narrow], None)(fig.add_subplot())
    lo, hi = fig.axes[0].get_xlim()
    assert lo <= -0.1 - 3.0 and hi >= 2.9 + 3.0  # ±3 pp beyond the interval at least
    assert answers.axis_range((95.0, 99.0), "%") == (92.0, 100.0)
    assert answers.axis_range((1.0, 2.0), "points") == (1.0, 2.0)


# ------------------------------------------------------------------ 8. the guide


def test_the_guide_says_how_to_ask_your_own_questions():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "guide.md").read_text()
    part = text.split("## Asking your own questions", 1)[1].split("\n## ", 1)[0]
    for needed in ("[[questions]]", "analyzer findings SCENARIO.toml", "tolerance = 2",
                   "`rating_gap:best`", "`win_rate:best`", "`seat:worst`", "`seat:spread`",
                   "`sets:A-B`", "`diff:ARM_A:ARM_B:KEY`", "--json",
                   answers.SIGNIFICANT, answers.NOT_SIGNIFICANT, answers.FIGURE,
                   "balanced within ±2 pp", "not shown within", "Also found"):
        assert needed in part, needed


def test_the_answers_table_and_the_balance_phrase_an_equivalence_verdict_alike():
    """Issue #31: one phrasing (``answers.within``) of "balanced within ±D" / "not shown
    within ±D", whether a question's tolerance (the Answers table) or ``analyzer balance
    --tolerance`` decided it."""
    from analyzer.report import balancing

    study = {"unit": "%", "scale": 100, "tolerance": 0.02,
             "check": {"equivalence": {"shown": True}}}
    assert balancing.verdict_text(study) == "balanced within ±2 pp"
    study["check"]["equivalence"]["shown"] = False
    assert balancing.verdict_text(study) == "not shown within ±2 pp"
    # 0.1 pp from no effect with a standard error of 0.2 pp: inside ±2 pp by far
    record = {"unit": "pp", "scale": 100, "null": 0.0, "estimate": 0.001, "se": 0.002}
    assert answers.tolerance_text(record, 2).startswith("balanced within ±2 pp (equivalence")
    assert answers.tolerance_text({**record, "estimate": 0.05}, 2) == "not shown within ±2 pp"
