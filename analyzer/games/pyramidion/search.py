"""The search player of Pyramidion: ISMCTS (model/ismcts.py) over the forward model (engine.py).

Not compiled (a subclass of the generic, interpreted ``Ismcts``); the playouts it runs call
the compiled engine and policies. ``POLICIES`` here is the game's whole policy registry: the
heuristic players of policies.py plus ``ismcts``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from analyzer.games.pyramidion.engine import LEAF_GOOD, LEAF_SCALE, LEAF_TILE
from analyzer.games.pyramidion.policies import POLICIES as HEURISTIC_POLICIES
from analyzer.games.pyramidion.policies import GreedyPolicy, RandomPolicy
from analyzer.model.base import param, param_default
from analyzer.model.ismcts import Ismcts, tuned_rollout

TUNED = Path(__file__).resolve().parent / "greedy-tuned.toml"  # = scenarios/tuned/pyramidion-greedy.toml


@dataclass(frozen=True)
class PyramidionIsmcts(Ismcts):
    """Search player: single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) over the rules.

    Each decision compares the seat's options on up to ``iterations`` worlds drawn among those
    its seat cannot tell apart (other hands, deck orders and, under the hidden-goods/boats
    options, the other seats' goods and boats redrawn): each option is played, every seat plays
    on as the tuned greedy (``rollout``) for ``rollout_depth`` decisions (about half a
    round at 4 players), and the position is scored by VP, goods and slave-driver tiles
    (``heuristic_returns`` at ``leaf_good``, ``leaf_tile``, ``leaf_scale``). The greedy's own
    choice is tried first and favoured (``prior``); it plays the most visited option.
    """

    iterations: int = param_default(Ismcts, "iterations", 16)
    rollout: str = param_default(Ismcts, "rollout", "tuned")  # type: ignore[arg-type]
    rollout_depth: int = param_default(Ismcts, "rollout_depth", 40)
    # always searched: searching only close decisions lost 7.8 pp at close = 1.25 (README, issue #37)
    close: float = param_default(Ismcts, "close", math.inf)

    leaf_good: float = param(LEAF_GOOD, low=0, high=5, help="leaf estimate: VP per good held (VP)")
    leaf_tile: float = param(LEAF_TILE, low=0, high=5, help="leaf estimate: VP per slave-driver tile held (VP)")
    leaf_scale: float = param(LEAF_SCALE, low=0.05, high=50,
                              help="softmax scale of the leaf estimate: a seat this many VP ahead is e times "
                                   "as likely to win (VP)")

    ROLLOUTS: ClassVar[Mapping[str, object]] = {"random": RandomPolicy, "greedy": GreedyPolicy,
                                                "tuned": tuned_rollout(GreedyPolicy, TUNED)}

    def leaf_returns(self, state):
        """``heuristic_returns`` at ``leaf_good``, ``leaf_tile`` and ``leaf_scale``."""
        return state.heuristic_returns(self.leaf_good, self.leaf_tile, self.leaf_scale)


POLICIES: dict[str, type] = {**HEURISTIC_POLICIES, "ismcts": PyramidionIsmcts}
