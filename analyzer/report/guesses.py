"""How often the labelled defaults acted: per counter and arm, the share of games where it did.

A game declares counters (``GameSpec.guesses``): game-record columns ``acted_<name>``, how many
times in that game a ``[GAP → DEFAULT]`` rule path decided something or guessed content was
used. Names no game. A counter whose labelled default is not one of an arm's labelled defaults
(``run["defaults"]``: the scenario sets that value, or the rules never consult it in that
setting) is "not a default" in that arm and is left out of its shares.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.model.base import GuessCounter
from analyzer.report.document import Doc, num, pct
from analyzer.report.records import Table

POOLED = "every game of the run"  # the one arm of ``measure(..., pooled=...)`` in a study's own report


def names_default(names, default: str) -> bool:
    """Whether the rule-value ``names`` include ``default``: the name itself, or an entry of
    the content table it names (``"TABLE"`` covers ``"TABLE.NAME"``)."""
    return any(n == default or n.startswith(default + ".") for n in names)


def _acted(acted: int, n: int) -> dict[str, Any]:
    """``acted`` of ``n`` games as ``{acted, share, lo, hi}`` (Wilson 95 %)."""
    share = stats.wilson(acted, n)
    return {"acted": acted, "share": share.estimate, "lo": share.lo, "hi": share.hi}


def measure(games: Table, counters: Sequence[GuessCounter],
            run: Mapping[str, Any] | None = None, pooled: str | None = None) -> dict[str, Any] | None:
    """Per arm, how often each counter acted: the share of games where it acted (count > 0;
    Wilson 95 %, the game is the unit) and its mean count per game (Student-t 95 %); and the
    share of games where any counter acted. Reads ``variant`` and the counters' columns of the
    game records ``games``; a counter whose column they lack (an older run) is skipped.
    ``run["defaults"]``: the labelled defaults each arm uses. ``pooled``: every game of the run
    as one arm of that name (a schedule's tables, which share their rules: the first arm's
    labelled defaults stand for all).

    Returns ``{"counters": [{column, default, what, section}], "arms": [{variant, games, any:
    {acted, share, lo, hi}, counters: [{column, in_use, acted, share, lo, hi, mean, mean_lo,
    mean_hi}]}]}`` (shares 0–1, ``acted`` in games), ``None`` when no counter is in the records.
    """
    defaults = (run or {}).get("defaults") or {}
    present = [c for c in counters if c.column in games]
    if not present:
        return None
    columns = [c.column for c in present]
    arms = []
    groups = ([(pooled, None)] if pooled is not None else [(v, [v]) for v in games.variants()])
    for variant, only in groups:
        values = games.read(columns, only)
        n = len(values)
        arm = variant if only else games.variants()[0]
        use = {d["name"] for d in defaults[arm]} if arm in defaults else None  # None: all count
        rows = []
        hit = np.zeros(n, dtype=bool)
        for c in present:
            x = values[c.column].to_numpy(dtype=float)
            in_use = use is None or names_default(use, c.default)
            row: dict[str, Any] = {"column": c.column, "in_use": in_use}
            if in_use:
                hit |= x > 0
                mean = stats.mean_interval(x)
                row.update(_acted(int((x > 0).sum()), n), mean=mean.estimate,
                           mean_lo=max(0.0, mean.lo), mean_hi=mean.hi)  # a count is never < 0
            rows.append(row)
        arms.append({"variant": variant, "games": n, "any": _acted(int(hit.sum()), n),
                     "counters": rows})
    return {"counters": [{"column": c.column, "default": c.default, "what": c.what,
                          "section": c.section} for c in present],
            "arms": arms}


def short_what(what: str) -> str:
    """A counter's ``what`` without its parentheses, for a clause: ``"an X (why) was used"``
    -> ``"an X was used"`` (cutting at the first parenthesis lost the words after it)."""
    return re.sub(r" \([^()]*\)", "", what)


def lean(numbers: Mapping[str, Any] | None, variant: str) -> dict[str, Any] | None:
    """Whether ``variant``'s games lean on labelled defaults: the share of its games where any
    counter acted (with its interval) and the counter that acted in the most of them.

    Returns ``{share, lo, hi, games, largest: {column, what, share} or None}``, or ``None``
    when the numbers have no such arm.
    """
    if not numbers:
        return None
    arm = next((a for a in numbers["arms"] if a["variant"] == variant), None)
    if arm is None or not arm["games"]:
        return None
    whats = {c["column"]: c["what"] for c in numbers["counters"]}
    used = [r for r in arm["counters"] if r["in_use"]]
    top = max(used, key=lambda r: r["share"], default=None)
    largest = ({"column": top["column"], "what": whats[top["column"]], "share": top["share"]}
               if top is not None and top["acted"] else None)
    return {"share": arm["any"]["share"], "lo": arm["any"]["lo"], "hi": arm["any"]["hi"],
            "games": arm["games"], "largest": largest}


# a labelled default acting in at least this share of the games is a caveat of the whole run:
# said once, in the report's "What these answers rest on" box, never per finding
NEARLY_ALL = 0.9
SPECIFIC_GAP = 0.10  # a counter is specific to an arm when it acts in ≥ 10 pp more of its games


def specific_clause(numbers: Mapping[str, Any] | None, variant: str, reference: str) -> str:
    """A clause for a finding about ``variant`` against ``reference`` naming the labelled
    defaults that act in clearly more of ``variant``'s games than of ``reference``'s (at
    least ``SPECIFIC_GAP`` more: e.g. guessed content only another player count uses), each
    with both shares, e.g. ``" — in 91 % of these games a piece entered a stand-in space (a
    labelled default; 0 % in `base`)"``; ``""`` when there is none or no counters."""
    if not numbers:
        return ""
    arms = {a["variant"]: a for a in numbers["arms"]}
    if variant not in arms or not arms[variant]["games"]:
        return ""
    whats = {c["column"]: c["what"] for c in numbers["counters"]}
    ref = {r["column"]: (r["share"] if r["in_use"] else 0.0)
           for r in (arms.get(reference) or {}).get("counters", [])}
    parts = [f"in {share_text(r['share'])} of these games {short_what(whats[r['column']])} (a "
             f"labelled default; {share_text(ref.get(r['column'], 0.0))} in `{reference}`)"
             for r in arms[variant]["counters"]
             if r["in_use"] and r["share"] - ref.get(r["column"], 0.0) >= SPECIFIC_GAP]
    return (" — " + "; ".join(parts)) if parts else ""


