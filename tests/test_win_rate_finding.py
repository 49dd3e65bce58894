"""``win_rate:POLICY`` in a simulate run (issue #23): where the base arm seats several policies,
each one's win rate against a fair seat's, (1 − q)/n, with the game as the unit — the key the
``scenarios/*-ismcts-vs-greedy.toml`` questions ask."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import TOY_SCENARIO
from scipy import stats as sps

from analyzer import api
from analyzer.errors import ScenarioError
from analyzer.report import findings
from analyzer.report.finding_keys import of_summary
from analyzer.scenario import load_scenario
from analyzer.study import questions

# one block of 8 games at 4 seats, "solo" at seat game % 4 (rotated), the rest "crowd":
# solo wins 4 games outright, ties for first with one crowd seat in one, nobody wins one (every
# seat 0: the fair share is 0 there), the crowd wins two
SOLO_SHARE = [1, 1, 1, 1, 0.5, 0, 0, 0]
FAIR = [0.25, 0.25, 0.25, 0.25, 0.25, 0, 0.25, 0.25]
BLOCKS = 5  # 40 games: above the findings' minimum of 20


def _seats() -> pd.DataFrame:
    rows = []
    for gid in range(8 * BLOCKS):
        solo_at, s, total = gid % 4, SOLO_SHARE[gid % 8], 4 * FAIR[gid % 8]
        crowd = [total - s, 0.0, 0.0]  # one crowd seat wins, or shares a tie, or nobody
        others = iter(crowd)
        for seat in range(4):
            mine = seat == solo_at
            rows.append({"variant": "base", "game_id": gid, "seat": seat,
                         "policy": "solo" if mine else "crowd",
                         "won": float(s if mine else next(others)),
                         "start_position": (seat - gid) % 4, "score": 0.0})
    return pd.DataFrame(rows)


def test_the_win_rate_against_a_fair_seat_has_its_known_value():
    """Per game: solo's share minus the game's fair share; mean (4·0.75 + 0.25 + 0 − 2·0.25)/8
    = 0.34375, with the one-sample t interval and p over the 40 games. The crowd's per-game
    difference is −1/3 of solo's: the same test, listed once."""
    seats = _seats()
    got = {f.key: f for f in findings.generic({}, {}, seats)}
    solo = got["win_rate:solo"]
    d = np.tile(np.subtract(SOLO_SHARE, FAIR), BLOCKS)
    assert solo.estimate == pytest.approx(0.34375)
    half = sps.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    assert (solo.lo, solo.hi) == (pytest.approx(0.34375 - half), pytest.approx(0.34375 + half))
    assert solo.p_value == pytest.approx(sps.ttest_1samp(d, 0.0).pvalue)
    assert solo.games == 40 and solo.unit == "pp" and solo.null == 0.0
    assert list(solo.per_game.to_numpy()) == pytest.approx(list(d))
    # the sentence: the win rate (4.5 of 8 per block: 56.25 %) and the fair seat's share
    assert "`solo` wins 56.2 % [" in solo.sentence() or "`solo` wins 56.3 % [" in solo.sentence()
    assert "a fair seat's 21.9 % ((1 − q)/4, q = 12.5 % the share of games nobody won)" in \
        solo.sentence()
    assert solo.examples and all(SOLO_SHARE[g % 8] > FAIR[g % 8] for g in solo.examples)
    crowd = got["win_rate:crowd"]
    assert crowd.estimate == pytest.approx(-0.34375 / 3)
    ranked = {a.finding.key: a for a in findings.assess(list(got.values()))}
    assert ranked["win_rate:solo"].tested  # the policy at the fewest seats keeps the test
    assert ranked["win_rate:crowd"].same_test_as == "win_rate:solo"


def test_no_win_rate_key_when_one_policy_plays_every_seat():
    seats = _seats().assign(policy="crowd")
    assert not [f for f in findings.generic({}, {}, seats) if f.key.startswith("win_rate:")]


