"""A toy game with known balance answers, for ``analyzer balance`` tests.

Each seat's score is ``factor × (gain + u) + offset × 2v`` with ``u`` and ``v`` uniform on
[0, 1) from the game's chance stream, and the start player (seat 0) gets ``lead`` more, where

    lead = edge + 0.1 × (steps − 5) − 0.1 × lag + (bonus − 0.1)

and ``bonus`` is the ``value`` of the entry ``start`` of the content table ``bonus`` (the rule
option ``bonus_file`` replaces it). The highest score wins. So:

- the start player's advantage (finding ``first_player:base``) is 0 exactly when ``lead`` is 0
  (all seats are then alike): at ``edge = 0`` with ``steps = 5`` and ``bonus = 0.1``, at
  ``steps = 5`` with ``edge = 0`` ..., whichever one is varied;
- a variant with ``factor = 2`` changes the mean score by ``gain + 0.5`` (``score:VARIANT``), a
  variant with ``offset = 1.5`` by 1.5 (``2v`` has mean 1): the two are equal at ``gain = 1``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from analyzer.errors import RuleError
from analyzer.model.base import (
    COMMON_GAME_COLUMNS,
    COMMON_SEAT_COLUMNS,
    GameSpec,
    Option,
    OptionSet,
    PlayerCounts,
    RuleValue,
    game_streams,
    rank_and_won,
)

BONUS = Path(__file__).parent / "data" / "balancetoy-bonus.toml"

# Set by tests to interrupt a sequential run at the n-th game played in this process.
INTERRUPT_AFTER: list[int] = []


@dataclass(frozen=True)
class Config:
    players: int
    lead: float
    gain: float
    offset: float
    factor: float


@dataclass(frozen=True)
class Plain:
    """Plays nothing: the dice decide."""


PLAYERS = PlayerCounts("balancetoy", 2, 4)
OPTIONS = OptionSet("balancetoy", (
    Option("edge", 0.1, float, "rule 1", "the start player's extra score (points)", low=-0.5,
           high=0.5),
    Option("steps", 8, int, "rule 2", "steps of 0.1 point from 5 added to the start player",
           low=0, high=10),
    Option("gain", 1.0, float, "rule 3", "points every seat gets before the factor", low=0,
           high=5),
    Option("offset", 0.0, float, "rule 4", "points every seat gets after the factor", low=-5,
           high=5),
    Option("factor", 1.0, float, "rule 5", "multiplies every seat's score", low=0.5, high=4),
    Option("lag", 0, int, "rule 8", "steps of 0.1 point taken from the start player", low=0,
           high=4),
    Option("bonus_file", None, Path, "rule 6", "TOML table replacing the built-in bonus table"),
    Option("mode", "plain", str, "rule 7", "a text option", choices=("plain", "fancy")),
    Option("max_rolls", 100, int, "rule 9", "a simulator guard: a cap the game never reaches",
           low=1, high=1000, guard=True),
))


def _bonus(path: str | Path) -> float:
    try:
        data = tomllib.loads(Path(path).read_text())
        entry = next(e for e in data["bonus"] if e["name"] == "start")
        value = entry["value"]
    except (OSError, tomllib.TOMLDecodeError, KeyError, StopIteration, TypeError) as err:
        raise RuleError("bonus_file", f"{path}: not a bonus table ({err})") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1 <= value <= 1:
        raise RuleError("bonus_file", f"{path}: bonus 'start': value must be a number in "
                                      f"-1..1 (got {value!r})")
    return float(value)


def make_config(players, expansions, rules):
    PLAYERS.check(players, expansions)
    opts = OPTIONS.resolve(players, rules)
    bonus = _bonus(opts["bonus_file"] or BONUS)
    lead = opts["edge"] + 0.1 * (opts["steps"] - 5) - 0.1 * opts["lag"] + (bonus - 0.1)
    return Config(players, lead, opts["gain"], opts["offset"], opts["factor"])


def play_game(config, policies, seed, log=None):
    n = config.players
    if INTERRUPT_AFTER:
        INTERRUPT_AFTER[0] -= 1
        if INTERRUPT_AFTER[0] < 0:
            raise KeyboardInterrupt
    chance, _ = game_streams(seed, n)
    u = [chance.random() for _ in range(n)]
    v = [chance.random() for _ in range(n)]
    scores = [config.factor * (config.gain + u[s]) + config.offset * 2 * v[s]
              + (config.lead if s == 0 else 0.0) for s in range(n)]
    ranks, won = rank_and_won(scores)
    game = {"n_players": n, "rounds": 1, "end": "trigger",
            "winner_seats": ",".join(str(s) for s in range(n) if ranks[s] == 1),
            "rules_version": "balancetoy-1"}
    seats = [{"seat": s, "policy": type(policies[s]).__name__, "score": scores[s],
              "rank": ranks[s], "won": won[s], "start_position": s} for s in range(n)]
    return game, seats


def rule_values(config):
    return [RuleValue("edge", config.lead, "default", "balancetoy rule 1")]


SPEC = GameSpec(
    name="balancetoy",
    players=PLAYERS,
    rules_version="balancetoy-1",
    make_config=make_config,
    play_game=play_game,
    policies={"plain": Plain},
    game_columns=dict(COMMON_GAME_COLUMNS),
    seat_columns=dict(COMMON_SEAT_COLUMNS),
    rule_values=rule_values,
    options=OPTIONS,
    tables={"bonus_file": BONUS},
)
