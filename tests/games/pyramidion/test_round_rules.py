"""Phases 1–4, 7, 8 and the end of the game on hand-built positions
(docs/rules/pyramidion.md §3.1, §4, §5, §6, §11)."""

from __future__ import annotations

import pytest

from analyzer.games.pyramidion.state import KEEP, LOAD, PASS

from .helpers import CAMEL, FOOD, STATUE, STONE, WOOD, WORKER, Script, make_game, set_goods, site


def boat(g, name):
    return g.cfg.boat_names.index(name)


def test_s4_setup_random_start_player_and_clockwise_order():
    """§4: a random start player, then clockwise; start_player option fixes it."""
    g = make_game(4, {"start_player": 2})
    g.setup()
    assert g.st.order == [2, 3, 0, 1] and g.tally.start_order == [2, 3, 0, 1]
    assert sorted(g.st.draw_pile) == list(range(48))
    assert all(len(a) == 5 for a in g.st.aside) and g.st.site_goods == [0] * 8


def test_s5_phase1_refill_to_five_and_play_on_with_fewer():
    """§5 phase 1: refill gaps to 5 boats; unloaded boats stay; an empty deck leaves fewer."""
    g = make_game(2)
    g.st.boat_deck = [0, 1, 2, 3, 4, 5, 6]
    g.phase1_boats()
    assert g.st.display == [6, 5, 4, 3, 2] and g.st.boat_deck == [0, 1]
    g.st.display.remove(4)
    g.st.display.remove(3)
    g.st.display.remove(2)
    g.phase1_boats()
    assert sorted(g.st.display) == [0, 1, 5, 6] and g.st.boat_deck == []


def test_s5_phase2_distribution_card_and_short_supply():
    """§5 phase 2 + §3.1: D1 puts its goods on each site (site's own kind); goods accumulate;
    a short supply serves sites in table order (Giza gets the last 2 workers, Cairo none)."""
    g = make_game(2)
    g.st.dist_deck = [0]  # D1: Giza 2, Thebes 1, Luxor 1, Karnak 0, Abu Simbel 3, Alexandria 2, Cairo 1, Philae 2
    g.st.site_goods[site(g, "Thebes")] = 1
    g.st.supply[FOOD] -= 1
    g.st.supply[WORKER] = 2
    g.phase2_goods()
    assert g.st.site_goods == [2, 2, 1, 0, 3, 2, 0, 2]
    assert g.st.supply[WORKER] == 0 and g.st.supply[CAMEL] == 32
    assert g.st.dist_discard == [0]
    g.phase2_goods()  # empty deck: the discard pile is reshuffled (one card: D1 again)
    assert g.st.site_goods[site(g, "Abu Simbel")] == 6


def test_t14_phase3_negotiator_takes_one_good_per_tile():
    """T14 (§5 phase 3): negotiator tiles on two sites with goods → 1 good from each."""
    g = make_game(2)
    luxor, karnak, philae = site(g, "Luxor"), site(g, "Karnak"), site(g, "Philae")
    g.st.site_goods[luxor] = 2
    g.st.site_goods[karnak] = 1
    g.st.ng_owner[luxor] = g.st.ng_owner[karnak] = g.st.ng_owner[philae] = 1  # Philae is empty
    g.phase3_negotiators()
    assert g.st.goods[1][FOOD] == 1 and g.st.goods[1][STONE] == 1
    assert g.st.site_goods[luxor] == 1 and g.st.site_goods[karnak] == 0
    assert g.tally.goods_negotiator == [0, 2]


def test_s5_phase4_hand_of_nine_and_reshuffle():
    """§5 phase 4: 5 starting cards + 4 drawn = 9; an empty draw pile reshuffles the discards."""
    g = make_game(2)
    g.st.draw_pile, g.st.discard_pile = [0, 1], [2, 3, 4, 5, 6, 7]
    g.phase4_cards()
    assert len(g.st.hand[0]) == 9 and len(g.st.hand[1]) == 9
    assert set(g.st.cfg.starting[0]) <= set(g.st.hand[0])
    assert g.st.aside == [[], []]
    assert len(g.st.draw_pile) + len(g.st.discard_pile) == 0


