"""The "Stopping rule: target precision" section of a ``--target-ci`` run
(``analyzer.precision``): games needed and the widest interval reached."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from analyzer import stats
from analyzer.report.document import Doc
from analyzer.report.records import Table, as_table


def target_precision(doc: Doc, facts: dict, seats: Table | pd.DataFrame) -> dict[str, Any]:
    """How a ``--target-ci`` run stopped: games needed and the widest interval reached.

    The widest half-width is recomputed from the records over the intervals
    ``stats.HALF_WIDTH_COVERS`` names (one variant at a time), so the sentence covers exactly
    the intervals it names; the run-time value stays in ``half_width``.
    """
    doc.h("Stopping rule: target precision")
    seats = as_table(seats)
    cols = ("variant", "game_id", "policy", "seat", "start_position", "won")
    widest = max((stats.max_win_rate_half_width(seats.read(cols, [v]))
                  for v in seats.variants()), default=math.nan)
    covers = ", ".join(stats.HALF_WIDTH_COVERS)
    steps = ", ".join(str(s) for s in facts.get("steps", []))
    if facts.get("reached") and widest <= facts["target"] + 1e-12:
        verdict = (f"reached after **{facts['games']} games** per variant: every win-rate "
                   f"interval {covers} is within ±{100 * widest:.2f} pp")
    elif facts.get("reached"):  # a run whose stopping rule checked fewer intervals
        verdict = (f"stopped after **{facts['games']} games** per variant, when the intervals "
                   f"its stopping rule checked were within ±{100 * facts['half_width']:.2f} pp; "
                   f"the widest of the intervals named here is ±{100 * widest:.2f} pp, **above** "
                   "the target")
    else:
        verdict = (f"**not reached**: the run stopped at the cap of {facts['games']} games per "
                   f"variant with the widest of these intervals ±{100 * widest:.2f} pp")
    doc.p(f"Target: every win-rate interval {covers} (95% Wilson, games as the unit) within "
          f"±{100 * facts['target']:.2f} percentage points. The run added chunks of games "
          f"(totals after each round: {steps}) and {verdict}. Differences between two rates "
          "(the start-player advantage, paired changes) are not covered: their intervals are "
          "wider.")
    return {**facts, "half_width_report": widest, "covers": list(stats.HALF_WIDTH_COVERS)}
