"""One seat's view of a Rattus game: what that seat may see, and nothing else (docs/rules/rattus.md §15).

Players decide from a ``RattusView`` (``analyzer.model.forward.SeatView``): the public board
(cubes, discs, class cards held, plague piece, caravan, how many rats lie in each region, supply
sizes), the seat's own region cards, the faces it has been shown (a Witch look, §8.1) and its
pending decision with that decision's context. Face-down tokens, the rat supply, other hands and
the deck are not reachable from here; search players get full states only through
``determinize``, which redraws them (``information.redraw_hidden``).

The lists returned are the game's own (no copies, for speed): read them, never change them.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from analyzer.games.rattus.config import CARD_NAMES, CLASSES, RattusConfig
from analyzer.games.rattus.core import GameCore, decision_context, determinized
from analyzer.games.rattus.state import State


class RattusView:
    """What ``seat`` sees of ``game`` (see the module docstring).

    Attributes
    ----------
    seat, n_players : int
    cfg : RattusConfig
        The rules and content in use (public).
    log : callable or None
        The replay log (``None`` when nobody reads it), for players that explain their choices.
    """

    __slots__ = ("_cls", "_seed", "_st", "cfg", "log", "n_players", "seat")

    def __init__(self, game: GameCore, seat: int):
        # the position, not the game: the game keeps its views, and a view that kept the game
        # would make a reference cycle (every game left to the cyclic garbage collector)
        self._st: State = game.state
        self._cls: type[GameCore] = type(game)
        self._seed = game.seed
        self.cfg: RattusConfig = game.cfg
        self.seat = seat
        self.n_players = game.cfg.n_players
        self.log: Callable[[str], None] | None = game.log

    # ------------------------------------------------------------ the decision

    def decision_kind(self) -> str:
        """The pending decision's kind if this seat decides it, else ``""``."""
        st = self._st
        return st.kind if st.seat == self.seat else ""

    def legal_actions(self) -> tuple:
        """The options of this seat's pending decision (``()`` when another seat decides)."""
        st = self._st
        return st.options if st.seat == self.seat else ()

    def search_actions(self) -> tuple:
        """What a search branches on: every legal option (``forward.SeatView.search_actions``)."""
        st = self._st
        return st.options if st.seat == self.seat else ()

    def context(self) -> Any:
        """The pending decision's context when this seat decides it (``GameCore.context``), else None."""
        return decision_context(self._st) if self._st.seat == self.seat else None

    @property
    def serial(self) -> int:
        """Decisions taken so far in this game (forced ones included): tells consecutive decisions apart."""
        return self._st.serial

    def determinize(self, seed: int) -> GameCore:
        """A full game consistent with this view, hidden facts redrawn (``core.determinized``)."""
        return determinized(self._cls, self.cfg, self._st, self.seat, seed, self._seed)

    def describe_action(self, action: Hashable) -> str:
        """A short readable name of one option of the pending decision, for the replay log."""
        return describe_action(self.cfg, self._st.kind, action)

    # ------------------------------------------------------------ public board

    @property
    def cubes(self) -> list[list[int]]:
        """Cubes per region and seat, shape (n_regions, n_players)."""
        return self._st.cubes

    @property
    def discs(self) -> list[list[int]]:
        """Diplomat discs per region and seat (0/1), shape (n_regions, n_players) (§2.3)."""
        return self._st.discs

    @property
    def supply_cubes(self) -> list[int]:
        """Cubes each seat still has in supply."""
        return self._st.supply_cubes

    @property
    def palace(self) -> list[int]:
        """Cubes each seat has in the palace (§8.1 King)."""
        return self._st.palace

    @property
    def holder(self) -> list[int]:
        """Seat holding each class card (``CARD_NAMES`` order), -1 untaken, -2 not in play."""
        return self._st.holder

    @property
    def held_class(self) -> list[list[int]]:
        """Class cards each seat holds, counted per class, shape (n_players, number of classes)."""
        return self._st.held_class

    @property
    def plague(self) -> int:
        """Region of the plague piece."""
        return self._st.plague

    @property
    def caravan(self) -> int:
        """Region of the caravan (-1 without Africanus)."""
        return self._st.caravan

    @property
    def disc_supply(self) -> int:
        """Diplomat discs left in the supply."""
        return self._st.disc_supply

    @property
    def rats(self) -> list[int]:
        """Face-down rat tokens in each region (a count: their faces are hidden)."""
        tokens = self._st.tokens
        out = [0] * len(tokens)
        for r in range(len(tokens)):
            out[r] = len(tokens[r])
        return out

    def rats_in(self, r: int) -> int:
        """Face-down rat tokens in region ``r``."""
        return len(self._st.tokens[r])

    @property
    def supply_rats(self) -> int:
        """Tokens left in the rat supply."""
        return len(self._st.supply_tokens)

    @property
    def active(self) -> int:
        """The seat whose (regular or final) turn it is."""
        return self._st.active

    @property
    def turns(self) -> int:
        """Regular turns played so far."""
        return self._st.turns

    @property
    def phase(self) -> str:
        """``setup``, ``regular``, ``final_round``, ``final_plague`` or ``over``."""
        return self._st.phase

    # ------------------------------------------------------------ what this seat holds or was shown

    @property
    def hand(self) -> tuple[int, ...]:
        """This seat's region cards (ids into ``cfg.rcard_region``)."""
        return tuple(self._st.hands[self.seat])

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Region cards in each seat's hand."""
        return tuple(len(h) for h in self._st.hands)

    def known_tokens(self) -> tuple[tuple[int, int, int], ...]:
        """``(region, index, token id)`` of each face-down token whose face this seat has seen."""
        st = self._st
        me = 1 << self.seat
        return tuple((r, i, t) for r, (toks, flags) in enumerate(zip(st.tokens, st.token_flags))
                     for i, (t, f) in enumerate(zip(toks, flags)) if f & me)


