"""One test per section of docs/rules/rattus.md (§2–§11) and one per worked example/Q&A of §12.

Positions are built by hand (``rattus_helpers``); reveals take tokens in list order.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rattus_helpers import (
    Scripted,
    ability,
    answer,
    drive,
    give,
    make_game,
    plague_phase,
    put,
    region,
    resolve,
    run,
    token_id,
    tokens,
    turn,
)

from analyzer.errors import IllegalChoice, TurnCapExceeded
from analyzer.games.rattus import cards, default_config, new_state
from analyzer.games.rattus.config import CLASS_INDEX
from analyzer.games.rattus.metrics import build_records, final_scores
from analyzer.games.rattus.plague import token_losses
from analyzer.games.rattus.scoring import diplomat_points, region_card_points, tiebreak_keys

AFR = ("africanus",)
DATA = Path(__file__).parents[3] / "analyzer" / "games" / "rattus" / "data"


# ---------------------------------------------------------------- §2.1 / §10.2 / §10.5 end, Q1

def test_s2_1_final_round_counter_clockwise_without_last_player():
    """§2.1, §10.2, Q1: after P1 (seat 0) ends the game, P4, P3, P2 act; P1 does not."""
    lines = []
    game = make_game(4, log=lines.append)
    game.state.last_seat = 0
    game.start_final_round()
    drive(game)
    order = [int(line.split()[-1]) for line in lines if "final turn" in line]
    assert order == [3, 2, 1]
    assert game.state.final_round_turns == 3


def test_q1_ties_go_to_the_next_player_and_palace_counts():
    """Q1, §10.5: ties P2 > P3 > P4 > P1 when P1 ended the game; palace cubes count."""
    game = make_game(4)
    st = game.state
    st.last_seat = 0
    for p, name in enumerate(["Anglia", "Gallia", "Italia", "Scandia"]):
        game.place_cubes(p, region(game, name), 2)
    game.to_palace(2, region(game, "Italia"))  # 1 on board + 1 palace = still 2
    g, seats = build_records(st, ["x"] * 4)
    assert [s["score"] for s in seats] == [2.0, 2.0, 2.0, 2.0]
    assert [s["rank"] for s in seats] == [4, 1, 2, 3]
    assert g["winner_seats"] == "1"
    assert tiebreak_keys(4, 0) == [0.0, 3.0, 2.0, 1.0]


# ---------------------------------------------------------------- §2.2 Trader, Q6, Q7

def test_s2_2_q6_caravan_moves_exactly_two_steps_never_back():
    """§2.2, Q6: from Hispania only 2-step paths ending elsewhere than Hispania are legal."""
    game = make_game(4, AFR, cards=["trader"])
    game.state.caravan = region(game, "Hispania")
    names = game.cfg.region_names
    opts = {(names[m], names[e]) for m, e in cards.trader_options(game, 0)}
    assert opts == {("Gallia", "Anglia"), ("Gallia", "Germania"), ("Gallia", "Italia"),
                    ("Italia", "Gallia"), ("Italia", "Germania"), ("Italia", "Hungaria")}


def test_q7_caravan_bonus_for_tied_majority_in_start_only():
    """Q7: Gallia (red 3, blue 3) -> Anglia (empty) -> Scandia (yellow leads): red, blue +1 in Gallia."""
    game = make_game(4, AFR, cards=["trader"])
    st = game.state
    put(game, "Gallia", 3, 3, 0, 0)
    put(game, "Scandia", 0, 0, 2, 0)
    st.caravan = region(game, "Gallia")
    give(game, 3, "trader")
    path = (region(game, "Anglia"), region(game, "Scandia"))
    ability(game, 3, "trader", trader=[path])
    assert st.cubes[region(game, "Gallia")] == [4, 4, 0, 0]
    assert st.cubes[region(game, "Anglia")] == [0, 0, 0, 0]
    assert st.cubes[region(game, "Scandia")] == [0, 0, 2, 0]
    assert st.caravan == region(game, "Scandia")
    assert st.caravan_given[3] == 2 and st.caravan_received[:2] == [1, 1] and st.caravan_own[3] == 0


def test_s2_2_bonus_may_be_declined_and_holder_gets_own_bonus():
    """§2.2: each beneficiary may decline; the holder benefits where he holds the majority."""
    game = make_game(4, AFR, cards=["trader"])
    st = game.state
    put(game, "Gallia", 2, 2, 0, 0)
    put(game, "Anglia", 0, 0, 0, 0)
    st.caravan = region(game, "Gallia")
    give(game, 0, "trader")
    ability(game, 0, "trader", trader=[(region(game, "Anglia"), region(game, "Scandia"))],
            caravan_bonus=lambda g, seat, o, ctx: seat == 0)
    assert st.cubes[region(game, "Gallia")] == [3, 2, 0, 0]
    assert st.caravan_own[0] == 1 and st.caravan_given[0] == 0
    assert st.tag_own[region(game, "Gallia")][0] == 1


def test_s2_2_surviving_bonus_cubes_are_an_expectation_over_which_ordinary_cube_leaves():
    """§2.2 with §2.3: a bonus cube is one of three identical ordinary cubes; each loss, move or
    palace trip takes one of the seat's ordinary cubes at random (the diplomat's cube last), so
    the surviving count is the bonus cube's expected survival."""
    game = make_game(4, AFR, cards=["trader"])
    st = game.state
    g, a = region(game, "Gallia"), region(game, "Anglia")
    put(game, "Gallia", 3, 0, 0, 0)
    st.tag_own[g][0] = 1.0
    game.remove_cubes(0, g, 1)  # one of 3 ordinary cubes: the bonus cube stays with p = 2/3
    assert st.tag_own[g][0] == pytest.approx(2 / 3)
    game.move_cubes(0, g, a, 1, False)  # one of the 2 left moves: half of what stays goes along
    assert st.tag_own[g][0] == pytest.approx(1 / 3) and st.tag_own[a][0] == pytest.approx(1 / 3)
    st.discs[a][0] = 1
    put(game, "Anglia", 1, 0, 0, 0)  # the moved cube and the diplomat's cube
    game.remove_cubes(0, a, 1)  # the ordinary cube goes first: all of Anglia's tag with it
    assert st.tag_own[a][0] == 0.0 and st.cubes[a][0] == 1 and st.discs[a][0] == 1
    put(game, "Anglia", 3, 0, 0, 0)
    st.tag_recv[a][0] = 1.0
    game.move_cubes(0, a, g, 1, True)  # only the diplomat's cube moves: the bonus cube stays
    assert st.tag_recv[a][0] == 1.0 and st.tag_recv[g][0] == 0.0
    put(game, "Gallia", 1, 0, 0, 0)  # Gallia: 2 ordinary cubes and the diplomat's cube
    game.to_palace(0, g)  # one of the 2 ordinary cubes: p = 1/2
    assert st.tag_own[g][0] == pytest.approx(1 / 6) and st.palace_tag_own[0] == pytest.approx(1 / 6)
    own, received = (build_records(st, ["greedy"] * 4)[1][0][c] for c in
                     ("caravan_cubes_own_surviving", "caravan_cubes_received_surviving"))
    assert own == pytest.approx(1 / 3) and received == 1.0


