"""One function per figure: ``plot_x(ax, table)`` draws on a given Axes (no pyplot state).

``save_png(draw, path)`` makes a figure with the Agg canvas, calls ``draw(ax)`` and writes the
PNG atomically. Every chart's legend goes through ``legend``: outside the plot area, so it never
covers a bar, a line or a point.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from analyzer.files import atomic_write


def save_png(draw: Callable, path: Path, size: tuple[float, float] = (7.0, 4.0)) -> Path:
    """Draw one figure with ``draw(ax)`` and write it as PNG to ``path`` (atomic)."""
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw(ax)
    if ax.get_legend() is not None and ax.get_title():
        # a legend beside the axes narrows them: the title spans the figure, so it is never cut
        fig.suptitle(ax.get_title())
        ax.set_title("")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return atomic_write(path, buf.getvalue())


LEGEND_ROWS = 14  # entries per legend column; more entries add a column
LEGEND_WIDTH = 28  # characters per line of a legend entry; a longer name wraps


def legend(ax, title: str | None = None) -> None:
    """The legend of ``ax`` beside the plot area, on its right (the figure's constrained layout
    narrows the axes to make room), so it covers nothing the axes draw; long names wrap. No
    legend when nothing has a label."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    labels = [textwrap.fill(label, LEGEND_WIDTH, break_on_hyphens=False) for label in labels]
    ax.legend(handles, labels, title=title, fontsize="small", title_fontsize="small",
              loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False,
              ncol=1 + (len(handles) - 1) // LEGEND_ROWS)


def error_bars(value, lo, hi) -> np.ndarray:
    """Matplotlib ``yerr``/``xerr`` of shape (2, n) from estimates and interval bounds.

    Negative lengths (rounding at a 0 or 1 rate, or a percentile interval that does not contain
    its estimate) are clipped to 0 and missing bounds (``nan``) draw no bar, so a degenerate
    table never makes matplotlib refuse the chart.
    """
    v = np.asarray(value, dtype=float)
    err = np.vstack([v - np.asarray(lo, dtype=float), np.asarray(hi, dtype=float) - v])
    return np.clip(np.nan_to_num(err, nan=0.0), 0.0, None)


def grouped_bars(ax, table: pd.DataFrame, x: str, group: str, value: str, lo: str, hi: str
                 ) -> tuple[dict, float]:
    """Bars of ``table[value]`` at each ``x``, one bar per ``group`` side by side, with
    ``[lo, hi]`` error bars and a legend when there are several groups. Returns each group's
    bar centres (shape ``(len(xs),)``) and the bar width."""
    xs = list(pd.unique(table[x]))
    groups = list(pd.unique(table[group]))
    width = 0.8 / max(len(groups), 1)
    pos = np.arange(len(xs))
    centres = {g: pos + (j - (len(groups) - 1) / 2) * width for j, g in enumerate(groups)}
    for g, centre in centres.items():
        sub = table[table[group] == g].set_index(x).reindex(xs)
        y = sub[value].to_numpy(float)
        ax.bar(centre, y, width, yerr=error_bars(y, sub[lo], sub[hi]), capsize=3, label=str(g))
    ax.set_xticks(pos, [str(v) for v in xs])
    if len(groups) > 1:
        legend(ax, title=group)
    return centres, width


def plot_win_rates(ax, table: pd.DataFrame, by: str,
                   fair: float | Mapping[str, float] | None = None) -> None:
    """Win rate per ``by`` value and variant with 95% Wilson error bars.

    ``table``: columns ``[variant, by, rate, lo, hi]``; ``fair``: the share a fair position
    wins, ``(1 − q)/n`` (``q`` = share of games nobody won) — one dashed line, or per variant a
    dash over each of its bars when the variants differ.
    """
    centres, width = grouped_bars(ax, table, by, "variant", "rate", "lo", "hi")
    if isinstance(fair, Mapping):
        for j, (g, centre) in enumerate(centres.items()):
            if g in fair:
                ax.hlines([fair[g]] * len(centre), centre - width / 2, centre + width / 2,
                          colors="grey", linestyles="--", linewidth=1,
                          label="fair share" if j == 0 else None)
    elif fair is not None:
        ax.axhline(fair, color="grey", linestyle="--", linewidth=1, label="fair share")
    if fair is not None:  # the legend then names the fair-share line too
        legend(ax, title="variant")
    ax.set_xlabel(by)
    ax.set_ylabel("win rate [share of games]")
    ax.set_title(f"Win rate by {by} (95% Wilson intervals)")


def plot_score_histogram(ax, scores: dict[str, np.ndarray]) -> None:
    """Histogram of final scores [points] per variant (``scores``: variant → scores, shape
    ``(seat-games,)``, drawn in the order given)."""
    lo = float(min(np.min(x) for x in scores.values()))
    hi = float(max(np.max(x) for x in scores.values()))
    bins = np.arange(np.floor(lo), np.ceil(hi) + 2) - 0.5 if hi - lo <= 80 else 40
    for var, x in scores.items():
        ax.hist(x, bins=bins, histtype="step", density=True, label=str(var), linewidth=1.5)
    ax.set_xlabel("final score [points]")
    ax.set_ylabel("share of seat-games")
    ax.set_title("Score distribution")
    legend(ax, title="variant")


def plot_value_shares(ax, table: pd.DataFrame, group: str, xlabel: str, title: str) -> None:
    """Share of games per value (``table``: columns ``[group, value, share, lo, hi]``)."""
    grouped_bars(ax, table, "value", group, "share", "lo", "hi")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of games")
    ax.set_title(title)

