"""A cheaper report with the same numbers (issue #37): the record reads keep one footer per
file, the per-game means and seat sets are computed in one grouped pass, and a run can be
rendered as its numbers only (what ``analyzer robustness`` reads of its conditions)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from analyzer import api, report, stats
from analyzer.report import findings, records


def _per_game_means_one_group_at_a_time(rows, metric, by):
    """The definition: each sorted ``by`` group's rows selected by a mask, mean per game."""
    keys = sorted(rows[list(by)].dropna().drop_duplicates().itertuples(index=False, name=None))
    out = {}
    for key in keys:
        mask = np.logical_and.reduce([(rows[c] == k).to_numpy() for c, k in zip(by, key)])
        out[key] = rows.loc[mask, ["game_id", metric]].groupby("game_id")[metric].mean()
    return out


@pytest.mark.parametrize("by", [("seat",), ("policy",), ("seat", "policy"), ("policy", "seat")])
def test_per_game_means_equal_a_mean_per_group_to_the_last_digit(by):
    rng = np.random.default_rng(3)
    n = 3000
    rows = pd.DataFrame({
        "game_id": rng.integers(0, 400, n).astype(np.int32),
        "seat": rng.integers(0, 4, n).astype(np.int32),
        "policy": pd.Categorical(rng.choice(["tuned", "greedy", "random"], n),
                                 categories=["greedy", "random", "tuned"]),
        "won": rng.choice([0.0, 1.0, 0.5, 1 / 3], n),
        "score": rng.normal(50, 20, n)})
    rows.loc[rows.sample(50, random_state=1).index, "policy"] = np.nan  # dropped, as before
    for metric in ("won", "score"):
        want = _per_game_means_one_group_at_a_time(rows, metric, by)
        got = stats._per_game_means(rows, metric, by)
        assert list(got) == list(want)
        for key, series in want.items():
            assert got[key].equals(series), key  # values, index and dtypes
            assert got[key].index.dtype == series.index.dtype


def test_seat_sets_are_equal_exactly_when_the_frozensets_are():
    rng = np.random.default_rng(5)
    for high in (5, 70):  # a bit mask, and the frozenset itself beyond 62 seats
        a = pd.DataFrame({"game_id": rng.integers(0, 300, 900), "seat": rng.integers(0, high, 900)})
        b = a.sample(frac=1.0, random_state=2).reset_index(drop=True)  # same sets, other order
        c = a.copy()
        c.loc[c.index[::7], "seat"] = (c["seat"][::7] + 1) % high  # some sets differ
        def sets(rows):
            return rows.groupby("game_id")["seat"].apply(frozenset)
        for x, y in ((a, b), (a, c)):
            ids = sets(x).index.intersection(sets(y).index)
            want = sets(x).reindex(ids) == sets(y).reindex(ids)
            got = findings._seat_sets(x).reindex(ids) == findings._seat_sets(y).reindex(ids)
            assert (got.to_numpy() == want.to_numpy()).all()
        assert not (findings._seat_sets(a) == findings._seat_sets(c)).all()


def test_a_record_file_replaced_is_read_anew_not_from_the_kept_footer(tmp_path):
    path = tmp_path / "seats.parquet"
    one = pd.DataFrame({"variant": ["base", "x"] * 50, "game_id": np.arange(100),
                        "won": np.linspace(0, 1, 100)})
    one.to_parquet(path, index=False)
    first = records.read_table(path, ("game_id", "won"), ["x"])
    assert first["game_id"].tolist() == list(range(1, 100, 2))
    two = pd.DataFrame({"variant": ["x", "y", "x"] * 40, "game_id": np.arange(120) * 3,
                        "won": np.linspace(1, 0, 120)})
    tmp = tmp_path / "new.parquet"
    two.to_parquet(tmp, index=False)
    os.replace(tmp, path)  # as the report's writers replace a file
    again = records.read_table(path, ("game_id", "won"), ["x"])
    want = two[two["variant"] == "x"].reset_index(drop=True)
    assert again["game_id"].tolist() == want["game_id"].tolist()
    assert (again["won"].to_numpy() == want["won"].to_numpy()).all()


def test_a_numbers_only_render_writes_the_full_renders_numbers_and_no_report(toy_file,
                                                                             tmp_path):
    out = tmp_path / "run"
    api.simulate(toy_file, games=40, jobs=1, out=out)
    full = json.loads((out / "summary.json").read_text())
    per_game = pd.read_parquet(out / "findings.parquet")
    assert (out / "report.md").is_file() and any((out / "charts").glob("*.png"))
    light = report.render(out, full=False)
    for name in ("report.md", "report.html", "charts"):  # an earlier render's: removed
        assert not (out / name).exists(), name
    assert light["results"] == full["results"]
    assert json.loads((out / "summary.json").read_text())["results"] == full["results"]
    assert pd.read_parquet(out / "findings.parquet").equals(per_game)
    report.render(out)  # `analyzer report` on it: the whole report again
    assert (out / "report.html").is_file() and any((out / "charts").glob("*.png"))