# ---------------------------------------------------------------- §2.3 Sultan, Q8–Q11

def test_q8_disc_cube_dies_last_and_disc_returns():
    """Q8, §2.3: 3 cubes with a disc, lose 2 -> disc cube survives; a third loss returns the disc."""
    game = make_game(4, AFR, cards=["sultan"])
    st = game.state
    it = region(game, "Italia")
    put(game, "Italia", 3)
    give(game, 0, "sultan")
    ability(game, 0, "sultan", sultan=[it])
    assert st.discs[it][0] == 1 and st.disc_supply == 14
    game.remove_cubes(0, it, 2)
    assert st.cubes[it][0] == 1 and st.discs[it][0] == 1
    game.remove_cubes(0, it, 1)
    assert st.discs[it][0] == 0 and st.disc_supply == 15


def test_q9_diplomat_points_ties():
    """Q9: A=3,B=3 split 6 with no second place; A=4,B=2,C=2 -> 4,1,1; three tied second get 0."""
    assert diplomat_points([3, 3, 2, 1], 4) == [3, 3, 0, 0]
    assert diplomat_points([4, 2, 2, 0], 4) == [4, 1, 1, 0]
    assert diplomat_points([4, 1, 1, 1], 4) == [4, 0, 0, 0]
    assert diplomat_points([5, 2, 0, 0], 4) == [4, 2, 0, 0]
    assert diplomat_points([0, 0, 0, 0], 4) == [0, 0, 0, 0]
    assert diplomat_points([1, 1, 1], 3) == [2, 2, 2]


def test_q10_two_players_no_second_place_and_tie_default():
    """Q10, §2.3: at 2 players A=2,B=1 -> 4,0; a 2-player tie gives 3 each (default)."""
    assert diplomat_points([2, 1], 2) == [4, 0]
    assert diplomat_points([2, 2], 2) == [3, 3]
    assert diplomat_points([2, 2], 2, (4, 2, 6, 2, 2)) == [2, 2]


def test_q11_one_disc_cube_per_player_per_region():
    """Q11: no second disc in Italia; no Merchant move of a disc cube into a region with one."""
    game = make_game(4, AFR, cards=["sultan", "merchant"])
    st = game.state
    it, ga = region(game, "Italia"), region(game, "Gallia")
    put(game, "Italia", 2, 1)
    put(game, "Gallia", 1, 0)
    st.discs[it][0] = st.discs[ga][0] = 1
    st.discs[it][1] = 1  # another player's disc may share the region
    assert it not in cards.sultan_options(game, 0)
    assert all(not (s == ga and d == it and w) for s, d, _, w in cards.merchant_options(game, 0))
    assert (ga, it, 1, True) not in cards.merchant_options(game, 0)
    assert (it, ga, 1, False) in cards.merchant_options(game, 0)


# ---------------------------------------------------------------- §3.3 / §4 map

@pytest.mark.parametrize("players,exps,count", [(2, (), 8), (3, (), 10), (4, (), 12), (4, AFR, 12),
                                                (5, AFR, 15), (6, AFR, 17)])
