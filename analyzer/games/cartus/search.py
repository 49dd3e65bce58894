"""The ``ismcts`` player of Rattus Cartus and the game's policy registry.

Not compiled (setup.py): ``Ismcts`` (``games/ismcts.py``) is plain Python, and its subclass here
names the playout policies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from analyzer.games.cartus.policies import POLICIES as HEURISTICS
from analyzer.games.cartus.policies import Greedy, Random
from analyzer.games.ismcts import Ismcts


@dataclass(frozen=True)
class CartusIsmcts(Ismcts):
    """Search player: single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) over the Cartus
    forward model, from what its seat may see.

    Each decision runs ``iterations`` determinize–select–expand–playout–backup iterations and
    plays the most visited answer; playouts use the ``random`` or ``greedy`` policy.
    """

    ROLLOUTS: ClassVar = {"random": Random, "greedy": Greedy}


POLICIES: dict[str, type] = {**HEURISTICS, "ismcts": CartusIsmcts}
