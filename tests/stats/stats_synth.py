"""Synthetic record tables with a known truth, for the tests in tests/stats/.

Each builder returns ``(games, seats)`` DataFrames shaped like the runner's records (the columns
the report reads), drawn from a stated model so the right answer is known.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def positions_table(n_games: int, n_seats: int, no_winner: float, rng: np.random.Generator,
                    win_probs=None, variant: str = "base", random_start: bool = True,
                    policies=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games where nobody wins with probability ``no_winner``; otherwise one winner, whose
    turn-order position is drawn from ``win_probs`` (default: every position alike — a fair
    game). The start player is a random seat (``random_start``) or seat 0.

    Seats carry ``policies[seat]`` (default one policy, ``"p"``), ``score`` = 10 for the winner
    else 0 plus noise, and ``died`` = 1 in games nobody won.
    """
    probs = np.full(n_seats, 1 / n_seats) if win_probs is None else np.asarray(win_probs, float)
    policies = policies or ["p"] * n_seats
    nobody = rng.random(n_games) < no_winner
    winner_pos = rng.choice(n_seats, size=n_games, p=probs)
    start = rng.integers(0, n_seats, n_games) if random_start else np.zeros(n_games, int)
    grows, srows = [], []
    for g in range(n_games):
        grows.append({"variant": variant, "game_id": g, "rounds": 8, "end": "trigger",
                      "n_players": n_seats, "rules_version": "synthetic"})
        for seat in range(n_seats):
            pos = (seat - start[g]) % n_seats
            won = float(not nobody[g] and pos == winner_pos[g])
            srows.append({"variant": variant, "game_id": g, "seat": seat,
                          "policy": policies[seat], "start_position": int(pos), "won": won,
                          "score": 10 * won + float(rng.normal()), "rank": 1,
                          "died": int(nobody[g])})
    return pd.DataFrame(grows), pd.DataFrame(srows)


def clustered_deaths(n_games: int, n_seats: int, mean: float, icc: float,
                     rng: np.random.Generator) -> np.ndarray:
    """Deaths per game, shape (n_games,): each game draws its death chance from a beta
    distribution with the given mean and intra-game correlation ``icc`` (beta-binomial), so the
    seats of one game die together more often than independent seats."""
    a = mean * (1 - icc) / icc
    b = (1 - mean) * (1 - icc) / icc
    return rng.binomial(n_seats, rng.beta(a, b, n_games))


def factorial_sets(n_games: int, probs: dict[tuple[str, str], list[float]],
                   rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A 2×2 building design on shared seeds: set ``(x, y)`` has winner probabilities
    ``probs[(x, y)]`` over 4 seats and a no-winner share ``1 − sum``. Game ``g`` of every set
    uses the same uniform draw (common random numbers), so the sets are paired by seed."""
    u = rng.random(n_games)
    grows, srows = [], []
    for j, ((x, y), p) in enumerate(probs.items()):
        var = "base" if j == 0 else f"v{j}"
        cum = np.cumsum(p)
        winner = np.searchsorted(cum, u, side="right")  # == len(p): nobody won
        for g in range(n_games):
            grows.append({"variant": var, "game_id": g, "rounds": 8,
                          "building_set": f"{x}+{y}", "building_x": x, "building_y": y})
            for s in range(len(p)):
                srows.append({"variant": var, "game_id": g, "seat": s, "score": 0.0,
                              "won": float(winner[g] == s), "died": int(winner[g] == len(p))})
    return pd.DataFrame(grows), pd.DataFrame(srows)
