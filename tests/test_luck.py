"""Skill and luck (issue #36 item 3): ``analyzer quality --luck R`` splits the outcome
variance into the deal's share and play's, and a tournament's skill spread — each on a game
with a known answer."""

from __future__ import annotations

import json

import lucktoy
import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from analyzer import api, runner, stats
from analyzer.cli import app
from analyzer.games import register_game
from analyzer.model.base import game_streams
from analyzer.report import luck

register_game(lucktoy.SPEC)
cli = CliRunner()


def _scenario(tmp_path, mode, policy="random", games=200):
    path = tmp_path / f"{mode}-{policy}.toml"
    path.write_text(lucktoy.SCENARIO.format(mode=mode, games=games, policy=policy))
    return path


def _rows(res):
    return {r["key"]: r for r in res.summary["results"]["luck"]["outcomes"]}


# ------------------------------------------------------------------ the estimator


def test_the_split_recovers_known_variance_components():
    """y = b_d + e_dr with Var(b) = 1, Var(e) = 3: ICC = 1/4. The corrected between part is
    unbiased; the variance of the deal means overstates it by Var(e)/R."""
    rng = np.random.default_rng(1)
    d, r = 4000, 4
    y = rng.normal(0, 1, (d, 1)) + rng.normal(0, np.sqrt(3), (d, r))
    out = stats.variance_split(y, n_boot=200, seed=2)
    assert out["share"] == pytest.approx(0.25, abs=0.02)
    assert out["lo"] < 0.25 < out["hi"] and out["hi"] - out["lo"] < 0.06
    assert out["between"] == pytest.approx(1.0, abs=0.1)
    assert out["within"] == pytest.approx(3.0, abs=0.1)
    assert out["naive_between"] == pytest.approx(1.0 + 3.0 / r, abs=0.1)


def test_the_split_is_near_zero_without_a_deal_effect_and_matches_anova_by_hand():
    rng = np.random.default_rng(3)
    y = rng.normal(0, 1, (3000, 3))
    out = stats.variance_split(y)
    assert abs(out["share"]) < 0.03 and np.isnan(out["lo"])
    # ICC(1) from the ANOVA table by hand (Shrout & Fleiss 1979) on a small case
    y = np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]])
    k, n = 2, 3
    msb = k * np.var(y.mean(axis=1), ddof=1)
    msw = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum() / (n * (k - 1))
    assert stats.variance_split(y)["share"] == pytest.approx((msb - msw) / (msb + (k - 1) * msw))


def test_pooled_seats_sum_the_components():
    rng = np.random.default_rng(4)
    a = rng.normal(0, 1, (500, 3, 1)) + rng.normal(0, 1, (500, 3, 1))
    b = rng.normal(0, 2, (500, 1, 1)) + rng.normal(0, 1, (500, 3, 1))
    pooled = stats.variance_split(np.concatenate([a, b], axis=2))
    one, two = stats.variance_split(a), stats.variance_split(b)
    assert pooled["between"] == pytest.approx(one["between"] + two["between"])
    assert pooled["within"] == pytest.approx(one["within"] + two["within"])


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="2 deals and 2 replays"):
        stats.variance_split(np.zeros((5, 1)))


def _anova(y):
    """The between- and within-deal variances of ``y`` (deal, replay) by the one-way ANOVA
    table by hand: ``((MSB - MSW) / R, MSW)``."""
    d, r = y.shape
    msb = r * np.var(y.mean(axis=1), ddof=1)
    msw = ((y - y.mean(axis=1, keepdims=True)) ** 2).sum() / (d * (r - 1))
    return (msb - msw) / r, msw


