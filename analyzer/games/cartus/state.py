"""The position of one Rattus Cartus game and its program counter: small ints, lists and tuples.

Hands are count vectors of length ``N_TYPES`` (indices 0..5 = population cards of the class
with that index, then ``JOKER``, ``SWORD``, ``FLUTE``, ``PASS``; see ``config.py``). A
population card's nun symbols only matter in the Nun-row (docs/rules/cartus.md §7.1 step 4), so the
deck, the discard pile and hands hold class indices only.

The rules run as a small program (``engine.py``): ``stack`` holds the steps still to do
(``Step`` tuples, last = next), and a step that needs a player's answer posts a decision
(``dec_kind`` … ``dec_opts``) and pauses the program until ``apply`` brings the answer.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from analyzer.games.cartus.config import N_TYPES, CartusConfig
from analyzer.model.copying import field_names

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

_UIDS: Final = itertools.count(1)
_POSITIONS: Final = tuple(tuple(range(k)) for k in range(8))


def _unused_chance() -> random.Random:
    """The chance generator of a position nothing has set one for (``engine.start`` does)."""
    return random.Random(0)


def next_uid() -> int:
    """A number no other game object of this process has (``State.uid``)."""
    return next(_UIDS)


def positions(k: int) -> tuple[int, ...]:
    """``(0, 1, …, k - 1)``: the options of a choice among ``k`` row or Nun-row positions."""
    return _POSITIONS[k] if k < 8 else tuple(range(k))


@dataclass(slots=True)
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

    cfg: CartusConfig
    n: int = 0
    hands: list[list[int]] = field(default_factory=list)
    rats: list[int] = field(default_factory=list)
    influence: list[list[int]] = field(default_factory=list)  # [seat][class]
    gold: list[int] = field(default_factory=list)
    vp: list[int] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)  # population draw pile (class indices)
    discard: list[int] = field(default_factory=list)  # population discard pile, face up
    nun_row: list[int] = field(default_factory=list)  # nun symbols per Nun-row position
    nun_row_class: list[int] = field(default_factory=list)
    seen: list[int] = field(default_factory=list)  # per seat: bit p set = has looked at Nun-row position p
    building_deck: list[int] = field(default_factory=list)  # card ids, top last
    replacement: list[int] = field(default_factory=list)  # card ids, top last, bottom = index 0
    known_bottom: int = 0  # cards at the bottom of the replacement pile put there in the open (phase A)
    in_play: tuple[int, ...] = ()  # the 30 building card ids of this game
    supply: list[int] = field(default_factory=list)  # open supplies per card type (JOKER..PASS)
    gold_supply: int = 0
    vp_supply: int = 0
    start: int = 0
    first_start: int = 0  # the start player of round 1 (start_position, rules §3 step 8)
    round: int = 0  # 1-based once play starts
    row: list[int] = field(default_factory=list)
    entries: list[list[Entry]] = field(default_factory=list)
    sizes: list[list[tuple[int, int]]] = field(default_factory=list)  # public: (seat, cards) per entry
    revealed: int = 0  # row positions whose entries are face up (phase D step a)
    protected: int = 0  # bit s = seat s entered a Guard Tower this round
    round_influence: list[int] = field(default_factory=list)
    # record counters
    premium: list[list[int]] = field(default_factory=list)  # [seat][building]
    standard: list[list[int]] = field(default_factory=list)
    offclass: list[int] = field(default_factory=list)
    rats_gained: list[int] = field(default_factory=list)
    rats_discarded: list[int] = field(default_factory=list)
    rats_given: list[int] = field(default_factory=list)  # moved away by own Flutes
    # labelled defaults that decided something (metrics.GUESSES; the rest are counted at the end)
    acted_magic_b: int = 0  # actions of the guessed 12th building performed (§2, §5)
    acted_premium_tie: int = 0  # premium ties settled by tie_mode (§4 phase D b)
    acted_pass: int = 0  # Passes played for a second disc (pass_mode, §6)
    # the rules program (engine.py)
    stack: list[Step] = field(default_factory=list)
    dec_kind: int = NO_DECISION
    dec_seat: int = -1
    dec_a: int = 0
    dec_b: int = 0
    dec_c: int = 0
    dec_opts: tuple[int, ...] = ()
    rng: random.Random = field(default_factory=_unused_chance)  # chance (game_streams child 0)
    seed: Any = 0  # the game seed (int or SeedSequence), named in messages only
    log: Log = None
    uid: int = 0  # tells game objects apart (a clone is another object): numbered at creation

    def __post_init__(self) -> None:
        """Size the per-seat lists and the supplies for ``cfg`` (the fields whose start depends
        on the config), and number the new game object."""
        cfg = self.cfg
        n = self.n = cfg.n_players
        nb = len(cfg.building_names)
        self.hands = [[0] * N_TYPES for _ in range(n)]
        self.rats = [cfg.start_rats] * n
        self.influence = [[0] * len(cfg.class_names) for _ in range(n)]
        self.gold = [0] * n
        self.vp = [0] * n
        self.seen = [0] * n
        self.supply = list(cfg.supply)
        self.gold_supply = cfg.gold_total
        self.vp_supply = cfg.vp_total
        self.round_influence = [0] * n
        self.premium = [[0] * nb for _ in range(n)]
        self.standard = [[0] * nb for _ in range(n)]
        self.offclass = [0] * n
        self.rats_gained = [0] * n
        self.rats_discarded = [0] * n
        self.rats_given = [0] * n
        self.uid = next_uid()

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


FIELDS: Final = field_names(State)  # in declaration order: what CartusState.copy() copies
