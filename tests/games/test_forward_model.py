"""The forward-model contract (analyzer/model/forward.py), written once for every registered game.

Parametrized over the registry (``available_games``): a new game package gets these tests
without writing them. Each game is played at every player count and expansion it allows with
its default rules, and at its standard table with every flag option flipped and every other
choice of a named option (hidden-information options among them). Checked: the protocols, the
play loop, clone independence, determinization (same information set, another hidden part,
a function of the information set only), the leak test (every registered policy chooses the
same from a determinization of its seat's information set), random legal play always ends,
actions not offered raise ``IllegalChoice``, views of seats not deciding offer nothing, and a
stored playthrough per game (``tests/games/playthroughs/<game>.json``: the actions of one seeded
game and its records, OpenSpiel style) replays to the same records.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from analyzer.errors import IllegalChoice, RuleError
from analyzer.games import available_games, get_game
from analyzer.model.base import build_policy, game_streams
from analyzer.model.forward import GameState, SeatView, offered, play

GAMES = available_games()
PLAYTHROUGHS = Path(__file__).parent / "playthroughs"
REGEN = os.environ.get("ANALYZER_REGEN_PLAYTHROUGHS")  # set to 1 to store them again (check the diff)


def _defaults(name: str):
    """Every player count and expansion the game allows, default rules."""
    spec = get_game(name)
    for players in range(spec.min_players, spec.max_players + 1):
        for expansions in [(), *[(e,) for e in spec.expansions]]:
            try:
                yield f"{name}-{players}p-{'+'.join(expansions) or 'base'}", spec.make_config(players, expansions, {})
            except RuleError:  # e.g. 5-6 player Rattus needs Africanus
                continue


def _alternatives(name: str):
    """The standard table with one option changed: a flag flipped, another choice of a named
    option, or a documented alternative of a labelled default."""
    spec = get_game(name)
    table = spec.bench_table()
    for o in spec.options:
        values = [not o.default] if o.type is bool else [c for c in o.choices if c != o.default] \
            if o.type is str else []
        values += [v for v in o.alternatives if v not in values and v != o.default]
        for v in values:
            try:
                yield f"{name}-{o.name}={v}", spec.make_config(table.players, table.expansions, {o.name: v})
            except RuleError:  # an alternative that needs another option with it
                continue


def _every_flag_flipped(name: str):
    """The standard table with every flag option flipped at once (hidden-information flags too)."""
    spec = get_game(name)
    table = spec.bench_table()
    rules = {o.name: not o.default for o in spec.options if o.type is bool}
    try:
        return spec.make_config(table.players, table.expansions, rules)
    except RuleError:
        return None


def _search_cases():
    """Per game: its smallest, standard and largest table, and the standard one with every
    flag flipped (for the tests that walk whole games at many decision points)."""
    for name in GAMES:
        spec = get_game(name)
        cases = dict(_defaults(name))
        table = spec.bench_table()
        pick = [k for k in cases if k.split("-")[1] in (f"{spec.min_players}p", f"{table.players}p",
                                                       f"{spec.max_players}p")]
        for key in sorted(set(pick)):
            yield pytest.param(name, cases[key], id=key)
        flipped = _every_flag_flipped(name)
        if flipped is not None:
            yield pytest.param(name, flipped, id=f"{name}-flags-flipped")


ALL_CASES = [(name, key, cfg) for name in GAMES for key, cfg in [*_defaults(name), *_alternatives(name)]]
SEARCH_CASES = list(_search_cases())


def _players(spec, n: int):
    """A greedy seat and a random seat by turns (every game registers both)."""
    return [build_policy(spec.policies, "greedy" if s % 2 == 0 else "random").player(s) for s in range(n)]


def _decision_points(name: str, config, seed: int, every: int):
    """Copies of the state at every ``every``-th decision of a seeded game of greedy and random
    seats (the last one included)."""
    spec = get_game(name)
    state = spec.new_state(config, seed)
    n = config.n_players
    players = _players(spec, n)
    rngs = [random.Random(1000 * seed + s) for s in range(n)]
    out, k = [], 0
    while not state.is_terminal():
        if k % every == 0:
            out.append(state.clone())
        seat = state.current_seat()
        state.apply(players[seat].choose(state.view(seat), rngs[seat]))
        k += 1
    return out


def _keys(state, n: int) -> list:
    return [state.information_key(s) for s in range(n)]


# ---------------------------------------------------------------- protocols and the loop


@pytest.mark.parametrize("name", GAMES)
def test_new_state_meets_the_protocols(name):
    spec = get_game(name)
    table = spec.bench_table()
    config = spec.make_config(table.players, table.expansions, {})
    state = spec.new_state(config, 3)
    assert isinstance(state, GameState) and not state.is_terminal()
    seat = state.current_seat()
    view = state.view(seat)
    assert isinstance(view, SeatView) and view.seat == seat and view.n_players == table.players
    assert view.legal_actions() == state.legal_actions() and view.decision_kind() == state.decision_kind()
    assert _keys(spec.new_state(config, 3), table.players) == _keys(state, table.players)  # same seed, same deal
    assert _keys(spec.new_state(config, 4), table.players) != _keys(state, table.players)


@pytest.mark.parametrize("name", GAMES)
def test_play_game_is_the_play_loop_over_new_state(name):
    """``play_game`` == ``new_state`` + ``forward.play`` with the seats' streams + ``records``."""
    spec = get_game(name)
    table = spec.bench_table()
    config = spec.make_config(table.players, table.expansions, {})
    names = ["greedy" if s % 2 == 0 else "random" for s in range(table.players)]
    for seed in (5, np.random.SeedSequence(9, spawn_key=(2,))):
        state = spec.new_state(config, seed)
        play(state, [build_policy(spec.policies, p).player(s) for s, p in enumerate(names)],
             game_streams(seed, table.players)[1])
        assert state.is_terminal()
        assert state.records(names) == spec.play_game(config, names, seed)


