"""analyzer tournament: pool files, the schedule (every entrant in every seat equally often,
every table on the same deals), the run through the runner (jobs, resume, target precision),
its report, the CLI and the API on every game, and bad pools (one line, exit 2, nothing
written)."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
import toygame
from typer.testing import CliRunner

from analyzer import api, runner
from analyzer.cli import app
from analyzer.errors import ScenarioError
from analyzer.games import available_games, get_game
from analyzer.model.base import parameter_fields
from analyzer.study.tournament import (
    ALL_SEATINGS_MAX,
    default_sample,
    load_pool,
    parse_pool,
    pool_toml,
    seat_orders,
    seatings,
    tournament,
)

POOL = """\
name = "toy-ladder"
game = "toy"
players = 3
games = 30
seed = 5

[[entrants]]
policy = "random"

[[entrants]]
name = "weak"
policy = "biased"
params = { boost = 0.2, chance = 0.3 }

[[entrants]]
name = "strong"
policy = "biased"
params = { boost = 1.0, chance = 0.9 }

[[entrants]]
name = "mid"
params_file = "mid.toml"
"""


@pytest.fixture
def pool_file(tmp_path: Path) -> Path:
    (tmp_path / "mid.toml").write_text('policy = "biased"\n[params]\nboost = 0.5\n')
    path = tmp_path / "pool.toml"
    path.write_text(POOL)
    return path


# ------------------------------------------------------------------ schedule


def _seat_counts(tables, n_players):
    """Entrant -> Counter of seats over every table."""
    out: dict[int, Counter] = {}
    for who in tables:
        for seat, e in enumerate(who):
            out.setdefault(e, Counter())[seat] += 1
    return out


@pytest.mark.parametrize("n, players, mode", [
    (4, 3, "rotations"), (5, 4, "rotations"), (4, 4, "all"), (3, 3, "all"), (2, 4, "rotations"),
    (2, 3, "all"), (3, 4, "rotations"), (10, 4, "rotations"), (9, 5, "rotations"),
])
def test_every_entrant_plays_every_seat_equally_often(n, players, mode):
    """Over the whole schedule (full, sampled, or with repeated entrants), each entrant sits in
    each seat the same number of times, and every entrant is in the schedule."""
    tables = [who for s in seatings(n, players, seed=3) for who in seat_orders(s, mode)]
    counts = _seat_counts(tables, players)
    assert set(counts) == set(range(n))
    for e, by_seat in counts.items():
        assert set(by_seat) == set(range(players)), (e, by_seat)
        assert len(set(by_seat.values())) == 1, (e, by_seat)
    totals = {sum(c.values()) for c in counts.values()}
    assert len(totals) == 1, totals


def test_full_and_sampled_seatings():
    assert seatings(4, 3) == list(itertools.combinations(range(4), 3))
    assert seatings(2, 3) == [(0, 0, 1), (0, 1, 1)]  # at least two different entrants
    n, players = 10, 4  # C(10, 4) = 210 > ALL_SEATINGS_MAX: a balanced sample
    assert len(list(itertools.combinations(range(n), players))) > ALL_SEATINGS_MAX
    drawn = seatings(n, players, seed=1)
    assert len(drawn) == default_sample(n, players) == 30
    assert len(set(drawn)) == len(drawn)  # no seating twice
    appearances = Counter(e for s in drawn for e in s)
    assert set(appearances.values()) == {30 * 4 // 10}
    assert drawn == seatings(n, players, seed=1) != seatings(n, players, seed=2)
    assert len(seatings(n, players, sample=7, seed=1)) == 7


def test_seat_orders():
    assert seat_orders((0, 1, 2)) == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    assert len(seat_orders((0, 1, 2, 3), "all")) == 24
    assert seat_orders((0, 0, 1), "all") == [(0, 0, 1), (0, 1, 0), (1, 0, 0)]


def test_tables_play_the_same_deals(pool_file, tmp_path):
    """Every table plays deals 0..n-1 from the pool's seed: the chance-only record (each
    seat's diplomats in the toy game) of deal i is the same at every table."""
    res = tournament(pool_file, out=tmp_path / "run", jobs=1, bootstrap=20)
    games, seats = res.games, res.seats
    assert set(games["seed"]) == {5}
    per_table = games.groupby("variant")["game_id"].apply(lambda s: tuple(sorted(s)))
    assert len(set(per_table)) == 1 and per_table.iloc[0] == tuple(range(10))  # 30 / 3 orders
    chance = seats.pivot_table(index=["game_id", "variant"], columns="seat",
                               values="diplomats_surviving")
    assert (chance.groupby("game_id").nunique() == 1).all().all()
    # rotation is the schedule's, not the runner's: table s00-1 seats the seating rotated by one
    arms = {t["arm"]: t["seats"] for t in res.summary["run"]["study"]["tables"]}
    first = seats[(seats["variant"] == "s00-1") & (seats["game_id"] == 3)].sort_values("seat")
    assert list(first["policy"]) == arms["s00-1"]
    assert len(arms) == 4 * 3  # C(4, 3) seatings x 3 rotations


