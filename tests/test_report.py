"""analyzer/report: files of a run directory, re-rendering, study sections, atomic writes."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analyzer import api, report
from analyzer.errors import AnalyzerError
from analyzer.files import atomic_write
from analyzer.games.rattus import study as rattus_study
from analyzer.report import findings, sections
from analyzer.report.document import Doc


@pytest.fixture
def run_dir(toy_file, tmp_path):
    return api.simulate(toy_file, out=tmp_path / "run", jobs=1).out_dir


def test_run_directory_layout(run_dir):
    names = {p.name for p in run_dir.iterdir()}
    # findings.parquet: the key findings' per-game values (analyzer robustness pairs them)
    assert set(report.RUN_FILES) | {"charts", "chunks", findings.PER_GAME} == names
    charts = {p.name for p in (run_dir / "charts").iterdir()}
    assert charts == {"answers.png", "win_rate_by_policy.png", "win_rate_by_position.png", "score_histogram.png",
                      "diplomat_points.png", "caravan_bonus.png"}
    assert not [p for p in run_dir.rglob(".*tmp*")]  # no temporary file left behind


def test_report_header_states_run_and_defaults(run_dir):
    md = (run_dir / "report.md").read_text()
    assert "**60 games** per variant" in md and "root seed **42**" in md
    assert "Rules edition: `toy-1`" in md
    # the toy game labels `sides` a default and `cards` rulebook
    defaults = md.split("## Appendix: labelled defaults in use")[1].split("##")[0]
    assert "| sides | 6 | toy rule 1 |" in defaults and "cards" not in defaults


def test_html_is_self_contained(run_dir):
    html = (run_dir / "report.html").read_text()
    assert html.count('src="data:image/png;base64,') == 6  # the Answers' chart too
    assert "http://" not in html and "https://" not in html and "<script src" not in html
    assert html.count("<script>") == 1  # the inline table sorter, nothing loaded


def test_rerender_from_parquet_is_identical(run_dir):
    before = (run_dir / "report.md").read_text()
    summary = json.loads((run_dir / "summary.json").read_text())
    for name in ("report.md", "report.html", "summary.json"):
        if name != "summary.json":
            (run_dir / name).unlink()
    api.render_report(run_dir)
    assert (run_dir / "report.md").read_text() == before
    assert json.loads((run_dir / "summary.json").read_text()) == summary


def test_render_refuses_a_non_run_directory(tmp_path):
    with pytest.raises(AnalyzerError, match="no games.parquet"):
        report.render(tmp_path)


def test_summary_answers_the_study_questions(run_dir):
    res = json.loads((run_dir / "summary.json").read_text())["results"]
    sul, car = res["sultan"], res["caravan"]
    assert set(sul) >= {"points_distribution", "leader_wins", "winner_changed", "sultan_out"}
    assert 0 <= sul["winner_changed"]["estimate"] <= 1
    assert sul["sultan_out"]["won_by_position"]  # the no-sultan variant is compared
    assert {r["who"] for r in car["per_move"]} == {"mover", "opponents"}
    assert car["trader_out"]["won_by_position"]


def _frames():
    """Two 2-seat games by hand: game 0 the diplomat leader (seat 0) wins thanks to 4 points,
    game 1 nobody has diplomats. The caravan moved twice in game 0 only."""
    games = pd.DataFrame({"game_id": [0, 1], "variant": ["base"] * 2, "n_players": [2, 2],
                          "rounds": [3, 4], "end": ["trigger"] * 2, "winner_seats": ["0", "1"],
                          "rules_version": ["t"] * 2, "class_cards": ["sultan,trader"] * 2})
    seats = pd.DataFrame({
        "game_id": [0, 0, 1, 1], "variant": ["base"] * 4, "seat": [0, 1, 0, 1],
        "policy": ["g"] * 4, "score": [10.0, 8.0, 5.0, 6.0], "rank": [1, 2, 2, 1],
        "won": [1.0, 0.0, 0.0, 1.0], "diplomats_surviving": [2, 0, 0, 0],
        "sultan_points": [4, 0, 0, 0], "tiebreak": [0.0] * 4,
        "caravan_moves": [2, 0, 0, 0], "caravan_cubes_own": [2, 0, 0, 0],
        "caravan_cubes_given": [1, 0, 0, 0], "caravan_cubes_received": [0, 1, 0, 0],
        "caravan_cubes_own_surviving": [1, 0, 0, 0], "caravan_cubes_received_surviving": [0, 1, 0, 0],
    })
    return games, seats


def test_sultan_section_numbers(tmp_path):
    games, seats = _frames()
    out = rattus_study.sultan_numbers(games, seats, players=2)
    assert out["leader_wins"]["games"] == 1 and out["leader_wins"]["estimate"] == 1.0
    assert out["leader_wins"]["no_edge"] == 0.5
    assert out["winner_changed"]["changed"] == 1 and out["winner_changed"]["games"] == 2
    assert out["sultan_out"] == {}  # no variant without the Sultan


def test_diplomat_leader_no_edge_share_counts_a_game_nobody_won_as_zero(tmp_path):
    """Seat 0 leads the diplomats in both games; it wins game 0 and nobody wins game 1. Without
    an edge a lone leader wins the game's win share / seats: (1/2 + 0/2) / 2 = 25 %, not 1/2."""
    games, seats = _frames()
    seats.loc[seats["game_id"] == 1, "won"] = 0.0
    seats.loc[(seats["game_id"] == 1) & (seats["seat"] == 0), "diplomats_surviving"] = 1
    out = rattus_study.sultan_numbers(games, seats, players=2)
    assert out["leader_wins"]["games"] == 2 and out["leader_wins"]["estimate"] == 0.5
    assert out["leader_wins"]["no_edge"] == 0.25


