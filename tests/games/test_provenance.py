"""Every rule value's provenance agrees with its tag in the game's rules reference, at every
player count, with and without expansions; and only values that acted are listed.

The tables below were written from the tags of ``docs/rules/<game>.md`` (``[seed]`` -> seed,
``[rulebook n]`` and ``[review n]`` -> rulebook, i.e. sourced; ``[GAP → DEFAULT]`` -> default),
not from the code; the comment on each row names the section that carries the tag.
"""

from __future__ import annotations

import fnmatch

import pytest

from analyzer.games import available_games, get_game
from analyzer.model.base import PROVENANCES


def _five_six(players: int, exps: tuple[str, ...]) -> str:
    return "default" if players >= 5 else "rulebook"


# docs/rules/rattus.md (§13 parameter sheet and the sections below)
def _tokens_removed(players: int, exps: tuple[str, ...]) -> str:
    return "default" if exps else "rulebook"  # §5.3: base rows [review 18]; Africanus 3 per region [GAP]


RATTUS = {
    "cubes_per_player": _five_six,  # §3.1 [rulebook 3]; §3.2, §11 colours 5-6 [GAP → DEFAULT]
    "rat_cap": "rulebook",  # §7 C.2, §13 [review 14], [review 28]
    "spread_table": "rulebook",  # §13 [review 28]
    "knight_range": "rulebook",  # §8.1 [review 14]
    "knight_range_5_6": "rulebook",  # §8.1, §11 [review 7]
    "knight_adds_two_neutral_cubes": "default",  # §8.1 one review's claim, rejected
    "opening_pairs_distinct_regions": "default",  # §6.1 step 7 [GAP → DEFAULT]
    "placement_mandatory": "default",  # §7 B, §13 disputed (Q18), [GAP → DEFAULT]
    "knight_moves_plague_in_final_round": "default",  # §10.2, §13 (Q21), [GAP → DEFAULT]
    "africanus_tokens_replace_base": "default",  # §3.2 [GAP → DEFAULT]
    "base_tokens_removed": "rulebook",  # §5.3 [review 18]
    "africanus_tokens_removed_per_unused_region": "default",  # §5.3 [GAP → DEFAULT]
    "class_cards_in_play": "rulebook",  # §6.2 step 2 [review 7]
    "class_cards_in_play_5_6": "rulebook",  # §6.2 step 2, §11 [review 9]
    "same_class_cards_stack": "default",  # §5.1 for Islam cards [GAP → DEFAULT]
    "region_cards_dealt": "rulebook",  # §6.2 step 4 [review 9], [review 10]
    "region_card_must_match_plague_region": "default",  # §9 [GAP → DEFAULT]
    "region_card_points": "default",  # §9 value [GAP → DEFAULT]
    "region_card_majority_ties_count": "default",  # §9 ties [GAP → DEFAULT]
    "explorer_cubes": "default",  # §8.2 [GAP → DEFAULT]
    "astronomer_leftovers": "default",  # §8.2 [GAP → DEFAULT]
    "diplomat_discs": "rulebook",  # §3.2 [review 9]
    "diplomat_points_first": "seed",  # §2.3 [seed]
    "diplomat_points_second": "seed",  # §2.3 [seed]
    "diplomat_tie_first_pool": "seed",  # §2.3 [seed]
    "diplomat_tie_second_pool": "seed",  # §2.3 [seed]
    "diplomat_2p_tie_points": "default",  # §12 Q10 [GAP → DEFAULT]
    "caravan_start": "default",  # §6.2 step 6 [GAP → DEFAULT]
    "plague_start": "default",  # §6.1 step 5 a random region in use [GAP → DEFAULT]
    "max_rounds": "default",  # §13 simulator guard, not a rule
    "max_turns": "default",  # §13 simulator guard, not a rule
    "map": "default",  # §4.2, §4.3 [GAP → DEFAULT]
    "tokens": "default",  # §5.2 [GAP → DEFAULT]
    "tokens_removed": _tokens_removed,
    "region_cards": "default",  # §9 [GAP → DEFAULT]
    "class_cards": lambda p, e: "default" if e else "rulebook",  # §6.1 [rulebook 2]; §6.2 the draw [GAP → DEFAULT]
}

