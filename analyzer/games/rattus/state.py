"""The mutable Rattus position and the engine's program counter: lists of small ints, nothing else.

Regions and seats are indices (see ``RattusConfig``). No generator and no per-move objects live
here; the engine mutates these lists in place (docs/rules/rattus.md §3, §6). Besides the board,
the state records where the game stands between two decisions (the pending decision, the turn's
progress, what is left to resolve), so a game can be copied at any decision and played on, and
what each seat has been shown (docs/rules/rattus.md §15 "Hidden information").
"""

from __future__ import annotations

from typing import Any, Final

from analyzer.games.rattus.config import CARD_NAMES, CLASSES, RattusConfig

NOT_IN_PLAY: Final = -2  # holder value of a class card not used this game
UNTAKEN: Final = -1  # holder value of a card lying beside the board
# token_flags bit: this face-down token was dealt as a starting token at setup (so it is one of the
# starting tokens, §6.1 step 4) and no Witch has looked at it since (after a Witch, the other seats
# cannot tell whether it was swapped, §8.1). Bits 0..5 are the seats that know the token's face.
STARTER_SLOT: Final = 1 << 8


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
    cubes: list[list[int]]
    discs: list[list[int]]
    tokens: list[list[int]]
    supply_tokens: list[int]
    supply_cubes: list[int]
    palace: list[int]
    holder: list[int]
    held_class: list[list[int]]
    plague: int
    caravan: int
    disc_supply: int
    token_flags: list[list[int]]
    removed_tokens: list[int]
    hands: list[list[int]]
    deck: list[int]
    rdiscard: list[int]
    rdiscard_seen: list[int]
    drawn: list[int]
    discarded_tokens: int
    start_seat: int
    active: int
    turns: int
    phase: str  # setup | regular | final_round | final_plague | over
    last_seat: int  # L: the player of the last regular turn (§10.2)
    trigger_seat: int
    end: str
    final_round_turns: int
    # per-seat statistics for the records
    cubes_placed: list[int]
    cubes_lost: list[int]
    diplomats_placed: list[int]
    caravan_moves: list[int]
    caravan_own: list[int]
    caravan_given: list[int]
    caravan_received: list[int]
    tag_own: list[list[float]]
    tag_recv: list[list[float]]
    palace_tag_own: list[float]
    palace_tag_recv: list[float]
    took: list[list[int]]  # [seat][card]: times taken (§7 A)
    # labelled defaults that acted (game record columns acted_*, metrics.GUESSES); the reveals
    # of guessed token faces are ``discarded_tokens``, the scoring ones are read at the end
    acted_africa: int  # the plague piece or the caravan entered a stand-in region (§4.3)
    acted_stack: int  # a seat's loss to a token differed with one cube per symbol (§5.1)
    acted_astronomer: int  # an Astronomer use left cards it did not keep (§8.2)
    acted_explorer: int  # an Explorer use placed cubes (§8.2)
    acted_card_elsewhere: int  # a region card naming another region protected (§9)
    acted_no_placing: int  # a turn went to phase C without placing though it could (§7 B)
    # program counter (see the class docstring)
    kind: str
    seat: int
    options: tuple
    ctx: Any
    serial: int
    opening_i: int
    opening_first: list[int]
    taken: bool
    placed: bool
    used: int
    witch_first: tuple[int, int]
    witch_second: tuple[int, int]
    bonus: list[int]
    bonus_i: int
    spread_left: int
    res_region: int
    res_chooser: int
    res_token: int
    res_offer: int
    res_neutral: int
    res_protected: list[int]
    res_played: list[int]
    final_i: int


    def __init__(self, cfg: RattusConfig, src: State | None = None) -> None:
        """An empty position for ``cfg`` (``empty``), or an independent copy of ``src`` (``copy``).

        Written out field by field and compiled: ``copy`` is the hot path of search
        (``Game.clone``), where a dataclass's generated ``__init__`` ran interpreted."""
        self.cfg = cfg
        if src is None:
            n, nr = cfg.n_players, cfg.n_regions
            self.cubes = [[0] * n for _ in range(nr)]
            self.discs = [[0] * n for _ in range(nr)]
            self.tokens = [[] for _ in range(nr)]
            self.supply_tokens = []
            self.supply_cubes = [cfg.cubes_per_player] * n
            self.palace = [0] * n
            self.holder = [NOT_IN_PLAY] * len(CARD_NAMES)
            self.held_class = [[0] * len(CLASSES) for _ in range(n)]
            self.plague = 0
            self.caravan = -1
            self.disc_supply = cfg.diplomat_discs
            self.token_flags = [[] for _ in range(nr)]
            self.removed_tokens = []
            self.hands = [[] for _ in range(n)]
            self.deck = []
            self.rdiscard = []
            self.rdiscard_seen = []
            self.drawn = []
            self.discarded_tokens = 0
            self.start_seat = 0
            self.active = 0
            self.turns = 0
            self.phase = "setup"
            self.last_seat = -1
            self.trigger_seat = -1
            self.end = ""
            self.final_round_turns = 0
            self.cubes_placed = [0] * n
            self.cubes_lost = [0] * n
            self.diplomats_placed = [0] * n
            self.caravan_moves = [0] * n
            self.caravan_own = [0] * n
            self.caravan_given = [0] * n
            self.caravan_received = [0] * n
            self.tag_own = [[0.0] * n for _ in range(nr)]
            self.tag_recv = [[0.0] * n for _ in range(nr)]
            self.palace_tag_own = [0.0] * n
            self.palace_tag_recv = [0.0] * n
            self.took = [[0] * len(CARD_NAMES) for _ in range(n)]
            self.acted_africa = 0
            self.acted_stack = 0
            self.acted_astronomer = 0
            self.acted_explorer = 0
            self.acted_card_elsewhere = 0
            self.acted_no_placing = 0
            self.kind = ""
            self.seat = -1
            self.options = ()
            self.ctx = None
            self.serial = 0
            self.opening_i = 0
            self.opening_first = [-1] * n
            self.taken = False
            self.placed = False
            self.used = 0
            self.witch_first = (-1, -1)
            self.witch_second = (-1, -1)
            self.bonus = []
            self.bonus_i = 0
            self.spread_left = 0
            self.res_region = -1
            self.res_chooser = -1
            self.res_token = -1
            self.res_offer = 0
            self.res_neutral = 0
            self.res_protected = [0] * n
            self.res_played = []
            self.final_i = 0
        else:  # every list copied, the config and the immutable values shared
            self.cubes = [r[:] for r in src.cubes]
            self.discs = [r[:] for r in src.discs]
            self.tokens = [r[:] for r in src.tokens]
            self.supply_tokens = src.supply_tokens[:]
            self.supply_cubes = src.supply_cubes[:]
            self.palace = src.palace[:]
            self.holder = src.holder[:]
            self.held_class = [r[:] for r in src.held_class]
            self.plague = src.plague
            self.caravan = src.caravan
            self.disc_supply = src.disc_supply
            self.token_flags = [r[:] for r in src.token_flags]
            self.removed_tokens = src.removed_tokens[:]
            self.hands = [r[:] for r in src.hands]
            self.deck = src.deck[:]
            self.rdiscard = src.rdiscard[:]
            self.rdiscard_seen = src.rdiscard_seen[:]
            self.drawn = src.drawn[:]
            self.discarded_tokens = src.discarded_tokens
            self.start_seat = src.start_seat
            self.active = src.active
            self.turns = src.turns
            self.phase = src.phase
            self.last_seat = src.last_seat
            self.trigger_seat = src.trigger_seat
            self.end = src.end
            self.final_round_turns = src.final_round_turns
            self.cubes_placed = src.cubes_placed[:]
            self.cubes_lost = src.cubes_lost[:]
            self.diplomats_placed = src.diplomats_placed[:]
            self.caravan_moves = src.caravan_moves[:]
            self.caravan_own = src.caravan_own[:]
            self.caravan_given = src.caravan_given[:]
            self.caravan_received = src.caravan_received[:]
            self.tag_own = [r[:] for r in src.tag_own]
            self.tag_recv = [r[:] for r in src.tag_recv]
            self.palace_tag_own = src.palace_tag_own[:]
            self.palace_tag_recv = src.palace_tag_recv[:]
            self.took = [r[:] for r in src.took]
            self.acted_africa = src.acted_africa
            self.acted_stack = src.acted_stack
            self.acted_astronomer = src.acted_astronomer
            self.acted_explorer = src.acted_explorer
            self.acted_card_elsewhere = src.acted_card_elsewhere
            self.acted_no_placing = src.acted_no_placing
            self.kind = src.kind
            self.seat = src.seat
            self.options = src.options
            self.ctx = src.ctx
            self.serial = src.serial
            self.opening_i = src.opening_i
            self.opening_first = src.opening_first[:]
            self.taken = src.taken
            self.placed = src.placed
            self.used = src.used
            self.witch_first = src.witch_first
            self.witch_second = src.witch_second
            self.bonus = src.bonus[:]
            self.bonus_i = src.bonus_i
            self.spread_left = src.spread_left
            self.res_region = src.res_region
            self.res_chooser = src.res_chooser
            self.res_token = src.res_token
            self.res_offer = src.res_offer
            self.res_neutral = src.res_neutral
            self.res_protected = src.res_protected[:]
            self.res_played = src.res_played[:]
            self.final_i = src.final_i

    @classmethod
    def empty(cls, cfg: RattusConfig) -> State:
        """A position with an empty board, full cube supplies and no cards in play."""
        return cls(cfg)

    def copy(self) -> State:
        """An independent copy: every list copied, the config and the immutable values shared."""
        return State(self.cfg, self)

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
