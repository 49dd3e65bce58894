"""Issue item 7 (the target-precision verdict covers every interval it names) and item 8
(ablation: games where several seats tie as heaviest user are reported apart, with their
share)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from stats_synth import positions_table

from analyzer import stats
from analyzer.report import ablate
from analyzer.report.document import Doc
from analyzer.report.target_precision import target_precision


def test_half_width_covers_start_positions():
    """Seat win rates move less than start-position win rates when the start player moves (a
    seat starts a quarter of the games): the widest interval is a start position's, and the
    stopping rule now sees it."""
    _, seats = positions_table(400, 4, 0.0, np.random.default_rng(1),
                               win_probs=[0.5, 0.2, 0.2, 0.1])
    w_pos = stats.win_rates(seats, ("variant", "start_position"))
    w_seat = stats.win_rates(seats, ("variant", "seat"))
    widest_pos = float(((w_pos["hi"] - w_pos["lo"]) / 2).max())
    assert widest_pos > float(((w_seat["hi"] - w_seat["lo"]) / 2).max())
    assert stats.max_win_rate_half_width(seats) == pytest.approx(widest_pos)


def test_one_policy_variant_has_no_policy_interval_to_cover():
    """With one policy at every seat the by-policy rate is (1 − q)/n by construction and has no
    interval in the report; the rule does not count it."""
    _, seats = positions_table(100, 4, 0.5, np.random.default_rng(2))
    per = [stats.win_rates(seats, ("variant", by)) for by in ("seat", "start_position")]
    want = max(float(((w["hi"] - w["lo"]) / 2).max()) for w in per)
    assert stats.max_win_rate_half_width(seats) == pytest.approx(want)


def test_target_sentence_names_what_it_covers(tmp_path):
    """The verdict is recomputed over the named intervals: a run whose old stopping rule saw
    only seats and policies is not said to have reached the target when a start position's
    interval is wider."""
    _, seats = positions_table(400, 4, 0.0, np.random.default_rng(1),
                               win_probs=[0.5, 0.2, 0.2, 0.1])
    widest = stats.max_win_rate_half_width(seats)
    doc = Doc(tmp_path)
    facts = {"target": widest - 0.001, "games": 400, "half_width": widest - 0.002,
             "reached": True, "steps": [400]}
    out = target_precision(doc, facts, seats)
    text = doc.blocks[-1][1]
    assert "by variant and start position" in text and "**above** the target" in text
    assert out["half_width_report"] == pytest.approx(widest)
    doc = Doc(tmp_path)
    target_precision(doc, {**facts, "target": widest + 0.001}, seats)
    assert "reached after **400 games**" in doc.blocks[-1][1]


def _ablation_records() -> pd.DataFrame:
    """8 three-seat games. Games 0–3: seat 0 alone used the item most; it won with the item
    and lost without (+1 each). Games 4–7: seats 0 and 1 tie as heaviest users; with the item
    seat 0 wins, without it seat 1 wins: the tied pair's average does not move (0)."""
    rows = []
    for var in ("base", "without-x"):
        for g in range(8):
            single = g < 4
            winner = (0 if var == "base" else 2) if single else (0 if var == "base" else 1)
            for s in range(3):
                use = (3 if s == 0 else 1) if single else (2 if s < 2 else 0)
                rows.append({"variant": var, "game_id": g, "seat": s,
                             "won": float(s == winner), "score": float(s == winner),
                             "use": use if var == "base" else 0})
    return pd.DataFrame(rows)


def test_ablation_reports_single_user_games_and_the_tied_share(tmp_path):
    """Known answer: single-heaviest-user value +100 pp (4 games), the tied games add 0 and
    halve the all-games value to +50 pp; tied share 50 %."""
    doc = Doc(tmp_path)
    study = {"items": [{"item": "x", "variant": "without-x", "usage": ["use"]}],
             "correction": "holm"}
    out = ablate.section(doc, {"study": study}, None, _ablation_records(), 3, "card")
    row = out["table"][0]
    assert row["tied_share"] == 0.5 and row["games_single"] == 4 and row["games_used"] == 8
    assert row["value_single"] == pytest.approx(1.0)
    assert row["value"] == pytest.approx(0.5)
    table = next(b[1] for b in doc.blocks if b[0] == "table")
    assert table.iloc[0]["tied games"] == "50.0 %"
    assert "value, single user [pp]" in table.columns
    assert "value, all games (ties split) [pp]" in table.columns
