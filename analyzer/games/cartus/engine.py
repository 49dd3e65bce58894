"""Rattus Cartus setup, round structure and the play loop (docs/rules/cartus.md §3, §4, §7).

Phase D (building resolution, actions, special cards) lives in ``resolution.py``; final
scoring in ``scoring.py``. Policies answer the decision points of rules §11 through the
methods of ``policies.Policy``; every answer is checked here.
"""

from __future__ import annotations

import random
from operator import sub
from typing import Any

from analyzer.errors import TurnCapExceeded
from analyzer.games.base import game_streams, resolve_policies, seed_of
from analyzer.games.cartus import chance, metrics, scoring
from analyzer.games.cartus.config import PASS, CartusConfig
from analyzer.games.cartus.policies import POLICIES
from analyzer.games.cartus.resolution import (
    Log,
    check_counts,
    draw_cards,
    illegal,
    look,
    resolve_building,
)
from analyzer.games.cartus.state import State, new_state
from analyzer.games.logtext import plural, seats_line


def choose_buildings(cfg: CartusConfig, rng: random.Random) -> tuple[int, ...]:
    """The 30 building card ids of one game (rules §3 building selection, modes a/b/c).

    ``explicit``: the listed cards; ``random_buildings``: per class one of its buildings at even
    odds, all 5 copies; ``random_cards``: per class 5 of its cards. The 2-player Guard Tower
    exclusion is already applied to ``cfg.class_pools``.
    """
    if cfg.selection == "explicit":
        return cfg.fixed_cards
    cards: list[int] = []
    for pool in cfg.class_pools:
        if cfg.selection == "random_cards":
            cards.extend(chance.sample(rng, pool, 5))
        else:
            blds = sorted({cfg.card_building[c] for c in pool})
            b = chance.sample(rng, blds, 1)[0]
            cards.extend(c for c in pool if cfg.card_building[c] == b)
    return tuple(sorted(cards))


def setup(cfg: CartusConfig, rng: random.Random, log: Log = None) -> State:
    """A new game: buildings, Nun-row, hands, piles, start player (rules §3 steps 1–8).

    Returns
    -------
    State
        Round 0; every seat holds ``cfg.start_hand`` population cards and ``cfg.start_rats``.
    """
    st = new_state(cfg)
    st.in_play = choose_buildings(cfg, rng)
    pop = list(cfg.population)
    chance.shuffle(rng, pop)
    for _ in range(cfg.nun_row_size):
        k, nuns = pop.pop()
        st.nun_row.append(nuns)
        st.nun_row_class.append(k)
    for seat in range(cfg.n_players):
        for _ in range(cfg.start_hand):
            st.hands[seat][pop.pop()[0]] += 1
    st.deck = [k for k, _ in pop]
    bdeck = list(st.in_play)
    chance.shuffle(rng, bdeck)
    st.replacement = [bdeck.pop() for _ in range(cfg.replacement)]
    st.building_deck = bdeck
    st.start = chance.pick(rng, cfg.n_players) if cfg.start_player == "random" else 0
    if log:
        names = cfg.building_names
        log(f"setup: {cfg.n_players} players, buildings in play: "
            + ", ".join(f"{names[cfg.card_building[c]]}:{c % cfg.copies + 1}" for c in st.in_play))
        log(f"setup: start player seat {st.start}; {len(st.deck)} cards in the population deck")
    return st


def phase_a(st: State, seed_text: str, log: Log) -> None:
    """Draw the row; while all its cards are one building, swap the last (rules §4 phase A)."""
    cfg = st.cfg
    cb = cfg.card_building
    row = [st.building_deck.pop() for _ in range(cfg.row_size)]
    swaps = 0
    while all(cb[c] == cb[row[0]] for c in row):
        swaps += 1
        if swaps > len(st.replacement) + 1:
            raise TurnCapExceeded(f"phase A replacement never ends (round {st.round}); replay seed {seed_text}")
        old = row[-1]
        row[-1] = st.replacement.pop()
        st.replacement.insert(0, old)
        if log:
            log(f"  replace a {cfg.building_names[cb[old]]} with a {cfg.building_names[cb[row[-1]]]}")
    st.row = row
    st.entries = [[] for _ in row]
    if log:
        log(f"round {st.round}: row " + ", ".join(
            f"{cfg.building_names[cb[c]]}:{c % cfg.copies + 1}" for c in row) + f"; start seat {st.start}")


