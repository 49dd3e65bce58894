"""Rattus Cartus end of game: plague (docs/rules/cartus.md §7.1), scoring (§7.2), winner (§7.3)."""

from __future__ import annotations

import pytest
from cartus_helpers import make_state, vec
from hypothesis import given, settings
from hypothesis import strategies as st_

from analyzer.games.cartus.scoring import (
    _majority,
    majority_points,
    outcome,
    rank_table,
    seat_points,
    survivors,
    track_points,
)


def test_t15_track_points_split_down():
    """rules §7.2 ties, T15: influence 6, 6, 3, 3, 0 scores 7, 7, 1, 1, 0."""
    assert track_points([6, 6, 3, 3, 0]) == [7, 7, 1, 1, 0]


def test_s7_2_three_tied_on_top_share_17():
    """rules §7.2: three players tied on top share 10 + 5 + 2 = 17 → 5 each; the 4th scores 0."""
    assert track_points([4, 4, 4, 1]) == [5, 5, 5, 0]


def test_s7_2_zero_scores_nothing_and_ranks_count_positive_only():
    """rules §7.2: 0 influence scores nothing; 2 players: 10 / 5."""
    assert track_points([3, 0, 0, 0]) == [10, 0, 0, 0]
    assert track_points([1, 2]) == [5, 10]
    assert track_points([0, 0, 0]) == [0, 0, 0]
    assert track_points([5, 4, 3, 2, 1]) == [10, 5, 2, 0, 0]


@pytest.mark.parametrize("tie,expected", [("all_full", [10, 10, 2, 2, 0]), ("none", [0, 0, 0, 0, 0]),
                                          ("split_down", [7, 7, 1, 1, 0])])
def test_s7_2_track_tie_options(tie, expected):
    """rules §7.2 track_tie: all tied get full points of their shared rank; or nobody scores."""
    assert majority_points([6, 6, 3, 3, 0], (10, 5, 2), tie) == expected


def test_s7_1_survivors_t11():
    """rules §7.1, T11: Nun-row 4+0+3+1+2 = 10; 10 rats survive, 11 die."""
    assert survivors([10, 11], 4 + 0 + 3 + 1 + 2) == [True, False]


def test_t11_outcome_marks_the_dead():
    """rules §7.1, T11 on a finished position: B dies and cannot win despite more VP."""
    st = make_state(2, nun_row=(4, 0, 3, 1, 2), rats=[10, 11])
    st.influence[1][0] = 5
    out = outcome(st)
    assert out.nuns == 10 and out.alive == (True, False)
    assert out.scores == (0, 10) and out.winners == (0,) and out.won == (1.0, 0.0) and out.ranks == (1, 2)


def test_t12_vp_tie_fewest_rats_wins():
    """rules §7.3, T12: two survivors tie on VP with 7 and 9 rats → 7 rats wins."""
    st = make_state(2, nun_row=(4, 4, 4, 4, 4), rats=[9, 7])
    st.vp = [3, 3]
    out = outcome(st)
    assert out.scores == (3, 3) and out.winners == (1,) and out.ranks == (2, 1)


def test_s7_3_full_tie_shared():
    """rules §7.3 DEFAULT: equal VP and rats → shared victory, 1/k each."""
    st = make_state(3, rats=[5, 5, 5])
    st.vp = [3, 3, 1]
    out = outcome(st)
    assert out.won == (0.5, 0.5, 0.0) and out.ranks == (1, 1, 3)


@pytest.mark.parametrize("mode,won", [("no_winner", (0.0, 0.0, 0.0)), ("fewest_rats", (0.0, 1.0, 0.0))])
def test_s7_1_everyone_dies(mode, won):
    """rules §7.1 DEFAULT: all dead → no winner; all_dead_result = fewest_rats → fewest rats wins."""
    st = make_state(3, {"all_dead_result": mode}, nun_row=(0, 0, 0, 0, 0), rats=[3, 1, 2])
    st.vp = [9, 0, 0]
    out = outcome(st)
    assert out.won == won and out.alive == (False, False, False)


def test_s7_2_score_parts():
    """rules §7.2: tracks + VP tokens (1 each) + Gold majority + hand majority (population + jokers)."""
    st = make_state(3, hands=[vec(church=2, joker=1), vec(sword=5, flute=2), vec(magic=1)], rats=[0, 0, 0])
    st.influence = [[3, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 2]]
    st.vp = [0, 4, 0]
    st.gold = [1, 0, 2]
    out = outcome(st)
    assert out.tracks == ((10, 0, 0, 0, 0, 0), (5, 0, 0, 0, 0, 7), (0, 0, 0, 0, 0, 7))
    assert out.hand_score == (10, 0, 5)  # Swords and Flutes in hand score nothing
    assert out.gold_score == (5, 0, 10) and out.vp_score == (0, 4, 0)
    assert out.scores == (25, 16, 22)


def test_s7_2_one_vp_each_options_and_token_value():
    """rules §7.2 options: hand_scoring / gold_scoring = 1vp_each, vp_token_value = 2."""
    rules = {"hand_scoring": "1vp_each", "gold_scoring": "1vp_each", "vp_token_value": 2}
    st = make_state(2, rules, hands=[vec(church=2, joker=1, sword=1), vec()], rats=[0, 0])
    st.vp = [1, 2]
    st.gold = [3, 0]
    out = outcome(st)
    assert out.hand_score == (3, 0) and out.gold_score == (3, 0) and out.vp_score == (2, 4)


@pytest.mark.parametrize("excluded,expected", [(False, (10, 5)), (True, (0, 10))])
def test_s7_2_dead_in_majorities(excluded, expected):
    """rules §7.2 dead_excluded_from_majorities: the dead count 0 only with the flag."""
    st = make_state(2, {"dead_excluded_from_majorities": excluded}, nun_row=(1, 1, 1, 1, 1), rats=[9, 0])
    st.influence[0][0] = 4
    st.influence[1][0] = 2
    out = outcome(st)
    assert (out.tracks[0][0], out.tracks[1][0]) == expected


@settings(max_examples=200, deadline=None)
@given(values=st_.lists(st_.integers(0, 8), min_size=2, max_size=5),
       tie=st_.sampled_from(["split_down", "all_full", "none"]))
def test_s7_2_seat_points_matches_majority_points(values, tie):
    """rules §7.2: the policies' one-seat shortcut equals the full majority scoring."""
    assert seat_points(values[:-1], values[-1], (10, 5, 2), tie) == majority_points(values, (10, 5, 2), tie)[-1]


@settings(max_examples=200, deadline=None)
@given(values=st_.lists(st_.integers(0, 8), min_size=2, max_size=5),
       tie=st_.sampled_from(["split_down", "all_full", "none"]),
       points=st_.sampled_from([(10, 5, 2), (10, 5, 2, 1), (3,)]))
def test_s7_2rank_table_matches_majority_points(values, tie, points):
    """rules §7.2: ``outcome``'s table lookup equals the full majority scoring."""
    table = rank_table(points, tie, len(values))
    assert _majority(values, table) == majority_points(values, points, tie)
