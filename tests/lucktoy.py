"""A one-decision game whose luck share is known in advance (issue #36 item 3).

The deal (the chance stream) gives every seat a draw ``c`` in 0..5; then each seat in turn
picks a number ``a`` in 0..5; its score, by the rule option ``mode``, is

- ``deal``: ``c`` — the deal alone decides (luck share 1 of every outcome);
- ``play``: ``a`` — play alone decides (luck share 0);
- ``mixed``: ``c + a`` — with ``random`` players (``a`` uniform, independent of ``c``) each
  seat's score has between-deal variance ``Var(c) = 35/12`` and within-deal variance
  ``Var(a) = 35/12``: luck share 1/2 of the score.

The highest score wins (a tie for first shares the win, ``1/k`` each). ``first`` always picks
0 and ``high`` always 5 (no randomness of their own); ``random`` picks uniformly from its
seat's stream. In ``play`` mode with two seats ``high`` beats ``random`` with chance 5/6 and
ties with 1/6 (half a win): its win rate is 11/12, ``random``'s 1/12.
"""

from __future__ import annotations

from dataclasses import dataclass

from toybase import Coin, First, Last, OpenState

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

MODES = ("deal", "play", "mixed")
ACTIONS = tuple(range(6))


@dataclass(frozen=True)
class LuckConfig:
    n_players: int
    mode: str


class LuckState(OpenState):
    KIND, ACTIONS = "pick", ACTIONS

    def __init__(self, cfg: LuckConfig, chance):
        self.cfg, self.n = cfg, cfg.n_players
        self.draws = [chance.randrange(6) for _ in range(self.n)]
        self.picks: list[int] = []
        self.to_move = 0

    def is_terminal(self) -> bool:
        return len(self.picks) == self.n

    def act(self, action) -> None:
        self.picks.append(int(action))
        self.to_move += 1

    def scores(self) -> list[float]:
        mode = self.cfg.mode
        return [float((self.draws[s] if mode != "play" else 0)
                      + (self.picks[s] if mode != "deal" else 0)) for s in range(self.n)]

    def returns(self) -> tuple[float, ...]:
        return tuple(rank_and_won(self.scores())[1])

    def heuristic_returns(self) -> tuple[float, ...]:
        return self.returns()

    def records(self, names) -> tuple[dict, list[dict]]:
        score = self.scores()
        ranks, won = rank_and_won(score)
        return self.rows(names, score, won, ranks, 1, "lucktoy-1")

    def clone(self) -> LuckState:
        other = object.__new__(LuckState)
        other.cfg, other.n, other.draws = self.cfg, self.n, list(self.draws)
        other.picks, other.to_move = list(self.picks), self.to_move
        return other


POLICIES = {"first": First, "high": Last, "random": Coin}
PLAYERS = PlayerCounts("lucktoy", 2, 4)
OPTIONS = OptionSet("lucktoy", (
    Option("mode", "mixed", str, "rule 1", "what decides the score", choices=MODES),
))


def make_config(players, expansions, rules):
    PLAYERS.check(players, expansions)
    return LuckConfig(players, OPTIONS.resolve(players, rules)["mode"])


def start(cfg, chance, seed, log=None):
    return LuckState(cfg, chance)


def rule_values(config):
    return [RuleValue("mode", config.mode, "default", "lucktoy rule 1")]


FORWARD = ForwardGame(start, POLICIES)
SPEC = GameSpec(
    name="lucktoy", players=PLAYERS, rules_version="lucktoy-1", make_config=make_config,
    play_game=FORWARD.play_game, policies=POLICIES, game_columns=dict(COMMON_GAME_COLUMNS),
    seat_columns=dict(COMMON_SEAT_COLUMNS), rule_values=rule_values, options=OPTIONS,
    new_state=FORWARD.new_state)

SCENARIO = """\
name = "luck-{mode}"
game = "lucktoy"
players = 2
games = {games}
seed = 5

[rules]
mode = "{mode}"

[[seats]]
policy = "{policy}"

[[seats]]
policy = "{policy}"
"""
