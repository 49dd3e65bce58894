"""Plague resolution in one region, docs/rules/rattus.md §5.1 and §7.1 (used by §7 C.3 and §10.3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from analyzer.games.logtext import plural
from analyzer.games.rattus.config import CARD_INDEX, CLASS_INDEX, CLASSES, SYMBOLS

_KNIGHT = CARD_INDEX["knight"]

if TYPE_CHECKING:  # pragma: no cover
    from analyzer.games.rattus.engine import Game


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
    return losses(list(cubes), held, token, [0] * len(cubes), True)


def losses(row: Sequence[int], held_class: Sequence[Sequence[int]], token: tuple, protected: Sequence[int],
           stack: bool) -> list[int]:
    """Losses per seat for one token whose threshold is met (§7.1), computed from ``row`` at reveal.

    Parameters
    ----------
    row : sequence of int, shape (n_seats,)
        Cubes per seat in the region.
    held_class : sequence of sequence of int, shape (n_seats, 7)
        Class cards held per class.
    token : tuple
        ``(threshold, n_A, n_M, class indices)``.
    protected : sequence of int, shape (n_seats,)
        Bit mask of the classes each seat has protected in this region with a region card (§9).
    stack : bool
        ``True``: k cards of a class cost k cubes per matching symbol (§5.1 default).
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
            if hc[k] and not (prot >> k) & 1:
                loss += hc[k] if stack else 1
        out.append(min(c, loss))
    return out


def resolve_region(game: Game, r: int, chooser: int) -> None:
    """Reveal the tokens of region ``r`` one at a time and apply them (§7.1).

    Stops when the region holds no cubes or no tokens; unrevealed tokens stay. Region cards
    (§9) are offered clockwise from ``chooser`` after each reveal whose threshold is met, and
    the cards played are discarded when the region is finished.
    """
    st = game.state
    cfg = game.cfg
    tokens = st.tokens[r]
    row = st.cubes[r]
    n = cfg.n_players
    log = game.log
    protected = [0] * n
    played: list[int] = []
    neutral = 2 if (cfg.knight_adds_two_neutral_cubes and st.holder[_KNIGHT] != -2 and st.plague == r) else 0
    while tokens and sum(row):
        tid = tokens.pop(game.draw_reveal(r))
        st.discarded_tokens += 1
        token = cfg.tokens[tid]
        total = sum(row) + neutral
        if total < token[0]:
            if log is not None:
                log(f"    reveal {cfg.token_labels[tid]} in {cfg.region_names[r]}: {plural(total, 'cube')}, no effect")
            continue
        if cfg.africanus and token[3] and any(st.hands):
            played += game.offer_region_cards(r, tid, chooser, protected)
        lost = losses(row, st.held_class, token, protected, cfg.same_class_cards_stack)
        for p, k in enumerate(lost):
            if k:
                game.remove_cubes(p, r, k)
                st.cubes_lost[p] += k
        if log is not None:
            hit = ", ".join(f"seat {p} -{k}" for p, k in enumerate(lost) if k) or "nobody"
            log(f"    reveal {cfg.token_labels[tid]} in {cfg.region_names[r]}: {plural(total, 'cube')}, kills {hit}")
    if played:
        st.rdiscard.extend(played)
