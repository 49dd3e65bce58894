"""Single-observer information-set Monte Carlo tree search (ISMCTS) for any game's forward model.

Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012:
one tree over the deciding seat's information set, for N players. Each iteration

1. determinizes: asks the seat's view for a full state drawn uniformly among those consistent
   with what the seat has seen (``SeatView.determinize``), with fresh chance;
2. selects down the tree with UCB1 among the actions legal in *this* determinization, counting
   each child's availability (how often it could have been chosen) in place of its parent's
   visits;
3. expands one untried action;
4. plays out with the rollout policy (``random`` or the game's ``greedy``), to the end or for
   ``rollout_depth`` decisions followed by the state's ``heuristic_returns()``;
5. backs up each node's reward from the point of view of the seat that moved into it: its win
   share (1/k for a k-way tie, 0 for everyone when nobody wins).

The tree lives for one decision. Every random draw (determinization seeds, tie-breaks, playouts)
comes from the seat's own generator, so records stay reproducible whatever ``--jobs`` or backend.
A game registers ISMCTS by subclassing ``Ismcts`` with its rollout policies in ``ROLLOUTS``.

A game whose legal actions can be too many to search (every subset of a hand) may give its
states and views a ``search_actions()`` method: a few of the legal actions, the ones the tree
then branches on (an action abstraction; playouts still use the full game).
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from analyzer.games.base import param
from analyzer.games.forward import GameState, Player, SeatView

ROLLOUT_KINDS = ("random", "greedy")


class _Node:
    """One tree node: the action that led here was taken by ``mover``."""

    __slots__ = ("avail", "children", "mover", "n", "w")

    def __init__(self, mover: int):
        self.mover = mover
        self.n = 0  # visits
        self.w = 0.0  # summed reward of ``mover``
        self.avail = 0  # iterations in which this node's action was legal at its parent
        self.children: dict[Hashable, _Node] = {}


@dataclass(frozen=True)
class Ismcts:
    """Search player: single-observer ISMCTS over the game's forward model (Cowling et al. 2012).

    Each decision runs ``iterations`` determinize–select–expand–playout–backup iterations from
    the seat's information set and plays the most visited action. Strength grows with
    ``iterations``; so does time (about ``iterations`` × one playout per decision).
    """

    iterations: int = param(200, low=1, high=1_000_000, help="search iterations per decision (iterations)")
    exploration: float = param(0.7, low=0, high=10,
                               help="UCB1 exploration constant c; rewards are win shares in [0, 1] (dimensionless)")
    rollout: str = field(default="random", metadata={
        "help": "playout policy: random, or the game's greedy", "choices": ROLLOUT_KINDS})
    rollout_depth: int = param(0, low=0, high=100_000,
                               help="decisions played out before the heuristic evaluation, 0 = to the end (decisions)")

    # the game's playout policies by rollout kind; set by each game's subclass
    ROLLOUTS: ClassVar[Mapping[str, type]] = {}

    def __post_init__(self):
        if self.rollout not in ROLLOUT_KINDS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUT_KINDS)} (got {self.rollout!r})")
        if self.rollout not in self.ROLLOUTS:
            raise ValueError(f"rollout {self.rollout!r} is not available for this game "
                             f"(allowed: {', '.join(self.ROLLOUTS) or 'none'})")

    def player(self, seat: int) -> IsmctsPlayer:
        """A fresh searcher for ``seat`` of one game."""
        return IsmctsPlayer(self, seat)


class IsmctsPlayer:
    """The per-seat, per-game searcher of an ``Ismcts`` policy (see there)."""

    __slots__ = ("last_root", "policy", "rollout_players", "seat")

    def __init__(self, policy: Ismcts, seat: int):
        self.policy = policy
        self.seat = seat
        self.rollout_players: list[Player] | None = None
        self.last_root: _Node | None = None  # the last decision's tree, for tests and the log

    def _playout_players(self, n_players: int) -> list[Player]:
        if self.rollout_players is None:
            pol = self.policy.ROLLOUTS[self.policy.rollout]()
            self.rollout_players = [pol.player(s) for s in range(n_players)]
        return self.rollout_players

    def choose(self, view: SeatView, rng: random.Random) -> Hashable:
        """The most visited root action after ``iterations`` iterations (ties: higher mean
        reward, then the earlier legal action); a forced answer (one action) without searching."""
        legal = _actions(view)
        if len(legal) == 1:
            self.last_root = None
            return legal[0]
        pol = self.policy
        c = pol.exploration
        depth_cap = pol.rollout_depth
        players = self._playout_players(view.n_players)
        root = _Node(-1)
        for _ in range(pol.iterations):
            state = view.determinize(rng.getrandbits(63))
            path = _descend(root, state, c, rng)
            depth = 0
            while not state.is_terminal() and (depth_cap == 0 or depth < depth_cap):
                s = state.current_seat()
                state.apply(players[s].choose(state.view(s), rng))
                depth += 1
            reward = state.returns() if state.is_terminal() else state.heuristic_returns()
            for node in path:
                node.n += 1
                node.w += reward[node.mover]
        self.last_root = root
        ranked = sorted(((a, root.children[a]) for a in legal if a in root.children),
                        key=lambda item: (-item[1].n, -(item[1].w / item[1].n if item[1].n else 0.0)))
        if not ranked:  # no iteration reached the root's children (iterations >= 1 prevents it)
            return legal[0]
        if view.log is not None:
            top = ", ".join(f"{view.describe_action(a)}: {nd.n} visits, mean {nd.w / nd.n:.2f}"
                            for a, nd in ranked[:3])
            view.log(f"    ismcts seat {self.seat} ({pol.iterations} iterations): {top}")
        return ranked[0][0]


def _actions(state: Any) -> tuple:
    """The actions the tree branches on: ``search_actions()`` when the game offers it."""
    search = getattr(state, "search_actions", None)
    return search() if search is not None else state.legal_actions()


def _descend(root: _Node, state: GameState, c: float, rng: random.Random) -> list[_Node]:
    """Select and expand (steps 2–3) in place on ``state``; returns the nodes entered, root excluded."""
    node = root
    path: list[_Node] = []
    while not state.is_terminal():
        actions = _actions(state)
        mover = state.current_seat()
        children = node.children
        untried = []
        for a in actions:
            child = children.get(a)
            if child is None:
                untried.append(a)
            else:
                child.avail += 1
        if untried:
            a = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
            child = _Node(mover)
            child.avail = 1
            children[a] = child
            state.apply(a)
            path.append(child)
            return path
        best: Any = None
        best_value = -math.inf
        for a in actions:
            child = children[a]
            value = child.w / child.n + c * math.sqrt(math.log(child.avail) / child.n)
            if value > best_value:
                best, best_value = a, value
        state.apply(best)
        node = children[best]
        path.append(node)
    return path
