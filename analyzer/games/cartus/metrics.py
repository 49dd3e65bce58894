"""What a finished Rattus Cartus game reports: declared columns, then the record builders.

One game record and one seat record per seat, plain scalars only (DESIGN.md §4).
"""

from __future__ import annotations

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


def game_record(st: State, out: Outcome) -> dict:
    """The game record (``GAME_COLUMNS``) of a finished game."""
    cfg = st.cfg
    used = [cfg.building_names[cfg.card_building[c]] for c in st.in_play]
    rec = {
        "n_players": st.n,
        "rounds": st.round,
        "end": "trigger",
        "winner_seats": ",".join(map(str, out.winners)),
        "rules_version": RULES_VERSION,
        "building_set": building_set_id(used),
    }
    present = set(used)
    for k, cname in enumerate(DEFAULT_CLASSES):
        rec[f"building_{cname}"] = ",".join(b for b in DEFAULT_BUILDINGS[2 * k: 2 * k + 2] if b in present)
    rec["nun_total"] = out.nuns
    rec["deaths"] = sum(1 for a in out.alive if not a)
    return rec


def seat_records(st: State, out: Outcome, policy_names: list[str]) -> list[dict]:
    """One seat record (``SEAT_COLUMNS``) per seat of a finished game."""
    recs = []
    for s in range(st.n):
        rec = {
            "seat": s,
            "policy": policy_names[s],
            "score": float(out.scores[s]),
            "rank": out.ranks[s],
            "won": out.won[s],
            "score_tracks": sum(out.tracks[s]),
        }
        for k, cname in enumerate(DEFAULT_CLASSES):
            rec[f"score_track_{cname}"] = out.tracks[s][k]
        rec["score_vp_tokens"] = out.vp_score[s]
        rec["score_gold"] = out.gold_score[s]
        rec["score_hand"] = out.hand_score[s]
        rec["rats"] = st.rats[s]
        rec["died"] = 0 if out.alive[s] else 1
        for k, cname in enumerate(DEFAULT_CLASSES):
            rec[f"influence_{cname}"] = st.influence[s][k]
        for b, bname in enumerate(DEFAULT_BUILDINGS):
            rec[f"premium_{bname}"] = st.premium[s][b]
        for b, bname in enumerate(DEFAULT_BUILDINGS):
            rec[f"standard_{bname}"] = st.standard[s][b]
        rec["premium_actions"] = sum(st.premium[s])
        rec["standard_actions"] = sum(st.standard[s])
        rec["offclass_cards"] = st.offclass[s]
        rec["rats_gained"] = st.rats_gained[s]
        rec["rats_discarded"] = st.rats_discarded[s]
        recs.append(rec)
    return recs
