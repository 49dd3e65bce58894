"""The shared declarations of analyzer/model/base.py: rule options (one check, one resolver, one
``list rules`` line), player counts, and policy parameters with machine-readable bounds."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.errors import RuleError
from analyzer.games import available_games, get_game
from analyzer.model.base import Option, OptionSet, PlayerCounts, build_policy, parameter_fields

CAP = Option("rat_cap", 3, int, "rule 7", "most rats in a region (tokens)", "rulebook", low=1, high=6)
RATE = Option("rate", 0.5, float, "rule 2", "chance (probability)", low=0, high=1)
FLAG = Option("flag", True, bool, "rule 3", "a switch")
MODE = Option("mode", "a", str, "rule 4", "a mode", choices=("a", "b"))
TABLE = Option("removed", (12, 6, 0), list, "rule 5", "tokens removed (tokens)", item=int, low=0, length=3)
START = Option("start", "random", int, "rule 6", "start seat", low=0, also=("random",))
FILE = Option("map_file", None, Path, "rule 8", "a user table")
OPTIONS = OptionSet("toy", (CAP, RATE, FLAG, MODE, TABLE, START, FILE))


@pytest.mark.parametrize("option, good, bad", [
    (CAP, [1, 6], [0, 7, True, 2.0, "3", None]),
    (RATE, [0, 1, 0.25], [-0.01, 1.5, math.nan, math.inf, True, "x"]),
    (FLAG, [True, False], [1, 0, "true", None]),
    (MODE, ["a", "b"], ["c", 1, None]),
    (TABLE, [[0, 0, 0], (1, 2, 3)], [[1, 2], [1, 2, -1], [1, 2, True], "x", []]),
    (START, ["random", 0, 9], ["first", -1, True, 1.5]),
    (FILE, ["t.toml", Path("t.toml")], ["", 3, None]),
])
def test_one_check_for_every_kind(option, good, bad):
    """Type, bool-vs-int, inclusive bounds, choices, lists and extra values: one check."""
    for value in good:
        option.check(value)
    for value in bad:
        with pytest.raises(RuleError) as err:
            option.check(value)
        assert err.value.field == option.name and "must be" in err.value.message and "\n" not in str(err.value)


def test_check_normalises_and_names_what_is_allowed():
    assert RATE.check(1) == 1.0 and isinstance(RATE.check(1), float)
    assert TABLE.check([12, 6, 0]) == (12, 6, 0)
    with pytest.raises(RuleError, match=r"^rat_cap: must be an integer 1\.\.6 \(got True\)$"):
        CAP.check(True)
    with pytest.raises(RuleError, match=r"^mode: must be one of a, b \(got 'c'\)$"):
        MODE.check("c")
    with pytest.raises(RuleError, match=r"^removed: must be a list of 3 integers >= 0 \(got -1 in \[1, 2, -1\]\)$"):
        TABLE.check([1, 2, -1])


def test_resolve_defaults_user_and_did_you_mean():
    opts = OPTIONS.resolve(4, {"rat_cap": 3, "mode": "b"})
    assert opts["rat_cap"] == 3 and opts["mode"] == "b" and opts["rate"] == 0.5 and opts["map_file"] is None
    assert opts.provenance("rat_cap") == "user"  # set to its default value: still the scenario's
    assert opts.provenance("rate") == "default" and opts.provenance("flag") == "default"
    assert [v.name for v in opts.rule_values(idle={"flag"})] == ["rat_cap", "rate", "mode", "removed", "start"]
    assert opts.rule_value("rat_cap").section == "docs/rules/toy.md rule 7"
    with pytest.raises(RuleError, match=r"^ratcap: unknown rule option of toy \(did you mean 'rat_cap'\? see "
                                        r"`analyzer list rules --game toy`\)$"):
        OPTIONS.resolve(4, {"ratcap": 2})
    with pytest.raises(RuleError, match=r"^zzz: unknown rule option of toy \(see `analyzer list rules"):
        OPTIONS.resolve(4, {"zzz": 2})


def test_provenance_may_depend_on_the_player_count():
    cubes = Option("cubes", 20, int, "rule 3", "cubes (cubes)", "rulebook", low=1, provenance_at={5: "default", 6: "default"})
    sheet = OptionSet("toy", (cubes,))
    assert [sheet.resolve(n, {}).provenance("cubes") for n in (4, 5, 6)] == ["rulebook", "default", "default"]
    assert sheet.describe("cubes") == ("default 20; allowed: integer >= 1; cubes (cubes) [rulebook; default at "
                                       "5, 6 players] (docs/rules/toy.md rule 3)")


def test_describe_one_line_per_option():
    assert OPTIONS.describe("mode") == "default 'a'; allowed: a, b; a mode [default] (docs/rules/toy.md rule 4)"
    assert OPTIONS.describe("removed").startswith("default [12, 6, 0]; allowed: list of 3 integers >= 0;")
    assert OPTIONS.describe("start").startswith("default 'random'; allowed: 'random' or integer >= 0;")
    assert OPTIONS.describe("map_file").startswith("default unset; allowed: path to a TOML file;")


def test_player_counts_stated_once():
    players = PlayerCounts("rattus", 2, 4, expansions=("africanus",), raised={"africanus": 6})
    assert players.most == 6 and players.check(6, ["africanus"]) == ("africanus",)
    for count, exps, message in [
        (5, (), "players: 5 is outside rattus's range (allowed: 2..4; 5-6 players need the africanus expansion)"),
        (7, ("africanus",), "players: 7 is outside rattus's range (allowed: 2..6 with africanus)"),
        (1, (), "players: 1 is outside rattus's range (allowed: 2..4; 5-6 players need the africanus expansion)"),
        ("4", (), "players: must be an integer (got '4')"),
        (4, ("pied_piper",), "expansions: unknown expansion 'pied_piper' of rattus (allowed: africanus)"),
        (4, ("africanus", "africanus"), "expansions: an expansion is listed twice"),
    ]:
        with pytest.raises(RuleError) as err:
            players.check(count, exps)
        assert str(err.value).startswith(message)


@pytest.mark.parametrize("game", available_games())
def test_every_game_states_its_range_once(game):
    """GameSpec, make_config and the scenario loader read the same PlayerCounts."""
    spec = get_game(game)
    module = __import__(f"analyzer.games.{game}.config", fromlist=["PLAYERS"])
    assert spec.players is module.PLAYERS and spec.options is module.OPTIONS
    with pytest.raises(RuleError) as err:
        spec.make_config(spec.max_players + 1, spec.expansions, {})
    assert err.value.field == "players" and f"allowed: {spec.min_players}..{spec.max_players}" in err.value.message


# ---------------------------------------------------------------- policy parameters

def _numeric_params():
    for game in available_games():
        for name, cls in get_game(game).policies.items():
            for f in parameter_fields(cls):
                if f.type in ("float", "int", float, int):
                    yield game, name, f


PARAMS = list(_numeric_params())


def test_policies_have_numeric_parameters():
    assert len(PARAMS) >= 30


@pytest.mark.parametrize("game, policy, field", PARAMS, ids=[f"{g}-{p}-{f.name}" for g, p, f in PARAMS])
def test_policy_parameter_bounds_declared_and_enforced(game, policy, field):
    """Every numeric parameter of every built-in policy declares inclusive bounds (and help with
    units) holding its default; build_policy accepts both ends and refuses just outside."""
    low, high = field.metadata.get("low"), field.metadata.get("high")
    assert low is not None and high is not None and low <= field.default <= high, field.name
    assert field.metadata.get("help", "").endswith(")"), "help should end with its unit in parentheses"
    registry = get_game(game).policies
    for value in (low, high):
        assert getattr(build_policy(registry, policy, {field.name: value}), field.name) == value
    step = 1 if isinstance(field.default, int) else 0.01
    for value in (low - step, high + step):
        if math.isinf(value):  # unbounded on that side (ismcts close: inf = search always)
            continue
        with pytest.raises(RuleError) as err:
            build_policy(registry, policy, {field.name: value})
        assert err.value.field == f"params.{field.name}" and f"must be in [{low}, {high}]" in err.value.message


def test_cartus_sword_value_minus_50_is_refused():
    """Cartus greedy used to accept sword_value = -50."""
    with pytest.raises(RuleError, match=r"^params\.sword_value: must be in \[0, 10\] \(got -50\.0\)$"):
        build_policy(get_game("cartus").policies, "greedy", {"sword_value": -50})


def test_list_policies_shows_type_default_and_bounds():
    out = CliRunner().invoke(app, ["list", "policies", "--game", "cartus"]).stdout
    assert "    sword_value: float = 1.0 in [0, 10]  value of a Sword in hand (VP)" in out
    assert "    rat_buffer: int = 3 in [0, 20]" in out  # cautious: its own default, greedy's bounds
