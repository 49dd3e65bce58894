"""Class-card abilities, docs/rules/rattus.md §8 (base cards §8.1, Islam cards §8.2, §2.2, §2.3).

Each ability has ``options(game, p)`` (the legal first choices; empty means the ability has no
legal target and cannot be used, §8 general timing) and ``use(game, p, options)``, which starts
it: it asks the holder for its choice among ``options`` (``GameCore.ask``). Each decision an
ability asks is resumed by its handler in ``CHOSEN`` (decision kind -> ``handler(game, seat,
choice)``), which applies the choice and either asks the next question or hands the turn back
(``game.ability_done()``). The Knight acts in the plague move (engine) and the Peasant in phase B,
so neither is an ability of the regular turn; the Peasant is one in the final round (§10.2), and
so is the Knight with the rule option ``knight_moves_plague_in_final_round``.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from analyzer.games.rattus.config import CARD_INDEX, READ_ASTRONOMER, READ_KNIGHT_FINAL
from analyzer.games.rattus.core import GameCore

_DRAW: Final = ("draw",)  # the single first option of the Astronomer and Explorer (draw 3 cards)


# ---------------------------------------------------------------- Merchant (§8.1)

def merchant_options(game: GameCore, p: int) -> tuple:
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


def merchant_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask which cubes move (§8.1)."""
    game.ask(p, "merchant", options)


def merchant_chosen(game: GameCore, p: int, choice: Any) -> None:
    """Move the chosen cubes; a disc cube carries its disc along (§8.2 Sultan details)."""
    src, dst, k, with_disc = choice
    game.move_cubes(p, src, dst, k, with_disc)
    if game.log is not None:
        names = game.cfg.region_names
        game.log(f"  seat {p} merchant: {k} cube(s){' with disc' if with_disc else ''} {names[src]} -> {names[dst]}")
    game.ability_done()


# ---------------------------------------------------------------- Monk (§8.1)

def monk_options(game: GameCore, p: int) -> tuple:
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


def monk_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask which token moves where (§8.1)."""
    game.ask(p, "monk", options)


def monk_chosen(game: GameCore, p: int, choice: Any) -> None:
    """Move the chosen token face down; what anyone knew of it moves along (§8.1)."""
    src, i, dst = choice
    tid, flags = game.take_token(src, i)
    game.put_token(dst, tid, flags)
    if game.log is not None:
        names = game.cfg.region_names
        game.log(f"  seat {p} monk: a rat {names[src]} -> {names[dst]}")
    game.ability_done()


# ---------------------------------------------------------------- Witch (§8.1)

def _all_tokens(game: GameCore) -> tuple:
    return tuple((r, i) for r, toks in enumerate(game.state.tokens) for i in range(len(toks)))


def witch_options(game: GameCore, p: int) -> tuple:
    """``(region, index)`` of the first token to look at; usable with at least 2 tokens on the board."""
    toks = _all_tokens(game)
    return toks if len(toks) >= 2 else ()


def witch_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask for the first of the two tokens to look at (§8.1)."""
    game.ask(p, "witch_first", options)


def witch_first_chosen(game: GameCore, p: int, choice: Any) -> None:
    """Ask for the second token: any other token on the board (§8.1)."""
    game.state.witch_first = choice
    game.ask(p, "witch_second", tuple(t for t in _all_tokens(game) if t != choice))


def witch_second_chosen(game: GameCore, p: int, choice: Any) -> None:
    """Show the holder both tokens, then ask whether to swap them (§8.1).

    From now on the holder knows both faces. The other seats saw which two tokens were picked but
    not whether they were swapped, so what they knew of either token (its face, that it is a
    starting token) is dropped for both (``State.token_flags``)."""
    st = game.state
    st.witch_second = choice
    (r1, i1), (r2, i2) = st.witch_first, choice
    st.token_flags[r1][i1] = st.token_flags[r2][i2] = 1 << p
    game.ask(p, "witch_swap", (False, True))


