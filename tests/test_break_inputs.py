"""Input-side faults of the break-it trial (issue #33): unbounded sizes, special files, hangs,
non-numeric ranges, deep nesting, long names, hand-edited summaries. Each bad input is one
line, exit 2, no traceback, and nothing hangs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer import userfiles
from analyzer.cli import app
from analyzer.errors import OptionError
from analyzer.games import available_games, get_game
from analyzer.scenario import load_scenario
from analyzer.study import knobs

cli = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
GAMES = available_games()  # every game of the registry
PYRAMIDION = ROOT / "scenarios" / "pyramidion-baseline.toml"


def _scenario(rules: str = "", game: str = "pyramidion") -> str:
    return f'game = "{game}"\nplayers = 4\ngames = 5\n[rules]\n{rules}\n[[seats]]\npolicy = "random"\n'


def _one_line_exit_2(res, fragment: str) -> str:
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("analyzer: error: ") and fragment in lines[0], lines[0]
    assert "Traceback" not in res.output
    return lines[0]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """The CLI in a child process: a FIFO would block the test process itself (the timeout only
    stops a hang from blocking the suite; the assertion is on the output)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "analyzer", *args], check=False, cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


def _child_one_line_exit_2(proc: subprocess.CompletedProcess, fragment: str) -> None:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


# --- 1. sizes and special files -------------------------------------------------------------

def test_validate_a_device_is_refused_not_read():
    _one_line_exit_2(cli.invoke(app, ["validate", "/dev/zero"]), "/dev/zero: not a regular file")


def test_a_table_file_that_is_a_device_is_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(_scenario('cards_file = "/dev/zero"'))
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]),
                     "rules.cards_file: '/dev/zero': not a regular file")


def test_a_huge_scenario_file_is_refused_unread(tmp_path):
    path = tmp_path / "big.toml"
    with open(path, "wb") as fh:  # sparse: no disk used
        fh.truncate(userfiles.TOML_LIMIT + 1)
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), "too large")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_as_scenario_table_and_summary_are_refused(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    _child_one_line_exit_2(_run(["validate", str(fifo)], tmp_path), "not a regular file (a FIFO)")
    (tmp_path / "s.toml").write_text(_scenario('cards_file = "pipe.toml"'))
    _child_one_line_exit_2(_run(["validate", "s.toml"], tmp_path), "not a regular file (a FIFO)")
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / "summary.json")
    _child_one_line_exit_2(_run(["findings", str(run)], tmp_path), "not a regular file (a FIFO)")


def test_a_card_count_beyond_what_a_game_holds_is_refused(tmp_path):
    text = (ROOT / "analyzer/games/pyramidion/data/cards.toml").read_text()
    assert "count = 2" in text
    (tmp_path / "c.toml").write_text(text.replace("count = 2", "count = 1000000000", 1))
    path = tmp_path / "s.toml"
    path.write_text(_scenario('cards_file = "c.toml"'))
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), "count: must be an integer 0..1000")


@pytest.mark.parametrize("game", GAMES)
def test_every_numeric_rule_option_is_bounded(game):
    """No option lets a scenario ask for more than the game can hold (target_vp = 10**9); an
    option that also takes a word (start_player: a seat or "random") is checked by the game
    against the player count."""
    for o in get_game(game).options:
        kind = o.item if o.type is list else o.type
        if kind in (int, float) and not o.also:
            assert o.high is not None, (game, o.name)


@pytest.mark.parametrize(("vary", "fragment"), [
    ("tables.cards.common[0].count=1..1000000000", "count: must be an integer 0..1000"),
    ("rules.target_vp=1..1000000000", "outside the option's bounds (allowed: integer 1..1000)"),
])
def test_vary_ranges_are_bounded_by_the_game(vary, fragment):
    with pytest.raises(OptionError, match="^vary: ") as err:
        knobs.knob(load_scenario(PYRAMIDION), vary)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_settling_an_integer_knob_of_a_wide_range_builds_no_range():
    """balance.settle kept floor/ceil of the mean that lie in the knob's range by building the
    whole range as a set: 10**9 integers."""
    from analyzer.study import balance

    k = knobs.Knob("rules.x", "x", None, (), None, int, 1.0, 1e12, 5.0)
    plan = type("P", (), {"knobs": [k]})()
    rows = [{"rules.x": 5, "gap": 0.1, "gap_se": 0.05}, {"rules.x": 6, "gap": 0.0, "gap_se": 0.05}]
    assert balance.settle(plan, rows, [5.0 + 4.0 / (1e12 - 1)])[0] in (5, 6)


