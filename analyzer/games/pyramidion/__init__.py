"""Pyramidion (White Goblin Games, 2012) for analyzer: ``SPEC`` is the whole public surface.

Rules: ``docs/rules/pyramidion.md``. Content tables: ``data/*.toml``.
"""

from __future__ import annotations

from analyzer.games.pyramidion import config
from analyzer.games.pyramidion.ablations import ablations
from analyzer.games.pyramidion.content import PRIORS as CONTENT_PRIORS
from analyzer.games.pyramidion.engine import start
from analyzer.games.pyramidion.flow import FLOW
from analyzer.games.pyramidion.metrics import GAME_COLUMNS, GUESSES, RULES_VERSION, SEAT_COLUMNS
from analyzer.games.pyramidion.search import POLICIES
from analyzer.model.base import Benchmark
from analyzer.model.forward import game_spec

# The modules setup.py compiles with mypyc (read there with ast, without importing this package).
COMPILED_MODULES = ("config", "metrics", "state", "chance", "resolution", "loading", "site_play",
                    "view", "policies", "scoring", "engine")

# boats_file is compared with the default boat set's table (boat_set = "size_eq_vp")
SPEC = game_spec(
    __name__, start, POLICIES, config.OPTIONS,
    name="pyramidion",
    players=config.PLAYERS,
    rules_version=RULES_VERSION,
    make_config=config.make_config,
    game_columns=GAME_COLUMNS,
    seat_columns=SEAT_COLUMNS,
    content={"sites": config.DEFAULT_SITES, "cards": config.CARD_TYPES},
    ablations=ablations,
    title="Pyramidion",
    item_kind="special card",
    benchmark=Benchmark(players=4, targets={"greedy": 300.0}, search_seconds=0.25),
    guesses=GUESSES,
    content_priors=CONTENT_PRIORS,
    flow=FLOW,
    consults=config.CONSULTS,
)
default_config, new_state, play_game = SPEC.default_config, SPEC.new_state, SPEC.play_game

__all__ = ["SPEC", "default_config", "new_state", "play_game"]
