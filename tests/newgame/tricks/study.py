"""Tricks' own report section, on the report's extension point (``StudySection``): the mean
tricks taken at each seat of each arm."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analyzer.report.extension import StudySection

HEADING = "Tricks by seat"


def tricks_by_seat(doc: Any, games: Any, seats: Any, players: int, run: dict) -> dict | None:
    """The mean tricks a seat takes, per arm and seat (``{arm: {seat: mean}}``); ``None``
    without the ``tricks`` column."""
    if "tricks" not in seats:
        return None
    table = seats.read(("variant", "seat", "tricks"))
    means = table.groupby(["variant", "seat"], sort=False)["tricks"].mean()
    doc.h(HEADING)
    doc.p("Mean tricks taken at each seat (four tricks a game).")
    doc.table(pd.DataFrame({"arm": [v for v, _ in means.index], "seat": [s for _, s in means.index],
                            "mean tricks": means.to_numpy().round(3)}))
    out: dict[str, dict[str, float]] = {}
    for (variant, seat), value in means.items():
        out.setdefault(str(variant), {})[str(seat)] = float(value)
    return out


SECTIONS = (StudySection("tricks_by_seat", tricks_by_seat),)
