"""The "Robustness" section: each key finding under other players and other rule defaults.

Reads what ``analyzer robustness`` wrote (``OUT/robustness/robustness.json``, made by
``analyzer.robustness.assess``) and shows, per key finding, its verdict — holds, sensitive
(naming the conditions) or unresolved — the table of findings × conditions and a chart. The
verdict phrase of one finding (``verdict_text``) also goes into the key findings section.
Names no game: the findings and conditions are read from the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.report.document import Doc

FOLDER = "robustness"  # OUT/robustness/<condition>/ and OUT/robustness/robustness.json
RESULT = "robustness.json"
MARKS = {"same": "✓", "flip": "✗ flipped", "lost": "✗ lost", "wide": "? too wide",
         "absent": "—", "unmeasurable": "n/m"}
TESTS = {"paired": "paired per game", "two-sample": "two-sample", "exact": "exact"}
MAX_CHART = 12  # findings drawn (the tested ones)


def load(run_dir: str | Path | None, run: Mapping[str, Any]) -> dict[str, Any] | None:
    """The robustness result in ``run_dir`` when it belongs to the run whose facts are ``run``
    (same name, seed, games and finish time); ``None`` when there is none or it is stale (the
    run was played again since)."""
    if run_dir is None:
        return None
    try:
        data = json.loads((Path(run_dir) / FOLDER / RESULT).read_text())
    except (OSError, ValueError):
        return None
    base = data.get("base") or {}
    if not base or any(base.get(k) != run.get(k) for k in ("name", "seed", "games", "finished")):
        return None
    return data


def _labels(data: Mapping[str, Any]) -> dict[str, str]:
    """Condition name -> its label, with its games per variant when fewer than the run's (a
    searching ladder player), so a verdict says what it rests on."""
    games = (data.get("base") or {}).get("games")
    return {c["name"]: c["label"] + (f" ({c['games']} games)" if games and c.get("games")
                                     and c["games"] < games else "")
            for c in data.get("conditions", [])}


def _names(conds: list[str], labels: Mapping[str, str]) -> str:
    return "; ".join(f"{labels.get(c, c)}" for c in conds)


def _unmeasurable(row: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """`` (not measurable under …: reason; …)`` for the conditions that cannot measure the
    finding (they count neither for nor against it)."""
    why = row.get("unmeasurable_in") or {}
    if not why:
        return ""
    return (" (not measurable — so not counted — under " + "; ".join(
        f"{labels.get(c, c)}: {reason}" for c, reason in why.items()) + ")")


def _chosen(row: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """Where a condition chose another item than this run's (the comparison stays on this
    run's item)."""
    chosen = row.get("chosen_in") or {}
    if not chosen:
        return ""
    item = str(row.get("item") or "")
    return (f" Compared on this run's choice ({item.replace('_', ' ')}) everywhere; the choice "
            "itself changed under " + "; ".join(
                f"{labels.get(c, c)} (picks {i.replace('_', ' ')})" for c, i in chosen.items())
            + ".")


