"""Flat report memory: the report reads only the seat columns its sections use
(analyzer/report/records.py) — and gets exactly the results it would from the full tables."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analyzer import api, report
from analyzer.report import records

ROOT = Path(__file__).resolve().parents[1]
# One shipped scenario per study section (a few games each, random players for speed).
STUDIES = [("africanus-sultan.toml", 24), ("cartus-building-sets.toml", 8),
           ("pyramidion-baseline.toml", 24)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("scenario", "games"), STUDIES, ids=[s for s, _ in STUDIES])
def test_projected_seat_columns_give_the_same_report(scenario, games, tmp_path, monkeypatch):
    """A section reading a seat column missing from records.SEAT_COLUMNS fails here: the results
    rendered from the projected table must equal those from the full table."""
    shipped = ROOT / "scenarios" / scenario
    if not shipped.exists():
        pytest.skip(f"{scenario} not shipped")
    path = tmp_path / scenario
    path.write_text(shipped.read_text().replace('policy = "greedy"', 'policy = "random"'))
    out = tmp_path / "run"
    projected = api.simulate(path, games=games, jobs=1, out=out).summary["results"]
    monkeypatch.setattr(records, "SEAT_COLUMNS", ("*",))
    full = report.render(out)["results"]
    assert json.dumps(projected, sort_keys=True) == json.dumps(full, sort_keys=True)


def test_read_table_projects_and_matches_pandas(toy_file, tmp_path):
    """Only the columns matching the patterns, in file order, equal to pandas' own reading."""
    out = api.simulate(toy_file, jobs=1, out=tmp_path / "run").out_dir
    full = pd.read_parquet(out / "seats.parquet")
    some = records.read_table(out / "seats.parquet", ("score", "caravan_cubes_*", "nothing_*"))
    assert list(some.columns) == ["score", "caravan_cubes_own", "caravan_cubes_given",
                                  "caravan_cubes_received", "caravan_cubes_own_surviving",
                                  "caravan_cubes_received_surviving"]
    pd.testing.assert_frame_equal(some, full[list(some.columns)])
    pd.testing.assert_frame_equal(records.read_seats(out), full)  # the toy uses every column
    pd.testing.assert_frame_equal(records.read_games(out), pd.read_parquet(out / "games.parquet"))


def _random_copy(scenario: str, tmp_path: Path) -> Path:
    path = tmp_path / scenario
    path.write_text((ROOT / "scenarios" / scenario).read_text()
                    .replace('policy = "greedy"', 'policy = "random"'))
    return path


def _same_results_from_full_table(out: Path, projected: dict, monkeypatch) -> None:
    monkeypatch.setattr(records, "SEAT_COLUMNS", ("*",))
    full = report.render(out)["results"]
    assert json.dumps(projected, sort_keys=True) == json.dumps(full, sort_keys=True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_ablation_usage_columns_are_read(tmp_path, monkeypatch):
    """analyzer ablate follows each building's users through columns (premium_*, standard_*)
    outside SEAT_COLUMNS: they are read because the study facts name them."""
    from analyzer.ablate import ablate

    res = ablate(_random_copy("cartus-first-game.toml", tmp_path), games=8, jobs=1,
                 out=tmp_path / "ab")
    table = res.summary["results"]["studies"]["ablate"]["table"]
    assert all(r["games_used"] > 0 for r in table)
    _same_results_from_full_table(res.out_dir, res.summary["results"], monkeypatch)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_sweep_metric_column_is_read(tmp_path, monkeypatch):
    """analyzer sweep --metric COLUMN with a seat column outside SEAT_COLUMNS."""
    from analyzer.sweep import sweep

    assert "cubes_placed" not in records.SEAT_COLUMNS
    res = sweep(_random_copy("africanus-sultan.toml", tmp_path), ["rules.knight_range=1,2"],
                metric="cubes_placed", games=12, jobs=1, out=tmp_path / "sw")
    _same_results_from_full_table(res.out_dir, res.summary["results"], monkeypatch)


def test_names_in_and_exact_patterns():
    facts = {"study": {"kind": "ablate", "items": [{"usage": ["took_sultan", "a*b"]}]}, "n": 3}
    assert {"study", "ablate", "took_sultan", "a*b"} <= records.names_in(facts)
    from fnmatch import fnmatchcase
    assert fnmatchcase("a*b", records.glob_escape("a*b"))
    assert not fnmatchcase("axxb", records.glob_escape("a*b"))
