"""The forward-model contract (games/forward.py) and the ISMCTS player (games/ismcts.py), on a
toy trick-taking game with hidden hands (tests/fmtoy.py)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

import pytest

from analyzer.errors import IllegalChoice
from analyzer.games.forward import GameState, SeatView, play
from analyzer.games.ismcts import Ismcts
from analyzer.stats import wilson
from tests.fmtoy import GreedyPolicy, RandomPolicy, TrickState


@dataclass(frozen=True)
class ToyIsmcts(Ismcts):
    ROLLOUTS: ClassVar = {"random": RandomPolicy, "greedy": GreedyPolicy}


def _play(n, seed, policies, log=None):
    st = TrickState(n, seed, log)
    players = [p.player(s) for s, p in enumerate(policies)]
    play(st, players, [random.Random(1000 * seed + s) for s in range(n)])
    return st


def test_toy_meets_the_protocols():
    st = TrickState(3, 1)
    assert isinstance(st, GameState)
    assert isinstance(st.view(0), SeatView)


def test_play_loop_ends_with_every_trick_taken():
    st = _play(3, 5, [RandomPolicy()] * 3)
    assert st.is_terminal() and sum(st.tricks) == 4
    assert sum(st.returns()) == pytest.approx(1.0)


def test_illegal_action_raises():
    st = TrickState(2, 0)
    with pytest.raises(IllegalChoice):
        st.apply(99)


def test_clone_is_independent_and_replays_the_same_game():
    st = TrickState(3, 2)
    st.apply(st.legal_actions()[0])
    twin = st.clone()
    twin.apply(twin.legal_actions()[-1])
    assert len(st.played) == 1 and len(twin.played) == 2
    a, b = st.clone(), st.clone()
    while not a.is_terminal():
        act = a.legal_actions()[0]
        a.apply(act)
        b.apply(act)
    assert a.tricks == b.tricks and a.played == b.played


def test_determinize_keeps_the_information_set_and_varies_the_hidden_part():
    st = TrickState(4, 3)
    st.apply(st.legal_actions()[1])
    seat = st.current_seat()
    keys, others = set(), set()
    for seed in range(20):
        d = st.determinize(seat, seed)
        assert d.information_key(seat) == st.information_key(seat)
        keys.add(d.information_key(seat))
        others.add(tuple(tuple(h) for s, h in enumerate(d.hands) if s != seat))
    assert len(keys) == 1 and len(others) > 1


@pytest.mark.parametrize("policy", [RandomPolicy(), GreedyPolicy(), ToyIsmcts(iterations=30)])
def test_players_decide_from_the_seats_view_only(policy):
    """Leak test: the same choice from the real state and from another arrangement of the hidden
    cards consistent with the seat's information (same seat generator state)."""
    for seed in range(6):
        st = TrickState(3, seed)
        while not st.is_terminal():
            seat = st.current_seat()
            other = st.determinize(seat, seed + 99)
            r1, r2 = random.Random(seed), random.Random(seed)
            assert policy.player(seat).choose(st.view(seat), r1) == policy.player(seat).choose(other.view(seat), r2)
            st.apply(st.legal_actions()[0])


def test_ismcts_is_reproducible_and_logs_its_reasons():
    lines: list[str] = []
    a = _play(3, 7, [ToyIsmcts(iterations=40), RandomPolicy(), RandomPolicy()], log=lines.append)
    b = _play(3, 7, [ToyIsmcts(iterations=40), RandomPolicy(), RandomPolicy()])
    assert a.played == b.played
    reasons = [ln for ln in lines if "ismcts seat 0" in ln]
    assert reasons and "visits" in reasons[0]


def test_ismcts_visits_add_up():
    st = TrickState(3, 4)
    player = ToyIsmcts(iterations=64).player(0)
    player.choose(st.view(0), random.Random(0))
    root = player.last_root
    assert sum(ch.n for ch in root.children.values()) == 64
    assert set(root.children) <= set(st.legal_actions())


def test_ismcts_bad_rollout_is_refused():
    with pytest.raises(ValueError):
        ToyIsmcts(rollout="smart")


@pytest.mark.parametrize("rollout", ["random", "greedy"])
def test_ismcts_beats_random_players(rollout):
    """A known answer: search wins far more than the fair third against two random seats."""
    games = 150
    won = 0.0
    for seed in range(games):
        seat = seed % 3
        pols = [RandomPolicy()] * 3
        pols[seat] = ToyIsmcts(iterations=60, rollout=rollout)
        won += _play(3, seed, pols).returns()[seat]
    iv = wilson(won, games)
    assert iv.lo > 1 / 3, iv
