"""Single-observer information-set Monte Carlo tree search (ISMCTS) for any game's forward model.

Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2), 2012:
one tree over the deciding seat's information set, for N players. Each iteration

1. selects a root action with UCB1 (the seat's own options are the same in every world);
2. determinizes: a full state drawn uniformly among those consistent with what the seat has seen
   (``SeatView.determinize``). With ``common_worlds`` the ``j``-th visit of every root action
   plays a copy of the same world ``j``, chance included, so the actions are compared on the same
   deals (common random numbers); otherwise each iteration draws its own;
3. below the root, up to ``tree_depth`` nodes, selects with UCB1 among the actions legal in this
   world, counting each child's availability in place of its parent's visits, and expands one
   untried action; with ``opponents = "rollout"`` the other seats' decisions there are the
   rollout policy's and the tree branches on the seat's own decisions only;
4. plays out with the rollout policy (``random``, the game's ``greedy`` or the ``tuned`` greedy
   of ``scenarios/tuned/``), which is also the model of the other seats, to the end or for
   ``rollout_depth`` decisions followed by the policy's ``leaf_returns`` (the state's
   ``heuristic_returns`` at the game's declared leaf parameters);
5. backs up each node's reward from the point of view of the seat that moved into it: its win
   share (1/k for a k-way tie, 0 for everyone when nobody wins).

Two levers steer it towards the rollout policy's judgement (``prior``): that policy's own choice
is always among the searched actions, is tried first, and gets a progressive bias (Chaslot et
al. 2008) of ``prior`` exploration units divided by its visits + 1; and with ``spread`` the
exploration term is scaled by the standard deviation of the rewards seen at the node, so the
constant means the same whether rewards are 0/1 wins or close estimates. The search stops before
``iterations`` once no other root action can catch up with the most visited one (the choice
is then the same; with ``settle`` < 1, once the leader's lead exceeds that share of the
iterations left, sooner and no longer exact), or, with ``seconds`` > 0, once the decision has used that much CPU time (a
budget in time instead of iterations; the records then depend on the machine), and plays the
most visited action. With ``close`` (and ``prior`` > 0) it searches only where the rollout
policy's choice is close: where that policy's declared ``lead`` (forward.Player: its choice's
score minus the best other option's) is at most ``close``; elsewhere it plays that choice without
a search (the seat's generator then draws only what the policy drew). Inf (the default here)
always searches; a policy that declares no lead is always searched.

The tree and the worlds live for one decision. Every random draw (world seeds, tie-breaks,
playouts) comes from the seat's own generator, so records stay reproducible whatever ``--jobs``
or backend. The loop itself is ``treesearch.py`` (compiled with mypyc); a game registers ISMCTS
by subclassing ``Ismcts`` with its rollout policies in ``ROLLOUTS`` and its leaf parameters.

The tree branches on the state's ``search_actions()`` (forward.py): the legal actions, or, where
they can be too many to search (every subset of a hand), a few of them (an action abstraction;
playouts still use the full game).
"""

from __future__ import annotations

import math
import random
import tomllib
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from analyzer.model import treesearch
from analyzer.model.base import param
from analyzer.model.forward import GameState, Player, SeatView

ROLLOUT_KINDS = ("random", "greedy", "tuned")
OPPONENT_MODELS = ("tree", "rollout")


def tuned_rollout(cls: type, path: Path) -> Callable[[], Any]:
    """The ``tuned`` rollout of a game: a factory of policy ``cls`` with the ``[params]`` of the
    parameters file at ``path`` (the file ``analyzer tune`` writes; the game keeps a copy of
    ``scenarios/tuned/<game>-greedy.toml`` beside its search player, read when first used)."""
    @cache
    def params() -> dict:
        with path.open("rb") as f:
            return dict(tomllib.load(f)["params"])

    return lambda: cls(**params())


