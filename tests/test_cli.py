"""analyzer/cli.py through typer's CliRunner: exit codes, one-line errors, --help, commands."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from analyzer.cli import app

runner = CliRunner()
COMMANDS = ["simulate", "validate", "report", "list", "replay"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_on_every_command_has_examples(command):
    res = runner.invoke(app, [command, "--help"])
    assert res.exit_code == 0
    assert "Example" in res.stdout


def test_validate_ok(toy_file):
    res = runner.invoke(app, ["validate", str(toy_file)])
    assert res.exit_code == 0 and "ok (toy, 3 players, 60 games" in res.stdout


def _assert_user_error(res, fragment):
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], res.stderr
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


BAD_FILES = [
    ('game = "toy"\nplayers = [\n', "malformed TOML"),
    ('game = "toy"\nplayers = 3\nfoo = 1\n[[seats]]\npolicy = "random"\n', "foo: unknown key"),
    ('game = "go"\nplayers = 3\n[[seats]]\npolicy = "random"\n', "game: unknown game 'go'"),
    ('game = "toy"\nexpansions = ["big"]\nplayers = 3\n[[seats]]\npolicy = "random"\n',
     "unknown expansion 'big'"),
    ('game = "toy"\nplayers = 3\n[rules]\ncards = ["jester"]\n[[seats]]\npolicy = "random"\n',
     "rules.cards: must be a non-empty list of peasant, merchant, sultan, trader (got 'jester' in ['jester'])"),
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "oracle"\n', "unknown policy 'oracle'"),
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "biased"\nparams = { x = 1 }\n',
     "seats[0].params.x: unknown parameter"),
    ('game = "toy"\nplayers = 3.5\n[[seats]]\npolicy = "random"\n', "players: must be an integer"),
    ('game = "toy"\nplayers = 3\ngames = 0\n[[seats]]\npolicy = "random"\n', "games: must be at least 1"),
    ('game = "toy"\nplayers = 3\ngames = -2\n[[seats]]\npolicy = "random"\n', "games: must be at least 1"),
    ('game = "toy"\nplayers = 1\n[[seats]]\npolicy = "random"\n', "players: 1 is outside"),
    ('game = "toy"\nplayers = 5\n[[seats]]\npolicy = "random"\n', "(allowed: 2..4; 5 players need the bonus expansion)"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD_FILES, ids=[b[1][:30] for b in BAD_FILES])
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_bad_scenario_one_line_exit_2_nothing_written(write_scenario, tmp_path, text, fragment,
                                                      command):
    path = write_scenario(text)
    out = tmp_path / "out"
    args = [command, str(path)] + (["--out", str(out), "--quiet"] if command == "simulate" else [])
    res = runner.invoke(app, args)
    _assert_user_error(res, fragment)
    assert str(path) in res.stderr
    assert not out.exists()


def test_missing_file(tmp_path):
    _assert_user_error(runner.invoke(app, ["validate", str(tmp_path / "gone.toml")]), "file not found")


@pytest.mark.parametrize(("args", "fragment"), [
    (["--jobs", "0"], "--jobs: must be at least 1"),
    (["--games", "0"], "--games: must be at least 1"),
    (["--games", "-4"], "--games: must be at least 1"),
    (["--chunk-size", "0"], "--chunk-size"),
    (["--seed", "-1"], "--seed"),
])
def test_bad_options(toy_file, tmp_path, args, fragment):
    out = tmp_path / "out"
    res = runner.invoke(app, ["simulate", str(toy_file), "--out", str(out), "--quiet", *args])
    _assert_user_error(res, fragment)
    assert not out.exists()


def test_output_directory_not_writable(toy_file, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = runner.invoke(app, ["simulate", str(toy_file), "--out", str(blocker / "run"), "--quiet"])
    _assert_user_error(res, "--out: cannot create")
    # refused before the plan is said (it printed the plan line, then the error)
    res = runner.invoke(app, ["simulate", str(toy_file), "--out", str(blocker / "a" / "b")])
    _assert_user_error(res, f"--out: cannot create {blocker / 'a' / 'b'} ({blocker} is a file)")
    assert "plan:" not in res.output


def test_simulate_then_report(toy_file, tmp_path):
    out = tmp_path / "run"
    res = runner.invoke(app, ["simulate", str(toy_file), "--games", "30", "--jobs", "1",
                              "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    assert f"report: {out / 'report.html'}" in res.stdout
    assert "30 games x 3 variant(s)" in res.stdout
    (out / "report.md").unlink()
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0 and (out / "report.md").exists()


def test_report_of_a_non_run_directory(tmp_path):
    _assert_user_error(runner.invoke(app, ["report", str(tmp_path)]), "no games.parquet")


def test_list_commands():
    res = runner.invoke(app, ["list", "policies", "--game", "toy"])
    assert res.exit_code == 0
    assert "toy  biased" in res.stdout and "boost: float = 0.5 in [0, 5]  share of one die added (dice)" in res.stdout
    res = runner.invoke(app, ["list", "cards", "--game", "toy"])
    assert res.exit_code == 0 and "toy  sultan" in res.stdout
    _assert_user_error(runner.invoke(app, ["list", "dragons", "--game", "toy"]), "unknown kind 'dragons'")
    _assert_user_error(runner.invoke(app, ["list", "games", "--game", "nope"]), "unknown game")


def test_replay_both_forms(toy_file):
    res = runner.invoke(app, ["replay", str(toy_file), "--game", "4"])
    assert res.exit_code == 0 and res.stdout.count("seat ") == 3
    again = runner.invoke(app, ["replay", str(toy_file), "--game", "4"])
    assert again.stdout == res.stdout  # same seed, same log
    res = runner.invoke(app, ["replay", "--game", "toy", "--players", "2", "--seed", "7",
                              "--policy", "biased"])
    assert res.exit_code == 0 and res.stdout.count("seat ") == 2
    _assert_user_error(runner.invoke(app, ["replay", str(toy_file), "--game", "60"]), "outside 0..59")
    _assert_user_error(runner.invoke(app, ["replay", str(toy_file), "--game", "toy"]), "game index")
    _assert_user_error(runner.invoke(app, ["replay", "--game", "toy", "--players", "9"]), "outside")
    # the flag at fault is --game (it named --rules, which was not given)
    _assert_user_error(runner.invoke(app, ["replay", "--game", "chess"]),
                       "--game: unknown game 'chess' (allowed: ")
