"""Known answers for the statistics behind issue #21: two estimates of one quantity
(``stats.overlap_comparison``, ``stats.two_sample_comparison``), Holm's correction
(``stats.adjust_pvalues`` against statsmodels), and the edge of a flagged row over its group's
unflagged rows (``stats.flagged_edge``, the diplomat leader)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from analyzer import stats


def test_on_the_same_games_the_overlap_comparison_is_the_paired_t_test():
    rng = np.random.default_rng(1)
    b = pd.Series(rng.normal(size=300))
    o = b + 0.1 + 0.5 * rng.normal(size=300)
    c = stats.overlap_comparison(b, o)
    t = sps.ttest_rel(o, b)
    assert c.test == "paired" and c.games == 300
    assert c.diff == pytest.approx(float((o - b).mean()))
    assert c.p_value == pytest.approx(float(t.pvalue))
    ci = t.confidence_interval()
    assert (c.lo, c.hi) == pytest.approx((float(ci.low), float(ci.high)))


def test_on_disjoint_games_it_is_the_two_sample_standard_error_and_identical_games_are_exact():
    rng = np.random.default_rng(2)
    b = pd.Series(rng.normal(size=400), index=range(400))
    o = pd.Series(rng.normal(size=200), index=range(1000, 1200))
    c = stats.overlap_comparison(b, o)
    se = math.sqrt(b.var() / 400 + o.var() / 200)
    assert (c.hi - c.lo) / 2 == pytest.approx(sps.t.ppf(0.975, 199) * se)
    assert c.games == 0
    same = stats.overlap_comparison(b, b.copy())
    assert same.test == "exact" and same.diff == 0 and same.p_value == 1.0


def test_a_shorter_run_on_the_first_seeds_keeps_the_coverage():
    """A search rung plays the first 100 of the base's 1,000 seeds; its games share their luck
    with the base's (correlation 0.7). The interval of the difference of the two means covers
    the true 0 about 95 % of the time."""
    rng = np.random.default_rng(3)
    covered, reps = 0, 800
    for _ in range(reps):
        luck = rng.normal(size=1000)
        b = pd.Series(np.sqrt(0.7) * luck + np.sqrt(0.3) * rng.normal(size=1000))
        o = pd.Series(np.sqrt(0.7) * luck[:100] + np.sqrt(0.3) * rng.normal(size=100))
        c = stats.overlap_comparison(b, o)
        covered += c.lo <= 0 <= c.hi
    assert 0.93 <= covered / reps <= 0.97


def test_two_sample_comparison_known_answer():
    c = stats.two_sample_comparison(0.10, 0.02, 0.03, 0.02)
    assert c.diff == pytest.approx(-0.07)
    assert c.p_value == pytest.approx(2 * sps.norm.sf(0.07 / math.hypot(0.02, 0.02)))
    assert stats.two_sample_comparison(1.0, 0.0, 1.0, 0.0).test == "exact"


def test_holm_equals_statsmodels():
    rng = np.random.default_rng(4)
    for m in (1, 2, 4, 11, 15, 40):
        for _ in range(50):
            p = rng.random(m) ** 3
            p[rng.random(m) < 0.2] = p[0]  # ties
            adj, sig = stats.adjust_pvalues(p, "holm")
            reject, ref, _, _ = multipletests(p, alpha=0.05, method="holm")
            assert np.allclose(adj, ref) and (sig == reject).all()


def _leader_games(n: int, rng: np.random.Generator, edge: float = 0.0):
    """Four seats; seat 0 (player A) wins 40 % of the games, the others 20 % each, and A holds
    the flag in 90 % of the games (else a random other seat). With ``edge`` the flag holder
    wins that much more often (taken from the others in proportion)."""
    g = np.repeat(np.arange(n), 4)
    seat = np.tile(np.arange(4), n)
    leader = np.where(rng.random(n) < 0.9, 0, rng.integers(1, 4, n))
    winners = np.empty(n, dtype=int)
    for i in range(n):
        p = np.array([0.4, 0.2, 0.2, 0.2])
        p = p * (1 - edge)
        p[leader[i]] += edge
        winners[i] = rng.choice(4, p=p)
    flag = seat == np.repeat(leader, 4)
    won = (seat == np.repeat(winners, 4)).astype(float)
    return g, np.where(seat == 0, "A", "B"), flag, won


def test_a_flag_held_by_the_strong_player_has_no_edge_when_winning_does_not_depend_on_it():
    """The known answer is 0: who wins does not depend on who holds the flag. A fixed "no
    edge" reference (k/n = 25 %) sees +13 pp; the reference by who holds it sees none, and its
    interval covers 0 about 95 % of the time."""
    rng = np.random.default_rng(5)
    covered, reps, naive = 0, 200, []
    for _ in range(reps):
        g, who, flag, won = _leader_games(1500, rng)
        e = stats.flagged_edge(g, who, flag, won)
        covered += e.lo <= 0 <= e.hi
        naive.append(e.share - 0.25)
        assert e.groups["A"] == pytest.approx(0.9, abs=0.03)
    assert 0.91 <= covered / reps <= 0.99
    assert np.mean(naive) == pytest.approx(0.9 * 0.4 + 0.1 * 0.2 - 0.25, abs=0.01)


def test_a_real_edge_is_found_with_its_size():
    rng = np.random.default_rng(6)
    g, who, flag, won = _leader_games(20000, rng, edge=0.2)
    e = stats.flagged_edge(g, who, flag, won)
    # the holder's win chance is 0.8·p + 0.2; the same player unflagged wins 0.8·p (the others'
    # chances shrink by 0.8): the edge is 0.2 whoever holds it
    assert e.edge == pytest.approx(0.2, abs=0.02)
    assert e.lo > 0 and e.per_game.mean() == pytest.approx(e.edge)


def test_an_edge_that_cannot_be_estimated_says_why():
    g = np.repeat(np.arange(10), 2)
    who = np.tile(["A", "B"], 10)
    flag = who == "A"  # A always holds it: never seen without it
    won = flag.astype(float)
    e = stats.flagged_edge(g, who, flag, won)
    assert math.isnan(e.edge) and "never plays without it" in e.unestimable
    none = stats.flagged_edge(g, who, np.zeros(20, dtype=bool), won)
    assert none.unestimable == "no row is flagged"
