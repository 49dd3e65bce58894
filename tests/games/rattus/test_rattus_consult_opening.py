"""The read of ``opening_pairs_distinct_regions`` (docs/rules/rattus.md §6.1; issue #37, item 2):
a seat's second opening pair is asked where the two values offer different regions. Value false
offers the seat's first region too, so it marks the decision (``Game.narrowing``) and a pick is
spared when it stays legal under true (``Game.spare``). Value true withholds that region, so it
marks the decision and names the region false would add (``Game.widening``); a pick is spared
only when the player declares it would be the same with that region offered too
(``forward.Player.keeps_pick``: the greedy, when the region scores strictly below its cut).
"""

from __future__ import annotations

import json
import random

from rattus_helpers import make_game, put, region

from analyzer.games.rattus import SPEC
from analyzer.games.rattus.config import READ_OPENING
from analyzer.model.base import build_policy, game_streams
from analyzer.model.forward import play
from analyzer.model.play import spare_declared

GREEDY = build_policy(SPEC.policies, "greedy")


def _second_pair(game, first: int, seat: int = 3):
    """Ask ``seat``'s second opening pair (start player 0: seat 3 is asked first), its first
    pair recorded in region ``first``; the read cleared."""
    st = game.state
    st.start_seat = 0
    st.opening_first = [-1] * game.cfg.n_players
    st.opening_first[seat] = first
    st.opening_i = game.cfg.n_players
    game.cfg.reads[0] = 0
    game._ask_opening()
    assert game.current_seat() == seat and game.decision_kind() == "opening"
    return game


def _read(game) -> bool:
    return bool(game.cfg.reads[0] & READ_OPENING)


def _below(game):
    """Seat 3's 2 cubes in Anglia, nothing else: every other region ties, Anglia scores lower."""
    put(game, "Anglia", 0, 0, 0, 2)
    return _second_pair(game, region(game, "Anglia"))


def _above(game):
    """Seat 3's 2 cubes in Anglia, the other seats' cubes everywhere else: Anglia scores best."""
    put(game, "Anglia", 0, 0, 0, 2)
    for name in game.cfg.region_names[1:]:
        put(game, name, 2, 1, 1, 0)
    return _second_pair(game, region(game, "Anglia"))


def test_only_second_pairs_are_marked_and_true_names_the_region_false_adds():
    """In played games: first pairs are not marked; each second pair is, under true without the
    seat's first region (``widening`` names it), under false with it (``widening`` empty)."""
    for value in (True, False):
        cfg = SPEC.make_config(4, ("africanus",), {"opening_pairs_distinct_regions": value})
        for seed in range(3):
            state = SPEC.new_state(cfg, seed)
            for i in range(8):
                assert state.decision_kind() == "opening"
                seat = state.current_seat()
                first = state.state.opening_first[seat]
                if i < 4:
                    assert state.narrowing == 0 and state.widening == ()
                    state.apply(state.legal_actions()[i])
                    continue
                assert state.narrowing == READ_OPENING
                assert (first in state.legal_actions()) is not value
                assert state.widening == ((first,) if value else ())
                state.apply(state.legal_actions()[0])
            assert state.decision_kind() == "step"


def test_value_false_spares_a_pick_that_true_also_offers():
    """False: a declaration holding the first region keeps the read, one without it clears it;
    taken unspared, the decision reads the option."""
    game = _below(make_game(4, opening_pairs_distinct_regions=False))
    an, ga = region(game, "Anglia"), region(game, "Gallia")
    assert an in game.legal_actions() and game.widening == ()
    for among in ((an,), (an, ga), (99,)):
        game.spare(among)
        assert game.narrowing == READ_OPENING, among
    game.spare((ga,))
    assert game.narrowing == 0
    game.apply(ga)
    assert not _read(game)
    game = _below(make_game(4, opening_pairs_distinct_regions=False))
    game.apply(ga)  # not spared
    assert _read(game)


