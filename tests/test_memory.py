"""Flat report memory (analyzer/report/records.py): the report reads a few record columns and one
variant's rows at a time, in compact dtypes — and gets exactly the results it would from the
whole tables as ``pd.read_parquet`` gives them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analyzer import api, report, stats
from analyzer.report import records, summary
from analyzer.report.document import Doc

ROOT = Path(__file__).resolve().parents[1]
# One shipped scenario per study section (a few games each, random players for speed).
STUDIES = [("africanus-sultan.toml", 24), ("cartus-building-sets.toml", 8),
           ("pyramidion-baseline.toml", 24)]


def _random_copy(scenario: str, tmp_path: Path) -> Path:
    """``scenario`` with every seat random; a seat with a ``params_file`` (read next to the
    scenario, so not found from the copy) plays random too under its own name, so a mixed
    table stays mixed."""
    text = (ROOT / "scenarios" / scenario).read_text().replace('policy = "greedy"',
                                                               'policy = "random"')
    text = text.split("[[questions]]")[0]  # its questions name the players replaced here
    path = tmp_path / scenario
    path.write_text(re.sub(r'params_file = "[^"]*"', 'policy = "random"', text))
    return path


def _results_from_whole_tables(out: Path, tmp_path: Path) -> str:
    """The results of ``out``'s report built from the two tables read whole by pandas."""
    run = json.loads((out / "summary.json").read_text())["run"]
    chart_dir = tmp_path / "whole-table-charts"
    chart_dir.mkdir()
    results = report.build(Doc(chart_dir), run, pd.read_parquet(out / "games.parquet"),
                           pd.read_parquet(out / "seats.parquet"))
    return json.dumps(summary._json_safe(results))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("scenario", "games"), STUDIES, ids=[s for s, _ in STUDIES])
def test_column_and_variant_reads_give_the_same_report(scenario, games, tmp_path):
    """A section that misses a column it uses, or a compact dtype that changes a number,
    fails here: the results (and their order) equal those from the whole, plain tables."""
    if not (ROOT / "scenarios" / scenario).exists():
        pytest.skip(f"{scenario} not shipped")
    res = api.simulate(_random_copy(scenario, tmp_path), games=games, jobs=1,
                       out=tmp_path / "run")
    assert json.dumps(res.summary["results"]) == _results_from_whole_tables(res.out_dir, tmp_path)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_ablation_usage_columns_are_read(tmp_path):
    """analyzer ablate follows each building's users through columns (premium_*, standard_*)
    named in the study facts: they are read, and the numbers equal the whole-table ones."""
    from analyzer.study.ablate import ablate

    res = ablate(_random_copy("cartus-first-game.toml", tmp_path), games=8, jobs=1,
                 out=tmp_path / "ab")
    table = res.summary["results"]["studies"]["ablate"]["table"]
    assert all(r["games_used"] > 0 for r in table)
    assert json.dumps(res.summary["results"]) == _results_from_whole_tables(res.out_dir, tmp_path)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_sweep_metric_column_is_read(tmp_path):
    """analyzer sweep --metric COLUMN: the metric named at run time is read."""
    from analyzer.study.sweep import sweep

    res = sweep(_random_copy("africanus-sultan.toml", tmp_path), ["rules.knight_range=1,2"],
                metric="cubes_placed", games=12, jobs=1, out=tmp_path / "sw")
    assert res.summary["results"]["studies"]["sweep"]["metric"] == "cubes_placed"
    assert json.dumps(res.summary["results"]) == _results_from_whole_tables(res.out_dir, tmp_path)


def test_seat_reads_hold_one_variant_or_a_narrow_column(read_spy, tmp_path):
    """The working set: every read of the seat table is one variant's rows, or at most two
    columns of all rows (variant names, seat numbers) — never the wide table."""
    res = api.simulate(_random_copy("africanus-sultan.toml", tmp_path), games=12, jobs=1,
                       out=tmp_path / "run")
    read_spy.clear()
    report.render(res.out_dir)
    seat_reads = [r for r in read_spy if r["file"] == "seats.parquet"]
    assert seat_reads
    for r in seat_reads:
        assert (r["variants"] is not None and len(r["variants"]) == 1) or r["columns"] <= 2, r


@pytest.fixture
def read_spy(monkeypatch):
    """Every ``records.read_table`` call: file name, variants asked for, columns returned."""
    calls: list[dict] = []
    read = records.read_table

    def spy(path, patterns=None, variants=None):
        frame = read(path, patterns, variants)
        calls.append({"file": Path(path).name, "variants": variants, "columns": frame.shape[1]})
        return frame

    monkeypatch.setattr(records, "read_table", spy)
    return calls


