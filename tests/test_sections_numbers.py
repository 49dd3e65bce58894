"""``sections.results_numbers`` and ``sections.variants_numbers``: the generic sections'
numbers (what ``summary.json`` holds), checked against answers computed here by hand and with
statsmodels/scipy directly."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from analyzer.report import sections

GAMES = 20
BASE_WINNERS = [0] * 15 + [None] + [1] * 4  # seat 0 wins 15 of 20 games, nobody wins game 15


def _records(winners: dict[str, list[int | None]], policies=("p", "p"), moving=False
             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two-seat games: per arm the winning seat of each game (``None``: nobody won); the winner
    scores 10 + game % 3, the loser 4; game g lasts 5 + g % 4 rounds, game 0 ends at the turn
    cap. ``moving``: the start player alternates, else seat 0 always starts."""
    games, seats = [], []
    for arm, won in winners.items():
        for g, w in enumerate(won):
            games.append({"variant": arm, "game_id": g, "rounds": 5 + g % 4,
                          "end": "turn_cap" if g == 0 else "normal"})
            seats += [{"variant": arm, "game_id": g, "seat": s, "policy": policies[s],
                       "start_position": (s + g) % 2 if moving else s, "won": float(w == s),
                       "score": 10.0 + g % 3 if w == s else 4.0} for s in (0, 1)]
    return pd.DataFrame(games), pd.DataFrame(seats)


def _shown(x: float, lo: float, hi: float, scale: float, unit: str, digits: int) -> str:
    return f"{scale * x:.{digits}f}{unit} [{scale * lo:.{digits}f}, {scale * hi:.{digits}f}]"


def test_results_numbers_are_win_rates_positions_and_score_rows():
    games, seats = _records({"base": BASE_WINNERS})
    n = sections.results_numbers(games, seats)
    assert list(n) == ["win_rate_by_policy", "score_by_policy", "seat_order", "scores"]
    # one policy at both seats: its rate is (1 − q)/2 by construction, no interval
    [pol] = n["win_rate_by_policy"]
    assert (pol["policy"], pol["n"], pol["wins"]) == ("p", 2 * GAMES, 19.0)
    assert pol["rate"] == pytest.approx(19 / 40) and pol["by_construction"]
    assert math.isnan(pol["lo"]) and math.isnan(pol["hi"])
    scores = np.array([[10.0 + g % 3 if w == s else 4.0 for s in (0, 1)]
                       for g, w in enumerate(BASE_WINNERS)])
    assert n["score_by_policy"][0]["mean"] == pytest.approx(scores.mean())
    first = n["seat_order"][0]
    lo, hi = proportion_confint(15, GAMES, method="wilson")
    assert (first["position"], first["rate"], first["lo"], first["hi"]) == pytest.approx(
        (0, 0.75, lo, hi))
    assert first["score"] == pytest.approx(scores[:, 0].mean())
    [row] = n["scores"]
    assert row["mean"] == pytest.approx(scores.mean(), abs=0.005)  # rounded to 2 decimals
    assert row["turn-cap ends"] == 1
    rounds = np.array([5 + g % 4 for g in range(GAMES)], float)
    ci = sps.t.interval(0.95, GAMES - 1, rounds.mean(), sps.sem(rounds))
    assert row["rounds"] == _shown(rounds.mean(), *ci, 1, "", 2)
    assert row["no winner"] == _shown(1 / GAMES, *proportion_confint(1, GAMES, method="wilson"),
                                      100, " %", 1)
    assert "death rate" not in row


def test_results_numbers_of_mixed_policies_and_of_games_always_won():
    games, seats = _records({"base": [g % 4 == 0 for g in range(GAMES)]}, policies=("a", "b"))
    n = sections.results_numbers(games, seats)
    a, b = n["win_rate_by_policy"]  # one seat each: a plain Wilson interval over the games
    lo, hi = proportion_confint(15, GAMES, method="wilson")
    assert (a["policy"], a["rate"], a["lo"], a["hi"]) == pytest.approx(("a", 0.75, lo, hi))
    assert not a["by_construction"] and b["rate"] == pytest.approx(0.25)
    assert "no winner" not in n["scores"][0]  # every game had a winner, nobody can die


def test_variants_numbers_pair_each_variant_with_the_base_game_by_game():
    v1 = [g % 2 for g in range(GAMES)]
    _, seats = _records({"base": BASE_WINNERS, "v1": v1})
    n = sections.variants_numbers(seats, {"seat_rotation": False}, "holm")
    assert list(n) == ["won_by_seat", "score_by_seat", "score_all", "correction",
                       "per_seat_shown"]
    assert n["correction"] == "holm" and n["per_seat_shown"]  # the start player never moves
    b = np.array([float(w == 0) for w in BASE_WINNERS])
    d = np.array([float(w == 0) for w in v1]) - b
    seat0 = n["won_by_seat"][0]
    assert (seat0["variant"], seat0["seat"], seat0["n"]) == ("v1", 0, GAMES)
    ci = sps.t.interval(0.95, GAMES - 1, d.mean(), sps.sem(d))
    assert (seat0["base_mean"], seat0["diff"], seat0["lo"], seat0["hi"]) == pytest.approx(
        (0.75, d.mean(), *ci))
    assert seat0["p_value"] == pytest.approx(sps.ttest_1samp(d, 0.0).pvalue)
    def score(won: list[int | None]) -> np.ndarray:  # the mean over both seats, per game
        return np.array([(14.0 + g % 3) / 2 if w is not None else 4.0 for g, w in enumerate(won)])

    d = score(v1) - score(BASE_WINNERS)
    [all_seats] = n["score_all"]
    assert all_seats["diff"] == pytest.approx(d.mean())
    assert all_seats["p_adjusted"] == pytest.approx(sps.ttest_1samp(d, 0.0).pvalue)  # one row


def test_variants_numbers_by_policy_exchangeable_seats_and_one_arm():
    _, seats = _records({"base": BASE_WINNERS, "v1": BASE_WINNERS[::-1]},
                            policies=("a", "b"))
    n = sections.variants_numbers(seats, {"seat_rotation": False})
    pol = {r["policy"]: r for r in n["won_by_policy"]}
    assert list(n)[-1] == "won_by_policy" and pol["a"]["base_mean"] == pytest.approx(0.75)
    _, seats = _records({"base": BASE_WINNERS, "v1": BASE_WINNERS}, moving=True)
    assert not sections.variants_numbers(seats, {"seat_rotation": True})["per_seat_shown"]
    _, seats = _records({"base": BASE_WINNERS})
    assert sections.variants_numbers(seats) == {}
