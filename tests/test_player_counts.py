"""Player count as a study dimension: a variant's ``players``, ``compare`` of scenarios with
other counts and ``sweep --param players=…``; such arms play the same seeds but other games, so
the report compares them on game-level outcomes paired by game seed (analyzer/report/players.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from analyzer import api, stats
from analyzer.errors import OptionError, ScenarioError
from analyzer.report import players
from analyzer.scenario import load_scenario, to_toml
from analyzer.study.compare import compare
from analyzer.study.sweep import parse_param, sweep

ONE_SEAT = """\
name = "toy-counts"
game = "toy"
players = 3
games = 40
seed = 5

[rules]
sides = 6
cards = ["peasant", "sultan", "trader"]

[[seats]]
policy = "random"
"""


def test_a_variant_may_play_another_player_count(write_scenario, tmp_path):
    path = write_scenario(ONE_SEAT + '\n[[variants]]\nname = "two"\nplayers = 2\n', "c.toml")
    sc = load_scenario(path)
    two = sc.arms[1]
    assert two.players == 2 and sc.arm_players(two) == 2 and sc.arm_players(sc.arms[0]) == 3
    assert len(two.seats) == 2  # the one [[seats]] entry fills every seat
    again = tmp_path / "again.toml"
    again.write_text(to_toml(sc))
    assert load_scenario(again).arms == sc.arms
    assert "players = 2" in to_toml(sc)


def test_a_variant_of_another_count_needs_seats_when_the_base_lists_them(toy_file, write_scenario):
    text = toy_file.read_text() + '\n[[variants]]\nname = "two"\nplayers = 2\n'
    with pytest.raises(ScenarioError, match=r"variants\[2\]\.seats: missing: the base lists 3 "
                                            r"seats, so a variant with 2 players needs its own"):
        load_scenario(write_scenario(text, "x.toml"))
    with pytest.raises(ScenarioError, match=r"variants\[0\]\.players: 9 is outside toy's range"):
        load_scenario(write_scenario(ONE_SEAT + '\n[[variants]]\nname = "n"\nplayers = 9\n',
                                     "y.toml"))


def test_unpaired_difference_is_welchs():
    rng = np.random.default_rng(3)
    b, v = rng.normal(0, 1, 50), rng.normal(0.5, 2, 80)
    d = stats.unpaired_difference(b, v)
    se = np.sqrt(b.var(ddof=1) / 50 + v.var(ddof=1) / 80)
    df = se ** 4 / ((b.var(ddof=1) / 50) ** 2 / 49 + (v.var(ddof=1) / 80) ** 2 / 79)
    half = sps.t.ppf(0.975, df) * se
    assert d.mean == pytest.approx(v.mean() - b.mean())
    assert (d.lo, d.hi) == pytest.approx((d.mean - half, d.mean + half))
    assert d.p_value == pytest.approx(2 * sps.t.sf(abs(d.mean) / se, df))
    assert d.n == 50 * 80 // 130


def test_a_run_with_another_count_compares_it_paired_by_seed(write_scenario, tmp_path):
    """The 2-player arm is left out of the seat-level paired sections and compared in the
    player-count section: its start-player advantage change is the paired t over the game ids
    both arms share (game i of both is dealt from seed i); it replays from the run's
    scenario.toml as a 2-player game; a key finding names it and its pairing."""
    path = write_scenario(ONE_SEAT + '\n[[variants]]\nname = "two"\nplayers = 2\n'
                          '\n[[variants]]\nname = "six"\nrules = { sides = 4 }\n', "c.toml")
    res = api.simulate(path, jobs=1, out=tmp_path / "run")
    out = res.summary["results"]
    assert {r["variant"] for r in out["balance"]["vs_base"]} == {"six"}  # paired arms only
    assert {r["variant"] for r in out["variants"]["score_all"]} == {"six"}
    section = out["players"]
    assert {a["variant"]: a["players"] for a in section["arms"]} == {"base": 3, "two": 2, "six": 3}
    adv = next(r for r in section["vs_base"] if r["metric"] == "start_adv")
    seats = res.seats

    def per_game(var):
        s = seats[seats["variant"] == var]
        return stats.start_player_games(s)["advantage"]

    both = pd.concat([per_game("base").rename("b"), per_game("two").rename("t")], axis=1,
                     join="inner")
    d = stats.paired_difference(both["b"].to_numpy(), both["t"].to_numpy())
    assert adv["test"] == "paired" and adv["n"] == len(both)
    assert (adv["diff"], adv["lo"], adv["hi"]) == pytest.approx((d.mean, d.lo, d.hi))
    md = (res.out_dir / "report.md").read_text()
    assert "## Player counts: game-level outcomes side by side" in md
    assert "**paired by seed**" in md
    found = {f["key"]: f for f in out["findings"]["findings"]}
    assert {"players:start_adv:two", "players:score:two", "score:six"} <= set(found)
    assert "paired by game seed" in found["players:start_adv:two"]["sentence"]
    _, seat_records = api.replay_scenario(res.out_dir / "scenario.toml", 3, "two",
                                               log=lambda line: None)
    assert len(seat_records) == 2
    recorded = seats[(seats["variant"] == "two") & (seats["game_id"] == 3)]
    assert sorted(r["score"] for r in seat_records) == sorted(recorded["score"])


def test_pairing_by_seed_has_the_known_standard_error_and_welch_only_without_shared_seeds():
    """Two arms whose per-game outcomes share a seed effect (correlation 0.5, sd 1 each, true
    difference 0.2): the seed-paired interval has the paired standard error
    √((1 + 1 − 2·0.5)/n) = 1/√n, narrower than Welch's √(2/n), and covers the true difference
    about 95 % of the time; arms with no shared game id fall back to Welch."""
    rng = np.random.default_rng(5)
    n, covered, reps = 400, 0, 400
    widths = []
    for _ in range(reps):
        shared = rng.normal(size=n)
        a = np.sqrt(0.5) * shared + np.sqrt(0.5) * rng.normal(size=n)
        b = 0.2 + np.sqrt(0.5) * shared + np.sqrt(0.5) * rng.normal(size=n)
        base = pd.DataFrame({"game_id": np.arange(n), "m": a})
        arm = pd.DataFrame({"game_id": np.arange(n), "m": b})
        d, test = players.seed_difference(base, arm, "m")
        assert test == "paired" and d.n == n
        covered += d.lo <= 0.2 <= d.hi
        widths.append((d.hi - d.lo) / (2 * 1.96))
    assert abs(np.mean(widths) - 1 / np.sqrt(n)) < 0.004
    assert 0.92 <= covered / reps <= 0.98
    other = pd.DataFrame({"game_id": np.arange(n, 2 * n), "m": rng.normal(size=n)})
    d, test = players.seed_difference(base, other, "m")
    w = stats.unpaired_difference(base["m"], other["m"])
    assert test == "welch" and (d.lo, d.hi) == pytest.approx((w.lo, w.hi))


def test_compare_takes_scenarios_of_other_player_counts(write_scenario, tmp_path):
    a = write_scenario(ONE_SEAT, "a.toml")
    b = write_scenario(ONE_SEAT.replace('name = "toy-counts"', 'name = "b"')
                       .replace("players = 3", "players = 4"), "b.toml")
    res = compare([a, b], games=20, jobs=1, out=tmp_path / "cmp")
    assert dict(zip(*np.unique(res.games[["variant", "n_players"]].astype(str).agg(
        "-".join, axis=1), return_counts=True))) == {"b-4": 20, "base-3": 20}
    assert res.summary["results"]["players"]["vs_base"]
    assert "| players |" in (res.out_dir / "report.md").read_text()  # the variants table


def test_sweep_over_the_player_count(write_scenario, toy_file, tmp_path):
    assert parse_param("players=2,4").values == (2, 4)
    with pytest.raises(OptionError, match="players: give whole player counts"):
        parse_param("players=2,x")
    with pytest.raises(OptionError, match="the base seats are not all the same player"):
        sweep(toy_file, ["players=2,3"], games=4, jobs=1, out=tmp_path / "no")
    res = sweep(write_scenario(ONE_SEAT, "s.toml"), ["players=2,3,4"], games=20, jobs=1,
                out=tmp_path / "sw")
    counts = res.games.groupby("variant")["n_players"].first().to_dict()
    assert counts == {"base": 3, "players=2": 2, "players=4": 4}  # players=3 is the base
    assert players.paired_arms(counts) == ["base"]
    out = res.summary["results"]
    assert {r["variant"] for r in out["players"]["vs_base"]} == {"players=2", "players=4"}
    assert {r["variant"] for r in out["studies"]["sweep"]["table"]} == {"base"}


def test_one_player_count_adds_no_section(toy_file, tmp_path):
    res = api.simulate(toy_file, games=10, jobs=1, out=tmp_path / "run")
    assert "players" not in res.summary["results"]
    assert "Player counts" not in (res.out_dir / "report.md").read_text()
    assert players.counts(pd.read_parquet(res.out_dir / "games.parquet")) == {
        "base": 3, "no-sultan": 3, "no-trader": 3}
    assert json.loads((res.out_dir / "summary.json").read_text())["run"]["arms"][0]["players"] == 3


def test_fair_share_sentences_use_each_arms_own_player_count(write_scenario, tmp_path):
    """A compare of a 3- and a 5-player scenario: no sentence gives the base's count as every
    arm's, "(1 − q)/3"; each names n per arm, the first-player table has a players column and
    each arm's own fair share, and the header names both counts."""
    three = ONE_SEAT.replace("players = 3", 'players = 3\nexpansions = ["bonus"]')
    a = write_scenario(three, "a.toml")
    b = write_scenario(three.replace('name = "toy-counts"', 'name = "five"')
                       .replace("players = 3", "players = 5"), "b.toml")
    res = compare([a, b], games=20, jobs=1, out=tmp_path / "cmp")
    md = (res.out_dir / "report.md").read_text()
    assert "(1 − q)/3" not in md and "1/3" not in md
    note = "n = the arm's player count: 3 (`base`), 5 (`five`)"
    assert md.count(note) >= 3  # win rates, turn order, first-player advantage
    assert "3 players in the base, arms of 3 and 5 players" in md
    first = md.split("## First-player advantage")[1].split("\n## ")[0]
    assert "| variant | players | games |" in first
    assert "| base | 3 | 20 |" in first and "| 33.3 % |" in first
    assert "| five | 5 | 20 |" in first and "| 20.0 % |" in first
    rows = res.summary["results"]["studies"]["first_player"]["by_variant"]
    assert {r["variant"]: round(r["fair"], 4) for r in rows} == {"base": 0.3333, "five": 0.2}


