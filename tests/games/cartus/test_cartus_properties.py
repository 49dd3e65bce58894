"""Rattus Cartus whole games: conservation, termination, records, determinism, policy strength."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from analyzer.games.cartus import SPEC, default_config, engine, play_game
from analyzer.games.cartus.config import FLUTE, JOKER, PASS, SWORD
from analyzer.games.cartus.metrics import GAME_COLUMNS, SEAT_COLUMNS
from analyzer.games.cartus.scoring import outcome
from analyzer.model.base import game_streams, resolve_policies

POLS = ("random", "greedy", "cautious")


def check_invariants(st) -> None:
    """Cards, specials, Gold, VP tokens and rats are conserved; nothing goes negative."""
    cfg = st.cfg
    per_class = [0] * 6
    for k in st.deck + st.discard + st.nun_row_class:
        per_class[k] += 1
    for s in range(st.n):
        for k in range(6):
            per_class[k] += st.hands[s][k]
    assert per_class == [14] * 6
    for t in (JOKER, SWORD, FLUTE, PASS):
        assert st.supply[t] + sum(h[t] for h in st.hands) == cfg.supply[t]
        assert st.supply[t] >= 0
    assert st.gold_supply + sum(st.gold) == cfg.gold_total and st.gold_supply >= 0
    assert st.vp_supply + sum(st.vp) == cfg.vp_total and st.vp_supply >= 0
    for s in range(st.n):
        assert min(st.hands[s]) >= 0 and st.rats[s] >= 0
        assert st.rats[s] == cfg.start_rats + st.rats_gained[s] - st.rats_discarded[s] - st.rats_given[s]
    assert len(st.building_deck) + len(st.replacement) + cfg.row_size * st.round == 30


def run_checked(n: int, pols, seed: int, rules=None) -> tuple[object, bool]:
    """Play a game round by round, checking the invariants after setup and every round.

    Returns the final state and whether the population deck was ever refilled from the discard pile.
    """
    cfg = default_config(n, **(rules or {}))
    rng, prngs = game_streams(seed, n)
    pol = resolve_policies(SPEC.policies, pols, n)
    players = [p.player(s) for s, p in enumerate(pol)]
    st = engine.start(cfg, rng, seed)
    check_invariants(st)
    reshuffled = False
    rnd, before = st.round, len(st.deck)
    while not st.is_terminal():
        s = st.current_seat()
        st.apply(players[s].choose(st.view(s), prngs[s]))
        reshuffled |= len(st.deck) > before
        before = len(st.deck)
        if st.round != rnd or st.is_terminal():  # a round is over (its entries are cleaned up)
            check_invariants(st)
            rnd = st.round
    assert st.round == cfg.rounds
    return st, reshuffled


@settings(max_examples=40, deadline=None)
@given(n=st_.integers(2, 5), seed=st_.integers(0, 2**32 - 1),
       pols=st_.lists(st_.sampled_from(POLS), min_size=5, max_size=5),
       tie=st_.sampled_from(["all_tied_premium", "first_entered_premium", "nobody_premium"]),
       selection=st_.sampled_from(["random_cards", "random_buildings"]))
def test_property_random_legal_play_conserves_and_ends(n, seed, pols, tie, selection):
    """Any policy mix, any seed, 2–5 players: conservation every round; the game ends."""
    run_checked(n, pols[:n], seed, {"tie_mode": tie, "building_selection": selection})


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_property_many_random_games(n):
    """A few hundred random games per player count: conservation, no negative rats, deck reshuffles."""
    reshuffles = 0
    for seed in range(150):
        _, r = run_checked(n, ["random"] * n, 1000 * n + seed)
        reshuffles += r
    assert reshuffles > 0


def test_deck_reshuffle_happens_with_greedy_draws():
    """rules §4 phase B: heavy drawing empties the deck; the discard pile refills it (T10)."""
    assert any(run_checked(4, ["greedy"] * 4, seed)[1] for seed in range(30))


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_property_thousands_of_games(n, request):
    """Slow: 2,000 random/greedy/cautious games per player count, invariants every round."""
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("slow: run with -m slow")
    rng = random.Random(n)
    for seed in range(2000):
        run_checked(n, [rng.choice(POLS) for _ in range(n)], seed)


def test_records_match_declared_columns():
    """metrics: record keys == declared columns, in order; pandas accepts the dtypes."""
    game, seats = play_game(default_config(4), ["greedy", "random", "cautious", "random"], 7)
    assert list(game) == list(GAME_COLUMNS) and list(SPEC.game_columns) == list(GAME_COLUMNS)
    assert all(list(s) == list(SEAT_COLUMNS) for s in seats)
    pd.DataFrame([game]).astype(GAME_COLUMNS)
    pd.DataFrame(seats).astype(SEAT_COLUMNS)
    assert [s["policy"] for s in seats] == ["greedy", "random", "cautious", "random"]
    assert sum(s["won"] for s in seats) == pytest.approx(1.0 if game["winner_seats"] else 0.0)
    assert game["deaths"] == sum(s["died"] for s in seats)
    for s in seats:
        assert s["score"] == s["score_tracks"] + s["score_vp_tokens"] + s["score_gold"] + s["score_hand"]
        assert s["premium_actions"] + s["standard_actions"] >= 8


def test_same_seed_same_records_and_log():
    """Same seed ⇒ identical records and replay log; logging does not change the game."""
    cfg = default_config(3)
    pols = ["greedy", "random", "cautious"]
    a, b = [], []
    ra = play_game(cfg, pols, 11, log=a.append)
    rb = play_game(cfg, pols, 11, log=b.append)
    rc = play_game(cfg, pols, 11)
    assert ra == rb == rc and a == b and len(a) > 50
    assert play_game(cfg, pols, np.random.SeedSequence(5, spawn_key=(3,))) == play_game(
        cfg, pols, np.random.SeedSequence(5, spawn_key=(3,)))
    assert play_game(cfg, pols, 12) != ra
    assert any("Nun-row" in line for line in a) and any(line.startswith("end: winner") for line in a)


def test_illegal_policy_choice_raises():
    """The engine checks every choice: an out-of-range answer raises IllegalChoice."""
    from analyzer.errors import IllegalChoice
    from analyzer.games.cartus.policies import Random

    class Bad(Random):
        def supply(self, view, rng):
            return 7

    with pytest.raises(IllegalChoice, match="supply"):
        play_game(default_config(2), [Bad(), "random"], 1)


def test_final_outcome_consistent_with_state():
    """rules §7: the outcome recomputed from the final state equals the records."""
    st, _ = run_checked(4, ["greedy", "random", "random", "cautious"], 3)
    out = outcome(st)
    assert out.nuns == sum(st.nun_row)
    assert all(out.alive[s] == (st.rats[s] <= out.nuns) for s in range(4))
    if any(out.alive):
        best = max(out.scores[s] for s in range(4) if out.alive[s])
        assert all(out.scores[w] == best and out.alive[w] for w in out.winners)


def test_greedy_beats_random():
    """Greedy against 3 random at 4 players wins far more than the 25% of an equal seat."""
    cfg = default_config(4)
    wins = 0.0
    games = 120
    for i in range(games):
        seat = i % 4
        pols = ["random"] * 4
        pols[seat] = "greedy"
        _, seats = play_game(cfg, pols, 500 + i)
        wins += seats[seat]["won"]
    assert wins / games > 0.6


def test_chance_shuffle_matches_random_shuffle():
    """chance.shuffle walks like random.Random.shuffle: same order, same generator state after."""
    from analyzer.games.cartus import chance

    for n in (0, 1, 2, 5, 30, 84, 200):
        a, b = random.Random(n), random.Random(n)
        xa, xb = list(range(n)), list(range(n))
        for _ in range(20):
            a.shuffle(xa)
            chance.shuffle(b, xb)
        assert xa == xb and a.random() == b.random()


def test_cautious_does_what_its_description_says():
    """Persona check: ``cautious`` ("no off-class cards, fears the plague") plays no off-class
    card and dies less often than ``greedy`` in the same seat of the same games."""
    cfg = default_config(4)
    died = {"greedy": 0, "cautious": 0}
    for seed in range(60):
        for pol in died:
            _, seats = play_game(cfg, [pol, "greedy", "greedy", "greedy"], seed)
            died[pol] += seats[0]["died"]
            if pol == "cautious":
                assert seats[0]["offclass_cards"] == 0
    assert died["cautious"] < died["greedy"]