@dataclass(frozen=True)
class Ismcts:
    """Search player: single-observer ISMCTS over the game's forward model (Cowling et al. 2012).

    Each decision runs up to ``iterations`` select–determinize–expand–playout–backup iterations
    from the seat's information set and plays the most visited action (the module docstring has
    the steps and levers). Time per decision is about ``iterations`` playouts.
    """

    iterations: int = param(200, low=1, high=1_000_000, tunable=False,
                            help="search iterations per decision, at most: the search stops once no other action "
                                 "can catch up with the most visited one (iterations)")
    exploration: float = param(1.4, low=0, high=10,
                               help="UCB1 exploration constant c, in standard deviations of the rewards seen at the "
                                    "node (spread = 1) or in win shares (spread = 0) (dimensionless)")
    rollout: str = field(default="random", metadata={
        "help": "playout policy and model of the other seats: random, the game's greedy with its default "
                "weights, or tuned (greedy with the weights of scenarios/tuned/<game>-greedy.toml)",
        "choices": ROLLOUT_KINDS})
    rollout_depth: int = param(0, low=0, high=100_000,
                               help="decisions after the searched one before the leaf estimate (the game's "
                                    "heuristic_returns), 0 = play to the end (decisions)")
    prior: float = param(2.0, low=0, high=100,
                         help="progressive bias towards the rollout policy's own choice, which is always searched "
                              "and tried first: added to its value, divided by its visits + 1, in units of c; "
                              "0 = none (dimensionless)")
    opponents: str = field(default="rollout", metadata={
        "help": "the other seats' decisions inside the tree (tree_depth > 1): tree (searched like the seat's "
                "own) or rollout (played by the rollout policy; the tree branches on the seat's own decisions)",
        "choices": OPPONENT_MODELS})
    spread: int = param(1, low=0, high=1,
                        help="1: exploration in units of the standard deviation of the rewards seen at the node; "
                             "0: in win shares (flag)")
    common_worlds: int = param(1, low=0, high=1,
                               help="1: the j-th visit of every root action plays the same determinization and "
                                    "chance (world j), so actions are compared on the same deals; 0: a new "
                                    "determinization every iteration (flag)")
    seconds: float = param(0.0, low=0, high=3600, tunable=False,
                           help="CPU seconds per decision at most, as well as iterations (whichever ends "
                                "first); 0 = no time limit. With a limit the iterations run, and so the "
                                "records, depend on the machine's speed and load: a seed no longer fixes "
                                "the games (seconds)")
    settle: float = param(1.0, low=0, high=1,
                          help="early stop: the search ends once the most visited root action leads the "
                               "runner-up by more than settle x the iterations left; 1 = only once no other "
                               "can catch up (the same choice as the full search), lower stops sooner "
                               "(dimensionless)")
    close: float = param(float("inf"), low=0, high=float("inf"), tunable=False,
                         help="search only where the rollout policy's own choice is close: where its "
                              "lead (its chosen option's score minus the best other option's, in that "
                              "policy's own score units) is at most this; elsewhere its choice is played "
                              "without searching. inf = always search; needs prior > 0 (score units of "
                              "the game's greedy)")
    tree_depth: int = param(1, low=0, high=1_000_000,
                            help="most tree nodes on an iteration's path: 1 = the root's actions only, every later "
                                 "decision the rollout policy's; 0 = no limit (nodes)")

    # the game's playout policies by rollout kind; set by each game's subclass
    ROLLOUTS: ClassVar[Mapping[str, Callable[[], Any]]] = {}

    def __post_init__(self):
        if self.rollout not in ROLLOUT_KINDS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUT_KINDS)} (got {self.rollout!r})")
        if self.rollout not in self.ROLLOUTS:
            raise ValueError(f"rollout {self.rollout!r} is not available for this game "
                             f"(allowed: {', '.join(self.ROLLOUTS) or 'none'})")
        if self.opponents not in OPPONENT_MODELS:
            raise ValueError(f"opponents must be one of {', '.join(OPPONENT_MODELS)} (got {self.opponents!r})")

    def player(self, seat: int) -> IsmctsPlayer:
        """A fresh searcher for ``seat`` of one game."""
        return IsmctsPlayer(self, seat)

    def leaf_returns(self, state: GameState) -> tuple[float, ...]:
        """The estimated win shares where a playout stops early (``rollout_depth``): the state's
        ``heuristic_returns()``; a game's subclass passes its declared evaluation parameters."""
        return state.heuristic_returns()


class IsmctsPlayer:
    """The per-seat, per-game searcher of an ``Ismcts`` policy (see there)."""

    __slots__ = ("last_lead", "last_root", "policy", "rollout_players", "seat")

    def __init__(self, policy: Ismcts, seat: int):
        self.policy = policy
        self.seat = seat
        self.rollout_players: list[Player] | None = None
        self.last_root: treesearch.Node | None = None  # the last decision's tree, for tests and the log
        # the rollout policy's lead at the last decision (``close``; -inf: none declared)
        self.last_lead = -math.inf

    def _playout_players(self, n_players: int) -> list[Player]:
        if self.rollout_players is None:
            pol = self.policy.ROLLOUTS[self.policy.rollout]()
            self.rollout_players = [pol.player(s) for s in range(n_players)]
        return self.rollout_players

    def choose(self, view: SeatView, rng: random.Random) -> Hashable:
        """The most visited root action after ``iterations`` iterations (ties: higher mean
        reward, then the earlier legal action); a forced answer (one action) without searching;
        the rollout policy's own choice without searching where its ``lead`` exceeds ``close``
        (a policy that declares no ``lead`` is always searched)."""
        legal = treesearch.actions(view)
        pol = self.policy
        players = self._playout_players(view.n_players)
        hint = treesearch.NO_HINT
        self.last_lead = -math.inf
        if pol.prior > 0.0:  # the rollout policy's own choice is searched, and tried first
            own = players[self.seat]
            selective = pol.close != math.inf and hasattr(own, "want_lead")
            if selective:  # a player whose lead costs extra work computes it on request only
                own.want_lead = True
            hint = own.choose(view, rng)
            if selective:
                own.want_lead = False
            self.last_lead = getattr(own, "lead", -math.inf)  # none declared: always searched
            if hint not in legal:
                legal = legal + (hint,)
            if len(legal) > 1 and self.last_lead > pol.close:  # a clear choice: not searched
                self.last_root = None
                if view.log is not None:
                    view.log(f"    ismcts seat {self.seat}: the rollout policy's choice, lead "
                             f"{self.last_lead:.3g} > close {pol.close:g}, not searched")
                return hint
        if len(legal) == 1:
            self.last_root = None
            return legal[0]
        root = treesearch.search(view, self.seat, legal, hint, players, rng, pol.leaf_returns, pol.iterations,
                                 pol.exploration, pol.prior, pol.opponents == "rollout", pol.spread == 1,
                                 pol.common_worlds == 1, pol.rollout_depth, pol.tree_depth,
                                 pol.seconds, pol.settle)
        self.last_root = root
        ranked = sorted(root.children.items(),
                        key=lambda item: (-item[1].n, -(item[1].w / item[1].n if item[1].n else 0.0)))
        if view.log is not None:
            top = ", ".join(f"{view.describe_action(a)}: {nd.n} visits, mean {nd.w / nd.n:.2f}"
                            for a, nd in ranked[:3])
            view.log(f"    ismcts seat {self.seat} ({pol.iterations} iterations): {top}")
        return ranked[0][0]
