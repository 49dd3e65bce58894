"""Phase 5 of a Pyramidion round, one site at a time (docs/rules/pyramidion.md §5 phase 5, §7, §10.2):
activating a site and its ability, card play (recruiting, Goddess, the special cards' on-play
effects) and resolution steps 4–8 (revolt, Executioner marks, slave driver, negotiator,
merchant, discard, sundial).

``SitePlay`` is mixed into ``engine.Game``: it uses the game's ``st``, ``cfg``, ``rng``,
``log``, ``decide`` and ``gain``. The pure step rules are in ``resolution.py``.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import random
from collections.abc import Callable

from analyzer.games.pyramidion.chance import (
    draw_card,
    draw_good,
    draw_revolt_tiles,
    reshuffle_discards,
    shuffle,
)
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
    READ_GIZA_LOST,
    READ_PHILOSOPHER,
    REVOLT,
    SLAVE_DRIVER,
    STONE_DRAGGER,
    THIEF,
    PyramidionConfig,
)
from analyzer.games.pyramidion.resolution import revolt_result, step_winner
from analyzer.games.pyramidion.state import (
    ACTIVATION,
    CAIRO,
    CARD_TURN,
    EXECUTIONER_TARGET,
    GODDESS_CATEGORY,
    NO_GOOD,
    NOBODY,
    PASS,
    PLAY,
    RECRUIT,
    THIEF_TARGET,
    State,
)

CATEGORY = ("influence", "negotiation", "trade")


class SitePlay:
    """Activation, card play and resolution of one site (a mixin of ``engine.Game``).

    Written in continuation style: a rule that needs a decision ends with ``self.decide``,
    and the decision's handler (``on_activate``, ``on_play``, ...) carries the rule on.
    """

    # set by engine.Game.__init__ (declared here so the mixin type-checks and compiles)
    st: State
    cfg: PyramidionConfig
    rng: random.Random
    log: Callable[[str], None] | None
    _zeros: tuple[int, ...]
    _nones: tuple[int, ...]

    def decide(self, seat: int, kind: str, options: tuple) -> None:
        """Ask ``seat`` to choose among ``options`` (``engine.Game.decide``)."""
        raise NotImplementedError

    def gain(self, seat: int, kind: int, n: int) -> int:
        """Goods from the supply to a seat (``engine.Game.gain``)."""
        raise NotImplementedError

    # -- D1: activation (§5 phase 5, §1.1 a)

    def on_activate(self, site: int) -> None:
        """``st.to_move`` activates ``site``: its ability (§7), then card play opens."""
        st, cfg, log = self.st, self.cfg, self.log
        p = st.to_move
        st.tally.activations[site] += 1
        if log:
            log(f" seat {p} activates {cfg.site_names[site]} "
                f"({st.site_goods[site]} {GOODS[cfg.site_kind[site]]} there)")
        st.site = site
        ability = cfg.site_ability[site]
        if ability == CARD_DRAW:
            drew = draw_card(st, self.rng, p)
            st.hand[p].sort()
            if log:
                log(f"  Alexandria: seat {p} draws {'a card' if drew else 'nothing'}")
        elif ability == CONVERSION:
            self.offer_conversion(p)
            return
        self.open_site(p)

    def offer_conversion(self, p: int) -> None:
        """Cairo (§7): D2, optionally return 2 goods of one kind for 1 of another ordinary kind."""
        st = self.st
        g = st.goods[p]
        opts = [PASS]
        for give in range(ORDINARY):
            if g[give] >= 2:
                for take in range(ORDINARY):
                    if take != give and (st.supply[take] > 0 or not self.cfg.supply_limited):
                        opts.append(give * ORDINARY + take)
        self.decide(p, CAIRO, tuple(opts))

    def on_cairo(self, c: int) -> None:
        """The Cairo conversion chosen (or declined), then card play opens (§7)."""
        st = self.st
        p = st.to_move
        if c != PASS:
            give, take = divmod(c, ORDINARY)
            g = st.goods[p]
            g[give] -= 2
            st.supply[give] += 2
            st.tally.goods_special[p] += self.gain(p, take, 1)
            st.tally.acted_conversion += 1
            if self.log:
                self.log(f"  Cairo: seat {p} gives 2 {GOODS[give]} for 1 {GOODS[take]}")
        self.open_site(p)

    def open_site(self, p: int) -> None:
        """Card play at ``st.site`` starts with the activating player ``p`` (§5 phase 5 step 1)."""
        st = self.st
        # the per-site lists are emptied, not rebuilt (no allocation per activation)
        st.pc_seat.clear()
        st.pc_card.clear()
        st.pc_cat.clear()
        st.pc_alive.clear()
        st.pc_mark.clear()
        for row in st.totals:
            row[:] = self._zeros
        st.giza_card[:] = self._nones
        st.passed[:] = [False] * st.n
        st.acted[:] = [False] * st.n
        st.n_passed = 0
        st.turn = p
        st.step = CARD_TURN

    # -- D3: card play, clockwise until everyone has passed (§5 phase 5 steps 1-3)

    def card_turn(self) -> None:
        """The next turn of card play, or the site's resolution once everyone has passed."""
        st = self.st
        if st.n_passed == st.n:
            st.tally.contestants[st.site] += len(set(st.pc_seat))
            self.resolve(st.site)
            st.act_i += 1
            st.step = ACTIVATION
            return
        seat = st.turn
        if st.passed[seat]:
            st.turn = seat + 1 if seat + 1 < st.n else 0
            return
        # an empty hand passes automatically (the one option)
        self.decide(seat, PLAY, (PASS, *st.hand[seat]))

    def end_turn(self, seat: int) -> None:
        st = self.st
        st.acted[seat] = True
        st.turn = seat + 1 if seat + 1 < st.n else 0

    def on_play(self, c: int) -> None:
        """``st.to_move`` plays card ``c`` face up, or passes (``c == PASS``)."""
        st = self.st
        seat = st.to_move
        if c == PASS:
            st.passed[seat] = True
            st.n_passed += 1
            if self.log:
                self.log(f"  seat {seat} passes")
            if not st.acted[seat] and st.hand[seat] and self.offer_recruit(seat):
                return
            self.end_turn(seat)
        else:
            self.play(seat, c)

    def offer_recruit(self, seat: int) -> bool:
        """Recruiting (§5 phase 5 step 2), D4: after a first-action pass, discard 1, draw 1.
        False when nothing can be drawn (no recruiting)."""
        st = self.st
        if not st.draw_pile and not st.discard_pile:
            return False  # nothing can be drawn: no recruiting
        self.decide(seat, RECRUIT, (PASS, *st.hand[seat]))
        return True

    def on_recruit(self, c: int) -> None:
        """Recruit away card ``c`` and draw one, or decline (``PASS``: nothing moves)."""
        st = self.st
        seat = st.to_move
        if c != PASS:
            if not st.draw_pile:  # reshuffled before the discard: he cannot draw it back
                reshuffle_discards(st, self.rng)
            st.hand[seat].remove(c)
            self.put_away(seat, c)
            draw_card(st, self.rng, seat)
            st.hand[seat].sort()
            if self.log:
                self.log(f"  seat {seat} recruits: discards {self.card_text(c)}, draws a card")
        self.end_turn(seat)

    def play(self, seat: int, c: int) -> None:
        """Play card ``c`` face up at the current site (§5 phase 5 steps 1 and 3)."""
        st, cfg = self.st, self.cfg
        st.hand[seat].remove(c)
        t = cfg.card_type[c]
        st.pc_seat.append(seat)
        st.pc_card.append(c)
        st.pc_alive.append(True)
        st.pc_mark.append(-1)
        st.tally.cards_played[seat][t] += 1
        if t == GODDESS:
            self.decide(seat, GODDESS_CATEGORY, (0, 1, 2))  # D3a
            return
        st.pc_cat.append(-1)
        v = cfg.card_val[c]
        tot = st.totals
        tot[0][seat] += v[0]
        tot[1][seat] += v[1]
        tot[2][seat] += v[2]
        if self.log:
            self.log(f"  seat {seat} plays {self.card_text(c)}")
        if t == SLAVE_DRIVER:
            if cfg.site_ability[st.site] == PLAYER_ORDER and seat not in st.giza_tiles:
                # the lowest-numbered tile still on Giza (§5 phase 6: tiles go out in number order)
                tile = st.giza_tiles.index(NOBODY)
                st.giza_tiles[tile] = seat
                st.giza_card[seat] = len(st.pc_card) - 1
                st.tally.giza_tiles[seat] += 1
                if self.log:
                    self.log(f"  seat {seat} takes player-order tile {tile + 1}")
        elif t > GODDESS:
            self.special(seat, t)
            return
        self.end_turn(seat)

    def on_goddess(self, cat: int) -> None:
        """The Goddess just played counts in category ``cat`` only (§1.1 b, D3a)."""
        st = self.st
        seat = st.to_move
        st.pc_cat.append(cat)
        st.totals[cat][seat] += self.cfg.goddess_value
        if self.log:
            self.log(f"  seat {seat} plays {self.card_text(st.pc_card[-1])} as {CATEGORY[cat]}")
        self.end_turn(seat)

    def special(self, seat: int, t: int) -> None:
        """The on-play effect of special card type ``t``, just played (§10.2)."""
        st, cfg = self.st, self.cfg
        site = st.site
        idx = len(st.pc_card) - 1
        if t == EXECUTIONER:
            targets = tuple([j for j in range(idx) if st.pc_alive[j] and st.pc_seat[j] != seat])
            if targets:
                self.decide(seat, EXECUTIONER_TARGET, targets)  # D3b
                return
        elif t == THIEF:
            if cfg.goods_visible:
                opts = tuple([(q, k) for q in range(st.n) if q != seat
                              for k in range(len(GOODS)) if st.goods[q][k] > 0])
            else:  # the kinds are hidden: choose an opponent, the good is drawn blind
                opts = tuple([(q, NO_GOOD) for q in range(st.n) if q != seat and any(st.goods[q])])
            if opts:
                self.decide(seat, THIEF_TARGET, opts)  # D3c
                return
        elif t == BANDIT:
            if st.site_goods[site] > 0:
                st.site_goods[site] -= 1
                st.goods[seat][cfg.site_kind[site]] += 1
                st.tally.goods_special[seat] += 1
                st.tally.acted_special_effect += 1
        elif t == PHILOSOPHER:
            st.philosopher = seat
        self.end_turn(seat)

    def on_executioner(self, j: int) -> None:
        """The Executioner just played marks played card ``j`` (§10.2, D3b)."""
        st = self.st
        seat = st.to_move
        if self.log:
            self.log(f"  executioner marks seat {st.pc_seat[j]}'s {self.card_text(st.pc_card[j])}")
        if self.cfg.executioner_on_play:
            self.remove(j)
            st.tally.acted_special_effect += 1
        else:
            st.pc_mark[len(st.pc_card) - 1] = j
        self.end_turn(seat)

    def on_thief(self, target: tuple) -> None:
        """The Thief just played takes 1 good from an opponent (§10.2, D3c)."""
        st = self.st
        seat = st.to_move
        q, k = target
        if k == NO_GOOD:
            k = draw_good(self.rng, st.goods[q])
        st.goods[q][k] -= 1
        st.goods[seat][k] += 1
        st.tally.goods_special[seat] += 1
        st.tally.acted_special_effect += 1
        if self.log:
            self.log(f"  thief: seat {seat} takes 1 {GOODS[k]} from seat {q}")
        self.end_turn(seat)

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
        if st.giza_card[seat] == j:
            cfg.reads[0] |= READ_GIZA_LOST
        if cfg.giza_tile_lost_on_revolt and st.giza_card[seat] == j:
            # variant (§5 phase 6): the tile goes back to Giza, where it can be taken again
            tile = st.giza_tiles.index(seat)
            st.giza_tiles[tile] = NOBODY
            st.giza_card[seat] = -1
            if self.log:
                self.log(f"  player-order tile {tile + 1} goes back to Giza")

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
            st.tally.acted_revolt_tile += k
            strength = sum(cfg.revolt_strength[t] for t in tiles)
            has = [False] * n
            for j, in_play in enumerate(st.pc_alive):
                if in_play:
                    has[st.pc_seat[j]] = True
            lost, winner = revolt_result(st.totals[0], has, strength, cfg.revolt_winner_must_survive)
            self.st.tally.revolts[site] += 1
            if log:
                log(f"  revolt: tiles {[cfg.revolt_strength[t] for t in tiles]} strength {strength}; "
                    f"influence {st.totals[0]}")
            for j in range(len(st.pc_card)):
                if st.pc_alive[j] and lost[st.pc_seat[j]]:
                    self.remove(j)
                    self.st.tally.cards_lost_revolt[st.pc_seat[j]] += 1
            if log and any(lost):
                log(f"  revolt: seats {[s for s in range(n) if lost[s]]} discard their cards")
            if winner >= 0:
                self.st.tally.revolts_won[winner] += 1
                for t in tiles:
                    got = self.gain(winner, cfg.revolt_good[t], 1)
                    self.st.tally.goods_revolt[winner] += got
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
                    st.tally.acted_special_effect += 1
                    if log:
                        log(f"  executioner: seat {st.pc_seat[j]}'s {self.card_text(st.pc_card[j])} is discarded")
        if st.philosopher >= 0:
            cfg.reads[0] |= READ_PHILOSOPHER
        holder = st.philosopher if cfg.philosopher_wins_ties else -1
        mins = cfg.site_min[site]
        if log:
            log(f"  totals influence {st.totals[0]} negotiation {st.totals[1]} trade {st.totals[2]} "
                f"(minimums {mins[0]}/{mins[1]}/{mins[2]}, philosopher {st.philosopher})")
        # 5. slave driver, 6. negotiator, 7. merchant: with no card left at the site (nobody
        # played, or the revolt took every card) they change nothing (§5 phase 5 steps 1, 4)
        contested = any(st.pc_alive)
        w = step_winner(st.totals[0], mins[0], holder) if contested else NOBODY
        if contested and (w < 0 or w == holder):  # else no default decided: no call
            self.count_step_guesses(st.totals[0], mins[0], holder, w, st.sd_owner[site])
        if w >= 0:
            self.place_tile(st.sd_owner, st.sd_left, site, w, "slave-driver")
        w = step_winner(st.totals[1], mins[1], holder) if contested else NOBODY
        if contested and (w < 0 or w == holder):
            self.count_step_guesses(st.totals[1], mins[1], holder, w, st.ng_owner[site])
        if w >= 0:
            self.place_tile(st.ng_owner, st.ng_left, site, w, "negotiator")
        # then Stone draggers still at the site
        kind = cfg.site_kind[site]
        w = step_winner(st.totals[2], mins[2], holder) if contested else NOBODY
        if contested and (w < 0 or w == holder) and st.site_goods[site]:  # a bare site: no change
            self.count_step_guesses(st.totals[2], mins[2], holder, w, NOBODY)
        if w >= 0 and st.site_goods[site]:
            got = st.site_goods[site]
            st.site_goods[site] = 0
            st.goods[w][kind] += got
            self.st.tally.goods_merchant[w] += got
            if log:
                log(f"  merchant: seat {w} takes {got} {GOODS[kind]} (trade {st.totals[2]})")
        if STONE_DRAGGER in types:
            for j, t in enumerate(types):
                if st.pc_alive[j] and t == STONE_DRAGGER:
                    self.st.tally.goods_special[st.pc_seat[j]] += self.gain(st.pc_seat[j], kind, 1)
                    self.st.tally.acted_special_effect += 1
        # 8. discard + sundial; a High Priest still here goes back to its player's hand;
        # the rest leave play as in ``put_away`` (inlined: this runs for every card played)
        owner, aside, discard, alive = cfg.card_owner, st.aside, st.discard_pile, st.pc_alive
        for j, c in enumerate(st.pc_card):
            if alive[j]:
                alive[j] = False
                if types[j] == HIGH_PRIEST:  # back in the hand, in everyone's sight
                    st.tally.acted_special_effect += 1
                    st.hand[st.pc_seat[j]].append(c)
                    st.hand[st.pc_seat[j]].sort()
                    st.pub[c] = True
                elif owner[c] >= 0:
                    aside[owner[c]].append(c)
                else:
                    discard.append(c)
        st.sundial[site] = True
        st.site = -1

    def count_step_guesses(self, totals: list[int], minimum: int, holder: int, w: int, same: int) -> None:
        """Count the labelled defaults that decided a slave-driver, negotiator or merchant step
        (``metrics.GUESSES``): the site's guessed minimum refusing a top total above 0, or the
        Philosopher holder winning a tie (§7, §10.2). ``w`` is the step's winner (-1: none); ``same`` the
        seat whose win would change nothing (the tile's owner; -1 for the merchant step)."""
        tally = self.st.tally
        if w >= 0:
            if w == holder and w != same and totals.count(totals[w]) > 1:
                tally.acted_philosopher_tie += 1
            return
        best = max(totals)
        if 0 < best < minimum:  # a total of 0 falls short of any minimum a source could give
            w = step_winner(totals, best, holder)  # the winner had the site no minimum
            if w >= 0 and w != same:
                tally.acted_site_minimum += 1

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
            self.st.tally.tiles_lost[cur] += 1
        owner[site] = w
        left[w] -= 1
        self.st.tally.tiles_placed[w] += 1
        if self.log:
            self.log(f"  {what}: seat {w} places a tile on {self.cfg.site_names[site]}"
                     + (f" (seat {cur}'s tile returns)" if cur >= 0 else ""))

    # -- text for the log only

    def card_text(self, c: int) -> str:
        cfg = self.cfg
        t = CARD_TYPES[cfg.card_type[c]]
        if cfg.card_type[c] == GODDESS:
            return f"goddess {cfg.goddess_value}"
        vals = "/".join(str(v) for v in cfg.card_val[c])
        return f"{t} ({vals}){' [own]' if cfg.card_owner[c] >= 0 else ''}"