def test_fair_share_n():
    assert players.fair_share_n({"base": 4, "x": 4}) == ("4", "")
    n, note = players.fair_share_n({"base": 3, "p2": 2, "p3": 3, "a": 3, "b": 3, "c": 3})
    assert n == "n" and note == ("n = the arm's player count: 2 (`p2`), "
                                 "3 (`base`, `p3`, `a`, `b` …)")


def test_a_player_count_sweep_plays_the_base_count_once_and_charts_every_count(
        write_scenario, tmp_path):
    res = sweep(write_scenario(ONE_SEAT, "s.toml"), ["players=2,3,4"], games=20, jobs=1,
                out=tmp_path / "sw")
    counts = res.games.groupby("variant")["n_players"].first().to_dict()
    assert counts == {"base": 3, "players=2": 2, "players=4": 4}  # players=3 is the base
    study = res.summary["run"]["study"]
    assert {"variant": "base", "values": {"players": 3}} in study["variants"]
    curve = res.summary["results"]["studies"]["sweep"]["players_curve"]
    assert [r["players"] for r in curve] == [2, 3, 4]
    assert all(not math.isnan(r["start_adv"]) for r in curve)
    assert (res.out_dir / "charts" / "sweep_players.png").is_file()
    report = (res.out_dir / "report.md").read_text()
    assert "sweep_players.png" in report and "`players=3`" not in report