def test_read_table_projects_filters_and_is_exact(toy_file, tmp_path):
    """Only the matching columns (file order), only the asked variants' rows, values equal to
    pandas' own reading; strings come as Categoricals with sorted categories."""
    out = api.simulate(toy_file, jobs=1, out=tmp_path / "run").out_dir
    full = pd.read_parquet(out / "seats.parquet")
    some = records.read_table(out / "seats.parquet", ("variant", "score", "caravan_cubes_*",
                                                      "nothing_*"), variants=["no-sultan"])
    assert list(some.columns) == ["variant", "score", "caravan_cubes_own", "caravan_cubes_given",
                                  "caravan_cubes_received", "caravan_cubes_own_surviving",
                                  "caravan_cubes_received_surviving"]
    expected = full.loc[full["variant"] == "no-sultan", list(some.columns)].reset_index(drop=True)
    pd.testing.assert_frame_equal(some, expected, check_dtype=False, check_categorical=False)
    assert isinstance(some["variant"].dtype, pd.CategoricalDtype)
    every = records.read_table(out / "seats.parquet")
    cats = list(every["variant"].cat.categories)
    assert cats == sorted(cats) and list(pd.unique(every["variant"])) == ["base", "no-sultan",
                                                                          "no-trader"]
    assert every["game_id"].dtype == np.int32 and every["score"].dtype == np.float64
    pd.testing.assert_frame_equal(every.astype({c: full[c].dtype for c in full}), full)


def test_integers_stay_wide_when_a_sum_could_overflow(tmp_path):
    """int32 only when 2·max|x|·rows fits (any sum or difference of the column does); keys
    (game_id, seat) only need their values to fit; a column with nulls is read as pandas does."""
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"game_id": [0, 2 ** 30], "small": [3, -4],
                             "big": [2 ** 29, 1], "gaps": pa.array([1, None], pa.int64())}), path)
    frame = records.read_table(path)
    assert frame["game_id"].dtype == np.int32 and frame["small"].dtype == np.int32
    assert frame["big"].dtype == np.int64  # 2 · 2^29 · 2 rows > 2^31 − 1
    pd.testing.assert_series_equal(frame["gaps"], pd.read_parquet(path)["gaps"])


def test_table_on_a_frame_reads_like_the_file(toy_file, tmp_path):
    """A Table on a DataFrame hands out the same rows and columns as one on the Parquet file."""
    out = api.simulate(toy_file, jobs=1, out=tmp_path / "run").out_dir
    on_file = records.Table(out / "seats.parquet")
    on_frame = records.as_table(pd.read_parquet(out / "seats.parquet"))
    assert on_file.variants() == on_frame.variants() == ["base", "no-sultan", "no-trader"]
    assert "sultan_points" in on_file and "sultan_points" in on_frame and "nope" not in on_file
    a = on_file.only(["no-trader"]).read(("game_id", "seat", "won"))
    b = on_frame.only(["no-trader"]).read(("game_id", "seat", "won"))
    pd.testing.assert_frame_equal(a, b, check_dtype=False)


def _variant_differences_whole_table(seats, metric, by, base="base"):
    """The paired differences computed on the whole table at once (one groupby over every
    variant, game and group), as the report did before it read one variant at a time."""
    keys = ["game_id", *by]
    per_game = seats.groupby(["variant", *keys], observed=True)[metric].mean()
    b = per_game.xs(base, level="variant")
    rows = []
    for var in [v for v in pd.unique(seats["variant"]) if v != base]:
        v = per_game.xs(var, level="variant")
        joined = pd.concat([b.rename("b"), v.rename("v")], axis=1, join="inner").reset_index()
        groups = joined.groupby(list(by), sort=True) if by else [((), joined)]
        for key, grp in groups:
            key = key if isinstance(key, tuple) else (key,)
            d = stats.paired_difference(grp["b"].to_numpy(), grp["v"].to_numpy())
            rows.append((var, *key, d.n, grp["b"].mean(), grp["v"].mean(), d.mean, d.lo, d.hi,
                         d.p_value, d.significant))
    columns = [c for c in stats.DIFFERENCE_COLUMNS if c != "mirror_of"]
    return pd.DataFrame(rows, columns=["variant", *by, *columns])


@pytest.mark.parametrize("by", [("seat",), (), ("policy",)])
def test_variant_by_variant_differences_equal_the_whole_table(by):
    """Pairing one variant with the base at a time gives the whole-table numbers bit for bit
    (ties 1/k, a game missing from one variant, a policy only some variants seat)."""
    rng = np.random.default_rng(3)
    rows = []
    for var in ("base", "a", "b"):
        for game in range(40):
            if var == "a" and game == 7:
                continue  # a game the variant lacks
            won = rng.choice([0.0, 1.0, 1 / 3, 0.5], size=3)
            for seat in range(3):
                policy = "x" if seat else ("y" if var == "b" else "x")
                rows.append((game, var, seat, policy, won[seat], float(rng.integers(0, 30))))
    seats = pd.DataFrame(rows, columns=["game_id", "variant", "seat", "policy", "won", "score"])
    for metric in ("won", "score"):
        got = stats.variant_differences(seats, metric, by)
        assert got["mirror_of"].isna().all()  # random outcomes: no group repeats another
        want = _variant_differences_whole_table(seats, metric, by)
        pd.testing.assert_frame_equal(got.drop(columns="mirror_of"), want, check_dtype=False)
