"""Hand-built Rattus positions, a scripted policy and forced chance for the rules tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from analyzer.games.rattus import default_config
from analyzer.games.rattus.config import CARD_INDEX
from analyzer.games.rattus.engine import Game
from analyzer.games.rattus.state import UNTAKEN


class Scripted:
    """Answers from per-kind queues or functions; otherwise the first option ("plague"/"done" for steps).

    Every question is recorded as ``(seat, kind, options)`` in ``asked``.
    """

    name = "scripted"

    def __init__(self, answers: dict[str, Any] | None = None):
        self.answers = {k: (list(v) if isinstance(v, list) else v) for k, v in (answers or {}).items()}
        self.asked: list[tuple[int, str, tuple]] = []

    def choose(self, state, seat, kind, options, rng, ctx=None):
        self.asked.append((seat, kind, options))
        ans = self.answers.get(kind)
        if callable(ans):
            return ans(state, seat, options, ctx)
        if isinstance(ans, list) and ans:
            return ans.pop(0)
        if kind == "step":
            return "plague"
        if kind == "final_step":
            return "done"
        return options[0]


class ForcedGame(Game):
    """A game whose reveals take the first token of the region (tokens list order = reveal order)."""

    def draw_reveal(self, r: int) -> int:
        return 0


def region(game: Game, name: str) -> int:
    """Region index by name."""
    return game.cfg.region_names.index(name)


def token_id(game: Game, label: str) -> int:
    """Id of the first token with this label in the config's token set, e.g. ``"2+M+Bo+Ch"``."""
    return game.cfg.token_labels.index(label)


def make_game(players: int = 4, expansions: Sequence[str] = (), policy: Any = None,
              cards: Sequence[str] | None = None, log: Callable | None = None, **rules) -> ForcedGame:
    """An empty-board game (no tokens, cubes all in supply) with ``cards`` in play and untaken."""
    cfg = default_config(players, expansions, **rules)
    pol = policy or Scripted()
    game = ForcedGame(cfg, [pol] * players, 0, log)
    in_play = cards if cards is not None else (cfg.class_cards or ())
    for name in in_play:
        game.state.holder[CARD_INDEX[name]] = UNTAKEN
    return game


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