def test_caravan_section_numbers(tmp_path):
    games, seats = _frames()
    out = rattus_study.caravan_numbers(games, seats, players=2)
    per_move = {(r["who"], r["stage"]): r["value"] for r in out["per_move"]}
    # 2 moves: 2 own cubes (1 survives), 1 cube given (it survives)
    assert per_move == {("mover", "placed"): 1.0, ("opponents", "placed"): 0.5,
                        ("mover", "surviving"): 0.5, ("opponents", "surviving"): 0.5}
    assert out["survival_own"]["estimate"] == 0.5 and out["survival_given"]["estimate"] == 1.0


def test_generic_report_runs_only_the_game_sections_it_is_given(tmp_path):
    """``all_sections`` runs the generic sections, then the game's own ones in order, each
    under its key; a section that returns ``None`` leaves no key."""
    games, seats = _frames()
    plain = seats[["game_id", "variant", "seat", "policy", "score", "rank", "won"]]
    doc = Doc(tmp_path)
    out = sections.all_sections(doc, games.drop(columns="class_cards"), plain, players=2)
    assert set(out) == {"results", "variants", "balance"}  # balance is generic (2+ variants)
    assert not any(b[0] == "h" and "Sultan" in b[1] for b in doc.blocks)

    calls = []

    def first(games, seats, players, run):
        calls.append(("first", players, run["game"]))
        return {"n": 1}

    def skipped(games, seats, players, run):  # returns None: does not apply here
        calls.append(("skipped", players, run["game"]))

    def write(doc, numbers, run):  # only for a section that applies, with its numbers
        calls.append(("write", numbers, run["game"]))
        doc.h("First")

    from analyzer.report.extension import StudySection

    doc = Doc(tmp_path)
    out = sections.all_sections(doc, games, seats, 2, (StudySection("first", first, write),
                                                       StudySection("skipped", skipped, write)),
                                {"game": "toy"})
    assert calls == [("first", 2, "toy"), ("write", {"n": 1}, "toy"), ("skipped", 2, "toy")]
    assert doc.blocks.count(("h", "First")) == 1
    assert list(out) == ["results", "variants", "balance", "first"] and out["first"] == {"n": 1}


