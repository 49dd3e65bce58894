"""The Rattus search player: single-observer ISMCTS (``analyzer.model.ismcts``) over the forward model.

Not compiled (setup.py): ``Ismcts`` is an ordinary Python dataclass, and the search's time goes to
the compiled engine (``engine.Game.apply``, ``clone``, ``determinize``) and rollout players.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from analyzer.games.rattus.engine import HEURISTIC_SCALE
from analyzer.games.rattus.policies import GreedyPolicy, RandomPolicy
from analyzer.model.base import param, param_default
from analyzer.model.ismcts import Ismcts, tuned_rollout

TUNED = Path(__file__).resolve().parent / "greedy-tuned.toml"  # = scenarios/tuned/rattus-greedy.toml


@dataclass(frozen=True)
class RattusIsmcts(Ismcts):
    """Search player: information-set Monte Carlo tree search over the forward model (Cowling et al. 2012).

    At each decision it compares its options on up to ``iterations`` worlds drawn from what its
    seat can see (hidden tokens and region cards redrawn, ``determinize``): each option is played,
    then every seat plays on as the tuned greedy (``rollout``) for ``rollout_depth`` decisions,
    and each seat's win share is estimated as if the final plague struck now
    (``heuristic_returns`` at ``leaf_scale``). The greedy's own choice is tried first and favoured
    (``prior``); it plays the most visited option and logs its top options in the replay log.
    Where the greedy's choice is clear (its ``lead`` above ``close`` points) it plays that
    choice without searching.
    """

    iterations: int = param_default(Ismcts, "iterations", 15)
    rollout: str = param_default(Ismcts, "rollout", "tuned")  # type: ignore[arg-type]
    rollout_depth: int = param_default(Ismcts, "rollout_depth", 14)
    # search only where the tuned greedy's lead is at most 0.3 points (about 57 % of the
    # decisions are then not searched; README, issue #37)
    close: float = param_default(Ismcts, "close", 0.3)
    leaf_scale: float = param(HEURISTIC_SCALE, low=0.05, high=50,
                              help="softmax scale of the leaf estimate: a seat this many points ahead is e times "
                                   "as likely to win (points)")

    ROLLOUTS: ClassVar = {"random": RandomPolicy, "greedy": GreedyPolicy,
                          "tuned": tuned_rollout(GreedyPolicy, TUNED)}

    def leaf_returns(self, state):
        """``heuristic_returns`` at ``leaf_scale``."""
        return state.heuristic_returns(self.leaf_scale)
