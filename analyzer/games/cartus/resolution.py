"""Phase D of a Rattus Cartus round: resolve the open buildings (docs/rules/cartus.md §4 D, §5, §6).

Each function below is one step of the rules program (``state.py``): it carries out what needs
no choice and posts a decision (``State.post``) where a player must answer; the ``answer_*``
functions carry on from the answer. Also the small moves every phase shares: drawing population
cards, looking at the Nun-row, handing cards over, and the card-count vectors a player may answer
(``counts_ok``, ``count_vectors``).
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from analyzer.games.cartus import chance
from analyzer.games.cartus.config import (
    FLUTE,
    JOKER,
    MAGIC_B,
    N_TYPES,
    PASS,
    READ_SWORD_CHOOSER,
    READ_TIE_MODE,
    SWORD,
    CartusConfig,
)
from analyzer.games.cartus.state import (
    GIVE,
    HOSPITAL,
    LOOK,
    OP_ACTIONS,
    OP_CLEANUP,
    OP_GIVE_TO,
    OP_LOOK,
    OP_PERFORM,
    OP_REVEAL,
    OP_SPECIAL,
    TARGET,
    State,
    positions,
)
from analyzer.model.logtext import plural

# what a hand-over is for (the ``c`` argument of a GIVE decision)
GIVE_SWORD: Final = 0
GIVE_GUARD_TOWER: Final = 1
GIVE_KINDS: Final = ("sword", "guard_tower")
SPECIAL_NAMES: Final = ("joker", "sword", "flute", "pass")


# ---------------------------------------------------------------- card-count vectors


def counts_ok(c: tuple, hand: Sequence[int], exact: int = -1, cap: int = -1, playable: bool = False) -> bool:
    """Whether ``c`` is a legal card-count answer from ``hand``: a tuple of ``N_TYPES`` ints
    (never bools or floats), each between 0 and the hand's count.

    ``exact``: exactly that many cards; ``cap``: at most that many; ``playable``: no Pass (the
    cards that may go face down into a building, rules §4 phase C).
    """
    if len(c) != N_TYPES:
        return False
    total = 0
    for t in range(N_TYPES):
        x = c[t]
        if not isinstance(x, int) or isinstance(x, bool) or x < 0 or x > hand[t]:
            return False
        total += x
    if playable and c[PASS]:
        return False
    return not ((exact >= 0 and total != exact) or (cap >= 0 and total > cap))


def count_vectors(hand: Sequence[int], exact: int = -1, cap: int = -1, playable: bool = False
                  ) -> tuple[tuple[int, ...], ...]:
    """Every answer ``counts_ok`` accepts, in lexicographic order of the count vectors.

    As many as the product of ``hand[t] + 1`` over the card types: only enumerate when asked.
    """
    top = [0 if (playable and t == PASS) else hand[t] for t in range(N_TYPES)]
    most = sum(top)
    if exact >= 0:
        most = min(most, exact)
    if cap >= 0:
        most = min(most, cap)
    out: list[tuple[int, ...]] = []
    cur = [0] * N_TYPES
    # cards still available from type t on, to prune an exact total that cannot be reached
    after = [0] * (N_TYPES + 1)
    for t in range(N_TYPES - 1, -1, -1):
        after[t] = after[t + 1] + top[t]

    def walk(t: int, total: int) -> None:
        if t == N_TYPES:
            if exact < 0 or total == exact:
                out.append(tuple(cur))
            return
        for x in range(min(top[t], most - total) + 1):
            if exact >= 0 and total + x + after[t + 1] < exact:
                continue
            cur[t] = x
            walk(t + 1, total + x)
        cur[t] = 0

    walk(0, 0)
    return tuple(out)


def cards_text(cfg: CartusConfig, c: Sequence[int]) -> str:
    """``"2 church, 1 joker"`` for a card-count vector; ``"no cards"`` when empty."""
    parts = [f"{c[t]} {cfg.class_names[t] if t < JOKER else SPECIAL_NAMES[t - JOKER]}"
             for t in range(N_TYPES) if c[t]]
    return ", ".join(parts) if parts else "no cards"


# ---------------------------------------------------------------- shared moves


def draw_cards(st: State, seat: int, k: int) -> int:
    """Draw ``k`` population cards into ``seat``'s hand (rules §4 phase B, empty deck [G]).

    An empty deck is refilled from the shuffled discard pile when a card must be drawn; when
    both are empty the remaining draws are lost. Returns the number of cards drawn.
    """
    deck, hand = st.deck, st.hands[seat]
    if k <= len(deck):  # the usual case: no reshuffle
        if k > 0:
            for t in deck[-k:]:
                hand[t] += 1
            del deck[-k:]
        return max(k, 0)
    got = 0
    for _ in range(k):
        if not deck:
            if not st.discard:
                break
            deck.extend(st.discard)
            st.discard.clear()
            chance.shuffle(st.rng, deck)
        hand[deck.pop()] += 1
        got += 1
    return got


def ask_look(st: State, seat: int) -> None:
    """Step: ``seat`` picks a Nun-row card to look at (rules §4 phase B, §5 Tent)."""
    if st.nun_row:
        st.post(LOOK, seat, opts=positions(len(st.nun_row)))


def answer_look(st: State, seat: int, pos: int) -> None:
    """A private look at Nun-row position ``pos``: the position is public, the card is not."""
    st.seen[seat] |= 1 << pos
    if st.log:
        st.log(f"    seat {seat} looks at Nun-row position {pos + 1}")


def discard_hand_cards(st: State, seat: int, c: Sequence[int]) -> None:
    """Remove cards from a hand: population cards to the discard pile, the rest to supply."""
    hand = st.hands[seat]
    for t in range(N_TYPES):
        x = c[t]
        if x:
            hand[t] -= x
            if t < JOKER:
                st.discard.extend([t] * x)
            else:
                st.supply[t] += x


def hand_over(st: State, giver: int, taker: int, k: int, kind: int) -> None:
    """``giver`` hands ``k`` hand cards of his choice to ``taker`` (Sword §6, Guard Tower §5).

    With ``sword_chooser = random`` a Sword takes random cards (chance); otherwise the giver
    answers a GIVE decision (``answer_give``).
    """
    if k <= 0:
        return
    if kind == GIVE_SWORD:
        st.cfg.reads[0] |= READ_SWORD_CHOOSER
    if kind == GIVE_SWORD and st.cfg.sword_chooser == "random":
        _move_cards(st, giver, taker, chance.random_cards(st.rng, st.hands[giver], k), kind)
    else:
        st.post(GIVE, giver, taker, k, kind)


def answer_give(st: State, giver: int, taker: int, kind: int, c: Sequence[int]) -> None:
    """The giver's chosen cards go to the taker (a GIVE decision's answer)."""
    _move_cards(st, giver, taker, c, kind)


def _move_cards(st: State, giver: int, taker: int, c: Sequence[int], kind: int) -> None:
    hand, to = st.hands[giver], st.hands[taker]
    for t in range(N_TYPES):
        if c[t]:
            hand[t] -= c[t]
            to[t] += c[t]
    if st.log:
        st.log(f"    seat {giver} gives {plural(sum(c), 'card')} to seat {taker} ({GIVE_KINDS[kind]})")


def _take(st: State, seat: int, t: int, k: int) -> int:
    """Take up to ``k`` cards of special type ``t`` from its open supply (rules §5 supplies [G])."""
    k = min(k, st.supply[t])
    st.supply[t] -= k
    st.hands[seat][t] += k
    return k


# ---------------------------------------------------------------- phase D


def resolve(st: State, r: int) -> None:
    """Step: resolve row position ``r``: step a per entrant, step b actions, step c clean-up
    (rules §4 D). Two copies of one building in the row are two separate buildings, each with
    its own entrants and its own premium (rules §4 phase D, T19)."""
    st.revealed = r + 1  # step a: every entrant reveals his cards at once
    entries = st.entries[r]
    if not entries:
        return
    cfg = st.cfg
    if st.log:
        st.log(f"  resolve {cfg.building_names[cfg.card_building[st.row[r]]]} (row {r + 1}): "
               + "; ".join(f"seat {s} reveals {cards_text(cfg, c)}" for s, c in entries))
    stack = st.stack
    stack.append((OP_CLEANUP, r, 0, 0))
    stack.append((OP_ACTIONS, r, 0, 0))
    for e in range(len(entries) - 1, -1, -1):
        stack.append((OP_REVEAL, r, e, 0))


def reveal(st: State, r: int, e: int) -> None:
    """Step a for entrant ``e`` of row ``r``: influence and rats for his cards, then his
    Swords one by one, then his Flutes (rules §4 D a, §6)."""
    cfg = st.cfg
    seat, c = st.entries[r][e]
    k = cfg.building_class[cfg.card_building[st.row[r]]]
    pop = c[0] + c[1] + c[2] + c[3] + c[4] + c[5]
    gain = pop + c[JOKER]
    off = pop - c[k]
    st.influence[seat][k] += gain
    st.round_influence[seat] += gain
    if off:
        st.rats[seat] += off
        st.rats_gained[seat] += off
        st.offclass[seat] += off
    if st.log and (gain or off):
        st.log(f"    seat {seat}: +{gain} {cfg.class_names[k]} influence, +{plural(off, 'rat')}")
    stack = st.stack
    for _ in range(c[FLUTE]):  # the stack runs last-in first: Swords before Flutes
        stack.append((OP_SPECIAL, r, e, FLUTE))
    for _ in range(c[SWORD]):
        stack.append((OP_SPECIAL, r, e, SWORD))


def special(st: State, r: int, e: int, t: int) -> None:
    """One Sword or Flute of entrant ``e``: its owner picks a target (rules §6); a card with no
    possible target does nothing."""
    cfg = st.cfg
    seat = st.entries[r][e][0]
    mode = cfg.sword_target if t == SWORD else cfg.flute_target
    if mode == "same_building":
        cands = tuple(sorted({s for s, _ in st.entries[r] if s != seat}))
    else:
        cands = tuple(s for s in range(st.n) if s != seat)
    if not cands:
        if st.log:
            st.log(f"    seat {seat}'s {'sword' if t == SWORD else 'flute'} has no target")
        return
    st.post(TARGET, seat, r, t, opts=cands)


def answer_target(st: State, seat: int, t: int, tgt: int) -> None:
    """A Sword takes half the target's hand, rounded down, cards of the target's choice; a
    Flute moves ``flute_rats`` of the owner's rats to the target (rules §6)."""
    if t == SWORD:
        hand_over(st, tgt, seat, st.hand_size(tgt) // 2, GIVE_SWORD)
        return
    m = min(st.cfg.flute_rats, st.rats[seat])
    st.rats[seat] -= m
    st.rats_given[seat] += m
    st.rats[tgt] += m
    st.rats_gained[tgt] += m
    if st.log:
        st.log(f"    seat {seat} flutes {plural(m, 'rat')} to seat {tgt}")


def actions(st: State, r: int) -> None:
    """Step b: the premium action for the most population cards + jokers, the standard one for
    every other entrant, in space order (rules §4 D b). A lone entrant takes the premium when
    he played at least ``premium_min_cards``."""
    cfg = st.cfg
    if not (st.round < cfg.rounds or cfg.last_round_actions):
        return
    entries = st.entries[r]
    prem = [False] * len(entries)
    if len(entries) == 1:  # alone: premium iff enough cards
        prem[0] = sum(entries[0][1][:SWORD]) >= cfg.premium_min_cards
    else:
        counts = [sum(c[:SWORD]) for _, c in entries]  # population + jokers
        best = max(counts)
        if best >= cfg.premium_min_cards:
            tied = [i for i, x in enumerate(counts) if x == best]
            if len(tied) > 1:  # the rules text breaks off here: tie_mode decides
                st.acted_premium_tie += 1
                cfg.reads[0] |= READ_TIE_MODE
            if cfg.tie_mode == "all_tied_premium" or len(tied) == 1:
                for i in tied:
                    prem[i] = True
            elif cfg.tie_mode == "first_entered_premium":
                prem[tied[0]] = True
    for e in range(len(entries) - 1, -1, -1):
        st.stack.append((OP_PERFORM, r, e, 1 if prem[e] else 0))


def perform(st: State, r: int, e: int, premium: bool) -> None:
    """Carry out the building's premium or standard action for entrant ``e`` (rules §5).

    Amounts come from the config (data/buildings.toml); every action is carried out in full,
    as far as supplies and rats allow (rules §4 D b, §5 supplies [G]).
    """
    cfg = st.cfg
    seat = st.entries[r][e][0]
    b = cfg.card_building[st.row[r]]
    kind = cfg.building_action[b]
    amt = cfg.premium[b] if premium else cfg.standard[b]
    (st.premium if premium else st.standard)[seat][b] += 1
    if b == MAGIC_B:
        st.acted_magic_b += 1
    if st.log:
        st.log(f"    seat {seat}: {'premium' if premium else 'standard'} {cfg.building_names[b]} ({kind} {amt})")
    if kind == "vp_tokens":
        x = min(amt, st.vp_supply)
        st.vp_supply -= x
        st.vp[seat] += x
    elif kind == "gold":
        x = min(amt, st.gold_supply)
        st.gold_supply -= x
        st.gold[seat] += x
    elif kind == "discard_rats":
        x = min(amt, st.rats[seat])
        st.rats[seat] -= x
        st.rats_discarded[seat] += x
    elif kind == "hospital":
        free, cap = amt
        x = min(free, st.rats[seat])
        st.rats[seat] -= x
        cap = min(cap, st.rats[seat], st.hand_size(seat))
        if cap > 0:
            st.post(HOSPITAL, seat, cap, x)
        else:
            _hospital_done(st, seat, x)
    elif kind == "pass":
        _take(st, seat, PASS, amt)
    elif kind == "joker":
        _take(st, seat, JOKER, amt)
    elif kind == "sword":
        _take(st, seat, SWORD, amt)
    elif kind == "flute":
        _take(st, seat, FLUTE, amt)
    elif kind == "draw":
        draw_cards(st, seat, amt)
    elif kind == "brewery":
        draw_cards(st, seat, st.round_influence[seat] // amt)
    elif kind == "look":
        for _ in range(amt):
            st.stack.append((OP_LOOK, seat, 0, 0))
    elif kind == "guard_tower" and premium:
        _guard_tower(st, seat, amt)


def answer_hospital(st: State, seat: int, free: int, c: Sequence[int]) -> None:
    """The Hospital's chosen hand cards are discarded, and as many rats, after the ``free``
    rats of the action itself (rules §5)."""
    discard_hand_cards(st, seat, c)
    x = sum(c)
    st.rats[seat] -= x
    _hospital_done(st, seat, free + x)


def _hospital_done(st: State, seat: int, x: int) -> None:
    st.rats_discarded[seat] += x
    if st.log:
        st.log(f"    seat {seat} discards {plural(x, 'rat')}")


def _guard_tower(st: State, seat: int, amt: int) -> None:
    """Guard Tower premium: unprotected players with at least as many hand cards give ``amt``.

    Givers are fixed when the action starts (``guard_tower_givers = fixed_at_start``) or
    re-checked before each giver (``give_to``); they are visited clockwise from the holder
    (rules §5).
    """
    n = st.n
    own = st.hand_size(seat)
    fixed = st.cfg.guard_tower_givers == "fixed_at_start"
    for i in range(n - 1, 0, -1):  # pushed last-first: seat + 1 gives first
        s = (seat + i) % n
        if not (st.protected >> s) & 1 and (not fixed or st.hand_size(s) >= own):
            st.stack.append((OP_GIVE_TO, seat, s, amt))


def give_to(st: State, holder: int, giver: int, amt: int) -> None:
    """Step: one Guard Tower giver hands over up to ``amt`` cards (rules §5)."""
    if st.cfg.guard_tower_givers != "fixed_at_start" and st.hand_size(giver) < st.hand_size(holder):
        return
    hand_over(st, giver, holder, min(amt, st.hand_size(giver)), GIVE_GUARD_TOWER)


def cleanup(st: State, r: int) -> None:
    """Step c: population cards to the discard pile, specials and jokers back to their supplies
    (rules §4 D c)."""
    discard, supply = st.discard, st.supply
    for _, c in st.entries[r]:
        for t in range(JOKER):
            x = c[t]
            if x:
                discard.extend([t] * x)
        supply[JOKER] += c[JOKER]
        supply[SWORD] += c[SWORD]
        supply[FLUTE] += c[FLUTE]
