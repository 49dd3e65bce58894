"""``analyzer robustness`` (analyzer/study/robustness.py, analyzer/report/robustness.py): the
conditions it builds, the state of a finding under each, the verdict, and a whole run on the toy
game where a condition takes a finding away."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from typer.testing import CliRunner

from analyzer import api
from analyzer.cli import app
from analyzer.errors import OptionError
from analyzer.model.base import Option
from analyzer.report import robustness as report_robustness
from analyzer.scenario import Scenario, Seat
from analyzer.study import robustness

REPO = Path(__file__).resolve().parents[1]


def _f(est, lo, hi, null=0.0, key="k", figure=False):
    return {"key": key, "estimate": est, "lo": lo, "hi": hi, "null": null, "figure": figure,
            "scale": 100, "unit": "pp"}


# ------------------------------------------------------------------ states and verdicts


def test_state_of_a_finding_under_a_condition():
    base = _f(0.10, 0.06, 0.14)
    assert robustness.state(base, _f(0.08, 0.02, 0.14)) == "same"
    assert robustness.state(base, _f(-0.08, -0.12, -0.04)) == "flip"
    # includes 0 and excludes the base's 0.10: measurably smaller
    assert robustness.state(base, _f(0.01, -0.03, 0.05)) == "lost"
    # includes 0 and 0.10: too few games to tell
    assert robustness.state(base, _f(0.04, -0.05, 0.13)) == "wide"
    assert robustness.state(base, None) == "absent"
    # a negative base effect: the side is the base's
    neg = _f(-0.10, -0.14, -0.06)
    assert robustness.state(neg, _f(-0.05, -0.09, -0.01)) == "same"
    assert robustness.state(neg, _f(0.05, 0.01, 0.09)) == "flip"


def test_a_ratio_is_judged_against_its_own_no_effect_value():
    base = _f(1.5, 1.2, 1.9, null=1.0)
    assert robustness.state(base, _f(1.3, 1.05, 1.6, null=1.0)) == "same"
    assert robustness.state(base, _f(0.7, 0.5, 0.9, null=1.0)) == "flip"


def test_verdict_holds_only_when_every_condition_rejects_no_effect_on_the_same_side():
    base = _f(0.10, 0.06, 0.14)
    v = robustness.verdict(base, {"a": _f(0.09, 0.05, 0.13), "b": _f(0.2, 0.1, 0.3), "c": None})
    assert v["verdict"] == "holds"
    assert v["absent_in"] == ["c"]
    v = robustness.verdict(base, {"a": _f(0.09, 0.05, 0.13), "b": _f(-0.1, -0.2, -0.05)})
    assert v["verdict"] == "sensitive" and v["sensitive_to"] == ["b"]
    v = robustness.verdict(base, {"a": _f(0.09, 0.05, 0.13), "b": _f(0.04, -0.05, 0.13)})
    assert v["verdict"] == "unresolved" and v["unresolved_in"] == ["b"]
    # a flip outweighs a too-wide condition
    v = robustness.verdict(base, {"a": _f(0.04, -0.05, 0.13), "b": _f(-0.1, -0.2, -0.05)})
    assert v["verdict"] == "sensitive" and v["sensitive_to"] == ["b"]


def test_a_finding_no_condition_computes_is_unchecked_not_holding():
    v = robustness.verdict(_f(0.10, 0.06, 0.14), {"a": None, "b": None})
    assert v["verdict"] == "unchecked" and v["absent_in"] == ["a", "b"]


def test_a_finding_not_significant_in_the_run_itself_is_unresolved():
    v = robustness.verdict(_f(0.02, -0.02, 0.06), {"a": _f(0.1, 0.05, 0.15)})
    assert v["verdict"] == "unresolved" and v["base_significant"] is False


def test_a_figure_gets_its_range_not_a_verdict():
    base = _f(0.10, 0.08, 0.12, null=None, figure=True)
    v = robustness.verdict(base, {"a": _f(0.30, 0.2, 0.4, None, figure=True), "b": None,
                                  "c": _f(0.05, 0.03, 0.07, None, figure=True)})
    assert v["verdict"] == "figure"
    assert v["range"] == [0.05, 0.30] and v["range_at"] == ["c", "a"]
    assert v["absent_in"] == ["b"]


# ------------------------------------------------------------------ the conditions


def test_alternatives_of_a_labelled_default():
    flag = Option("x", False, bool, "rule 1", "a flag")
    word = Option("y", "a", str, "rule 1", "a word", choices=("a", "b", "c"))
    count = Option("z", 3, int, "rule 1", "a count", low=0, high=9, alternatives=(2, 3))
    guard = Option("cap", 100, int, "rule 1", "a turn cap", low=1, high=1000)
    assert robustness.alternatives(flag, False) == [True]
    assert robustness.alternatives(word, "a") == ["b", "c"]
    assert robustness.alternatives(count, 3) == [2]
    assert robustness.alternatives(guard, 100) == []


def test_the_default_study_varies_each_labelled_default_with_an_alternative():
    scenario = api.validate(REPO / "scenarios" / "africanus-sultan.toml")
    conditions, without = robustness.rule_conditions(scenario, None, 50)
    names = {c.name for c in conditions}
    assert "rule-placement_mandatory-true" in names
    assert "rule-same_class_cards_stack-false" in names
    assert "max_turns" in without and "tokens" in without  # a guard, a content table
    for c in conditions:
        assert c.scenario.games == 50 and c.scenario.seed == scenario.seed
        assert [a.name for a in c.scenario.arms] == [a.name for a in scenario.arms]
        # the class cards a variant names stay the variant's own
        assert [a.rules["class_cards"] for a in c.scenario.arms] == [
            a.rules["class_cards"] for a in scenario.arms]
    stack = next(c for c in conditions if c.name == "rule-same_class_cards_stack-false")
    assert all(a.rules["same_class_cards_stack"] is False for a in stack.scenario.arms)
    with pytest.raises(OptionError, match="not a labelled default"):
        robustness.rule_conditions(scenario, ["diplomat_points_first"], 50)


def test_the_ladder_leaves_out_the_base_players_and_plays_search_rungs_shorter():
    scenario = api.validate(REPO / "scenarios" / "africanus-sultan.toml")
    conditions, same = robustness.player_conditions(scenario, None, 1000, 40)
    assert same == []  # one tuned greedy and three greedy: no rung is the base
    assert [c.name for c in conditions] == ["players-random", "players-greedy", "players-tuned",
                                            "players-ismcts"]
    greedy = Seat("greedy", "greedy", {})
    every_greedy = replace(scenario, arms=tuple(replace(a, seats=(greedy,) * 4)
                                                for a in scenario.arms))
    conditions, same = robustness.player_conditions(every_greedy, None, 1000, 40)
    assert same == ["greedy"]
    games = {c.name: c.scenario.games for c in conditions}
    assert games == {"players-random": 1000, "players-tuned": 1000,
                     "players-ismcts": 40}
    tuned = next(c for c in conditions if c.name == "players-tuned")
    assert all(s.policy == "greedy" and s.params for a in tuned.scenario.arms for s in a.seats)
    with pytest.raises(OptionError, match="not a rattus policy"):
        robustness.player_conditions(scenario, ["nobody"], 10, 10)


# ------------------------------------------------------------------ a constructed flip


def _fake_run(folder: Path, findings: list[dict], run: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(
        {"run": run, "results": {"findings": {"findings": findings}}}))


def test_a_finding_that_flips_in_a_constructed_condition_is_sensitive(tmp_path):
    run = {"name": "s", "seed": 1, "games": 100, "finished": "now"}
    _fake_run(tmp_path, [_f(0.10, 0.06, 0.14, key="adv"), _f(0.2, 0.1, 0.3, key="other")], run)
    _fake_run(tmp_path / "robustness" / "rule-x-true", [_f(-0.08, -0.12, -0.04, key="adv"),
                                                        _f(0.2, 0.1, 0.3, key="other")], run)
    cond = robustness.Condition("rule-x-true", "rule", "x = true (default false)",
                                Scenario("<s>", "s", "toy", (), 3, 100, 1, False, ()))
    data = robustness.assess(tmp_path, [cond])
    rows = {r["key"]: r for r in data["findings"]}
    assert rows["adv"]["verdict"] == "sensitive"
    assert rows["adv"]["sensitive_to"] == ["rule-x-true"]
    assert rows["other"]["verdict"] == "holds"
    text = report_robustness.verdict_text(rows["adv"], data)
    assert "sensitive" in text and "x = true (default false)" in text
    # a stale result (the run was played again since) is not shown
    data["base"]["finished"] = "earlier"
    (tmp_path / "robustness" / "robustness.json").write_text(json.dumps(data))
    assert report_robustness.load(tmp_path, run) is None
    data["base"]["finished"] = "now"
    (tmp_path / "robustness" / "robustness.json").write_text(json.dumps(data))
    assert report_robustness.load(tmp_path, run) is not None


# ------------------------------------------------------------------ a whole run


TOY = """\
name = "toy-robust"
game = "toy"
players = 3
games = 400
seed = 7