def phase_b(st: State, policies, prngs, rng, log: Log) -> None:
    """Each player, in turn order, uses one open card's supply icons (rules §4 phase B)."""
    n, row, icons = st.n, st.row, st.cfg.card_icons
    for i in range(n):
        seat = (st.start + i) % n
        r = policies[seat].supply(st, seat, prngs[seat])
        if not (isinstance(r, int) and 0 <= r < len(row)):
            raise illegal(seat, "supply", r, tuple(range(len(row))))
        draw, rats, looks = icons[row[r]]
        got = draw_cards(st, seat, draw, rng) if draw else 0
        x = min(rats, st.rats[seat])
        st.rats[seat] -= x
        st.rats_discarded[seat] += x
        if log:
            log(f"  seat {seat} supplies at row {r + 1}: draws {got}, discards {plural(x, 'rat')}")
        for _ in range(looks):
            look(st, seat, policies[seat], prngs[seat], log)


def _enter(st: State, seat: int, rows: tuple[int, ...], policy, prng, log: Log) -> int:
    """One disc into one open building with its face-down cards (rules §4 phase C)."""
    r = policy.enter(st, seat, rows, prng)
    if r not in rows:
        raise illegal(seat, "enter", r, rows)
    hand = st.hands[seat]
    c = check_counts(policy.cards(st, seat, r, prng), hand, seat, "cards", playable=True)
    hand[:] = map(sub, hand, c)  # c[PASS] == 0
    st.entries[r].append((seat, c))
    cfg = st.cfg
    if cfg.building_action[cfg.card_building[st.row[r]]] == "guard_tower":
        st.protected |= 1 << seat
    if log:
        log(f"  seat {seat} enters row {r + 1} (space {len(st.entries[r])}) with {plural(sum(c), 'card')}")
    return r


def phase_c(st: State, policies, prngs, log: Log) -> None:
    """Each player, in turn order, enters one building; a Pass allows a second (rules §4 C, §6)."""
    cfg, n = st.cfg, st.n
    st.protected = 0
    st.round_influence = [0] * n
    spaces = cfg.building_spaces
    second = cfg.pass_mode == "second_building"
    every = tuple(range(len(st.row)))
    for i in range(n):
        seat = (st.start + i) % n
        pol, prng = policies[seat], prngs[seat]
        rows = tuple(r for r in every if len(st.entries[r]) < spaces) if spaces else every
        if not rows:
            continue
        first = _enter(st, seat, rows, pol, prng, log)
        if not second or not st.hands[seat][PASS]:
            continue
        rows = tuple(r for r in rows if r != first and (not spaces or len(st.entries[r]) < spaces))
        if not rows:
            continue
        use = pol.use_pass(st, seat, prng)
        if not isinstance(use, bool):
            raise illegal(seat, "use_pass", use, (False, True))
        if use:
            st.hands[seat][PASS] -= 1
            st.supply[PASS] += 1
            if log:
                log(f"  seat {seat} plays a Pass")
            _enter(st, seat, rows, pol, prng, log)


def play_round(st: State, policies, prngs, rng, seed_text: str, log: Log) -> None:
    """One round: phases A–E (rules §4). Phase E: the start player passes clockwise."""
    st.round += 1
    phase_a(st, seed_text, log)
    phase_b(st, policies, prngs, rng, log)
    phase_c(st, policies, prngs, log)
    for r in range(len(st.row)):
        resolve_building(st, r, policies, prngs, rng, log)
    st.row = []
    st.entries = []
    st.start = (st.start + 1) % st.n
    if log:
        log(f"  end of round {st.round}: {st.describe()}")


def play_game(config: CartusConfig, policies: Any, seed, log: Log = None) -> tuple[dict, list[dict]]:
    """Play one whole game (GameSpec.play_game; docs/rules/cartus.md §3, §4, §7).

    Parameters
    ----------
    config : CartusConfig
    policies : str or policy object, or a sequence of them of length n_players
        Registered policy names (default parameters) or policy objects, by seat; a single one
        plays every seat.
    seed : int or numpy.random.SeedSequence
        Child 0 drives chance, child 1+s seat s's policy (``game_streams``).
    log : callable, optional
        Receives the readable replay lines; no log work when None.

    Returns
    -------
    (dict, list of dict)
        The game record and one seat record per seat (``metrics.GAME_COLUMNS`` /
        ``metrics.SEAT_COLUMNS``).

    Raises
    ------
    IllegalChoice
        A policy chose an option the engine did not offer.
    TurnCapExceeded
        Phase A could not draw a mixed row (only with a user table); names the seed.
    """
    n = config.n_players
    pols = resolve_policies(POLICIES, policies, n)
    rng, prngs = game_streams(seed, n)
    seed_text = seed_of(seed)
    if log:
        log(seats_line(pols))
    st = setup(config, rng, log)
    for _ in range(config.rounds):
        play_round(st, pols, prngs, rng, seed_text, log)
    out = scoring.outcome(st)
    if log:
        for line in scoring.describe(st, out):
            log(line)
    names = [getattr(p, "name", type(p).__name__) for p in pols]
    return metrics.game_record(st, out), metrics.seat_records(st, out, names)
