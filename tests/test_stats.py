"""analyzer/stats.py against textbook values and hand-built record tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analyzer import stats


def test_wilson_45_of_100():
    """Wilson (1927) 95% for 45/100: [0.3561, 0.5475] (quoted as [0.3560, 0.5475] in the issue).

    By hand: centre (0.45 + 1.96²/200) / (1 + 1.96²/100) = 0.45184, half-width
    1.96·√(0.45·0.55/100 + 1.96²/40000) / 1.038415 = 0.09571.
    """
    iv = stats.wilson(45, 100)
    assert iv.estimate == 0.45
    assert iv.lo == pytest.approx(0.35613, abs=1e-4)
    assert iv.hi == pytest.approx(0.54755, abs=1e-4)


def test_wilson_zero_successes_and_empty():
    """0/10: lower bound 0, upper z²/(n+z²) = 0.2775; n = 0 gives nan."""
    iv = stats.wilson(0, 10)
    assert iv.lo == 0.0
    assert iv.hi == pytest.approx(3.8415 / 13.8415, abs=1e-4)
    assert math.isnan(stats.wilson(0, 0).estimate)


def test_wilson_fractional_ties():
    """A 2-way tie counts 1/2 a win: 1.5 wins of 3 is the rate 0.5, interval symmetric."""
    iv = stats.wilson(1.5, 3)
    assert iv.estimate == 0.5
    assert iv.lo + iv.hi == pytest.approx(1.0)


def test_mean_interval_t():
    """[1..5]: mean 3, s = 1.5811, t(0.975, 4) = 2.7764 → 3 ± 1.9632."""
    iv = stats.mean_interval([1, 2, 3, 4, 5])
    assert iv.estimate == 3.0
    assert iv.lo == pytest.approx(1.0368, abs=1e-4)
    assert iv.hi == pytest.approx(4.9632, abs=1e-4)
    assert math.isnan(stats.mean_interval([2.0]).lo)


def test_ratio_interval_delta_method():
    """y = [2, 4], x = [1, 1]: r = 3, s(y − r x) = √2, se = √2 / (√2 · 1) = 1 → 3 ± 1.96."""
    iv = stats.ratio_interval([2, 4], [1, 1])
    assert iv.estimate == 3.0
    assert iv.lo == pytest.approx(3 - 1.959964, abs=1e-5)
    assert iv.hi == pytest.approx(3 + 1.959964, abs=1e-5)
    assert math.isnan(stats.ratio_interval([1], [0]).estimate)


def test_paired_difference_values_and_flag():
    """d = [1, 1, 2]: mean 4/3, s = 0.5774, t(0.975, 2) = 4.3027 → [−0.1009, 2.7676], not significant."""
    d = stats.paired_difference([1, 2, 3], [2, 3, 5])
    assert d.mean == pytest.approx(4 / 3)
    assert d.lo == pytest.approx(-0.1009, abs=1e-4)
    assert d.hi == pytest.approx(2.7676, abs=1e-4)
    assert d.n == 3 and not d.significant
    exact = stats.paired_difference([0, 0, 0], [1, 1, 1])
    assert exact.significant and exact.lo == exact.hi == 1.0
    same = stats.paired_difference([1, 2], [1, 2])
    assert not same.significant


def _seats(rows):
    return pd.DataFrame(rows, columns=["variant", "game_id", "seat", "policy", "score", "won",
                                       "sultan_points", "tiebreak"])


SEATS = _seats([
    # game 0: seat 0 wins 10 to 8, but 4 of its points are diplomat points → seat 1 would win
    ("base", 0, 0, "greedy", 10.0, 1.0, 4, 0.0),
    ("base", 0, 1, "random", 8.0, 0.0, 0, 0.0),
    # game 1: a tie for first (0.5 each); diplomat points do not matter
    ("base", 1, 0, "random", 7.0, 0.5, 0, 0.0),
    ("base", 1, 1, "greedy", 7.0, 0.5, 0, 0.0),
    # variant on the same seeds
    ("v", 0, 0, "greedy", 6.0, 0.0, 0, 0.0),
    ("v", 0, 1, "random", 9.0, 1.0, 0, 0.0),
    ("v", 1, 0, "random", 5.0, 0.0, 0, 0.0),
    ("v", 1, 1, "greedy", 8.0, 1.0, 0, 0.0),
])


def test_win_rates_columns_and_ties():
    """Wins are Σ won (ties 1/k); n counts seat-games."""
    wr = stats.win_rates(SEATS[SEATS["variant"] == "base"], ("policy",))
    assert list(wr.columns) == ["policy", "n", "wins", "rate", "lo", "hi"]
    greedy = wr.set_index("policy").loc["greedy"]
    assert greedy["n"] == 2 and greedy["wins"] == 1.5 and greedy["rate"] == 0.75


def test_seat_order_table():
    so = stats.seat_order(SEATS[SEATS["variant"] == "base"])  # no start_position: by seat
    assert list(so["position"]) == [0, 1]
    assert list(so["rate"]) == [0.75, 0.25]
    assert list(so["score"]) == [8.5, 7.5]


def test_variant_differences_paired_on_game_id():
    """Seat 1 wins 0.5 of 2 base games and both variant games: +0.75 on average."""
    d = stats.variant_differences(SEATS, "won", ("seat",))
    row = d[(d["variant"] == "v") & (d["seat"] == 1)].iloc[0]
    assert row["base_mean"] == 0.25 and row["variant_mean"] == 1.0 and row["diff"] == 0.75
    overall = stats.variant_differences(SEATS, "score", ())
    # per-game mean score: base 9, 7 → variant 7.5, 6.5: differences −1.5, −0.5
    assert overall.iloc[0]["diff"] == pytest.approx(-1.0)
    assert stats.variant_differences(SEATS[SEATS["variant"] == "base"], "won").empty


def test_winners_without_diplomat_points():
    """Game 0's winner changes without the 4 diplomat points; game 1's does not."""
    changed = stats.winners_without(SEATS, "sultan_points")
    assert bool(changed[("base", 0)]) is True
    assert bool(changed[("base", 1)]) is False


def test_winners_without_uses_tiebreak():
    """Reduced scores tie 6–6; the tie-break key (higher better) decides, as the game would."""
    s = _seats([("base", 0, 0, "g", 10.0, 1.0, 4, 1.0), ("base", 0, 1, "g", 6.0, 0.0, 0, 2.0)])
    assert bool(stats.winners_without(s, "sultan_points").iloc[0]) is True
    s2 = _seats([("base", 0, 0, "g", 10.0, 1.0, 4, 3.0), ("base", 0, 1, "g", 6.0, 0.0, 0, 2.0)])
    assert bool(stats.winners_without(s2, "sultan_points").iloc[0]) is False


def test_distribution_and_summary():
    d = stats.distribution(pd.Series([0, 0, 4, 2]))
    assert list(d["value"]) == [0, 2, 4] and list(d["count"]) == [2, 1, 1]
    assert d["share"].sum() == pytest.approx(1.0)
    s = stats.summary(np.array([1.0, 2.0, 3.0]))
    assert s["mean"] == 2.0 and s["p50"] == 2.0 and s["min"] == 1.0 and s["max"] == 3.0


def test_adjust_pvalues_holm_and_bh_textbook():
    """Holm multiplies the i-th smallest p by (m - i + 1) and keeps the running max; BH scales by
    m / rank and keeps the running min from the top (Benjamini & Hochberg 1995)."""
    import numpy as np

    from analyzer.stats import adjust_pvalues

    p = [0.01, 0.04, 0.03, 0.005]
    holm, holm_sig = adjust_pvalues(p, "holm")
    np.testing.assert_allclose(holm, [0.03, 0.06, 0.06, 0.02])
    assert holm_sig.tolist() == [True, False, False, True]
    bh, bh_sig = adjust_pvalues(p, "bh")
    np.testing.assert_allclose(bh, [0.02, 0.04, 0.04, 0.02])
    assert bh_sig.tolist() == [True, True, True, True]
    adj, sig = adjust_pvalues([0.01, float("nan")], "holm")
    assert adj[0] == 0.01 and np.isnan(adj[1]) and sig.tolist() == [True, False]
