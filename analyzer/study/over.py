"""``analyzer balance --over players,content[:K]``: a value that balances for every player and
every plausible content table, and the range of values that does (issue #35).

**The cells.** ``--over`` names the axes: ``players`` — the scenario's own players and every
rung of the player ladder the robustness study uses (``robustness.player_conditions``:
``--ladder``, default ``random, greedy, tuned, ismcts`` where the game has each; every seat of
every arm plays the rung; a rung that searches plays at most ``search_games`` games per arm);
``content[:K]`` (default ``K`` = ``robustness.DEFAULT_CONTENT``) — the built-in tables and
``K`` plausible draws of each guessed content table in use (``robustness.content_conditions``,
the game's ``ContentPrior`` s: one table drawn at a time, the others built in), except a table
a knob changes (the knob sets it). The cells are every rung × every content condition; all
play the same game seeds (common random numbers) at every setting.

**The objective.** At each setting each cell's distance from the goal (``balance.gap``) is
taken, and the setting's distance is the worst case over the cells — the largest ``|gap|``
(``--over-quantile q``: the ``q``-quantile of the ``|gap|`` s, the cell value at or above it,
so ``q = 1`` is the worst case). The scan of one knob smooths each cell's estimates over the
values first (``balance.smooth_gaps``), as the single-cell scan does.

**The check** (``check``): on fresh seeds never searched on, every cell plays each value of
each knob — every integer of its range (a float knob: ``FLOAT_POINTS`` evenly spaced values
and the value found), the other knobs at their values found — on the same ``validation_games``
seeds. Per value and cell the finding's two one-sided tests at 5 % (``stats.equivalence``)
say whether it is within ``target ± D`` (``--tolerance D``, required with ``--over``); with
``--equalize`` the difference of the findings, its standard error the root sum of squares of
theirs (conservative when, as from shared games, they correlate positively). A value **holds**
when every cell shows it (an intersection-union test: no correction, Berger & Hsu 1996); the
**range** is the values that hold; the verdict at the value found is "balanced within ±D for
every player and draw" only when it holds.

This module names no game: rungs and priors come from the game's registry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from analyzer import stats
from analyzer.errors import OptionError
from analyzer.model.content import ContentPrior
from analyzer.report.balancing import runs
from analyzer.scenario import Scenario, Seat
from analyzer.study.robustness import (
    DEFAULT_CONTENT,
    DEFAULT_LADDER,
    MAX_CONTENT,
    TABLES,
    content_conditions,
    content_in_use,
    player_conditions,
    searches,
)

PARTS = ("players", "content")
FLOAT_POINTS = 11  # values of a float knob the check plays (evenly spaced over its range)
OWN = "own"  # the rung of the scenario's own players


@dataclass(frozen=True)
class Over:
    """What ``--over`` names: the ``players`` axis, ``draws`` per guessed content table (0:
    no content axis) and the ``quantile`` of the cells' distances taken (``None``: the worst
    case)."""

    players: bool
    draws: int
    quantile: float | None = None

    @property
    def text(self) -> str:
        """As given on the command line: ``"players,content:4"``."""
        parts = (["players"] if self.players else []) + (
            [f"content:{self.draws}"] if self.draws else [])
        return ",".join(parts)

    @property
    def objective(self) -> str:
        """The objective in words: ``"the worst case"`` or ``"the 0.9-quantile"``."""
        return ("the worst case" if self.quantile is None or self.quantile >= 1
                else f"the {self.quantile:g}-quantile")


def parse_over(text: str | None, quantile: float | None = None) -> Over | None:
    """``--over`` as an ``Over``; ``None`` when not given.

    Raises
    ------
    OptionError
        (keyword ``over``) an empty or unknown part (the allowed ones named), a part given
        twice, ``K`` not an integer from 1 to ``MAX_CONTENT``; (``over_quantile``) a quantile
        outside (0, 1], or one given without ``--over``.
    """
    if text is None:
        if quantile is not None:
            raise OptionError("over_quantile", "only with {over} (the quantile of what)",
                              over=None)
        return None
    draws, seen = 0, set()
    for raw in str(text).split(","):
        part = raw.strip()
        name, colon, k = part.partition(":")
        if name not in PARTS or (name == "players" and colon):
            raise OptionError("over", f"{part!r} is not a part of {{over}} (allowed: players, "
                                      "content or content:K, comma-separated)", over=None)
        if name in seen:
            raise OptionError("over", f"{name} is given twice in {text!r}")
        seen.add(name)
        if name == "content":
            try:
                draws = int(k) if colon else DEFAULT_CONTENT
            except ValueError:
                draws = -1
            if not 1 <= draws <= MAX_CONTENT:
                raise OptionError("over", f"content:{k}: K is the number of draws of each "
                                          f"guessed table, an integer from 1 to "
                                          f"{MAX_CONTENT:,}")
    if quantile is not None and not (math.isfinite(quantile) and 0 < quantile <= 1):
        raise OptionError("over_quantile", f"must be in (0, 1] (1: the worst case; got "
                                           f"{quantile})")
    return Over("players" in seen, draws, quantile)


@dataclass(frozen=True)
class Cell:
    """One rung × content condition: ``apply`` plays a setting's scenario there.

    Attributes
    ----------
    name : str
        ``"RUNG/CONTENT"``, e.g. ``"players-greedy/content-tokens-2"``, ``"own/built-in"``.
    rung, draw : str
        The rung's and the content condition's labels, for the report.
    seat : Seat or None
        The rung's player in every seat (``None``: the scenario's own players).
    cap : int or None
        Games per arm at most (a rung that searches).
    option, path : str or None
        A draw's ``*_file`` option and its drawn table (``None``: the built-in tables).
    prior, draw_seed, differs
        The draw's prior, seed and what differs from the built-in table.
    """

    name: str
    rung: str
    draw: str
    seat: Seat | None = None
    cap: int | None = None
    option: str | None = None
    path: str | None = None
    prior: ContentPrior | None = None
    draw_seed: int = 0
    differs: str = ""

    def apply(self, scenario: Scenario, content: bool = True) -> Scenario:
        """``scenario`` (a setting's) with this cell's players and drawn table (an arm that
        sets the table's option itself keeps it); ``content=False``: the players only (for
        pricing, before the draws are written)."""
        arms = scenario.arms
        if self.seat is not None:
            arms = tuple(replace(a, seats=tuple(self.seat for _ in a.seats)) for a in arms)
        if content and self.option is not None:
            arms = tuple(replace(a, rules={**a.rules, self.option: self.path})
                         if self.option not in a.rules else a for a in arms)
        return replace(scenario, arms=arms)

    def games(self, games: int) -> int:
        """Games per arm this cell plays of ``games``."""
        return games if self.cap is None else min(games, self.cap)

    def facts(self) -> dict[str, Any]:
        """The cell for ``summary.json``."""
        return {"name": self.name, "rung": self.rung, "draw": self.draw,
                "policy": None if self.seat is None else self.seat.policy,
                "cap": self.cap, "table": None if self.prior is None else self.prior.table,
                "draw_seed": self.draw_seed if self.prior is not None else None,
                "differs": self.differs}


def cells(scenario: Scenario, over: Over, ladder: Sequence[str] | None, games: int,
          search_games: int, folder: Path, knob_options: Sequence[str]) -> list[Cell]:
    """Every rung × content condition of ``over`` (the scenario's own players and built-in
    tables first); drawn tables are read from ``folder`` (``write``). Writes nothing.

    Raises
    ------
    OptionError
        (keyword ``over``) ``players`` where the ladder has no player other than the
        scenario's own; ``content`` where the scenario uses no guessed content table (or only
        tables a knob changes). (``ladder``) a bad ``--ladder`` entry.
    """
    rungs: list[tuple[str, str, Seat | None, int | None]] = [
        (OWN, "the scenario's players", None, None)]
    if over.players:
        try:
            conditions, _same = player_conditions(scenario, ladder, games, search_games)
        except OptionError as err:  # robustness's ``players`` is balance's ``ladder``
            if err.option != "players":
                raise
            raise OptionError("ladder", err.message, **err.refs) from None
        for c in conditions:
            seat = c.scenario.arms[0].seats[0]
            cap = search_games if searches(scenario, seat) else None
            rungs.append((c.name, c.label.removeprefix("every seat: "), seat, cap))
        if len(rungs) == 1:
            given = ", ".join(ladder) if ladder else "the default: " + ", ".join(DEFAULT_LADDER)
            raise OptionError("over", f"players: the ladder ({given}) has no player of "
                                      f"{scenario.spec.name} other than the scenario's own; "
                                      "name them with {ladder}", ladder=None)
    draws: list[tuple[str, str, dict[str, Any]]] = [("built-in", "built-in tables", {})]
    if over.draws:
        used = [p for p in content_in_use(scenario) if p.option not in knob_options]
        if not used:
            held = [p.table for p in content_in_use(scenario) if p.option in knob_options]
            raise OptionError("over", f"content: {scenario.name} uses no guessed content table"
                                      + (f" other than {', '.join(held)}, which a knob sets"
                                         if held else "")
                                      + " (`analyzer list content`); leave content out")
        draws += [(c.name, c.label, {"option": c.prior.option,
                                     "path": str((folder / c.file).resolve()), "prior": c.prior,
                                     "draw_seed": c.draw_seed, "differs": c.differs})
                  for c in content_conditions(scenario, over.draws, [p.table for p in used],
                                              games, folder)]
    return [Cell(f"{rname}/{dname}", rlabel, dlabel, seat, cap, **extra)
            for rname, rlabel, seat, cap in rungs for dname, dlabel, extra in draws]


def write(cs: Sequence[Cell], folder: Path) -> None:
    """Write every drawn table the cells read into ``folder`` (``TABLES`` of the run)."""
    for c in cs:
        if c.prior is not None:
            c.prior.write(c.draw_seed, folder)


def robust(gaps: Sequence[float], quantile: float | None = None) -> tuple[float, int | None]:
    """The setting's distance over its cells' ``gaps`` (signed, own scale): the largest
    ``|gap|`` (``quantile`` ``q`` < 1: the cell at or above the ``q``-quantile of the
    ``|gap|`` s), with its sign, and that cell's index; ``(nan, None)`` when no cell has one.
    A cell that does not compute the finding is left out."""
    idx = [i for i, g in enumerate(gaps) if not (g is None or math.isnan(g))]
    if not idx:
        return math.nan, None
    order = sorted(idx, key=lambda i: abs(gaps[i]))
    if quantile is None or quantile >= 1:
        pick = order[-1]
    else:
        pick = order[min(len(order) - 1, math.ceil(quantile * len(order)) - 1)]
    return float(gaps[pick]), pick


def check_values(knobs: Sequence[Any], found: Sequence[Any]) -> list[tuple[int, Any, list[Any]]]:
    """The settings the range check plays: per knob ``i`` each value ``v`` of its range (an
    integer knob every integer, a float knob ``FLOAT_POINTS`` evenly spaced values and the
    value found), the others at their values found: ``(i, v, setting)``."""
    out = []
    for i, k in enumerate(knobs):
        if k.kind is int:
            vals: list[Any] = list(range(int(k.low), int(k.high) + 1))
        else:
            vals = sorted({float(f"{x:.4g}") for x in np.linspace(k.low, k.high, FLOAT_POINTS)}
                          | {float(found[i])})
        for v in vals:
            setting = list(found)
            setting[i] = v
            out.append((i, v, setting))
    return out


def test(estimate: float, se: float, tolerance: float, target: float) -> dict[str, Any]:
    """One cell's two one-sided tests at 5 % (``stats.equivalence``, normal reference): the
    estimate, its 90 % interval, the larger one-sided p and ``shown``."""
    eq = stats.equivalence(estimate, se, tolerance, target=target)
    return {"estimate": eq.estimate, "lo90": eq.lo, "hi90": eq.hi, "target": eq.target,
            "p_value": eq.p_value, "shown": bool(eq.shown), "se": se}


def ranges(rows: Sequence[Mapping[str, Any]], knobs: Sequence[Mapping[str, Any]],
           names: Sequence[str]) -> list[dict[str, Any]]:
    """Per knob, from the check's ``rows`` (``knob``, ``value``, ``cell``, ``shown``): the
    values that hold in every cell (``holds``), and each other value with the cells where it
    holds (``partial``: ``[value, [cell, …]]``, only values that hold somewhere)."""
    out = []
    for i, k in enumerate(knobs):
        mine = [r for r in rows if r["knob"] == i]
        values = sorted({r["value"] for r in mine})
        holds, partial = [], []
        for v in values:
            where = [r["cell"] for r in mine if r["value"] == v and r["shown"]]
            if len(where) == len(names):
                holds.append(v)
            elif where:
                partial.append([v, [n for n in names if n in where]])
        out.append({"path": k["path"], "label": k["label"], "values": values, "holds": holds,
                    "holds_text": runs(holds), "partial": partial})
    return out


__all__ = ["TABLES", "Cell", "Over", "cells", "check_values", "parse_over", "ranges", "robust",
           "runs", "test", "write"]
