"""Racing for ``analyzer balance --race`` (issue #35 item 5): the scan's settings are played in
looks of growing size on common seeds, and a setting that is clearly off the goal stops early.

**The looks** (``looks``): every setting plays the scan's own game seeds ``0..n_j − 1`` at
look ``j``: ``n_1 = max(MIN_GAMES, ⌈N / 16⌉)``, then ``n_1`` times 2, 3, 4, 6, 8 and 12
(``STEPS``; those below ``N``), and last ``N`` (the scan's games per setting, ``budget //
settings``), so a setting that runs to the end plays exactly the scan's games and has the
scan's estimate. Each look adds games to the ones before (the runner's chunks of ``n_1`` games
are kept and only the new ones are played). Steps of 1.33–1.5× rather than doubling: a near
neighbour shown farther at 750 games of 1,000 stops there instead of playing to the end
(simulated on the synthetic objective below: 3.3× fewer games than the scan at 1,000 games a
setting against 3.2× with five doubling looks, 4.7× against 4.2× at 2,000).

**The stop, in pairs** (``pair_stops``; when the finding is the mean of its per-game values,
e.g. a share of wins): at look ``j`` a running setting stops when it is shown *farther from the
goal than another running setting*, the two paired game by game on their common seeds. With
``a``, ``b`` their true distances from the goal (estimate minus target), ``|a| > |b|`` exactly
when ``a − b`` and ``a + b`` have the same sign, so the test (``farther_p``) asks both paired
contrasts to be shown of one sign (an intersection–union test, each one-sided at ``γ/2``: size
at most ``γ``). The difference of near neighbours on common seeds is far tighter than either
setting's own interval, which is what lets the near neighbours stop: the region rule below can
stop a setting only once its own interval clears the goal region. Each setting is tested
against every other running one at ``γ = α_j / (m − 1)`` (Bonferroni over the ``m − 1``
others). **The guarantee:** the setting truly nearest the goal (any of those tied for it) is
stopped at look ``j`` only if one of its ``m − 1`` tests rejects a true "not farther": at most
``α_j``; over the looks (the union bound) at most ``Σ α_j = α`` = 5 %. It need not hold a
setting inside ``±D`` that is not the nearest: the scan would not take it either. Measured
(``tests/test_balance_race.py``, ``tests/race_measure.py``): 0–0.5 % of simulated races.

**The stop, by region** (``stops``; the rule for a finding without per-game values, or one that
is not their mean): each setting still running has its distance from the goal ``g`` with its
standard error ``s`` (from the report's own 95 % interval). The goal region is ``0 ± M`` with
``M = max(D, min_k(|g_k| + z·s_k))``: ``D`` the ``--tolerance`` (0 without one) and the second
term the smallest upper confidence bound on any running setting's distance (``z`` Bonferroni
over them at the look's level), so a setting is stopped only when it is surely farther from the
goal than ``D`` *and* than some other setting; the setting with that smallest bound never
stops, so the race never stops every setting. The test of each setting is two-sided, ``p =
2·(1 − Φ((|g| − M)/s))``, and Holm's step-down at the look's level ``α_j`` decides over the
running settings. A setting within ``±D`` of the goal (on target) is inside every look's region,
so the chance it is ever stopped is at most ``α``; the setting truly nearest the goal, when it
is outside ``±D``, at most ``2α``.

**The error rate over the looks** (``look_levels``): ``α_j`` are the increments of a
Pocock-type alpha-spending function (Lan & DeMets 1983: ``α(t) = α·ln(1 + (e − 1)·t)``, ``t =
n_j / N``), and the looks are joined by the union bound (Bonferroni over the looks, which holds
whatever the correlation between the looks' estimates: a finding computed by the report's code
need not have independent increments); the normal reference of the paired means and of the
report's intervals is assumed. Pocock-type rather than O'Brien–Fleming-type spending: the
games saved come from the early looks, where O'Brien–Fleming spends almost nothing
(``α(1/16) ≈ 4·10⁻¹⁵`` at 5 %), while the Pocock-type spends about a tenth of ``α`` at the
first look (at a sixteenth of the games); the last look only decides settings that have
already played the scan's full games.

The value taken is decided as in the scan (``balance.search``) among the settings still running
at the end; the fresh-seed check is the same as after a scan (the race's estimates never decide
the verdict).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as sps

from analyzer import stats

ALPHA = 0.05  # the chance, over every look, that a setting on target is stopped
STEPS = (1, 2, 3, 4, 6, 8, 12, 16)  # the looks as multiples of the first (the last: the scan's)
SPENDING = "pocock"  # Lan–DeMets Pocock-type alpha spending (``spent``)


def looks(per: int, least: int = stats.MIN_GAMES) -> list[int]:
    """The cumulative games per setting at each look: ``n_1 = max(least, ⌈per / 16⌉)``
    times each of ``STEPS`` below ``per``, then ``per``; ``[per]`` when ``per <= n_1``.

    Parameters
    ----------
    per : int
        The scan's games per setting (``>= 1``).
    least : int
        The smallest first look (a finding needs ``stats.MIN_GAMES`` games).
    """
    first = max(least, -(-per // STEPS[-1]))
    return [first * m for m in STEPS if first * m < per] + [per]


def spent(t: float, alpha: float = ALPHA) -> float:
    """The Pocock-type spending function ``α·ln(1 + (e − 1)·t)`` at information fraction ``t``
    in ``[0, 1]`` (Lan & DeMets 1983): 0 at 0, ``α`` at 1."""
    t = min(max(float(t), 0.0), 1.0)
    return alpha * math.log1p((math.e - 1.0) * t)


def look_levels(schedule: Sequence[int], alpha: float = ALPHA) -> list[float]:
    """The level of each look: the increments of ``spent`` at ``t_j = n_j / n_J`` (they sum to
    ``alpha``)."""
    total = float(schedule[-1])
    marks = [0.0] + [spent(n / total, alpha) for n in schedule]
    return [b - a for a, b in itertools.pairwise(marks)]


def region(gaps: Sequence[float], ses: Sequence[float], tolerance: float, level: float
           ) -> float:
    """The half-width ``M`` of the goal region at a look: ``max(tolerance, min_k(|g_k| +
    z·s_k))`` over the settings with a finite distance, ``z = Φ⁻¹(1 − level / (2m))``
    (Bonferroni over the ``m`` of them); ``tolerance`` when none has one."""
    g, s = np.abs(np.asarray(gaps, dtype=float)), np.asarray(ses, dtype=float)
    ok = np.isfinite(g) & np.isfinite(s)
    if not ok.any():
        return float(tolerance)
    z = float(sps.norm.isf(level / (2 * int(ok.sum()))))
    return float(max(tolerance, np.min(g[ok] + z * s[ok])))


def p_values(gaps: Sequence[float], ses: Sequence[float], half: float) -> np.ndarray:
    """Per setting the two-sided p-value that its distance from the goal lies inside ``0 ±
    half``: ``2·(1 − Φ((|g| − half)/s))``, 1 when ``|g| <= half`` or the distance or its error
    is not finite; with ``s = 0`` (the same outcome in every game) 0 outside the region."""
    out = np.ones(len(gaps))
    for i, (g, s) in enumerate(zip(gaps, ses)):
        if not (math.isfinite(g) and math.isfinite(s)) or abs(g) <= half:
            continue
        out[i] = 0.0 if s <= 0 else min(1.0, 2.0 * float(sps.norm.sf((abs(g) - half) / s)))
    return out


def stops(gaps: Sequence[float], ses: Sequence[float], tolerance: float, level: float
          ) -> tuple[np.ndarray, float]:
    """Which running settings stop at a look of level ``level``, and the region's half-width.

    Parameters
    ----------
    gaps, ses : sequence of float
        Each running setting's distance from the goal and its standard error (the finding's
        scale); a setting without a finite one never stops.
    tolerance : float
        ``--tolerance`` in the finding's scale (0 without one).
    level : float
        The look's level (``look_levels``).

    Returns
    -------
    (ndarray of bool, float)
        Stopped per setting (Holm over the settings at ``level``) and ``M`` (``region``).
    """
    half = region(gaps, ses, tolerance, level)
    return stats.adjust_pvalues(p_values(gaps, ses, half), "holm", level)[1], half


def farther_p(gap: float, other: float, values: np.ndarray, others: np.ndarray) -> float:
    """The p-value that a setting is *not* farther from the goal than another, from their
    per-game values on common seeds (the intersection–union test of ``pair_stops``).

    With ``a``, ``b`` the two true distances from the goal, ``|a| > |b|`` exactly when ``a − b``
    and ``a + b`` have the same sign; each is estimated by its paired mean (``gap − other``,
    ``gap + other``) with the standard error of the per-game differences or sums (the game as
    the unit). The p-value is ``min(2·max(P₊(D), P₊(S)), 2·max(P₋(D), P₋(S)), 1)`` with ``P₊``
    and ``P₋`` the one-sided normal p-values for "positive" and "negative": rejecting at
    ``γ`` needs both one-sided tests of one sign at ``γ/2``, and under ``|a| <= |b|`` one of
    the two contrasts of each sign is on the wrong side, so the chance is at most ``γ``.

    Parameters
    ----------
    gap, other : float
        The two settings' distances (estimate minus target, the finding's scale).
    values, others : ndarray
        Their per-game values in the same scale, game ``i`` of both from the same seed; games
        where either is not finite are left out.

    Returns
    -------
    float
        In ``[0, 1]``; 1 when a distance is not finite or fewer than 2 games pair.
    """
    x, y = np.asarray(values, dtype=float), np.asarray(others, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    if not (math.isfinite(gap) and math.isfinite(other)) or ok.sum() < 2:
        return 1.0
    n = int(ok.sum())
    up, down = [], []  # one-sided p-values for "positive" and "negative"
    for est, per in ((gap - other, x[ok] - y[ok]), (gap + other, x[ok] + y[ok])):
        se = float(np.std(per, ddof=1)) / math.sqrt(n)
        if se > 0:
            z = est / se
        else:  # the same contrast in every game: its sign is known
            z = math.inf if est > 0 else -math.inf if est < 0 else 0.0
        up.append(float(sps.norm.sf(z)))
        down.append(float(sps.norm.cdf(z)))
    return float(min(1.0, 2 * max(up), 2 * max(down)))


def pair_stops(gaps: Sequence[float], values: Sequence[np.ndarray], level: float
               ) -> tuple[np.ndarray, list[int | None]]:
    """Which running settings stop at a look of level ``level``: those shown farther from the
    goal than some other running setting (``farther_p`` at ``level / (m − 1)``, Bonferroni
    over the ``m − 1`` others), paired game by game on the common seeds.

    The setting truly nearest the goal (any of them, when several tie) is stopped only if one
    of its ``m − 1`` tests rejects a true "not farther": at most ``level`` at this look.

    Parameters
    ----------
    gaps : sequence of float
        Each running setting's distance from the goal (estimate minus target).
    values : sequence of ndarray
        Each one's per-game values of the finding on the same games (same length, same seeds).
    level : float
        The look's level (``look_levels``).

    Returns
    -------
    (ndarray of bool, list)
        Stopped per setting, and for each the index of the setting it was shown farther than
        (the one with the smallest p-value; ``None`` when not stopped).
    """
    m = len(gaps)
    stopped, by = np.zeros(m, dtype=bool), [None] * m
    if m < 2:
        return stopped, by
    cut = level / (m - 1)
    p = _pair_p(np.asarray(gaps, dtype=float), values)
    np.fill_diagonal(p, np.inf)
    for k in range(m):
        j = int(np.argmin(p[k]))
        if p[k, j] <= cut:
            stopped[k], by[k] = True, j
    return stopped, by


def _pair_p(gaps: np.ndarray, values: Sequence[np.ndarray]) -> np.ndarray:
    """``farther_p`` of every ordered pair (row: the setting tested, column: the other), at
    once from the covariance of the per-game values when every value is finite (the same
    numbers: the variance of ``x ± y`` is ``var x + var y ± 2 cov``), else pair by pair."""
    x = np.asarray(values, dtype=float)
    m = len(gaps)
    if x.ndim != 2 or x.shape[1] < 2 or not np.isfinite(x).all():
        return np.array([[farther_p(gaps[k], gaps[j], values[k], values[j]) if j != k else 1.0
                          for j in range(m)] for k in range(m)])
    c = np.atleast_2d(np.cov(x))
    v = np.diag(c)
    with np.errstate(divide="ignore", invalid="ignore"):
        up, down = [], []
        for est, var in ((gaps[:, None] - gaps[None, :], v[:, None] + v[None, :] - 2 * c),
                         (gaps[:, None] + gaps[None, :], v[:, None] + v[None, :] + 2 * c)):
            se = np.sqrt(np.maximum(var, 0.0) / x.shape[1])
            z = np.where(se > 1e-12 * np.maximum(1.0, np.abs(est)), est / se,
                         np.where(est > 0, np.inf, np.where(est < 0, -np.inf, 0.0)))
            up.append(sps.norm.sf(z))
            down.append(sps.norm.cdf(z))
        out = np.minimum(1.0, np.minimum(2 * np.maximum(*up), 2 * np.maximum(*down)))
    out[~np.isfinite(gaps)] = 1.0
    out[:, ~np.isfinite(gaps)] = 1.0
    return out
