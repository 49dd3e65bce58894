"""The report section of ``analyzer compare``: which arm came from which scenario file."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analyzer.report.document import Doc
from analyzer.report.records import Table


def section(doc: Doc, run: dict, games: Table, seats: Table, players: int,
            item_kind: str = "item") -> dict[str, Any]:
    """The study section of a comparison (``analyzer.studies``): which arm came from which
    scenario file."""
    study = run.get("study") or {}
    doc.h("Compared scenarios")
    doc.p(f"Arms are named by scenario (`NAME`, `NAME/VARIANT`); `base` is the base arm of "
          f"the first scenario, `{study.get('reference', '?')}`, the reference of every paired "
          "difference.")
    doc.table(pd.DataFrame([{"scenario": sc["name"], "description": sc.get("description", ""),
                             "file": sc["file"], "arms": ", ".join(sc["arms"])}
                            for sc in study.get("scenarios", [])]))
    return dict(study)