@pytest.mark.parametrize("name,config", SEARCH_CASES)
def test_clone_is_independent_and_replays_the_same_game(name, config):
    n = config.n_players
    for state in _decision_points(name, config, 7, every=40)[1:4]:
        keys, legal = _keys(state, n), state.legal_actions()
        twin = state.clone()
        rng = random.Random(1)
        for _ in range(30):  # the copy moves on ...
            if twin.is_terminal():
                break
            acts = twin.legal_actions()
            twin.apply(acts[rng.randrange(len(acts))])
        assert _keys(state, n) == keys and state.legal_actions() == legal  # ... the original does not
        a, b = state.clone(), state.clone()
        rng = random.Random(2)
        while not a.is_terminal():  # two copies given the same actions play the same game
            acts = a.legal_actions()
            assert b.legal_actions() == acts and b.current_seat() == a.current_seat()
            act = acts[rng.randrange(len(acts))]
            a.apply(act)
            b.apply(act)
        assert b.is_terminal() and a.records(["x"] * n) == b.records(["x"] * n)


# ---------------------------------------------------------------- hidden information


@pytest.mark.parametrize("name,config", SEARCH_CASES)
def test_determinize_keeps_the_information_set_and_varies_the_hidden_part(name, config):
    """A determinization looks the same to the seat (same information key, same question) and
    differs in what the seat cannot see: where another seat can tell (its hand redrawn) or in
    the position's worth (face-down tokens, unseen cards redrawn: ``heuristic_returns``)."""
    n = config.n_players
    varied = 0
    points = _decision_points(name, config, 21, every=15)
    for state in points:
        seat = state.current_seat()
        key = state.information_key(seat)
        others = set()
        for seed in range(6):
            d = state.determinize(seat, seed)
            assert d.information_key(seat) == key
            assert d.current_seat() == seat and d.decision_kind() == state.decision_kind()
            assert d.view(seat).legal_actions() == state.view(seat).legal_actions()
            others.add((tuple(d.information_key(q) for q in range(n) if q != seat), d.heuristic_returns()))
        varied += len(others) > 1
    assert varied >= len(points) // 2, f"the hidden part varied at {varied} of {len(points)} decisions"


@pytest.mark.parametrize("name,config", SEARCH_CASES)
def test_determinize_depends_only_on_the_information_set(name, config):
    """Two positions a seat cannot tell apart, determinized for it with one seed, give the same
    position: a search cannot learn the real hidden facts from how its redraws come out."""
    n = config.n_players
    for state in _decision_points(name, config, 33, every=25)[1:5]:
        seat = state.current_seat()
        other = state.determinize(seat, 77)
        assert other.information_key(seat) == state.information_key(seat)
        a, b = state.determinize(seat, 5), other.determinize(seat, 5)
        assert _keys(a, n) == _keys(b, n)
        rng = random.Random(3)  # and the same chance from there on
        while not a.is_terminal():
            acts = a.legal_actions()
            act = acts[rng.randrange(len(acts))]
            a.apply(act)
            b.apply(act)
        assert a.records(["x"] * n) == b.records(["x"] * n)


