"""Config building and validation: rule options, class cards, user tables (docs/rules/rattus.md §13)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analyzer.errors import RuleError
from analyzer.games.rattus import SPEC, default_config, play_game
from analyzer.games.rattus.config import OPTIONS

DATA = Path(__file__).parents[3] / "analyzer" / "games" / "rattus" / "data"
AFR = ("africanus",)

# Every [GAP → DEFAULT] of the rules file that is a parameter, as a named option with its default.
GAP_DEFAULTS = {
    "knight_adds_two_neutral_cubes": False, "opening_pairs_distinct_regions": True,
    "africanus_tokens_replace_base": True, "africanus_tokens_removed_per_unused_region": 3,
    "region_card_must_match_plague_region": False, "region_card_points": 1,
    "region_card_majority_ties_count": True, "explorer_cubes": 1, "astronomer_leftovers": "discard",
    "diplomat_2p_tie_points": 3, "max_rounds": 100, "same_class_cards_stack": True,
    "caravan_start": "random", "plague_start": "random", "placement_mandatory": False,
    "knight_moves_plague_in_final_round": False,
}


def test_s13_gap_defaults_are_named_options_with_default_provenance():
    """§13: each labelled default is a rule option; rule_values marks it "default" (or "user")."""
    vals = {v.name: v for v in SPEC.rule_values(SPEC.make_config(4, AFR, {}))}
    vals_2p = {v.name: v for v in SPEC.rule_values(SPEC.make_config(2, AFR, {}))}
    for name, default in GAP_DEFAULTS.items():
        assert OPTIONS[name].default == default and OPTIONS[name].provenance == "default"
        value = vals.get(name) or vals_2p[name]  # diplomat_2p_tie_points acts at 2 players only
        assert value.value == default and value.provenance == "default"
    assert vals["diplomat_points_first"].provenance == "seed"
    assert vals["tokens"].provenance == "default" and vals["map"].provenance == "default"
    user = {v.name: v for v in SPEC.rule_values(SPEC.make_config(4, AFR, {"region_card_points": 2}))}
    assert user["region_card_points"].provenance == "user" and user["region_card_points"].value == 2


def test_spec_content_and_options():
    """The SPEC lists all ten class cards and a help line per rule option."""
    assert SPEC.content["cards"] == ("peasant", "merchant", "monk", "knight", "witch", "king",
                                     "sultan", "trader", "astronomer", "explorer")
    for key in ("class_cards", "tokens_file", "map_file", "region_cards_file", "spread_table"):
        assert SPEC.options.describe(key)


def test_unknown_option_and_bad_values():
    """Unknown option -> RuleError with a "did you mean"; bad values name the field."""
    with pytest.raises(RuleError, match=r"^jester: unknown rule option of rattus \(see `analyzer list rules"):
        SPEC.make_config(4, (), {"jester": 1})
    with pytest.raises(RuleError, match=r"^ratcap: unknown rule option of rattus \(did you mean 'rat_cap'\?"):
        SPEC.make_config(4, (), {"ratcap": 1})
    with pytest.raises(RuleError, match=r"^rat_cap: must be an integer 1\.\.6 \(got 9\)"):
        SPEC.make_config(4, (), {"rat_cap": 9})
    with pytest.raises(RuleError, match="^spread_table: needs 4 entries"):
        SPEC.make_config(4, (), {"spread_table": [0, 1, 2]})
    with pytest.raises(RuleError, match="^expansions: unknown expansion 'piedpiper'"):
        SPEC.make_config(4, ("piedpiper",), {})
    with pytest.raises(RuleError, match="^players:"):
        SPEC.make_config(7, AFR, {})
    with pytest.raises(RuleError, match="^caravan_start: must be 'random' or a region in use"):
        SPEC.make_config(4, AFR, {"caravan_start": "AF1"})


@pytest.mark.parametrize("cards,players,exps,msg", [
    (["peasant", "merchant", "monk", "knight", "witch", "jester"], 4, AFR, "unknown card 'jester'"),
    (["peasant", "merchant", "monk", "knight", "witch", "witch"], 4, AFR, "'witch' named twice"),
    (["peasant", "merchant", "monk", "knight", "witch"], 4, AFR, "exactly 6 cards at 4 players"),
    (["peasant", "merchant", "monk", "knight", "witch", "sultan"], 4, (), "needs the africanus"),
    (["peasant", "merchant", "monk", "knight", "witch", "king"], 5, AFR, "exactly 8 cards at 5 players"),
])
def test_s6_2_class_cards_validation(cards, players, exps, msg):
    """§6.2: known names, no repeats, 6 (8 at 5-6p) cards, Islam cards need Africanus."""
    with pytest.raises(RuleError, match="^class_cards: .*" + re.escape(msg)):
        SPEC.make_config(players, exps, {"class_cards": cards})


def test_s6_2_named_class_cards_are_in_play():
    """§6.2: a scenario may name the set; exactly those cards are in play."""
    chosen = ["knight", "monk", "witch", "king", "sultan", "trader"]
    cfg = default_config(4, AFR, class_cards=chosen)
    g, _ = play_game(cfg, "random", 3)
    assert g["class_cards"] == "monk,knight,witch,king,sultan,trader"


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_user_tokens_file_errors(tmp_path):
    """A user token table: missing, malformed, threshold outside 1-6, unknown symbol -> RuleError."""
    with pytest.raises(RuleError, match="^tokens_file: file not found"):
        SPEC.make_config(4, (), {"tokens_file": str(tmp_path / "nope.toml")})
    with pytest.raises(RuleError, match="^tokens_file: .* not valid TOML"):
        SPEC.make_config(4, (), {"tokens_file": _write(tmp_path, "bad.toml", "[[base]\n")})
    good = (DATA / "tokens.toml").read_text()
    bad_thr = good.replace("threshold = 6", "threshold = 7", 1)
    with pytest.raises(RuleError, match=r"^tokens_file: .*t\.toml: \[\[base\]\] \d+: threshold: must be an integer 1\.\.6 \(got 7\)"):
        SPEC.make_config(4, (), {"tokens_file": _write(tmp_path, "t.toml", bad_thr)})
    bad_sym = good.replace('"church"]', '"plague"]', 1)
    with pytest.raises(RuleError, match="unknown symbol 'plague' \\(allowed: peasantry"):
        SPEC.make_config(4, (), {"tokens_file": _write(tmp_path, "s.toml", bad_sym)})


def test_user_tokens_file_is_used_with_user_provenance(tmp_path):
    """A valid user token table replaces the built-in one and is marked "user"."""
    text = (DATA / "tokens.toml").read_text().replace("threshold = 1\n", "threshold = 2\n")
    cfg = SPEC.make_config(4, (), {"tokens_file": _write(tmp_path, "mine.toml", text)})
    assert min(t[0] for t in cfg.tokens) == 2
    assert {v.name: v.provenance for v in SPEC.rule_values(cfg)}["tokens"] == "user"


def test_user_map_file_errors(tmp_path):
    """A user map: asymmetric adjacency, unknown neighbour, region without neighbours -> RuleError."""
    good = (DATA / "map.toml").read_text()
    asym = good.replace('neighbours = ["Gallia", "Scandia"]', 'neighbours = ["Gallia", "Scandia", "Italia"]')
    with pytest.raises(RuleError, match="^map_file: .*a.toml: adjacency not symmetric: 'Anglia' lists 'Italia'"):
        SPEC.make_config(4, (), {"map_file": _write(tmp_path, "a.toml", asym)})
    unknown = good.replace('neighbours = ["Gallia", "Scandia"]', 'neighbours = ["Gallia", "Atlantis"]')
    with pytest.raises(RuleError, match="unknown neighbour 'Atlantis'"):
        SPEC.make_config(4, (), {"map_file": _write(tmp_path, "u.toml", unknown)})
    lonely = """[[regions]]\nname = "A"\nneighbours = []\n[[regions]]\nname = "B"\nneighbours = []\n"""
    with pytest.raises(RuleError, match="^map_file: .*l.toml: region 'A' has no neighbour in use at 4 players"):
        SPEC.make_config(4, (), {"map_file": _write(tmp_path, "l.toml", lonely)})


def test_user_region_cards_file_errors(tmp_path):
    """A user region-card deck with an unknown class or region -> RuleError; base game refuses it."""
    bad = '[[cards]]\nregion = "Gallia"\nsymbols = ["peasantry", "rats"]\n'
    with pytest.raises(RuleError, match="^region_cards_file: .*c.toml: \\[\\[cards\\]\\] 1: symbols must be"):
        SPEC.make_config(4, AFR, {"region_cards_file": _write(tmp_path, "c.toml", bad)})
    bad = '[[cards]]\nregion = "Narnia"\nsymbols = ["?"]\n'
    with pytest.raises(RuleError, match="unknown region 'Narnia'"):
        SPEC.make_config(4, AFR, {"region_cards_file": _write(tmp_path, "d.toml", bad)})
    with pytest.raises(RuleError, match="need the africanus"):
        SPEC.make_config(4, (), {"region_cards_file": _write(tmp_path, "e.toml", bad)})


def test_s9_region_card_deck_by_player_count():
    """§6.2 step 5, §9: 3 cards per region in use; 4 / 6 / 9 "?" cards at 2 / 4 / 6 players."""
    for players, size, wild in ((2, 24, 4), (4, 36, 6), (6, 51, 9)):
        cfg = default_config(players, AFR)
        assert len(cfg.rcard_region) == size
        assert sum(1 for m in cfg.rcard_mask if m == 127) == wild
