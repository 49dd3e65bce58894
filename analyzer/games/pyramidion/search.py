"""The search player of Pyramidion: ISMCTS (games/ismcts.py) over the forward model (engine.py).

Not compiled (a subclass of the generic, interpreted ``Ismcts``); the playouts it runs call
the compiled engine and policies. ``POLICIES`` here is the game's whole policy registry: the
heuristic players of policies.py plus ``ismcts``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from analyzer.games.ismcts import ROLLOUT_KINDS, Ismcts
from analyzer.games.pyramidion.policies import POLICIES as HEURISTIC_POLICIES
from analyzer.games.pyramidion.policies import GreedyPolicy, RandomPolicy


@dataclass(frozen=True)
class PyramidionIsmcts(Ismcts):
    """Search player: single-observer ISMCTS (Cowling, Powley & Whitehouse 2012) over the rules.

    Each decision runs ``iterations`` playouts from positions drawn among those its seat cannot
    tell apart (other hands, deck orders and, under the hidden-goods/boats options, the other
    seats' goods and boats redrawn), and plays the action most visited. Playouts use the
    ``greedy`` (default) or ``random`` players for ``rollout_depth`` decisions (default 40, about
    half a round at 4 players; 0: to the end), then score the position by VP, goods and
    slave-driver tiles (``Game.heuristic_returns``). At the defaults it wins most games against
    three greedy players (scenarios/pyramidion-ismcts-vs-greedy.toml) at about 2 s per game.
    """

    iterations: int = field(default=200, metadata={
        "help": "search iterations per decision", "low": 1, "high": 1_000_000})
    exploration: float = field(default=0.7, metadata={
        "help": "UCB1 exploration constant c (rewards are win shares in [0, 1])", "low": 0.0, "high": 10.0})
    rollout: str = field(default="greedy", metadata={
        "help": "playout policy: random, or the game's greedy", "choices": ROLLOUT_KINDS})
    rollout_depth: int = field(default=40, metadata={
        "help": "decisions played out before the heuristic evaluation (0 = to the end)",
        "low": 0, "high": 100_000})

    ROLLOUTS: ClassVar[Mapping[str, type]] = {"random": RandomPolicy, "greedy": GreedyPolicy}


POLICIES: dict[str, type] = {**HEURISTIC_POLICIES, "ismcts": PyramidionIsmcts}
