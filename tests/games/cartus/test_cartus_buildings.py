"""Rattus Cartus buildings (docs/rules/cartus.md §5) and special cards (§6): premium and standard
action of each building, each special card, on hand-built positions with exact numbers."""

from __future__ import annotations

import pytest
from cartus_helpers import Scripted, card, enter, make_state, phase_c, resolve, vec

from analyzer.errors import IllegalChoice
from analyzer.games.cartus.config import FLUTE, JOKER, PASS, SWORD


def premium_and_standard(building, *, rules=None, hands=None, rats=(10, 10, 10), deck=(), pols=None):
    """Seat 0 plays 1 card of the building's class (premium), seat 1 plays 0 (standard)."""
    st = make_state(3, rules, row=[building], rats=list(rats), deck=list(deck),
                    hands=hands or [vec(), vec(), vec()])
    k = st.cfg.card_class[card(st, building)]
    st.hands[0][k] += 1
    enter(st, 0, 0, [1 if t == k else 0 for t in range(10)])
    enter(st, 0, 1, vec())
    resolve(st, pols)
    return st


def test_s5_palace():
    """rules §5 Palace: premium 2 VP tokens, standard 1."""
    st = premium_and_standard("palace")
    assert st.vp[:2] == [2, 1] and st.vp_supply == 17


def test_s5_palace_short_supply():
    """rules §5 supplies run out [G]: owed players take in space order until the supply is empty."""
    st = make_state(3, row=["palace"], hands=[vec(royalty=1), vec(), vec()])
    st.vp_supply = 2
    enter(st, 0, 0, vec(royalty=1))
    enter(st, 0, 1, vec())
    enter(st, 0, 2, vec())
    resolve(st)
    assert st.vp == [2, 0, 0] and st.vp_supply == 0


def test_s5_treasury():
    """rules §5 Treasury: premium 2 Gold, standard 1."""
    st = premium_and_standard("treasury")
    assert st.gold[:2] == [2, 1] and st.gold_supply == 12


def test_s5_monastery():
    """rules §5 Monastery: premium discard 2 rats, standard 1."""
    st = premium_and_standard("monastery", rats=(10, 10, 10))
    assert st.rats[:2] == [8, 9]


def test_s5_hospital_premium():
    """rules §5 Hospital premium: 1 free rat, then up to 3 hand cards for as many rats."""
    st = make_state(2, row=["hospital"], hands=[vec(church=1, royalty=2, sword=2), vec()], rats=[3, 5])
    enter(st, 0, 0, vec(church=1))
    pols = [Scripted(hospital=[vec(royalty=1, sword=1)]), Scripted()]
    resolve(st, pols)
    assert pols[0].calls == [("hospital", 0, 2)]  # cap = min(3, rats left 2, hand 4)
    assert st.rats[0] == 0 and st.hands[0] == vec(royalty=1, sword=1)
    assert st.discard.count(0) == 1 and st.supply[SWORD] == 11


def test_t14_hospital_standard_up_to_two():
    """rules §5 Hospital standard, T14: 5 rats, 4 hand cards → may trade 0–2 cards 1:1."""
    st = make_state(2, row=["hospital"], hands=[vec(church=1), vec(magic=4)], rats=[10, 5])
    enter(st, 0, 0, vec(church=1))
    enter(st, 0, 1, vec())
    pols = [Scripted(hospital=[vec()]), Scripted(hospital=[vec(magic=2)])]
    resolve(st, pols)
    assert pols[1].calls == [("hospital", 1, 2)]
    assert st.rats == [9, 3] and st.hands[1] == vec(magic=2)


def test_s5_hospital_over_cap_is_illegal():
    """rules §5 Hospital: more cards than the cap is an illegal choice."""
    st = make_state(2, row=["hospital"], hands=[vec(), vec(magic=4)], rats=[10, 5])
    enter(st, 0, 1, vec())
    with pytest.raises(IllegalChoice):
        resolve(st, [Scripted(), Scripted(hospital=[vec(magic=3)])])


