"""analyzer/scenario.py: loading, normalising and refusing scenario files (toy game)."""

from __future__ import annotations

import tomllib

import pytest
from conftest import TOY_SCENARIO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyzer.errors import ScenarioError
from analyzer.scenario import load_scenario, parse_scenario, to_toml, with_overrides


def test_load_toy_scenario(toy_file):
    sc = load_scenario(toy_file)
    assert (sc.name, sc.game, sc.players, sc.games, sc.seed) == ("toy-study", "toy", 3, 60, 42)
    assert sc.seat_rotation is True
    assert [a.name for a in sc.arms] == ["base", "no-sultan", "no-trader"]
    assert [s.name for s in sc.arms[0].seats] == ["bold", "random", "biased"]
    # a variant overrides only the rule it names and keeps the base seats
    assert sc.arms[1].rules == {"sides": 6, "cards": ["peasant", "merchant", "trader"]}
    assert sc.arms[1].seats == sc.arms[0].seats


def test_one_seat_entry_fills_every_seat(write_scenario):
    sc = load_scenario(write_scenario('game = "toy"\nplayers = 4\n[[seats]]\npolicy = "random"\n'))
    assert len(sc.arms[0].seats) == 4 and {s.name for s in sc.arms[0].seats} == {"random"}
    assert sc.name == "s" and sc.games == 1000 and sc.seed == 0  # defaults: file stem, 1000, 0


def test_to_toml_round_trip(toy_file, tmp_path):
    sc = with_overrides(load_scenario(toy_file), games=7, seed=9)
    again = tmp_path / "again.toml"
    again.write_text(to_toml(sc))
    back = load_scenario(again)
    assert back.to_dict() == sc.to_dict()
    assert back.fingerprint() == sc.fingerprint()


def test_a_variant_unsets_a_rule_of_the_base_and_the_file_says_so(write_scenario, tmp_path):
    """A variant that removes a base rule option (``add_variants`` with ``None``: an ablation
    replacing a named set by its own list) is written with ``unset`` and reads back with
    the same rules (a Cartus ablation's ``scenario.toml`` set both and was refused); a bad
    ``unset`` entry is one line naming the field."""
    from analyzer.scenario import add_variants

    sc = add_variants(load_scenario(write_scenario(TOY_SCENARIO)),
                      [("six-default", {"sides": None, "cards": ["peasant"]}, "")])
    assert sc.arms[-1].rules == {"cards": ["peasant"]}
    text = to_toml(sc)
    assert 'unset = [\n    "sides",\n]' in text and text.count("unset") == 1
    again = tmp_path / "again.toml"
    again.write_text(text)
    back = load_scenario(again)
    assert [a.rules for a in back.arms] == [a.rules for a in sc.arms]
    assert back.to_dict() == sc.to_dict() and back.fingerprint() == sc.fingerprint()
    for unset, why in ((["side"], ("variants[1].unset[0]: must name a rule option of the base's "
                                  "[rules] (set there: sides, cards; got 'side')")),
                       (["cards"], ("variants[1].unset[0]: 'cards' is also set in this "
                                   "variant's rules: give one of the two")),
                       ("sides", "variants[1].unset: must be a list (got 'sides')")):
        bad = write_scenario(TOY_SCENARIO + f"unset = {tomllib_value(unset)}\n")
        with pytest.raises(ScenarioError) as err:
            load_scenario(bad)
        assert str(err.value).splitlines() == [f"{bad}: {why}"]


def tomllib_value(value) -> str:
    """``value`` as TOML (a string or a list of strings)."""
    import tomli_w

    return tomli_w.dumps({"v": value}).split(" = ", 1)[1].strip()


def test_fingerprint_ignores_games_not_rules(toy_file):
    sc = load_scenario(toy_file)
    assert with_overrides(sc, games=5).fingerprint() == sc.fingerprint()
    data = tomllib.loads(TOY_SCENARIO)
    data["rules"]["sides"] = 8
    assert parse_scenario(data).fingerprint() != sc.fingerprint()


def test_relative_data_file_resolved_against_scenario_folder(tmp_path):
    """A rule option ending in _file names a user table next to the scenario."""
    from analyzer.scenario import _rules

    assert _rules({"tokens_file": "t.toml", "sides": 6}, "rules", tmp_path) == {
        "tokens_file": str((tmp_path / "t.toml").resolve()), "sides": 6}


