"""Key findings (analyzer/report/findings.py and each game's findings.py): ranking by
standardized size, Holm over the tested findings, figures apart, example games with the replay
command that shows them, and the section first in every report."""

from __future__ import annotations

import json
import math
import shlex

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from analyzer import api
from analyzer.games.cartus import findings as cartus_findings
from analyzer.games.pyramidion import findings as pyramidion_findings
from analyzer.games.rattus import findings as rattus_findings
from analyzer.report import findings
from analyzer.report.document import Doc
from analyzer.report.findings import Finding


def _diff(est, lo, hi, games=100, p=None, key=""):
    return Finding("x {value}", est, lo, hi, "pp", 100, 1, True, 0.0, p_value=p, games=games,
                   key=key)


# ------------------------------------------------------------------ ranking and Holm


def test_p_value_and_size_are_read_off_the_interval():
    """An estimate 1.96 standard errors from 0 has p = 0.05; its size is z / √games."""
    se = 0.01
    f = _diff(1.959963984540054 * se, 0.0, 2 * 1.959963984540054 * se, games=400)
    (a,) = findings.assess([f])
    assert a.p_value == pytest.approx(0.05, rel=1e-9)
    assert a.size == pytest.approx(1.959963984540054 / 20, rel=1e-9)


def test_a_ratio_is_tested_on_the_log_scale():
    """Odds ratio 2 with the interval [1, 4]: symmetric on the log scale, z = log 2 / (log 4 /
    3.92) = 1.96, so p = 0.05 against no effect (1)."""
    f = Finding("{value}", 2.0, 1.0, 4.0, null=1.0, log=True, games=100)
    (a,) = findings.assess([f])
    assert a.p_value == pytest.approx(0.05, rel=1e-9)


def test_holm_over_the_tested_findings_and_ranking_by_size():
    """Three tests with known p-values: Holm multiplies the smallest by 3, the next by 2 (kept
    monotone), the largest by 1; they are listed by size, the figure last."""
    tested = [_diff(0.02, 0.01, 0.03, games=100, p=0.04, key="a"),
              _diff(0.30, 0.20, 0.40, games=100, p=0.001, key="b"),
              _diff(0.05, 0.00, 0.10, games=100, p=0.03, key="c")]
    figure = Finding("a share {value}", 0.4, 0.3, 0.5, "%", 100, games=100, key="fig")
    out = findings.assess([figure, *tested])
    assert [a.finding.key for a in out] == ["b", "a", "c", "fig"]  # z: 7.8, 3.9, 1.96
    holm = {a.finding.key: a.p_holm for a in out}
    assert holm["b"] == pytest.approx(0.003)
    assert holm["c"] == pytest.approx(0.06) and holm["a"] == pytest.approx(0.06)
    held = {a.finding.key: a.holds for a in out}
    assert held == {"b": True, "a": False, "c": False, "fig": False}
    assert math.isnan(out[-1].p_holm) and not out[-1].tested


def test_an_arm_equal_to_the_base_says_nothing_and_an_exact_change_is_not_a_test():
    same = _diff(0.0, 0.0, 0.0, key="same")
    exact = _diff(0.1, 0.1, 0.1, key="exact")
    other = _diff(0.05, 0.0, 0.10, p=0.05, key="other")
    out = findings.assess([same, exact, other])
    assert [a.finding.key for a in out] == ["exact", "other"]
    assert out[0].exact and not out[0].tested and math.isnan(out[0].p_holm)
    assert out[1].p_holm == pytest.approx(0.05)  # a family of one: the exact change is not in it
    assert "(same in every game)" in exact.sentence()


def test_value_text_has_interval_and_unit():
    assert _diff(0.1, 0.046, 0.154).sentence() == "x +10.0 pp [+4.6, +15.4]"
    assert Finding("Cubes", 1.7268, 1.657, 1.796, "cubes", 1, 2).sentence() == \
        "Cubes: 1.73 cubes [1.66, 1.80]"


# ------------------------------------------------------------------ generic findings


def _seats():
    """Four 2-seat games of the base and of `v`: the start player (start_position 0) wins games
    0 and 2 of the base; in `v` it also wins game 1 and loses game 2."""
    rows = []
    wins = {"base": {0: 0, 1: 1, 2: 0, 3: 1}, "v": {0: 0, 1: 0, 2: 1, 3: 1}}
    for var, by_game in wins.items():
        for g, winner in by_game.items():
            for seat in (0, 1):
                start = (seat + g) % 2  # the start player moves from game to game
                rows.append({"variant": var, "game_id": g, "seat": seat, "policy": "p",
                             "start_position": start, "won": float(start == winner)})
    return pd.DataFrame(rows)