def test_s3_3_regions_by_player_count(players, exps, count):
    """§3.3: 8/10/12 regions at 2/3/4 players; 15 (no Russia, Tartaria) and 17 with Africa."""
    cfg = default_config(players, exps)
    assert cfg.n_regions == count
    if players == 5:
        assert "Russia" not in cfg.region_names and "AF5" in cfg.region_names


@pytest.mark.parametrize("players,exps", [(2, ()), (3, ()), (4, ()), (5, AFR), (6, AFR)])
def test_s4_2_adjacency_symmetric_and_caravan_always_possible(players, exps):
    """§4.2: every link at both ends; every region has a neighbour and a legal 2-step caravan move."""
    cfg = default_config(players, exps)
    for r, nb in enumerate(cfg.adj):
        assert nb and all(r in cfg.adj[x] for x in nb)
        assert cfg.caravan_paths[r]
    if players == 3:
        assert [cfg.region_names[x] for x in cfg.adj[cfg.region_names.index("Turcia")]] == ["Bulgaria"]


# ---------------------------------------------------------------- §5 tokens

def test_s5_1_token_losses_symbols():
    """§5.1: A hits all with cubes, M every tied leader, a class symbol each card of that class."""
    held = [{"islam": 2}, {"royalty": 1}, {}, {}]
    assert token_losses([2, 2, 1, 0], held, 3, ["A"]) == [1, 1, 1, 0]
    assert token_losses([2, 2, 1, 0], held, 3, ["M"]) == [1, 1, 0, 0]
    assert token_losses([3, 2, 1, 0], held, 3, ["islam"]) == [2, 0, 0, 0]  # two Islam cards
    assert token_losses([1, 2, 1, 0], held, 3, ["islam", "M", "A"]) == [1, 2, 1, 0]  # capped at cubes
    assert token_losses([1, 1, 0, 0], held, 3, ["A"]) == [0, 0, 0, 0]  # threshold 3 not met


def test_q3_worked_example_token_losses():
    """Q3: token 1 (Bo+Ch) costs green 1; the later "2" token (M+Bo+Ch) empties Gallia."""
    held = [{"bourgeoisie": 1, "peasantry": 1}, {"church": 1, "magic": 1, "royalty": 1}, {"chivalry": 1}]
    assert token_losses([2, 0, 1], held, 1, ["bourgeoisie", "church"]) == [1, 0, 0]
    assert token_losses([1, 0, 1], held, 2, ["M", "bourgeoisie", "church"]) == [1, 0, 1]


def test_s5_2_token_lists_match_the_counts():
    """§5.2: base 49 tokens (12 starting), Africanus 65 (17 starting), thresholds as tabled."""
    base = default_config(4)
    afr = default_config(6, AFR)
    assert len(base.tokens) == 49 and len(base.starting_tokens) == 12
    assert len(afr.tokens) == 65 and len(afr.starting_tokens) == 17
    assert [sum(t[0] == k for t in base.tokens) for k in range(1, 7)] == [5, 7, 8, 10, 10, 9]
    assert [sum(t[0] == k for t in afr.tokens) for k in range(1, 7)] == [7, 9, 11, 13, 13, 12]
    assert sum(t[3].count(CLASS_INDEX["islam"]) for t in afr.tokens) == 16
    assert sum(t[2] for t in base.tokens) == 14 and sum(t[1] for t in base.tokens) == 8


@pytest.mark.parametrize("players,exps,supply", [(4, (), 37), (3, (), 33), (2, (), 29), (6, AFR, 48),
                                                 (5, AFR, 44), (4, AFR, 38), (3, AFR, 34), (2, AFR, 30)])
def test_s5_3_supply_size_after_setup(players, exps, supply):
    """§5.3: rat supply at the start by mode and player count."""
    game = make_game(players, exps)
    game.setup()
    assert len(game.state.supply_tokens) == supply
    assert all(len(t) == 1 for t in game.state.tokens)


@pytest.mark.parametrize("players,removed,supply", [(6, 0, 48), (5, 6, 44)])
def test_s5_3_africanus_removal_counts_unused_regions_not_unused_starters(tmp_path, players, removed, supply):
    """§5.3: Africanus removes 3 tokens unseen per region not in use, whatever the number of
    starting tokens: a user token table with 18 starters removes none at 6 players (17 regions in
    use) and 6 at 5 players (2 regions out), not 3 and 9."""
    text = (DATA / "tokens.toml").read_text()
    at = text.index("starting = false", text.index("[[africanus]]"))
    path = tmp_path / "tokens18.toml"
    path.write_text(text[:at] + "starting = true" + text[at + len("starting = false"):])
    cfg = default_config(players, AFR, tokens_file=str(path))
    assert len(cfg.starting_tokens) == 18 and cfg.tokens_removed == removed
    game = make_game(players, AFR, tokens_file=str(path))
    game.setup()
    assert len(game.state.supply_tokens) == supply and len(game.state.removed_tokens) == removed
    assert default_config(players, AFR).tokens_removed == removed  # the built-in table agrees


def test_s5_3_base_tokens_at_4p_when_not_replaced():
    """§3.2 switch: africanus_tokens_replace_base = false uses the base 49 at 2-4 players."""
    game = make_game(4, AFR, africanus_tokens_replace_base=False)
    game.setup()
    assert game.cfg.token_set == "base" and len(game.state.supply_tokens) == 37


# ---------------------------------------------------------------- §6 setup