def test_numbers_known_answer_paired_by_seed_and_holm_over_the_arms():
    """Three arms of 3, 4 and 5 players on game ids 0–5: the mean score of ``four`` and ``five``
    against ``base``'s is the paired t over the shared game ids (scipy's ``ttest_rel``), Holm
    over the two arms (statsmodels); no-winner shares are Wilson intervals of the counts."""
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    scores = {"base": [3.0, 5.0, 4.0, 6.0, 2.0, 4.0], "four": [4.0, 5.5, 5.0, 6.5, 3.5, 4.0],
              "five": [2.0, 6.0, 4.5, 5.0, 2.5, 5.0]}
    counts_ = {"base": 3, "four": 4, "five": 5}
    per_game = {v: pd.DataFrame({"variant": v, "game_id": range(6), "score": s,
                                 "no_winner": [1.0, 0, 0, 0, 0, 0], "won_0": [0, 1.0, 0, 1, 0, 1],
                                 "won_1": [0, 0, 1.0, 0, 1, 0]}) for v, s in scores.items()}
    out = players.numbers(per_game, counts_)
    assert out["reference"] == "base" and out["correction"] == "holm"
    arms = {r["variant"]: r for r in out["arms"]}
    assert [arms[v]["players"] for v in counts_] == [3, 4, 5]
    assert (arms["four"]["no_winner"], arms["four"]["no_winner_lo"],
            arms["four"]["no_winner_hi"]) == pytest.approx((1 / 6, *proportion_confint(
                1, 6, method="wilson")))
    score = {r["variant"]: r for r in out["vs_base"] if r["metric"] == "score"}
    assert set(score) == {"four", "five"}
    p = {}
    for v in ("four", "five"):
        diff = np.array(scores[v]) - np.array(scores["base"])
        half = sps.t.ppf(0.975, 5) * diff.std(ddof=1) / np.sqrt(6)
        p[v] = sps.ttest_rel(scores[v], scores["base"]).pvalue
        assert score[v]["test"] == "paired" and score[v]["n"] == 6
        assert (score[v]["diff"], score[v]["lo"], score[v]["hi"]) == pytest.approx(
            (diff.mean(), diff.mean() - half, diff.mean() + half))
        assert score[v]["p_value"] == pytest.approx(p[v])
    holm = multipletests([p["four"], p["five"]], method="holm")[1]
    assert [score["four"]["p_adjusted"], score["five"]["p_adjusted"]] == pytest.approx(list(holm))