def test_the_numbers_of_three_deals_played_twice():
    """Two seats, 3 deals x 2 replays: the start player scores 0/1, 10/11, 20/20, the other
    5/5, 5/7, 5/5; the higher score wins, so the deal alone decides who wins (deal 0: the
    second seat, else the first). Deal 2 plays out alike in both replays."""
    first = np.array([[0.0, 1.0], [10.0, 11.0], [20.0, 20.0]])
    second = np.array([[5.0, 5.0], [5.0, 7.0], [5.0, 5.0]])
    seats = pd.DataFrame([{"variant": f"replay{r}", "game_id": d, "seat": p, "start_position": p,
                           "score": mine[d, r], "won": float(mine[d, r] > theirs[d, r])}
                          for d in range(3) for r in range(2)
                          for p, (mine, theirs) in enumerate([(first, second), (second, first)])])
    run = {"arms": [{"name": f"replay{r}", "seats": ["random", "greedy"]} for r in range(2)],
           "study": {"probe": {"drew": [5, 0]}, "bootstrap": 0, "boot_seed": 1}}
    n = luck.numbers(run, seats)
    assert list(n) == ["outcomes", "deals", "replays", "varied_deals", "deterministic", "note",
                       "bootstrap", "findings"]
    # the key findings: each pooled outcome's share, a measured figure (no test)
    assert sorted(r["key"] for r in n["findings"]["findings"]) == [
        "luck:margin", "luck:score", "luck:won"]
    assert n["findings"]["tested"] == 0
    assert (n["deals"], n["replays"], n["varied_deals"], n["deterministic"], n["bootstrap"]) == (
        3, 2, 2, False, 0)
    assert n["note"].startswith("seat 1 (`greedy`) drew nothing from its own stream")
    rows = {r["key"]: r for r in n["outcomes"]}
    assert list(rows) == ["luck:won", "luck:won:1", "luck:won:2", "luck:score", "luck:score:1",
                          "luck:score:2", "luck:margin"]
    (b1, w1), (b2, w2) = _anova(first), _anova(second)
    assert rows["luck:score:1"]["share"] == pytest.approx(b1 / (b1 + w1))
    assert rows["luck:score:1"]["share"] == pytest.approx(0.99650, abs=1e-5)  # 94.92 / 95.25
    assert rows["luck:score:2"]["between"] == pytest.approx(b2)
    pooled = rows["luck:score"]  # the seats' parts summed before the share is taken
    assert (pooled["between"], pooled["within"]) == (pytest.approx(b1 + b2),
                                                     pytest.approx(w1 + w2))
    assert pooled["share"] == pytest.approx((b1 + b2) / (b1 + b2 + w1 + w2))
    assert pooled["position"] is None and pooled["pooled"] and pooled["unit"] == "points²"
    assert rows["luck:won"]["share"] == 1.0 and rows["luck:won"]["within"] == 0.0
    bm, wm = _anova(np.abs(first - second))  # two seats: the margin is the score gap
    assert rows["luck:margin"]["share"] == pytest.approx(bm / (bm + wm))
    assert np.isnan(rows["luck:won"]["lo"])  # no bootstrap asked
    assert rows["luck:score:1"]["text"].startswith(
        "the start player's final score: the deal explains 99.7")


# ------------------------------------------------------------------ the replays


def test_replay_zero_is_todays_game_and_a_replay_keeps_the_deal():
    seed = runner.game_seed(7, 3)
    chance, seats = game_streams(seed, 3)
    chance0, seats0 = game_streams(seed, 3, 0)
    chance1, seats1 = game_streams(seed, 3, 1)
    draws = [g.random() for g in (chance, *seats)]
    assert draws == [g.random() for g in (chance0, *seats0)]
    assert chance1.random() == draws[0]
    assert all(g.random() != x for g, x in zip(seats1, draws[1:]))


def test_replay_zero_of_the_study_is_the_simulate_run(tmp_path):
    path = _scenario(tmp_path, "mixed", games=40)
    sim = api.simulate(path, jobs=1, out=tmp_path / "sim")
    res = api.quality(path, luck=3, bootstrap=50, jobs=1, out=tmp_path / "q")
    seats = res.seats[res.seats["variant"] == "replay0"].drop(columns="variant")
    base = sim.seats.drop(columns="variant")
    pd.testing.assert_frame_equal(seats.reset_index(drop=True), base.reset_index(drop=True))
    other = res.seats[res.seats["variant"] == "replay1"]
    assert not np.array_equal(other["score"].to_numpy(), seats["score"].to_numpy())


# ------------------------------------------------------------------ known answers


