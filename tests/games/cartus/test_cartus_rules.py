"""Rattus Cartus rules, one test per section of docs/rules/cartus.md, on hand-built positions.

T-cases of rules §8 are named ``test_t<k>_...``.
"""

from __future__ import annotations

import random

import pytest
from cartus_helpers import Scripted, card, enter, make_state, phase_b, phase_c, resolve, vec

from analyzer.errors import IllegalChoice
from analyzer.games.cartus import default_config, engine, new_state, play_game
from analyzer.games.cartus.config import FLUTE, JOKER, SWORD
from analyzer.games.cartus.policies import Random
from analyzer.games.cartus.resolution import draw_cards

RNG = random.Random(0)


def set_up(cfg, seed):
    """A game after setup (rules §3), nothing played yet."""
    st = engine.CartusState(cfg)
    st.rng = random.Random(seed)
    engine.setup(st)
    return st


# ---------------------------------------------------------------- §3 setup


@pytest.mark.parametrize("n,repl,bdeck,popdeck,rounds", [(2, 10, 20, 69, 10), (3, 12, 18, 64, 9),
                                                         (4, 6, 24, 59, 8), (5, 6, 24, 54, 8)])
def test_s3_setup_counts(n, repl, bdeck, popdeck, rounds):
    """rules §3 steps 1–8 and the per-player-count table: piles, hands, rats, Nun-row."""
    cfg = default_config(n)
    st = set_up(cfg, n)
    assert cfg.rounds == rounds
    assert len(st.replacement) == repl and len(st.building_deck) == bdeck
    assert len(st.deck) == popdeck and len(st.nun_row) == 5
    assert all(sum(h) == 5 for h in st.hands) and st.rats == [10] * n
    assert st.influence == [[0] * 6 for _ in range(n)] and st.start == 0
    per_class = [0] * 6
    for c in st.in_play:
        per_class[cfg.card_class[c]] += 1
    assert per_class == [5] * 6


def test_s3_guard_tower_left_out_at_2_players():
    """rules §3: modes (b) and (c) leave the Guard Tower out at 2 players (guard_tower_2p)."""
    gt = default_config(2).building_names.index("guard_tower")
    for mode in ("random_cards", "random_buildings"):
        cfg = default_config(2, building_selection=mode)
        for seed in range(20):
            cards = engine.choose_buildings(cfg, random.Random(seed))
            assert all(cfg.card_building[c] != gt for c in cards)
            assert sum(1 for c in cards if cfg.card_class[c] == 3) == 5
    cfg = default_config(2, guard_tower_2p="allow")
    assert any(cfg.card_building[c] == gt for s in range(20) for c in engine.choose_buildings(cfg, random.Random(s)))


def test_s3_mode_b_one_building_per_class_all_copies():
    """rules §3 mode (b): per class one building at random with all 5 copies."""
    cfg = default_config(4, building_selection="random_buildings")
    cards = engine.choose_buildings(cfg, random.Random(3))
    blds = {cfg.card_building[c] for c in cards}
    assert len(blds) == 6 and len(cards) == 30


def test_s3_first_game_set():
    """rules §1 setup note / §3 mode (a): the first-game preset."""
    cfg = default_config(4, building_set_name="first_game")
    names = sorted({cfg.building_names[cfg.card_building[c]] for c in engine.choose_buildings(cfg, RNG)})
    assert names == sorted(["farm", "marketplace", "monastery", "castle", "palace", "fortune_tellers_tent"])


# ---------------------------------------------------------------- §4 phase A


def test_t9_phase_a_replaces_third_castle():
    """rules §4 phase A, T9: three Castles → the last is swapped for the replacement top."""
    st = make_state(4)
    cas = [card(st, "castle", k) for k in (1, 2, 3, 4)]
    pal = card(st, "palace")
    st.building_deck = [cas[0], cas[1], cas[2]][::-1]  # top last: drawn castle1, castle2, castle3
    st.replacement = [pal, cas[3]]  # top is castle4: swap again, then palace
    engine.start_round(st)
    assert st.row == [cas[0], cas[1], pal]
    assert st.replacement == [cas[3], cas[2]]  # swapped-out cards went under the pile, in order


