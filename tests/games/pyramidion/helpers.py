"""Hand-built Pyramidion positions and a scripted policy for the rule tests."""

from __future__ import annotations

import random

from analyzer.games.pyramidion.config import CARD_TYPES, GOODS, make_config
from analyzer.games.pyramidion.engine import Game
from analyzer.games.pyramidion.state import ACTIVATION, CARD_TURN, LOADING, ROUND_END, ROUND_START

STONE, WOOD, FOOD, CAMEL, WORKER, STATUE = range(6)


class Script:
    """A player that plays a fixed list of option *values*, then passes.

    Each decision pops the next value; it must be among the offered options. When the list
    is empty it picks the pass/decline option (-1) if offered, else the first option.
    """

    def __init__(self, moves=()):
        self.moves = list(moves)
        self.seen = []  # (kind, options) of every decision asked

    def player(self, seat):
        return self

    def choose(self, view, rng):
        kind, options = view.decision_kind(), view.legal_actions()
        self.seen.append((kind, options))
        if self.moves:
            want = self.moves.pop(0)
            assert want in options, f"seat {view.seat} {kind}: {want!r} not in {options!r}"
            return want
        return -1 if -1 in options else options[0]


class Driven:
    """A game whose decisions are answered by scripted players, run one part of a round at a
    time on a hand-built position (the rule tests' harness). It wraps a ``Game`` (a compiled
    class cannot be subclassed here) and passes every other attribute through to it."""

    def __init__(self, cfg, scripts, chance, seat_rngs, log=None):
        object.__setattr__(self, "game", Game(cfg, chance, log))
        object.__setattr__(self, "scripts", list(scripts))
        object.__setattr__(self, "seat_rngs", list(seat_rngs))

    def __getattr__(self, name):
        return getattr(self.game, name)

    def __setattr__(self, name, value):
        setattr(self.game, name, value)

    def drive(self, done) -> None:
        """Run rules and scripted decisions until ``done()`` holds with no decision pending."""
        game, st = self.game, self.st
        while st.kind or not (done() or st.end):
            if st.kind:
                seat = st.to_move
                choice = self.scripts[seat].choose(game.view(seat), self.seat_rngs[seat])
                game.take(st.kind, st.options[st.options.index(choice)])
            else:
                game.run_step()

    def activate(self, p: int, site: int) -> None:
        """Seat ``p`` activates ``site``; card play and resolution run to the sundial (§5 phase 5)."""
        st = self.st
        st.step = CARD_TURN
        st.to_move = p
        self.game.on_activate(site)
        self.drive(lambda: st.step == ACTIVATION)

    def phase5_sites(self) -> None:
        """The whole of phase 5 (§5): every activation in player order, twice round."""
        st = self.st
        st.act_i = 0
        st.step = ACTIVATION
        self.drive(lambda: st.step == LOADING)

    def phase7_loading(self) -> None:
        """The whole of phase 7 (§5) from its first turn."""
        st = self.st
        st.load_i, st.passes, st.out = 0, 0, [False] * st.n
        st.step = LOADING
        self.drive(lambda: st.step == ROUND_END)

    def phase8_end(self):
        """Phase 8 (§5) and the end check (§6): ``"trigger"``, ``"turn_cap"`` or None."""
        st = self.st
        st.step = ROUND_END
        self.drive(lambda: st.step == ROUND_START)
        return st.end or None

    def play_round(self):
        """One whole round (§5) from phase 1; the end reason or None."""
        st = self.st
        st.step = ROUND_START
        self.game.run_step()
        self.drive(lambda: st.step == ROUND_START)
        return st.end or None


def make_game(players=4, rules=None, scripts=None, log=None) -> Driven:
    """A game in the set-up position (§4) with order 0..n-1, unshuffled piles, no chance used.

    ``scripts``: one ``Script`` per seat (default: everyone passes/declines).
    """
    cfg = make_config(players, (), rules or {})
    scripts = scripts or [Script() for _ in range(players)]
    rngs = [random.Random(100 + s) for s in range(players)]
    return Driven(cfg, scripts, random.Random(7), rngs, log)


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
