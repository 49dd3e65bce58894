"""The Pyramidion forward model (games/forward.py) and what its players may see
(docs/rules/pyramidion.md §14.1 decisions, §14.2 what a decision may look at, §14.3)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.errors import IllegalChoice
from analyzer.games.base import build_policy, game_streams
from analyzer.games.forward import GameState, SeatView, play
from analyzer.games.pyramidion import SPEC, default_config, new_state
from analyzer.games.pyramidion.search import POLICIES
from analyzer.games.pyramidion.state import LOAD, PASS, PLAY, THIEF_TARGET
from analyzer.games.pyramidion.view import HiddenInformation

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


def _decision_points(n, rules, seed, every=7):
    """States at every ``every``-th decision of a seeded greedy/random game (copies)."""
    state = new_state(default_config(n, **rules), seed)
    names = ["greedy", "random", "tile-builder", "greedy"][:n]
    players = [build_policy(POLICIES, name).player(s) for s, name in enumerate(names)]
    rngs = [random.Random(seed * 10 + s) for s in range(n)]
    out, i = [], 0
    while not state.is_terminal():
        if i % every == 0:
            out.append(state.clone())
        s = state.current_seat()
        state.apply(players[s].choose(state.view(s), rngs[s]))
        i += 1
    return out


def test_game_meets_the_protocols():
    g = new_state(default_config(3), 1)
    assert isinstance(g, GameState) and isinstance(g.view(g.current_seat()), SeatView)
    assert SPEC.new_state is new_state
    assert not g.is_terminal() and len(g.legal_actions()) >= 2


def test_play_game_equals_the_play_loop():
    """play_game is forward.play over new_state with each seat's own generator."""
    cfg = default_config(4)
    names = ["greedy", "random", "tile-builder", "random"]
    for seed in (3, np.random.SeedSequence(9, spawn_key=(2,))):
        expected = SPEC.play_game(cfg, names, seed)
        state = new_state(cfg, seed)
        _, seats = game_streams(seed, 4)
        play(state, [build_policy(POLICIES, p).player(s) for s, p in enumerate(names)], seats)
        assert state.records(names) == expected


def test_a_single_name_means_every_seat():
    cfg = default_config(3)
    assert SPEC.play_game(cfg, "greedy", 4) == SPEC.play_game(cfg, ["greedy"] * 3, 4)


def test_clone_is_independent_and_replays_the_same_game():
    g = new_state(default_config(4), 5)
    rngs = [random.Random(s) for s in range(4)]
    _advance(g, 40, rngs, _greedy_players(4))
    twin = g.clone()
    key = g.information_key(0)
    twin.apply(twin.legal_actions()[-1])
    assert g.information_key(0) == key  # the original did not move
    a, b = g.clone(), g.clone()
    ra, rb = random.Random(1), random.Random(1)
    while not a.is_terminal():
        acts = a.legal_actions()
        act = acts[ra.randrange(len(acts))]
        assert acts == b.legal_actions()
        a.apply(act)
        b.apply(acts[rb.randrange(len(acts))])
    assert b.is_terminal() and a.records(["x"] * 4) == b.records(["x"] * 4)


@pytest.mark.parametrize("rules", HIDING)
def test_determinize_keeps_the_information_set_and_varies_the_hidden_part(rules):
    """§14.2: other hands, deck orders (and under the options, others' goods and boats) are
    redrawn; what the seat knows is not."""
    g = new_state(default_config(4, **rules), 8)
    rngs = [random.Random(s) for s in range(4)]
    players = _greedy_players(4)
    _advance(g, 120, rngs, players)
    while sum(1 for q in range(4) if q != g.current_seat() and g.st.boats[q]) < 2:
        _advance(g, 1, rngs, players)
    seat = g.current_seat()
    key = g.information_key(seat)
    hidden = set()
    for seed in range(25):
        d = g.determinize(seat, seed)
        assert d.information_key(seat) == key
        assert d.legal_actions() == g.legal_actions()
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


def test_determinize_depends_only_on_the_information_set():
    """Same information set and seed ⇒ the same determinization (pools are built sorted)."""
    g = new_state(default_config(4, goods_visible=False, boat_vp_public=False), 12)
    _advance(g, 90, [random.Random(s) for s in range(4)], _greedy_players(4))
    seat = g.current_seat()
    other = g.determinize(seat, 77)
    a, b = g.determinize(seat, 5), other.determinize(seat, 5)
    assert a.st.hand == b.st.hand and a.st.draw_pile == b.st.draw_pile and a.st.goods == b.st.goods
    assert a.st.boats == b.st.boats and a.st.boat_deck == b.st.boat_deck
    assert a.rng.getstate() == b.rng.getstate()


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


@pytest.mark.parametrize("policy", ["random", "greedy", "tile-builder", "ismcts"])
@pytest.mark.parametrize("rules", HIDING)
def test_players_decide_from_their_seats_view_only(policy, rules):
    """Leak test: the same choice from the real state and from another
    arrangement of the hidden facts consistent with the seat's view, same generator state."""
    params = {"iterations": 12, "rollout_depth": 15} if policy == "ismcts" else {}
    pol = build_policy(POLICIES, policy, params)
    checked = 0
    for n, seed in ((2, 1), (3, 2), (4, 3)):
        points = _decision_points(n, rules, seed, every=9 if policy != "ismcts" else 23)
        for i, state in enumerate(points):
            seat = state.current_seat()
            other = state.determinize(seat, 1000 + i)
            rng = random.Random(i)
            a = pol.player(seat).choose(state.view(seat), random.Random(i))
            b = pol.player(seat).choose(other.view(seat), rng)
            assert a == b, (policy, n, seed, i, state.decision_kind())
            checked += 1
    assert checked > 15


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


def test_illegal_actions_raise_never_coerced():
    """An action not offered raises IllegalChoice: a float or a bool is never an int here."""
    g = new_state(default_config(2), 4)
    assert g.decision_kind() == "activate"
    legal = g.legal_actions()
    assert 1 in legal and 0 in legal  # site indices
    for bad in (99, float(legal[0]), True, False, str(legal[0]), None, (legal[0],), np.int64(1)):
        with pytest.raises(IllegalChoice):
            g.apply(bad)
    rngs = [random.Random(0), random.Random(1)]
    players = _greedy_players(2)
    while g.decision_kind() != LOAD:
        _advance(g, 1, rngs, players)
    b, used = g.legal_actions()[-1]
    for bad in ((float(b), used), (b, list(used)), [b, used], (b, used, 0)):
        with pytest.raises(IllegalChoice):
            g.apply(bad)
    g.apply((b, used))


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


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.sampled_from([2, 3, 4]), rules=st.sampled_from(HIDING + [
    {"executioner": "discard_on_play", "giza_tile_lost_on_revolt": True},
    {"loading_pass_is_final": True, "phase8_slave_driver_benefit": "good_of_site"}]))
def test_random_actions_always_reach_the_end(seed, players, rules):
    """new_state + uniformly random legal actions always terminate with shares summing to 1."""
    g = new_state(default_config(players, **rules), seed)
    rng = random.Random(seed)
    steps = 0
    while not g.is_terminal():
        acts = g.legal_actions()
        assert len(acts) >= 2
        g.apply(acts[rng.randrange(len(acts))])
        steps += 1
    assert steps > 0 and sum(g.returns()) == pytest.approx(1.0)
    assert g.st.round <= g.cfg.max_rounds


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
