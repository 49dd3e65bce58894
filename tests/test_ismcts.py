"""The forward-model contract (model/forward.py) and the ISMCTS player (model/ismcts.py), on a
toy trick-taking game with hidden hands (tests/fmtoy.py)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import ClassVar

import pytest

from analyzer.errors import IllegalChoice
from analyzer.model.forward import GameState, SeatView, play
from analyzer.model.ismcts import Ismcts
from analyzer.stats import wilson
from tests.fmtoy import GreedyPolicy, RandomPolicy, TrickState, TrickView


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
    """Every iteration visits one root action; the search stops early only once no other action
    could catch up with the most visited one."""
    st = TrickState(3, 4)
    player = ToyIsmcts(iterations=64).player(0)
    player.choose(st.view(0), random.Random(0))
    root = player.last_root
    visits = sorted((ch.n for ch in root.children.values()), reverse=True)
    assert sum(visits) == root.n <= 64
    assert root.n == 64 or visits[0] - visits[1] > 64 - root.n
    assert set(root.children) <= set(st.legal_actions())


def test_settle_stops_sooner_once_the_lead_is_settle_times_what_is_left():
    """``settle`` < 1: the search ends as soon as the most visited action leads the runner-up
    by more than settle x the iterations left, so never later than at settle = 1 (the exact
    rule: the same choice as the full search) on the same decisions and generator."""
    ran_short = 0
    for seed in range(12):
        st = TrickState(3, seed)
        full = ToyIsmcts(iterations=64).player(0)
        full.choose(st.view(0), random.Random(seed))
        short = ToyIsmcts(iterations=64, settle=0.25).player(0)
        short.choose(st.view(0), random.Random(seed))
        root = short.last_root
        visits = sorted((ch.n for ch in root.children.values()), reverse=True)
        assert root.n <= full.last_root.n
        assert root.n == 64 or visits[0] - visits[1] > 0.25 * (64 - root.n)
        ran_short += root.n < full.last_root.n
    assert ran_short > 0  # the lever acts on some of these decisions


def test_a_cpu_time_budget_stops_the_search_early():
    """``seconds``: the search stops once the decision used that much CPU time (at least one
    iteration runs); without it the iterations are the budget."""
    st = TrickState(3, 4)
    player = ToyIsmcts(iterations=100_000, seconds=1e-9).player(0)
    player.choose(st.view(0), random.Random(0))
    assert player.last_root.n == 1
    timed = ToyIsmcts(iterations=10_000_000, seconds=0.05).player(0)
    timed.choose(st.view(0), random.Random(0))
    assert 1 < timed.last_root.n < 10_000_000


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


# ------------------------------------------------------------------ the search's levers


class FewCardsState(TrickState):
    """The toy with an action abstraction: the tree branches on the lowest card only."""

    __slots__ = ()

    def clone(self):
        other = super().clone()
        other.__class__ = FewCardsState
        return other

    def determinize(self, seat, seed):
        other = super().determinize(seat, seed)
        other.__class__ = FewCardsState
        return other

    def search_actions(self) -> tuple:
        return self.legal_actions()[:1]

    def view(self, seat):
        return FewCardsView(self, seat)


class FewCardsView(TrickView):
    __slots__ = ()

    def search_actions(self) -> tuple:
        return self._st.search_actions()


def test_prior_tries_the_rollout_policys_choice_first_even_outside_the_searched_actions():
    """With ``prior`` the rollout policy's own choice is a root action, tried first, even where
    ``search_actions`` leaves it out (Cartus card sets)."""
    st = FewCardsState(3, 4)
    view = st.view(0)
    greedy_choice = GreedyPolicy().choose(view, random.Random(0))
    assert greedy_choice not in st.search_actions()
    player = ToyIsmcts(iterations=20, prior=1.0, rollout="greedy").player(0)
    player.choose(view, random.Random(0))
    assert next(iter(player.last_root.children)) == greedy_choice
    assert set(player.last_root.children) == {greedy_choice, *st.search_actions()}
    plain = ToyIsmcts(iterations=20, rollout="greedy", prior=0.0).player(0)
    assert plain.choose(view, random.Random(0)) == st.search_actions()[0]
    assert plain.last_root is None  # one searched action: answered without searching


def _nodes(node):
    for child in node.children.values():
        yield child
        yield from _nodes(child)


def test_opponents_played_by_the_rollout_policy_leave_only_the_seats_own_nodes():
    st = TrickState(3, 2)
    tree = ToyIsmcts(iterations=60, tree_depth=0, opponents="tree").player(0)
    tree.choose(st.view(0), random.Random(1))
    assert {nd.mover for nd in _nodes(tree.last_root)} == {0, 1, 2}
    own = ToyIsmcts(iterations=60, tree_depth=0, opponents="rollout").player(0)
    own.choose(st.view(0), random.Random(1))
    assert {nd.mover for nd in _nodes(own.last_root)} == {0}
    assert max(ch.n for ch in own.last_root.children.values()) > 1


class CountingView:
    """A seat's view that counts its determinizations and tags each world with its number."""

    def __init__(self, view):
        self._view, self.made = view, 0
        self.seat, self.n_players, self.log = view.seat, view.n_players, None

    def legal_actions(self):
        return self._view.legal_actions()

    def search_actions(self):
        return self._view.search_actions()

    def determinize(self, seed):
        self.made += 1
        return self._view.determinize(seed)


