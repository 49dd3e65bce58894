"""Tricks' own report section, on the report's extension point (``StudySection``): the mean
tricks taken at each seat of each arm."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analyzer.report.extension import StudySection

HEADING = "Tricks by seat"


def numbers(games: Any, seats: Any, players: int, run: dict) -> dict | None:
    """The mean tricks a seat takes, per arm and seat (``{arm: {seat: mean}}``); ``None``
    without the ``tricks`` column."""
    if "tricks" not in seats:
        return None
    table = seats.read(("variant", "seat", "tricks"))
    means = table.groupby(["variant", "seat"], sort=False)["tricks"].mean()
    out: dict[str, dict[str, float]] = {}
    for (variant, seat), value in means.items():
        out.setdefault(str(variant), {})[str(seat)] = float(value)
    return out


def write(doc: Any, n: dict, run: dict) -> None:
    """The section's heading, sentence and table of the means ``n`` (``numbers``)."""
    doc.h(HEADING)
    doc.p("Mean tricks taken at each seat (four tricks a game).")
    rows = [(arm, int(seat), round(mean, 3)) for arm, by in n.items() for seat, mean in by.items()]
    doc.table(pd.DataFrame(rows, columns=["arm", "seat", "mean tricks"]))


SECTIONS = (StudySection("tricks_by_seat", numbers, write),)
