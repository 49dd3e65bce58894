"""``analyzer findings RUN_DIR --json`` / ``--csv``: a run's findings as machine-readable rows.

One row per key finding or measured figure, in the report's order: ``key``, ``question`` (the
study file's question that asks for it, or the study kind's own, ``""`` when none does),
``estimate``, ``lo`` and ``hi`` (the 95 % interval), all in ``unit`` — the unit the report
shows (a share in %, a difference of shares in pp: one unit across report, ``summary.json``'s
answers and these rows; ``"ratio"`` for a ratio without a unit of its own) — ``null`` (the no-effect value, ``None`` for a figure) and ``verdict``
(the Answers table's words: ``answers.verdict``).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analyzer.report import answers, finding_keys, robustness, units

COLUMNS = ("key", "question", "estimate", "lo", "hi", "unit", "null", "verdict")


def rows(run_dir: str | Path) -> list[dict[str, Any]]:
    """The rows of the run in ``run_dir`` (``COLUMNS``; numbers in the shown unit, ``None``
    where missing).

    Raises
    ------
    AnalyzerError
        ``run_dir`` holds no finished run (``finding_keys.read``).
    """
    found = finding_keys.finished(run_dir)
    records = finding_keys.records_of(found, run_dir)
    robust = robustness.load(run_dir, found.run.as_dict())
    said = ((found.results or {}).get("answers") or {}).get("answers") or []
    return table(records, said, found.run.questions, robust)


def table(records: Sequence[Mapping[str, Any]], said: Sequence[Mapping[str, Any]],
          questions: Sequence[Mapping[str, Any]] = (),
          robust: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The rows of ``records`` (finding records), each with the question of its answer in
    ``said`` (``summary.json``'s ``answers``) and that answer's verdict (with the question's
    tolerance), else ``answers.verdict`` of the record."""
    asked = {str(a.get("key")): a for a in said}
    tolerance = {str(q.get("finding")): q.get("tolerance") for q in questions}
    out = []
    for r in records:
        key = str(r.get("key"))
        a = asked.get(key) or {}
        scale = float(r.get("scale") or 1.0)
        out.append({
            "key": key, "question": str(a.get("question") or ""),
            **{k: _shown(r.get(k), scale) for k in ("estimate", "lo", "hi")},
            "unit": units.shown(r), "null": _shown(r.get("null"), scale),
            "verdict": str(a.get("verdict") or answers.verdict(r, robust, tolerance.get(key)))})
    return out


def _shown(x: Any, scale: float) -> float | None:
    try:
        v = float(x) * scale
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def as_json(found: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a JSON list of objects."""
    return json.dumps(list(found), indent=1, ensure_ascii=False)


def as_csv(found: Sequence[Mapping[str, Any]], columns: Sequence[str] = COLUMNS) -> str:
    """The rows as CSV with a header (``columns``; an empty cell where a value is missing)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    for r in found:
        w.writerow({k: ("" if r.get(k) is None else r[k]) for k in columns})
    return buf.getvalue()


__all__ = ["COLUMNS", "as_csv", "as_json", "rows", "table"]