def test_s4_phase_a_two_of_three_same_is_fine():
    """rules §4 phase A DEFAULT: two identical buildings out of three stay."""
    st = make_state(4)
    st.building_deck = [card(st, "farm"), card(st, "castle", 2), card(st, "castle", 1)]
    st.replacement = [card(st, "palace")]
    engine.start_round(st)
    assert len(st.replacement) == 1 and len(st.row) == 3


# ---------------------------------------------------------------- §4 phase B


def test_s4_phase_b_icons_draw_discard_look():
    """rules §4 phase B: icons D2+R1 draw 2 and discard 1 rat; D2+L1 draws 2 and looks once."""
    st = make_state(2, row=[("palace", 4), ("farm", 3)], deck=[0, 1, 2, 3, 4], rats=[10, 10])
    pols = [Scripted(supply=[0]), Scripted(supply=[1], look=[3])]
    phase_b(st, pols)
    assert st.hands[0] == vec(magic=0, peasantry=1, chivalry=1) and st.rats[0] == 9
    assert st.hands[1] == vec(bourgeoisie=1, church=1) and st.rats[1] == 10
    assert st.seen == [0, 1 << 3]


def test_s4_phase_b_discard_stops_at_zero_rats():
    """rules §4 phase B DEFAULT: R2 with 1 rat discards 1."""
    st = make_state(2, row=[("monastery", 5)], rats=[1, 0])
    phase_b(st, [Scripted(supply=[0]), Scripted(supply=[0])])
    assert st.rats == [0, 0] and st.rats_discarded == [1, 0]


def test_t10_t18_empty_deck_reshuffles_then_draws_are_lost():
    """rules §4 phase B, T10 and T18: deck 1, discard 2, draw 4 → 3 drawn, the 4th is lost."""
    st = make_state(2, deck=[5], discard=[1, 2])
    st.rng = random.Random(1)
    assert draw_cards(st, 0, 4) == 3
    assert st.hands[0] == vec(magic=1, church=1, bourgeoisie=1)
    assert st.deck == [] and st.discard == []


# ---------------------------------------------------------------- §4 phase C


def test_t2_t3_phase_c_any_building_and_shared_building():
    """rules §4 phase C, T2/T3: phase C building may differ from phase B; a second entrant takes space 2."""
    st = make_state(2, row=[("monastery", 1), ("fortune_tellers_tent", 3)],
                    hands=[vec(magic=2), vec(magic=1)], deck=[0] * 10)
    pols = [Scripted(supply=[0], enter=[1], cards=[vec(magic=1)]),
            Scripted(supply=[1], look=[0], enter=[1], cards=[vec()])]
    phase_b(st, pols)
    phase_c(st, pols)
    assert [s for s, _ in st.entries[1]] == [0, 1] and st.entries[0] == []
    assert st.hands[0] == vec(magic=1, royalty=4)


def test_s4_phase_c_pass_is_not_playable_and_counts_checked():
    """rules §4 phase C: only cards in hand, never a Pass; an illegal choice raises."""
    st = make_state(2, row=["palace", "farm"], hands=[vec(royalty=1, **{"pass": 1}), vec()])
    with pytest.raises(IllegalChoice):
        phase_c(st, [Scripted(enter=[0], cards=[vec(royalty=2)]), Scripted()])
    st = make_state(2, row=["palace", "farm"], hands=[vec(royalty=1, **{"pass": 1}), vec()])
    with pytest.raises(IllegalChoice):
        phase_c(st, [Scripted(enter=[0], cards=[vec(**{"pass": 1})]), Scripted()])
    st = make_state(2, row=["palace", "farm"])
    with pytest.raises(IllegalChoice):
        phase_c(st, [Scripted(enter=[2]), Scripted()])


def test_s4_phase_c_building_spaces_limit():
    """rules §4 phase C, building_spaces = 1: a full building is not offered."""
    st = make_state(2, {"building_spaces": 1}, row=["palace", "farm"])
    pols = [Scripted(enter=[0], cards=[vec()]), Scripted(enter=[lambda seat, rows: rows[0]], cards=[vec()])]
    phase_c(st, pols)
    assert pols[1].calls[0] == ("enter", 1, (1,))


# ---------------------------------------------------------------- §4 phase D


def test_t4_zero_card_entrant_gets_standard():
    """rules §4 D b, T4: Monastery, green plays 0, blue plays 1 → blue premium (-2), green standard (-1)."""
    st = make_state(2, row=["monastery"], hands=[vec(), vec(church=1)], rats=[10, 10])
    enter(st, 0, 0, vec())
    enter(st, 0, 1, vec(church=1))
    resolve(st)
    assert st.rats == [9, 8]
    assert st.premium[1][2] == 1 and st.standard[0][2] == 1