BAD = [
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "random"\nfoo = 1\n', "foo: unknown key"),
    ('game = "chess"\nplayers = 2\n[[seats]]\npolicy = "random"\n', "game: unknown game 'chess'"),
    ('game = "toy"\nexpansions = ["x"]\nplayers = 2\n[[seats]]\npolicy = "random"\n',
     "expansions: unknown expansion 'x'"),
    ('game = "toy"\nplayers = 9\n[[seats]]\npolicy = "random"\n', "players: 9 is outside toy's range"),
    ('game = "toy"\nplayers = 5\n[[seats]]\npolicy = "random"\n', "players: 5 is outside toy's range (allowed: 2..4; 5 players need the bonus expansion)"),
    ('game = "toy"\nplayers = "3"\n[[seats]]\npolicy = "random"\n', "players: must be an integer"),
    ('game = "toy"\nplayers = 3\ngames = 0\n[[seats]]\npolicy = "random"\n', "games: must be at least 1"),
    ('game = "toy"\nplayers = 3\ngames = -5\n[[seats]]\npolicy = "random"\n', "games: must be at least 1"),
    ('game = "toy"\nplayers = 3\nseed = -1\n[[seats]]\npolicy = "random"\n', "seed: must be in"),
    ('game = "toy"\nplayers = 3\n[rules]\ncards = ["jester"]\n[[seats]]\npolicy = "random"\n',
     "rules.cards: must be a non-empty list of peasant, merchant, sultan, trader (got 'jester' in ['jester'])"),
    ('game = "toy"\nplayers = 3\n[rules]\nspeed = 2\n[[seats]]\npolicy = "random"\n',
     "rules.speed: unknown rule option"),
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "genius"\n', "seats[0]: unknown policy 'genius'"),
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "biased"\nparams = { nerve = 1 }\n',
     "seats[0].params.nerve: unknown parameter"),
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "biased"\nparams = { boost = "high" }\n',
     "seats[0].params.boost: must be float"),
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "biased"\nparams = { chance = 1.5 }\n',
     "seats[0].params.chance: must be in [0, 1] (got 1.5)"),
    ('game = "toy"\nplayers = 3\n[[seats]]\npolicy = "random"\n[[seats]]\npolicy = "random"\n',
     "seats: 2 entries for 3 players"),
    ('game = "toy"\nplayers = 2\n', "seats: missing"),
    (('game = "toy"\nplayers = 2\n[[seats]]\npolicy = "random"\n[[variants]]\nname = "a"\n'
     '[[variants]]\nname = "a"\n'), "variants[1].name: duplicate variant name 'a'"),
    ('game = "toy"\nplayers = 2\n[[seats]]\npolicy = "random"\n[[variants]]\nname = "base"\n',
     "variants[0].name: 'base' is reserved"),
    (('game = "toy"\nplayers = 2\n[[seats]]\npolicy = "random"\n[[variants]]\nname = "v"\n'
     'rules = { cards = ["x"] }\n'), "variants[0].rules.cards: must be a non-empty list of peasant, merchant, sultan, trader (got 'x' in ['x'])"),
    (('game = "toy"\nplayers = 2\n[[seats]]\npolicy = "biased"\n[[seats]]\npolicy = "biased"\n'
     'params = { boost = 0.1 }\n'), "seats[1].name: two seats named 'biased' differ"),
    ('game = "toy"\nplayers = 2\nseat_rotation = "yes"\n[[seats]]\npolicy = "random"\n',
     "seat_rotation: must be true or false"),
    ('game = "toy"\nplayers = [2\n', "malformed TOML"),
]


@pytest.mark.parametrize(("text", "expected"), BAD, ids=[b[1][:40] for b in BAD])
def test_bad_scenario_names_file_and_field(write_scenario, text, expected):
    path = write_scenario(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: ") and expected in msg
    assert "\n" not in msg


def test_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="nope.toml: file not found"):
        load_scenario(tmp_path / "nope.toml")


def test_overrides_validated(toy_file):
    sc = load_scenario(toy_file)
    with pytest.raises(ScenarioError, match="^games: "):
        with_overrides(sc, games=0)
    with pytest.raises(ScenarioError, match="^seed: "):
        with_overrides(sc, seed=-3)


_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**20), st.floats(),
                     st.text(max_size=8), st.sampled_from(["toy", "random", "biased", "sultan"]))
_values = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=3)
                       | st.dictionaries(st.sampled_from(["policy", "params", "name", "rules",
                                                          "cards", "sides", "boost", "seats"]),
                                         kids, max_size=3), max_leaves=8)
_keys = st.sampled_from(["name", "game", "expansions", "players", "games", "seed", "rules",
                         "seats", "variants", "seat_rotation", "bogus"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_keys, _values, max_size=8), st.booleans())
def test_fuzz_loader_only_raises_scenario_error(data, toy_game):
    """Whatever the content, the loader returns a Scenario or raises ScenarioError."""
    if toy_game:
        data = {"game": "toy", "players": 2, "seats": [{"policy": "random"}], **data}
    try:
        parse_scenario(data)
    except ScenarioError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_toml_text_only_raises_scenario_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "f.toml"
    path.write_bytes(text.encode("utf-8", "replace"))
    try:
        load_scenario(path)
    except ScenarioError:
        pass


def test_a_study_file_given_as_a_parameters_file_says_what_it_is(tmp_path):
    from analyzer.games import get_game
    from analyzer.scenario import read_params_file

    spec = get_game("cartus")
    for body, kind in [('[[entrants]]\npolicy = "random"\n', "a tournament pool"),
                       ('[[seats]]\npolicy = "random"\n', "a scenario")]:
        path = tmp_path / "study.toml"
        path.write_text('game = "cartus"\n' + body)
        with pytest.raises(ScenarioError, match=f"this is {kind}, not a parameters file"):
            read_params_file(path, None, spec, "greedy")
