"""Greedy's fast card choice equals its plain reading.

``GreedyPolicy._play`` uses precomputed config tables, per-category need/hit/miss values and
skips a card equal to the one before it. ``reference_play`` below is the plain reading of the
same rule (every card valued from its values in all three categories); both must pick the
same option index at every card-play decision of real games, for every player count, both
greedy parameter sets and the rule variants that change what a card does.
"""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.games.pyramidion import SPEC
from analyzer.games.pyramidion.config import GODDESS, PLAYER_ORDER, SLAVE_DRIVER
from analyzer.games.pyramidion.policies import GreedyPlayer, GreedyPolicy, TileBuilderPolicy
from analyzer.games.pyramidion.state import PLAY


def reference_play(pol: GreedyPlayer, st, seat: int, options: tuple) -> int:
    """Index of the card (or pass) with the best positive net value, first on ties."""
    cfg = st.cfg
    site = st.site
    tot = st.totals
    mins = cfg.site_min[site]
    vals = pol._contest_values(st, seat, site)
    thr, mine = [0, 0, 0], [0, 0, 0]
    for k in range(3):
        row = tot[k]
        best_opp = max([row[s] for s in range(st.n) if s != seat] + [0])
        m = mins[k]
        thr[k] = best_opp + 1 if best_opp >= m else (m if m > 0 else 1)
        mine[k] = row[seat]
    won_now = [mine[k] >= thr[k] for k in range(3)]
    total = st.n * cfg.activations_per_player
    later = total - sum(st.sundial) - 1
    unit = pol.card_cost * later / (total - 1) if total > 1 else 0.0
    reach = list(mine)
    for c in options[1:]:
        if cfg.card_type[c] != GODDESS:
            for k in range(3):
                reach[k] += cfg.card_val[c][k]
    best_i, best = 0, 0.0
    for i in range(1, len(options)):
        c = options[i]
        t = cfg.card_type[c]
        gain = 0.0
        if t == GODDESS:
            g = cfg.goddess_value
            for k in range(3):
                if not won_now[k] and mine[k] + g >= thr[k] and vals[k] > gain:
                    gain = vals[k]
            cost = unit * g
        else:
            for k in range(3):
                vk = cfg.card_val[c][k]
                if not vk:
                    continue
                if mine[k] + vk >= thr[k]:
                    if not won_now[k]:
                        gain += vals[k]
                elif reach[k] >= thr[k]:
                    gain += vals[k] * pol.progress
            cost = unit * sum(cfg.card_val[c])
            if t > GODDESS:
                gain, cost = pol._special(st, seat, site, t, tot[0][seat], gain, cost)
            elif t == SLAVE_DRIVER and cfg.site_ability[site] == PLAYER_ORDER and seat not in st.giza_tiles:
                gain += pol.player_order
        if gain - cost > best:
            best_i, best = i, gain - cost
    return best_i


class Compared:
    """Plays like ``inner`` and checks every card-play choice against ``reference_play``."""

    def __init__(self, inner: GreedyPolicy):
        self.inner = inner
        self.checked = 0

    def player(self, seat):
        self.seat_player = self.inner.player(seat)
        self.seat = seat
        return self

    def choose(self, view, rng):
        choice = self.seat_player.choose(view, rng)
        if view.decision_kind() == PLAY:
            options = view.legal_actions()
            assert options.index(choice) == reference_play(self.seat_player, view, self.seat, options), options
            self.checked += 1
        return choice


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", [{}, {"executioner": "discard_on_play", "philosopher": "none"}])
def test_fast_card_choice_equals_reference(players, rules):
    cfg = SPEC.make_config(players, (), rules)
    pols = [Compared(GreedyPolicy() if s % 2 == 0 else TileBuilderPolicy()) for s in range(players)]
    for i in range(15):
        SPEC.play_game(cfg, pols, np.random.SeedSequence(11, spawn_key=(players, i)))
    assert sum(p.checked for p in pols) > 100 * players
