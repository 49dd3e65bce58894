"""The iteration loop of the search player (``ismcts.py``), compiled with mypyc (setup.py).

``search`` runs one decision's iterations and returns the tree's root; ``ismcts.IsmctsPlayer``
picks the move from it. Kept apart from the policy class (an ordinary dataclass every game
subclasses) so that the loop, which runs for every iteration and every tree step, is compiled
while the policy stays plain Python. Every call into the game (``determinize``, ``clone``,
``apply``, the players' ``choose``) is an ordinary method call on the game's own objects.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Callable
from typing import Any

from analyzer.model.draws import randbelow

NO_HINT: Any = object()  # no hint at a node (an action may itself be None)


class Node:
    """One tree node: the action that led here was taken by ``mover``.

    Attributes
    ----------
    mover : int
        The seat that took the action (-1 at the root).
    n : int
        Visits (iterations that passed through the node).
    w, w2 : float
        Sum and sum of squares of ``mover``'s rewards (win shares) over the visits.
    avail : int
        Iterations in which the node's action was offered at its parent (ISMCTS availability).
    children : dict
        Action -> child node.
    rewards : list of float
        At the root's children only: ``mover``'s reward at each visit, in visit order (the
        ``j``-th in world ``j`` with ``common_worlds``), for a paired comparison of root actions.
    """

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.n = 0
        self.w = 0.0
        self.w2 = 0.0
        self.avail = 0
        self.children: dict[Any, Node] = {}
        self.rewards: list[float] = []


def actions(state: Any) -> tuple:
    """The actions the tree branches on: the state's ``search_actions()`` (forward.py: the legal
    actions, or an action abstraction for decisions with too many legal answers)."""
    out: tuple = state.search_actions()
    return out


def search(view: Any, seat: int, legal: tuple, hint: Any, players: list, rng: random.Random,
           leaf: Callable[[Any], Any], iterations: int, c: float, bias: float, own_only: bool,
           spread: bool, common_worlds: bool, depth_cap: int, tree_depth: int = 0,
           seconds: float = 0.0, settle: float = 1.0) -> Node:
    """Run one decision's iterations (determinize, select, expand, play out, back up).

    Parameters
    ----------
    view : SeatView
        The deciding seat's view; every world is ``view.determinize(seed)``.
    seat : int
        The deciding seat.
    legal : tuple
        The root actions (the seat's own options: the same in every world).
    hint : action or NO_HINT
        The rollout policy's own choice at the root (tried first, biased towards by ``bias``).
    players : list of Player, one per seat
        The rollout players: they play out every seat, and the other seats in the tree when
        ``own_only``.
    rng : random.Random
        The seat's generator: every draw of the search (world seeds, tie-breaks, playouts).
    leaf : callable
        ``leaf(state)`` -> estimated win shares where a playout stops at ``depth_cap``.
    iterations : int
        At most this many iterations; fewer once the most visited root action leads every
        other by more than ``settle`` times the iterations left.
    c : float
        UCB1 exploration constant.
    bias : float
        Progressive bias towards the rollout policy's choice at a node, in units of ``c``
        (added to its value divided by its visits + 1); 0: none, and no hint is asked for.
    own_only : bool
        The other seats' decisions are taken by the rollout players, not searched.
    spread : bool
        Scale exploration by the standard deviation of the rewards seen at the node.
    common_worlds : bool
        The ``j``-th visit of every root action plays world ``j`` (a copy of one determinization
        drawn for that visit number, chance included): root actions are compared on the same
        deals and the same chance. False: a new determinization every iteration.
    depth_cap : int
        Decisions after the root action before ``leaf`` (0: to the end).
    tree_depth : int
        Most tree nodes on an iteration's path (1: the root actions only, every later
        decision the rollout players'; 0: no limit).
    seconds : float
        CPU seconds (``time.process_time``) of the whole search at most, checked after each
        iteration (at least one runs); 0: no limit. A limit makes the number of iterations, and
        so the records, depend on the machine's speed and load.
    settle : float
        The early stop: the search ends once the most visited root action leads the
        runner-up by more than ``settle`` x the iterations left. 1: only once no other action
        can catch up (the choice is then the same as after every iteration); below 1 it
        stops sooner, when the choice has settled though it could still change.

    Returns
    -------
    Node
        The root; its ``n`` is the number of iterations run.
    """
    root = Node(-1)
    worlds: list[Any] = []
    total = iterations
    it = 0
    deadline = time.process_time() + seconds if seconds > 0.0 else 0.0
    # the search's copies are freed by reference counting, but their many lists would set off
    # the cyclic collector every few hundred allocations (over the whole heap, in time): it is
    # paused for the search, and any cyclic garbage waits until it ends (the same records)
    collecting = gc.isenabled()
    gc.disable()
    try:
        while it < total:
            a, child = select(root, legal, hint, seat, c, bias, spread, rng)
            if common_worlds:
                j = child.n  # this action's visits so far
                while len(worlds) <= j:
                    worlds.append(view.determinize(rng.getrandbits(63)))
                state = worlds[j].clone()
            else:
                state = view.determinize(rng.getrandbits(63))
            state.apply(a)
            path = [child]
            depth = 0 if tree_depth == 1 else descend(child, state, seat, c, bias, own_only, spread, players, rng,
                                                      path, tree_depth)
            while not state.is_terminal() and (depth_cap == 0 or depth < depth_cap):
                s: int = state.current_seat()
                state.apply(players[s].choose(state.view(s), rng))
                depth += 1
            reward = state.returns() if state.is_terminal() else leaf(state)
            for node in path:
                r: float = reward[node.mover]
                node.n += 1
                node.w += r
                node.w2 += r * r
            child.rewards.append(reward[seat])
            it += 1
            if deadline > 0.0 and time.process_time() >= deadline:
                break
            # stop once the most visited root action leads by more than settle x the iterations left
            # (settle = 1: no other can catch up, the choice is the same); the lead is at most it
            left = total - it
            if it <= settle * left:
                continue
            first = 0
            second = 0
            for ch in root.children.values():
                if ch.n > first:
                    second = first
                    first = ch.n
                elif ch.n > second:
                    second = ch.n
            if first - second > settle * left:
                break
    finally:
        if collecting:
            gc.enable()
    root.n = it
    return root


def select(node: Node, options: tuple, hint: Any, mover: int, c: float, bias: float, spread: bool,
           rng: random.Random) -> tuple[Any, Node]:
    """Steps 2–3 at one node: an untried action as a new child (the hint first, else one drawn
    at random), else the UCB1 best plus the progressive bias towards the hint. Counts every
    offered child's availability."""
    children = node.children
    untried = []
    for a in options:
        child = children.get(a)
        if child is None:
            untried.append(a)
        else:
            child.avail += 1
    if untried:
        if hint is not NO_HINT and hint in untried:
            a = hint
        elif len(untried) > 1:
            a = untried[randbelow(rng, len(untried))]
        else:
            a = untried[0]
        child = Node(mover)
        child.avail = 1
        children[a] = child
        return a, child
    scale = c
    if spread:
        n = 0
        w = 0.0
        w2 = 0.0
        for a in options:
            ch = children[a]
            n += ch.n
            w += ch.w
            w2 += ch.w2
        mean = w / n
        var = w2 / n - mean * mean
        scale = c * math.sqrt(var) if var > 1e-12 else c * 1e-6
    best: Any = None
    best_child: Node | None = None
    best_value = -math.inf
    for a in options:
        child = children[a]
        value = child.w / child.n + scale * math.sqrt(math.log(child.avail) / child.n)
        if a == hint:
            value += bias * scale / (child.n + 1)
        if value > best_value:
            best = a
            best_child = child
            best_value = value
    assert best_child is not None
    return best, best_child


def descend(node: Node, state: Any, seat: int, c: float, bias: float, own_only: bool, spread: bool,
            players: list, rng: random.Random, path: list[Node], tree_depth: int = 0) -> int:
    """Select and expand below the root, in place on ``state``, until a new node (or the end);
    appends the nodes entered to ``path`` and returns the decisions taken. With ``own_only`` the
    other seats' decisions are the rollout players'."""
    depth = 0
    while not state.is_terminal():
        mover: int = state.current_seat()
        depth += 1
        if own_only and mover != seat:  # opponent model: the rollout policy answers, no node
            state.apply(players[mover].choose(state.view(mover), rng))
            continue
        options = actions(state)
        hint: Any = NO_HINT
        if bias > 0.0 and len(options) > 1:
            hint = players[mover].choose(state.view(mover), rng)
            if hint not in options:
                options = options + (hint,)
        a, child = select(node, options, hint, mover, c, bias, spread, rng)
        state.apply(a)
        path.append(child)
        if child.n == 0 or len(path) == tree_depth:  # just expanded, or deep enough: play out
            return depth
        node = child
    return depth
