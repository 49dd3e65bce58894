"""Phase 5 at one site, played through the engine on hand-built positions
(docs/rules/pyramidion.md §1, §5 phase 5, §7, §10.2, §11)."""

from __future__ import annotations

from importlib import resources

from analyzer.games.pyramidion.state import PASS, PLAY, RECRUIT

from .helpers import (
    CAMEL,
    FOOD,
    STATUE,
    STONE,
    WOOD,
    WORKER,
    Script,
    give,
    make_game,
    put_on_site,
    site,
    starting,
    take_common,
)

INFLUENCE = 0


def test_t1_luxor_revolt_through_the_engine():
    """T1 (§1.1 Luxor): tiles 7 + 6 = 13; Red 9 discards all; Yellow 14 keeps; Blue (19) takes
    1 worker + 1 food from the supply; tiles go back to the stack."""
    red, yellow, blue = Script(), Script(), Script()
    g = make_game(4, scripts=[red, yellow, blue, Script()])
    luxor = site(g, "Luxor")
    r_sd5, r_sd4 = take_common(g, "slave_driver", 5), take_common(g, "slave_driver", 4)
    y_rev, y_sd7 = take_common(g, "revolt"), take_common(g, "slave_driver", 7)
    b_rev, b_sd6a, b_sd6b = take_common(g, "revolt"), take_common(g, "slave_driver", 6), take_common(g, "slave_driver", 6)
    y_start = starting(g, 1, "slave_driver") + starting(g, 1, "goddess")
    b_start = starting(g, 2, "slave_driver") + starting(g, 2, "goddess")
    give(g, 0, r_sd5, r_sd4)
    give(g, 1, y_rev, y_sd7, *y_start)
    give(g, 2, b_rev, b_sd6a, b_sd6b, *b_start)
    red.moves = [r_sd5, r_sd4]
    yellow.moves = [y_rev, y_sd7, y_start[0], y_start[1], INFLUENCE]
    blue.moves = [b_rev, b_sd6a, b_sd6b, b_start[0], b_start[1], INFLUENCE]
    g.st.revolt_stack = [0, 1, 4, 5, 2, 3]  # top = end: 7 (worker) then 6 (food)
    supply_before = list(g.st.supply)
    lines = []
    g.log = lines.append
    g.activate(2, luxor)
    assert "strength 13" in "\n".join(lines)
    assert g.tally.cards_lost_revolt == [2, 0, 0, 0]  # Red's two cards only
    assert g.st.goods[2][WORKER] == 1 and g.st.goods[2][FOOD] == 1 and sum(g.st.goods[2]) == 2
    assert g.st.supply[WORKER] == supply_before[WORKER] - 1
    assert g.tally.revolts_won == [0, 0, 1, 0]
    assert sorted(g.st.revolt_stack) == [0, 1, 2, 3, 4, 5]
    assert g.st.sd_owner[luxor] == 2  # Blue 19 influence >= Luxor minimum 5
    assert r_sd5 in g.st.discard_pile and r_sd4 in g.st.discard_pile


def test_t9_revolt_cancels_executioner_stone_dragger_high_priest():
    """T9 (§1.1, §10.2): seat 0's Stone dragger, High Priest and Executioner are discarded by
    the revolt: no Stone-dragger good, the Executioner's mark is void, the High Priest does not
    come back. Seat 1 (18 ≥ 17) wins statue + camel, keeps his merchant 6 and takes Luxor's food."""
    s0, s1 = Script(), Script()
    g = make_game(4, scripts=[s0, s1, Script(), Script()])
    luxor = site(g, "Luxor")
    put_on_site(g, luxor, 2)
    sdr, hp, ex = take_common(g, "stone_dragger"), take_common(g, "high_priest"), take_common(g, "executioner")
    ra, rb = take_common(g, "revolt"), take_common(g, "revolt")
    m6, sd7, sd6 = take_common(g, "merchant", 6), take_common(g, "slave_driver", 7), take_common(g, "slave_driver", 6)
    sd_start = starting(g, 1, "slave_driver")[0]
    give(g, 0, sdr, hp, ex)
    give(g, 1, ra, rb, m6, sd7, sd6, sd_start)
    s0.moves = [sdr, hp, ex, 4]  # index 4 at the site = seat 1's merchant 6
    s1.moves = [ra, rb, m6, sd7, sd6, sd_start]
    g.st.revolt_stack = [0, 1, 2, 3, 4, 5]  # top: 9 (statue), 8 (camel) → 17
    g.activate(1, luxor)
    assert g.tally.cards_lost_revolt[0] == 3
    assert g.st.goods[0] == [0] * 6  # no Stone-dragger good
    assert g.st.goods[1][STATUE] == 1 and g.st.goods[1][CAMEL] == 1
    assert g.st.goods[1][FOOD] == 2  # the marked merchant stayed: trade 6 >= 5
    assert hp in g.st.discard_pile and hp not in g.st.hand[0]
    assert g.st.sd_owner[luxor] == 1