def _policies(name: str):
    spec = get_game(name)
    for policy in spec.policies:
        params = {"iterations": 6} if policy == "ismcts" else {}
        yield policy, build_policy(spec.policies, policy, params)


@pytest.mark.parametrize("name,config", SEARCH_CASES)
def test_players_decide_from_the_seats_view_only(name, config):
    """Leak test: every registered policy makes the same choice, and draws the same numbers, from
    the real state and from a determinization of its seat's information set."""
    for policy, pol in _policies(name):
        points = _decision_points(name, config, 2, every=17 if policy == "ismcts" else 3)
        for i, state in enumerate(points):
            seat = state.current_seat()
            other = state.determinize(seat, 1000 + i)
            r1, r2 = random.Random(i), random.Random(i)
            a = pol.player(seat).choose(state.view(seat), r1)
            b = pol.player(seat).choose(other.view(seat), r2)
            assert a == b, (policy, state.decision_kind(), a, b)
            assert r1.getstate() == r2.getstate(), (policy, state.decision_kind())
        assert len(points) > 5


@pytest.mark.parametrize("name,config", SEARCH_CASES)
def test_a_seat_not_deciding_is_offered_nothing(name, config):
    """Every game alike: the deciding seat's view offers the state's actions (and a search
    branches on some of them); any other seat's view has no decision and offers nothing."""
    n = config.n_players
    for state in _decision_points(name, config, 4, every=11):
        seat = state.current_seat()
        legal = state.legal_actions()
        assert state.view(seat).legal_actions() == legal and state.view(seat).decision_kind() == state.decision_kind()
        search = state.search_actions()
        assert search and state.view(seat).search_actions() == search
        assert all(offered(legal, a) >= 0 for a in search)
        for q in range(n):
            if q != seat:
                v = state.view(q)
                assert v.decision_kind() == "" and v.legal_actions() == () and v.search_actions() == ()


# ---------------------------------------------------------------- legality and termination


@settings(max_examples=40, deadline=None)
@given(case=hst.sampled_from(ALL_CASES), seed=hst.integers(0, 2**31), walk=hst.integers(0, 2**31))
def test_random_legal_play_always_ends(case, seed, walk):
    """From ``new_state``, uniformly random legal actions always reach the end: every decision
    offers at least one action, all distinct; the end offers none, its win shares add up to one
    game (or to nothing where the rules let everyone lose) and its records have every column."""
    name, _, config = case
    spec = get_game(name)
    state = spec.new_state(config, seed)
    rng = random.Random(walk)
    for _ in range(20_000):
        if state.is_terminal():
            break
        acts = state.legal_actions()
        assert acts and len(set(acts)) == len(acts), (state.decision_kind(), acts)
        state.apply(acts[rng.randrange(len(acts))])
    assert state.is_terminal()
    assert state.decision_kind() == "" and state.legal_actions() == ()
    assert sum(state.returns()) == pytest.approx(1.0) or sum(state.returns()) == 0.0
    game, seats = state.records(["x"] * config.n_players)
    assert set(game) == set(spec.game_columns) and all(set(r) == set(spec.seat_columns) for r in seats)


def _not_offered(action) -> list:
    """Look-alikes of ``action`` a careless player might hand back: other types of the same
    value, a list for a tuple, a tuple around it."""
    out: list = [object(), None, (action,), [action]]
    if type(action) is int:
        out += [float(action), np.int64(action), str(action), action == 1]
    elif type(action) is bool:
        out += [int(action), float(action)]
    elif type(action) is tuple:
        out += [list(action), action + (0,)]
        ints = [i for i, x in enumerate(action) if type(x) is int]
        if ints:
            out.append(tuple(float(x) if i == ints[0] else x for i, x in enumerate(action)))
    elif type(action) is str:
        out += [action.encode(), action + "?"]
    return out


@pytest.mark.parametrize("name,config", SEARCH_CASES)
def test_actions_not_offered_raise_and_change_nothing(name, config):
    """``apply`` refuses whatever was not offered with ``IllegalChoice(seat, kind, action,
    legal)``, never coerces it (1.0, True, numpy ints and lists are not offered actions), and
    leaves the state as it was; after the end every action is refused."""
    n = config.n_players
    refused = 0
    for state in _decision_points(name, config, 6, every=9):
        legal, seat, kind = state.legal_actions(), state.current_seat(), state.decision_kind()
        keys = _keys(state, n)
        for bad in [x for a in legal[:3] for x in _not_offered(a)]:
            if offered(legal, bad) >= 0:  # e.g. True where both bools are offered
                continue
            with pytest.raises(IllegalChoice) as err:
                state.apply(bad)
            assert (err.value.seat, err.value.kind, err.value.legal) == (seat, kind, legal)
            assert err.value.action is bad and kind in str(err.value)
            refused += 1
        assert _keys(state, n) == keys and state.legal_actions() == legal
        state.apply(legal[-1])  # the offered object itself is accepted
    assert refused > 50
    while not state.is_terminal():
        state.apply(state.legal_actions()[0])
    with pytest.raises(IllegalChoice, match="the game is over") as err:
        state.apply(0)
    assert err.value.kind == "" and err.value.legal == ()


