"""A tiny seeded game for pipeline tests: each seat rolls dice; a policy parameter biases it.

It follows the ``GameSpec`` contract of ``analyzer/model/base.py`` and carries the columns of
Rattus's own report sections (``sultan_points``, ``diplomats_surviving``, ``caravan_*``,
``class_cards``) and declares those sections, so a game's sections run through the whole
pipeline without a real engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.model.base import (
    COMMON_GAME_COLUMNS,
    COMMON_SEAT_COLUMNS,
    GameSpec,
    Option,
    OptionSet,
    PlayerCounts,
    RuleValue,
    game_streams,
    param,
    rank_and_won,
)
from analyzer.report.extension import StudySection

CARDS = ("peasant", "merchant", "sultan", "trader")

# Set by tests to interrupt a sequential run at the n-th game played in this process.
INTERRUPT_AFTER: list[int] = []


@dataclass(frozen=True)
class ToyConfig:
    players: int
    sides: int
    cards: tuple[str, ...]
    tie_to_start: bool = True
    africanus: bool = True  # as Rattus's config: the card sections' plan reads these two

    @property
    def class_cards(self) -> tuple[str, ...]:
        """The cards in play, under Rattus's name (the card sections' ``plan`` reads it)."""
        return self.cards


@dataclass(frozen=True)
class RandomPolicy:
    """Rolls plain dice."""


@dataclass(frozen=True)
class Biased:
    """Adds ``boost`` × sides points with probability ``chance``."""

    boost: float = param(0.5, low=0, high=5, help="share of one die added (dice)")
    chance: float = param(0.5, low=0, high=1, help="probability of the bonus (probability)")
    label: str = "x"


POLICIES = {"random": RandomPolicy, "biased": Biased}


PLAYERS = PlayerCounts("toy", 2, 4, expansions=("bonus",), raised={"bonus": 5})
OPTIONS = OptionSet("toy", (
    Option("sides", 6, int, "rule 1", "dice sides", low=2, high=20),
    Option("cards", ("peasant", "sultan", "trader"), list, "rule 2", "cards in play", item=str, choices=CARDS),
    Option("tie_to_start", True, bool, "rule 3", "a tie on score goes to the seat nearest the start"),
))


def make_config(players, expansions, rules):
    PLAYERS.check(players, expansions)
    opts = OPTIONS.resolve(players, rules)
    return ToyConfig(players, opts["sides"], opts["cards"], opts["tie_to_start"])


def play_game(config, policies, seed, log=None):
    n = config.players
    chance, seat_rngs = game_streams(seed, n)
    if INTERRUPT_AFTER:
        INTERRUPT_AFTER[0] -= 1
        if INTERRUPT_AFTER[0] < 0:
            raise KeyboardInterrupt
    sultan = "sultan" in config.cards
    trader = "trader" in config.cards
    base = [sum(chance.randint(1, config.sides) for _ in range(2)) for _ in range(n)]
    diplomats = [chance.randint(0, 3) if sultan else 0 for _ in range(n)]
    moves = [chance.randint(0, 2) if trader else 0 for _ in range(n)]
    own = [m * chance.randint(0, 1) for m in moves]
    given = [m - o for m, o in zip(moves, own)]
    received = [0] * n
    for s in range(n):
        received[(s + 1) % n] += given[s]
    cubes = []
    for s in range(n):
        pol = policies[s]
        bonus = 0
        if isinstance(pol, Biased) and seat_rngs[s].random() < pol.chance:
            bonus = round(pol.boost * config.sides)
        cubes.append(base[s] + bonus + own[s] + received[s])
    ranked = sorted({d for d in diplomats if d > 0}, reverse=True)
    sultan_pts = [4 if ranked and d == ranked[0] else (2 if len(ranked) > 1 and d == ranked[1] else 0)
                  for d in diplomats]
    scores = [float(cubes[s] + sultan_pts[s]) for s in range(n)]
    tiebreak = [float(-s) if config.tie_to_start else 0.0 for s in range(n)]
    ranks, won = rank_and_won(scores, [tiebreak])
    if log is not None:
        for s in range(n):
            log(f"seat {s}: cubes {cubes[s]} diplomats {diplomats[s]} score {scores[s]}")
    game = {
        "n_players": n, "rounds": 1, "end": "trigger",
        "winner_seats": ",".join(str(s) for s in range(n) if ranks[s] == 1),
        "rules_version": "toy-1", "class_cards": ",".join(config.cards),
    }
    seats = [
        {
            "seat": s, "policy": type(policies[s]).__name__, "score": scores[s], "rank": ranks[s],
            "won": won[s], "start_position": s, "diplomats_surviving": diplomats[s], "sultan_points": sultan_pts[s],
            "caravan_moves": moves[s], "caravan_cubes_own": own[s], "caravan_cubes_given": given[s],
            "caravan_cubes_received": received[s], "caravan_cubes_own_surviving": own[s] // 2,
            "caravan_cubes_received_surviving": received[s], "tiebreak": tiebreak[s],
        }
        for s in range(n)
    ]
    return game, seats


def rule_values(config):
    return [
        RuleValue("sides", config.sides, "default", "toy rule 1"),
        RuleValue("cards", config.cards, "rulebook", "toy rule 2"),
        RuleValue("tie_to_start", config.tie_to_start, "default", "toy rule 3"),
    ]


SPEC = GameSpec(
    name="toy",
    players=PLAYERS,
    rules_version="toy-1",
    make_config=make_config,
    play_game=play_game,
    policies=POLICIES,
    game_columns={**COMMON_GAME_COLUMNS, "class_cards": "string"},
    seat_columns={
        **COMMON_SEAT_COLUMNS, "diplomats_surviving": "int64", "sultan_points": "int64",
        "caravan_moves": "int64", "caravan_cubes_own": "int64", "caravan_cubes_given": "int64",
        "caravan_cubes_received": "int64", "caravan_cubes_own_surviving": "int64",
        "caravan_cubes_received_surviving": "int64", "tiebreak": "float64",
    },
    rule_values=rule_values,
    content={"cards": CARDS},
    options=OPTIONS,
    sections=lambda: _study_sections(),
)


def _study_sections() -> tuple[StudySection, ...]:
    from analyzer.games.rattus.study import SECTIONS

    return SECTIONS