def test_s5_step4a_executioner_mark_removes_card_after_revolt():
    """§5 phase 5 step 4a: with no revolt, the marked card is discarded before the merchant step, so
    the Executioner's player wins trade with 5 (Karnak minimum 5) instead of losing to 6."""
    s0, s1 = Script(), Script()
    g = make_game(2, scripts=[s0, s1])
    karnak = site(g, "Karnak")
    put_on_site(g, karnak, 3)
    m6, ex, m5 = take_common(g, "merchant", 6), take_common(g, "executioner"), take_common(g, "merchant", 5)
    give(g, 1, m6)
    give(g, 0, ex, m5)
    s1.moves = [m6]
    s0.moves = [ex, m5]  # only one target (index 0): chosen automatically
    g.activate(1, karnak)
    assert g.st.goods[0][STONE] == 3 and g.st.goods[1][STONE] == 0
    assert m6 in g.st.discard_pile


def test_s10_2_executioner_discard_on_play_variant_changes_revolt():
    """§10.2 variant "discard_on_play": the marked slave driver leaves at once, so its owner has
    0 influence at the revolt (strength 4) and loses his merchant too; by default he survives."""
    lost = {}
    for timing in ("discard_after_revolt", "discard_on_play"):
        s0, s1 = Script(), Script()
        g = make_game(2, {"executioner": timing}, scripts=[s0, s1])
        thebes = site(g, "Thebes")
        sd7, m2 = take_common(g, "slave_driver", 7), take_common(g, "merchant", 2)
        ex, rev = take_common(g, "executioner"), take_common(g, "revolt")
        give(g, 1, sd7, m2)
        give(g, 0, ex, rev)
        s1.moves = [sd7, m2]
        s0.moves = [rev, ex, 0]  # then mark index 0 (the slave driver 7)
        g.st.revolt_stack = [5, 4, 3, 2, 1, 0]  # top: strength 4
        g.activate(1, thebes)
        lost[timing] = g.tally.cards_lost_revolt[1]
    assert lost == {"discard_after_revolt": 0, "discard_on_play": 1}


def test_t8_goddess_counts_only_in_declared_category():
    """T8 (§1.1): the Goddess's 3 counts only in the category declared on play."""
    s0 = Script()
    g = make_game(2, scripts=[s0, Script()])
    giza = site(g, "Giza")
    put_on_site(g, giza, 2)
    gd = starting(g, 0, "goddess")[0]
    m = starting(g, 0, "merchant")[0]
    give(g, 0, gd, m)
    s0.moves = [gd, 2, m]  # Goddess as trade: 3 + 3 = 6 trade, 0 influence
    g.activate(0, giza)
    assert ("goddess_category", (0, 1, 2)) in s0.seen
    assert g.st.goods[0][WORKER] == 2  # trade 6 >= Giza minimum 4
    assert g.st.sd_owner[giza] == -1 and g.st.ng_owner[giza] == -1
    assert gd in g.st.aside[0] and m in g.st.aside[0]  # starting cards set aside (§5 phase 4)


def test_t7_recruit_only_after_a_first_pass():
    """T7 (§5 phase 5 step 2): passing first offers recruiting (discard 1, draw 1); playing first
    forfeits it."""
    s0, s1 = Script(), Script()
    g = make_game(2, scripts=[s0, s1])
    karnak = site(g, "Karnak")
    weak = take_common(g, "merchant", 2)
    n1, n2 = take_common(g, "negotiator", 2), take_common(g, "negotiator", 3)
    give(g, 0, weak)
    give(g, 1, n1, n2)
    top = g.st.draw_pile[-1]
    s0.moves = [PASS, weak]  # pass at first opportunity, then recruit away the merchant 2
    s1.moves = [n1]  # play, then pass: no recruit offered
    g.activate(0, karnak)
    assert g.st.hand[0] == [top] and weak in g.st.discard_pile
    assert [k for k, _ in s0.seen] == [PLAY, RECRUIT]
    assert RECRUIT not in [k for k, _ in s1.seen]
    assert g.st.hand[1] == [n2]


