"""The forward model every game offers, and the one play loop over it.

This is the shape of OpenSpiel's ``State`` and TAG's forward model (docs/architecture.md). A
game package gives ``ForwardGame`` how to start a game (``start``) and its policy registry; the
rest — the game's ``new_state`` and ``play_game``, seat streams, policy names, the replay log's
policy line, the loop, the records call — is written here once. The loop (``play``) and the
legality check (``offered``) run at every decision, so they live in ``play.py``, compiled with
the engines, and are exported from here.

The contract a ``GameState`` keeps:

- ``apply`` runs the rules, chance included (from the state's own generator), up to the next
  decision or the end. A non-terminal state offers at least one action, distinct, in a
  deterministic order. A game may take a decision with a single option itself (its players
  are then asked only real choices) or ask it where its rules ask it (a game whose rules ask
  every question in turn, and whose ``random`` player draws there); players and search treat
  a one-action decision as forced.
- An action not offered raises ``IllegalChoice(seat, kind, action, legal)``: compared by value
  and by type all the way down (``offered``), never coerced (``1.0`` and ``True`` are not ``1``).
- A terminal state has ``decision_kind() == ""`` and ``legal_actions() == ()``.

Consulted rule options (``GameSpec.consults``) may depend on the player. A state may mark a
decision *narrowed* when the other value of a tracked rule option would offer other options
there: then ``state.narrowing`` is nonzero, and the option's consult bits are set when the
decision is taken, unless the play loop first calls ``state.spare(among)`` with what the
deciding player declares its answer was picked among (``pick_among`` below); the state then
leaves them unset if every option of ``among`` is legal under the other value too (the player
would answer the same there, with the same draws). Where the other value would also *add*
options, ``state.widening`` is the tuple of them (else ``()``; the other value offers the
offered options in the same relative order, these among them), and the loop calls ``spare``
only when the player also keeps its pick with them offered (``keeps_pick`` below). A state
without ``spare`` never narrows.
Only the loops that play the recorded game spare (``play``, ``flow.play_recorded``,
``flow.play_with_choice``); a search's own iterations never do, so their reads stay conservative.

Players see a ``SeatView``: what one seat may see (its own hand, the public board, what it has
been shown), never the state itself. A view has no accessor for what its seat never sees, and
raises ``HiddenInformation`` where a rule option or the course of play hides a value it has an
accessor for. A view of a seat that is not deciding has ``decision_kind() == ""`` and
``legal_actions() == ()``. Search players (``ismcts``) get full states only through
``SeatView.determinize``, which redraws everything hidden from the seat.
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from analyzer.model import base
from analyzer.model.base import game_streams, resolve_policies
from analyzer.model.flow import (
    Checkpoints,
    Kingmaking,
    kingmaking,
    kingmaking_stream,
    play_recorded,
    play_with_choice,
)
from analyzer.model.logtext import seats_line
from analyzer.model.play import offered, play  # the legality check and the loop, compiled (play.py)

__all__ = ["ForwardGame", "GameState", "Player", "Policy", "SeatView", "game_spec", "offered", "play", "policy_name"]

Log = Callable[[str], None] | None  # the replay log: one readable line per call, None when nobody reads it


@runtime_checkable
class GameState(Protocol):
    """A game in progress (the stable forward-model interface; see the module docstring).

    Actions are hashable and compare by value; ``legal_actions()`` lists them in a deterministic
    order. Chance is resolved inside ``apply`` from the state's own generator, so two copies made
    by ``clone`` and advanced with the same actions play the same game.
    """

    def is_terminal(self) -> bool:
        """True once the game is over (scores are final)."""
        ...

    def current_seat(self) -> int:
        """The seat that decides next (only at a non-terminal state)."""
        ...

    def decision_kind(self) -> str:
        """What is being decided, e.g. ``"place"``, ``"enter"``, ``"load"`` (the game's own
        names); ``""`` at a terminal state."""
        ...

    def legal_actions(self) -> tuple:
        """The options the deciding seat is offered: at least one, distinct, deterministic
        order; ``()`` at a terminal state."""
        ...

    def search_actions(self) -> tuple:
        """The actions a search branches on: ``legal_actions()``, or, in a game whose legal
        actions can be too many to search (every subset of a hand), a few of them (an action
        abstraction; playouts still use the whole game)."""
        ...

    def apply(self, action: Hashable) -> None:
        """Take ``action`` and advance to the next decision (or the end).

        Raises
        ------
        IllegalChoice
            ``action`` is not one of ``legal_actions()`` (never coerced or fixed), or the game
            is over.
        """
        ...

    def clone(self) -> GameState:
        """An independent copy, generators included, without the replay log."""
        ...

    def information_key(self, seat: int) -> Hashable:
        """What ``seat`` can see: equal keys exactly when the seat cannot tell two states apart."""
        ...

    def determinize(self, seat: int, seed: int) -> GameState:
        """A copy with everything hidden from ``seat`` redrawn uniformly among the arrangements
        consistent with what it has seen, and future chance reseeded from ``seed``; the copy's
        ``information_key(seat)`` equals this state's."""
        ...

    def view(self, seat: int) -> SeatView:
        """What ``seat``'s player is given to decide from."""
        ...

    def returns(self) -> tuple[float, ...]:
        """Each seat's win share at a terminal state: 1/k for a k-way tie for first, 0 for every
        seat when nobody wins."""
        ...

    def heuristic_returns(self) -> tuple[float, ...]:
        """An estimate of ``returns()`` at a non-terminal state (shares summing to at most 1),
        for search that stops a playout early."""
        ...

    def records(self, policy_names: Sequence[str]) -> tuple[dict, list[dict]]:
        """The game record and one seat record per seat, at a terminal state (what ``play_game``
        returns); ``policy_names[s]`` fills seat ``s``'s ``policy`` column."""
        ...


