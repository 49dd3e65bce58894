"""The report being built (``Doc``) and the formatters every section uses.

No section lives here: the generic sections (``sections.py``, ``balance.py``, one module per
study kind's section: ``sweep.py``, ``ablate.py``, ...) and
each game's own ``study.py`` import this module, and it imports none of them.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer import stats
from analyzer.report import charts

BASE = "base"  # the arm every variant is compared with (``scenario.BASE``)


@dataclass
class Doc:
    """A report as a list of blocks: ``("h", text)``, ``("p", text)``, ``("table", DataFrame)``,
    ``("chart", file name, caption)``, ``("side", DataFrame, file name, caption)``; charts are written to ``chart_dir`` as they are added."""

    chart_dir: Path
    blocks: list[tuple] = field(default_factory=list)

    def h(self, text: str) -> None:
        """Add a section heading."""
        self.blocks.append(("h", text))

    def p(self, text: str) -> None:
        """Add a paragraph (Markdown inline markup allowed)."""
        self.blocks.append(("p", text))

    def table(self, df: pd.DataFrame) -> None:
        """Add a table; its cells are shown as they are (format them first)."""
        self.blocks.append(("table", df))

    def chart(self, name: str, caption: str, draw: Callable, size=(7.0, 4.0)) -> None:
        """Draw a chart with ``draw(ax)``, write it to ``chart_dir / name`` (PNG) and add it."""
        charts.save_png(draw, self.chart_dir / name, size)
        self.blocks.append(("chart", name, caption))

    def side(self, df: pd.DataFrame, name: str, caption: str, draw: Callable,
             size=(5.0, 3.0)) -> None:
        """A table with a chart beside it (the Answers), as ``table`` and ``chart``."""
        charts.save_png(draw, self.chart_dir / name, size)
        self.blocks.append(("side", df, name, caption))


class Numbers(Doc):
    """A report that keeps its numbers and draws no chart (``render(full=False)``): its
    blocks are the text and tables only, ``chart_dir`` is never written."""

    def chart(self, name: str, caption: str, draw: Callable, size=(7.0, 4.0)) -> None:
        """Nothing: no chart is drawn."""

    def side(self, df: pd.DataFrame, name: str, caption: str, draw: Callable,
             size=(5.0, 3.0)) -> None:
        """Nothing: the table's chart is not drawn, the table is not added."""


def _missing(x: Any) -> bool:
    try:
        return x is None or math.isnan(float(x))
    except (TypeError, ValueError):
        return True


def number(x: Any, scale: float = 1.0, digits: int = 1, signed: bool = False) -> str:
    """The report's one number format: ``x × scale`` with ``digits`` decimals, with a sign
    when ``signed`` (``"+4.6"``); ``"–"`` when missing (``None``, NaN, not a number)."""
    if _missing(x):
        return "–"
    return f"{scale * float(x):{'+' if signed else ''}.{digits}f}"


def value_text(estimate: Any, lo: Any = None, hi: Any = None, unit: str = "",
               scale: float = 1.0, digits: int = 1, signed: bool = False,
               no_spread: bool = True) -> str:
    """The report's one value format: an estimate with its unit and 95 % interval,
    ``"+10.0 pp [+4.6, +15.4]"`` (``number`` for each; the estimate alone without an interval;
    ``"–"`` when missing). ``no_spread``: an interval of no width (``lo == hi``) reads
    ``"+0.0 pp (same in every game)"``, never a zero-width ``[0.0, 0.0]``."""
    if _missing(estimate):
        return "–"
    unit = f" {unit.strip()}" if unit and unit.strip() else ""
    text = number(estimate, scale, digits, signed) + unit
    if _missing(lo) or _missing(hi):
        return text
    if no_spread and float(lo) == float(hi):
        return f"{text} (same in every game)"
    return f"{text} [{number(lo, scale, digits, signed)}, {number(hi, scale, digits, signed)}]"


def pct(rate: float, lo: float, hi: float) -> str:
    """A share with its interval, ``"25.3 % [24.1, 26.5]"`` (``value_text`` in %)."""
    return value_text(rate, lo, hi, "%", 100, 1)


def num(mean: float, lo: float, hi: float, digits: int = 2) -> str:
    """A mean with its interval, ``"12.34 [12.01, 12.67]"`` (``value_text``)."""
    return value_text(mean, lo, hi, digits=digits)


def change(d: Any, lo: Any, hi: Any, scale: float = 1.0, unit: str = "", digits: int = 2) -> str:
    """A signed difference with its interval, ``"+4.2 pp [+1.0, +7.4]"``: ``value_text`` with
    a zero-width interval shown as one (an interval of no width is a finding here)."""
    return value_text(d, lo, hi, unit, scale, digits, True, no_spread=False)