def test_report_of_an_unknown_game_is_the_generic_one(run_dir):
    """A run whose game this installation lacks re-renders without the game's sections, and
    says so."""
    path = run_dir / "summary.json"
    summary = json.loads(path.read_text())
    summary["run"]["game"] = "no-such-game"
    path.write_text(json.dumps(summary))
    out = report.render(run_dir)["results"]
    assert "sultan" not in out and "caravan" not in out and "results" in out
    md = (run_dir / "report.md").read_text()
    assert "The game of this run (no-such-game) is not one of this installation's" in md
    assert "## Sultan" not in md


def test_atomic_write_replaces_whole_file(tmp_path):
    path = tmp_path / "f.txt"
    atomic_write(path, "old")
    atomic_write(path, b"new")
    assert path.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_error_bars_never_negative():
    """A 100 % win rate whose Wilson upper bound rounds just below 1, and a missing interval,
    still give drawable bars (the chart once failed with "'yerr' must not contain negative
    values")."""
    import numpy as np

    from analyzer.report.charts import error_bars

    err = error_bars([1.0, 0.5, 0.2], [0.9, float("nan"), 0.25], [0.9999999999, 0.6, 0.3])
    assert err.shape == (2, 3)
    assert (err >= 0).all()
    np.testing.assert_allclose(err[:, 0], [0.1, 0.0], atol=1e-9)
    np.testing.assert_allclose(err[:, 1], [0.0, 0.1])
    np.testing.assert_allclose(err[:, 2], [0.0, 0.1])  # lo above the estimate: no lower bar


def test_card_sections_count_only_games_with_the_card(tmp_path):
    """Class cards drawn per game (no ``class_cards``): the Sultan and caravan sections take
    their denominators from the games whose ``class_cards`` hold the card."""
    sc = tmp_path / "rand.toml"
    sc.write_text('name = "rand"\ngame = "rattus"\nexpansions = ["africanus"]\nplayers = 5\n'
                  'games = 60\nseed = 7\n[[seats]]\npolicy = "greedy"\n')
    res = api.simulate(sc, games=60, jobs=1, out=tmp_path / "run")
    games = pd.read_parquet(res.out_dir / "games.parquet")
    n_sultan = int(games["class_cards"].map(lambda s: "sultan" in s.split(",")).sum())
    n_trader = int(games["class_cards"].map(lambda s: "trader" in s.split(",")).sum())
    assert 0 < n_sultan < 60 and 0 < n_trader < 60
    out = json.loads((res.out_dir / "summary.json").read_text())["results"]
    assert out["sultan"]["games"] == n_sultan
    assert out["sultan"]["winner_changed"]["games"] == n_sultan
    assert out["caravan"]["games"] == n_trader
    md = (res.out_dir / "report.md").read_text()
    assert f"of {n_sultan} games with the Sultan in play" in md
    assert f"{n_trader} games with the Trader in play" in md
    assert "| cubes go to | stage | cubes per move |" in md