@runtime_checkable
class SeatView(Protocol):
    """One seat's view of a state (see the module docstring for what it refuses).

    A game's view adds read-only accessors for what the seat may see (public board, its own
    hand…); the members below are the ones every player may rely on.
    """

    seat: int
    n_players: int
    log: Log  # the replay log, None when nobody reads it

    def decision_kind(self) -> str:
        """As ``GameState.decision_kind`` when this seat decides, else ``""``."""
        ...

    def legal_actions(self) -> tuple:
        """As ``GameState.legal_actions`` when this seat decides, else ``()``."""
        ...

    def search_actions(self) -> tuple:
        """As ``GameState.search_actions`` when this seat decides, else ``()``."""
        ...

    def determinize(self, seed: int) -> GameState:
        """``GameState.determinize(self.seat, seed)`` of the state behind the view."""
        ...

    def describe_action(self, action: Hashable) -> str:
        """A short readable name of one legal action, for the replay log."""
        ...


@runtime_checkable
class Player(Protocol):
    """Plays one seat of one game: may keep memory between its decisions in that game.

    A player may declare, per answer, ``pick_among: tuple`` (an attribute, read after
    ``choose``): the options its answer was picked among, in the offered order. Its answer
    alone when that was the single best, picked without drawing from ``rng``; the tied best
    when the answer was drawn among them by one draw whose outcome depends only on how many
    they are. The player promises that its scores each depend on their own option only and
    that its memory is at most a cache (its later answers would be the same had it not been
    asked): from any subset of the offered options that holds all of ``pick_among`` it gives
    the same answer with the same draws, and nothing changes if that subset is a single option
    (a forced decision, asked of nobody). Not declared (no attribute, or ``()``) counts as an
    answer a smaller set could change: random and search players never declare one.

    A player that declares ``pick_among`` may also have ``keeps_pick(view, added) -> bool``,
    asked right after ``choose`` at a widened decision (``GameState.widening``) with the same
    view: true promises that, had ``added`` been offered too (the offered options keeping their
    relative order), its answer and its draws would be the same — the greedy: each added
    option scores strictly below the cut its pick used, so the best or tied best is the same
    set in the same order. It must not draw from any stream nor change what the player later
    answers. No method, or false, counts as an answer the added options could change.

    A player may also declare ``lead: float`` (an attribute, read after ``choose``): how
    clearly it chose, its answer's score minus the best other option's score, in its own score
    units (0 for a tie; inf for a single option or an answer not chosen by comparing scores;
    nan when it does not know). A player whose lead costs extra work may compute it only when
    its ``want_lead`` attribute is true (the caller sets it around ``choose``; the answer and
    the draws must be the same either way). The search player reads it to search only the
    close decisions (``Ismcts.close``); the rollout policies of the games' search players
    declare it.
    """

    def choose(self, view: Any, rng: random.Random) -> Hashable:
        """One of ``view.legal_actions()``; any randomness comes from ``rng`` (the seat's stream)."""
        ...


@runtime_checkable
class Policy(Protocol):
    """A registered player kind with frozen, validated parameters (``build_policy``)."""

    def player(self, seat: int) -> Player:
        """A fresh player for ``seat`` of one game (stateless policies may return themselves)."""
        ...


# ---------------------------------------------------------------- the play loop


def policy_name(registry: Mapping[str, type], policy: Any) -> str:
    """A policy object's name for the records: the registry key of its class (a policy's only
    name), else its class name."""
    return next((key for key, cls in registry.items() if type(policy) is cls),
                type(policy).__name__)


