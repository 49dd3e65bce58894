"""Issue #25, part 4: a robustness verdict says why, from the condition's own numbers — which
condition changed the finding, by how much, and what differs there (the game's ``context``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from analyzer.games.rattus import findings as rattus_findings
from analyzer.report import robustness as report_robustness
from analyzer.scenario import Scenario
from analyzer.study import robustness


def _f(est, lo, hi, key="adv", **extra):
    return {"key": key, "estimate": est, "lo": lo, "hi": hi, "null": 0.0, "figure": False,
            "scale": 100, "unit": "pp", "digits": 1, "signed": True, "holds": True, **extra}


def _run(folder: Path, findings: list[dict], run: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(
        {"run": run, "results": {"findings": {"findings": findings}}}))


def _cond(name: str, label: str) -> robustness.Condition:
    return robustness.Condition(name, "rule", label,
                                Scenario("<s>", "s", "toy", (), 3, 100, 1, False, ()))


def test_a_sensitive_verdict_names_the_condition_the_size_and_what_differs(tmp_path):
    """Base +10.0 pp [+6, +14]; under x = true −8.0 pp [−12, −4]: flipped, by a difference of
    −18.0 pp (two-sample: se √(0.0204² + 0.0204²) = 0.0289, so [−23.7, −12.3]); there the
    game says every seat took the card in 93 % of the games, here 40 %."""
    run = {"name": "s", "seed": 1, "games": 100, "finished": "now"}
    _run(tmp_path, [_f(0.10, 0.06, 0.14, context="every seat took it in 40 % of the games"),
                    _f(0.2, 0.1, 0.3, key="other")], run)
    _run(tmp_path / "robustness" / "rule-x-true",
         [_f(-0.08, -0.12, -0.04, context="every seat took it in 93 % of the games",
             examples=[7, 9], example_variant="no-x"),
          _f(0.21, 0.11, 0.31, key="other")], run)
    _run(tmp_path / "robustness" / "rule-y-true",
         [_f(0.11, 0.07, 0.15), _f(0.05, 0.01, 0.09, key="other")], run)
    data = robustness.assess(tmp_path, [_cond("rule-x-true", "x = true (default false)"),
                                        _cond("rule-y-true", "y = true (default false)")])
    rows = {r["key"]: r for r in data["findings"]}
    why = rows["adv"]["why"]
    assert rows["adv"]["verdict"] == "sensitive"
    assert why.startswith("under x = true (default false) it flips it to the other side: "
                          "-8.0 pp [-12.0, -4.0] against +10.0 pp [+6.0, +14.0] here "
                          "(a difference of -18.0 pp [-23.7, -12.3], Holm p < 0.001)")
    assert ("there every seat took it in 93 % of the games (here every seat took it in 40 % "
            "of the games)") in why
    assert why.endswith(f"; an example game there: `analyzer replay {tmp_path.as_posix()}/"
                        "robustness/rule-x-true/scenario.toml --game 7 --variant no-x`.")
    assert "y = true" not in why  # it confirmed the finding: not a reason
    # a finding that holds says where it came nearest no effect
    assert rows["other"]["verdict"] == "holds"
    assert "nearest no effect under y = true (default false): +5.0 pp [+1.0, +9.0]" in (
        rows["other"]["why"])
    # the report's verdict sentence carries the reason
    text = report_robustness.verdict_text(rows["adv"], data)
    assert text.startswith("**Robustness check: sensitive** — under x = true")


def test_a_condition_that_cannot_measure_the_finding_gives_the_games_own_reason():
    """The issue's example: under the base-game tokens every seat uses the Sultan in most
    games, so no seat is left without it to compare."""
    numbers = {"sultan_out": {"users": [{"variant": "without-sultan", "games": 150,
                                         "all_user_games": 140, "games_compared": 1,
                                         "won_diff_game": None}]}}
    (f,) = rattus_findings._users(numbers, "sultan_out", "Sultan", {})
    assert f.unmeasurable == ("every seat used the Sultan in 93 % of the games with a user (140 of "
                              "150), so no seat is left without it to compare the users with")
    base = _f(0.10, 0.06, 0.14)
    cond = {"estimate": math.nan, "lo": math.nan, "hi": math.nan, "null": 0.0,
            "unmeasurable": f.unmeasurable}
    v = robustness.verdict(base, {"rule-tokens-base": cond,
                                  "players-random": _f(0.09, 0.05, 0.13)})
    data = {"conditions": [{"name": "rule-tokens-base", "label": "tokens = base",
                            "games": 150},
                           {"name": "players-random", "label": "every seat: random",
                            "games": 150}]}
    why = report_robustness.reason({**base, **v}, data)
    assert "tokens = base: every seat used the Sultan in 93 %" in why
    assert "no seat is left without it to compare" in why


def test_a_measured_users_finding_carries_its_context():
    d = {"mean": -0.05, "lo": -0.09, "hi": -0.01, "p_value": 0.01}
    numbers = {"trader_out": {"users": [{"variant": "without-trader", "games": 100,
                                         "all_user_games": 25, "games_compared": 75,
                                         "won_with_game": 0.5, "won_without_game": 0.45,
                                         "won_diff_game": d}]}}
    (f,) = rattus_findings._users(numbers, "trader_out", "Trader", {})
    assert f.context == ("every seat used the Trader in 25 % of the games with a user (25 of 100), "
                         "leaving 75 to compare")


def test_a_finding_not_significant_in_the_base_says_so_with_its_holm_p():
    row = {**_f(0.10, 0.02, 0.18), "holds": False, "p_holm": 0.08}
    v = robustness.verdict(row, {"a": _f(-0.2, -0.3, -0.1)})
    why = report_robustness.reason({**row, **v}, {"conditions": []})
    assert why == "not significant in this run after Holm (Holm p 0.080), so no condition is judged."