def test_offered_compares_value_and_type_all_the_way_down():
    """The one legality check (forward.offered): known answers."""
    opts = (0, 1, (2, (3, True)), "x", None, False)
    assert [offered(opts, a) for a in (0, 1, (2, (3, True)), "x", None, False)] == [0, 1, 2, 3, 4, 5]
    equal = tuple([2, tuple([3, True])])  # noqa: C409 built at run time: equal to, not the offered object
    assert equal is not opts[2] and offered(opts, equal) == 2
    assert offered((0, 1, 2), 1 + 0) == 1 and offered((0.0, False, 0), 0) == 2
    for a in (1.0, True, np.int64(1), (2, (3, 1)), (2, [3, True]), [2, (3, True)], (2.0, (3, True)), 0.0, "y", 7, {}):
        assert offered(opts, a) == -1, a
    assert offered((), 0) == -1


def test_illegal_choice_is_structured_and_travels_between_processes():
    import pickle

    err = IllegalChoice(2, "place", 1.0, (0, 1, 2))
    assert (err.seat, err.kind, err.action, err.legal) == (2, "place", 1.0, (0, 1, 2))
    assert str(err) == "seat 2: decision 'place': choice 1.0 is not legal (legal: 0, 1, 2)"
    back = pickle.loads(pickle.dumps(err))
    assert (back.seat, back.kind, back.action, back.legal, str(back)) == (2, "place", 1.0, (0, 1, 2), str(err))
    long = IllegalChoice(0, "cards", (9,), tuple(range(30)))
    assert str(long).endswith("19, … (30 in all))")
    assert str(IllegalChoice(-1, "", 3)) == "the game is over: no decision to answer with 3"


# ---------------------------------------------------------------- stored playthroughs


def _tuples(x):
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _playthrough(name: str) -> dict:
    """One seeded game at the standard table, greedy and random seats by turns: every decision's
    seat, kind and action, and the records at the end."""
    spec = get_game(name)
    table = spec.bench_table()
    config = spec.make_config(table.players, table.expansions, {})
    seed = 20261129
    state = spec.new_state(config, seed)
    players = _players(spec, table.players)
    rngs = game_streams(seed, table.players)[1]
    steps = []
    while not state.is_terminal():
        seat = state.current_seat()
        action = players[seat].choose(state.view(seat), rngs[seat])
        steps.append([seat, state.decision_kind(), action])
        state.apply(action)
    names = [f"seat{s}" for s in range(table.players)]
    return {"game": name, "players": table.players, "expansions": list(table.expansions), "seed": seed,
            "steps": steps, "records": state.records(names)}


@pytest.mark.parametrize("name", GAMES)
def test_stored_playthrough_replays_to_the_same_records(name):
    """The stored actions applied to ``new_state`` (no players) meet the same seat and decision
    kind at every step and end with the stored records. A rules change that moves this game
    shows here; after checking it, store it again with ANALYZER_REGEN_PLAYTHROUGHS=1."""
    path = PLAYTHROUGHS / f"{name}.json"
    if REGEN:
        PLAYTHROUGHS.mkdir(exist_ok=True)
        path.write_text(json.dumps(_playthrough(name), separators=(",", ":")) + "\n")
    assert path.is_file(), f"no stored playthrough for {name}: run with ANALYZER_REGEN_PLAYTHROUGHS=1"
    stored = json.loads(path.read_text())
    spec = get_game(name)
    config = spec.make_config(stored["players"], tuple(stored["expansions"]), {})
    state = spec.new_state(config, stored["seed"])
    for i, (seat, kind, action) in enumerate(stored["steps"]):
        assert (state.current_seat(), state.decision_kind()) == (seat, kind), f"step {i}"
        state.apply(_tuples(action))
    assert state.is_terminal()
    names = [f"seat{s}" for s in range(stored["players"])]
    assert json.loads(json.dumps(state.records(names))) == stored["records"]
