"""What one seat of a Rattus Cartus game may see, and everything that depends on it.

- ``CartusView``: the read-only view a player decides from (docs/rules/cartus.md §11 "What a
  chooser may know"): the public board, the seat's own hand and face-down cards, the Nun-row
  cards it has looked at, and the pending decision.
- ``information_key(st, seat)``: the seat's information set as a hashable value.
- ``redraw_hidden(st, seat, rng)``: everything hidden from the seat drawn again, uniformly among
  the arrangements with the same information key (``CartusState.determinize``).
- The answers of the pending decision: ``legal_actions``, ``is_legal``, ``describe_action``.

Hidden from a seat: the other hands, the population deck order, the other seats' face-down
cards until their building is revealed, the Nun-row cards it has not looked at, the order of the
building deck and of the replacement pile (except the cards put under it in the open), and,
with ``rats_visible = false``, which other seat holds which rat total. The seat is modelled as
remembering the public counts (hand sizes, supplies, the face-up discard pile) but not which
special cards another seat holds, nor which cards it gave away: a coarser information set than a
perfect memory would have, and the one its ``information_key`` states.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

from analyzer.errors import HiddenInformation
from analyzer.games.cartus import chance
from analyzer.games.cartus.config import FLUTE, JOKER, N_TYPES, PASS, SWORD, CartusConfig
from analyzer.games.cartus.resolution import GIVE_KINDS, cards_text, count_vectors, counts_ok
from analyzer.games.cartus.state import (
    CARDS,
    DECISION_NAMES,
    ENTER,
    GIVE,
    HOSPITAL,
    LOOK,
    SUPPLY,
    TARGET,
    USE_PASS,
    State,
)
from analyzer.model.play import offered

_INT_KINDS: Final = (SUPPLY, LOOK, ENTER, TARGET)  # answered by one of ``dec_opts``
_YES_NO: Final = (False, True)  # the answers of ``use_pass``


class CartusView:
    """One seat's view of a game at that seat's decision (what its player may read).

    Lists returned here belong to the game: read them, never change them. What the seat never
    sees (another seat's hand, the deck order) has no accessor; reading what it may not see
    now (a Nun-row card it has not looked at, another seat's rats when ``rats_visible`` is
    false, face-down cards before they are revealed) raises ``HiddenInformation``.
    """

    def __init__(self, st: State, seat: int) -> None:
        self._st = st
        self.seat = seat
        self.n_players = st.n
        self.log: Callable[[str], None] | None = st.log
        self.kind = st.dec_kind if st.dec_seat == seat else 0  # a decision kind of state.py

    # -- the decision
    def decision_kind(self) -> str:
        """The pending decision's kind (rules §11), or ``""`` when this seat is not asked."""
        return DECISION_NAMES[self.kind]

    def legal_actions(self) -> tuple:
        """The answers offered (``CartusState.legal_actions``)."""
        return legal_actions(self._st) if self.kind else ()

    @property
    def options(self) -> tuple[int, ...]:
        """The options of a decision answered by one int (``supply``, ``look``, ``enter``,
        ``target``): row positions, Nun-row positions, row positions or seats, in offered order."""
        return self._st.dec_opts

    @property
    def entry_row(self) -> int:
        """``cards``: the row position just entered."""
        return self._st.dec_a

    @property
    def give_count(self) -> int:
        """``give``: how many cards to hand over."""
        return self._st.dec_b

    @property
    def give_to(self) -> int:
        """``give``: the seat receiving them."""
        return self._st.dec_a

    @property
    def give_kind(self) -> str:
        """``give``: ``sword`` (half the hand) or ``guard_tower``."""
        return GIVE_KINDS[self._st.dec_c]

    @property
    def target_kind(self) -> str:
        """``target``: ``sword`` or ``flute``."""
        return "sword" if self._st.dec_b == SWORD else "flute"

    @property
    def hospital_cap(self) -> int:
        """``hospital``: the most hand cards that may be discarded for as many rats."""
        return self._st.dec_a

    def search_actions(self) -> tuple:
        """A few answers worth searching (``search_actions``), for ``ismcts``."""
        return search_actions(self._st) if self.kind else ()

    def determinize(self, seed: int) -> Any:
        """``CartusState.determinize(seat, seed)`` of the game behind this view."""
        game: Any = self._st
        return game.determinize(self.seat, seed)

    def describe_action(self, action: Any) -> str:
        """A short readable name of one answer to the pending decision."""
        return describe_action(self._st, action)

    # -- public board
    @property
    def cfg(self) -> CartusConfig:
        """The rules in force (public)."""
        return self._st.cfg

    @property
    def game_id(self) -> int:
        """Tells game objects apart (a clone or a determinization is another game), so a
        player may reuse what it worked out for the same position of the same game."""
        return self._st.uid

    @property
    def round(self) -> int:
        return self._st.round

    @property
    def start(self) -> int:
        """This round's start player."""
        return self._st.start

    @property
    def row(self) -> list[int]:
        """The open building cards (card ids), in row order."""
        return self._st.row

    def sizes(self, r: int) -> list[tuple[int, int]]:
        """``(seat, number of face-down cards)`` of each entry of row position ``r``, in space order."""
        return self._st.sizes[r]

    def revealed_cards(self, r: int, i: int) -> tuple[int, ...]:
        """The card counts of entry ``i`` of row ``r``: one's own, or any once revealed."""
        st = self._st
        s, c = st.entries[r][i]
        if s != self.seat and r >= st.revealed:
            raise HiddenInformation(f"seat {self.seat} may not see seat {s}'s face-down cards yet")
        return c

    @property
    def influence(self) -> list[list[int]]:
        """``[seat][class]`` influence on the tracks."""
        return self._st.influence

    @property
    def round_influence(self) -> list[int]:
        """Influence each seat has gained this round (the Brewery counts it)."""
        return self._st.round_influence

    @property
    def protected(self) -> int:
        """Bit ``s`` set: seat ``s`` entered a Guard Tower this round."""
        return self._st.protected

    @property
    def gold(self) -> list[int]:
        return self._st.gold

    @property
    def vp(self) -> list[int]:
        """VP tokens per seat."""
        return self._st.vp

    @property
    def supply(self) -> list[int]:
        """Open supplies by card type (``JOKER``..``PASS``)."""
        return self._st.supply

    @property
    def discard(self) -> list[int]:
        """The face-up population discard pile (class indices)."""
        return self._st.discard

    @property
    def deck_size(self) -> int:
        return len(self._st.deck)

    def hand_size(self, s: int) -> int:
        """Cards in seat ``s``'s hand (public)."""
        return sum(self._st.hands[s])

    def rats(self, s: int) -> int:
        """Seat ``s``'s rat total: one's own always, the others' when ``rats_visible``."""
        st = self._st
        if s != self.seat and not st.cfg.rats_visible:
            raise HiddenInformation(f"seat {self.seat} may not see seat {s}'s rats (rats_visible = false)")
        return st.rats[s]

    def seen(self, s: int) -> int:
        """Bit ``p`` set: seat ``s`` has looked at Nun-row position ``p`` (public)."""
        return self._st.seen[s]

    @property
    def nun_row_size(self) -> int:
        return len(self._st.nun_row)

    # -- the seat's own
    @property
    def hand(self) -> list[int]:
        """This seat's hand as card counts by type."""
        return self._st.hands[self.seat]

    def nun_card(self, p: int) -> tuple[int, int]:
        """``(class, nun symbols)`` of Nun-row position ``p``, which this seat has looked at."""
        st = self._st
        if not (st.seen[self.seat] >> p) & 1:
            raise HiddenInformation(f"seat {self.seat} has not looked at Nun-row position {p + 1}")
        return st.nun_row_class[p], st.nun_row[p]

    def seen_nuns(self) -> tuple[int, int]:
        """``(nun symbols on the cards this seat has looked at, Nun-row cards it has not)``."""
        st = self._st
        seen = st.seen[self.seat]
        row = st.nun_row
        if not seen:
            return 0, len(row)
        known = sum(v for p, v in enumerate(row) if (seen >> p) & 1)
        return known, len(row) - seen.bit_count()


# ---------------------------------------------------------------- answers of the pending decision


def legal_actions(st: State) -> tuple:
    """The answers of the pending decision in their fixed order (``CartusState.legal_actions``)."""
    kind = st.dec_kind
    if kind in _INT_KINDS:
        return st.dec_opts
    if kind == USE_PASS:
        return _YES_NO
    hand = st.hands[st.dec_seat]
    if kind == CARDS:
        return count_vectors(hand, playable=True)
    if kind == GIVE:
        return count_vectors(hand, exact=st.dec_b)
    if kind == HOSPITAL:
        return count_vectors(hand, cap=st.dec_a)
    return ()


def _one_by_one(hand: list[int], k: int, specials_first: bool) -> tuple[int, ...]:
    """``k`` hand cards: population cards one at a time from the class held most (ties: lower
    class), and Passes, Flutes, Swords, jokers before them or after them."""
    left = list(hand)
    out = [0] * N_TYPES
    order = (PASS, FLUTE, SWORD, JOKER)
    if specials_first:
        for t in order:
            x = min(k, left[t])
            out[t] += x
            left[t] -= x
            k -= x
    pop = left[:JOKER]
    while k > 0 and max(pop) > 0:
        t = pop.index(max(pop))
        pop[t] -= 1
        out[t] += 1
        k -= 1
    for t in order:
        x = min(k, left[t])
        out[t] += x
        k -= x
    return tuple(out)


def search_actions(st: State) -> tuple:
    """A few of the legal answers, for a search player: all of them for the decisions answered
    by a position, seat or yes/no; for card choices, up to 17 representative sets instead of
    every subset of the hand. ``cards``: every card of the building's class, plus 0–3
    off-class cards (most plentiful class first), with or without the jokers, with or without
    the Swords and Flutes; and no cards at all. ``give``: one at a time from the class held
    most, whole classes from the most plentiful, or specials and jokers first. ``hospital``:
    0..cap cards, one at a time from the class held most."""
    kind = st.dec_kind
    if kind in _INT_KINDS:
        return st.dec_opts
    if kind == USE_PASS:
        return (False, True)
    hand = st.hands[st.dec_seat]
    out: list[tuple[int, ...]] = []
    if kind == CARDS:
        cfg = st.cfg
        k = cfg.building_class[cfg.card_building[st.row[st.dec_a]]]
        order = sorted((t for t in range(JOKER) if t != k and hand[t]), key=lambda t: -hand[t])
        n_off = sum(hand[t] for t in order)
        for x in range(min(3, n_off) + 1):
            for j in sorted({0, hand[JOKER]}):
                for sp in (0, 1) if hand[SWORD] or hand[FLUTE] else (0,):
                    c = [0] * N_TYPES
                    c[k] = hand[k]
                    left = x
                    for t in order:
                        c[t] = m = min(left, hand[t])
                        left -= m
                    c[JOKER] = j
                    if sp:
                        c[SWORD], c[FLUTE] = hand[SWORD], hand[FLUTE]
                    out.append(tuple(c))
        out.append((0,) * N_TYPES)
    elif kind == GIVE:
        k = st.dec_b
        out.append(_one_by_one(hand, k, False))
        c = [0] * N_TYPES
        left = k
        for t in sorted(range(N_TYPES), key=lambda t: (t >= JOKER, -hand[t])):
            c[t] = m = min(left, hand[t])
            left -= m
        out.append(tuple(c))
        out.append(_one_by_one(hand, k, True))
    elif kind == HOSPITAL:
        for x in range(st.dec_a + 1):
            out.append(_one_by_one(hand, x, False))
    return tuple(dict.fromkeys(out))  # without repeats, in first-seen order


def is_legal(st: State, action: Any) -> bool:
    """Whether ``action`` is one of ``legal_actions(st)``, without listing them: ints are ints
    (no bool, no float) and the Pass answer a bool (``forward.offered``), card counts a tuple of
    ints within the hand (``resolution.counts_ok``)."""
    kind = st.dec_kind
    if kind in _INT_KINDS:
        return offered(st.dec_opts, action) >= 0
    if kind == USE_PASS:
        return offered(_YES_NO, action) >= 0
    if not isinstance(action, tuple):
        return False
    hand = st.hands[st.dec_seat]
    if kind == CARDS:
        return counts_ok(action, hand, playable=True)
    if kind == GIVE:
        return counts_ok(action, hand, exact=st.dec_b)
    if kind == HOSPITAL:
        return counts_ok(action, hand, cap=st.dec_a)
    return False


def describe_action(st: State, action: Any) -> str:
    """A readable name of ``action`` at the pending decision (for the replay log)."""
    cfg, kind = st.cfg, st.dec_kind
    if kind == SUPPLY or kind == ENTER:
        verb = "supply at" if kind == SUPPLY else "enter"
        c = st.row[action]
        return f"{verb} row {action + 1} ({cfg.building_names[cfg.card_building[c]]}:{c % cfg.copies + 1})"
    if kind == LOOK:
        return f"look at Nun-row position {action + 1}"
    if kind == TARGET:
        return f"{'sword' if st.dec_b == SWORD else 'flute'} seat {action}"
    if kind == USE_PASS:
        return "play a Pass" if action else "keep the Pass"
    verb = {CARDS: "play", GIVE: "give", HOSPITAL: "discard"}.get(kind, "?")
    return f"{verb} {cards_text(cfg, action)}"


# ---------------------------------------------------------------- information sets


def information_key(st: State, seat: int) -> tuple:
    """Everything ``seat`` can see, as one hashable value: equal for two games exactly when the
    seat cannot tell them apart (see the module docstring for what is hidden)."""
    cfg, n = st.cfg, st.n
    seen = st.seen[seat]
    rats: tuple[int, ...]
    if cfg.rats_visible:
        rats = tuple(st.rats)
    else:
        others = sorted(st.rats[s] for s in range(n) if s != seat)
        rats = (st.rats[seat], *others)
    entries = tuple(tuple((s, sum(c), c if (s == seat or r < st.revealed) else ()) for s, c in row)
                    for r, row in enumerate(st.entries))
    known = st.known_bottom
    return (
        seat, st.dec_kind, st.dec_seat, st.dec_a, st.dec_b, st.dec_c, st.dec_opts, tuple(st.stack),
        st.round, st.start, st.first_start, tuple(st.row), st.revealed, st.protected,
        tuple(st.round_influence), tuple(st.hands[seat]), tuple(sum(h) for h in st.hands), rats,
        tuple(map(tuple, st.influence)), tuple(st.gold), tuple(st.vp), tuple(st.supply),
        st.gold_supply, st.vp_supply, tuple(st.discard), len(st.deck), tuple(st.seen),
        tuple((p, st.nun_row_class[p], st.nun_row[p]) for p in range(len(st.nun_row)) if (seen >> p) & 1),
        len(st.nun_row), entries, len(st.building_deck), len(st.replacement), tuple(st.replacement[:known]),
        tuple(sorted(st.building_deck + st.replacement[known:])), st.in_play,
        tuple(map(tuple, st.premium)), tuple(map(tuple, st.standard)), tuple(st.offclass),
    )


def redraw_hidden(st: State, seat: int, rng: random.Random) -> None:
    """Redraw, in place, everything hidden from ``seat`` (rules §11), uniformly among the
    arrangements its ``information_key`` allows; draws from ``rng`` only.

    Cards: the other seats' hands and face-down cards not yet revealed, the population deck and
    the Nun-row cards ``seat`` has not looked at hold one pool of cards; Passes can only be in
    hands, jokers, Swords and Flutes in hands or face down, population cards anywhere. Each kind
    is dealt in that order to the slots still free, every slot equally likely; slots and cards
    are listed in a canonical order first, so the result depends on the information set and
    ``rng`` only. An unseen Nun-row card of class ``k`` then takes a nun value from the class's
    values not on the Nun-row cards ``seat`` has seen. Building cards: the deck and the
    replacement pile above the cards put under it in the open are shuffled together. Rats (with
    ``rats_visible = false``): the other seats' totals are dealt out again among them.
    """
    cfg, n = st.cfg, st.n
    shuffle = chance.shuffle
    # slots: ids 0..n-1 = a card in that seat's hand; n + i = a card of hidden entry i;
    # -1 - d = deck position d; -1 - len(deck) - j = the j-th unseen Nun-row position
    hidden_entries: list[tuple[int, int]] = []  # (row, index) of the other seats' face-down entries
    counts = [0] * N_TYPES  # the pool of hidden cards by type
    hand_slots: list[int] = []
    for s in range(n):
        if s == seat:
            continue
        h = st.hands[s]
        for t in range(N_TYPES):
            counts[t] += h[t]
        hand_slots.extend([s] * sum(h))
    entry_slots: list[int] = []
    for r in range(st.revealed, len(st.entries)):
        for i, (s, c) in enumerate(st.entries[r]):
            if s != seat:
                for t in range(N_TYPES):
                    counts[t] += c[t]
                entry_slots.extend([n + len(hidden_entries)] * sum(c))
                hidden_entries.append((r, i))
    for k in st.deck:
        counts[k] += 1
    seen = st.seen[seat]
    unseen = [p for p in range(len(st.nun_row)) if not (seen >> p) & 1]
    for p in unseen:
        counts[st.nun_row_class[p]] += 1
    # deal: Passes into hands, then jokers, Swords, Flutes into hands or face down, then the rest
    hands = [[0] * N_TYPES for _ in range(n)]
    entry_cards = [[0] * N_TYPES for _ in hidden_entries]
    shuffle(rng, hand_slots)
    n_pass = counts[PASS]
    for slot in hand_slots[:n_pass]:
        hands[slot][PASS] += 1
    held = hand_slots[n_pass:] + entry_slots
    shuffle(rng, held)
    i = 0
    for t in (JOKER, SWORD, FLUTE):
        for slot in held[i:i + counts[t]]:
            (hands[slot] if slot < n else entry_cards[slot - n])[t] += 1
        i += counts[t]
    n_deck = len(st.deck)
    rest = held[i:] + [-1 - d for d in range(n_deck + len(unseen))]
    shuffle(rng, rest)
    deck = [0] * n_deck
    i = 0
    for k in range(JOKER):
        for slot in rest[i:i + counts[k]]:
            if slot >= n:
                entry_cards[slot - n][k] += 1
            elif slot >= 0:
                hands[slot][k] += 1
            elif -1 - slot < n_deck:
                deck[-1 - slot] = k
            else:
                st.nun_row_class[unseen[-1 - slot - n_deck]] = k
        i += counts[k]
    for s in range(n):
        if s != seat:
            st.hands[s] = hands[s]
    for (r, e), got in zip(hidden_entries, entry_cards):
        st.entries[r][e] = (st.entries[r][e][0], tuple(got))
    st.deck = deck
    # nun values of the unseen Nun-row cards, class by class
    if unseen:
        left: list[list[int]] = [[] for _ in range(JOKER)]
        for k, nuns in cfg.population:
            left[k].append(nuns)
        for p in range(len(st.nun_row)):
            if (seen >> p) & 1:
                left[st.nun_row_class[p]].remove(st.nun_row[p])
        for vals in left:
            vals.sort()
        for p in unseen:
            vals = left[st.nun_row_class[p]]
            st.nun_row[p] = vals.pop(rng.randrange(len(vals)))
    # building cards
    known = st.known_bottom
    pool = sorted(st.building_deck + st.replacement[known:])
    shuffle(rng, pool)
    nb = len(st.building_deck)
    st.building_deck = pool[:nb]
    st.replacement = st.replacement[:known] + pool[nb:]
    # rats
    if not cfg.rats_visible:
        others = [s for s in range(n) if s != seat]
        totals = sorted(st.rats[s] for s in others)
        shuffle(rng, totals)
        for s, x in zip(others, totals):
            st.rats[s] = x
