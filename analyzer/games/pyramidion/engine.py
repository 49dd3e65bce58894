"""Pyramidion rules engine: set-up, the eight phases of a round, and the play loop.

Every rule lives here or in ``resolution.py``; a policy only picks an index into the options
the engine offers (``Policy.choose(state, seat, kind, options, rng) -> int``) and the engine
checks it. All chance goes through the named draws below (``shuffle``, ``draw_card``,
``draw_revolt_tiles``, ``draw_start_player``) so a test can force outcomes by setting the piles.
Sections refer to ``rules/pyramidion.md``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from analyzer.errors import IllegalChoice, TurnCapExceeded
from analyzer.games.base import build_policy, game_streams, seed_of
from analyzer.games.pyramidion.config import (
    BANDIT,
    CARD_DRAW,
    CARD_TYPES,
    CONVERSION,
    EXECUTIONER,
    GODDESS,
    GOODS,
    HIGH_PRIEST,
    ORDINARY,
    PHILOSOPHER,
    PLAYER_ORDER,
    REVOLT,
    SLAVE_DRIVER,
    STONE_DRAGGER,
    THIEF,
    PyramidionConfig,
)
from analyzer.games.pyramidion.loading import load_options, pay_boat
from analyzer.games.pyramidion.metrics import Tally, game_record, seat_records
from analyzer.games.pyramidion.resolution import new_player_order, revolt_result, step_winner
from analyzer.games.pyramidion.scoring import final_ranking
from analyzer.games.pyramidion.state import (
    ACTIVATE,
    CAIRO,
    EXECUTIONER_TARGET,
    GODDESS_CATEGORY,
    KEEP,
    LOAD,
    PASS,
    PLAY,
    RECRUIT,
    THIEF_TARGET,
    State,
)

CATEGORY = ("influence", "negotiation", "trade")
# Safety net against an engine bug: no legal game comes near this many decisions per round.
MAX_DECISIONS_PER_ROUND = 5000


# ---------------------------------------------------------------- named chance draws


def shuffle(rng: random.Random, items: list) -> None:
    """Shuffle a deck or stack in place (boats, cards, distribution cards, revolt tiles)."""
    rng.shuffle(items)


def draw_start_player(rng: random.Random, n: int) -> int:
    """The random start player (§4)."""
    return rng.randrange(n)


def draw_card(st: State, rng: random.Random, seat: int) -> bool:
    """Draw the top common card into ``seat``'s hand (§5 phase 4); reshuffle the discards if the
    pile is empty. Returns ``False`` when both piles are empty (nothing drawn)."""
    if not st.draw_pile:
        if not st.discard_pile:
            return False
        st.draw_pile, st.discard_pile = st.discard_pile, []
        shuffle(rng, st.draw_pile)
    st.hand[seat].append(st.draw_pile.pop())
    return True


def draw_revolt_tiles(st: State, k: int) -> list[int]:
    """Take ``k`` revolt tiles from the top of the stack (§5 phase 5 step 4)."""
    return [st.revolt_stack.pop() for _ in range(k)]


# ---------------------------------------------------------------- the game


class Game:
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
            choice = self.ask(p, LOAD, (PASS,) + options) if options else PASS
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

    # -- phase 5 details

    def activate(self, p: int, site: int) -> None:
        """Activate ``site`` (§5 phase 5, §1.1): ability, card play, resolution steps 4–8."""
        st, cfg, log = self.st, self.cfg, self.log
        n = st.n
        self.tally.activations[site] += 1
        if log:
            log(f" seat {p} activates {cfg.site_names[site]} "
                f"({st.site_goods[site]} {GOODS[cfg.site_kind[site]]} there)")
        ability = cfg.site_ability[site]
        if ability == CARD_DRAW:
            drew = draw_card(st, self.rng, p)
            st.hand[p].sort()
            if log:
                log(f"  Alexandria: seat {p} draws {'a card' if drew else 'nothing'}")
        elif ability == CONVERSION:
            self.conversion(p)
        st.site = site
        # the per-site lists are emptied, not rebuilt (no allocation per activation)
        st.pc_seat.clear()
        st.pc_card.clear()
        st.pc_cat.clear()
        st.pc_alive.clear()
        st.pc_mark.clear()
        for row in st.totals:
            row[:] = self._zeros
        self.giza_card[:] = self._nones
        passed = [False] * n
        acted = [False] * n
        n_passed = 0
        seat = p
        hands = st.hand
        while n_passed < n:
            if not passed[seat]:
                hand = hands[seat]
                if not hand:
                    choice = PASS
                else:
                    choice = self.ask(seat, PLAY, (PASS, *hand))
                if choice == PASS:
                    passed[seat] = True
                    n_passed += 1
                    if log:
                        log(f"  seat {seat} passes")
                    if not acted[seat] and hand:
                        self.recruit(seat)
                else:
                    self.play(seat, choice)
                acted[seat] = True
            seat = seat + 1 if seat + 1 < n else 0
        self.tally.contestants[site] += len(set(st.pc_seat))
        self.resolve(site)

    def conversion(self, p: int) -> None:
        """Cairo (§7): optionally return 2 goods of one kind for 1 of another ordinary kind."""
        st = self.st
        g = st.goods[p]
        opts = [PASS]
        for give in range(ORDINARY):
            if g[give] >= 2:
                for take in range(ORDINARY):
                    if take != give and (st.supply[take] > 0 or not self.cfg.supply_limited):
                        opts.append(give * ORDINARY + take)
        c = self.ask(p, CAIRO, tuple(opts))
        if c != PASS:
            give, take = divmod(c, ORDINARY)
            g[give] -= 2
            st.supply[give] += 2
            self.tally.goods_special[p] += self.gain(p, take, 1)
            if self.log:
                self.log(f"  Cairo: seat {p} gives 2 {GOODS[give]} for 1 {GOODS[take]}")

    def recruit(self, seat: int) -> None:
        """Recruiting (§5 phase 5 step 2): after a first-action pass, discard 1, draw 1."""
        st = self.st
        if not st.draw_pile:
            if not st.discard_pile:
                return  # nothing can be drawn: no recruiting
            st.draw_pile, st.discard_pile = st.discard_pile, []
            shuffle(self.rng, st.draw_pile)
        c = self.ask(seat, RECRUIT, (PASS,) + tuple(st.hand[seat]))
        if c == PASS:
            return
        st.hand[seat].remove(c)
        self.put_away(seat, c)
        draw_card(st, self.rng, seat)
        st.hand[seat].sort()
        if self.log:
            self.log(f"  seat {seat} recruits: discards {self.card_text(c)}, draws a card")

    def play(self, seat: int, c: int) -> None:
        """Play card ``c`` face up at the current site (§5 phase 5 steps 1 and 3)."""
        st, cfg = self.st, self.cfg
        st.hand[seat].remove(c)
        t = cfg.card_type[c]
        idx = len(st.pc_card)
        st.pc_seat.append(seat)
        st.pc_card.append(c)
        st.pc_alive.append(True)
        st.pc_mark.append(-1)
        self.tally.cards_played[seat][t] += 1
        tot = st.totals
        if t == GODDESS:
            cat = self.ask(seat, GODDESS_CATEGORY, (0, 1, 2))
            st.pc_cat.append(cat)
            tot[cat][seat] += cfg.goddess_value
        else:
            st.pc_cat.append(-1)
            v = cfg.card_val[c]
            tot[0][seat] += v[0]
            tot[1][seat] += v[1]
            tot[2][seat] += v[2]
        if self.log:
            extra = f" as {CATEGORY[st.pc_cat[idx]]}" if t == GODDESS else ""
            self.log(f"  seat {seat} plays {self.card_text(c)}{extra}")
        if t == SLAVE_DRIVER:
            if cfg.site_ability[st.site] == PLAYER_ORDER and seat not in st.giza_takers:
                st.giza_takers.append(seat)
                self.giza_card[seat] = idx
                self.tally.giza_tiles[seat] += 1
                if self.log:
                    self.log(f"  seat {seat} takes player-order tile {len(st.giza_takers)}")
        elif t > GODDESS:
            self.special(seat, t, idx)

    def special(self, seat: int, t: int, idx: int) -> None:
        """The on-play effect of special card type ``t`` just played as card ``idx`` (§10.2)."""
        st, cfg = self.st, self.cfg
        site = st.site
        if t == EXECUTIONER:
            targets = tuple([j for j in range(idx) if st.pc_alive[j] and st.pc_seat[j] != seat])
            if targets:
                j = self.ask(seat, EXECUTIONER_TARGET, targets)
                if self.log:
                    self.log(f"  executioner marks seat {st.pc_seat[j]}'s {self.card_text(st.pc_card[j])}")
                if cfg.executioner_on_play:
                    self.remove(j)
                else:
                    st.pc_mark[idx] = j
        elif t == THIEF:
            opts = tuple([(q, k) for q in range(st.n) if q != seat
                          for k in range(len(GOODS)) if st.goods[q][k] > 0])
            if opts:
                q, k = self.ask(seat, THIEF_TARGET, opts)
                st.goods[q][k] -= 1
                st.goods[seat][k] += 1
                self.tally.goods_special[seat] += 1
                if self.log:
                    self.log(f"  thief: seat {seat} takes 1 {GOODS[k]} from seat {q}")
        elif t == BANDIT:
            if st.site_goods[site] > 0:
                st.site_goods[site] -= 1
                st.goods[seat][cfg.site_kind[site]] += 1
                self.tally.goods_special[seat] += 1
        elif t == PHILOSOPHER:
            st.philosopher = seat

    def put_away(self, seat: int, c: int) -> None:
        """A card leaves play: starting cards are set aside by their owner, common cards go to
        the discard pile (§5 phase 4 fixed notes)."""
        owner = self.cfg.card_owner[c]
        if owner >= 0:
            self.st.aside[owner].append(c)
        else:
            self.st.discard_pile.append(c)

    def remove(self, j: int) -> None:
        """Remove played card ``j`` from the site (revolt or Executioner) and its totals."""
        st, cfg = self.st, self.cfg
        st.pc_alive[j] = False
        seat, c = st.pc_seat[j], st.pc_card[j]
        if st.pc_cat[j] >= 0:
            st.totals[st.pc_cat[j]][seat] -= cfg.goddess_value
        else:
            v = cfg.card_val[c]
            st.totals[0][seat] -= v[0]
            st.totals[1][seat] -= v[1]
            st.totals[2][seat] -= v[2]
        self.put_away(seat, c)
        if cfg.giza_tile_lost_on_revolt and self.giza_card[seat] == j:
            st.giza_takers.remove(seat)
            self.giza_card[seat] = -1

    def resolve(self, site: int) -> None:
        """Steps 4–8 of §5 phase 5: revolt, Executioner marks, slave driver, negotiator,
        merchant (+ Stone dragger), discard and sundial."""
        st, cfg, log = self.st, self.cfg, self.log
        n = st.n
        ctype = cfg.card_type
        types = [ctype[c] for c in st.pc_card]
        # 4. revolt: one tile per revolt card played here (even if since marked or removed)
        k = types.count(REVOLT)
        if k:
            tiles = draw_revolt_tiles(st, k)
            strength = sum(cfg.revolt_strength[t] for t in tiles)
            has = [False] * n
            for j, alive in enumerate(st.pc_alive):
                if alive:
                    has[st.pc_seat[j]] = True
            lost, winner = revolt_result(st.totals[0], has, strength, cfg.revolt_winner_must_survive)
            self.tally.revolts[site] += 1
            if log:
                log(f"  revolt: tiles {[cfg.revolt_strength[t] for t in tiles]} strength {strength}; "
                    f"influence {st.totals[0]}")
            for j in range(len(st.pc_card)):
                if st.pc_alive[j] and lost[st.pc_seat[j]]:
                    self.remove(j)
                    self.tally.cards_lost_revolt[st.pc_seat[j]] += 1
            if log and any(lost):
                log(f"  revolt: seats {[s for s in range(n) if lost[s]]} discard their cards")
            if winner >= 0:
                self.tally.revolts_won[winner] += 1
                for t in tiles:
                    got = self.gain(winner, cfg.revolt_good[t], 1)
                    self.tally.goods_revolt[winner] += got
                if log:
                    log(f"  revolt: seat {winner} puts it down and takes "
                        + ", ".join(GOODS[cfg.revolt_good[t]] for t in tiles))
            st.revolt_stack += tiles
            shuffle(self.rng, st.revolt_stack)
        # 4a. Executioner marks, all at once, only from Executioners still at the site
        if not cfg.executioner_on_play and EXECUTIONER in types:
            marked = [st.pc_mark[j] for j in range(len(st.pc_card))
                      if st.pc_alive[j] and st.pc_mark[j] >= 0]
            for j in marked:
                if st.pc_alive[j]:
                    self.remove(j)
                    if log:
                        log(f"  executioner: seat {st.pc_seat[j]}'s {self.card_text(st.pc_card[j])} is discarded")
        holder = st.philosopher if cfg.philosopher_wins_ties else -1
        mins = cfg.site_min[site]
        if log:
            log(f"  totals influence {st.totals[0]} negotiation {st.totals[1]} trade {st.totals[2]} "
                f"(minimums {mins[0]}/{mins[1]}/{mins[2]}, philosopher {st.philosopher})")
        # 5. slave driver, 6. negotiator
        w = step_winner(st.totals[0], mins[0], holder)
        if w >= 0:
            self.place_tile(st.sd_owner, st.sd_left, site, w, "slave-driver")
        w = step_winner(st.totals[1], mins[1], holder)
        if w >= 0:
            self.place_tile(st.ng_owner, st.ng_left, site, w, "negotiator")
        # 7. merchant, then Stone draggers still at the site
        kind = cfg.site_kind[site]
        w = step_winner(st.totals[2], mins[2], holder)
        if w >= 0 and st.site_goods[site]:
            got = st.site_goods[site]
            st.site_goods[site] = 0
            st.goods[w][kind] += got
            self.tally.goods_merchant[w] += got
            if log:
                log(f"  merchant: seat {w} takes {got} {GOODS[kind]} (trade {st.totals[2]})")
        if STONE_DRAGGER in types:
            for j, t in enumerate(types):
                if st.pc_alive[j] and t == STONE_DRAGGER:
                    self.tally.goods_special[st.pc_seat[j]] += self.gain(st.pc_seat[j], kind, 1)
        # 8. discard + sundial; a High Priest still here goes back to its player's hand;
        # the rest leave play as in ``put_away`` (inlined: this runs for every card played)
        owner, aside, discard, alive = cfg.card_owner, st.aside, st.discard_pile, st.pc_alive
        for j, c in enumerate(st.pc_card):
            if alive[j]:
                alive[j] = False
                if types[j] == HIGH_PRIEST:
                    st.hand[st.pc_seat[j]].append(c)
                    st.hand[st.pc_seat[j]].sort()
                elif owner[c] >= 0:
                    aside[owner[c]].append(c)
                else:
                    discard.append(c)
        st.sundial[site] = True
        st.site = -1

    def place_tile(self, owner: list[int], left: list[int], site: int, w: int, what: str) -> None:
        """Steps 5/6: put ``w``'s tile on ``site`` (the old one goes back to its owner)."""
        cur = owner[site]
        if cur == w:
            return
        if left[w] == 0:
            if not self.cfg.move_own_tile:
                return
            other = next((s for s in range(len(owner)) if owner[s] == w), -1)
            if other < 0:
                return
            owner[other] = -1
            left[w] += 1
        if cur >= 0:
            left[cur] += 1
            self.tally.tiles_lost[cur] += 1
        owner[site] = w
        left[w] -= 1
        self.tally.tiles_placed[w] += 1
        if self.log:
            self.log(f"  {what}: seat {w} places a tile on {self.cfg.site_names[site]}"
                     + (f" (seat {cur}'s tile returns)" if cur >= 0 else ""))

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

    # -- text for the log only

    def card_text(self, c: int) -> str:
        cfg = self.cfg
        t = CARD_TYPES[cfg.card_type[c]]
        if cfg.card_type[c] == GODDESS:
            return f"goddess {cfg.goddess_value}"
        vals = "/".join(str(v) for v in cfg.card_val[c])
        return f"{t} ({vals}){' [own]' if cfg.card_owner[c] >= 0 else ''}"

    def _boat_text(self, b: int) -> str:
        cfg = self.cfg
        need = " ".join(f"{n} {GOODS[k]}" for k, n in enumerate(cfg.boat_need[b]) if n)
        return f"{cfg.boat_names[b]}[{need}: {cfg.boat_vp[b]} VP]"


