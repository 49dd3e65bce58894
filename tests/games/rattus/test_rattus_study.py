"""Rattus's own report sections per start position (analyzer/games/rattus/study.py), how often
the Sultan and the Trader are taken and used (docs/rules/rattus.md §7 A, §2.2, §2.3), their key
finding, and the default study's players (scenarios/africanus-sultan.toml)."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from analyzer import api, stats
from analyzer.games.rattus import findings as rattus_findings
from analyzer.games.rattus import study
from analyzer.report.document import Doc
from analyzer.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[3]

# takes of the Sultan per game (rows) and start position (columns): the start player takes it
# 2, 1 and 3 times, the last position 0, 1 and 0 times
TAKES = [[2, 1, 0, 0], [1, 0, 0, 1], [3, 0, 1, 0]]
PLACED = [[4, 1, 0, 0], [2, 0, 0, 0], [5, 0, 1, 0]]


def _records(variants=("base",), start_wins=True):
    """Three 4-player games per arm; the start player is seat ``g`` in game ``g``, so seat and
    start position differ. Seat 0 plays ``tuned``, the others ``greedy``. The start player
    scores 4 diplomat points and (``start_wins``) wins; else position 1 wins."""
    game_rows, seat_rows = [], []
    for var in variants:
        cards = "sultan,trader" if var != "without-sultan" else "merchant,trader"
        has = var != "without-sultan"
        for g in range(3):
            game_rows.append({"game_id": g, "variant": var, "n_players": 4, "rounds": 5 + g,
                              "end": "trigger", "winner_seats": "", "rules_version": "t",
                              "class_cards": cards})
            for seat in range(4):
                pos = (seat - g) % 4
                winner = 0 if (start_wins and var == "base") else 1
                seat_rows.append({
                    "game_id": g, "variant": var, "seat": seat, "start_position": pos,
                    "policy": "tuned" if seat == 0 else "greedy",
                    "score": 10.0 + (pos == winner), "rank": 1 if pos == winner else 2,
                    "won": float(pos == winner), "tiebreak": float(-pos),
                    "took_sultan": TAKES[g][pos] if has else 0,
                    "diplomats_placed": PLACED[g][pos] if has else 0,
                    "diplomats_surviving": PLACED[g][pos] if has else 0,
                    "sultan_points": 4 if (has and pos == 0) else 0,
                    "took_trader": int(pos == 1), "caravan_moves": 2 * int(pos == 1),
                })
    return pd.DataFrame(game_rows), pd.DataFrame(seat_rows)


def _t_interval(x):
    x = np.asarray(x, dtype=float)
    half = sps.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean(), x.mean() - half, x.mean() + half


def test_take_use_per_start_position_has_the_known_answer(tmp_path):
    games, seats = _records()
    out = study.take_use_numbers(games, seats, "sultan", "took_sultan", "diplomats_placed",
                                 "base")
    by_pos = {r["start_position"]: r for r in out["by_position"]}
    assert sorted(by_pos) == [0, 1, 2, 3] and out["games"] == 3
    assert by_pos[0]["took_sultan"]["estimate"] == pytest.approx(2.0)  # (2 + 1 + 3) / 3
    assert by_pos[3]["took_sultan"]["estimate"] == pytest.approx(1 / 3)
    assert by_pos[0]["diplomats_placed"]["estimate"] == pytest.approx(11 / 3)
    lo, hi = by_pos[0]["took_sultan"]["lo"], by_pos[0]["took_sultan"]["hi"]
    assert (lo, hi) == pytest.approx(_t_interval([2, 1, 3])[1:])
    # share of games the position took the card at least once: 3 of 3, 1 of 3 (Wilson)
    assert by_pos[0]["took_share"]["estimate"] == 1.0
    assert by_pos[3]["took_share"]["lo"] == pytest.approx(stats.wilson(1, 3).lo)
    # start player − last position, paired within games: 2 − 0, 1 − 1, 3 − 0
    d = out["first_last"]["take"]
    mean, lo, hi = _t_interval([2, 0, 3])
    assert (d["mean"], d["lo"], d["hi"]) == pytest.approx((mean, lo, hi))
    assert d["first"] == pytest.approx(2.0) and d["last"] == pytest.approx(1 / 3)
    assert d["n"] == 3 and d["last_position"] == 3 and d["examples"] == [0, 2]
    assert out["first_last"]["use"]["mean"] == pytest.approx((4 + 2 + 5) / 3)


def test_take_use_per_arm_and_per_policy(tmp_path):
    """Per arm: the table's takes per game (3, 2, 4) and the share of games with one; per
    policy (a mixed arm): per seat per game, seat 0 (``tuned``) took 2, 1, 1 times."""
    games, seats = _records(("base", "without-trader"))
    doc = Doc(tmp_path)
    out = study.take_use_numbers(games, seats, "sultan", "took_sultan", "diplomats_placed",
                                 "base")
    arms = {r["variant"]: r for r in out["by_arm"]}
    assert set(arms) == {"base", "without-trader"}
    assert arms["base"]["took_sultan"]["estimate"] == pytest.approx(3.0)
    assert arms["base"]["took_sultan_share"]["estimate"] == 1.0
    assert arms["base"]["diplomats_placed"]["estimate"] == pytest.approx(13 / 3)
    pol = {(r["variant"], r["policy"], r["column"]): r for r in out["by_policy"]}
    assert pol[("base", "tuned", "took_sultan")]["mean"] == pytest.approx(4 / 3)
    assert pol[("base", "greedy", "took_sultan")]["mean"] == pytest.approx(5 / 9)
    assert pol[("base", "greedy", "took_sultan")]["n"] == 9
    study.take_use_write(doc, out, "diplomats_placed", "diplomats placed", 4)
    tables = [b[1] for b in doc.blocks if b[0] == "table"]
    assert list(tables[0]["start position"]) == ["0 (start player)", "1", "2", "3 (last)"]
    assert "takes per seat per game" in tables[-1].columns


def test_take_use_without_the_columns_is_empty(tmp_path):
    games, seats = _records()
    plain = seats.drop(columns=["took_sultan", "diplomats_placed"])
    assert study.take_use_numbers(games, plain, "sultan", "took_sultan", "diplomats_placed",
                                  "base") == {}


def test_s2_3_sultan_points_are_per_start_position_not_per_seat(tmp_path):
    """The start player (a different seat in each game) always has the 4 diplomat points: per
    start position that is 4 against 0; per seat it would be 4/3 for three seats."""
    games, seats = _records()
    out = study.sultan_numbers(games, seats, players=4)
    means = {r["start_position"]: r["mean"] for r in out["points_mean"]}
    assert means == {0: 4.0, 1: 0.0, 2: 0.0, 3: 0.0}
    assert out["position_column"] == "start_position"
    placed = {r["start_position"]: r["mean"] for r in out["placed_mean"]}
    assert placed[0] == pytest.approx(11 / 3)
    assert out["take_use"]["first_last"]["take"]["mean"] == pytest.approx(5 / 3)


def test_card_out_changes_are_per_start_position(tmp_path):
    """In `base` the start player wins every game, without the Sultan position 1 does: the
    start position's change is −1 in every game, position 1's +1; per seat the changes would be
    a mix. The same in every game is not exact (issue #32 P1): Wilson's bound for 0 of the n
    games over the room a difference of shares has, [−1, −1 + 2 · z²/(n + z²)]."""
    from analyzer import stats

    games, seats = _records(("base", "without-sultan"))
    out = study.sultan_numbers(games, seats, players=4)["sultan_out"]
    won = {r["start_position"]: r for r in out["won_by_position"]}
    u = stats.wilson(0, int(won[0]["n"])).hi
    assert won[0]["diff"] == -1.0 and won[0]["lo"] == -1.0
    assert won[0]["hi"] == pytest.approx(-1.0 + 2 * u)
    assert won[1]["diff"] == 1.0 and won[2]["diff"] == 0.0
    assert out["position_column"] == "start_position"


def test_s2_2_caravan_section_counts_trader_takes_and_moves(tmp_path):
    games, seats = _records()
    for col in ("caravan_cubes_own", "caravan_cubes_given", "caravan_cubes_received"):
        seats[col] = seats["caravan_moves"]
    out = study.caravan_numbers(games, seats, players=4)["take_use"]
    by_pos = {r["start_position"]: r for r in out["by_position"]}
    assert by_pos[1]["took_trader"]["estimate"] == 1.0 and by_pos[0]["took_trader"]["estimate"] == 0.0
    assert by_pos[1]["caravan_moves"]["estimate"] == 2.0
    assert out["first_last"]["take"]["mean"] == 0.0  # neither end position ever took it


def test_first_last_finding_is_a_paired_test_with_its_numbers():
    numbers = {"take_use": {"variant": "base", "first_last": {"take": {
        "mean": 0.12, "lo": 0.09, "hi": 0.16, "n": 2000, "p_value": 1e-9, "significant": True,
        "first": 0.38, "last": 0.26, "last_position": 3, "examples": [0, 2, 4]}}}}
    found = {f.key: f for f in rattus_findings.sultan(numbers, {})}
    f = found["sultan:takes_first_last"]
    assert f.null == 0.0 and f.p_value == 1e-9 and f.games == 2000 and f.examples == (0, 2, 4)
    assert f.sentence() == (
        "In `base` the start player takes the Sultan 0.38 times per game and the last position "
        "(3) 0.26 times: start player − last +0.12 takes [+0.09, +0.16] per game (paired within "
        "the 2000 games with the Sultan in play)")
    trader = {f.key for f in rattus_findings.caravan(numbers, {})}
    assert "trader:takes_first_last" in trader  # the same numbers under the Trader's key
    assert not rattus_findings.sultan({}, {})  # nothing computed, nothing said


def test_default_study_seats_one_tuned_greedy_against_three_greedy():
    """The default study loads; its tuned seat's params_file resolves to the shipped tune."""
    sc = load_scenario(ROOT / "scenarios" / "africanus-sultan.toml")
    tuned = tomllib.loads((ROOT / "scenarios" / "tuned" / "rattus-greedy.toml").read_text())
    assert [arm.name for arm in sc.arms] == ["base", "without-sultan", "without-trader"]
    for arm in sc.arms:  # every arm the same players: the card-out pairs differ in the card only
        assert [s.name for s in arm.seats] == ["greedy-tuned", "greedy", "greedy", "greedy"]
        assert arm.seats[0].policy == "greedy" and dict(arm.seats[0].params) == tuned["params"]
        assert all(not s.params for s in arm.seats[1:])
    cards = {arm.name: arm.rules["class_cards"] for arm in sc.arms}
    assert "sultan" in cards["base"] and "sultan" not in cards["without-sultan"]
    assert "trader" in cards["base"] and "trader" not in cards["without-trader"]
    assert sc.games == 10000 and sc.seat_rotation


def test_default_study_report_shows_takes_and_uses_per_policy(tmp_path):
    res = api.simulate(ROOT / "scenarios" / "africanus-sultan.toml", games=8, jobs=1,
                       out=tmp_path / "run")
    out = json.loads((res.out_dir / "summary.json").read_text())["results"]
    for section, take in (("sultan", "took_sultan"), ("caravan", "took_trader")):
        tu = out[section]["take_use"]
        assert {r["policy"] for r in tu["by_policy"]} == {"greedy", "greedy-tuned"}
        assert len(tu["by_position"]) == 4 and tu["first_last"]["take"]["n"] == 8
        arms = {r["variant"] for r in tu["by_arm"]}
        assert "base" in arms and len(arms) == 2  # the arm without the card has no row
        assert tu["take"] == take
    md = (res.out_dir / "report.md").read_text()
    assert "**Who takes and uses the Sultan.**" in md and "**Who takes and uses the Trader.**" in md


def test_sultan_numbers_count_only_the_games_with_the_card_and_write_says_of_how_many(tmp_path):
    """Class cards drawn per game: the Sultan is out of game 2, so every share is over games 0
    and 1 (the start player's 4 points in both); the text says 2 games of the arm's 3."""
    games, seats = _records()
    games.loc[games["game_id"] == 2, "class_cards"] = "merchant,trader"
    out = study.sultan_numbers(games, seats, players=4)
    assert out["games"] == 2 and out["take_use"]["games"] == 2
    assert {r["start_position"]: r["mean"] for r in out["points_mean"]}[0] == 4.0
    assert out["_per_game"]["write"] == {"players": 4, "games_all": 3}
    doc = Doc(tmp_path)
    study.sultan_write(doc, out, {})
    assert doc.blocks[0] == ("h", "Sultan: diplomat scoring")
    assert ("2 games with the Sultan in play (of 3; the class cards are drawn per game)"
            in doc.blocks[1][1])
    labels = next(b[1] for b in doc.blocks if b[0] == "table")["start position"]
    assert list(labels) == ["0 (start player)", "1", "2", "3 (last)"]
