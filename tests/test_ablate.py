"""analyzer ablate: each game's leave-one-out variants and the ranked "value of a card" table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analyzer.api import replay_scenario, validate
from analyzer.errors import RuleError, ScenarioError
from analyzer.games import get_game
from analyzer.report.ablate import item_users
from analyzer.scenario import load_scenario
from analyzer.study.ablate import ablate, expand

ROOT = Path(__file__).resolve().parent.parent


def test_cartus_building_replaced_by_the_other_of_its_class():
    spec = get_game("cartus")
    config = spec.make_config(4, (), {"building_set_name": "first_game"})
    abl = {a.item: a for a in spec.ablations(config)}
    assert sorted(abl) == sorted(["palace", "monastery", "marketplace", "castle", "farm",
                                  "fortune_tellers_tent"])
    a = abl["marketplace"]
    assert a.replaced_by == "office" and a.usage == ("premium_marketplace", "standard_marketplace")
    names = [c.split(":")[0] for c in a.rules["buildings"]]
    assert names.count("office") == 5 and "marketplace" not in names and len(names) == 30
    assert a.rules["building_set_name"] is None  # removed so the explicit list applies
    rules = {k: v for k, v in {"building_set_name": "first_game", **a.rules}.items() if v is not None}
    spec.make_config(4, (), rules)  # a valid set: 5 cards per class


def test_cartus_mixed_class_uses_free_copies():
    spec = get_game("cartus")
    cards = (["palace:1", "palace:2", "treasury:1", "treasury:2", "treasury:3"]
             + ["monastery", "marketplace", "castle", "farm", "fortune_tellers_tent"])
    config = spec.make_config(4, (), {"buildings": cards})
    a = {x.item: x for x in spec.ablations(config)}["palace"]
    assert sorted(c for c in a.rules["buildings"] if c.startswith("treasury")) == [
        f"treasury:{k}" for k in range(1, 6)]


def test_cartus_random_selection_cannot_be_ablated():
    spec = get_game("cartus")
    with pytest.raises(RuleError, match="fixed building set"):
        spec.ablations(spec.make_config(4, (), {}))


def test_rattus_card_swapped_for_a_card_not_in_play():
    spec = get_game("rattus")
    cards = ["knight", "monk", "witch", "king", "sultan", "trader"]
    config = spec.make_config(4, ("africanus",), {"class_cards": cards})
    abl = {a.item: a for a in spec.ablations(config)}
    assert sorted(abl) == sorted(cards)
    assert abl["sultan"].replaced_by == "peasant"
    assert sorted(abl["sultan"].rules["class_cards"]) == sorted(
        ["knight", "monk", "witch", "king", "peasant", "trader"])
    with pytest.raises(RuleError, match="fixed list"):
        spec.ablations(spec.make_config(4, ("africanus",), {}))


def test_pyramidion_special_card_removed_from_common_deck(tmp_path):
    spec = get_game("pyramidion")
    config = spec.make_config(4, (), {})
    abl = {a.item: a for a in spec.ablations(config)}
    assert "goddess" not in abl and {"thief", "executioner"} <= set(abl)
    assert "revolt" not in abl  # docs/rules/pyramidion.md §3, §10.1: a type of its own, not a special card
    path = tmp_path / "cards.toml"
    path.write_text(abl["high_priest"].files["cards_file"])
    smaller = spec.make_config(4, (), {"cards_file": str(path)})
    assert smaller.n_common == config.n_common - 2  # the two High Priests (docs/rules/pyramidion.md §10.2)
    assert abl["high_priest"].usage == ("cards_played_high_priest",)


def test_item_users_follow_the_heaviest_user_and_share_ties():
    """Game 0: seat 1 used the card most (3 > 1). Game 1: seats 0 and 1 tie (2): averaged.
    Game 2: nobody used it: left out."""
    rows = []
    for var, won in (("base", [[0, 1, 0], [1, 0, 0], [0, 0, 1]]),
                     ("without-x", [[1, 0, 0], [0, 0, 1], [0, 0, 1]])):
        for g in range(3):
            for s in range(3):
                use = {(0, 0): 1, (0, 1): 3, (1, 0): 2, (1, 1): 2}.get((g, s), 0)
                rows.append({"variant": var, "game_id": g, "seat": s, "won": won[g][s],
                             "score": 10 * won[g][s] + s, "use": use if var == "base" else 0})
    pair = item_users(pd.DataFrame(rows), ["use"], "without-x")
    assert pair["game_id"].tolist() == [0, 1]
    assert pair["won_b"].tolist() == [1.0, 0.5] and pair["won_v"].tolist() == [0.0, 0.0]
    assert pair["score_v"].tolist() == [1.0, 0.5]
    assert pair["users"].tolist() == [1, 2]  # game 1: two seats tie as heaviest user


def test_ablate_cartus_end_to_end(tmp_path):
    res = ablate(ROOT / "scenarios" / "cartus-first-game.toml", games=8, jobs=1,
                 out=tmp_path / "ab")
    assert len(pd.unique(res.games["variant"])) == 7  # base + 6 buildings
    table = res.summary["results"]["studies"]["ablate"]["table"]
    assert len(table) == 6 and all(r["games_used"] > 0 for r in table)
    values = [r["value_single"] for r in table if r["value_single"] is not None]
    assert values == sorted(values, reverse=True)  # ranked by the single-heaviest-user value
    md = (tmp_path / "ab" / "report.md").read_text()
    assert "## Value of each building (leave-one-out)" in md and "selection effect" in md
    assert (tmp_path / "ab" / "charts" / "ablation.png").exists()
    # the run's scenario.toml loads (a variant unsets the base's named set: it refused both
    # `buildings` and `building_set_name`) and a report's replay command replays its game
    saved = load_scenario(tmp_path / "ab" / "scenario.toml")
    ran, _ = expand(validate(ROOT / "scenarios" / "cartus-first-game.toml"), tmp_path / "t")
    assert [a.rules for a in saved.arms] == [a.rules for a in ran.arms]
    arm = saved.arms[1]
    assert "building_set_name" not in arm.rules and len(arm.rules["buildings"]) == 30
    record, _ = replay_scenario(tmp_path / "ab" / "scenario.toml", 3, arm.name, log=lambda s: None)
    played = res.games[(res.games["variant"] == arm.name) & (res.games["game_id"] == 3)]
    assert (record["rounds"], record["deaths"]) == (int(played["rounds"].iloc[0]),
                                                    int(played["deaths"].iloc[0]))


def test_ablate_pyramidion_writes_its_tables(tmp_path):
    sc = validate(ROOT / "scenarios" / "pyramidion-baseline.toml")
    out, rows = expand(sc, tmp_path / "tables")
    thief = next(r for r in rows if r["item"] == "thief")
    arm = next(a for a in out.arms if a.name == thief["variant"])
    assert Path(arm.rules["cards_file"]).read_text().count('type = "thief"') == 0


def test_ablate_refuses_a_game_without_ablations(toy_file, tmp_path):
    with pytest.raises(ScenarioError, match="does not define ablations"):
        ablate(toy_file, games=5, out=tmp_path / "x")


def test_rattus_took_columns_count_phase_a_takes():
    """docs/rules/rattus.md §7 A: took_<card> counts each seat's takes of that card, as logged."""
    spec = get_game("rattus")
    config = spec.make_config(4, ("africanus",), {"class_cards": ["knight", "monk", "witch",
                                                                  "king", "sultan", "trader"]})
    lines: list[str] = []
    _, seats = spec.play_game(config, "greedy", 11, log=lines.append)
    for rec in seats:
        for card in ("knight", "monk", "witch", "king", "sultan", "trader", "peasant"):
            logged = sum(1 for ln in lines if ln.strip().startswith(f"seat {rec['seat']} takes {card}"))
            assert rec[f"took_{card}"] == logged
    assert sum(rec["took_witch"] for rec in seats) == 3  # this game: three takes of the Witch
    assert {a.item: a.usage for a in spec.ablations(config)}["sultan"] == ("took_sultan",)