def witch_swap_chosen(game: GameCore, p: int, choice: Any) -> None:
    """Swap the two tokens' places, or leave them (§8.1)."""
    st = game.state
    (r1, i1), (r2, i2) = st.witch_first, st.witch_second
    a, b = st.tokens[r1][i1], st.tokens[r2][i2]
    if choice:
        st.tokens[r1][i1], st.tokens[r2][i2] = b, a
    if game.log is not None:
        cfg = game.cfg
        game.log(f"  seat {p} witch: sees {cfg.token_labels[a]} ({cfg.region_names[r1]}) and "
                 f"{cfg.token_labels[b]} ({cfg.region_names[r2]}), {'swaps' if choice else 'no swap'}")
    st.witch_first = st.witch_second = (-1, -1)
    game.ability_done()


# ---------------------------------------------------------------- King (§8.1)

def king_options(game: GameCore, p: int) -> tuple:
    """Regions with no rats where ``p`` has an ordinary (disc-free) cube (§8.1, Q2)."""
    st = game.state
    return tuple(r for r, row in enumerate(st.cubes) if not st.tokens[r] and row[p] - st.discs[r][p] > 0)


def king_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask from which region a cube goes to the palace (§8.1)."""
    game.ask(p, "king", options)


def king_chosen(game: GameCore, p: int, r: Any) -> None:
    """Move one cube to the palace, safe for the rest of the game (§8.1)."""
    game.to_palace(p, r)
    if game.log is not None:
        game.log(f"  seat {p} king: 1 cube {game.cfg.region_names[r]} -> palace")
    game.ability_done()


# ---------------------------------------------------------------- Sultan (§2.3)

def sultan_options(game: GameCore, p: int) -> tuple:
    """Regions where ``p`` has a cube and no disc yet; none if the disc supply is empty (§2.3)."""
    st = game.state
    if st.disc_supply <= 0:
        return ()
    return tuple(r for r, row in enumerate(st.cubes) if row[p] and not st.discs[r][p])


def sultan_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask in which region a diplomat disc goes (§2.3)."""
    game.ask(p, "sultan", options)


def sultan_chosen(game: GameCore, p: int, r: Any) -> None:
    """Put one diplomat disc under one of ``p``'s cubes in the chosen region (§2.3)."""
    st = game.state
    st.discs[r][p] = 1
    st.disc_supply -= 1
    st.diplomats_placed[p] += 1
    if game.log is not None:
        game.log(f"  seat {p} sultan: diplomat in {game.cfg.region_names[r]}")
    game.ability_done()


# ---------------------------------------------------------------- Trader (§2.2)

def trader_options(game: GameCore, p: int) -> tuple:
    """``(middle, end)``: exactly two steps, end != start (§2.2, Q6)."""
    pos = game.state.caravan
    return game.cfg.caravan_paths[pos] if pos >= 0 else ()


def majority_holders(row: list[int], seat_from: int) -> list[int]:
    """Seats tied for most cubes (at least 1) in a region, clockwise from ``seat_from`` (§2.2)."""
    top = max(row)
    if top == 0:
        return []
    n = len(row)
    out = []
    for i in range(n):  # written out, on a typed list: the greedy player's caravan values call it
        q = (seat_from + i) % n
        if row[q] == top:
            out.append(q)
    return out


def trader_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask for the caravan's path ``(middle, end)`` (§2.2)."""
    game.ask(p, "trader", options)


def trader_chosen(game: GameCore, p: int, choice: Any) -> None:
    """Move the caravan; majority holders of the start, then the middle region may add 1 cube (§2.2).

    Majority is counted in each region before any bonus cube goes in there (start and middle
    differ, so the start's bonus cubes never change the middle's count); each beneficiary decides
    clockwise from the holder and may decline; no bonus in the end region (Q7).
    """
    mid, end = choice
    st = game.state
    start = st.caravan
    st.caravan = end
    st.caravan_moves[p] += 1
    guessed = game.cfg.guessed_regions  # stand-in regions entered (§4.3)
    st.acted_africa += ((guessed >> mid) & 1) + ((guessed >> end) & 1)
    if game.log is not None:
        names = game.cfg.region_names
        game.log(f"  seat {p} trader: caravan {names[start]} -> {names[mid]} -> {names[end]}")
    st.bonus = [x for r in (start, mid) for q in majority_holders(st.cubes[r], p) for x in (r, q)]
    st.bonus_i = 0
    _offer_bonus(game)