def test_s5_step2_declined_recruiting_leaves_the_discard_pile_alone():
    """§5 phase 5 step 2 (fixed): with an empty draw pile the discards are reshuffled into a
    new pile only when the player recruits, before his discard (he cannot draw it back); a
    player who declines leaves the discard pile as it is and draws on no chance."""
    for recruit in (False, True):
        s0 = Script()
        g = make_game(2, scripts=[s0, Script()])
        weak = take_common(g, "merchant", 2)
        give(g, 0, weak)
        g.st.discard_pile, g.st.draw_pile = g.st.draw_pile[:5], []
        discards = list(g.st.discard_pile)
        state = g.rng.getstate()
        s0.moves = [PASS, weak if recruit else PASS]
        g.activate(0, site(g, "Karnak"))
        assert [k for k, _ in s0.seen] == [PLAY, RECRUIT]
        if recruit:
            assert g.st.discard_pile == [weak] and g.st.reshuffles == 1
            assert len(g.st.draw_pile) == 4 and g.st.hand[0][0] in discards
        else:
            assert g.st.discard_pile == discards and g.st.draw_pile == [] and g.st.reshuffles == 0
            assert g.rng.getstate() == state and g.st.hand[0] == [weak]


def test_t19_empty_hand_passes_automatically():
    """T19: an empty hand passes automatically and cannot recruit (no decision is asked)."""
    s0, s1 = Script(), Script()
    g = make_game(2, scripts=[s0, s1])
    g.activate(0, site(g, "Thebes"))
    assert s0.seen == [] and s1.seen == []
    assert g.st.sundial[site(g, "Thebes")]


def test_t18_own_tile_already_there_changes_nothing():
    """T18 (§5 phase 5 step 5): the winner's own tile is already on the site → no second tile spent."""
    s0 = Script()
    g = make_game(2, scripts=[s0, Script()])
    thebes = site(g, "Thebes")
    g.st.sd_owner[thebes] = 0
    g.st.sd_left[0] = 4
    sd7 = take_common(g, "slave_driver", 7)
    give(g, 0, sd7)
    s0.moves = [sd7]
    g.activate(0, thebes)
    assert g.st.sd_owner[thebes] == 0 and g.st.sd_left[0] == 4
    assert g.tally.tiles_placed[0] == 0


def test_t3_thebes_tile_replaces_old_one():
    """T3 (§1.2 Thebes): Blue's unique 7 ≥ 6 replaces Yellow's tile, which goes back."""
    blue = Script()
    g = make_game(2, scripts=[Script(), blue])
    thebes = site(g, "Thebes")
    g.st.sd_owner[thebes] = 0  # Yellow = seat 0
    g.st.sd_left[0] = 4
    sd7 = take_common(g, "slave_driver", 7)
    give(g, 1, sd7)
    blue.moves = [sd7]
    g.activate(1, thebes)
    assert g.st.sd_owner[thebes] == 1
    assert g.st.sd_left == [5, 4]
    assert g.tally.tiles_lost == [1, 0] and g.tally.tiles_placed == [0, 1]


def test_t5_abu_simbel_below_minimum_keeps_old_tile():
    """T5 (§1.2 Abu Simbel): Red's unique 5 negotiation < minimum 6 → Blue's tile stays."""
    red = Script()
    g = make_game(2, scripts=[red, Script()])
    abu = site(g, "Abu Simbel")
    g.st.ng_owner[abu] = 1
    g.st.ng_left[1] = 4
    n5 = take_common(g, "negotiator", 5)
    give(g, 0, n5)
    red.moves = [n5]
    g.activate(0, abu)
    assert g.st.ng_owner[abu] == 1 and g.st.ng_left == [5, 4]


def test_t6_karnak_trade_tie_goods_stay():
    """T6 (§1.2 Karnak): 6–6 trade tie → the goods stay on Karnak for the next round."""
    red, yellow = Script(), Script()
    g = make_game(2, {"philosopher": "none"}, scripts=[red, yellow])
    karnak = site(g, "Karnak")
    put_on_site(g, karnak, 3)
    for seat, script in ((0, red), (1, yellow)):
        ms = starting(g, seat, "merchant")
        give(g, seat, *ms)
        script.moves = list(ms)
    g.activate(0, karnak)
    assert g.st.site_goods[karnak] == 3
    assert g.st.goods[0][STONE] == g.st.goods[1][STONE] == 0