def test_s5_hospital_zero_rats_no_decision():
    """rules §5 Hospital [G]: with 0 rats he may not discard cards for nothing."""
    st = make_state(2, row=["hospital"], hands=[vec(), vec(magic=4)], rats=[10, 0])
    enter(st, 0, 1, vec())
    resolve(st)  # an unscripted decision would fail
    assert st.hands[1] == vec(magic=4)


def test_s5_office():
    """rules §5 Office: premium 2 Passes, standard 1."""
    st = premium_and_standard("office")
    assert st.hands[0][PASS] == 2 and st.hands[1][PASS] == 1 and st.supply[PASS] == 9


def test_s5_marketplace():
    """rules §5 Marketplace: premium 2 jokers, standard 1."""
    st = premium_and_standard("marketplace")
    assert st.hands[0][JOKER] == 2 and st.hands[1][JOKER] == 1 and st.supply[JOKER] == 12


def test_s5_castle():
    """rules §5 Castle: premium 2 Swords, standard 1."""
    st = premium_and_standard("castle")
    assert st.hands[0][SWORD] == 2 and st.hands[1][SWORD] == 1


def test_s5_farm():
    """rules §5 Farm: premium draw 4, standard draw 2."""
    st = premium_and_standard("farm", deck=[5] * 6)
    assert st.hands[0] == vec(magic=4) and st.hands[1] == vec(magic=2)


def test_t13_brewery_counts_influence_this_round():
    """rules §5 Brewery, T13: Monastery (row 1) with 2 cards, then Brewery (row 2) with 3 → premium draws 5."""
    st = make_state(2, row=["monastery", "brewery"], hands=[vec(church=2, peasantry=3), vec(peasantry=1)],
                    deck=[0] * 10)
    enter(st, 0, 0, vec(church=2))
    enter(st, 1, 0, vec(peasantry=3))
    enter(st, 1, 1, vec(peasantry=1))
    resolve(st, r=0)
    resolve(st, r=1)
    assert st.hands[0] == vec(royalty=5)  # premium: 2 + 3 influence this round
    assert st.hands[1] == vec(royalty=0)  # standard: 1 // 2 = 0
    assert st.round_influence == [5, 1]


def test_t13_brewery_standard_halves_down():
    """rules §5 Brewery, T13: the standard action with 5 influence this round draws 2."""
    st = make_state(2, row=["brewery"], hands=[vec(peasantry=5), vec(peasantry=6)], deck=[0] * 10)
    st.round_influence = [0, 0]
    enter(st, 0, 0, vec(peasantry=5))
    enter(st, 0, 1, vec(peasantry=6))
    resolve(st)
    assert sum(st.hands[0]) == 2 and sum(st.hands[1]) == 6


def test_s5_fortune_tellers_tent():
    """rules §5 Fortune-teller's Tent: premium looks at 2 Nun-row cards, standard 1."""
    pols = [Scripted(look=[0, 4]), Scripted(look=[2]), Scripted()]
    st = premium_and_standard("fortune_tellers_tent", pols=pols)
    assert st.seen[:2] == [0b10001, 0b00100]


def test_s5_magic_b_flutes():
    """rules §5 MAGIC_B DEFAULT: premium 2 Flutes, standard 1."""
    st = premium_and_standard("magic_b")
    assert st.hands[0][FLUTE] == 2 and st.hands[1][FLUTE] == 1


