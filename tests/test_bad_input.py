"""Bad input through the CLI, for the three real games: one stderr line, exit 2, no traceback,
nothing written — and a fuzz of the scenario loader over the real games' rule options."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from analyzer import runner
from analyzer.cli import app
from analyzer.errors import ScenarioError
from analyzer.games import available_games, get_game
from analyzer.scenario import parse_scenario

cli = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
GAMES_DIR = ROOT / "analyzer" / "games"
MALFORMED = "[[regions]\nname = \n"


def _scenario(game: str, rules: str = "", players: int = 4, expansions: str = "",
              seats: str = '[[seats]]\npolicy = "random"\n', top: str = "") -> str:
    exp = f"expansions = [{expansions}]\n" if expansions else ""
    return (f'game = "{game}"\n{exp}players = {players}\ngames = 5\n{top}'
            f"[rules]\n{rules}\n{seats}")


def _edited(game: str, table: str, old: str, new: str) -> str:
    """A built-in data table with one edit (the edit must apply)."""
    text = (GAMES_DIR / game / "data" / table).read_text()
    assert old in text, (table, old)
    return text.replace(old, new, 1)


def _isolated_anglia() -> str:
    """The Rattus map with Anglia cut off from its neighbours on both sides (still symmetric)."""
    text = _edited("rattus", "map.toml", 'neighbours = ["Gallia", "Scandia"]', "neighbours = []")
    text = text.replace('neighbours = ["Anglia", "Hispania", "Germania", "Italia"]',
                        'neighbours = ["Hispania", "Germania", "Italia"]', 1)
    i = text.index('name = "Scandia"')
    j = text.index("neighbours", i)
    k = text.index("\n", j)
    line = text[j:k].replace('"Anglia", ', "").replace(', "Anglia"', "")
    return text[:j] + line + text[k:]


RATTUS = ('"africanus"', 4)
# (case id, game, expansions, players, [rules] lines, {data file: content or callable}, fragment)
CASES = [
    # unknown names
    ("rattus unknown card", "rattus", *RATTUS,
     'class_cards = ["knight","monk","witch","king","sultan","jester"]', {},
     "rules.class_cards: unknown card 'jester'"),
    ("rattus unknown expansion", "rattus", '"dragons"', 4, "", {}, "unknown expansion 'dragons'"),
    ("rattus unknown rule option", "rattus", *RATTUS, "plague_speed = 2", {},
     "rules.plague_speed: unknown rule option"),
    ("cartus unknown building", "cartus", "", 4,
     'building_selection = "explicit"\nbuildings = ["palace", "dragon_lair"]', {},
     "rules.buildings: unknown building 'dragon_lair'"),
    ("pyramidion unknown site", "pyramidion", "", 4, 'distribution_file = "d.toml"',
     {"d.toml": lambda: _edited("pyramidion", "distribution.toml", '"Giza" = 2,', '"Atlantis" = 2,')},
     "unknown site 'Atlantis'"),
    ("pyramidion unknown deck", "pyramidion", "", 4, 'deck = "tarot"', {}, "rules.deck: must be one of default48 (got 'tarot')"),
    # wrong types
    ("rattus max_turns type", "rattus", *RATTUS, 'max_turns = "many"', {}, "rules.max_turns: must be"),
    ("rattus map_file type", "rattus", *RATTUS, "map_file = 3", {}, "rules.map_file: must be a path"),
    ("pyramidion target_vp zero", "pyramidion", "", 4, "target_vp = 0", {},
     "rules.target_vp: must be an integer 1..1000 (got 0)"),
    # player counts
    ("rattus 5p without africanus", "rattus", "", 5, "", {}, "5-6 players need the africanus expansion"),
    ("rattus 7p", "rattus", *RATTUS[:1], 7, "", {}, "players: 7 is outside rattus's range"),
    ("cartus 6p", "cartus", "", 6, "", {}, "players: 6 is outside cartus's range"),
    ("pyramidion 1p", "pyramidion", "", 1, "", {}, "players: 1 is outside pyramidion's range"),
    # class cards: 6 (8 at 5-6 players), no repeats
    ("rattus 5 class cards", "rattus", *RATTUS,
     'class_cards = ["knight","monk","witch","king","sultan"]', {},
     "rules.class_cards: needs exactly 6 cards at 4 players (got 5)"),
    ("rattus 6 cards at 5p", "rattus", '"africanus"', 5,
     'class_cards = ["knight","monk","witch","king","sultan","trader"]', {},
     "rules.class_cards: needs exactly 8 cards at 5 players (got 6)"),
    ("rattus repeated card", "rattus", *RATTUS,
     'class_cards = ["knight","monk","witch","king","sultan","sultan"]', {},
     "rules.class_cards: card 'sultan' named twice"),
    # building sets
    ("cartus wrong count per class", "cartus", "", 4,
     ('building_selection = "explicit"\nbuildings = ["palace", "treasury", "monastery", "hospital", '
     '"office", "marketplace"]'), {}, "rules.buildings: needs exactly 5 cards per class"),
    ("cartus repeated building", "cartus", "", 4,
     'building_selection = "explicit"\nbuildings = ["palace", "palace"]', {},
     "rules.buildings: a building card is listed twice"),
    ("cartus unknown set name", "cartus", "", 4, 'building_set_name = "nope"', {},
     "rules.building_set_name: must be one of"),
    # Rattus data tables
    ("rattus map asymmetric", "rattus", *RATTUS, 'map_file = "m.toml"',
     {"m.toml": lambda: _edited("rattus", "map.toml", 'neighbours = ["Gallia", "Scandia"]',
                                'neighbours = ["Gallia"]')},
     "m.toml: adjacency not symmetric"),
    ("rattus region without neighbours", "rattus", *RATTUS, 'map_file = "m.toml"',
     {"m.toml": _isolated_anglia}, "m.toml: region 'Anglia' has no neighbour"),
    ("rattus token threshold 7", "rattus", "", 4, 'tokens_file = "t.toml"',
     {"t.toml": lambda: _edited("rattus", "tokens.toml", "threshold = 1", "threshold = 7")},
     "t.toml: [[base]] 1: threshold: must be an integer 1..6 (got 7)"),
    ("rattus token threshold 0", "rattus", "", 4, 'tokens_file = "t.toml"',
     {"t.toml": lambda: _edited("rattus", "tokens.toml", "threshold = 1", "threshold = 0")},
     "threshold: must be an integer 1..6 (got 0)"),
    ("rattus region card unknown region", "rattus", *RATTUS, 'region_cards_file = "c.toml"',
     {"c.toml": lambda: _edited("rattus", "region_cards.toml", 'region = "Anglia"',
                                'region = "Atlantis"')},
     "c.toml: [[cards]] 1: unknown region 'Atlantis'"),
    # Cartus data tables
    ("cartus building wrong class", "cartus", "", 4, 'buildings_file = "b.toml"',
     {"b.toml": lambda: _edited("cartus", "buildings.toml", 'class = "royalty"', 'class = "pirates"')},
     "b.toml: building 'palace': class must be 'royalty'"),
    ("cartus components inconsistent", "cartus", "", 4, 'components_file = "c.toml"',
     {"c.toml": lambda: _edited("cartus", "components.toml", "[0, 4]]", "[0, 5]]")},
     "c.toml: [nun_split_per_class]: card counts add up to 15"),
    ("cartus icons per copy", "cartus", "", 4, 'supply_icons_file = "i.toml"',
     {"i.toml": lambda: _edited("cartus", "supply_icons.toml",
                                'value = ["D4", "D3", "D2+L1", "D2+R1", "R2"]',
                                'value = ["D4", "D3", "D2+R1", "R2"]')},
     "i.toml: palace: needs 5 icon sets"),
    # Pyramidion data tables
    ("pyramidion site good", "pyramidion", "", 4, 'sites_file = "s.toml"',
     {"s.toml": lambda: _edited("pyramidion", "sites.toml", 'produces = "worker"', 'produces = "gold"')},
     "s.toml: site 'Giza': unknown good 'gold'"),
    ("pyramidion card type", "pyramidion", "", 4, 'cards_file = "c.toml"',
     {"c.toml": lambda: _edited("pyramidion", "cards.toml", 'type = "merchant"', 'type = "wizard"')},
     "c.toml: [[starting]] 1: unknown card type 'wizard'"),
    ("pyramidion boat good", "pyramidion", "", 4, 'boats_file = "b.toml"',
     {"b.toml": lambda: _edited("pyramidion", "boats.toml", "stone = 1, wood = 1", "stone = 1, gold = 1")},
     "b.toml: boat 'B1': unknown good 'gold'"),
    ("pyramidion revolt tile good", "pyramidion", "", 4, 'revolt_tiles_file = "r.toml"',
     {"r.toml": lambda: _edited("pyramidion", "revolt_tiles.toml", 'good = "stone"', 'good = "gold"')},
     "r.toml: [[tile]] 1: unknown good 'gold'"),
]

# Every *_file option of every game of the registry (its data tables, ``GameSpec.tables``), at
# the expansions of its benchmark table: a missing file and a malformed one.
FILE_OPTIONS = [(game, ", ".join(f'"{e}"' for e in get_game(game).bench_table().expansions), o)
                for game in available_games() for o in get_game(game).tables]
for game, exp, option in FILE_OPTIONS:
    CASES.append((f"{game} {option} missing", game, exp, 4, f'{option} = "gone.toml"', {},
                  f"rules.{option}:"))
    CASES.append((f"{game} {option} malformed", game, exp, 4, f'{option} = "bad.toml"',
                  {"bad.toml": MALFORMED}, f"rules.{option}:"))


def _assert_one_line_exit_2(res, fragment: str) -> None:
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("analyzer: error: ") and fragment in lines[0], lines[0]
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)


@pytest.mark.parametrize(("game", "expansions", "players", "rules", "files", "fragment"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_scenario_through_cli(tmp_path, game, expansions, players, rules, files, fragment):
    """One line naming the file and field, exit 2, no traceback, no run directory."""
    for name, content in files.items():
        (tmp_path / name).write_text(content() if callable(content) else content)
    path = tmp_path / "study.toml"
    path.write_text(_scenario(game, rules, players, expansions))
    out = tmp_path / "out"
    for command in (["validate", str(path)], ["simulate", str(path), "--out", str(out), "--quiet"]):
        res = cli.invoke(app, command)
        _assert_one_line_exit_2(res, fragment)
        assert str(path) in res.stderr
    if "missing" in fragment or "gone.toml" in rules:
        assert "gone.toml" in res.stderr
    assert not out.exists()


def test_missing_file_message_says_what_is_missing(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(_scenario("pyramidion", 'boats_file = "gone.toml"'))
    res = cli.invoke(app, ["validate", str(path)])
    _assert_one_line_exit_2(res, "file not found")
    assert "laid out like data/boats.toml" in res.stderr  # says what is expected


@pytest.mark.parametrize(("top", "fragment"), [
    ("colour = 1\n", "colour: unknown key"),
    ("games = 0\n", "games: must be at least 1"),
    ("games = -5\n", "games: must be at least 1"),
    ('seed = "x"\n', "seed: must be an integer"),
])
def test_bad_top_level_real_game(tmp_path, top, fragment):
    text = _scenario("cartus").replace("games = 5\n", "")
    path = tmp_path / "s.toml"
    path.write_text(text.replace("[rules]", top + "[rules]"))
    _assert_one_line_exit_2(cli.invoke(app, ["validate", str(path)]), fragment)


@pytest.mark.parametrize(("seats", "fragment"), [
    ('[[seats]]\npolicy = "sphinx"\n', "seats[0]: unknown policy 'sphinx'"),
    ('[[seats]]\npolicy = "greedy"\nparams = { nerve = 1 }\n', "seats[0].params.nerve: unknown parameter"),
    ('[[seats]]\npolicy = "greedy"\nparams = { plague_risk = "high" }\n',
     "seats[0].params.plague_risk: must be float"),
])
def test_bad_policy_real_game(tmp_path, seats, fragment):
    path = tmp_path / "s.toml"
    path.write_text(_scenario("rattus", seats=seats))
    _assert_one_line_exit_2(cli.invoke(app, ["validate", str(path)]), fragment)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--jobs", "0"], "--jobs: must be at least 1"),
    (["--jobs", "-3"], "--jobs: must be at least 1"),
    (["--games", "0"], "--games: must be at least 1"),
    (["--games", "-5"], "--games: must be at least 1"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler: only used with --backend dask"),
])
def test_bad_run_options_real_game(tmp_path, args, fragment):
    path = tmp_path / "s.toml"
    path.write_text(_scenario("pyramidion"))
    out = tmp_path / "out"
    res = cli.invoke(app, ["simulate", str(path), "--out", str(out), "--quiet", *args])
    _assert_one_line_exit_2(res, fragment)
    assert not out.exists()


def test_output_under_a_regular_file_is_refused(tmp_path):
    """As root chmod does not block writes, so the run directory is put under a regular file."""
    path = tmp_path / "s.toml"
    path.write_text(_scenario("cartus"))
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    for out in (blocker, blocker / "run"):
        res = cli.invoke(app, ["simulate", str(path), "--out", str(out), "--quiet"])
        _assert_one_line_exit_2(res, "--out: cannot create")
    assert blocker.read_text() == "x"


def test_dask_scheduler_unreachable(tmp_path, monkeypatch):
    """A scheduler address nobody listens on: one line, exit 2."""
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr(runner, "DASK_CONNECT_TIMEOUT", "1s")
    path = tmp_path / "s.toml"
    path.write_text(_scenario("rattus"))
    res = cli.invoke(app, ["simulate", str(path), "--out", str(tmp_path / "o"), "--quiet",
                           "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"])
    _assert_one_line_exit_2(res, "--scheduler: cannot connect")


# --- fuzzing the loader with the real games' rule options ---------------------------------

_leaf = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.integers(), st.floats(),
                  st.text(max_size=6), st.sampled_from(["knight", "sultan", "palace", "Giza",
                                                        "random", "explicit", "x.toml"]))
_value = st.recursive(_leaf, lambda kids: st.lists(kids, max_size=9)
                      | st.dictionaries(st.text(max_size=4), kids, max_size=2), max_leaves=10)


@st.composite
def _real_scenarios(draw):
    game = draw(st.sampled_from(available_games()))
    spec = get_game(game)
    options = sorted(spec.options.names())
    rules = draw(st.dictionaries(st.sampled_from(options), _value, max_size=3))
    data = {"game": game, "players": draw(st.integers(0, 7)),
            "expansions": draw(st.sampled_from([[], list(spec.expansions)])),
            "rules": rules, "seats": [{"policy": draw(st.sampled_from(sorted(spec.policies)))}]}
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_real_scenarios())
def test_fuzz_real_game_rules_only_raise_scenario_error(data):
    """Any values for any rule option of a real game: a Scenario or a ScenarioError, nothing
    else; the error has one line per problem, each naming the file."""
    try:
        parse_scenario(data)
    except ScenarioError as err:
        lines = str(err).splitlines()
        assert lines and all(line.startswith("<scenario>: ") for line in lines), lines
        assert len(set(lines)) == len(lines), lines


def test_a_typo_in_the_base_rules_is_said_once_not_per_variant(tmp_path):
    """A misspelt base rule option is inherited by every variant: one line (``rules.…``), not
    one more per variant; a variant's own mistake is still its own line."""
    text = (ROOT / "scenarios" / "africanus-sultan.toml").read_text().replace(
        "class_cards = [", "class_card = [", 1)
    path = tmp_path / "typo.toml"
    path.write_text(text)
    (tmp_path / "tuned").mkdir()
    (tmp_path / "tuned" / "rattus-greedy.toml").write_text(
        (ROOT / "scenarios" / "tuned" / "rattus-greedy.toml").read_text())
    res = CliRunner().invoke(app, ["validate", str(path)])
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if "class_card" in x]
    assert len(lines) == 1 and "rules.class_card" in lines[0], res.output
    assert "variants[" not in lines[0]
    own = text.replace('"sultan", "peasant"] }', '"sultan", "peasant"], class_card = ["monk"] }')
    path.write_text(own)  # the variant writes the misspelt key itself: its own line too
    res = CliRunner().invoke(app, ["validate", str(path)])
    assert any("variants[1].rules" in x for x in res.output.splitlines()), res.output
