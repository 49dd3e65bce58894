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