def test_common_worlds_are_drawn_once_per_visit_number():
    """With ``common_worlds`` the j-th visit of every root action plays world j: a decision
    draws as many determinizations as its most visited action has visits; without, one per
    iteration."""
    st = TrickState(3, 3)
    view = CountingView(st.view(0))
    player = ToyIsmcts(iterations=40, common_worlds=1).player(0)
    player.choose(view, random.Random(2))
    assert view.made == max(ch.n for ch in player.last_root.children.values()) < player.last_root.n
    view = CountingView(st.view(0))
    player = ToyIsmcts(iterations=40, common_worlds=0).player(0)
    player.choose(view, random.Random(2))
    assert view.made == player.last_root.n


def test_spread_scales_exploration_by_the_rewards_standard_deviation():
    """Known answer. Child a: 16 visits, every reward 0.5; child b: 4 visits, every reward
    0.45; both offered 20 times (ln 20 = 3.00). UCB1 with c = 1 explores b (0.45 + 0.87 = 1.32
    against 0.5 + 0.43 = 0.93). The rewards' standard deviation over both is 0.02 (mean 0.49,
    mean square 0.2405), so scaled exploration adds 0.017 and 0.009: a (0.509 > 0.467). A bias
    towards b adds bias x 0.02 / 5: 3 is too little (0.479), 20 enough (0.547)."""
    from analyzer.model.treesearch import NO_HINT, Node, select

    def pick(spread, hint=NO_HINT, bias=0.0):
        root = Node(-1)
        a, b = Node(0), Node(0)
        a.n, a.w, a.w2, a.avail = 16, 8.0, 16 * 0.25, 19
        b.n, b.w, b.w2, b.avail = 4, 1.8, 4 * 0.2025, 19
        root.children = {"a": a, "b": b}
        return select(root, ("a", "b"), hint, 0, 1.0, bias, spread, random.Random(0))[0]

    assert pick(False) == "b"
    assert pick(True) == "a"
    assert pick(True, "b", 3.0) == "a"
    assert pick(True, "b", 20.0) == "b"


@pytest.mark.parametrize("policy", [ToyIsmcts(iterations=30, prior=2.0, tree_depth=0, common_worlds=1, spread=1),
                                    ToyIsmcts(iterations=30, prior=0.0, tree_depth=0, opponents="tree",
                                              common_worlds=0, spread=0, exploration=0.7),
                                    ToyIsmcts(iterations=30, rollout="greedy", rollout_depth=2)])
def test_search_levers_decide_from_the_seats_view_only(policy):
    """The leak test of ``test_players_decide_from_the_seats_view_only`` with every lever on."""
    test_players_decide_from_the_seats_view_only(policy)


@pytest.mark.parametrize("game, iterations, depth, close, settle", [
    ("rattus", 15, 14, 0.3, 1.0), ("cartus", 30, 24, math.inf, 0.3), ("pyramidion", 16, 40, math.inf, 1.0)])
def test_each_games_search_defaults_are_the_measured_ones(game, iterations, depth, close, settle):
    """The default ``ismcts`` of each game is the one measured in the README ("Players of known
    strength", issue #37): at most 0.25 CPU s a game by ``analyzer bench`` (the game's
    ``search_seconds``), held-out strength at least fair + 15 pp against three tuned greedy.
    Changing one changes every record of a run with an ismcts seat: re-measure, then pin."""
    from analyzer.games import get_game

    spec = get_game(game)
    search = spec.policies["ismcts"]()
    assert (search.iterations, search.rollout_depth, search.rollout) == (iterations, depth, "tuned")
    assert search.settle == settle  # 1: the exact early stop (settle < 1 measured weaker there, README)
    assert search.close == close  # searched only where the greedy's lead is close (README, issue #37)
    assert spec.benchmark.search_seconds == 0.25


class _LeadGreedy(GreedyPolicy):
    """The toy greedy declaring a fixed ``lead`` after each answer (``forward.Player``)."""

    lead = 2.0


@dataclass(frozen=True)
class LeadIsmcts(Ismcts):
    ROLLOUTS: ClassVar = {"greedy": _LeadGreedy}


def test_close_plays_a_clear_hint_without_searching_and_searches_a_close_one():
    """``close``: where the rollout policy's lead (2.0 here) exceeds it, its choice is played
    without a search (no tree, no draw from the seat's generator beyond the policy's own);
    at or below it the search runs as before."""
    st = TrickState(3, 4)
    view = st.view(0)
    hint = _LeadGreedy().choose(view, random.Random(0))
    skip = LeadIsmcts(iterations=30, rollout="greedy", close=1.9).player(0)
    rng = random.Random(5)
    assert skip.choose(view, rng) == hint
    assert skip.last_root is None and skip.last_lead == 2.0
    assert rng.random() == random.Random(5).random()  # the toy greedy draws nothing: nor did the search
    for close in (2.0, 3.0, math.inf):
        searched = LeadIsmcts(iterations=30, rollout="greedy", close=close).player(0)
        searched.choose(view, random.Random(5))
        assert searched.last_root is not None and searched.last_root.n > 1


def test_close_at_its_default_is_the_search_of_before():
    """``close`` defaults to inf (always search): the same answers and trees, draw for draw, as
    a finite ``close`` the lead never exceeds, and a policy declaring no lead is always searched."""
    assert LeadIsmcts(rollout="greedy").close == math.inf
    a = _play(3, 9, [LeadIsmcts(iterations=20, rollout="greedy"), RandomPolicy(), RandomPolicy()])
    b = _play(3, 9, [LeadIsmcts(iterations=20, rollout="greedy", close=2.0), RandomPolicy(), RandomPolicy()])
    assert a.played == b.played
    plain = ToyIsmcts(iterations=20, rollout="greedy", close=0.0).player(0)  # toy greedy: no lead
    plain.choose(TrickState(3, 4).view(0), random.Random(0))
    assert plain.last_root is not None and plain.last_lead == -math.inf
