"""Hand-built Rattus Cartus positions and a scripted policy for the rules tests."""

from __future__ import annotations

from collections.abc import Sequence

from analyzer.games.cartus import default_config
from analyzer.games.cartus.config import FLUTE, JOKER, N_TYPES, PASS, SWORD
from analyzer.games.cartus.state import State, new_state

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
               nun_row: Sequence[int] = (2, 2, 2, 2, 2), rnd: int = 1) -> State:
    """A position in round ``rnd`` with the given hands, rats, open row (building names or
    ``(name, copy)``), population deck (top last) and Nun-row; empty entries."""
    cfg = default_config(n, **(rules or {}))
    st = new_state(cfg)
    if hands is not None:
        st.hands = [list(h) for h in hands]
        for h in st.hands:  # specials in hands come out of their supplies
            for t in (JOKER, SWORD, FLUTE, PASS):
                st.supply[t] -= h[t]
    if rats is not None:
        st.rats = list(rats)
    st.row = [card(cfg, *(x if isinstance(x, tuple) else (x,))) for x in row]
    st.entries = [[] for _ in st.row]
    st.deck = list(deck)
    st.discard = list(discard)
    st.nun_row = list(nun_row)
    st.nun_row_class = [0] * len(nun_row)
    st.round = rnd
    return st


class Scripted:
    """A policy that answers from per-decision queues; an unscripted decision fails the test."""

    name = "scripted"

    def __init__(self, **answers):
        self.answers = {k: list(v) for k, v in answers.items()}
        self.calls: list[tuple] = []

    def _next(self, kind, *args):
        self.calls.append((kind, *args))
        queue = self.answers.get(kind)
        if not queue:
            raise AssertionError(f"unscripted decision {kind} {args}")
        ans = queue.pop(0)
        return ans(*args) if callable(ans) else ans

    def supply(self, st, seat, rng):
        return self._next("supply", seat)

    def look(self, st, seat, rng):
        return self._next("look", seat)

    def enter(self, st, seat, rows, rng):
        return self._next("enter", seat, rows)

    def cards(self, st, seat, r, rng):
        return self._next("cards", seat, r)

    def use_pass(self, st, seat, rng):
        return self._next("use_pass", seat)

    def target(self, st, seat, kind, candidates, rng):
        return self._next("target", seat, kind, candidates)

    def give(self, st, seat, k, to, kind, rng):
        return self._next("give", seat, k, to, kind)

    def hospital(self, st, seat, cap, rng):
        return self._next("hospital", seat, cap)


def enter(st: State, r: int, seat: int, cards: list[int]) -> None:
    """Put ``seat``'s disc and face-down ``cards`` on row position ``r`` (as phase C does)."""
    for t in range(N_TYPES):
        st.hands[seat][t] -= cards[t]
        assert st.hands[seat][t] >= 0, "test position: card not in hand"
    st.entries[r].append((seat, list(cards)))
    if st.cfg.building_action[st.cfg.card_building[st.row[r]]] == "guard_tower":
        st.protected |= 1 << seat
