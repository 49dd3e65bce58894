"""``analyzer list rules``: one format for every game (default; allowed; help (section))."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.games import available_games

cli = CliRunner()
LINE = re.compile(r"^(" + "|".join(available_games()) + r")  \w+  default .+; allowed: .+; .+ "
                  r"\[(seed|rulebook|default)(; (seed|rulebook|default) at [\d, ]+ players)*\] \(docs/rules/\w+\.md .+\)$")


def test_list_rules_one_format_for_all_games():
    res = cli.invoke(app, ["list", "rules"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert {ln.split()[0] for ln in lines} == set(available_games())
    bad = [ln for ln in lines if not LINE.match(ln)]
    assert not bad, bad[:3]


def test_list_rules_shows_allowed_values():
    out = cli.invoke(app, ["list", "rules", "--game", "cartus"]).stdout
    tie = next(ln for ln in out.splitlines() if "  tie_mode  " in ln)
    assert "allowed: all_tied_premium, first_entered_premium, nobody_premium" in tie
    name = next(ln for ln in out.splitlines() if "  building_set_name  " in ln)
    assert "allowed: first_game" in name


def test_list_policies_full_description():
    out = cli.invoke(app, ["list", "policies", "--game", "pyramidion"]).stdout
    line = next(ln for ln in out.splitlines() if "tile-builder:" in ln)
    assert line.rstrip().endswith("cheaper loading).")