def test_t5_influence_and_rats_from_cards():
    """rules §4 D a, T5: Church building, 2 Church + 1 Royalty + 1 joker → +4 Church, +1 rat."""
    st = make_state(2, row=["hospital"], hands=[vec(church=2, royalty=1, joker=1), vec()], rats=[0, 0])
    enter(st, 0, 0, vec(church=2, royalty=1, joker=1))
    resolve(st, [Scripted(hospital=[vec()]), Scripted()])
    assert st.influence[0] == [0, 4, 0, 0, 0, 0]
    # Hospital premium: 1 free rat off the single rat from the Royalty card
    assert st.rats_gained[0] == 1 and st.rats[0] == 0 and st.offclass[0] == 1


def test_t6_specials_do_not_count_for_most_cards():
    """rules §4 D b, T6: A plays 2 population + 2 Swords, B plays 3 population → B gets the premium."""
    st = make_state(2, row=["farm"], hands=[vec(peasantry=2, sword=2), vec(peasantry=3, royalty=4)],
                    deck=list(range(6)) * 3)
    enter(st, 0, 0, vec(peasantry=2, sword=2))
    enter(st, 0, 1, vec(peasantry=3))
    pols = [Scripted(target=[1, 1]), Scripted(give=[vec(royalty=2), vec(royalty=1)])]
    resolve(st, pols)
    assert st.premium[1][8] == 1 and st.standard[0][8] == 1
    # A: 2 + 1 royalty taken by the Swords (half of 4, then half of 2), standard Farm draws 5, 4
    assert st.hands[0] == vec(royalty=3, magic=1, peasantry=1)
    assert st.hands[1] == vec(royalty=2, bourgeoisie=1, chivalry=1, church=1)
    assert st.supply[SWORD] == 12


@pytest.mark.parametrize("mode,expected", [("all_tied_premium", [1, 1]), ("first_entered_premium", [1, 0]),
                                           ("nobody_premium", [0, 0])])
def test_s4_premium_tie_modes(mode, expected):
    """rules §4 D b tie_mode: two entrants tied on 2 cards at the Palace."""
    st = make_state(2, {"tie_mode": mode}, row=["palace"], hands=[vec(royalty=2), vec(royalty=1, joker=1)])
    enter(st, 0, 0, vec(royalty=2))
    enter(st, 0, 1, vec(royalty=1, joker=1))
    resolve(st)
    assert [st.premium[s][0] for s in (0, 1)] == expected
    assert st.vp == [1 + e for e in expected]


@pytest.mark.parametrize("min_cards,premium", [(1, 0), (0, 1)])
def test_s4_premium_min_cards(min_cards, premium):
    """rules §4 D b premium_min_cards: a lone 0-card entrant gets the standard action by default."""
    st = make_state(2, {"premium_min_cards": min_cards}, row=["palace"])
    enter(st, 0, 0, vec())
    resolve(st)
    assert st.premium[0][0] == premium and st.vp[0] == 1 + premium


def test_s4_step_c_cleanup():
    """rules §4 D c: population cards to the discard pile, jokers and specials back to supply."""
    st = make_state(3, row=["palace"], hands=[vec(royalty=1, church=1, joker=1, sword=1, flute=1), vec(), vec()])
    enter(st, 0, 0, vec(royalty=1, church=1, joker=1, sword=1, flute=1))
    resolve(st)
    assert sorted(st.discard) == [0, 1]
    assert st.supply[JOKER] == 15 and st.supply[SWORD] == 12 and st.supply[FLUTE] == 12


def test_s4_phase_e_and_last_round_actions():
    """rules §4 phase E: start passes clockwise; last_round_actions = false skips step b of the last round."""
    cfg = default_config(4, last_round_actions=False, building_set_name="first_game")
    st = make_state(4, {"last_round_actions": False}, row=["palace"], rnd=cfg.rounds)
    enter(st, 0, 0, vec())
    resolve(st)
    assert st.vp[0] == 0 and st.standard[0][0] == 0
    st = make_state(4, row=["palace"], rnd=8)
    enter(st, 0, 0, vec())
    resolve(st)
    assert st.vp[0] == 1
    st = new_state(default_config(3), 2)
    rng = random.Random(9)
    while st.round == 1:
        st.apply(Random().choose(st.view(st.current_seat()), rng))
    assert st.start == 1 and st.round == 2 and st.first_start == 0