def header_sentence(numbers: Mapping[str, Any] | None, link: str) -> str:
    """The sentence the report's labelled-defaults line ends with: the share of the first
    arm's games where any counted labelled default acted, and the most frequent one."""
    lean_ = lean(numbers, numbers["arms"][0]["variant"]) if numbers and numbers["arms"] else None
    if lean_ is None:
        return ""
    arm = numbers["arms"][0]
    top = lean_["largest"]
    most = f" (most often: {short_what(top['what'])}, {share_text(top['share'])})" if top else ""
    k = sum(r["in_use"] for r in arm["counters"])
    return (f" Counted where they act ({k} of them), a labelled default decided something in "
            f"{pct(lean_['share'], lean_['lo'], lean_['hi'])} of the games of "
            f"`{arm['variant']}`{most}; per default in the {link}.")


def share_text(x: float) -> str:
    """A share of games in %: whole at 0 and 100 %, else to one decimal."""
    return f"{100 * x:.0f} %" if x in (0.0, 1.0) else f"{100 * x:.1f} %"


def section(doc: Doc, numbers: Mapping[str, Any] | None, cite) -> None:
    """The table of how often each labelled default acted, per arm (in the appendix).

    ``cite``: the report's citation formatter (``citations.linked`` bound to the run dir).
    """
    if not numbers:
        return
    arms = numbers["arms"]
    counters = numbers["counters"]
    active = [i for i, _ in enumerate(counters) if any(a["counters"][i]["in_use"] for a in arms)]
    idle = [counters[i]["default"] for i in range(len(counters)) if i not in active]
    doc.p("**How often a labelled default acted.** The engine counts, in every game, each time "
          "one of these labelled defaults decided something (a rule path that exists only "
          "because no source settles the point) or guessed content was used. Per arm: the share "
          "of games in which it acted at least once, with a Wilson 95 % interval (the game is "
          "the unit), and the mean count per game with a Student-t 95 % interval.")
    rows = [{"labelled default": f"`{c['default']}`", "what is counted": c["what"],
             "section": cite(c["section"])} for c in (counters[i] for i in active)]
    total = {"labelled default": "any of them",
             "what is counted": "at least one counted labelled default acted", "section": ""}
    for a in arms:
        head = f"{a['variant']}: " if len(arms) > 1 else ""
        for row, i in zip(rows, active):
            r = a["counters"][i]
            row[f"{head}games where it acted"], row[f"{head}count per game"] = (
                (pct(r["share"], r["lo"], r["hi"]), num(r["mean"], r["mean_lo"], r["mean_hi"]))
                if r["in_use"] else ("not a default here",) * 2)
        total[f"{head}games where it acted"] = pct(a["any"]["share"], a["any"]["lo"],
                                                   a["any"]["hi"])
        total[f"{head}count per game"] = ""
    doc.table(pd.DataFrame([*rows, total]))
    if idle:
        doc.p("Counted but not a labelled default in any arm of this run (the scenario sets "
              "the value, or the rules never consult it here): "
              + ", ".join(f"`{d}`" for d in idle) + ".")


__all__ = ["header_sentence", "lean", "measure", "section", "short_what", "specific_clause"]