def test_s6_1_setup_opening_pairs_snake_order_distinct():
    """§6.1: one token per region, 2 cubes clockwise from the start player, 2 more in reverse order,
    in a different region by default."""
    pol = Scripted()
    game = make_game(4, policy=pol)
    game.setup()
    drive(game, until=lambda g: g.state.phase == "regular")
    st = game.state
    s = st.start_seat
    seats = [seat for seat, kind, _ in pol.asked if kind == "opening"]
    assert seats == [(s + i) % 4 for i in range(4)] + [(s + 3 - i) % 4 for i in range(4)]
    second = [opts for seat, kind, opts in pol.asked if kind == "opening"][4:]
    assert all(0 not in o and len(o) == 11 for o in second)
    assert st.cubes[0] == [2, 2, 2, 2] and st.cubes[1] == [2, 2, 2, 2]
    assert st.supply_cubes == [16] * 4
    assert all(h == -1 for h in st.holder[:6]) and all(h == -2 for h in st.holder[6:])


def test_s6_1_opening_pairs_same_region_allowed_when_switched_off():
    """§6.1 switch opening_pairs_distinct_regions = false: both pairs may go into one region."""
    game = make_game(4, opening_pairs_distinct_regions=False)
    game.setup()
    drive(game, until=lambda g: g.state.phase == "regular")
    assert game.state.cubes[0] == [4, 4, 4, 4]


def test_s6_2_africanus_setup_cards_region_cards_caravan():
    """§6.2: Knight + 5 random class cards (7 at 5-6p), 3 region cards each, caravan on the board."""
    for players, count in ((4, 6), (6, 8)):
        game = make_game(players, AFR)
        game.setup()
        st = game.state
        in_play = [c for c, h in enumerate(st.holder) if h != -2]
        assert len(in_play) == count and 3 in in_play  # knight
        assert all(len(h) == 3 for h in st.hands)
        assert len(st.deck) == 3 * game.cfg.n_regions - 3 * players
        assert 0 <= st.caravan < game.cfg.n_regions and st.disc_supply == 15


# ---------------------------------------------------------------- §7 turn phases

def _quiet_turn(game, seat=0, **answers):
    """A regular turn of ``seat`` with the plague piece in Anglia and no rats near it."""
    game.state.plague = region(game, "Anglia")
    turn(game, seat, **answers)


def test_s7_b_place_cubes_equal_to_rats_peasant_plus_one():
    """§7 B, §8.1: as many cubes as rats there; Peasant +1, and 1 cube in a rat-free region."""
    game = make_game(4)
    st = game.state
    tu = region(game, "Turcia")
    tokens(game, "Turcia", 0, 1)
    _quiet_turn(game, step=["place", "plague"], place=[tu])
    assert st.cubes[tu][0] == 2
    give(game, 1, "peasant")
    _quiet_turn(game, 1, step=["place", "plague"], place=[tu])
    assert st.cubes[tu][1] == 3
    bu = region(game, "Bulgaria")
    _quiet_turn(game, 1, step=["place", "plague"], place=[bu])
    assert st.cubes[bu][1] == 1


def test_s7_b_placement_capped_by_supply():
    """§7 B default: with fewer cubes in supply, place all that are left."""
    game = make_game(4)
    st = game.state
    tu = region(game, "Turcia")
    tokens(game, "Turcia", 0, 1, 2)
    st.supply_cubes[0] = 1
    _quiet_turn(game, step=["place", "plague"], place=[tu])
    assert st.cubes[tu][0] == 1 and st.supply_cubes[0] == 0


@pytest.mark.parametrize("peasant", [False, True])
def test_s7_b_rulebook_placement_example(peasant):
    """§7 B, §8.1 (rulebook example): 3 rats -> 3 cubes, 1 rat -> 1, 0 rats -> 0; the Peasant's
    holder places one more each (4, 2, 1)."""
    game = make_game(4)
    st = game.state
    tokens(game, "Turcia", 0, 1, 2)
    tokens(game, "Gallia", 3)
    if peasant:
        give(game, 0, "peasant")
    extra = 1 if peasant else 0
    for name, rats in (("Turcia", 3), ("Gallia", 1), ("Bulgaria", 0)):
        r = region(game, name)
        _quiet_turn(game, step=["place", "plague"], place=[r])
        assert st.cubes[r][0] == rats + extra, name


def test_s7_b_placement_optional_by_default_mandatory_as_an_option():
    """§7 B: by default a player may go to phase C without placing; with ``placement_mandatory``
    phase C waits until cubes are placed, in a region that gets at least one, unless no region
    would get any (no rats anywhere and no Peasant)."""
    assert {v.name: v for v in default_config(4).rule_values}["placement_mandatory"].provenance == "default"
    game = make_game(4)
    tokens(game, "Turcia", 0)
    _quiet_turn(game)
    first = next(o for _, k, o in game.policy.asked if k == "step")
    assert "plague" in first and "place" in first
    game = make_game(4, placement_mandatory=True)
    tu = region(game, "Turcia")
    tokens(game, "Turcia", 0)
    _quiet_turn(game, step=["place", "plague"])
    asked = game.policy.asked
    steps = [o for _, k, o in asked if k == "step"]
    assert "plague" not in steps[0] and "plague" in steps[1]
    assert [o for _, k, o in asked if k == "place"] == []  # one region with rats: taken without asking
    assert game.state.cubes[tu][0] == 1
    game = make_game(4, placement_mandatory=True)  # nothing to place anywhere: C is open at once
    _quiet_turn(game)
    assert "plague" in next(o for _, k, o in game.policy.asked if k == "step")
    game = make_game(4, placement_mandatory=True)  # with the Peasant every region gets a cube
    give(game, 0, "peasant")
    _quiet_turn(game, step=["place", "plague"])
    assert len(next(o for _, k, o in game.policy.asked if k == "place")) == game.cfg.n_regions


