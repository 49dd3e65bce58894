"""How to add a game (docs/architecture.md, issue #31 step 8), kept true: the toy game
``tests/newgame/tricks/`` is a game folder as ``analyzer/games/<game>/`` would hold one, added
by putting its folder on the registry's path and nothing else. The test reads the checklist,
checks each hook it names on the toy game (and each path it names for the shipped games), and
runs the toy game end to end through ``analyzer simulate``, ``compare`` and ``findings``."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import analyzer.games
from analyzer import bench
from analyzer.cli import app
from analyzer.errors import RuleError
from analyzer.games import available_games, get_game
from analyzer.model import base, forward, ismcts
from analyzer.report import extension

ROOT = Path(__file__).resolve().parents[1]
CHECKLIST = ROOT / "docs" / "architecture.md"
FOLDER = Path(__file__).parent / "newgame"  # holds the toy game's folder, tricks/
GAME = "tricks"
cli = CliRunner()

SCENARIO = """\
name = "{name}"
game = "tricks"
players = 3
games = 24
seed = 5

[rules]
last_trick_bonus = {bonus}

[[seats]]
policy = "greedy"

[[seats]]
policy = "random"

[[seats]]
policy = "random"
"""


def checklist() -> dict[int, str]:
    """The numbered steps of "How to add a game", each as one line of text."""
    text = CHECKLIST.read_text(encoding="utf-8")
    assert "\n## How to add a game\n" in text, "docs/architecture.md lost its checklist"
    section = text.split("\n## How to add a game\n", 1)[1].split("\n## ", 1)[0]
    steps = re.findall(r"^(\d+)\. (.*(?:\n {3}.*)*)", section, re.MULTILINE)
    return {int(n): " ".join(body.split()) for n, body in steps}


def hooks(step: str) -> list[str]:
    """The ``SPEC.<field>`` hooks a step names."""
    return re.findall(r"`SPEC\.(\w+)`", step)


@pytest.fixture
def tricks(monkeypatch):
    """The toy game's folder on the registry's path (as a folder of ``analyzer/games/`` is),
    its package imported fresh."""
    monkeypatch.setattr(analyzer.games, "__path__", [*analyzer.games.__path__, str(FOLDER)])
    for name in [m for m in sys.modules if m.split(".")[:3] == ["analyzer", "games", GAME]]:
        monkeypatch.delitem(sys.modules, name)
    return importlib.import_module(f"analyzer.games.{GAME}")


def test_the_checklist_has_its_six_steps_and_names_only_real_hooks():
    steps = checklist()
    assert sorted(steps) == [1, 2, 3, 4, 5, 6]
    fields = {f.name for f in dataclasses.fields(base.GameSpec)}
    named = [h for step in steps.values() for h in hooks(step)]
    assert len(named) >= 15 and set(named) <= fields, set(named) - fields
    # every GameSpec field is somewhere in the checklist: a new field gets a line
    assert fields <= set(named), fields - set(named)


def test_the_toy_game_gives_every_hook_of_steps_1_to_4(tricks):
    """Steps 1–4 are what every game gives: each ``SPEC.<field>`` they name is set on the toy
    game (not left at its default), and the names the steps give are the project's."""
    steps = checklist()
    spec = tricks.SPEC
    defaults = {f.name: f.default for f in dataclasses.fields(base.GameSpec)}
    for n in (1, 2, 3, 4):
        for hook in hooks(steps[n]):
            value = getattr(spec, hook)
            assert value is not None and value != defaults[hook] and value != {}, (n, hook)
    # step 1: the registry finds the folder; the spec is the package's SPEC
    assert GAME in available_games() and get_game(GAME) is spec and spec.name == GAME
    assert "`available_games`" in steps[1] and "`SPEC`" in steps[1]
    # step 2: the declarations of the contract, and a bad option is a RuleError
    for name in ("PlayerCounts", "OptionSet", "Option"):
        assert f"`{name}`" in steps[2] and hasattr(base, name)
    assert isinstance(spec.players, base.PlayerCounts)
    assert isinstance(spec.options, base.OptionSet)
    with pytest.raises(RuleError):
        spec.make_config(3, (), {"last_trick_bonus": 99})
    # step 3: the engine's start(...) as the checklist writes it, on the one play loop
    signature = re.search(r"`start\(([^)]*)\)`", steps[3]).group(1)
    assert list(inspect.signature(tricks.start).parameters) == signature.split(", ")
    for name in ("GameState", "ForwardGame"):
        assert f"`{name}`" in steps[3] and hasattr(forward, name)
    assert spec.play_game.__self__ == forward.ForwardGame(tricks.start, tricks.POLICIES)
    for name in ("COMMON_GAME_COLUMNS", "COMMON_SEAT_COLUMNS"):
        assert f"`{name}`" in steps[3]
    assert base.COMMON_GAME_COLUMNS.items() <= spec.game_columns.items()
    assert base.COMMON_SEAT_COLUMNS.items() <= spec.seat_columns.items()
    game, seats = spec.play_game(spec.make_config(3, (), {}), "random", 1)
    assert set(game) == set(spec.game_columns) and all(set(s) == set(spec.seat_columns)
                                                       for s in seats)
    # step 4: the policies it names, ismcts on the shared search player
    policies = re.search(r"`SPEC\.policies`: ((?:`\w+`(?:, | and )?)+)", steps[4]).group(1)
    assert set(re.findall(r"`(\w+)`", policies)) <= set(spec.policies)
    assert issubclass(spec.policies["ismcts"], ismcts.Ismcts) and spec.policies["ismcts"].ROLLOUTS


