"""What one Pyramidion seat may see when it decides (docs/rules/pyramidion.md §14.2).

A ``View`` is handed to a player instead of the game: its own hand, the public board (goods on
the sites, tiles, boats on display, the cards at the current site, sundials, player order,
hand sizes, the face-up discard piles, the Philosopher holder) and, as far as the §3.1
(``goods_visible``) and §5 phase 7 (``boat_vp_public``) options allow, the other seats' goods
and VP. Other hands, the order of every deck and stack, and — under those options — the other
seats' goods and boats are not reachable through it: the first have no accessor, asking for the
others raises ``HiddenInformation``.

The lists it returns are the game's own (no copy, for speed): a player reads them, never
changes them. A view shows the game as it is now; the game does not keep it (no reference
cycle: a finished game, and each of a search's playout copies, is freed at once).
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from analyzer.errors import HiddenInformation
from analyzer.games.pyramidion.config import PyramidionConfig
from analyzer.games.pyramidion.state import State

if TYPE_CHECKING:
    from analyzer.games.pyramidion.engine import Game


class View:
    """Seat ``seat``'s view of a game at its decision (the ``SeatView`` of model/forward.py)."""

    def __init__(self, game: Game, seat: int):
        self._game = game
        self._st: State = game.st
        self.seat = seat
        self.n_players = game.st.n

    @property
    def log(self) -> Callable[[str], None] | None:
        """The game's replay log (None when nobody reads it)."""
        return self._game.log

    # -- the decision

    def decision_kind(self) -> str:
        """The kind of the pending decision (state.py D1–D6) if this seat decides it, else ``""``."""
        st = self._st
        return st.kind if st.to_move == self.seat else ""

    def legal_actions(self) -> tuple:
        """The options offered to this seat, in the fixed order of §14.3 (``()`` when another
        seat decides)."""
        st = self._st
        return st.options if st.to_move == self.seat else ()

    def search_actions(self) -> tuple:
        """What a search branches on: every legal option (``forward.SeatView.search_actions``)."""
        return self.legal_actions()

    def determinize(self, seed: int) -> Game:
        """A full game consistent with this seat's information (``Game.determinize``)."""
        return self._game.determinize(self.seat, seed)

    def describe_action(self, action: Hashable) -> str:
        """A readable name of one legal action."""
        return self._game.describe_action(action)

    # -- rules and the public board

    @property
    def cfg(self) -> PyramidionConfig:
        """The rules and content tables in use (public)."""
        return self._st.cfg

    @property
    def n(self) -> int:
        return self._st.n

    @property
    def round(self) -> int:
        return self._st.round

    @property
    def order(self) -> list[int]:
        return self._st.order

    @property
    def site(self) -> int:
        """The site being activated or played (-1 between sites)."""
        return self._st.site

    @property
    def site_goods(self) -> list[int]:
        return self._st.site_goods

    @property
    def supply(self) -> list[int]:
        return self._st.supply

    @property
    def sd_owner(self) -> list[int]:
        return self._st.sd_owner

    @property
    def ng_owner(self) -> list[int]:
        return self._st.ng_owner

    @property
    def sd_used(self) -> list[bool]:
        return self._st.sd_used

    @property
    def sd_left(self) -> list[int]:
        return self._st.sd_left

    @property
    def ng_left(self) -> list[int]:
        return self._st.ng_left

    @property
    def sundial(self) -> list[bool]:
        return self._st.sundial

    @property
    def display(self) -> list[int]:
        """Boats on display (ids)."""
        return self._st.display

    @property
    def philosopher(self) -> int:
        return self._st.philosopher

    @property
    def giza_tiles(self) -> list[int]:
        """Per player-order tile (tile 1 first): the seat holding it, or -1 while on Giza."""
        return self._st.giza_tiles

    @property
    def discard_pile(self) -> list[int]:
        return self._st.discard_pile

    @property
    def dist_discard(self) -> list[int]:
        return self._st.dist_discard

    # the cards played at the current site (face up, with Goddess categories and marks)

    @property
    def pc_seat(self) -> list[int]:
        return self._st.pc_seat

    @property
    def pc_card(self) -> list[int]:
        return self._st.pc_card

    @property
    def pc_cat(self) -> list[int]:
        return self._st.pc_cat

    @property
    def pc_alive(self) -> list[bool]:
        return self._st.pc_alive

    @property
    def pc_mark(self) -> list[int]:
        return self._st.pc_mark

    @property
    def totals(self) -> list[list[int]]:
        """``totals[category][seat]`` over the cards still at the site."""
        return self._st.totals

    # -- the seat's own things, and the others' as far as they are public

    @property
    def hand(self) -> list[int]:
        """This seat's hand (card instance ids, sorted)."""
        return self._st.hand[self.seat]

    def hand_size(self, q: int) -> int:
        return len(self._st.hand[q])

    def aside(self, q: int) -> list[int]:
        """Seat ``q``'s starting cards set aside until phase 4 (public)."""
        return self._st.aside[q]

    @property
    def own_goods(self) -> list[int]:
        """This seat's goods per kind (5 ordinary kinds + statues)."""
        return self._st.goods[self.seat]

    def goods(self, q: int) -> list[int]:
        """Seat ``q``'s goods per kind.

        Raises
        ------
        HiddenInformation
            ``q`` is another seat and goods are hidden (``goods_visible = false``).
        """
        if q != self.seat and not self._st.cfg.goods_visible:
            raise HiddenInformation(f"seat {self.seat} cannot see seat {q}'s goods (goods_visible = false)")
        return self._st.goods[q]

    def goods_count(self, q: int) -> int:
        """How many goods seat ``q`` holds (public under either goods option)."""
        return sum(self._st.goods[q])

    def boat_count(self, q: int) -> int:
        return len(self._st.boats[q])

    def vp(self, q: int) -> int:
        """Seat ``q``'s VP.

        Raises
        ------
        HiddenInformation
            ``q`` is another seat and boats are hidden (``boat_vp_public = false``).
        """
        if q != self.seat and not self._st.cfg.boat_vp_public:
            raise HiddenInformation(f"seat {self.seat} cannot see seat {q}'s VP (boat_vp_public = false)")
        return self._st.vp[q]