@pytest.mark.parametrize(("given", "want"), [(None, "1"), ("3", "3")])
def test_the_command_runs_one_openblas_thread_unless_told_otherwise(given, want):
    """Set before numpy loads (so OpenBLAS and the workers, who inherit it, see it); a user's
    own ``OPENBLAS_NUM_THREADS`` is kept."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = ("import sys, os, analyzer.entry; "
            "print(os.environ['OPENBLAS_NUM_THREADS'], 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [want, "False"]


def _frame(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"variant": np.resize(["base", "x", "y"], rows),
                         "game_id": np.arange(rows), "seat": rng.integers(0, 4, rows),
                         "policy": rng.choice(["greedy", "random"], rows),
                         "won": rng.random(rows), "flag": rng.random(rows) > 0.5,
                         "maybe": np.where(rng.random(rows) > 0.3, 1.0, np.nan)})


def _assert_same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    assert list(a.dtypes) == list(b.dtypes)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_kept_reads_equal_fresh_reads_and_are_copies(tmp_path):
    """Within ``records.keeping`` (a render) each read equals a fresh read — values, dtypes,
    categories — for every variant selection and column pattern, read in any order; changing a
    frame handed out changes no later read."""
    path = tmp_path / "seats.parquet"
    _frame(300, 1).to_parquet(path, index=False)
    asks = [(("game_id", "won"), ["x"]), (("variant", "seat", "policy"), None),
            (("policy", "won", "flag", "maybe"), ["base", "y"]), (("*",), ["y", "base"]),
            (("game_id", "won"), ["x"]), (("policy",), ["x"]), (("maybe", "seat"), None)]
    fresh = [records.read_table(path, p, v) for p, v in asks]
    with records.keeping():
        for (p, v), want in zip(asks, fresh):
            got = records.read_table(path, p, v)
            _assert_same(got, want)
            got.iloc[:, 0] = got.iloc[:, 0].iloc[::-1].to_numpy()  # a caller changes its copy
            got.loc[:, got.columns[-1]] = got[got.columns[-1]].iloc[0]
        for (p, v), want in zip(asks, fresh):
            _assert_same(records.read_table(path, p, v), want)
    assert records._KEPT is None  # dropped when the block ends


def test_kept_reads_never_serve_another_or_a_replaced_file(tmp_path):
    """What a render keeps is keyed by the file itself: another run directory's file of the
    same name is read from its own rows, and a file replaced within the block is read anew."""
    one, two = tmp_path / "a" / "seats.parquet", tmp_path / "b" / "seats.parquet"
    for path, seed in ((one, 1), (two, 2)):
        path.parent.mkdir()
        _frame(200, seed).to_parquet(path, index=False)
    with records.keeping():
        a = records.read_table(one, ("game_id", "won"), ["x"])
        b = records.read_table(two, ("game_id", "won"), ["x"])
        assert not a["won"].equals(b["won"])
        _assert_same(b, pd.read_parquet(two).query("variant == 'x'")[["game_id", "won"]]
                     .reset_index(drop=True).astype({"game_id": "int32"}))
        new = _frame(150, 3)
        tmp = tmp_path / "new.parquet"
        new.to_parquet(tmp, index=False)
        os.replace(tmp, one)
        again = records.read_table(one, ("game_id", "won"), ["x"])
        want = new[new["variant"] == "x"].reset_index(drop=True)
        assert again["won"].tolist() == want["won"].tolist()
        assert again["game_id"].tolist() == want["game_id"].tolist()


def test_kept_reads_stay_within_their_byte_limit(tmp_path):
    """A render keeps at most ``limit`` bytes of decoded columns (the oldest dropped first), and
    the reads stay right when what they need was dropped."""
    path = tmp_path / "seats.parquet"
    _frame(4000, 4).to_parquet(path, index=False)
    want = records.read_table(path, ("won", "game_id"), ["x"])
    with records.keeping(limit=40_000):
        for _ in range(3):
            for pattern in (("won", "game_id"), ("seat",), ("flag", "maybe"), ("policy",)):
                records.read_table(path, pattern, ["base"])
            _assert_same(records.read_table(path, ("won", "game_id"), ["x"]), want)
            assert records._KEPT.size <= 40_000 or len(records._KEPT.columns) == 1


def test_an_arms_per_game_metrics_are_kept_per_table_and_handed_out_as_copies(toy_file,
                                                                               tmp_path):
    """``balance.per_game_of`` equals ``arm_per_game`` of a fresh read; a changed copy does not
    change the next one; another games table is not served the kept frame."""
    from analyzer.report import balance

    out = tmp_path / "run"
    api.simulate(toy_file, games=30, jobs=1, out=out)
    games = records.Table(out / "games.parquet")
    seats = records.Table(out / "seats.parquet")
    ids = balance.seat_numbers(seats)
    want = balance.arm_per_game(games.read(("variant", "game_id", "rounds"), ["base"]),
                                seats.read(balance.BALANCE_SEATS, ["base"]), "base", ids)
    first = balance.per_game_of(games, seats, "base", ids)
    pd.testing.assert_frame_equal(first, want, check_exact=True)
    first["score"] = -1.0
    pd.testing.assert_frame_equal(balance.per_game_of(games, seats, "base", ids), want,
                                  check_exact=True)
    other = records.Table(pd.read_parquet(out / "games.parquet").assign(rounds=99))
    assert (balance.per_game_of(other, seats, "base", ids)["rounds"] == 99).all()