# decision kinds whose options are regions -> how an option reads
_REGION_ACTIONS = {"opening": "2 cubes in", "place": "place in", "plague_move": "plague to", "spread": "new rat in",
                   "final_order": "resolve", "king": "palace cube from", "sultan": "diplomat in",
                   "peasant": "1 cube in", "knight": "plague piece to"}
_STEPS = {"take": "take a card", "place": "place cubes", "plague": "move the plague", "done": "end the turn"}


def describe_action(cfg: RattusConfig, kind: str, action: Any) -> str:
    """A readable name of option ``action`` of a decision of ``kind`` (regions and cards by name)."""
    names = cfg.region_names
    if kind in _REGION_ACTIONS:
        return f"{_REGION_ACTIONS[kind]} {names[action]}"
    if kind == "take":
        return f"take {CARD_NAMES[action]}"
    if kind == "merchant":
        src, dst, k, disc = action
        return f"{k} cube{'s' if k != 1 else ''}{' with disc' if disc else ''} {names[src]} -> {names[dst]}"
    if kind == "monk":
        src, i, dst = action
        return f"rat {i + 1} {names[src]} -> {names[dst]}"
    if kind in ("witch_first", "witch_second"):
        r, i = action
        return f"rat {i + 1} in {names[r]}"
    if kind == "witch_swap":
        return "swap" if action else "no swap"
    if kind == "trader":
        mid, end = action
        return f"caravan via {names[mid]} to {names[end]}"
    if kind == "caravan_bonus":
        return "bonus cube" if action else "decline"
    if kind in ("astronomer", "explorer"):
        return cfg.rcard_labels[action]
    if kind == "region_card":
        if action is None:
            return "no region card"
        cid, k = action
        return f"region card {cfg.rcard_labels[cid]} for {CLASSES[k]}"
    if kind in ("step", "final_step"):
        return _STEPS.get(action, f"use {action}")
    return str(action)