# docs/rules/cartus.md (§9 parameter sheet and the sections below)
CARTUS = {
    "population_per_class": "rulebook",  # §2 [rulebook 4], [review 12]
    "copies_per_building": "seed",  # §2 [seed], [rulebook 4]
    "jokers": "rulebook",  # §2 [rulebook 4], [rulebook 5]
    "swords": "rulebook", "flutes": "rulebook", "passes": "rulebook", "gold": "rulebook",  # §2 [rulebook 4]
    "vp_tokens": "rulebook",  # §2 [rulebook 5]
    "start_rats": "seed",  # §3 [seed]
    "start_hand": "seed",  # §3 [seed]
    "nun_row": "seed",  # §3 [seed]
    "nun_split_per_class": "default",  # §2 the even split per class [GAP → DEFAULT]
    "player_counts": "seed",  # §1 [seed]
    "first_game": "seed",  # §1 [seed]
    "supply_icons_per_copy": "default",  # §4 phase B [GAP → DEFAULT]
    "building.magic_b": "default",  # §2, §5 the 12th building [GAP → DEFAULT]
    "building.*": "rulebook",  # §5 [rulebook 3]
    "track_points": "rulebook",  # §7.2 10 / 5 / 2 [review 7], [review 13]
    # every other parameter of §9 is a [GAP → DEFAULT]
    **{name: "default" for name in (
        "building_selection", "guard_tower_2p", "tie_mode", "premium_min_cards", "sword_target",
        "sword_chooser", "flute_target", "flute_rats", "pass_mode", "vp_token_value", "track_tie",
        "hand_scoring", "gold_scoring", "dead_excluded_from_majorities", "all_dead_result",
        "last_round_actions", "building_spaces", "start_player", "guard_tower_givers", "rats_visible")},
}

# docs/rules/pyramidion.md (§12 scenario options and the sections below)
PYRAMIDION = {
    "boats_on_display": "rulebook",  # §5 phase 1 [review S6], [review S7]
    "cards_drawn_per_round": "rulebook",  # §5 phase 4
    "activations_per_player": "rulebook",  # §5 phase 5
    "tiles_per_colour": "rulebook",  # §3 [review S5]
    "goddess_value": "default",  # §10.2 [GAP → DEFAULT]
    "target_vp": "rulebook",  # §6 10 VP [rulebook S3]
    "supply_per_good": "default", "statues": "default",  # §3.1 [GAP → DEFAULT]
    # every other option of §12 and every table row is a [GAP → DEFAULT]
    **{name: "default" for name in (
        "deck", "boat_set", "distribution", "executioner", "philosopher", "supply_limited",
        "goods_visible", "revolt_winner_must_survive", "no_tile_left", "giza_tile_lost_on_revolt",
        "loading_pass_is_final", "phase8_slave_driver_benefit", "discard_unplayed_drawn_cards",
        "tiebreak", "start_player", "boat_vp_public", "max_rounds", "site.*", "card.*", "boat.*",
        "revolt_tile.*", "distribution.*")},
}

TABLES = {"rattus": RATTUS, "cartus": CARTUS, "pyramidion": PYRAMIDION}


def _table(game: str) -> dict:
    """The provenance table of ``game``, written from its rules file."""
    assert game in TABLES, f"{game}: no provenance table in this test (write one from docs/rules/{game}.md)"
    return TABLES[game]


def _settings(game: str):
    spec = get_game(game)
    for players in range(spec.min_players, spec.max_players + 1):
        for exps in ((), *((e,) for e in spec.expansions)):
            if players <= max([spec.players.high, *(spec.players.raised.get(e, 0) for e in exps)]):
                yield players, exps


def _expected(table: dict, name: str, players: int, exps: tuple[str, ...]) -> str:
    key = name if name in table else next((k for k in table if fnmatch.fnmatchcase(name, k)), None)
    assert key is not None, f"{name}: no row in the provenance table (add one from the rules file)"
    tag = table[key]
    return tag(players, exps) if callable(tag) else tag


@pytest.mark.parametrize("game", available_games())
def test_rule_value_provenance_matches_the_rules_file(game):
    """Every rule value of every setting carries the tag of its rules reference."""
    spec = get_game(game)
    for players, exps in _settings(game):
        for rv in spec.rule_values(spec.make_config(players, exps, {})):
            want = _expected(_table(game), rv.name, players, exps)
            assert rv.provenance == want, f"{game} {players}p {exps}: {rv.name} is {rv.provenance!r}, rules file: {want}"
            assert rv.section.startswith(f"docs/rules/{game}.md §"), rv


