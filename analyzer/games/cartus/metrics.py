"""What a finished Rattus Cartus game reports: declared columns, then the record builders.

One game record and one seat record per seat, plain scalars only (DESIGN.md §4).
"""

from __future__ import annotations

import functools

from analyzer.games.base import COMMON_GAME_COLUMNS, COMMON_SEAT_COLUMNS
from analyzer.games.cartus.config import DEFAULT_BUILDINGS, DEFAULT_CLASSES, building_set_id
from analyzer.games.cartus.scoring import Outcome
from analyzer.games.cartus.state import State

RULES_VERSION = "cartus-1"

GAME_COLUMNS: dict[str, str] = {
    **COMMON_GAME_COLUMNS,
    "building_set": "string",  # canonical id, see config.building_set_id
    **{f"building_{k}": "string" for k in DEFAULT_CLASSES},  # building(s) of the class, comma-joined
    "nun_total": "int64",
    "deaths": "int64",
}

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


_TRACK_KEYS = tuple(f"score_track_{k}" for k in DEFAULT_CLASSES)
_INFLUENCE_KEYS = tuple(f"influence_{k}" for k in DEFAULT_CLASSES)
_PREMIUM_KEYS = tuple(f"premium_{b}" for b in DEFAULT_BUILDINGS)
_STANDARD_KEYS = tuple(f"standard_{b}" for b in DEFAULT_BUILDINGS)
_CLASS_KEYS = tuple(f"building_{k}" for k in DEFAULT_CLASSES)


@functools.lru_cache(maxsize=1024)
def _building_columns(in_play: tuple[int, ...], copies: int) -> tuple[str, tuple[str, ...]]:
    """``building_set`` and the per-class ``building_<class>`` values of a card selection."""
    used = [DEFAULT_BUILDINGS[c // copies] for c in in_play]
    present = set(used)
    per_class = tuple(",".join(b for b in DEFAULT_BUILDINGS[2 * k: 2 * k + 2] if b in present)
                      for k in range(len(DEFAULT_CLASSES)))
    return building_set_id(used), per_class


def game_record(st: State, out: Outcome) -> dict:
    """The game record (``GAME_COLUMNS``) of a finished game."""
    set_id, per_class = _building_columns(tuple(st.in_play), st.cfg.copies)
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
    rec["deaths"] = sum(1 for a in out.alive if not a)
    return rec


def seat_records(st: State, out: Outcome, policy_names: list[str]) -> list[dict]:
    """One seat record (``SEAT_COLUMNS``) per seat of a finished game."""
    recs = []
    for s in range(st.n):
        tracks = out.tracks[s]
        rec = {
            "seat": s,
            "policy": policy_names[s],
            "score": float(out.scores[s]),
            "rank": out.ranks[s],
            "won": out.won[s],
            "score_tracks": sum(tracks),
        }
        rec.update(zip(_TRACK_KEYS, tracks))
        rec["score_vp_tokens"] = out.vp_score[s]
        rec["score_gold"] = out.gold_score[s]
        rec["score_hand"] = out.hand_score[s]
        rec["rats"] = st.rats[s]
        rec["died"] = 0 if out.alive[s] else 1
        rec.update(zip(_INFLUENCE_KEYS, st.influence[s]))
        rec.update(zip(_PREMIUM_KEYS, st.premium[s]))
        rec.update(zip(_STANDARD_KEYS, st.standard[s]))
        rec["premium_actions"] = sum(st.premium[s])
        rec["standard_actions"] = sum(st.standard[s])
        rec["offclass_cards"] = st.offclass[s]
        rec["rats_gained"] = st.rats_gained[s]
        rec["rats_discarded"] = st.rats_discarded[s]
        recs.append(rec)
    return recs
