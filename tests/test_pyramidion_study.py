"""The Pyramidion baseline study: scenarios/pyramidion-baseline*.toml and its report section
(analyzer/games/pyramidion/study.py). Hand-built records with exact expected numbers, a planted
effect the goods model must find, and one small end-to-end run of each scenario."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzer import api
from analyzer.games import get_game
from analyzer.games.pyramidion import study as ps
from analyzer.report import sections
from analyzer.report.document import Doc
from analyzer.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = {4: ROOT / "scenarios" / "pyramidion-baseline.toml",
             3: ROOT / "scenarios" / "pyramidion-baseline-3p.toml"}
SOURCE_COLS = [c for c, _ in ps.SOURCES]


def _seats(rows: list[tuple]) -> pd.DataFrame:
    """Seat records from ``(game_id, seat, policy, start_position, won, vp)`` tuples; every
    goods source 0."""
    df = pd.DataFrame(rows, columns=["game_id", "seat", "policy", "start_position", "won", "vp"])
    df.insert(1, "variant", "base")
    for c in SOURCE_COLS:
        df[c] = 0
    return df


def test_start_position_win_rates_and_uniformity_test():
    """Four 2-player games: start position 0 wins three, position 1 one (docs/rules/pyramidion.md §4, §6)."""
    seats = _seats([(g, s, "greedy", (s + g) % 2, float(((s + g) % 2 == 0) ^ (g == 3)), vp)
                    for g in range(4) for s, vp in ((0, 10), (1, 6))])
    t = ps.start_position_table(seats)
    assert t["start_position"].tolist() == [0, 1]
    assert t["rate"].tolist() == [0.75, 0.25] and t["n"].tolist() == [4, 4]
    # chi-square of wins [3, 1] against [2, 2]: statistic 1, one degree of freedom
    assert t["p_equal"].iloc[0] == pytest.approx(math.erfc(math.sqrt(0.5)), rel=1e-9)
    # start position 0 was seat 0 (10 VP) in games 0 and 2 and seat 1 (6 VP) in 1 and 3
    assert t["vp"].tolist() == [8.0, 8.0]


def test_head_to_head_is_paired_by_game():
    """A against B over four games: A wins, A wins, B wins, shared win (1/2 each)."""
    won_a = [1.0, 1.0, 0.0, 0.5]
    seats = _seats([(g, s, pol, s, w if pol == "A" else 1 - w, 0)
                    for g, w in enumerate(won_a) for s, pol in ((0, "A"), (1, "B"))])
    t = ps.head_to_head(seats).set_index("policy")
    assert t.loc["A", "rate"] == 0.625 and t.loc["A", "others"] == 0.375
    assert t.loc["A", "diff"] == pytest.approx(0.25)  # mean of 1, 1, -1, 0
    assert t.loc["B", "diff"] == pytest.approx(-0.25)
    assert t.loc["A", "games"] == 4
    # a single-policy variant has no head-to-head row
    assert ps.head_to_head(seats.assign(policy="A")).empty


def _site_games(sites: list[str], per_game: list[tuple[list[int], list[int], list[int]]]):
    """Game records with the per-site columns of ``metrics.GAME_COLUMNS``: one
    ``(activations, contestants, revolts)`` per game, each one integer per site."""
    return pd.DataFrame({
        "game_id": range(len(per_game)), "variant": "base", "sites": json.dumps(sites),
        **{col: [",".join(map(str, g[j])) for g in per_game]
           for j, col in enumerate(("site_activations", "site_contestants", "site_revolts"))},
    })


def test_site_contest_is_a_ratio_over_activations():
    """Site a: 2 activations with 2 contestants each, then 1 with 3 → 7/3 per activation.
    Site b: 2 activations with 1.5 on average, then never activated → 3/2; a ranks first."""
    games = _site_games(["a", "b"], [([2, 2], [4, 3], [0, 1]), ([1, 0], [3, 0], [1, 0])])
    t = ps.site_contest(games).set_index("site")
    assert t.loc["a", "contest"] == pytest.approx(7 / 3) and t.loc["a", "rank"] == 1
    assert t.loc["b", "contest"] == pytest.approx(1.5) and t.loc["b", "rank"] == 2
    assert t.loc["a", "revolts"] == pytest.approx(1 / 3)
    assert t.loc["b", "revolts"] == pytest.approx(1 / 2)
    assert t.loc["a", "activations"] == 1.5 and t.loc["b", "games_revolt"] == 0.5


def test_s7_site_figures_follow_each_games_site_table():
    """docs/rules/pyramidion.md §7 with user site tables: the records name their sites, so a
    site is read under its own name, whatever table (or order) a game used; a site missing
    from a game's table counts as never activated there."""
    games = pd.concat([_site_games(["Giza", "Waset"], [([2, 1], [3, 2], [1, 0])]),
                       _site_games(["Waset", "Nubia"], [([1, 2], [1, 4], [0, 2])])],
                      ignore_index=True)
    figs = ps.site_figures(games)
    assert list(figs) == ["Giza", "Waset", "Nubia"]
    assert figs["Waset"].tolist() == [[1, 2, 0], [1, 1, 0]]
    assert figs["Giza"].tolist() == [[2, 3, 1], [0, 0, 0]]
    assert figs["Nubia"].tolist() == [[0, 0, 0], [2, 4, 2]]