def _offer_bonus(game: GameCore) -> None:
    """Ask the next majority holder with a cube in supply whether to add a bonus cube (§2.2)."""
    st = game.state
    while st.bonus_i < len(st.bonus) // 2:
        r, q = st.bonus[2 * st.bonus_i], st.bonus[2 * st.bonus_i + 1]
        st.bonus_i += 1
        if st.supply_cubes[q] > 0:
            game.ask(q, "caravan_bonus", (True, False), ctx=(r, st.active))
            return
    st.bonus = []
    game.ability_done()


def caravan_bonus_chosen(game: GameCore, q: int, choice: Any) -> None:
    """Add seat ``q``'s bonus cube where it was offered, or decline it (§2.2)."""
    st = game.state
    if choice:
        p = st.active
        r = st.bonus[2 * st.bonus_i - 2]
        game.place_cubes(q, r, 1)
        if q == p:
            st.caravan_own[p] += 1
            st.tag_own[r][q] += 1
        else:
            st.caravan_given[p] += 1
            st.caravan_received[q] += 1
            st.tag_recv[r][q] += 1
        if game.log is not None:
            game.log(f"    bonus cube for seat {q} in {game.cfg.region_names[r]}")
    _offer_bonus(game)


# ---------------------------------------------------------------- Astronomer, Explorer (§8.2)

def draw_options(game: GameCore, p: int) -> tuple:
    """Usable while deck or discard holds a region card (§8.2, §9)."""
    st = game.state
    return _DRAW if (st.deck or st.rdiscard) else ()


def astronomer_use(game: GameCore, p: int, options: tuple) -> None:
    """Draw up to 3 region cards (seen by the holder only) and ask which one to keep (§8.2)."""
    st = game.state
    st.drawn = game.draw_region_cards(3)
    game.ask(p, "astronomer", tuple(st.drawn))


def astronomer_chosen(game: GameCore, p: int, keep: Any) -> None:
    """Keep one card; the rest to the discard (default) or deck bottom (§8.2)."""
    st = game.state
    drawn, st.drawn = st.drawn, []
    st.hands[p].append(keep)
    rest = [c for c in drawn if c != keep]
    if rest:  # what happens to them is a labelled default (§8.2)
        st.acted_astronomer += 1
    game.cfg.reads[0] |= READ_ASTRONOMER
    if game.cfg.astronomer_leftovers == "discard":
        game.discard_region_cards(rest, 1 << p)
    else:
        st.deck[0:0] = rest
    if game.log is not None:
        game.log(f"  seat {p} astronomer: draws {len(drawn)}, keeps one")
    game.ability_done()


def explorer_use(game: GameCore, p: int, options: tuple) -> None:
    """Draw up to 3 region cards (seen by the holder only) and ask which one's region gets cubes (§8.2)."""
    st = game.state
    st.drawn = game.draw_region_cards(3)
    game.ask(p, "explorer", tuple(st.drawn))


def explorer_chosen(game: GameCore, p: int, cid: Any) -> None:
    """Place ``explorer_cubes`` in the chosen card's region, discard all drawn cards (§8.2)."""
    st = game.state
    drawn, st.drawn = st.drawn, []
    r = game.cfg.rcard_region[cid]
    k = game.place_cubes(p, r, game.cfg.explorer_cubes)
    if k:  # how many is a labelled default (§8.2)
        st.acted_explorer += 1
    game.discard_region_cards(drawn, 1 << p)
    if game.log is not None:
        game.log(f"  seat {p} explorer: {k} cube(s) in {game.cfg.region_names[r]}")
    game.ability_done()