def test_t12_statue_stands_in_for_a_missing_good():
    """T12 (§5 phase 7): boat needs stone + wood + camel; player has stone, wood, statue →
    legal; the 3 goods return to the supply and the boat is his."""
    s0 = Script()
    g = make_game(2, scripts=[s0, Script()])
    b7 = boat(g, "B7")  # St, Wd, Cm: 3 VP
    g.st.display = [b7]
    set_goods(g, 0, stone=1, wood=1, statue=1)
    assert g.load_options(0) == ((b7, ()),)
    s0.moves = [(b7, ())]
    g.phase7_loading()
    assert g.st.goods[0] == [0] * 6 and g.st.vp[0] == 3 and g.st.boats[0] == [b7]
    assert g.st.supply == [35, 35, 35, 35, 35, 10]


def test_t13_slave_driver_tile_gives_a_good_for_this_boat_once():
    """T13 (§5 phase 7): a slave-driver tile on the camel site pays the camel; the tile is then
    used for the round."""
    s0 = Script()
    g = make_game(2, scripts=[s0, Script()])
    abu = site(g, "Abu Simbel")
    b7, b3 = boat(g, "B7"), boat(g, "B3")  # B3: Fd, Cm
    g.st.sd_owner[abu] = 0
    g.st.display = [b7, b3]
    set_goods(g, 0, stone=1, wood=1, food=1)
    opts = g.load_options(0)
    assert (b7, (abu,)) in opts and (b7, ()) not in opts and (b3, (abu,)) in opts
    s0.moves = [(b7, (abu,))]
    g.phase7_loading()
    assert g.st.sd_used[abu] and g.st.vp[0] == 3
    assert g.load_options(0) == ()  # B3 needs a camel: the tile is used, no camel, no statue
    assert g.st.supply[CAMEL] == 35 and g.tally.goods_slave_driver[0] == 1


def test_s5_phase7_goods_first_then_statues_and_tile_capped_by_supply():
    """§5 phase 7 (fixed): own goods are paid before statues; a tile whose kind is out of
    supply cannot be used."""
    s0 = Script()
    g = make_game(2, scripts=[s0, Script()])
    b13 = boat(g, "B13")  # 2 St, 2 Wk
    g.st.display = [b13]
    set_goods(g, 0, stone=1, worker=2, statue=2)
    g.st.sd_owner[site(g, "Karnak")] = 0
    g.st.supply[STONE] = 0
    assert g.load_options(0) == ((b13, ()),)
    g.load(0, b13, ())
    assert g.st.goods[0][STATUE] == 1 and g.st.goods[0][STONE] == 0 and g.st.goods[0][WORKER] == 0


def test_s5_phase7_turns_until_n_passes_in_a_row():
    """§5 phase 7 [GAP → DEFAULT]: a pass is not final; loading ends after N passes in a row."""
    s0, s1 = Script(), Script()
    g = make_game(2, scripts=[s0, s1])
    b1, b2 = boat(g, "B1"), boat(g, "B2")  # St Wd ; Wd Fd
    g.st.display = [b1, b2]
    set_goods(g, 0, stone=1, wood=2, food=1)
    set_goods(g, 1, stone=1, wood=1)
    s0.moves = [PASS, (b2, ())]
    s1.moves = [PASS]
    g.phase7_loading()  # s0 pass, s1 pass -> 2 passes in a row: phase ends
    assert g.st.vp == [0, 0]
    s1.moves = [(b1, ())]
    g.phase7_loading()  # s0 loads B2 (s0's 2nd move), s1 loads B1
    assert g.st.boats == [[b2], [b1]] and g.st.display == []


def test_s5_phase7_pass_is_final_variant():
    """§5 phase 7 variant loading_pass_is_final: a player who passed may not load again."""
    s0, s1 = Script(), Script()
    g = make_game(2, {"loading_pass_is_final": True}, scripts=[s0, s1])
    b1, b2, b3 = boat(g, "B1"), boat(g, "B2"), boat(g, "B3")
    g.st.display = [b1, b2, b3]
    set_goods(g, 0, stone=1, wood=2, food=1)
    set_goods(g, 1, food=2, camel=2)
    s0.moves = [PASS]
    s1.moves = [(b3, ()), (b3, ())]
    g.phase7_loading()
    assert g.st.boats == [[], [b3]]
    assert [k for k, _ in s0.seen] == [LOAD]  # asked once only


def test_s5_phase8_reset_and_discard_unplayed_drawn_cards():
    """§5 phase 8: sundials, used marks, Giza tiles reset; drawn cards discarded, starting
    cards set aside; variant discard_unplayed_drawn_cards=false keeps them."""
    for discard in (True, False):
        g = make_game(2, {"discard_unplayed_drawn_cards": discard})
        g.phase4_cards()
        drawn = [c for c in g.st.hand[0] if g.cfg.card_owner[c] < 0]
        g.st.sundial = [True] * 8
        g.st.sd_used[0] = True
        g.st.giza_tiles = [1, -1]
        g.phase8_end()
        assert g.st.sundial == [False] * 8 and not any(g.st.sd_used) and g.st.giza_tiles == [-1, -1]
        assert sorted(g.st.aside[0]) == sorted(g.cfg.starting[0])
        assert (g.st.hand[0] == []) == discard
        assert all((c in g.st.discard_pile) == discard for c in drawn)