def test_t1_gain_three_rats_then_discard_one():
    """rules §2 rat tokens, T1: 10 → 13 (3 off-class cards) → 12 (icon R1)."""
    st = make_state(2, row=[("palace", 4)], hands=[vec(church=3), vec()], deck=[0, 0])
    enter(st, 0, 0, vec(church=3))
    enter(st, 0, 1, vec())
    resolve(st)
    assert st.rats[0] == 13
    phase_b(st, [Scripted(supply=[0]), Scripted(supply=[0])])
    assert st.rats[0] == 12


def test_t19_s4_two_copies_are_two_contests_and_a_lone_entrant_takes_the_premium():
    """rules §4 phase A/D, T19 (the rulebook's example): row Monastery, Fortune-teller's Tent,
    a second Monastery. Red alone in Monastery #1 with 4 cards, yellow alone in the Tent with 3;
    in Monastery #2 blue plays 1 card and green 0. Each copy is its own contest: red takes #1's
    premium, yellow the Tent's, blue #2's premium and green its standard action; red's 4 cards
    play no part in #2."""
    red, yellow, blue, green = 0, 1, 2, 3
    st = make_state(4, row=[("monastery", 1), ("fortune_tellers_tent", 3), ("monastery", 2)],
                    hands=[vec(church=4), vec(magic=3), vec(church=1), vec()], rats=[10, 10, 10, 10])
    # phase C: both copies are offered, as separate row positions
    players = phase_c(st, [Scripted(enter=[0], cards=[vec(church=4)]), Scripted(enter=[1], cards=[vec(magic=3)]),
                           Scripted(enter=[2], cards=[vec(church=1)]), Scripted(enter=[2], cards=[vec()])])
    assert players[red].calls[0] == ("enter", red, (0, 1, 2))
    assert st.sizes == [[(red, 4)], [(yellow, 3)], [(blue, 1), (green, 0)]]
    players = [Scripted(), Scripted(look=[0, 1]), Scripted(), Scripted()]
    for r in range(3):
        resolve(st, players, r)
    mon, tent = st.cfg.building_names.index("monastery"), st.cfg.building_names.index("fortune_tellers_tent")
    assert st.premium[red][mon] == 1 and st.standard[red][mon] == 0  # alone with 4 cards: premium
    assert st.premium[yellow][tent] == 1 and st.seen[yellow] == 0b11  # the premium's 2 looks
    assert st.premium[blue][mon] == 1 and st.standard[green][mon] == 1  # #2: 1 card beats 0
    assert st.rats == [8, 10, 8, 9]  # premium discards 2 rats, standard 1
    assert st.influence[red][1] == 4 and st.influence[blue][1] == 1 and st.influence[yellow][5] == 3


def test_s4_phase_a_replay_log_puts_the_round_header_before_a_swap():
    """rules §4 phase A: the round's line comes first, then each swap (what caused it: all cards
    one building), named by card, never before the header."""
    st = make_state(4)
    cas = [card(st, "castle", k) for k in (1, 2, 3, 4)]
    st.building_deck = [cas[0], cas[1], cas[2]][::-1]
    st.replacement = [card(st, "palace"), cas[3]]
    lines: list[str] = []
    st.log = lines.append
    st.round = 0
    engine.start_round(st)
    assert lines[0].startswith("round 1: start seat 0; row castle:1, castle:2, castle:3")
    assert lines[1:] == ["  all castle: castle:3 goes under the replacement pile, castle:4 takes its place",
                         "  all castle: castle:4 goes under the replacement pile, palace:1 takes its place"]


def test_s4_replay_log_names_cards_and_has_a_legend():
    """The replay log names classes and cards instead of printing count vectors, and says how
    to read its abbreviations."""
    import re

    lines: list[str] = []
    play_game(default_config(4), ["greedy", "random", "cautious", "random"], 7, log=lines.append)
    assert any(ln.startswith("legend:") and "roy = royalty" in ln for ln in lines)
    assert not [ln for ln in lines if re.search(r"\[\d+, \d+, \d+", ln)]
    assert any(" reveals " in ln for ln in lines) and any("tracks" in ln and "(" in ln for ln in lines)
