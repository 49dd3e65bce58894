"""Pyramidion labelled defaults counted where they act (``metrics.GUESSES``, the game record's
``acted_*`` columns): one test per counter on a hand-built position, played through the engine,
named after the rules section of its default (docs/rules/pyramidion.md)."""

from __future__ import annotations

import pytest

from analyzer.games.pyramidion import SPEC, default_config, play_game
from analyzer.games.pyramidion.metrics import game_record

from .helpers import (
    CAMEL,
    STONE,
    Script,
    give,
    make_game,
    put_on_site,
    site,
    starting,
    take_common,
)


def acted(g) -> dict[str, int]:
    """The ``acted_*`` columns of the position's game record."""
    rec = game_record(g.st, g.tally, "trigger", [])
    return {c.column: rec[c.column] for c in SPEC.guesses}


@pytest.mark.parametrize("players", [2, 4])
def test_guess_counters_are_declared_rule_values(players):
    """Each counter is an int64 game column ``acted_*`` and names a rule option or a content
    table of the run (the part of a ``rule_values`` name before the dot, as the report groups)."""
    names = {v.name for v in SPEC.rule_values(default_config(players))}
    tables = {n.partition(".")[0] for n in names if "." in n}
    assert len(SPEC.guesses) == len({g.column for g in SPEC.guesses}) == 6
    for g in SPEC.guesses:
        assert g.column.startswith("acted_") and SPEC.game_columns[g.column] == "int64"
        assert g.default in names | tables, g.default
        assert g.section.startswith("docs/rules/pyramidion.md §") and g.what


def test_guess_counters_in_every_record():
    """A whole game's record carries every counter as a count (int >= 0), starting at 0."""
    rec, _ = play_game(default_config(4), "greedy", 3)
    for g in SPEC.guesses:
        assert isinstance(rec[g.column], int) and rec[g.column] >= 0
    assert set(acted(make_game(2)).values()) == {0}


# ---------------------------------------------------------------- §7 sites


@pytest.mark.parametrize("owner,count", [(1, 1), (0, 0)])
def test_s7_site_minimum_refusal_counted(owner, count):
    """§7 [G] minimums (T5, Abu Simbel): Red's unique 5 negotiation falls short of the guessed 6,
    so Blue's tile stays — counted; had Red's own tile lain there, nothing would change — not
    counted. The 0–0 influence step and the bare site's merchant step are not counted either."""
    red = Script()
    g = make_game(2, scripts=[red, Script()])
    abu = site(g, "Abu Simbel")
    g.st.ng_owner[abu] = owner
    g.st.ng_left[owner] = 4
    n5 = take_common(g, "negotiator", 5)
    give(g, 0, n5)
    red.moves = [n5]
    g.activate(0, abu)
    assert g.st.ng_owner[abu] == owner
    assert acted(g)["acted_site_minimum"] == count


def test_s7_site_minimum_of_the_merchant_step_counted():
    """§7 [G] minimums: a unique trade 4 below Karnak's guessed 5 leaves the goods — counted."""
    red = Script()
    g = make_game(2, scripts=[red, Script()])
    karnak = site(g, "Karnak")
    put_on_site(g, karnak, 2)
    m4 = take_common(g, "merchant", 4)
    give(g, 0, m4)
    red.moves = [m4]
    g.activate(0, karnak)
    assert g.st.site_goods[karnak] == 2
    assert acted(g)["acted_site_minimum"] == 1


@pytest.mark.parametrize("convert,count", [(True, 1), (False, 0)])
def test_s7_cairo_conversion_counted(convert, count):
    """§7 [G] Cairo: a conversion made counts; declining it does not."""
    s0 = Script([STONE * 5 + CAMEL] if convert else [-1])
    g = make_game(2, scripts=[s0, Script()])
    g.st.supply[STONE] -= 3
    g.st.goods[0][STONE] = 3
    g.activate(0, site(g, "Cairo"))
    assert g.st.goods[0][CAMEL] == count
    assert acted(g)["acted_conversion"] == count


# ---------------------------------------------------------------- §8 revolt tiles


def test_s8_revolt_tiles_counted():
    """§8 [G]: each revolt tile drawn counts (two revolt cards, two tiles)."""
    s0 = Script()
    g = make_game(2, scripts=[s0, Script()])
    ra, rb = take_common(g, "revolt"), take_common(g, "revolt")
    give(g, 0, ra, rb)
    s0.moves = [ra, rb]
    g.activate(0, site(g, "Thebes"))
    assert g.tally.revolts[site(g, "Thebes")] == 1
    assert acted(g)["acted_revolt_tile"] == 2


# ---------------------------------------------------------------- §10.2 special cards


