"""Rattus (2010) + Rattus Africanus (2011): rules engine, players and records.

Public interface: ``SPEC`` (the ``GameSpec`` the runner uses), ``default_config``,
``new_state`` (the forward model, ``analyzer.model.forward``), ``play_game`` and ``POLICIES``.
Rules: ``docs/rules/rattus.md`` (sections cited in each function's docstring).
"""

from __future__ import annotations

from analyzer.games.rattus.ablations import ablations
from analyzer.games.rattus.config import (
    CARD_NAMES,
    CONSULTS,
    OPTIONS,
    PLAYERS,
    RULES_VERSION,
    make_config,
)
from analyzer.games.rattus.content import PRIORS as CONTENT_PRIORS
from analyzer.games.rattus.engine import start
from analyzer.games.rattus.flow import FLOW
from analyzer.games.rattus.metrics import GAME_COLUMNS, GUESSES, SEAT_COLUMNS
from analyzer.games.rattus.policies import POLICIES as _HEURISTICS
from analyzer.games.rattus.search import RattusIsmcts
from analyzer.model.base import Benchmark
from analyzer.model.forward import game_spec

# policy registry: the key is a policy's only name
POLICIES: dict[str, type] = {**_HEURISTICS, "ismcts": RattusIsmcts}

# The modules setup.py compiles with mypyc (read there with ast, without importing this package).
COMPILED_MODULES = ("config", "state", "information", "core", "view", "plague", "cards", "scoring", "metrics",
                    "policies", "engine")

SPEC = game_spec(
    __name__, start, POLICIES, OPTIONS,
    name="rattus",
    players=PLAYERS,
    rules_version=RULES_VERSION,
    make_config=make_config,
    game_columns=GAME_COLUMNS,
    seat_columns=SEAT_COLUMNS,
    content={"cards": CARD_NAMES},
    ablations=ablations,
    title="Rattus (+ Africanus)",
    item_kind="class card",
    benchmark=Benchmark(players=4, expansions=("africanus",), targets={"greedy": 750.0}, search_seconds=0.25),
    guesses=GUESSES,
    content_priors=CONTENT_PRIORS,
    flow=FLOW,
    consults=CONSULTS,
)
default_config, new_state, play_game = SPEC.default_config, SPEC.new_state, SPEC.play_game

__all__ = ["POLICIES", "SPEC", "default_config", "make_config", "new_state", "play_game"]
