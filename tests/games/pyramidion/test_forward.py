"""The Pyramidion forward model beyond the contract every game keeps
(tests/games/test_forward_model.py): what determinization redraws, what a seat's view refuses
(docs/rules/pyramidion.md §14.1 decisions, §14.2 what a decision may look at, §14.3), action
names and the search player."""

from __future__ import annotations

import random

import pytest

from analyzer.errors import HiddenInformation
from analyzer.games.pyramidion import SPEC, default_config, new_state
from analyzer.games.pyramidion.search import POLICIES
from analyzer.games.pyramidion.state import LOAD, PASS, PLAY, THIEF_TARGET
from analyzer.model.base import build_policy

HIDING = [{}, {"goods_visible": False}, {"boat_vp_public": False},
          {"goods_visible": False, "boat_vp_public": False, "phase8_slave_driver_benefit": "keep_card",
           "discard_unplayed_drawn_cards": False}]


def _greedy_players(n):
    return [build_policy(POLICIES, "greedy").player(s) for s in range(n)]


def _advance(state, k, rngs, players):
    """Play ``k`` decisions (or to the end) with ``players``."""
    for _ in range(k):
        if state.is_terminal():
            return
        s = state.current_seat()
        state.apply(players[s].choose(state.view(s), rngs[s]))


@pytest.mark.parametrize("rules", HIDING)
def test_determinize_redraws_hands_decks_and_hidden_goods_and_boats(rules):
    """§14.2: other hands, deck orders (and under the options, others' goods and boats) are
    redrawn; every card is kept and every hand keeps its size."""
    g = new_state(default_config(4, **rules), 8)
    rngs = [random.Random(s) for s in range(4)]
    players = _greedy_players(4)
    _advance(g, 120, rngs, players)
    while sum(1 for q in range(4) if q != g.current_seat() and g.st.boats[q]) < 2:
        _advance(g, 1, rngs, players)
    seat = g.current_seat()
    hidden = set()
    for seed in range(25):
        d = g.determinize(seat, seed)
        hidden.add((tuple(tuple(d.st.hand[q]) for q in range(4) if q != seat), tuple(d.st.draw_pile),
                    tuple(d.st.boat_deck), tuple(tuple(d.st.goods[q]) for q in range(4)),
                    tuple(tuple(d.st.boats[q]) for q in range(4))))
        assert sorted(d.st.all_cards()) == sorted(g.st.all_cards())
        assert [len(h) for h in d.st.hand] == [len(h) for h in g.st.hand]
    assert len(hidden) > 20
    if not rules.get("goods_visible", True):
        assert len({h[3] for h in hidden}) > 1
    if not rules.get("boat_vp_public", True):
        assert len({h[4] for h in hidden}) > 1


def test_hidden_card_comes_only_from_its_own_reshuffle():
    """§5 phase 4: a card drawn before the discards were reshuffled cannot be in the new pile;
    determinize exchanges hidden cards only with cards of the same reshuffle."""
    g = new_state(default_config(4, discard_unplayed_drawn_cards=False), 3)
    rngs = [random.Random(s) for s in range(4)]
    players = _greedy_players(4)
    while not g.is_terminal() and g.st.reshuffles == 0:
        _advance(g, 1, rngs, players)
    assert g.st.reshuffles >= 1
    seat = g.current_seat()
    before = {c for q in range(4) if q != seat for c in g.st.hand[q]
              if not g.st.pub[c] and g.st.epoch[c] == 0}
    for seed in range(10):
        d = g.determinize(seat, seed)
        assert not before & set(d.st.draw_pile)


