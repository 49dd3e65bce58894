"""Pure resolution steps (docs/rules/pyramidion.md §5 phase 5 steps 4–7, §14.3) with the seed's
worked examples (§1.1–1.2, §11 T1–T6)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.games.pyramidion.resolution import new_player_order, revolt_result, step_winner

RED, YELLOW, BLUE = 0, 1, 2


def test_t1_luxor_revolt_strength_13():
    """T1 (§1.1 Luxor): strength 13; Red 9 loses his cards, Yellow 14 keeps, Blue 15 wins."""
    lost, winner = revolt_result([9, 14, 15], [True, True, True], 13)
    assert lost == [True, False, False]
    assert winner == BLUE


def test_t2_revolt_tie_nobody_wins():
    """T2: two players tie for highest influence, both >= strength: both keep, nobody wins."""
    lost, winner = revolt_result([14, 14, 3], [True, True, True], 13)
    assert lost == [False, False, True]
    assert winner == -1


def test_s5_step4_equal_to_strength_survives_and_no_cards_unaffected():
    """§5 phase 5 step 4: a total equal to the strength survives; seats without cards are unaffected."""
    lost, winner = revolt_result([13, 0, 12], [True, False, True], 13)
    assert lost == [False, False, True]
    assert winner == 0


def test_s5_step4_winner_must_survive_default_and_variant():
    """§5 phase 5 step 4 [GAP → DEFAULT]: if nobody survives nobody wins; variant: highest still wins."""
    assert revolt_result([5, 7], [True, True], 13) == ([True, True], -1)
    assert revolt_result([5, 7], [True, True], 13, winner_must_survive=False) == ([True, True], 1)


def test_t3_thebes_unique_highest_meets_minimum():
    """T3 (§1.2 Thebes): Blue's unique 7 influence meets Thebes' minimum 6 → Blue wins."""
    assert step_winner([3, 0, 7], 6) == BLUE


def test_t4_slave_driver_tie_places_nothing():
    """T4: shared highest influence → no winner."""
    assert step_winner([7, 7, 2], 4) == -1


def test_t5_abu_simbel_below_minimum():
    """T5 (§1.2 Abu Simbel): Red's unique highest negotiation 5 < minimum 6 → nothing."""
    assert step_winner([5, 0, 3], 6) == -1


def test_t6_karnak_trade_tie():
    """T6 (§1.2 Karnak): Red and Yellow both 6 trade → no winner (goods stay)."""
    assert step_winner([6, 6, 0], 5) == -1


def test_s10_2_philosopher_wins_ties_only_when_tied_and_at_minimum():
    """§10.2 Philosopher default: the holder wins a tie he is part of, if he meets the minimum."""
    assert step_winner([6, 6, 0], 5, philosopher=1) == 1
    assert step_winner([6, 6, 0], 5, philosopher=2) == -1  # holder not among the tied
    assert step_winner([4, 4, 0], 5, philosopher=0) == -1  # below the minimum
    assert step_winner([7, 6, 0], 5, philosopher=1) == 0  # no tie: the highest wins


def test_s5_step5_zero_total_meets_a_zero_minimum():
    """§5 phase 5 steps 5–7 with §10.2 Philosopher: a total of 0 is a total like any other — a
    tie at 0 gives nothing, unless the Philosopher holder is among the tied and meets a user
    minimum of 0."""
    assert step_winner([0, 0, 0], 0) == -1
    assert step_winner([0, 1, 0], 0) == 1
    assert step_winner([0, 0, 0], 0, philosopher=1) == 1
    assert step_winner([0, 0, 0], 1, philosopher=1) == -1


def test_t10_giza_order_red_first():
    """T10 (§5 phase 6): order Blue–Yellow–Red, only Red takes tile 1 → Red–Blue–Yellow."""
    assert new_player_order([BLUE, YELLOW, RED], [RED]) == [RED, BLUE, YELLOW]


def test_t20_giza_two_takers():
    """T20: order A–B–C–D; C takes tile 1, A tile 2 → C–A–B–D."""
    assert new_player_order([0, 1, 2, 3], [2, 0]) == [2, 0, 1, 3]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=2, max_size=4), st.integers(0, 40))
def test_s5_step4_revolt_properties(influence, strength):
    """§5 phase 5 step 4: the winner survives and has the unique maximum among survivors."""
    has = [True] * len(influence)
    lost, winner = revolt_result(influence, has, strength)
    assert lost == [i < strength for i in influence]
    if winner >= 0:
        assert not lost[winner]
        assert all(influence[s] < influence[winner] for s in range(len(influence)) if s != winner)