# ------------------------------------------------------------------ pool files


def test_pool_loads_params_file_and_round_trips(pool_file, tmp_path):
    pool = load_pool(pool_file)
    mid = pool.entrants[3]
    assert (mid.name, mid.policy, dict(mid.params)) == ("mid", "biased", {"boost": 0.5})
    again = tmp_path / "again.toml"
    again.write_text(pool_toml(pool))
    assert load_pool(again).to_dict() == pool.to_dict()


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('name = "weak"', 'name = "random"'),
     r"entrants\[1\].name: 'random' is also entrants\[0\]'s name"),
    (lambda t: t + "\nfoo = 1\n", r"entrants\[3\].foo: unknown key"),  # in the last entrant
    (lambda t: "colour = 1\n" + t, "colour: unknown key"),
    (lambda t: t.replace("boost = 1.0", "boost = 9.0"),
     r"entrants\[2\].params.boost: must be in \[0, 5\] \(got 9.0\)"),
    (lambda t: t.replace('params_file = "mid.toml"', 'params_file = "gone.toml"'),
     r"entrants\[3\].params_file: gone.toml \(read as .*gone.toml\): file not found"),
    (lambda t: t.split("[[entrants]]")[0] + "[[entrants]]\npolicy = \"random\"\n",
     "entrants: give at least two"),
    (lambda t: t.replace("seed = 5", "seed = 5\nseat_orders = \"some\""),
     "seat_orders: must be one of rotations, all"),
    (lambda t: t.replace("seed = 5", "seed = 5\nseatings = 0"), "seatings: must be at least 1"),
    (lambda t: t.replace('policy = "random"', 'policy = "randomly"'),
     r"entrants\[0\]: unknown policy 'randomly'"),
    (lambda t: t.replace("players = 3", "players = 9"), "players"),
    (lambda t: t.replace("[[entrants]]", "[[entrants]", 1), "malformed TOML"),
])
def test_bad_pool_is_one_line_naming_file_and_field(pool_file, tmp_path, edit, message):
    pool_file.write_text(edit(POOL))
    with pytest.raises(ScenarioError) as info:
        load_pool(pool_file)
    text = str(info.value)
    assert "\n" not in text and text.startswith(str(pool_file))
    assert re.search(message, text), text


def test_bad_params_file_of_an_entrant(pool_file, tmp_path):
    for body, message in [('policy = "biased"\n[params]\nbost = 1.0\n',
                           "params.bost: unknown parameter of policy 'biased'"),
                          ('policy = "biased"\n[params]\nchance = 2.0\n',
                           r"params.chance: must be in \[0, 1\] \(got 2.0\)"),
                          ('policy = "biased"\n[params\n', "malformed TOML"),
                          ('policy = "random"\n[params]\n', "for policy 'random', not"),
                          ('game = "other"\npolicy = "biased"\n[params]\n', "for 'other'")]:
        (tmp_path / "mid.toml").write_text(body)
        if "random" in body:  # the seat names its policy: the file must agree
            pool_file.write_text(POOL.replace('params_file = "mid.toml"',
                                              'params_file = "mid.toml"\npolicy = "biased"'))
        with pytest.raises(ScenarioError, match=f"entrants\\[3\\].params_file: mid.toml.*{message}"):
            load_pool(pool_file)


def test_too_many_tables_refused():
    data = {"game": "toy", "players": 4, "name": "x", "seat_orders": "all",
            "entrants": [{"policy": "random", "name": f"r{k}"} for k in range(40)],
            "seatings": 100}
    with pytest.raises(ScenarioError, match="seat_orders: 2400 seat orders to play; at most 2000"):
        parse_pool(data)