@pytest.mark.parametrize("knight", [False, True])
def test_s7_c1_plague_piece_must_move(knight):
    """§7 C.1: the plague piece never stays where it is (with or without the Knight)."""
    for start in range(12):
        pol = Scripted()
        game = make_game(4, policy=pol, cards=["knight"])
        if knight:
            give(game, 0, "knight")
        game.state.plague = start
        plague_phase(game, 0)
        opts = [o for _, k, o in pol.asked if k == "plague_move"][-1]
        assert start not in opts and game.state.plague != start


def test_s7_a_a_class_card_cannot_be_discarded():
    """§7 A: a card leaves its holder only when another player takes it; no decision discards
    one, so once taken a card is always held, and every card in play stays in play."""
    cfg = default_config(4, AFR)
    for seed in range(6):
        game = new_state(cfg, seed)
        rng = random.Random(seed)
        in_play = [c for c, h in enumerate(game.state.holder) if h != -2]
        taken: set[int] = set()
        while not game.is_terminal():
            holder = game.state.holder
            assert [c for c, h in enumerate(holder) if h != -2] == in_play
            assert all(holder[c] >= 0 for c in taken)
            taken |= {c for c in in_play if holder[c] >= 0}
            assert not any("discard" in str(a) for a in game.legal_actions())
            acts = game.legal_actions()
            game.apply(acts[rng.randrange(len(acts))])


def test_s7_c1_plague_move_neighbour_or_knight_range():
    """§7 C.1, §8.1, §11: one step; Knight up to 2 (3 at 5-6 players); never stay."""
    pol = Scripted()
    game = make_game(4, policy=pol, cards=["knight"])
    game.state.plague = region(game, "Anglia")
    plague_phase(game, 0)
    names = game.cfg.region_names
    opts = [o for _, k, o in pol.asked if k == "plague_move"][-1]
    assert {names[x] for x in opts} == {"Gallia", "Scandia"}
    give(game, 0, "knight")
    game.state.plague = region(game, "Anglia")
    plague_phase(game, 0)
    opts = [o for _, k, o in pol.asked if k == "plague_move"][-1]
    assert {names[x] for x in opts} == {"Gallia", "Scandia", "Hispania", "Germania", "Italia", "Polonia", "Russia"}
    assert default_config(6, AFR).knight_steps == 3


def test_q15_spread_two_rats_not_into_a_full_region():
    """Q15, Q4, §7 C.2: 2 rats in X -> 2 new rats first, none into a full neighbour; then reveal."""
    pol = Scripted()
    game = make_game(4, policy=pol)
    st = game.state
    ga, hi, it = region(game, "Gallia"), region(game, "Hispania"), region(game, "Italia")
    tokens(game, "Gallia", token_id(game, "6+Ch"), token_id(game, "6+Kn"))
    tokens(game, "Hispania", 10, 11, 12)
    tokens(game, "Italia", 13)
    st.supply_tokens = [20, 21, 22]
    put(game, "Gallia", 0, 1)
    st.plague = region(game, "Anglia")
    plague_phase(game, 0, plague_move=[ga], spread=[it, it])
    spread_opts = [o for _, k, o in pol.asked if k == "spread"]
    assert len(spread_opts) == 2 and all(hi not in o for o in spread_opts)
    assert st.tokens[it] == [13, 22, 21] and st.supply_tokens == [20]
    assert st.tokens[ga] == [] and st.cubes[ga][1] == 1  # both 6+ tokens revealed, no effect
    assert st.discarded_tokens == 2


@pytest.mark.parametrize("rats,new", [(1, 1), (2, 2), (3, 2)])
def test_q4_spread_count_table(rats, new):
    """Q4, §7 C.2: 1 -> 1, 2 -> 2, 3 -> 2 new rats."""
    game = make_game(4)
    st = game.state
    ga = region(game, "Gallia")
    tokens(game, "Gallia", *range(rats))
    st.supply_tokens = list(range(40, 46))
    st.plague = region(game, "Anglia")
    plague_phase(game, 0, plague_move=[ga])
    assert len(st.supply_tokens) == 6 - new


def test_q16_no_rats_nothing_happens():
    """Q16: the plague reaches a region with cubes but no rats: no spread, no plague."""
    game = make_game(4)
    st = game.state
    put(game, "Gallia", 3, 3)
    st.supply_tokens = [40, 41]
    st.plague = region(game, "Anglia")
    plague_phase(game, 0, plague_move=[region(game, "Gallia")])
    assert st.supply_tokens == [40, 41] and st.cubes[region(game, "Gallia")][:2] == [3, 3]


