"""Fixes of the fresh-user report (CLI, runner, run options): one test per finding."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import toygame
from typer.testing import CliRunner

from analyzer.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
ALL_COMMANDS = ["simulate", "validate", "report", "list", "replay", "bench", "sweep", "ablate",
                "compare"]


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_help_keeps_bracketed_defaults(command):
    res = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert " ." not in res.stdout
    if command in ("simulate", "sweep", "ablate", "compare"):
        assert "all cores" in res.stdout


def _hint_command(output: str) -> list[str]:
    line = output.strip().splitlines()[-1]
    return shlex.split(line.split("resume with: ")[1])


def test_sweep_interrupted_then_resumed_with_the_printed_command(toy_file, tmp_path,
                                                                  monkeypatch):
    out = tmp_path / "sw"
    args = ["sweep", str(toy_file), "--param", "params.boost=0,1", "--games", "600", "--jobs",
            "1", "--target-ci", "0.4", "--out", str(out), "--quiet"]
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [3 * 250])  # 3 arms: one chunk done
    res = runner.invoke(app, args)
    assert res.exit_code == 130, res.output
    command = _hint_command(res.output)
    assert command[-1] == "--resume" and "--target-ci" in command and "--param" in command
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [])
    res = runner.invoke(app, [*command[1:], "--quiet", "--jobs", "1"])
    assert res.exit_code == 0, res.output
    full = runner.invoke(app, [*args[:-3], "--out", str(tmp_path / "full"), "--quiet"])
    assert full.exit_code == 0, full.output
    for name in ("games.parquet", "seats.parquet"):
        assert (out / name).read_bytes() == (tmp_path / "full" / name).read_bytes()


def test_ablate_accepts_resume(tmp_path):
    out = tmp_path / "ab"
    for extra in ([], ["--resume"]):
        res = runner.invoke(app, ["ablate", str(ROOT / "scenarios" / "cartus-first-game.toml"),
                                  "--games", "4", "--jobs", "1",
                                  "--out", str(out), "--quiet", *extra])
        assert res.exit_code == 0, res.output


def test_simulate_hint_keeps_every_option(toy_file, tmp_path, monkeypatch):
    monkeypatch.setattr(toygame, "INTERRUPT_AFTER", [3 * 10])
    res = runner.invoke(app, ["simulate", str(toy_file), "--games", "50", "--seed", "3",
                              "--chunk-size", "10", "--target-ci", "0.3", "--backend",
                              "sequential", "--out", str(tmp_path / "o"), "--quiet"])
    assert res.exit_code == 130, res.output
    command = _hint_command(res.output)
    for opt in ("--games", "--seed", "--chunk-size", "--target-ci", "--backend", "--out"):
        assert opt in command, command