def test_a_game_decided_by_the_deal_alone_has_luck_share_one(tmp_path):
    res = api.quality(_scenario(tmp_path, "deal"), luck=3, bootstrap=100, jobs=1,
                      out=tmp_path / "d")
    rows = _rows(res)
    for key in ("luck:won", "luck:score", "luck:margin"):
        assert rows[key]["share"] == pytest.approx(1.0), key
    numbers = res.summary["results"]["luck"]
    assert numbers["varied_deals"] == 0 and "the deal decided every game" in numbers["note"]


def test_a_game_decided_by_play_alone_has_luck_share_near_zero(tmp_path):
    res = api.quality(_scenario(tmp_path, "play", games=300), luck=4, bootstrap=200, jobs=1,
                      out=tmp_path / "p")
    for key in ("luck:won", "luck:score", "luck:margin"):
        r = _rows(res)[key]
        assert r["lo"] <= 0 <= r["hi"] and abs(r["share"]) < 0.06, (key, r)


def test_a_mixed_score_has_the_known_share(tmp_path):
    """score = draw + pick, both uniform on 0..5: half the score variance is the deal's."""
    res = api.quality(_scenario(tmp_path, "mixed", games=300), luck=4, bootstrap=200, jobs=1,
                      out=tmp_path / "m")
    r = _rows(res)["luck:score"]
    assert r["lo"] < 0.5 < r["hi"] and r["share"] == pytest.approx(0.5, abs=0.07)
    found = {f["key"] for f in res.summary["results"]["luck"]["findings"]["findings"]}
    assert found == {"luck:won", "luck:score", "luck:margin"}
    text = (res.out_dir / "report.md").read_text()
    assert "## Luck and skill" in text and "How much of who wins does the deal decide?" in text


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("args, fragment", [
    (["--luck", "1"], "luck: must be 2..100"),
    (["--bootstrap", "-1"], "bootstrap: must be in 0..100,000"),
    (["--games", "5"], "5 deals are fewer than"),
])
def test_bad_options_are_one_line_exit_2(tmp_path, args, fragment):
    path = _scenario(tmp_path, "mixed")
    res = cli.invoke(app, ["quality", str(path), *args, "--out", str(tmp_path / "o"),
                           "--quiet"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0] and "Traceback" not in res.output
    assert not (tmp_path / "o").exists()


def test_a_missing_file_is_one_line_exit_2(tmp_path):
    res = cli.invoke(app, ["quality", str(tmp_path / "nope.toml"), "--luck", "3"])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1, res.output


def test_deterministic_players_are_refused(tmp_path):
    res = cli.invoke(app, ["quality", str(_scenario(tmp_path, "mixed", "first")), "--luck",
                           "3", "--out", str(tmp_path / "o"), "--quiet"])
    assert res.exit_code == 2, res.output
    line = res.stderr.strip()
    assert "deterministic players" in line and "random, ismcts" in line and "\n" not in line


def test_the_command_runs_and_tells(tmp_path):
    out = tmp_path / "cli"
    res = cli.invoke(app, ["quality", str(_scenario(tmp_path, "mixed", games=40)), "--luck",
                           "3", "--bootstrap", "50", "--jobs", "1", "--out", str(out),
                           "--quiet"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == "40 deals x 3 replays"
    assert any("each seat's win share (pooled over the seats): the deal explains" in line
               for line in res.stdout.splitlines())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["study"]["kind"] == "quality"
    assert summary["run"]["study"]["probe"]["drew"] == [20, 20]


def test_the_plan_prices_the_probe_and_names_the_replays(tmp_path):
    out = tmp_path / "planned"
    res = cli.invoke(app, ["quality", str(_scenario(tmp_path, "mixed", games=40)), "--luck",
                           "3", "--jobs", "1", "--out", str(out), "--plan"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    probe = next(ln for ln in lines if ln.startswith("probe:"))
    assert "1 arm(s) x 20 games" in probe  # PROBE_GAMES deals, played before the replays
    assert any(ln.startswith("luck study (each deal played 3 times): 3 arm(s) x 40 games")
               for ln in lines), res.stdout
    assert any(ln.startswith("plan: 2 part(s), 4 arm(s), 140 games") for ln in lines)
    assert not out.exists()


# ------------------------------------------------------------------ skill spread

POOL = """\
name = "luck-ladder"
game = "lucktoy"
players = 2
games = 200
seed = 3

[rules]
mode = "play"

[[entrants]]
policy = "high"

[[entrants]]
policy = "random"
"""


def test_skill_spread_of_a_pool_with_known_strengths(tmp_path):
    """``high`` wins 11/12 against ``random`` (ties count half): the spread is 10/12."""
    path = tmp_path / "pool.toml"
    path.write_text(POOL)
    res = api.tournament(path, bootstrap=200, jobs=1, out=tmp_path / "t")
    out = res.summary["results"]["tournament"]
    spread = out["skill_spread"]
    assert (spread["strongest"], spread["weakest"]) == ("high", "random")
    assert spread["win_lo"] < 10 / 12 < spread["win_hi"]
    assert spread["win"] == pytest.approx(10 / 12, abs=0.06)
    assert spread["rating"] > 0 and spread["rating_lo"] > 0
    found = {f["key"]: f for f in out["findings"]["findings"]}
    assert found["quality:skill_spread"]["estimate"] == pytest.approx(spread["win"])
    assert found["quality:skill_spread:rating"]["estimate"] == pytest.approx(spread["rating"])


def test_skill_spread_of_equal_players_covers_zero(tmp_path):
    path = tmp_path / "pool.toml"
    path.write_text(POOL.replace('policy = "high"', 'name = "other"\npolicy = "random"'))
    res = api.tournament(path, bootstrap=200, jobs=1, out=tmp_path / "t")
    spread = res.summary["results"]["tournament"]["skill_spread"]
    assert spread["win_lo"] <= 0 <= spread["win_hi"] and spread["win"] >= 0  # picked as best


def test_skill_spread_is_a_question_key_of_a_tournament(tmp_path):
    path = tmp_path / "pool.toml"
    path.write_text(POOL + '\n[[questions]]\nask = "How far apart?"\n'
                           'finding = "quality:skill_spread"\n')
    assert api.validate_pool(path).questions
    path.write_text(POOL + '\n[[questions]]\nask = "?"\nfinding = "quality:skill_sprad"\n')
    res = cli.invoke(app, ["tournament", str(path), "--quiet", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "quality:skill_spread" in res.stderr, res.output


def test_a_share_below_zero_says_no_luck_is_detectable():
    """The ICC estimate is below 0 when the replays of a deal differ more than the deals do
    (a chance estimate of no luck): the sentence said "the deal explains -15.3 % … the rest is
    left to play", as if play explained over 100 %. Deal means 1, 1, 1 with replays 0 and 2:
    MSB = 0, so between = −MSW/R < 0."""
    scores = np.array([[0.0, 2.0], [2.0, 0.0], [0.0, 2.0]])
    seats = pd.DataFrame([{"variant": f"replay{r}", "game_id": d, "seat": p, "start_position": p,
                           "score": scores[d, r] if p == 0 else 5.0,
                           "won": float(p == 1)}
                          for d in range(3) for r in range(2) for p in range(2)])
    run = {"arms": [{"name": f"replay{r}", "seats": ["random", "random"]} for r in range(2)],
           "study": {"probe": {"drew": [5, 5]}, "bootstrap": 0, "boot_seed": 1}}
    n = luck.numbers(run, seats)
    row = next(r for r in n["outcomes"] if r["key"] == "luck:score:1")
    assert row["share"] < 0 and row["text"].startswith(
        "the start player's final score: the deal explains no detectable share of the variance "
        "(its estimate, -")
    assert row["text"].endswith(", is below 0 by chance)")
    pooled = next(r for r in n["outcomes"] if r["key"] == "luck:score")
    sentence = luck.finding(pooled).sentence()  # seat 2 scores 5 always: adds nothing
    assert pooled["share"] < 0 and sentence.startswith(
        "The deal explains no detectable share of the variance of each seat's final score "
        "(pooled over the seats) (its ANOVA estimate, -")
    assert "is below 0 by chance) (one-way" in sentence and "left to play" not in sentence