def test_t7_guard_tower_premium():
    """rules §5 Guard Tower, T7: you hold 4; X (5) gives 3, Y (3) gives none, Z (6) is protected."""
    st = make_state(5, row=["guard_tower", ("guard_tower", 2)],
                    hands=[vec(chivalry=1, magic=4), vec(royalty=5), vec(church=3), vec(church=6), vec()])
    enter(st, 0, 0, vec(chivalry=1))
    enter(st, 1, 3, vec())  # Z entered the other Guard Tower
    pols = [Scripted(), Scripted(give=[vec(royalty=3)]), Scripted(), Scripted(), Scripted()]
    resolve(st, pols)
    assert pols[1].calls == [("give", 1, 3, 0, "guard_tower")]
    assert st.hands[0] == vec(magic=4, royalty=3) and st.hands[2] == vec(church=3)


def test_t8_guard_tower_giver_with_fewer_than_three():
    """rules §5 Guard Tower, T8: you hold 1, X holds 2 → X gives both."""
    st = make_state(2, {"guard_tower_2p": "allow"}, row=["guard_tower"],
                    hands=[vec(chivalry=1, magic=1), vec(royalty=2)])
    enter(st, 0, 0, vec(chivalry=1))
    resolve(st, [Scripted(), Scripted(give=[vec(royalty=2)])])
    assert st.hands == [vec(magic=1, royalty=2), vec()]


@pytest.mark.parametrize("givers,final", [("fixed_at_start", 7), ("rechecked", 4)])
def test_t16_guard_tower_givers_fixed_at_start(givers, final):
    """rules §5 Guard Tower, T16: you hold 2, X 2, Y 3 → both give (7); re-checked → only X (4)."""
    st = make_state(3, {"guard_tower_givers": givers}, row=["guard_tower"],
                    hands=[vec(chivalry=1, magic=2), vec(royalty=2), vec(church=3)])
    enter(st, 0, 0, vec(chivalry=1))
    pols = [Scripted(), Scripted(give=[vec(royalty=2)]), Scripted(give=[vec(church=3)])]
    resolve(st, pols)
    assert sum(st.hands[0]) == final


def test_s5_guard_tower_standard_protects_only():
    """rules §5 Guard Tower standard: no action, but protection from every Guard Tower premium."""
    st = make_state(3, row=["guard_tower"], hands=[vec(chivalry=1), vec(royalty=5), vec(church=1)])
    enter(st, 0, 0, vec(chivalry=1))
    enter(st, 0, 1, vec())
    pols = [Scripted(), Scripted(), Scripted(give=[vec(church=1)])]
    resolve(st, pols)  # seat 1 entered, so is protected; seat 2 holds 1 >= 0 and gives it
    assert st.hands[0] == vec(church=1) and st.hands[1] == vec(royalty=5)
    assert pols[1].calls == []
    assert st.standard[1][6] == 1 and st.premium[0][6] == 1


# ---------------------------------------------------------------- §6 special cards


def test_s6_sword_takes_half_of_victims_hand():
    """rules §6 Sword DEFAULT: a same-building entrant gives floor(hand/2) cards of his choice."""
    st = make_state(3, row=["palace"], hands=[vec(sword=2), vec(magic=5), vec(magic=9)])
    enter(st, 0, 0, vec(sword=2))
    enter(st, 0, 1, vec())
    pols = [Scripted(target=[1, 1]), Scripted(give=[vec(magic=2), vec(magic=1)]), Scripted()]
    resolve(st, pols)
    assert pols[0].calls[0] == ("target", 0, "sword", (1,))  # seat 2 did not enter: not a target
    assert st.hands[0] == vec(magic=3) and st.hands[1] == vec(magic=2)


def test_s6_sword_victim_with_one_card_gives_nothing():
    """rules §6 Sword: a victim with 0 or 1 card gives nothing."""
    st = make_state(2, row=["palace"], hands=[vec(sword=1), vec(magic=1)])
    enter(st, 0, 0, vec(sword=1))
    enter(st, 0, 1, vec())
    resolve(st, [Scripted(target=[1]), Scripted()])
    assert st.hands[1] == vec(magic=1) and st.supply[SWORD] == 12


