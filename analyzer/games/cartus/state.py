"""The position of one Rattus Cartus game and its program counter: small ints, lists and tuples.

Hands are count vectors of length ``N_TYPES`` (indices 0..5 = population cards of the class
with that index, then ``JOKER``, ``SWORD``, ``FLUTE``, ``PASS``; see ``config.py``). A
population card's nun symbols only matter in the Nun-row (docs/rules/cartus.md §7.1 step 4), so the
deck, the discard pile and hands hold class indices only.

The rules run as a small program (``engine.py``): ``stack`` holds the steps still to do
(``Step`` tuples, last = next), and a step that needs a player's answer posts a decision
(``dec_kind`` … ``dec_opts``) and pauses the program until ``apply`` brings the answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

from analyzer.games.cartus.config import N_TYPES, CartusConfig

# One step of the rules program: (operation, three int arguments); see engine.py ``_OPS``.
Step = tuple[int, int, int, int]
# A face-down entry: (seat, card counts); the counts are never changed once entered.
Entry = tuple[int, tuple[int, ...]]

# decision kinds (docs/rules/cartus.md §11 decision points); 0 = no decision pending
# (Final: mypyc inlines them instead of looking them up in the module on every use)
NO_DECISION: Final = 0
SUPPLY: Final = 1
LOOK: Final = 2
ENTER: Final = 3
CARDS: Final = 4
USE_PASS: Final = 5
TARGET: Final = 6
GIVE: Final = 7
HOSPITAL: Final = 8
DECISION_NAMES: Final = ("", "supply", "look", "enter", "cards", "use_pass", "target", "give", "hospital")

# operations of the rules program: engine.py runs phases A–C and E, resolution.py phase D
OP_ROUND: Final = 0
OP_SUPPLY: Final = 1
OP_ENTER: Final = 2
OP_LOOK: Final = 3
OP_RESOLVE: Final = 4
OP_REVEAL: Final = 5
OP_SPECIAL: Final = 6
OP_ACTIONS: Final = 7
OP_PERFORM: Final = 8
OP_GIVE_TO: Final = 9
OP_CLEANUP: Final = 10
OP_END_ROUND: Final = 11

Log = Callable[[str], None] | None

_POSITIONS: Final = tuple(tuple(range(k)) for k in range(8))


def positions(k: int) -> tuple[int, ...]:
    """``(0, 1, …, k - 1)``: the options of a choice among ``k`` row or Nun-row positions."""
    return _POSITIONS[k] if k < 8 else tuple(range(k))


class State:
    """One game position (docs/rules/cartus.md §2–§4) with the rules program's counter.

    Per-seat lists are indexed by seat (0..n-1, clockwise). Piles are lists whose top is the
    last element. ``entries[r]`` lists ``(seat, counts)`` in space order for row position ``r``;
    ``counts`` is private to ``seat`` until building ``r`` is revealed (``revealed > r``), and
    ``sizes[r]`` holds the public part, ``(seat, number of cards)``.

    The pending decision: ``dec_kind`` (``SUPPLY`` …), the deciding seat ``dec_seat``, its
    arguments ``dec_a``, ``dec_b``, ``dec_c`` (meaning per kind, see ``engine.post``) and, for
    the kinds answered by one int, the options ``dec_opts`` in the order they are offered.
    """

    def __init__(self, cfg: CartusConfig) -> None:
        n = cfg.n_players
        nb = len(cfg.building_names)
        self.cfg = cfg
        self.n = n
        self.hands: list[list[int]] = [[0] * N_TYPES for _ in range(n)]
        self.rats: list[int] = [cfg.start_rats] * n
        self.influence: list[list[int]] = [[0] * len(cfg.class_names) for _ in range(n)]  # [seat][class]
        self.gold: list[int] = [0] * n
        self.vp: list[int] = [0] * n
        self.deck: list[int] = []  # population draw pile (class indices)
        self.discard: list[int] = []  # population discard pile, face up
        self.nun_row: list[int] = []  # nun symbols per Nun-row position
        self.nun_row_class: list[int] = []
        self.seen: list[int] = [0] * n  # per seat: bit p set = has looked at Nun-row position p
        self.building_deck: list[int] = []  # card ids, top last
        self.replacement: list[int] = []  # card ids, top last, bottom = index 0
        self.known_bottom = 0  # cards at the bottom of the replacement pile put there in the open (phase A)
        self.in_play: tuple[int, ...] = ()  # the 30 building card ids of this game
        self.supply: list[int] = list(cfg.supply)  # open supplies per card type (JOKER..PASS)
        self.gold_supply = cfg.gold_total
        self.vp_supply = cfg.vp_total
        self.start = 0
        self.first_start = 0  # the start player of round 1 (start_position, rules §3 step 8)
        self.round = 0  # 1-based once play starts
        self.row: list[int] = []
        self.entries: list[list[Entry]] = []
        self.sizes: list[list[tuple[int, int]]] = []  # public: (seat, cards) per entry
        self.revealed = 0  # row positions whose entries are face up (phase D step a)
        self.protected = 0  # bit s = seat s entered a Guard Tower this round
        self.round_influence: list[int] = [0] * n
        # record counters
        self.premium: list[list[int]] = [[0] * nb for _ in range(n)]  # [seat][building]
        self.standard: list[list[int]] = [[0] * nb for _ in range(n)]
        self.offclass: list[int] = [0] * n
        self.rats_gained: list[int] = [0] * n
        self.rats_discarded: list[int] = [0] * n
        self.rats_given: list[int] = [0] * n  # moved away by own Flutes
        # labelled defaults that decided something (metrics.GUESSES; the rest are counted at the end)
        self.acted_magic_b = 0  # actions of the guessed 12th building performed (§2, §5)
        self.acted_premium_tie = 0  # premium ties settled by tie_mode (§4 phase D b)
        self.acted_pass = 0  # Passes played for a second disc (pass_mode, §6)
        # the rules program (engine.py)
        self.stack: list[Step] = []
        self.dec_kind = NO_DECISION
        self.dec_seat = -1
        self.dec_a = 0
        self.dec_b = 0
        self.dec_c = 0
        self.dec_opts: tuple[int, ...] = ()
        self.rng = random.Random(0)  # chance (game_streams child 0)
        self.seed: Any = 0  # the game seed (int or SeedSequence), named in messages only
        self.log: Log = None
        self.uid = 0  # tells game objects apart (a clone is another object): engine.py numbers them

    def post(self, kind: int, seat: int, a: int = 0, b: int = 0, c: int = 0, opts: tuple[int, ...] = ()) -> None:
        """Pause the program: ``seat`` must answer a decision of ``kind`` (engine.py ``apply``)."""
        self.dec_kind = kind
        self.dec_seat = seat
        self.dec_a = a
        self.dec_b = b
        self.dec_c = c
        self.dec_opts = opts

    def hand_size(self, seat: int) -> int:
        """All cards in ``seat``'s hand (population, jokers, Swords, Flutes, Passes)."""
        return sum(self.hands[seat])

    def copy_to(self, other: State) -> None:
        """Make ``other`` an independent copy of this position (generator shared: the caller
        sets ``other.rng``; log not copied)."""
        other.cfg = self.cfg
        other.n = self.n
        other.hands = [list(h) for h in self.hands]
        other.rats = list(self.rats)
        other.influence = [list(x) for x in self.influence]
        other.gold = list(self.gold)
        other.vp = list(self.vp)
        other.deck = list(self.deck)
        other.discard = list(self.discard)
        other.nun_row = list(self.nun_row)
        other.nun_row_class = list(self.nun_row_class)
        other.seen = list(self.seen)
        other.building_deck = list(self.building_deck)
        other.replacement = list(self.replacement)
        other.known_bottom = self.known_bottom
        other.in_play = self.in_play
        other.supply = list(self.supply)
        other.gold_supply = self.gold_supply
        other.vp_supply = self.vp_supply
        other.start = self.start
        other.first_start = self.first_start
        other.round = self.round
        other.row = list(self.row)
        other.entries = [list(e) for e in self.entries]
        other.sizes = [list(e) for e in self.sizes]
        other.revealed = self.revealed
        other.protected = self.protected
        other.round_influence = list(self.round_influence)
        other.premium = [list(x) for x in self.premium]
        other.standard = [list(x) for x in self.standard]
        other.offclass = list(self.offclass)
        other.rats_gained = list(self.rats_gained)
        other.rats_discarded = list(self.rats_discarded)
        other.rats_given = list(self.rats_given)
        other.acted_magic_b = self.acted_magic_b
        other.acted_premium_tie = self.acted_premium_tie
        other.acted_pass = self.acted_pass
        other.stack = list(self.stack)
        other.dec_kind = self.dec_kind
        other.dec_seat = self.dec_seat
        other.dec_a = self.dec_a
        other.dec_b = self.dec_b
        other.dec_c = self.dec_c
        other.dec_opts = self.dec_opts
        other.rng = self.rng
        other.seed = self.seed
        other.log = None
        other.uid = self.uid

    def describe(self) -> str:
        """A one-line public summary for the replay log (influence abbreviated, see the legend)."""
        names = self.cfg.class_names
        parts = []
        for s in range(self.n):
            inf = " ".join(f"{names[k][:3]}{v}" for k, v in enumerate(self.influence[s]) if v)
            parts.append(f"seat {s}: hand {self.hand_size(s)} rats {self.rats[s]} gold {self.gold[s]}"
                         f" vp {self.vp[s]} [{inf}]")
        return "; ".join(parts)


def new_state(cfg: CartusConfig) -> State:
    """An empty position for ``cfg.n_players`` seats (piles empty; filled by setup or a test)."""
    return State(cfg)
