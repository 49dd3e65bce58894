"""Pyramidion rules engine: set-up, the eight phases of a round, and the play loop.

Every rule lives here, in ``site_play.py`` (phase 5, one site at a time: card play and
resolution), ``loading.py`` (phase 7 loads) or ``resolution.py`` (pure step rules); a policy
only picks an index into the options the engine offers
(``Policy.choose(state, seat, kind, options, rng) -> int``) and the engine checks it. All chance
goes through the named draws of ``chance.py`` (``shuffle``, ``draw_card``,
``draw_revolt_tiles``, ``draw_start_player``) so a test can force outcomes by setting the piles.
Sections refer to ``docs/rules/pyramidion.md``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from analyzer.errors import IllegalChoice, TurnCapExceeded
from analyzer.games.base import game_streams, resolve_policies, seed_of
from analyzer.games.logtext import seats_line
from analyzer.games.pyramidion.chance import (
    draw_card,
    draw_revolt_tiles,
    draw_start_player,
    shuffle,
)
from analyzer.games.pyramidion.config import GOODS, PyramidionConfig
from analyzer.games.pyramidion.loading import load_options, pay_boat
from analyzer.games.pyramidion.metrics import Tally, game_record, seat_records
from analyzer.games.pyramidion.resolution import new_player_order
from analyzer.games.pyramidion.scoring import final_ranking
from analyzer.games.pyramidion.site_play import CATEGORY, SitePlay
from analyzer.games.pyramidion.state import ACTIVATE, KEEP, LOAD, PASS, State

__all__ = ["CATEGORY", "Game", "draw_card", "draw_revolt_tiles", "draw_start_player", "finish",
           "play_game", "shuffle"]

# Safety net against an engine bug: no legal game comes near this many decisions per round.
MAX_DECISIONS_PER_ROUND = 5000


# ---------------------------------------------------------------- the game


class Game(SitePlay):
    """One running game: config, state, seat policies and generators, optional log.

    Parameters
    ----------
    cfg : PyramidionConfig
    policies : sequence of policy objects, one per seat
    chance : random.Random
        The chance stream (``game_streams`` child 0).
    seat_rngs : sequence of random.Random
        One stream per seat, handed to its policy.
    log : callable or None
        Receives readable replay lines; ``None`` means no log work at all.
    state : State, optional
        A hand-built position (tests); default is a fresh set-up (§4).
    """

    def __init__(self, cfg: PyramidionConfig, policies: Sequence, chance: random.Random,
                 seat_rngs: Sequence[random.Random], log: Callable[[str], None] | None = None,
                 state: State | None = None):
        self.cfg = cfg
        self.pol = list(policies)
        self.rng = chance
        self.prng = list(seat_rngs)
        self.log = log
        self.st = state if state is not None else State.empty(cfg)
        self.tally = Tally(cfg.players, cfg.n_sites)
        self.decisions = 0
        self.giza_card = [-1] * cfg.players  # per seat: index of the card that took a Giza tile
        self._zeros = (0,) * cfg.players  # templates to reset per-site rows without allocating
        self._nones = (-1,) * cfg.players
        # Safety net against an engine bug (loops are finite by construction).
        self.decision_cap = MAX_DECISIONS_PER_ROUND * (cfg.max_rounds + 1)
        self.seed_text = "?"

    # -- decisions

    def ask(self, seat: int, kind: str, options: tuple):
        """Let ``seat``'s policy pick one of ``options``; a single option is taken silently.

        Raises
        ------
        IllegalChoice
            The policy returned anything but an index into ``options``.
        """
        if len(options) == 1:
            return options[0]
        self.decisions += 1
        if self.decisions > self.decision_cap:
            raise TurnCapExceeded(f"pyramidion game passed {self.decision_cap} decisions in round "
                                  f"{self.st.round}; replay seed {self.seed_text}")
        i = self.pol[seat].choose(self.st, seat, kind, options, self.prng[seat])
        if type(i) is not int or not 0 <= i < len(options):
            raise IllegalChoice(f"seat {seat} {kind}: choice {i!r} is not an index into the "
                                f"{len(options)} legal options {options!r}")
        return options[i]

    # -- supply helpers (§3.1)

    def take_supply(self, kind: int, n: int) -> int:
        """Take up to ``n`` goods of ``kind`` from the supply; returns how many were taken."""
        st = self.st
        if self.cfg.supply_limited and st.supply[kind] < n:
            n = max(st.supply[kind], 0)
        st.supply[kind] -= n
        return n

    def gain(self, seat: int, kind: int, n: int) -> int:
        got = self.take_supply(kind, n)
        self.st.goods[seat][kind] += got
        return got

    # -- set-up (§4)

    def setup(self) -> None:
        """Shuffle the decks and stacks and choose the start player (§4)."""
        st, cfg, rng = self.st, self.cfg, self.rng
        shuffle(rng, st.draw_pile)
        shuffle(rng, st.boat_deck)
        shuffle(rng, st.dist_deck)
        shuffle(rng, st.revolt_stack)
        start = cfg.start_player if cfg.start_player >= 0 else draw_start_player(rng, st.n)
        st.order = [(start + i) % st.n for i in range(st.n)]
        self.tally.start_order = list(st.order)

    # -- phases

    def phase1_boats(self) -> None:
        """Phase 1 (§5): refill the display to ``boats_on_display`` from the boat deck."""
        st = self.st
        while len(st.display) < self.cfg.boats_on_display and st.boat_deck:
            st.display.append(st.boat_deck.pop())
        if self.log:
            self.log("  boats: " + ", ".join(self._boat_text(b) for b in sorted(st.display)))

    def phase2_goods(self) -> None:
        """Phase 2 (§5): turn up a distribution card; each site gets its own kind of good,
        served in site-table order from the (possibly short) supply."""
        st, cfg = self.st, self.cfg
        if not st.dist_deck:
            st.dist_deck, st.dist_discard = st.dist_discard, []
            shuffle(self.rng, st.dist_deck)
        card = st.dist_deck.pop()
        st.dist_discard.append(card)
        amounts = cfg.dist_goods[card]
        for s in range(cfg.n_sites):
            if amounts[s]:
                st.site_goods[s] += self.take_supply(cfg.site_kind[s], amounts[s])
        if self.log:
            self.log("  goods on sites: " + ", ".join(
                f"{cfg.site_names[s]}={st.site_goods[s]} {GOODS[cfg.site_kind[s]]}"
                for s in range(cfg.n_sites)))

    def phase3_negotiators(self) -> None:
        """Phase 3 (§5): each negotiator tile takes 1 good from its site (automatic)."""
        st, cfg = self.st, self.cfg
        for p in st.order:
            for s in range(cfg.n_sites):
                if st.ng_owner[s] == p and st.site_goods[s] > 0:
                    st.site_goods[s] -= 1
                    st.goods[p][cfg.site_kind[s]] += 1
                    self.tally.goods_negotiator[p] += 1
                    if self.log:
                        self.log(f"  negotiator: seat {p} takes 1 {GOODS[cfg.site_kind[s]]} "
                                 f"from {cfg.site_names[s]}")

    def phase4_cards(self) -> None:
        """Phase 4 (§5): starting cards come back; each player draws ``cards_drawn`` cards."""
        st = self.st
        for p in st.order:
            st.hand[p] += st.aside[p] + st.kept[p]
            st.aside[p] = []
            st.kept[p] = []
            for _ in range(self.cfg.cards_drawn):
                draw_card(st, self.rng, p)
            st.hand[p].sort()
        if self.log:
            self.log("  hands: " + ", ".join(f"seat {p}={len(st.hand[p])}" for p in range(st.n)))

    def phase5_sites(self) -> None:
        """Phase 5 (§5): in player order, twice round, each player activates a site."""
        st, cfg = self.st, self.cfg
        sites, sundial = range(cfg.n_sites), st.sundial
        for _ in range(cfg.activations_per_player):
            for p in st.order:
                options = tuple([s for s in sites if not sundial[s]])
                site = self.ask(p, ACTIVATE, options)
                self.activate(p, site)

    def phase6_order(self) -> None:
        """Phase 6 (§5): Giza's player-order tiles set the new order (unchanged if none)."""
        st = self.st
        if st.giza_takers:
            st.order = new_player_order(st.order, st.giza_takers)
            if self.log:
                self.log(f"  player order: {st.order}")

    def phase7_loading(self) -> None:
        """Phase 7 (§5): in player order, load one boat per turn until N passes in a row
        (or, variant, everyone has passed once) or no boat is left."""
        st, cfg = self.st, self.cfg
        n = st.n
        passes = 0
        out = [False] * n
        i = 0
        while st.display:
            p = st.order[i % n]
            i += 1
            if out[p]:
                continue
            options = self.load_options(p)
            choice: Any = self.ask(p, LOAD, (PASS,) + options) if options else PASS
            if choice == PASS:
                passes += 1
                if cfg.loading_pass_is_final:
                    out[p] = True
                    if all(out):
                        break
                elif passes >= n:
                    break
            else:
                self.load(p, choice[0], choice[1])
                passes = 0

    def phase8_end(self) -> str | None:
        """Phase 8 (§5, §6): slave-driver benefit variant, discard unplayed drawn cards, reset
        sundials, Giza tiles and used marks; return ``"trigger"``, ``"turn_cap"`` or None."""
        st, cfg = self.st, self.cfg
        if cfg.phase8_benefit == "good_of_site":
            for p in st.order:
                for s in range(cfg.n_sites):
                    if st.sd_owner[s] == p:
                        self.tally.goods_slave_driver[p] += self.gain(p, cfg.site_kind[s], 1)
        elif cfg.phase8_benefit == "keep_card":
            for p in st.order:
                for _ in range(sum(1 for s in range(cfg.n_sites) if st.sd_owner[s] == p)):
                    opts = (PASS,) + tuple(c for c in st.hand[p] if cfg.card_owner[c] < 0)
                    c = self.ask(p, KEEP, opts)
                    if c == PASS:
                        break
                    st.hand[p].remove(c)
                    st.kept[p].append(c)
        for p in range(st.n):
            keep = []
            for c in st.hand[p]:
                if cfg.card_owner[c] >= 0:
                    st.aside[p].append(c)
                elif cfg.discard_unplayed_drawn_cards:
                    st.discard_pile.append(c)
                else:
                    keep.append(c)
            st.hand[p] = keep
        for s in range(cfg.n_sites):
            st.sundial[s] = False
            st.sd_used[s] = False
        st.giza_takers = []
        if self.log:
            self.log("  VP: " + ", ".join(f"seat {p}={st.vp[p]}" for p in range(st.n)))
        if max(st.vp) >= cfg.target_vp or (not st.display and not st.boat_deck):
            return "trigger"
        if st.round >= cfg.max_rounds:
            return "turn_cap"
        return None

    # -- phase 7 details

    def load_options(self, p: int) -> tuple:
        """Legal loads for ``p`` (§5 phase 7); see ``loading.load_options``."""
        return load_options(self.st, p)

    def load(self, p: int, b: int, used: tuple) -> None:
        """Load boat ``b`` (§5 phase 7): pay it (``loading.pay_boat``) and take the boat card."""
        st, cfg = self.st, self.cfg
        pay_boat(st, p, b, used)
        self.tally.goods_slave_driver[p] += len(used)
        st.display.remove(b)
        st.boats[p].append(b)
        st.vp[p] += cfg.boat_vp[b]
        if st.first_to_target < 0 and st.vp[p] >= cfg.target_vp:
            st.first_to_target = p
        if self.log:
            self.log(f"  seat {p} loads {self._boat_text(b)}"
                     + (f" using slave drivers at {[cfg.site_names[s] for s in used]}" if used else "")
                     + f" -> {st.vp[p]} VP")

    # -- the round and the game

    def play_round(self) -> str | None:
        """One round of the eight phases (§5); returns the end reason or None."""
        st = self.st
        st.round += 1
        if self.log:
            self.log(f"Round {st.round} (order {st.order})")
        self.phase1_boats()
        self.phase2_goods()
        self.phase3_negotiators()
        self.phase4_cards()
        self.phase5_sites()
        self.phase6_order()
        self.phase7_loading()
        return self.phase8_end()

    # -- text for the log only (card_text is in site_play)

    def _boat_text(self, b: int) -> str:
        cfg = self.cfg
        need = " ".join(f"{n} {GOODS[k]}" for k, n in enumerate(cfg.boat_need[b]) if n)
        return f"{cfg.boat_names[b]}[{need}: {cfg.boat_vp[b]} VP]"


