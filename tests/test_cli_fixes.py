"""Fixes of the fresh-user report (CLI, runner, run options): one test per finding."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from analyzer.cli import app

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