# --- 3. a range of a non-numeric option --------------------------------------------------------

def test_vary_a_rule_option_that_takes_a_word_is_refused():
    with pytest.raises(OptionError) as err:
        knobs.knob(load_scenario(PYRAMIDION), "rules.start_player=0..3")
    text = str(err.value)
    assert "rules.start_player: not a numeric option" in text and '"random"' in text
    assert "start_player (" not in text.split("numeric options:")[1]  # not offered as numeric


# --- 4. other tracebacks ---------------------------------------------------------------------

def test_toml_nested_too_deep_is_one_line(tmp_path):
    deep = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"
    path = tmp_path / "deep.toml"
    path.write_text(deep)
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), "deep.toml: malformed TOML: nested too deep")
    (tmp_path / "t.toml").write_text(deep)
    path.write_text(_scenario('cards_file = "t.toml"'))
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), "rules.cards_file:")


def test_an_out_name_too_long_for_the_file_system_is_one_line(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(_scenario(game="cartus"))
    res = cli.invoke(app, ["simulate", str(path), "--quiet", "--out", str(tmp_path / ("x" * 300))])
    _one_line_exit_2(res, "--out: cannot use")
    assert "(at most 255)" in res.stderr or "at most" in res.stderr
    for command in ("findings", "report"):
        _one_line_exit_2(cli.invoke(app, [command, str(tmp_path / ("y" * 300))]), "cannot use this path")


@pytest.mark.parametrize("summary", [
    {"results": ["not", "a", "table"]},
    {"results": {"findings": {"findings": "nope"}}},
    {"results": {"findings": {"findings": [7]}}},
    {"results": {"findings": {"findings": [{"sentence": "no key"}]}}},
    {"results": {"findings": {"findings": [{"key": "a", "estimate": "big"}]}}},
    {"results": {"findings": {"findings": [{"key": "a", "estimate": 1, "digits": "two"}]}}},
    {"results": {"findings": {"findings": [{"key": "a", "estimate": 1, "unit": ["pp"]}]}}},
    {"results": {"x": 1}, "run": "not a table"},
], ids=["results-list", "findings-text", "record-number", "no-key", "estimate-text",
        "digits-text", "unit-list", "run-text"])
def test_findings_of_a_hand_edited_summary_is_one_line_naming_the_file(tmp_path, summary):
    import json

    (tmp_path / "summary.json").write_text(json.dumps(summary))
    res = cli.invoke(app, ["findings", str(tmp_path)])
    _one_line_exit_2(res, f"{tmp_path / 'summary.json'}: not a summary analyzer wrote")


# --- 7 and 2. a tournament pool: every problem listed, sizes bounded before any seating ---------

POOL_HEAD = 'game = "pyramidion"\nplayers = 4\ngames = 20\n'


def test_validate_lists_every_problem_of_a_pool(tmp_path):
    path = tmp_path / "pool.toml"
    path.write_text(POOL_HEAD + 'colour = 3\nseatings = 0\nseat_orders = "some"\n[rules]\n'
                    'target_vp = 0\n[[entrants]]\npolicy = "greedy"\n[[entrants]]\npolicy = "sphinx"\n'
                    '[[entrants]]\npolicy = "greedy"\n')
    res = cli.invoke(app, ["validate", str(path)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    lines = res.stderr.strip().splitlines()
    for fragment in ("colour: unknown key", "rules.target_vp: must be", "entrants[1]: unknown policy",
                     "seat_orders: must be one of", "seatings: must be"):
        assert sum(fragment in line for line in lines) == 1, (fragment, lines)
    assert len(lines) == 5 and all(line.startswith(f"analyzer: error: {path}: ") for line in lines)


def test_a_pool_of_a_billion_seatings_is_refused_before_drawing_them(tmp_path):
    path = tmp_path / "pool.toml"
    path.write_text(POOL_HEAD + "seatings = 1000000000\n"
                    + "".join(f'[[entrants]]\npolicy = "random"\nname = "e{i}"\n' for i in range(25)))
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), "seatings: at most 2000 (each seating")


def test_a_pool_of_too_many_seat_orders_is_counted_not_drawn(tmp_path):
    path = tmp_path / "pool.toml"
    path.write_text(POOL_HEAD + 'seatings = 1000\nseat_orders = "all"\n'
                    + "".join(f'[[entrants]]\npolicy = "random"\nname = "e{i}"\n' for i in range(25)))
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), "seat_orders: 24000 seat orders to play")


