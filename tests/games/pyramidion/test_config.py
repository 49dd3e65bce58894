"""Config, data tables and rule options (docs/rules/pyramidion.md §2, §3, §7–§10, §12)."""

from __future__ import annotations

import pytest

from analyzer.errors import RuleError
from analyzer.games.pyramidion import SPEC
from analyzer.games.pyramidion.config import CARD_TYPES, GOODS, make_config


def test_s2_player_count_2_to_4():
    """§2: 2–4 players; 5 (and 1) are bad input."""
    for n in (2, 3, 4):
        assert make_config(n).players == n
    for n in (1, 5):
        with pytest.raises(RuleError) as err:
            make_config(n)
        assert err.value.field == "players" and "2..4" in err.value.message


def test_s2_no_expansions():
    """Contract: Pyramidion has no expansions; naming one is a RuleError."""
    with pytest.raises(RuleError) as err:
        make_config(4, ["africanus"])
    assert err.value.field == "expansions"


def test_t17_eight_sites():
    """T17 (§7): exactly the 8 sites named in S12."""
    cfg = make_config(4)
    assert sorted(cfg.site_names) == sorted(
        ["Giza", "Thebes", "Alexandria", "Philae", "Abu Simbel", "Luxor", "Cairo", "Karnak"])
    assert SPEC.content["sites"] == cfg.site_names


def test_t21_default_data_counts():
    """T21 (§3, §5 phase 2, §8, §9, §10.2): 48 common cards; 20 boats, 70 goods, 70 VP,
    14 units of each kind; 10 distribution cards of 12 goods, 24 per kind; 6 revolt tiles = 39."""
    cfg = make_config(4)
    assert cfg.n_common == 48
    counts = {t: sum(1 for c in range(48) if cfg.card_type[c] == i) for i, t in enumerate(CARD_TYPES)}
    assert counts["merchant"] == 12 and counts["negotiator"] == 16 and counts["slave_driver"] == 8
    assert counts["revolt"] == 3 and counts["goddess"] == 0
    assert len(cfg.boat_names) == 20
    assert sum(map(sum, cfg.boat_need)) == 70 and sum(cfg.boat_vp) == 70
    assert [sum(b[k] for b in cfg.boat_need) for k in range(5)] == [14] * 5
    assert len(cfg.dist_goods) == 10 and all(sum(d) == 12 for d in cfg.dist_goods)
    per_kind = [0] * 5
    for d in cfg.dist_goods:
        for s, n in enumerate(d):
            per_kind[cfg.site_kind[s]] += n
    assert per_kind == [24] * 5
    assert len(cfg.revolt_strength) == 6 and sum(cfg.revolt_strength) == 39
    assert cfg.supply_start == (35, 35, 35, 35, 35, 10)


def test_s3_1_goods_supply_set_from_scenario():
    """§3.1: 35 per ordinary good and 10 statues are labelled defaults a scenario may change."""
    cfg = make_config(4, (), {"supply_per_good": 20, "statues": 0})
    assert cfg.supply_start == (20, 20, 20, 20, 20, 0)
    vals = {v.name: v for v in SPEC.rule_values(make_config(4))}
    assert (vals["supply_per_good"].value, vals["supply_per_good"].provenance) == (35, "default")
    assert (vals["statues"].value, vals["statues"].provenance) == (10, "default")
    with pytest.raises(RuleError, match=r"^statues: must be an integer 0..1000 \(got -1\)"):
        make_config(4, (), {"statues": -1})


def test_s4_starting_decks():
    """§4: each player has 2 merchants, 1 negotiator, 1 slave driver, 1 Goddess (5 cards)."""
    cfg = make_config(3)
    assert len(cfg.starting) == 3
    for seat, ids in enumerate(cfg.starting):
        types = sorted(CARD_TYPES[cfg.card_type[c]] for c in ids)
        assert types == ["goddess", "merchant", "merchant", "negotiator", "slave_driver"]
        assert all(cfg.card_owner[c] == seat for c in ids)
    assert cfg.goddess_value == 3