def _results(adv=0.25, diff=0.1):
    return {
        "studies": {"first_player": {"by_variant": [
            {"variant": "base", "games": 40, "rate": 0.5, "fair": 0.5, "advantage": adv,
             "advantage_lo": adv - 0.2, "advantage_hi": adv + 0.2, "p_first": 0.2,
             "position_test": "done"}]}},
        "balance": {"vs_base": [
            {"variant": "v", "metric": "score", "n": 40, "diff": 1.5, "lo": 0.5, "hi": 2.5,
             "p_value": 0.01},
            {"variant": "v", "metric": "start_adv", "n": 40, "diff": diff, "lo": -0.1,
             "hi": 0.3, "p_value": 0.3},
            {"variant": "v", "metric": "rounds", "n": 40, "diff": 1.0, "lo": 0.5, "hi": 1.5,
             "p_value": 0.01}]}}


def test_generic_findings_and_their_example_games():
    out = {f.key: f for f in findings.generic(_results(), {}, _seats())}
    assert set(out) == {"first_player:base", "score:v", "start_adv:v"}  # rounds is no finding
    start = out["first_player:base"]
    assert start.examples == (0, 2) and start.example_variant == "base"
    assert "wins 50.0 % of its 40 games" in start.sentence()
    # the start player does better in `v` than in the base in game 1 only
    assert out["start_adv:v"].examples == (1,) and out["start_adv:v"].example_variant == "v"
    worse = {f.key: f for f in findings.generic(_results(diff=-0.1), {}, _seats())}
    assert worse["start_adv:v"].examples == (2,)
    behind = {f.key: f for f in findings.generic(_results(adv=-0.25), {}, _seats())}
    assert behind["first_player:base"].examples == (1, 3)  # games it did not win


def test_a_confounded_start_position_gives_no_start_player_finding():
    res = _results()
    res["studies"]["first_player"]["by_variant"][0]["position_test"] = "skipped: confounded"
    assert "first_player:base" not in {f.key for f in findings.generic(res, {}, _seats())}


def test_policy_changes_skip_a_repeated_test_and_an_ablation_lists_its_items():
    res = {"variants": {"won_by_policy": [
        {"variant": "v", "policy": "a", "n": 50, "diff": 0.1, "lo": 0.0, "hi": 0.2,
         "p_value": 0.05, "mirror_of": None},
        {"variant": "v", "policy": "b", "n": 50, "diff": -0.1, "lo": -0.2, "hi": 0.0,
         "p_value": 0.05, "mirror_of": "a"}]}}
    keys = [f.key for f in findings.generic(res, {}, _seats())]
    assert keys == ["policy:v:a"]
    abl = {"studies": {"ablate": {"table": [
        {"item": "x", "variant": "without-x", "value": 0.2, "lo": 0.1, "hi": 0.3,
         "p_value": 0.001, "games_used": 30, "examples": [4, 9]},
        {"item": "y", "value": math.nan, "lo": math.nan, "hi": math.nan, "p_value": math.nan,
         "games_used": 0}]}}}
    found = findings.generic(abl, {"study": {"kind": "ablate"}}, _seats(), "widget")
    assert [f.key for f in found] == ["item:x"] and "The widget `x` is worth +20.0 pp" in \
        found[0].sentence()
    assert found[0].examples == (4, 9) and found[0].example_variant == "without-x"


def test_a_policy_change_names_games_where_that_policy_did_better_at_the_same_seats():
    """Base: one policy `p` at both seats. In `v` seat 0 plays `a`, seat 1 `b`; seat 0 wins
    games 1 and 3 in `v`, but only game 3 in the base: game 1 is where `a` did better."""
    rows = []
    for var, winners in (("base", [1, 1, 1, 0]), ("v", [1, 0, 1, 0])):
        for g, w in enumerate(winners):
            for seat in (0, 1):
                pol = "p" if var == "base" else ("a" if seat == 0 else "b")
                rows.append({"variant": var, "game_id": g, "seat": seat, "policy": pol,
                             "start_position": seat, "won": float(seat == w)})
    res = {"variants": {"won_by_policy": [
        {"variant": "v", "policy": "a", "n": 4, "diff": 0.25, "lo": -0.5, "hi": 1.0,
         "p_value": 0.4, "mirror_of": None}]}}
    (f,) = [f for f in findings.generic(res, {}, pd.DataFrame(rows)) if f.key.startswith("policy")]
    assert f.examples == (1,) and f.example_variant == "v"
    assert "`a` won more than the same seats did in `base`" in f.example_what