# --- 2. tune leaves budgets of time and effort alone -------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_tune_does_not_tune_a_time_or_effort_budget(game):
    """An ismcts seat's ``seconds`` (0..3600 a decision) and ``iterations`` are budgets: a
    search would raise them, and a tune's games would take hours. Every parameter measured in
    seconds or iterations is declared ``tunable=False``."""
    from analyzer.model.base import parameter_fields
    from analyzer.study.tune import dimensions

    spec = get_game(game)
    dims, fixed = dimensions(spec, "ismcts")
    assert {"seconds", "iterations"} <= set(fixed)
    assert not {"seconds", "iterations"} & {d.name for d in dims}
    for name, cls in spec.policies.items():
        for f in parameter_fields(cls):
            if str(f.metadata.get("help", "")).rstrip().endswith(("(seconds)", "(iterations)")):
                assert f.metadata.get("tunable") is False, (game, name, f.name)


# --- 5. misleading messages ---------------------------------------------------------------------

BALANCE_TOY = """\
name = "btoy"
game = "balancetoy"
players = 3
games = 300
seed = 5

[rules]
steps = 5
edge = 0.2

[[seats]]
policy = "plain"
"""


@pytest.fixture
def balance_toy(tmp_path):
    import balancetoy

    from analyzer.games import register_game

    register_game(balancetoy.SPEC)
    path = tmp_path / "btoy.toml"
    path.write_text(BALANCE_TOY)
    return path


def test_balance_blames_validation_games_for_its_own_size(balance_toy, tmp_path):
    out = tmp_path / "never"
    res = cli.invoke(app, ["balance", str(balance_toy), "--finding", "first_player:base", "--vary",
                           "rules.edge=-0.3..0.3", "--validation-games", str(10**12), "--out",
                           str(out), "--quiet"])
    _one_line_exit_2(res, "--validation-games: at most 100,000,000")
    assert not out.exists()


def test_a_balance_whose_directory_another_run_took_does_not_blame_resume(balance_toy, tmp_path,
                                                                          monkeypatch):
    """Two balances of different targets into one --out at once: the second rewrites the
    directory's fingerprint while the first searches; the first then says so, and does not
    name --resume, which it was not given."""
    import json

    from analyzer.study import balance as balance_module

    searched = balance_module.search

    def search_then_taken(run, *args, **kwargs):
        found = searched(run, *args, **kwargs)
        path = run.dir.chunks / "fingerprint.json"
        print_ = json.loads(path.read_text())
        path.write_text(json.dumps({**print_, "target": 0.5}))  # the other run's
        return found

    monkeypatch.setattr(balance_module, "search", search_then_taken)
    with pytest.raises(OptionError) as err:
        balance_module.balance(balance_toy, finding="first_player:base", vary="rules.edge=-0.3..0.3",
                               backend="sequential", out=tmp_path / "b", budget=480, games=40,
                               popsize=4, validation_games=60)
    assert err.value.option == "out" and "another run wrote into" in str(err.value)
    assert "resume" not in str(err.value)