# ---------------------------------------------------------------- Peasant in the final round (§10.2)

def peasant_final_options(game: GameCore, p: int) -> tuple:
    """Any region in use, if ``p`` has a cube in supply (§10.2 default)."""
    return tuple(range(game.cfg.n_regions)) if game.state.supply_cubes[p] > 0 else ()


def peasant_final_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask where the final-round Peasant cube goes (§10.2 default)."""
    game.ask(p, "peasant", options)


def peasant_final_chosen(game: GameCore, p: int, r: Any) -> None:
    """Place 1 cube in the chosen region (§10.2 default)."""
    game.place_cubes(p, r, 1)
    if game.log is not None:
        game.log(f"  seat {p} peasant: 1 cube in {game.cfg.region_names[r]}")
    game.ability_done()


# ---------------------------------------------------------------- Knight in the final round (§10.2 option)

def knight_final_options(game: GameCore, p: int) -> tuple:
    """Regions within Knight range of the plague piece, with the rule option
    ``knight_moves_plague_in_final_round``; none by default (the Knight has no effect, §10.2)."""
    cfg = game.cfg
    cfg.reads[0] |= READ_KNIGHT_FINAL
    return cfg.knight_reach[game.state.plague] if cfg.knight_moves_plague_in_final_round else ()


def knight_final_use(game: GameCore, p: int, options: tuple) -> None:
    """Ask where the plague piece goes (§10.2 option)."""
    game.ask(p, "knight", options)


def knight_final_chosen(game: GameCore, p: int, r: Any) -> None:
    """Move the plague piece: no new rats and no plague follow (§10.2 option); it matters where
    the piece stands in the final plague when it counts as 2 neutral cubes (§8.1 option)."""
    st = game.state
    src = st.plague
    st.plague = r
    if (game.cfg.guessed_regions >> r) & 1:  # a stand-in region (§4.3)
        st.acted_africa += 1
    if game.log is not None:
        names = game.cfg.region_names
        game.log(f"  seat {p} knight: plague piece {names[src]} -> {names[r]} (no new rats, no plague)")
    game.ability_done()


Ability = tuple[Callable[[GameCore, int], tuple], Callable[[GameCore, int, tuple], None]]

# card index -> (options, use); regular-turn abilities and final-round abilities
ABILITIES: Final[dict[int, Ability]] = {
    CARD_INDEX["merchant"]: (merchant_options, merchant_use),
    CARD_INDEX["monk"]: (monk_options, monk_use),
    CARD_INDEX["witch"]: (witch_options, witch_use),
    CARD_INDEX["king"]: (king_options, king_use),
    CARD_INDEX["sultan"]: (sultan_options, sultan_use),
    CARD_INDEX["trader"]: (trader_options, trader_use),
    CARD_INDEX["astronomer"]: (draw_options, astronomer_use),
    CARD_INDEX["explorer"]: (draw_options, explorer_use),
}
FINAL_ABILITIES: Final[dict[int, Ability]] = {**ABILITIES, CARD_INDEX["peasant"]: (peasant_final_options, peasant_final_use),
                                              CARD_INDEX["knight"]: (knight_final_options, knight_final_use)}

# decision kind asked by an ability -> its handler ``(game, seat, choice)``
CHOSEN: Final[dict[str, Callable[[GameCore, int, Any], None]]] = {
    "merchant": merchant_chosen, "monk": monk_chosen, "witch_first": witch_first_chosen,
    "witch_second": witch_second_chosen, "witch_swap": witch_swap_chosen, "king": king_chosen,
    "sultan": sultan_chosen, "trader": trader_chosen, "caravan_bonus": caravan_bonus_chosen,
    "astronomer": astronomer_chosen, "explorer": explorer_chosen, "peasant": peasant_final_chosen,
    "knight": knight_final_chosen,
}
