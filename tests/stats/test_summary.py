"""``stats.summary`` (pandas ``describe``) against numbers worked by hand: for 1, 2, …, 10 the mean
is 5.5, the sample sd √(82.5 / 9) = 3.02765…, and the linear-interpolation quantiles (position
``q · (n − 1)``) are 1.9, 5.5 and 9.1."""

import math

import numpy as np
import pytest

from analyzer import stats


def test_summary_of_one_to_ten_matches_the_hand_computation():
    s = stats.summary(np.arange(1, 11))
    assert list(s) == ["mean", "sd", "min", "p10", "p50", "p90", "max"]
    assert s["mean"] == 5.5 and s["min"] == 1.0 and s["max"] == 10.0
    assert s["sd"] == pytest.approx(math.sqrt(82.5 / 9), rel=1e-15)
    assert (s["p10"], s["p50"], s["p90"]) == pytest.approx((1.9, 5.5, 9.1), rel=1e-15)


def test_summary_of_too_few_values_is_nan_where_undefined():
    assert all(math.isnan(v) for v in stats.summary([]).values())
    one = stats.summary([4.0])
    assert math.isnan(one["sd"])
    assert one["mean"] == one["min"] == one["p50"] == one["max"] == 4.0
