"""The greedy player's one valuation (``_RegionValues.relative``) and the copies kept of it.

``relative`` is checked against the valuation as ``GreedyPolicy`` documents it, computed here
independently, and every cached value of ``_Valuation`` (``now``, ``with_cubes``,
``with_tokens``, ``own_value``) against ``relative`` itself, on positions reached by random play.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as hst

from analyzer.games.rattus import default_config, new_state
from analyzer.games.rattus.policies import GreedyPolicy, RandomPolicy, _Valuation


def documented_values(cfg, row, held_class, n_tokens, fr, pr) -> list[float]:
    """Per seat: cubes minus the expected losses to ``n_tokens + fr`` rats, times ``pr``, each
    costing the token set's mean A, M (to the seats with most cubes) and class damage at the
    region's cube count (capped at the largest threshold), at least nothing (``GreedyPolicy``)."""
    tot, top = sum(row), max(row)
    if tot == 0:
        return [0.0] * len(row)
    t = min(cfg.threshold_top, tot)
    out = []
    for q, c in enumerate(row):
        if not c:
            out.append(0.0)
            continue
        cls = 0.0
        for k, held in enumerate(held_class[q]):
            if held:
                cls += cfg.exp_c[t][k] * held
        loss = (n_tokens + fr) * pr * (cfg.exp_a[t] + (cfg.exp_m[t] if c == top else 0.0) + cls)
        out.append(max(c - loss, 0.0))
    return out


def _position(seed: int, players: int, africanus: bool, moves: int):
    """A game after up to ``moves`` random decisions."""
    cfg = default_config(players, ("africanus",) if africanus else ())
    game = new_state(cfg, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_terminal():
            break
        seat = game.current_seat()
        game.apply(RandomPolicy().choose(game.view(seat), rng))
    return game


@settings(max_examples=60, deadline=None)
@given(seed=hst.integers(0, 2**31), players=hst.integers(2, 4), africanus=hst.booleans(),
       moves=hst.integers(0, 120), weights=hst.tuples(*[hst.floats(0, 3)] * 3))
def test_the_one_valuation_and_its_cached_copies_agree_with_the_documented_value(seed, players, africanus, moves,
                                                                                 weights):
    game = _position(seed, players, africanus, moves)
    cfg = game.state.cfg
    pr, fr, ow = weights
    policy = GreedyPolicy(plague_risk=pr, future_rats=fr, opponent_weight=ow)
    for seat in range(cfg.n_players):
        view = game.view(seat)
        v = _Valuation(policy.player(seat), view)
        rv = v.rv
        oth = ow / (cfg.n_players - 1)
        assert (v.oth, v.own) == (oth, 1 + oth)
        for r, row in enumerate(view.cubes):
            for d in (-2, -1, 0, 1, 3):
                if row[seat] + d < 0:
                    continue
                shifted = [c + (d if q == seat else 0) for q, c in enumerate(row)]
                vals = documented_values(cfg, shifted, view.held_class, view.rats[r], fr, pr)
                want = vals[seat] * (1 + oth) - oth * sum(vals)
                got = rv.relative(row, view.rats[r], d, v.own, v.oth)
                assert got == want, (r, d, got, want)
                assert v.with_cubes(r, d) == got and v.with_cubes(r, d) == got  # computed, then kept
                if d == 0:
                    assert v.now(r) == got and v.now(r) == got
                    assert v.own_value(r) == vals[seat]
                    assert rv.relative(row, view.rats[r], 0, 1.0, 0.0) == vals[seat]
            for d in (-1, 1):
                if view.rats[r] + d < 0:
                    continue
                vals = documented_values(cfg, row, view.held_class, view.rats[r] + d, fr, pr)
                want = vals[seat] * (1 + oth) - oth * sum(vals)
                assert v.with_tokens(r, d) == want and v.with_tokens(r, d) == want


def test_a_known_value():
    """Known answer: two seats, 3 and 1 cubes, no cards held, no rats and ``future_rats`` 0:
    nothing is lost, so the values are the cubes and seat 0 scores 3 * 2 - 1 * (3 + 1) = 2."""
    game = _position(1, 2, False, 0)
    v = _Valuation(GreedyPolicy(future_rats=0.0, opponent_weight=1.0).player(0), game.view(0))
    assert v.rv.relative([3, 1], 0, 0, v.own, v.oth) == 2.0
    assert v.rv.relative([3, 1], 0, 0, 1.0, 0.0) == 3.0
    assert v.rv.relative([0, 0], 2, 0, v.own, v.oth) == 0.0