def test_single_arm_report_shows_death_rate_no_winner_and_even_digits(tmp_path):
    """A one-arm Cartus run shows the death rate and the no-winner share in the generic
    results, and every score statistic with the same two decimals."""
    from pathlib import Path

    sc = Path(__file__).resolve().parent.parent / "scenarios" / "cartus-first-game.toml"
    res = api.simulate(sc, games=20, jobs=1, out=tmp_path / "run")
    md = (res.out_dir / "report.md").read_text()
    part = md.split("## Scores and game length")[1].split("\n## ")[0]
    head = next(line for line in part.splitlines() if line.startswith("| variant"))
    assert "| no winner |" in head and "| death rate |" in head
    row = next(line for line in part.splitlines() if line.startswith("| base"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    for cell in cells[1:8]:  # mean, sd, min, p10, p50, p90, max
        assert len(cell.split(".")[1]) == 2, cell
    # wording: games × variants spelled out; no trivial by-policy table when all seats agree
    assert "Played 20 games × 1 variant = 20 games in" in md
    wins = md.split("## Win rates")[1].split("\n## ")[0]
    assert "same policy" in wins and "| policy |" not in wins
    assert not (res.out_dir / "charts" / "win_rate_by_policy.png").exists()


def test_every_table_scrolls_in_its_own_box(run_dir):
    """Readable at 1280 px without a browser: every <table> of the HTML report sits directly in
    a keyboard-scrollable ``div.scroll`` (nothing else in the box), there is one per Markdown
    table, and the page CSS lets the box scroll sideways while the body keeps a max width.
    (tests/test_browser.py checks the same in headless Chromium when one is installed.)"""
    from html.parser import HTMLParser

    class Tables(HTMLParser):
        def __init__(self):
            super().__init__()
            self.stack: list[tuple[str, dict]] = []
            self.parents: list[tuple[str, dict]] = []  # the element around each table

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.parents.append(self.stack[-1] if self.stack else ("", {}))
            self.stack.append((tag, dict(attrs)))

        def handle_endtag(self, tag):
            while self.stack and self.stack.pop()[0] != tag:
                pass

    html = (run_dir / "report.html").read_text()
    md = (run_dir / "report.md").read_text()
    parser = Tables()
    parser.feed(html)
    md_tables = sum(1 for line in md.splitlines() if line.startswith("|---"))
    assert len(parser.parents) == md_tables >= 5
    for tag, attrs in parser.parents:
        assert tag == "div" and attrs.get("class") == "scroll" and attrs.get("tabindex") == "0"
    assert html.count('<div class="scroll" tabindex="0"><table>') == md_tables
    css = html.split("<style>")[1].split("</style>")[0].replace("\n", "")
    box = css.split(".scroll{")[1].split("}")[0]
    assert "overflow:auto" in box and "max-width:100%" in box
    assert "max-width:80rem" in css.split("body{")[1].split("}")[0]


def _card_out_tables(all_use: bool):
    """40 games of 4 seats in `base` (Sultan in play) and `without-sultan`. Seat 0 places
    diplomats in every base game (with ``all_use`` every seat does) and wins it; without the
    Sultan seat 1 wins instead."""
    grows, srows = [], []
    for var, cards in (("base", "knight,sultan"), ("without-sultan", "knight,merchant")):
        for g in range(40):
            grows.append({"variant": var, "game_id": g, "class_cards": cards, "n_players": 4,
                          "rounds": 8})
            for seat in range(4):
                uses = var == "base" and (all_use or seat == 0)
                won = float(seat == (0 if var == "base" else 1))
                srows.append({"variant": var, "game_id": g, "seat": seat, "policy": "p",
                              "start_position": (seat + g) % 4, "won": won,
                              "score": 10 * won, "diplomats_placed": int(uses),
                              "sultan_points": 0})
    return pd.DataFrame(grows), pd.DataFrame(srows)


def test_the_users_of_a_card_are_followed_per_game_and_not_measured_without_a_comparison():
    """Known answer: the user won every base game and none without the Sultan — a change of
    −100 pp per game over the 40 games. When every seat used the card in every game, the users'
    share of the win cannot change: the finding says it is not measurable (not a change of 0)."""
    from analyzer.games.rattus import findings as rattus_findings
    from analyzer.report.records import as_table

    games, seats = (as_table(t) for t in _card_out_tables(all_use=False))
    out = rattus_study._card_out_numbers(games, seats, "sultan", "sultan_points",
                                         "diplomats_placed")
    (u,) = out["users"]
    assert u["games_compared"] == 40 and u["won_with_game"] == 1.0
    assert u["won_diff_game"]["mean"] == -1.0 and u["all_user_games"] == 0
    (f,) = rattus_findings._users({"sultan_out": out}, "sultan_out", "Sultan", {})
    assert f.estimate == -1.0 and f.games == 40 and f.per_game is None  # given by sultan_numbers
    assert out["_per_game"]["users:without-sultan"].tolist() == [-1.0] * 40
    games, seats = (as_table(t) for t in _card_out_tables(all_use=True))
    out = rattus_study._card_out_numbers(games, seats, "sultan", "sultan_points",
                                         "diplomats_placed")
    (f,) = rattus_findings._users({"sultan_out": out}, "sultan_out", "Sultan", {})
    assert not f.measured and "every seat used the Sultan in 100 % of the games with a user (40 of 40)" in f.unmeasurable
