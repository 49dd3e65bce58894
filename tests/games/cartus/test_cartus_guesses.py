"""Rattus Cartus labelled defaults counted where they act (``metrics.GUESSES``, the game record's
``acted_*`` columns): one test per counter on a hand-built position, named after the rules section
of its default (docs/rules/cartus.md)."""

from __future__ import annotations

import pytest
from cartus_helpers import Scripted, enter, make_state, phase_c, resolve, vec

from analyzer.games.cartus import SPEC, default_config, metrics, play_game
from analyzer.games.cartus.config import DEFAULT_BUILDINGS, MAGIC_B
from analyzer.games.cartus.scoring import outcome, tie_scores


def record(st) -> dict:
    """The game record of the position as if the game ended now."""
    return metrics.game_record(st, outcome(st))


@pytest.mark.parametrize("rules", [{}, {"building_selection": "random_buildings"}])
def test_guess_counters_are_declared_rule_values(rules):
    """Each counter is an int64 game column ``acted_*`` and names a rule value of the run."""
    names = {v.name for v in SPEC.rule_values(default_config(4, **rules))}
    assert len(SPEC.guesses) == len({g.column for g in SPEC.guesses}) == 6
    for g in SPEC.guesses:
        assert g.column.startswith("acted_") and SPEC.game_columns[g.column] == "int64"
        assert g.default in names, g.default
        assert g.section.startswith("docs/rules/cartus.md §") and g.what


def test_guess_counters_in_every_record():
    """A whole game's record carries every counter as a count (int >= 0)."""
    rec, _ = play_game(default_config(4), "greedy", 5)
    for g in SPEC.guesses:
        assert isinstance(rec[g.column], int) and rec[g.column] >= 0


# ---------------------------------------------------------------- §2 the 12th building


def test_s2_magic_b_actions_counted():
    """rules §2 [G]: every action of the invented ``magic_b`` (premium and standard) counts once."""
    assert DEFAULT_BUILDINGS[MAGIC_B] == "magic_b"
    st = make_state(3, row=["magic_b", "castle"], hands=[vec(magic=2), vec(magic=1), vec(chivalry=1)])
    enter(st, 0, 0, vec(magic=2))
    enter(st, 0, 1, vec(magic=1))
    enter(st, 1, 2, vec(chivalry=1))
    resolve(st, r=0)
    resolve(st, r=1)
    assert st.acted_magic_b == 2  # the Castle's action is sourced: not counted
    assert st.standard[1][MAGIC_B] == 1 and st.premium[0][MAGIC_B] == 1
    assert record(st)["acted_magic_b"] == 2


# ---------------------------------------------------------------- §4 phase D b premium ties


def test_s4_phase_d_b_premium_tie_counted():
    """rules §4 phase D b [G]: a tie for the most cards is settled by ``tie_mode`` and counted
    once per building; a unique best, or a tie below ``premium_min_cards``, is not."""
    st = make_state(4, row=["monastery", ("monastery", 2), ("monastery", 3)],
                    hands=[vec(church=2), vec(church=1, royalty=1), vec(church=1), vec()])
    enter(st, 0, 0, vec(church=2))
    enter(st, 0, 1, vec(church=1, royalty=1))  # 2 cards too: tied
    enter(st, 1, 2, vec(church=1))
    enter(st, 1, 3, vec())  # unique best
    enter(st, 2, 0, vec())
    enter(st, 2, 3, vec())  # a 0-0 tie: nobody reaches 1 card, the tie rule is not asked
    for r in range(3):
        resolve(st, r=r)
    assert st.acted_premium_tie == 1
    assert st.premium[0][2] == st.premium[1][2] == st.premium[2][2] == 1  # all tied premium


# ---------------------------------------------------------------- §6 the Pass


@pytest.mark.parametrize("use,count", [(True, 1), (False, 0)])
def test_s6_pass_played_counted(use, count):
    """rules §6 [G]: a Pass played for a second disc counts; declining it does not."""
    st = make_state(2, row=["palace", "farm"], hands=[vec(royalty=1, **{"pass": 1}), vec()])
    pols = [Scripted(enter=[0, 1], cards=[vec(royalty=1), vec()], use_pass=[use]),
            Scripted(enter=[1], cards=[vec()])]
    phase_c(st, pols)
    assert st.acted_pass == count
    assert record(st)["acted_pass"] == count


# ---------------------------------------------------------------- §7 end of the game


def test_s7_2_majority_ties_counted():
    """rules §7.2 ties [G]: each majority (track, hand, Gold) whose paying places hold a tie counts
    once; a tie below the paying places does not."""
    st = make_state(5, hands=[vec(church=1), vec(church=1), vec(), vec(), vec()])
    st.influence[0][0], st.influence[1][0], st.influence[2][0] = 6, 6, 3  # tie on top
    for s, v in enumerate([5, 4, 3, 3, 0]):  # 3-3 shares 3rd place
        st.influence[s][1] = v
    for s, v in enumerate([5, 4, 3, 1, 1]):  # 1-1 tie after the 3 paying places
        st.influence[s][2] = v
    st.gold = [2, 1, 0, 0, 0]  # no tie
    out = outcome(st)
    assert out.majority_ties == 3  # royalty, church tracks and the hand (1-1)
    assert record(st)["acted_majority_tie"] == 3
    assert tie_scores([5, 4, 3, 1, 1], 3) is False and tie_scores([5, 4, 3, 3, 0], 3) is True


@pytest.mark.parametrize("excluded", [False, True])
def test_s7_2_dead_in_majority_counted(excluded):
    """rules §7.2 are the dead ranked [G]: a majority where a dead player holds a paying place
    counts (the rule decides whether survivors move up), whatever the option says."""
    st = make_state(4, {"dead_excluded_from_majorities": excluded}, nun_row=(2, 2, 2, 2, 2),
                    rats=[11, 0, 0, 0])
    st.influence[0][0], st.influence[1][0] = 4, 2  # dead seat 0 first
    for s, v in enumerate([1, 5, 4, 3]):  # dead seat 0 fourth: no paying place
        st.influence[s][1] = v
    out = outcome(st)
    assert out.alive == (False, True, True, True) and out.dead_in_majorities == 1
    assert record(st)["acted_dead_in_majority"] == 1


def test_s7_2_dead_in_majority_not_counted_without_survivors():
    """rules §7.2: with everyone dead (or nobody) the rule on the dead changes no survivor's points."""
    st = make_state(2, nun_row=(0, 0, 0, 0, 0), rats=[1, 1])
    st.influence[0][0] = 3
    assert outcome(st).dead_in_majorities == 0
    st = make_state(2, rats=[0, 0])
    st.influence[0][0] = 3
    assert outcome(st).dead_in_majorities == 0


@pytest.mark.parametrize("rats,count", [([11, 12, 13], 1), ([11, 12, 10], 0)])
def test_s7_1_all_dead_counted(rats, count):
    """rules §7.1 everyone dead [G]: counted when the all-dead rule settles the result."""
    st = make_state(3, nun_row=(2, 2, 2, 2, 2), rats=rats)
    assert record(st)["acted_all_dead"] == count