def test_view_refuses_what_the_seat_may_not_see():
    """§3.1 goods_visible = false and §5 phase 7 boat_vp_public = false hide the others' goods
    and VP from a seat's view; its own stay readable, and counts stay public."""
    g = new_state(default_config(3, goods_visible=False, boat_vp_public=False), 2)
    seat = g.current_seat()
    v = g.view(seat)
    other = (seat + 1) % 3
    assert v.goods(seat) == g.st.goods[seat] and v.vp(seat) == g.st.vp[seat]
    with pytest.raises(HiddenInformation):
        v.goods(other)
    with pytest.raises(HiddenInformation):
        v.vp(other)
    assert v.goods_count(other) == sum(g.st.goods[other]) and v.hand_size(other) == len(g.st.hand[other])
    assert not hasattr(v, "st") and not hasattr(v, "draw_pile")


def test_s10_2_thief_with_hidden_goods_chooses_only_the_opponent():
    """§10.2 Thief under §3.1 goods_visible = false: the kinds are not visible, so the options
    name opponents only and the good is drawn blind from that opponent's goods."""
    from .helpers import Script, give, make_game, set_goods, site, take_common

    s0 = Script()
    g = make_game(3, {"goods_visible": False}, scripts=[s0, Script(), Script()])
    thief = take_common(g, "thief")
    give(g, 0, thief)
    set_goods(g, 1, stone=2, camel=1)
    set_goods(g, 2, wood=1)
    s0.moves = [thief, (2, -1)]
    g.activate(0, site(g, "Thebes"))
    assert (THIEF_TARGET, ((1, -1), (2, -1))) in s0.seen
    assert g.st.goods[0][1] == 1 and sum(g.st.goods[2]) == 0


def test_describe_action_names_things():
    g = new_state(default_config(4), 6)
    rngs = [random.Random(s) for s in range(4)]
    players = _greedy_players(4)
    seen = {}
    while not g.is_terminal() and len(seen) < 3:
        if g.decision_kind() in (PLAY, LOAD, "activate"):
            seen[g.decision_kind()] = [g.describe_action(a) for a in g.legal_actions()]
        _advance(g, 1, rngs, players)
    assert seen["activate"][0] in SPEC.content["sites"]
    assert seen[PLAY][0] == "pass" and seen[PLAY][1].startswith("play ")
    assert seen[LOAD][0] == "pass" and seen[LOAD][1].startswith("load B")
    assert PASS == -1


def test_ismcts_plays_a_game_and_logs_its_reasons():
    """The ismcts policy plays a whole game (few iterations) and its log lines name actions."""
    lines = []
    params = {"iterations": 8, "rollout_depth": 10}
    ism = build_policy(POLICIES, "ismcts", params)
    rec, seats = SPEC.play_game(default_config(3), [ism, "greedy", "random"], 2, log=lines.append)
    assert seats[0]["policy"] == "ismcts" and rec["end"] in ("trigger", "turn_cap")
    reasons = [line for line in lines if "ismcts seat 0" in line]
    assert reasons and "visits" in reasons[0]


def test_ismcts_runs_from_the_shipped_scenario(tmp_path):
    """scenarios/pyramidion-ismcts-vs-greedy.toml runs (here with few iterations and games):
    the ismcts seat is recorded under its registry name in every seat position."""
    from pathlib import Path

    from analyzer import api

    text = (Path(__file__).resolve().parents[3] / "scenarios" / "pyramidion-ismcts-vs-greedy.toml").read_text()
    text = text.replace('policy = "ismcts"', 'policy = "ismcts"\nparams = { iterations = 4, rollout_depth = 8 }', 1)
    path = tmp_path / "ism.toml"
    path.write_text(text)
    (tmp_path / "tuned").mkdir()  # its tuned greedy seats read tuned/ beside the scenario
    (tmp_path / "tuned" / "pyramidion-greedy.toml").write_text(
        (Path(__file__).resolve().parents[3] / "scenarios" / "tuned" / "pyramidion-greedy.toml").read_text())
    res = api.simulate(path, games=4, jobs=1, backend="sequential", out=tmp_path / "run")
    ism = res.seats[res.seats["policy"] == "ismcts"]
    assert len(ism) == 4 and sorted(ism["seat"]) == [0, 1, 2, 3]
