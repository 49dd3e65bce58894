"""Issue #32 P1: a paired difference of shares with no spread over the games (every pair
equal, e.g. one no-winner game per arm on the same seed) is not an exact value. Its interval is
``stats.no_spread``'s: Wilson's bound on the share of games in which the rare outcome could
differ, times the room the difference has (−1..1 for a difference of shares)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from analyzer import stats
from analyzer.report import balance

Z2 = float(sps.norm.ppf(0.975)) ** 2


def _wilson_zero(n: int) -> float:
    return Z2 / (n + Z2)  # Wilson's upper bound for 0 of n


def test_no_spread_has_the_known_wilson_bound():
    """0 in 606 games, bounds ±1: ±z²/(606 + z²) = ±0.63 pp, p = 1; −0.25 in 196 games with
    room up to +0.75: [−0.25, −0.25 + z²/(196 + z²)], and the score test of 0 of 196 against
    the least share of games (0.25) that would pull the mean to 0."""
    lo, hi, p = stats.no_spread(0.0, 606, -1.0, 1.0)
    assert (lo, hi, p) == (pytest.approx(-_wilson_zero(606)), pytest.approx(_wilson_zero(606)), 1.0)
    assert round(100 * hi, 2) == 0.63
    lo, hi, p = stats.no_spread(-0.25, 196, -0.25, 0.75)
    assert (lo, hi) == (pytest.approx(-0.25), pytest.approx(-0.25 + _wilson_zero(196)))
    assert p == pytest.approx(2 * sps.norm.sf(np.sqrt(196 * 0.25 / 0.75)))
    # the interval excludes 0 exactly when p < 0.05 (the test Wilson's interval inverts)
    for n in (5, 11, 12, 40):
        lo, hi, p = stats.no_spread(0.25, n, -0.75, 0.25)
        assert (lo > 0) == (p < 0.05)


def test_a_rare_event_equal_in_every_pair_is_not_an_exact_zero():
    """One no-winner game per arm, on the same seed, in 606 paired games: the no-winner share
    changes by +0.0 pp [−0.63, +0.63], not an exact +0.0; a seat's win share the same in every
    game likewise (``pair_differences`` of ``won``); a score the same in every game (no bound)
    stays exact."""
    n = 606
    no_winner = np.zeros(n)
    no_winner[17] = 1.0
    d = stats.paired_difference(no_winner, no_winner.copy(), bounds=stats.SHARE_DIFFERENCE)
    assert d.mean == 0.0 and d.p_value == 1.0 and not d.significant
    assert (d.lo, d.hi) == (pytest.approx(-_wilson_zero(n)), pytest.approx(_wilson_zero(n)))

    per_game = pd.DataFrame({"spread": 3.0, "rounds": 9.0, "score": 5.0, "won_0": 1 - no_winner,
                             "won_1": 0.0, "no_winner": no_winner},
                            index=pd.Index(range(n), name="game_id"))
    rows = {r[1]: r for r in balance.arm_differences(per_game, per_game.copy(), "v")}
    _, _, games, diff, lo, hi, p, sig = rows["no_winner"]
    assert games == n and diff == 0.0 and p == 1.0 and not sig
    assert (round(100 * lo, 2), round(100 * hi, 2)) == (-0.63, 0.63)
    assert rows["won_0"][4] < 0 < rows["won_0"][5]
    assert rows["score"][4] == rows["score"][5] == 0.0  # not a share: no bound, exact

    seats = pd.DataFrame({"game_id": np.repeat(np.arange(n), 2), "seat": np.tile([0, 1], n),
                          "won": np.ravel(np.column_stack([1 - no_winner, np.zeros(n)]))})
    t = stats.pair_differences(seats, seats.copy(), "v", "won", ("seat",))
    assert (t["lo"] < 0).all() and (t["hi"] > 0).all()


def test_the_clustered_and_unpaired_differences_of_shares_take_the_same_bound():
    """``clustered_difference`` counts the clusters (games), not the rows; Welch's unpaired
    difference of two arms without spread takes each arm's bound at 97.5 %."""
    games = np.repeat(np.arange(300), 2)
    d = stats.clustered_difference(np.zeros(600), np.zeros(600), games,
                                   bounds=stats.SHARE_DIFFERENCE)
    assert d.hi == pytest.approx(_wilson_zero(300))
    w = stats.unpaired_difference(np.zeros(100), np.zeros(100), bounds=(0.0, 1.0))
    z2 = float(sps.norm.ppf(0.9875)) ** 2
    assert (w.lo, w.hi) == (pytest.approx(-z2 / (100 + z2)), pytest.approx(z2 / (100 + z2)))
    assert w.p_value == 1.0
    # a difference the interval excludes has p below 0.05 (the α at which it reaches 0)
    w = stats.unpaired_difference(np.zeros(30), np.ones(30), bounds=(0.0, 1.0))
    assert w.lo > 0 and 0 < w.p_value < 0.05
    assert stats.unpaired_difference(np.zeros(30), np.ones(30)).lo == 1.0  # no bound: exact
