"""What a finished Rattus Cartus game reports: declared columns, then the record builders.

One game record and one seat record per seat, plain scalars only.
"""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

import functools

from analyzer.games.cartus.config import DEFAULT_BUILDINGS, DEFAULT_CLASSES
from analyzer.games.cartus.scoring import Outcome
from analyzer.games.cartus.state import State
from analyzer.model.base import COMMON_GAME_COLUMNS, COMMON_SEAT_COLUMNS, GuessCounter

RULES_VERSION = "cartus-1"

GAME_COLUMNS: dict[str, str] = {
    **COMMON_GAME_COLUMNS,
    "building_set": "string",  # canonical id, see config.building_set_id
    **{f"building_{k}": "string" for k in DEFAULT_CLASSES},  # building(s) of the class, comma-joined
    "nun_total": "int64",
    "deaths": "int64",
}

RULES = "docs/rules/cartus.md"
# Labelled defaults counted where they decide something (GameSpec.guesses): each an int64 game
# column, the times in that game play went down a rule path that exists only because no source
# says. ``default`` names the rule value (``rule_values``) the path rests on.
GUESSES: tuple[GuessCounter, ...] = (
    GuessCounter("acted_magic_b", "building.magic_b", "an action of the invented 12th building "
                 "`magic_b` was performed (an entrant took Flutes)", f"{RULES} §2"),
    GuessCounter("acted_premium_tie", "tie_mode", "entrants tied for the most cards in a building "
                 "and the tie rule gave out the premium", f"{RULES} §4 phase D b"),
    GuessCounter("acted_pass", "pass_mode", "a Pass was played for a second disc (the Pass's "
                 "effect is guessed)", f"{RULES} §6"),
    GuessCounter("acted_majority_tie", "track_tie", "a tie in a scoring majority (a track, hand "
                 "cards or Gold) was split by the tie rule", f"{RULES} §7.2"),
    GuessCounter("acted_dead_in_majority", "dead_excluded_from_majorities", "a player who died "
                 "of the plague held a paying place in a majority, which the rule on the dead "
                 "decided", f"{RULES} §7.2"),
    GuessCounter("acted_all_dead", "all_dead_result", "every player died of the plague and the "
                 "all-dead rule settled the result", f"{RULES} §7.1"),
)
GAME_COLUMNS.update({g.column: "int64" for g in GUESSES})

SEAT_COLUMNS: dict[str, str] = {
    **COMMON_SEAT_COLUMNS,
    "score_tracks": "int64",
    **{f"score_track_{k}": "int64" for k in DEFAULT_CLASSES},
    "score_vp_tokens": "int64",
    "score_gold": "int64",
    "score_hand": "int64",
    "rats": "int64",  # rats at the end
    "died": "int64",  # 1 = more rats than nuns (rules §7.1)
    **{f"influence_{k}": "int64" for k in DEFAULT_CLASSES},
    **{f"premium_{b}": "int64" for b in DEFAULT_BUILDINGS},  # premium actions taken
    **{f"standard_{b}": "int64" for b in DEFAULT_BUILDINGS},
    "premium_actions": "int64",
    "standard_actions": "int64",
    "offclass_cards": "int64",  # population cards played into a building of another class
    "rats_gained": "int64",  # off-class cards + rats received by Flute
    "rats_discarded": "int64",  # supply icons, Monastery, Hospital (Flute moves not included)
}


_CLASS_KEYS = tuple(f"building_{k}" for k in DEFAULT_CLASSES)
_TRACK_KEYS = tuple(f"score_track_{k}" for k in DEFAULT_CLASSES)
_INFLUENCE_KEYS = tuple(f"influence_{k}" for k in DEFAULT_CLASSES)
_PREMIUM_KEYS = tuple(f"premium_{b}" for b in DEFAULT_BUILDINGS)
_STANDARD_KEYS = tuple(f"standard_{b}" for b in DEFAULT_BUILDINGS)


@functools.lru_cache(maxsize=4096)
def _building_columns(counts: tuple[int, ...]) -> tuple[str, tuple[str, ...]]:
    """``building_set`` and the per-class ``building_<class>`` values of a card selection,
    given the number of cards of each building in play (canonical order; equal to
    ``config.building_set_id`` of the cards' names, ``tests/games/cartus`` checks it)."""
    per_card = sum(counts) > len(counts) - counts.count(0)  # as building_set_id: repeats
    set_id = "+".join(f"{b}*{k}" if per_card and k != 5 else b for b, k in zip(DEFAULT_BUILDINGS, counts) if k)
    per_class = tuple(",".join(b for b, k in zip(DEFAULT_BUILDINGS[2 * c: 2 * c + 2], counts[2 * c: 2 * c + 2]) if k)
                      for c in range(len(DEFAULT_CLASSES)))
    return set_id, per_class


def game_record(st: State, out: Outcome) -> dict:
    """The game record (``GAME_COLUMNS``) of a finished game."""
    counts = [0] * len(DEFAULT_BUILDINGS)
    copies = st.cfg.copies
    for c in st.in_play:
        counts[c // copies] += 1
    set_id, per_class = _building_columns(tuple(counts))
    rec = {
        "n_players": st.n,
        "rounds": st.round,
        "end": "trigger",
        "winner_seats": ",".join(map(str, out.winners)),
        "rules_version": RULES_VERSION,
        "building_set": set_id,
    }
    rec.update(zip(_CLASS_KEYS, per_class))
    rec["nun_total"] = out.nuns
    rec["deaths"] = out.alive.count(False)
    rec["acted_magic_b"] = st.acted_magic_b
    rec["acted_premium_tie"] = st.acted_premium_tie
    rec["acted_pass"] = st.acted_pass
    rec["acted_majority_tie"] = out.majority_ties
    rec["acted_dead_in_majority"] = out.dead_in_majorities
    rec["acted_all_dead"] = 0 if any(out.alive) else 1
    return rec


def seat_records(st: State, out: Outcome, policy_names: list[str]) -> list[dict]:
    """One seat record (``SEAT_COLUMNS``) per seat of a finished game, every column by name."""
    recs = []
    for s in range(st.n):
        tracks, prem, std = out.tracks[s], st.premium[s], st.standard[s]
        rec = {
            "seat": s,
            "policy": policy_names[s],
            "score": float(out.scores[s]),
            "rank": out.ranks[s],
            "won": out.won[s],
            "start_position": (s - st.first_start) % st.n,
            "score_tracks": sum(tracks),
        }
        rec.update(zip(_TRACK_KEYS, tracks, strict=True))
        rec["score_vp_tokens"] = out.vp_score[s]
        rec["score_gold"] = out.gold_score[s]
        rec["score_hand"] = out.hand_score[s]
        rec["rats"] = st.rats[s]
        rec["died"] = 0 if out.alive[s] else 1
        rec.update(zip(_INFLUENCE_KEYS, st.influence[s], strict=True))
        rec.update(zip(_PREMIUM_KEYS, prem, strict=True))
        rec.update(zip(_STANDARD_KEYS, std, strict=True))
        rec["premium_actions"] = sum(prem)
        rec["standard_actions"] = sum(std)
        rec["offclass_cards"] = st.offclass[s]
        rec["rats_gained"] = st.rats_gained[s]
        rec["rats_discarded"] = st.rats_discarded[s]
        recs.append(rec)
    return recs