def test_s7_1_q3_resolution_one_token_at_a_time():
    """§7.1, Q3: Gallia 2 green + 1 yellow; tokens 1+Bo+Ch, 3+Pe+Bo, 2+M+Bo+Ch revealed in order."""
    game = make_game(4)
    st = game.state
    ga = region(game, "Gallia")
    give(game, 0, "merchant", "peasant")
    give(game, 1, "monk", "witch", "king")
    give(game, 2, "knight")
    put(game, "Gallia", 2, 0, 1)
    tokens(game, "Gallia", token_id(game, "1+Bo+Ch"), token_id(game, "3+Pe+Bo"), token_id(game, "2+M+Bo+Ch"))
    resolve(game, ga, 3)
    assert st.cubes[ga] == [0, 0, 0, 0]
    assert st.cubes_lost == [2, 0, 1, 0]
    assert st.tokens[ga] == [] and st.supply_cubes == [20, 20, 20, 20]


def test_s7_1_reveal_counts_the_cubes_present_at_that_moment():
    """§7.1: each token counts the cubes in the region when it is revealed. Gallia holds 2 cubes
    of seat 0 (Merchant) and 1 of seat 1 (Monk): 1+Bo+Ch kills one of each, so 2+M+Bo+Ch finds
    1 cube, below its threshold, and seat 0's last cube survives (counted from the 3 cubes
    there before, it would die to M and Bo)."""
    game = make_game(4)
    st = game.state
    ga = region(game, "Gallia")
    give(game, 0, "merchant")
    give(game, 1, "monk")
    put(game, "Gallia", 2, 1)
    tokens(game, "Gallia", token_id(game, "1+Bo+Ch"), token_id(game, "2+M+Bo+Ch"))
    resolve(game, ga, 0)
    assert st.cubes[ga][:2] == [1, 0] and st.cubes_lost[:2] == [1, 1]
    assert st.tokens[ga] == [] and st.discarded_tokens == 2


def test_q13_resolution_stops_when_no_cubes_left():
    """Q13: once the region is empty the remaining token stays face down."""
    game = make_game(4)
    st = game.state
    ga = region(game, "Gallia")
    give(game, 0, "merchant")
    put(game, "Gallia", 1)
    rest = token_id(game, "1+Pe")
    tokens(game, "Gallia", token_id(game, "1+Bo+Ch"), rest)
    resolve(game, ga, 0)
    assert st.tokens[ga] == [rest] and st.discarded_tokens == 1


# ---------------------------------------------------------------- §8 class cards

def test_s8_1_merchant_moves_up_to_three_cubes_to_one_neighbour():
    """§8.1 Merchant: options are (src, neighbour, 1..min(3, cubes)); the move is applied."""
    game = make_game(4, cards=["merchant"])
    st = game.state
    an, sc = region(game, "Anglia"), region(game, "Scandia")
    put(game, "Anglia", 4)
    give(game, 0, "merchant")
    opts = cards.merchant_options(game, 0)
    assert len(opts) == 6 and (an, sc, 3, False) in opts and (an, sc, 4, False) not in opts
    ability(game, 0, "merchant", merchant=[(an, sc, 3, False)])
    assert st.cubes[an][0] == 1 and st.cubes[sc][0] == 3


def test_s8_1_monk_moves_one_token_respecting_the_cap():
    """§8.1 Monk: one token to a neighbouring region with fewer than 3 rats."""
    game = make_game(4, cards=["monk"])
    st = game.state
    an, ga, sc = region(game, "Anglia"), region(game, "Gallia"), region(game, "Scandia")
    tokens(game, "Anglia", 5)
    tokens(game, "Gallia", 1, 2, 3)
    give(game, 0, "monk")
    opts = cards.monk_options(game, 0)
    assert (an, 0, ga) not in opts and (an, 0, sc) in opts
    ability(game, 0, "monk", monk=[(an, 0, sc)])
    assert st.tokens[an] == [] and st.tokens[sc] == [5]


def test_s8_1_witch_looks_at_two_tokens_and_may_swap():
    """§8.1 Witch: pick two tokens, see both, swap positions if wanted; counts unchanged."""
    game = make_game(4, cards=["witch"])
    st = game.state
    an, ga = region(game, "Anglia"), region(game, "Gallia")
    tokens(game, "Anglia", 5)
    tokens(game, "Gallia", 7, 8)
    seen = []
    give(game, 0, "witch")
    ability(game, 0, "witch", witch_first=[(an, 0)], witch_second=[(ga, 1)],
            witch_swap=lambda g, seat, o, ctx: seen.append(ctx) or True)
    assert seen == [((an, 0), (ga, 1), 5, 8)]
    assert st.tokens[an] == [8] and st.tokens[ga] == [7, 5]


def test_q2_king_only_from_a_rat_free_region_never_the_disc_cube():
    """Q2, §8.1, §8.2: King moves an ordinary cube from a region with zero rats to the palace."""
    game = make_game(4, AFR, cards=["king"])
    st = game.state
    an, it = region(game, "Anglia"), region(game, "Italia")
    put(game, "Anglia", 1)
    put(game, "Gallia", 2)
    put(game, "Italia", 1)
    tokens(game, "Gallia", 3)
    st.discs[it][0] = 1
    give(game, 0, "king")
    assert cards.king_options(game, 0) == (an,)
    ability(game, 0, "king")
    assert st.palace[0] == 1 and st.cubes[an][0] == 0


