"""Plague resolution in one region, docs/rules/rattus.md §5.1 and §7.1 (used by §7 C.3 and §10.3).

``start_resolve`` reveals the region's tokens one at a time; when a revealed token lets players
play region cards (§9) it asks them (``GameCore.ask``), and ``region_card_chosen`` resumes the
resolution. When the region is finished it hands back to the turn structure
(``game.region_done()``).
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from analyzer.games.rattus.config import (
    CARD_INDEX,
    CLASS_INDEX,
    CLASSES,
    READ_CARD_ELSEWHERE,
    READ_KNIGHT_NEUTRAL,
    READ_STACK,
    SYMBOLS,
)
from analyzer.games.rattus.core import GameCore
from analyzer.games.rattus.state import NOT_IN_PLAY
from analyzer.model.logtext import plural

_KNIGHT: Final = CARD_INDEX["knight"]


def token_losses(cubes: Sequence[int], cards_held: Sequence[Mapping[str, int]], threshold: int,
                 symbols: Sequence[str]) -> list[int]:
    """Cubes each seat loses in the plague region when one token is revealed (§5.1, §7.1).

    Parameters
    ----------
    cubes : sequence of int, shape (n_seats,)
        Each seat's cubes in the region (cubes).
    cards_held : sequence of mapping str -> int, shape (n_seats,)
        Class cards each seat holds, counted by class name (``"peasantry"`` … ``"islam"``).
    threshold : int
        The token's printed number, 1-6: it acts only if the region holds at least this many
        cubes (all colours).
    symbols : sequence of str
        Class names, ``"M"`` (majority: every seat tied for most cubes, at least 1) and ``"A"``
        (every seat with cubes). Each copy counts once.

    Returns
    -------
    list of int, shape (n_seats,)
        Cubes lost per seat, each capped at the seat's cubes. Region-card protection is not
        applied here.

    Raises
    ------
    ValueError
        An unknown symbol or class name.
    """
    for s in symbols:
        if s not in SYMBOLS:
            raise ValueError(f"unknown symbol {s!r} (allowed: {', '.join(SYMBOLS)})")
    held = []
    for m in cards_held:
        row = [0] * len(CLASSES)
        for name, k in m.items():
            if name not in CLASS_INDEX:
                raise ValueError(f"unknown class {name!r} (allowed: {', '.join(CLASSES)})")
            row[CLASS_INDEX[name]] = k
        held.append(row)
    classes = tuple(CLASS_INDEX[s] for s in symbols if s in CLASS_INDEX)
    token = (threshold, list(symbols).count("A"), list(symbols).count("M"), classes)
    if sum(cubes) < threshold:
        return [0] * len(cubes)
    return losses(list(cubes), held, token, [0] * len(cubes), True, [0])


def losses(row: Sequence[int], held_class: Sequence[Sequence[int]], token: tuple, protected: Sequence[int],
           stack: bool, reads: list[int]) -> list[int]:
    """Losses per seat for one token whose threshold is met (§7.1), computed from ``row`` at reveal.

    Parameters
    ----------
    row : sequence of int, shape (n_seats,)
        Cubes per seat in the region.
    held_class : sequence of sequence of int, shape (n_seats, number of classes)
        Class cards held per class.
    token : tuple
        ``(threshold, n_A, n_M, class indices)``.
    protected : sequence of int, shape (n_seats,)
        Bit mask of the classes each seat has protected in this region with a region card (§9).
    stack : bool
        ``True``: k cards of a class cost k cubes per matching symbol (§5.1 default).
    reads : list of int
        The config's ``reads``: ``READ_STACK`` is set when ``stack`` decides a loss.
    """
    _, n_a, n_m, classes = token
    top = max(row)
    out = []
    for p, c in enumerate(row):
        if c == 0:
            out.append(0)
            continue
        loss = n_a + (n_m if c == top else 0)
        hc = held_class[p]
        prot = protected[p]
        for k in classes:
            h = hc[k]
            if h and not (prot >> k) & 1:
                if h > 1:  # only here does the option decide (§5.1)
                    reads[0] |= READ_STACK
                    loss += h if stack else 1
                else:
                    loss += 1
        out.append(min(c, loss))
    return out


def _stacks(row: Sequence[int], held_class: Sequence[Sequence[int]], classes: Sequence[int],
            protected: Sequence[int]) -> bool:
    """Whether a seat with cubes in the region holds two or more cards of an unprotected class
    printed on the token: only then does ``same_class_cards_stack`` decide a loss (§5.1)."""
    return any(c and held_class[p][k] >= 2 and not (protected[p] >> k) & 1
               for k in classes for p, c in enumerate(row))


def start_resolve(game: GameCore, r: int, chooser: int) -> None:
    """Resolve the plague in region ``r`` (§7.1): reveal its tokens one at a time and apply them.

    Stops when the region holds no cubes or no tokens; unrevealed tokens stay. Region cards
    (§9) are offered clockwise from ``chooser`` after each reveal whose threshold is met, and
    the cards played are discarded when the region is finished.
    """
    st = game.state
    cfg = game.cfg
    st.res_region = r
    st.res_chooser = chooser
    st.res_token = -1
    st.res_offer = 0
    st.res_protected = [0] * cfg.n_players
    st.res_played = []
    st.res_neutral = 0
    if st.holder[_KNIGHT] != NOT_IN_PLAY and st.plague == r:
        cfg.reads[0] |= READ_KNIGHT_NEUTRAL
        if cfg.knight_adds_two_neutral_cubes:
            st.res_neutral = 2
    _resolve(game)


def _resolve(game: GameCore) -> None:
    """The reveal loop of §7.1, from where it stands (after a region-card decision, it first
    finishes the offers for the token just revealed)."""
    st = game.state
    cfg = game.cfg
    r = st.res_region
    tokens = st.tokens[r]
    row = st.cubes[r]
    log = game.log
    while True:
        if st.res_token >= 0:
            if _offer_region_cards(game):
                return  # waiting for a region-card decision
            _apply_token(game, st.res_token)
            st.res_token = -1
        if not (tokens and sum(row)):
            break
        tid, _ = game.take_token(r, game.draw_reveal(r))
        st.discarded_tokens += 1
        present = sum(row) + st.res_neutral
        if present < cfg.tokens[tid][0]:
            if log is not None:
                log(f"    reveal {cfg.token_labels[tid]} in {cfg.region_names[r]}: {plural(present, 'cube')}, no effect")
            continue
        if log is not None:  # before any region card played against it (§7 C.3)
            log(f"    reveal {cfg.token_labels[tid]} in {cfg.region_names[r]}: {plural(present, 'cube')}")
        if cfg.africanus and cfg.tokens[tid][3] and any(st.hands):
            st.res_token = tid
            st.res_offer = 0
            continue
        _apply_token(game, tid)
    if st.res_played:
        game.discard_region_cards(st.res_played, (1 << cfg.n_players) - 1)  # played face up
        st.res_played = []
    st.res_region = -1
    game.region_done()


def _apply_token(game: GameCore, tid: int) -> None:
    """Remove the cubes revealed token ``tid`` kills in the region being resolved (§7.1)."""
    st = game.state
    cfg = game.cfg
    r = st.res_region
    row = st.cubes[r]
    token = cfg.tokens[tid]
    lost = losses(row, st.held_class, token, st.res_protected, cfg.same_class_cards_stack, cfg.reads)
    if _stacks(row, st.held_class, token[3], st.res_protected):  # §5.1: rare, two cards of a class
        other = losses(row, st.held_class, token, st.res_protected, not cfg.same_class_cards_stack,
                       cfg.reads)
        for p, k in enumerate(lost):
            if other[p] != k:
                st.acted_stack += 1
    for p, k in enumerate(lost):
        if k:
            game.remove_cubes(p, r, k)
            st.cubes_lost[p] += k
    if game.log is not None:
        hit = ", ".join(f"seat {p} -{k}" for p, k in enumerate(lost) if k) or "nobody"
        game.log(f"      {cfg.token_labels[tid]} kills {hit}")


def region_card_options(game: GameCore, q: int, r: int, tid: int) -> tuple:
    """What seat ``q`` may play against token ``tid`` revealed in region ``r`` (§9): ``None``
    (play nothing) and each ``(card, class)`` of a region card in hand showing a class printed on
    the token, of a class card ``q`` holds and has not protected here yet."""
    st = game.state
    cfg = game.cfg
    match = cfg.region_card_must_match_plague_region
    opts: list = [None]
    held = st.held_class[q]
    prot = st.res_protected[q]
    for k in set(cfg.tokens[tid][3]):
        if held[k] and not (prot >> k) & 1:
            for cid in st.hands[q]:
                if (cfg.rcard_mask[cid] >> k) & 1 and cfg.rcard_region[cid] != r:
                    cfg.reads[0] |= READ_CARD_ELSEWHERE  # only such a card does the option decide
                if (cfg.rcard_mask[cid] >> k) & 1 and (not match or cfg.rcard_region[cid] == r):
                    opts.append((cid, k))
    return tuple(opts)


def _offer_region_cards(game: GameCore) -> bool:
    """Ask, clockwise from the chooser, each seat threatened by a class symbol of the token just
    revealed whether to play a matching region card (§7 C.3, §9). Returns True when a seat has
    been asked, False when the offers are over."""
    st = game.state
    n = game.cfg.n_players
    r = st.res_region
    row = st.cubes[r]
    while st.res_offer < n:
        q = (st.res_chooser + st.res_offer) % n
        if row[q] and st.hands[q]:
            opts = region_card_options(game, q, r, st.res_token)
            if len(opts) > 1:
                game.ask(q, "region_card", opts, ctx=(r, st.res_token))
                return True
        st.res_offer += 1
    return False


def region_card_chosen(game: GameCore, q: int, choice: Any) -> None:
    """Play the chosen region card, protecting one class for the rest of this region (§9), or
    pass (the offer moves to the next seat); then the resolution goes on."""
    st = game.state
    if choice is None:
        st.res_offer += 1
    else:
        cid, k = choice
        if game.cfg.rcard_region[cid] != st.res_region:  # allowed by a labelled default (§9)
            st.acted_card_elsewhere += 1
        st.hands[q].remove(cid)
        st.res_played.append(cid)
        st.res_protected[q] |= 1 << k
        if game.log is not None:
            game.log(f"      seat {q} plays region card {game.cfg.rcard_labels[cid]} to protect {CLASSES[k]}")
    _resolve(game)
