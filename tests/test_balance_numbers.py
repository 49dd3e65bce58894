"""``balance.numbers``: the balance section's numbers (what ``summary.json`` holds), checked
against answers computed here by hand and with statsmodels/scipy directly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from analyzer.report import balance

GAMES = 20


def _records(winners: dict[str, list[int | None]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two-seat games: per arm, the winning seat of each game (``None``: nobody won); the
    winner scores 10 + game % 3, the loser 4; game g lasts 5 + g % 4 rounds."""
    games, seats = [], []
    for arm, won in winners.items():
        for g, w in enumerate(won):
            games.append({"variant": arm, "game_id": g, "rounds": 5 + g % 4})
            seats += [{"variant": arm, "game_id": g, "seat": s, "won": float(w == s),
                       "score": 10.0 + g % 3 if w == s else 4.0} for s in (0, 1)]
    return pd.DataFrame(games), pd.DataFrame(seats)


def test_numbers_are_the_arms_rates_and_their_corrected_paired_differences():
    base = [0] * 15 + [None] + [1] * 4  # seat 0 wins 15 of 20 games, nobody wins game 15
    v1 = [g % 2 for g in range(GAMES)]  # each seat wins 10
    v2 = [1] + base[1:]  # the base with game 0 won by seat 1
    games, seats = _records({"base": base, "v1": v1, "v2": v2})
    n = balance.numbers(games, seats, "holm")
    assert list(n) == ["arms", "vs_base", "correction"] and n["correction"] == "holm"
    row = n["arms"][0]
    assert row["variant"] == "base" and row["games"] == GAMES
    lo, hi = proportion_confint(15, GAMES, method="wilson")
    assert (row["seat_0"], row["seat_0_lo"], row["seat_0_hi"]) == pytest.approx((0.75, lo, hi))
    assert row["seat_1"] == pytest.approx(0.2) and row["max_minus_min"] == pytest.approx(0.55)
    lo, hi = proportion_confint(1, GAMES, method="wilson")
    assert (row["no_winner"], row["no_winner_lo"], row["no_winner_hi"]) == pytest.approx(
        (0.05, lo, hi))
    spread = np.array([0.0 if w is None else 6 + g % 3 for g, w in enumerate(base)])
    ci = sps.t.interval(0.95, GAMES - 1, spread.mean(), sps.sem(spread))
    assert (row["spread"], row["spread_lo"], row["spread_hi"]) == pytest.approx(
        (spread.mean(), *ci))
    assert row["rounds"] == pytest.approx(np.mean([5 + g % 4 for g in range(GAMES)]))
    assert [r["variant"] for r in n["arms"]] == ["base", "v1", "v2"]
    assert n["arms"][1]["seat_0"] == n["arms"][1]["seat_1"] == 0.5

    won_0 = {r["variant"]: r for r in n["vs_base"] if r["metric"] == "won_0"}
    assert list(won_0) == ["v1", "v2"]
    b = np.array([float(w == 0) for w in base])
    p = []
    for arm, won in (("v1", v1), ("v2", v2)):
        d = np.array([float(w == 0) for w in won]) - b
        ci = sps.t.interval(0.95, GAMES - 1, d.mean(), sps.sem(d))
        r = won_0[arm]
        assert (r["n"], r["diff"], r["lo"], r["hi"]) == pytest.approx((GAMES, d.mean(), *ci))
        p.append(sps.ttest_1samp(d, 0.0).pvalue)
        assert r["p_value"] == pytest.approx(p[-1]) and r["value_unit"] == "share"
    sig, adjusted, _, _ = multipletests(p, method="holm")  # the two rows of the column
    assert [won_0[a]["p_adjusted"] for a in ("v1", "v2")] == pytest.approx(list(adjusted))
    assert [won_0[a]["significant_adjusted"] for a in ("v1", "v2")] == list(sig)
    rounds = [r for r in n["vs_base"] if r["metric"] == "rounds"]
    assert [r["diff"] for r in rounds] == [0.0, 0.0] and rounds[0]["value_unit"] == "rounds"


def test_numbers_without_a_base_or_of_one_arm():
    games, seats = _records({"a": [0] * GAMES, "b": [1] * GAMES})
    n = balance.numbers(games, seats)
    assert list(n) == ["arms"] and [r["seat_0"] for r in n["arms"]] == [1.0, 0.0]
    games, seats = _records({"base": [0] * GAMES})
    assert balance.numbers(games, seats) == {}