@pytest.mark.parametrize("game", available_games())
def test_option_declarations_carry_rules_file_tags(game):
    """The declared provenance of every option (at each player count) is a rules-file tag and
    agrees with the table; the default passes the option's own check."""
    spec = get_game(game)
    for opt in spec.options:
        assert opt.provenance in PROVENANCES and set(opt.provenance_at.values()) <= set(PROVENANCES)
        if opt.default is not None:
            assert opt.check(opt.default) == (tuple(opt.default) if isinstance(opt.default, list) else opt.default)
        if opt.type.__name__ == "Path" or opt.default is None:
            continue
        for players, exps in _settings(game):
            got = opt.provenance_at.get(players, opt.provenance)
            assert got == _expected(_table(game), opt.name, players, exps), (opt.name, players)


def test_cubes_per_player_at_5_6_players_is_a_labelled_default():
    """docs/rules/rattus.md §3.2, §11: 20 cubes for colours 5-6 is a labelled default, listed in use."""
    spec = get_game("rattus")
    for players, want in ((4, "rulebook"), (5, "default"), (6, "default")):
        vals = {v.name: v for v in spec.rule_values(spec.make_config(players, ("africanus",), {}))}
        assert (vals["cubes_per_player"].value, vals["cubes_per_player"].provenance) == (20, want)
    user = spec.make_config(6, ("africanus",), {"cubes_per_player": 20})
    assert {v.name: v.provenance for v in spec.rule_values(user)}["cubes_per_player"] == "user"


@pytest.mark.parametrize("game, rules", [
    ("rattus", {"max_rounds": 100}), ("cartus", {"tie_mode": "all_tied_premium"}),
    ("pyramidion", {"max_rounds": 50}),
])
def test_user_means_set_by_the_scenario(game, rules):
    """One meaning of "user" in every game: the scenario sets the option, even to its default."""
    spec = get_game(game)
    exps = ("africanus",) if game == "rattus" else ()
    vals = {v.name: v.provenance for v in spec.rule_values(spec.make_config(4, exps, rules))}
    assert all(vals[name] == "user" for name in rules)
    default = {v.name: v.provenance for v in spec.rule_values(spec.make_config(4, exps, {}))}
    assert all(default[name] != "user" for name in rules)


def _names(game, players, exps=(), rules=None):
    spec = get_game(game)
    return {v.name for v in spec.rule_values(spec.make_config(players, exps, rules or {}))}


def test_cartus_explicit_buildings_list_only_what_acted():
    """With explicit ``buildings`` the selection is the scenario's, not
    ``random_cards``; ``building_set_name`` and buildings out of play are not listed."""
    spec = get_game("cartus")
    first = ["palace", "monastery", "marketplace", "castle", "farm", "fortune_tellers_tent"]
    vals = {v.name: v for v in spec.rule_values(spec.make_config(4, (), {"buildings": first}))}
    assert (vals["building_selection"].value, vals["building_selection"].provenance) == ("explicit", "user")
    assert "building_set_name" not in vals and "building.magic_b" not in vals and "building.palace" in vals
    # no Office, Magic B, Treasury or Guard Tower: Pass, Flute, Gold and Guard Tower options never act
    assert not {"pass_mode", "flute_rats", "flute_target", "gold_scoring", "guard_tower_givers"} & set(vals)
    assert {"sword_target", "vp_token_value"} <= set(vals)
    assert "guard_tower_2p" in _names("cartus", 2) and "guard_tower_2p" not in _names("cartus", 3)


def test_rattus_values_listed_only_where_they_act():
    """Options for 5-6 players, Africanus, the 2-player Sultan tie or absent cards are not listed."""
    base4 = _names("rattus", 4)
    assert "knight_range" in base4 and "knight_range_5_6" not in base4 and "diplomat_discs" not in base4
    assert "region_card_points" not in base4 and "base_tokens_removed" in base4
    afr6 = _names("rattus", 6, ("africanus",))
    assert "knight_range_5_6" in afr6 and "knight_range" not in afr6 and "class_cards_in_play" not in afr6
    assert "base_tokens_removed" not in afr6 and "diplomat_2p_tie_points" not in afr6
    assert "diplomat_2p_tie_points" in _names("rattus", 2, ("africanus",))
    no_sultan = _names("rattus", 4, ("africanus",), {"class_cards": ["knight", "monk", "witch", "king",
                                                                     "merchant", "trader"]})
    assert not {"diplomat_discs", "explorer_cubes", "astronomer_leftovers", "same_class_cards_stack"} & no_sultan
    assert "caravan_start" in no_sultan


def test_pyramidion_values_listed_only_where_they_act():
    """The supply sizes act only with a limited supply; deck/boat_set give way to a user table."""
    assert {"supply_per_good", "statues"} <= _names("pyramidion", 4)
    assert not {"supply_per_good", "statues"} & _names("pyramidion", 4, (), {"supply_limited": False})
