"""Issue #25, part 5: the smaller items, each with a test — the player-count sweep, replay headers,
the pool/scenario hint, the Cartus reference set, the robustness chart, example games of the
finding's own sign, small-sample honesty and the caveat specific to another player count."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from typer.testing import CliRunner

from analyzer import api, runner
from analyzer.cli import app
from analyzer.games.cartus import study as cartus_study
from analyzer.games.rattus import findings as rattus_findings
from analyzer.games.rattus import study as rattus_study
from analyzer.report import guesses, sample_size
from analyzer.report import robustness as report_robustness

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ replay headers


def test_a_replay_header_names_the_scenarios_seats():
    """Game 1 of the default study: the seats rotate by one, so the tuned greedy (the first
    [[seats]] entry) sits where the records put it — the header names it as the records do."""
    lines: list[str] = []
    api.replay_scenario(ROOT / "scenarios" / "africanus-sultan.toml", 1, log=lines.append)
    r = runner.rotation(1, 4, True)
    tuned = next(s for s in range(4) if (s + r) % 4 == 0)
    header = lines[0]
    assert header.startswith("policies: seat 0 ")
    assert f"seat {tuned} greedy-tuned (greedy)" in header
    assert header.count("greedy-tuned") == 1
    assert all(f"seat {s} greedy," in header + "," for s in range(4) if s != tuned)


# ------------------------------------------------------------------ pool vs scenario


def test_a_pool_given_to_simulate_and_a_scenario_given_to_tournament_say_which_command():
    res = CliRunner().invoke(app, ["simulate", str(ROOT / "scenarios" / "rattus-ladder.toml")])
    assert res.exit_code == 2
    assert "entrants: unknown key" in res.output
    assert "this is a tournament pool: use `analyzer tournament`" in res.output
    res = CliRunner().invoke(app, ["tournament",
                                   str(ROOT / "scenarios" / "africanus-sultan.toml")])
    assert res.exit_code == 2
    assert "this is a scenario: use `analyzer simulate`" in res.output


# ------------------------------------------------------------------ Cartus reference set


def test_the_cartus_reference_set_is_named_from_its_own_buildings():
    first = cartus_study.first_game_set()
    assert first.split("+") == ["palace", "monastery", "marketplace", "castle", "farm",
                                "fortune_tellers_tent"]
    assert cartus_study.reference_text(first) == (
        "palace, monastery, marketplace, castle, farm, fortune tellers tent — the rulebook's "
        "first-game set")
    other = "palace+monastery+office+guard_tower+farm+magic_b"
    text = cartus_study.reference_text(other)
    assert text.startswith("palace, monastery, office, guard tower, farm, magic b")
    assert "not the rulebook's first-game set" in text


# ------------------------------------------------------------------ the robustness chart


def test_the_robustness_chart_labels_each_condition_and_uses_the_findings_unit():
    conds = [{"name": "players-random", "label": "every seat: random"},
             {"name": "rule-x-true", "label": "x = true (default false)"}]
    rows = [{"key": "first_player:base", "estimate": 0.10, "lo": 0.06, "hi": 0.14, "null": 0.0,
             "scale": 100, "unit": "pp", "states": {"players-random": "lost",
                                                     "rule-x-true": "same"},
             "by_condition": {"players-random": {"estimate": 0.01, "lo": -0.03, "hi": 0.05},
                              "rule-x-true": {"estimate": 0.09, "lo": 0.05, "hi": 0.13}}},
            {"key": "caravan:cubes", "estimate": 2.0, "lo": 1.9, "hi": 2.1, "null": 1.0,
             "scale": 1, "unit": "bonus cubes", "states": {}, "by_condition": {}}]
    fig = Figure()
    report_robustness._plot(fig.add_subplot(), rows, conds)
    panels = fig.axes
    assert len(panels) == 2
    labels = [t.get_text() for t in panels[0].get_yticklabels()]
    assert labels == ["this run", "every seat: random", "x = true"]
    assert panels[0].get_xlabel() == "first_player:base [pp]"
    assert panels[1].get_xlabel() == "caravan:cubes [bonus cubes]"
    # the points are in the finding's unit: this run's +10 pp is drawn at x = 10
    xs = sorted(round(float(line.get_xdata()[0]), 6) for line in panels[0].lines
                if len(line.get_xdata()) == 1 and line.get_marker() == "o")
    assert xs == [1.0, 9.0, 10.0]


# ------------------------------------------------------------------ example games' sign


def test_example_games_follow_the_sign_the_run_found():
    """Four games; the last position takes the Sultan more often than the start player in
    games 1 and 3 and less in game 0: the difference is negative, so the examples are 1 and
    3, and the sentence says "less often"."""
    takes = {0: (2, 0), 1: (0, 2), 2: (1, 1), 3: (0, 3)}  # game: (start, last)
    rows = []
    for g, (first, last) in takes.items():
        for pos, n in ((0, first), (1, 0), (2, last)):
            rows.append({"variant": "base", "game_id": g, "seat": pos, "policy": "greedy",
                         "start_position": pos, "sultan_takes": n, "diplomats_placed": n})
    seats = pd.DataFrame(rows)
    games = pd.DataFrame({"variant": "base", "game_id": list(takes), "rounds": 5})
    out = rattus_study.take_use_numbers(games, seats, "sultan", "sultan_takes",
                                        "diplomats_placed", "base")
    take = out["first_last"]["take"]
    assert take["mean"] < 0 and take["examples"] == [1, 3]
    (f,) = rattus_findings._first_last({"take_use": out}, "Sultan", {})
    assert f.example_what == "the start player took the Sultan less often than the last position"


# ------------------------------------------------------------------ small samples


def test_a_run_of_five_games_says_first_that_it_is_too_small(toy_file, tmp_path):
    assert round(sample_size.half_width(5, 4), 4) == round(1.959964 * math.sqrt(0.1875 / 5), 4)
    assert sample_size.games_for(4) == 1200  # (1.96 / 0.025)² · 0.1875 = 1152.5 → 1200
    assert sample_size.small_run(1200, 4) == ""
    res = api.simulate(toy_file, games=5, jobs=1, out=tmp_path / "run")
    lines = [ln for ln in (res.out_dir / "report.md").read_text().splitlines() if ln.strip()]
    top = "\n".join(lines[:4])
    assert "Too few games to answer: only 5 games per arm" in top
    assert "--games 1400" in top  # 3 players: (1.96 / 0.025)² · 2/9 = 1365.9 → 1400
    big = api.simulate(toy_file, games=1400, jobs=1, out=tmp_path / "big")
    assert "Too few games" not in (big.out_dir / "report.md").read_text()


# ------------------------------------------------------------------ another player count's caveat


def test_a_finding_about_another_player_count_names_the_defaults_only_it_uses():
    numbers = {"counters": [{"column": "acted_region", "what": "the plague piece entered a "
                             "stand-in region (R1–R5)", "default": "map",
                             "section": "docs/rules/rattus.md §4.3"},
                            {"column": "acted_face", "what": "a guessed face was revealed",
                             "default": "tokens",
                             "section": "docs/rules/rattus.md §5.2"}],
               "arms": [{"variant": "base", "games": 100, "any": {},
                         "counters": [{"column": "acted_region", "in_use": False},
                                      {"column": "acted_face", "in_use": True, "share": 1.0}]},
                        {"variant": "players=5", "games": 100, "any": {},
                         "counters": [{"column": "acted_region", "in_use": True,
                                       "share": 0.91},
                                      {"column": "acted_face", "in_use": True,
                                       "share": 1.0}]}]}
    assert guesses.specific_clause(numbers, "players=5", "base") == (
        " — in 91.0 % of these games the plague piece entered a stand-in region (a labelled "
        "default; 0 % in `base`)")
    assert guesses.specific_clause(numbers, "base", "base") == ""


def test_a_tournament_of_six_deals_says_its_answers_are_too_uncertain():
    from analyzer import ratings

    text = ratings.reliability(6, 4)
    assert text.startswith("Only 6 deals: these answers are too uncertain to rely on.")
    assert f"--games {4 * ratings.MIN_DEALS}" in text
    assert ratings.reliability(ratings.MIN_DEALS, 4) == ""