def test_bad_pool_writes_nothing_and_exits_2(pool_file, tmp_path):
    pool_file.write_text(POOL.replace("boost = 1.0", "boost = 9.0"))
    out = tmp_path / "never"
    result = CliRunner().invoke(app, ["tournament", str(pool_file), "--out", str(out)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "entrants[2].params.boost: must be in [0, 5]" in lines[0]
    assert not out.exists()
    for args, flag in [(["--games", "0"], "--games"), (["--bootstrap", "-1"], "--bootstrap"),
                       (["--jobs", "0"], "--jobs"), (["--target-ci", "0.7"], "--target-ci")]:
        pool_file.write_text(POOL)
        result = CliRunner().invoke(app, ["tournament", str(pool_file), "--out", str(out), *args])
        assert result.exit_code == 2 and result.stderr.startswith(f"analyzer: error: {flag}:")
        assert not out.exists()


def test_validate_checks_a_pool_and_a_pool_given_to_simulate_is_one_line(pool_file, tmp_path):
    cli = CliRunner()
    ok = cli.invoke(app, ["validate", str(pool_file)])
    assert ok.exit_code == 0 and "ok (tournament pool: toy" in ok.stdout, ok.output
    pool_file.write_text(POOL.replace("boost = 1.0", "boost = 9.0"))
    bad = cli.invoke(app, ["validate", str(pool_file)])
    assert bad.exit_code == 2 and "entrants[2].params.boost: must be in [0, 5]" in bad.stderr
    pool_file.write_text(POOL + '\n[[questions]]\nask = "?"\nfinding = "win_rate:nobody"\n')
    bad = cli.invoke(app, ["validate", str(pool_file)])
    assert bad.exit_code == 2 and "questions[0].finding" in bad.stderr, bad.output
    pool_file.write_text(POOL)
    out = tmp_path / "never"
    wrong = cli.invoke(app, ["simulate", str(pool_file), "--out", str(out)])
    lines = wrong.stderr.strip().splitlines()
    assert wrong.exit_code == 2 and len(lines) == 1 and not out.exists()
    assert "this is a tournament pool: use `analyzer tournament`" in lines[0]
    pool_file.write_text(POOL + '\n[[seats]]\npolicy = "random"\n')  # both kinds at once
    for command in ("validate", "simulate", "tournament"):
        both = cli.invoke(app, [command, str(pool_file)])
        assert both.exit_code == 2 and "not both" in both.stderr, both.output
    shipped = Path(__file__).resolve().parents[1] / "scenarios" / "cartus-building-sets.toml"
    big = cli.invoke(app, ["validate", str(shipped)])
    assert big.exit_code == 0 and "(64 variants)" in big.stdout and len(big.stdout) < 400
    folder = cli.invoke(app, ["validate", str(tmp_path)])
    assert folder.exit_code == 2 and "a directory, not a study file" in folder.stderr


# ------------------------------------------------------------------ runs


def _records(out: Path):
    return (pd.read_parquet(out / "games.parquet"), pd.read_parquet(out / "seats.parquet"))


def test_ratings_find_the_strong_entrant_and_jobs_do_not_matter(pool_file, tmp_path):
    one = tournament(pool_file, out=tmp_path / "one", jobs=1, games=90, bootstrap=50)
    two = tournament(pool_file, out=tmp_path / "two", jobs=2, games=90, bootstrap=50,
                     chunk_size=3)
    for a, b in zip(_records(one.out_dir), _records(two.out_dir)):
        pd.testing.assert_frame_equal(a, b)
    r1 = one.summary["results"]["tournament"]
    assert r1["ratings"] == two.summary["results"]["tournament"]["ratings"]
    assert r1["ratings"][0]["entrant"] == "strong"
    assert r1["deals"] == 30 and r1["games"] == 30 * 12
    text = (one.out_dir / "report.md").read_text()
    for heading in ("## Ratings", "## Head to head", "## Entrants", "## Schedule"):
        assert heading in text
    assert (one.out_dir / "charts" / "ratings.png").is_file()
    assert (one.out_dir / "charts" / "head_to_head.png").is_file()
    assert load_pool(one.out_dir / "pool.toml").to_dict()["entrants"][3]["params"] == {"boost": 0.5}
    # the report re-renders from the records alone, to the same numbers
    before = json.loads((one.out_dir / "summary.json").read_text())["results"]
    api.render_report(one.out_dir)
    assert json.loads((one.out_dir / "summary.json").read_text())["results"] == before


def test_interrupted_and_resumed_equals_uninterrupted(pool_file, tmp_path, monkeypatch):
    full = tmp_path / "full"
    tournament(pool_file, out=full, backend="sequential", chunk_size=2, bootstrap=10)
    cut = tmp_path / "cut"
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [12 * 4 + 5])  # 2 chunks of 2 deals done
    with pytest.raises(runner.RunInterrupted, match="2 of 5 chunks saved"):
        tournament(pool_file, out=cut, backend="sequential", chunk_size=2, bootstrap=10)
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [])
    res = tournament(pool_file, out=cut, backend="sequential", chunk_size=2, bootstrap=10,
                     resume=True)
    assert res.summary["run"]["chunks_resumed"] == 2
    for a, b in zip(_records(cut), _records(full)):
        pd.testing.assert_frame_equal(a, b)