def verdict_text(row: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """One sentence: the finding's verdict over the robustness conditions."""
    labels = _labels(data)
    states = row.get("states") or {}
    n = sum(1 for s in states.values() if s not in ("absent", "unmeasurable"))
    absent = row.get("absent_in") or []
    gone = (f" (not computed under {len(absent)} condition{'s' if len(absent) != 1 else ''}: "
            f"{_names(absent, labels)})") if absent else ""
    gone += _unmeasurable(row, labels)
    chosen = _chosen(row, labels)
    v = row.get("verdict")
    if v == "holds":
        return (f"**Robustness check: holds** — same sign and significant under all {n} other "
                f"conditions that measure it{gone}.{chosen}")
    if v == "sensitive":
        parts = [f"{what} under: {_names(names, labels)}" for what, names in (
            ("flipped (significant the other way, and different from this run after Holm)",
             [c for c in row["sensitive_to"] if states.get(c) == "flip"]),
            (("lost (not significant, and nearer no effect than this run by a difference "
              "significant after Holm over the conditions)"),
             [c for c in row["sensitive_to"] if states.get(c) == "lost"])) if names]
        return f"**Robustness check: sensitive** — {'; '.join(parts)}{gone}.{chosen}"
    if v == "unchecked" and row.get("reason"):
        return f"**Robustness check: unchecked** — {row['reason']}."
    if v == "unchecked":
        return ("**Robustness check: unchecked** — no condition measures this finding (e.g. a "
                f"policy's effect when every seat plays one ladder player){_unmeasurable(row, labels)}.")
    if v == "unresolved":
        if not row.get("base_significant", True):
            return ("**Robustness check: unresolved (not significant in the base after Holm)** "
                    "— no condition is judged.")
        return (f"**Robustness check: unresolved** — not significant there, but not measurably "
                f"different from this run either (too few games to tell) under: "
                f"{_names(row['unresolved_in'], labels)}{gone}.{chosen}")
    rng = row.get("range")
    if rng:
        scale = row.get("scale") or 1.0
        at = row.get("range_at") or ["", ""]
        unit = f" {row['unit']}" if row.get("unit") else ""
        d = int(row.get("digits") or 2)
        item = (f" ({str(row['item']).replace('_', ' ')} everywhere)" if row.get("item")
                else "")
        return (f"**Robustness check:** a measured figure (no verdict); {scale * row['estimate']:.{d}f}"
                f"{unit} in this run, from {scale * rng[0]:.{d}f}{unit} "
                f"({labels.get(at[0], at[0])}) to {scale * rng[1]:.{d}f}{unit} "
                f"({labels.get(at[1], at[1])}) over the conditions{item}{gone}.{chosen}")
    return ""


def content_text(row: Mapping[str, Any] | None) -> str:
    """`` Over guessed content: <table>: <verdict in words>; …`` of one finding (what
    ``--content`` drew; what differs in each draw is in the Robustness section), or ``""``."""
    content = (row or {}).get("content") or {}
    if not content:
        return ""
    return " Over guessed content: " + "; ".join(
        f"`{t}`: {v.get('short') or v.get('sentence', '')}" for t, v in content.items()) + "."


def _cell(r: Mapping[str, Any] | None, scale: float, mark: str = "", signed: bool = False) -> str:
    if r is None:
        return "—"
    est, lo, hi = (r.get(k) for k in ("estimate", "lo", "hi"))
    if est is None or (isinstance(est, float) and math.isnan(est)):
        return "—"
    text = f"{scale * est:+.2f}" if signed else f"{scale * est:.2f}"
    if lo is not None and hi is not None and not (isinstance(lo, float) and math.isnan(lo)):
        text += f" [{scale * lo:.2f}, {scale * hi:.2f}]"
    return f"{text} {mark}".strip()


def section(doc: Doc, data: Mapping[str, Any], numbers: Mapping[str, int]) -> dict[str, Any]:
    """Add the "Robustness" section.

    Parameters
    ----------
    data : mapping
        ``robustness.json``.
    numbers : mapping of str to int
        Finding key -> its number in the key findings list (figures have none).

    Returns
    -------
    dict
        ``{"verdicts": {key: verdict}, "conditions": n}`` for ``summary.json``.
    """
    rows = data.get("findings") or []
    conds = data.get("conditions") or []
    doc.h("Robustness")
    minutes = (data.get("seconds") or 0) / 60
    doc.p(f"Does each key finding hold for other players and other rule defaults? `analyzer "
          f"robustness` re-ran this scenario under {len(conds)} condition"
          f"{'s' if len(conds) != 1 else ''}, on the same game seeds (each a run directory in "
          f"`robustness/`, with its own report; {minutes:.0f} minutes of play): every seat of "
          "every arm replaced by one player of the ladder, and each labelled default that has a "
          "documented alternative changed, one at a time, at this run's players. A finding "
          "**holds** when under every condition that measures it its own 95 % interval excludes "
          "no effect on the same side as here (an intersection–union test: it needs no "
          "correction over the conditions). Whether a condition moved it is a **test of the "
          "difference** condition − this run, each against its own no-effect value: a paired "
          "t-test of the per-game values on the shared game seeds where the finding is a "
          "per-game quantity in both runs, else a two-sample z-test with both runs' standard "
          "errors; Holm over the conditions of each finding (family-wise error 5 %). A finding "
          "is **sensitive** when a condition differs significantly after Holm and flips it (✗ "
          "flipped: significant the other way) or loses it (✗ lost: no longer significant, "
          "nearer no effect); **unresolved** when some condition neither confirms it nor "
          "differs measurably (? too wide), and always when the finding is not significant "
          "after Holm in this run itself (then no condition is judged). A condition that cannot "
          "measure a finding (no comparison group, a card nobody takes: n/m) says why and counts "
          "neither way. A finding about an item this run chose (a site, a goods source) is "
          "compared on that same item in every condition. Measured figures get their range, "
          "no verdict. Measured false-alarm rates of this rule: `tests/stats/"
          "test_robustness_calibration.py`.")
    doc.table(pd.DataFrame([{"condition": c["label"], "folder": f"robustness/{c['name']}",
                             "games per arm": c["games"],
                             "players": ", ".join(c.get("policies", [])),
                             "games changed": _changed(c)}
                            for c in conds]))
    idle = [c["label"] for c in conds if c.get("changed_games") == 0]
    if idle:
        doc.p("Changed no decision (every game the same as this run's, so every finding is "
              "unchanged there): " + "; ".join(idle) + ".")
    same = data.get("same_as_base") or []
    if same:
        doc.p("Ladder players the base run already uses (not re-run): "
              + ", ".join(f"`{s}`" for s in same) + ".")
    without = data.get("without") or []
    if without:
        shown = ", ".join(f"`{w}`" for w in without[:12])
        more = f" and {len(without) - 12} more" if len(without) > 12 else ""
        doc.p(f"Labelled defaults in use without a documented alternative (not varied): "
              f"{shown}{more}.")
    _content(doc, data, rows, numbers)
    counts = {v: sum(1 for r in rows if r.get("verdict") == v)
              for v in ("holds", "sensitive", "unresolved", "unchecked", "figure")}
    base_ns = sum(1 for r in rows if r.get("verdict") == "unresolved"
                  and not r.get("base_significant", True))
    doc.p(f"Verdicts: {counts['holds']} hold, {counts['sensitive']} sensitive, "
          f"{counts['unresolved']} unresolved ({base_ns} of them not significant after Holm in "
          f"this run), {counts['unchecked']} unchecked (no condition measures them); "
          f"{counts['figure']} measured figure(s).")
    table = []
    for r in rows:
        scale = r.get("scale") or 1.0
        tested = r.get("verdict") != "figure"
        label = f"#{numbers[r['key']]} " if r.get("key") in numbers else ""
        sign = bool(r.get("signed", tested))
        unresolved_base = tested and not r.get("base_significant")
        verdict = r.get("verdict")
        if unresolved_base:
            verdict = "unresolved (not significant in the base after Holm)"
        line = {"finding": f"{label}`{r.get('key')}`"
                + (f" ({str(r['item']).replace('_', ' ')})" if r.get("item") else ""),
                "verdict": verdict,
                "this run": _cell(r, scale, "✓" if tested and r.get("base_significant")
                                  else ("" if not tested else "?"), sign)}
        for c in conds:
            found = (r.get("by_condition") or {}).get(c["name"])
            state = (r.get("states") or {}).get(c["name"], "")
            if state == "unmeasurable" or (found or {}).get("unmeasurable"):
                line[c["label"]] = "n/m"
                continue
            mark = (MARKS.get(state, "") if r.get("base_significant") or state == "absent"
                    else "") if tested else ""
            test = (found or {}).get("test") or {}
            if mark and tested and test.get("test") in TESTS and state != "same":
                mark += f" (Holm p {_p(test.get('p_holm'))}, {TESTS[test['test']]})"
            line[c["label"]] = _cell(found, scale, mark, sign)
        table.append(line)
    if table:
        doc.p("Each finding (number of the key findings list, and its key) under each "
              "condition: estimate [95 % interval] in the finding's unit, and its state; where a "
              "condition does not confirm the finding, the Holm-adjusted p-value of its "
              "difference from this run and the test (paired per game or two-sample). n/m: not "
              "measurable there (the reason is in the finding's verdict).")
        doc.table(pd.DataFrame(table))
        drawn = [r for r in rows if r.get("verdict") != "figure"][:MAX_CHART]
        if drawn:
            doc.chart("robustness.png", "Key findings under each condition: estimate and 95 % "
                      "interval, as the distance from no effect in this run's standard errors "
                      "(grey line: no effect; dashed: this run's estimate). Within each "
                      "finding the points run from this run (black, top) through the "
                      "conditions in the order of the table above; green: same side and "
                      "significant, red: flipped or lost, orange: too wide.",
                      lambda ax: _plot(ax, drawn, conds),
                      size=(8.0, 1.2 + 0.9 * len(drawn)))
    return {"verdicts": {r["key"]: r.get("verdict") for r in rows}, "conditions": len(conds)}


def _content(doc: Doc, data: Mapping[str, Any], rows: list[Mapping[str, Any]],
             numbers: Mapping[str, int]) -> None:
    """The guessed content tables drawn (``--content``): what each draw changed, and per
    finding its verdict over each table's draws alone, in words."""
    drawn = [c for c in data.get("conditions") or [] if c.get("kind") == "content"]
    if not drawn:
        return
    tables: dict[str, list[Mapping[str, Any]]] = {}
    for c in drawn:
        tables.setdefault(c["table"], []).append(c)
    doc.p("Guessed content varied: " + "; ".join(
        f"{len(cs)} plausible {cs[0].get('draws_noun') or t} (`{t}`, `analyzer list content`)"
        for t, cs in tables.items()) + ". Each draw is a condition with its drawn table in its "
        "folder (its `scenario.toml` names it); the verdict over one table's draws uses the "
        "same rule, Holm over that table's draws. What differs in each draw from the built-in "
        "table:")
    doc.table(pd.DataFrame([{"condition": c["name"], "table file": c.get("file", ""),
                             "differs from the built-in table": c.get("differs", "")}
                            for c in drawn]))
    lines = [{"finding": (f"#{numbers[r['key']]} " if r.get("key") in numbers else "")
              + f"`{r.get('key')}`",
              **{t: v.get("sentence", "") for t, v in (r.get("content") or {}).items()}}
             for r in rows if r.get("content")]
    if lines:
        doc.table(pd.DataFrame(lines))


def _p(p: Any) -> str:
    try:
        v = float(p)
    except (TypeError, ValueError):
        return "–"
    return "< 0.001" if v < 0.001 else f"{v:.3f}"


def _changed(c: Mapping[str, Any]) -> str:
    """How many of a rule condition's games differ from this run's (``—``: not comparable)."""
    n = c.get("changed_games")
    if n is None:
        return "—"
    return f"{n:,} of {c['games'] * max(1, c.get('arms', 1)):,}" if c.get("arms") else f"{n:,}"


def _plot(ax, rows: list[Mapping[str, Any]], conds: list[Mapping[str, Any]]) -> None:
    """One horizontal band per finding; within it a point and interval per condition, each
    finding scaled by its own interval in this run so that they share one axis: the distance
    from no effect in this run's standard errors."""
    colours = {"base": "black", "same": "tab:green", "flip": "tab:red", "lost": "tab:red", "wide": "tab:orange",
               "absent": "lightgrey"}
    names = ["this run"] + [c["name"] for c in conds]
    for i, r in enumerate(rows):
        null = r.get("null") or 0.0
        se = (r["hi"] - r["lo"]) / 3.92 if r.get("hi") is not None and r["hi"] > r["lo"] else 1.0
        points = [("this run", r)] + [(c["name"], (r.get("by_condition") or {}).get(c["name"]))
                                      for c in conds]
        for j, (name, f) in enumerate(points):
            if f is None or f.get("estimate") is None:
                continue
            y = i + (j + 1) / (len(names) + 1) - 0.5
            est = (f["estimate"] - null) / se
            lo = (f["lo"] - null) / se if f.get("lo") is not None else est
            hi = (f["hi"] - null) / se if f.get("hi") is not None else est
            state = "base" if name == "this run" else (r.get("states") or {}).get(name, "absent")
            ax.errorbar(est, y, xerr=[[max(est - lo, 0)], [max(hi - est, 0)]], fmt="o", ms=3,
                        color=colours.get(state, "grey"), lw=1)
        ax.axvline(0, color="grey", lw=0.8)
        ax.plot([(r["estimate"] - null) / se] * 2, [i - 0.5, i + 0.5], "k--", lw=0.6)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([str(r.get("key")) for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("distance from no effect (this run's standard errors)")


__all__ = ["FOLDER", "RESULT", "content_text", "load", "section", "verdict_text"]