@cache
def _default_policy(name: str):
    """A policy with default parameters, built once per name (policies are frozen)."""
    from analyzer.games.pyramidion.policies import POLICIES

    return build_policy(POLICIES, name)


def resolve_policies(policies: Sequence, n: int) -> tuple[list, list[str]]:
    """Policy objects and their registered names from names or objects, one per seat."""
    if len(policies) != n:
        raise ValueError(f"need {n} policies, got {len(policies)}")
    objs, names = [], []
    for p in policies:
        obj = _default_policy(p) if isinstance(p, str) else p
        objs.append(obj)
        names.append(getattr(obj, "NAME", type(obj).__name__))
    return objs, names


def play_game(cfg: PyramidionConfig, policies: Sequence, seed, log: Callable[[str], None] | None = None
              ) -> tuple[dict, list[dict]]:
    """Play one seeded game and return its records (DESIGN.md §3, rules §4–§6).

    Parameters
    ----------
    cfg : PyramidionConfig
    policies : sequence of str or policy objects, length ``cfg.players``
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
    objs, names = resolve_policies(policies, cfg.players)
    if isinstance(seed, np.random.SeedSequence):
        # SeedSequence.spawn mutates its object; a fresh copy makes a reused object replay.
        seed = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)
    chance, seats = game_streams(seed, cfg.players)
    game = Game(cfg, objs, chance, seats, log)
    game.seed_text = seed_of(seed)
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
