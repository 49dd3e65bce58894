"""Rattus Cartus config: rule options, building selection, user data tables (docs/rules/cartus.md §2, §3, §9)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from analyzer.errors import RuleError
from analyzer.games.cartus import (
    SPEC,
    building_set_id,
    default_config,
    make_config,
    one_per_class_sets,
)
from analyzer.games.cartus.config import DEFAULT_BUILDINGS, OPTIONS
from analyzer.games.cartus.metrics import _building_columns
from analyzer.model.base import build_policy


def test_spec_contract():
    """GameSpec fields: 2–5 players, no expansions, 12 buildings, policies registered."""
    assert (SPEC.name, SPEC.min_players, SPEC.max_players, SPEC.expansions) == ("cartus", 2, 5, ())
    assert len(SPEC.content["buildings"]) == 12
    assert set(SPEC.policies) == {"random", "greedy", "cautious", "ismcts"}
    assert SPEC.options is OPTIONS
    assert SPEC.new_state is not None


def test_s9_every_option_in_rule_values():
    """rules §9: every rule option that acts (a value, not a 2-player or explicit-set option) and
    every table is listed with the provenance its declaration gives."""
    vals = {v.name: v for v in SPEC.rule_values(default_config(4))}
    for opt in OPTIONS:
        if opt.default is not None and opt.name != "guard_tower_2p":
            assert vals[opt.name].provenance == opt.provenance, opt.name
    assert "guard_tower_2p" not in vals and "guard_tower_2p" in {v.name for v in SPEC.rule_values(default_config(2))}
    assert vals["track_points"].provenance == "rulebook"  # §7.2: two independent reviews [C:7][C:13]
    assert vals["building.palace"].provenance == "rulebook"
    assert vals["building.magic_b"].provenance == "default"
    assert vals["supply_icons_per_copy"].provenance == "default"
    assert {v.name: v for v in SPEC.rule_values(default_config(4, tie_mode="nobody_premium"))}[
        "tie_mode"].provenance == "user"


@pytest.mark.parametrize("players,expansions,rules,field", [
    (6, (), {}, "players"),
    (1, (), {}, "players"),
    (4, ("nobilis",), {}, "expansions"),
    (4, (), {"joker_count": 3}, "joker_count"),
    (4, (), {"tie_mode": "coin"}, "tie_mode"),
    (4, (), {"flute_rats": 0}, "flute_rats"),
    (4, (), {"last_round_actions": "yes"}, "last_round_actions"),
    (4, (), {"track_points": ["ten"]}, "track_points"),
    (4, (), {"buildings": ["palace", "jester"]}, "buildings"),
    (4, (), {"buildings": ["palace", "monastery", "office", "castle", "farm"]}, "buildings"),
    (4, (), {"buildings": ["palace", "treasury", "monastery", "office", "castle", "farm"]}, "buildings"),
    (4, (), {"buildings": ["palace:6"]}, "buildings"),
    (4, (), {"building_selection": "random_cards", "buildings": list(one_per_class_sets()[0])}, "buildings"),
    (4, (), {"building_selection": "explicit"}, "buildings"),
])
def test_s3_bad_options_raise_rule_error(players, expansions, rules, field):
    """rules §3/§9: bad player counts, expansions, options and building lists name their field."""
    with pytest.raises(RuleError) as err:
        make_config(players, expansions, rules)
    assert err.value.field == field


def test_s6_flute_rats_bounds_come_from_the_declaration():
    """§6: a Flute moves at least 1 rat; list rules says so (it once said ">= 0" and refused 0)."""
    assert "allowed: integer 1..20;" in OPTIONS.describe("flute_rats")
    assert make_config(4, (), {"flute_rats": 1}).flute_rats == 1
    with pytest.raises(RuleError, match=r"^flute_rats: must be an integer 1\.\.20 \(got 0\)"):
        make_config(4, (), {"flute_rats": 0})


def test_s3_unknown_building_lists_allowed_names():
    """rules §3 mode (a): an unknown building name lists the allowed names."""
    with pytest.raises(RuleError, match="allowed: palace, treasury"):
        make_config(4, (), {"buildings": ["jester"]})


def test_s3_explicit_card_list():
    """rules §3 mode (a): 30 'building:copy' cards, 5 per class, are accepted as written."""
    names = ["palace:1", "palace:2", "treasury:3", "treasury:4", "treasury:5", "monastery", "office",
             "guard_tower", "farm", "magic_b"]
    cfg = make_config(2, (), {"buildings": names})
    assert cfg.selection == "explicit" and len(cfg.fixed_cards) == 30
    assert cfg.building_names.index("guard_tower") in {cfg.card_building[c] for c in cfg.fixed_cards}


def test_one_per_class_sets_and_ids():
    """The 64 one-building-per-class selections, canonical order and ids."""
    sets = one_per_class_sets()
    assert len(sets) == 64 and len(set(sets)) == 64
    assert sets[0] == ("palace", "monastery", "office", "guard_tower", "farm", "fortune_tellers_tent")
    assert sets[-1] == ("treasury", "hospital", "marketplace", "castle", "brewery", "magic_b")
    ids = {building_set_id(s) for s in sets}
    assert len(ids) == 64
    assert building_set_id(reversed(sets[5])) == building_set_id(sets[5]) == "+".join(sets[5])
    for s in sets[:3]:
        assert len(make_config(4, (), {"buildings": list(s)}).fixed_cards) == 30


def test_user_table_override_and_errors(tmp_path):
    """User data tables: a valid file is used with provenance 'user'; bad ones name the field."""
    good = tmp_path / "icons.toml"
    good.write_text('[default]\nvalue = ["D4", "D4", "D4", "D4", "D4"]\nprovenance = "user"\n')
    cfg = make_config(4, (), {"supply_icons_file": str(good)})
    assert set(cfg.card_icons) == {(4, 0, 0)}
    vals = {v.name: v for v in SPEC.rule_values(cfg)}
    assert vals["supply_icons_per_copy"].provenance == "user"
    bad = tmp_path / "bad.toml"
    bad.write_text('[default]\nvalue = ["D4", "X1", "D4", "D4", "D4"]\n')
    with pytest.raises(RuleError, match="bad icon") as err:
        make_config(4, (), {"supply_icons_file": str(bad)})
    assert err.value.field == "supply_icons_file"
    with pytest.raises(RuleError, match="file not found") as err:
        make_config(4, (), {"buildings_file": str(tmp_path / "missing.toml")})
    assert err.value.field == "buildings_file"
    broken = tmp_path / "broken.toml"
    broken.write_text("[[building]\nname=")
    with pytest.raises(RuleError, match="not valid TOML"):
        make_config(4, (), {"components_file": str(broken)})


def test_user_components_inconsistent(tmp_path):
    """components_file: a nun split that does not add up to the class size is refused."""
    text = (Path(__file__).parents[3] / "analyzer" / "games" / "cartus" / "data" / "components.toml").read_text().replace("[[4, 4], [3, 2]", "[[4, 5], [3, 2]")
    path = tmp_path / "comp.toml"
    path.write_text(text)
    with pytest.raises(RuleError, match="must equal population_per_class") as err:
        make_config(4, (), {"components_file": str(path)})
    assert err.value.field == "components_file"


def test_policy_params_validated():
    """Policies are frozen dataclasses with checked, typed parameters."""
    assert build_policy(SPEC.policies, "greedy", {"life_value": 10}).life_value == 10.0
    with pytest.raises(RuleError):
        build_policy(SPEC.policies, "random", {"play_prob": 1.5})
    with pytest.raises(RuleError):
        build_policy(SPEC.policies, "cautious", {"rat_buffer": -1})
    with pytest.raises(RuleError):
        build_policy(SPEC.policies, "greedy", {"bogus": 1})


@settings(max_examples=200, deadline=None)
@given(picks=st_.lists(st_.integers(0, 5), min_size=6, max_size=6), per_card=st_.booleans())
def test_record_building_columns_match_building_set_id(picks, per_card):
    """rules §3: the game record's set id (from per-building counts) equals building_set_id."""
    counts = []
    for a in picks:  # per class: a cards of building A, 5 - a of building B (or all 5 of one)
        counts += [a, 5 - a] if per_card else [5 * (a % 2), 5 * (1 - a % 2)]
    names = [b for b, k in zip(DEFAULT_BUILDINGS, counts) for _ in range(k)]
    if not per_card:
        names = [b for b, k in zip(DEFAULT_BUILDINGS, counts) if k]
    assert _building_columns(tuple(counts))[0] == building_set_id(names)
