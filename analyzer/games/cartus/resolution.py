"""Phase D of a Rattus Cartus round: resolve the open buildings (docs/rules/cartus.md §4 D, §5, §6).

Also the small moves every phase shares: drawing population cards, looking at the Nun-row,
handing cards over, and checking a policy's answer (an illegal answer raises
``IllegalChoice``; the engine never fixes it silently).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import sub

from analyzer.errors import IllegalChoice
from analyzer.games.cartus import chance
from analyzer.games.cartus.config import FLUTE, JOKER, N_TYPES, PASS, SWORD
from analyzer.games.cartus.state import State
from analyzer.games.logtext import plural

Log = Callable[[str], None] | None


# ---------------------------------------------------------------- shared moves


def illegal(seat: int, kind: str, choice, options) -> IllegalChoice:
    """The error for a choice the engine did not offer."""
    return IllegalChoice(f"seat {seat}: {kind}: choice {choice!r} is not legal (options: {options})")


def check_counts(choice, hand: Sequence[int], seat: int, kind: str, *, exact: int = -1, cap: int = -1,
                 playable: bool = False) -> list[int]:
    """Validate a card-count vector chosen from ``hand``; return it as a list.

    ``exact``: the vector must hold exactly that many cards; ``cap``: at most that many;
    ``playable``: only cards that may be played into a building (no Pass, rules §4 phase C).
    """
    try:
        c = list(map(int, choice))
    except TypeError:
        raise illegal(seat, kind, choice, f"a list of {N_TYPES} counts") from None
    if len(c) != N_TYPES or min(c) < 0 or min(map(sub, hand, c)) < 0:
        raise illegal(seat, kind, choice, f"counts within hand {list(hand)}")
    total = sum(c)
    if (exact >= 0 and total != exact) or (cap >= 0 and total > cap) or (playable and c[PASS]):
        raise illegal(seat, kind, choice, f"exact={exact} cap={cap} playable={playable} hand={list(hand)}")
    return c


def draw_cards(st: State, seat: int, k: int, rng) -> int:
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
            chance.shuffle(rng, deck)
        hand[deck.pop()] += 1
        got += 1
    return got


def look(st: State, seat: int, policy, prng, log: Log) -> None:
    """One private look at a Nun-row card chosen by the player (rules §4 phase B, §5 Tent)."""
    pos = policy.look(st, seat, prng)
    if not (isinstance(pos, int) and 0 <= pos < len(st.nun_row)):
        raise illegal(seat, "look", pos, f"0..{len(st.nun_row) - 1}")
    st.seen[seat] |= 1 << pos
    if log:
        log(f"    seat {seat} looks at Nun-row position {pos + 1}")


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


def hand_over(st: State, giver: int, taker: int, k: int, kind: str, policies, prngs, rng, log: Log) -> None:
    """``giver`` hands ``k`` hand cards of his choice to ``taker`` (Sword §6, Guard Tower §5)."""
    if k <= 0:
        return
    hand = st.hands[giver]
    if kind == "sword" and st.cfg.sword_chooser == "random":
        c = chance.random_cards(rng, hand, k)
    else:
        c = check_counts(policies[giver].give(st, giver, k, taker, kind, prngs[giver]), hand, giver,
                         f"give ({kind})", exact=k)
    to = st.hands[taker]
    for t in range(N_TYPES):
        if c[t]:
            hand[t] -= c[t]
            to[t] += c[t]
    if log:
        log(f"    seat {giver} gives {plural(k, 'card')} to seat {taker} ({kind})")


def _take(st: State, seat: int, t: int, k: int) -> int:
    """Take up to ``k`` cards of special type ``t`` from its open supply (rules §5 supplies [G])."""
    k = min(k, st.supply[t])
    st.supply[t] -= k
    st.hands[seat][t] += k
    return k


# ---------------------------------------------------------------- phase D


def resolve_building(st: State, r: int, policies, prngs, rng, log: Log) -> None:
    """Resolve row position ``r``: step a cards, step b actions, step c clean-up (rules §4 D).

    Raises
    ------
    IllegalChoice
        A policy answered a target, give, look or Hospital decision with an option not offered.
    """
    cfg = st.cfg
    card = st.row[r]
    b = cfg.card_building[card]
    k = cfg.building_class[b]
    entries = st.entries[r]
    if not entries:
        return
    if log:
        log(f"  resolve {cfg.building_names[b]} (row {r + 1}): "
            + ", ".join(f"seat {s} {list(c[:9])}" for s, c in entries))
    influence, round_influence = st.influence, st.round_influence
    # step a: influence and rats, then Swords, then Flutes, per entrant in space order
    for seat, c in entries:
        pop = c[0] + c[1] + c[2] + c[3] + c[4] + c[5]
        gain = pop + c[JOKER]
        off = pop - c[k]
        influence[seat][k] += gain
        round_influence[seat] += gain
        if off:
            st.rats[seat] += off
            st.rats_gained[seat] += off
            st.offclass[seat] += off
        if log and (gain or off):
            log(f"    seat {seat}: +{gain} {cfg.class_names[k]} influence, +{plural(off, 'rat')}")
        if not (c[SWORD] or c[FLUTE]):
            continue
        for kind, t, mode in (("sword", SWORD, cfg.sword_target), ("flute", FLUTE, cfg.flute_target)):
            for _ in range(c[t]):
                if mode == "same_building":
                    cands = tuple(sorted({s for s, _ in entries if s != seat}))
                else:
                    cands = tuple(s for s in range(st.n) if s != seat)
                if not cands:
                    if log:
                        log(f"    seat {seat}'s {kind} has no target")
                    continue
                tgt = policies[seat].target(st, seat, kind, cands, prngs[seat])
                if tgt not in cands:
                    raise illegal(seat, f"{kind} target", tgt, cands)
                if t == SWORD:
                    hand_over(st, tgt, seat, st.hand_size(tgt) // 2, "sword", policies, prngs, rng, log)
                else:
                    m = min(cfg.flute_rats, st.rats[seat])
                    st.rats[seat] -= m
                    st.rats_given[seat] += m
                    st.rats[tgt] += m
                    st.rats_gained[tgt] += m
                    if log:
                        log(f"    seat {seat} flutes {plural(m, 'rat')} to seat {tgt}")
    # step b: premium for the most population cards + jokers, standard for the rest
    if st.round < cfg.rounds or cfg.last_round_actions:
        if len(entries) == 1:  # alone: premium iff enough cards
            seat, c = entries[0]
            perform(st, seat, b, sum(c[:SWORD]) >= cfg.premium_min_cards, policies, prngs, rng, log)
        else:
            counts = [sum(c[:SWORD]) for _, c in entries]  # population + jokers
            best = max(counts)
            prem = [False] * len(entries)
            if best >= cfg.premium_min_cards:
                tied = [i for i, x in enumerate(counts) if x == best]
                if cfg.tie_mode == "all_tied_premium" or len(tied) == 1:
                    for i in tied:
                        prem[i] = True
                elif cfg.tie_mode == "first_entered_premium":
                    prem[tied[0]] = True
            for i, (seat, _) in enumerate(entries):
                perform(st, seat, b, prem[i], policies, prngs, rng, log)
    # step c: population cards to the discard pile, specials and jokers back to their supplies
    discard, supply = st.discard, st.supply
    for _, c in entries:
        for t, x in enumerate(c[:JOKER]):
            if x:
                discard.extend([t] * x)
        supply[JOKER] += c[JOKER]
        supply[SWORD] += c[SWORD]
        supply[FLUTE] += c[FLUTE]


def perform(st: State, seat: int, b: int, premium: bool, policies, prngs, rng, log: Log) -> None:
    """Carry out building ``b``'s premium or standard action for ``seat`` (rules §5).

    Amounts come from the config (data/buildings.toml); every action is carried out in full,
    as far as supplies and rats allow (rules §4 D b, §5 supplies [G]).
    """
    cfg = st.cfg
    kind = cfg.building_action[b]
    amt = cfg.premium[b] if premium else cfg.standard[b]
    (st.premium if premium else st.standard)[seat][b] += 1
    if log:
        log(f"    seat {seat}: {'premium' if premium else 'standard'} {cfg.building_names[b]} ({kind} {amt})")
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
            c = check_counts(policies[seat].hospital(st, seat, cap, prngs[seat]), st.hands[seat], seat,
                             "hospital", cap=cap)
            discard_hand_cards(st, seat, c)
            x += sum(c)
            st.rats[seat] -= sum(c)
        st.rats_discarded[seat] += x
        if log:
            log(f"    seat {seat} discards {plural(x, 'rat')}")
    elif kind == "pass":
        _take(st, seat, PASS, amt)
    elif kind == "joker":
        _take(st, seat, JOKER, amt)
    elif kind == "sword":
        _take(st, seat, SWORD, amt)
    elif kind == "flute":
        _take(st, seat, FLUTE, amt)
    elif kind == "draw":
        draw_cards(st, seat, amt, rng)
    elif kind == "brewery":
        draw_cards(st, seat, st.round_influence[seat] // amt, rng)
    elif kind == "look":
        for _ in range(amt):
            look(st, seat, policies[seat], prngs[seat], log)
    elif kind == "guard_tower" and premium:
        _guard_tower(st, seat, amt, policies, prngs, rng, log)


def _guard_tower(st: State, seat: int, amt: int, policies, prngs, rng, log: Log) -> None:
    """Guard Tower premium: unprotected players with at least as many hand cards give ``amt``.

    Givers are fixed when the action starts (``guard_tower_givers = fixed_at_start``) or
    re-checked before each giver; they are visited clockwise from the holder (rules §5).
    """
    n = st.n
    order = [(seat + i) % n for i in range(1, n)]
    own = st.hand_size(seat)
    fixed = st.cfg.guard_tower_givers == "fixed_at_start"
    givers = [s for s in order if not (st.protected >> s) & 1 and (not fixed or st.hand_size(s) >= own)]
    for g in givers:
        if not fixed and st.hand_size(g) < st.hand_size(seat):
            continue
        hand_over(st, g, seat, min(amt, st.hand_size(g)), "guard_tower", policies, prngs, rng, log)
