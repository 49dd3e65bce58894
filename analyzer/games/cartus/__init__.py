"""Rattus Cartus (White Goblin Games 2012), 2–5 players: rules in ``docs/rules/cartus.md``.

Public entry points: ``SPEC`` (the GameSpec contract), ``default_config``, ``play_game``,
``new_state`` (the forward model, ``engine.CartusState``; both from ``model/forward.py``),
``one_per_class_sets`` and ``building_set_id``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from analyzer.games.cartus.ablations import ablations
from analyzer.games.cartus.config import (
    DEFAULT_BUILDINGS,
    DEFAULT_CLASSES,
    OPTIONS,
    PLAYERS,
    CartusConfig,
    building_set_id,
    default_config,
    make_config,
    one_per_class_sets,
)
from analyzer.games.cartus.content import PRIORS as CONTENT_PRIORS
from analyzer.games.cartus.engine import start
from analyzer.games.cartus.flow import FLOW
from analyzer.games.cartus.metrics import GAME_COLUMNS, GUESSES, RULES_VERSION, SEAT_COLUMNS
from analyzer.games.cartus.search import POLICIES
from analyzer.model.base import Benchmark, GameSpec, config_rule_values
from analyzer.model.forward import ForwardGame

if TYPE_CHECKING:  # the report layer is imported only when a report is built
    from analyzer.report.extension import StudySection

# The modules setup.py compiles with mypyc (read there with ast, without importing this package).
COMPILED_MODULES = ("config", "chance", "state", "scoring", "resolution", "view", "policies", "metrics", "engine")

# the game's forward model and play loop (model/forward.py): new_state(config, seed, log=None)
# and play_game(config, policies, seed, log=None), documented there
FORWARD = ForwardGame(start, POLICIES)
new_state = FORWARD.new_state
play_game = FORWARD.play_game


def study_sections() -> tuple[StudySection, ...]:
    """The report's Cartus sections (``study.py``), imported only when a report is built."""
    from analyzer.games.cartus.study import SECTIONS

    return SECTIONS


# The built-in table each *_file rule option replaces (the report shows what a user's file changes)
_DATA = Path(__file__).resolve().parent / "data"
TABLES = {
    "buildings_file": _DATA / "buildings.toml",
    "supply_icons_file": _DATA / "supply_icons.toml",
    "components_file": _DATA / "components.toml",
}


SPEC = GameSpec(
    name="cartus",
    players=PLAYERS,
    rules_version=RULES_VERSION,
    make_config=make_config,
    play_game=play_game,
    policies=POLICIES,
    game_columns=GAME_COLUMNS,
    seat_columns=SEAT_COLUMNS,
    rule_values=config_rule_values,
    options=OPTIONS,
    content={"buildings": DEFAULT_BUILDINGS},
    ablations=ablations,
    title="Rattus Cartus",
    item_kind="building",
    sections=study_sections,
    benchmark=Benchmark(players=4, targets={"greedy": 1000.0}, search_seconds=0.5),
    # the data table lists the buildings two per class, in class order (config._buildings)
    content_groups={"buildings": ("class", {b: DEFAULT_CLASSES[i // 2]
                                            for i, b in enumerate(DEFAULT_BUILDINGS)})},
    tables=TABLES,
    new_state=new_state,
    guesses=GUESSES,
    content_priors=CONTENT_PRIORS,
    flow=FLOW,
)

__all__ = [
    "POLICIES",
    "SPEC",
    "CartusConfig",
    "building_set_id",
    "default_config",
    "make_config",
    "new_state",
    "one_per_class_sets",
    "play_game",
]
