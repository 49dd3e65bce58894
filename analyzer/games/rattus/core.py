"""The game table every Rattus rule module works on: position, chance, and the primitive moves.

``GameCore`` holds the config, the position (``State``, which also records the pending decision),
the chance generator and the replay log, with the bookkeeping every rule needs: cube, token and
card moves, the chance draws (docs/rules/rattus.md §15 "Chance"), and ``ask``, which records the
next decision. The rules themselves live in ``engine.py`` (turn structure, §6–§10), ``cards.py``
(class-card abilities, §8) and ``plague.py`` (plague resolution, §7.1); each of them imports this
module and none imports another's caller, so there is no import circle.

Rules are written in continuation style: a rule runs until it needs a decision, calls ``ask`` and
returns; ``engine.Game.apply`` resumes it with the choice. Where a rule module hands control back
to the turn structure it calls one of the two hooks below, which ``engine.Game`` defines.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
from mypy_extensions import mypyc_attr

from analyzer.games.rattus import information
from analyzer.games.rattus.config import CARD_CLASS, CARD_INDEX, CARD_NAMES, RattusConfig
from analyzer.games.rattus.state import State
from analyzer.model.draws import copy_rng, randbelow, shuffle


def decision_context(st: State) -> Any:
    """What the deciding seat sees of its pending decision beyond the options: the ability options
    by card at ``step``/``final_step``, ``(region, token)`` at ``region_card``, ``(region, trader
    seat)`` at ``caravan_bonus``, and at ``witch_swap`` the two positions picked and the two faces
    the Witch shows, ``(first, second, token, token)`` (§8.1)."""
    if st.kind == "witch_swap":
        (r1, i1), (r2, i2) = st.witch_first, st.witch_second
        return st.witch_first, st.witch_second, st.tokens[r1][i1], st.tokens[r2][i2]
    return st.ctx


def determinized(cls: type[GameCore], cfg: RattusConfig, state: State, seat: int, seed: int,
                 game_seed: int | np.random.SeedSequence) -> GameCore:
    """A game of class ``cls`` at a copy of ``state`` with everything hidden from ``seat`` redrawn
    uniformly among the arrangements consistent with what it has seen (``information.redraw_hidden``),
    and future chance drawn from ``random.Random(seed)``; its ``information_key(seat)`` equals
    ``state``'s."""
    rng = random.Random(seed)
    other = cls(cfg, state.copy(), rng, None, game_seed)
    information.redraw_hidden(other.state, seat, rng)
    other.refresh_options(seat)
    return other