def _renamed_tables(tmp_path: Path, old: str, new: str) -> dict[str, str]:
    """The built-in site and distribution tables with site ``old`` renamed ``new``."""
    data = ROOT / "analyzer" / "games" / "pyramidion" / "data"
    sites = (data / "sites.toml").read_text().replace(f'name = "{old}"', f'name = "{new}"')
    dist = (data / "distribution.toml").read_text().replace(f'"{old}" =', f'"{new}" =')
    assert new in sites and new in dist
    (tmp_path / "sites.toml").write_text(sites)
    (tmp_path / "distribution.toml").write_text(dist)
    return {"sites_file": str(tmp_path / "sites.toml"),
            "distribution_file": str(tmp_path / "distribution.toml")}


def test_s7_user_site_table_renamed_site_is_reported_under_its_name(tmp_path):
    """docs/rules/pyramidion.md §7: a user ``sites_file`` that renames Thebes to Waset. The
    per-site records, the "most contested sites" table and summary.json show Waset with its
    activations (at 4 players every site is activated every round, §5 phase 5); Thebes is
    gone rather than shown as never activated, and no site silently disappears."""
    rules = _renamed_tables(tmp_path, "Thebes", "Waset")
    scenario = tmp_path / "renamed.toml"
    scenario.write_text('name = "renamed"\ngame = "pyramidion"\nplayers = 4\nseed = 5\n'
                        "[rules]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in rules.items())
                        + '[[seats]]\npolicy = "greedy"\n')
    res = api.simulate(scenario, games=10, jobs=1, out=tmp_path / "run")
    games = pd.read_parquet(res.out_dir / "games.parquet")
    names = json.loads(games["sites"].iloc[0])
    assert "Waset" in names and "Thebes" not in names and len(names) == 8
    out = json.loads((res.out_dir / "summary.json").read_text())["results"]["pyramidion"]
    sites = {r["site"]: r for r in out["sites"]}
    assert set(sites) == set(names)
    assert sites["Waset"]["activations"] >= 1 and sites["Waset"]["contest"] > 0
    md = (res.out_dir / "report.md").read_text()
    table = md.split("## Pyramidion: most contested sites")[1].split("\n## ")[0]
    assert "| Waset |" in table and "Thebes" not in table
    assert all(f"| {n} |" in table for n in names)