def test_replay_command_names_the_run_scenario_and_the_arm(tmp_path):
    cmd = findings.replay_command(tmp_path / "my run", 7, "a/b")
    assert shlex.split(cmd) == ["analyzer", "replay", f"{tmp_path}/my run/scenario.toml",
                                "--game", "7", "--variant", "a/b"]
    assert shlex.split(findings.replay_command(tmp_path, 3)) == [
        "analyzer", "replay", f"{tmp_path}/scenario.toml", "--game", "3"]


def test_section_goes_first_and_says_how_it_ranks_and_corrects(tmp_path):
    doc = Doc(tmp_path)
    doc.h("Something")
    out = findings.section(doc, _results(), {}, _seats(), run_dir=tmp_path)
    assert doc.blocks[0] == ("h", "Key findings") and doc.blocks[-1] == ("h", "Something")
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "Holm correction (family-wise error 5 %) over the 3 tested findings" in text
    assert out["tested"] == 3 and len(out["findings"]) == 3
    first = doc.blocks[2][1]
    assert first.startswith("1. `v` changes the mean final score by +1.50 points [+0.50, +2.50]")


# ------------------------------------------------------------------ the games' findings


def test_rattus_findings_test_the_leaders_edge_over_the_same_players_and_users_per_game():
    """The leader's share is a figure; the tested finding is its edge over what the same players
    win when they do not lead (issue #21: 99 % of leaders are one strong player, who wins 41 %
    anyway); the users' change is per game, and a variant where every seat used the card says
    it cannot be measured instead of reporting a change of 0 by construction."""
    numbers = {"variant": "base",
               "leader_wins": {"games": 80, "estimate": 0.442, "lo": 0.34, "hi": 0.55,
                               "no_edge": 0.252, "examples": [3, 5, 9], "reference": 0.414,
                               "leaders": {"greedy-tuned": 0.992, "greedy": 0.008},
                               "edge": {"estimate": 0.028, "lo": -0.01, "hi": 0.066,
                                        "p_value": 0.15, "games": 100, "unestimable": ""}},
               "winner_changed": {"games": 300, "changed": 28, "estimate": 28 / 300,
                                  "lo": 0.065, "hi": 0.13, "examples": [1, 2, 4]},
               "sultan_out": {"users": [
                   {"variant": "without-sultan", "games": 82, "n": 135, "won_with": 0.427,
                    "won_without": 0.21, "games_compared": 80, "all_user_games": 2,
                    "won_with_game": 0.455, "won_without_game": 0.25,
                    "won_diff_game": {"mean": -0.205, "lo": -0.3, "hi": -0.11, "n": 80,
                                      "p_value": 1e-5},
                    "won_diff": {"mean": -0.19, "lo": -0.28, "hi": -0.11, "n": 82,
                                 "p_value": 1e-4}},
                   {"variant": "tokens-off", "games": 500, "n": 1900, "won_with": 0.25,
                    "won_without": 0.25, "games_compared": 0, "all_user_games": 467,
                    "won_diff_game": {"mean": math.nan, "lo": math.nan, "hi": math.nan,
                                      "n": 0, "p_value": math.nan},
                    "won_diff": {"mean": 0.0, "lo": 0.0, "hi": 0.0, "n": 500,
                                 "p_value": 1.0}}]},
               "_per_game": {"leader_edge": pd.Series([0.0, 0.1])}}
    out = {f.key: f for f in rattus_findings.sultan(numbers, {})}
    assert out["sultan:leader_wins"].null is None  # a figure: no test against 25 %
    edge = out["sultan:leader_edge"]
    assert edge.null == 0.0 and edge.estimate == 0.028 and edge.p_value == 0.15
    assert "win 41.4 % per seat-game when they do not lead" in edge.sentence()
    assert "`greedy-tuned` 99 %" in edge.sentence() and edge.per_game is not None
    assert out["sultan:winner_changed"].null is None and out["sultan:winner_changed"].p_value is None
    assert "9.3 % [6.5, 13.0] of the 300 games" in out["sultan:winner_changed"].sentence()
    users = out["sultan:users:without-sultan"]
    assert users.p_value == 1e-5 and users.estimate == -0.205 and users.games == 80
    assert "a user won 45.5 % of the games" in users.sentence()
    gone = out["sultan:users:tokens-off"]
    assert not gone.measured and "every seat used the Sultan in 93 % of the games with a user (467 of 500)" in (
        gone.unmeasurable)
    ranked = findings.assess(list(out.values()))
    assert ranked[-1].finding.key == "sultan:users:tokens-off" and not ranked[-1].tested
    assert {a.finding.key for a in ranked if a.tested} == {"sultan:leader_edge",
                                                           "sultan:users:without-sultan"}


