"""The labelled defaults Rattus counts where they act (``metrics.GUESSES``, game record columns
``acted_*``): one test per counter, named after the rules section of its default
(docs/rules/rattus.md), on a hand-built position with the exact count asserted; and a counter is
0 where its value is not a labelled default (set by the scenario, or a user table).

Positions are built by hand (``rattus_helpers``); reveals take tokens in list order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from rattus_helpers import (
    ability,
    give,
    make_game,
    plague_phase,
    put,
    region,
    resolve,
    token_id,
    tokens,
    turn,
)

from analyzer import api
from analyzer.games.rattus import SPEC
from analyzer.games.rattus import findings as rattus_findings
from analyzer.games.rattus.config import CLASS_INDEX
from analyzer.games.rattus.metrics import GUESSES, build_records

AFR = ("africanus",)
DATA = Path(__file__).parents[3] / "analyzer" / "games" / "rattus" / "data"


def acted(game) -> dict[str, int]:
    """The ``acted_*`` columns of the game record of ``game`` as it stands."""
    record, _ = build_records(game.state, ["x"] * game.cfg.n_players)
    return {k: v for k, v in record.items() if k.startswith("acted_")}


def _card(game, label):
    return game.cfg.rcard_labels.index(label)


def test_every_counter_is_a_declared_column_of_the_spec():
    assert SPEC.guesses == GUESSES
    assert {g.column for g in GUESSES} <= {c for c, t in SPEC.game_columns.items() if t == "int64"}


# ---------------------------------------------------------------- §5.2 token faces


def test_s5_2_every_reveal_shows_a_guessed_token_face():
    """§5.2: the token lists are a labelled default; every reveal counts, whether its threshold
    is met or not. Red (Peasant) has 1 cube in Gallia: "3+M+Pe" finds 1 cube and does nothing,
    "1+Pe" kills it, and the third token stays face down (Q13): 2 reveals."""
    game = make_game(4)
    ga = region(game, "Gallia")
    give(game, 0, "peasant")
    put(game, "Gallia", 1)
    tokens(game, "Gallia", token_id(game, "3+M+Pe"), token_id(game, "1+Pe"), token_id(game, "1+Ma"))
    resolve(game, ga, 0)
    assert game.state.tokens[ga] == [token_id(game, "1+Ma")]
    assert acted(game)["acted_token_face"] == 2


def test_s5_2_a_user_token_list_is_not_counted():
    """§5.2: with the scenario's own token table (here a copy of the built-in one) the faces
    are not a labelled default, so nothing is counted."""
    game = make_game(4, tokens_file=str(DATA / "tokens.toml"))
    put(game, "Gallia", 2)
    tokens(game, "Gallia", token_id(game, "1+Ma"))
    resolve(game, region(game, "Gallia"), 0)
    assert game.state.discarded_tokens == 1
    assert acted(game)["acted_token_face"] == 0


# ---------------------------------------------------------------- §4.3 stand-in Africa regions


def test_s4_3_plague_piece_and_caravan_entering_a_stand_in_region():
    """§4.3: at 6 players the plague piece moving Hispania -> AF1 counts once; a caravan move
    AF1 -> AF2 -> AF3 enters two more (middle and end)."""
    game = make_game(6, AFR, cards=["trader"])
    st = game.state
    st.plague = region(game, "Hispania")
    plague_phase(game, 0, plague_move=[region(game, "AF1")])
    assert st.plague == region(game, "AF1") and acted(game)["acted_africa_region"] == 1
    st.caravan = region(game, "AF1")
    give(game, 1, "trader")
    ability(game, 1, "trader", trader=[(region(game, "AF2"), region(game, "AF3"))])
    assert st.caravan == region(game, "AF3") and acted(game)["acted_africa_region"] == 3


def test_s4_3_european_regions_and_a_user_map_count_nothing():
    """§4.3: a move between European regions counts nothing; with the scenario's own map (a
    copy of the built-in one) AF1 is not a stand-in of the rules file."""
    game = make_game(6, AFR)
    game.state.plague = region(game, "Hispania")
    plague_phase(game, 0, plague_move=[region(game, "Gallia")])
    assert acted(game)["acted_africa_region"] == 0
    user = make_game(6, AFR, map_file=str(DATA / "map.toml"))
    user.state.plague = region(user, "Hispania")
    plague_phase(user, 0, plague_move=[region(user, "AF1")])
    assert user.cfg.guessed_regions == 0 and acted(user)["acted_africa_region"] == 0


# ---------------------------------------------------------------- §7 B placing is optional


def test_s7_b_going_to_phase_c_without_placing_counts_when_placing_was_possible():
    """§7 B: seat 0 moves the plague piece at once although Gallia holds a rat (counted);
    seat 1 places first (not counted)."""
    game = make_game(4)
    tokens(game, "Gallia", token_id(game, "6+Ch"))
    game.state.plague = region(game, "Anglia")
    turn(game, 0, plague_move=[region(game, "Scandia")])
    assert acted(game)["acted_no_placing"] == 1
    turn(game, 1, step=["place", "plague"], place=[region(game, "Gallia")],
         plague_move=[region(game, "Anglia")])
    assert game.state.cubes[region(game, "Gallia")][1] == 1
    assert acted(game)["acted_no_placing"] == 1


def test_s7_b_nothing_to_place_is_not_counted_and_a_set_option_is_no_default():
    """§7 B: with no rat on the board and no Peasant, passing B decides nothing; a scenario
    that sets ``placement_mandatory`` (even to its default) is not counted."""
    game = make_game(4)
    game.state.plague = region(game, "Anglia")
    turn(game, 0, plague_move=[region(game, "Scandia")])
    assert acted(game)["acted_no_placing"] == 0
    user = make_game(4, placement_mandatory=False)
    tokens(user, "Gallia", token_id(user, "6+Ch"))
    user.state.plague = region(user, "Anglia")
    turn(user, 0, plague_move=[region(user, "Scandia")])
    assert user.state.acted_no_placing == 1 and acted(user)["acted_no_placing"] == 0


# ---------------------------------------------------------------- §5.1 same-class cards stack


def test_s5_1_two_islam_cards_lose_two_cubes_to_one_islam_symbol():
    """§5.1: red holds the Sultan and the Trader (two Islam cards) and loses 2 cubes to the Is
    of "1+Pe+Is" instead of 1: counted once; blue with one Islam card is not counted."""
    game = make_game(4, AFR, cards=["sultan", "trader", "astronomer"])
    give(game, 0, "sultan", "trader")
    give(game, 1, "astronomer")
    ga = region(game, "Gallia")
    put(game, "Gallia", 3, 2)
    tokens(game, "Gallia", token_id(game, "1+Pe+Is"))
    resolve(game, ga, 0)
    assert game.state.cubes[ga][:2] == [1, 1]
    assert acted(game)["acted_class_stack"] == 1


def test_s5_1_a_single_cube_left_loses_one_either_way():
    """§5.1: with one cube in the region the holder of two Islam cards loses it under either
    reading, so the default decided nothing."""
    game = make_game(4, AFR, cards=["sultan", "trader"])
    give(game, 0, "sultan", "trader")
    put(game, "Gallia", 1)
    tokens(game, "Gallia", token_id(game, "1+Pe+Is"))
    resolve(game, region(game, "Gallia"), 0)
    assert acted(game)["acted_class_stack"] == 0


# ---------------------------------------------------------------- §9 region cards


def test_s9_a_region_card_of_another_region_protects_and_is_counted():
    """§9: red plays an Anglia card against a Pe symbol in Gallia (allowed by the default
    ``region_card_must_match_plague_region = false``): counted; a Gallia card would not be."""
    game = make_game(4, AFR, cards=["peasant"])
    st = game.state
    give(game, 0, "peasant")
    anglia, gallia = _card(game, "Anglia:?"), _card(game, "Gallia:Pe+Ch")
    st.hands[0] = [anglia]
    put(game, "Gallia", 2)
    tokens(game, "Gallia", token_id(game, "1+Pe+Is"))
    resolve(game, region(game, "Gallia"), 0, region_card=[(anglia, CLASS_INDEX["peasantry"])])
    assert st.cubes[region(game, "Gallia")][0] == 2 and acted(game)["acted_region_card_elsewhere"] == 1
    st.hands[0] = [gallia]
    tokens(game, "Gallia", token_id(game, "2+Pe+Ma+Is"))
    resolve(game, region(game, "Gallia"), 0, region_card=[(gallia, CLASS_INDEX["peasantry"])])
    assert st.hands[0] == [] and acted(game)["acted_region_card_elsewhere"] == 1


def test_s9_region_card_points_and_majority_ties():
    """§9, Q17: red keeps an Italia card (3 against 2: scores), a Scandia card (2 against 2: a
    tie, scores by default) and an Anglia card (no cube there: nothing): 2 cards score, 1 tie."""
    game = make_game(4, AFR)
    put(game, "Italia", 3, 2)
    put(game, "Scandia", 2, 0, 2)
    game.state.hands[0] = [_card(game, "Italia:Pe+Ma"), _card(game, "Scandia:Kn+Ro"),
                           _card(game, "Anglia:?")]
    out = acted(game)
    assert out["acted_region_card_point"] == 2 and out["acted_region_card_tie"] == 1


def test_s9_a_tie_that_does_not_count_scores_nothing():
    """§9: with ``region_card_majority_ties_count = false`` set by the scenario the tied card
    does not score and the tie rule is not a default (0); the point value still is (1)."""
    game = make_game(4, AFR, region_card_majority_ties_count=False)
    put(game, "Italia", 3, 2)
    put(game, "Scandia", 2, 0, 2)
    game.state.hands[0] = [_card(game, "Italia:Pe+Ma"), _card(game, "Scandia:Kn+Ro")]
    out = acted(game)
    assert out["acted_region_card_point"] == 1 and out["acted_region_card_tie"] == 0


# ---------------------------------------------------------------- §2.3 two-player diplomat tie


def test_s2_3_two_players_tied_for_most_diplomats():
    """§2.3, Q10: at 2 players one disc each is a tie for most (3 points each by the labelled
    default): counted once; 2 against 1 is not a tie."""
    game = make_game(2, AFR, cards=["sultan"])
    st = game.state
    it, sc = region(game, "Italia"), region(game, "Scandia")
    put(game, "Italia", 1, 1)
    st.discs[it] = [1, 1]
    assert acted(game)["acted_diplomat_2p_tie"] == 1
    put(game, "Scandia", 1)
    st.discs[sc][0] = 1
    assert acted(game)["acted_diplomat_2p_tie"] == 0


# ---------------------------------------------------------------- §8.2 Astronomer, Explorer


def test_s8_2_astronomer_leftovers_and_explorer_cubes():
    """§8.2: the Astronomer draws 3 and keeps 1 (two left over: counted); drawing a single card
    leaves none (not counted). The Explorer places its cube (counted), not with an empty supply."""
    game = make_game(4, AFR, cards=["astronomer", "explorer"])
    st = game.state
    st.deck = list(range(10))
    give(game, 0, "astronomer")
    give(game, 1, "explorer")
    ability(game, 0, "astronomer")
    assert acted(game)["acted_astronomer_leftovers"] == 1
    st.deck, st.rdiscard, st.rdiscard_seen = [3], [], []
    ability(game, 0, "astronomer")
    assert st.hands[0][-1] == 3 and acted(game)["acted_astronomer_leftovers"] == 1
    st.deck = list(range(10, 20))
    ability(game, 1, "explorer")
    assert acted(game)["acted_explorer_cubes"] == 1
    st.supply_cubes[1] = 0
    ability(game, 1, "explorer")
    assert acted(game)["acted_explorer_cubes"] == 1


# ---------------------------------------------------------------- guessed content in the findings


def _sultan_numbers():
    return {"variant": "base",
            "winner_changed": {"games": 300, "changed": 28, "estimate": 28 / 300, "lo": 0.065,
                               "hi": 0.13, "examples": [1]}}


def test_s5_2_s4_3_findings_name_the_guessed_content_they_are_played_on():
    """§5.2, §4.3: a Rattus finding says it is played on the guessed token faces, and at 5-6
    players on the stand-in regions AF1–AF5, when those are labelled defaults of its arm."""
    guessed = [{"name": "tokens"}, {"name": "map"}]
    five = {"players": 5, "defaults": {"base": guessed}}
    (f,) = rattus_findings.sultan(_sultan_numbers(), five)
    assert f.sentence() == ("Diplomat points change the winner in 9.3 % [6.5, 13.0] of the 300 "
                            "games of `base` with the Sultan in play — played on guessed token "
                            "faces and the stand-in regions AF1–AF5 (labelled defaults, not "
                            "sourced)")
    (four,) = rattus_findings.sultan(_sultan_numbers(), {**five, "players": 4})
    assert "— played on guessed token faces (a labelled default, not sourced)" in four.sentence()
    assert "AF1" not in four.sentence()
    own = {"players": 5, "defaults": {"base": [{"name": "map"}]},
           "arms": [{"name": "base", "players": 4}]}  # the arm's own count wins
    (user,) = rattus_findings.sultan(_sultan_numbers(), own)
    assert "played on" not in user.sentence()
    caravan = rattus_findings.caravan({"variant": "base", "games": 10, "total_per_move":
                                       {"estimate": 1.5, "lo": 1.2, "hi": 1.8}}, five)
    assert "— played on guessed token faces and the stand-in" in caravan[0].sentence()


# ---------------------------------------------------------------- in a report


STUDY = """\
name = "guesses"
game = "rattus"
expansions = ["africanus"]
players = 5
games = 12
seed = 5

