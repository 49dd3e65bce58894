"""A three-seat race with a planted kingmaker, as a forward model with a ``Flow``: games whose
``quality:kingmaking`` is known in advance (issue #36).

Every round each seat in turn says ``a`` or ``b``; at the round's end seats 0 and 1 score one
point each and seat 2 none, so seat 2 (the kingmaker) can never win: its estimated win share
(a softmax of the scores) is below 5 % from round 3 on. The rule option ``mode``:

- ``planted``: in the last round a coin (the chance stream) is drawn, and the bonus point goes
  to seat 0 when seat 2's last answer "agrees" with the coin (``a`` with heads, ``b`` with
  tails), else to seat 1. Seat 2's last choice always decides which of the other two wins,
  given the same coin: with every one of its choices tried (common random numbers) every game
  is kingmade. Without the same coin a changed choice would change the winner only half the
  time.
- ``null``: no bonus; the tie of seats 0 and 1 goes to the seat nearest the start (seat 0),
  so nobody's choice can change the winner: no game is kingmade (seat 2's choices from round
  4 on are tried and change nothing; seat 1's estimate stays near one half, so it is never out
  of contention).

The game record's ``coin`` column is the coin (0 heads, 1 tails; -1 without a coin).
"""

from __future__ import annotations

from dataclasses import dataclass

from toybase import Coin, OpenState, softmax

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
from analyzer.model.flow import Flow
from analyzer.model.forward import ForwardGame

MODES = ("planted", "null")
ACTIONS = ("a", "b")
N = 3


@dataclass(frozen=True)
class KingConfig:
    n_players: int
    rounds: int
    mode: str


class KingState(OpenState):
    """A race in progress: scores, the rounds completed, whose turn, seat 2's last answer."""

    KIND, ACTIONS = "say", ACTIONS

    def __init__(self, cfg: KingConfig, chance):
        self.cfg, self.rng, self.n = cfg, chance, cfg.n_players
        self.round = 0
        self.to_move = 0
        self.scores = [0] * self.n
        self.coin = -1
        self.said = ""

    def is_terminal(self) -> bool:
        return self.round >= self.cfg.rounds

    def act(self, action) -> None:
        if self.to_move == 2:
            self.said = action
        self.to_move += 1
        if self.to_move == self.n:
            self.scores[0] += 1
            self.scores[1] += 1
            if self.cfg.mode == "planted" and self.round == self.cfg.rounds - 1:
                self.coin = self.rng.randrange(2)
                agree = (self.said == "a") == (self.coin == 0)
                self.scores[0 if agree else 1] += 1
            self.round += 1
            self.to_move = 0

    def returns(self) -> tuple[float, ...]:
        _, won = rank_and_won([float(x) for x in self.scores], [[-s for s in range(self.n)]])
        return tuple(won)

    def heuristic_returns(self) -> tuple[float, ...]:
        return softmax(self.scores)

    def records(self, names) -> tuple[dict, list[dict]]:
        won = self.returns()
        ranks, _ = rank_and_won(list(won))
        return self.rows(names, self.scores, won, ranks, self.round, "kingtoy-1", coin=self.coin)

    def clone(self) -> KingState:
        rng = type(self.rng)()
        rng.setstate(self.rng.getstate())
        other = KingState(self.cfg, rng)
        other.round, other.to_move, other.scores, other.coin, other.said = (
            self.round, self.to_move, list(self.scores), self.coin, self.said)
        return other


POLICIES = {"random": Coin}
PLAYERS = PlayerCounts("kingtoy", N, N)
OPTIONS = OptionSet("kingtoy", (
    Option("rounds", 6, int, "rule 1", "rounds in a game", low=1, high=50),
    Option("mode", "planted", str, "rule 2", "whether seat 2 decides the winner", choices=MODES),
))


def make_config(players, expansions, rules):
    PLAYERS.check(players, expansions)
    opts = OPTIONS.resolve(players, rules)
    return KingConfig(players, opts["rounds"], opts["mode"])


def start(cfg, chance, seed, log=None):
    return KingState(cfg, chance)


def rule_values(config):
    return [RuleValue("rounds", config.rounds, "default", "kingtoy rule 1"),
            RuleValue("mode", config.mode, "default", "kingtoy rule 2")]


FORWARD = ForwardGame(start, POLICIES)
FLOW = Flow(rounds_done=lambda st: st.round, scores=lambda st: st.scores,
            estimate=lambda st: st.heuristic_returns(), close_margin=1.0, round_name="round")

SPEC = GameSpec(
    name="kingtoy", players=PLAYERS, rules_version="kingtoy-1", make_config=make_config,
    play_game=FORWARD.play_game, policies=POLICIES,
    game_columns={**COMMON_GAME_COLUMNS, "coin": "int64"}, seat_columns=dict(COMMON_SEAT_COLUMNS),
    rule_values=rule_values, options=OPTIONS, new_state=FORWARD.new_state, flow=FLOW)
