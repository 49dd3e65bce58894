"""Issue items 5 and 6: a table's marks are corrected over its rows, a test that repeats another
row's exactly is counted once, and the change is shown beside the base it is measured from."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analyzer import stats
from analyzer.report import sections, sweep
from analyzer.report.document import Doc


def _swept_seat(n_games: int, shift: float, rng: np.random.Generator, variant: str):
    """Four seats, every game has a winner; in ``variant`` the swept player (``greedy*`` at seat
    0) wins with probability 0.25 + shift, the three others share the rest equally."""
    rows = []
    for g in range(n_games):
        p0 = 0.25 + shift
        winner = rng.choice(4, p=[p0, *([(1 - p0) / 3] * 3)])
        for seat in range(4):
            name = "greedy*" if seat == 0 and variant != "base" else "greedy"
            rows.append({"variant": variant, "game_id": g, "seat": seat, "policy": name,
                         "won": float(seat == winner), "start_position": seat})
    return pd.DataFrame(rows)


def test_unswept_players_repeat_the_swept_players_test():
    """Every game has a winner, so per game the three unswept seats' mean win share is
    (1 − swept)/3: their change is exactly −1/3 of the swept player's — the same test. It is
    detected, not counted again, and takes the swept player's adjusted p-value."""
    rng = np.random.default_rng(1)
    base = _swept_seat(300, 0.0, rng, "base")
    parts = []
    for k, shift in enumerate((0.1, -0.05)):
        v = _swept_seat(300, shift, np.random.default_rng(10 + k), f"v{k}")
        b = base.drop(columns="policy").merge(v[["game_id", "seat", "policy"]],
                                              on=["game_id", "seat"])
        parts.append(stats.pair_differences(b, v, f"v{k}", "won", ("policy",),
                                            prefer={("greedy*",)}))
    table = pd.concat(parts, ignore_index=True)
    mine = table[table["policy"] == "greedy*"]
    other = table[table["policy"] == "greedy"]
    np.testing.assert_allclose(other["diff"].to_numpy(), -mine["diff"].to_numpy() / 3)
    assert other["mirror_of"].tolist() == ["greedy*", "greedy*"]
    assert mine["mirror_of"].isna().all()
    flagged = stats.correct(table, "holm", "policy")
    assert stats.family_size(flagged, "policy") == 2  # not 4
    want, _ = stats.adjust_pvalues(mine["p_value"].to_numpy(), "holm")
    np.testing.assert_allclose(flagged.loc[mine.index, "p_adjusted"], want)
    np.testing.assert_allclose(flagged.loc[other.index, "p_adjusted"], want)


def test_holm_over_distinct_tests_textbook():
    """Holm (1979) over 3 distinct p-values 0.01, 0.04, 0.03 → 0.03, 0.06, 0.06; a fourth row
    that repeats the first takes 0.03 and does not make the family 4 (which would give 0.04)."""
    table = pd.DataFrame({"variant": ["v"] * 4, "g": ["a", "b", "c", "d"],
                          "p_value": [0.01, 0.04, 0.03, 0.01],
                          "mirror_of": [None, None, None, "a"]})
    out = stats.correct(table, "holm", "g")
    np.testing.assert_allclose(out["p_adjusted"], [0.03, 0.06, 0.06, 0.03])
    assert stats.family_size(table, "g") == 3
    assert stats.adjust_pvalues([0.01, 0.04, 0.03, 0.01])[0][0] == pytest.approx(0.04)


def test_exact_rows_are_no_test():
    """A variant whose games equal the base's differs by exactly 0 in every game: not a test,
    kept out of the family (it would otherwise inflate every other row's correction)."""
    table = pd.DataFrame({"p_value": [0.02, 1.0], "lo": [0.1, 0.0], "hi": [0.5, 0.0]})
    out = stats.correct(table, "holm")
    assert out["p_adjusted"].tolist() == [0.02, 1.0]
    assert stats.family_size(table) == 1


