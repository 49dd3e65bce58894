"""Every user data table (each game's ``*_file`` option) is checked strictly: unknown keys and
tables are refused naming the file, the key and the allowed keys; errors name the field the
user actually set."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.games import available_games, get_game

cli = CliRunner()
GAMES_DIR = Path(__file__).resolve().parents[1] / "analyzer" / "games"


def _edited(game: str, table: str, old: str, new: str) -> str:
    text = (GAMES_DIR / game / "data" / table).read_text()
    assert old in text, (table, old)
    return text.replace(old, new, 1)


def _run(tmp_path: Path, game: str, rules: str, files: dict[str, str], expansions: str = "") -> str:
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    exp = f"expansions = [{expansions}]\n" if expansions else ""
    path = tmp_path / "study.toml"
    path.write_text(f'game = "{game}"\n{exp}players = 4\ngames = 3\n[rules]\n{rules}\n'
                    '[[seats]]\npolicy = "random"\n')
    out = tmp_path / "out"
    res = cli.invoke(app, ["simulate", str(path), "--out", str(out), "--quiet"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output, res.output
    assert not out.exists()
    return lines[0]


AFR = '"africanus"'
CASES = [
    # Rattus
    ("rattus map region colour", "rattus", AFR, 'map_file = "m.toml"',
     {"m.toml": _edited("rattus", "map.toml", 'board = "europe"', 'board = "europe"\ncolour = "red"')},
     ["rules.map_file:", "m.toml", "unknown key 'colour'", "allowed: name, board, players, neighbours"]),
    ("rattus token colour", "rattus", AFR, 'tokens_file = "t.toml"',
     {"t.toml": _edited("rattus", "tokens.toml", "threshold = 1", 'threshold = 1\ncolour = "red"')},
     ["rules.tokens_file:", "t.toml", "unknown key 'colour'", "allowed: threshold, symbols, starting"]),
    ("rattus starting typo", "rattus", "", 'tokens_file = "t.toml"',
     {"t.toml": (GAMES_DIR / "rattus/data/tokens.toml").read_text().replace("starting =", "startng =")},
     ["rules.tokens_file:", "unknown key 'startng'"]),
    ("rattus base list checked under africanus", "rattus", AFR,
     'tokens_file = "t.toml"\nafricanus_tokens_replace_base = true',
     {"t.toml": _edited("rattus", "tokens.toml", "threshold = 1", "threshold = 9")},
     ["rules.tokens_file:", "[[base]] 1: threshold: must be an integer 1..6"]),
    ("rattus unknown top-level table", "rattus", AFR, 'region_cards_file = "c.toml"',
     {"c.toml": (GAMES_DIR / "rattus/data/region_cards.toml").read_text() + "\n[dragons]\nn = 1\n"},
     ["rules.region_cards_file:", "unknown key or table 'dragons'", "allowed: provenance, section, cards"]),
    # Cartus
    ("cartus dragons table", "cartus", "", 'components_file = "c.toml"',
     {"c.toml": (GAMES_DIR / "cartus/data/components.toml").read_text() + "\n[dragons]\nvalue = 1\n"},
     ["rules.components_file:", "c.toml", "unknown key or table 'dragons'", "first_game"]),
    ("cartus building colour", "cartus", "", 'buildings_file = "b.toml"',
     {"b.toml": _edited("cartus", "buildings.toml", 'action = "vp_tokens"', 'action = "vp_tokens"\ncolour = 1')},
     ["rules.buildings_file:", "unknown key 'colour'", "allowed: name, class, action"]),
    ("cartus icon entry typo", "cartus", "", 'supply_icons_file = "i.toml"',
     {"i.toml": _edited("cartus", "supply_icons.toml", 'provenance = "default"', 'provnance = "default"')},
     ["rules.supply_icons_file:", "[default]: unknown key 'provnance'", "allowed: value, provenance, section"]),
    ("cartus first_game bad building", "cartus", "", 'components_file = "c.toml"',
     {"c.toml": _edited("cartus", "components.toml", '"castle", "farm"', '"dragon_lair", "farm"')},
     ["rules.components_file:", "[first_game]: unknown building 'dragon_lair'"]),
    # Pyramidion
    ("pyramidion card cnt", "pyramidion", "", 'cards_file = "c.toml"',
     {"c.toml": _edited("pyramidion", "cards.toml", "count =", "cnt =")},
     ["rules.cards_file:", "c.toml", "unknown key 'cnt'", "allowed: type, count"]),
    ("pyramidion site colour", "pyramidion", "", 'sites_file = "s.toml"',
     {"s.toml": _edited("pyramidion", "sites.toml", 'name = "Giza"', 'name = "Giza"\ncolour = "gold"')},
     ["rules.sites_file:", "[[site]] 1: unknown key 'colour'"]),
    ("pyramidion boat typo", "pyramidion", "", 'boats_file = "b.toml"',
     {"b.toml": _edited("pyramidion", "boats.toml", "vp =", "vps =")},
     ["rules.boats_file:", "unknown key 'vps'"]),
    ("pyramidion tile typo", "pyramidion", "", 'revolt_tiles_file = "r.toml"',
     {"r.toml": _edited("pyramidion", "revolt_tiles.toml", "strength =", "strenght =")},
     ["rules.revolt_tiles_file:", "unknown key 'strenght'"]),
    ("pyramidion distribution leaves out a site", "pyramidion", "", 'distribution_file = "d.toml"',
     {"d.toml": _edited("pyramidion", "distribution.toml", ', "Philae" = 2 }', " }")},
     ["rules.distribution_file:", "no count for site 'Philae'"]),
    ("pyramidion renamed site blames sites_file", "pyramidion", "", 'sites_file = "s.toml"',
     {"s.toml": _edited("pyramidion", "sites.toml", 'name = "Giza"', 'name = "Gizeh"')},
     ["rules.sites_file:", "built-in distribution table", "no longer matches"]),
]


@pytest.mark.parametrize(("game", "expansions", "rules", "files", "fragments"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_data_table_strict(tmp_path, game, expansions, rules, files, fragments):
    line = _run(tmp_path, game, rules, files, expansions)
    for fragment in fragments:
        assert fragment in line, line
    assert "rules.distribution_file" not in line or "distribution_file" in rules


@pytest.mark.parametrize("game", available_games())
def test_shipped_tables_pass_through_file_options(tmp_path, game):
    """The shipped tables, given as user files, still load (the checks accept their own layout):
    every table option (an option of type Path, ``<table>_file``) of the game at once, at its
    benchmark table (where every table is in use, e.g. Rattus with Africanus)."""
    spec = get_game(game)
    options = [o.name for o in spec.options if o.type is Path]
    assert options, f"{game} has no table option"
    rules = {o: str(GAMES_DIR / game / "data" / f"{o.removesuffix('_file')}.toml") for o in options}
    bench = spec.bench_table()
    spec.make_config(bench.players, bench.expansions, rules)
