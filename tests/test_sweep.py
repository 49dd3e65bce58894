"""analyzer sweep (parameter parsing, expansion into paired variants, report section) and the
--target-ci stopping rule (analyzer.precision)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analyzer import api, precision, stats
from analyzer.errors import ScenarioError
from analyzer.study.sweep import expand, parse_param, split_values, sweep


def test_split_and_parse_values():
    assert split_values("0, 0.5,[1, 2],'a,b'") == ["0", "0.5", "[1, 2]", "'a,b'"]
    p = parse_param("rules.track_points=[10, 5, 2],[6, 3, 1]")
    assert (p.kind, p.name, p.seat, p.values) == ("rule", "track_points", None,
                                                  ([10, 5, 2], [6, 3, 1]))
    p = parse_param("seats[2].params.boost=0,1.5,true,random_cards")
    assert (p.kind, p.name, p.seat, p.values) == ("param", "boost", 2, (0, 1.5, True, "random_cards"))


@pytest.mark.parametrize("text, msg", [
    ("rules.sides", "PATH=v1"), ("foo.sides=1", "PATH=v1"), ("rules.sides=", "one or more"),
    ("rules.sides=4,,6", "one or more"), ("rules.sides=4,4", "listed twice"),
])
def test_bad_param_names_the_problem(text, msg):
    with pytest.raises(ScenarioError, match=msg):
        parse_param(text)


@pytest.mark.parametrize("text", ["rules.sides=" + ",".join(["4"] * 20000),
                                  "x" * 20000, "rules.sides=" + "," * 20000])
def test_a_huge_bad_param_gives_a_short_message(text):
    """A --param of 20,000 values with a repeat echoed all of them: a 40,000-character error
    line (break-it trial). The message names the repeated value, and cuts what it quotes."""
    with pytest.raises(ScenarioError) as err:
        parse_param(text)
    assert len(str(err.value)) < 300


def test_expand_grid_and_policy_params(toy_file):
    sc = api.validate(toy_file)
    sc = sc.__class__(**{**sc.__dict__, "arms": sc.arms[:1]})
    out, rows = expand(sc, [parse_param("rules.sides=4,6"), parse_param("params.boost=0,2")])
    assert [a.name for a in out.arms] == ["base", "sides=4 boost=0", "sides=4 boost=2",
                                          "sides=6 boost=0", "sides=6 boost=2"]
    arm = out.arms[2]
    assert arm.rules["sides"] == 4
    # boost belongs to the "biased" policy only: seat entries 0 and 2, renamed with a star
    assert [(s.name, s.policy, dict(s.params).get("boost")) for s in arm.seats] == [
        ("bold*", "biased", 2), ("random", "random", None), ("biased*", "biased", 2)]
    assert rows[1] == {"variant": "sides=4 boost=2", "values": {"rules.sides": 4, "params.boost": 2}}


def test_expand_refuses_unknown_param_and_bad_values(toy_file):
    sc = api.validate(toy_file)
    with pytest.raises(ScenarioError, match="no seat's policy has a parameter 'nope'"):
        expand(sc, [parse_param("params.nope=1,2")])
    with pytest.raises(ScenarioError, match="seat index outside 0..2"):
        expand(sc, [parse_param("seats[3].params.boost=1")])
    with pytest.raises(ScenarioError, match="^params: variant 'sides=banana'"):
        expand(sc, [parse_param("rules.sides=banana")])


def test_sweep_end_to_end_pairs_on_base_seeds(toy_file, tmp_path):
    """sides=6 is the base's own value: its paired change is exactly 0 at every seat."""
    res = sweep(toy_file, ["rules.sides=6,4"], games=40, jobs=1, out=tmp_path / "sw")
    assert set(res.games["variant"]) == {"base", "sides=6", "sides=4"}  # scenario variants dropped
    tab = pd.DataFrame(res.summary["results"]["studies"]["sweep"]["table"])
    same = tab[tab["variant"] == "sides=6"]
    assert len(same) == 3 and (same["diff"] == 0).all() and not same["significant_adjusted"].any()
    assert (tmp_path / "sw" / "charts" / "sweep.png").stat().st_size > 0
    md = (tmp_path / "sw" / "report.md").read_text()
    assert "## Sweep: rules.sides" in md and "Holm" in md and "## First-player advantage" in md
    # same seeds: base and the identical variant have identical records
    g = res.seats.set_index(["variant", "game_id", "seat"])["score"]
    assert (g.loc["base"] == g.loc["sides=6"]).all()