def test_a_real_key_not_estimated_is_said_so_and_the_report_is_written(tmp_path):
    """goods:strongest_source needs a conditional logit that 20 games of the baseline cannot
    fit: its question gets a row saying why, not "unknown key … did you mean"."""
    text = PYRAMIDION.read_text() + ('\n[[questions]]\nask = "Which goods source matters most?"\n'
                                     'finding = "goods:strongest_source"\n')
    path = tmp_path / "pq.toml"
    path.write_text(text)
    out = tmp_path / "run"
    res = cli.invoke(app, ["simulate", str(path), "--games", "20", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    report = (out / "report.md").read_text()
    row = next(line for line in report.splitlines() if "Which goods source matters most?" in line)
    assert "`goods:strongest_source`: not estimated in this run" in row and "play more games" in row


def test_lookup_of_a_real_key_without_a_value_says_so():
    from analyzer.report import finding_keys
    from analyzer.report.answers import declared

    records = [{"key": "goods:largest_gap", "estimate": 1.0}]
    with pytest.raises(OptionError) as err:
        finding_keys.lookup(records, "goods:strongest_source", patterns=("goods:strongest_source",))
    assert "is a key of this game" in str(err.value) and "did you mean" not in str(err.value)
    answers, notes = declared([{"ask": "?", "finding": "goods:strongest_source"}], records,
                              patterns=("goods:strongest_source", "goods:largest_gap"))
    assert answers[0]["record"]["not_estimated"] and not notes
    # a key of a pattern the run has other keys of is a typo of one: "did you mean"
    with pytest.raises(OptionError, match="did you mean 'goods:largest_gap'"):
        finding_keys.lookup(records, "goods:largest_gpa", patterns=("goods:*",))


@pytest.mark.parametrize("records", [[{"key": "first_player:base", "estimate": 1.0}], []])
def test_lookup_of_a_huge_unknown_key_gives_a_short_message(records):
    """`balance --finding` of 10,000 characters echoed them all in its one line (break-it
    trial): the key is cut in the message."""
    from analyzer.report import finding_keys

    with pytest.raises(OptionError) as err:
        finding_keys.lookup(records, "x" * 10_000)
    assert len(str(err.value)) < 300 and "10,000 characters" in str(err.value)


# --- 6. names and texts a report shows ----------------------------------------------------------

@pytest.mark.parametrize(("extra", "fragment"), [
    ('[[variants]]\nname = "a\\u0007b"\nrules = { target_vp = 12 }\n',
     "variants[0].name: must not hold control characters (got U+0007 at position 1"),
    (f'[[variants]]\nname = "{"v" * 10_000}"\nrules = {{ target_vp = 12 }}\n',
     "variants[0].name: at most 200 characters (got 'vvvv"),
    ('[[variants]]\nname = "v"\ndescription = "one\\ntwo"\nrules = { target_vp = 12 }\n',
     "variants[0].description: must not hold control characters (got U+000A"),
    ('[[questions]]\nask = "Why\\u202e?"\nfinding = "first_player:base"\n',
     "questions[0].ask: must not hold control characters (got U+202E"),
    (f'[[questions]]\nask = "{"w" * 10_000}?"\nfinding = "first_player:base"\n',
     "questions[0].ask: at most 1000 characters"),
    ('[[questions]]\nask = "Who?"\nfinding = "first_player:\\u001bbase"\n',
     "questions[0].finding: must not hold control characters"),
])
def test_control_characters_and_huge_names_are_refused_at_validation(tmp_path, extra, fragment):
    path = tmp_path / "s.toml"
    path.write_text(_scenario() + extra)
    line = _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), fragment)
    assert len(line) < 400  # the 10,000 characters are not echoed


def test_a_seat_name_with_a_control_character_is_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(_scenario().replace('policy = "random"', 'policy = "random"\nname = "r\\u0000"'))
    _one_line_exit_2(cli.invoke(app, ["validate", str(path)]), "seats[0].name: must not hold control")


# --- 8. validation of many variants is linear ---------------------------------------------------

