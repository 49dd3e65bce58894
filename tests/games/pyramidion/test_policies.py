"""The built-in Pyramidion players do what their descriptions say (issue 12 §2–§3;
docs/rules/pyramidion.md §5 phase 7, §14.1)."""

from __future__ import annotations

import random

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