@mypyc_attr(allow_interpreted_subclasses=True)  # tests force chance outcomes by subclassing
class GameCore:
    """Config, position, chance generator and replay log of one game, with the primitive moves.

    Parameters
    ----------
    cfg : RattusConfig
    state : State
        The position, owned (mutated in place).
    rng : random.Random
        The chance generator: every chance event of the game is drawn from it.
    log : callable or None
        Receives readable replay lines; ``None`` skips all log work.
    seed : int or numpy.random.SeedSequence
        Only named in the message of ``TurnCapExceeded``.
    """

    __slots__ = ("cfg", "log", "rng", "seed", "state")

    def __init__(self, cfg: RattusConfig, state: State, rng: random.Random,
                 log: Callable[[str], None] | None = None, seed: int | np.random.SeedSequence = 0):
        self.cfg = cfg
        self.state = state
        self.rng = rng
        self.log = log
        self.seed = seed

    # ------------------------------------------------------------ asking and copying (forward model)

    def is_terminal(self) -> bool:
        """True once the game is over (no decision pending)."""
        return not self.state.kind

    def current_seat(self) -> int:
        """The seat that decides next."""
        return self.state.seat

    def decision_kind(self) -> str:
        """The pending decision's kind (docs/rules/rattus.md §15), e.g. ``"step"``, ``"place"``."""
        return self.state.kind

    def legal_actions(self) -> tuple:
        """The options of the pending decision, in the engine's deterministic order (``()`` at the end)."""
        return self.state.options

    def search_actions(self) -> tuple:
        """What a search branches on: every legal option (``forward.GameState.search_actions``)."""
        return self.state.options

    def context(self) -> Any:
        """What the deciding seat sees of its pending decision beyond the options (``decision_context``)."""
        return decision_context(self.state)

    def clone(self) -> GameCore:
        """An independent copy, chance generator included, without the replay log."""
        return type(self)(self.cfg, self.state.copy(), copy_rng(self.rng), None, self.seed)

    def information_key(self, seat: int) -> Hashable:
        """What ``seat`` can see (``information.information_key``)."""
        return information.information_key(self.state, seat)

    def determinize(self, seat: int, seed: int) -> GameCore:
        """A copy with everything hidden from ``seat`` redrawn (``determinized``)."""
        return determinized(type(self), self.cfg, self.state, seat, seed, self.seed)

    def refresh_options(self, seat: int) -> None:
        """Hook: after hidden facts were redrawn for ``seat``, recompute another seat's pending
        options that depend on them (``engine.Game``)."""
        raise NotImplementedError

    # ------------------------------------------------------------ chance (§15 "Chance")

    def draw_token(self) -> int:
        """Take the top token of the shuffled rat supply (§7 C.2)."""
        return self.state.supply_tokens.pop()

    def draw_reveal(self, r: int) -> int:
        """Index of the next token revealed in region ``r``: face down, so uniform (§7.1)."""
        return randbelow(self.rng, len(self.state.tokens[r]))

    def draw_region(self) -> int:
        """A uniformly random region in use (plague piece, caravan start; §6.1, §6.2)."""
        return randbelow(self.rng, self.cfg.n_regions)

    def draw_seat(self) -> int:
        """The start player (§6.1 default: random)."""
        return randbelow(self.rng, self.cfg.n_players)

    def shuffle(self, items: list) -> None:
        """Shuffle tokens or region cards in place."""
        shuffle(self.rng, items)

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
                st.deck, st.rdiscard, st.rdiscard_seen = st.rdiscard, [], []
                self.shuffle(st.deck)
            out.append(st.deck.pop())
        return out

    # ------------------------------------------------------------ decisions

    def ask(self, seat: int, kind: str, options: tuple, ctx: Any = None) -> None:
        """Record the next decision (§15): ``seat`` chooses one of ``options``.

        The caller returns right after; ``engine.Game.apply`` resumes the rule with the choice
        (at once, without asking anyone, when there is a single option).
        """
        st = self.state
        st.seat = seat
        st.kind = kind
        st.options = options
        st.ctx = ctx

    def ability_done(self) -> None:
        """Hook: an ability has been fully applied; the turn goes on (``engine.Game``)."""
        raise NotImplementedError

    def region_done(self) -> None:
        """Hook: a plague region has been fully resolved (§7.1); the game goes on (``engine.Game``)."""
        raise NotImplementedError

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

    def _untag(self, p: int, r: int, k: int) -> tuple[float, float]:
        """``k`` of ``p``'s ordinary cubes leave ``r`` (call before the counts change): the
        expected caravan tags leaving with them, ``(own, received)``.

        Cubes of one colour are identical, so which cubes leave is drawn uniformly among the
        seat's ordinary cubes there (the diplomat's cube leaves last, §2.3): each tagged cube
        leaves with probability ``k / m`` for ``m`` ordinary cubes (docs/rules/rattus.md §2.2).
        """
        st = self.state
        own, recv = st.tag_own[r][p], st.tag_recv[r][p]
        if k <= 0 or (own == 0.0 and recv == 0.0):
            return 0.0, 0.0
        m = st.cubes[r][p] - st.discs[r][p]
        if k >= m:
            st.tag_own[r][p] = 0.0
            st.tag_recv[r][p] = 0.0
            return own, recv
        keep = (m - k) / m
        st.tag_own[r][p] = own * keep
        st.tag_recv[r][p] = recv * keep
        return own - own * keep, recv - recv * keep

    def remove_cubes(self, p: int, r: int, k: int) -> None:
        """Return ``k`` cubes of ``p`` in ``r`` to supply, ordinary first, disc cube last (§2.3, Q8)."""
        st = self.state
        self._untag(p, r, k)
        st.cubes[r][p] -= k
        st.supply_cubes[p] += k
        if st.cubes[r][p] == 0 and st.discs[r][p]:
            st.discs[r][p] = 0
            st.disc_supply += 1

    def move_cubes(self, p: int, src: int, dst: int, k: int, with_disc: bool) -> None:
        """Merchant move of ``k`` cubes, the disc cube among them if ``with_disc`` (§8.1, §8.2)."""
        st = self.state
        own, recv = self._untag(p, src, k - 1 if with_disc else k)
        st.cubes[src][p] -= k
        st.cubes[dst][p] += k
        if with_disc:
            st.discs[src][p] = 0
            st.discs[dst][p] = 1
        st.tag_own[dst][p] += own
        st.tag_recv[dst][p] += recv

    def to_palace(self, p: int, r: int) -> None:
        """King: one ordinary cube from ``r`` to the palace (§8.1)."""
        st = self.state
        own, recv = self._untag(p, r, 1)
        st.cubes[r][p] -= 1
        st.palace[p] += 1
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

    # ------------------------------------------------------------ tokens and region cards

    def put_token(self, r: int, tid: int, flags: int) -> None:
        """Lay face-down token ``tid`` in region ``r`` with its knowledge ``flags`` (``State.token_flags``)."""
        st = self.state
        st.tokens[r].append(tid)
        st.token_flags[r].append(flags)

    def take_token(self, r: int, i: int) -> tuple[int, int]:
        """Lift the ``i``-th token of region ``r``: ``(token id, flags)``."""
        st = self.state
        return st.tokens[r].pop(i), st.token_flags[r].pop(i)

    def discard_region_cards(self, cards: list[int], seen: int) -> None:
        """Put region cards on the discard pile, seen by the seats in bit mask ``seen`` (§9)."""
        st = self.state
        st.rdiscard.extend(cards)
        st.rdiscard_seen.extend([seen] * len(cards))
