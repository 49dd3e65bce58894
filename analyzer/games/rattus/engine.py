"""Rattus rules engine: setup, turns, plague move and spread, end, final round, final plague.

Rules live here and in ``cards.py`` / ``plague.py`` (docs/rules/rattus.md §6–§10, decision points
§15). The engine drives the game and asks a seat's policy at every decision point with the
tuple of legal options; a choice outside them raises ``IllegalChoice``. Every chance event goes
through the ``draw_*`` / ``shuffle`` methods so a test can force outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from mypy_extensions import mypyc_attr

from analyzer.errors import IllegalChoice, TurnCapExceeded
from analyzer.games.base import game_streams, seed_of
from analyzer.games.logtext import plural, seats_line
from analyzer.games.rattus import cards as _cards
from analyzer.games.rattus.config import CARD_CLASS, CARD_INDEX, CARD_NAMES, RattusConfig
from analyzer.games.rattus.plague import resolve_region
from analyzer.games.rattus.state import NOT_IN_PLAY, UNTAKEN, State

KNIGHT = CARD_INDEX["knight"]
PEASANT = CARD_INDEX["peasant"]
_ABILITY_NAMES = {c: CARD_NAMES[c] for c in _cards.FINAL_ABILITIES}


@mypyc_attr(allow_interpreted_subclasses=True)  # tests and studies force positions by subclassing
class Game:
    """One game in progress: config, state, generators, policies and the optional log.

    Parameters
    ----------
    cfg : RattusConfig
    policies : sequence of policy objects, length n_players
        Each has ``choose(state, seat, kind, options, rng, ctx) -> option``.
    seed : int or numpy.random.SeedSequence
        Game seed; ``game_streams`` derives the chance generator and one per seat.
    log : callable or None
        Receives readable replay lines; ``None`` skips all log work.
    """

    __slots__ = ("cfg", "log", "policies", "rng", "seat_rngs", "seed", "state")

    def __init__(self, cfg: RattusConfig, policies: Sequence[Any], seed: int | np.random.SeedSequence,
                 log: Callable[[str], None] | None = None):
        self.cfg = cfg
        self.policies = list(policies)
        self.seed = seed
        self.rng, self.seat_rngs = game_streams(seed, cfg.n_players)
        self.log = log
        self.state = State.empty(cfg)

    # ------------------------------------------------------------ chance (§15 "Chance")

    def draw_token(self) -> int:
        """Take the top token of the shuffled rat supply (§7 C.2)."""
        return self.state.supply_tokens.pop()

    def draw_reveal(self, r: int) -> int:
        """Index of the next token revealed in region ``r``: face down, so uniform (§7.1)."""
        return self.rng.randrange(len(self.state.tokens[r]))

    def draw_region(self) -> int:
        """A uniformly random region in use (plague piece, caravan start; §6.1, §6.2)."""
        return self.rng.randrange(self.cfg.n_regions)

    def draw_seat(self) -> int:
        """The start player (§6.1 default: random)."""
        return self.rng.randrange(self.cfg.n_players)

    def shuffle(self, items: list) -> None:
        """Shuffle tokens or region cards in place."""
        self.rng.shuffle(items)

    def draw_class_cards(self) -> tuple[str, ...]:
        """Knight plus random others up to the count in play (§6.2 default)."""
        others = [c for c in CARD_NAMES if c != "knight"]
        picked = ["knight"] + self.rng.sample(others, self.cfg.cards_in_play_count - 1)
        return tuple(sorted(picked, key=CARD_INDEX.__getitem__))

    def draw_region_cards(self, k: int) -> list[int]:
        """Draw up to ``k`` region cards, reshuffling the discard into an empty deck (§9)."""
        st = self.state
        out = []
        for _ in range(k):
            if not st.deck:
                if not st.rdiscard:
                    break
                st.deck, st.rdiscard = st.rdiscard, []
                self.shuffle(st.deck)
            out.append(st.deck.pop())
        return out

    # ------------------------------------------------------------ decisions

    def ask(self, seat: int, kind: str, options: tuple, ctx: Any = None) -> Any:
        """The seat's choice among ``options`` (§15); a single option is taken without asking.

        Raises
        ------
        IllegalChoice
            The policy returned something not in ``options``.
        """
        if len(options) == 1:
            return options[0]
        choice = self.policies[seat].choose(self.state, seat, kind, options, self.seat_rngs[seat], ctx)
        if choice not in options:
            shown = options if len(options) <= 20 else options[:20] + ("…",)
            raise IllegalChoice(f"seat {seat}: decision {kind!r}: choice {choice!r} is not legal "
                                f"(legal: {shown})")
        return choice

    # ------------------------------------------------------------ cube bookkeeping

    def place_cubes(self, p: int, r: int, k: int) -> int:
        """Put up to ``k`` cubes of ``p`` from supply into region ``r``; returns the number placed."""
        st = self.state
        k = min(k, st.supply_cubes[p])
        if k > 0:
            st.supply_cubes[p] -= k
            st.cubes[r][p] += k
            st.cubes_placed[p] += k
        return max(k, 0)

    def _untag(self, p: int, r: int) -> tuple[int, int]:
        """Drop caravan tags above the cubes left (tagged cubes leave last); returns the tags dropped."""
        st = self.state
        excess = st.tag_own[r][p] + st.tag_recv[r][p] - st.cubes[r][p]
        if excess <= 0:
            return 0, 0
        recv = min(excess, st.tag_recv[r][p])
        st.tag_recv[r][p] -= recv
        st.tag_own[r][p] -= excess - recv
        return excess - recv, recv

    def remove_cubes(self, p: int, r: int, k: int) -> None:
        """Return ``k`` cubes of ``p`` in ``r`` to supply, ordinary first, disc cube last (§2.3, Q8)."""
        st = self.state
        st.cubes[r][p] -= k
        st.supply_cubes[p] += k
        if st.cubes[r][p] == 0 and st.discs[r][p]:
            st.discs[r][p] = 0
            st.disc_supply += 1
        self._untag(p, r)

    def move_cubes(self, p: int, src: int, dst: int, k: int, with_disc: bool) -> None:
        """Merchant move of ``k`` cubes, the disc along if ``with_disc`` (§8.1, §8.2)."""
        st = self.state
        st.cubes[src][p] -= k
        st.cubes[dst][p] += k
        if with_disc:
            st.discs[src][p] = 0
            st.discs[dst][p] = 1
        own, recv = self._untag(p, src)
        st.tag_own[dst][p] += own
        st.tag_recv[dst][p] += recv

    def to_palace(self, p: int, r: int) -> None:
        """King: one ordinary cube from ``r`` to the palace (§8.1)."""
        st = self.state
        st.cubes[r][p] -= 1
        st.palace[p] += 1
        own, recv = self._untag(p, r)
        st.palace_tag_own[p] += own
        st.palace_tag_recv[p] += recv

    def take_card(self, p: int, card: int) -> None:
        """Phase A: take an untaken card or one held by another player (§7 A)."""
        st = self.state
        prev = st.holder[card]
        cls = CARD_CLASS[card]
        if prev >= 0:
            st.held_class[prev][cls] -= 1
        st.holder[card] = p
        st.held_class[p][cls] += 1
        st.took[p][card] += 1
        if self.log is not None:
            self.log(f"  seat {p} takes {CARD_NAMES[card]}" + (f" from seat {prev}" if prev >= 0 else ""))

    # ------------------------------------------------------------ setup (§6)

    def setup(self) -> None:
        """Setup (§6.1, §6.2): cards, starting tokens, supply, plague piece, start player,
        region cards, caravan, opening cubes."""
        cfg, st = self.cfg, self.state
        in_play = cfg.class_cards if cfg.class_cards is not None else self.draw_class_cards()
        for name in in_play:
            st.holder[CARD_INDEX[name]] = UNTAKEN
        starters = list(cfg.starting_tokens)
        self.shuffle(starters)
        nr = cfg.n_regions
        for r in range(nr):
            st.tokens[r].append(starters[r])
        supply = starters[nr:] + list(cfg.normal_tokens)
        self.shuffle(supply)
        st.supply_tokens = supply[cfg.tokens_removed:]  # removed unseen (§5.3)
        st.plague = cfg.plague_start if cfg.plague_start >= 0 else self.draw_region()
        st.start_seat = self.draw_seat()
        n = cfg.n_players
        if cfg.africanus:
            st.deck = list(range(len(cfg.rcard_region)))
            self.shuffle(st.deck)
            for p in range(n):
                st.hands[p] = self.draw_region_cards(cfg.region_cards_dealt)
            st.caravan = cfg.caravan_start if cfg.caravan_start >= 0 else self.draw_region()
        log = self.log
        if log is not None:
            log(f"rattus {cfg.n_players} players, expansions: {', '.join(cfg.expansions) or 'none'}")
            log(seats_line(self.policies))
            log("legend: rat token '5+M+Is' = acts with 5+ cubes in the region; A = every player there loses"
                " a cube, M = whoever has most there loses one, a class = holders of that class card lose one"
                " (Pe Bo Ch Kn Ma Ro Is = peasantry bourgeoisie church chivalry magic royalty islam);"
                " region card 'Anglia:Bo+Is' protects those classes, ? = any class")
            log(f"class cards: {', '.join(in_play)}")
            log(f"regions ({nr}): {', '.join(cfg.region_names)}")
            log(f"start player seat {st.start_seat}; plague piece in {cfg.region_names[st.plague]}"
                + (f"; caravan in {cfg.region_names[st.caravan]}" if cfg.africanus else "")
                + f"; rat supply {len(st.supply_tokens)}")
        regions = tuple(range(nr))
        first = [-1] * n
        for i in range(n):  # first pair clockwise from the start player (§6.1 step 7)
            p = (st.start_seat + i) % n
            first[p] = r = self.ask(p, "opening", regions)
            self.place_cubes(p, r, 2)
            if log is not None:
                log(f"  seat {p} opens with 2 cubes in {cfg.region_names[r]}")
        for i in range(n):  # second pair in reverse order
            p = (st.start_seat + n - 1 - i) % n
            opts = tuple(x for x in regions if x != first[p]) if cfg.opening_pairs_distinct_regions else regions
            r = self.ask(p, "opening", opts)
            self.place_cubes(p, r, 2)
            if log is not None:
                log(f"  seat {p} adds 2 cubes in {cfg.region_names[r]}")

    # ------------------------------------------------------------ regular turn (§7)

    def _ability_options(self, p: int, used: int, table: dict) -> dict[int, tuple]:
        st = self.state
        out = {}
        for c, (opts_fn, _) in table.items():
            if st.holder[c] == p and not (used >> c) & 1:
                opts = opts_fn(self, p)
                if opts:
                    out[c] = opts
        return out

    def regular_turn(self, p: int) -> None:
        """One regular turn (§7): A, B and abilities in any order, each at most once, then C."""
        st, cfg = self.state, self.cfg
        st.active = p
        log = self.log
        if log is not None:
            log(f"turn {st.turns + 1} (round {st.turns // cfg.n_players + 1}): seat {p}")
        taken = placed = False
        used = 0
        while True:
            abil = self._ability_options(p, used, _cards.ABILITIES)
            steps: list = []
            if not taken and any(h != NOT_IN_PLAY and h != p for h in st.holder):
                steps.append("take")
            if not placed:
                steps.append("place")
            steps.extend(_ABILITY_NAMES[c] for c in abil)
            steps.append("plague")
            step = self.ask(p, "step", tuple(steps), ctx=abil)
            if step == "plague":
                break
            if step == "take":
                taken = True
                opts = tuple(c for c, h in enumerate(st.holder) if h != NOT_IN_PLAY and h != p)
                self.take_card(p, self.ask(p, "take", opts))
            elif step == "place":
                placed = True
                r = self.ask(p, "place", tuple(range(cfg.n_regions)))
                k = len(st.tokens[r]) + (1 if st.holder[PEASANT] == p else 0)
                k = self.place_cubes(p, r, k)
                if log is not None:
                    log(f"  seat {p} places {plural(k, 'cube')} in {cfg.region_names[r]}")
            else:
                c = CARD_INDEX[step]
                used |= 1 << c
                _cards.ABILITIES[c][1](self, p, abil[c])
        self.plague_phase(p)

    def plague_phase(self, p: int) -> None:
        """Phase C (§7 C): move the plague piece, spread, then resolve the plague region."""
        st, cfg = self.state, self.cfg
        src = st.plague
        dests = cfg.knight_reach[src] if st.holder[KNIGHT] == p else cfg.adj[src]
        d = self.ask(p, "plague_move", dests)
        st.plague = d
        log = self.log
        rats = len(st.tokens[d])
        if log is not None:
            log(f"  seat {p} moves the plague {cfg.region_names[src]} -> {cfg.region_names[d]} ({plural(rats, 'rat')}, "
                f"{plural(sum(st.cubes[d]), 'cube')})")
        if rats == 0:  # Q16: nothing happens
            return
        cap = cfg.rat_cap
        for _ in range(cfg.spread_table[min(rats, len(cfg.spread_table) - 1)]):
            if not st.supply_tokens:
                break
            opts = tuple(x for x in cfg.adj[d] if len(st.tokens[x]) < cap)
            if not opts:
                break
            x = self.ask(p, "spread", opts)
            st.tokens[x].append(self.draw_token())
            if log is not None:
                log(f"    new rat in {cfg.region_names[x]}")
        resolve_region(self, d, p)

    # ------------------------------------------------------------ region cards (§7 C.3, §9)

    def offer_region_cards(self, r: int, tid: int, chooser: int, protected: list[int]) -> list[int]:
        """Ask, clockwise from ``chooser``, each seat threatened by a class symbol of token ``tid``
        whether to play a matching region card (§7 C.3, §9). Returns the card ids played."""
        st, cfg = self.state, self.cfg
        classes = set(cfg.tokens[tid][3])
        row = st.cubes[r]
        n = cfg.n_players
        played = []
        match = cfg.region_card_must_match_plague_region
        for i in range(n):
            q = (chooser + i) % n
            if not row[q] or not st.hands[q]:
                continue
            while True:
                opts: list = [None]
                for k in classes:
                    if st.held_class[q][k] and not (protected[q] >> k) & 1:
                        for cid in st.hands[q]:
                            if (cfg.rcard_mask[cid] >> k) & 1 and (not match or cfg.rcard_region[cid] == r):
                                opts.append((cid, k))
                if len(opts) == 1:
                    break
                choice = self.ask(q, "region_card", tuple(opts), ctx=(r, tid))
                if choice is None:
                    break
                cid, k = choice
                st.hands[q].remove(cid)
                played.append(cid)
                protected[q] |= 1 << k
                if self.log is not None:
                    self.log(f"    seat {q} plays region card {cfg.rcard_labels[cid]} to protect class {k}")
        return played

    # ------------------------------------------------------------ end (§10)

    def final_round(self) -> None:
        """Counter-clockwise from the right of L, L excluded: abilities only (§10.2)."""
        st, cfg = self.state, self.cfg
        st.phase = "final_round"
        n = cfg.n_players
        L = st.last_seat
        if self.log is not None:
            self.log(f"final round (counter-clockwise, seat {L} excluded)")
        for i in range(1, n):
            p = (L - i) % n
            st.active = p
            st.final_round_turns += 1
            if self.log is not None:
                self.log(f" final turn: seat {p}")
            used = 0
            while True:
                abil = self._ability_options(p, used, _cards.FINAL_ABILITIES)
                step = self.ask(p, "final_step", tuple(_ABILITY_NAMES[c] for c in abil) + ("done",), ctx=abil)
                if step == "done":
                    break
                c = CARD_INDEX[step]
                used |= 1 << c
                _cards.FINAL_ABILITIES[c][1](self, p, abil[c])

    def final_plague(self) -> None:
        """Every region in use, in the order L names one at a time (§10.3); no spread."""
        st, cfg = self.state, self.cfg
        st.phase = "final_plague"
        L = st.last_seat
        st.active = L
        if self.log is not None:
            self.log(f"final plague, order chosen by seat {L}")
        while True:
            todo = tuple(r for r in range(cfg.n_regions) if st.tokens[r] and sum(st.cubes[r]))
            if not todo:
                break
            r = self.ask(L, "final_order", todo)
            if self.log is not None:
                self.log(f"  final plague in {cfg.region_names[r]}")
            resolve_region(self, r, L)

    def run(self) -> None:
        """Regular turns until the end trigger or ``max_rounds``, then §10.2 and §10.3."""
        st, cfg = self.state, self.cfg
        n = cfg.n_players
        st.phase = "regular"
        cap_turns = cfg.max_rounds * n
        p = st.start_seat
        while True:
            if st.turns >= cfg.max_turns:
                raise TurnCapExceeded(f"rattus game did not end within {cfg.max_turns} turns; "
                                      f"replay seed {seed_of(self.seed)}")
            self.regular_turn(p)
            st.turns += 1
            if not st.supply_tokens or st.supply_cubes[p] == 0:  # §10.1
                st.end, st.trigger_seat, st.last_seat = "trigger", p, p
                if self.log is not None:
                    why = "rat supply empty" if not st.supply_tokens else "all cubes on the board"
                    self.log(f"end triggered by seat {p}: {why}")
                break
            if st.turns >= cap_turns:
                st.end, st.last_seat = "turn_cap", p
                if self.log is not None:
                    self.log(f"round cap {cfg.max_rounds} reached; seat {p} had the last turn")
                break
            p = (p + 1) % n
        self.final_round()
        self.final_plague()
        st.phase = "over"
