"""Rattus (2010) + Rattus Africanus (2011): rules engine, players and records.

Public interface: ``SPEC`` (the ``GameSpec`` the runner uses), ``default_config``,
``new_state`` (the forward model, ``analyzer.games.forward``), ``play_game`` and ``POLICIES``.
Rules: ``docs/rules/rattus.md`` (sections cited in each function's docstring).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from analyzer.games.base import (
    Benchmark,
    GameSpec,
    StudySection,
    config_rule_values,
    game_streams,
    resolve_policies,
)
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
from analyzer.games.rattus.engine import Game, new_game, play_out
from analyzer.games.rattus.metrics import GAME_COLUMNS, GUESSES, SEAT_COLUMNS
from analyzer.games.rattus.policies import POLICIES as _HEURISTICS
from analyzer.games.rattus.search import RattusIsmcts

# policy registry: the key is a policy's only name
POLICIES: dict[str, type] = {**_HEURISTICS, "ismcts": RattusIsmcts}

__all__ = ["POLICIES", "SPEC", "RattusConfig", "default_config", "make_config", "new_state", "play_game"]

# The modules setup.py compiles with mypyc (read there with ast, without importing this package).
COMPILED_MODULES = ("config", "state", "information", "core", "view", "plague", "cards", "scoring", "metrics",
                    "policies", "engine")


def _registry_name(policy: Any) -> str:
    """A policy object's name: its key in ``POLICIES`` (a policy's only name), else its class name."""
    for key, cls in POLICIES.items():
        if type(policy) is cls:
            return key
    return type(policy).__name__


def new_state(config: RattusConfig, seed: int | np.random.SeedSequence,
              log: Callable[[str], None] | None = None) -> Game:
    """A new game paused at its first decision: the forward model (``analyzer.games.forward``).

    Parameters
    ----------
    config : RattusConfig
    seed : int or numpy.random.SeedSequence
        Same meaning as ``play_game``'s: the same seed deals the same game.
    log : callable or None
        Receives the readable replay log line by line.
    """
    return new_game(config, seed, log)


def play_game(config: RattusConfig, policies: Any, seed: int | np.random.SeedSequence,
              log: Callable[[str], None] | None = None) -> tuple[dict, list[dict]]:
    """Play one game and return its records (docs/rules/rattus.md §6–§10).

    Parameters
    ----------
    config : RattusConfig
        From ``make_config`` / ``default_config``.
    policies : str or policy object, or a sequence of them (one per seat)
        A registered name (``"random"``, ``"greedy"``, ``"ismcts"``) or an object with
        ``player(seat)`` (``analyzer.games.forward.Policy``).
    seed : int or numpy.random.SeedSequence
        Same seed and policies give identical records and log.
    log : callable or None
        Receives the readable replay log line by line.

    Returns
    -------
    (dict, list of dict)
        The game record (keys ``GAME_COLUMNS``) and one seat record per seat (``SEAT_COLUMNS``).

    Raises
    ------
    IllegalChoice
        A policy chose an option that was not offered.
    TurnCapExceeded
        More than ``max_turns`` regular turns (message names the seed).
    """
    objs = resolve_policies(POLICIES, policies, config.n_players)
    names = [_registry_name(o) for o in objs]
    rng, seat_rngs = game_streams(seed, config.n_players)
    game = new_game(config, seed, log, names, rng)
    play_out(game, [pol.player(s) for s, pol in enumerate(objs)], list(seat_rngs))  # forward.play, compiled
    return game.records(names)


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
    benchmark=Benchmark(players=4, expansions=("africanus",), targets={"greedy": 300.0}, search_seconds=0.5),
    tables=TABLES,
    new_state=new_state,
    guesses=GUESSES,
)
