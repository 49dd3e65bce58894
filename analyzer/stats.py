"""Game-agnostic statistics over the ``games`` / ``seats`` record tables.

Small pure functions on arrays (``wilson``, ``mean_interval``, ``ratio_interval``,
``paired_difference``) under DataFrame functions whose docstrings list their columns. Nothing
here imports a game. All intervals are two-sided at ``confidence`` (default 0.95).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval ``[lo, hi]``."""

    estimate: float
    lo: float
    hi: float


@dataclass(frozen=True)
class Difference:
    """A paired difference ``variant − base`` over ``n`` games.

    ``significant`` is true when the interval excludes 0 (equivalently ``p_value < 1 −
    confidence``, from a one-sample t-test of the per-game differences).
    """

    mean: float
    lo: float
    hi: float
    n: int
    p_value: float
    significant: bool


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1) (got {confidence})")
    return float(sps.norm.ppf(0.5 + confidence / 2))


def wilson(k: float, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval of a proportion ``k / n``.

    Parameters
    ----------
    k : float
        Successes; may be fractional (a k-way tie for first counts ``1/k`` of a win).
    n : int
        Trials, ``>= 0``; ``n == 0`` gives ``nan`` everywhere.

    References
    ----------
    E. B. Wilson (1927), "Probable inference, the law of succession, and statistical
    inference", JASA 22(158): 209–212.
    """
    if n <= 0:
        return Interval(math.nan, math.nan, math.nan)
    z = _z(confidence)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(x: Sequence[float] | np.ndarray, confidence: float = 0.95) -> Interval:
    """Mean of ``x`` with a Student-t interval (``nan`` bounds for fewer than 2 values)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return Interval(math.nan, math.nan, math.nan)
    m = float(x.mean())
    if n < 2:
        return Interval(m, math.nan, math.nan)
    half = float(sps.t.ppf(0.5 + confidence / 2, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return Interval(m, m - half, m + half)


def ratio_interval(y: Sequence[float] | np.ndarray, x: Sequence[float] | np.ndarray,
                   confidence: float = 0.95) -> Interval:
    """Ratio of sums ``Σy / Σx`` over independent units, with a delta-method interval.

    Used for per-event rates where events cluster in games, e.g. points per action
    (``y`` = points in a game, ``x`` = actions in that game). Variance
    ``Var(r) ≈ s²(y − r·x) / (n·x̄²)`` (Cochran, *Sampling Techniques*, 3rd ed., section 6.4).
    """
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0 or x.sum() == 0:
        return Interval(math.nan, math.nan, math.nan)
    r = float(y.sum() / x.sum())
    if n < 2:
        return Interval(r, math.nan, math.nan)
    se = float(np.std(y - r * x, ddof=1) / (math.sqrt(n) * x.mean()))
    z = _z(confidence)
    return Interval(r, r - z * se, r + z * se)


def paired_difference(base: Sequence[float] | np.ndarray, variant: Sequence[float] | np.ndarray,
                      confidence: float = 0.95) -> Difference:
    """Mean of the per-game differences ``variant − base`` with a t interval.

    Parameters
    ----------
    base, variant : array_like, shape (n_games,)
        The same games (same seeds) in the same order.
    """
    d = np.asarray(variant, dtype=float) - np.asarray(base, dtype=float)
    iv = mean_interval(d, confidence)
    n = int(d.size)
    if n < 2:
        return Difference(iv.estimate, iv.lo, iv.hi, n, math.nan, False)
    if np.all(d == d[0]):  # no spread: the difference is exact
        return Difference(iv.estimate, iv.estimate, iv.estimate, n, 0.0 if d[0] else 1.0, bool(d[0]))
    p = float(sps.ttest_1samp(d, 0.0).pvalue)
    return Difference(iv.estimate, iv.lo, iv.hi, n, p, bool(iv.lo > 0 or iv.hi < 0))


def win_rates(seats: pd.DataFrame, by: Sequence[str] = ("policy",),
              confidence: float = 0.95) -> pd.DataFrame:
    """Win rate per group with Wilson intervals.

    Parameters
    ----------
    seats : DataFrame
        Seat records with ``won`` (1/k for a k-way tie) and the ``by`` columns.

    Returns
    -------
    DataFrame
        Columns ``[*by, n, wins, rate, lo, hi]``; ``n`` = seat-games, ``wins`` = Σ won.
    """
    g = seats.groupby(list(by), sort=True, observed=True)["won"].agg(["size", "sum"]).reset_index()
    g = g.rename(columns={"size": "n", "sum": "wins"})
    ivs = [wilson(k, n, confidence) for k, n in zip(g["wins"], g["n"])]
    g["rate"] = [iv.estimate for iv in ivs]
    g["lo"] = [iv.lo for iv in ivs]
    g["hi"] = [iv.hi for iv in ivs]
    return g


def mean_values(seats: pd.DataFrame, by: Sequence[str] = ("policy",), metric: str = "score",
                confidence: float = 0.95) -> pd.DataFrame:
    """Mean of ``metric`` per group with t intervals.

    Returns
    -------
    DataFrame
        Columns ``[*by, n, mean, lo, hi]``.
    """
    rows = []
    for key, grp in seats.groupby(list(by), sort=True, observed=True)[metric]:
        iv = mean_interval(grp.to_numpy(), confidence)
        key = key if isinstance(key, tuple) else (key,)
        rows.append((*key, len(grp), iv.estimate, iv.lo, iv.hi))
    return pd.DataFrame(rows, columns=[*by, "n", "mean", "lo", "hi"])


def seat_order(seats: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Win rate and mean score per turn-order position (the seat-order effect).

    Seats are grouped by ``start_position`` (0 = the start player, who is drawn at random in
    some games) when the records have that column, else by ``seat``.

    Returns
    -------
    DataFrame
        Columns ``[position, n, wins, rate, lo, hi, score, score_lo, score_hi]``.
    """
    key = "start_position" if "start_position" in seats.columns else "seat"
    w = win_rates(seats, (key,), confidence)
    m = mean_values(seats, (key,), "score", confidence).rename(
        columns={"mean": "score", "lo": "score_lo", "hi": "score_hi"}).drop(columns="n")
    return w.merge(m, on=key).rename(columns={key: "position"})


DIFFERENCE_COLUMNS = ("n", "base_mean", "variant_mean", "diff", "lo", "hi", "p_value",
                      "significant")


def variant_differences(seats: pd.DataFrame, metric: str = "won", by: Sequence[str] = ("seat",),
                        base: str = "base", confidence: float = 0.95) -> pd.DataFrame:
    """Paired per-game differences of ``metric`` between each variant and the base.

    For every group of ``by`` (e.g. each seat), the per-game value is the mean of ``metric`` over
    the group's rows in that game; variant and base are matched on ``game_id`` (same seed).
    ``pair_differences`` does one variant (for callers that hold one variant's rows at a time).

    Returns
    -------
    DataFrame
        Columns ``[variant, *by, n, base_mean, variant_mean, diff, lo, hi, p_value,
        significant]``; empty when there is no variant.
    """
    names = list(pd.unique(seats["variant"]))
    if base not in names:
        return pd.DataFrame(columns=["variant", *by, *DIFFERENCE_COLUMNS])
    base_rows = seats[seats["variant"] == base]
    parts = [pair_differences(base_rows, seats[seats["variant"] == var], var, metric, by,
                              confidence)
             for var in names if var != base]
    if not parts:
        return pd.DataFrame(columns=["variant", *by, *DIFFERENCE_COLUMNS])
    return pd.concat(parts, ignore_index=True)


def pair_differences(base: pd.DataFrame, variant: pd.DataFrame, name: str, metric: str = "won",
                     by: Sequence[str] = ("seat",), confidence: float = 0.95) -> pd.DataFrame:
    """``variant_differences`` of one variant: ``variant`` rows against ``base`` rows.

    Parameters
    ----------
    base, variant : DataFrame
        The seat rows of the base and of the variant: ``game_id``, the ``by`` columns and
        ``metric``.
    name : str
        The variant's name (the ``variant`` column of the result).

    Returns
    -------
    DataFrame
        One row per ``by`` group present in both with a shared game, groups sorted:
        ``[variant, *by, n, base_mean, variant_mean, diff, lo, hi, p_value, significant]``.
    """
    b = _per_game_means(base, metric, by)
    rows = []
    for key, v in _per_game_means(variant, metric, by).items():
        if key not in b:
            continue
        joined = pd.concat([b[key].rename("b"), v.rename("v")], axis=1, join="inner")
        if joined.empty:
            continue
        d = paired_difference(joined["b"].to_numpy(), joined["v"].to_numpy(), confidence)
        rows.append((name, *key, d.n, joined["b"].mean(), joined["v"].mean(), d.mean, d.lo, d.hi,
                     d.p_value, d.significant))
    return pd.DataFrame(rows, columns=["variant", *by, *DIFFERENCE_COLUMNS])


def _per_game_means(rows: pd.DataFrame, metric: str, by: Sequence[str]) -> dict[tuple, pd.Series]:
    """Per ``by`` group (key a tuple, groups sorted), the mean of ``metric`` per game: a Series
    indexed by ``game_id``, ascending. One group's rows are selected at a time (a mask), so the
    working set is one group, not a sorted copy of ``rows``."""
    if not by:
        return {(): rows.groupby("game_id")[metric].mean()}
    keys = sorted(rows[list(by)].dropna().drop_duplicates().itertuples(index=False, name=None))
    out = {}
    for key in keys:
        mask = np.logical_and.reduce([(rows[c] == k).to_numpy() for c, k in zip(by, key)])
        out[key] = rows.loc[mask, ["game_id", metric]].groupby("game_id")[metric].mean()
    return out


def distribution(values: pd.Series, max_categories: int = 12) -> pd.DataFrame:
    """Share of each value of a discrete series (counts, share, Wilson interval).

    Returns
    -------
    DataFrame
        Columns ``[value, count, share, lo, hi]`` sorted by value.
    """
    counts = values.value_counts().sort_index()
    n = int(counts.sum())
    counts = counts.iloc[:max_categories]
    rows = []
    for value, c in counts.items():
        iv = wilson(int(c), n)
        rows.append((value, int(c), iv.estimate, iv.lo, iv.hi))
    return pd.DataFrame(rows, columns=["value", "count", "share", "lo", "hi"])


def summary(values: pd.Series | np.ndarray) -> dict[str, float]:
    """Mean, sd, min, 10/50/90 % quantiles and max of a numeric sample."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return {k: math.nan for k in ("mean", "sd", "min", "p10", "p50", "p90", "max")}
    q = np.quantile(x, [0.1, 0.5, 0.9])
    return {"mean": float(x.mean()), "sd": float(x.std(ddof=1)) if x.size > 1 else math.nan,
            "min": float(x.min()), "p10": float(q[0]), "p50": float(q[1]), "p90": float(q[2]),
            "max": float(x.max())}


def winners_without(seats: pd.DataFrame, points: str, tiebreak: str | None = "tiebreak") -> pd.Series:
    """Per game: does removing column ``points`` from the score change the set of winners?

    Winners are recomputed from ``score − points`` (then ``tiebreak``, higher better, when that
    column exists) and compared with the recorded winners (``won > 0``).

    Returns
    -------
    Series of bool
        Indexed by ``(variant, game_id)``.
    """
    keys = [seats["variant"], seats["game_id"]]
    alt = seats["score"] - seats[points]
    top = alt == alt.groupby(keys, observed=True).transform("max")
    if tiebreak and tiebreak in seats:
        # among seats tied on the reduced score, only the best tie-break key wins
        tb = seats[tiebreak].where(top)
        top = top & (seats[tiebreak] == tb.groupby(keys, observed=True).transform("max"))
    return (top != (seats["won"] > 0)).groupby(keys, observed=True).any()


def adjust_pvalues(p_values: Sequence[float] | np.ndarray, method: str = "holm",
                   alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Correct a family of p-values for many comparisons (a ranked table's rows).

    Parameters
    ----------
    p_values : array_like, shape (m,)
        One p-value per comparison; ``nan`` entries are kept out of the family and stay
        ``nan`` / not significant.
    method : {"holm", "bh"}
        Holm's step-down family-wise correction, or Benjamini–Hochberg false-discovery rate.
    alpha : float
        Family-wise error rate (Holm) or false-discovery rate (BH), 0–1.

    Returns
    -------
    (ndarray of float, ndarray of bool), each shape (m,)
        Adjusted p-values and whether each comparison is significant after correction.

    Raises
    ------
    ValueError
        ``method`` is not one of the two above.

    References
    ----------
    Holm, S. (1979), Scand. J. Statist. 6:65–70; Benjamini, Y. & Hochberg, Y. (1995),
    JRSS B 57:289–300. Computed by ``statsmodels.stats.multitest.multipletests``.
    """
    from statsmodels.stats.multitest import multipletests

    methods = {"holm": "holm", "bh": "fdr_bh"}
    if method not in methods:
        raise ValueError(f"method must be one of {sorted(methods)} (got {method!r})")
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    significant = np.zeros(p.shape, dtype=bool)
    ok = ~np.isnan(p)
    if ok.any():
        reject, adj, _, _ = multipletests(p[ok], alpha=alpha, method=methods[method])
        adjusted[ok] = adj
        significant[ok] = reject
    return adjusted, significant