def test_cartus_findings_name_a_guessed_building_and_use_the_corrected_p():
    sets = [{"building_set": "a+b", "games": 100, "balance": 0.05, "balance_lo": 0.02,
             "balance_hi": 0.10, "imbalance_p": 0.9, "imbalance_p_adj": 1.0},
            {"building_set": "a+magic_x", "games": 100, "balance": 0.30, "balance_lo": 0.20,
             "balance_hi": 0.40, "imbalance_p": 0.001, "imbalance_p_adj": 0.002}]
    run = {"defaults": {"base": [{"name": "building.magic_x", "value": 1, "section": ""}]}}
    out = {f.key: f for f in cartus_findings.building_sets({"sets": sets, "noise_floor": 0.1},
                                                           run)}
    least = out["sets:least_balanced"]
    assert least.p_value == 0.002  # corrected over the sets it was picked from
    assert "`magic_x` is a guessed building" in least.sentence()
    assert "guessed" not in out["sets:most_balanced"].sentence()
    assert out["sets:most_balanced"].p_value is None  # a figure


def test_pyramidion_findings_pick_the_strongest_source_and_skip_a_mirrored_policy():
    numbers = {"head_to_head": [
        {"variant": "v", "policy": "greedy", "games": 50, "rate": 0.4, "others": 0.1,
         "diff": 0.3, "lo": 0.2, "hi": 0.4, "p_value": 1e-4, "mirror_of": None},
        {"variant": "v", "policy": "random", "games": 50, "rate": 0.1, "others": 0.4,
         "diff": -0.3, "lo": -0.4, "hi": -0.2, "p_value": 1e-4, "mirror_of": "greedy"}],
        "goods_model": [{"source": "goods_merchant", "odds_ratio": 1.2, "lo": 1.0, "hi": 1.44,
                         "p_value": 0.05},
                        {"source": "goods_slave_driver", "odds_ratio": 2.0, "lo": 1.5,
                         "hi": 2.67, "p_value": 1e-6}],
        "ends": {"variant": "base", "ends": {"target": 90, "rounds": 10}}}
    out = {f.key: f for f in pyramidion_findings.pyramidion(numbers, {})}
    assert set(out) == {"head_to_head:v:greedy", "goods:strongest_source"}
    strongest = out["goods:strongest_source"]
    assert "slave driver" in strongest.sentence() and strongest.log and strongest.games == 100


# ------------------------------------------------------------------ in a real report


def test_a_report_starts_with_key_findings_whose_example_replays_the_claim(toy_file, tmp_path):
    """The toy study's report opens with the Answers, then Key findings; summary.json holds
    them; the example
    game of the start-player finding, replayed with the command the report gives, is a game
    the start player won (toy: the start player is seat 0)."""
    res = api.simulate(toy_file, out=tmp_path / "run", jobs=1)
    md = (res.out_dir / "report.md").read_text()
    assert md.split("\n## ")[1].startswith("Answers")
    assert md.split("\n## ")[2].startswith("Key findings")
    top = md.split("\n## ")[2]
    assert "Holds after Holm" in top or "Not significant after Holm" in top
    found = json.loads((res.out_dir / "summary.json").read_text())["results"]["findings"]
    start = next(f for f in found["findings"] if f["key"] == "first_player:base")
    command = findings.replay_command(res.out_dir, start["examples"][0],
                                      start["example_variant"])
    assert f"`{command}`" in top
    words = shlex.split(command)
    assert words[:2] == ["analyzer", "replay"] and words[3] == "--game"
    _, seats = api.replay_scenario(words[2], int(words[4]), log=lambda line: None)
    won = {s["start_position"]: s["won"] for s in seats}
    assert start["estimate"] >= 0 and won[0] > 0
    sizes = [f["size"] for f in found["findings"] if not f["figure"] and not f["exact"]
             and not f.get("same_test_as") and not f.get("unmeasurable")]
    assert sizes == sorted(sizes, reverse=True)
    tested = [f for f in found["findings"] if not f["figure"] and not f["exact"]
              and not f.get("same_test_as") and not f.get("unmeasurable")]
    assert found["tested"] == len(tested)
    holm = np.asarray([f["p_holm"] for f in tested])
    assert np.all(holm >= np.asarray([f["p_value"] for f in tested]) - 1e-12)


