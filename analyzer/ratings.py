"""Ratings of players from finishing orders: Plackett–Luce strengths, win rates, mean ranks and
head-to-head shares, each with a 95 % bootstrap interval over deals.

**Model.** Each entrant ``e`` has a log-strength ``θ_e``. In the Plackett–Luce model a game's
finishing order is built from the top: the winner is drawn from the seats still unplaced with
probability ``exp θ_e / Σ exp θ`` over them, then second place from the rest, and so on. Seats
that **tie** (equal rank in the records: equal on score and every tie-break key) are handled as
the Breslow approximation of survival analysis handles tied event times: every member of a tied
group is drawn from the same set — the seats not placed before the group, the group included —
so a two-way tie for first contributes ``θ_a + θ_b − 2 log Σ_{all} exp θ``. Seats tied for last
place thus still say they were equal. The same entrant may hold several seats of one game (a
pool smaller than the table); its seats then enter the order like any others.

**Fit.** Maximum likelihood with ``scipy.optimize.minimize`` (trust-exact, analytic gradient and
Hessian) and a weak Gaussian penalty ``Σ θ² / (2 · 10²)``, which only matters when an entrant
finished above (or below) everyone in every game (an infinite plain maximum). Ratings are
centred (mean 0 over the pool): ``θ_a − θ_b`` is the log-odds that ``a`` finishes above ``b``.
Why not a package: ``choix`` has no ties and no case weights (the bootstrap needs both);
``openskill``'s Plackett–Luce is an online update that depends on the order of the games.

**Intervals.** Games played on one game seed (the same deal under every seating and rotation)
share their chance draws, so the bootstrap resamples **deals** with all their games, ``n_boot``
times, refits the ratings and recomputes every share; intervals are expanded percentile
intervals (``expanded_levels``). Win rate (``won`` = 1/k for a k-way tie for first) and mean
rank are ratios over the resampled deals, so seat-games of one game never count as independent
observations; differences (a rating minus the next one's, a win rate minus a fair seat's) take
their intervals from the same replicates. Few deals or a rarely winning entrant may cover less
than 95 %: ``reliability`` says so (``MIN_DEALS``, ``RARE_DEALS``).

**A share without spread** (an entrant that wins no game or every game, a pair where one always
finishes above the other) gets Wilson's interval for 0 (or all) of its deals instead of the
bootstrap's ``[0, 0]`` (``_edge_share``), and its win rate minus a fair seat's a MOVER interval.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps
from scipy.optimize import minimize

from analyzer.stats import expanded_levels, wilson

PRIOR_SD = 10.0  # sd of the weak Gaussian penalty on log-strengths (see the module docstring)
DEFAULT_BOOT = 1000
# below this many deals the intervals may cover less than 95 % (measured on a known
# Plackett–Luce pool of 5 at 4 seats with deal-shared luck, 300 pools each: the expanded
# percentile interval covered 92–95 % of the true ratings at 15 deals — the plain percentile
# 89–92 % — 95–97 % at 30 and 93–96 % at 60; tests/stats/test_rating_coverage.py)
MIN_DEALS = 30
# an entrant that won in fewer deals than this leaves its rating (and, the ratings being
# centred, every other's) barely identified: the intervals cover far less than 95 %. Measured
# on the same pool with one entrant 5 log-strength below the rest (issue #32, T1; 80–150 pools
# each): 85 % at 14 deals, where it won in 0.8 deals per pool; 93 % at 30 and 60 deals, where
# it won in 1.2 and 2.9; one 7 below, winning in 0.1–0.3 deals per pool: 49 % at 14 deals,
# 76 % at 30, 85 % at 60. An entrant 3.5 below, winning in 3 deals per pool at 15: 93 %.
RARE_DEALS = 2


@dataclass(frozen=True)
class Finishes:
    """Finishing orders of a set of games, one row per game.

    Attributes
    ----------
    entrants : tuple of str
        Entrant names; entrant ``k`` is ``entrants[k]``.
    who : ndarray of int, shape (games, seats)
        The entrant at each seat.
    rank : ndarray of int, shape (games, seats)
        Finishing rank, 1 = best; tied seats share a rank.
    won : ndarray of float, shape (games, seats)
        Win share: 1/k for a k-way tie for first, else 0.
    deal : ndarray of int, shape (games,)
        The game seed index; games with the same deal are resampled together.
    """

    entrants: tuple[str, ...]
    who: np.ndarray
    rank: np.ndarray
    won: np.ndarray
    deal: np.ndarray

    @property
    def n_games(self) -> int:
        """Number of games (rows)."""
        return int(self.who.shape[0])


def finishes(seats: pd.DataFrame, entrants: Sequence[str] | None = None) -> Finishes:
    """``Finishes`` from seat records.

    Parameters
    ----------
    seats : DataFrame
        Columns ``game_id`` (the deal), ``variant`` (the seating; a game is one ``(variant,
        game_id)``), ``seat``, ``policy`` (the entrant's name), ``rank`` and ``won``. Every game
        has the same number of seats.
    entrants : sequence of str, optional
        Entrant names in the order wanted (default: sorted names found).

    Raises
    ------
    ValueError
        A name not in ``entrants``, or games with different numbers of seats.
    """
    names = tuple(sorted(pd.unique(seats["policy"].astype(str)))) if entrants is None \
        else tuple(entrants)
    index = {n: k for k, n in enumerate(names)}
    s = seats.sort_values(["variant", "game_id", "seat"], kind="stable")
    sizes = s.groupby(["variant", "game_id"], observed=True, sort=False).size()
    if sizes.nunique() != 1:
        raise ValueError("every game must have the same number of seats")
    p = int(sizes.iloc[0])
    policy = s["policy"].astype(str).to_numpy()
    unknown = sorted(set(policy) - set(index))
    if unknown:
        raise ValueError(f"seat records name entrants not in the pool: {', '.join(unknown)}")
    who = np.array([index[x] for x in policy], dtype=np.int64).reshape(-1, p)
    rank = s["rank"].to_numpy(np.int64).reshape(-1, p)
    won = s["won"].to_numpy(float).reshape(-1, p)
    deal = s["game_id"].to_numpy(np.int64).reshape(-1, p)[:, 0]
    return Finishes(names, who, rank, won, deal)


class _Likelihood:
    """The Plackett–Luce log-likelihood of fixed finishing orders, for any game weights.

    Built once per data set: games are sorted best first and reduced to their distinct
    patterns (entrants in finishing order and tie groups), so a fit costs the same for 1,000 or
    100,000 games. Called by the optimiser with log-strengths ``theta`` (shape ``(n,)``) and
    game weights (shape ``(games,)``; a bootstrap replicate's count of each game's deal).
    """

    def __init__(self, who: np.ndarray, rank: np.ndarray, n: int):
        order = np.argsort(rank, axis=1, kind="stable")
        who = np.take_along_axis(who, order, axis=1)  # best first
        r = np.take_along_axis(rank, order, axis=1)
        p = r.shape[1]
        start = np.zeros_like(r)
        for j in range(1, p):  # the first position of each seat's tie group
            start[:, j] = np.where(r[:, j] == r[:, j - 1], start[:, j - 1], j)
        patterns, self.pattern = np.unique(np.hstack([who, start]), axis=0, return_inverse=True)
        self.pattern = self.pattern.ravel()
        self.who, start = patterns[:, :p], patterns[:, p:]
        # at[k, j, m]: seat m is still unplaced when seat j's tie group is drawn
        self.at = (np.arange(p)[None, None, :] >= start[:, :, None]).astype(float)
        self.n = n
        self.onehot = np.eye(n)[self.who]  # (patterns, seats, entrants)

    def weights(self, game_weights: np.ndarray) -> np.ndarray:
        """Game weights summed per pattern, shape ``(patterns,)``."""
        return np.bincount(self.pattern, game_weights, self.who.shape[0])

    def _draws(self, theta: np.ndarray) -> np.ndarray:
        """``pi[k, j, m]``: the chance that seat ``m`` is drawn in seat ``j``'s draw (0 for a
        seat placed before it), per pattern ``k``."""
        e = np.exp(theta - theta.max())[self.who]  # (patterns, seats)
        pi = self.at * e[:, None, :]
        pi /= pi.sum(axis=2, keepdims=True)
        return pi

    def value_and_grad(self, theta: np.ndarray, weights: np.ndarray) -> tuple[float, np.ndarray]:
        """Minus the penalised log-likelihood and its gradient (``weights`` per pattern)."""
        pi = self._draws(theta)
        # log P(seat j is drawn in its own draw) = log pi[k, j, j]
        diag = np.diagonal(pi, axis1=1, axis2=2)
        value = float(weights @ np.log(diag).sum(axis=1)) - 0.5 * float(theta @ theta) / PRIOR_SD ** 2
        # d/dθ_a: Σ over draws of (1[seat j is a] − Σ_m pi[k, j, m] 1[seat m is a])
        q = pi.sum(axis=1)  # (patterns, seats): expected draws won by each seat
        grad = np.bincount(self.who.ravel(), (weights[:, None] * (1.0 - q)).ravel(), self.n)
        grad = grad - theta / PRIOR_SD ** 2
        return -value, -grad

    def hessian(self, theta: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """The Hessian of ``value_and_grad``'s value: Σ over draws of ``diag(v) − v vᵀ`` with
        ``v`` the draw's chances per entrant, plus the penalty's ``1 / PRIOR_SD²``."""
        v = (self._draws(theta) @ self.onehot).reshape(-1, self.n)  # (draws, entrants)
        w = np.repeat(weights, self.who.shape[1])
        return (np.diag(w @ v) - (v * w[:, None]).T @ v) + np.eye(self.n) / PRIOR_SD ** 2


def plackett_luce(who: np.ndarray, rank: np.ndarray, n: int,
                  weights: np.ndarray | None = None, start: np.ndarray | None = None,
                  likelihood: _Likelihood | None = None) -> np.ndarray:
    """Maximum-likelihood Plackett–Luce log-strengths from finishing orders (ties: Breslow).

    Parameters
    ----------
    who, rank : ndarray of int, shape (games, seats)
        Entrant per seat and finishing rank (1 = best; tied seats share a rank).
    n : int
        Number of entrants (ids ``0..n-1``).
    weights : ndarray, shape (games,), optional
        Case weights (a bootstrap replicate's counts); default 1 per game.
    start : ndarray, shape (n,), optional
        Starting point of the optimiser (a warm start); default 0.
    likelihood : optional
        A ``_Likelihood`` already built for ``who, rank`` (reused across bootstrap fits).

    Returns
    -------
    ndarray of float, shape (n,)
        Log-strengths centred to mean 0.

    Examples
    --------
    >>> who = np.array([[0, 1, 2]] * 3)
    >>> rank = np.array([[1, 2, 3], [1, 3, 2], [2, 1, 3]])
    >>> th = plackett_luce(who, rank, 3)
    >>> bool(th[0] > th[1] > th[2])
    True
    """
    lik = likelihood or _Likelihood(np.asarray(who), np.asarray(rank), n)
    w = lik.weights(np.ones(lik.pattern.size) if weights is None
                    else np.asarray(weights, dtype=float))
    x0 = np.zeros(n) if start is None else np.asarray(start, dtype=float)
    # the log-likelihood is concave: Newton steps in a trust region converge in a few iterations
    res = minimize(lik.value_and_grad, x0, args=(w,), jac=True, hess=lik.hessian,
                   method="trust-exact", options={"gtol": 1e-8})
    theta = res.x
    return theta - theta.mean()


def reliability(deals: int, orders: int, deals_won: dict[str, int] | None = None) -> str:
    """A plain sentence when the rating intervals may cover less than 95 %, with the coverage
    measured on a known pool and the games per seating (``orders`` games per deal and seating)
    to ask for; ``""`` otherwise.

    Two cases (one when there is a single deal, which has no intervals): fewer than
    ``MIN_DEALS`` deals; and an entrant that won in fewer than
    ``RARE_DEALS`` deals (``deals_won``: entrant → deals in which it won a game, the table's
    ``deals_won``), whose rating is barely identified whatever the deals — then twice
    ``MIN_DEALS`` are asked for (see ``RARE_DEALS`` for the measured coverage)."""
    rare = sorted(k for k, v in (deals_won or {}).items() if v < RARE_DEALS)
    few = deals < MIN_DEALS
    if not few and not rare:
        return ""
    rare = rare if deals >= 2 else []  # one deal: every entrant "rare", nothing to say of it
    ask = MIN_DEALS * (2 if rare else 1)
    parts = []
    if deals < 2:  # ``rate`` gives no intervals: nothing to say of their coverage
        parts.append(f"Only {deals} deal{'s' if deals != 1 else ''}: no intervals (one deal "
                     "or none has nothing to resample) and too few to answer.")
    elif few:
        parts.append(
            f"Only {deals} deal{'s' if deals != 1 else ''}: these answers are too uncertain to "
            f"rely on. At this size the 95 % intervals are unreliable — they may cover the "
            f"true value less often than 95 % (about 92–95 % at 15 deals, measured on a known "
            f"pool where every entrant wins now and then).")
    if rare:
        who = ", ".join(f"`{k}` ({deals_won[k]} of {deals})" for k in rare)
        parts.append(
            f"{who} won in fewer than {RARE_DEALS} deals: its rating is barely measured, and "
            "so is every other's (the ratings are centred on the pool) — on a known pool with "
            "an entrant that rarely wins, the 95 % rating intervals covered 85 % at 14 deals "
            "and 93 % at 30, and with one that almost never wins 49 % at 14 deals, 76 % at 30 "
            "and 85 % at 60. Its win rate and head-to-head shares keep their Wilson bounds.")
    parts.append(f"{ask} deals or more fix {'most of ' if rare else ''}it: --games "
                 f"{ask * max(1, orders)} or more per seating.")
    return " ".join(parts)


def _edge_share(k: float, n: float, deals: int) -> tuple[float, float] | None:
    """Wilson's interval for a share that is 0 (``k == 0``) or 1 (``k == n``) in every game,
    counting each of the ``deals`` it was measured in as one trial (the games of a deal are not
    independent; one trial per deal is the conservative count); ``None`` for any other share
    (the bootstrap's interval stands)."""
    if n <= 0 or deals <= 0 or 0 < k < n:
        return None
    iv = wilson(0.0 if k <= 0 else float(deals), deals)
    return iv.lo, iv.hi


def ratio_test(num: np.ndarray, den: np.ndarray, null: float) -> float:
    """Two-sided p-value over deals that ``Σ num / Σ den`` equals ``null``: the one-sample t-test
    (``d − 1`` degrees of freedom) of the per-deal values ``num − null · den``, the deal as the
    unit (the cluster-robust test of a ratio estimator; Cochran, *Sampling Techniques*, 3rd
    ed., section 6.4), over the deals with ``den > 0``. A share of 0 (or 1) in every deal has no
    spread: the exact binomial test of 0 (or all) of the deals at ``null``, one trial per deal
    (as ``_edge_share`` counts them). ``nan`` with fewer than 2 deals."""
    keep = den > 0
    n, d = num[keep], den[keep]
    if n.size < 2:
        return math.nan
    if n.sum() <= 0 or n.sum() >= d.sum():
        return float(sps.binomtest(0 if n.sum() <= 0 else n.size, n.size, null).pvalue)
    u = n - null * d
    if not np.std(u) > 0:
        return 0.0 if u[0] else 1.0
    return float(sps.ttest_1samp(u, 0.0).pvalue)


def _above_fair_test(won: np.ndarray, seats: np.ndarray, won_all: np.ndarray,
                     seats_all: np.ndarray) -> float:
    """Two-sided p-value over deals that an entrant's win rate equals a fair seat's:
    ``Σ won / Σ seats − Σ won_all / Σ seats_all = 0`` (per deal: the entrant's wins and
    seat-games, the pool's). A t-test over the deals of the estimate's linearised per-deal
    values (its influence; the deal as the unit, ``d − 1`` degrees of freedom). An entrant
    that won none (or all) of its games leaves no spread: the exact binomial test of 0 (or all)
    of the deals it played in at the fair share, one trial per deal, as its interval counts
    them (``_edge_share``)."""
    keep = seats > 0
    w, s, wa, sa = won[keep], seats[keep], won_all[keep], seats_all[keep]
    d = int(w.size)
    if d < 2:
        return math.nan
    rate, fair = w.sum() / s.sum(), wa.sum() / sa.sum()
    if w.sum() <= 0 or w.sum() >= s.sum():
        if not 0 < fair < 1:
            return math.nan
        return float(sps.binomtest(0 if w.sum() <= 0 else d, d, fair).pvalue)
    u = (w - rate * s) / s.mean() - (wa - fair * sa) / sa.mean()
    se = float(np.std(u, ddof=1) / math.sqrt(d))
    if not se > 0:
        return 0.0 if rate != fair else 1.0
    return float(2 * sps.t.sf(abs(rate - fair) / se, d - 1))


def _mover(w: float, w_iv: tuple[float, float], f: float, f_iv: tuple[float, float]
           ) -> tuple[float, float]:
    """Interval of ``w − f`` from the intervals of ``w`` and ``f`` (MOVER, the method of
    variance estimates recovery: Newcombe 1998, Statist. Med. 17:873; Zou & Donner 2008,
    Statist. Med. 27:1693): ``d − √((w − l_w)² + (u_f − f)²)``, ``d + √((u_w − w)² + (f −
    l_f)²)``. Used where ``w`` is a share of 0 or 1 (its own interval Wilson's), so that the
    difference has a real interval."""
    d = w - f
    return (d - float(np.hypot(w - w_iv[0], f_iv[1] - f)),
            d + float(np.hypot(w_iv[1] - w, f - f_iv[0])))


@dataclass(frozen=True)
class Ratings:
    """Everything ``rate`` estimates, with 95 % bootstrap intervals over deals.

    Attributes
    ----------
    table : DataFrame
        One row per entrant, best rating first: ``entrant, games, seat_games, rating,
        rating_lo, rating_hi, win_rate, win_lo, win_hi, above_fair, above_fair_lo,
        above_fair_hi, mean_rank, rank_lo, rank_hi, fair_share, gap_next, gap_lo, gap_hi``.
        ``rating`` is the centred Plackett–Luce log-strength; ``games`` the games it played,
        ``seat_games`` its seats summed over games. ``fair_share`` is the pool's win share per
        seat-game, ``(1 − q)/n`` with ``q`` the share of games nobody won (the same in every
        row); ``above_fair`` the entrant's win rate minus it (both from the same replicates).
        ``gap_next`` is the rating minus the next row's (``nan`` in the last row), its interval
        from the same bootstrap replicates. ``deals_won``: the deals in which the entrant won
        (a share of) a game. ``above_fair_p`` and ``gap_p`` are two-sided
        p-values of tests over deals, not read off the (asymmetric) percentile intervals:
        ``above_fair`` against 0 by ``_above_fair_test``; the gap against 0 by ``ratio_test``
        of the row's head-to-head share against the next row's at 1/2 (in the Plackett–Luce
        model ``a`` finishes above ``b`` with chance ``1 / (1 + exp(θ_b − θ_a))``, 1/2 exactly
        when the gap is 0).
    head_to_head : DataFrame
        One row per ordered pair that met: ``entrant, opponent, meetings, above, lo, hi,
        model``: the share of meetings (a seat of each in one game) where ``entrant`` finished
        above ``opponent`` (a tie counts 1/2), its interval, and the share the fitted model
        predicts, ``1 / (1 + exp(θ_opponent − θ_entrant))``.
    deals, n_boot : int
        Deals (game seeds) and bootstrap replicates behind the intervals.
    spread : dict
        The skill spread (issue #36): the best-rated entrant (``strongest``, the table's first
        row) against the worst-rated (``weakest``, its last): ``win`` its win rate minus the
        weakest's (a share), ``rating`` its rating minus the weakest's (log-strength), each
        with ``*_lo``, ``*_hi`` from the same bootstrap replicates (the two entrants fixed, as
        picked on all deals); empty with fewer than two entrants.
    """

    table: pd.DataFrame
    head_to_head: pd.DataFrame
    deals: int
    n_boot: int
    spread: dict = field(default_factory=dict)


def _per_deal(f: Finishes) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Sums per deal: seats, wins, ranks per entrant; meetings and wins above per pair."""
    deals, inv = np.unique(f.deal, return_inverse=True)
    d, n, p = len(deals), len(f.entrants), f.who.shape[1]
    flat_deal = np.repeat(inv, p)
    flat_who = f.who.ravel()

    def by_entrant(values: np.ndarray) -> np.ndarray:
        out = np.zeros((d, n))
        np.add.at(out, (flat_deal, flat_who), values)
        return out

    seats = by_entrant(np.ones(flat_who.size))
    played = np.zeros((d, n))
    present = np.zeros((f.n_games, n), dtype=bool)
    present[np.repeat(np.arange(f.n_games), p), flat_who] = True
    np.add.at(played, (inv,), present.astype(float))
    out = {"seats": seats, "won": by_entrant(f.won.ravel()),
           "rank": by_entrant(f.rank.ravel().astype(float)), "games": played}
    above = np.zeros((d, n, n))
    meet = np.zeros((d, n, n))
    for i, j in itertools.permutations(range(p), 2):
        a, b = f.who[:, i], f.who[:, j]
        score = (f.rank[:, i] < f.rank[:, j]) + 0.5 * (f.rank[:, i] == f.rank[:, j])
        np.add.at(above, (inv, a, b), score)
        np.add.at(meet, (inv, a, b), 1.0)
    out["above"], out["meet"] = above, meet
    return inv, out


def rate(f: Finishes, n_boot: int = DEFAULT_BOOT, seed: int = 0) -> Ratings:
    """Plackett–Luce ratings, win rates, mean ranks and head-to-head shares of a pool.

    Parameters
    ----------
    f : Finishes
    n_boot : int
        Bootstrap replicates (resampled deals), ``>= 0``; 0 gives no intervals (``nan``), and
        so does a single deal (every replicate would be it: intervals of width 0), for which
        the result's ``n_boot`` is 0.
    seed : int
        Seed of the bootstrap's generator (``numpy.random.default_rng``): the same records and
        seed give the same intervals.

    Returns
    -------
    Ratings
    """
    n = len(f.entrants)
    inv, sums = _per_deal(f)
    lik = _Likelihood(f.who, f.rank, n)
    theta = plackett_luce(f.who, f.rank, n, likelihood=lik)

    def shares(c: np.ndarray) -> dict[str, np.ndarray]:
        seats = c @ sums["seats"]
        won = c @ sums["won"]
        with np.errstate(invalid="ignore", divide="ignore"):
            win = won / seats
            # a fair seat's share, (1 − q)/n: every game's win shares sum to 1, or to 0 when
            # nobody won
            fair = won.sum() / seats.sum()
            return {"win": win, "above_fair": win - fair, "fair": fair,
                    "rank": (c @ sums["rank"]) / seats,
                    "h2h": np.tensordot(c, sums["above"], 1) / np.tensordot(c, sums["meet"], 1)}

    d = sums["seats"].shape[0]
    point = shares(np.ones(d))
    won_all, seats_all = float(sums["won"].sum()), float(sums["seats"].sum())
    boots = {"theta": [], "win": [], "above_fair": [], "rank": [], "h2h": [], "fair": []}
    p_seats = f.who.shape[1]
    rng = np.random.default_rng(seed)
    n_boot = n_boot if d >= 2 else 0  # one deal has nothing to resample
    for _ in range(n_boot):
        c = rng.multinomial(d, np.full(d, 1.0 / d)).astype(float)
        boots["theta"].append(plackett_luce(f.who, f.rank, n, weights=c[inv], start=theta,
                                            likelihood=lik))
        for k, v in shares(c).items():
            boots[k].append(v)
    q = expanded_levels(d)

    def interval(key: str, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = np.full(shape, np.nan), np.full(shape, np.nan)
        if boots[key]:
            b = np.array(boots[key])
            ok = ~np.isnan(b).all(axis=0)  # a pair that never met has no share
            lo[ok], hi[ok] = np.nanquantile(b[:, ok], q, axis=0)
        return lo, hi

    t_lo, t_hi = interval("theta", (n,))
    w_lo, w_hi = interval("win", (n,))
    f_lo, f_hi = interval("above_fair", (n,))
    r_lo, r_hi = interval("rank", (n,))
    h_lo, h_hi = interval("h2h", (n, n))
    games = sums["games"].sum(axis=0)
    # a share that is 0 (or 1) in every game has no spread for the bootstrap to resample: its
    # percentile interval would be [0, 0]; it gets Wilson's bound for 0 (or n) of the deals it
    # played in, and a difference involving it a MOVER interval (below)
    deals_in = (sums["games"] > 0).sum(axis=0)
    won_sum, seat_sum = sums["won"].sum(axis=0), sums["seats"].sum(axis=0)
    fair_point = won_all / seats_all if seats_all else np.nan
    for k in range(n):
        edge = _edge_share(won_sum[k], seat_sum[k], int(deals_in[k]))
        if edge is None or not boots["win"]:
            continue
        w_lo[k], w_hi[k] = edge
        f_lo[k], f_hi[k] = _mover(point["win"][k], (w_lo[k], w_hi[k]), fair_point,
                                  tuple(np.quantile(boots["fair"], q)))
        if seat_sum[k]:  # always first (or last): mean rank at its bound, Wilson's for the rest
            spread = (p_seats - 1) * (edge[1] - edge[0])
            if point["win"][k] <= 0 and r_lo[k] == r_hi[k] == p_seats:
                r_lo[k] = p_seats - spread
            elif point["win"][k] >= 1 and r_lo[k] == r_hi[k] == 1:
                r_hi[k] = 1 + spread
    met = sums["meet"].sum(axis=0)
    pairs = [(a, b) for a, b in itertools.permutations(range(n), 2) if met[a, b] > 0]
    met_deals = (sums["meet"] > 0).sum(axis=0)
    above_sum = sums["above"].sum(axis=0)
    for a, b in pairs:
        edge = _edge_share(above_sum[a, b], met[a, b], int(met_deals[a, b]))
        if edge is not None and boots["h2h"]:
            h_lo[a, b], h_hi[a, b] = edge
    table = pd.DataFrame({
        "entrant": list(f.entrants), "games": games.astype(int),
        "seat_games": seat_sum.astype(int), "rating": theta,
        "rating_lo": t_lo, "rating_hi": t_hi, "win_rate": point["win"], "win_lo": w_lo,
        "win_hi": w_hi, "above_fair": point["above_fair"], "above_fair_lo": f_lo,
        "above_fair_hi": f_hi, "mean_rank": point["rank"], "rank_lo": r_lo, "rank_hi": r_hi,
    }).sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    # each entrant's rating minus the next-rated one's, its interval from the same replicates
    order = np.array([f.entrants.index(e) for e in table["entrant"]], dtype=np.int64)
    gap = np.full(n, np.nan)
    gap_lo, gap_hi = np.full(n, np.nan), np.full(n, np.nan)
    gap[:-1] = theta[order[:-1]] - theta[order[1:]]
    if boots["theta"] and n > 1:
        b = np.array(boots["theta"])
        gap_lo[:-1], gap_hi[:-1] = np.quantile(b[:, order[:-1]] - b[:, order[1:]], q, axis=0)
    table["fair_share"] = fair_point
    # deals in which each entrant won (a share of) a game: few means a barely measured rating
    # (``reliability``, ``RARE_DEALS``)
    table["deals_won"] = (sums["won"][:, order] > 0).sum(axis=0).astype(int)
    table["gap_next"], table["gap_lo"], table["gap_hi"] = gap, gap_lo, gap_hi
    # p-values from tests over deals (the deal as the unit), not from the percentile intervals
    pool_won, pool_seats = sums["won"].sum(axis=1), sums["seats"].sum(axis=1)
    table["above_fair_p"] = [_above_fair_test(sums["won"][:, k], sums["seats"][:, k], pool_won,
                                              pool_seats) for k in order]
    gap_p = np.full(n, np.nan)
    for i in range(n - 1):
        a, b = order[i], order[i + 1]
        gap_p[i] = ratio_test(sums["above"][:, a, b], sums["meet"][:, a, b], 0.5)
    table["gap_p"] = gap_p
    rows = [{"entrant": f.entrants[a], "opponent": f.entrants[b], "meetings": int(met[a, b]),
             "above": point["h2h"][a, b], "lo": h_lo[a, b], "hi": h_hi[a, b],
             "model": 1.0 / (1.0 + np.exp(theta[b] - theta[a]))} for a, b in pairs]
    h2h = pd.DataFrame(rows, columns=["entrant", "opponent", "meetings", "above", "lo", "hi",
                                      "model"])
    return Ratings(table, h2h, d, n_boot, _spread(f, theta, point["win"], order, boots, q))


def _spread(f: Finishes, theta: np.ndarray, win: np.ndarray, order: np.ndarray,
            boots: dict[str, list], q: tuple[float, float]) -> dict[str, Any]:
    """``Ratings.spread``: the best-rated entrant (``order[0]``) minus the worst-rated
    (``order[-1]``) in win rate and in rating, intervals from the bootstrap replicates."""
    if len(order) < 2:
        return {}
    a, b = int(order[0]), int(order[-1])
    out: dict[str, Any] = {"strongest": f.entrants[a], "weakest": f.entrants[b]}
    for name, point, key in (("win", win, "win"), ("rating", theta, "theta")):
        out[name] = float(point[a] - point[b])
        lo = hi = math.nan
        if boots[key]:
            x = np.array(boots[key])
            x = x[:, a] - x[:, b]
            x = x[np.isfinite(x)]
            if x.size:
                lo, hi = (float(v) for v in np.quantile(x, q))
        out[f"{name}_lo"], out[f"{name}_hi"] = lo, hi
    return out
