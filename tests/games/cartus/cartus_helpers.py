"""Hand-built Rattus Cartus positions, a scripted player and a driver for the rules tests.

``make_state`` builds a position (an ``engine.CartusState`` with an empty rules program);
``drive(st, steps, players)`` queues rules-program steps (``state.OP_*``) and answers every
decision they raise with the scripted players, through each seat's view.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from analyzer.games.cartus import default_config, engine
from analyzer.games.cartus.config import FLUTE, JOKER, N_TYPES, PASS, SWORD
from analyzer.games.cartus.state import (
    CARDS,
    ENTER,
    GIVE,
    HOSPITAL,
    LOOK,
    NO_DECISION,
    OP_ENTER,
    OP_RESOLVE,
    OP_SUPPLY,
    SUPPLY,
    TARGET,
    USE_PASS,
)

CLASS = {"royalty": 0, "church": 1, "bourgeoisie": 2, "chivalry": 3, "peasantry": 4, "magic": 5}
TYPE = {**CLASS, "joker": JOKER, "sword": SWORD, "flute": FLUTE, "pass": PASS}


def vec(**counts: int) -> list[int]:
    """A card-count vector from names, e.g. ``vec(church=2, joker=1)``."""
    out = [0] * N_TYPES
    for name, k in counts.items():
        out[TYPE[name]] = k
    return out


def card(st_or_cfg, building: str, copy: int = 1) -> int:
    """The card id of ``building`` copy ``copy`` (1..5)."""
    cfg = getattr(st_or_cfg, "cfg", st_or_cfg)
    return cfg.building_names.index(building) * cfg.copies + copy - 1


def make_state(n: int = 4, rules: dict | None = None, *, hands: Sequence[list[int]] | None = None,
               rats: Sequence[int] | None = None, row: Sequence[str | tuple[str, int]] = (),
               deck: Sequence[int] = (), discard: Sequence[int] = (),
               nun_row: Sequence[int] = (2, 2, 2, 2, 2), rnd: int = 1) -> engine.CartusState:
    """A position in round ``rnd`` with the given hands, rats, open row (building names or
    ``(name, copy)``), population deck (top last) and Nun-row; empty entries, nothing queued."""
    cfg = default_config(n, **(rules or {}))
    st = engine.CartusState(cfg)
    st.rng = random.Random(0)
    if hands is not None:
        st.hands = [list(h) for h in hands]
        for h in st.hands:  # specials in hands come out of their supplies
            for t in (JOKER, SWORD, FLUTE, PASS):
                st.supply[t] -= h[t]
    if rats is not None:
        st.rats = list(rats)
    st.row = [card(cfg, *(x if isinstance(x, tuple) else (x,))) for x in row]
    st.entries = [[] for _ in st.row]
    st.sizes = [[] for _ in st.row]
    st.deck = list(deck)
    st.discard = list(discard)
    st.nun_row = list(nun_row)
    st.nun_row_class = [0] * len(nun_row)
    st.round = rnd
    return st


class Scripted:
    """A player that answers from per-decision queues (an unscripted decision fails the test)
    and records every question as ``(kind, seat, *arguments)``; card-count answers may be
    lists (sent as tuples)."""

    def __init__(self, **answers):
        self.answers = {k: list(v) for k, v in answers.items()}
        self.calls: list[tuple] = []

    def player(self, seat):
        return self

    def _next(self, kind, *args):
        self.calls.append((kind, *args))
        queue = self.answers.get(kind)
        if not queue:
            raise AssertionError(f"unscripted decision {kind} {args}")
        ans = queue.pop(0)
        ans = ans(*args) if callable(ans) else ans
        return tuple(ans) if isinstance(ans, list) else ans

    def choose(self, view, rng):
        seat, kind = view.seat, view.kind
        if kind == SUPPLY:
            return self._next("supply", seat)
        if kind == LOOK:
            return self._next("look", seat)
        if kind == ENTER:
            return self._next("enter", seat, view.options)
        if kind == CARDS:
            return self._next("cards", seat, view.entry_row)
        if kind == USE_PASS:
            return self._next("use_pass", seat)
        if kind == TARGET:
            return self._next("target", seat, view.target_kind, view.options)
        if kind == GIVE:
            return self._next("give", seat, view.give_count, view.give_to, view.give_kind)
        if kind == HOSPITAL:
            return self._next("hospital", seat, view.hospital_cap)
        raise AssertionError(f"no decision for seat {seat}")


def drive(st: engine.CartusState, steps: Sequence[tuple[int, int, int, int]], players=None) -> list:
    """Run rules-program ``steps`` (first = next) on ``st``, answering with ``players``
    (default: unscripted ``Scripted`` players, so any decision fails the test)."""
    players = players or [Scripted() for _ in range(st.n)]
    st.stack.extend(reversed(steps))
    engine.run(st)
    while st.dec_kind != NO_DECISION:
        seat = st.dec_seat
        st.apply(players[seat].choose(st.view(seat), random.Random(seat)))
    return players


def resolve(st: engine.CartusState, players=None, r: int = 0) -> list:
    """Resolve row position ``r`` (rules §4 phase D) with scripted players."""
    return drive(st, [(OP_RESOLVE, r, 0, 0)], players)


def phase_b(st: engine.CartusState, players=None) -> list:
    """Phase B (rules §4): every seat uses supply icons, in turn order from ``st.start``."""
    return drive(st, [(OP_SUPPLY, (st.start + i) % st.n, 0, 0) for i in range(st.n)], players)


def phase_c(st: engine.CartusState, players=None) -> list:
    """Phase C (rules §4): every seat enters, in turn order from ``st.start``."""
    return drive(st, [(OP_ENTER, (st.start + i) % st.n, -1, 0) for i in range(st.n)], players)


def enter(st: engine.CartusState, r: int, seat: int, cards: list[int]) -> None:
    """Put ``seat``'s disc and face-down ``cards`` on row position ``r`` (as phase C does)."""
    for t in range(N_TYPES):
        st.hands[seat][t] -= cards[t]
        assert st.hands[seat][t] >= 0, "test position: card not in hand"
    st.entries[r].append((seat, tuple(cards)))
    st.sizes[r].append((seat, sum(cards)))
    if st.cfg.building_action[st.cfg.card_building[st.row[r]]] == "guard_tower":
        st.protected |= 1 << seat