def test_ablate_says_the_scenario_variants_are_not_used(tmp_path):
    """pyramidion-baseline has variants: ablate names them as unused and the seats it played,
    in the report and on the CLI; every value column is with − without."""
    from typer.testing import CliRunner

    from analyzer.cli import app

    r = CliRunner().invoke(app, ["ablate", str(ROOT / "scenarios" / "pyramidion-baseline.toml"),
                                 "--games", "4", "--jobs", "1", "--out", str(tmp_path / "ab"),
                                 "--quiet"])
    assert r.exit_code == 0, r.output
    assert "greedy-vs-tile-builder, greedy-vs-random) are not used by ablate" in r.output
    md = (tmp_path / "ab" / "report.md").read_text()
    assert "`greedy-vs-tile-builder`, `greedy-vs-random`) are **not used** by ablate" in md
    assert "Seats (the base arm's, every variant): " in md
    assert "**with − without**" in md and "without − with" not in md
    table = md.split("(leave-one-out)")[1]
    assert "all-seat score value [points]" in table


def test_ablate_all_seat_score_is_with_minus_without(tmp_path):
    res = ablate(ROOT / "scenarios" / "cartus-first-game.toml", games=8, jobs=1,
                 out=tmp_path / "ab")
    seats = res.seats
    for rec in res.summary["results"]["studies"]["ablate"]["table"]:
        base = seats[seats["variant"] == "base"]["score"].mean()
        without = seats[seats["variant"] == rec["variant"]]["score"].mean()
        assert rec["score_all"] == pytest.approx(base - without)


