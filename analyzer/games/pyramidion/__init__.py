"""Pyramidion (White Goblin Games, 2012) for analyzer: ``SPEC`` is the whole public surface.

Rules: ``docs/rules/pyramidion.md``. Content tables: ``data/*.toml``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from analyzer.games.pyramidion.ablations import ablations
from analyzer.games.pyramidion.config import (
    CARD_TYPES,
    DEFAULT_SITES,
    OPTIONS,
    PLAYERS,
    make_config,
)
from analyzer.games.pyramidion.content import PRIORS as CONTENT_PRIORS
from analyzer.games.pyramidion.engine import start
from analyzer.games.pyramidion.flow import FLOW
from analyzer.games.pyramidion.metrics import GAME_COLUMNS, GUESSES, RULES_VERSION, SEAT_COLUMNS
from analyzer.games.pyramidion.search import POLICIES
from analyzer.model.base import Benchmark, GameSpec, config_rule_values
from analyzer.model.forward import ForwardGame

if TYPE_CHECKING:  # the report layer is imported only when a report is built
    from analyzer.report.extension import StudySection

# The modules setup.py compiles with mypyc (read there with ast, without importing this package).
COMPILED_MODULES = ("config", "metrics", "state", "chance", "resolution", "loading", "site_play",
                    "view", "policies", "scoring", "engine")

# the game's forward model and play loop (model/forward.py): new_state(config, seed, log=None)
# and play_game(config, policies, seed, log=None), documented there
FORWARD = ForwardGame(start, POLICIES)
new_state = FORWARD.new_state
play_game = FORWARD.play_game


def default_config(players: int, **rule_options):
    """A Pyramidion config for ``players`` (2–4) with ``rule_options`` laid over the defaults.

    Raises
    ------
    RuleError
        An unknown or bad rule option, or a player count outside 2–4 (docs/rules/pyramidion.md §3).
    """
    return make_config(players, (), rule_options)


def study_sections() -> tuple[StudySection, ...]:
    """The report's Pyramidion sections (``study.py``), imported only when a report is built."""
    from analyzer.games.pyramidion.study import SECTIONS

    return SECTIONS


# The built-in table each *_file rule option replaces (the report shows what a user's file changes)
# boats_file is compared with the default boat set's table (boat_set = "size_eq_vp")
_DATA = Path(__file__).resolve().parent / "data"
TABLES = {
    "sites_file": _DATA / "sites.toml",
    "cards_file": _DATA / "cards.toml",
    "boats_file": _DATA / "boats.toml",
    "revolt_tiles_file": _DATA / "revolt_tiles.toml",
    "distribution_file": _DATA / "distribution.toml",
}


SPEC = GameSpec(
    name="pyramidion",
    players=PLAYERS,
    rules_version=RULES_VERSION,
    make_config=make_config,
    play_game=play_game,
    policies=POLICIES,
    game_columns=GAME_COLUMNS,
    seat_columns=SEAT_COLUMNS,
    rule_values=config_rule_values,
    options=OPTIONS,
    content={"sites": DEFAULT_SITES, "cards": CARD_TYPES},
    ablations=ablations,
    title="Pyramidion",
    item_kind="special card",
    sections=study_sections,
    benchmark=Benchmark(players=4, targets={"greedy": 300.0}, search_seconds=0.5),
    tables=TABLES,
    new_state=new_state,
    guesses=GUESSES,
    content_priors=CONTENT_PRIORS,
    flow=FLOW,
)

__all__ = ["SPEC", "default_config", "new_state", "play_game"]