@dataclass(frozen=True)
class ForwardGame:
    """What a game package gives the shared play loop; its ``new_state`` and ``play_game`` are
    the game's ``GameSpec.new_state`` and ``GameSpec.play_game``.

    Attributes
    ----------
    start : callable
        ``start(config, chance, seed, log) -> GameState``: a new game set up with the chance
        generator ``chance`` (every chance event of the game is drawn from it), paused at its
        first decision. ``seed`` (int or ``numpy.random.SeedSequence``) is only named in
        messages (``TurnCapExceeded``); ``log`` receives the replay log (None: no log work).
    policies : mapping of str to type
        The game's policy registry (``GameSpec.policies``).

    The config of a game has ``n_players``, its player count.
    """

    start: Callable[[Any, random.Random, Any, Log], GameState]
    policies: Mapping[str, type]

    def new_state(self, config: Any, seed: int | np.random.SeedSequence, log: Log = None) -> GameState:
        """A new game paused at its first decision (``GameSpec.new_state``).

        ``seed`` as for ``play_game``: the same seed deals the same game (chance is child 0 of
        its SeedSequence, ``base.game_streams``).
        """
        chance, _ = game_streams(seed, config.n_players)
        return self.start(config, chance, seed, log)

    def play_game(self, config: Any, policies: Any, seed: int | np.random.SeedSequence,
                  log: Log = None, checkpoints: Checkpoints | None = None,
                  kingmaking_test: Kingmaking | None = None, replay: int = 0
                  ) -> tuple[dict, list[dict]]:
        """Play one seeded game and return its records (``GameSpec.play_game``).

        Parameters
        ----------
        config : game config
            From the game's ``make_config``.
        policies : str or policy object, or a sequence of them (one per seat)
            Registered names (default parameters) or objects with ``player(seat)``; a single
            one plays every seat (``base.resolve_policies``).
        seed : int or numpy.random.SeedSequence
            Child 0 drives chance, child ``1 + s`` seat ``s``'s player (``base.game_streams``):
            the same seed and policies give the same records and log.
        log : callable or None
            Receives the readable replay log line by line, starting with the seats' policies.
        checkpoints : flow.Checkpoints, optional
            Gets a checkpoint after every round and at the end (``flow.play_recorded``; the
            same game and records as without).
        kingmaking_test : flow.Kingmaking, optional
            With ``checkpoints``: after the game, test it for kingmaking (``flow.kingmaking``,
            at most ``kingmaking_test.samples`` counterfactual games, each replayed from ``seed`` with
            fresh players, the same streams and one choice changed) and fill it. The
            game and its records are the same as without.
        replay : int
            ``0``: the game as every run plays it. ``r >= 1``: the same deal (chance stream)
            with the players drawing from other streams (``base.game_streams``), for
            ``analyzer quality --luck``.

        Returns
        -------
        (dict, list of dict)
            The game record and one seat record per seat (``GameSpec.game_columns`` /
            ``seat_columns``); each seat's ``policy`` is its policy's registry name.

        Raises
        ------
        RuleError
            A wrong number of policies or an unknown policy name.
        IllegalChoice
            A player chose an action that was not offered.
        TurnCapExceeded
            The game passed the engine's hard cap (the message names the seed).
        """
        n = config.n_players
        objs = resolve_policies(self.policies, policies, n)
        names = [policy_name(self.policies, p) for p in objs]
        chance, seat_rngs = game_streams(seed, n, replay)
        if log is not None:
            log(seats_line(names))
        state = self.start(config, chance, seed, log)
        players = [p.player(s) for s, p in enumerate(objs)]
        if checkpoints is None:
            play(state, players, seat_rngs)
        elif kingmaking_test is None:
            play_recorded(state, players, seat_rngs, checkpoints)
        else:
            decisions: list = []
            play_recorded(state, players, seat_rngs, checkpoints, decisions)

            def again_with(decision: int, option: int) -> tuple[float, ...]:
                again_chance, again_rngs = game_streams(seed, n, replay)
                again = self.start(config, again_chance, seed, None)
                play_with_choice(again, [p.player(s) for s, p in enumerate(objs)], again_rngs,
                                 decision, option)
                return again.returns()

            kingmaking(kingmaking_test, checkpoints, decisions, kingmaking_stream(seed),
                       again_with)
        return state.records(names)


def _study_sections(package: str) -> tuple:
    """``package``'s report sections, ``<package>.study.SECTIONS`` (imported only when called)."""
    return importlib.import_module(f"{package}.study").SECTIONS


def game_spec(package: str, start: Callable[..., GameState], policies: Mapping[str, type],
              options: base.OptionSet, **fields: Any) -> base.GameSpec:
    """The ``GameSpec`` of the game package ``package`` (its ``__name__``), declared once.

    Shared by every game: ``play_game`` and ``new_state`` are ``ForwardGame(start, policies)``'s,
    ``rule_values`` is ``config_rule_values``, ``sections`` imports ``<package>.study.SECTIONS``
    when a report is built (never in a worker), and each rule option ``T_file`` of ``options``
    replaces the built-in table ``<package>/data/T.toml``. ``fields`` are the rest of
    ``GameSpec``: what is the game's own.
    """
    game = ForwardGame(start, policies)
    data = Path(sys.modules[package].__file__).resolve().parent / "data"
    return base.GameSpec(play_game=game.play_game, new_state=game.new_state, policies=policies,
                    rule_values=base.config_rule_values, sections=partial(_study_sections, package),
                    options=options, **fields,
                    tables={o.name: data / f"{o.name.removesuffix('_file')}.toml"
                            for o in options if o.name.endswith("_file")})
