"""Each game's greedy declares how clearly it chose (``lead``, ``forward.Player``), which the
search player's ``close`` reads (model/ismcts.py): the chosen option's score minus the best
other option's, in the greedy's own units; inf for one option or an answer not chosen by
comparing scores. Each is checked against a hand computation on concrete positions."""

from __future__ import annotations

import math
import random

from analyzer.games import get_game
from analyzer.model.base import build_policy, game_streams


def _positions(game: str, seed: int, kinds: set, n: int = 6, decisions: int = 400):
    """Up to ``n`` (state, seat) pairs of a seeded greedy game where the pending decision is of
    one of ``kinds`` (``decision_kind()``), with more than one legal answer."""
    spec = get_game(game)
    config = spec.make_config(4, spec.bench_table().expansions, {})
    state = spec.new_state(config, seed)
    _, rngs = game_streams(seed, 4)
    greedy = [build_policy(spec.policies, "greedy").player(s) for s in range(4)]
    found = []
    for _ in range(decisions):
        if state.is_terminal() or len(found) >= n:
            break
        s = state.current_seat()
        view = state.view(s)
        if view.decision_kind() in kinds and len(view.legal_actions()) > 1:
            found.append((state.clone(), s))
        state.apply(greedy[s].choose(view, rngs[s]))
    return found


def _gap(values: list[float], i: int) -> float:
    return values[i] - max(v for j, v in enumerate(values) if j != i)


def test_rattus_lead_is_the_best_score_minus_the_best_other():
    spec = get_game("rattus")
    player = build_policy(spec.policies, "greedy").player(0)
    rng = random.Random(1)
    assert player._pick(("a", "b", "c"), [1.0, 3.5, 2.25], rng) == "b"
    assert player.lead == 1.25
    player._pick(("a", "b", "c"), [3.5, 1.0, 3.5], rng)
    assert player.lead == 0.0  # tied best: drawn among them
    player._pick(("a",), [0.3], rng)
    assert player.lead == math.inf
    # a concrete position: the scores of placing cubes, by hand from the player's own valuation
    from analyzer.games.rattus.policies import _PEASANT, _Valuation

    positions = _positions("rattus", 5, {"place"})
    assert positions
    for state, s in positions:
        view = state.view(s)
        options = view.legal_actions()
        p = build_policy(spec.policies, "greedy").player(s)
        v = _Valuation(p, view)
        extra = 1 if view.holder[_PEASANT] == s else 0
        scores = p._place_values(v, options, [v.rats[r] + extra for r in options])
        choice = p.choose(view, random.Random(0))
        top = sorted(scores, reverse=True)
        assert p.lead == top[0] - top[1] if top[0] - top[1] > 1e-9 else p.lead == 0.0
        assert scores[options.index(choice)] == top[0]


def test_pyramidion_lead_is_the_best_value_minus_the_best_other():
    """Activation (the site's tiles and goods, as valued in ``_activate``) and card play (the
    lead is never negative; a tie of different cards is 0)."""
    spec = get_game("pyramidion")
    pol = build_policy(spec.policies, "greedy")
    activations = _positions("pyramidion", 3, {"activate"})
    assert activations
    for state, s in activations:
        view = state.view(s)
        options = view.legal_actions()
        p = pol.player(s)
        values = [pol.slave_driver_tile * (pol.own_tile_share if view.sd_owner[x] == s else 1.0)
                  + pol.negotiator_tile * (pol.own_tile_share if view.ng_owner[x] == s else 1.0)
                  + pol.good_value * view.site_goods[x] for x in options]
        choice = p.choose(view, random.Random(0))
        assert p.lead == _gap(values, options.index(choice))
    plays = _positions("pyramidion", 3, {"play"}, n=20)
    assert plays
    for state, s in plays:
        p = pol.player(s)
        p.choose(state.view(s), random.Random(0))
        assert p.lead >= 0.0
    p = pol.player(0)
    p._keep(activations[0][0].view(activations[0][1]), (0,))  # option 0 alone
    assert p.lead == math.inf


def test_cartus_lead_of_supply_hospital_cards_and_enter():
    """Supply (the row values of ``supply``, by hand), enter (every row's plan valued in full:
    only when asked, ``want_lead``, and the choice is the same either way) and cards (the plan's
    best count minus the next best count of off-class cards and jokers)."""
    spec = get_game("cartus")
    pol = build_policy(spec.policies, "greedy")
    supplies = _positions("cartus", 2, {"supply"})
    assert supplies
    for state, s in supplies:
        view = state.view(s)
        p = pol.player(s)
        seen = view.seen_nuns()
        values = []
        for c in view.row:
            d, x, looks = view.cfg.card_icons[c]
            values.append(d * pol.card_value + p._relief(view, x, seen) + min(looks, seen[1]) * pol.look_value)
        choice = p.choose(view, random.Random(0))
        assert p.lead == _gap(values, choice)
    enters = _positions("cartus", 2, {"enter"}, n=10)
    assert enters
    for state, s in enters:
        view = state.view(s)
        plain, asked = pol.player(s), pol.player(s)
        asked.want_lead = True
        choice = plain.choose(view, random.Random(0))
        assert asked.choose(view, random.Random(0)) == choice
        assert math.isnan(plain.lead)  # not asked: unknown
        full = {r: pol.player(s)._make_plan(view, r, pol.player(s)._position(view)[1])[0] for r in view.options}
        assert asked.lead == full[choice] - max(v for r, v in full.items() if r != choice)
        assert asked.lead >= 0.0
    cards = _positions("cartus", 2, {"cards"}, n=10)
    assert cards
    for state, s in cards:
        view = state.view(s)
        p = pol.player(s)
        p.choose(view, random.Random(0))
        assert p.lead >= 0.0
        assert p.lead == p.plan_gaps[view.entry_row]
