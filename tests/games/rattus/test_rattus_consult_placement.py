"""The read of ``placement_mandatory`` (docs/rules/rattus.md §7 B; issue #37, item 2): value true
only removes options (phase C before cubes were placed, a place decision's regions without
rats), so value false marks the decisions it narrows (``Game.narrowing``) and a pick is spared
(``Game.spare``) when the player declares it was picked among options that all stay legal
(``forward.Player.pick_among``); value true reads the option wherever value false offers more.
"""

from __future__ import annotations

import json
from pathlib import Path

from rattus_helpers import give, make_game, region, tokens

from analyzer.games.rattus import SPEC
from analyzer.games.rattus.config import READ_PLACEMENT
from analyzer.model.base import build_policy, game_streams
from analyzer.model.flow import Checkpoints, play_recorded
from analyzer.model.forward import play
from analyzer.model.play import spare_declared


def _at_step(game, seat=0):
    """Start ``seat``'s regular turn (plague piece in Anglia) with the read cleared."""
    game.cfg.reads[0] = 0
    game.state.plague = region(game, "Anglia")
    game.halt = "turn"
    game.state.phase = "regular"
    game.start_turn(seat)
    return game


def _read(game) -> bool:
    return bool(game.cfg.reads[0] & READ_PLACEMENT)


def test_step_and_place_are_narrowed_and_spared_only_when_every_option_stays():
    """Rats in Turcia only, cubes in supply: the step before placing offers phase C, which
    value true withholds; the place decision offers every region, value true only Turcia."""
    game = make_game(4)
    tokens(game, "Turcia", 0)
    _at_step(game)
    assert game.decision_kind() == "step" and "plague" in game.legal_actions()
    assert game.narrowing == READ_PLACEMENT
    for among in (("plague",), ("place", "plague"), ("no such step",)):
        game.spare(among)
        assert game.narrowing == READ_PLACEMENT, among
    clone = game.clone()
    clone.spare(("place",))  # a copy's spare leaves the game alone
    assert clone.narrowing == 0 and game.narrowing == READ_PLACEMENT
    game.spare(("place",))
    assert game.narrowing == 0
    game.apply("place")
    tu, bu = region(game, "Turcia"), region(game, "Bulgaria")
    assert game.decision_kind() == "place" and len(game.legal_actions()) == game.cfg.n_regions
    assert game.narrowing == READ_PLACEMENT
    for among in ((bu,), (tu, bu)):
        game.spare(among)
        assert game.narrowing == READ_PLACEMENT, among
    game.spare((tu,))
    game.apply(tu)
    assert game.decision_kind() == "step" and "plague" in game.legal_actions()
    assert game.narrowing == 0  # placed: both values offer phase C
    assert not _read(game)


def test_a_pick_not_spared_reads_the_option():
    """Taken without a declaration (or with one that value true would not offer), the
    narrowed decision sets the read."""
    game = make_game(4)
    tokens(game, "Turcia", 0)
    _at_step(game)
    game.apply("place")  # the step: not spared
    assert _read(game)
    game = make_game(4)
    tokens(game, "Turcia", 0)
    _at_step(game)
    game.spare(("place",))
    game.apply("place")
    assert not _read(game)
    game.spare((region(game, "Bulgaria"),))  # no cube goes there: value true leaves it out
    game.apply(region(game, "Bulgaria"))
    assert _read(game)


def test_value_true_reads_wherever_false_offers_more():
    """Value true withholds phase C: read at once, nothing to spare (the other value adds an
    option, which no declaration covers)."""
    game = make_game(4, placement_mandatory=True)
    tokens(game, "Turcia", 0)
    tokens(game, "Gallia", 1)
    _at_step(game)
    assert "plague" not in game.legal_actions()
    assert _read(game) and game.narrowing == 0
    game.cfg.reads[0] = 0
    game.apply("place")  # two regions with rats: asked, and the read again
    assert game.legal_actions() == tuple(sorted((region(game, "Turcia"), region(game, "Gallia"))))
    assert _read(game)


def test_decisions_the_option_does_not_change_are_not_narrowed():
    """No rats anywhere (nothing to place), the Peasant (every region gets a cube), rats in
    every region, or no cube left in supply: both values offer the same options."""
    game = _at_step(make_game(4))  # no rats
    assert game.narrowing == 0
    game.apply("plague")
    assert not _read(game)
    game = make_game(4)
    tokens(game, "Turcia", 0)
    give(game, 0, "peasant")
    _at_step(game)
    game.spare(("place",))
    game.apply("place")
    assert game.decision_kind() == "place" and game.narrowing == 0
    game = make_game(4)
    for name in game.cfg.region_names:
        tokens(game, name, 0)
    _at_step(game)
    game.spare(("place",))
    game.apply("place")
    assert game.narrowing == 0
    game = make_game(4)
    tokens(game, "Turcia", 0)
    game.state.supply_cubes[0] = 0
    _at_step(game)
    assert game.narrowing == 0
    assert not _read(game)


class _Undeclared:
    """A greedy player that declares nothing (as any player without ``pick_among``)."""

    def __init__(self, inner):
        self.inner = inner

    def choose(self, view, rng):
        return self.inner.choose(view, rng)


