"""Rattus Cartus (White Goblin Games 2012), 2–5 players: rules in ``docs/rules/cartus.md``.

Public entry points: ``SPEC`` (the GameSpec contract), ``default_config``, ``play_game``,
``new_state`` (the forward model, ``engine.CartusState``; both from ``model/forward.py``),
``one_per_class_sets`` and ``building_set_id``.
"""

from __future__ import annotations

from analyzer.games.cartus.ablations import ablations
from analyzer.games.cartus.config import (
    CONSULTS,
    DEFAULT_BUILDINGS,
    DEFAULT_CLASSES,
    OPTIONS,
    PLAYERS,
    building_set_id,
    make_config,
    one_per_class_sets,
)
from analyzer.games.cartus.content import PRIORS as CONTENT_PRIORS
from analyzer.games.cartus.engine import start
from analyzer.games.cartus.flow import FLOW
from analyzer.games.cartus.metrics import GAME_COLUMNS, GUESSES, RULES_VERSION, SEAT_COLUMNS
from analyzer.games.cartus.search import POLICIES
from analyzer.model.base import Benchmark
from analyzer.model.forward import game_spec

# The modules setup.py compiles with mypyc (read there with ast, without importing this package).
COMPILED_MODULES = ("config", "chance", "state", "scoring", "resolution", "view", "policies", "metrics", "engine")

SPEC = game_spec(
    __name__, start, POLICIES, OPTIONS,
    name="cartus",
    players=PLAYERS,
    rules_version=RULES_VERSION,
    make_config=make_config,
    game_columns=GAME_COLUMNS,
    seat_columns=SEAT_COLUMNS,
    content={"buildings": DEFAULT_BUILDINGS},
    ablations=ablations,
    title="Rattus Cartus",
    item_kind="building",
    benchmark=Benchmark(players=4, targets={"greedy": 1000.0}, search_seconds=0.25),
    # the data table lists the buildings two per class, in class order (config._buildings)
    content_groups={"buildings": ("class", {b: DEFAULT_CLASSES[i // 2]
                                            for i, b in enumerate(DEFAULT_BUILDINGS)})},
    guesses=GUESSES,
    content_priors=CONTENT_PRIORS,
    flow=FLOW,
    consults=CONSULTS,
)
default_config, new_state, play_game = SPEC.default_config, SPEC.new_state, SPEC.play_game

__all__ = ["POLICIES", "SPEC", "building_set_id", "default_config", "make_config", "new_state",
           "one_per_class_sets", "play_game"]