def test_s5_phase8_variant_a_good_of_site():
    """§5 phase 8 variant A: each slave-driver tile gives its owner 1 good of the site's kind."""
    g = make_game(2, {"phase8_slave_driver_benefit": "good_of_site"})
    g.st.sd_owner[site(g, "Abu Simbel")] = 1
    g.st.sd_owner[site(g, "Alexandria")] = 1
    g.phase8_end()
    assert g.st.goods[1][CAMEL] == 1 and g.st.goods[1][WOOD] == 1 and g.st.goods[0] == [0] * 6
    # counted as phase-8 goods, not as goods supplied while loading (phase 7)
    assert g.tally.goods_phase8 == [0, 2] and g.tally.goods_slave_driver == [0, 0]


def test_s5_phase8_variant_b_keep_card():
    """§5 phase 8 variant B: one kept common card per slave-driver tile joins the next hand."""
    s1 = Script()
    g = make_game(2, {"phase8_slave_driver_benefit": "keep_card"}, scripts=[Script(), s1])
    g.st.sd_owner[site(g, "Thebes")] = 1
    g.phase4_cards()
    keep = next(c for c in g.st.hand[1] if g.cfg.card_owner[c] < 0)
    s1.moves = [keep]
    g.phase8_end()
    assert g.st.kept[1] == [keep] and s1.seen[0][0] == KEEP
    g.phase4_cards()
    assert keep in g.st.hand[1] and len(g.st.hand[1]) == 10


def test_t15_game_ends_after_round_most_vp_wins():
    """T15 (§6): Blue 11, Red 12 after phase 7 → the game ends after this round; Red wins."""
    g = make_game(2)
    g.st.vp = [11, 12]  # seat 0 Blue, seat 1 Red
    g.tally.start_order = [0, 1]
    assert g.phase8_end() == "trigger"
    rec, seats = g.records(["script", "script"])
    assert rec["winner_seats"] == "1" and seats[1]["won"] == 1.0 and seats[0]["rank"] == 2


def test_s6_no_boats_left_ends_the_game_and_max_rounds_is_a_cap():
    """§6 (fixed): no boat on display and an empty deck ends the game (trigger); reaching
    max_rounds ends it as "turn_cap"."""
    g = make_game(2)
    g.st.display, g.st.boat_deck = [], []
    assert g.phase8_end() == "trigger"
    g = make_game(2, {"max_rounds": 3})
    g.st.display = [0]
    g.st.round = 2
    assert g.phase8_end() is None
    g.st.round = 3
    assert g.phase8_end() == "turn_cap"


@pytest.mark.parametrize("tiebreak, winners, won", [
    (("boats", "goods", "shared"), "0", [1.0, 0.0, 0.0]),
    (("goods", "shared"), "1", [0.0, 1.0, 0.0]),
    (("shared",), "0,1", [0.5, 0.5, 0.0]),
])
def test_s6_tiebreak_boats_then_goods_then_shared(tiebreak, winners, won):
    """§6 tie-break default: most boats, then most goods (statues count), then shared."""
    g = make_game(3, {"tiebreak": list(tiebreak)})
    g.tally.start_order = [0, 1, 2]
    g.st.vp = [10, 10, 4]
    g.st.boats = [[0, 1, 2], [3, 4], [5]]
    set_goods(g, 1, statue=2)
    g.st.end = "trigger"
    rec, seats = g.records(["a", "b", "c"])
    assert rec["winner_seats"] == winners and [s["won"] for s in seats] == won


def test_s6_first_to_target_record():
    """§6 (fixed): first_to_target is the seat whose load first reached target_vp."""
    g = make_game(2)
    g.st.vp = [8, 9]
    b16, b1 = boat(g, "B16"), boat(g, "B1")
    g.st.display = [b16, b1]
    set_goods(g, 0, stone=1, wood=1, food=1, camel=1, worker=1)
    set_goods(g, 1, stone=1, wood=1)
    g.load(1, b1, ())
    g.load(0, b16, ())
    assert g.st.first_to_target == 1 and g.st.vp == [13, 11]
