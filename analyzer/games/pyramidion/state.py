"""The mutable Pyramidion position: small ints and lists indexed by seat, site or good.

No generator, no per-move objects; the config is referenced, not copied. Decision kinds are
module constants so policies and the engine share them (docs/rules/pyramidion.md §14.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analyzer.games.pyramidion.config import GOODS, PyramidionConfig

# Decision kinds (rules §14.1). Options are tuples of small ints / tuples, in a fixed order.
ACTIVATE = "activate"  # D1: option = site index
CAIRO = "cairo"  # D2: option = -1 (decline) or give_kind * 5 + take_kind
PLAY = "play"  # D3: option = card instance id, or PASS
GODDESS_CATEGORY = "goddess_category"  # D3a: option = category 0 influence, 1 negotiation, 2 trade
EXECUTIONER_TARGET = "executioner_target"  # D3b: option = index into the site's played-card lists
THIEF_TARGET = "thief_target"  # D3c: option = (opponent seat, good kind)
RECRUIT = "recruit"  # D4: option = -1 (no) or card instance id to discard
LOAD = "load"  # D5: option = PASS or (boat id, tuple of site indices whose tiles are used)
KEEP = "keep"  # D6: option = -1 (none) or common card instance id to keep
PASS = -1


@dataclass(slots=True)
class State:
    """One Pyramidion position.

    Per seat (length ``n``): ``hand``, ``aside`` (starting cards out of play until phase 4),
    ``goods`` (6 counts: 5 ordinary kinds + statues), ``boats`` (boat ids), ``vp``,
    ``sd_left`` / ``ng_left`` (tiles still in the player's supply). Per site: ``site_goods``,
    ``sd_owner`` / ``ng_owner`` (seat or -1), ``sd_used``, ``sundial``. The cards played at the
    site being resolved are parallel lists ``pc_*`` (seat, card, Goddess category, still at
    the site, Executioner target index or -1) with running ``totals[category][seat]``.
    """

    cfg: PyramidionConfig
    n: int
    order: list[int]
    round: int = 0
    hand: list[list[int]] = field(default_factory=list)
    aside: list[list[int]] = field(default_factory=list)
    kept: list[list[int]] = field(default_factory=list)
    draw_pile: list[int] = field(default_factory=list)
    discard_pile: list[int] = field(default_factory=list)
    goods: list[list[int]] = field(default_factory=list)
    supply: list[int] = field(default_factory=list)
    site_goods: list[int] = field(default_factory=list)
    sd_owner: list[int] = field(default_factory=list)
    ng_owner: list[int] = field(default_factory=list)
    sd_used: list[bool] = field(default_factory=list)
    sundial: list[bool] = field(default_factory=list)
    sd_left: list[int] = field(default_factory=list)
    ng_left: list[int] = field(default_factory=list)
    display: list[int] = field(default_factory=list)
    boat_deck: list[int] = field(default_factory=list)
    boats: list[list[int]] = field(default_factory=list)
    vp: list[int] = field(default_factory=list)
    dist_deck: list[int] = field(default_factory=list)
    dist_discard: list[int] = field(default_factory=list)
    revolt_stack: list[int] = field(default_factory=list)
    philosopher: int = -1
    giza_takers: list[int] = field(default_factory=list)
    # the site being resolved (phase 5)
    site: int = -1
    pc_seat: list[int] = field(default_factory=list)
    pc_card: list[int] = field(default_factory=list)
    pc_cat: list[int] = field(default_factory=list)
    pc_alive: list[bool] = field(default_factory=list)
    pc_mark: list[int] = field(default_factory=list)
    totals: list[list[int]] = field(default_factory=list)
    first_to_target: int = -1

    @classmethod
    def empty(cls, cfg: PyramidionConfig) -> State:
        """A set-up position before any chance (rules §4): no goods, tiles or boats anywhere."""
        n, s = cfg.players, cfg.n_sites
        return cls(
            cfg=cfg, n=n, order=list(range(n)),
            hand=[[] for _ in range(n)], aside=[list(cfg.starting[p]) for p in range(n)],
            kept=[[] for _ in range(n)],
            draw_pile=list(range(cfg.n_common)),
            goods=[[0] * len(GOODS) for _ in range(n)], supply=list(cfg.supply_start),
            site_goods=[0] * s, sd_owner=[-1] * s, ng_owner=[-1] * s, sd_used=[False] * s,
            sundial=[False] * s, sd_left=[cfg.tiles_per_colour] * n,
            ng_left=[cfg.tiles_per_colour] * n,
            boat_deck=list(range(len(cfg.boat_names))), boats=[[] for _ in range(n)],
            vp=[0] * n, dist_deck=list(range(len(cfg.dist_goods))),
            revolt_stack=list(range(len(cfg.revolt_strength))),
            totals=[[0] * n for _ in range(3)],
        )

    def goods_total(self, kind: int) -> int:
        """Supply + sites + players for one good (constant: rules §3.1 conservation)."""
        cfg = self.cfg
        on_sites = sum(g for g, k in zip(self.site_goods, cfg.site_kind) if k == kind)
        return self.supply[kind] + on_sites + sum(p[kind] for p in self.goods)

    def all_cards(self) -> list[int]:
        """Every card instance wherever it is (hands, piles, aside, kept, at the site)."""
        out = list(self.draw_pile) + list(self.discard_pile)
        for p in range(self.n):
            out += self.hand[p] + self.aside[p] + self.kept[p]
        out += [c for c, alive in zip(self.pc_card, self.pc_alive) if alive]
        return out

    def describe(self) -> str:
        """One line per seat for the replay log: VP, boats, goods, hand size, tiles."""
        cfg = self.cfg
        lines = []
        for p in range(self.n):
            g = " ".join(f"{GOODS[k]}={v}" for k, v in enumerate(self.goods[p]) if v)
            lines.append(f"  seat {p}: vp={self.vp[p]} boats={len(self.boats[p])} goods[{g}] "
                         f"hand={len(self.hand[p])} tiles sd={cfg.tiles_per_colour - self.sd_left[p]} "
                         f"ng={cfg.tiles_per_colour - self.ng_left[p]}")
        return "\n".join(lines)