def test_sweep_says_plainly_when_a_value_changed_no_decision(toy_file, tmp_path):
    """A parameter value that does nothing is named: the bold seat's boost is 1.0 in the base;
    1.05 adds round(1.05 × 6) = 6 points as 1.0 does, so every game is the base's, while 3
    changes them. The report, summary.json and the command line say which value acted."""
    from typer.testing import CliRunner

    from analyzer.cli import app

    res = CliRunner().invoke(app, ["sweep", str(toy_file), "--param",
                                   "seats[0].params.boost=1.05,3", "--games", "40", "--jobs",
                                   "1", "--out", str(tmp_path / "sw"), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "boost=1.05: games identical to the base's (this value changed no decision)" \
        in res.stdout and "boost=3:" not in res.stdout
    summary = json.loads((tmp_path / "sw" / "summary.json").read_text())
    assert summary["results"]["studies"]["sweep"]["same_games"] == ["boost=1.05"]
    md = (tmp_path / "sw" / "report.md").read_text()
    assert "`boost=1.05`: **this value changed no decision**" in md
    section = md.split("## Sweep: seats[0].params.boost")[1].split("\n## ")[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| boost=")]
    assert rows and all(("identical to the base's: this value changed no decision" in ln)
                        == ln.startswith("| boost=1.05 ") for ln in rows)


def test_same_games_compares_every_record_column():
    """A variant equal to the base but in one seat's score (or one game column) is not the
    same games; names (variant, policy) and NaN == NaN do not count as differences."""
    from analyzer.report.sweep import same_games

    seats = pd.DataFrame({"variant": ["base"] * 2 + ["v"] * 2, "game_id": [0, 0, 0, 0],
                          "seat": [0, 1, 0, 1], "policy": ["a", "b", "a*", "b"],
                          "score": [1.0, float("nan"), 1.0, float("nan")]})
    games = pd.DataFrame({"variant": ["base", "v"], "game_id": [0, 0], "end": ["x", "x"]})
    assert same_games([games, seats], "v")
    assert not same_games([games, seats.assign(score=[1.0, 2.0, 1.0, 3.0])], "v")
    assert not same_games([games.assign(end=["x", "y"]), seats], "v")


def test_sweep_metric_must_be_numeric_column(toy_file, tmp_path):
    with pytest.raises(ScenarioError, match="^metric: 'policy'"):
        sweep(toy_file, ["rules.sides=4,6"], metric="policy", games=5, out=tmp_path / "x")


def test_next_games_follows_inverse_square_law():
    # half-width 0.1 at 100 games, target 0.05: 100 * 4 * 1.1 = 440 -> whole chunks of 50: 450
    assert precision.next_games(100, 0.1, 0.05, 50, 10_000) == 450
    assert precision.next_games(100, 0.051, 0.05, 50, 10_000) == 150  # at least one more chunk
    assert precision.next_games(100, 0.1, 0.05, 50, 300) == 300  # the cap


def test_target_ci_stops_when_every_interval_is_narrow(toy_file, tmp_path):
    res = api.simulate(toy_file, games=3000, jobs=1, chunk_size=50, target_ci=0.08,
                       out=tmp_path / "t")
    tc = res.summary["run"]["target_ci"]
    assert tc["reached"] and tc["games"] < 3000 and tc["half_width"] <= 0.08
    assert res.summary["run"]["games"] == tc["games"] == res.games["game_id"].nunique()
    assert stats.max_win_rate_half_width(res.seats) == pytest.approx(tc["half_width"])
    # one chunk fewer would not have been enough (it stopped at the first count that was)
    assert tc["steps"][-1] == tc["games"]
    fewer = res.seats[res.seats["game_id"] < tc["steps"][-2]] if len(tc["steps"]) > 1 else None
    if fewer is not None:
        assert stats.max_win_rate_half_width(fewer) > 0.08
    # records equal a plain run of that many games (same seeds, same chunks)
    plain = api.simulate(toy_file, games=tc["games"], jobs=1, chunk_size=50, out=tmp_path / "p")
    cols = ["variant", "game_id", "seat", "score", "won"]
    pd.testing.assert_frame_equal(res.seats[cols].sort_values(cols[:3]).reset_index(drop=True),
                                  plain.seats[cols].sort_values(cols[:3]).reset_index(drop=True))
    assert "Stopping rule: target precision" in (tmp_path / "t" / "report.md").read_text()
    assert json.loads((tmp_path / "t" / "summary.json").read_text())["run"]["target_ci"]["reached"]


def test_target_ci_not_reached_at_cap(toy_file, tmp_path):
    res = api.simulate(toy_file, games=100, jobs=1, chunk_size=50, target_ci=0.001,
                       out=tmp_path / "c")
    tc = res.summary["run"]["target_ci"]
    assert not tc["reached"] and tc["games"] == 100 and tc["half_width"] > 0.001


def test_target_ci_bounds(toy_file, tmp_path):
    with pytest.raises(ScenarioError, match="^target_ci: "):
        api.simulate(toy_file, games=10, jobs=1, target_ci=0.7, out=tmp_path / "b")


def test_numbers_table_and_holm_over_distinct_tests_known_answer():
    """Two seats, every game has one winner, 8 games per value; `x=2` replays the base. Seat
    rates are Wilson intervals (statsmodels), the change of seat 0 is the paired t test
    (scipy); seat 1's change is its mirror, counted once. The identical value is named; its
    two changes of no spread are tests with p = 1 (a share's change keeps an interval), so
    Holm (statsmodels) runs over 4 tests, not 6."""
    import numpy as np
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    from analyzer.report.sweep import numbers

    winners = {"base": [0, 0, 0, 1, 0, 1, 0, 0], "x=1": [1, 0, 1, 1, 0, 0, 1, 1],
               "x=2": [0, 0, 0, 1, 0, 1, 0, 0], "x=3": [0, 0, 1, 1, 0, 1, 1, 1]}
    seats = pd.DataFrame([{"variant": v, "game_id": g, "seat": s, "policy": "p",
                           "won": float(w[g] == s)}
                          for v, w in winners.items() for g in range(8) for s in range(2)])
    study = {"params": ["x"], "metric": "score", "correction": "holm",  # no score: win rate
             "variants": [{"variant": v, "values": {"x": k}} for k, v in enumerate(winners)
                          if v != "base"]}
    n = numbers(study, seats)
    assert (n["metric"], n["tests"], n["same_games"]) == ("won", 4, ["x=2"])
    tab = pd.DataFrame(n["table"]).set_index(["variant", "seat"])
    lo, hi = proportion_confint(6, 8, method="wilson")
    assert tab.loc[("base", 0), ["value", "lo", "hi"]].tolist() == pytest.approx([0.75, lo, hi])
    won0 = {v: np.array([float(w == 0) for w in ws]) for v, ws in winners.items()}
    p = [ttest_rel(won0[v], won0["base"]).pvalue for v in ("x=1", "x=3")]
    want = multipletests([*p, 1.0, 1.0], method="holm")[1]
    for v, p_raw, p_adj in zip(("x=1", "x=3"), p, want):
        assert tab.loc[(v, 0), "diff"] == pytest.approx((won0[v] - won0["base"]).mean())
        assert tab.loc[(v, 0), "base_mean"] == 0.75
        assert tab.loc[(v, 0), "p_value"] == pytest.approx(p_raw)
        assert tab.loc[[(v, 0), (v, 1)], "p_adjusted"].tolist() == pytest.approx([p_adj] * 2)
    assert tab.loc[("x=2", 0), "diff"] == 0 and not tab.loc[("x=2", 0), "significant_adjusted"]


def test_numbers_players_curve_known_answer():
    """A sweep of the player count: the table pairs only the base's count (4) and the curve
    has one point per count, sorted, with the mean final score per game and the start
    player's advantage (its win share − the game's total / seats) with t intervals (scipy)."""
    import numpy as np
    from scipy import stats as sps

    from analyzer.report.sweep import numbers

    rng = np.random.default_rng(3)
    games, seats = [], []
    for var, k in (("players=5", 5), ("base", 4), ("players=3", 3)):
        for g in range(30):
            winner, start = rng.integers(k), rng.integers(k)
            games.append({"variant": var, "game_id": g, "n_players": k, "rounds": 5})
            seats += [{"variant": var, "game_id": g, "seat": s, "policy": "p",
                       "won": float(s == winner), "score": float(rng.integers(10)),
                       "died": 0, "start_position": (s - start) % k} for s in range(k)]
    games, seats = pd.DataFrame(games), pd.DataFrame(seats)
    study = {"params": ["players"], "metric": "won", "correction": "holm",
             "variants": [{"variant": v, "values": {"players": k}}
                          for v, k in (("players=5", 5), ("players=3", 3))]}
    n = numbers(study, seats, games, {"seat_rotation": True})
    assert {r["variant"] for r in n["table"]} == {"base"}
    assert [(r["variant"], r["players"]) for r in n["players_curve"]] == [
        ("players=3", 3), ("base", 4), ("players=5", 5)]

    def t_interval(x):
        return x.mean(), *sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))

    for r in n["players_curve"]:
        s = seats[seats["variant"] == r["variant"]]
        score = s.groupby("game_id")["score"].mean().to_numpy()
        adv = (s[s["start_position"] == 0].set_index("game_id")["won"]
               - s.groupby("game_id")["won"].sum() / r["players"]).to_numpy()
        assert [r["score"], r["score_lo"], r["score_hi"]] == pytest.approx(t_interval(score))
        assert [r["start_adv"], r["start_adv_lo"], r["start_adv_hi"]] == pytest.approx(
            t_interval(adv))
