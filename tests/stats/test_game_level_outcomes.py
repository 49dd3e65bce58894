"""Issue item 10: with a moving start player and one policy at every seat (or rotating
policies), every seat's win rate is (1 − q)/n by design, so a change that acts on every seat
cannot show in per-seat win rates; the report shows game-level outcomes and says why."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from stats_synth import positions_table

from analyzer import stats
from analyzer.report import balance, design, sections, sweep
from analyzer.report.document import Doc


def _arms(random_start: bool, first_bonus: float = 0.15):
    """Base: a fair game. Variant: a rule that helps the start player by ``first_bonus``
    (an all-seat change: whoever starts gains). Same seeds, one policy at every seat."""
    rng = np.random.default_rng(1)
    g0, s0 = positions_table(600, 4, 0.1, rng, random_start=random_start)
    rng = np.random.default_rng(1)
    p = [0.25 + first_bonus, *([(0.75 - first_bonus) / 3] * 3)]
    g1, s1 = positions_table(600, 4, 0.1, rng, win_probs=p, variant="first+",
                             random_start=random_start)
    return pd.concat([g0, g1], ignore_index=True), pd.concat([s0, s1], ignore_index=True)


def test_designs_from_records():
    _, seats = _arms(True)
    found = design.designs(seats, {"seat_rotation": True})
    assert all(d.start_random and not d.mixed and d.seats_exchangeable for d in found.values())
    _, fixed = _arms(False)
    assert not any(d.seats_exchangeable for d in design.designs(fixed).values())


def test_per_seat_win_rates_cannot_show_an_all_seat_change():
    """The start player gains 15 pp, but each seat starts a quarter of the games: every seat's
    win-rate change is ~0 (|change| < 4 pp), while the start-player advantage moves by ~+15 pp."""
    _games, seats = _arms(True)
    base = seats[seats["variant"] == "base"]
    var = seats[seats["variant"] == "first+"]
    per_seat = stats.pair_differences(base, var, "first+", "won", ("seat",))
    assert (per_seat["diff"].abs() < 0.04).all()
    adv = stats.start_player_advantage(var).mean - stats.start_player_advantage(base).mean
    assert adv == pytest.approx(0.15, abs=0.05)


def test_report_shows_game_level_outcomes_and_says_why(tmp_path):
    games, seats = _arms(True)
    doc = Doc(tmp_path)
    run = {"seat_rotation": True}
    out = sections.variants(doc, seats, run)
    assert out["per_seat_shown"] is False and out["won_by_seat"]  # kept in summary.json
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "cannot show a change that acts on every seat" in text
    assert not any(b[0] == "table" and "seat" in b[1].columns for b in doc.blocks)
    bal = balance.section(doc, games, seats, run)
    diff = pd.DataFrame(bal["vs_base"]).set_index("metric")
    assert diff.loc["start_adv", "significant_adjusted"]
    assert diff.loc["start_adv", "diff"] == pytest.approx(0.15, abs=0.05)
    table = [b[1] for b in doc.blocks if b[0] == "table"][-1]
    assert "start-player advantage" in table.columns
    assert not any(c.startswith("seat ") for c in table.columns)


def test_fixed_start_keeps_the_per_seat_table(tmp_path):
    """With seat 0 always starting, a seat's win rate is its position's: per-seat rates can
    move, so the per-seat table stays."""
    _, seats = _arms(False)
    doc = Doc(tmp_path)
    out = sections.variants(doc, seats, {"seat_rotation": True})
    assert out["per_seat_shown"] is True
    tables = [b[1] for b in doc.blocks if b[0] == "table"]
    assert "win rate change" in tables[0].columns


def test_sweep_of_an_all_seat_parameter_reads_game_level_outcomes(tmp_path):
    games, seats = _arms(True)
    games["variant"] = games["variant"].replace({"first+": "x=1"})
    seats["variant"] = seats["variant"].replace({"first+": "x=1"})
    study = {"params": ["params.x"], "variants": [{"variant": "x=1", "values": {"params.x": 1}}],
             "metric": "won", "correction": "holm"}
    doc = Doc(tmp_path)
    out = sweep.numbers(study, seats, games, {"seat_rotation": True})
    sweep.write(doc, out, study)
    assert out["table"]  # the per-seat numbers stay in summary.json
    rows = pd.DataFrame(out["game_level"])
    adv = rows[(rows["variant"] == "x=1") & (rows["outcome"] == "start_adv")].iloc[0]
    assert adv["significant_adjusted"] and adv["diff"] == pytest.approx(0.15, abs=0.05)
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "read from game-level outcomes" in text