def test_size_is_cohens_d_for_a_paired_difference():
    """For a paired per-game difference the size is the mean over the per-game standard
    deviation (Cohen's d_z), read back from the t interval the sections report."""
    rng = np.random.default_rng(1)
    d = rng.normal(0.3, 1.0, 400)
    m, s = d.mean(), d.std(ddof=1)
    half = sps.t.ppf(0.975, 399) * s / 20
    (a,) = findings.assess([_diff(m, m - half, m + half, games=400)])
    assert a.size == pytest.approx(m / s, rel=0.01)  # normal vs t quantile: within 1 %


def test_a_two_policy_table_reports_the_policy_with_fewest_seats(tmp_path):
    """In a two-policy table every game has a winner, so one policy's win-rate change is
    the other's loss: the same test. The key finding names the policy with the fewest seats
    (the one the study is about), not whichever comes first."""
    path = tmp_path / "two.toml"
    path.write_text("""\
name = "two-policies"
game = "toy"
players = 3
games = 200
seed = 5

[[seats]]
policy = "random"
name = "alpha"

[[seats]]
policy = "random"
name = "alpha"

[[seats]]
policy = "biased"
name = "zed"
params = { boost = 1.0, chance = 0.8 }

[[variants]]
name = "more-sides"
rules = { sides = 12 }
""")
    res = api.simulate(path, out=tmp_path / "run", jobs=1)
    rows = res.summary["results"]["variants"]["won_by_policy"]
    kept = [r["policy"] for r in rows if r["mirror_of"] is None]
    assert kept == ["zed"]
    keys = [f["key"] for f in res.summary["results"]["findings"]["findings"]]
    assert "policy:more-sides:zed" in keys and "policy:more-sides:alpha" not in keys


# ------------------------------------------------------------------ issue #21


def test_one_finding_per_test_when_a_policy_change_is_half_its_head_to_head():
    """Pyramidion: the base seats greedy everywhere (25 % per seat in every game with a
    winner), the variant two greedy and two tile-builders. `policy:v:greedy` (greedy's per-seat
    share − 25 %) is exactly half of `head_to_head:v:greedy` (greedy − the others): one test,
    listed and counted once, and the policy sentence names its real reference."""
    rng = np.random.default_rng(7)
    rows = []
    for g in range(200):
        winner = int(rng.choice(4, p=[0.35, 0.35, 0.15, 0.15]))
        for seat in range(4):
            rows.append({"variant": "base", "game_id": g, "seat": seat, "policy": "greedy",
                         "start_position": seat, "won": float(seat == int(rng.integers(4))),
                         "score": 1.0})
            rows.append({"variant": "v", "game_id": g, "seat": seat,
                         "policy": "greedy" if seat < 2 else "tile", "start_position": seat,
                         "won": float(seat == winner), "score": 1.0})
    seats = pd.DataFrame(rows)
    # every base game has exactly one winner: greedy's per-seat share there is 1/4
    base_winners = seats[seats.variant == "base"].groupby("game_id")["won"].transform("sum")
    seats = seats[~seats.game_id.isin(seats.loc[(seats.variant == "base") & (base_winners != 1),
                                                "game_id"])]
    from analyzer import stats

    pol = stats.pair_differences(seats[seats.variant == "base"], seats[seats.variant == "v"], "v",
                                 "won", ("policy",))
    r = pol[pol["policy"] == "greedy"].iloc[0]
    res = {"variants": {"won_by_policy": [{**r.to_dict(), "mirror_of": None}]}}
    generic = findings.generic(res, {}, seats)
    (policy,) = [f for f in generic if f.key == "policy:v:greedy"]
    assert "where it plays every seat: the fair share (1 − q)/n, 25.0 %" in policy.sentence()
    v = seats[seats.variant == "v"]
    mine = v[v.policy == "greedy"].groupby("game_id")["won"].mean()
    others = v[v.policy != "greedy"].groupby("game_id")["won"].mean()
    h = stats.paired_difference(others.to_numpy(), mine.to_numpy())
    h2h = findings.Finding("head to head", h.mean, h.lo, h.hi, "pp", 100, 1, True, 0.0,
                           p_value=h.p_value, games=h.n, example_variant="v",
                           key="head_to_head:v:greedy", t_df=h.n - 1)  # a t interval, as the game's
    assert h.mean == pytest.approx(2 * policy.estimate)
    ranked = findings.assess([policy, h2h])
    tested = [a for a in ranked if a.tested]
    assert [a.finding.key for a in tested] == ["policy:v:greedy"]
    twin = next(a for a in ranked if a.finding.key == "head_to_head:v:greedy")
    assert twin.same_test_as == "policy:v:greedy" and twin.holds == tested[0].holds
    # the same numbers in another arm are another test
    other = findings.Finding("x", h.mean, h.lo, h.hi, "pp", 100, 1, True, 0.0, p_value=h.p_value,
                             games=h.n, example_variant="w", key="head_to_head:w:greedy")
    assert len([a for a in findings.assess([policy, other]) if a.tested]) == 2


