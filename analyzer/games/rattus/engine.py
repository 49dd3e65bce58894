"""Rattus rules engine as a forward model: setup, turns, plague move and spread, end, final round,
final plague (docs/rules/rattus.md §6–§10, decision points §15).

``Game`` is a game in progress (``analyzer.model.forward.GameState``): the position and the point
the rules have reached are data (``State``), so a game can be asked for its pending decision,
copied (``clone``) and advanced (``apply``) from any decision. ``apply`` runs the rules, chance
included, until the next decision with at least two options; a decision with a single option is
taken here without asking anyone. The rules are written in continuation style (``core.py``): each
step below runs until it asks a decision and returns, and the handler of that decision kind
resumes it. Class-card abilities are in ``cards.py``, plague resolution in ``plague.py``; what
each seat may see is in ``information.py`` and ``view.py``.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final

import numpy as np
from mypy_extensions import mypyc_attr

from analyzer.errors import IllegalChoice, TurnCapExceeded
from analyzer.games.rattus import cards as _cards
from analyzer.games.rattus import plague
from analyzer.games.rattus.config import (
    CARD_INDEX,
    CARD_NAMES,
    READ_DIPLOMAT_2P_TIE,
    READ_OPENING,
    READ_PLACEMENT,
    RattusConfig,
)
from analyzer.games.rattus.core import GameCore
from analyzer.games.rattus.metrics import build_records, final_scores, log_final_scores
from analyzer.games.rattus.scoring import diplomat_points, region_card_points, tiebreak_keys
from analyzer.games.rattus.state import NOT_IN_PLAY, STARTER_SLOT, UNTAKEN, State
from analyzer.games.rattus.view import RattusView
from analyzer.model.base import rank_and_won, seed_of
from analyzer.model.logtext import plural
from analyzer.model.play import offered

KNIGHT: Final = CARD_INDEX["knight"]
PEASANT: Final = CARD_INDEX["peasant"]
HEURISTIC_SCALE = 2.0  # points: a seat 2 points ahead is e (2.7) times as likely to win (heuristic_returns)
_ABILITY_NAMES: Final = {c: CARD_NAMES[c] for c in _cards.FINAL_ABILITIES}


@mypyc_attr(allow_interpreted_subclasses=True)  # tests and studies force positions by subclassing
class Game(GameCore):
    """One game in progress (the forward model, ``analyzer.model.forward.GameState``).

    Built by ``start``; see ``GameCore`` for the parts. Views of the seats are made on demand
    and kept for the life of this object (``view``).
    """

    __slots__ = ("_views",)

    def __init__(self, cfg: RattusConfig, state: State, rng: random.Random,
                 log: Callable[[str], None] | None = None, seed: int | np.random.SeedSequence = 0):
        super().__init__(cfg, state, rng, log, seed)
        self._views: list[RattusView | None] = [None] * cfg.n_players

    # ------------------------------------------------------------ forward model

    def apply(self, action: Hashable) -> None:
        """Take ``action`` for the deciding seat and run the rules to the next decision (§15).

        Raises
        ------
        IllegalChoice
            ``action`` is not one of ``legal_actions()`` (``forward.offered``: a float or a bool
            never stands for an int), or the game is over.
        TurnCapExceeded
            More than ``max_turns`` regular turns (the message names the seed).
        """
        st = self.state
        if offered(st.options, action) < 0:
            raise IllegalChoice(st.seat if st.kind else -1, st.kind, action, st.options)
        self._resume(action)
        self.settle()

    def settle(self) -> None:
        """Take every pending decision that has a single option (nobody is asked those)."""
        st = self.state
        while st.kind and len(st.options) == 1:
            self._resume(st.options[0])

    def _resume(self, action: Any) -> None:
        """Resume the rule that asked the pending decision with ``action``."""
        st = self.state
        kind, seat = st.kind, st.seat
        st.serial += 1
        if st.narrow:  # not spared: the other value of an option may have changed this pick
            self.cfg.reads[0] |= st.narrow
            st.narrow = 0
        st.kind = ""  # a rule that asks nothing more leaves the game over (or halted)
        if kind == "step":
            self._step_chosen(seat, action)
        elif kind == "place":
            self._place_chosen(seat, action)
        elif kind == "take":
            self.take_card(seat, action)
            self._ask_step()
        elif kind == "plague_move":
            self._plague_move_chosen(seat, action)
        elif kind == "spread":
            self._spread_chosen(seat, action)
        elif kind == "region_card":
            plague.region_card_chosen(self, seat, action)
        elif kind == "opening":
            self._opening_chosen(seat, action)
        elif kind == "final_step":
            self._final_step_chosen(seat, action)
        elif kind == "final_order":
            self._final_order_chosen(action)
        else:
            _cards.CHOSEN[kind](self, seat, action)

    @property
    def narrowing(self) -> int:
        """Nonzero when the other value of a tracked rule option would offer other options at
        the pending decision, fewer or more (``State.narrow``; ``forward.GameState``): then its
        consult bits are set when the decision is taken, unless ``spare`` cleared them."""
        return self.state.narrow

    @property
    def widening(self) -> tuple:
        """The options the other value of a tracked rule option would add to the pending
        decision's (``forward.GameState``), ``()`` when it would add none. The other value
        offers the offered options in the same order with these among them (region order).

        Only ``opening_pairs_distinct_regions`` true widens (§6.1): false would offer the
        seat's first opening region too at its second pair. Read only at a decision that
        ``narrowing`` marks (the play loops' one test per decision).
        """
        st = self.state
        if st.narrow & READ_OPENING and self.cfg.opening_pairs_distinct_regions:
            return (st.opening_first[st.seat],)
        return ()

    def spare(self, among: tuple) -> None:
        """The deciding seat's player declared that its answer was picked among ``among``
        (``forward.Player``, ``pick_among``), and, where the other value would add options
        (``widening``), that its answer would be the same with those offered too
        (``Player.keeps_pick``; ``play.spare_declared`` asks it before this call): the pending
        decision's consult bits (``narrowing``) are cleared when every option of ``among`` is
        offered under the other value too, where the player gives the same answer from the
        other options with the same draws.

        ``placement_mandatory`` false narrows (§7 B): true withholds phase C at a step before
        cubes were placed where placing is possible, and a place decision's regions without
        rats. ``opening_pairs_distinct_regions`` false narrows (§6.1): true withholds the seat's
        first opening region at its second pair; true only widens (every offered region stays).
        An option not offered at all clears nothing (``apply`` refuses it).
        """
        st = self.state
        if not st.narrow:
            return
        kind = st.kind
        for action in among:
            if offered(st.options, action) < 0:
                return
            if kind == "step":
                if action == "plague":  # withheld until cubes are placed
                    return
            elif kind == "place":
                if not st.tokens[action]:  # a region that no cube goes to
                    return
            elif kind == "opening":
                if not self.cfg.opening_pairs_distinct_regions and action == st.opening_first[st.seat]:
                    return  # the first opening region, which true withholds
            else:  # a decision no option narrows: nothing to spare
                return
        st.narrow = 0

    def refresh_options(self, seat: int) -> None:
        """After a redraw for ``seat`` (``determinize``): another seat's pending region-card offer
        or Astronomer/Explorer choice is rebuilt from its redrawn hand or cards (it may then have
        a single option, which ``apply`` accepts)."""
        st = self.state
        if st.seat == seat or not st.kind:
            return
        if st.kind == "region_card":
            st.options = plague.region_card_options(self, st.seat, st.res_region, st.res_token)
        elif st.kind in ("astronomer", "explorer"):
            st.options = tuple(st.drawn)

    def view(self, seat: int) -> RattusView:
        """What ``seat``'s player is given to decide from (one view object per seat and game)."""
        v = self._views[seat]
        if v is None:
            v = self._views[seat] = RattusView(self, seat)
        return v

    def returns(self) -> tuple[float, ...]:
        """Each seat's win share at the end (§10.4, §10.5: the tie-break leaves one winner)."""
        score = final_scores(self.state)[0]
        _, won = rank_and_won(score, [tiebreak_keys(self.cfg.n_players, self.state.last_seat)])
        return tuple(won)

    def heuristic_returns(self, scale: float = HEURISTIC_SCALE) -> tuple[float, ...]:
        """Win shares estimated from the position (for search that stops a playout early).

        Each seat's score is estimated as if the final plague struck now (§10.3, §10.4): every
        region's face-down tokens revealed in their order against its cubes (no region cards),
        then cubes + palace + region-card + diplomat points; shares are a softmax of those
        scores in units of ``scale`` points (the ``ismcts`` parameter ``leaf_scale``). In a
        determinized copy the faces are a draw consistent with the searching seat's view."""
        st, cfg = self.state, self.cfg
        n = cfg.n_players
        unprotected = [0] * n
        rows: list[list[int]] = []
        for r in range(cfg.n_regions):
            row = st.cubes[r]  # never changed: each token's losses make a new row
            for tid in st.tokens[r]:
                token = cfg.tokens[tid]
                if sum(row) >= token[0]:
                    lost = plague.losses(row, st.held_class, token, unprotected, cfg.same_class_cards_stack,
                                         cfg.reads)
                    row = [c - k for c, k in zip(row, lost)]
            rows.append(row)
        discs = [0] * n
        for r in range(cfg.n_regions):
            for p in range(n):
                if st.discs[r][p] and rows[r][p]:
                    discs[p] += 1
        if n == 2 and discs[0] == discs[1] > 0:
            cfg.reads[0] |= READ_DIPLOMAT_2P_TIE
        dp = diplomat_points(discs, n, cfg.diplomat_points)
        rc = (region_card_points(st.hands, rows, cfg.rcard_region, cfg.region_card_points,
                                 cfg.region_card_majority_ties_count, cfg.reads) if cfg.africanus else [0] * n)
        score = [st.palace[p] + rc[p] + dp[p] for p in range(n)]
        for row in rows:  # the same integer sums as region by region, without a generator per seat
            for p in range(n):
                score[p] += row[p]
        top = max(score)
        w = [math.exp((x - top) / scale) for x in score]
        wsum = sum(w)
        return tuple(x / wsum for x in w)

    def records(self, policy_names: Sequence[str]) -> tuple[dict, list[dict]]:
        """The game record and one seat record per seat, at the end (``metrics.build_records``)."""
        return build_records(self.state, list(policy_names))

    # ------------------------------------------------------------ setup (§6)

    def setup(self) -> None:
        """Setup (§6.1, §6.2): cards, starting tokens, supply, plague piece, start player,
        region cards, caravan; then the opening cubes are asked for."""
        cfg, st = self.cfg, self.state
        in_play = cfg.class_cards if cfg.class_cards is not None else self.draw_class_cards()
        for name in in_play:
            st.holder[CARD_INDEX[name]] = UNTAKEN
        starters = list(cfg.starting_tokens)
        self.shuffle(starters)
        nr = cfg.n_regions
        for r in range(nr):
            self.put_token(r, starters[r], STARTER_SLOT)
        supply = starters[nr:] + list(cfg.normal_tokens)
        self.shuffle(supply)
        st.removed_tokens = supply[:cfg.tokens_removed]  # removed unseen (§5.3)
        st.supply_tokens = supply[cfg.tokens_removed:]
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
            log("legend: rat token '5+M+Is' = acts with 5+ cubes in the region; A = every player there loses"
                " a cube, M = whoever has most there loses one, a class = holders of that class card lose one"
                " (Pe Bo Ch Kn Ma Ro Is = peasantry bourgeoisie church chivalry magic royalty islam);"
                " region card 'Anglia:Bo+Is' protects those classes, ? = any class")
            log(f"class cards: {', '.join(in_play)}")
            log(f"regions ({nr}): {', '.join(cfg.region_names)}")
            log(f"start player seat {st.start_seat}; plague piece in {cfg.region_names[st.plague]}"
                + (f"; caravan in {cfg.region_names[st.caravan]}" if cfg.africanus else "")
                + f"; rat supply {len(st.supply_tokens)}")
        st.opening_i = 0
        self._ask_opening()

    def _ask_opening(self) -> None:
        """Ask the next opening pair (§6.1 step 7): first pairs clockwise from the start player,
        second pairs in reverse order, by default in another region than the first. A second
        pair reads ``opening_pairs_distinct_regions`` unless its pick is spared (``spare``)."""
        st, cfg = self.state, self.cfg
        n = cfg.n_players
        i = st.opening_i
        regions = tuple(range(cfg.n_regions))
        if i < n:
            self.ask((st.start_seat + i) % n, "opening", regions)
        elif i < 2 * n:
            p = (st.start_seat + 2 * n - 1 - i) % n
            first = st.opening_first[p]
            opts = tuple(x for x in regions if x != first) if cfg.opening_pairs_distinct_regions else regions
            self.ask(p, "opening", opts)
            # the other value offers the first region too (true: ``widening``) or withholds it
            # (false): read when the pick is not spared (``spare``)
            st.narrow = READ_OPENING
        else:
            st.phase = "regular"
            self.start_turn(st.start_seat)

    def _opening_chosen(self, p: int, r: int) -> None:
        """Place an opening pair of 2 cubes (§6.1 step 7)."""
        st = self.state
        first = st.opening_i < self.cfg.n_players
        if first:
            st.opening_first[p] = r
        self.place_cubes(p, r, 2)
        if self.log is not None:
            self.log(f"  seat {p} {'opens with' if first else 'adds'} 2 cubes in {self.cfg.region_names[r]}")
        st.opening_i += 1
        self._ask_opening()

    # ------------------------------------------------------------ regular turn (§7)

    def _ability_options(self, p: int, used: int, table: dict[int, _cards.Ability]) -> dict[int, tuple]:
        # typed table: the loop runs at every step decision, and untyped it went through
        # generic iteration, comparison and shifts
        holder = self.state.holder
        out: dict[int, tuple] = {}
        for c, ability in table.items():
            if holder[c] == p and not (used >> c) & 1:
                opts = ability[0](self, p)
                if opts:
                    out[c] = opts
        return out

    def start_turn(self, p: int) -> None:
        """Begin seat ``p``'s regular turn (§7): A, B and abilities in any order, each at most
        once, then C.

        Raises
        ------
        TurnCapExceeded
            ``max_turns`` regular turns have already been played.
        """
        st, cfg = self.state, self.cfg
        if st.turns >= cfg.max_turns:
            raise TurnCapExceeded(f"rattus game did not end within {cfg.max_turns} turns; "
                                  f"replay seed {seed_of(self.seed)}")
        st.active = p
        if self.log is not None:
            self.log(f"turn {st.turns + 1} (round {st.turns // cfg.n_players + 1}): seat {p}")
        st.taken = st.placed = False
        st.used = 0
        self._ask_step()

    def _ask_step(self) -> None:
        """Ask the active seat for its next step: take, place, an unused ability, or phase C (§7).

        With the rule option ``placement_mandatory`` (§7 B), phase C is offered only once cubes
        have been placed, when some region would get at least one; the region must then be one
        that gets cubes. Where the two values offer different options the option is read:
        value true sets ``READ_PLACEMENT`` at once, value false when the pick is not spared
        (``State.narrow``, ``spare``)."""
        st, cfg = self.state, self.cfg
        p = st.active
        abil = self._ability_options(p, st.used, _cards.ABILITIES)
        steps: list = []
        if not st.taken and any(h != NOT_IN_PLAY and h != p for h in st.holder):
            steps.append("take")
        if not st.placed:
            steps.append("place")
        steps.extend(_ABILITY_NAMES[c] for c in abil)
        narrow = 0
        if st.placed or not self._can_place(p):
            steps.append("plague")
        elif cfg.placement_mandatory:  # withheld; the default would offer it: a read
            cfg.reads[0] |= READ_PLACEMENT
        else:
            steps.append("plague")
            narrow = READ_PLACEMENT  # the option would withhold it (``spare``)
        self.ask(p, "step", tuple(steps), abil)
        st.narrow = narrow

    def _can_place(self, p: int) -> bool:
        """Whether phase B would put at least one cube of ``p`` somewhere (§7 B, §8.1 Peasant)."""
        st = self.state
        return st.supply_cubes[p] > 0 and (st.holder[PEASANT] == p or any(st.tokens))

    def _step_chosen(self, p: int, step: str) -> None:
        st = self.state
        if step == "plague":
            if not st.placed and self._can_place(p):  # placing is optional (§7 B default)
                st.acted_no_placing += 1
            self.plague_phase(p)
        elif step == "take":
            st.taken = True
            self.ask(p, "take", tuple(c for c, h in enumerate(st.holder) if h != NOT_IN_PLAY and h != p))
        elif step == "place":
            st.placed = True
            cfg = self.cfg
            regions = tuple(range(cfg.n_regions))
            narrow = 0
            if st.holder[PEASANT] != p and self._can_place(p) and not all(st.tokens):
                if cfg.placement_mandatory:  # option: a region that gets cubes
                    regions = tuple(r for r in regions if st.tokens[r])
                    cfg.reads[0] |= READ_PLACEMENT
                else:
                    narrow = READ_PLACEMENT  # the option would leave out the regions without rats
            self.ask(p, "place", regions)
            st.narrow = narrow
        else:
            abil = st.ctx  # the step decision's ability options (still the pending context)
            c = CARD_INDEX[step]
            st.used |= 1 << c
            _cards.ABILITIES[c][1](self, p, abil[c])

    def _place_chosen(self, p: int, r: int) -> None:
        """Phase B (§7 B, §8.1): as many cubes as rats in the region, +1 with the Peasant."""
        st = self.state
        k = len(st.tokens[r]) + (1 if st.holder[PEASANT] == p else 0)
        k = self.place_cubes(p, r, k)
        if self.log is not None:
            self.log(f"  seat {p} places {plural(k, 'cube')} in {self.cfg.region_names[r]}")
        self._ask_step()

    def ability_done(self) -> None:
        """After an ability: the next step of the regular turn, or of the final turn (§7, §10.2)."""
        if self.state.phase == "final_round":
            self._ask_final_step()
        else:
            self._ask_step()

    def plague_phase(self, p: int) -> None:
        """Phase C.1 (§7 C): the plague piece must move to a neighbour (Knight: within reach)."""
        st, cfg = self.state, self.cfg
        src = st.plague
        self.ask(p, "plague_move", cfg.knight_reach[src] if st.holder[KNIGHT] == p else cfg.adj[src])

    def _plague_move_chosen(self, p: int, d: int) -> None:
        """Move the plague piece; with rats there, spread (§7 C.2) then resolve (§7 C.3)."""
        st, cfg = self.state, self.cfg
        src = st.plague
        st.plague = d
        if (cfg.guessed_regions >> d) & 1:  # a stand-in region (§4.3)
            st.acted_africa += 1
        rats = len(st.tokens[d])
        if self.log is not None:
            self.log(f"  seat {p} moves the plague {cfg.region_names[src]} -> {cfg.region_names[d]} "
                     f"({plural(rats, 'rat')}, {plural(sum(st.cubes[d]), 'cube')})")
        if rats == 0:  # Q16: nothing happens
            self.end_turn()
            return
        st.spread_left = cfg.spread_table[min(rats, len(cfg.spread_table) - 1)]
        self._ask_spread()

    def _ask_spread(self) -> None:
        """Phase C.2 (§7 C.2): one new rat at a time into a neighbour with room, while the supply
        lasts; then the plague region is resolved."""
        st, cfg = self.state, self.cfg
        d = st.plague
        if st.spread_left > 0 and st.supply_tokens:
            cap = cfg.rat_cap
            opts = tuple(x for x in cfg.adj[d] if len(st.tokens[x]) < cap)
            if opts:
                self.ask(st.active, "spread", opts)
                return
        st.spread_left = 0
        plague.start_resolve(self, d, st.active)

    def _spread_chosen(self, p: int, x: int) -> None:
        st = self.state
        self.put_token(x, self.draw_token(), 0)
        if self.log is not None:
            self.log(f"    new rat in {self.cfg.region_names[x]}")
        st.spread_left -= 1
        self._ask_spread()

    def region_done(self) -> None:
        """After a plague region: end of the regular turn, or the next region of the final plague."""
        if self.state.phase == "final_plague":
            self._ask_final_order()
        else:
            self.end_turn()

    def end_turn(self) -> None:
        """End check after a regular turn (§10.1), then the next turn or the final round."""
        st, cfg = self.state, self.cfg
        p = st.active
        st.turns += 1
        if not st.supply_tokens or st.supply_cubes[p] == 0:  # §10.1
            st.end, st.trigger_seat, st.last_seat = "trigger", p, p
            if self.log is not None:
                why = "rat supply empty" if not st.supply_tokens else "all cubes on the board"
                self.log(f"end triggered by seat {p}: {why}")
            self.start_final_round()
        elif st.turns >= cfg.max_rounds * cfg.n_players:
            st.end, st.last_seat = "turn_cap", p
            if self.log is not None:
                self.log(f"round cap {cfg.max_rounds} reached; seat {p} had the last turn")
            self.start_final_round()
        else:
            self.start_turn((p + 1) % cfg.n_players)

    # ------------------------------------------------------------ end (§10)

    def start_final_round(self) -> None:
        """Counter-clockwise from the right of L, L excluded: abilities only (§10.2)."""
        st = self.state
        st.phase = "final_round"
        if self.log is not None:
            self.log(f"final round (counter-clockwise, seat {st.last_seat} excluded)")
        st.final_i = 1
        self._start_final_turn()

    def _start_final_turn(self) -> None:
        st = self.state
        n = self.cfg.n_players
        if st.final_i >= n:
            self.start_final_plague()
            return
        p = (st.last_seat - st.final_i) % n
        st.active = p
        st.final_round_turns += 1
        if self.log is not None:
            self.log(f" final turn: seat {p}")
        st.used = 0
        self._ask_final_step()

    def _ask_final_step(self) -> None:
        st = self.state
        p = st.active
        abil = self._ability_options(p, st.used, _cards.FINAL_ABILITIES)
        self.ask(p, "final_step", tuple(_ABILITY_NAMES[c] for c in abil) + ("done",), abil)

    def _final_step_chosen(self, p: int, step: str) -> None:
        st = self.state
        if step == "done":
            st.final_i += 1
            self._start_final_turn()
            return
        abil = st.ctx
        c = CARD_INDEX[step]
        st.used |= 1 << c
        _cards.FINAL_ABILITIES[c][1](self, p, abil[c])

    def start_final_plague(self) -> None:
        """Every region in use, in the order L names one at a time (§10.3); no spread."""
        st = self.state
        st.phase = "final_plague"
        st.active = st.last_seat
        if self.log is not None:
            self.log(f"final plague, order chosen by seat {st.last_seat}")
        self._ask_final_order()

    def _ask_final_order(self) -> None:
        st, cfg = self.state, self.cfg
        todo = tuple([r for r in range(cfg.n_regions) if st.tokens[r] and sum(st.cubes[r])])
        if todo:
            self.ask(st.last_seat, "final_order", todo)
            return
        st.phase = "over"
        st.options = ()
        st.ctx = None
        if self.log is not None:
            log_final_scores(st, self.log)

    def _final_order_chosen(self, r: int) -> None:
        if self.log is not None:
            self.log(f"  final plague in {self.cfg.region_names[r]}")
        plague.start_resolve(self, r, self.state.last_seat)


def start(cfg: RattusConfig, chance: random.Random, seed: int | np.random.SeedSequence,
          log: Callable[[str], None] | None = None) -> Game:
    """A new game after setup, paused at its first decision (docs/rules/rattus.md §6): the
    ``start`` of ``forward.ForwardGame``.

    Parameters
    ----------
    cfg : RattusConfig
    chance : random.Random
        Every chance event of the game is drawn from it (``game_streams`` child 0).
    seed : int or numpy.random.SeedSequence
        The game seed, named in the message of ``TurnCapExceeded``.
    log : callable or None
        Receives the readable replay log line by line.
    """
    game = Game(cfg, State.empty(cfg), chance, log, seed)
    game.setup()
    game.settle()
    return game