def test_s10_2_philosopher_holder_wins_the_tie():
    """§10.2 Philosopher default: the token holder wins Karnak's 6–6 trade tie."""
    red, yellow = Script(), Script()
    g = make_game(2, scripts=[red, yellow])
    karnak = site(g, "Karnak")
    put_on_site(g, karnak, 3)
    g.st.philosopher = 1
    for seat, script in ((0, red), (1, yellow)):
        ms = starting(g, seat, "merchant")
        give(g, seat, *ms)
        script.moves = list(ms)
    g.activate(0, karnak)
    assert g.st.goods[1][STONE] == 3 and g.st.site_goods[karnak] == 0


def test_s10_2_philosopher_thief_bandit_stone_dragger_high_priest():
    """§10.2: Philosopher takes the token; Thief takes a chosen good from an opponent; Bandit
    takes 1 good off the site before the merchant step; a Stone dragger still at the site pays
    1 good of the site's kind; a High Priest still at the site returns to its player's hand."""
    s0, s1 = Script(), Script()
    g = make_game(3, scripts=[s0, s1, Script()])
    philae = site(g, "Philae")  # stone, trade minimum 5
    put_on_site(g, philae, 3)
    g.st.supply[CAMEL] -= 1
    g.st.goods[2][CAMEL] = 1
    g.st.supply[WOOD] -= 1
    g.st.goods[1][WOOD] = 1
    ph, th, bd = take_common(g, "philosopher"), take_common(g, "thief"), take_common(g, "bandit")
    sdr, hp, m8 = take_common(g, "stone_dragger"), take_common(g, "high_priest"), take_common(g, "merchant", 8)
    give(g, 0, ph, th, bd, sdr, hp)
    give(g, 1, m8)
    s0.moves = [ph, th, (2, CAMEL), bd, sdr, hp]
    s1.moves = [m8]
    g.activate(0, philae)
    assert g.st.philosopher == 0
    assert g.st.goods[0][CAMEL] == 1 and g.st.goods[2][CAMEL] == 0
    assert g.st.goods[1][STONE] == 2  # merchant 8 takes what the Bandit left
    assert g.st.goods[0][STONE] == 1 + 1  # Bandit 1 + Stone dragger 1
    assert g.st.hand[0] == [hp]
    assert g.tally.goods_special[0] == 3


def test_s7_alexandria_draws_a_card_and_cairo_converts():
    """§7: Alexandria's activator draws 1 card; Cairo's may turn 2 goods of one kind into 1
    of another ordinary kind (supply +2/−1)."""
    s0 = Script()
    g = make_game(2, scripts=[s0, Script()])
    top = g.st.draw_pile[-1]
    g.activate(0, site(g, "Alexandria"))
    assert g.st.hand[0] == [top] and g.st.hand[1] == []  # drawn; then passed, no recruit
    g = make_game(2, scripts=[s0, Script()])
    s0.moves = [STONE * 5 + CAMEL]
    g.st.supply[STONE] -= 3
    g.st.goods[0][STONE] = 3
    g.activate(0, site(g, "Cairo"))
    assert g.st.goods[0][STONE] == 1 and g.st.goods[0][CAMEL] == 1
    assert g.st.supply[STONE] == 34 and g.st.supply[CAMEL] == 34


def test_s5_step5_no_tile_left_default_and_move_variant():
    """§5 phase 5 step 5 [GAP → DEFAULT]: a winner with no tile left places none; under
    "move_own_tile" he moves one from another site (the first in table order)."""
    for variant, expect_here in (("cannot_place", -1), ("move_own_tile", 0)):
        s0 = Script()
        g = make_game(2, {"no_tile_left": variant}, scripts=[s0, Script()])
        thebes = site(g, "Thebes")
        others = [s for s in range(8) if s != thebes][:5]
        for s in others:
            g.st.sd_owner[s] = 0
        g.st.sd_left[0] = 0
        sd7 = take_common(g, "slave_driver", 7)
        give(g, 0, sd7)
        s0.moves = [sd7]
        g.activate(0, thebes)
        assert g.st.sd_owner[thebes] == expect_here
        assert g.st.sd_owner.count(0) == 5 and g.st.sd_left[0] == 0
        if expect_here == 0:
            assert g.st.sd_owner[others[0]] == -1


def test_t20_giza_tiles_in_play_order_one_per_player():
    """T20 (§5 phase 6): at Giza C plays a slave driver (tile 1), A one (tile 2), C a second
    (no second tile) → new order C–A–B–D."""
    a, c = Script(), Script()
    g = make_game(4, scripts=[a, Script(), c, Script()])
    giza = site(g, "Giza")
    c1, c2 = take_common(g, "slave_driver", 3), take_common(g, "slave_driver", 4)
    a1 = take_common(g, "slave_driver", 5)
    give(g, 2, c1, c2)
    give(g, 0, a1)
    c.moves = [c1, c2]
    a.moves = [a1]
    g.activate(2, giza)  # clockwise from C: C, D, A, B, C ...
    assert g.st.giza_tiles == [2, 0, -1, -1]
    g.phase6_order()
    assert g.st.order == [2, 0, 1, 3]