def test_a_tiny_run_gives_no_interval_outside_the_possible_range_and_no_estimate_below_the_minimum():
    """Five games: "+0.0 pp [−124.2, +124.2]" is what a t interval of a win-rate difference gives;
    below MIN_GAMES the finding reads "too few games to estimate" and is not tested; above it an
    interval is clipped to the possible range (a difference of shares: ±100 pp)."""
    tiny = findings.Finding("x {value}", 0.0, -1.242, 1.242, "pp", 100, 1, True, 0.0,
                            p_value=1.0, games=5, key="tiny")
    assert "too few games to estimate (5 games; at least 20 needed)" in tiny.sentence()
    assert not findings.assess([tiny])[0].tested
    wide = findings.Finding("x {value}", 0.9, 0.7, 1.1, "pp", 100, 1, True, 0.0, games=25,
                            key="wide")
    assert wide.value_text() == "+90.0 pp [+70.0, +100.0]"
    share = findings.Finding("x {value}", 0.02, -0.01, 0.05, "%", 100, 1, games=30, key="s")
    assert share.value_text() == "2.0 % [0.0, 5.0]"
    (rec,) = findings.numbers([wide])["findings"]
    assert rec["hi"] == 1.0 and rec["se"] == pytest.approx(0.4 / (2 * 1.959964), rel=1e-5)


def test_the_picked_goods_source_is_tested_as_picked():
    """Five sources with no association at all (odds ratio 1, independent estimates): picking
    the largest and testing it as if chosen in advance rejects in 1 − 0.975⁵ = 11.9 % of runs;
    the Bonferroni-corrected test of the pick rejects at most 5 % and its
    interval covers the picked source's true odds ratio 1 at least 95 % of the time."""
    rng = np.random.default_rng(11)
    se, reps = 0.1, 4000
    naive = picked = covered = 0
    for _ in range(reps):
        b = rng.normal(0, se, 5)
        rows = [{"source": f"goods_s{i}", "odds_ratio": math.exp(x),
                 "lo": math.exp(x - 1.959964 * se), "hi": math.exp(x + 1.959964 * se),
                 "p_value": float(2 * sps.norm.sf(abs(x) / se))} for i, x in enumerate(b)]
        (f,) = [f for f in pyramidion_findings.pyramidion({"goods_model": rows}, {})
                if f.key == "goods:strongest_source"]
        top = max(rows, key=lambda r: r["odds_ratio"])
        naive += top["p_value"] < 0.05 and top["odds_ratio"] > 1
        picked += f.p_value < 0.05
        covered += f.lo <= 1.0 <= f.hi
        assert f.item == top["source"] and len(f.items) == 5
    assert naive / reps > 0.10  # 1 − 0.975⁵ = 11.9 %
    assert picked / reps <= 0.05 + 2.58 * math.sqrt(0.05 * 0.95 / reps)
    assert covered / reps >= 0.95 - 2.58 * math.sqrt(0.05 * 0.95 / reps)
    assert "picked as the largest of the 5" in f.sentence()


