"""The mutable position of one Rattus Cartus game: small ints and lists only.

Hands are count vectors of length ``N_TYPES`` (indices 0..5 = population cards of the class
with that index, then ``JOKER``, ``SWORD``, ``FLUTE``, ``PASS``; see ``config.py``). A
population card's nun symbols only matter in the Nun-row (docs/rules/cartus.md §7.1 step 4), so the
deck, the discard pile and hands hold class indices only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.games.cartus.config import N_TYPES, CartusConfig


@dataclass(slots=True)
class State:
    """One game position (docs/rules/cartus.md §2–§4).

    Per-seat lists are indexed by seat (0..n-1, clockwise). Piles are lists whose top is the
    last element. ``entries[r]`` lists ``(seat, counts)`` in space order for row position ``r``;
    ``counts`` is private to ``seat`` until step a — a policy may only read ``sum(counts)``.
    """

    cfg: CartusConfig
    n: int
    hands: list[list[int]]
    rats: list[int]
    influence: list[list[int]]  # [seat][class]
    gold: list[int]
    vp: list[int]
    deck: list[int]  # population draw pile (class indices)
    discard: list[int]  # population discard pile, face up
    nun_row: list[int]  # nun symbols per Nun-row position
    nun_row_class: list[int]
    seen: list[int]  # per seat: bit p set = has looked at Nun-row position p
    building_deck: list[int]  # card ids, top last
    replacement: list[int]  # card ids, top last, bottom = index 0
    in_play: tuple[int, ...]  # the 30 building card ids of this game
    supply: list[int]  # open supplies per card type (JOKER..PASS)
    gold_supply: int
    vp_supply: int
    start: int = 0
    round: int = 0  # 1-based once play starts
    row: list[int] = field(default_factory=list)
    entries: list[list[tuple[int, list[int]]]] = field(default_factory=list)
    protected: int = 0  # bit s = seat s entered a Guard Tower this round
    round_influence: list[int] = field(default_factory=list)
    # record counters
    premium: list[list[int]] = field(default_factory=list)  # [seat][building]
    standard: list[list[int]] = field(default_factory=list)
    offclass: list[int] = field(default_factory=list)
    rats_gained: list[int] = field(default_factory=list)
    rats_discarded: list[int] = field(default_factory=list)
    rats_given: list[int] = field(default_factory=list)  # moved away by own Flutes

    def hand_size(self, seat: int) -> int:
        """All cards in ``seat``'s hand (population, jokers, Swords, Flutes, Passes)."""
        return sum(self.hands[seat])

    def describe(self) -> str:
        """A one-line public summary for the replay log."""
        names = self.cfg.class_names
        parts = []
        for s in range(self.n):
            inf = " ".join(f"{names[k][:3]}{v}" for k, v in enumerate(self.influence[s]) if v)
            parts.append(f"seat {s}: hand {self.hand_size(s)} rats {self.rats[s]} gold {self.gold[s]}"
                         f" vp {self.vp[s]} [{inf}]")
        return "; ".join(parts)


def new_state(cfg: CartusConfig) -> State:
    """An empty position for ``cfg.n_players`` seats (piles empty; filled by setup or a test)."""
    n = cfg.n_players
    nb = len(cfg.building_names)
    return State(
        cfg=cfg, n=n,
        hands=[[0] * N_TYPES for _ in range(n)],
        rats=[cfg.start_rats] * n,
        influence=[[0] * len(cfg.class_names) for _ in range(n)],
        gold=[0] * n, vp=[0] * n,
        deck=[], discard=[], nun_row=[], nun_row_class=[], seen=[0] * n,
        building_deck=[], replacement=[], in_play=(),
        supply=list(cfg.supply), gold_supply=cfg.gold_total, vp_supply=cfg.vp_total,
        round_influence=[0] * n,
        premium=[[0] * nb for _ in range(n)], standard=[[0] * nb for _ in range(n)],
        offclass=[0] * n, rats_gained=[0] * n, rats_discarded=[0] * n, rats_given=[0] * n,
    )