def test_s9_bordspeler_boat_set():
    """§9 variant: B5/B10/B15/B20 replaced by X1–X4, VP = size − 1 (80 goods, 60 VP)."""
    cfg = make_config(4, (), {"boat_set": "bordspeler"})
    assert len(cfg.boat_names) == 20 and "X1" in cfg.boat_names and "B5" not in cfg.boat_names
    assert sum(map(sum, cfg.boat_need)) == 80 and sum(cfg.boat_vp) == 60


def test_s12_every_option_has_a_default_and_help():
    """§12: every suggested scenario option is a named rule option with its default."""
    for name in ("target_vp", "deck", "boat_set", "distribution", "executioner", "philosopher",
                 "supply_limited", "goods_visible", "revolt_winner_must_survive", "no_tile_left",
                 "giza_tile_lost_on_revolt", "loading_pass_is_final",
                 "phase8_slave_driver_benefit", "discard_unplayed_drawn_cards", "tiebreak",
                 "start_player", "boat_vp_public", "max_rounds", "sites_file", "cards_file",
                 "boats_file", "revolt_tiles_file", "distribution_file"):
        assert name in SPEC.options, name
    cfg = make_config(4)
    assert cfg.target_vp == 10 and cfg.max_rounds == 50 and cfg.tiebreak == ("boats", "goods", "shared")


@pytest.mark.parametrize("rules, field, text", [
    ({"jester": 1}, "jester", "unknown rule option"),
    ({"target_vp": 0}, "target_vp", "integer 1..1000"),
    ({"target_vp": "10"}, "target_vp", "integer 1..1000"),
    ({"supply_per_good": -1}, "supply_per_good", "integer 0..1000"),
    ({"executioner": "hang"}, "executioner", "discard_on_play"),
    ({"supply_limited": "yes"}, "supply_limited", "true or false"),
    ({"tiebreak": ["goods", "boats"]}, "tiebreak", "shared"),
    ({"tiebreak": ["vp", "shared"]}, "tiebreak", "boats"),
    ({"start_player": 4}, "start_player", "0..3"),
    ({"phase8_slave_driver_benefit": "gold"}, "phase8_slave_driver_benefit", "keep_card"),
])
def test_s12_bad_option_values(rules, field, text):
    """§12: a bad option value raises RuleError naming the field and what is allowed."""
    with pytest.raises(RuleError) as err:
        make_config(4, (), rules)
    assert err.value.field == field and text in err.value.message


def test_s12_user_tables_missing_and_malformed(tmp_path):
    """User tables: a missing or malformed file names the field and the problem."""
    with pytest.raises(RuleError) as err:
        make_config(4, (), {"sites_file": str(tmp_path / "nope.toml")})
    assert err.value.field == "sites_file" and "not found" in err.value.message
    bad = tmp_path / "bad.toml"
    bad.write_text("[[site]\nname = ")
    with pytest.raises(RuleError) as err:
        make_config(4, (), {"boats_file": str(bad)})
    assert err.value.field == "boats_file" and "not valid TOML" in err.value.message


