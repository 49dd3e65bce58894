"""Bad user data tables, for every ``*_file`` option of every game: a directory, a file that is
not UTF-8, one that is not TOML, and a wrong layout each give one line naming the option and the
file, exit code 2 and nothing written (through ``validate`` and ``simulate``); and random edits of
the built-in tables give a config or a one-line ``RuleError``, never another exception."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.errors import RuleError
from analyzer.games import available_games, get_game
from analyzer.model.tables import builtin_table

cli = CliRunner()

# (game, option, built-in table it replaces): every option of type Path is a data table
FILE_OPTIONS = [(game, opt.name, opt.name.removesuffix("_file") + ".toml")
                for game in available_games() for opt in get_game(game).options if opt.type is Path]


def test_every_game_declares_its_tables():
    """The fuzz below covers all 11 table options of the three games."""
    assert len(FILE_OPTIONS) == 11
    for game, _option, table in FILE_OPTIONS:
        builtin_table(f"analyzer.games.{game}", table)  # the built-in table exists under that name


def _toml(value) -> str:
    """``value`` (dict, list, str, int, float, bool) as inline TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"


def _document(table: dict) -> str:
    return "".join(f"{json.dumps(str(k))} = {_toml(v)}\n" for k, v in table.items())


def _wrong_layout(game: str, table: str) -> str:
    """The built-in table with its first array or sub-table replaced by a string."""
    data = copy.deepcopy(builtin_table(f"analyzer.games.{game}", table))
    key = next(k for k, v in data.items() if isinstance(v, (list, dict)))
    data[key] = "oops"
    return _document(data)


BAD = {
    "directory": None,
    "not UTF-8": b"\xff\xfe bad \x80 bytes",
    "not TOML": b"[[oops\nname = ",
    "wrong layout": _wrong_layout,
}
WHAT = {"directory": "is a directory", "not UTF-8": "is not UTF-8 text", "not TOML": "is not valid TOML",
        "wrong layout": ""}


@pytest.mark.parametrize("command", ["validate", "simulate"])
@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize(("game", "option", "table"), FILE_OPTIONS, ids=[f"{g}-{o}" for g, o, _ in FILE_OPTIONS])
def test_bad_table_one_line_exit_2(tmp_path, game, option, table, kind, command):
    target = tmp_path / "table.toml"
    if kind == "directory":
        target.mkdir()
    elif kind == "wrong layout":
        target.write_text(_wrong_layout(game, table), encoding="utf-8")
    else:
        target.write_bytes(BAD[kind])
    bench = get_game(game).bench_table()  # every table in use (Rattus: with Africanus)
    players, exps = bench.players, bench.expansions
    study = tmp_path / "study.toml"
    study.write_text(f'game = "{game}"\nexpansions = {json.dumps(list(exps))}\nplayers = {players}\ngames = 3\n'
                     f'[rules]\n{option} = "table.toml"\n[[seats]]\npolicy = "random"\n')
    out = tmp_path / "out"
    args = [command, str(study)] + (["--out", str(out), "--quiet", "--jobs", "1"] if command == "simulate" else [])
    res = cli.invoke(app, args)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output, res.output
    assert f"rules.{option}: " in lines[0] and str(target) in lines[0] and WHAT[kind] in lines[0], lines[0]
    assert not out.exists()


# ---------------------------------------------------------------- random edits of the built-in tables

_leaf = st.one_of(st.booleans(), st.integers(-3, 40), st.integers(), st.floats(), st.text(max_size=6),
                  st.sampled_from(["?", "A", "M", "islam", "Anglia", "Giza", "stone", "statue", "goddess",
                                   "D2+L1", "palace", "hospital", "royalty", "player_order", "rulebook"]))
_value = st.recursive(_leaf, lambda kids: st.lists(kids, max_size=4)
                      | st.dictionaries(st.text(max_size=6), kids, max_size=3), max_leaves=8)


def _slots(node, out):
    """Every (container, key) pair below ``node``, depth first."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in list(items):
        out.append((node, key))
        if isinstance(child, (dict, list)):
            _slots(child, out)
    return out


@st.composite
def _edited(draw, table: dict):
    data = copy.deepcopy(table)
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(data, [])
        if not slots:
            break
        node, key = slots[draw(st.integers(0, len(slots) - 1))]
        op = draw(st.sampled_from(["replace", "delete", "add"]))
        if op == "replace":
            node[key] = draw(_value)
        elif op == "delete":
            del node[key]
        elif isinstance(node, dict):
            node[draw(st.text(min_size=1, max_size=6))] = draw(_value)
        else:
            node.append(draw(_value))
    return data


@pytest.mark.parametrize(("game", "option", "table"), FILE_OPTIONS, ids=[f"{g}-{o}" for g, o, _ in FILE_OPTIONS])
def test_random_table_edits_give_a_config_or_one_line(tmp_path_factory, game, option, table):
    spec = get_game(game)
    builtin = builtin_table(f"analyzer.games.{game}", table)
    folder = tmp_path_factory.mktemp("fuzz")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=_edited(builtin), players=st.integers(spec.min_players, spec.max_players))
    def check(data, players):
        path = folder / "t.toml"
        path.write_text(_document(data), encoding="utf-8")
        exps = spec.expansions if game == "rattus" else ()
        try:
            spec.make_config(players, exps, {option: str(path)})
        except RuleError as err:
            assert err.field in (option, "sites_file") and "\n" not in str(err), err

    check()
    assert builtin == builtin_table(f"analyzer.games.{game}", table)  # the parsed-once table is untouched
