"""Hand-built Pyramidion positions and a scripted policy for the rule tests."""

from __future__ import annotations

import random

from analyzer.games.pyramidion.config import CARD_TYPES, GOODS, make_config
from analyzer.games.pyramidion.engine import Game

STONE, WOOD, FOOD, CAMEL, WORKER, STATUE = range(6)


class Script:
    """A policy that plays a fixed list of option *values* (not indices), then passes.

    Each decision pops the next value; it must be among the offered options. When the list
    is empty it picks the pass/decline option (-1) if offered, else the first option.
    """

    NAME = "script"

    def __init__(self, moves=()):
        self.moves = list(moves)
        self.seen = []  # (kind, options) of every decision asked

    def choose(self, state, seat, kind, options, rng):
        self.seen.append((kind, options))
        if self.moves:
            want = self.moves.pop(0)
            assert want in options, f"seat {seat} {kind}: {want!r} not in {options!r}"
            return options.index(want)
        return options.index(-1) if -1 in options else 0


def make_game(players=4, rules=None, scripts=None, log=None) -> Game:
    """A game in the set-up position (§4) with order 0..n-1, unshuffled piles, no chance used.

    ``scripts``: one ``Script`` per seat (default: everyone passes/declines).
    """
    cfg = make_config(players, (), rules or {})
    scripts = scripts or [Script() for _ in range(players)]
    rngs = [random.Random(100 + s) for s in range(players)]
    return Game(cfg, scripts, random.Random(7), rngs, log)


def site(g: Game, name: str) -> int:
    return g.cfg.site_names.index(name)


def take_common(g: Game, card_type: str, value: int | None = None) -> int:
    """Remove a common card of this type (and printed value) from the draw pile; return its id."""
    t = CARD_TYPES.index(card_type)
    for c in g.st.draw_pile:
        if g.cfg.card_type[c] == t and (value is None or max(g.cfg.card_val[c]) == value):
            g.st.draw_pile.remove(c)
            return c
    raise LookupError(f"no common {card_type} {value} left")


def give(g: Game, seat: int, *cards: int) -> None:
    """Put cards into a seat's hand (sorted, as the engine keeps hands)."""
    g.st.hand[seat] += cards
    g.st.hand[seat].sort()


def starting(g: Game, seat: int, card_type: str) -> list[int]:
    """The seat's starting cards of a type (taken out of 'aside' into nowhere; give() them)."""
    t = CARD_TYPES.index(card_type)
    out = [c for c in g.st.aside[seat] if g.cfg.card_type[c] == t]
    for c in out:
        g.st.aside[seat].remove(c)
    return out


def set_goods(g: Game, seat: int, **counts: int) -> None:
    """Give a seat goods from the supply (keeps conservation)."""
    for name, n in counts.items():
        k = GOODS.index(name)
        g.st.supply[k] -= n
        g.st.goods[seat][k] += n


def put_on_site(g: Game, s: int, n: int) -> None:
    k = g.cfg.site_kind[s]
    g.st.supply[k] -= n
    g.st.site_goods[s] += n
