"""Two one-sided tests (``stats.equivalence``): known cases and the error rate at the margin."""

import math

import numpy as np
import pytest

from analyzer import stats


def test_equivalence_of_a_known_estimate():
    # 90 % normal interval: 0.5 ± 1.6449 · 0.5 = [−0.322, 1.322], inside ±2, not inside ±1
    eq = stats.equivalence(0.5, 0.5, 2.0)
    assert eq.shown
    assert eq.lo == pytest.approx(0.5 - 1.644854 * 0.5, abs=1e-6)
    assert eq.hi == pytest.approx(0.5 + 1.644854 * 0.5, abs=1e-6)
    # the binding test is the upper one: P(Z < (0.5 − 2) / 0.5) = Φ(−3)
    assert eq.p_value == pytest.approx(0.0013499, abs=1e-6)
    assert not stats.equivalence(0.5, 0.5, 1.0).shown


def test_equivalence_around_a_target_with_t_reference():
    eq = stats.equivalence(10.4, 0.3, 1.0, target=10.0, df=9)
    t = 1.833113  # t_{0.95, 9}
    assert eq.lo == pytest.approx(10.4 - t * 0.3, abs=1e-5)
    assert eq.shown == (eq.hi < 11.0 and eq.lo > 9.0)
    assert eq.shown


def test_no_interval_claims_nothing_and_bad_tolerance_is_an_error():
    assert not stats.equivalence(math.nan, 0.1, 1.0).shown
    assert not stats.equivalence(0.0, math.inf, 1.0).shown
    with pytest.raises(ValueError):
        stats.equivalence(0.0, 0.1, 0.0)
    with pytest.raises(ValueError):
        stats.equivalence(0.0, 0.1, math.nan)


def test_false_claims_at_the_margin_are_at_most_five_percent():
    """True value exactly at the margin: 'shown' is a false claim; measured over 4,000 synthetic
    runs of 200 games, with the SE estimated from the data (t reference)."""
    rng = np.random.default_rng(31)
    tol, n, runs = 0.5, 200, 4000
    x = rng.normal(tol, 2.0, size=(runs, n))
    m, s = x.mean(axis=1), x.std(axis=1, ddof=1) / math.sqrt(n)
    rate = np.mean([stats.equivalence(mi, si, tol, df=n - 1).shown for mi, si in zip(m, s)])
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
    assert rate >= 0.03  # the test is not trivially conservative at the margin


def test_equivalence_is_shown_when_the_truth_is_well_inside():
    rng = np.random.default_rng(7)
    x = rng.normal(0.0, 1.0, size=2000)
    eq = stats.equivalence(x.mean(), x.std(ddof=1) / math.sqrt(x.size), 0.2, df=x.size - 1)
    assert eq.shown and eq.p_value < 0.001