class _CountedName(str):
    """A variant name that counts the comparisons made with it."""

    compared = 0

    def __eq__(self, other):
        type(self).compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_validation_compares_each_variant_name_a_bounded_number_of_times(monkeypatch):
    """Each new variant was compared with every earlier one (60,000 variants: 1.8 billion
    comparisons, over 300 s); a set of the names taken makes it linear. Identical rules are
    checked once (the game's make_config)."""
    from analyzer.scenario import parse_scenario

    n = 2000
    data = {"name": "many", "game": "cartus", "players": 4, "games": 5, "rules": {},
            "seats": [{"policy": "random"}],
            "variants": [{"name": _CountedName(f"v{i}"), "rules": {"vp_token_value": i % 3}}
                         for i in range(n)]}
    spec = get_game("cartus")
    calls = []
    real = spec.make_config

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    import dataclasses

    from analyzer import scenario as scenario_module

    counting = dataclasses.replace(spec, make_config=counted)
    monkeypatch.setattr(scenario_module, "get_game", lambda name: counting)
    _CountedName.compared = 0
    scenario = parse_scenario(data, "many.toml")
    assert len(scenario.arms) == n + 1
    assert _CountedName.compared < 5 * n, _CountedName.compared
    assert len(calls) <= 4  # the base's rules and the three settings of vp_token_value


def test_a_table_file_that_is_a_symlink_loop_is_one_line(tmp_path):
    """A ``*_file`` rule option naming a symlink loop ended in a RuntimeError traceback from
    ``Path.resolve`` (break-it trial); the reader now refuses it naming the option."""
    (tmp_path / "a.toml").symlink_to(tmp_path / "b.toml")
    (tmp_path / "b.toml").symlink_to(tmp_path / "a.toml")
    scenario = tmp_path / "s.toml"
    scenario.write_text(_scenario('cards_file = "a.toml"'))
    _one_line_exit_2(cli.invoke(app, ["validate", str(scenario)]), "cards_file")


@pytest.mark.parametrize("target", ["nan", "inf"])
def test_balance_refuses_a_target_that_is_not_finite(balance_toy, tmp_path, target):
    """--target nan played the whole search and then blamed another run for the directory (nan
    is unequal to itself, so the run's own fingerprint never matched; break-it trial)."""
    out = tmp_path / "never"
    res = cli.invoke(app, ["balance", str(balance_toy), "--finding", "first_player:base", "--vary",
                           "rules.edge=-0.3..0.3", "--target", target, "--out", str(out),
                           "--quiet"])
    _one_line_exit_2(res, "--target: must be a finite number")
    assert not out.exists()


@pytest.mark.parametrize("damage", [lambda b: b"PAR1garbage", lambda b: b[: len(b) // 2], lambda b: b""])
def test_report_of_damaged_records_is_one_line_naming_the_file(toy_file, tmp_path, damage):
    """`analyzer report DIR` with a cut-short or garbage games.parquet ended in a pyarrow
    ArrowInvalid traceback (break-it trial); it is one line naming the file."""
    from analyzer import api

    run = api.simulate(toy_file, out=tmp_path / "run", jobs=1).out_dir
    records = run / "games.parquet"
    records.write_bytes(damage(records.read_bytes()))
    _one_line_exit_2(cli.invoke(app, ["report", str(run)]), "games.parquet: cannot be read")


@pytest.mark.parametrize("args", [
    ["list", "rules", "--game", "{L}"],
    ["simulate", "{S}", "--backend", "{L}"],
    ["robustness", "{S}", "--players", "{L}", "--out", "{O}"],
    ["replay", "{S}", "--game", "0", "--variant", "{L}"],
])
def test_an_error_echoing_a_huge_value_stays_a_short_line(tmp_path, args):
    """Every option that echoes its value in an error gave a line as long as the value (5,000
    characters and more; break-it trial): the CLI cuts a run without blanks to its two ends."""
    long = "y" * 5000
    scenario = tmp_path / "s.toml"
    scenario.write_text(_scenario())
    args = [a.format(L=long, S=scenario, O=tmp_path / "out") for a in args]
    line = _one_line_exit_2(cli.invoke(app, args), " characters)")
    assert len(line) < 400