def test_sweep_table_shows_the_base_it_measures_from_and_corrects_distinct_tests(tmp_path):
    rng = np.random.default_rng(2)
    seats = pd.concat([_swept_seat(200, 0.0, rng, "base"),
                       _swept_seat(200, 0.15, np.random.default_rng(3), "x=1")],
                      ignore_index=True)
    doc = Doc(tmp_path)
    study = {"params": ["seats[0].params.x"], "variants": [{"variant": "x=1",
                                                            "values": {"seats[0].params.x": 1}}],
             "metric": "won", "correction": "holm"}
    out = sweep.numbers(study, seats, run={"seat_rotation": True})
    sweep.write(doc, out, study)
    assert out["tests"] == 1
    table = next(b[1] for b in doc.blocks if b[0] == "table")
    assert "base (same seats)" in table.columns
    star = table[table["policy"] == "greedy*"].iloc[0]
    assert star["base (same seats)"] == (
        f"{100 * seats[(seats.variant == 'base') & (seats.seat == 0)]['won'].mean():.1f} %")
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "over the 1 distinct tests" in text and "repeat another row's test" in text


def test_variants_table_is_corrected_over_its_rows(tmp_path):
    """Nine null variants against the base: the per-seat marks come from Holm over the rows of
    each column, and the caption says so."""
    rng = np.random.default_rng(4)
    frames = []
    for var in ["base", *[f"v{k}" for k in range(9)]]:
        for g in range(60):
            won = rng.permutation([1.0, 0.0, 0.0])
            for seat in range(3):  # seat = start position: per-seat rates can move
                frames.append({"variant": var, "game_id": g, "seat": seat, "policy": "p",
                               "start_position": seat, "won": won[seat],
                               "score": float(rng.normal())})
    seats = pd.DataFrame(frames)
    doc = Doc(tmp_path)
    out = sections.variants(doc, seats, {"seat_rotation": True})
    won = pd.DataFrame(out["won_by_seat"])
    want, _sig = stats.adjust_pvalues(won["p_value"].to_numpy(), "holm")
    np.testing.assert_allclose(won["p_adjusted"], want)
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "Holm" in text and "correction over the rows of its column" in text


def _null_table_marks(tables: int, rows: int, seed: int) -> tuple[float, float]:
    """Share of null tables of ``rows`` paired comparisons with any `*`, corrected and raw."""
    rng = np.random.default_rng(seed)
    marked = raw = 0
    for _ in range(tables):
        recs = []
        for _ in range(rows):
            d = stats.paired_difference(rng.normal(size=80), rng.normal(size=80))
            recs.append({"p_value": d.p_value, "lo": d.lo, "hi": d.hi})
        out = stats.correct(pd.DataFrame(recs), "holm")
        marked += bool(out["significant_adjusted"].any())
        raw += bool((out["p_value"] < 0.05).any())
    return marked / tables, raw / tables


def test_null_nine_row_tables_rarely_show_a_mark():
    """Under a null, 9-row tables showed a `*` in about 1 − 0.95⁹ = 37 % of tables before the
    correction; after Holm in about 5 % (400 tables: at most 9 %)."""
    marked, raw = _null_table_marks(400, 9, seed=5)
    assert marked <= 0.09 and raw >= 0.25


@pytest.mark.slow
def test_null_nine_row_tables_calibration():
    marked, _ = _null_table_marks(4000, 9, seed=6)
    assert 0.035 <= marked <= 0.06


def test_the_run_names_the_correction_of_every_marked_table():
    """``--correction bh`` is recorded in the run's study; every section reads it from there
    (``correction_of``), Holm when the run names none."""
    from analyzer.report.document import correction_of

    assert correction_of(None) == "holm" and correction_of({}) == "holm"
    assert correction_of({"study": None}) == "holm"
    assert correction_of({"study": {"kind": "ablate", "correction": "bh"}}) == "bh"