[rules]
sides = 2                       # 2 dice of 2 sides: many ties on score
cards = ["peasant", "merchant"]

[[seats]]
policy = "random"
"""


def test_robustness_run_end_to_end_and_kept_on_a_second_call(tmp_path):
    """The toy's labelled default gives a tie on score to the seat nearest the start: the
    start player wins more than a fair share. With ties shared the advantage is gone: the
    finding is sensitive to that default. The ladder's `biased` rung (every seat the same)
    keeps it."""
    scenario = tmp_path / "toy.toml"
    scenario.write_text(TOY)
    out = tmp_path / "run"
    runner = CliRunner()
    args = ["robustness", str(scenario), "--players", "random,biased", "--jobs", "1", "--out",
            str(out), "--quiet"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert [c["name"] for c in data["conditions"]] == ["players-biased",
                                                       "rule-tie_to_start-false"]
    assert data["same_as_base"] == ["random"]
    # a condition's run holds what the check reads, not a report (issue #37) ...
    condition = out / "robustness" / "players-biased"
    assert (condition / "summary.json").is_file() and (condition / "findings.parquet").is_file()
    for name in ("report.md", "report.html", "charts"):
        assert not (condition / name).exists(), name
    numbers = json.loads((condition / "summary.json").read_text())["results"]
    per_game = pd.read_parquet(condition / "findings.parquet")
    rows = {r["key"]: r for r in data["findings"]}
    adv = rows["first_player:base"]
    assert adv["base_significant"]
    assert adv["states"] == {"players-biased": "same", "rule-tie_to_start-false": "lost"}
    assert adv["verdict"] == "sensitive"
    assert adv["sensitive_to"] == ["rule-tie_to_start-false"]
    # issue #32: the base replayed on new seeds, the conditions on those seeds, and each
    # difference taken against the replicate (the base only selected the finding)
    seed = robustness.replicate_seed(7)
    assert seed != 7 and data["replicate"]["seed"] == seed
    for folder in ("replicate", "players-biased", "rule-tie_to_start-false"):
        run = json.loads((out / "robustness" / folder / "summary.json").read_text())["run"]
        assert run["seed"] == seed and run["games"] == 400
    assert adv["reference"] == "replicate" and adv["replicate"]["estimate"] is not None
    assert adv["tests"]["rule-tie_to_start-false"]["diff"] == pytest.approx(
        adv["by_condition"]["rule-tie_to_start-false"]["estimate"]
        - adv["replicate"]["estimate"])
    report = (out / "report.md").read_text()
    assert "## Robustness" in report
    assert "**Robustness check: sensitive**" in report.split("## Robustness")[0]
    assert (out / "charts" / "robustness.png").is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["results"]["robustness"]["verdicts"]["first_player:base"] == "sensitive"
    assert "tie_to_start = false (default true)" in report
    # run again: the base and the condition are kept, the verdicts are the same
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "kept" in res.output and "finished earlier, kept" in res.output
    again = json.loads((out / "robustness" / "robustness.json").read_text())
    assert again["findings"] == data["findings"]
    # re-rendering the report keeps the section
    api.render_report(out)
    assert "## Robustness" in (out / "report.md").read_text()
    # ... and `analyzer report` renders a condition in full, with the same numbers
    assert runner.invoke(app, ["report", str(condition)]).exit_code == 0
    assert (condition / "report.md").is_file() and (condition / "report.html").is_file()
    assert any((condition / "charts").glob("*.png"))
    assert json.loads((condition / "summary.json").read_text())["results"] == numbers
    assert pd.read_parquet(condition / "findings.parquet").equals(per_game)


def test_simulate_with_robustness_and_bad_input(tmp_path):
    scenario = tmp_path / "toy.toml"
    scenario.write_text(TOY)
    runner = CliRunner()
    res = runner.invoke(app, ["robustness", str(scenario), "--players", "nobody"])
    assert res.exit_code == 2 and "--players: 'nobody' is not a toy policy" in res.output
    res = runner.invoke(app, ["robustness", str(scenario), "--players", "none", "--defaults",
                              "none"])
    assert res.exit_code == 2 and "no condition to run" in res.output
    res = runner.invoke(app, ["simulate", str(scenario), "--robustness", "--target-ci", "0.1"])
    assert res.exit_code == 2 and "--target-ci" in res.output
    out = tmp_path / "sim"
    res = runner.invoke(app, ["simulate", str(scenario), "--robustness", "--games", "60",
                              "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    # of the default ladder the toy has only `random`, the base's own players; its labelled
    # default `sides` has no alternative, `tie_to_start` has one
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert [c["name"] for c in data["conditions"]] == ["rule-tie_to_start-false"]
    assert data["same_as_base"] == ["random"]
    assert "sides" in data["without"]


def test_a_rerun_at_another_size_replays_the_conditions_and_a_narrower_one_deletes_nothing(
        tmp_path):
    """Try small, then bigger: a condition finished at another size is played again (its
    chunks are another size's), and a rerun that selects fewer conditions leaves the others'
    folders alone."""
    scenario = tmp_path / "toy.toml"
    scenario.write_text(TOY)
    out = tmp_path / "run"
    runner = CliRunner()
    base = ["robustness", str(scenario), "--players", "biased", "--jobs", "1", "--out",
            str(out), "--quiet"]
    res = runner.invoke(app, base + ["--games", "40"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, base + ["--games", "96"])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert {c["games"] for c in data["conditions"]} == {96}
    res = runner.invoke(app, base[:2] + ["--players", "none", "--defaults", "tie_to_start"]
                        + base[4:] + ["--games", "96"])
    assert res.exit_code == 0, res.output
    assert (out / "robustness" / "players-biased").is_dir()
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert [c["name"] for c in data["conditions"]] == ["rule-tie_to_start-false"]
    assert data["conditions"][0]["changed_games"] > 0


def test_defaults_that_cannot_be_varied_are_refused_by_name(tmp_path):
    scenario = tmp_path / "toy.toml"
    scenario.write_text(TOY)
    res = CliRunner().invoke(app, ["robustness", str(scenario), "--players", "none",
                                   "--defaults", "sides"])
    assert res.exit_code == 2
    assert ("--defaults: sides: a labelled default without a documented alternative, so not "
            "varied (allowed: tie_to_start)") in res.output
    res = CliRunner().invoke(app, ["robustness", str(scenario), "--defaults", "nope"])
    assert res.exit_code == 2
    assert "--defaults: nope: not a labelled default of this run (allowed: tie_to_start)" in (
        res.output)


def test_a_verdict_names_the_games_of_a_shorter_condition():
    data = {"base": {"games": 10000},
            "conditions": [{"name": "players-ismcts", "label": "every seat: ismcts",
                            "games": 200},
                           {"name": "rule-x-true", "label": "x = true", "games": 10000}]}
    row = {"verdict": "sensitive", "sensitive_to": ["players-ismcts", "rule-x-true"],
           "states": {"players-ismcts": "lost", "rule-x-true": "flip"}}
    text = report_robustness.verdict_text(row, data)
    assert "under every seat: ismcts (200 games) it loses it (no longer significant)" in text
    assert "under x = true it flips it to the other side" in text


# ------------------------------------------------------------------ issue #21: the verdict's tests


def test_lost_needs_a_significant_difference_not_an_interval_that_misses_the_base_estimate():
    """The old rule called a condition lost when its interval included 0 and excluded the
    base's point estimate; that ignores the base's own error. Base 0.10 (se 0.02), condition
    0.03 (se 0.02): the condition's interval [−0.009, 0.069] misses 0.10, but the difference
    −0.07 has se √(0.02² + 0.02²) = 0.0283, z = −2.47, p = 0.013: lost alone, but with three
    more conditions that confirm the finding Holm multiplies it by 4 (0.054): too wide."""
    z = 1.959963984540054
    base = _f(0.10, 0.10 - z * 0.02, 0.10 + z * 0.02)
    cond = _f(0.03, 0.03 - z * 0.02, 0.03 + z * 0.02)
    comp = robustness.compare(base, cond)
    assert comp.test == "two-sample"
    assert comp.diff == pytest.approx(-0.07) and comp.p_value == pytest.approx(0.01340, abs=1e-4)
    assert robustness.state(base, cond) == "lost"
    same = _f(0.10, 0.10 - z * 0.02, 0.10 + z * 0.02)
    v = robustness.verdict(base, {"a": cond, "b": same, "c": same, "d": same})
    assert v["states"]["a"] == "wide" and v["verdict"] == "unresolved"
    assert v["tests"]["a"]["p_holm"] == pytest.approx(4 * 0.01340, abs=4e-4)


def test_a_paired_difference_on_the_record_is_used_and_the_stable_call_still_works():
    """A record may carry the paired difference (diff, diff_lo, diff_hi): a condition that
    changed few games is then judged on its per-game differences, not as an independent
    sample. The plain call with {estimate, lo, hi, null, figure} records keeps working."""
    base = _f(0.10, 0.06, 0.14)
    cond = {**_f(0.085, 0.045, 0.125), "diff": -0.015, "diff_lo": -0.02, "diff_hi": -0.01}
    v = robustness.verdict(base, {"rule": cond})
    assert v["tests"]["rule"]["test"] == "paired" and v["states"]["rule"] == "same"
    lost = {**_f(0.01, -0.03, 0.05), "diff": -0.09, "diff_lo": -0.10, "diff_hi": -0.08}
    v = robustness.verdict(base, {"rule": lost})
    assert v["verdict"] == "sensitive" and v["tests"]["rule"]["test"] == "paired"


def test_a_finding_not_significant_after_holm_in_the_base_is_unresolved_whatever_the_conditions():
    base = {**_f(0.10, 0.02, 0.18), "holds": False}  # its own interval excludes 0; Holm did not
    v = robustness.verdict(base, {"a": _f(-0.2, -0.3, -0.1), "b": _f(0.1, 0.05, 0.15)})
    assert v["verdict"] == "unresolved" and v["reason"] == "not significant in the base after Holm"
    assert v["sensitive_to"] == [] and v["base_significant"] is False
    text = report_robustness.verdict_text(v, {"conditions": []})
    assert "unresolved (not significant in the base after Holm)" in text and "✓" not in text


@pytest.mark.parametrize("found", [
    {"a": _f(0.09, 0.05, 0.13), "b": _f(0.2, 0.1, 0.3), "c": None},  # holds
    {"a": _f(0.09, 0.05, 0.13), "b": _f(-0.1, -0.2, -0.05)},  # sensitive
    {"a": _f(0.09, 0.05, 0.13), "b": _f(0.04, -0.05, 0.13)},  # unresolved: too wide
    {"a": None, "b": None},  # unchecked
])
@pytest.mark.parametrize("holds", [True, False])  # False: not significant in the base
def test_a_tables_verdict_read_on_every_condition_is_the_overall_verdict(found, holds):
    """One ladder: the overall verdict read back on all its conditions (as ``content_verdicts``
    reads a table's draws) says the same, with the same conditions and reason."""
    base = {**_f(0.10, 0.06, 0.14), "holds": holds}
    overall = robustness.verdict(base, found)
    table = robustness._on_table(base, found, overall, list(found))
    assert {k: table[k] for k in ("verdict", "reason", "absent_in", "base_significant")} == {
        k: overall[k] for k in ("verdict", "reason", "absent_in", "base_significant")}
    if holds:
        assert table == overall


def test_each_condition_is_judged_against_its_own_reference():
    """sultan:leader_wins-like: the base's leaders win 0.44 against 0.25 without an edge; a
    condition's leaders win 0.43 against its own 0.42: no effect there, and a smaller one —
    lost, not "same" as the base's reference 0.25 would say."""
    base = {**_f(0.44, 0.42, 0.46), "null": 0.25}
    cond = {**_f(0.43, 0.41, 0.45), "null": 0.42}
    assert robustness.state(base, cond) == "lost"
    assert robustness.state(base, {**cond, "null": 0.25}) == "same"


def test_a_condition_that_cannot_measure_the_finding_says_why_and_does_not_count():
    base = _f(0.10, 0.06, 0.14)
    gone = {"estimate": None, "lo": None, "hi": None, "null": 0.0,
            "unmeasurable": "every seat used the Sultan in 467 of the 500 games"}
    v = robustness.verdict(base, {"a": _f(0.09, 0.05, 0.13), "tokens": gone})
    assert v["verdict"] == "holds" and v["states"]["tokens"] == "unmeasurable"
    assert v["unmeasurable_in"] == {"tokens": gone["unmeasurable"]}
    data = {"conditions": [{"name": "tokens", "label": "tokens_replace = false", "games": 500}]}
    assert "tokens_replace = false: every seat used the Sultan in 467" in (
        report_robustness.verdict_text(v, data))
    assert robustness.verdict(base, {"tokens": gone})["verdict"] == "unchecked"


def _item_finding(key, item, items, **extra):
    est, lo, hi = items[item]
    return {"key": key, "estimate": est, "lo": lo, "hi": hi, "null": 0.0, "figure": False,
            "item": item, "items": {k: {"estimate": e, "lo": a, "hi": b}
                                    for k, (e, a, b) in items.items()}, **extra}


def test_a_finding_about_a_chosen_item_is_compared_on_the_same_item(tmp_path):
    """Base picks site A (2.57); a condition picks B (1.87) but has A at 2.60: compared on A
    it holds, and the report says the choice changed; the old comparison (A's 2.57 against
    B's 1.87) would have called it lost."""
    run = {"name": "s", "seed": 1, "games": 100, "finished": "now"}
    base = _item_finding("sites:top", "abu", {"abu": (2.57, 2.4, 2.74), "alex": (1.8, 1.6, 2.0)})
    base["holds"] = True
    cond = _item_finding("sites:top", "alex", {"abu": (2.60, 2.45, 2.75),
                                               "alex": (1.87, 1.7, 2.04)})
    cond["item"] = "alex"
    cond.update(estimate=1.87, lo=1.7, hi=2.04)
    _fake_run(tmp_path, [base], run)
    _fake_run(tmp_path / "robustness" / "rule-x-true", [cond], run)
    c = robustness.Condition("rule-x-true", "rule", "x = true (default false)",
                             Scenario("<s>", "s", "toy", (), 3, 100, 1, False, ()))
    data = robustness.assess(tmp_path, [c])
    row = data["findings"][0]
    assert row["verdict"] == "holds" and row["chosen_in"] == {"rule-x-true": "alex"}
    assert row["by_condition"]["rule-x-true"]["estimate"] == 2.60
    assert "picks alex" in report_robustness.verdict_text(row, data)


def test_assess_pairs_a_finding_game_by_game_from_the_runs_per_game_values(tmp_path):
    """A rule condition that changes 10 of 400 games: its per-game values equal the base's in
    the other 390. Paired, the difference −0.0125 has a tiny standard error and the verdict
    sees the shared seeds; as two independent samples it would be hopelessly wide."""
    rng = np.random.default_rng(3)
    x = 0.3 + rng.normal(size=400)
    y = x.copy()
    y[:10] = y[:10] - 0.5
    run = {"name": "s", "seed": 1, "games": 400, "finished": "now"}

    def rec(v):
        from analyzer import stats
        iv = stats.mean_interval(v)
        return {"key": "adv", "estimate": iv.estimate, "lo": iv.lo, "hi": iv.hi, "null": 0.0,
                "figure": False, "holds": True}

    _fake_run(tmp_path, [rec(x)], run)
    cond_dir = tmp_path / "robustness" / "rule-x-true"
    _fake_run(cond_dir, [rec(y)], run)
    for folder, v in ((tmp_path, x), (cond_dir, y)):
        pd.DataFrame({"key": "adv", "item": "", "game_id": np.arange(400),
                      "value": v}).to_parquet(folder / "findings.parquet")
    c = robustness.Condition("rule-x-true", "rule", "x", Scenario("<s>", "s", "toy", (), 3, 400,
                                                                   1, False, ()))
    row = robustness.assess(tmp_path, [c])["findings"][0]
    test = row["by_condition"]["rule-x-true"]["test"]
    assert test["test"] == "paired" and test["games"] == 400
    d = y - x
    se = d.std(ddof=1) / np.sqrt(400)
    assert test["diff"] == pytest.approx(d.mean()) and test["p_value"] == pytest.approx(
        2 * sps.t.sf(abs(d.mean()) / se, 399))
    assert row["states"]["rule-x-true"] in ("same", "lost", "wide")


def test_a_finding_the_base_cannot_measure_is_unchecked_with_the_reason():
    base = {"key": "k", "estimate": None, "lo": None, "hi": None, "null": 0.0,
            "unmeasurable": "no seat used the Sultan in a base game"}
    v = robustness.verdict(base, {"a": _f(0.1, 0.05, 0.15)})
    assert v["verdict"] == "unchecked" and "no seat used the Sultan" in v["reason"]
    assert "no seat used the Sultan" in report_robustness.verdict_text(v, {"conditions": []})


# ------------------------------------------------------------------ issues #32 and #33

RATTUS = """\
name = "rattus-small"
game = "rattus"
players = 3
games = 40
seed = 11

[[seats]]
policy = "greedy"
"""

PARAMS = """\
game = "rattus"
policy = "greedy"

[params]
plague_risk = {risk}
"""


def test_two_parameter_files_of_one_name_in_two_folders_are_two_conditions(tmp_path):
    """Issue #33 (data loss): `--players a/x.toml,b/x.toml` gave both the folder players-x, the
    second run deleting the first. Each is named by its path now; a clash is refused."""
    scenario = api.validate(REPO / "scenarios" / "africanus-sultan.toml")
    for folder, risk in (("a", 0.5), ("b", 2.0)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.toml").write_text(PARAMS.format(risk=risk))
    a, b = str(tmp_path / "a" / "x.toml"), str(tmp_path / "b" / "x.toml")
    conditions, _ = robustness.player_conditions(scenario, [a, b], 100, 10)
    names = [c.name for c in conditions]
    assert len(set(names)) == 2 and names[0].endswith("a-x") and names[1].endswith("b-x")
    risks = [c.scenario.arms[0].seats[0].params["plague_risk"] for c in conditions]
    assert risks == [0.5, 2.0]
    # a file of one name elsewhere keeps its short name
    alone, _ = robustness.player_conditions(scenario, [a], 100, 10)
    assert [c.name for c in alone] == ["players-x"]
    # what still clashes is refused before anything is played
    (tmp_path / "greedy.toml").write_text(PARAMS.format(risk=1.0))
    for ladder, words in (([a, a], "given twice"), (["greedy", "greedy"], "given twice"),
                          (["greedy", str(tmp_path / "greedy.toml")], "both name it")):
        with pytest.raises(OptionError, match=words):
            robustness.player_conditions(scenario, ladder, 100, 10)


def test_a_ladder_clash_on_the_command_line_is_refused_before_play(tmp_path):
    scenario = tmp_path / "toy.toml"
    scenario.write_text(TOY)
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["robustness", str(scenario), "--players", "biased,biased",
                                   "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 2 and "players-biased (given twice)" in res.output
    assert not (out / "summary.json").exists() and not (out / "robustness").exists()


def test_the_tuned_rung_is_found_for_a_scenario_outside_scenarios(tmp_path):
    """Issue #33: outside `scenarios/` the default ladder silently dropped the tuned rung while
    `--players tuned` failed. Both find the game package's tuned greedy now."""
    from analyzer.scenario import load_scenario

    path = tmp_path / "small.toml"
    path.write_text(RATTUS)
    scenario = load_scenario(path)
    conditions, _ = robustness.player_conditions(scenario, None, 40, 10)
    assert "players-tuned" in [c.name for c in conditions]
    named, _ = robustness.player_conditions(scenario, ["tuned"], 40, 10)
    tuned = robustness.tuned_file(scenario)
    assert tuned is not None and tuned.name == robustness.TUNED_FILE
    _, params = robustness.read_params_file(tuned, None, scenario.spec)
    assert dict(named[0].scenario.arms[0].seats[0].params) == params
    assert robustness.left_out(scenario, None) == {}
    # beside the scenario, `analyzer tune`'s file comes first
    (tmp_path / "tuned").mkdir()
    (tmp_path / "tuned" / "rattus-greedy.toml").write_text(PARAMS.format(risk=1.5))
    assert robustness.tuned_file(scenario) == tmp_path / "tuned" / "rattus-greedy.toml"


def test_a_rung_the_game_lacks_is_named_with_why_in_the_report(tmp_path):
    scenario = tmp_path / "toy.toml"
    scenario.write_text(TOY)
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["robustness", str(scenario), "--games", "40", "--jobs", "1",
                                   "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert set(data["left_out"]) == {"greedy", "tuned", "ismcts"}
    assert "no tuned parameters for toy at" in data["left_out"]["tuned"]
    report = (out / "report.md").read_text()
    assert "Ladder players left out (the game lacks them): `greedy`" in report


def _section_text(tmp_path, data, numbers):
    from analyzer.report.document import Doc

    (tmp_path / "charts").mkdir(exist_ok=True)
    doc = Doc(tmp_path / "charts")
    report_robustness.section(doc, data, numbers)
    return "\n".join(b[1] if b[0] != "table" else b[1].to_csv() for b in doc.blocks)


def _intro(text):
    return next(line for line in text.split("\n") if line.startswith("Does each key finding"))


def _holds_row(key, **extra):
    return {**_f(0.1, 0.06, 0.14, key=key), "verdict": "holds", "base_significant": True,
            "states": {"rule-x-true": "same"}, "tests": {},
            "by_condition": {"rule-x-true": _f(0.1, 0.06, 0.14, key=key)}, **extra}


def test_the_introduction_names_only_the_kinds_of_condition_that_ran(tmp_path):
    """Issue #32 C1 / #33: a run of rule conditions only was introduced as having replaced
    every seat by a ladder player."""
    data = {"base": {"games": 100},
            "conditions": [{"name": "rule-x-true", "kind": "rule", "label": "x = true "
                            "(default false)", "games": 100, "policies": ["greedy"]}],
            "findings": [_holds_row("a")]}
    intro = _intro(_section_text(tmp_path, data, {"a": 1}))
    assert "under other rule defaults" in intro and "1 labelled default value that has" in intro
    assert "ladder" not in intro and "player" not in intro.replace("this run's players", "")
    assert "guessed content" not in intro
    data["conditions"].append({"name": "players-random", "kind": "players",
                               "label": "every seat: random", "games": 100,
                               "policies": ["random"]})
    intro = _intro(_section_text(tmp_path, data, {"a": 1}))
    assert ("for other players and under other rule defaults" in intro
            and "one player of the ladder (random)" in intro)


def test_a_mirror_finding_is_counted_once_in_the_verdict_tally(tmp_path):
    data = {"base": {"games": 100},
            "conditions": [{"name": "rule-x-true", "kind": "rule", "label": "x = true",
                            "games": 100, "policies": ["greedy"]}],
            "findings": [_holds_row("policy:v:a"),
                         _holds_row("policy:v:b", same_test_as="policy:v:a"),
                         _holds_row("c")]}
    text = _section_text(tmp_path, data, {"policy:v:a": 1, "c": 2})
    assert ("Verdicts: 2 hold, 0 sensitive, 0 unresolved (0 of them not significant after "
            "Holm in this run), 0 unchecked (no condition measures them); 0 measured "
            "figure(s); 1 finding repeating another's test counted once.") in text


def test_the_command_line_tally_counts_a_mirror_finding_once(tmp_path, capsys):
    from types import SimpleNamespace

    from analyzer import studies, study_cli

    data = {"base": {"games": 100},
            "conditions": [{"name": "rule-x-true", "kind": "rule", "label": "x = true",
                            "games": 100, "policies": ["greedy"]}],
            "findings": [_holds_row("policy:v:a"),
                         _holds_row("policy:v:b", same_test_as="policy:v:a")]}
    from analyzer.report.document import Doc

    (tmp_path / "charts").mkdir()
    numbers = report_robustness.section(Doc(tmp_path / "charts"), data, {"policy:v:a": 1})
    results: dict = {}
    node = results
    *path, last = studies.STUDIES["robustness"].results
    for key in path:
        node = node.setdefault(key, {})
    node[last] = numbers
    study_cli.tell(studies.STUDIES["robustness"],
                   SimpleNamespace(summary={"results": results}, out_dir=tmp_path))
    assert "1 condition(s); key findings: 1 holds, 0 sensitive" in capsys.readouterr().out


def test_the_section_names_what_a_condition_is_compared_with_when_the_check_was_planned(
        tmp_path):
    """With the plan's estimate in the data the section imported ``plan.against`` over its own
    words ``against`` ("the replicate"), and the report read "every game the same as
    <function against at 0x…>'s" and "its difference from <function against …>"."""
    from analyzer.report.document import Doc
    cond = {"name": "c", "label": "philosopher = none", "games": 20, "policies": ["greedy"],
            "changed_games": 0}
    row = {"key": "first_player:base", "verdict": "unresolved", "base_significant": False,
           "estimate": 1.0, "lo": -1.0, "hi": 3.0, "by_condition": {}, "states": {}}
    data = {"findings": [row], "conditions": [cond], "replicate": {"seed": 5},
            "estimate": None, "seconds": 60}
    texts = []
    for estimate in (None, {"cpu": 1.0, "wall": 2.0}):
        doc = Doc(tmp_path)
        report_robustness.section(doc, {**data, "estimate": estimate}, {})
        texts.append(" ".join(str(b[1]) for b in doc.blocks if b[0] == "p"))
    for text in texts:
        assert "<function" not in text
        assert "every game the same as the replicate's" in text


def test_the_condition_table_shows_each_finding_in_its_unit_and_digits(tmp_path):
    """Issue #37 trial: a share of 10.0 % showed as "10.00 [2.79, 30.10]" with no unit, while
    the rest of the report said "10.0 %". The table gives the unit once, in the finding's
    column, and every cell at the finding's own digits."""
    from analyzer.report.document import Doc

    cond = {"name": "rule-x-true", "kind": "rule", "label": "x = true (default false)",
            "games": 100, "policies": ["greedy"]}
    row = {**_holds_row("quality:close_finish"), "unit": "%", "scale": 100, "digits": 1,
           "estimate": 0.1, "lo": 0.0279, "hi": 0.301,
           "by_condition": {"rule-x-true": {"estimate": 0.12, "lo": 0.05, "hi": 0.2}}}
    (tmp_path / "charts").mkdir()
    doc = Doc(tmp_path / "charts")
    report_robustness.section(doc, {"base": {"games": 100}, "conditions": [cond],
                                    "findings": [row]}, {"quality:close_finish": 1})
    table = next(b[1] for b in doc.blocks if b[0] == "table" and "finding" in b[1].columns)
    line = table.iloc[0]
    assert line["finding"].endswith("[%]")
    assert line["this run"].startswith("+10.0 [+2.8, +30.1]")
    assert line["x = true (default false)"].startswith("+12.0 [+5.0, +20.0]")


def test_numbers_gives_each_verdict_the_mirrors_and_each_rule_condition_s_replayed_share():
    """``report.robustness.numbers`` (what ``summary.json`` holds): the verdict per finding,
    the conditions counted, the finding repeating another's test, the replayed share of the
    rule condition that has one (the players condition has none) and ``--rounds``."""
    data = {"conditions": [{"name": "rule-x", "kind": "rule", "replayed": 0.25},
                           {"name": "players-random", "kind": "players"}],
            "findings": [{"key": "a", "verdict": "holds"},
                         {"key": "b", "verdict": "holds", "same_test_as": "a"},
                         {"key": "c", "verdict": "figure"}],
            "rounds": 1}
    found = report_robustness.numbers(data)
    assert found == {"verdicts": {"a": "holds", "b": "holds", "c": "figure"}, "conditions": 2,
                     "repeats": ["b"], "replayed": {"rule-x": 0.25}, "rounds": True}
    assert list(found) == ["verdicts", "conditions", "repeats", "replayed", "rounds"]
    assert report_robustness.numbers({}) == {"verdicts": {}, "conditions": 0, "repeats": [],
                                             "replayed": {}, "rounds": False}