[[seats]]
policy = "greedy"

[[variants]]
name = "own-tokens"
rules = {{ tokens_file = "{tokens}" }}
"""


def test_s5_2_s4_3_a_report_shows_how_often_each_default_acted(tmp_path):
    """A 5-player Africanus study: the games record the counts; the report's appendix shows per
    arm the share of games each counter acted in; with the scenario's own token table the token
    faces are not a default of that arm (0 in its records, "not a default here")."""
    study = tmp_path / "guesses.toml"
    study.write_text(STUDY.format(tokens=(DATA / "tokens.toml").as_posix()), encoding="utf-8")
    res = api.simulate(study, jobs=1, out=tmp_path / "run")
    games = pd.read_parquet(res.out_dir / "games.parquet")
    base, own = games[games["variant"] == "base"], games[games["variant"] == "own-tokens"]
    assert (base["acted_token_face"] > 0).all() and (own["acted_token_face"] == 0).all()
    numbers = json.loads((res.out_dir / "summary.json").read_text())["results"]["guesses"]
    arm = {a["variant"]: a for a in numbers["arms"]}
    face = {r["column"]: r for r in arm["base"]["counters"]}["acted_token_face"]
    assert face["share"] == 1.0 and face["mean"] == pytest.approx(base["acted_token_face"].mean())
    africa = {r["column"]: r for r in arm["base"]["counters"]}["acted_africa_region"]
    assert africa["acted"] == int((base["acted_africa_region"] > 0).sum())
    assert {r["column"]: r for r in arm["own-tokens"]["counters"]}["acted_token_face"] == {
        "column": "acted_token_face", "in_use": False}
    md = (res.out_dir / "report.md").read_text(encoding="utf-8")
    appendix = md.split("## Appendix: labelled defaults in use")[1]
    row = next(line for line in appendix.splitlines() if line.startswith("| `tokens` |"))
    assert "| 100.0 % [" in row and "| not a default here |" in row
    # how often they acted is said once, in the box under the Answers
    assert "guessed content and rule defaults acted in these shares of the games of" in \
        md.split("## Key findings")[0]


def test_the_default_study_says_each_caveat_of_every_game_once(tmp_path):
    """Issue #33: a caveat of (nearly) every game of the run (the guessed token faces, revealed
    in every game) is said once, in the box under the Answers, not in each finding."""
    from analyzer.report import guesses

    scenario = Path(__file__).resolve().parents[3] / "scenarios" / "africanus-sultan.toml"
    res = api.simulate(scenario, games=60, jobs=1, out=tmp_path / "run")
    md = (tmp_path / "run" / "report.md").read_text()
    body = md.split("## Appendix")[0]  # the appendix tables every default, by design
    acted = res.summary["results"]["guesses"]
    (base,) = [a for a in acted["arms"] if a["variant"] == "base"]
    whats = {c["column"]: c["what"] for c in acted["counters"]}
    every = [whats[r["column"]] for r in base["counters"] if r["in_use"] and r["share"] >= 0.9]
    assert every, "the token faces are revealed in every game"
    for what in every:
        assert body.count(guesses.short_what(what)) == 1, what
    assert "Leans on defaults" not in body
    assert "played on guessed token faces" not in body
    assert body.count("guessed token face") == 0
    assert "What these answers rest on" in body
