"""The stable interface of the Pyramidion package, checked with the seed's worked examples
(docs/rules/pyramidion.md §1.1–§1.2, seeds 002 and 003)."""

from __future__ import annotations

import pytest

from analyzer.errors import RuleError
from analyzer.games.pyramidion import default_config, play_game
from analyzer.games.pyramidion.resolution import award, revolt, step_winner


def test_s1_1_luxor_revolt_strength_13():
    """Red 9 discards everything, Yellow 14 stays, Blue (more than 14) takes the goods."""
    red, yellow, blue = 9, 14, 16
    assert revolt([red, yellow, blue], 13) == ([True, False, False], 2)


def test_s1_1_revolt_tie_among_stayers_takes_nothing_and_all_below_lose():
    assert revolt([14, 14, 3], 13) == ([False, False, True], None)
    assert revolt([5, 7], 13) == ([True, True], None)


def test_s1_2_thebes_slave_driver_7_meets_the_minimum():
    """Blue's 7 is the single highest and meets Thebes' minimum (6 by default; the seed says ≤ 7)."""
    cfg = default_config(4)
    thebes_min = cfg.site_min[cfg.site_names.index("Thebes")][0]
    assert thebes_min <= 7
    assert award([7, 4, 2], thebes_min) == 0
    assert award([7, 4, 2], 8) is None  # the same totals below a higher minimum


def test_s1_2_abu_simbel_below_minimum_places_nothing():
    """Red has the most negotiation but not the minimum 6: Blue's old negotiator tile stays."""
    assert award([5, 3, 0], 6) is None


def test_s1_2_karnak_6_6_trade_tie_leaves_the_goods():
    assert award([6, 6, 2], 5) is None


@pytest.mark.parametrize("totals,minimum", [([7, 3, 5], 6), ([6, 6, 2], 5), ([5, 3, 0], 6),
                                             ([4, 9, 9, 1], 0), ([2, 8], 8)])
def test_award_agrees_with_the_engine_step_for_positive_totals(totals, minimum):
    w = step_winner(totals, minimum)
    assert award(totals, minimum) == (None if w < 0 else w)


def test_default_config_and_play_game():
    config = default_config(3, target_vp=8)
    game, seats = play_game(config, ["greedy"] * 3, 5)
    assert game["n_players"] == 3 and len(seats) == 3
    with pytest.raises(RuleError):
        default_config(5)
    with pytest.raises(RuleError):
        default_config(4, no_such_option=1)