def test_t11_giza_not_activated_order_unchanged():
    """T11: Giza not activated → player order unchanged in phase 6."""
    g = make_game(3)
    g.st.order = [1, 2, 0]
    g.activate(1, site(g, "Thebes"))
    g.phase6_order()
    assert g.st.order == [1, 2, 0]


def test_s5_phase6_giza_tile_kept_after_revolt_default_and_lost_variant():
    """§5 phase 6 [GAP → DEFAULT]: a Giza tile is kept when a revolt strips the card; the
    variant giza_tile_lost_on_revolt returns it."""
    for variant, expect in ((False, [1, -1]), (True, [-1, -1])):
        s0, s1 = Script(), Script()
        g = make_game(2, {"giza_tile_lost_on_revolt": variant}, scripts=[s0, s1])
        sd = starting(g, 1, "slave_driver")[0]
        rev = take_common(g, "revolt")
        give(g, 1, sd)
        give(g, 0, rev)
        s1.moves = [sd]
        s0.moves = [rev]
        g.st.revolt_stack = [0, 1, 2, 3, 4, 5]  # strength 9 > seat 1's 3
        g.activate(1, site(g, "Giza"))
        assert g.st.giza_tiles == expect


def test_t16_three_players_six_activations():
    """T16 (§5 phase 5): 3 players activate exactly 6 sites a round; 2 stay without sundial."""
    g = make_game(3)
    g.setup()
    g.phase1_boats()
    g.phase2_goods()
    g.phase4_cards()
    g.phase5_sites()
    assert sum(g.st.sundial) == 6 and sum(g.tally.activations) == 6


def test_s5_phase6_returned_giza_tile_is_retaken_by_number():
    """§5 phase 6 (tiles go out in number order; variant giza_tile_lost_on_revolt with the
    §10.2 Executioner variant "discard_on_play"): A takes tile 1, B tile 2; C's Executioner
    removes A's slave driver at once, so tile 1 goes back to Giza; D then takes tile 1, not
    tile 3, and B keeps tile 2 → new order D–B–A–C."""
    a, b, c, d = Script(), Script(), Script(), Script()
    g = make_game(4, {"executioner": "discard_on_play", "giza_tile_lost_on_revolt": True},
                  scripts=[a, b, c, d])
    lines = []
    g.log = lines.append
    giza = site(g, "Giza")
    sa, sb, sd = take_common(g, "slave_driver", 3), take_common(g, "slave_driver", 4), take_common(g, "slave_driver", 5)
    ex = take_common(g, "executioner")
    give(g, 0, sa)
    give(g, 1, sb)
    give(g, 2, ex)
    give(g, 3, sd)
    a.moves, b.moves, c.moves, d.moves = [sa], [sb], [ex, 0], [sd]  # C marks index 0: A's card
    g.activate(0, giza)  # clockwise from A: A, B, C, D
    assert g.st.giza_tiles == [3, 1, -1, -1]
    assert "  seat 3 takes player-order tile 1" in lines
    assert "  player-order tile 1 goes back to Giza" in lines
    g.phase6_order()
    assert g.st.order == [3, 1, 0, 2]


def test_s10_2_philosopher_tied_at_zero_wins_a_zero_minimum(tmp_path):
    """§5 phase 5 steps 5–7 and §10.2 Philosopher, with a user site table where Thebes asks 0
    influence: the holder, tied at 0 influence with everyone, places the slave-driver tile; with
    no card left at the site (everybody passed) nothing changes."""
    table = resources.files("analyzer.games.pyramidion").joinpath("data", "sites.toml").read_text("utf-8").replace(
        'name = "Thebes"\nproduces = "food"\nmin_influence = 6', 'name = "Thebes"\nproduces = "food"\nmin_influence = 0')
    path = tmp_path / "sites.toml"
    path.write_text(table)
    for plays in (True, False):
        s0 = Script()
        g = make_game(2, {"sites_file": str(path)}, scripts=[s0, Script()])
        thebes = site(g, "Thebes")
        g.st.philosopher = 0
        m = take_common(g, "merchant", 2)
        give(g, 0, m)
        s0.moves = [m] if plays else [PASS, PASS]
        g.activate(0, thebes)
        assert g.st.sd_owner[thebes] == (0 if plays else -1)