def test_s8_1_peasant_in_final_round_places_one_cube_anywhere():
    """§10.2 default: in the final round the Peasant places 1 cube in any region."""
    game = make_game(4, cards=["peasant"])
    give(game, 1, "peasant")
    game.state.last_seat = 0
    sc = region(game, "Scandia")
    answer(game, final_step=["peasant", "done"], peasant=[sc])
    game.start_final_round()
    drive(game)
    assert game.state.cubes[sc][1] == 1


@pytest.mark.parametrize("option", [False, True])
def test_s10_2_knight_in_the_final_round(option):
    """§10.2: by default the Knight does nothing in the final round; with the rule option
    ``knight_moves_plague_in_final_round`` its holder may move the plague piece within Knight
    range, and no new rats and no plague follow (Italia has rats and no cubes, so the final
    plague leaves it alone)."""
    lines: list[str] = []
    game = make_game(4, cards=["knight"], knight_moves_plague_in_final_round=option, log=lines.append)
    give(game, 1, "knight")
    st = game.state
    st.last_seat = 0
    st.plague = region(game, "Anglia")
    it = region(game, "Italia")
    tokens(game, "Italia", 5, 6)
    st.supply_tokens = [20, 21]
    answer(game, final_step=["knight", "done"] if option else ["done"], knight=[it])
    game.start_final_round()
    drive(game)
    steps = [o for seat, k, o in game.policy.asked if k == "final_step" and seat == 1]
    assert [("knight" in o) for o in steps] == ([True] if option else [])  # default: nothing to ask
    assert st.plague == (it if option else region(game, "Anglia"))
    assert st.supply_tokens == [20, 21] and st.tokens[it] == [5, 6] and st.phase == "over"
    assert any("knight: plague piece Anglia -> Italia" in ln for ln in lines) is option
    assert {v.name: v for v in default_config(4).rule_values}["knight_moves_plague_in_final_round"].provenance \
        == "default"


def test_s8_2_astronomer_keeps_one_explorer_places_one_cube():
    """§8.2: Astronomer draws 3 keeps 1 (others discarded); Explorer puts 1 cube in a drawn card's region."""
    game = make_game(4, AFR, cards=["astronomer", "explorer"])
    st = game.state
    st.deck = list(range(10))
    give(game, 0, "astronomer")
    give(game, 1, "explorer")
    ability(game, 0, "astronomer")
    assert st.hands[0] == [9] and sorted(st.rdiscard) == [7, 8] and len(st.deck) == 7
    ability(game, 1, "explorer")
    r = game.cfg.rcard_region[6]
    assert st.cubes[r][1] == 1 and sorted(st.rdiscard) == [4, 5, 6, 7, 8]


# ---------------------------------------------------------------- §9 region cards

def _card(game, label):
    return game.cfg.rcard_labels.index(label)


def test_q5_region_card_protects_for_the_rest_of_the_region():
    """Q5, §9: red (seat 0, Peasant) plays a Pe card on another player's turn; later Pe symbols in
    that region cost nothing; M still does; the card is discarded when the region is finished."""
    game = make_game(4, AFR, cards=["peasant"])
    st = game.state
    ga = region(game, "Gallia")
    give(game, 0, "peasant")
    card = _card(game, "Gallia:Pe+Ch")
    st.hands[0] = [card]
    put(game, "Gallia", 3, 1)
    tokens(game, "Gallia", token_id(game, "1+Pe+Is"), token_id(game, "2+M+Pe"))
    resolve(game, ga, 1, region_card=[(card, CLASS_INDEX["peasantry"])])
    assert st.cubes[ga][:2] == [2, 1]  # only the M of token 2
    assert st.hands[0] == [] and st.rdiscard == [card]


def test_s7_c3_log_names_the_class_after_the_reveal_that_caused_it():
    """§7 C.3, §9: the replay log shows the reveal before the region card it triggered, names the
    class protected (not its index), then the losses."""
    lines: list[str] = []
    game = make_game(4, AFR, cards=["peasant"], log=lines.append)
    give(game, 0, "peasant")
    card = _card(game, "Gallia:Pe+Ch")
    game.state.hands[0] = [card]
    put(game, "Gallia", 3, 1)
    tokens(game, "Gallia", token_id(game, "1+Pe+Is"))
    resolve(game, region(game, "Gallia"), 1, region_card=[(card, CLASS_INDEX["peasantry"])])
    body = [ln.strip() for ln in lines if "reveal" in ln or "region card" in ln or "kills" in ln]
    assert body == ["reveal 1+Pe+Is in Gallia: 4 cubes",
                    "seat 0 plays region card Gallia:Pe+Ch to protect peasantry",
                    "1+Pe+Is kills nobody"]


