"""Issue items 1, 2 and 6 (first-player table): the start player is tested against the share a
fair position wins, (1 − q)/n with q the share of games nobody won; the position test is skipped
when position and policy are confounded; the p-values are corrected over the variants."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from stats_synth import positions_table

from analyzer import stats
from analyzer.report.document import Doc
from analyzer.report.first_player import first_player


def _hand_table() -> pd.DataFrame:
    """100 four-seat games: 72 nobody won, the other 28 won 7 times by each position. A fair
    position wins (1 − 0.72)/4 = 7 % of the games — exactly what each position won."""
    rows = []
    for g in range(100):
        winner = None if g < 72 else (g - 72) % 4
        for pos in range(4):
            rows.append({"variant": "base", "game_id": g, "seat": pos, "start_position": pos,
                         "policy": "p", "won": float(pos == winner)})
    return pd.DataFrame(rows)


def test_fair_share_is_one_minus_no_winner_share_over_n(tmp_path):
    """Known answer: rate 7 %, fair share 7 %, advantage 0, p = 1. The old test against 1/n
    would have called this a −18 pp disadvantage with p < 0.001."""
    seats = _hand_table()
    out = first_player(Doc(tmp_path), seats)["by_variant"][0]
    assert out["rate"] == pytest.approx(0.07)
    assert out["fair"] == pytest.approx(0.07) and out["no_winner"] == pytest.approx(0.72)
    assert out["advantage"] == pytest.approx(0.0, abs=1e-15)
    assert out["p_first"] == pytest.approx(1.0)
    old_z = (0.07 - 0.25) / math.sqrt(0.25 * 0.75 / 100)
    assert 2 * sps.norm.sf(abs(old_z)) < 1e-4  # what the report used to print


def test_start_player_games_per_game_values():
    """Per game: start player's share, the game's total (0 when nobody won), its advantage."""
    seats = pd.DataFrame({"game_id": [0, 0, 1, 1, 2, 2], "start_position": [0, 1, 1, 0, 0, 1],
                          "won": [1.0, 0.0, 1.0, 0.0, 0.0, 0.0]})
    per = stats.start_player_games(seats)
    assert per["start"].tolist() == [1.0, 0.0, 0.0]
    assert per["total"].tolist() == [1.0, 1.0, 0.0]
    assert per["advantage"].tolist() == [0.5, -0.5, 0.0]


def _rejection_rate(blocks: int, games: int, no_winner: float, seed: int) -> tuple[float, float]:
    """Share of null blocks (fair positions, ``no_winner`` games without a winner) where the
    start-player test rejects at 5 %: the new test, and the old one against 1/n."""
    rng = np.random.default_rng(seed)
    new = old = 0
    for _ in range(blocks):
        nobody = rng.random(games) < no_winner
        winner = rng.integers(0, 4, games)
        start_won = (~nobody & (winner == 0)).astype(float)
        total = (~nobody).astype(float)
        d = stats.paired_difference(total / 4, start_won)  # = start_player_advantage
        new += d.p_value < 0.05
        z = (start_won.mean() - 0.25) / math.sqrt(0.25 * 0.75 / games)
        old += 2 * sps.norm.sf(abs(z)) < 0.05
    return new / blocks, old / blocks


def test_null_with_72_percent_no_winner_rejects_about_5_percent():
    """A fair game with 72 % no-winner games: the test rejects near 5 % (300 blocks: 2–9 %);
    the old test against 1/n rejected in every block."""
    new, old = _rejection_rate(300, 400, 0.72, seed=11)
    assert 0.02 <= new <= 0.09
    assert old == 1.0


@pytest.mark.slow
def test_null_calibration_many_blocks():
    """4,000 null blocks at q = 0.72 and at q = 0: rejection within 4–6 %."""
    for q, seed in ((0.72, 5), (0.0, 6)):
        new, _ = _rejection_rate(4000, 400, q, seed)
        assert 0.04 <= new <= 0.06, (q, new)


def test_report_section_on_a_null_table_calls_it_fair(tmp_path):
    """The report section on a synthetic fair game with 72 % no-winner games."""
    _, seats = positions_table(2000, 4, 0.72, np.random.default_rng(2))
    out = first_player(Doc(tmp_path), seats)["by_variant"][0]
    assert out["fair"] == pytest.approx((1 - out["no_winner"]) / 4)
    assert out["advantage_lo"] < 0 < out["advantage_hi"]
    assert out["p_first"] > 0.05


def test_first_player_p_values_are_holm_corrected_over_variants(tmp_path):
    """64 null variants: the raw p-values are corrected over the 64 rows (Holm), the caption
    says so; the adjusted p-values equal statsmodels' Holm of the raw ones."""
    rng = np.random.default_rng(4)
    parts = [positions_table(150, 4, 0.3, rng, variant=f"v{k}")[1] for k in range(64)]
    doc = Doc(tmp_path)
    out = first_player(doc, pd.concat(parts, ignore_index=True))
    rows = pd.DataFrame(out["by_variant"])
    want, _ = stats.adjust_pvalues(rows["p_first"].to_numpy(), "holm")
    np.testing.assert_allclose(rows["p_first_adjusted"], want)
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "Holm" in text and "64 and 64 tests" in text


