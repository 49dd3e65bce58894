"""The report of ``analyzer balance``: the value found, the finding there against the target,
and the explored curve or surface with intervals, first; how it was found after.

Built from the run facts (``summary.json["run"]["study"]``: the knobs, the check's numbers, the
ladder's) and ``search.parquet`` (every setting the search evaluated), so ``analyzer report
DIR`` re-renders it. Its key findings (``key_findings``) are the finding at the value found (a
measured figure: its distance to a target is a design goal, not a test) and the paired change
from the original setting on the same fresh games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from analyzer.report import charts, findings
from analyzer.report.answers import within
from analyzer.report.document import Doc, number, p_text, param_text
from analyzer.report.finding_keys import value_text
from analyzer.report.findings import Finding, missing
from analyzer.report.records import Table
from analyzer.report.summary import RunFacts

ORIGINAL, BALANCED = "original", "balanced"


class _Units:
    """How the study's findings are shown: scale, unit, digits (the first key's)."""

    def __init__(self, study: dict[str, Any]):
        self.scale = float(study.get("scale") or 1.0)
        self.unit = study.get("unit") or ""
        self.digits = int(study.get("digits") or 1)
        self.gap = "pp" if self.unit == "%" else self.unit  # a difference's unit

    def num(self, x: float, sign: bool = False) -> str:
        return number(x, self.scale, self.digits, sign)

    def with_unit(self, x: float, sign: bool = False) -> str:
        """``x`` with its unit; a signed difference of shares in percentage points."""
        return f"{self.num(x, sign)} {self.gap if sign else self.unit}".rstrip()

    def span(self, est: float, lo: float, hi: float, sign: bool = False) -> str:
        text = self.with_unit(est, sign)
        if missing(lo) or missing(hi):
            return text
        if lo == hi:
            return f"{text} (the same in every game)"
        return f"{text} [{self.num(lo, sign)}, {self.num(hi, sign)}]"

    def shown(self, gap: bool = False) -> dict[str, Any]:
        """How a ``Finding`` is shown: its ``unit`` (``gap``: a difference's), scale, digits."""
        return {"unit": self.gap if gap else self.unit, "scale": self.scale, "digits": self.digits}

    def of(self, r: Mapping[str, Any]) -> str:
        """A finding record's estimate and 95 % interval (``span``) in its own sign."""
        return self.span(r["estimate"], r["lo"], r["hi"], bool(r.get("signed")))

    def diff(self, d: Mapping[str, Any]) -> str:
        """A difference record's ``diff`` and 95 % interval, signed."""
        return self.span(d["diff"], d["lo"], d["hi"], True)


def tolerance_text(study: dict[str, Any]) -> str:
    """``--tolerance`` as shown: ``"±2 pp"`` (a share's band in percentage points)."""
    u = _Units(study)
    return f"±{u.scale * float(study['tolerance']):g}{' ' + u.gap if u.gap else ''}"


def verdict_text(study: dict[str, Any]) -> str:
    """The equivalence verdict in words: ``"balanced within ±2 pp"`` or ``"not shown within
    ±2 pp"``; ``""`` without ``--tolerance``."""
    eq = study.get("check", {}).get("equivalence")
    if not eq:
        return ""
    return within(eq["shown"], tolerance_text(study))


def _test_text(study: dict[str, Any], t: dict[str, Any]) -> str:
    """One test of the verdict: the estimate, its 90 % interval and the band."""
    u = _Units(study)
    sign = bool(study["equalize"]) or bool(study.get("signed"))
    if missing(t["lo"]) or missing(t["hi"]):
        return f"`{t['what']}` {u.with_unit(t['estimate'], sign)} (no interval: nothing shown)"
    goal = f"{u.num(t['target'])} ± {tolerance_text(study)[1:]}"
    return (f"`{t['what']}` {u.with_unit(t['estimate'], sign)}, 90 % interval "
            f"[{u.num(t['lo'], sign)}, {u.num(t['hi'], sign)}] "
            f"{'inside' if t['shown'] else 'not inside'} {goal}")


def _closest(study: dict[str, Any]) -> str:
    """The value found when the check cannot reach the goal, with the finding there and the
    target: ``"steps = 8, 22.4 % [21.0, 23.8], target 10 % not reached within the range
    searched (steps 0..8)"``; ``""`` when reached (or a run from before ``reached``)."""
    check = study["check"]
    if check.get("reached", True) or study.get("over"):  # --over: the worst case's value,
        return ""  # off target for some players by design (``over_summary`` says where)
    u = _Units(study)
    knobs = study["knobs"]
    values = ", ".join(f"{k['label']} = {param_text(k['found'])}" for k in knobs)
    ranges = ", ".join(f"{k['label']} {param_text(k['low'])}..{param_text(k['high'])}"
                       for k in knobs)
    if study["equalize"]:
        first = study["keys"][0]
        parts = [f"{first} − {k} {u.diff(d)}"
                 for k in study["keys"][1:]
                 for d in [check["paired"].get(f"difference:{BALANCED}:{first}-{k}")] if d]
        return (f"{values}, {'; '.join(parts)}: not made equal within the range searched "
                f"({ranges})")
    b = check["findings"][BALANCED].get(study["keys"][0])
    t = _target(study, b)
    shown = "not computed" if b is None else u.of(b)
    return (f"{values}, {shown}, target {u.with_unit(t) if t is not None else '–'} not reached "
            f"within the range searched ({ranges})")


def _keep_texts(study: dict[str, Any]) -> list[tuple[bool, str]]:
    """Each ``--keep`` finding at the value found against its band: ``(kept, text)``."""
    out = []
    for k in study["check"].get("keep") or []:
        u = _Units(k)
        kept = f"{u.num(k['low'])}..{u.num(k['high'])}{' ' + u.unit if u.unit else ''}"
        out.append((bool(k["kept"]), (f"{k['key']} {u.of(k)}, "
                                      f"{'inside' if k['kept'] else 'outside'} the band "
                                      f"{kept} kept")))
    return out


def _cells_text(names: Sequence[str], over: dict[str, Any]) -> str:
    """Cells in words, per rung (``"bold"`` when every content condition of the rung is named,
    else ``"greedy with built-in tables, tokens draws 1, 3, every map draw"``); one rung
    alone: its content conditions only."""
    cells = over["cells"]
    rungs = list(dict.fromkeys(c["rung"] for c in cells))
    chosen = [c for c in cells if c["name"] in names]
    every = {r: [c for c in cells if c["rung"] == r] for r in rungs}
    parts = []
    for r in rungs:
        mine = [c for c in chosen if c["rung"] == r]
        if not mine:
            continue
        if len(mine) == len(every[r]):
            parts.append(r)
            continue
        items = ["built-in tables"] if any(c.get("table") is None for c in mine) else []
        for table in dict.fromkeys(c["table"] for c in every[r] if c.get("table")):
            idx = [int(c["name"].rsplit("-", 1)[1]) for c in mine if c.get("table") == table]
            of = [c for c in every[r] if c.get("table") == table]
            if len(idx) == len(of):
                items.append(f"every {table} draw")
            elif idx:
                items.append(f"{table} draw{'s' if len(idx) > 1 else ''} {runs(idx)}")
        parts.append(f"{r} with {', '.join(items)}" if len(rungs) > 1 else ", ".join(items))
    return "; ".join(parts)


def over_summary(study: dict[str, Any]) -> str:
    """``--over`` in one sentence: the value found, the verdict there in every cell and the
    range of values within ±D in every cell, e.g. ``"steps = 4: balanced within ±14 pp for
    every player and draw (2 players). The values within ±14 pp in every cell: steps 4. 2–3
    hold only for bold"``; ``""`` without ``--over``."""
    over = study.get("over")
    if not over:
        return ""
    tol = tolerance_text(study)
    rungs, draws = len({c["rung"] for c in over["cells"]}), len({c["draw"] for c in over["cells"]})
    # the draws' cells include the built-in tables': 2 players × (built-in + 4 draws) = 10
    what = " × ".join(x for x in (f"{rungs} player{'s' if rungs != 1 else ''}",
                                  f"(the built-in tables + {draws - 1} content "
                                  f"draw{'s' if draws != 2 else ''})" if draws != 1 else "") if x)
    found = ", ".join(f"{k['label']} = {param_text(k['found'])}" for k in study["knobs"])
    verdict = f"{within(over['shown'], tol)} for every player and draw ({what})" + (
        "" if over["shown"] else ": not shown for " + _cells_text(over["failing"], over))
    parts = []
    for r in over["ranges"]:
        text = f"{r['label']} {r['holds_text']}" if r["holds"] else f"{r['label']}: none"
        groups: dict[tuple[str, ...], list[Any]] = {}
        for v, names in r["partial"]:
            groups.setdefault(tuple(names), []).append(v)
        text += "".join(f". {runs(vs)} hold{'s' if len(vs) == 1 else ''} only for "
                        f"{_cells_text(list(names), over)}"
                        for names, vs in groups.items())
        parts.append(text)
    many = len(study["knobs"]) > 1
    return (f"{found} ({over['objective']} over the cells): {verdict}. The values within "
            f"{tol} in every cell{' (each knob at the others’ values found)' if many else ''}: "
            + ". ".join(parts))


def runs(values: Sequence[Any]) -> str:
    """Integer values as runs: ``[1, 2, 3, 5]`` -> ``"1–3, 5"``; floats listed."""
    if not values:
        return "none"
    if not all(float(v).is_integer() for v in values):
        return ", ".join(f"{v:g}" for v in values)
    vs = enumerate(sorted(int(v) for v in values))  # a run: one value - position
    groups = [[v for _, v in g] for _, g in itertools.groupby(vs, lambda iv: iv[1] - iv[0])]
    return ", ".join(str(g[0]) if len(g) == 1 else f"{g[0]}–{g[-1]}" for g in groups)


def command_lines(study: dict[str, Any]) -> list[str]:
    """What ``analyzer balance`` prints after the value found: with ``--tolerance`` the
    verdict and each test, and, when the check cannot reach the goal, the closest value
    (``"closest: …, target 10 % not reached within the range searched"``; not an error)."""
    out = []
    eq = study["check"].get("equivalence")
    if eq:
        out.append(f"verdict on {study['check']['games']:,} fresh games the search never used: "
                   f"{verdict_text(study)} (two one-sided tests at 5 %): "
                   + "; ".join(_test_text(study, t).replace("`", "") for t in eq["tests"]))
    closest = _closest(study)
    if closest:
        out.append(f"closest: {closest}")
    if study.get("over"):
        out.append(f"over {study['over']['parts']} on {study['over']['games']:,} fresh games "
                   f"per cell: {over_summary(study)}")
    for ok, text in _keep_texts(study):
        out.append(f"kept: {text}" if ok else
                   f"refused: the value found leaves a --keep band on the fresh seeds: {text}")
    return out


def _verdict(doc: Doc, study: dict[str, Any]) -> None:
    """The report's paragraphs of the check's verdicts (``command_lines`` in words)."""
    check = study["check"]
    eq = check.get("equivalence")
    if eq:
        doc.p(f"**Verdict: {verdict_text(study)}.** Two one-sided tests at 5 % each (Schuirmann; "
              "\"within\" only when both reject, i.e. the 90 % interval lies inside the band)"
              f" on the check's {check['games']:,} fresh games — seeds the search never used, "
              "so the search's own estimates, the best of many noisy ones, do not decide it: "
              + "; ".join(_test_text(study, t) + f" (p = {p_text(t['p_value'])})"
                          for t in eq["tests"])
              + (". Every difference must be shown (an intersection-union test: no correction)"
                 if len(eq["tests"]) > 1 else "") + ".")
    closest = _closest(study)
    if closest:
        doc.p(f"**Target not reached.** The value found is the closest the search came: "
              f"{closest}.")
    keeps = _keep_texts(study)
    if keeps:
        refused = [t for ok, t in keeps if not ok]
        doc.p(("**Refused: the value found leaves a kept band** on the check's fresh games, so "
               "it is not a balance that keeps what was asked: " + "; ".join(refused) + ". "
               if refused else "")
              + "**Kept** (`--keep`; the search refused every setting whose estimate left a "
              "band, and the check tests the value found on its fresh games): "
              + "; ".join(f"`{t.split(' ', 1)[0]}` {t.split(' ', 1)[1]}" for _, t in keeps)
              + ".")


def _questions(doc: Doc, run: dict[str, Any], study: dict[str, Any]) -> None:
    """The study file's ``[[questions]]`` at the value found and as it is, on the check's
    fresh games (issue #34)."""
    qs = (study["check"].get("questions") or {})
    at, before = qs.get(BALANCED) or {}, qs.get(ORIGINAL) or {}
    rows = []
    for q in RunFacts.of(run).questions:
        b, o = at.get(q["finding"]), before.get(q["finding"])
        rows.append(f"*{q['ask']}* (`{q['finding']}`): "
                    + (value_text(b) if b else "not computed there")
                    + (f" (as it is: {value_text(o)})" if o else ""))
    if rows:
        doc.p(f"**The study file's questions at the value found**, on the same "
              f"{study['check']['games']:,} fresh games (the Answers table gives them after the "
              "balance's own): " + "; ".join(rows) + ".")


def _target(study: dict[str, Any], rec: dict[str, Any] | None) -> float | None:
    t = study.get("target")
    if t is None and rec is not None:
        t = rec.get("null")
    return None if t is None else float(t)


def numbers(run: Mapping[str, Any], seats: Table | pd.DataFrame | None = None
            ) -> dict[str, Any]:
    """The balance's numbers for ``summary.json``: ``values`` (knob path -> the value found),
    ``check`` (the fresh-seed check as ``analyzer balance`` wrote it in the run facts),
    ``ladder`` (the ladder's check, or ``None``) and ``findings`` (``findings.numbers`` of
    ``key_findings``, its records in ``answer_order``); all from the run facts (``seats``, the
    check's records, are not read)."""
    study = run["study"]
    key = findings.numbers(key_findings(study, RunFacts.of(run).questions))
    key["findings"] = answer_order(study, key["findings"])
    return {"values": {k["path"]: k["found"] for k in study["knobs"]}, "check": study["check"],
            "ladder": study.get("ladder"), "findings": key}


def write(doc: Doc, n: Mapping[str, Any], assessed: tuple, run: dict[str, Any],
          run_dir: Path | None = None) -> None:
    """The balance report of the numbers ``n`` (``numbers``; ``assessed``: its key findings'
    ``findings.ASSESSED``) and the run facts ``run`` (its ``study``: the knobs, targets and
    search, which ``n`` does not hold); charts from ``run_dir``'s ``search.parquet``."""
    study = run["study"]
    u = _Units(study)
    check = n["check"]
    keys = study["keys"]
    at = check["findings"]
    knobs = study["knobs"]
    doc.h("The value found and its check")
    same = all(k["start"] is not None and float(k["found"]) == float(k["start"]) for k in knobs)
    doc.p("**Value found**: " + "; ".join(
        f"`{k['label']}` = **{param_text(k['found'])}** (the scenario: {param_text(k['start'])}, "
        f"searched {param_text(k['low'])}..{param_text(k['high'])})" for k in knobs) + "."
          + (" The search found no setting nearer the goal than the scenario's own." if same
             else ""))
    games = check["games"]
    paired = check["paired"]
    jk = (f"paired on the same games, delete-a-group jackknife over {check['groups']} blocks of "
          "games")
    if not study["equalize"]:
        key = keys[0]
        b, o = at[BALANCED].get(key), at[ORIGINAL].get(key)
        t = _target(study, b)
        if b is None:
            doc.p(f"`{key}` is not computed at the value found on the {games:,} fresh games (its "
                  "games never occurred there).")
        else:
            inside = not (missing(b["lo"]) or missing(b["hi"])) and t is not None and \
                b["lo"] <= t <= b["hi"]
            where = ("**inside** its 95 % interval" if inside else
                     f"**outside** its 95 % interval ({u.with_unit(b['estimate'] - t, True)} "
                     "from it)") if t is not None else ""
            doc.p(f"There, on **{games:,} fresh games** never searched on, `{key}` is "
                  f"**{u.of(b)}** "
                  f"against the target {u.with_unit(t) if t is not None else '–'}"
                  f"{' (its no-effect value)' if study.get('target_is_null') else ''}: the "
                  f"target is {where}.")
            if o is not None:
                c = paired[f"change:{key}"]
                doc.p(f"The scenario as it is, on the same games: {u.of(o)}. "
                      f"Value found − original: **{u.diff(c)}** ({jk}).")
        if b is not None and b.get("sentence"):
            doc.p(f"In its report's words, at the value found: {b['sentence']}.")
    else:
        first = keys[0]
        parts = []
        for name in (BALANCED, ORIGINAL):
            vals = ", ".join(f"`{k}` {u.of(r)}" for k in keys for r in [at[name].get(k)]
                             if r is not None)
            diffs = "; ".join(f"`{first}` − `{k}` = {u.diff(d)}" for k in keys[1:]
                              for d in [paired[f"difference:{name}:{first}-{k}"]])
            label = "at the value found" if name == BALANCED else "the scenario as it is"
            parts.append(f"{label}: {vals}; {diffs}")
        doc.p(f"On **{games:,} fresh games** never searched on, {parts[0]}. On the same games, "
              f"{parts[1]} ({jk}; a difference whose interval includes 0 is equal within the "
              "games played).")
    _verdict(doc, study)
    if study.get("over"):
        _over(doc, study, u)
    _questions(doc, run, study)
    if run_dir is not None and (Path(run_dir) / "search.parquet").is_file():
        rows = pd.read_parquet(Path(run_dir) / "search.parquet")
        for i, k in enumerate(knobs):
            doc.chart(f"balance-{i}.png",
                      f"The finding at each value of `{k['label']}` the search evaluated, with "
                      "its 95 % interval (each on its round's games; all candidates of a round "
                      "on the same games); the check's fresh-game estimates as diamonds.",
                      lambda ax, k=k: plot_curve(ax, rows, study, k))
        if len(knobs) >= 2:
            doc.chart("balance-surface.png",
                      "The settings evaluated, coloured by their distance from the goal; the "
                      "value found and the scenario's marked.",
                      lambda ax: plot_surface(ax, rows, study), size=(7.0, 5.0))
        _near(doc, rows, study, u)
    top = len(doc.blocks)
    if study.get("ladder"):
        _ladder(doc, study, u)
    _how(doc, run, study, u)
    doc.h("Files")
    rerun = "ablate" if study.get("study") == "ablate" else "simulate"
    doc.p(f"`balanced.toml`: the scenario at the value found, with the check's seed "
          f"({check['seed']}) and games ({games:,}); `analyzer {rerun} balanced.toml` replays the "
          f"check's `{BALANCED}` games and reproduces the estimate above. "
          + ("Changed tables beside it: " + ", ".join(f"`{f}`" for f in study["files"][1:])
             + " (named by their `*_file` options in `balanced.toml`). "
             if len(study["files"]) > 1 else "")
          + "`search.parquet`: every setting evaluated. The records (`games.parquet`, "
          f"`seats.parquet`) are the check's, arms `{ORIGINAL}` and `{BALANCED}` (`:ARM` for a "
          f"variant). Command: `{study.get('command', '')}`.")
    findings.write(doc, n["findings"], assessed, run_dir, at=top,
                   note="Here the unit is the game of the fresh-seed check.")


def answer_order(study: dict[str, Any], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The finding records in the order the balance answers (issue #34): each key at the value
    found (the balanced finding first), then each paired change, then the study file's
    questions — not the key findings' ranking by size, which would put a significant change
    before the finding balanced."""
    order = [f"balance:{what}:{k}" for what in ("at_value", "change") for k in study["keys"]]
    return sorted(records, key=lambda r: order.index(str(r.get("key")))
                  if str(r.get("key")) in order else len(order))


def _near(doc: Doc, rows: pd.DataFrame, study: dict[str, Any], u: _Units, most: int = 12
          ) -> None:
    """A scan toward a target: the settings whose own 95 % interval on the scan's games
    contains the target, i.e. those the scan cannot tell from the goal (each alone, no
    correction: a list of candidates, not a test)."""
    if study["method"] != "scan" or study["equalize"]:
        return
    t = study.get("target")
    target = rows["null"] if t is None else pd.Series(float(t), index=rows.index)
    near = rows[(rows["lo_0"] <= target) & (target <= rows["hi_0"])]
    if near.empty:
        doc.p("No setting of the scan has the target inside its 95 % interval on the scan's "
              "games.")
        return
    near = near.assign(size=near["gap"].abs()).sort_values("size", kind="stable")
    shown = [", ".join(f"`{k['label']}` = {param_text(r[k['path']])}" for k in study["knobs"])
             + f" ({u.span(r['estimate_0'], r['lo_0'], r['hi_0'], bool(study.get('signed')))})"
             for _, r in near.head(most).iterrows()]
    more = f"; and {len(near) - most} more" if len(near) > most else ""
    doc.p(f"Settings of the scan whose 95 % interval on its {study['games_per_candidate']:,} "
          f"games contains the target ({len(near)} of {len(rows)}, nearest first on its own "
          "estimate; each interval alone, so a list of settings the scan cannot tell from the "
          "goal, not a test): " + "; ".join(shown) + more + ".")


def _over(doc: Doc, study: dict[str, Any], u: _Units) -> None:
    """``--over``: the robust value's verdict and range, the finding per rung × draw at the
    value found, each checked value per cell, and the games played."""
    over = study["over"]
    doc.h("Across players and content draws")
    tol = tolerance_text(study)
    n_cells = len(over["cells"])
    doc.p(f"**{over_summary(study)}.** The search minimised {over['objective']} of the "
          f"distances from the goal over {n_cells} cells (every rung of the player ladder × the "
          "built-in tables and each draw of the guessed content tables, one table drawn at a "
          "time), all cells of a setting on the same game seeds. The check plays every value "
          f"of each knob in every cell on {over['games']:,} fresh games per cell (seeds the "
          "search never used; a player that searches plays fewer, as the table says), and a "
          f"value holds in a cell when two one-sided tests at 5 % put the finding within {tol} "
          "of the target (its 90 % interval inside the band); it holds for every player and "
          "draw only when it holds in every cell (an intersection-union test: no correction)."
          + (" With several findings made equal, a cell's difference has the standard error "
             "of the two findings' as if independent (conservative when they move together)."
             if study["equalize"] else ""))
    sign = bool(study["equalize"]) or bool(study.get("signed"))
    cells = {c["name"]: c for c in over["cells"]}
    rows = []
    for name, r in over["at_found"].items():
        c = cells[name]
        rows.append({"players": c["rung"],
                     "content": c["draw"] + (f" ({c['differs']})" if c.get("differs") else ""),
                     "games": r["games"],
                     "finding (95 %)": u.span(r["estimate"], r.get("lo", math.nan),
                                              r.get("hi", math.nan), sign),
                     "90 % interval": ("–" if missing(r["lo90"]) else
                                       f"[{u.num(r['lo90'], sign)}, {u.num(r['hi90'], sign)}]"),
                     f"within {tol}": "yes" if r["shown"] else "no",
                     "p (TOST)": p_text(r["p_value"])})
    doc.p("At the value found, per player × content (each cell's own test):")
    doc.table(pd.DataFrame(rows))
    grid: dict[tuple[int, Any], dict[str, str]] = {}
    short = {c["name"]: (c["rung"] if len({x['draw'] for x in over['cells']}) == 1 else
                         c["draw"] if len({x['rung'] for x in over['cells']}) == 1 else
                         f"{c['rung']} / {c['draw']}") for c in over["cells"]}
    for r in over["rows"]:
        k = study["knobs"][r["knob"]]
        row = grid.setdefault((r["knob"], r["value"]), {"knob": k["label"],
                                                        "value": param_text(r["value"])})
        row[short[r["cell"]]] = (f"{u.num(r['estimate'], sign)}{' ✓' if r['shown'] else ' ✗'}")
    doc.p(f"Every value checked, per cell: the finding on the fresh games, ✓ within {tol} "
          "(two one-sided tests at 5 %), ✗ not shown.")
    doc.table(pd.DataFrame(list(grid.values())))
    doc.p(f"Games played with `--over {over['parts']}`: {over['search_games_played']:,} in the "
          f"search and {over['games_played']:,} in its check (besides the check of the scenario "
          "as it is); cells' records in `over.parquet` (the search) and `over-check/`.")


def _how(doc: Doc, run: dict[str, Any], study: dict[str, Any], u: _Units) -> None:
    doc.h("How it was found")
    facts = RunFacts.of(run)
    arms = ", ".join(f"`{a}`" for a in study["arms_searched"])
    what = (f"an ablation (the base and the leave-one-out arm of "
            f"{', '.join(f'`{i}`' for i in study['items'])})" if study.get("study") == "ablate"
            else "every arm of the scenario" if study["arms_searched"] == ["all"]
            else f"the scenario's arms {arms}")
    doc.p(f"Game **{facts.said('game')}** (expansions: {', '.join(facts.expansions) or 'none'}"
          f"), {facts.said('players')} players, scenario `{facts.said('scenario_file')}`, root "
          f"seed **{facts.said('seed')}**. Each setting plays {what}"
          + (" — the finding has the same value without the other arms (checked on a "
             f"{study['probe_games']}-game probe), so they were left out of the search"
             if study.get("study") != "ablate" and study["arms_searched"] != ["all"] else "")
          + "; its findings are computed by the report's own code, so the number searched on "
          "is the number a report prints.")
    if study["method"] == "scan":
        one = len(study["knobs"]) == 1
        doc.p(f"Search: an **exhaustive paired scan** of the {study['popsize']} "
              f"{'values of the integer knob' if one else 'settings of the integer knobs'}, "
              f"each on the same {study['games_per_candidate']:,} game seeds (common random "
              "numbers). The setting taken is the one nearest the goal"
              + (" on a LOWESS smooth of the estimates over the values (`statsmodels`; "
                 + ("its distance from the goal is `smoothed_gap` in `search.parquet`"
                    if study["equalize"] else "the line in the chart")
                 + "; with fewer than 5 values the estimates themselves), so that one noisy "
                 "estimate does not decide" if one else "")
              + "; a tie-break toward the scenario's values (a whole range away costs as much "
              "as one standard error from the goal) picks the smallest change among settings "
              "the games cannot tell apart. Several settings may be within noise of the goal; "
              "the chart shows which.")
        if study.get("race"):
            _race(doc, study, u)
    else:
        doc.p(f"Search: **CMA-ES** (`cma` {study.get('cma_version', '?')}) over the knobs "
              f"scaled to their ranges, from the scenario's values with step "
              f"{study.get('sigma0')} of each range, minimising the squared distance to the "
              "goal plus a tie-break toward the scenario's values (a whole range away costs as "
              "much as one standard error from the goal: of the settings the games cannot tell "
              f"apart, the smallest change); **{study['rounds']} rounds × {study['popsize']} "
              f"candidates × {study['games_per_candidate']} games**. All candidates of a round "
              "play the same game seeds (common random numbers), each round new ones. The "
              "value taken is the search distribution's final mean, not the best single "
              "evaluation (the best of many noisy estimates is biased by the picking); with "
              "integer knobs, of the integer settings around that mean, the one nearest the "
              "goal on its estimates pooled over every round that played it.")
        hist = pd.DataFrame(study["history"])
        if len(hist):
            table = pd.DataFrame({"round": hist["round"] + 1})
            for i, k in enumerate(study["knobs"]):
                table[f"mean {k['label']}"] = [param_text(m[i]) for m in hist["mean"]]
            table["step (sigma)"] = [f"{s:.3f}" for s in hist["sigma"]]
            table["nearest candidate from the goal"] = [
                u.with_unit(x) if x is not None else "–" for x in hist["nearest"]]
            doc.table(table)
    doc.p(f"Search time {study['search_seconds']:.0f} s; in all {run.get('games_played', 0):,} "
          f"games in {run.get('seconds', 0):.0f} s over {run.get('jobs', '?')} job(s).")
    if run.get("estimate"):  # the plan's estimate (``analyzer.plan``) against the actual
        from analyzer.plan import against

        doc.p(against(run["estimate"], run.get("cpu_seconds"), run.get("seconds")))


def _race(doc: Doc, study: dict[str, Any], u: _Units) -> None:
    """``--race``: the looks, how many settings each stopped and the games played."""
    r = study["race"]
    looks = r["looks"]
    sizes = ", ".join(f"{x['games']:,}" for x in looks)
    pairs = any(x.get("rule") == "pairs" for x in looks)
    band = any(x.get("rule", "band") == "band" and x["half_width"] is not None
               for x in looks)
    rules = []
    if pairs:
        rules.append("a setting shown farther from the goal than another running setting, "
                     "paired game by game on the common seeds (the difference and the sum of "
                     "their distances both of one sign; Bonferroni over the others at the "
                     "look's level, Pocock-type alpha spending over the looks, "
                     f"{r['alpha']:g} in all: the setting truly nearest the goal stops with at "
                     "most that chance) stopped")
    if band or not pairs:
        rules.append("a setting whose interval (at the look's level) lay wholly outside the "
                     "goal band — the target ± the tolerance, or ± the smallest upper bound on "
                     "any running setting's distance if larger — stopped (Holm over the running "
                     "settings at each look, Pocock-type alpha spending over the looks, "
                     f"{r['alpha']:g} in all: a setting on target stops with at most that "
                     "chance)")
    doc.p(f"The scan was **raced** (`--race`): the settings played the scan's own seeds in "
          f"{len(looks)} look(s) of {sizes} games each; at every look but the last "
          + "; at others ".join(rules) + ". "
          f"{r['stopped']} of {r['settings']} settings stopped early; the race played "
          f"**{r['games']:,} games per arm against {r['scan_games']:,} for the whole scan** "
          f"({r['scan_games'] / max(r['games'], 1):.1f}× fewer). The settings still running "
          "at the end played the scan's games and have its estimates; the value is taken "
          "among them by the scan's rule, and the check on fresh seeds is the same.")
    table = pd.DataFrame({"look": [x["look"] + 1 for x in looks],
                          "games per setting": [x["games"] for x in looks],
                          "level": [f"{x['level']:.4f}" for x in looks],
                          "running": [x["running"] for x in looks],
                          "stopped": [x["stopped"] for x in looks],
                          "rule": [{"pairs": "in pairs", "band": "goal band"}.get(
                              x.get("rule") or "", "–") for x in looks],
                          "goal band ±": [u.with_unit(x["half_width"])
                                          if x["half_width"] is not None else "–"
                                          for x in looks]})
    doc.table(table)


def _ladder(doc: Doc, study: dict[str, Any], u: _Units) -> None:
    lad = study["ladder"]
    doc.h("Across the player ladder")
    rows, holds, away = [], [], []
    for r in lad["rungs"].values():
        for k in study["keys"]:
            f = r["findings"].get(k)
            g = (r.get("gap") or {}).get(k) or {}
            row = {"players": r["label"], "games": r["games"]}
            if len(study["keys"]) > 1:
                row["finding"] = k
            row["estimate"] = u.of(f) if f is not None else "not computed"
            if not study["equalize"]:
                row["− target"] = u.with_unit(g.get("gap", math.nan), True)
                row["Holm p"] = p_text(g.get("p_holm"))
                if f is not None and not missing(g.get("p_holm")):
                    (away if g.get("away") else holds).append(r["label"])
            rows.append(row)
    doc.table(pd.DataFrame(rows))
    if not study["equalize"]:
        doc.p("Per rung, the value found played by every seat as that player on the check's "
              "seeds; `− target` is the estimate minus the target, its p-value read off the "
              "rung's 95 % interval and Holm-corrected over the rungs. "
              + (f"**The balance holds** (the target is within the noise) for: "
                 f"{'; '.join(holds)}. " if holds else "")
              + (f"**It does not hold** for: {'; '.join(away)} (the estimate is away from the "
                 "target after Holm). " if away else "")
              + "A rung whose interval is wide holds only in the sense that it cannot tell.")
    for k, v in (lad.get("verdicts") or {}).items():
        doc.p(f"Robustness verdict of `{k}` at the value found over the rungs "
              f"(`analyzer.study.robustness.verdict`): **{v.get('verdict')}**"
              + (f"; sensitive to {', '.join(v['sensitive_to'])}" if v.get("sensitive_to")
                 else "") + ".")


def key_findings(study: dict[str, Any], questions: Sequence[Mapping[str, str]] = ()
                 ) -> list[Finding]:
    """The balance's findings: each key at the value found on the fresh games (a measured
    figure), and its paired change from the original setting (a test against no change); then
    the study file's ``questions`` (``{ask, finding}``) at the value found
    (``question_findings``)."""
    check = study["check"]
    out = []
    for k in study["keys"]:
        b = check["findings"][BALANCED].get(k)
        if b is None:
            continue
        t, eq = _target(study, b), f"; {verdict_text(study)}" if verdict_text(study) else ""
        target = ("" if study["equalize"] or t is None else
                  f" (target {_Units(study).with_unit(t)}{eq})") + _over_text(study)
        out.append(_at_value(study, k, b, f"balance:at_value:{k}", target=target,
                             verdict=_at_value_verdict(study, k)))
        c = check["paired"].get(f"change:{k}")
        if c is not None and not missing(c["diff"]):
            out.append(Finding(
                statement=f"The value found changes `{k}` by {{value}} against the scenario as "
                          "it is (paired on the same fresh games, jackknife interval)",
                estimate=c["diff"], lo=c["lo"], hi=c["hi"], signed=True, null=0.0,
                p_value=c["p_value"], games=check["games"], key=f"balance:change:{k}",
                **_Units(b).shown(gap=True)))
    return out + question_findings(study, questions)


def _at_value(study: dict[str, Any], k: str, r: Mapping[str, Any], key: str, ask: str = "",
              target: str = "", verdict: str = "") -> Finding:
    """Finding ``k`` (its record ``r``) at the value found, on the check's fresh games, as a
    measured figure under ``key``; the sentence opens with ``ask`` and ends with ``target``."""
    found = ", ".join(f"`{kn['label']}` = {param_text(kn['found'])}" for kn in study["knobs"])
    games = study["check"]["games"]
    return Finding(
        statement=f"{ask}At the value found, {found}, `{k}` is {{value}} on {games:,} fresh "
                  f"games{target}", estimate=r["estimate"], lo=r["lo"], hi=r["hi"],
        signed=bool(r.get("signed")), null=None, games=games, key=key, verdict=verdict,
        **_Units(r).shown())


def _at_value_verdict(study: dict[str, Any], key: str) -> str:
    """The Answers verdict of ``balance:at_value:KEY``: with ``--tolerance`` the check's
    equivalence verdict (``verdict_text``; ``--over``: whether the value holds in every cell),
    said of the first key only when several are made equal (their difference is what was
    tested); ``""`` (a measured figure) otherwise."""
    if not verdict_text(study) or (study["equalize"] and key != study["keys"][0]):
        return ""
    what = "the keys' difference " if study["equalize"] else ""
    return (f"{what}{verdict_text(study)} on fresh seeds (two one-sided tests at 5 %)"
            + _over_text(study))


def _over_text(study: dict[str, Any]) -> str:
    """``"; over PARTS: <over_summary>"``, what ``--over`` adds to a finding and its verdict;
    ``""`` without it."""
    return f"; over {study['over']['parts']}: {over_summary(study)}" if study.get("over") else ""


def question_findings(study: dict[str, Any], questions: Sequence[Mapping[str, str]] = ()
                      ) -> list[Finding]:
    """The scenario's ``[[questions]]`` answered at the value found, on the check's fresh
    games (issue #34): one measured figure per question's key, under that key, so the
    Answers table finds it (after the balance's own answers, the balanced finding first). A
    key the check did not compute there is left out (the Answers table then says so)."""
    out = []
    asks = {q["finding"]: q["ask"] for q in questions}
    for k, r in ((study["check"].get("questions") or {}).get(BALANCED) or {}).items():
        if r is None or missing(r.get("estimate")) or k.startswith("balance:"):
            continue  # the balance's own (``key_findings``) answer its own keys
        out.append(_at_value(study, k, r, k,
                             f"The study file asks: *{asks[k]}* " if k in asks else ""))
    return out


def plot_curve(ax, rows: pd.DataFrame, study: dict[str, Any], knob: dict[str, Any]) -> None:
    """Each key's estimate (with its 95 % interval) against the knob's value over the settings
    evaluated (``rows``: ``search.parquet``), later rounds darker; the target, the value found and
    the scenario's value as lines; the check's estimates as diamonds."""
    u = _Units(study)
    x = rows[knob["path"]].to_numpy(dtype=float)
    rounds = rows["round"].to_numpy()
    last = int(rounds.max()) if len(rounds) else 0
    markers = "os^v"
    for i, key in enumerate(study["keys"]):
        est, lo, hi = (rows[f"{c}_{i}"].to_numpy(dtype=float) * u.scale
                       for c in ("estimate", "lo", "hi"))
        for g in np.unique(rounds):
            sel = rounds == g
            ax.errorbar(x[sel], est[sel], yerr=charts.error_bars(est[sel], lo[sel], hi[sel]),
                        fmt=markers[i % len(markers)], color=f"C{i}", capsize=2,
                        alpha=0.3 + 0.7 * g / last if last > 0 else 1.0, markersize=4,
                        label=f"{key} (searched)" if g == rounds.max() else None)
        for name, colour in ((BALANCED, "black"), (ORIGINAL, "grey")):
            r = study["check"]["findings"][name].get(key)
            value = knob["found"] if name == BALANCED else knob["start"]
            if r is None or value is None:
                continue
            ax.errorbar([value], [r["estimate"] * u.scale],
                        yerr=charts.error_bars(*(np.array([r[c]]) * u.scale
                                                 for c in ("estimate", "lo", "hi"))),
                        fmt="D", color=colour, capsize=3, markersize=7,
                        label=f"{key}: check, {'value found' if name == BALANCED else 'original'}")
    if "smoothed_gap" in rows and not study["equalize"]:
        target = (study["target"] if study.get("target") is not None
                  else rows["null"].to_numpy(dtype=float))
        order = np.argsort(x)
        line = (rows["smoothed_gap"].to_numpy(dtype=float) + target) * u.scale
        ax.plot(x[order], line[order], color="C0", linewidth=1,
                label="LOWESS smooth (the value taken is where it meets the target)")
    t = None if study["equalize"] else _target(
        study, study["check"]["findings"][BALANCED].get(study["keys"][0]))
    if t is not None:
        ax.axhline(t * u.scale, color="C3", linestyle="--", linewidth=1, label="target")
    ax.axvline(float(knob["found"]), color="black", linestyle=":", linewidth=1)
    ax.set_xlabel(f"{knob['label']}" + (" (integer)" if knob["type"] == "int" else ""))
    if knob["type"] == "int":
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel(f"finding [{u.unit}]" if u.unit else "finding")
    ax.set_title(f"The finding against {knob['label']}")
    charts.legend(ax)


def plot_surface(ax, rows: pd.DataFrame, study: dict[str, Any]) -> None:
    """The settings evaluated in the plane of the first two knobs, coloured by their distance
    from the goal (``gap``, centred on 0); the value found (star) and the scenario's (cross)."""
    u = _Units(study)
    k1, k2 = study["knobs"][:2]
    gap = rows["gap"].to_numpy(dtype=float) * u.scale
    m = float(np.nanmax(np.abs(gap))) if np.isfinite(gap).any() else 1.0
    grid = study["method"] == "scan"  # every setting of a grid: squares with their estimates
    sc = ax.scatter(rows[k1["path"]], rows[k2["path"]], c=gap, cmap="coolwarm", vmin=-m,
                    vmax=m, s=420 if grid else 25, marker="s" if grid else "o",
                    edgecolors="none")
    if grid and len(rows) <= 64:
        for x1, x2, e in zip(rows[k1["path"]], rows[k2["path"]], rows["estimate_0"]):
            ax.annotate(u.num(e), (x1, x2), ha="center", va="center", fontsize="x-small")
    ax.figure.colorbar(sc, ax=ax, label=f"distance from the goal [{u.gap}]")
    for axis, k in ((ax.xaxis, k1), (ax.yaxis, k2)):
        if k["type"] == "int":
            axis.set_major_locator(MaxNLocator(integer=True))
    for at, colour, label in (("found", "black", "value found"), ("start", "grey", "the scenario")):
        if k1[at] is not None and k2[at] is not None:
            ax.plot([k1[at]], [k2[at]], marker="s", markerfacecolor="none", markeredgecolor=colour,
                    markersize=22, markeredgewidth=2, linestyle="none", label=label)
    ax.set_xlabel(k1["label"])
    ax.set_ylabel(k2["label"])
    ax.set_title("Settings evaluated" + (f" (numbers: {study['keys'][0]} [{u.unit}])"
                                          if grid and len(rows) <= 64 else ""))
    charts.legend(ax)
