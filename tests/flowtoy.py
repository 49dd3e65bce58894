"""A race of ``rounds`` rounds as a forward model, with a ``Flow``: games whose quality findings
are known in advance (issue #36).

Every round each seat in turn says ``go`` or ``wait`` (it changes nothing); at the round's end
points are scored by the rule option ``mode``:

- ``steady``: seat 0 scores 2, every other seat 1. Seat 0 leads from the first round to the end:
  no lead change, decided after round 1 (``decided_at`` = 1/R), no comeback, no drama, never
  close (margin R > 1).
- ``coin``: seat 0 scores 1 in every round but the last; in the last a coin (the chance stream)
  gives one seat R points. Seat 0 wins when the coin falls on it, else the coin's seat wins
  with the last round: then one lead change, decided at the end (``decided_at`` = 1), a
  comeback, a close finish (margin 1 with 2 seats) and drama = mean over t < R of
  ``tanh(t / 2)`` (the estimate is a softmax of the scores).
- ``tie``: every seat scores 1 per round; the tie-break (the seat nearest the start) decides.
- ``elim``: as ``steady``, but the last seat is out from the end of round 1 (scores nothing
  more): eliminated = 1/n of the seats, sitting out the R − 1 checkpoints before the end.

The game record's ``coin`` column is the coin's seat (-1 without a coin).
"""

from __future__ import annotations

from dataclasses import dataclass

from toybase import Coin, First, OpenState, softmax

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

MODES = ("steady", "coin", "tie", "elim")
ACTIONS = ("go", "wait")


@dataclass(frozen=True)
class RaceConfig:
    n_players: int
    rounds: int
    mode: str


class RaceState(OpenState):
    """A race in progress: scores, the rounds completed, whose turn."""

    KIND, ACTIONS = "race", ACTIONS

    def __init__(self, cfg: RaceConfig, chance):
        self.cfg, self.rng, self.n = cfg, chance, cfg.n_players
        self.round = 0  # rounds completed
        self.to_move = 0
        self.scores = [0] * self.n
        self.coin = -1

    def is_terminal(self) -> bool:
        return self.round >= self.cfg.rounds

    def act(self, action) -> None:
        self.to_move += 1
        if self.to_move == self.n:
            self._score()
            self.round += 1
            self.to_move = 0

    def _score(self) -> None:
        mode, last = self.cfg.mode, self.round == self.cfg.rounds - 1
        if mode in ("steady", "elim"):
            for s in range(self.n):
                if not (mode == "elim" and s == self.n - 1 and self.round >= 1):
                    self.scores[s] += 2 if s == 0 else 1
        elif mode == "tie":
            self.scores = [x + 1 for x in self.scores]
        elif last:  # coin
            self.coin = self.rng.randrange(self.n)
            self.scores[self.coin] += self.cfg.rounds
        else:
            self.scores[0] += 1

    def out(self) -> tuple[bool, ...]:
        gone = self.cfg.mode == "elim" and self.round >= 1
        return tuple(gone and s == self.n - 1 for s in range(self.n))

    def returns(self) -> tuple[float, ...]:
        alive = [0.0 if o else 1.0 for o in self.out()]
        _, won = rank_and_won([float(x) for x in self.scores], [alive, [-s for s in range(self.n)]])
        return tuple(won)

    def heuristic_returns(self) -> tuple[float, ...]:
        return softmax(self.scores)

    def records(self, names) -> tuple[dict, list[dict]]:
        won = self.returns()
        ranks, _ = rank_and_won(list(won))
        return self.rows(names, self.scores, won, ranks, self.round, "flowtoy-1", coin=self.coin)

    def clone(self) -> RaceState:
        other = RaceState(self.cfg, self.rng)
        other.round, other.to_move, other.scores, other.coin = (self.round, self.to_move,
                                                                list(self.scores), self.coin)
        return other


POLICIES = {"go": First, "random": Coin}
PLAYERS = PlayerCounts("flowtoy", 2, 4)
OPTIONS = OptionSet("flowtoy", (
    Option("rounds", 6, int, "rule 1", "rounds in a game", low=1, high=50),
    Option("mode", "steady", str, "rule 2", "how points are scored", choices=MODES),
))


def make_config(players, expansions, rules):
    PLAYERS.check(players, expansions)
    opts = OPTIONS.resolve(players, rules)
    return RaceConfig(players, opts["rounds"], opts["mode"])


def start(cfg, chance, seed, log=None):
    return RaceState(cfg, chance)


def rule_values(config):
    return [RuleValue("rounds", config.rounds, "default", "flowtoy rule 1"),
            RuleValue("mode", config.mode, "default", "flowtoy rule 2")]


FORWARD = ForwardGame(start, POLICIES)
FLOW = Flow(rounds_done=lambda st: st.round, scores=lambda st: st.scores,
            estimate=lambda st: st.heuristic_returns(), close_margin=1.0,
            out=lambda st: st.out(), round_name="round")

SPEC = GameSpec(
    name="flowtoy", players=PLAYERS, rules_version="flowtoy-1", make_config=make_config,
    play_game=FORWARD.play_game, policies=POLICIES,
    game_columns={**COMMON_GAME_COLUMNS, "coin": "int64"}, seat_columns=dict(COMMON_SEAT_COLUMNS),
    rule_values=rule_values, options=OPTIONS, new_state=FORWARD.new_state, flow=FLOW)
