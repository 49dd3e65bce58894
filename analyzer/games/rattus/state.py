"""The mutable Rattus position and the engine's program counter: lists of small ints, nothing else.

Regions and seats are indices (see ``RattusConfig``). No generator and no per-move objects live
here; the engine mutates these lists in place (docs/rules/rattus.md §3, §6). Besides the board,
the state records where the game stands between two decisions (the pending decision, the turn's
progress, what is left to resolve), so a game can be copied at any decision and played on, and
what each seat has been shown (docs/rules/rattus.md §15 "Hidden information").
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from analyzer.games.rattus.config import CARD_NAMES, CLASSES, RattusConfig
from analyzer.model.copying import field_names

NOT_IN_PLAY: Final = -2  # holder value of a class card not used this game
UNTAKEN: Final = -1  # holder value of a card lying beside the board
# token_flags bit: this face-down token was dealt as a starting token at setup (so it is one of the
# starting tokens, §6.1 step 4) and no Witch has looked at it since (after a Witch, the other seats
# cannot tell whether it was swapped, §8.1). Bits 0..5 are the seats that know the token's face.
STARTER_SLOT: Final = 1 << 8


@dataclass(slots=True)
class State:
    """One game position and the point the rules have reached (docs/rules/rattus.md §3, §6, §15).

    Attributes
    ----------
    cubes, discs : list of list of int, shape (n_regions, n_players)
        Cubes of each seat in each region; ``discs[r][p]`` is 1 if one of them carries p's
        diplomat disc (§2.3, at most one per seat per region).
    tokens : list of list of int, shape (n_regions, <= rat_cap)
        Face-down token ids (indices into ``cfg.tokens``) lying in each region.
    token_flags : list of list of int, same shape as ``tokens``
        Per face-down token: bit ``s`` set when seat ``s`` knows its face (a Witch look, §8.1),
        ``STARTER_SLOT`` when it is known to be a starting token. Moves with its token.
    supply_tokens : list of int
        Face-down rat supply; draws take the last element (shuffled at setup).
    removed_tokens : list of int
        Tokens removed unseen at setup (§5.3); nobody ever sees them.
    holder : list of int, shape (10,)
        Seat holding each class card (``CARD_NAMES`` order), ``UNTAKEN`` or ``NOT_IN_PLAY``.
    held_class : list of list of int, shape (n_players, number of classes)
        Class cards held per class (kept in step with ``holder``).
    hands, deck, rdiscard : list
        Region-card ids in each hand, the draw deck (draw from the end) and the discard pile.
    rdiscard_seen : list of int, same length as ``rdiscard``
        Per discarded region card: bit mask of the seats that saw it (all seats for a card
        played, the drawer only for cards an Astronomer or Explorer discards, §8.2).
    drawn : list of int
        Region cards an Astronomer or Explorer has drawn and not yet placed (seen by the drawer).
    tag_own, tag_recv : list of list of float, shape (n_regions, n_players)
        Expected caravan bonus cubes still standing that came from the seat's own / others'
        caravan moves. Cubes of one colour are identical, so this is an expectation: each cube
        that leaves a region (lost, moved, sent to the palace) is one of the seat's ordinary
        cubes there drawn at random; the diplomat's cube leaves last (§2.3).

    Program counter (what ``Game.apply`` resumes from)
    --------------------------------------------------
    kind, seat, options, ctx
        The pending decision: its kind (``""`` when the game is over or halted), the seat that
        decides, the legal options in their deterministic order, and the decision's context
        (the ability options at a step, ``(region, token)`` at a region-card offer, ...).
    serial
        Decisions taken so far, forced ones included.
    narrow
        The consult bits (``config.READ_*``) the pending decision sets in ``cfg.reads`` when it
        is taken: set where the other value of a tracked option would offer other options
        (fewer, or more: ``engine.Game.widening``), and cleared by ``engine.Game.spare`` when
        the pick is sure to be the same there (0: none).
    opening_i, opening_first
        Setup: opening placements made, and each seat's first opening region (§6.1).
    taken, placed, used
        Regular turn: phase A done, phase B done, bit mask of the cards whose ability was used.
    witch_first, witch_second
        Witch: the two token positions ``(region, index)`` picked (§8.1).
    bonus, bonus_i
        Trader: the caravan bonus offers ``[region, seat, region, seat, ...]`` and how many were made.
    spread_left
        Phase C: new rats still to place (§7 C.2).
    res_region, res_chooser, res_token, res_offer, res_neutral, res_protected, res_played
        Plague resolution in progress (§7.1): the region, who asks first, the revealed token whose
        region-card offers are running (-1: none), the seat offset reached in those offers, the
        neutral cubes counted, the classes protected per seat (bit masks) and the cards played.
    final_i
        Final round: seats that have had their final turn, plus one (§10.2).
    """

    cfg: RattusConfig
    cubes: list[list[int]] = field(default_factory=list)
    discs: list[list[int]] = field(default_factory=list)
    tokens: list[list[int]] = field(default_factory=list)
    supply_tokens: list[int] = field(default_factory=list)
    supply_cubes: list[int] = field(default_factory=list)
    palace: list[int] = field(default_factory=list)
    holder: list[int] = field(default_factory=list)
    held_class: list[list[int]] = field(default_factory=list)
    plague: int = 0
    caravan: int = -1
    disc_supply: int = 0
    token_flags: list[list[int]] = field(default_factory=list)
    removed_tokens: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    deck: list[int] = field(default_factory=list)
    rdiscard: list[int] = field(default_factory=list)
    rdiscard_seen: list[int] = field(default_factory=list)
    drawn: list[int] = field(default_factory=list)
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
    tag_own: list[list[float]] = field(default_factory=list)
    tag_recv: list[list[float]] = field(default_factory=list)
    palace_tag_own: list[float] = field(default_factory=list)
    palace_tag_recv: list[float] = field(default_factory=list)
    took: list[list[int]] = field(default_factory=list)  # [seat][card]: times taken (§7 A)
    # labelled defaults that acted (game record columns acted_*, metrics.GUESSES); the reveals
    # of guessed token faces are ``discarded_tokens``, the scoring ones are read at the end
    acted_africa: int = 0  # the plague piece or the caravan entered a stand-in region (§4.3)
    acted_stack: int = 0  # a seat's loss to a token differed with one cube per symbol (§5.1)
    acted_astronomer: int = 0  # an Astronomer use left cards it did not keep (§8.2)
    acted_explorer: int = 0  # an Explorer use placed cubes (§8.2)
    acted_card_elsewhere: int = 0  # a region card naming another region protected (§9)
    acted_no_placing: int = 0  # a turn went to phase C without placing though it could (§7 B)
    # program counter (see the class docstring)
    kind: str = ""
    seat: int = -1
    options: tuple = ()
    ctx: Any = None
    serial: int = 0
    narrow: int = 0
    opening_i: int = 0
    opening_first: list[int] = field(default_factory=list)
    taken: bool = False
    placed: bool = False
    used: int = 0
    witch_first: tuple[int, int] = (-1, -1)
    witch_second: tuple[int, int] = (-1, -1)
    bonus: list[int] = field(default_factory=list)
    bonus_i: int = 0
    spread_left: int = 0
    res_region: int = -1
    res_chooser: int = -1
    res_token: int = -1
    res_offer: int = 0
    res_neutral: int = 0
    res_protected: list[int] = field(default_factory=list)
    res_played: list[int] = field(default_factory=list)
    final_i: int = 0

    @classmethod
    def empty(cls, cfg: RattusConfig) -> State:
        """A position with an empty board, full cube supplies and no cards in play (the fields
        whose size or start depends on the config; every other field starts at its default)."""
        n, nr = cfg.n_players, cfg.n_regions
        return cls(
            cfg, cubes=[[0] * n for _ in range(nr)], discs=[[0] * n for _ in range(nr)],
            tokens=[[] for _ in range(nr)], supply_cubes=[cfg.cubes_per_player] * n, palace=[0] * n,
            holder=[NOT_IN_PLAY] * len(CARD_NAMES), held_class=[[0] * len(CLASSES) for _ in range(n)],
            disc_supply=cfg.diplomat_discs, token_flags=[[] for _ in range(nr)], hands=[[] for _ in range(n)],
            cubes_placed=[0] * n, cubes_lost=[0] * n, diplomats_placed=[0] * n, caravan_moves=[0] * n,
            caravan_own=[0] * n, caravan_given=[0] * n, caravan_received=[0] * n,
            tag_own=[[0.0] * n for _ in range(nr)], tag_recv=[[0.0] * n for _ in range(nr)],
            palace_tag_own=[0.0] * n, palace_tag_recv=[0.0] * n, took=[[0] * len(CARD_NAMES) for _ in range(n)],
            opening_first=[-1] * n, res_protected=[0] * n,
        )

    def copy(self) -> State:
        """An independent copy: every list copied (a list of lists one level deeper), the config
        and the immutable values shared: what ``copy_fields(self, _FIELDS)`` gives, field for
        field, written out because a copy is made at every search iteration: compiled, each
        field is set directly, not looked up by name (``copy_fields``) nor passed to the class,
        whose ``__init__`` is made by ``dataclasses`` and runs interpreted (a third of that
        call's cost, measured on a small compiled dataclass). tests/games/test_state_copy.py
        sets every field and compares this with ``copy_fields``, so a field added above and
        forgotten here fails there."""
        cls: Any = State
        out: State = cls.__new__(cls)  # as copy_fields makes it: no __init__ run
        out.cfg = self.cfg
        out.cubes = [r[:] for r in self.cubes]
        out.discs = [r[:] for r in self.discs]
        out.tokens = [r[:] for r in self.tokens]
        out.supply_tokens = self.supply_tokens[:]
        out.supply_cubes = self.supply_cubes[:]
        out.palace = self.palace[:]
        out.holder = self.holder[:]
        out.held_class = [r[:] for r in self.held_class]
        out.plague = self.plague
        out.caravan = self.caravan
        out.disc_supply = self.disc_supply
        out.token_flags = [r[:] for r in self.token_flags]
        out.removed_tokens = self.removed_tokens[:]
        out.hands = [r[:] for r in self.hands]
        out.deck = self.deck[:]
        out.rdiscard = self.rdiscard[:]
        out.rdiscard_seen = self.rdiscard_seen[:]
        out.drawn = self.drawn[:]
        out.discarded_tokens = self.discarded_tokens
        out.start_seat = self.start_seat
        out.active = self.active
        out.turns = self.turns
        out.phase = self.phase
        out.last_seat = self.last_seat
        out.trigger_seat = self.trigger_seat
        out.end = self.end
        out.final_round_turns = self.final_round_turns
        out.cubes_placed = self.cubes_placed[:]
        out.cubes_lost = self.cubes_lost[:]
        out.diplomats_placed = self.diplomats_placed[:]
        out.caravan_moves = self.caravan_moves[:]
        out.caravan_own = self.caravan_own[:]
        out.caravan_given = self.caravan_given[:]
        out.caravan_received = self.caravan_received[:]
        out.tag_own = [r[:] for r in self.tag_own]
        out.tag_recv = [r[:] for r in self.tag_recv]
        out.palace_tag_own = self.palace_tag_own[:]
        out.palace_tag_recv = self.palace_tag_recv[:]
        out.took = [r[:] for r in self.took]
        out.acted_africa = self.acted_africa
        out.acted_stack = self.acted_stack
        out.acted_astronomer = self.acted_astronomer
        out.acted_explorer = self.acted_explorer
        out.acted_card_elsewhere = self.acted_card_elsewhere
        out.acted_no_placing = self.acted_no_placing
        out.kind = self.kind
        out.seat = self.seat
        out.options = self.options
        out.ctx = self.ctx
        out.serial = self.serial
        out.narrow = self.narrow
        out.opening_i = self.opening_i
        out.opening_first = self.opening_first[:]
        out.taken = self.taken
        out.placed = self.placed
        out.used = self.used
        out.witch_first = self.witch_first
        out.witch_second = self.witch_second
        out.bonus = self.bonus[:]
        out.bonus_i = self.bonus_i
        out.spread_left = self.spread_left
        out.res_region = self.res_region
        out.res_chooser = self.res_chooser
        out.res_token = self.res_token
        out.res_offer = self.res_offer
        out.res_neutral = self.res_neutral
        out.res_protected = self.res_protected[:]
        out.res_played = self.res_played[:]
        out.final_i = self.final_i
        return out

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


_FIELDS: Final = field_names(State)  # in declaration order: what copy() copies, every one
