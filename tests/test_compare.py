"""analyzer compare, the balance section and the building-set section (Rattus Cartus, docs/rules/cartus.md §3)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import TOY_SCENARIO
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.errors import ScenarioError
from analyzer.games.cartus import study as building_sets
from analyzer.report import balance
from analyzer.scenario import load_scenario
from analyzer.study.compare import combine, compare

ROOT = Path(__file__).resolve().parents[1]


def _toy(write_scenario, name: str, extra: str = "", rotate: bool = True) -> Path:
    text = TOY_SCENARIO.replace('name = "toy-study"', f'name = "{name}"')
    if not rotate:
        text = text.replace("seed = 42", "seed = 42\nseat_rotation = false")
    text = text.split("[[variants]]")[0] + extra
    return write_scenario(text, f"{name}.toml")


# ------------------------------------------------------------------ combine / compare


def test_combine_labels_arms_and_keeps_first_seed(write_scenario):
    a = load_scenario(_toy(write_scenario, "a"))
    b = load_scenario(_toy(write_scenario, "b"))
    text = (Path(a.file).read_text().replace("seed = 42", "seed = 7")
            + '\n[[variants]]\nname = "d8"\nrules = { sides = 8 }\n')
    c = load_scenario(write_scenario(text.replace('name = "a"', 'name = "c"'), "c.toml"))
    sc = combine([a, b, c])
    assert [arm.name for arm in sc.arms] == ["base", "b", "c", "c/d8"]
    assert sc.seed == 42 and sc.games == a.games  # the first file's seeds for every arm
    assert sc.arms[3].rules["sides"] == 8
    assert sc.name == "compare-a-vs-b-and-1-more"


def test_combine_refuses_different_seat_rotation(write_scenario):
    a = load_scenario(_toy(write_scenario, "a"))
    b = load_scenario(_toy(write_scenario, "b", rotate=False))
    with pytest.raises(ScenarioError, match=r"b\.toml: seat_rotation: False differs from True"):
        combine([a, b])
    with pytest.raises(ScenarioError, match="at least two"):
        combine([a])


def test_compare_identical_scenarios_differ_by_exactly_zero(write_scenario, tmp_path):
    """Same seeds for every scenario: two copies of one scenario give equal records."""
    pa, pb = _toy(write_scenario, "a"), _toy(write_scenario, "b")
    res = compare([pa, pb], games=30, jobs=1, out=tmp_path / "run")
    g = res.games
    base = g[g["variant"] == "base"].drop(columns="variant").reset_index(drop=True)
    other = g[g["variant"] == "b"].drop(columns="variant").reset_index(drop=True)
    pd.testing.assert_frame_equal(base, other)
    diffs = res.summary["results"]["balance"]["vs_base"]
    assert diffs and all(d["diff"] == 0 and d["n"] == 30 for d in diffs)
    assert (tmp_path / "run" / "report.html").is_file()


def test_compare_same_seed_same_records(write_scenario, tmp_path):
    pa = _toy(write_scenario, "a")
    pb = _toy(write_scenario, "b", extra="")
    text = pb.read_text().replace("sides = 6", "sides = 8")
    pb.write_text(text)
    r1 = compare([pa, pb], games=20, jobs=1, out=tmp_path / "r1")
    r2 = compare([pa, pb], games=20, jobs=1, chunk_size=7, out=tmp_path / "r2")
    pd.testing.assert_frame_equal(r1.seats, r2.seats)
    assert set(r1.seats["variant"]) == {"base", "b"}


def test_cli_compare_mismatch_is_one_line_error(write_scenario):
    a = _toy(write_scenario, "a")
    b = _toy(write_scenario, "b", rotate=False)
    res = CliRunner().invoke(app, ["compare", str(a), str(b), "--quiet"])
    assert res.exit_code == 2
    assert len(res.stderr.strip().splitlines()) == 1 and "seat_rotation" in res.stderr


# ------------------------------------------------------------------ balance section


def _records(rows_games, rows_seats):
    return pd.DataFrame(rows_games), pd.DataFrame(rows_seats)


def test_per_game_balance_metrics_exact():
    """Spread = best − worst score; no winner when nobody won; death = share of seats died."""
    games, seats = _records(
        [{"variant": "base", "game_id": 0, "rounds": 8}, {"variant": "base", "game_id": 1, "rounds": 9}],
        [{"variant": "base", "game_id": 0, "seat": 0, "score": 30.0, "won": 1.0, "died": 0},
         {"variant": "base", "game_id": 0, "seat": 1, "score": 12.0, "won": 0.0, "died": 1},
         {"variant": "base", "game_id": 1, "seat": 0, "score": 5.0, "won": 0.0, "died": 1},
         {"variant": "base", "game_id": 1, "seat": 1, "score": 7.0, "won": 0.0, "died": 1}])
    pg = balance.arm_per_game(games, seats, "base", [0, 1]).set_index("game_id")
    assert pg.loc[0, "spread"] == 18.0 and pg.loc[1, "spread"] == 2.0
    assert pg.loc[0, "no_winner"] == 0.0 and pg.loc[1, "no_winner"] == 1.0
    assert pg.loc[0, "death"] == 0.5 and pg.loc[1, "death"] == 1.0
    assert list(pg["won_0"]) == [1.0, 0.0] and list(pg["rounds"]) == [8, 9]
    arms = balance.arm_table(pg.reset_index())
    row = arms.iloc[0]
    # seat win rates over all games: seat 0 won 1 of 2, seat 1 none; one game had no winner
    assert row["seat_0"] == 0.5 and row["seat_1"] == 0.0 and row["max_minus_min"] == 0.5
    assert row["no_winner"] == 0.5 and row["death"] == 0.75


def test_noise_floor_of_fair_game_matches_theory():
    """Two fair seats, n games: E|W0 − W1|/n = E|2B − n|/n with B ~ Bin(n, 1/2) (≈ 0.080 at n=100)."""
    from scipy.stats import binom

    k = np.arange(101)
    exact = float((binom.pmf(k, 100, 0.5) * np.abs(2 * k - 100)).sum() / 100)
    got = balance.spread_noise_floor(100, 2, draws=20000, seed=1)
    assert abs(got - exact) < 0.003


# ------------------------------------------------------------------ building-set section


def _factorial(n_games: int = 200, seed: int = 3):
    """Records of a 2×2 building design on shared seeds with planted effects.

    Class ``x`` (ref ``a1``, alt ``a2``): with ``a2`` seat 0 always wins (balance 1.0); with
    ``a1`` the winner is seat ``game_id % 2`` (balance 0). Class ``y`` (ref ``b1``, alt ``b2``):
    ``b2`` kills seat 1 in every game (death 0.5), ``b1`` nobody.
    """
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 20, size=(n_games, 2))
    grows, srows = [], []
    for j, (x, y) in enumerate([("a1", "b1"), ("a1", "b2"), ("a2", "b1"), ("a2", "b2")]):
        var = "base" if j == 0 else f"v{j}"
        for g in range(n_games):
            grows.append({"variant": var, "game_id": g, "rounds": 8, "building_set": f"{x}+{y}",
                          "building_x": x, "building_y": y})
            winner = 0 if x == "a2" else g % 2
            for s in range(2):
                srows.append({"variant": var, "game_id": g, "seat": s, "score": float(scores[g, s]),
                              "won": float(s == winner), "died": int(y == "b2" and s == 1)})
    return pd.DataFrame(grows), pd.DataFrame(srows)


def test_s3_building_factors_reference_is_first_record():
    games, _ = _factorial(10)
    assert building_sets.factors(games) == [("x", "a1", "a2"), ("y", "b1", "b2")]
    assert building_sets.active(games)
    assert not building_sets.active(games[games["building_set"] == "a1+b1"])


def test_s3_building_set_table_and_main_effects_exact():
    """Planted effects come out exactly: x's alternative adds 1.0 to balance, y's adds 0.5 death."""
    games, seats = _factorial()
    st = building_sets.set_statistics(games, seats, draws=100)
    table = st.table
    assert st.paired
    t = table.set_index("building_set")
    assert t.loc["a1+b1", "balance"] == 0.0 and t.loc["a2+b2", "balance"] == 1.0
    assert t.loc["a1+b2", "death"] == 0.5 and t.loc["a1+b2", "death_diff"] == 0.5
    assert t.loc["a2+b1", "imbalance_p"] < 1e-10 and t.loc["a1+b1", "imbalance_p"] == 1.0
    main, inter = building_sets.effects(table, st, building_sets.factors(games))
    m = main.set_index(["class", "metric"])
    assert m.loc[("x", "balance"), "effect"] == pytest.approx(1.0)
    assert m.loc[("y", "balance"), "effect"] == pytest.approx(0.0)
    assert m.loc[("y", "death"), "effect"] == pytest.approx(0.5)
    assert m.loc[("x", "death"), "effect"] == pytest.approx(0.0)
    assert m.loc[("x", "first_seat"), "effect"] == pytest.approx(0.5)
    # no interaction was planted: each class's effect is the same whatever the other class
    i = inter.set_index("metric")
    assert i.loc["balance", "standard_effect"] == pytest.approx(0.0)
    assert i.loc["death", "standard_effect"] == pytest.approx(0.0)


def test_s3_building_section_ranks_and_flags_with_holm(tmp_path):
    from analyzer.report.document import Doc

    games, seats = _factorial()
    doc = Doc(tmp_path)
    out = building_sets.building_sets_numbers(games, seats, 2, None)
    building_sets.building_sets_write(doc, out, {})
    sets = out["sets"]
    assert [s["rank"] for s in sets] == [1, 2, 3, 4]
    # balanced sets first (balance 0), lower death rate breaks the tie
    assert [s["building_set"] for s in sets[:2]] == ["a1+b1", "a1+b2"]
    assert [bool(s["imbalance_sig"]) for s in sets] == [False, False, True, True]
    assert out["correction"] == "holm"
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "Holm correction" in text and "How the ranking is computed" in text


def test_s3_building_set_heat_map_names_the_buildings_and_the_better_colour():
    """The 8×8 heat maps (64 one-per-class selections): each row and column tick names the
    buildings chosen (no R/A codes), the axes name the classes, and the colour bar says that
    lower values, the lighter cells, are better."""
    import itertools

    from matplotlib.figure import Figure

    facs = [("royalty", "palace", "treasury"), ("church", "monastery", "hospital"),
            ("bourgeoisie", "marketplace", "office"), ("chivalry", "castle", "guard_tower"),
            ("peasantry", "farm", "brewery"), ("magic", "fortune_tellers_tent", "magic_b")]
    table = pd.DataFrame([{**{f"building_{c}": (a if v else r) for (c, r, a), v in zip(facs, combo)},
                           "balance": sum(combo) / 100}
                          for combo in itertools.product((0, 1), repeat=6)])
    fig = Figure()
    ax = fig.add_subplot()
    building_sets._plot_heat(ax, table, facs, "balance", "seat balance [pp]")
    rows = [t.get_text() for t in ax.get_yticklabels()]
    cols = [t.get_text() for t in ax.get_xticklabels()]
    assert rows[0] == "palace / monastery / marketplace" and rows[7] == "treasury / hospital / office"
    assert cols[1] == "castle / farm / magic b" and cols[6] == "guard tower / brewery / fortune tellers tent"
    assert ax.get_ylabel() == "buildings of royalty / church / bourgeoisie"
    assert ax.get_xlabel() == "buildings of chivalry / peasantry / magic"
    assert ax.images[0].get_array()[7, 1] == pytest.approx(4.0)  # 3 + 1 alternatives, ×100
    bar = fig.axes[1].get_ylabel()
    assert bar == "seat balance [pp] (lower is better: lighter cells)"
    low, high = (ax.images[0].cmap(x) for x in (0.0, 1.0))
    assert sum(low[:3]) > sum(high[:3])  # the lowest value is drawn the lightest


# ------------------------------------------------------------------ the committed scenarios


def test_building_sets_scenario_lists_the_64_selections():
    """scenarios/cartus-building-sets.toml: base = first-game set, variants = the other 63."""
    from analyzer.games.cartus import building_set_id, one_per_class_sets

    path = ROOT / "scenarios" / "cartus-building-sets.toml"
    data = tomllib.loads(path.read_text())
    first = tomllib.loads((ROOT / "scenarios" / "cartus-first-game.toml").read_text())
    assert first["rules"] == {"building_set_name": "first_game"}
    sets = [tuple(data["rules"]["buildings"])] + [tuple(v["rules"]["buildings"])
                                                  for v in data["variants"]]
    assert sorted(sets) == sorted(one_per_class_sets())
    assert set(sets[0]) == {"farm", "marketplace", "monastery", "castle", "palace",
                            "fortune_tellers_tent"}
    assert [v["name"] for v in data["variants"]] == [building_set_id(s) for s in sets[1:]]
    sc = load_scenario(path)
    assert len(sc.arms) == 64 and sc.players == 4


def test_cartus_building_sets_small_run_renders_the_section(tmp_path):
    """Two sets, a few games: the generic report plus the building-set section, end to end."""
    path = ROOT / "scenarios" / "cartus-building-sets.toml"
    data = tomllib.loads(path.read_text())
    data["variants"] = data["variants"][:1]
    data["games"] = 8
    from analyzer.api import simulate
    from analyzer.scenario import parse_scenario

    res = simulate(parse_scenario(data, file=str(path)), jobs=1, out=tmp_path / "run")
    assert res.summary["results"]["building_sets"]["sets"][0]["games"] == 8
    md = (tmp_path / "run" / "report.md").read_text()
    assert "Building sets: which selections are balanced" in md
    assert "Balance of each variant" in md


def test_compare_names_every_arm_by_scenario_and_reports_it(write_scenario, tmp_path):
    """The first scenario's variants are prefixed like every other scenario's; the report says
    which scenario `base` is."""
    a = _toy(write_scenario, "a", '\n[[variants]]\nname = "d8"\nrules = { sides = 8 }\n')
    b = _toy(write_scenario, "b")
    sc = combine([load_scenario(a), load_scenario(b)])
    assert [arm.name for arm in sc.arms] == ["base", "a/d8", "b"]
    compare([a, b], games=10, jobs=1, out=tmp_path / "run")
    md = (tmp_path / "run" / "report.md").read_text()
    assert "## Compared scenarios" in md and "the first scenario, `a`" in md
    assert "| a | " in md and "base, a/d8" in md


def test_compare_mismatch_lists_read_plainly(tmp_path):
    """A mismatch of list fields reads `[]` / `[africanus]`, not Python tuples."""
    src = (ROOT / "scenarios" / "africanus-sultan.toml").read_text()
    plain = src.replace('expansions = ["africanus"]', "expansions = []").replace(
        'name = "africanus-sultan"', 'name = "plain"')
    plain = plain.split("[rules]")[0] + '[[seats]]\npolicy = "greedy"\n'
    (tmp_path / "plain.toml").write_text(plain)
    with pytest.raises(ScenarioError) as err:
        combine([load_scenario(ROOT / "scenarios" / "africanus-sultan.toml"),
                 load_scenario(tmp_path / "plain.toml")])
    assert "expansions: [] differs from [africanus]" in str(err.value)


def _sets_run(tmp_path, pick, name):
    """A small run of cartus-building-sets.toml keeping the variants ``pick`` chooses."""
    from analyzer.api import simulate
    from analyzer.scenario import parse_scenario

    path = ROOT / "scenarios" / "cartus-building-sets.toml"
    data = tomllib.loads(path.read_text())
    data["variants"] = pick(data)
    data["games"] = 6
    res = simulate(parse_scenario(data, file=str(path)), jobs=1, out=tmp_path / name)
    return res, (tmp_path / name / "report.md").read_text()


def test_building_main_effects_only_for_a_complete_design(tmp_path):
    """Two sets that differ in all six classes: no main effects (every class's choice is
    confounded), and the report says why; two sets differing in one class: a complete 2^1
    design, main effects shown. Arms with the same selection are counted once as a set."""
    base = ["palace", "monastery", "marketplace", "castle", "farm", "fortune_tellers_tent"]

    def differing(data, k):
        return [v for v in data["variants"]
                if len(set(v["rules"]["buildings"]) - set(base)) == k][:1]

    res, md = _sets_run(tmp_path, lambda d: differing(d, 6), "six")
    out = res.summary["results"]["building_sets"]
    assert out["design_complete"] is False and out["main_effects"] == []
    part = md.split("## Building choices: main effects and interactions")[1].split("\n## ")[0]
    assert "Not shown" in part and "2^6 = 64" in part and "cover 2 of them" in part
    assert "2⁶" not in md

    res, md = _sets_run(tmp_path, lambda d: differing(d, 1), "one")
    out = res.summary["results"]["building_sets"]
    assert out["design_complete"] is True and len(out["main_effects"]) > 0
    assert "full 2^1 design" in md

    dup = {"name": "same-as-base", "rules": {"buildings": base}}
    res, md = _sets_run(tmp_path, lambda d: [dup, *differing(d, 1)], "dup")
    assert "2 distinct building selections from 3 arms" in md


def test_compare_a_scenario_with_itself_keeps_arms_apart(write_scenario):
    a = _toy(write_scenario, "a", '\n[[variants]]\nname = "d8"\nrules = { sides = 8 }\n')
    sc = combine([load_scenario(a), load_scenario(a)])
    assert [arm.name for arm in sc.arms] == ["base", "a/d8", "a-2", "a-2/d8"]
