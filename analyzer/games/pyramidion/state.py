"""The mutable Pyramidion position: small ints and lists indexed by seat, site, good or card.

No generator and no per-move objects; the config is referenced, not copied. The position
includes the program counter of the forward model (``step``, the pending decision ``kind`` /
``to_move`` / ``options`` and the loop counters of phases 5, 7 and 8), so a copy of the
position is a copy of the game in progress. Decision kinds are module constants shared by the
engine and the policies (docs/rules/pyramidion.md §14.1).
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from analyzer.games.pyramidion.config import GOODS, PyramidionConfig
from analyzer.games.pyramidion.metrics import Tally
from analyzer.model.copying import copy_fields, field_names

# Decision kinds (rules §14.1). Options are tuples of small ints / tuples, in a fixed order.
# Constants are Final: mypyc compiles them in place.
ACTIVATE: Final = "activate"  # D1: option = site index
CAIRO: Final = "cairo"  # D2: option = PASS (decline) or give_kind * 5 + take_kind
PLAY: Final = "play"  # D3: option = card instance id, or PASS
GODDESS_CATEGORY: Final = "goddess_category"  # D3a: option = category 0 influence, 1 negotiation, 2 trade
EXECUTIONER_TARGET: Final = "executioner_target"  # D3b: option = index into the site's played-card lists
# D3c: option = (opponent seat, good kind); with hidden goods (§3.1 variant) the good cannot be
# chosen: option = (opponent seat, NO_GOOD) and the good is drawn blind
THIEF_TARGET: Final = "thief_target"
RECRUIT: Final = "recruit"  # D4: option = PASS (no) or card instance id to discard
LOAD: Final = "load"  # D5: option = PASS or (boat id, tuple of site indices whose tiles are used)
KEEP: Final = "keep"  # D6: option = PASS (none) or common card instance id to keep
PASS: Final = -1
NO_GOOD: Final = -1
NOBODY: Final = -1  # no seat: no tile owner, no Philosopher holder, nobody reached the target yet

# Program counter (``State.step``): what ``engine.Game.advance`` does next.
ROUND_START: Final = 0  # phases 1-4 of a new round (§5)
ACTIVATION: Final = 1  # the next activation of phase 5 (D1), or phase 6 after the last one
CARD_TURN: Final = 2  # the next card-play turn at the site (D3), or its resolution once all passed
LOADING: Final = 3  # the next loading turn of phase 7 (D5), or phase 8 once loading is over
ROUND_END: Final = 4  # phase 8 (§5) and the end check (§6)
KEEPING: Final = 5  # phase 8 variant B: the next keep choice (D6), then the rest of phase 8


@dataclass(slots=True)
class State:
    """One Pyramidion position, program counter included.

    Per seat (length ``n``): ``hand`` (sorted), ``aside`` (starting cards out of play until
    phase 4), ``kept`` (phase 8 variant B), ``goods`` (6 counts: 5 ordinary kinds + statues),
    ``boats`` (boat ids in load order), ``vp``, ``sd_left`` / ``ng_left`` (tiles still in the
    player's supply), ``giza_tiles`` (per player-order tile, tile ``k + 1`` at index ``k``: the
    seat holding it this round, or ``NOBODY`` while it lies on Giza). Per site: ``site_goods``, ``sd_owner`` / ``ng_owner`` (seat or
    ``NOBODY``), ``sd_used``, ``sundial``. The cards played at the site being resolved are
    parallel lists ``pc_*`` (seat, card, Goddess category or -1, still at the site,
    Executioner target index or -1) with running ``totals[category][seat]``.

    Per card instance: ``pub`` (its place in a hand is public: a starting card, or a High
    Priest back from its site) and ``epoch`` (how many times the discards had been reshuffled
    into the draw pile when it was drawn) — what the other seats know about a hidden card.

    Program counter: ``step`` (above), the pending decision (``kind`` — "" when none —,
    ``to_move``, ``options``), ``end`` ("" while the game runs, else the end reason) and the
    loop counters: phase 5 ``act_i`` (activations done), ``turn`` / ``passed`` / ``acted`` /
    ``n_passed`` (card play at the site) and ``giza_card`` (per seat: the played card that took
    a Giza tile, or -1); phase 7 ``load_i`` / ``passes`` / ``out``; phase 8 ``keep_i`` /
    ``keep_left``.
    """

    cfg: PyramidionConfig
    n: int
    tally: Tally
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
    boats_before_round: list[int] = field(default_factory=list)  # boats held when the round began
    vp: list[int] = field(default_factory=list)
    dist_deck: list[int] = field(default_factory=list)
    dist_discard: list[int] = field(default_factory=list)
    revolt_stack: list[int] = field(default_factory=list)
    philosopher: int = NOBODY
    giza_tiles: list[int] = field(default_factory=list)  # holder of player-order tile k+1, or NOBODY
    first_to_target: int = NOBODY
    pub: list[bool] = field(default_factory=list)
    epoch: list[int] = field(default_factory=list)
    reshuffles: int = 0
    # the site being resolved (phase 5)
    site: int = -1
    pc_seat: list[int] = field(default_factory=list)
    pc_card: list[int] = field(default_factory=list)
    pc_cat: list[int] = field(default_factory=list)
    pc_alive: list[bool] = field(default_factory=list)
    pc_mark: list[int] = field(default_factory=list)
    totals: list[list[int]] = field(default_factory=list)
    # program counter
    step: int = ROUND_START
    kind: str = ""
    to_move: int = 0
    options: tuple = ()
    end: str = ""
    decisions: int = 0
    act_i: int = 0
    turn: int = 0
    passed: list[bool] = field(default_factory=list)
    acted: list[bool] = field(default_factory=list)
    n_passed: int = 0
    giza_card: list[int] = field(default_factory=list)
    load_i: int = 0
    passes: int = 0
    out: list[bool] = field(default_factory=list)
    keep_i: int = 0
    keep_left: int = -1

    @classmethod
    def empty(cls, cfg: PyramidionConfig) -> State:
        """A set-up position before any chance (rules §4): no goods, tiles or boats anywhere."""
        n, s = cfg.players, cfg.n_sites
        n_cards = len(cfg.card_type)
        return cls(
            cfg=cfg, n=n, tally=Tally(n, s), order=list(range(n)),
            hand=[[] for _ in range(n)], aside=[list(cfg.starting[p]) for p in range(n)],
            kept=[[] for _ in range(n)],
            draw_pile=list(range(cfg.n_common)),
            goods=[[0] * len(GOODS) for _ in range(n)], supply=list(cfg.supply_start),
            site_goods=[0] * s, sd_owner=[NOBODY] * s, ng_owner=[NOBODY] * s, sd_used=[False] * s,
            sundial=[False] * s, sd_left=[cfg.tiles_per_colour] * n,
            ng_left=[cfg.tiles_per_colour] * n,
            boat_deck=list(range(len(cfg.boat_names))), boats=[[] for _ in range(n)],
            boats_before_round=[0] * n,
            vp=[0] * n, dist_deck=list(range(len(cfg.dist_goods))),
            revolt_stack=list(range(len(cfg.revolt_strength))),
            pub=[cfg.card_owner[c] >= 0 for c in range(n_cards)], epoch=[0] * n_cards,
            totals=[[0] * n for _ in range(3)],
            giza_tiles=[NOBODY] * n,
            passed=[False] * n, acted=[False] * n, giza_card=[-1] * n, out=[False] * n,
        )

    def copy(self) -> State:
        """An independent copy: every list copied (``copy_fields``), the tally by its own
        ``copy``; the config and the option tuple shared."""
        out = copy_fields(self, _FIELDS)
        out.tally = self.tally.copy()
        return out

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


_FIELDS: Final = field_names(State)  # in declaration order: what copy() copies
