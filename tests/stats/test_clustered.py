"""Issue items 3 and 11: intervals whose unit is the game when several seats share a game, and no
zero-width interval for a share of 0."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from stats_synth import clustered_deaths, positions_table

from analyzer import stats
from analyzer.report import sections
from analyzer.report.document import Doc, signed

Z = 1.959963984540054


def test_perfectly_clustered_deaths_have_the_games_standard_error():
    """10 games of 4 seats, all 4 die in 3 games. The share is 0.3 either way, but the seats of a
    game are one unit: the standard error is that of 10 games, √(0.3·0.7/9) (sample variance of
    the 10 per-game shares over 10), so n_eff = 0.21 / (0.21/9) = 9 and the interval is Wilson's
    for 2.7 of 9 — not Wilson's for 12 of 40 seat-games."""
    deaths = np.array([4, 4, 4, 0, 0, 0, 0, 0, 0, 0])
    seats = np.full(10, 4)
    iv = stats.clustered_share(deaths, seats)
    want = stats.wilson(2.7, 9)
    assert iv.estimate == pytest.approx(0.3)
    assert (iv.lo, iv.hi) == pytest.approx((want.lo, want.hi))
    naive = stats.wilson(12, 40)
    assert iv.hi - iv.lo > 1.8 * (naive.hi - naive.lo)


def test_independent_seats_keep_the_plain_wilson_width():
    """Deaths spread one per game (less clustered than independent): deff < 1 is floored at 1,
    so the interval is Wilson's over the seat-games, never narrower."""
    deaths = np.array([1] * 10 + [0] * 10)
    iv = stats.clustered_share(deaths, np.full(20, 4))
    want = stats.wilson(10, 80)
    assert (iv.lo, iv.hi) == pytest.approx((want.lo, want.hi))


def test_cluster_robust_standard_error_equals_statsmodels():
    """``clustered_difference``'s standard error (of a difference from 0) is statsmodels'
    cluster-robust one of an intercept-only regression (CR1: G/(G − 1)·(N − 1)/(N − K),
    K = 1), with a t(G − 1) quantile."""
    import statsmodels.api as sm

    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(60), rng.integers(1, 5, 60))
    y = rng.normal(size=groups.size) + rng.normal(size=60)[groups]
    fit = sm.OLS(y, np.ones(y.size)).fit(cov_type="cluster", cov_kwds={"groups": groups},
                                         use_t=True)
    iv = stats.clustered_difference(np.zeros(y.size), y, groups)
    lo, hi = fit.conf_int()[0]
    assert iv.mean == pytest.approx(fit.params[0])
    assert (iv.lo, iv.hi) == pytest.approx((lo, hi), rel=1e-10)


def _coverage(reps: int, games: int, seed: int) -> tuple[float, float]:
    """Coverage of the clustered and the seat-level Wilson interval of a death rate whose
    deaths cluster in games (mean 0.2, intra-game correlation 0.3, 4 seats)."""
    rng = np.random.default_rng(seed)
    good = naive = 0
    for _ in range(reps):
        deaths = clustered_deaths(games, 4, 0.2, 0.3, rng)
        iv = stats.clustered_share(deaths, np.full(games, 4))
        good += iv.lo <= 0.2 <= iv.hi
        nv = stats.wilson(int(deaths.sum()), 4 * games)
        naive += nv.lo <= 0.2 <= nv.hi
    return good / reps, naive / reps


def test_clustered_death_rate_covers_about_95_percent():
    """300 synthetic studies: the games-as-unit interval covers the true 20 % in 91–99 %; the
    seat-level Wilson interval (the old one) falls short."""
    good, naive = _coverage(300, 300, seed=3)
    assert 0.91 <= good <= 0.99
    assert naive < 0.88


@pytest.mark.slow
def test_clustered_death_rate_coverage_calibration():
    good, naive = _coverage(3000, 300, seed=4)
    assert 0.935 <= good <= 0.965 and naive < 0.87