def cells(table: Any, fmt: Callable[..., str], est: str, lo: str | None = None,
          hi: str | None = None) -> list[str]:
    """A table column of estimates with their intervals: ``fmt(estimate, lo, hi)`` of every row
    of ``table`` (a DataFrame or a dict of columns), its columns ``est``, ``lo`` and ``hi``
    (default ``EST_lo`` and ``EST_hi``), e.g. ``cells(arms, pct, "no_winner")``."""
    los, his = table[lo or f"{est}_lo"], table[hi or f"{est}_hi"]
    return [fmt(x, a, b) for x, a, b in zip(table[est], los, his)]


def signed(d: pd.Series | dict, scale: float = 1.0, unit: str = "", digits: int = 2) -> str:
    """A paired difference (keys ``diff, lo, hi, significant``) as ``"+1.20 pp [+0.40, +2.00] *"``
    (``value_text``).

    ``*`` = significant after the table's multiple-comparison correction when ``d`` has
    ``significant_adjusted`` (``stats.correct``), else the 95% interval excludes 0. A difference
    with no spread over the games (``lo == hi``) reads ``"+0.0 pp (same in every game)"``, not as
    a zero-width interval; one over fewer than ``stats.MIN_GAMES`` games (``d["n"]``) reads
    ``"+0.0 pp (too few games to estimate: 5; at least 20)"``.
    """
    if "n" in d and d["n"] is not None and 0 < int(d["n"]) < stats.MIN_GAMES:
        return (f"{value_text(d['diff'], None, None, unit, scale, digits, True)} (too few games "
                f"to estimate: {int(d['n'])}; at least {stats.MIN_GAMES})")
    sig = d["significant_adjusted"] if "significant_adjusted" in d else d["significant"]
    star = " *" if sig else ""
    return value_text(d["diff"], d["lo"], d["hi"], unit, scale, digits, True) + star


CORRECTION_NAME = {"holm": "Holm (family-wise error 5 %)",
                   "bh": "Benjamini–Hochberg (false-discovery rate 5 %)"}
CORRECTION_SHORT = {"holm": "Holm", "bh": "Benjamini–Hochberg"}


def correction_of(run: Mapping[str, Any] | None) -> str:
    """The multiple-comparison correction a run's study asked for (``--correction`` of
    ``sweep``/``ablate``: ``"holm"`` or ``"bh"``), ``"holm"`` when it names none. Every section
    with significance marks corrects with it."""
    return ((run or {}).get("study") or {}).get("correction", "holm")


def rows_of(df: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``df`` as dicts of plain Python scalars, for ``summary.json``."""
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in df.to_dict(orient="records")]


def concat(parts: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    """The parts one under the other (an empty table with ``columns`` when there are none)."""
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def iv_dict(iv: stats.Interval) -> dict[str, float]:
    """``{"estimate", "lo", "hi"}`` of an interval, for ``summary.json``."""
    return {"estimate": iv.estimate, "lo": iv.lo, "hi": iv.hi}


def clip_share(iv: stats.Interval) -> stats.Interval:
    """A proportion's interval clipped to [0, 1] (the delta method can overshoot)."""
    return stats.Interval(iv.estimate, max(0.0, iv.lo), min(1.0, iv.hi))


def p_text(p: Any, phrase: bool = False) -> str:
    """The report's one p-value format: three decimals, ``"< 0.001"`` below 0.001, ``"–"`` when
    missing (``None``, NaN or not a number). ``phrase``: for a sentence, ``"p = 0.042"``,
    ``"p < 0.001"``, ``"p –"``."""
    try:
        v = float(p)
    except (TypeError, ValueError):
        v = math.nan
    cell = "–" if math.isnan(v) else (f"{v:.3f}" if v >= 0.001 else "< 0.001")
    if not phrase:
        return cell
    return f"p = {cell}" if cell[0].isdigit() else f"p {cell}"


def param_text(v: Any) -> str:
    """The report's one format of a parameter's value (a knob, a tuned or an entrant's
    parameter): a float to four significant digits (``0.1235``), anything else as ``str``."""
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def span(m: float, lo: float, hi: float, digits: int, unit: str = "") -> str:
    """A signed estimate with its interval, ``"+1.2 pp [+0.4, +2.0]"`` (``value_text`` of
    numbers already in the shown unit)."""
    return value_text(m, lo, hi, unit, 1.0, digits, True)


def replay_command(run_dir: Path | None, game_id: int, variant: str = BASE) -> str:
    """The command that replays game ``game_id`` of ``variant`` from the run's ``scenario.toml``
    (the scenario as run: the games, seed and every arm of the run, sweep and compare arms
    included)."""
    scenario = (Path(run_dir) if run_dir is not None else Path(".")) / "scenario.toml"
    words = ["analyzer", "replay", scenario.as_posix(), "--game", str(game_id)]
    if variant != BASE:
        words += ["--variant", variant]
    return shlex.join(words)
