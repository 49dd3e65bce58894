"""The command line as a new user meets it: a CLI a plain install can run, its version, flags
in the help, a run that never silently replaces another study's directory, the list and help
texts, and errors that name flags only in the CLI."""

from __future__ import annotations

import importlib.metadata
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import analyzer
from analyzer import api
from analyzer.cli import app
from analyzer.errors import OptionError

runner = CliRunner()
COMMANDS = ["simulate", "validate", "report", "list", "replay", "bench", "sweep", "ablate",
            "compare"]


def test_version_prints_the_installed_version():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.stdout.startswith(f"analyzer {analyzer.__version__}, ")  # then the build (test_build.py)
    assert analyzer.__version__ == importlib.metadata.version("analyzer")  # one place: pyproject reads it


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_flags_read_as_flags_in_the_help(command):
    """A flag takes no value, so its help line shows the flag alone (typer's docs), never a
    ``<bool>`` placeholder."""
    res = runner.invoke(app, ([command] if command else []) + ["--help"],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0
    assert "<bool>" not in res.stdout and "--no-" not in res.stdout
    assert re.search(r"^\s+--help\s{2,}Show this message and exit\.$", res.stdout, re.MULTILINE)
    if command in ("simulate", "sweep", "ablate", "compare"):
        for flag in ("--quiet", "--resume", "--force"):
            assert re.search(rf"^\s+{flag}\s{{2,}}[A-Z]", res.stdout, re.MULTILINE), (flag, res.stdout)


# --- --out into another study's run directory -------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_line_exit_2(res, *fragments):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in res.output


@pytest.fixture
def toy_run(toy_file, tmp_path):
    """A finished 30-game run of the toy scenario ``toy-study`` (seed 42) in ``tmp_path/run``."""
    out = tmp_path / "run"
    res = runner.invoke(app, ["simulate", str(toy_file), "--games", "30", "--jobs", "1",
                              "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    return out


def _other(toy_file: Path, name: str = "other-study") -> Path:
    other = toy_file.with_name("other.toml")
    other.write_text(toy_file.read_text().replace('name = "toy-study"', f'name = "{name}"'))
    return other


def _commands(toy_file: Path, other: Path, out: Path) -> dict[str, list[str]]:
    common = ["--games", "30", "--jobs", "1", "--out", str(out), "--quiet"]
    return {
        "simulate": ["simulate", str(other), *common],
        "sweep": ["sweep", str(other), "--param", "rules.sides=4,8", *common],
        "ablate": ["ablate", str(ROOT / "scenarios" / "cartus-first-game.toml"), *common],
        "compare": ["compare", str(other), str(toy_file), *common],
    }


@pytest.mark.parametrize("command", ["simulate", "sweep", "ablate", "compare"])
def test_out_of_another_study_is_refused_in_one_line_and_nothing_is_written(
        toy_file, toy_run, command):
    before = _snapshot(toy_run)
    args = _commands(toy_file, _other(toy_file), toy_run)[command]
    res = runner.invoke(app, args)
    _one_line_exit_2(res, f"--out: {toy_run} holds the run of 'toy-study' (seed 42), not the ",
                     "give another --out, or --force to replace it")
    assert _snapshot(toy_run) == before


def test_out_of_another_seed_is_refused(toy_file, toy_run):
    before = _snapshot(toy_run)
    res = runner.invoke(app, ["simulate", str(toy_file), "--seed", "7", "--games", "30",
                              "--jobs", "1", "--out", str(toy_run), "--quiet"])
    _one_line_exit_2(res, "holds the run of 'toy-study' (seed 42), not the run of 'toy-study' "
                          "(seed 7)", "--force")
    assert _snapshot(toy_run) == before


def test_same_scenario_again_replaces_its_run_and_force_replaces_another(toy_file, toy_run):
    again = runner.invoke(app, ["simulate", str(toy_file), "--games", "20", "--jobs", "1",
                                "--out", str(toy_run), "--quiet"])
    assert again.exit_code == 0, again.output
    assert json.loads((toy_run / "summary.json").read_text())["run"]["games"] == 20
    forced = runner.invoke(app, ["simulate", str(_other(toy_file)), "--games", "20", "--jobs",
                                 "1", "--out", str(toy_run), "--quiet", "--force"])
    assert forced.exit_code == 0, forced.output
    assert json.loads((toy_run / "summary.json").read_text())["run"]["name"] == "other-study"
    # the replaced run is now the other study's: the first one is refused in turn
    res = runner.invoke(app, ["simulate", str(toy_file), "--games", "20", "--jobs", "1",
                              "--out", str(toy_run), "--quiet"])
    _one_line_exit_2(res, "holds the run of 'other-study' (seed 42)")


def test_a_sweep_into_a_plain_run_of_its_scenario_is_refused(toy_file, toy_run):
    res = runner.invoke(app, ["sweep", str(toy_file), "--param", "rules.sides=4,8", "--games",
                              "30", "--jobs", "1", "--out", str(toy_run), "--quiet"])
    _one_line_exit_2(res, "holds the run of 'toy-study' (seed 42), not the sweep of 'toy-study'")


def test_the_api_names_its_keyword_arguments(toy_file, toy_run):
    with pytest.raises(OptionError) as info:
        api.simulate(_other(toy_file), games=30, jobs=1, out=toy_run)
    assert str(info.value).startswith("out: ")
    assert str(info.value).endswith("give another out, or force=True to replace it")
    api.simulate(_other(toy_file), games=30, jobs=1, out=toy_run, force=True)


# --- help and list texts --------------------------------------------------------------------------

def test_ablate_help_says_what_the_scenario_must_fix():
    res = runner.invoke(app, ["ablate", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    text = " ".join(res.stdout.split())
    assert "Scenario TOML file (its rules must fix the items in play)" in text
    assert " )." not in text and "its )" not in text


def test_list_buildings_shows_which_buildings_share_a_class():
    res = runner.invoke(app, ["list", "buildings"])
    assert res.exit_code == 0
    rows = [line.split("  ") for line in res.stdout.strip().splitlines()]
    classes: dict[str, list[str]] = {}
    for game, name, group in rows:
        assert game == "cartus" and group.startswith("class ")
        classes.setdefault(group.removeprefix("class "), []).append(name)
    assert classes["royalty"] == ["palace", "treasury"]
    assert len(classes) == 6 and all(len(v) == 2 for v in classes.values())
    assert api.catalogue("buildings")[0] == {"game": "cartus", "name": "palace", "class": "royalty"}


def _foreign_lists() -> list[tuple[str, str, list[str]]]:
    """(kind, game, owners): each content list of a game (``analyzer list KIND``) asked of
    every other game of the registry and of the toy game, with the games it belongs to."""
    from analyzer.games import available_games, get_game

    games = available_games()
    kinds = sorted({k for g in games for k in get_game(g).content})
    return [(k, g, [o for o in games if k in get_game(o).content])
            for g in [*games, "toy"] for k in kinds if k not in get_game(g).content]


@pytest.mark.parametrize(("kind", "game", "owners"), _foreign_lists())
def test_a_list_of_another_game_names_the_game_it_belongs_to(kind, game, owners):
    res = runner.invoke(app, ["list", kind, "--game", game])
    _one_line_exit_2(res, f"--game: '{kind}' is a list of {' and '.join(owners)}, not of {game}; "
                          f"list it with --game {owners[0]}")
    res = runner.invoke(app, ["list", "nonsense"])
    _one_line_exit_2(res, "unknown kind 'nonsense' (allowed: ")


def test_make_says_what_it_does_before_the_long_install():
    lines = (ROOT / "Makefile").read_text().splitlines()
    install = next(i for i, line in enumerate(lines) if "pip install --quiet -e" in line)
    assert lines[install - 1].lstrip().startswith("@echo") and "mypyc" in lines[install - 1]
    assert "about 2 minutes" in lines[install - 1]


def test_no_error_outside_the_cli_names_a_flag():
    """The API, runner and studies name keyword arguments (``jobs``, ``force=True``); only the
    CLI (cli.py, study_cli.py) speaks in flags, translating ``OptionError``. A pointer to a
    command to run (``see `analyzer list policies --game x```) is not a flag of the call."""
    import ast

    flagged = []
    for path in sorted((ROOT / "analyzer").rglob("*.py")):
        if path.name in ("cli.py", "study_cli.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                for const in ast.walk(node.exc):
                    if isinstance(const, ast.Constant) and isinstance(const.value, str) \
                            and re.search(r"--[a-z]", const.value) \
                            and "`analyzer " not in const.value:
                        flagged.append(f"{path.relative_to(ROOT)}:{node.lineno}: {const.value!r}")
    assert not flagged, "\n".join(flagged)
