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