def test_goods_by_outcome_compares_winner_with_the_same_games_others():
    """Game 0: winner 4 merchant goods, others 0 and 2; game 1: winner 2, others 2 and 2."""
    seats = _seats([(g, s, "greedy", s, float(s == 0), 0) for g in range(2) for s in range(3)])
    seats["goods_merchant"] = [4, 0, 2, 2, 2, 2]
    seats["goods_revolt"] = [0, 1, 0, 0, 0, 0]
    t = ps.goods_by_outcome(seats).set_index("source")
    assert t.loc["goods_merchant", "winners"] == 3.0
    assert t.loc["goods_merchant", "others"] == 1.5
    assert t.loc["goods_merchant", "diff"] == pytest.approx(1.5)  # mean of +3 and 0
    assert t.loc["goods_revolt", "diff"] == pytest.approx(-0.25)
    assert t.loc["goods_merchant", "share"] == pytest.approx(12 / 13)


def _planted(n_games: int, beta_sd: float, seed: int) -> pd.DataFrame:
    """4-seat games with Poisson goods; the winner is drawn with odds exp(beta_sd · slave-driver
    goods), so only the slave-driver source matters."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(n_games):
        goods = rng.poisson([6, 3, 2, 0.5, 2], size=(4, 5))  # no phase-8 goods (the default)
        w = np.exp(beta_sd * goods[:, 2])
        winner = rng.choice(4, p=w / w.sum())
        for s in range(4):
            rows.append((g, s, "greedy", s, float(s == winner), 0, *goods[s]))
    df = pd.DataFrame(rows, columns=["game_id", "seat", "policy", "start_position", "won", "vp",
                                     "goods_merchant", "goods_negotiator", "goods_slave_driver",
                                     "goods_revolt", "goods_special"])
    df.insert(1, "variant", "base")
    return df


def test_goods_model_finds_a_planted_effect():
    """The conditional logit recovers odds ratio e^0.7 ≈ 2.01 for the one source that decides,
    and odds ratios near 1 for the others."""
    m = ps.goods_win_model(_planted(1500, 0.7, seed=11)).set_index("source")
    sd = m.loc["goods_slave_driver"]
    assert sd["lo"] < math.exp(0.7) < sd["hi"] and sd["lo"] > 1.5
    for src in ("goods_merchant", "goods_negotiator", "goods_special"):
        assert 0.85 < m.loc[src, "odds_ratio"] < 1.15


def test_goods_model_is_empty_when_it_cannot_be_fitted():
    """A source that never varies (or too few games) gives no model rather than a crash; a
    source that gave no goods at all is left out and the others are fitted."""
    seats = _planted(200, 0.7, seed=3)
    assert ps.goods_win_model(seats.assign(goods_revolt=1)).empty
    assert ps.goods_win_model(seats[seats["game_id"] < 10]).empty
    without = ps.goods_win_model(seats.assign(goods_revolt=0))
    assert list(without["source"]) == ["goods_merchant", "goods_negotiator", "goods_slave_driver",
                                       "goods_special"]


def test_s5_phase7_and_phase8_goods_sources_are_labelled_apart():
    """docs/rules/pyramidion.md §5 phases 7 and 8: goods supplied by slave-driver tiles while
    loading and goods from the phase-8 variant good_of_site are two sources with two labels;
    a source that gave no goods (phase 8 under the default) is left out of the goods table."""
    labels = dict(ps.SOURCES)
    assert "phase 7" in labels["goods_slave_driver"] and "8" not in labels["goods_slave_driver"]
    assert "phase 8" in labels["goods_phase8"] and "good_of_site" in labels["goods_phase8"]
    seats = _seats([(g, s, "greedy", s, float(s == 0), 0) for g in range(2) for s in range(2)])
    seats["goods_slave_driver"] = [2, 1, 0, 1]
    t = ps.goods_by_outcome(seats)
    assert list(t["source"]) == ["goods_slave_driver"] and t["share"].tolist() == [1.0]
    seats["goods_phase8"] = [1, 0, 0, 0]
    assert list(ps.goods_by_outcome(seats)["source"]) == ["goods_slave_driver", "goods_phase8"]


def test_section_is_declared_by_the_game_and_not_run_for_others(tmp_path):
    """Pyramidion declares the section in its GameSpec (key ``pyramidion``); the generic report
    runs it only when handed it (another game's records never see it)."""
    assert [(s.key, s.numbers, s.write) for s in get_game("pyramidion").sections()] == [
        ("pyramidion", ps.numbers, ps.write)]
    games = pd.DataFrame({"game_id": [0], "variant": ["base"], "n_players": [2], "rounds": [1],
                          "end": ["trigger"], "winner_seats": ["0"], "rules_version": ["t"]})
    seats = pd.DataFrame({"game_id": [0, 0], "variant": ["base"] * 2, "seat": [0, 1],
                          "policy": ["g", "g"], "score": [2.0, 1.0], "rank": [1, 2],
                          "won": [1.0, 0.0]})
    doc = Doc(tmp_path)
    assert "pyramidion" not in sections.all_sections(doc, games, seats, players=2)
    assert not any(b[0] == "h" and "Pyramidion" in b[1] for b in doc.blocks)


def test_scenarios_cover_three_and_four_players_alike():
    """Two scenario files, one per player count, with the same arms, seats pattern and seed."""
    s4, s3 = (load_scenario(SCENARIOS[n]) for n in (4, 3))
    assert (s4.players, s3.players) == (4, 3) and s4.game == s3.game == "pyramidion"
    assert s4.seed == s3.seed and s4.seat_rotation and s3.seat_rotation
    assert [a.name for a in s4.arms] == [a.name for a in s3.arms] == [
        "base", "greedy-vs-tile-builder", "greedy-vs-random"]
    assert {s.policy for s in s4.arms[0].seats} == {"greedy"}
    for s in (s4, s3):
        assert [x.policy for x in s.arms[1].seats].count("tile-builder") == s.players - 2
        assert [x.policy for x in s.arms[2].seats].count("random") == s.players - 2


@pytest.mark.parametrize("players", [4, 3])
def test_simulate_writes_the_study_report(players, tmp_path):
    """A small real run of each scenario: the report answers the four questions and lists the
    labelled defaults; summary.json holds the study's numbers."""
    res = api.simulate(SCENARIOS[players], games=40, jobs=1, out=tmp_path / "run")
    md = (res.out_dir / "report.md").read_text()
    for head in ("seat balance by start position", "greedy against the named strategies",
                 "most contested sites", "goods sources and winning"):
        assert f"## Pyramidion: {head}" in md
    short = md.split("## Pyramidion baseline: the answers in short")[1].split("\n## ")[0]
    assert "**Seat balance**" in short and "**Most contested sites**" in short
    assert "**Greedy in `greedy-vs-tile-builder`**" in short and "**Goods sources**" in short
    defaults = md.split("## Appendix: labelled defaults in use")[1].split("\n## ")[0]
    # target_vp = 10 is sourced (docs/rules/pyramidion.md §6), so it is not a labelled default
    assert "| max_rounds | 50 |" in defaults and "site.Giza" in defaults and "target_vp" not in defaults
    charts = {p.name for p in (res.out_dir / "charts").iterdir()}
    assert {"pyramidion_start_position.png", "pyramidion_site_contest.png",
            "pyramidion_site_revolts.png", "pyramidion_goods_sources.png"} <= charts
    out = json.loads((res.out_dir / "summary.json").read_text())["results"]["pyramidion"]
    assert len({r["site"] for r in out["sites"]}) == 8
    assert sorted({r["start_position"] for r in out["start_position"]}) == list(range(players))
    assert {r["policy"] for r in out["head_to_head"]} == {"greedy", "tile-builder", "random"}
    # the start-position win shares of a variant add up to one winner per game
    base = [r for r in out["start_position"] if r["variant"] == "base"]
    assert sum(r["wins"] for r in base) == pytest.approx(40)


def test_goods_model_not_estimable_under_separation(tmp_path):
    """A source that decides every winner of a few games (separation) gives no odds ratio and
    no overflow warning; the report says "not estimable" and draws no empty chart."""
    import warnings

    seats = _planted(25, 0.7, seed=5)
    seats["goods_slave_driver"] = seats["goods_slave_driver"] + 100 * (seats["won"] > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ps.goods_win_model(seats).empty
    res = api.simulate(SCENARIOS[3], games=20, jobs=1, out=tmp_path / "run")
    md = (res.out_dir / "report.md").read_text()
    assert "not estimable (too few games)" in md
    assert not (res.out_dir / "charts" / "pyramidion_goods_odds.png").exists()


def test_numbers_of_four_hand_made_games(tmp_path):
    """``numbers`` of four 2-player games, A at seat 0 and B at seat 1, the start player
    alternating (docs/rules/pyramidion.md §4): A wins games 0 and 1, B game 2, nobody game 3.
    Every number is worked out by hand here; ``write`` then phrases them."""
    from scipy import stats as sps
    from statsmodels.stats.proportion import proportion_confint

    seats = _seats([(g, s, "AB"[s], (s + g) % 2, float(w == s), 10 * (w == s))
                    for g, w in enumerate((0, 0, 1, -1)) for s in range(2)])
    seats["goods_merchant"] = [3, 1, 2, 2, 0, 4, 1, 1]
    seats = seats.assign(boats_loaded=1, tiles_placed=0, revolts_won=0)
    games = _site_games(["a"], [([1], [2], [0]), ([2], [3], [1]), ([1], [1], [0]), ([0], [0], [0])])
    games = games.assign(n_players=2, end=["target"] * 3 + ["deck"], first_to_target=[0, 1, -1, -1])
    out = ps.numbers(games, seats, players=2, run={})

    sp = {r["start_position"]: r for r in out["start_position"]}
    # start position 0 won game 0 only, position 1 games 1 and 2
    assert (sp[0]["wins"], sp[1]["wins"]) == (1.0, 2.0)
    assert (sp[0]["lo"], sp[0]["hi"]) == pytest.approx(proportion_confint(1, 4, method="wilson"))
    assert sp[0]["p_equal_adjusted"] == pytest.approx(sps.chi2.sf(1 / 3, 1))  # [1, 2] vs 1.5
    a = next(r for r in out["head_to_head"] if r["policy"] == "A")
    assert (a["rate"], a["others"], a["diff"], a["games"]) == (0.5, 0.25, 0.25, 4)  # +1 +1 −1 0
    prof = {r["policy"]: r for r in out["policy_profile"]}
    assert prof["A"]["vp"] == 5.0 and prof["B"]["goods_merchant"] == 2.0
    (site,) = out["sites"]  # 6 contestants over 4 activations; a revolt in 1 of 4 games
    assert (site["site"], site["contest"], site["activations"], site["games_revolt"]) == (
        "a", 1.5, 1.0, 0.25)
    assert out["ends"]["ends"] == {"target": 3, "deck": 1}
    # the first seat to the target won game 0, not game 1
    assert out["ends"]["first_to_target_games"] == 2
    won = out["ends"]["first_to_target_won"]
    assert (won["lo"], won["hi"]) == pytest.approx(proportion_confint(1, 2, method="wilson"))
    (goods,) = out["goods"]  # winners 3, 2, 4 against 1, 2, 0; game 3 has no winner
    assert (goods["winners"], goods["others"], goods["diff"], goods["share"]) == (3.0, 1.0, 2.0,
                                                                                   1.0)
    assert out["goods_model"] == []  # fewer than 20 games with a clear winner
    # (1 − q)/n: three games of four had a winner, so 3/4 / 2
    assert out["_per_game"]["write"] == {"n": "2", "n_note": "", "fair_share": {"base": 0.375}}
    doc = Doc(tmp_path)
    ps.write(doc, out, {})
    assert doc.blocks[0] == ("h", "Pyramidion baseline: the answers in short")
    assert any(b[0] == "p" and "(1 − q)/2 = 37.5 %" in b[1] for b in doc.blocks)
