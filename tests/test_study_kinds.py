"""A study kind is one declaration in its own module (issue #31): the command of each kind is
built from its ``KIND`` and the run flags, and a new kind — ``tests/toystudy.py`` — is added by
its module alone and runs end to end, from the command line to its report."""

from __future__ import annotations

import json
import re
import shlex

import pytest
import toystudy
from typer.testing import CliRunner

from analyzer import studies, study_cli
from analyzer.cli import app

cli = CliRunner()


@pytest.fixture
def toy_kind(monkeypatch):
    """``toystudy`` registered: listed by ``analyzer.studies`` and a command of ``app``."""
    monkeypatch.setattr(studies, "MODULES", (*studies.MODULES, "toystudy"))
    monkeypatch.setattr(app, "registered_commands", list(app.registered_commands))
    study_cli.register(app, [studies.STUDIES["toystudy"]])
    return studies.STUDIES["toystudy"]


def _option_lines(help_text: str, option: str) -> int:
    """How many lines of the options of ``help_text`` declare ``option`` (start with it)."""
    return sum(1 for line in help_text.split("\nOptions:\n")[1].splitlines()
               if re.match(rf"  {re.escape(option)}(?![\w-])", line))


@pytest.mark.parametrize("kind", list(studies.STUDIES))
def test_each_option_of_a_kind_is_in_its_help_once(kind):
    """Every own option of a kind (its function's annotated parameters, its command-line-only
    options) and every run flag is declared once in ``analyzer KIND --help``."""
    res = cli.invoke(app, [kind, "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    own = study_cli.options(studies.STUDIES[kind])
    flags = [study_cli.option_flag(p) for p in own]
    assert flags, kind  # every kind has options of its own
    for option in [*flags, *(study_cli.flag(f) for f in studies.RUN_FLAGS if f != "quiet"),
                   "--quiet"]:
        assert _option_lines(res.stdout, option) == 1, (kind, option)


def test_a_union_is_read_as_its_first_type():
    from collections.abc import Sequence
    from pathlib import Path

    assert study_cli._cli_type(Sequence[str] | str) == list[str]
    assert study_cli._cli_type(str | Sequence[str] | None) == str | None
    assert study_cli._cli_type(Path | str | None) == Path | None
    assert study_cli._cli_type(int) is int


def test_a_toy_study_kind_runs_end_to_end(toy_kind, toy_file, tmp_path):
    """Declared in its own module only, the toy kind is listed, has a command with its option
    and the run flags, plays, and writes a report with its own section and numbers."""
    assert "toystudy" in studies.listing() and studies.word("toystudy") == "toy study"
    res = cli.invoke(app, ["toystudy", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "a toy study kind" in res.stdout
    assert _option_lines(res.stdout, "--boost") == 1 and "[default: 2.0]" in res.stdout
    out = tmp_path / "toy"
    res = cli.invoke(app, ["toystudy", str(toy_file), "--boost", "3", "--games", "12",
                           "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == ["toy study: boost 3.0, 12 games x 2 arms",
                                       f"report: {out / 'report.html'}"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["study"]["kind"] == "toystudy"
    numbers = studies.results_of(summary["results"], "toystudy")
    assert numbers["boost"] == 3.0 and set(numbers["seat0"]) == {"base", "boost=3.0"}
    assert "Toy study" in (out / "report.html").read_text()


def test_a_toy_study_kinds_resume_hint_is_built_from_its_options(toy_kind, toy_file,
                                                                 tmp_path, monkeypatch):
    """Stopped before its session began, the command says the command that runs it again:
    its own options that differ from their defaults and the run flags as given."""
    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(toystudy, "simulate", stop)
    res = cli.invoke(app, ["toystudy", str(toy_file), "--boost", "3", "--games", "12",
                           "--quiet"])
    assert res.exit_code == 130, res.output
    line = res.stderr.strip().splitlines()[-1]
    assert "interrupted: nothing saved yet; resume with: " in line, line
    assert shlex.split(line.split("resume with: ")[1]) == [
        "analyzer", "toystudy", str(toy_file), "--boost", "3.0", "--games", "12"]
    res = cli.invoke(app, ["toystudy", str(toy_file), "--quiet"])  # the default boost: unsaid
    assert shlex.split(res.stderr.strip().splitlines()[-1].split("resume with: ")[1]) == [
        "analyzer", "toystudy", str(toy_file)]


def test_a_study_is_named_with_its_article():
    """Messages name a study kind with "a" or "an" by its word's first sound ("an ablation",
    not "a ablation")."""
    assert studies.a_word("ablate") == "an ablation"
    assert studies.a_word("sweep") == "a sweep"
