"""What a finished Pyramidion game reports: declared columns, a tally, and record builders.

``Tally`` is filled by the engine while the game runs (plain int lists, no objects per move);
``game_record`` / ``seat_records`` turn it and the final state into plain-scalar dicts whose
keys equal ``GAME_COLUMNS`` / ``SEAT_COLUMNS``.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Final

from analyzer.games.pyramidion.config import CARD_TYPES, GOODS
from analyzer.model.base import COMMON_GAME_COLUMNS, COMMON_SEAT_COLUMNS, GuessCounter
from analyzer.model.copying import copy_fields, field_names

RULES_VERSION = "pyramidion-1"

# Per-site figures follow the site table in use (a user ``sites_file`` may rename, add or drop
# sites), so they are not one column per built-in site: ``sites`` names the sites of the game in
# table order (a JSON list) and each ``site_*`` column holds one integer per site in that order,
# comma-joined ("2,1,0,..."); ``study.site_table`` reads them back.
GAME_COLUMNS: dict[str, str] = {
    **COMMON_GAME_COLUMNS,
    "first_to_target": "int64",  # seat whose load first reached target_vp, -1 if none
    "boats_left": "int64",  # boats on display + in the deck at the end
    "sites": "string",  # JSON list of the site names in play, table order
    "site_activations": "string",  # activations per site
    "site_contestants": "string",  # seats playing >= 1 card there, summed over its activations
    "site_revolts": "string",  # revolts per site
}

RULES = "docs/rules/pyramidion.md"
# Labelled defaults counted where they decide something (GameSpec.guesses): each an int64 game
# column, the times in that game a guessed content value or rule decided something. ``default``
# names the rule option, or the content table (``site``, ``revolt_tile``, ``card``: the part of
# the ``rule_values`` names before the dot, as the report groups them), the path rests on.
GUESSES: tuple[GuessCounter, ...] = (
    GuessCounter("acted_site_minimum", "site", "a site's guessed minimum kept the top total of a "
                 "slave-driver, negotiator or merchant step from placing a tile or taking the goods",
                 f"{RULES} §7"),
    GuessCounter("acted_conversion", "site", "the guessed conversion ability (Cairo's) turned 2 goods "
                 "into 1 of another kind", f"{RULES} §7"),
    GuessCounter("acted_revolt_tile", "revolt_tile", "a revolt tile (guessed strength and good) was "
                 "drawn", f"{RULES} §8"),
    GuessCounter("acted_special_effect", "card", "an invented special-card effect was carried out "
                 "(an Executioner's mark, a Thief's or Bandit's good, a Stone dragger's good, a High "
                 "Priest back to the hand)", f"{RULES} §10.2"),
    GuessCounter("acted_philosopher_tie", "philosopher", "the Philosopher token's holder won a tied "
                 "slave-driver, negotiator or merchant step", f"{RULES} §10.2"),
    GuessCounter("acted_tiebreak", "tiebreak", "the most VP at the end was shared and the tie-break "
                 "(boats, goods, a shared win) decided", f"{RULES} §6"),
)
GAME_COLUMNS.update({g.column: "int64" for g in GUESSES})

SEAT_COLUMNS: dict[str, str] = {
    **COMMON_SEAT_COLUMNS,
    "vp": "int64",
    "boats_loaded": "int64",
    "boats_vp": "int64",  # VP from boats (equals vp; kept for the counterfactual studies)
    "goods_left": "int64",
    "goods_merchant": "int64",
    "goods_revolt": "int64",
    "goods_negotiator": "int64",
    "goods_slave_driver": "int64",  # goods supplied by slave-driver tiles while loading (phase 7)
    "goods_phase8": "int64",  # goods from slave-driver tiles in phase 8 (variant good_of_site)
    "goods_special": "int64",  # Thief, Bandit, Stone dragger, Cairo conversion
    "tiles_placed": "int64",
    "tiles_lost": "int64",
    "revolts_won": "int64",
    "cards_lost_revolt": "int64",
    "giza_tiles": "int64",
}
for _t in CARD_TYPES:
    SEAT_COLUMNS[f"cards_played_{_t}"] = "int64"


@dataclass(slots=True)
class Tally:
    """Running counts of one game (per seat lists of length n, per site lists of length n_sites)."""

    n: int
    n_sites: int
    start_order: list[int] = field(default_factory=list)
    goods_merchant: list[int] = field(default_factory=list)
    goods_revolt: list[int] = field(default_factory=list)
    goods_negotiator: list[int] = field(default_factory=list)
    goods_slave_driver: list[int] = field(default_factory=list)
    goods_phase8: list[int] = field(default_factory=list)
    goods_special: list[int] = field(default_factory=list)
    tiles_placed: list[int] = field(default_factory=list)
    tiles_lost: list[int] = field(default_factory=list)
    revolts_won: list[int] = field(default_factory=list)
    cards_lost_revolt: list[int] = field(default_factory=list)
    giza_tiles: list[int] = field(default_factory=list)
    cards_played: list[list[int]] = field(default_factory=list)  # [seat][card type]
    activations: list[int] = field(default_factory=list)
    contestants: list[int] = field(default_factory=list)  # summed over activations
    revolts: list[int] = field(default_factory=list)
    # labelled defaults that decided something (GUESSES, the acted_* game columns)
    acted_site_minimum: int = 0
    acted_conversion: int = 0
    acted_revolt_tile: int = 0
    acted_special_effect: int = 0
    acted_philosopher_tie: int = 0
    acted_tiebreak: int = 0

    def __post_init__(self) -> None:
        if self.activations:  # given (``copy``): keep
            return
        n, s = self.n, self.n_sites
        for name in ("goods_merchant", "goods_revolt", "goods_negotiator", "goods_slave_driver",
                     "goods_phase8", "goods_special", "tiles_placed", "tiles_lost", "revolts_won",
                     "cards_lost_revolt", "giza_tiles"):
            setattr(self, name, [0] * n)
        self.cards_played = [[0] * len(CARD_TYPES) for _ in range(n)]
        self.activations = [0] * s
        self.contestants = [0] * s
        self.revolts = [0] * s

    def copy(self) -> Tally:
        """An independent copy (for ``engine.Game.clone``): every list copied (``copy_fields``)."""
        return copy_fields(self, _TALLY_FIELDS)


_TALLY_FIELDS: Final = field_names(Tally)  # in declaration order: what copy() copies


def game_record(state, tally: Tally, end: str, winners: list[int]) -> dict:
    """The game row (``GAME_COLUMNS``) of a finished game."""
    cfg = state.cfg
    rec = {
        "n_players": state.n,
        "rounds": state.round,
        "end": end,
        "winner_seats": ",".join(str(s) for s in winners),
        "rules_version": RULES_VERSION,
        "first_to_target": state.first_to_target,
        "boats_left": len(state.display) + len(state.boat_deck),
        "sites": json.dumps(list(cfg.site_names)),
        "site_activations": ",".join([str(x) for x in tally.activations]),
        "site_contestants": ",".join([str(x) for x in tally.contestants]),
        "site_revolts": ",".join([str(x) for x in tally.revolts]),
        "acted_site_minimum": tally.acted_site_minimum,
        "acted_conversion": tally.acted_conversion,
        "acted_revolt_tile": tally.acted_revolt_tile,
        "acted_special_effect": tally.acted_special_effect,
        "acted_philosopher_tie": tally.acted_philosopher_tie,
        "acted_tiebreak": tally.acted_tiebreak,
    }
    return rec


def seat_records(state, tally: Tally, policy_names: list[str], ranks: list[int],
                 won: list[float]) -> list[dict]:
    """One row per seat (``SEAT_COLUMNS``); score = VP (rules §6)."""
    out = []
    for p in range(state.n):
        rec = {
            "seat": p,
            "policy": policy_names[p],
            "score": float(state.vp[p]),
            "rank": ranks[p],
            "won": won[p],
            "start_position": tally.start_order.index(p),
            "vp": state.vp[p],
            "boats_loaded": len(state.boats[p]),
            "boats_vp": sum(state.cfg.boat_vp[b] for b in state.boats[p]),
            "goods_left": sum(state.goods[p][k] for k in range(len(GOODS))),
            "goods_merchant": tally.goods_merchant[p],
            "goods_revolt": tally.goods_revolt[p],
            "goods_negotiator": tally.goods_negotiator[p],
            "goods_slave_driver": tally.goods_slave_driver[p],
            "goods_phase8": tally.goods_phase8[p],
            "goods_special": tally.goods_special[p],
            "tiles_placed": tally.tiles_placed[p],
            "tiles_lost": tally.tiles_lost[p],
            "revolts_won": tally.revolts_won[p],
            "cards_lost_revolt": tally.cards_lost_revolt[p],
            "giza_tiles": tally.giza_tiles[p],
        }
        for t, name in enumerate(CARD_TYPES):
            rec[f"cards_played_{name}"] = tally.cards_played[p][t]
        out.append(rec)
    return out
