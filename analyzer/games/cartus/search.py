"""The ``ismcts`` player of Rattus Cartus and the game's policy registry.

Not compiled (setup.py): ``Ismcts`` (``model/ismcts.py``) is plain Python, and its subclass here
names the playout policies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from analyzer.games.cartus.policies import POLICIES as HEURISTICS
from analyzer.games.cartus.policies import Greedy, Random
from analyzer.model.base import param, param_default
from analyzer.model.ismcts import Ismcts, tuned_rollout

TUNED = Path(__file__).resolve().parent / "greedy-tuned.toml"  # = scenarios/tuned/cartus-greedy.toml


@dataclass(frozen=True)
class CartusIsmcts(Ismcts):
    """Search player: single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) over the Cartus
    forward model, from what its seat may see.

    Each decision compares the seat's answers on up to ``iterations`` worlds: the hidden cards,
    Nun-row and building order dealt anew consistently with what the seat has seen; each answer
    is played, every seat plays on as the tuned greedy (``rollout``) for ``rollout_depth``
    decisions, and the position is scored as it stands (``heuristic_returns``: a softmax of the
    scores at ``leaf_scale`` times the chance of surviving the plague). Card choices are searched
    among a few sets (``view.search_actions``) plus the greedy's own choice, which is tried first
    and favoured (``prior``); it plays the most visited answer.
    """

    iterations: int = param_default(Ismcts, "iterations", 30)
    rollout: str = param_default(Ismcts, "rollout", "tuned")  # type: ignore[arg-type]
    rollout_depth: int = param_default(Ismcts, "rollout_depth", 24)
    # always searched: searching only close decisions lost 20.5 pp at close = 5 VP (README, issue #37)
    close: float = param_default(Ismcts, "close", math.inf)
    # stops once the leader leads by 0.3 x the iterations left: -3.0 pp [-11.9, +5.9] paired on
    # 200 deals at about 0.75x the CPU (README, issue #37)
    settle: float = param_default(Ismcts, "settle", 0.3)
    leaf_scale: float = param(5.0, low=0, high=100,
                              help="leaf estimate where a playout stops (rollout_depth): a softmax of the scores "
                                   "in units of this many VP times the chance of surviving; 0 = the win shares if "
                                   "scored now (VP)")
    leaf_rats: float = param(0.0, low=0, high=20,
                             help="leaf estimate: rats still expected per seat when judging survival (rats)")

    ROLLOUTS: ClassVar = {"random": Random, "greedy": Greedy, "tuned": tuned_rollout(Greedy, TUNED)}

    def leaf_returns(self, state):
        """``heuristic_returns`` at ``leaf_scale`` and ``leaf_rats``."""
        return state.heuristic_returns(self.leaf_scale, self.leaf_rats)


POLICIES: dict[str, type] = {**HEURISTICS, "ismcts": CartusIsmcts}
