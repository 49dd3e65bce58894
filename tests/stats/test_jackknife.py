"""The one jackknife (``stats.jackknife_variance``) against an independent computation: for the
mean, the leave-one-out jackknife standard error is exactly the usual standard error
``s / √n`` (scipy ``sem``); the interval built on it and the balance check agree."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from analyzer import stats
from analyzer.study.balance import jackknife


def _leave_one_out_means(x: np.ndarray) -> np.ndarray:
    return (x.sum() - x) / (x.size - 1)


def test_jackknife_se_of_the_mean_is_the_usual_standard_error():
    x = np.random.default_rng(7).normal(3.0, 2.0, size=57)
    se = math.sqrt(stats.jackknife_variance(_leave_one_out_means(x)))
    assert se == pytest.approx(sps.sem(x), rel=1e-12)


def test_two_independent_samples_add_their_variances():
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=40), rng.normal(size=65)
    iv, p = stats.jackknife_interval(float(y.mean() - x.mean()),
                                     [_leave_one_out_means(x), _leave_one_out_means(y)])
    se = math.hypot(sps.sem(x), sps.sem(y))
    assert iv.hi - iv.lo == pytest.approx(2 * sps.norm.ppf(0.975) * se, rel=1e-10)
    assert p == pytest.approx(2 * sps.norm.sf(abs(iv.estimate) / se), rel=1e-10)


def test_balance_check_uses_the_same_jackknife_with_t_quantiles():
    x = np.random.default_rng(9).normal(size=30)
    reps = _leave_one_out_means(x)
    r = jackknife(float(x.mean()), reps)
    assert r["se"] == pytest.approx(sps.sem(x), rel=1e-12)
    assert r["hi"] - r["lo"] == pytest.approx(2 * sps.t.ppf(0.975, 29) * sps.sem(x), rel=1e-10)


@pytest.mark.parametrize("reps", [[1.0], [1.0, math.nan, 2.0]])
def test_too_few_or_missing_replicates_give_nan(reps):
    assert math.isnan(stats.jackknife_variance(reps))
    iv, p = stats.jackknife_interval(0.5, np.asarray(reps))
    assert math.isnan(iv.lo) and math.isnan(p)
