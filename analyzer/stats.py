"""Game-agnostic statistics over the ``games`` / ``seats`` record tables.

Small pure functions on arrays (``wilson``, ``mean_interval``, ``ratio_interval``,
``clustered_share``, ``paired_difference``, ``bca_interval``) under DataFrame
functions whose docstrings list their columns. Nothing here imports a game. All intervals are
two-sided at ``confidence`` (default 0.95).

The unit of every interval is the game when several records share a game: seats of one game are
not independent (their deaths cluster, their win shares add up to at most 1), games are.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import astuple, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps
from scipy.optimize import brentq

# below this many games no interval is given ("too few games to estimate"): a t or Wilson
# interval of a per-game share over fewer games covers badly and can reach past the possible
# range (5 games: a win-rate difference of +0.0 pp [−124.2, +124.2])
MIN_GAMES = 20
# the possible range of a per-game difference of two shares (win shares, 0/1 outcomes):
# the ``bounds`` of a paired difference of shares (see ``no_spread``)
SHARE_DIFFERENCE = (-1.0, 1.0)


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


@functools.lru_cache(maxsize=256)
def _z(confidence: float) -> float:
    """The normal quantile of a two-sided ``confidence`` interval, once per level."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1) (got {confidence})")
    return float(sps.norm.ppf(0.5 + confidence / 2))


Z95 = _z(0.95)  # the normal 97.5 % quantile (two-sided 95 %)


@functools.lru_cache(maxsize=4096)
def _t_ppf(q: float, df: int) -> float:
    """``scipy.stats.t.ppf(q, df)``, once per ``(q, df)`` (the report asks for a few, often)."""
    return float(sps.t.ppf(q, df))


def _bounds(d: float, se: float, confidence: float, df: int | None = None
            ) -> tuple[float, float, float]:
    """``d ± q·se`` and the two-sided p-value of ``d = 0``, ``q`` and the test Student's t on
    ``df`` degrees of freedom (normal when ``None``); exact (``lo == hi``, p 0 or 1) when ``se``
    is 0."""
    q = _z(confidence) if df is None else _t_ppf(0.5 + confidence / 2, df)
    if se == 0:
        return d, d, (0.0 if d else 1.0)
    x, half = abs(d) / se, q * se
    return d - half, d + half, float(2 * (sps.norm.sf(x) if df is None else sps.t.sf(x, df)))