def test_q14_final_plague_protection_only_in_its_region():
    """Q14, §2.1: in the final plague L picks the order; a card played in Gallia does not protect in Hispania."""
    game = make_game(4, AFR, cards=["peasant"])
    st = game.state
    ga, hi = region(game, "Gallia"), region(game, "Hispania")
    give(game, 0, "peasant")
    card = _card(game, "Gallia:Pe+Ch")
    st.hands[0] = [card]
    put(game, "Gallia", 2)
    put(game, "Hispania", 2)
    tokens(game, "Gallia", token_id(game, "1+Pe+Is"))
    tokens(game, "Hispania", token_id(game, "1+Pe+Ch"))
    st.last_seat = 2
    pol = game.policy
    answer(game, final_order=[ga, hi], region_card=[(card, CLASS_INDEX["peasantry"])])
    game.start_final_plague()
    drive(game)
    assert [(s, k) for s, k, _ in pol.asked if k == "final_order"] == [(2, "final_order")]
    assert st.cubes[ga][0] == 2 and st.cubes[hi][0] == 1


def test_q17_region_card_scores_with_majority():
    """Q17, §9: Italia card scores (red 3 vs blue 2), Scandia card does not (red 1 vs yellow 2)."""
    game = make_game(4, AFR)
    st = game.state
    put(game, "Italia", 3, 2)
    put(game, "Scandia", 1, 0, 2)
    it, sc = _card(game, "Italia:Pe+Ma"), _card(game, "Scandia:Kn+Ro")
    st.hands[0] = [it, sc]
    assert region_card_points(st.hands, st.cubes, game.cfg.rcard_region) == [1, 0, 0, 0]
    put(game, "Scandia", 1)  # tie 2-2 counts by default
    assert region_card_points(st.hands, st.cubes, game.cfg.rcard_region) == [2, 0, 0, 0]
    assert region_card_points(st.hands, st.cubes, game.cfg.rcard_region, 1, False) == [1, 0, 0, 0]


# ---------------------------------------------------------------- §10 end and scoring

def test_s10_1_end_after_the_turn_that_empties_the_rat_supply():
    """§10.1: the spread takes the last rat; the turn finishes, then the game ends (trigger seat 0)."""
    game = make_game(4)
    st = game.state
    tokens(game, "Gallia", token_id(game, "6+Ch"))
    st.supply_tokens = [token_id(game, "6+Kn")]
    st.plague = region(game, "Anglia")
    st.start_seat = 0
    run(game)
    assert (st.end, st.trigger_seat, st.last_seat, st.turns) == ("trigger", 0, 0, 1)
    assert st.final_round_turns == 3 and st.phase == "over"


def test_s10_1_end_when_active_player_has_all_cubes_on_board():
    """§10.1: the active player's supply is empty at the end of his turn."""
    game = make_game(4)
    st = game.state
    st.supply_tokens = [1, 2, 3]
    st.supply_cubes[1] = 0
    st.start_seat = 0
    run(game)
    assert (st.end, st.trigger_seat, st.turns) == ("trigger", 1, 2)


def test_s10_1_round_cap_and_hard_turn_cap():
    """§10.1 guard: at max_rounds the game ends as turn_cap; beyond max_turns TurnCapExceeded."""
    game = make_game(4, max_rounds=2)
    st = game.state
    st.supply_tokens = [1, 2, 3]
    run(game)
    assert (st.end, st.turns, st.trigger_seat, st.last_seat) == ("turn_cap", 8, -1, 3)
    game = make_game(4, max_rounds=100, max_turns=5)
    game.state.supply_tokens = [1, 2, 3]
    with pytest.raises(TurnCapExceeded, match="seed 0"):
        run(game)


def test_s10_4_score_cubes_palace_region_cards_diplomats():
    """§10.4: score = cubes in regions + palace + region-card points + diplomat points."""
    game = make_game(4, AFR)
    st = game.state
    it = region(game, "Italia")
    put(game, "Italia", 3, 2)
    st.palace[0] = 2
    st.discs[it][0] = 1
    st.hands[0] = [_card(game, "Italia:Pe+Ma")]
    st.last_seat = 3
    score, cubes, rc, dp = final_scores(st)
    assert score == [3 + 2 + 1 + 4, 2, 0, 0]
    assert cubes == [5, 2, 0, 0] and rc == [1, 0, 0, 0] and dp == [4, 0, 0, 0]
    _, seats = build_records(st, ["x"] * 4)
    assert seats[0]["score"] - seats[0]["sultan_points"] == 6


def test_s10_5_tiebreak_order():
    """§10.5: order last+1, last+2, ..., last; strict, so exactly one winner."""
    assert tiebreak_keys(3, 2) == [2.0, 1.0, 0.0]
    assert tiebreak_keys(5, 1) == [1.0, 0.0, 4.0, 3.0, 2.0]


def test_s11_five_six_players_need_africanus_and_use_8_cards():
    """§11: 5-6 players only with Africanus; Knight range 3; 8 class cards."""
    from analyzer.errors import RuleError
    with pytest.raises(RuleError, match="players"):
        default_config(5)
    cfg = default_config(5, AFR)
    assert cfg.cards_in_play_count == 8 and cfg.knight_steps == 3


def test_illegal_choice_raises_naming_seat_decision_and_options():
    """§15: a choice outside the offered options is a bug and raises IllegalChoice."""
    game = make_game(4, policy=Scripted({"opening": [99]}))
    game.setup()
    with pytest.raises(IllegalChoice, match=r"seat \d: decision 'opening': choice 99"):
        drive(game)
