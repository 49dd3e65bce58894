"""Every game's labelled-default counters (``GameSpec.guesses``, model/base.py ``GuessCounter``):
each is a declared int64 game-record column ``acted_<name>``, names a labelled default the
game's ``rule_values`` can give, and cites the game's rules file."""

from __future__ import annotations

import pytest

from analyzer.errors import RuleError
from analyzer.games import available_games, get_game
from analyzer.report.guesses import names_default

GAMES = available_games()


def _rule_value_names(spec) -> set[str]:
    """Every name ``rule_values`` gives at some player count and expansion set, with the
    scenario's defaults (the counters count defaults, so these are the configs they act in)."""
    names: set[str] = set()
    for players in range(spec.min_players, spec.max_players + 1):
        for expansions in ([()] + [(e,) for e in spec.expansions]):
            try:
                config = spec.make_config(players, expansions, {})
            except RuleError:
                continue
            names |= {rv.name for rv in spec.rule_values(config) if rv.provenance == "default"}
    return names


@pytest.mark.parametrize("name", GAMES)
def test_guess_counters_are_declared_columns_naming_labelled_defaults(name):
    spec = get_game(name)
    columns = [g.column for g in spec.guesses]
    assert len(set(columns)) == len(columns)
    labelled = _rule_value_names(spec) if spec.guesses else set()
    for g in spec.guesses:
        assert g.column.startswith("acted_"), g.column
        assert spec.game_columns.get(g.column) == "int64", g.column
        # a rule value, or a content table whose entries are rule values (``site.Giza``)
        assert names_default(labelled, g.default), (
            f"{g.column}: {g.default!r} is never a labelled default")
        assert g.section.startswith(f"docs/rules/{name}.md §"), g.section
        assert g.what and not g.what.endswith("."), g.what


@pytest.mark.parametrize("name", GAMES)
def test_guess_counters_are_counts_in_every_record(name):
    """A few random games at the benchmark table: every counter is a non-negative int."""
    spec = get_game(name)
    if not spec.guesses:
        pytest.skip(f"{name} counts no labelled default")
    table = spec.bench_table()
    config = spec.make_config(table.players, table.expansions, {})
    for seed in range(3):
        game, _ = spec.play_game(config, "random", seed)
        for g in spec.guesses:
            assert isinstance(game[g.column], int) and game[g.column] >= 0
