"""Class-card abilities, docs/rules/rattus.md §8 (base cards §8.1, Islam cards §8.2, §2.2, §2.3).

Each ability has ``options(game, p)`` (the legal first choices; empty means the ability has no
legal target and cannot be used, §8 general timing) and ``use(game, p, options)``, which asks the
holder for its choice among ``options`` and any follow-up choices, then applies them. The
Knight acts in the plague move (engine) and the Peasant in phase B, so neither is an ability of
the regular turn; the Peasant is one in the final round (§10.2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analyzer.games.rattus.config import CARD_INDEX

if TYPE_CHECKING:  # pragma: no cover
    from analyzer.games.rattus.engine import Game

_DRAW = ("draw",)  # the single first option of the Astronomer and Explorer (draw 3 cards)


# ---------------------------------------------------------------- Merchant (§8.1)

def merchant_options(game: Game, p: int) -> tuple:
    """``(src, dst, k, with_disc)``: up to 3 own cubes from one region to one neighbour (§8.1, §8.2 Sultan)."""
    st = game.state
    out = []
    for src, row in enumerate(st.cubes):
        c = row[p]
        if not c:
            continue
        disc = st.discs[src][p]
        for dst in game.cfg.adj[src]:
            for k in range(1, min(3, c) + 1):
                if k <= c - disc:
                    out.append((src, dst, k, False))
                if disc and not st.discs[dst][p]:
                    out.append((src, dst, k, True))
    return tuple(out)


def merchant_use(game: Game, p: int, options: tuple) -> None:
    """Move the chosen cubes; a disc cube carries its disc along (§8.2 Sultan details)."""
    src, dst, k, with_disc = game.ask(p, "merchant", options)
    game.move_cubes(p, src, dst, k, with_disc)
    if game.log is not None:
        names = game.cfg.region_names
        game.log(f"  seat {p} merchant: {k} cube(s){' with disc' if with_disc else ''} {names[src]} -> {names[dst]}")


# ---------------------------------------------------------------- Monk (§8.1)

def monk_options(game: Game, p: int) -> tuple:
    """``(src, index, dst)``: one token to a neighbouring region holding fewer than ``rat_cap`` rats."""
    st = game.state
    cap = game.cfg.rat_cap
    out = []
    for src, toks in enumerate(st.tokens):
        if not toks:
            continue
        dsts = [d for d in game.cfg.adj[src] if len(st.tokens[d]) < cap]
        for i in range(len(toks)):
            for d in dsts:
                out.append((src, i, d))
    return tuple(out)


def monk_use(game: Game, p: int, options: tuple) -> None:
    """Move the chosen token face down (§8.1)."""
    src, i, dst = game.ask(p, "monk", options)
    st = game.state
    st.tokens[dst].append(st.tokens[src].pop(i))
    if game.log is not None:
        names = game.cfg.region_names
        game.log(f"  seat {p} monk: a rat {names[src]} -> {names[dst]}")


# ---------------------------------------------------------------- Witch (§8.1)

def _all_tokens(game: Game) -> tuple:
    return tuple((r, i) for r, toks in enumerate(game.state.tokens) for i in range(len(toks)))


def witch_options(game: Game, p: int) -> tuple:
    """``(region, index)`` of the first token to look at; usable with at least 2 tokens on the board."""
    toks = _all_tokens(game)
    return toks if len(toks) >= 2 else ()


def witch_use(game: Game, p: int, options: tuple) -> None:
    """Look at two tokens, then swap them or not (§8.1). The swap decision sees both token ids."""
    first = game.ask(p, "witch_first", options)
    second = game.ask(p, "witch_second", tuple(t for t in options if t != first))
    st = game.state
    (r1, i1), (r2, i2) = first, second
    a, b = st.tokens[r1][i1], st.tokens[r2][i2]
    swap = game.ask(p, "witch_swap", (False, True), ctx=(first, second, a, b))
    if swap:
        st.tokens[r1][i1], st.tokens[r2][i2] = b, a
    if game.log is not None:
        cfg = game.cfg
        game.log(f"  seat {p} witch: sees {cfg.token_labels[a]} ({cfg.region_names[r1]}) and "
                 f"{cfg.token_labels[b]} ({cfg.region_names[r2]}), {'swaps' if swap else 'no swap'}")


# ---------------------------------------------------------------- King (§8.1)

def king_options(game: Game, p: int) -> tuple:
    """Regions with no rats where ``p`` has an ordinary (disc-free) cube (§8.1, Q2)."""
    st = game.state
    return tuple(r for r, row in enumerate(st.cubes) if not st.tokens[r] and row[p] - st.discs[r][p] > 0)


def king_use(game: Game, p: int, options: tuple) -> None:
    """Move one cube to the palace, safe for the rest of the game (§8.1)."""
    r = game.ask(p, "king", options)
    game.to_palace(p, r)
    if game.log is not None:
        game.log(f"  seat {p} king: 1 cube {game.cfg.region_names[r]} -> palace")


# ---------------------------------------------------------------- Sultan (§2.3)

def sultan_options(game: Game, p: int) -> tuple:
    """Regions where ``p`` has a cube and no disc yet; none if the disc supply is empty (§2.3)."""
    st = game.state
    if st.disc_supply <= 0:
        return ()
    return tuple(r for r, row in enumerate(st.cubes) if row[p] and not st.discs[r][p])


def sultan_use(game: Game, p: int, options: tuple) -> None:
    """Put one diplomat disc under one of ``p``'s cubes in the chosen region (§2.3)."""
    r = game.ask(p, "sultan", options)
    st = game.state
    st.discs[r][p] = 1
    st.disc_supply -= 1
    st.diplomats_placed[p] += 1
    if game.log is not None:
        game.log(f"  seat {p} sultan: diplomat in {game.cfg.region_names[r]}")