def test_target_ci_stops_on_the_entrants_win_rates(pool_file, tmp_path):
    res = tournament(pool_file, out=tmp_path / "t", jobs=1, games=3000, target_ci=0.08,
                     chunk_size=5, bootstrap=20)
    tc = res.summary["run"]["target_ci"]
    assert tc["reached"] and tc["half_width"] <= 0.08 and tc["games"] < 1000
    assert "Stopping rule: every entrant's win-rate interval" in (res.out_dir / "report.md").read_text()


# ------------------------------------------------------------------ every game: CLI and API


def _game_pool(game: str, tmp_path: Path) -> Path:
    """Every policy of the game as an entrant; a search player with a few iterations (its
    default of hundreds per decision would take minutes)."""
    spec = get_game(game)
    players = spec.bench_table().players

    def entrant(name: str) -> str:
        fields = {f.name for f in parameter_fields(spec.policies[name])}
        params = "params = { iterations = 4 }\n" if "iterations" in fields else ""
        return f'\n[[entrants]]\npolicy = "{name}"\n{params}'

    path = tmp_path / f"{game}-pool.toml"
    entrants = "".join(entrant(p) for p in sorted(spec.policies))
    path.write_text(f'name = "{game}-tiny"\ngame = "{game}"\nplayers = {players}\n'
                    f"games = {players}\nseed = 3\n{entrants}")
    return path


