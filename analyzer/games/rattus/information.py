"""What each seat can see, and redrawing what it cannot (docs/rules/rattus.md §15 "Hidden information").

Hidden in Rattus: the face of every rat token on the board, in the supply and among the tokens
removed unseen (§5.3), and the supply's order; with Africanus also the other seats' region-card
hands, the deck's order, the cards an Astronomer or Explorer drew and discarded (seen by the
drawer only, §8.2) and the cards drawn but not yet placed. Public: everything else — cubes, discs,
class cards held, the plague piece and caravan, how many tokens each region holds, the sizes of
supplies, hands, deck and discard pile, revealed tokens and region cards played.

What a seat has been shown is part of its information: the faces a Witch showed it (§8.1), and
the region cards it drew. ``State.token_flags`` records, per face-down token, which seats know its
face and whether it is known to be a starting token (it was dealt at setup, §6.1 step 4, and no
Witch has looked at it since: the other seats cannot tell whether the Witch swapped it).
Knowledge is kept in that simple form: a seat forgets what it knew of a token once another seat's
Witch picks it, and what it knew of discarded region cards once the discard pile is reshuffled
into the deck (and of an Astronomer's cards put under the deck). Forgetting only widens the set of
arrangements a seat considers possible; the real one always stays among them.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence

from analyzer.games.rattus.state import STARTER_SLOT, State
from analyzer.model.draws import shuffle


def information_key(st: State, seat: int) -> Hashable:
    """What ``seat`` can see of position ``st``: equal keys exactly when the seat cannot tell two
    positions apart (given what it remembers, see the module docstring).

    Returns
    -------
    tuple
        ``(public part, private part)``; the public part is the same for every seat.
    """
    me = 1 << seat
    decider = st.seat == seat
    public = (
        st.kind, st.seat, st.serial, st.phase, st.turns, st.active, st.start_seat, st.last_seat,
        st.trigger_seat, st.end, st.final_round_turns, st.plague, st.caravan, st.disc_supply,
        _rows(st.cubes), _rows(st.discs), tuple(st.supply_cubes), tuple(st.palace), tuple(st.holder),
        _rows(st.token_flags), len(st.supply_tokens), len(st.removed_tokens), st.discarded_tokens,
        tuple(len(h) for h in st.hands), len(st.deck), tuple(st.rdiscard_seen), len(st.drawn),
        st.opening_i, tuple(st.opening_first), st.taken, st.placed, st.used, st.witch_first,
        st.witch_second, tuple(st.bonus), st.bonus_i, st.spread_left, st.res_region, st.res_chooser,
        st.res_token, st.res_offer, st.res_neutral, tuple(st.res_protected), tuple(st.res_played),
        st.final_i, tuple(st.cubes_placed), tuple(st.cubes_lost), tuple(st.diplomats_placed),
        tuple(st.caravan_moves), tuple(st.caravan_own), tuple(st.caravan_given),
        tuple(st.caravan_received), _rows(st.tag_own), _rows(st.tag_recv), tuple(st.palace_tag_own),
        tuple(st.palace_tag_recv), _rows(st.took),
    )
    private = (
        tuple(st.hands[seat]),
        tuple((r, i, t) for r, (toks, flags) in enumerate(zip(st.tokens, st.token_flags))
              for i, (t, f) in enumerate(zip(toks, flags)) if f & me),
        tuple((j, c) for j, (c, m) in enumerate(zip(st.rdiscard, st.rdiscard_seen)) if m & me),
        tuple(st.drawn) if decider else (),
        st.options if decider else (),
    )
    return public, private


def _rows(rows: Sequence[Sequence[float]]) -> tuple:
    return tuple(tuple(r) for r in rows)


def redraw_hidden(st: State, seat: int, rng: random.Random) -> None:
    """Redraw in place everything hidden from ``seat``, uniformly among the arrangements consistent
    with what it can see (``information_key(st, seat)`` does not change).

    The pools of hidden items are built in a canonical (sorted) order before shuffling, so the
    result depends only on the seat's information and ``rng``, never on the hidden facts.

    Tokens: the faces of the face-down tokens the seat does not know, of the supply and of the
    removed tokens are one pool. Tokens known to be starting tokens get starting tokens from the
    pool (a uniform ordered choice), every other hidden place a uniform arrangement of the rest.
    Region cards: the other seats' hands, the deck, the discarded cards the seat did not see and
    cards drawn by another seat are one pool, dealt back uniformly keeping every size.
    """
    cfg = st.cfg
    me = 1 << seat
    # ---- tokens (§5.3, §6.1, §8.1)
    starter_slots: list[tuple[int, int]] = []
    other_slots: list[tuple[int, int]] = []
    pool: list[int] = []
    for r, (toks, flags) in enumerate(zip(st.tokens, st.token_flags)):
        for i, f in enumerate(flags):
            if not f & me:
                pool.append(toks[i])
                (starter_slots if f & STARTER_SLOT else other_slots).append((r, i))
    pool.extend(st.supply_tokens)
    pool.extend(st.removed_tokens)
    pool.sort()
    starting = set(cfg.starting_tokens)
    starters = [t for t in pool if t in starting]
    shuffle(rng, starters)
    chosen = starters[:len(starter_slots)]
    for (r, i), t in zip(starter_slots, chosen):
        st.tokens[r][i] = t
    taken = set(chosen)
    rest = [t for t in pool if t not in taken]
    shuffle(rng, rest)
    k = 0
    for r, i in other_slots:
        st.tokens[r][i] = rest[k]
        k += 1
    n_supply = len(st.supply_tokens)
    st.supply_tokens = rest[k:k + n_supply]
    st.removed_tokens = rest[k + n_supply:]
    # ---- region cards (§9, §8.2)
    if not cfg.africanus:
        return
    hidden_drawn = st.seat != seat and bool(st.drawn)
    cards: list[int] = []
    for q, hand in enumerate(st.hands):
        if q != seat:
            cards.extend(hand)
    cards.extend(st.deck)
    unseen = [j for j, m in enumerate(st.rdiscard_seen) if not m & me]
    cards.extend(st.rdiscard[j] for j in unseen)
    if hidden_drawn:
        cards.extend(st.drawn)
    cards.sort()
    shuffle(rng, cards)
    k = 0
    for q, hand in enumerate(st.hands):
        if q != seat:
            st.hands[q] = cards[k:k + len(hand)]
            k += len(hand)
    st.deck = cards[k:k + len(st.deck)]
    k += len(st.deck)
    for j in unseen:
        st.rdiscard[j] = cards[k]
        k += 1
    if hidden_drawn:
        st.drawn = cards[k:k + len(st.drawn)]