def test_s6_sword_any_player_and_random_chooser():
    """rules §6 Sword options: sword_target = any_player, sword_chooser = random."""
    st = make_state(3, {"sword_target": "any_player", "sword_chooser": "random"}, row=["palace"],
                    hands=[vec(sword=1), vec(), vec(magic=4)])
    enter(st, 0, 0, vec(sword=1))
    pols = [Scripted(target=[2]), Scripted(), Scripted()]
    resolve(st, pols)
    assert pols[0].calls[0] == ("target", 0, "sword", (1, 2))
    assert st.hands[0] == vec(magic=2) and st.hands[2] == vec(magic=2)


def test_t17_lone_sword_and_flute_do_nothing():
    """rules §6, T17: the only entrant's Sword and Flute have no effect and go back to supply."""
    st = make_state(2, row=["palace"], hands=[vec(sword=1, flute=1), vec(magic=4)], rats=[5, 5])
    enter(st, 0, 0, vec(sword=1, flute=1))
    resolve(st)
    assert st.rats == [5, 5] and st.hands[1] == vec(magic=4)
    assert st.supply[SWORD] == 12 and st.supply[FLUTE] == 12


def test_s6_flute_moves_rats_after_own_cards():
    """rules §6 Flute DEFAULT: move min(2, own rats) to another entrant, counting step-a rats."""
    st = make_state(2, row=["palace"], hands=[vec(magic=1, flute=2), vec()], rats=[0, 4])
    enter(st, 0, 0, vec(magic=1, flute=2))
    enter(st, 0, 1, vec())
    resolve(st, [Scripted(target=[1, 1]), Scripted()])
    assert st.rats == [0, 5] and st.rats_given[0] == 1 and st.rats_gained == [1, 1]


def test_s6_flute_rats_option():
    """rules §6 Flute option flute_rats = 1."""
    st = make_state(2, {"flute_rats": 1}, row=["palace"], hands=[vec(flute=1), vec()], rats=[6, 4])
    enter(st, 0, 0, vec(flute=1))
    enter(st, 0, 1, vec())
    resolve(st, [Scripted(target=[1]), Scripted()])
    assert st.rats == [5, 5]


def test_s6_pass_second_building():
    """rules §6 Pass DEFAULT: after his first entry a player may spend a Pass for a second, different card."""
    st = make_state(2, row=["palace", ("palace", 2)], hands=[vec(royalty=2, **{"pass": 2}), vec()])
    pols = [Scripted(enter=[0, lambda seat, rows: rows[0]], cards=[vec(royalty=1), vec(royalty=1)],
                     use_pass=[True]), Scripted(enter=[0], cards=[vec()])]
    phase_c(st, pols)
    assert [s for s, _ in st.entries[0]] == [0, 1] and [s for s, _ in st.entries[1]] == [0]
    assert ("enter", 0, (1,)) in pols[0].calls  # only a different card is offered
    assert st.hands[0][PASS] == 1 and st.supply[PASS] == 11  # one Pass per round, spent to supply


def test_s6_pass_mode_none():
    """rules §6 pass_mode = none: no second entry is offered."""
    st = make_state(2, {"pass_mode": "none"}, row=["palace", "farm"], hands=[vec(**{"pass": 1}), vec()])
    pols = [Scripted(enter=[0], cards=[vec()]), Scripted(enter=[0], cards=[vec()])]
    phase_c(st, pols)
    assert all(c[0] != "use_pass" for c in pols[0].calls)


def test_s6_gold_is_not_a_hand_card():
    """rules §2/§6 Gold DEFAULT: Gold lies in front of the player; a Guard Tower cannot take it."""
    st = make_state(2, {"guard_tower_2p": "allow"}, row=["guard_tower"], hands=[vec(chivalry=1), vec()])
    st.gold[1] = 3
    enter(st, 0, 0, vec(chivalry=1))
    resolve(st)  # seat 1 holds 0 hand cards >= 0: gives min(3, 0) = 0, no decision asked
    assert st.gold == [0, 3]