@pytest.mark.parametrize("game", available_games())
def test_cli_and_api_on_every_game(game, tmp_path):
    pool = _game_pool(game, tmp_path)
    result = CliRunner().invoke(app, ["tournament", str(pool), "--out", str(tmp_path / "cli"),
                                      "--bootstrap", "20", "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output + result.stderr
    assert "1. " in result.stdout and "report: " in result.stdout
    # one deal (``games`` = players: one rotation): a bootstrap of it would be intervals of
    # width 0 (``[-0.14, -0.14]`` was printed); the command line and the report say there are
    # none, and why, and how many games to ask for
    no = "Only 1 deal: no intervals"
    assert no in result.stdout and "--games" in result.stdout
    assert result.stdout.startswith("1 deal x ")
    ratings = [line for line in result.stdout.splitlines() if " rating " in line]
    assert ratings and not any("[" in line for line in ratings)
    report = (tmp_path / "cli" / "report.md").read_text()
    assert report.count(no) == 1  # said once, under the Answers
    assert report.index("## Answers") < report.index(no) < report.index("## Key findings")
    assert "No intervals: a single deal has nothing to resample." in report
    assert "**1 deal**" in report
    res = tournament(pool, out=tmp_path / "api", bootstrap=20, jobs=1)
    assert res.summary["results"]["tournament"]["bootstrap"] == 0  # no replicates drawn
    for a, b in zip(_records(tmp_path / "cli"), _records(tmp_path / "api")):
        pd.testing.assert_frame_equal(a, b)
    rows = res.summary["results"]["tournament"]["ratings"]
    assert {r["entrant"] for r in rows} == {e["name"] for e in
                                           load_pool(pool).to_dict()["entrants"]}


@pytest.mark.parametrize("game", available_games())
def test_shipped_ladder_rates_every_policy_of_the_game(game):
    """scenarios/<game>-ladder.toml loads (its tuned greedy from scenarios/tuned/) and has an
    entrant of every policy the game registers, the tuned greedy among them."""
    pool = load_pool(Path(__file__).resolve().parents[1] / "scenarios" / f"{game}-ladder.toml")
    assert pool.game == game and pool.players == get_game(game).bench_table().players
    assert {e.policy for e in pool.entrants} == set(get_game(game).policies)
    tuned = [e for e in pool.entrants if e.name == "greedy-tuned"]
    assert len(tuned) == 1 and tuned[0].policy == "greedy" and tuned[0].params


def test_report_opens_with_key_findings_holm_over_the_listed(pool_file, tmp_path):
    """The tournament report starts with its key findings: the best-rated entrant's rating gap
    to the next with its bootstrap interval, and each entrant's win rate above a fair seat's,
    Holm-corrected over the findings listed; the numbers are the ratings table's."""
    from analyzer.report.tournament import fair_text

    res = tournament(pool_file, out=tmp_path / "t", jobs=1, games=60, bootstrap=100)
    out = res.summary["results"]["tournament"]
    table = {r["entrant"]: r for r in out["ratings"]}
    found = {f["key"]: f for f in out["findings"]["findings"]}
    best, second = out["ratings"][0]["entrant"], out["ratings"][1]["entrant"]
    assert best == "strong"
    gap = found[f"rating_gap:{best}:{second}"]
    assert (gap["estimate"], gap["lo"], gap["hi"]) == (
        table[best]["gap_next"], table[best]["gap_lo"], table[best]["gap_hi"])
    assert gap["estimate"] == pytest.approx(table[best]["rating"] - table[second]["rating"])
    assert gap["lo"] > 0 and gap["holds"] and gap["games"] == out["deals"]
    assert {f"win_rate:{e}" for e in table} <= set(found)
    strong = found["win_rate:strong"]
    assert strong["estimate"] == pytest.approx(table["strong"]["win_rate"] - 1 / 3)
    spread = {k for k in found if k.startswith("quality:skill_spread")}  # figures, untested
    assert spread == {"quality:skill_spread", "quality:skill_spread:rating"}
    tested = {k: f for k, f in found.items() if k not in spread}
    assert out["findings"]["tested"] == 5 == len(tested)
    p = sorted(f["p_value"] for f in tested.values())  # Holm: k-th smallest times (5 − k)
    assert min(tested.values(), key=lambda f: f["p_value"])["p_holm"] == pytest.approx(
        min(1.0, 5 * p[0]))
    text = (res.out_dir / "report.md").read_text()
    assert re.findall(r"^## .*", text, re.MULTILINE)[:2] == ["## Answers", "## Key findings"]
    assert f"`{best}` is the best-rated entrant" in text and "the **deal**" in text
    assert "over the 5 tested findings" in text and "**Holds after Holm**" in text
    assert "a fair seat wins 1/3 = 33.3 % (every game has a winner)" in text
    assert "(1 − q)/3 = 25.0 %, q = 25.0 %" in fair_text(0.25, 3)


def test_a_win_rate_counts_the_seat_games_the_ratings_table_shows(tmp_path):
    """Issue #33: with fewer entrants than seats an entrant holds several seats of a table; its
    win rate is per seat-game, and the finding's counts are the ratings table's (games and
    seat-games), not a seat count beside a game count."""
    pool = tmp_path / "pool.toml"
    head, rest = POOL.split('[[entrants]]\nname = "weak"')
    strong = rest.split('[[entrants]]\nname = "mid"')[0].split("[[entrants]]")[1]
    pool.write_text(f"{head}[[entrants]]{strong}")  # random and strong for 3 seats
    res = tournament(pool, out=tmp_path / "t", jobs=1, games=24, bootstrap=50)
    out = res.summary["results"]["tournament"]
    text = (res.out_dir / "report.md").read_text()
    head = next(line for line in text.splitlines() if line.startswith("| rank"))
    assert head.rstrip(" |").endswith("| games | seat-games")
    for row in out["ratings"]:
        assert row["seat_games"] > row["games"]  # the setting that showed the mismatch
        sentence = next(f["sentence"] for f in out["findings"]["findings"]
                        if f["key"] == f"win_rate:{row['entrant']}")
        counts = [int(n.replace(",", "")) for n in re.findall(r"of its ([\d,]+) seat-games "
                                                              r"\(its seats in the ([\d,]+)",
                                                              sentence)[0]]
        assert counts == [row["seat_games"], row["games"]], sentence
        assert f"| {row['games']} | {row['seat_games']} |" in text


def test_cli_bootstrap_zero_prints_ratings_without_intervals(tmp_path):
    """--bootstrap 0 (allowed: no replicates) printed the ratings with a None interval and
    died with a TypeError traceback after the report was written (break-it trial)."""
    pool = _game_pool(available_games()[0], tmp_path)
    result = CliRunner().invoke(app, ["tournament", str(pool), "--out", str(tmp_path / "run"),
                                      "--bootstrap", "0", "--jobs", "1", "--quiet"])
    assert result.exit_code == 0, result.output + result.stderr
    assert "1. " in result.stdout and "report: " in result.stdout
    assert "None" not in result.stdout


def test_numbers_of_a_two_entrant_pool_by_hand():
    """Four deals of a 2-seat table, `a` first in three: win rates 3/4 and 1/4 against a fair
    seat's 1/2, mean ranks 1.25 and 1.75. The ratings ±d/2 maximise the penalised likelihood
    of "a above b in 3 of 4", 3 log σ(d) + log σ(−d) − d²/(4 s²) (s = ``PRIOR_SD``; log 3
    without the prior): the root of 3 − 4 σ(d) = d / (2 s²); the predicted head-to-head share
    is σ(d). No replicates, so no intervals; four deals are too few."""
    import math

    from scipy.optimize import brentq

    from analyzer.ratings import MIN_DEALS, PRIOR_SD
    from analyzer.report.tournament import numbers

    def sigma(x):
        return 1 / (1 + math.exp(-x))

    d = brentq(lambda x: 3 - 4 * sigma(x) - x / (2 * PRIOR_SD ** 2), 0, math.log(3))

    first = ["a", "a", "a", "b"]
    seats = pd.DataFrame([
        {"variant": "t0", "game_id": g, "seat": (g + (who == "b")) % 2, "policy": who,
         "rank": 1 if who == top else 2, "won": float(who == top)}
        for g, top in enumerate(first) for who in ("a", "b")])
    run = {"study": {"entrants": [{"name": "a"}, {"name": "b"}], "bootstrap": 0}}
    n = numbers(run, seats)
    assert list(n) == ["ratings", "head_to_head", "deals", "skill_spread", "bootstrap", "games",
                       "findings", "reliable", "reliability", "min_deals"]
    assert (n["deals"], n["games"], n["bootstrap"]) == (4, 4, 0)
    records = {r["key"]: r for r in n["findings"]["findings"]}  # ``key_findings``, assessed
    assert sorted(records) == ["quality:skill_spread", "quality:skill_spread:rating",
                               "rating_gap:a:b", "win_rate:a", "win_rate:b"]
    assert records["rating_gap:a:b"]["estimate"] == pytest.approx(d, abs=1e-6)
    assert records["win_rate:a"]["estimate"] == 0.25 and n["findings"]["correction"] == "holm"
    a, b = n["ratings"]
    assert (a["entrant"], a["games"], a["seat_games"]) == ("a", 4, 4)
    assert (a["win_rate"], b["win_rate"], a["fair_share"], a["above_fair"]) == (
        0.75, 0.25, 0.5, 0.25)
    assert (a["mean_rank"], b["mean_rank"]) == (1.25, 1.75)
    assert (a["rating"], b["rating"]) == pytest.approx((d / 2, -d / 2), abs=1e-6)
    assert a["gap_next"] == pytest.approx(d, abs=1e-6) and math.isnan(a["win_lo"])
    h2h = {(r["entrant"], r["opponent"]): r for r in n["head_to_head"]}
    assert h2h["a", "b"]["above"] == 0.75 and h2h["a", "b"]["meetings"] == 4
    assert h2h["a", "b"]["model"] == pytest.approx(sigma(d), abs=1e-6)
    assert n["skill_spread"]["strongest"] == "a" and n["skill_spread"]["win"] == 0.5
    assert not n["reliable"] and n["reliability"].startswith("Only 4 deals")
    assert n["min_deals"] == MIN_DEALS
