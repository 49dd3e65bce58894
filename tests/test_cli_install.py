"""Issue 12 §1 and §3: a CLI a plain install can run, version, flags in the help, a run that
never silently replaces another study's directory, and the list and help texts."""

from __future__ import annotations

import importlib.metadata
import re

import pytest
from typer.testing import CliRunner

import analyzer
from analyzer.cli import app

runner = CliRunner()
COMMANDS = ["simulate", "validate", "report", "list", "replay", "bench", "sweep", "ablate",
            "compare"]


def test_version_prints_the_installed_version():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.stdout == f"analyzer {analyzer.__version__}\n"
    assert analyzer.__version__ == importlib.metadata.version("analyzer")  # one place: pyproject reads it


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_flags_read_as_flags_in_the_help(command):
    """A flag takes no value, so its help line shows the flag alone (typer's docs), never a
    ``<bool>`` placeholder."""
    res = runner.invoke(app, ([command] if command else []) + ["--help"],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert "<bool>" not in res.stdout and "--no-" not in res.stdout
    assert re.search(r"^\s+--help\s{2,}Show this message and exit\.$", res.stdout, re.M)
    if command in ("simulate", "sweep", "ablate", "compare"):
        for flag in ("--quiet", "--resume", "--force"):
            assert re.search(rf"^\s+{flag}\s{{2,}}[A-Z]", res.stdout, re.M), (flag, res.stdout)
