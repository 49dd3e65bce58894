"""Coverage of the tournament's rating intervals at few deals (issue #21 item 4), against a
known Plackett–Luce pool: five entrants at four seats, every seating in every rotation per
deal (as the Cartus ladder is played), each deal's games sharing a seat luck, so the games of a
deal are not independent. The true ratings are those of a fit to 3,000 deals. Measured with
300 pools per size (``ratings.MIN_DEALS``): the plain percentile interval covered 89–92 % at 15
deals, the expanded percentile interval (``ratings.expanded_levels``) 92–95 %, and 95–97 % at
30 deals. The slow test repeats a smaller measurement; the fast one checks the widening."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from analyzer import ratings

THETA = np.array([-1.5, 0.0, 0.2, 0.4, 0.6])
SEATINGS = list(itertools.combinations(range(5), 4))


def pool(deals: int, rng: np.random.Generator, luck: float = 0.5) -> ratings.Finishes:
    """``deals`` deals of the five-entrant pool; every game of a deal shares the deal's seat
    luck and Gumbel draws per seat (what a deal's cards give a seat), plus its own noise."""
    who, rank, deal = [], [], []
    for d in range(deals):
        u = luck * rng.normal(size=4) + rng.gumbel(size=4)
        for s in SEATINGS:
            for r in range(4):
                w = np.roll(np.array(s), r)
                score = THETA[w] + u + 0.7 * rng.gumbel(size=4)
                rk = np.empty(4, int)
                rk[np.argsort(-score)] = np.arange(1, 5)
                who.append(w)
                rank.append(rk)
                deal.append(d)
    who, rank = np.array(who), np.array(rank)
    return ratings.Finishes(tuple("ABCDE"), who, rank, (rank == 1).astype(float),
                            np.array(deal))


def test_the_expanded_interval_is_wider_at_few_deals_only():
    rng = np.random.default_rng(1)
    few = ratings.rate(pool(15, rng), n_boot=200, seed=2).table
    lo, hi = ratings.expanded_levels(15)
    assert lo < 0.025 and hi > 0.975
    assert (few["rating_hi"] - few["rating_lo"]).min() > 0
    assert ratings.expanded_levels(2000)[0] == pytest.approx(0.025, abs=1e-4)


@pytest.mark.slow
def test_rating_intervals_cover_at_the_minimum_number_of_deals():
    rng = np.random.default_rng(7)
    big = pool(3000, rng)
    truth = ratings.plackett_luce(big.who, big.rank, 5)
    reps, covered = 120, np.zeros(5)
    for _ in range(reps):
        t = ratings.rate(pool(ratings.MIN_DEALS, rng), n_boot=200, seed=int(rng.integers(1 << 30)))
        t = t.table.set_index("entrant").loc[list("ABCDE")]
        covered += (t["rating_lo"].to_numpy() <= truth) & (truth <= t["rating_hi"].to_numpy())
    print("coverage at", ratings.MIN_DEALS, "deals:", covered / reps)
    assert (covered / reps).mean() >= 0.92


@pytest.mark.slow
def test_rating_intervals_with_a_rarely_winning_entrant_cover_far_less_at_few_deals():
    """Issue #32 T1, the figures ``ratings.RARE_DEALS`` quotes: entrant A 5 log-strength below
    the rest wins in about 0.8 deals per 14-deal pool; the rating intervals cover about 85 %
    (under 90 %), and most pools flag A (won in fewer than ``RARE_DEALS`` deals)."""
    global THETA
    saved = THETA
    THETA = np.array([-5.0, 0.0, 0.2, 0.4, 0.6])
    try:
        rng = np.random.default_rng(11)
        big = pool(3000, rng)
        truth = ratings.plackett_luce(big.who, big.rank, 5)
        reps, covered, flagged = 100, np.zeros(5), 0
        for _ in range(reps):
            r = ratings.rate(pool(14, rng), n_boot=200, seed=int(rng.integers(1 << 30)))
            t = r.table.set_index("entrant").loc[list("ABCDE")]
            covered += (t["rating_lo"].to_numpy() <= truth) & (truth <= t["rating_hi"].to_numpy())
            flagged += int(t.loc["A", "deals_won"] < ratings.RARE_DEALS)
    finally:
        THETA = saved
    print("coverage at 14 deals with a rarely winning entrant:", covered / reps)
    assert 0.75 <= (covered / reps).mean() < 0.90 and flagged > reps / 2