def test_step_5_hooks_are_optional_fields_and_the_toy_uses_one(tricks):
    """Step 5 names what a game gives as it has it; the toy game has its own report section,
    on the report's extension point."""
    step = checklist()[5]
    assert "`StudySection`" in step and hasattr(extension, "StudySection")
    sections = tricks.SPEC.sections()
    assert sections and all(isinstance(s, extension.StudySection) for s in sections)


def test_step_6_paths_exist_for_every_shipped_game():
    """The files step 6 asks for outside the folder exist for each game of the registry."""
    step = checklist()[6]
    paths = re.findall(r"`([\w/.-]*<game>[\w/.-]*)`", step)
    assert "docs/rules/<game>.md" in paths and "tests/games/playthroughs/<game>.json" in paths
    for game in available_games():
        for path in paths:
            assert (ROOT / path.replace("<game>", game)).is_file(), (game, path)
    for test in re.findall(r"`(tests/[\w/]+\.py)`", step):
        assert (ROOT / test).is_file(), test


def test_the_toy_game_runs_end_to_end(tricks, tmp_path):
    """Listed, benchmarked, validated; ``simulate`` and ``compare`` write their reports with
    the toy game's own section; ``findings`` lists the keys before play and after."""
    res = cli.invoke(app, ["list", "games"])
    assert res.exit_code == 0 and GAME in res.stdout, res.output
    assert GAME in dict(bench.standard_tables())
    plain, bonus = tmp_path / "plain.toml", tmp_path / "bonus.toml"
    plain.write_text(SCENARIO.format(name="plain", bonus=0))
    bonus.write_text(SCENARIO.format(name="bonus", bonus=3))
    assert cli.invoke(app, ["validate", str(plain)]).exit_code == 0

    res = cli.invoke(app, ["findings", str(plain)])
    assert res.exit_code == 0, res.output
    assert "first_player:base" in res.stdout and "win_rate:greedy" in res.stdout, res.stdout

    out = tmp_path / "sim"
    res = cli.invoke(app, ["simulate", str(plain), "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["game"] == GAME and summary["run"]["games"] == 24
    means = summary["results"]["tricks_by_seat"]["base"]
    assert sum(means.values()) == pytest.approx(4.0)  # four tricks a game, shared by the seats
    assert "Tricks by seat" in (out / "report.html").read_text()
    res = cli.invoke(app, ["findings", str(out)])
    assert res.exit_code == 0 and "first_player:base" in res.stdout, res.output

    out = tmp_path / "cmp"
    res = cli.invoke(app, ["compare", str(plain), str(bonus), "--jobs", "1", "--out", str(out),
                           "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["run"]["study"]["kind"] == "compare"
    assert set(summary["results"]["tricks_by_seat"]) == {"base", "bonus"}
    assert (out / "report.html").is_file() and (out / "report.md").is_file()


def test_without_its_folder_the_toy_game_is_unknown():
    """Nothing else names the toy game: off the registry's path it is not a game."""
    assert GAME not in available_games()
    with pytest.raises(RuleError, match=f"unknown game '{GAME}'"):
        get_game(GAME)