def test_win_rates_cluster_a_policy_at_several_seats():
    """A policy at two seats of a game: its rows are clustered by game (interval from
    ``clustered_share`` of the per-game sums); a policy at one seat keeps the plain Wilson."""
    _, seats = positions_table(300, 4, 0.0, np.random.default_rng(5),
                               policies=["a", "a", "b", "c"])
    w = stats.win_rates(seats, ("policy",)).set_index("policy")
    per = seats[seats["policy"] == "a"].groupby("game_id")["won"].agg(["sum", "size"])
    want = stats.clustered_share(per["sum"], per["size"])
    assert (w.loc["a", "lo"], w.loc["a", "hi"]) == pytest.approx((want.lo, want.hi))
    b = seats[seats["policy"] == "b"]
    plain = stats.wilson(b["won"].sum(), len(b))
    assert (w.loc["b", "lo"], w.loc["b", "hi"]) == (plain.lo, plain.hi)


def test_one_policy_at_every_seat_gets_no_interval(tmp_path):
    """A variant with one policy at every seat wins (1 − q)/n by construction: no interval."""
    games, seats = positions_table(80, 4, 0.25, np.random.default_rng(6))
    mixed_g, mixed_s = positions_table(80, 4, 0.25, np.random.default_rng(7), variant="mixed",
                                       policies=["a", "a", "b", "b"])
    out = sections.results(Doc(tmp_path), pd.concat([games, mixed_g]),
                           pd.concat([seats, mixed_s]))
    rows = {r["variant"]: r for r in out["win_rate_by_policy"] if r["policy"] in ("p", "a")}
    assert rows["base"]["by_construction"] and math.isnan(rows["base"]["lo"])
    assert not rows["mixed"]["by_construction"] and rows["mixed"]["lo"] < rows["mixed"]["rate"]


def test_death_rate_in_scores_table_is_clustered(tmp_path):
    games, seats = positions_table(100, 4, 0.3, np.random.default_rng(8))
    out = sections.results(Doc(tmp_path), games, seats)
    per = seats.groupby("game_id")["died"].agg(["sum", "size"])
    want = stats.clustered_share(per["sum"], per["size"])
    cell = out["scores"][0]["death rate"]
    assert cell == f"{100 * want.estimate:.1f} % [{100 * want.lo:.1f}, {100 * want.hi:.1f}]"


# ------------------------------------------------------------------ item 11: zero counts


def test_zero_deaths_give_wilson_bounds_for_zero_of_the_games():
    """No death in 50 games of 4 seats: [0, z²/(50 + z²)] = [0, 7.1 %] — a game counts once,
    as the seats of a game may share their fate; never [0.0, 0.0]."""
    iv = stats.clustered_share(np.zeros(50), np.full(50, 4))
    assert iv.estimate == 0.0 and iv.lo == 0.0
    assert iv.hi == pytest.approx(Z * Z / (50 + Z * Z))


def test_zero_deaths_in_the_report_are_not_a_zero_width_interval(tmp_path):
    games, seats = positions_table(40, 4, 0.0, np.random.default_rng(9))
    out = sections.results(Doc(tmp_path), games, seats)
    assert out["scores"][0]["death rate"] == f"0.0 % [0.0, {100 * Z * Z / (40 + Z * Z):.1f}]"


def test_a_difference_without_spread_reads_as_such():
    """A paired difference that is the same in every game (e.g. no game without a winner in
    either arm) is exact: it reads '(same in every game)', not '[+0.0, +0.0]'."""
    d = stats.paired_difference(np.zeros(30), np.zeros(30))
    text = signed({"diff": d.mean, "lo": d.lo, "hi": d.hi, "significant": d.significant},
                  100, " pp", 1)
    assert text == "+0.0 pp (same in every game)"


def test_a_share_without_spread_or_interval_never_reads_as_a_zero_width_interval():
    """``pct``: a share whose interval has no width reads '(same in every game)'; a share
    without an interval (nan bounds) is printed alone, not with '[nan, nan]'."""
    from analyzer.report.document import pct

    assert pct(0.5, 0.5, 0.5) == "50.0 % (same in every game)"
    assert pct(0.25, math.nan, math.nan) == "25.0 %"
    assert pct(0.0, 0.0, 0.06) == "0.0 % [0.0, 6.0]"