def test_greedy_keeps_its_pick_when_the_added_region_scores_below_the_cut():
    """True, the first region scoring below the tied best: the greedy keeps its pick, the
    read is spared; the same greedy offered that region too (value false, same draw) gives the
    same answer (the tied best in the same order)."""
    game = _below(make_game(4))
    player = GREEDY.player(3)
    view = game.view(3)
    action = player.choose(view, random.Random(5))
    scores = player._opening_scores(view, game.legal_actions())
    added = player._opening_scores(view, game.widening)
    assert len(player.pick_among) == len(game.legal_actions())  # every offered region ties
    assert max(added) < max(scores) - 1e-9
    assert player.keeps_pick(view, game.widening)
    spare_declared(game, player, action)
    assert game.narrowing == 0
    game.apply(action)
    assert not _read(game)
    wide = _below(make_game(4, opening_pairs_distinct_regions=False))
    assert GREEDY.player(3).choose(wide.view(3), random.Random(5)) == action


def test_a_region_that_would_tie_or_win_keeps_the_read():
    """True, the first region scoring best among all (the other seats' cubes elsewhere), or
    tying the best (an empty board, the first region without cubes): the greedy does not keep
    its pick, and the decision reads the option."""
    empty = make_game(4)
    tie = _second_pair(empty, region(empty, "Anglia"))
    for game in (_above(make_game(4)), tie):
        player = GREEDY.player(3)
        view = game.view(3)
        action = player.choose(view, random.Random(0))
        best = max(player._opening_scores(view, game.legal_actions()))
        assert max(player._opening_scores(view, game.widening)) >= best - 1e-9
        assert not player.keeps_pick(view, game.widening)
        spare_declared(game, player, action)
        assert game.narrowing == READ_OPENING
        game.apply(action)
        assert _read(game)
    game = _above(make_game(4, opening_pairs_distinct_regions=False))
    assert GREEDY.player(3).choose(game.view(3), random.Random(0)) == region(game, "Anglia")


def test_players_that_declare_nothing_keep_the_read():
    """Random and search seats declare nothing; a player that declares ``pick_among`` without
    ``keeps_pick`` (or whose declaration is not its answer) keeps the read at a widened
    decision."""

    class AmongOnly:
        def __init__(self, among):
            self.pick_among = among

    for policy in ("random", "ismcts"):
        params = json.loads('{"iterations": 4}') if policy == "ismcts" else None
        game = _below(make_game(4))
        player = build_policy(SPEC.policies, policy, params).player(3)
        action = player.choose(game.view(3), random.Random(0))
        spare_declared(game, player, action)
        assert game.narrowing == READ_OPENING, policy
        game.apply(action)
        assert _read(game), policy
    game = _below(make_game(4))
    ga = region(game, "Gallia")
    spare_declared(game, AmongOnly((ga,)), ga)
    assert game.narrowing == READ_OPENING
    greedy = GREEDY.player(3)
    greedy.choose(game.view(3), random.Random(0))
    spare_declared(game, greedy, 99)  # not its answer
    assert game.narrowing == READ_OPENING


def test_greedy_keeps_no_pick_at_other_decisions():
    """``keeps_pick`` scores opening regions only: false at any other decision."""
    game = make_game(4)
    game.state.phase = "regular"
    game.halt = "turn"
    game.start_turn(0)
    assert game.decision_kind() == "step"
    assert not GREEDY.player(0).keeps_pick(game.view(0), ("plague",))


def _reads(players_of, value, seeds):
    cfg = SPEC.make_config(4, ("africanus",), {"opening_pairs_distinct_regions": value})
    out = []
    for seed in seeds:
        cfg.reads[0] = 0
        state = SPEC.new_state(cfg, seed)
        _, rngs = game_streams(seed, 4)
        play(state, players_of(), rngs)
        out.append(bool(cfg.reads[0] & READ_OPENING))
    return out


def test_the_play_loop_spares_greedy_tables_only():
    """Greedy tables read the option in few games under either value; a random seat reads it in
    every game (its second pair is never spared)."""
    random_policy = build_policy(SPEC.policies, "random")
    seeds = range(12)
    for value in (True, False):
        greedy = _reads(lambda: [GREEDY.player(s) for s in range(4)], value, seeds)
        assert sum(greedy) <= 2, value
        with_random = _reads(lambda: [random_policy.player(0)] + [GREEDY.player(s) for s in (1, 2, 3)],
                             value, seeds)
        assert all(with_random), value
