"""The built-in Pyramidion players do what their descriptions say (docs/rules/pyramidion.md
§5 phase 5, §5 phase 7, §14.1)."""

from __future__ import annotations

import random

from analyzer.games.pyramidion import SPEC
from analyzer.games.pyramidion.policies import GreedyPolicy
from analyzer.games.pyramidion.state import LOAD, PASS

from .helpers import make_game, set_goods


def test_s5_phase7_greedy_loads_most_vp_less_statues_not_always_the_biggest_boat():
    """§5 phase 7 (D5): greedy values a load as the boat's VP less 0.3 per statue spent, so a
    3-VP boat paid with its own goods (3.0) beats a 4-VP boat paid with four statues (2.8);
    with one statue more of its own goods on the big boat it takes the big one."""
    for stones, expect in ((0, "B10"), (2, "B13")):
        g = make_game(2)
        b10, b13 = g.cfg.boat_names.index("B10"), g.cfg.boat_names.index("B13")
        g.st.display = [b10, b13]
        set_goods(g, 0, food=1, camel=2, statue=4)
        if stones:  # two stones of its own for B13: 2 statues → 4 - 0.6 = 3.4 > 3
            set_goods(g, 0, stone=stones)
        g.decide(0, LOAD, (PASS, *g.load_options(0)))
        choice = GreedyPolicy().player(0).choose(g.view(0), random.Random(0))
        assert g.cfg.boat_names[choice[0]] == expect


def test_s5_phase5_tile_builder_wins_more_tiles_than_greedy_on_the_same_seeds():
    """The tile-builder persona does what its description says: in one seat
    against three greedy players, on the same seeds and seats, it wins more slave-driver and
    negotiator tiles (§5 phase 5 steps 5–6), keeps more on the board at the end and takes fewer
    goods as merchant (step 7) than greedy in that seat."""
    cfg = SPEC.make_config(4, (), {})
    totals = {}
    for name in ("greedy", "tile-builder"):
        placed = held = merchant = 0
        for i in range(120):
            seat = i % 4
            policies = ["greedy"] * 4
            policies[seat] = name
            _, seats = SPEC.play_game(cfg, policies, 9000 + i)
            placed += seats[seat]["tiles_placed"]
            held += seats[seat]["tiles_placed"] - seats[seat]["tiles_lost"]  # cannot_place: none moved
            merchant += seats[seat]["goods_merchant"]
        totals[name] = (placed, held, merchant)
    greedy, builder = totals["greedy"], totals["tile-builder"]
    assert builder[0] > greedy[0] and builder[1] > greedy[1] and builder[2] < greedy[2], totals