def test_s10_2_special_effects_counted():
    """§10.2 [G]: the Thief's and Bandit's goods, the Stone dragger's good and the High Priest's
    return count once each; taking the Philosopher token is not an effect counted here."""
    s0, s1 = Script(), Script()
    g = make_game(3, scripts=[s0, s1, Script()])
    philae = site(g, "Philae")
    put_on_site(g, philae, 3)
    g.st.supply[CAMEL] -= 1
    g.st.goods[2][CAMEL] = 1
    ph, th, bd = take_common(g, "philosopher"), take_common(g, "thief"), take_common(g, "bandit")
    sdr, hp, m8 = take_common(g, "stone_dragger"), take_common(g, "high_priest"), take_common(g, "merchant", 8)
    give(g, 0, ph, th, bd, sdr, hp)
    give(g, 1, m8)
    s0.moves = [ph, th, bd, sdr, hp]  # the Thief's one target is taken without asking
    s1.moves = [m8]
    g.activate(0, philae)
    assert g.st.goods[0][CAMEL] == 1 and g.st.hand[0] == [hp]  # the Thief took, the Priest came back
    assert acted(g)["acted_special_effect"] == 4


def test_s10_2_executioner_mark_counted():
    """§10.2 [G] Executioner (step 4a): the mark carried out after the revolt step counts."""
    s0, s1 = Script(), Script()
    g = make_game(2, scripts=[s0, s1])
    karnak = site(g, "Karnak")
    put_on_site(g, karnak, 3)
    m6, ex, m5 = take_common(g, "merchant", 6), take_common(g, "executioner"), take_common(g, "merchant", 5)
    give(g, 1, m6)
    give(g, 0, ex, m5)
    s1.moves = [m6]
    s0.moves = [ex, m5]
    g.activate(1, karnak)
    assert m6 in g.st.discard_pile
    assert acted(g)["acted_special_effect"] == 1


@pytest.mark.parametrize("rule,count", [("wins_ties", 1), ("none", 0)])
def test_s10_2_philosopher_tie_counted(rule, count):
    """§10.2 [G] Philosopher: the holder winning Karnak's 6–6 trade tie counts; with
    ``philosopher = "none"`` the tie gives nothing and nothing is counted. The 0–0 influence
    and negotiation steps do not count as refused by the minimum."""
    red, yellow = Script(), Script()
    g = make_game(2, {"philosopher": rule}, scripts=[red, yellow])
    karnak = site(g, "Karnak")
    put_on_site(g, karnak, 3)
    g.st.philosopher = 1
    for seat, script in ((0, red), (1, yellow)):
        ms = starting(g, seat, "merchant")
        give(g, seat, *ms)
        script.moves = list(ms)
    g.activate(0, karnak)
    assert g.st.goods[1][STONE] == 3 * count
    assert acted(g)["acted_philosopher_tie"] == count
    assert acted(g)["acted_site_minimum"] == 0


# ---------------------------------------------------------------- §6 end of the game


@pytest.mark.parametrize("vp,count", [([10, 10, 4], 1), ([11, 10, 4], 0), ([3, 10, 10], 1)])
def test_s6_tiebreak_counted(vp, count):
    """§6 [G] ties: a shared most VP at the end leaves the winner to the tie-break — counted."""
    g = make_game(3)
    g.st.vp = list(vp)
    g.game_over("trigger")
    assert acted(g)["acted_tiebreak"] == count


# ---------------------------------------------------------------- key findings name guessed content


def test_findings_say_when_they_rest_on_guessed_content():
    """A goods-source or site finding whose values are labelled defaults of the run says so
    (§7, §8, §10.2); with the tables set by the user (no default named) it does not."""
    from analyzer.games.pyramidion import findings

    numbers = {"goods_model": [{"source": "goods_revolt", "odds_ratio": 2.0, "lo": 1.5, "hi": 2.7,
                                "p_value": 1e-4}],
               "goods": [{"source": "goods_special", "diff": 1.5, "lo": 1.0, "hi": 2.0}],
               "sites": [{"variant": "base", "rank": 1, "site": "Abu Simbel", "contest": 2.1,
                          "lo": 2.0, "hi": 2.2}],
               "ends": {"variant": "base", "ends": {"trigger": 40}}}
    names = [v.name for v in default_config(4).rule_values if v.provenance == "default"]
    run = {"defaults": {"base": [{"name": n, "value": 0, "section": ""} for n in names]}}
    out = {f.key: f.sentence() for f in findings.pyramidion(numbers, run)}
    assert "the revolt tiles' strengths and goods are guessed" in out["goods:strongest_source"]
    assert "the special cards' effects and Cairo's conversion are guessed" in out["goods:largest_gap"]
    assert "Abu Simbel" in out["sites:most_contested"]
    assert "minimums and ability are guessed" in out["sites:most_contested"]
    plain = {f.key: f.sentence() for f in findings.pyramidion(numbers, {"defaults": {"base": []}})}
    assert not any("guessed" in text for text in plain.values())
