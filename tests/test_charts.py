"""Charts: no legend covers what a chart draws, in the generic report, the study sections and
each game's own charts."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pandas as pd
import pytest
from matplotlib.figure import Figure

from analyzer import api
from analyzer.report import charts
from analyzer.study.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent


class _Kept(Figure):
    """A Figure that remembers itself, to look at the legends of the charts a report drew."""

    made: ClassVar[list[Figure]] = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _Kept.made.append(self)


@pytest.fixture
def kept(monkeypatch):
    _Kept.made = []
    monkeypatch.setattr(charts, "Figure", _Kept)
    return _Kept.made


def _overlaps(fig: Figure) -> list[str]:
    """The axes of ``fig`` whose legend box meets the plot area (1 px of slack)."""
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        a, b = ax.get_window_extent(renderer), leg.get_window_extent(renderer)
        if b.x0 < a.x1 - 1 and b.x1 > a.x0 + 1 and b.y0 < a.y1 - 1 and b.y1 > a.y0 + 1:
            out.append(ax.get_title() or fig.get_suptitle())
    return out


def _check(figures: list[Figure], at_least: int) -> None:
    with_legend = [f for f in figures if any(ax.get_legend() for ax in f.axes)]
    assert len(with_legend) >= at_least
    covered = [t for f in with_legend for t in _overlaps(f)]
    assert covered == []


def test_no_legend_covers_a_chart_of_a_sweep_report(kept, toy_file, tmp_path):
    """The generic charts, the sweep chart and the study sections' charts of a toy sweep."""
    sweep(toy_file, ["seats[0].params.boost=0,1,2"], games=30, jobs=1, out=tmp_path / "sw")
    _check(kept, at_least=5)


def test_no_legend_covers_a_game_chart(kept, tmp_path):
    """A game's own charts (its study.py): a small run of a shipped scenario with variants."""
    api.simulate(ROOT / "scenarios" / "pyramidion-baseline-3p.toml", games=12, jobs=1,
                 out=tmp_path / "pyr")
    _check(kept, at_least=4)


@pytest.mark.parametrize("size", [(5.0, 3.5), (7.0, 4.0), (9.0, 5.0)])
def test_legend_beside_the_axes_at_any_size(size, kept, tmp_path):
    """Many groups with long names: the legend wraps them and stays beside the bars; the title
    moves above the figure so that the narrowed axes do not cut it."""
    names = ["base", "a-very-long-variant-name-with-many-parts-one-two-three", "short"]
    table = pd.DataFrame([{"variant": v, "seat": s, "rate": 0.2 + 0.02 * s, "lo": 0.1, "hi": 0.3}
                          for v in names for s in range(4)])
    charts.save_png(lambda ax: charts.plot_win_rates(ax, table, "seat", 0.25), tmp_path / "w.png", size)
    (fig,) = kept
    assert _overlaps(fig) == []
    assert fig.get_suptitle().startswith("Win rate by seat") and fig.axes[0].get_title() == ""
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[0] == "fair share" and all(len(line) <= charts.LEGEND_WIDTH
                                              for label in labels for line in label.split("\n"))