@pytest.mark.parametrize("field, text, message", [
    ("boats_file", '[[boat]]\nname = "Z"\ngoods = { gold = 1 }\nvp = 1\n', "unknown good 'gold'"),
    ("boats_file", '[[boat]]\nname = "Z"\ngoods = { stone = 0 }\nvp = 1\n', "asks for no goods"),
    ("revolt_tiles_file", '[[tile]]\nstrength = 4\ngood = "stone"\n', "3 revolt cards"),
    ("revolt_tiles_file", '[[tile]]\nstrength = -4\ngood = "stone"\n', "integer 0..1000"),
    ("cards_file", '[[starting]]\ntype = "jester"\n[[common]]\ntype = "merchant"\ntrade = 2\n',
     "unknown card type 'jester'"),
    ("distribution_file", '[[card]]\nname = "D"\ngoods = { Memphis = 2 }\n', "unknown site 'Memphis'"),
    ("sites_file", ('[[site]]\nname = "Giza"\nproduces = "worker"\nmin_influence = 4\n'
                    'min_negotiation = 4\nmin_trade = 4\n'), "too few"),
])
def test_s12_user_tables_inconsistent(tmp_path, field, text, message):
    """User tables: an inconsistent table raises RuleError(field, what is wrong/allowed)."""
    path = tmp_path / "t.toml"
    path.write_text(text)
    with pytest.raises(RuleError) as err:
        make_config(4, (), {field: str(path)})
    assert err.value.field == field and message in err.value.message


def test_s12_user_boat_table_is_used_and_marked_user(tmp_path):
    """A valid user boat table replaces the built-in one; rule_values marks it "user"."""
    path = tmp_path / "boats.toml"
    path.write_text('[[boat]]\nname = "Tiny"\ngoods = { stone = 1 }\nvp = 7\n')
    cfg = make_config(2, (), {"boats_file": str(path)})
    assert cfg.boat_names == ("Tiny",) and cfg.boat_need == ((1, 0, 0, 0, 0),) and cfg.boat_vp == (7,)
    vals = {v.name: v for v in SPEC.rule_values(cfg)}
    assert vals["boat.Tiny"].provenance == "user"
    assert vals["boats_file"].provenance == "user"
    assert vals["site.Giza"].provenance == "default"


def test_rule_values_list_tables_with_provenance():
    """rule_values: every table entry and option, provenance in {seed, rulebook, default, user}."""
    vals = SPEC.rule_values(make_config(4))
    names = {v.name for v in vals}
    assert {"target_vp", "boats_on_display", "site.Cairo", "boat.B20", "revolt_tile.6",
            "distribution.D10"} <= names
    assert {v.provenance for v in vals} <= {"seed", "rulebook", "default", "user"}
    assert any(v.provenance == "rulebook" for v in vals)
    assert GOODS[5] == "statue" and len(GOODS) == 6


def test_s12_option_provenance_user_when_set():
    """rule_values: an option the scenario sets is "user", even when set to its default value."""
    cfg = make_config(4, (), {"tiebreak": ["boats", "goods", "shared"], "target_vp": 12})
    vals = {v.name: v for v in SPEC.rule_values(cfg)}
    assert vals["tiebreak"].provenance == "user" and vals["tiebreak"].value == ("boats", "goods", "shared")
    assert vals["start_player"].provenance == "default"
    assert vals["target_vp"].provenance == "user" and vals["target_vp"].value == 12
    assert cfg.target_vp == 12


def test_s10_card_type_constants_match_the_type_names():
    """§10: the engine's card-type and ability numbers index CARD_TYPES and ABILITIES."""
    from analyzer.games.pyramidion import config as c

    for name in c.CARD_TYPES:
        assert c.CARD_TYPES.index(name) == getattr(c, name.upper())
    for name in c.ABILITIES:
        assert c.ABILITIES.index(name) == getattr(c, "NO_ABILITY" if name == "none" else name.upper())


def test_s3_s10_1_revolt_cards_are_not_special_cards():
    """§3 and §10.1 list revolt cards as a type of their own beside the special cards: the
    special cards are the Goddess and the six §10.2 specials, and only those are ablated."""
    from analyzer.games.pyramidion.config import SPECIAL_CARDS

    assert SPECIAL_CARDS == ("goddess", "high_priest", "executioner", "stone_dragger", "thief",
                             "bandit", "philosopher")
    assert SPEC.content["cards"] == CARD_TYPES
    ablated = {a.item for a in SPEC.ablations(make_config(4, (), {}))}
    assert ablated == set(SPECIAL_CARDS) - {"goddess"}