def test_a_simulate_question_asks_for_a_seat_policy_win_rate(write_scenario, tmp_path):
    """The key follows from the base's seats: a typo is refused before a game is played; the
    right key is answered from the run's finding, whose value is the records' per-game mean."""
    base = TOY_SCENARIO.split("[[variants]]")[0]
    ask = '\n[[questions]]\nask = "How much more than a fair seat does bold win?"\nfinding = "{}"\n'
    sc = load_scenario(write_scenario(base + ask.format("win_rate:bold")))
    assert {k for k in questions.plan(sc, "simulate").names() if k.startswith("win_rate:")} == {
        "win_rate:bold", "win_rate:random", "win_rate:biased", "win_rate:best"}
    bad = load_scenario(write_scenario(base + ask.format("win_rate:bolt"), "bad.toml"))
    with pytest.raises(ScenarioError, match="did you mean 'win_rate:bold'"):
        questions.check(bad, "simulate")

    res = api.simulate(sc.file, games=40, jobs=1, out=tmp_path / "run", progress=False)
    summary = json.loads((res.out_dir / "summary.json").read_text())
    got = summary["results"]["answers"]
    assert got["declared"] and [a["key"] for a in got["answers"]] == ["win_rate:bold"]
    seats = pd.read_parquet(res.out_dir / "seats.parquet")
    per = seats.groupby("game_id")
    fair = per["won"].sum() / per.size()
    bold = seats[seats["policy"].astype(str) == "bold"].groupby("game_id")["won"].sum()
    record = next(r for r in of_summary(summary) if r["key"] == "win_rate:bold")
    assert record["estimate"] == pytest.approx(float((bold - fair).mean()))
    assert got["answers"][0]["estimate"] == pytest.approx(100 * record["estimate"])


def test_a_policy_that_never_won_gets_a_wilson_interval_not_an_exact_value():
    """Issue #32 W1: `solo` at one seat of four never wins in 196 games, every game has a
    winner: its difference is −25 pp in every game. No spread is not an exact value: the interval
    is Wilson's for 0 of 196 games (upper z²/(196 + z²) = 1.92 %) shifted by the fair 25 %,
    −25.0 [−25.0, −23.1]; the crowd's (+1/12 per game) is the same bound seen from its side."""
    rows = []
    for gid in range(196):
        solo_at = gid % 4
        for seat in range(4):
            rows.append({"variant": "base", "game_id": gid, "seat": seat,
                         "policy": "solo" if seat == solo_at else "crowd",
                         "won": 1.0 if seat == (solo_at + 1) % 4 else 0.0,
                         "start_position": (seat - gid) % 4, "score": 0.0})
    got = {f.key: f for f in findings.generic({}, {}, pd.DataFrame(rows))}
    solo, crowd = got["win_rate:solo"], got["win_rate:crowd"]
    z2 = sps.norm.ppf(0.975) ** 2
    u = z2 / (196 + z2)
    assert solo.estimate == pytest.approx(-0.25)
    assert (solo.lo, solo.hi) == (pytest.approx(-0.25), pytest.approx(-0.25 + u))
    assert "-25.0 pp [-25.0, -23.1]" in solo.sentence().replace("−", "-")
    assert solo.p_value < 1e-6
    assert crowd.estimate == pytest.approx(1 / 12)
    assert (crowd.lo, crowd.hi) == (pytest.approx(1 / 12 - u / 3), pytest.approx(1 / 12))
    for f in (solo, crowd):
        assert "same in every game" not in f.sentence()


def test_the_standardized_size_reads_the_t_interval_with_its_own_quantile():
    """Issue #32 S1: the size of a mean over games with a t interval is Cohen's d_z, mean / sd
    of the per-game differences — the interval's half-width read with t(0.975, games − 1), not
    with 1.96 (which made every size 0.6–7 % low). Over 40 games t = 2.023: 3 % apart."""
    got = {f.key: f for f in findings.generic({}, {}, _seats())}
    d = np.tile(np.subtract(SOLO_SHARE, FAIR), BLOCKS)
    ranked = {a.finding.key: a for a in findings.assess(list(got.values()))}
    assert ranked["win_rate:solo"].size == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9)
