"""The mutable Rattus position: per-region and per-seat lists of small ints, nothing else.

Regions and seats are indices (see ``RattusConfig``). No generator and no per-move objects live
here; the engine mutates these lists in place (docs/rules/rattus.md §3, §6).
"""

from __future__ import annotations

import copy as _copy
from dataclasses import dataclass, field

from analyzer.games.rattus.config import CARD_NAMES, RattusConfig

NOT_IN_PLAY = -2  # holder value of a class card not used this game
UNTAKEN = -1  # holder value of a card lying beside the board


@dataclass(slots=True)
class State:
    """One game position (docs/rules/rattus.md §3, §6).

    Attributes
    ----------
    cubes, discs : list of list of int, shape (n_regions, n_players)
        Cubes of each seat in each region; ``discs[r][p]`` is 1 if one of them carries p's
        diplomat disc (§2.3, at most one per seat per region).
    tokens : list of list of int, shape (n_regions, <= rat_cap)
        Face-down token ids (indices into ``cfg.tokens``) lying in each region.
    supply_tokens : list of int
        Face-down rat supply; draws take the last element (shuffled at setup).
    holder : list of int, shape (10,)
        Seat holding each class card (``CARD_NAMES`` order), ``UNTAKEN`` or ``NOT_IN_PLAY``.
    held_class : list of list of int, shape (n_players, 7)
        Class cards held per class (kept in step with ``holder``).
    hands, deck, rdiscard : list
        Region-card ids in each hand, the draw deck (draw from the end) and the discard pile.
    tag_own, tag_recv : list of list of int, shape (n_regions, n_players)
        Caravan bonus cubes still standing that came from the seat's own / others' caravan moves.
        Convention (cubes are identical): tagged cubes leave a region last.
    """

    cfg: RattusConfig
    cubes: list[list[int]]
    discs: list[list[int]]
    tokens: list[list[int]]
    supply_tokens: list[int]
    supply_cubes: list[int]
    palace: list[int]
    holder: list[int]
    held_class: list[list[int]]
    plague: int = 0
    caravan: int = -1
    disc_supply: int = 0
    hands: list[list[int]] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    rdiscard: list[int] = field(default_factory=list)
    discarded_tokens: int = 0
    start_seat: int = 0
    active: int = 0
    turns: int = 0
    phase: str = "setup"  # setup | regular | final_round | final_plague | over
    last_seat: int = -1  # L: the player of the last regular turn (§10.2)
    trigger_seat: int = -1
    end: str = ""
    final_round_turns: int = 0
    # per-seat statistics for the records
    cubes_placed: list[int] = field(default_factory=list)
    cubes_lost: list[int] = field(default_factory=list)
    diplomats_placed: list[int] = field(default_factory=list)
    caravan_moves: list[int] = field(default_factory=list)
    caravan_own: list[int] = field(default_factory=list)
    caravan_given: list[int] = field(default_factory=list)
    caravan_received: list[int] = field(default_factory=list)
    tag_own: list[list[int]] = field(default_factory=list)
    tag_recv: list[list[int]] = field(default_factory=list)
    palace_tag_own: list[int] = field(default_factory=list)
    palace_tag_recv: list[int] = field(default_factory=list)
    took: list[list[int]] = field(default_factory=list)  # [seat][card]: times taken (§7 A)

    @classmethod
    def empty(cls, cfg: RattusConfig) -> State:
        """A position with an empty board, full cube supplies and no cards in play."""
        n, nr = cfg.n_players, cfg.n_regions
        zeros = [[0] * n for _ in range(nr)]
        return cls(
            cfg=cfg, cubes=[[0] * n for _ in range(nr)], discs=[[0] * n for _ in range(nr)],
            tokens=[[] for _ in range(nr)], supply_tokens=[], supply_cubes=[cfg.cubes_per_player] * n,
            palace=[0] * n, holder=[NOT_IN_PLAY] * len(CARD_NAMES), held_class=[[0] * 7 for _ in range(n)],
            disc_supply=cfg.diplomat_discs, hands=[[] for _ in range(n)],
            cubes_placed=[0] * n, cubes_lost=[0] * n, diplomats_placed=[0] * n, caravan_moves=[0] * n,
            caravan_own=[0] * n, caravan_given=[0] * n, caravan_received=[0] * n,
            tag_own=zeros, tag_recv=[[0] * n for _ in range(nr)], palace_tag_own=[0] * n,
            palace_tag_recv=[0] * n, took=[[0] * len(CARD_NAMES) for _ in range(n)],
        )

    def copy(self) -> State:
        """An independent copy (lists copied, config shared) for look-ahead."""
        new = _copy.copy(self)
        for name in self.__slots__:
            v = getattr(self, name)
            if isinstance(v, list):
                setattr(new, name, [x[:] if isinstance(x, list) else x for x in v])
        return new

    def cards_of(self, seat: int) -> list[str]:
        """Names of the class cards ``seat`` holds, in card order."""
        return [CARD_NAMES[c] for c, h in enumerate(self.holder) if h == seat]

    def on_board(self, seat: int) -> int:
        """Cubes of ``seat`` in regions (palace excluded)."""
        return sum(row[seat] for row in self.cubes)

    def describe(self) -> str:
        """A few readable lines: tokens and cubes per region, supplies, palace, cards."""
        cfg = self.cfg
        lines = []
        for r, name in enumerate(cfg.region_names):
            marks = ("P" if r == self.plague else "") + ("C" if r == self.caravan else "")
            cubes = " ".join(f"{c}{'d' if d else ''}" for c, d in zip(self.cubes[r], self.discs[r]))
            lines.append(f"  {name:<9} rats {len(self.tokens[r])} cubes [{cubes}] {marks}")
        lines.append(f"  supply cubes {self.supply_cubes} palace {self.palace} rats left {len(self.supply_tokens)}")
        lines.append("  cards " + ", ".join(f"{s}: {'/'.join(self.cards_of(s)) or '-'}"
                                            for s in range(cfg.n_players)))
        return "\n".join(lines)