# ---------------------------------------------------------------- Trader (§2.2)

def trader_options(game: Game, p: int) -> tuple:
    """``(middle, end)``: exactly two steps, end != start (§2.2, Q6)."""
    pos = game.state.caravan
    return game.cfg.caravan_paths[pos] if pos >= 0 else ()


def majority_holders(row, seat_from: int) -> list[int]:
    """Seats tied for most cubes (at least 1) in a region, clockwise from ``seat_from`` (§2.2)."""
    top = max(row)
    if top == 0:
        return []
    n = len(row)
    return [(seat_from + i) % n for i in range(n) if row[(seat_from + i) % n] == top]


def trader_use(game: Game, p: int, options: tuple) -> None:
    """Move the caravan; majority holders of the start, then the middle region may add 1 cube (§2.2).

    Majority is counted in each region before any bonus cube goes in there; each beneficiary
    decides clockwise from the holder and may decline; no bonus in the end region (Q7).
    """
    mid, end = game.ask(p, "trader", options)
    st = game.state
    start = st.caravan
    st.caravan = end
    st.caravan_moves[p] += 1
    log = game.log
    if log is not None:
        names = game.cfg.region_names
        log(f"  seat {p} trader: caravan {names[start]} -> {names[mid]} -> {names[end]}")
    for r in (start, mid):
        for q in majority_holders(st.cubes[r], p):
            if st.supply_cubes[q] <= 0:
                continue
            if not game.ask(q, "caravan_bonus", (True, False), ctx=(r, p)):
                continue
            game.place_cubes(q, r, 1)
            if q == p:
                st.caravan_own[p] += 1
                st.tag_own[r][q] += 1
            else:
                st.caravan_given[p] += 1
                st.caravan_received[q] += 1
                st.tag_recv[r][q] += 1
            if log is not None:
                log(f"    bonus cube for seat {q} in {game.cfg.region_names[r]}")


# ---------------------------------------------------------------- Astronomer, Explorer (§8.2)

def draw_options(game: Game, p: int) -> tuple:
    """Usable while deck or discard holds a region card (§8.2, §9)."""
    st = game.state
    return _DRAW if (st.deck or st.rdiscard) else ()


def astronomer_use(game: Game, p: int, options: tuple) -> None:
    """Draw up to 3 region cards, keep one, the rest to the discard (default) or deck bottom (§8.2)."""
    st = game.state
    drawn = game.draw_region_cards(3)
    keep = game.ask(p, "astronomer", tuple(drawn))
    st.hands[p].append(keep)
    rest = [c for c in drawn if c != keep]
    if game.cfg.astronomer_leftovers == "discard":
        st.rdiscard.extend(rest)
    else:
        st.deck[0:0] = rest
    if game.log is not None:
        game.log(f"  seat {p} astronomer: draws {len(drawn)}, keeps one")


def explorer_use(game: Game, p: int, options: tuple) -> None:
    """Draw up to 3 region cards, place ``explorer_cubes`` in one card's region, discard all (§8.2)."""
    st = game.state
    drawn = game.draw_region_cards(3)
    cid = game.ask(p, "explorer", tuple(drawn))
    r = game.cfg.rcard_region[cid]
    k = game.place_cubes(p, r, game.cfg.explorer_cubes)
    st.rdiscard.extend(drawn)
    if game.log is not None:
        game.log(f"  seat {p} explorer: {k} cube(s) in {game.cfg.region_names[r]}")


# ---------------------------------------------------------------- Peasant in the final round (§10.2)

def peasant_final_options(game: Game, p: int) -> tuple:
    """Any region in use, if ``p`` has a cube in supply (§10.2 default)."""
    return tuple(range(game.cfg.n_regions)) if game.state.supply_cubes[p] > 0 else ()


def peasant_final_use(game: Game, p: int, options: tuple) -> None:
    """Place 1 cube in the chosen region (§10.2 default)."""
    r = game.ask(p, "peasant", options)
    game.place_cubes(p, r, 1)
    if game.log is not None:
        game.log(f"  seat {p} peasant: 1 cube in {game.cfg.region_names[r]}")


# card index -> (options, use); regular-turn abilities and final-round abilities
ABILITIES = {
    CARD_INDEX["merchant"]: (merchant_options, merchant_use),
    CARD_INDEX["monk"]: (monk_options, monk_use),
    CARD_INDEX["witch"]: (witch_options, witch_use),
    CARD_INDEX["king"]: (king_options, king_use),
    CARD_INDEX["sultan"]: (sultan_options, sultan_use),
    CARD_INDEX["trader"]: (trader_options, trader_use),
    CARD_INDEX["astronomer"]: (draw_options, astronomer_use),
    CARD_INDEX["explorer"]: (draw_options, explorer_use),
}
FINAL_ABILITIES = {**ABILITIES, CARD_INDEX["peasant"]: (peasant_final_options, peasant_final_use)}