def test_numbers_rank_items_by_their_paired_value_with_holm_over_items():
    """Known answer: 10 three-seat games. Seat 0 alone uses x in every game, seat 1 alone uses
    y. The user's win with − without per game is the t-test sample (scipy), the items rank by
    its mean and Holm runs over the two items (statsmodels); score_all is every seat's mean
    score with − without."""
    from scipy.stats import ttest_rel
    from statsmodels.stats.multitest import multipletests

    from analyzer.report.ablate import numbers

    winners = {"base": [0, 0, 0, 1, 0, 1, 0, 2, 0, 1], "without-x": [1, 0, 2, 1, 1, 1, 2, 2, 1, 1],
               "without-y": [0, 0, 0, 0, 0, 1, 0, 2, 0, 0]}
    rows = [{"variant": var, "game_id": g, "seat": s, "won": float(s == w[g]),
             "score": float(s == w[g]) + s, "use_x": int(s == 0), "use_y": int(s == 1)}
            for var, w in winners.items() for g in range(10) for s in range(3)]
    study = {"items": [{"item": "y", "variant": "without-y", "usage": ["use_y"]},
                       {"item": "x", "variant": "without-x", "usage": ["use_x"]}],
             "correction": "holm"}
    n = numbers(study, pd.DataFrame(rows))
    assert n["correction"] == "holm" and [r["item"] for r in n["table"]] == ["x", "y"]
    p = []
    for row, seat in zip(n["table"], (0, 1)):
        with_, without = (np.array([float(w == seat) for w in winners[v]])
                          for v in ("base", row["variant"]))
        assert row["value_single"] == pytest.approx((with_ - without).mean())
        assert row["games_used"] == row["games_single"] == 10 and row["tied_share"] == 0.0
        assert row["p_value_single"] == pytest.approx(ttest_rel(with_, without).pvalue)
        assert row["score_all"] == pytest.approx(0.0)  # one winner per game either way
        p.append(row["p_value_single"])
    want = multipletests(p, method="holm")[1]
    assert [r["p_adjusted_single"] for r in n["table"]] == pytest.approx(want)
