"""The Rattus search player: single-observer ISMCTS (``analyzer.games.ismcts``) over the forward model.

Not compiled (setup.py): ``Ismcts`` is an ordinary Python dataclass, and the search's time goes to
the compiled engine (``engine.Game.apply``, ``clone``, ``determinize``) and rollout players.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from analyzer.games.ismcts import Ismcts
from analyzer.games.rattus.policies import GreedyPolicy, RandomPolicy


@dataclass(frozen=True)
class RattusIsmcts(Ismcts):
    """Search player: information-set Monte Carlo tree search over the forward model (Cowling et al. 2012).

    At each decision it runs ``iterations`` searches from what its seat can see: each redraws the
    hidden tokens and region cards (``determinize``), walks the tree with UCB1, plays the game out
    with ``random`` or ``greedy`` players (``rollout``), for ``rollout_depth`` decisions followed by
    an estimate from the scores (0: to the end), and backs up each seat's win share. It plays the
    most visited option and logs its top options in the replay log.
    """

    ROLLOUTS: ClassVar = {"random": RandomPolicy, "greedy": GreedyPolicy}