def test_cartus_never_calls_a_flagged_set_most_balanced():
    """Issue #34: the set with the smallest seat spread is "the most balanced" only when it is
    not flagged unbalanced; flagged, the sentence says so, and so does its Answers row."""
    def row(name, balance, sig):
        return {"building_set": name, "games": 400, "balance": balance, "balance_lo": 0.01,
                "balance_hi": 0.2, "imbalance_p": 0.001 if sig else 0.5,
                "imbalance_p_adj": 0.002 if sig else 0.9, "imbalance_sig": sig}

    def first(sets):
        out = cartus_findings.building_sets({"sets": sets, "noise_floor": 0.05}, {})
        return next(f for f in out if f.key == "sets:most_balanced").sentence()

    both = first([row("a+b", 0.06, True), row("a+c", 0.09, True)])
    assert "most balanced" not in both
    assert both.startswith("None of the 2 building sets is balanced (all flagged unbalanced")
    assert "the smallest seat spread is `a`, `b`'s: seat win rates 6.0 pp" in both
    one = first([row("a+b", 0.06, True), row("a+c", 0.09, False)])
    assert "most balanced" not in one and one.startswith(
        "The building set with the smallest seat spread, `a`, `b`, is flagged unbalanced")
    fair = first([row("a+b", 0.06, False), row("a+c", 0.09, True)])
    assert fair.startswith("The most balanced of the 2 building sets is `a`, `b`: seat win "
                           "rates 6.0 pp")
    from analyzer.report import answers
    record = {"key": "sets:most_balanced", "sentence": both, "estimate": 0.06, "lo": 0.01,
              "hi": 0.2, "unit": "pp", "scale": 100, "digits": 1}
    assert "most balanced" not in answers.short_text(record)


def test_findings_of_a_missing_directory_says_it_does_not_exist(tmp_path):
    """`analyzer findings /no/such/dir` said "not a run directory, no summary.json here" as
    if the directory were there; it says there is no such directory (exit 2, one line)."""
    from typer.testing import CliRunner

    from analyzer.cli import app
    res = CliRunner().invoke(app, ["findings", str(tmp_path / "nope")])
    assert res.exit_code == 2
    assert "no such directory" in res.output and "Traceback" not in res.output
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(app, ["findings", str(tmp_path / "empty")])
    assert res.exit_code == 2 and "not a run directory" in res.output


def test_report_says_why_a_folder_is_no_run(tmp_path, toy_file):
    """`analyzer report` said "no games.parquet here (is this a run directory …?)" of a missing
    path, a scenario file and a run stopped before its records were written alike; it now says
    which (exit 2, one line), as `analyzer findings` does."""
    from typer.testing import CliRunner

    from analyzer.cli import app

    (tmp_path / "stopped" / "chunks").mkdir(parents=True)
    (tmp_path / "empty").mkdir()
    for where, why in ((tmp_path / "nope", ("no such directory (give the directory of a "
                                           "finished run, e.g. reports/NAME)")),
                       (toy_file, "not a directory (give the directory of a finished run"),
                       (tmp_path / "stopped", "the run is not finished (no summary.json yet)"),
                       (tmp_path / "empty", "no games.parquet here")):
        res = CliRunner().invoke(app, ["report", str(where)])
        assert res.exit_code == 2 and "Traceback" not in res.output, res.output
        assert res.stderr.strip().splitlines() == [
            res.stderr.strip()] and f"{where}: {why}" in res.stderr


def test_the_measured_figures_listed_are_capped():
    """A run of 64 arms with --rounds listed 641 measured figures in its key findings; the
    first ``MAX_FIGURES`` are listed, the count says how many there are and where the rest
    are."""
    found = [findings.Finding(f"figure {i} is {{value}}", 0.5, 0.4, 0.6, "%", 100, 1,
                              games=30, key=f"f:{i}") for i in range(findings.MAX_FIGURES + 5)]
    n = findings.numbers(found)
    doc = Doc(None)
    findings.write(doc, n, n.pop(findings.ASSESSED))
    texts = [b[1] for b in doc.blocks if b[0] == "p"]
    assert sum(t.startswith("- figure ") for t in texts) == findings.MAX_FIGURES
    assert (f"Measured figures (no no-effect value to test them against), the first "
            f"{findings.MAX_FIGURES} of {findings.MAX_FIGURES + 5} (all are in `summary.json`, "
            "`findings`):") in texts
    assert len(n["findings"]) == findings.MAX_FIGURES + 5  # summary.json keeps every one
