"""The "Stopping rule: target precision" section of a ``--target-ci`` run
(``analyzer.precision``): games needed and the widest interval reached."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from analyzer import stats
from analyzer.report.document import Doc
from analyzer.report.records import Table, as_table


def target_precision(doc: Doc, facts: Mapping[str, Any],
                     seats: Table | pd.DataFrame) -> dict[str, Any]:
    """How a ``--target-ci`` run stopped (``write`` of its ``numbers``); returns the numbers
    for ``summary.json``."""
    found = numbers(facts, seats)
    write(doc, found)
    return found


def numbers(facts: Mapping[str, Any], seats: Table | pd.DataFrame) -> dict[str, Any]:
    """The stopping rule's numbers: the run facts (``run.target_ci``: ``target``, ``games``,
    ``half_width``, ``reached``, ``steps``, ``max_games``) with the widest win-rate half-width
    (a share) recomputed from the records (``half_width_report``) over the intervals
    ``stats.HALF_WIDTH_COVERS`` names (``covers``), one variant at a time, so the sentence
    covers exactly the intervals it names; the run-time value stays in ``half_width``."""
    seats = as_table(seats)
    cols = ("variant", "game_id", "policy", "seat", "start_position", "won")
    widest = max((stats.max_win_rate_half_width(seats.read(cols, [v]))
                  for v in seats.variants()), default=math.nan)
    return {**facts, "half_width_report": widest, "covers": list(stats.HALF_WIDTH_COVERS)}


def write(doc: Doc, n: Mapping[str, Any]) -> None:
    """The "Stopping rule: target precision" section of the numbers ``n`` (``numbers``):
    games needed, and whether every named interval is within the target."""
    doc.h("Stopping rule: target precision")
    covers, widest = ", ".join(n["covers"]), n["half_width_report"]
    steps = ", ".join(str(s) for s in n.get("steps", []))
    if n.get("reached") and widest <= n["target"] + 1e-12:
        verdict = (f"reached after **{n['games']} games** per variant: every win-rate "
                   f"interval {covers} is within ±{100 * widest:.2f} pp")
    elif n.get("reached"):  # a run whose stopping rule checked fewer intervals
        verdict = (f"stopped after **{n['games']} games** per variant, when the intervals "
                   f"its stopping rule checked were within ±{100 * n['half_width']:.2f} pp; "
                   f"the widest of the intervals named here is ±{100 * widest:.2f} pp, **above** "
                   "the target")
    else:
        verdict = (f"**not reached**: the run stopped at the cap of {n['games']} games per "
                   f"variant with the widest of these intervals ±{100 * widest:.2f} pp")
    doc.p(f"Target: every win-rate interval {covers} (95% Wilson, games as the unit) within "
          f"±{100 * n['target']:.2f} percentage points. The run added chunks of games "
          f"(totals after each round: {steps}) and {verdict}. Differences between two rates "
          "(the start-player advantage, paired changes) are not covered: their intervals are "
          "wider.")