def test_first_player_null_tables_rarely_show_a_mark(tmp_path):
    """Under a null, a corrected 16-row first-player table shows a `*` in about 5 % of tables or
    fewer (family-wise); uncorrected, far more often."""
    rng = np.random.default_rng(8)
    any_marked = any_raw = 0
    for t in range(40):
        parts = [positions_table(60, 4, 0.0, rng, variant=f"v{k}")[1] for k in range(16)]
        rows = pd.DataFrame(first_player(Doc(tmp_path), pd.concat(parts))["by_variant"])
        any_marked += bool(rows["first_significant"].any())
        any_raw += bool((rows["p_first"] < 0.05).any())
    assert any_marked <= 6 and any_raw >= 12


# ------------------------------------------------------------------ item 2: rotation


def _mixed(rotation_start_random: bool) -> pd.DataFrame:
    _, seats = positions_table(200, 4, 0.0, np.random.default_rng(3),
                               random_start=rotation_start_random,
                               policies=["a", "a", "b", "b"])
    return seats


def test_rotation_off_and_fixed_start_skips_the_position_test(tmp_path):
    """Several policies, no rotation, the start player never moves: each policy always plays
    from the same position, so the tests are skipped and the text says why."""
    doc = Doc(tmp_path)
    out = first_player(doc, _mixed(False), {"seat_rotation": False})["by_variant"][0]
    assert out["position_test"].startswith("skipped")
    assert math.isnan(out["p_first"]) and math.isnan(out["p_all_seats"])
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "confounded" in text and "rotate over the seats" not in text


def test_rotation_sentence_only_when_rotation_is_on(tmp_path):
    doc = Doc(tmp_path)
    first_player(doc, _mixed(True), {"seat_rotation": True})
    assert "Policies rotate over the seats" in " ".join(b[1] for b in doc.blocks if b[0] == "p")
    doc = Doc(tmp_path)
    out = first_player(doc, _mixed(True), {"seat_rotation": False})["by_variant"][0]
    text = " ".join(b[1] for b in doc.blocks if b[0] == "p")
    assert "Seat rotation is off, but the start player moves" in text
    assert "Policies rotate" not in text and out["position_test"] == "done"


def test_sweep_chart_draws_each_values_fair_share(tmp_path):
    """The win-rate sweep chart's reference line is (1 − q)/n of each swept value (here q moves
    from 72 % to 20 %: 7 % and 20 %), not 1/n."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from analyzer.report.sweep import plot_sweep

    # four seats, 100 games per value: 28 and 80 wins in all, so q = 72 % and 20 %
    tab = pd.DataFrame({"variant": ["x=0"] * 4 + ["x=1"] * 4, "seat": [0, 1, 2, 3] * 2,
                        "n": 100, "wins": [10, 6, 6, 6, 23, 19, 19, 19]}).assign(
        value=lambda t: t["wins"] / t["n"], lo=lambda t: t["value"] - 0.02,
        hi=lambda t: t["value"] + 0.02)
    fig, ax = plt.subplots()
    plot_sweep(ax, tab, {"x=0": {"x": 0}, "x=1": {"x": 1}}, ["x"], "win rate", "share", "won",
               "seat")
    line = next(ln for ln in ax.get_lines() if ln.get_label().startswith("fair share"))
    assert list(line.get_xdata()) == [0.0, 1.0]
    assert list(line.get_ydata()) == pytest.approx([0.07, 0.2])
    assert not any(ln.get_label() == "1 / players" for ln in ax.get_lines())
    plt.close(fig)


def test_numbers_known_answer_for_two_variants():
    """Two players, every game won. Variant ``a``: the start player wins 3 of 4 games (rate
    0.75, per-game advantage 1/2, 1/2, 1/2, −1/2); ``b``: 2 of 4 (advantage 0). The rates'
    Wilson intervals, the t-test of the advantage, the chi-square test over the positions and
    Holm over the two variants are computed here with statsmodels and scipy."""
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportion_confint

    from analyzer.report.first_player import numbers

    rows = []
    for var, start_wins in (("a", [1, 1, 1, 0]), ("b", [1, 0, 1, 0])):
        for g, w in enumerate(start_wins):
            for pos in (0, 1):
                rows.append({"variant": var, "game_id": g, "seat": pos, "start_position": pos,
                             "policy": "p", "won": float(w if pos == 0 else 1 - w)})
    out = numbers(pd.DataFrame(rows))
    a, b = out["by_variant"]
    assert out["correction"] == "holm" and (a["variant"], b["variant"]) == ("a", "b")
    assert (a["rate"], a["lo"], a["hi"]) == pytest.approx(
        (0.75, *proportion_confint(3, 4, method="wilson")))
    assert a["fair"] == 0.5 and a["no_winner"] == 0.0 and a["games"] == 4
    assert a["advantage"] == pytest.approx(0.25) and b["advantage"] == pytest.approx(0.0)
    p_a = sps.ttest_1samp([0.5, 0.5, 0.5, -0.5], 0.0).pvalue
    assert a["p_first"] == pytest.approx(p_a) and b["p_first"] == pytest.approx(1.0)
    assert a["p_all_seats"] == pytest.approx(sps.chisquare([3, 1]).pvalue)
    holm = multipletests([p_a, 1.0], method="holm")[1]
    assert [a["p_first_adjusted"], b["p_first_adjusted"]] == pytest.approx(list(holm))
    assert [(p["position"], p["rate"]) for p in a["positions"]] == [(0, 0.75), (1, 0.25)]
    assert (a["positions"][1]["lo"], a["positions"][1]["hi"]) == pytest.approx(
        proportion_confint(1, 4, method="wilson"))
    assert a["position_test"] == "done"
