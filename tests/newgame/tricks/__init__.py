"""Tricks: a toy game package, laid out as ``analyzer/games/<game>/`` would be, that
``tests/test_add_a_game.py`` puts on the registry's path to add a game by this folder alone
(docs/architecture.md, "How to add a game").

The engine is the hidden-hand trick-taking game of ``tests/fmtoy.py``: cards ``1..4n`` dealt
four to each seat, four tricks, the highest card takes the trick and leads the next. Here a
seat scores one point a trick plus ``last_trick_bonus`` for the last trick (toy rule 2); the
highest score wins, ties share the win. Rule 1 is the deal (four cards each).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import fmtoy

from analyzer.model.base import (
    COMMON_GAME_COLUMNS,
    COMMON_SEAT_COLUMNS,
    GameSpec,
    Option,
    OptionSet,
    PlayerCounts,
    RuleValue,
    rank_and_won,
)
from analyzer.model.forward import ForwardGame
from analyzer.model.ismcts import Ismcts

RULES_VERSION = "tricks-1"


@dataclass(frozen=True)
class TricksConfig:
    """A resolved table: the player count and the last trick's bonus (points)."""

    n_players: int
    last_trick_bonus: int = 0


class TricksState(fmtoy.TrickState):
    """``fmtoy.TrickState`` scored by this game's rule 2 (tricks + the last trick's bonus)."""

    __slots__ = ("bonus",)

    def clone(self) -> TricksState:
        other = super().clone()
        other.bonus = self.bonus
        return other

    def scores(self) -> list[float]:
        """Each seat's points: its tricks, and the bonus to the last trick's taker."""
        last = self.leader if self.is_terminal() and any(self.tricks) else None
        return [float(t + (self.bonus if s == last else 0)) for s, t in enumerate(self.tricks)]

    def returns(self) -> tuple[float, ...]:
        _, won = rank_and_won(self.scores())
        return tuple(won)

    def records(self, policy_names):
        scores = self.scores()
        ranks, won = rank_and_won(scores)
        game = {"n_players": self.n, "rounds": fmtoy.HAND, "end": "trigger",
                "winner_seats": ",".join(str(s) for s in range(self.n) if ranks[s] == 1),
                "rules_version": RULES_VERSION}
        seats = [{"seat": s, "policy": policy_names[s], "score": scores[s], "rank": ranks[s],
                  "won": won[s], "start_position": s, "tricks": self.tricks[s]}
                 for s in range(self.n)]
        return game, seats


def start(config: TricksConfig, chance, seed, log) -> TricksState:
    """A new game dealt from the chance generator, paused at the first lead."""
    state = TricksState(config.n_players, chance.getrandbits(64), log)
    state.bonus = config.last_trick_bonus
    return state


@dataclass(frozen=True)
class TricksIsmcts(Ismcts):
    """The shared search player on this game's forward model."""

    ROLLOUTS: ClassVar = {"random": fmtoy.RandomPolicy, "greedy": fmtoy.GreedyPolicy}


POLICIES = {"random": fmtoy.RandomPolicy, "greedy": fmtoy.GreedyPolicy, "ismcts": TricksIsmcts}
PLAYERS = PlayerCounts("tricks", 2, 5)
OPTIONS = OptionSet("tricks", (
    Option("last_trick_bonus", 0, int, "toy rule 2", "points for taking the last trick",
           low=0, high=5),
))
GAME = ForwardGame(start, POLICIES)


def make_config(players, expansions, rules) -> TricksConfig:
    """The resolved table; ``RuleError`` for a player count or rule option out of range."""
    PLAYERS.check(players, expansions)
    return TricksConfig(players, OPTIONS.resolve(players, rules)["last_trick_bonus"])


def rule_values(config: TricksConfig) -> list[RuleValue]:
    """The rule values that acted: the deal (rule 1) and the last trick's bonus (rule 2)."""
    return [RuleValue("hand", fmtoy.HAND, "rulebook", "toy rule 1"),
            RuleValue("last_trick_bonus", config.last_trick_bonus, "default", "toy rule 2")]


SPEC = GameSpec(
    name="tricks",
    title="Tricks (a toy game)",
    players=PLAYERS,
    rules_version=RULES_VERSION,
    make_config=make_config,
    play_game=GAME.play_game,
    new_state=GAME.new_state,
    policies=POLICIES,
    game_columns=dict(COMMON_GAME_COLUMNS),
    seat_columns={**COMMON_SEAT_COLUMNS, "tricks": "int64"},
    rule_values=rule_values,
    options=OPTIONS,
    sections=lambda: _sections(),
)


def _sections():
    from .study import SECTIONS

    return SECTIONS
