"""Pyramidion (White Goblin Games, 2012) for analyzer: ``SPEC`` is the whole public surface.

Rules: ``rules/pyramidion.md``. Content tables: ``data/*.toml``. See DESIGN.md §3 for the layout.
"""

from __future__ import annotations

from analyzer.games.base import GameSpec
from analyzer.games.pyramidion.ablations import ablations
from analyzer.games.pyramidion.config import (
    DEFAULT_SITES,
    RULE_OPTIONS,
    SPECIAL_CARDS,
    make_config,
    rule_values,
)
from analyzer.games.pyramidion.engine import play_game
from analyzer.games.pyramidion.metrics import GAME_COLUMNS, RULES_VERSION, SEAT_COLUMNS
from analyzer.games.pyramidion.policies import POLICIES

SPEC = GameSpec(
    name="pyramidion",
    min_players=2,
    max_players=4,
    expansions=(),
    rules_version=RULES_VERSION,
    make_config=make_config,
    play_game=play_game,
    policies=POLICIES,
    game_columns=GAME_COLUMNS,
    seat_columns=SEAT_COLUMNS,
    rule_values=rule_values,
    content={"sites": DEFAULT_SITES, "cards": SPECIAL_CARDS},
    rule_options=RULE_OPTIONS,
    ablations=ablations,
)

__all__ = ["SPEC"]