def play_game(config: PyramidionConfig, policies: Any, seed, log: Callable[[str], None] | None = None
              ) -> tuple[dict, list[dict]]:
    """Play one seeded game and return its records (rules §4–§6).

    Parameters
    ----------
    config : PyramidionConfig
    policies : str or policy object, or a sequence of them (one per seat)
        A single name or object plays every seat (``analyzer.games.base.resolve_policies``).
    seed : int or numpy.random.SeedSequence
    log : callable or None
        Receives readable replay lines.

    Returns
    -------
    (dict, list of dict)
        The game record (``GAME_COLUMNS``) and one seat record per seat (``SEAT_COLUMNS``).

    Raises
    ------
    IllegalChoice
        A policy returned an option index the engine did not offer.
    TurnCapExceeded
        The game took an absurd number of decisions (an engine bug; names the seed). A game
        that reaches ``max_rounds`` is a normal record with ``end = "turn_cap"`` (§6).
    """
    from analyzer.games.pyramidion.policies import POLICIES  # policies import this module

    objs = resolve_policies(POLICIES, policies, config.players)
    names = [getattr(obj, "NAME", type(obj).__name__) for obj in objs]
    chance, seats = game_streams(seed, config.players)  # leaves the caller's SeedSequence as is
    game = Game(config, objs, chance, seats, log)
    game.seed_text = seed_of(seed)
    if log:
        log(seats_line(names))
    game.setup()
    end = None
    while end is None:
        end = game.play_round()
    return finish(game, names, end)


def finish(game: Game, names: list[str], end: str) -> tuple[dict, list[dict]]:
    """Records of a finished game (§6 scoring and tie-break)."""
    st = game.st
    goods = [sum(g) for g in st.goods]
    ranks, won, winners = final_ranking(st.vp, [len(b) for b in st.boats], goods, game.cfg.tiebreak)
    if game.log:
        game.log(f"Game over after round {st.round} ({end}): winners {winners}")
        game.log(st.describe())
    return game_record(st, game.tally, end, winners), seat_records(st, game.tally, names, ranks, won)
