"""``--csv``: the records also as games.csv and seats.csv, equal to the Parquet files, written
atomically, for simulate, compare, sweep and ablate."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from analyzer import api, runner
from analyzer.cli import app

cli = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def _same_as_parquet(run_dir):
    for name in ("games", "seats"):
        parquet = pd.read_parquet(run_dir / f"{name}.parquet")
        text = pd.read_csv(run_dir / f"{name}.csv", keep_default_na=False)
        assert list(text.columns) == list(parquet.columns)
        assert len(text) == len(parquet) > 0
        for col in parquet:
            if pd.api.types.is_numeric_dtype(parquet[col]):
                assert (text[col].to_numpy(float) == parquet[col].to_numpy(float)).all(), col
            else:
                assert (text[col].astype(str).to_numpy() == parquet[col].astype(str).to_numpy()).all(), col


def test_simulate_writes_the_records_as_csv_and_a_later_run_without_it_removes_them(toy_file,
                                                                                     tmp_path):
    out = api.simulate(toy_file, games=20, jobs=1, out=tmp_path / "run", csv=True).out_dir
    _same_as_parquet(out)
    assert not list(out.glob(".*tmp*"))
    first = (out / "seats.csv").read_text().splitlines()[0].split(",")
    assert first[:2] == ['"game_id"', '"variant"'] or first[:2] == ["game_id", "variant"]
    api.simulate(toy_file, games=20, jobs=1, out=out)  # the same run again, without --csv
    assert not (out / "games.csv").exists() and not (out / "seats.csv").exists()


def test_a_failed_csv_write_leaves_no_file(toy_file, tmp_path, monkeypatch):
    out = api.simulate(toy_file, games=10, jobs=1, out=tmp_path / "run").out_dir
    import pyarrow.csv as pa_csv

    real = pa_csv.CSVWriter

    class Broken(real):  # writes the header and the first batch's start, then the disk is full
        def write_batch(self, batch):
            super().write_batch(batch.slice(0, 1))
            raise OSError("disk full")

    monkeypatch.setattr(pa_csv, "CSVWriter", Broken)
    with pytest.raises(OSError, match="disk full"):
        runner.write_csv(out / "seats.parquet", out / "seats.csv")
    assert not (out / "seats.csv").exists() and not list(out.glob(".seats.csv.tmp*"))


@pytest.mark.parametrize("command", ["simulate", "compare", "sweep", "ablate"])
def test_every_study_command_takes_csv(command, toy_file, tmp_path):
    out = tmp_path / "out"
    args = {"simulate": ["simulate", str(toy_file)],
            "compare": ["compare", str(toy_file), str(toy_file)],
            "sweep": ["sweep", str(toy_file), "--param", "rules.sides=4,8"],
            # the toy game offers no ablation: the shipped study, a few games
            "ablate": ["ablate", str(ROOT / "scenarios" / "africanus-sultan.toml")]}[command]
    res = cli.invoke(app, [*args, "--games", "4", "--jobs", "1", "--quiet", "--out", str(out),
                           "--csv"])
    assert res.exit_code == 0, res.output
    _same_as_parquet(out)
