"""Whole games: contract, records, determinism, conservation properties, policies
(docs/rules/pyramidion.md §3.1, §6, §11 T22, §14.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.errors import IllegalChoice, RuleError, TurnCapExceeded
from analyzer.games.pyramidion import SPEC, engine, new_state
from analyzer.games.pyramidion.policies import POLICIES, GreedyPolicy, RandomPolicy
from analyzer.model.base import build_policy

CFGS = {n: SPEC.make_config(n, (), {}) for n in (2, 3, 4)}


def check_invariants(state):
    cfg = state.cfg
    if cfg.supply_limited:
        for k in range(6):
            assert state.goods_total(k) == cfg.supply_start[k], f"good {k} not conserved"
            assert state.supply[k] >= 0
    assert all(v >= 0 for g in state.goods for v in g)
    assert all(v >= 0 for v in state.site_goods)
    assert sorted(state.all_cards()) == list(range(len(cfg.card_type))), "cards not conserved"
    for p in range(state.n):
        assert state.sd_owner.count(p) + state.sd_left[p] == cfg.tiles_per_colour
        assert state.ng_owner.count(p) + state.ng_left[p] == cfg.tiles_per_colour
    owned = [b for bs in state.boats for b in bs]
    assert sorted(owned + state.display + state.boat_deck) == list(range(len(cfg.boat_names)))
    assert state.vp == [sum(cfg.boat_vp[b] for b in bs) for bs in state.boats]


def run_checked(cfg, names, seed):
    """Play a game with invariant checks at every decision and at the end; returns the game,
    its end reason and the number of decisions checked."""
    from analyzer.model.base import game_streams

    players = [build_policy(POLICIES, n).player(s) for s, n in enumerate(names)]
    _, seats = game_streams(seed, cfg.players)
    g = new_state(cfg, seed)
    calls = 0
    while not g.is_terminal():
        check_invariants(g.st)
        calls += 1
        seat = g.current_seat()
        g.apply(players[seat].choose(g.view(seat), seats[seat]))
    check_invariants(g.st)
    assert g.st.round <= cfg.max_rounds
    return g, g.st.end, calls


def test_records_keys_equal_declared_columns():
    """Records: game and seat keys equal GAME_COLUMNS / SEAT_COLUMNS; values are scalars."""
    for n, cfg in CFGS.items():
        rec, seats = SPEC.play_game(cfg, ["greedy"] + ["random"] * (n - 1), 3)
        assert list(rec) == list(SPEC.game_columns)
        assert len(seats) == n and all(list(s) == list(SPEC.seat_columns) for s in seats)
        assert all(isinstance(v, (int, float, str)) for v in rec.values())
        assert rec["end"] in ("trigger", "turn_cap") and rec["rules_version"] == SPEC.rules_version
        assert math.isclose(sum(s["won"] for s in seats), 1.0)
        assert all(s["score"] == s["vp"] == s["boats_vp"] for s in seats)


def test_same_seed_same_records_and_log():
    """Same seed (int or SeedSequence) ⇒ identical records and replay log."""
    cfg = CFGS[4]
    pols = ["greedy", "random", "tile-builder", "random"]
    for seed in (11, np.random.SeedSequence(5, spawn_key=(3,))):
        logs = [[], []]
        a = SPEC.play_game(cfg, pols, seed, log=logs[0].append)
        b = SPEC.play_game(cfg, pols, seed, log=logs[1].append)
        assert a == b and logs[0] == logs[1] and len(logs[0]) > 50
    assert SPEC.play_game(cfg, pols, 11) == SPEC.play_game(cfg, pols, 11, log=None)
    assert SPEC.play_game(cfg, pols, 11) != SPEC.play_game(cfg, pols, 12)


def test_changing_one_seats_policy_keeps_the_chance_stream():
    """game_streams: the first round's boats and goods do not depend on the seats' policies."""
    cfg = CFGS[3]
    first = []
    for pols in (["random"] * 3, ["greedy", "random", "tile-builder"]):
        lines = []
        SPEC.play_game(cfg, pols, 21, log=lines.append)
        first.append(lines[1:3])
    assert first[0] == first[1]


def test_replay_log_mentions_every_step_kind():
    """log: rounds, boats, goods, cards played, resolution steps with numbers, loading, VP."""
    lines = []
    SPEC.play_game(CFGS[4], ["greedy"] * 4, 2, log=lines.append)
    text = "\n".join(lines)
    for needle in ("Round 1", "boats:", "goods on sites:", " plays ", "activates", "merchant:",
                   "loads", "VP:", "Game over"):
        assert needle in text, needle


def test_illegal_choice_raises():
    """An out-of-range or non-int choice raises IllegalChoice naming seat, decision, options."""

    class Bad:
        def player(self, seat):
            return self

        def choose(self, view, rng):
            return len(view.legal_actions()) + 5

    with pytest.raises(IllegalChoice, match="seat 0"):
        SPEC.play_game(CFGS[2], [Bad(), "random"], 1)


def test_turn_cap_exceeded_names_the_seed(monkeypatch):
    """The decision safety net raises TurnCapExceeded with the seed to replay."""
    monkeypatch.setattr(engine, "MAX_DECISIONS_PER_ROUND", 0)
    with pytest.raises(TurnCapExceeded, match="replay seed 77"):
        SPEC.play_game(CFGS[2], ["random", "random"], 77)


def test_s6_max_rounds_cap_is_recorded_as_turn_cap():
    """§6: max_rounds ends the game as a cap end, winners decided the usual way."""
    cfg = SPEC.make_config(2, (), {"max_rounds": 1, "target_vp": 60})
    rec, seats = SPEC.play_game(cfg, ["greedy", "greedy"], 4)
    assert rec["end"] == "turn_cap" and rec["rounds"] == 1
    assert sum(s["won"] for s in seats) == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.sampled_from([2, 3, 4]),
       variant=st.sampled_from([
           {}, {"executioner": "discard_on_play"}, {"philosopher": "none"},
           {"no_tile_left": "move_own_tile"}, {"giza_tile_lost_on_revolt": True},
           {"loading_pass_is_final": True}, {"phase8_slave_driver_benefit": "good_of_site"},
           {"phase8_slave_driver_benefit": "keep_card"}, {"discard_unplayed_drawn_cards": False},
           {"boat_set": "bordspeler"}, {"revolt_winner_must_survive": False},
           {"supply_per_good": 6, "statues": 1},
       ]))
def test_t22_conservation_under_random_play(seed, players, variant):
    """T22 (§3.1): at every decision, goods (35 per kind, 10 statues), cards, tiles (5 per
    colour) and boats are conserved; the game terminates within max_rounds."""
    cfg = SPEC.make_config(players, (), variant)
    names = ["random", "greedy", "tile-builder", "random"][:players]
    _, end, calls = run_checked(cfg, names, seed)
    assert end in ("trigger", "turn_cap")
    assert calls > 0


def test_t22_unlimited_supply_variant_still_counts():
    """§3.1 variant supply_limited=false: the supply may go negative but totals still add up."""
    cfg = SPEC.make_config(3, (), {"supply_limited": False})
    g, _, _ = run_checked(cfg, ["greedy"] * 3, 5)
    for k in range(6):
        assert g.st.goods_total(k) == cfg.supply_start[k]


def test_many_random_games_terminate():
    """No crash, always terminates: 300 random games over 2–4 players."""
    ends = {"trigger": 0, "turn_cap": 0}
    for i in range(300):
        n = 2 + i % 3
        rec, _ = SPEC.play_game(CFGS[n], ["random"] * n, i)
        ends[rec["end"]] += 1
    assert ends["trigger"] >= 290


def test_policies_registry_and_validation():
    """Policies: registered by name, frozen, typed params with help; bad values → RuleError."""
    assert set(POLICIES) == {"random", "greedy", "tile-builder"}
    assert isinstance(build_policy(POLICIES, "random"), RandomPolicy)
    p = build_policy(POLICIES, "greedy", {"good_value": 1})
    assert p.good_value == 1.0
    with pytest.raises(RuleError, match="good_value"):
        build_policy(POLICIES, "greedy", {"good_value": -1.0})
    with pytest.raises(RuleError):
        build_policy(POLICIES, "greedy", {"recruit_below": 1.5})
    tb = build_policy(POLICIES, "tile-builder")
    assert isinstance(tb, GreedyPolicy) and tb.negotiator_tile > GreedyPolicy().negotiator_tile


def test_greedy_beats_random_at_4p():
    """Greedy vs 3 random at 4 players (seats rotated): greedy wins far more than 1/4."""
    cfg = CFGS[4]
    n, wins = 120, 0.0
    for i in range(n):
        pos = i % 4
        pols = ["random"] * 4
        pols[pos] = "greedy"
        _, seats = SPEC.play_game(cfg, pols, 1000 + i)
        wins += seats[pos]["won"]
    assert wins / n > 0.6


@pytest.mark.slow
def test_greedy_vs_random_and_tile_builder_rates():
    """Slow: 1000 games each of greedy vs 3 random (clearly ahead) and vs 3 tile-builders
    (above the 1/4 share of an equal player)."""
    cfg = CFGS[4]
    for other, floor in (("random", 0.8), ("tile-builder", 0.3)):
        wins = 0.0
        for i in range(1000):
            pols = [other] * 4
            pols[i % 4] = "greedy"
            _, seats = SPEC.play_game(cfg, pols, i)
            wins += seats[i % 4]["won"]
        assert wins / 1000 > floor, other