def wilson(k: float, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval of a proportion ``k / n`` (statsmodels ``proportion_confint``).

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
    from statsmodels.stats.proportion import proportion_confint  # slow import, as below

    _z(confidence)  # refuses a confidence outside (0, 1)
    if n <= 0:
        return Interval(math.nan, math.nan, math.nan)
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    lo = 0.0 if k <= 0 else max(0.0, float(lo))  # exact bounds at 0 and n, no rounding
    hi = 1.0 if k >= n else min(1.0, float(hi))
    return Interval(k / n, lo, hi)


def mean_interval(x: Sequence[float] | np.ndarray, confidence: float = 0.95) -> Interval:
    """Mean of ``x`` with a Student-t interval (``scipy.stats.ttest_1samp``; ``nan`` bounds for
    fewer than 2 values)."""
    x = np.asarray(x, dtype=float)
    n = x.size
    if n == 0:
        return Interval(math.nan, math.nan, math.nan)
    m = float(x.mean())
    if n < 2:
        return Interval(m, math.nan, math.nan)
    with warnings.catch_warnings():  # nearly equal values: scipy warns, the interval is right
        warnings.simplefilter("ignore", RuntimeWarning)
        ci = sps.ttest_1samp(x, 0.0).confidence_interval(confidence)
    return Interval(m, float(ci.low), float(ci.high))


def ratio_interval(y: Sequence[float] | np.ndarray, x: Sequence[float] | np.ndarray,
                   confidence: float = 0.95) -> Interval:
    """Ratio of sums ``Σy / Σx`` over independent units, with a delta-method interval.

    Used for per-event rates where events cluster in games, e.g. points per action
    (``y`` = points in a game, ``x`` = actions in that game). Variance
    ``Var(r) ≈ s²(y − r·x) / (n·x̄²)`` (Cochran, *Sampling Techniques*, 3rd ed., section 6.4).
    """
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    if x.size == 0 or x.sum() == 0:
        return Interval(math.nan, math.nan, math.nan)
    r, se = _ratio_se(y, x)  # se nan for one unit: nan bounds
    return Interval(r, *_bounds(r, se, confidence)[:2])


def _ratio_se(y: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """``Σy / Σx`` and its delta-method standard error over the units (``nan`` for one unit).

    This is the cluster-robust (sandwich) standard error of a mean over rows grouped in units
    (``y`` = the unit's row sum, ``x`` = its row count), with the ``n / (n − 1)`` factor of the
    sample variance. Assumes ``Σx > 0``.
    """
    r = float(y.sum() / x.sum())
    if x.size < 2:
        return r, math.nan
    return r, float(np.std(y - r * x, ddof=1) / (math.sqrt(x.size) * x.mean()))


def clustered_share(events: Sequence[float] | np.ndarray, trials: Sequence[float] | np.ndarray,
                    confidence: float = 0.95) -> Interval:
    """Share ``Σevents / Σtrials`` of trials grouped in games, with a Wilson interval at the
    effective sample size.

    The design effect ``deff`` is the ratio estimator's cluster-robust variance (``_ratio_se``,
    games as units) over the binomial ``p(1 − p)/N``; the interval is Wilson's at ``N / deff``
    trials (Kish, *Survey Sampling*, 1965, section 8.2), ``deff`` floored at 1 (Korn & Graubard
    1998, *Survey Methodology* 24:193–201). A share of 0 or 1 counts each game as one trial.

    Parameters
    ----------
    events, trials : array_like, shape (games,)
        Per game: the events (e.g. deaths, or win shares, 1/k for a k-way tie) and the trials
        (e.g. the game's seats of one group); games without trials are left out.

    Returns
    -------
    Interval
        ``nan`` everywhere when no game has a trial.
    """
    e = np.asarray(events, dtype=float)
    t = np.asarray(trials, dtype=float)
    keep = t > 0
    e, t = e[keep], t[keep]
    games = int(t.size)
    if games == 0:
        return Interval(math.nan, math.nan, math.nan)
    n = float(t.sum())
    p, se = _ratio_se(e, t)
    if p <= 0.0 or p >= 1.0:
        n_eff = float(games)
    elif games < 2 or not se > 0:
        n_eff = n
    else:
        n_eff = min(n, p * (1 - p) / (se * se))
    iv = wilson(p * n_eff, n_eff, confidence)
    return Interval(p, iv.lo, iv.hi)


def _cluster_sums(x: np.ndarray, clusters: Sequence | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster (sorted): the sum of ``x`` over its rows and its row count."""
    _, codes = np.unique(np.asarray(clusters), return_inverse=True)
    return np.bincount(codes, weights=x), np.bincount(codes).astype(float)


def no_spread(value: float, n: int, low: float, high: float, confidence: float = 0.95
              ) -> tuple[float, float, float]:
    """Interval and p-value of a mean of ``n`` per-game values that all equal ``value``, each
    game's value bounded in ``[low, high]``.

    No spread is no evidence of an exact mean: a rare outcome (a game without a winner, a
    policy's first win) may simply not have happened in ``n`` games. The share ``δ`` of games
    whose value differs from ``value`` is bounded by Wilson's interval of ``0`` of ``n``
    (``[0, u]``, ``u = z² / (n + z²)``); the mean then lies in
    ``[value − u · (value − low), value + u · (high − value)]``. The p-value (no-effect value 0)
    is the score test of ``0`` of ``n`` against the least ``δ₀`` that would give a mean of 0
    (the test Wilson's interval inverts, so that the interval excludes 0 exactly when
    ``p < 1 − confidence``); 1 when ``value`` is 0.

    Parameters
    ----------
    value : float
        The common per-game value, in ``[low, high]``.
    n : int
        Games, ``>= 1``.
    low, high : float
        The possible range of one game's value (e.g. ``(−1, 1)`` for a difference of shares).

    Returns
    -------
    (lo, hi, p_value)
    """
    u = wilson(0.0, n, confidence).hi
    lo, hi = value - u * max(value - low, 0.0), value + u * max(high - value, 0.0)
    if value == 0:
        return lo, hi, 1.0
    room = (value - low) if value > 0 else (high - value)  # how far the other games can pull
    share = abs(value) / room if room > 0 else math.inf  # the least δ₀ giving a mean of 0
    if share >= 1:
        return lo, hi, 0.0
    z = math.sqrt(n * share / (1 - share))
    return lo, hi, float(min(1.0, 2 * sps.norm.sf(z)))


def paired_difference(base: Sequence[float] | np.ndarray, variant: Sequence[float] | np.ndarray,
                      confidence: float = 0.95, bounds: tuple[float, float] | None = None
                      ) -> Difference:
    """Mean of the per-game differences ``variant − base`` with a t interval.

    Parameters
    ----------
    base, variant : array_like, shape (n_games,)
        The same games (same seeds) in the same order.
    bounds : (float, float), optional
        The possible range of one game's difference (``(−1, 1)`` for a difference of shares).
        When every game's difference is the same, the interval is ``no_spread``'s over this
        range (a rare outcome that did not happen is not ruled out); without ``bounds`` such a
        difference is exact (``lo == hi``, p-value 0 or 1).
    """
    d = np.asarray(variant, dtype=float) - np.asarray(base, dtype=float)
    iv = mean_interval(d, confidence)
    n = int(d.size)
    if n < 2:
        return Difference(iv.estimate, iv.lo, iv.hi, n, math.nan, False)
    if np.all(d == d[0]):  # no spread
        return _no_spread_difference(float(iv.estimate), n, bounds, confidence)
    p = float(sps.ttest_1samp(d, 0.0).pvalue)
    return Difference(iv.estimate, iv.lo, iv.hi, n, p, bool(iv.lo > 0 or iv.hi < 0))


def _no_spread_difference(m: float, n: int, bounds: tuple[float, float] | None,
                          confidence: float) -> Difference:
    """A difference whose games all agree: ``no_spread`` over ``bounds``, else exact."""
    if bounds is None:
        return Difference(m, m, m, n, 0.0 if m else 1.0, bool(m))
    lo, hi, p = no_spread(m, n, bounds[0], bounds[1], confidence)
    return Difference(m, lo, hi, n, p, bool(lo > 0 or hi < 0))


def unpaired_difference(base: Sequence[float] | np.ndarray, variant: Sequence[float] | np.ndarray,
                        confidence: float = 0.95, bounds: tuple[float, float] | None = None
                        ) -> Difference:
    """Difference of means ``variant − base`` of two independent samples, Welch's t interval.

    For arms whose games share no game seed (arms of different player counts that do are
    paired by seed instead: ``report.players.seed_difference``). ``n`` is the effective number
    of games ``n_b · n_v / (n_b + n_v)``, rounded down, so that ``mean / (se · √n)`` is the
    standardized difference (Cohen's d) as for a paired one. Welch, B. L. (1947), Biometrika
    34:28–35; computed by ``scipy.stats.ttest_ind(equal_var=False)``.

    Parameters
    ----------
    base, variant : array_like
        Per-game values of each arm (``nan`` dropped); at least 2 each, else ``nan`` bounds.
    bounds : (float, float), optional
        The possible range of one game's value (``(0, 1)`` for a share). When neither arm has
        spread, each arm's mean gets ``no_spread``'s interval at ``(1 + confidence) / 2`` and the
        difference their widest difference (Bonferroni over the two arms); without ``bounds``
        the difference is exact.
    """
    b = np.asarray(base, dtype=float)
    v = np.asarray(variant, dtype=float)
    b, v = b[~np.isnan(b)], v[~np.isnan(v)]
    n = int(len(b) * len(v) / (len(b) + len(v))) if len(b) and len(v) else 0
    mean = float(v.mean() - b.mean()) if len(b) and len(v) else math.nan
    if len(b) < 2 or len(v) < 2:
        return Difference(mean, math.nan, math.nan, n, math.nan, False)
    if np.all(b == b[0]) and np.all(v == v[0]):  # no spread in either arm
        if bounds is None:
            return Difference(mean, mean, mean, n, 0.0 if mean else 1.0, bool(mean))
        lo, hi = _no_spread_arms(float(b[0]), len(b), float(v[0]), len(v), bounds, confidence)

        def edge(log_alpha: float) -> float:  # the bound nearer 0 at confidence 1 − α
            lo_a, hi_a = _no_spread_arms(float(b[0]), len(b), float(v[0]), len(v), bounds,
                                         1 - math.exp(log_alpha))
            return lo_a if mean > 0 else -hi_a

        # the p-value: the α at which the interval reaches 0 (the test it inverts)
        tiny = math.log(1e-15)  # below it the confidence level rounds to 1
        p = (1.0 if mean == 0 else 1e-15 if edge(tiny) > 0 else
             float(math.exp(brentq(edge, tiny, -1e-12))))
        return Difference(mean, lo, hi, n, p, bool(lo > 0 or hi < 0))
    t = sps.ttest_ind(v, b, equal_var=False)
    ci = t.confidence_interval(confidence)
    lo, hi = float(ci.low), float(ci.high)
    return Difference(mean, lo, hi, n, float(t.pvalue), bool(lo > 0 or hi < 0))


def _no_spread_arms(b: float, n_b: int, v: float, n_v: int, bounds: tuple[float, float],
                    confidence: float) -> tuple[float, float]:
    """``v − b`` of two arms without spread: each arm's ``no_spread`` interval at
    ``(1 + confidence) / 2``, their widest difference."""
    each = (1 + confidence) / 2
    b_lo, b_hi, _ = no_spread(b, n_b, bounds[0], bounds[1], each)
    v_lo, v_hi, _ = no_spread(v, n_v, bounds[0], bounds[1], each)
    return v_lo - b_hi, v_hi - b_lo


def clustered_difference(base: Sequence[float] | np.ndarray, variant: Sequence[float] | np.ndarray,
                         clusters: Sequence | np.ndarray, confidence: float = 0.95,
                         bounds: tuple[float, float] | None = None) -> Difference:
    """Mean of the paired differences ``variant − base`` of rows grouped in clusters (games).

    Like ``paired_difference``, but the rows (e.g. several seats of one game followed into the
    same game of a variant) are not independent within a cluster: the interval is
    cluster-robust (the standard error ``ratio_interval``'s over the clusters, the sandwich
    standard error of a mean; t with ``clusters − 1`` degrees of freedom) and the p-value the
    matching two-sided t-test. With one row per cluster it equals
    ``paired_difference``. ``bounds``: as for ``paired_difference`` (a difference the same in
    every row is ``no_spread``'s over the clusters).
    """
    d = np.asarray(variant, dtype=float) - np.asarray(base, dtype=float)
    n = int(d.size)
    sums, counts = _cluster_sums(d, clusters)
    m = float(d.mean()) if n else math.nan
    if counts.size < 2:
        return Difference(m, math.nan, math.nan, n, math.nan, False)
    if np.all(d == d[0]):  # no spread: over the clusters, the unit
        return replace(_no_spread_difference(m, int(counts.size), bounds, confidence), n=n)
    lo, hi, p = _bounds(m, _ratio_se(sums, counts)[1], confidence, counts.size - 1)
    return Difference(m, lo, hi, n, p, bool(lo > 0 or hi < 0))


def win_rates(seats: pd.DataFrame, by: Sequence[str] = ("policy",),
              confidence: float = 0.95) -> pd.DataFrame:
    """Win rate per group with Wilson intervals, games as the unit.

    A group with one row per game (a seat, a start position) gets the plain Wilson interval
    over its games. A group with several rows in some game (a policy at two seats) gets
    ``clustered_share``'s interval over games: its seats' win shares in one game are not
    independent.

    Parameters
    ----------
    seats : DataFrame
        Seat records with ``won`` (1/k for a k-way tie), the ``by`` columns and, for the
        clustering, ``game_id`` (without it every row counts as independent).

    Returns
    -------
    DataFrame
        Columns ``[*by, n, wins, rate, lo, hi]``; ``n`` = seat-games, ``wins`` = Σ won.
    """
    g = seats.groupby(list(by), sort=True, observed=True)["won"].agg(["size", "sum"]).reset_index()
    g = g.rename(columns={"size": "n", "sum": "wins"})
    ivs = [wilson(k, n, confidence) for k, n in zip(g["wins"], g["n"])]
    for i, (sums, sizes) in _clustered_groups(seats, by, "won", g):
        ivs[i] = replace(clustered_share(sums, sizes, confidence), estimate=ivs[i].estimate)
    g["rate"] = [iv.estimate for iv in ivs]
    g["lo"] = [iv.lo for iv in ivs]
    g["hi"] = [iv.hi for iv in ivs]
    return g


def _clustered_groups(rows: pd.DataFrame, by: Sequence[str], column: str, groups: pd.DataFrame):
    """For each row ``i`` of ``groups`` (the sorted groups of ``rows`` by ``by``) whose group
    has several rows in some game: ``(i, (per-game sums, per-game row counts))`` of ``column``.
    Nothing without a ``game_id`` column."""
    if "game_id" not in rows:
        return
    if not rows.duplicated(subset=[*by, "game_id"]).any():  # one row per game in every group
        return
    grouped = rows.groupby([*by, "game_id"], sort=True, observed=True)[column]
    sums, sizes = grouped.sum(), grouped.size()
    index = {k: i for i, k in enumerate(groups[list(by)].itertuples(index=False, name=None))}
    sum_values, size_values = sums.to_numpy(float), sizes.to_numpy(float)
    for key, start, stop in _group_slices(sums.index, len(by)):
        if size_values[start:stop].max() > 1:
            yield index[key], (sum_values[start:stop], size_values[start:stop])


def _group_slices(index: pd.MultiIndex, n: int) -> Iterator[tuple[tuple, int, int]]:
    """The groups of a sorted grouped result's ``index`` by its first ``n`` levels, in order:
    ``(key, start, stop)``, the key's values as plain Python scalars (as ``groupby(level=...)``
    names them), the group's rows ``start:stop``. Each group's rows are contiguous: the index
    is sorted. Slicing replaces a second groupby over the levels."""
    if len(index) == 0:
        return
    codes = [np.asarray(c) for c in index.codes[:n]]
    change = np.zeros(len(index), dtype=bool)
    change[0] = True
    for c in codes:
        change[1:] |= c[1:] != c[:-1]
    starts = np.flatnonzero(change)
    stops = np.append(starts[1:], len(index))
    levels = index.levels[:n]
    for start, stop in zip(starts.tolist(), stops.tolist()):
        key = tuple(_plain(level[c[start]]) for level, c in zip(levels, codes))
        yield key, start, stop


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python scalar it holds (``groupby`` keys are such)."""
    return value.item() if isinstance(value, np.generic) else value


def mean_values(seats: pd.DataFrame, by: Sequence[str] = ("policy",), metric: str = "score",
                confidence: float = 0.95) -> pd.DataFrame:
    """Mean of ``metric`` per group with t intervals, games as the unit.

    A group with several rows in some game (a policy at two seats) gets ``clustered_difference``'s
    cluster-robust interval over games (needs ``game_id``); one row per game, the plain t
    interval.

    Returns
    -------
    DataFrame
        Columns ``[*by, n, mean, lo, hi]``.
    """
    rows = []
    for key, grp in seats.groupby(list(by), sort=True, observed=True)[metric]:
        iv = mean_interval(grp.to_numpy(), confidence)  # key: a tuple (grouped by a list)
        rows.append([*key, len(grp), iv.estimate, iv.lo, iv.hi])
    out = pd.DataFrame(rows, columns=[*by, "n", "mean", "lo", "hi"])
    for i, (sums, sizes) in _clustered_groups(seats, by, metric, out):
        se = _ratio_se(sums, sizes)[1]
        out.loc[i, ["lo", "hi"]] = _bounds(out.at[i, "mean"], se, confidence, sizes.size - 1)[:2]
    return out


HALF_WIDTH_COVERS = ("by variant and policy (variants with several policies)",
                     "by variant and seat", "by variant and start position")


def max_win_rate_half_width(seats: pd.DataFrame) -> float:
    """Widest half-width ``(hi − lo) / 2`` of the 95% ``win_rates`` intervals the report lists
    (``HALF_WIDTH_COVERS``): by ``(variant, policy)`` in variants with several policies (one
    policy at every seat wins ``(1 − q)/n`` by construction and gets no interval), by
    ``(variant, seat)`` and by ``(variant, start_position)`` (when the records have it).

    Parameters
    ----------
    seats : DataFrame
        Seat records: ``variant, game_id, policy, seat, won`` and optionally
        ``start_position``.

    Returns
    -------
    float
        ``nan`` for no rows.
    """
    widths = []
    mixed = seats.groupby("variant", observed=True)["policy"].nunique()
    mixed_rows = seats[seats["variant"].isin(list(mixed.index[mixed > 1]))]
    groupings = [(mixed_rows, ("variant", "policy")), (seats, ("variant", "seat"))]
    if "start_position" in seats:
        groupings.append((seats, ("variant", "start_position")))
    for rows, by in groupings:
        if len(rows):
            w = win_rates(rows, by)
            widths.append(float(((w["hi"] - w["lo"]) / 2).max()))
    return max(widths) if widths else math.nan


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
                      "significant", "mirror_of")


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
        significant, mirror_of]``; empty when there is no variant.
    """
    names = list(pd.unique(seats["variant"]))
    base_rows = seats[seats["variant"] == base]
    parts = [pair_differences(base_rows, seats[seats["variant"] == var], var, metric, by,
                              confidence)
             for var in names if var != base and base in names]
    if not parts:
        return pd.DataFrame(columns=["variant", *by, *DIFFERENCE_COLUMNS])
    return pd.concat(parts, ignore_index=True)


def pair_differences(base: pd.DataFrame, variant: pd.DataFrame, name: str, metric: str = "won",
                     by: Sequence[str] = ("seat",), confidence: float = 0.95,
                     prefer: Collection[tuple] = ()) -> pd.DataFrame:
    """``variant_differences`` of one variant: ``variant`` rows against ``base`` rows.

    Parameters
    ----------
    base, variant : DataFrame
        The seat rows of the base and of the variant: ``game_id``, the ``by`` columns and
        ``metric``.
    name : str
        The variant's name (the ``variant`` column of the result).
    prefer : collection of tuple
        Groups (``by`` keys) to keep as the tested one when two groups' changes are the same
        test (see ``mirror_of``); e.g. the player a sweep changes.

    Returns
    -------
    DataFrame
        One row per ``by`` group present in both with a shared game, groups sorted:
        ``[variant, *by, n, base_mean, variant_mean, diff, lo, hi, p_value, significant,
        mirror_of]``. ``base_mean`` is the base value of the same rows in the same games the
        change is measured on. ``mirror_of`` is ``None``, or the ``by`` label (a tuple when
        ``by`` has several columns) of an earlier group whose per-game differences are an exact
        multiple of this group's in every game (e.g. the other seats' share of a win a seat
        gains): the same test, counted once by ``correct``.
    """
    b = _per_game_means(base, metric, by)
    rows, diffs = [], {}
    for key, v in _per_game_means(variant, metric, by).items():
        if key not in b:
            continue
        if b[key].index.equals(v.index):  # the same games in the same order: no join
            jb, jv = b[key], v
        else:
            joined = pd.concat([b[key].rename("b"), v.rename("v")], axis=1, join="inner")
            jb, jv = joined["b"], joined["v"]
        if jb.empty:
            continue
        d = paired_difference(jb.to_numpy(), jv.to_numpy(), confidence,
                              SHARE_DIFFERENCE if metric == "won" else None)
        diffs[key] = jv - jb
        lo, hi = (d.lo, d.hi) if metric != "won" else clip_interval(d.lo, d.hi, -1.0, 1.0)
        rows.append([name, *key, d.n, jb.mean(), jv.mean(), d.mean, lo, hi,
                     d.p_value, d.significant, None])
    mirror = mirrors(diffs, prefer)
    for row, key in zip(rows, diffs):
        twin = mirror[key]
        row[-1] = None if twin is None else (twin[0] if len(twin) == 1 else twin)
    return pd.DataFrame(rows, columns=["variant", *by, *DIFFERENCE_COLUMNS])


def mirrors(diffs: Mapping[tuple, pd.Series], prefer: Collection[tuple] = ()) -> dict:
    """Which per-game difference series repeat an earlier one: the same test twice.

    Two series over the same games repeat each other when one is an exact multiple of the other
    (absolute correlation 1 within 1e-9, both not constant), e.g. two seats of a two-seat game
    (one's win is the other's loss) or the unswept seats of a sweep against the swept one when
    every game has a winner. Keys in ``prefer`` come first, then the rest in the given order.

    Returns
    -------
    dict
        ``key → None`` (a distinct test) or ``key → the earlier key it repeats``.
    """
    order = [k for k in diffs if k in prefer] + [k for k in diffs if k not in prefer]
    kept: list[tuple] = []
    out: dict = {}
    for key in order:
        d = diffs[key]
        out[key] = next((k for k in kept if _same_test(d, diffs[k])), None)
        if out[key] is None:
            kept.append(key)
    return out


def _same_test(a: pd.Series, b: pd.Series) -> bool:
    """``a`` and ``b`` cover the same games and one is an exact multiple of the other."""
    if len(a) != len(b) or len(a) < 3 or not a.index.equals(b.index):
        return False
    x, y = a.to_numpy(float), b.to_numpy(float)
    if not (np.std(x) > 0 and np.std(y) > 0):
        return False
    return bool(abs(np.corrcoef(x, y)[0, 1]) > 1 - 1e-9)


def _per_game_means(rows: pd.DataFrame, metric: str, by: Sequence[str]) -> dict[tuple, pd.Series]:
    """Per ``by`` group (key a tuple, groups sorted), the mean of ``metric`` per game: a Series
    indexed by ``game_id``, ascending. One grouped mean over ``by`` and ``game_id`` (each
    group's sum runs over its rows in their order, as a mean of that group alone does), then
    split by group."""
    if not by:
        return {(): rows.groupby("game_id")[metric].mean()}
    means = rows.groupby([*by, "game_id"], sort=True, observed=True)[metric].mean()
    parts = {key: means.iloc[start:stop].droplevel(list(by))
             for key, start, stop in _group_slices(means.index, len(by))}
    return {key: parts[key] for key in sorted(parts)}


def distribution(values: pd.Series, max_categories: int = 12) -> pd.DataFrame:
    """Share of each value of a discrete series (counts, share, Wilson interval).

    Returns
    -------
    DataFrame
        Columns ``[value, count, share, lo, hi]`` sorted by value.
    """
    counts = values.value_counts().sort_index()
    n = int(counts.sum())
    rows = [(value, int(c), *astuple(wilson(int(c), n))) for value, c in
            counts.iloc[:max_categories].items()]
    return pd.DataFrame(rows, columns=["value", "count", "share", "lo", "hi"])


def summary(values: pd.Series | np.ndarray) -> dict[str, float]:
    """Mean, sd, min, 10/50/90 % quantiles and max of a numeric sample (pandas ``describe``;
    ``nan`` where undefined: all of them for no values, ``sd`` for one)."""
    d = pd.Series(np.asarray(values, dtype=float)).describe(percentiles=[0.1, 0.5, 0.9])
    return {k: float(d[c]) for k, c in zip(("mean", "sd", "min", "p10", "p50", "p90", "max"),
                                          ("mean", "std", "min", "10%", "50%", "90%", "max"))}


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
        if method == "holm":  # statsmodels' Holm runs gc.collect() on every call (~0.1–1 s)
            adj, reject = _holm(p[ok], alpha)
        else:
            reject, adj, _, _ = multipletests(p[ok], alpha=alpha, method=methods[method])
        adjusted[ok] = adj
        significant[ok] = reject
    return adjusted, significant


def _holm(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Holm's step-down adjusted p-values and rejections of ``p`` (no ``nan``), computed as
    ``statsmodels.stats.multitest.multipletests(method="holm")`` does: sorted ascending, the
    ``i``-th (from 0) is multiplied by ``m − i``, made monotone and capped at 1; rejections
    stop at the first sorted p-value above ``alpha / (m − i)``."""
    m = p.size
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    factor = np.arange(m, 0, -1, dtype=float)
    adj_sorted = np.minimum(np.maximum.accumulate(ps * factor), 1.0)
    above = np.nonzero(ps > alpha / factor)[0]
    stop = above[0] if above.size else m
    rej_sorted = np.arange(m) < stop
    adj = np.empty(m)
    rej = np.empty(m, dtype=bool)
    adj[order] = adj_sorted
    rej[order] = rej_sorted
    return adj, rej


def correct(table: pd.DataFrame, method: str = "holm", by: str | None = None,
            p_column: str = "p_value", alpha: float = 0.05) -> pd.DataFrame:
    """``table`` with ``p_adjusted`` and ``significant_adjusted``: its rows as one family.

    Parameters
    ----------
    table : DataFrame
        One comparison per row with a ``p_column`` (``nan`` = no test, kept out of the family).
        When it has ``mirror_of`` (``pair_differences``) and ``by`` names the group column, a row
        that repeats another row's test (same ``variant``, that group) is not counted again: it
        takes the adjusted p-value and flag of the row it repeats. A paired difference with no
        spread over the games (``lo == hi``, e.g. a variant whose games equal the base's) is
        exact, no test: it stays out of the family and keeps its p-value (0 or 1).
    method : {"holm", "bh"}
        As for ``adjust_pvalues``.

    Returns
    -------
    DataFrame
        A copy with ``p_adjusted`` (float) and ``significant_adjusted`` (bool); the family size
        is ``(~table["p_adjusted"].isna() & distinct).sum()`` — see ``family_size``.
    """
    out = table.copy()
    p = out[p_column].to_numpy(float) if len(out) else np.zeros(0)
    twin = _twin_rows(out, by)
    exact = _exact_rows(out, p_column)
    p_own = np.where((twin < 0) & ~exact, p, np.nan)
    adj, sig = adjust_pvalues(p_own, method, alpha)
    adj[exact] = p[exact]
    sig[exact] = p[exact] < alpha
    copies = twin >= 0
    adj[copies] = adj[twin[copies]]
    sig[copies] = sig[twin[copies]]
    out["p_adjusted"] = adj
    out["significant_adjusted"] = sig
    return out


def family_size(table: pd.DataFrame, by: str | None = None, p_column: str = "p_value") -> int:
    """The number of distinct tests ``correct`` corrects over in ``table``."""
    if not len(table):
        return 0
    p = table[p_column].to_numpy(float)
    return int((~np.isnan(p) & (_twin_rows(table, by) < 0) & ~_exact_rows(table, p_column)).sum())


def _exact_rows(table: pd.DataFrame, p_column: str) -> np.ndarray:
    """Rows whose difference has no spread (``lo == hi``): exact, not a test. Only for the
    ``p_value`` of a ``pair_differences``-like table (columns ``lo``, ``hi``)."""
    if p_column != "p_value" or "lo" not in table or "hi" not in table or not len(table):
        return np.zeros(len(table), dtype=bool)
    lo, hi = table["lo"].to_numpy(float), table["hi"].to_numpy(float)
    return (lo == hi) & ~np.isnan(table[p_column].to_numpy(float))


def _twin_rows(table: pd.DataFrame, by: str | None) -> np.ndarray:
    """Per row, the position of the row whose test it repeats (``mirror_of``), else -1."""
    twin = np.full(len(table), -1)
    if by is None or "mirror_of" not in table or not len(table):
        return twin
    where = {(v, g): i for i, (v, g) in enumerate(zip(table["variant"], table[by]))}
    for i, (v, m) in enumerate(zip(table["variant"], table["mirror_of"])):
        if m is not None and not (isinstance(m, float) and math.isnan(m)):
            twin[i] = where.get((v, m), -1)
    return twin


def start_player_games(seats: pd.DataFrame) -> pd.DataFrame:
    """Per game: the start player's win share, the game's total win share and its seats.

    Parameters
    ----------
    seats : DataFrame
        One variant's seat records: ``game_id``, ``start_position`` (0 = the start player),
        ``won`` (1/k for a k-way tie).

    Returns
    -------
    DataFrame
        Indexed by ``game_id`` (ascending): ``start`` (0–1), ``total`` (0 when nobody won, else
        1), ``seats``; ``advantage`` = ``start − total / seats``: how much more than a fair
        position the start player won in the game. A fair position wins ``(1 − q) / n`` of the
        games, ``q`` the share of games nobody won, so the mean advantage is 0 for a fair game
        whatever ``q``.
    """
    g = seats.groupby("game_id", sort=True)
    total = g["won"].sum().astype(float)
    n = g.size().astype(float)
    first = seats["start_position"].to_numpy() == 0
    start = (seats.loc[first].groupby("game_id", sort=True)["won"].sum()
             .reindex(total.index, fill_value=0.0).astype(float))
    return pd.DataFrame({"start": start, "total": total, "seats": n,
                         "advantage": start - total / n})


def start_player_advantage(seats: pd.DataFrame, confidence: float = 0.95) -> Difference:
    """The start player's win rate minus a fair position's, ``(1 − q) / n``, per game.

    The mean over games of ``start_player_games``'s ``advantage`` with a t interval and a
    one-sample t-test against 0 (``paired_difference`` of the fair share and the start player's
    share, game by game). The fair share is the game's own: a game nobody won has a fair share
    of 0, so games without a winner do not count against the start player.
    """
    per = start_player_games(seats)
    # one game's advantage: from −1/n (another seat won) to 1 − 1/n (the start player won)
    fair_most = float((1 / per["seats"]).max()) if len(per) else 0.0
    d = paired_difference((per["total"] / per["seats"]).to_numpy(), per["start"].to_numpy(),
                          confidence, (-fair_most, 1 - float((1 / per["seats"]).min()))
                          if len(per) else None)
    lo, hi = clip_interval(d.lo, d.hi, -1.0, 1.0)  # a share minus a share: never past ±1
    return Difference(d.mean, lo, hi, d.n, d.p_value, d.significant)


def bca_interval(estimate: float, boot: Sequence[float] | np.ndarray,
                 jackknife: np.ndarray | Sequence[np.ndarray],
                 confidence: float = 0.95) -> Interval:
    """Bias-corrected and accelerated (BCa) bootstrap interval from given resamples.

    Efron (1987, JASA 82:171–185), as ``scipy.stats.bootstrap(method="BCa")`` computes it, but
    on bootstrap and jackknife values the caller computes (scipy resamples itself; a statistic
    of samples sharing their resampled games has a cheap closed-form jackknife).

    Parameters
    ----------
    estimate : float
        The statistic on the data.
    boot : array_like, shape (B,)
        The statistic on ``B`` bootstrap resamples.
    jackknife : array_like, shape (n,), or a sequence of them
        The statistic with each observation left out in turn (one array per independent
        sample).

    Returns
    -------
    Interval
        ``nan`` bounds when the resamples cannot give one (fewer than 2, all equal to one side
        of the estimate, or no spread in the jackknife and the bootstrap).
    """
    b, z0, a = _bca_constants(estimate, boot, jackknife)
    if not (math.isfinite(z0) and math.isfinite(a)):
        return Interval(estimate, math.nan, math.nan)
    if np.all(b == b[0]):
        return Interval(estimate, float(b[0]), float(b[0]))
    z = _z(confidence)
    levels = [sps.norm.cdf(z0 + (z0 + q) / (1 - a * (z0 + q))) for q in (-z, z)]
    lo, hi = np.percentile(b, [100 * levels[0], 100 * levels[1]])
    return Interval(estimate, float(lo), float(hi))


def bca_p_value(estimate: float, boot: Sequence[float] | np.ndarray,
                jackknife: np.ndarray | Sequence[np.ndarray], null: float = 0.0) -> float:
    """Two-sided p-value of ``statistic = null`` by inverting the BCa interval.

    The smallest ``1 − confidence`` at which ``bca_interval`` excludes ``null``: with
    ``u`` the bootstrap share below ``null`` (mid-rank), ``w = Φ⁻¹(u) − z0`` and
    ``z = w / (1 + a·w) − z0``, ``p = 2·min(Φ(z), 1 − Φ(z))``. The resamples resolve ``p`` no
    finer than about ``1/B``: ``u`` is kept within ``[1/(2B), 1 − 1/(2B)]``, so a ``null`` outside
    every resample gets the p-value of one at the edge (larger than the true one).
    """
    b, z0, a = _bca_constants(estimate, boot, jackknife)
    if not (math.isfinite(z0) and math.isfinite(a)) or np.all(b == b[0]):
        return math.nan
    u = (np.sum(b < null) + np.sum(b <= null)) / (2 * b.size)
    u = min(max(u, 1 / (2 * b.size)), 1 - 1 / (2 * b.size))
    w = float(sps.norm.ppf(u)) - z0
    if 1 + a * w <= 0:
        return math.nan
    z = w / (1 + a * w) - z0
    return float(min(1.0, 2 * min(sps.norm.cdf(z), sps.norm.sf(z))))


def _bca_constants(estimate: float, boot: Sequence[float] | np.ndarray,
                   jackknife: np.ndarray | Sequence[np.ndarray]) -> tuple[np.ndarray, float, float]:
    """The bootstrap values without ``nan``, and BCa's bias correction ``z0`` and acceleration
    ``a`` (as scipy's ``_bca_interval``); ``nan`` constants for fewer than 2 values."""
    b = np.asarray(boot, dtype=float)
    b = b[~np.isnan(b)]
    if b.size < 2:
        return b, math.nan, math.nan
    share = (np.sum(b < estimate) + np.sum(b <= estimate)) / (2 * b.size)
    z0 = float(sps.norm.ppf(share))
    nums = dens = 0.0
    for jack in _samples(jackknife):
        n = jack.size
        u = (n - 1) * (jack.mean() - jack)
        nums += float(np.sum(u ** 3)) / n ** 3
        dens += float(np.sum(u ** 2)) / n ** 2
    a = nums / (6 * dens ** 1.5) if dens > 0 else 0.0
    return b, z0, a


def _samples(jackknife: np.ndarray | Sequence[np.ndarray]) -> list[np.ndarray]:
    """Jackknife values as one array per independent sample (one array alone is one sample)."""
    if np.ndim(jackknife[0]) == 0:
        return [np.asarray(jackknife, dtype=float)]
    return [np.asarray(j, dtype=float) for j in jackknife]


def spread_variance(values: np.ndarray) -> tuple[float, np.ndarray]:
    """Variance between the column means of ``values``, without the part chance adds.

    With ``p_i`` the mean of column ``i`` (e.g. seat ``i``'s win rate over the games), the
    plain ``(1/k) Σ (p̂_i − p̄̂)²`` is biased upward by chance — a perfectly fair set has a
    positive spread — and the more the fairer the set, so differences between sets are pulled
    toward 0. Here the chance part is subtracted: with ``d_gi = x_gi − mean_j x_gj`` (row
    ``g`` centred), ``Var(p̂_i − p̄̂)`` is estimated without bias by ``s²(d_·i) / n``, so

        ``V̂ = (1/k) Σ_i [(p̂_i − p̄̂)² − s²(d_·i) / n]``

    has expectation ``(1/k) Σ (p_i − p̄)²`` exactly, for any ``n``; it can be negative when the
    columns are nearly equal. A smooth function of means: contrasts of it get ordinary
    (jackknife) intervals.

    Parameters
    ----------
    values : ndarray, shape (n, k)
        One row per game (the unit), one column per group (seat); ``n >= 3``.

    Returns
    -------
    (float, ndarray of shape (n,))
        ``V̂`` and its leave-one-row-out values (closed form, no (n, n) array), for a
        jackknife standard error.
    """
    x = np.asarray(values, dtype=float)
    n = x.shape[0]
    if n < 3:
        return math.nan, np.full(n, math.nan)
    d = x - x.mean(axis=1, keepdims=True)
    s_x, s_d, s_dd = x.sum(axis=0), d.sum(axis=0), (d * d).sum(axis=0)

    def v_hat(sum_x, sum_d, sum_dd, m):
        p = sum_x / m
        var_d = (sum_dd - sum_d * sum_d / m) / (m - 1)
        return (((p - p.mean(axis=-1, keepdims=True)) ** 2) - var_d / m).mean(axis=-1)

    point = float(v_hat(s_x[None, :], s_d[None, :], s_dd[None, :], n)[0])
    jack = v_hat(s_x[None, :] - x, s_d[None, :] - d, s_dd[None, :] - d * d, n - 1)
    return point, jack


def jackknife_variance(replicates: np.ndarray | Sequence[float]) -> float:
    """The jackknife variance ``(n − 1)/n · Σ (θ₍ᵢ₎ − θ̄₍·₎)²`` of a statistic from its ``n``
    leave-one-out (or leave-one-group-out) values, shape (n,) (Efron & Tibshirani, *An
    Introduction to the Bootstrap*, 1993, eq. 11.5); ``nan`` when ``n < 2`` or a value is
    missing. The project's one jackknife: ``jackknife_interval`` and the balance check use it."""
    j = np.asarray(replicates, dtype=float)
    n = j.size
    if n < 2 or np.isnan(j).any():
        return math.nan
    return (n - 1) / n * float(np.sum((j - j.mean()) ** 2))


def jackknife_interval(estimate: float, jackknife: np.ndarray | Sequence[np.ndarray],
                       confidence: float = 0.95) -> tuple[Interval, float]:
    """Normal interval and two-sided p-value (against 0) from the jackknife standard error
    (``jackknife_variance``). ``jackknife``: the statistic with each unit left out, shape (n,),
    or one such array per independent sample (their variances add)."""
    se = math.sqrt(sum(jackknife_variance(j) for j in _samples(jackknife)))  # nan: nan bounds
    lo, hi, p = _bounds(estimate, se, confidence)
    return Interval(estimate, lo, hi), p


# ------------------------------------------------------------------ two estimates of one quantity


@dataclass(frozen=True)
class Comparison:
    """The difference ``other − base`` of two estimates of one quantity, with its test.

    Attributes
    ----------
    diff, lo, hi : float
        The difference and its interval.
    p_value : float
        Two-sided p-value of "no difference".
    test : str
        ``"paired"`` (per-game values on shared game seeds), ``"two-sample"`` (independent
        estimates, both standard errors) or ``"exact"`` (the per-game values are equal in every
        shared game and the two runs cover the same games: no sampling error in the difference).
    games : int
        Games the pairing rests on (the shared ones); 0 for ``two-sample``.
    """

    diff: float
    lo: float
    hi: float
    p_value: float
    test: str
    games: int = 0

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return bool(self.lo > 0 or self.hi < 0)


def clip_interval(lo: float, hi: float, low: float, high: float) -> tuple[float, float]:
    """``[lo, hi]`` clipped to the possible range ``[low, high]`` of the quantity (e.g. ±1 for
    a difference of win shares): a t interval of a bounded per-game value over few games can
    reach past it. ``nan`` bounds stay ``nan``."""
    lo, hi = (x if x is None or math.isnan(x) else min(max(x, low), high) for x in (lo, hi))
    return lo, hi


def interval_se(lo: float, hi: float, confidence: float = 0.95) -> float:
    """The standard error a symmetric normal interval ``[lo, hi]`` implies,
    ``(hi − lo) / (2 z)`` (``nan`` for a missing bound)."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return math.nan
    return float((hi - lo) / (2 * _z(confidence)))


def two_sample_comparison(base: float, base_se: float, other: float, other_se: float,
                          confidence: float = 0.95) -> Comparison:
    """``other − base`` of two independent estimates: normal interval and z-test with standard
    error ``√(se_b² + se_o²)``.

    ``nan`` bounds and p-value when either standard error is missing; a difference of two
    estimates without spread (both standard errors 0) is ``exact``.
    """
    d = float(other - base)
    if any(math.isnan(v) for v in (base, base_se, other, other_se)):
        return Comparison(d, math.nan, math.nan, math.nan, "two-sample")
    se = math.hypot(base_se, other_se)
    return Comparison(d, *_bounds(d, se, confidence), "exact" if se == 0 else "two-sample")


def overlap_comparison(base: pd.Series, other: pd.Series, confidence: float = 0.95
                       ) -> Comparison:
    """``mean(other) − mean(base)`` of two per-game series on shared game seeds, paired on the
    games both have.

    Each estimate is the mean of its series (one value per game: a per-game quantity, or a
    ratio estimator's linearised per-game value), and games are independent. Games in both
    series are paired; games in one only (a shorter run, a quantity defined on a subset of
    games) add their own variance. The variance of the difference is
    ``s_o²/n_o + s_b²/n_b − 2 Σ_shared (o_g − ō)(b_g − b̄) / √(n_o(n_o − 1) n_b(n_b − 1))``,
    which is the paired t variance ``s_d² / n`` when both series cover the same games. Interval
    and test: Student's t with ``min(n_b, n_o) − 1`` degrees of freedom.

    Parameters
    ----------
    base, other : Series
        Indexed by game id (the game seed's index), ``nan`` dropped; at least 2 values each.

    Returns
    -------
    Comparison
        ``test`` is ``"paired"`` (``"exact"`` when both cover the same games and every
        difference is equal); ``nan`` bounds with fewer than 2 values in either series.
    """
    b = base.dropna().astype(float)
    o = other.dropna().astype(float)
    n_b, n_o = len(b), len(o)
    d = float(o.mean() - b.mean()) if n_b and n_o else math.nan
    if n_b < 2 or n_o < 2:
        return Comparison(d, math.nan, math.nan, math.nan, "paired")
    shared = b.index.intersection(o.index)
    if len(shared) == n_b == n_o:
        per = (o.reindex(shared) - b.reindex(shared)).to_numpy()
        if np.all(per == per[0]):
            return Comparison(d, d, d, 0.0 if d else 1.0, "exact", len(shared))
    var = (o.var(ddof=1) / n_o + b.var(ddof=1) / n_b
           - 2 * float(((o.reindex(shared) - o.mean()) * (b.reindex(shared) - b.mean())).sum())
           / math.sqrt(n_o * (n_o - 1) * n_b * (n_b - 1)))
    se = math.sqrt(max(float(var), 0.0))
    return Comparison(d, *_bounds(d, se, confidence, min(n_b, n_o) - 1),
                      "exact" if se == 0 else "paired", len(shared))


@dataclass(frozen=True)
class Edge:
    """The win share of flagged rows (e.g. the leader in some count) against what the same groups
    (players) win when they are not flagged — ``flagged_edge``.

    Attributes
    ----------
    share : float
        Mean over the games with a flagged row of the flagged rows' summed win share.
    reference : float
        What the same flagged rows would win at their groups' unflagged rates,
        ``Σ_p r_p · m_p`` (``flagged_edge``).
    edge, lo, hi, p_value : float
        ``share − reference``, its interval and the two-sided p-value of 0 (linearised
        standard error over all the games given, Student's t with one degree of freedom fewer).
    games : int
        Games with a flagged row.
    groups : dict of str to float
        Each group's share of the flagged rows.
    per_game : Series
        Per game (index: game id, every game given) the linearised value whose mean is
        ``edge`` — for pairing with another run on the same seeds.
    unestimable : str
        Why there is no estimate (no flagged row, a flagged group never unflagged); ``""``.
    """

    share: float
    reference: float
    edge: float
    lo: float
    hi: float
    p_value: float
    games: int
    groups: dict
    per_game: pd.Series
    unestimable: str = ""


def flagged_edge(game_id: Sequence | np.ndarray, group: Sequence | np.ndarray,
                 flag: Sequence | np.ndarray, won: Sequence | np.ndarray,
                 confidence: float = 0.95) -> Edge:
    """How much more of the win flagged rows take than their groups take unflagged.

    One row per seat-game; a flagged row belongs to a group (the player at that seat). Each
    flagged row is expected to win what its group wins per unflagged row (direct
    standardisation), so a strong player who holds the flag in most games does not make the
    flag look strong: the edge is 0 when the flag adds nothing beyond who holds it.

    Estimator: with ``L`` the share of games with a flagged row, ``A = Σ_g a_g / Σ_g ℓ_g``
    (``a_g`` the flagged rows' win share in game ``g``, ``ℓ_g`` 1 when it has a flagged row),
    ``m_p = Σ_g c_pg / Σ_g ℓ_g`` (``c_pg`` flagged rows of group ``p``), ``r_p = Σ_g w_pg /
    Σ_g n_pg`` (``w_pg``, ``n_pg``: win share and count of group ``p``'s unflagged rows),
    ``edge = A − Σ_p r_p m_p``. Its standard error is the delta method's over games (games are
    independent; the rows of one game are not): the per-game linearised values
    ``ψ_g = (a_g − A ℓ_g)/L − Σ_p [r_p (c_pg − m_p ℓ_g)/L + m_p (w_pg − r_p n_pg)/n̄_p]``.

    Parameters
    ----------
    game_id, group, flag, won : array_like, shape (rows,)
        Per row: its game, its group, whether it is flagged, its win share (1/k for a k-way tie).

    Returns
    -------
    Edge
        ``nan`` numbers and an ``unestimable`` reason when no row is flagged or a group that
        holds the flag never plays unflagged.
    """
    df = pd.DataFrame({"g": np.asarray(game_id), "p": np.asarray(group).astype(str),
                       "f": np.asarray(flag, dtype=bool), "w": np.asarray(won, dtype=float)})
    ids = np.unique(df["g"])
    n = ids.size
    nan = math.nan
    empty = pd.Series(np.full(n, nan), index=pd.Index(ids, name="game_id"))
    ell = df.groupby("g")["f"].any().reindex(ids).to_numpy(float)
    games = int(ell.sum())
    if games == 0:
        return Edge(nan, nan, nan, nan, nan, nan, 0, {}, empty, "no row is flagged")
    a = df["w"].where(df["f"], 0.0).groupby(df["g"]).sum().reindex(ids).to_numpy(float)
    big_l = ell.mean()
    share = a.mean() / big_l
    flagged_groups = sorted(pd.unique(df.loc[df["f"], "p"]))
    counts = df[df["f"]].groupby("p").size()
    reference = 0.0
    psi = (a - share * ell) / big_l
    for p in flagged_groups:
        mine = df["p"] == p
        c = (mine & df["f"]).groupby(df["g"]).sum().reindex(ids).to_numpy(float)
        off = mine & ~df["f"]
        w = df["w"].where(off, 0.0).groupby(df["g"]).sum().reindex(ids).to_numpy(float)
        k = off.groupby(df["g"]).sum().reindex(ids).to_numpy(float)
        if k.sum() == 0:
            return Edge(share, nan, nan, nan, nan, nan, games, {}, empty,
                        f"`{p}` holds it but never plays without it")
        m = c.mean() / big_l
        r = w.sum() / k.sum()
        reference += r * m
        psi = psi - (r * (c - m * ell) / big_l + m * (w - r * k) / k.mean())
    edge = share - reference
    per_game = pd.Series(edge + psi, index=pd.Index(ids, name="game_id"))
    groups = {p: float(counts[p] / counts.sum()) for p in flagged_groups}
    if n < 2:
        return Edge(share, reference, edge, nan, nan, nan, games, groups, per_game)
    se = float(np.std(psi, ddof=1) / math.sqrt(n))
    return Edge(share, reference, edge, *_bounds(edge, se, confidence, n - 1), games, groups,
                per_game)


@dataclass(frozen=True)
class Equivalence:
    """The two one-sided tests (TOST) of ``|θ − target| < tolerance``.

    ``shown`` is true when both one-sided tests reject at ``alpha`` — equivalently, when the
    ``1 − 2 alpha`` interval ``[lo, hi]`` (90 % at the usual 5 %) lies inside ``target ±
    tolerance``. ``p_value`` is the larger of the two one-sided p-values.
    """

    estimate: float
    lo: float
    hi: float
    target: float
    tolerance: float
    p_value: float
    shown: bool


def equivalence(estimate: float, se: float, tolerance: float, *, target: float = 0.0,
                df: float | None = None, alpha: float = 0.05) -> Equivalence:
    """Two one-sided tests that an estimate with standard error ``se`` lies within ``target ±
    tolerance`` (Schuirmann 1987): reject ``θ ≤ target − tolerance`` and ``θ ≥ target +
    tolerance``, each at ``alpha``, with a t reference on ``df`` degrees of freedom (normal when
    ``None``). Units are the estimate's (a share as a fraction with a tolerance as a fraction).

    Raises
    ------
    ValueError
        ``tolerance`` not positive and finite, or ``alpha`` outside (0, 0.5).

    A missing or infinite ``se`` or estimate gives ``shown = False`` with ``nan`` bounds: no
    equivalence is claimed without an interval.
    """
    if not (math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance must be positive and finite (got {tolerance})")
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5) (got {alpha})")
    ref = sps.norm if df is None or not math.isfinite(df) else sps.t(df)
    if not (math.isfinite(estimate) and math.isfinite(se)) or se < 0:
        return Equivalence(estimate, math.nan, math.nan, target, tolerance, math.nan, False)
    q = float(ref.ppf(1.0 - alpha))
    lo, hi = estimate - q * se, estimate + q * se
    if se == 0:
        p = 0.0 if abs(estimate - target) < tolerance else 1.0
    else:  # the larger of the two one-sided p-values
        p = max(float(ref.sf((estimate - (target - tolerance)) / se)),
                float(ref.cdf((estimate - (target + tolerance)) / se)))
    return Equivalence(estimate, lo, hi, target, tolerance, p, bool(p < alpha))


def expanded_levels(deals: int, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile levels of the expanded percentile bootstrap interval over ``deals``
    resampled units (Hesterberg 2015, Amer. Statist. 69:371–386): the normal quantile is
    widened to ``√(d/(d − 1)) · t_{d−1}``, which undoes the plain percentile interval's
    narrowness at few units (it uses ``z`` and the ``1/d`` variance); at many deals the levels
    are ``(1 ± confidence)/2``."""
    if deals < 2:
        return (1 - confidence) / 2, (1 + confidence) / 2
    z = math.sqrt(deals / (deals - 1)) * float(_t_ppf(0.5 + confidence / 2, deals - 1))
    a = float(sps.norm.sf(z))
    return a, 1 - a


def variance_split(y: np.ndarray, n_boot: int = 0, seed: int = 0) -> dict[str, float]:
    """The one-way random-effects split of ``y`` over deals (ICC(1): the share of the variance
    between deals), with a percentile bootstrap over deals (``expanded_levels``).

    Parameters
    ----------
    y : ndarray, shape (D, R) or (D, R, K)
        ``D`` deals, ``R >= 2`` replays each, ``K`` outcomes pooled (the seats).
    n_boot : int
        Bootstrap replicates (resampled deals); 0: no interval (``nan``).
    seed : int
        Seed of ``numpy.random.default_rng`` for the replicates.

    Returns
    -------
    dict
        ``between`` (``σ²_b``, unbiased), ``within`` (``σ²_w``), ``total`` (their sum),
        ``naive_between`` (the variance of the deal means, which overstates ``σ²_b`` by
        ``σ²_w / R``), ``share`` (``σ²_b / total``; ``nan`` when ``total`` is 0), ``lo``,
        ``hi`` (its 95 % interval), ``deals``, ``replays``, ``n_boot`` (replicates used).

    Raises
    ------
    ValueError
        Fewer than 2 deals or 2 replays.
    """
    y = np.asarray(y, float)
    if y.ndim == 2:
        y = y[:, :, None]
    d, r = y.shape[:2]
    if d < 2 or r < 2:
        raise ValueError(f"the split needs at least 2 deals and 2 replays (got {d} x {r})")
    means = y.mean(axis=1)  # (D, K)
    within_ss = ((y - means[:, None, :]) ** 2).sum(axis=(1, 2))  # (D,)
    sq = (means ** 2).sum(axis=1)  # (D,)

    def parts(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grand = c @ means / d  # (B, K)
        ssb = r * (c @ sq - d * (grand ** 2).sum(axis=-1))
        msb = ssb / (d - 1)
        msw = (c @ within_ss) / (d * (r - 1))
        return (msb - msw) / r, msw

    b, w = parts(np.ones((1, d)))
    between, within = float(b[0]), float(w[0])
    total = between + within
    naive = float(means.var(axis=0, ddof=1).sum())
    share = between / total if total > 0 else math.nan
    lo = hi = math.nan
    if n_boot > 0 and total > 0:
        rng = np.random.default_rng(seed)
        c = rng.multinomial(d, np.full(d, 1.0 / d), size=n_boot).astype(float)
        bb, ww = parts(c)
        with np.errstate(invalid="ignore", divide="ignore"):
            shares = bb / (bb + ww)
        shares = shares[np.isfinite(shares)]
        if shares.size:
            lo, hi = (float(x) for x in np.quantile(shares, expanded_levels(d)))
    return {"between": between, "within": within, "total": total, "naive_between": naive,
            "share": share, "lo": lo, "hi": hi, "deals": d, "replays": r,
            "n_boot": n_boot if n_boot > 0 and total > 0 else 0}
