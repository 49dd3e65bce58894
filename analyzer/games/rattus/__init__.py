"""Rattus (2010) + Rattus Africanus (2011): rules engine, players and records.

Public interface: ``SPEC`` (the ``GameSpec`` the runner uses), ``default_config``,
``new_state`` (the forward model, ``analyzer.model.forward``), ``play_game`` and ``POLICIES``.
Rules: ``docs/rules/rattus.md`` (sections cited in each function's docstring).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from analyzer.games.rattus.ablations import ablations
from analyzer.games.rattus.config import (
    CARD_NAMES,
    OPTIONS,
    PLAYERS,
    RULES_VERSION,
    RattusConfig,
    default_config,
    make_config,
)
from analyzer.games.rattus.content import PRIORS as CONTENT_PRIORS
from analyzer.games.rattus.engine import start
from analyzer.games.rattus.flow import FLOW
from analyzer.games.rattus.metrics import GAME_COLUMNS, GUESSES, SEAT_COLUMNS
from analyzer.games.rattus.policies import POLICIES as _HEURISTICS
from analyzer.games.rattus.search import RattusIsmcts
from analyzer.model.base import Benchmark, GameSpec, config_rule_values
from analyzer.model.forward import ForwardGame

if TYPE_CHECKING:  # the report layer is imported only when a report is built
    from analyzer.report.extension import StudySection

# policy registry: the key is a policy's only name
POLICIES: dict[str, type] = {**_HEURISTICS, "ismcts": RattusIsmcts}

__all__ = ["POLICIES", "SPEC", "RattusConfig", "default_config", "make_config", "new_state", "play_game"]

# The modules setup.py compiles with mypyc (read there with ast, without importing this package).
COMPILED_MODULES = ("config", "state", "information", "core", "view", "plague", "cards", "scoring", "metrics",
                    "policies", "engine")


# the game's forward model and play loop (model/forward.py): new_state(config, seed, log=None)
# and play_game(config, policies, seed, log=None), documented there
FORWARD = ForwardGame(start, POLICIES)
new_state = FORWARD.new_state
play_game = FORWARD.play_game


def study_sections() -> tuple[StudySection, ...]:
    """The report's Rattus sections (``study.py``), imported only when a report is built."""
    from analyzer.games.rattus.study import SECTIONS

    return SECTIONS


# The built-in table each *_file rule option replaces (the report shows what a user's file changes)
_DATA = Path(__file__).resolve().parent / "data"
TABLES = {
    "map_file": _DATA / "map.toml",
    "tokens_file": _DATA / "tokens.toml",
    "region_cards_file": _DATA / "region_cards.toml",
}


SPEC = GameSpec(
    name="rattus",
    players=PLAYERS,
    rules_version=RULES_VERSION,
    make_config=make_config,
    play_game=play_game,
    policies=POLICIES,
    game_columns=GAME_COLUMNS,
    seat_columns=SEAT_COLUMNS,
    rule_values=config_rule_values,
    options=OPTIONS,
    content={"cards": CARD_NAMES},
    ablations=ablations,
    title="Rattus (+ Africanus)",
    item_kind="class card",
    sections=study_sections,
    benchmark=Benchmark(players=4, expansions=("africanus",), targets={"greedy": 750.0}, search_seconds=0.5),
    tables=TABLES,
    new_state=new_state,
    guesses=GUESSES,
    content_priors=CONTENT_PRIORS,
    flow=FLOW,
)
