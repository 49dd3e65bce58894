"""A disk that refuses a write (full, over quota, read-only, not allowed) anywhere in writing
records or reports: one stderr line naming the file and the cause, exit code 2, no traceback.

The refusal is simulated in ``analyzer.files`` (every file analyzer writes goes through its
atomic writer): opening a file there for writing raises ``OSError(errno)`` when its name
matches."""

from __future__ import annotations

import builtins
import errno
import os
import shutil
from pathlib import Path

import balancetoy
import pytest
from conftest import TOY_SCENARIO
from typer.testing import CliRunner

from analyzer import files
from analyzer.cli import app
from analyzer.games import register_game

register_game(balancetoy.SPEC)
cli = CliRunner()

ROBUST = """\
name = "toy-robust"
game = "toy"
players = 3
games = 60
seed = 7

[rules]
sides = 2
cards = ["peasant", "merchant"]

[[seats]]
policy = "random"
"""

BALANCE = """\
name = "btoy"
game = "balancetoy"
players = 3
games = 40
seed = 5

[rules]
steps = 5
edge = 0.2

[[seats]]
policy = "plain"
"""


def _refuse(monkeypatch, fragment: str, code: int = errno.ENOSPC) -> None:
    """Writes in ``analyzer.files`` to a file whose name holds ``fragment`` fail with ``code``."""
    real = builtins.open

    def fake_open(path, mode="r", *args, **kwargs):
        if ("w" in mode or "+" in mode) and fragment in os.fspath(path):
            raise OSError(code, os.strerror(code), os.fspath(path))
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(files, "open", fake_open, raising=False)


def _one_line(res, *fragments: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert ".tmp" not in lines[0]  # the file's own name, not the temporary one


def _scenario(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("fragment", ["games-", "summary.json", "report.md", ".png"])
def test_simulate_on_a_full_disk(tmp_path, monkeypatch, fragment):
    _refuse(monkeypatch, fragment)
    res = cli.invoke(app, ["simulate", _scenario(tmp_path, TOY_SCENARIO), "--games", "40",
                           "--jobs", "1", "--out", str(tmp_path / "run"), "--quiet"])
    _one_line(res, "cannot write", str(tmp_path / "run"), fragment, "No space left on device")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES])
def test_report_on_a_full_or_read_only_disk_keeps_the_records(tmp_path, monkeypatch, code):
    run = tmp_path / "run"
    res = cli.invoke(app, ["simulate", _scenario(tmp_path, TOY_SCENARIO), "--games", "40",
                           "--jobs", "1", "--out", str(run), "--quiet"])
    assert res.exit_code == 0, res.output
    before = (run / "games.parquet").read_bytes(), (run / "report.md").read_text()
    _refuse(monkeypatch, "report.md", code)
    res = cli.invoke(app, ["report", str(run)])
    _one_line(res, f"cannot write {run / 'report.md'} ({os.strerror(code)})")
    assert ((run / "games.parquet").read_bytes(), (run / "report.md").read_text()) == before


@pytest.mark.parametrize("fragment", ["search.parquet", "balanced.toml", "report.md"])
def test_balance_on_a_full_disk(tmp_path, monkeypatch, fragment):
    _refuse(monkeypatch, fragment)
    res = cli.invoke(app, ["balance", _scenario(tmp_path, BALANCE), "--finding",
                           "first_player:base", "--vary", "rules.edge=-0.3..0.3", "--budget",
                           "480", "--games", "40", "--popsize", "4", "--validation-games", "60",
                           "--jobs", "1", "--out", str(tmp_path / "b"), "--quiet"])
    _one_line(res, "cannot write", fragment, "No space left on device")


@pytest.mark.parametrize("fragment", ["robustness.json", "report.md"])
def test_robustness_on_a_full_disk(tmp_path, monkeypatch, fragment):
    _refuse(monkeypatch, fragment)
    res = cli.invoke(app, ["robustness", _scenario(tmp_path, ROBUST), "--players", "random",
                           "--jobs", "1", "--out", str(tmp_path / "r"), "--quiet"])
    _one_line(res, "cannot write", fragment, "No space left on device")


def test_a_folder_the_disk_refuses_is_one_line(tmp_path, monkeypatch):
    """A refusal outside the atomic writer (here making a folder) is one line too."""
    run = tmp_path / "run"
    res = cli.invoke(app, ["simulate", _scenario(tmp_path, TOY_SCENARIO), "--games", "40",
                           "--jobs", "1", "--out", str(run), "--quiet"])
    assert res.exit_code == 0, res.output
    real = Path.mkdir

    def refuse(self, *args, **kwargs):
        if self.name == "charts":
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", refuse)
    shutil.rmtree(run / "charts", ignore_errors=True)
    res = cli.invoke(app, ["report", str(run)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "charts" in lines[0] and "Read-only file system" in lines[0]
