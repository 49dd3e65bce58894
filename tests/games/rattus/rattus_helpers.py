"""Hand-built Rattus positions, scripted answers and forced chance for the rules tests.

A test builds a position on an empty board (``make_game``), starts one piece of the rules
(``turn``, ``plague_phase``, ``ability``, ``resolve``, ``run``...) and answers every decision it
asks from a ``Scripted`` script. ``ForcedGame`` reveals tokens in list order and can halt at the
end of a turn, an ability or a plague region, so a test sees exactly the rule it sets up.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from analyzer.games.rattus import cards as _cards
from analyzer.games.rattus import default_config, plague
from analyzer.games.rattus.config import CARD_INDEX
from analyzer.games.rattus.engine import Game
from analyzer.games.rattus.state import UNTAKEN, State


class Scripted:
    """Answers from per-kind queues or functions ``f(game, seat, options, ctx)``; otherwise the
    first option ("plague"/"done" for steps).

    Every question is recorded as ``(seat, kind, options)`` in ``asked``.
    """

    def __init__(self, answers: dict[str, Any] | None = None):
        self.answers = {k: (list(v) if isinstance(v, list) else v) for k, v in (answers or {}).items()}
        self.asked: list[tuple[int, str, tuple]] = []

    def answer(self, game: Game) -> Any:
        seat, kind, options = game.current_seat(), game.decision_kind(), game.legal_actions()
        self.asked.append((seat, kind, options))
        ans = self.answers.get(kind)
        if callable(ans):
            return ans(game, seat, options, game.context())
        if isinstance(ans, list) and ans:
            return ans.pop(0)
        if kind == "step":
            return "plague"
        if kind == "final_step":
            return "done"
        return options[0]


class ForcedGame(Game):
    """A game whose reveals take the first token of the region (tokens list order = reveal order)
    and that halts (no decision pending) when the rule named by ``halt`` finishes: ``"turn"`` (a
    regular turn, after the turn count), ``"ability"`` or ``"region"`` (a plague region)."""

    halt = ""

    def draw_reveal(self, r: int) -> int:
        return 0

    def end_turn(self) -> None:
        if self.halt == "turn":
            self.state.turns += 1
            return
        super().end_turn()

    def ability_done(self) -> None:
        if self.halt != "ability":
            super().ability_done()

    def region_done(self) -> None:
        if self.halt != "region":
            super().region_done()


def region(game: Game, name: str) -> int:
    """Region index by name."""
    return game.cfg.region_names.index(name)


def token_id(game: Game, label: str) -> int:
    """Id of the first token with this label in the config's token set, e.g. ``"2+M+Bo+Ch"``."""
    return game.cfg.token_labels.index(label)


def make_game(players: int = 4, expansions: Sequence[str] = (), policy: Scripted | None = None,
              cards: Sequence[str] | None = None, log: Callable | None = None, **rules) -> ForcedGame:
    """An empty-board game (no tokens, cubes all in supply) with ``cards`` in play and untaken.

    ``game.policy`` answers its decisions (a fresh ``Scripted`` unless given)."""
    cfg = default_config(players, expansions, **rules)
    game = ForcedGame(cfg, State.empty(cfg), random.Random(0), log, 0)
    game.policy = policy or Scripted()
    in_play = cards if cards is not None else (cfg.class_cards or ())
    for name in in_play:
        game.state.holder[CARD_INDEX[name]] = UNTAKEN
    return game


def drive(game: Game, until: Callable[[Game], bool] | None = None) -> None:
    """Answer the game's decisions from ``game.policy`` until it halts or ends (or ``until(game)``)."""
    game.settle()
    while not game.is_terminal() and not (until is not None and until(game)):
        game.apply(game.policy.answer(game))


def answer(game: Game, **answers: Any) -> None:
    """Add scripted answers by decision kind."""
    game.policy.answers.update({k: (list(v) if isinstance(v, list) else v) for k, v in answers.items()})


def turn(game: ForcedGame, seat: int, **answers: Any) -> None:
    """Play one regular turn of ``seat`` (§7), halting after it."""
    answer(game, **answers)
    game.halt = "turn"
    game.state.phase = "regular"
    game.start_turn(seat)
    drive(game)


def plague_phase(game: ForcedGame, seat: int, **answers: Any) -> None:
    """Play phase C of ``seat``'s turn (§7 C), halting at the end of the turn."""
    answer(game, **answers)
    game.halt = "turn"
    game.state.phase = "regular"
    game.state.active = seat
    game.plague_phase(seat)
    drive(game)


def ability(game: ForcedGame, seat: int, card: str, **answers: Any) -> None:
    """Use ``seat``'s ability of ``card`` now (with the options it has), halting after it."""
    answer(game, **answers)
    game.halt = "ability"
    game.state.active = seat
    opts_fn, use = _cards.FINAL_ABILITIES[CARD_INDEX[card]]
    use(game, seat, opts_fn(game, seat))
    drive(game)


def resolve(game: ForcedGame, r: int, chooser: int, **answers: Any) -> None:
    """Resolve the plague in region ``r`` (§7.1), region cards offered from ``chooser``."""
    answer(game, **answers)
    game.halt = "region"
    plague.start_resolve(game, r, chooser)
    drive(game)


def run(game: ForcedGame, **answers: Any) -> None:
    """Play regular turns from the start player to the end of the game (§7–§10)."""
    answer(game, **answers)
    game.halt = ""
    game.state.phase = "regular"
    game.start_turn(game.state.start_seat)
    drive(game)


def give(game: Game, seat: int, *cards: str) -> None:
    """Hand class cards to ``seat`` (putting them in play if needed)."""
    for name in cards:
        c = CARD_INDEX[name]
        if game.state.holder[c] == -2:
            game.state.holder[c] = UNTAKEN
        game.take_card(seat, c)


def put(game: Game, name: str, *cubes: int) -> None:
    """Place cubes per seat in region ``name`` from the seats' supplies."""
    r = region(game, name)
    for p, k in enumerate(cubes):
        if k:
            game.place_cubes(p, r, k)


def tokens(game: Game, name: str, *ids: int) -> None:
    """Lay face-down tokens ``ids`` in region ``name`` (nobody has seen them)."""
    r = region(game, name)
    for t in ids:
        game.put_token(r, t, 0)