def _masks(players_of, seeds, checkpoints=False):
    cfg = SPEC.make_config(4, ("africanus",), {})
    out = []
    for seed in seeds:
        cfg.reads[0] = 0
        state = SPEC.new_state(cfg, seed)
        _, rngs = game_streams(seed, 4)
        if checkpoints:
            play_recorded(state, players_of(), rngs, Checkpoints(SPEC.flow))
        else:
            play(state, players_of(), rngs)
        out.append(cfg.reads[0] & READ_PLACEMENT)
    return out


def test_the_play_loop_spares_declared_picks_only():
    """The shared loop spares what the greedy declares; the same greedy without a declaration
    reads the option in every game; the recorded loop (checkpoints) reads as the plain one."""
    greedy = build_policy(SPEC.policies, "greedy")
    seeds = range(6)
    declared = _masks(lambda: [greedy.player(s) for s in range(4)], seeds)
    undeclared = _masks(lambda: [_Undeclared(greedy.player(s)) for s in range(4)], seeds)
    assert not all(declared)
    assert all(undeclared)
    assert _masks(lambda: [greedy.player(s) for s in range(4)], seeds, checkpoints=True) == declared


def test_greedy_declares_its_best_or_its_tied_best():
    """``pick_among``: the answer alone when it is the single best, the tied best in offered
    order when the answer was drawn among them; reset by every answer."""
    import random

    pl = build_policy(SPEC.policies, "greedy").player(0)
    assert pl._pick(("a", "b", "c"), [0.0, 1.0, 0.5], random.Random(1)) == "b"
    assert pl.pick_among == ("b",)
    got = pl._pick(("a", "b", "c"), [1.0, 0.2, 1.0], random.Random(1))
    assert pl.pick_among == ("a", "c") and got in ("a", "c")
    # from a subset that keeps both tied options, the same answer with the same draw
    assert pl._pick(("a", "c"), [1.0, 1.0], random.Random(1)) == got


def test_search_iterations_leave_the_real_decision_pending_and_read():
    """A search player's iterations run on copies sharing the config's reads: they read the
    option where their own decisions narrow (conservative), never clear the real game's
    pending read, and the search player declares nothing, so its pick reads the option."""
    cfg = SPEC.make_config(4, ("africanus",), {})
    search = build_policy(SPEC.policies, "ismcts", json.loads('{"iterations": 4}'))
    greedy = build_policy(SPEC.policies, "greedy")
    for seed in range(20):
        state = SPEC.new_state(cfg, seed)
        _, rngs = game_streams(seed, 4)
        players = [greedy.player(s) for s in range(4)]
        while not state.is_terminal() and not state.narrowing & READ_PLACEMENT:
            seat = state.current_seat()
            action = players[seat].choose(state.view(seat), rngs[seat])
            spare_declared(state, players[seat], action)
            state.apply(action)
        if state.is_terminal():
            continue
        seat = state.current_seat()
        cfg.reads[0] = 0
        player = search.player(seat)
        action = player.choose(state.view(seat), rngs[seat])
        assert cfg.reads[0] & READ_PLACEMENT  # its iterations took narrowed decisions unspared
        assert state.narrowing == READ_PLACEMENT
        spare_declared(state, player, action)
        assert state.narrowing == READ_PLACEMENT
        cfg.reads[0] = 0
        state.apply(action)
        assert cfg.reads[0] & READ_PLACEMENT
        return
    raise AssertionError("no narrowed decision in 20 games")


def test_a_declaration_that_does_not_hold_the_answer_spares_nothing():
    """``spare_declared`` hands the state a declaration only when the answer is in it (a
    stale one, left from another decision, is not this answer's)."""

    class Declares:
        pick_among = ("place",)

    game = make_game(4)
    tokens(game, "Turcia", 0)
    _at_step(game)
    spare_declared(game, Declares(), "plague")
    assert game.narrowing == READ_PLACEMENT
    spare_declared(game, object(), "place")  # declares nothing
    assert game.narrowing == READ_PLACEMENT
    spare_declared(game, Declares(), "place")
    assert game.narrowing == 0


def test_a_game_that_did_not_read_the_option_is_the_same_under_true():
    """The scenario's table (africanus-sultan: one tuned greedy, three greedy, each seat in
    turn): every game whose default run did not read ``placement_mandatory`` gives the same
    records under true, and some games that read it do change (so a wrong spare shows)."""
    import tomllib

    from analyzer.games import rattus

    params = tomllib.loads((Path(rattus.__file__).parent / "greedy-tuned.toml").read_text())["params"]
    tuned = build_policy(SPEC.policies, "greedy", params)
    greedy = build_policy(SPEC.policies, "greedy")
    rules = {"class_cards": ["knight", "monk", "witch", "king", "sultan", "trader"]}
    default = SPEC.make_config(4, ("africanus",), rules)
    other = SPEC.make_config(4, ("africanus",), {**rules, "placement_mandatory": True})
    read = changed = 0
    for seed in range(13):
        for seat in range(4):
            pols = [tuned if s == seat else greedy for s in range(4)]
            default.reads[0] = 0
            before = SPEC.play_game(default, pols, seed)
            mask = default.reads[0] & READ_PLACEMENT
            after = SPEC.play_game(other, pols, seed)
            assert mask or before == after, (seed, seat)
            read += bool(mask)
            changed += before != after
    assert changed >= 2 and read <= 2 * changed
