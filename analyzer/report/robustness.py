"""The "Robustness" section: each key finding under other players and other rule defaults.

Reads what ``analyzer robustness`` wrote (``OUT/robustness/robustness.json``, made by
``analyzer.study.robustness.assess``) and shows, per key finding, its verdict — holds, sensitive
(naming the conditions) or unresolved — the table of findings × conditions and a chart. The
verdict phrase of one finding (``verdict_text``) also goes into the key findings section.
Names no game: the findings and conditions are read from the file.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer.report.document import BASE, Doc, number, p_text, replay_command, value_text

FOLDER = "robustness"  # OUT/robustness/<condition>/ and OUT/robustness/robustness.json
RESULT = "robustness.json"
MARKS = {"same": "✓", "flip": "✗ flipped", "lost": "✗ lost", "wide": "? too wide",
         "absent": "—", "unmeasurable": "n/m"}
TESTS = {"paired": "paired per game", "two-sample": "two-sample", "exact": "exact"}
MAX_CHART = 12  # findings drawn (the tested ones)
# a verdict's words shared by the sentences, the table, the Answers table and the study's own
NOT_JUDGED = "not significant in the base after Holm"  # why no condition judges a finding
_NOT_HERE = "not significant in this run after Holm"  # the same, in the report's words
FIGURE = "measured figure"  # a number with no test, so no verdict


def load(run_dir: str | Path | None, run: Mapping[str, Any]) -> dict[str, Any] | None:
    """The robustness result in ``run_dir`` when it belongs to the run whose facts are ``run``
    (``read``); ``None`` when there is none or it is stale."""
    return None if run_dir is None else read(Path(run_dir) / FOLDER / RESULT, run)


def read(path: Path, run: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON file ``path`` that ``analyzer robustness`` wrote (its result or its plan) when
    its ``base`` is the run whose facts are ``run`` (same name, seed, games and finish time);
    ``None`` when it is missing, unreadable or stale (the run was played again since)."""
    try:
        data = json.loads(path.read_text())
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


KINDS = {  # what a kind of condition changes, for the section's introduction
    "players": ("for other players",
                "every seat of every arm replaced by one player of the ladder ({n})"),
    "rule": ("under other rule defaults",
             ("{n} labelled default value{s} that ha{ve} a documented alternative changed, "
              "one at a time, at this run's players")),
    "content": ("over other guessed content",
                "{n} plausible draw{s} of guessed content tables"),
}


def _ran(conds: list[Mapping[str, Any]]) -> str:
    """``"for other players and under other rule defaults"``: what the conditions that ran
    vary, and only those."""
    kinds = [k for k in KINDS if any(c.get("kind") == k for c in conds)]
    words = [KINDS[k][0] for k in kinds] or ["under other conditions"]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _kinds(conds: list[Mapping[str, Any]]) -> str:
    """What the conditions that ran are, by kind, counted (only the kinds that ran)."""
    parts = []
    for kind, (_, text) in KINDS.items():
        these = [c for c in conds if c.get("kind") == kind]
        if not these:
            continue
        n = len(these)
        count = (", ".join(str(c.get("label", c.get("name"))).removeprefix("every seat: ")
                           for c in these) if kind == "players" else str(n))
        parts.append(text.format(n=count, s="s" if n != 1 else "",
                                 ve="ve" if n != 1 else "s"))
    return "; ".join(parts) or "none"


def _names(conds: list[str], labels: Mapping[str, str]) -> str:
    return "; ".join(f"{labels.get(c, c)}" for c in conds)


def _unmeasurable(row: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """`` (not measurable under …: reason; …)`` for the conditions that cannot measure the
    finding (they count neither for nor against it)."""
    if not (why := row.get("unmeasurable_in") or {}):
        return ""
    return (" (not measurable — so not counted — under " + "; ".join(
        f"{labels.get(c, c)}: {reason}" for c, reason in why.items()) + ")")


def _chosen(row: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """Where a condition chose another item than this run's (the comparison stays on this
    run's item)."""
    if not (chosen := row.get("chosen_in") or {}):
        return ""
    item = str(row.get("item") or "")
    return (f" Compared on this run's choice ({item.replace('_', ' ')}) everywhere; the choice "
            "itself changed under " + "; ".join(
                f"{labels.get(c, c)} (picks {i.replace('_', ' ')})" for c, i in chosen.items())
            + ".")


def _show(row: Mapping[str, Any], x: Any, signed: bool | None = None) -> str:
    """``x`` in the finding's display unit (its ``scale``, ``digits`` and sign;
    ``document.number``)."""
    return number(x, float(row.get("scale") or 1.0), int(row.get("digits") or 2),
                  bool(row.get("signed") if signed is None else signed))


def _unit(row: Mapping[str, Any]) -> str:
    return f" {row['unit']}" if row.get("unit") else ""


def _value(row: Mapping[str, Any], r: Mapping[str, Any] | None, unit: bool = True,
           signed: bool | None = None) -> str:
    """A record's estimate and 95 % interval in the finding's unit (``unit``) and sign:
    ``"+8.0 pp [+4.1, +11.9]"`` (``document.value_text``)."""
    if not r:
        return "–"
    return value_text(r.get("estimate"), r.get("lo"), r.get("hi"),
                      str(row.get("unit") or "") if unit else "", float(row.get("scale") or 1.0),
                      int(row.get("digits") or 2),
                      bool(row.get("signed") if signed is None else signed), no_spread=False)


def _difference(row: Mapping[str, Any], test: Mapping[str, Any] | None) -> str:
    """The test of condition − this run, in words: ``"a difference of −10.0 pp [−14.1, −5.9],
    Holm p < 0.001"`` (a ratio: the ratio of the two)."""
    if not test or test.get("diff") is None:
        return ""
    if row.get("log"):
        d, lo, hi = (math.exp(float(test[k])) for k in ("diff", "lo", "hi"))
        what = f"{d:.2f} times this run's effect [{lo:.2f}, {hi:.2f}]"
    else:
        what = (f"a difference of {_show(row, test['diff'], True)}{_unit(row).replace(' %', ' pp')}"
                f" [{_show(row, test.get('lo'), True)}, {_show(row, test.get('hi'), True)}]")
    p = test.get("p_holm", test.get("p_value"))
    return what + (f", Holm p {p_text(p)}" if p is not None else "")


def _there(row: Mapping[str, Any], found: Mapping[str, Any] | None) -> str:
    """``"; there CONTEXT (here: CONTEXT)"``: what the finding's games are like in the
    condition, in the game's own numbers (``context``), against this run's."""
    there = str((found or {}).get("context") or "")
    if not there:
        return ""
    here = str(row.get("context") or "")
    return f"; there {there}" + (f" (here {here})" if here and here != there else "")


def _moved_clause(row: Mapping[str, Any], c: str, labels: Mapping[str, str],
                  run_dir: str | Path | None = None) -> str:
    """What one condition did to the finding, from its own numbers."""
    found = (row.get("by_condition") or {}).get(c)
    state = (row.get("states") or {}).get(c, "")
    verb = {"flip": "flips it to the other side", "lost": "loses it (no longer significant)",
            "wide": "leaves it too uncertain to tell"}.get(state, "")
    text = f"under {labels.get(c, c)} it {verb}" if verb else f"under {labels.get(c, c)}"
    if found:
        rep = row.get("replicate") if row.get("reference") == "replicate" else None
        text += (f": {_value(row, found)} against {_value(row, rep)} in the replicate of this "
                 f"run ({_value(row, row)} here)" if rep else
                 f": {_value(row, found)} against {_value(row, row)} here")
        diff = _difference(row, found.get("test") or (row.get("tests") or {}).get(c))
        if diff:
            text += f" ({diff})"
    return text + _there(row, found) + _example(found, c, run_dir)


def _example(found: Mapping[str, Any] | None, c: str, run_dir: str | Path | None = None) -> str:
    """``"; an example game there: `analyzer replay RUN/robustness/C/scenario.toml --game
    G`"``: an example game of the condition's own finding (picked for its own sign)."""
    ids = (found or {}).get("examples") or []
    if not ids:
        return ""
    where = (Path(run_dir) if run_dir is not None else Path(".")) / FOLDER / c
    command = replay_command(where, int(ids[0]), (found or {}).get("example_variant") or BASE)
    return f"; an example game there: `{command}`"


def _by_size(row: Mapping[str, Any], conds: list[str]) -> list[str]:
    """``conds`` ordered by the size of their difference from this run, largest first."""
    tests = row.get("tests") or {}

    def size(c: str) -> float:
        t = ((row.get("by_condition") or {}).get(c) or {}).get("test") or tests.get(c) or {}
        try:
            return -abs(float(t.get("diff")))
        except (TypeError, ValueError):
            return 0.0

    return sorted(conds, key=size)


def _nearest(row: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """For a finding that holds: the condition where it comes nearest no effect."""
    by, null = row.get("by_condition") or {}, row.get("null") or 0.0
    same = [c for c, s in (row.get("states") or {}).items()
            if s == "same" and (by.get(c) or {}).get("estimate") is not None]
    if not same:
        return ""
    best = min(same, key=lambda c: abs(float(by[c]["estimate"]) - float(by[c].get("null") or null)))
    return (f"; nearest no effect under {labels.get(best, best)}: {_value(row, by[best])}"
            + _there(row, by[best]))


def reason(row: Mapping[str, Any], data: Mapping[str, Any],
           run_dir: str | Path | None = None) -> str:
    """Why a finding got its verdict, in words and from the conditions' own numbers: which
    condition changed it, by how much (its estimate against this run's and the test of the
    difference) and what differs there (the game's ``context`` of the finding in that
    condition, e.g. "every seat used the card in 93 % of the games"). ``robustness.json``
    keeps it as each finding's ``why``; the verdict sentence of the report ends with it.
    ``row``: a finding of ``robustness.json`` (or a ``robustness.verdict`` result); ``data``:
    ``robustness.json`` (its ``conditions`` give the labels); ``run_dir``: the run directory,
    for the replay command of a condition's example game (default: relative to it)."""
    labels = _labels(data)
    absent = row.get("absent_in") or []
    gone = (f" (not computed under {len(absent)} condition{'s' if len(absent) != 1 else ''}: "
            f"{_names(absent, labels)})") if absent else ""
    tail = f"{gone}{_unmeasurable(row, labels)}.{_chosen(row, labels)}"

    def clauses(names: Any) -> str:  # what each condition did, the largest difference first
        return "; ".join(_moved_clause(row, c, labels, run_dir)
                         for c in _by_size(row, list(names or [])))

    v = row.get("verdict")
    if v == "holds":
        return (f"same side and significant under {_all_others(row)} that measure it"
                f"{_nearest(row, labels)}{tail}")
    if v == "sensitive":
        return clauses(row.get("sensitive_to")) + tail
    if v == "unchecked":
        if row.get("reason"):
            return f"{row['reason']}."
        return ("no condition measures this finding (e.g. a policy's effect when every seat "
                f"plays one ladder player){_unmeasurable(row, labels)}.")
    if v == "unresolved":
        if not row.get("base_significant", True):
            p = row.get("p_holm")
            return (_NOT_HERE + (f" (Holm p {p_text(p)})" if p is not None
                                 and p_text(p) != "–" else "") + ", so no condition is judged.")
        other = "its replicate" if row.get("reference") == "replicate" else "this run"
        return (f"not significant there, but not measurably different from {other} either "
                f"(too few games to tell): {clauses(row.get('unresolved_in'))}{tail}")
    rng = row.get("range")
    if rng:
        at = row.get("range_at") or ["", ""]
        item = (f" ({str(row['item']).replace('_', ' ')} everywhere)" if row.get("item")
                else "")
        lo, hi, here = (_show(row, x) + _unit(row) for x in (*rng, row.get("estimate")))
        return (f"a measured figure (no verdict); {here} in this run, from {lo} "
                f"({labels.get(at[0], at[0])}) to {hi} ({labels.get(at[1], at[1])}) over the "
                f"conditions{item}{tail}")
    return ""


def _all_others(row: Mapping[str, Any]) -> str:
    """``"all 3 other conditions"``: the conditions that measure a finding that holds."""
    n = sum(1 for s in (row.get("states") or {}).values() if s not in ("absent", "unmeasurable"))
    return f"all {n} other condition{'s' if n != 1 else ''}"


def verdict_text(row: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """One sentence: the finding's verdict over the robustness conditions and why
    (``reason``, or the ``why`` stored in ``robustness.json``)."""
    why = row.get("why") or reason(row, data)
    if not why:
        return ""
    v = row.get("verdict")
    if v == "figure":
        return f"**Robustness check:** {why}"
    if v == "unresolved" and not row.get("base_significant", True):
        return f"**Robustness check: unresolved ({NOT_JUDGED})** — {why}"
    return f"**Robustness check: {v}** — {why}"


def content_text(row: Mapping[str, Any] | None) -> str:
    """`` Over guessed content: <table>: <verdict in words>; …`` of one finding (what
    ``--content`` drew; what differs in each draw is in the Robustness section), or ``""``."""
    content = (row or {}).get("content") or {}
    if not content:
        return ""
    return " Over guessed content: " + "; ".join(
        f"`{t}`: {v.get('short') or v.get('sentence', '')}" for t, v in content.items()) + "."


def _cell(row: Mapping[str, Any], r: Mapping[str, Any] | None, mark: str, signed: bool) -> str:
    """A table cell: the estimate and interval of ``r`` (``document.value_text``, at the
    finding ``row``'s scale and digits; its unit is in the row's first column) and ``mark``;
    ``"—"`` when not computed."""
    if r is None or value_text(r.get("estimate")) == "–":
        return "—"
    return f"{_value(row, r, False, signed)} {mark}".strip()


def section(doc: Doc, data: Mapping[str, Any], ranks: Mapping[str, int]) -> dict[str, Any]:
    """Add the "Robustness" section of ``data`` (``robustness.json``; ``write`` of its
    ``numbers``); ``ranks``: finding key -> its number in the key findings list (figures have
    none). Returns the numbers for ``summary.json``."""
    found = numbers(data)
    write(doc, found, data, ranks)
    return found


def numbers(data: Mapping[str, Any]) -> dict[str, Any]:
    """The section's numbers for ``summary.json``: ``{"verdicts": {key: verdict},
    "conditions": n, "repeats": [key, …], "replayed": {condition: share}, "rounds": bool}``;
    ``repeats``: the findings that repeat another's test (a mirror), which a tally counts once;
    ``replayed``: rule condition -> the share of its games played rather than copied from the
    replicate (``study.robustness.replayed``); ``rounds``: every run recorded its rounds
    (``--rounds``: the ``quality:`` findings are judged)."""
    rows = data.get("findings") or []
    conds = data.get("conditions") or []
    return {"verdicts": {r["key"]: r.get("verdict") for r in rows}, "conditions": len(conds),
            "repeats": [r["key"] for r in rows if r.get("same_test_as")],
            "replayed": {c["name"]: c["replayed"] for c in conds
                         if c.get("replayed") is not None},
            "rounds": bool(data.get("rounds"))}


def write(doc: Doc, n: Mapping[str, Any], data: Mapping[str, Any],
          ranks: Mapping[str, int]) -> None:
    """The "Robustness" section of the numbers ``n`` (``numbers``): the conditions, the
    verdict tally, the table of findings × conditions and its chart. ``data``
    (``robustness.json``) gives the findings' and conditions' records, which ``summary.json``
    does not hold; ``ranks``: finding key -> its number in the key findings list."""
    rows = data.get("findings") or []
    conds = data.get("conditions") or []
    doc.h("Robustness")
    from analyzer.runner import duration

    played = duration(data.get("seconds") or 0)
    rep = data.get("replicate") or {}
    against = "the replicate" if rep else "this run"
    count = n["conditions"]
    doc.p(f"Does each key finding hold {_ran(conds)}? `analyzer robustness` re-ran this "
          f"scenario under {count} condition{'s' if count != 1 else ''} (each a run "
          f"directory in `robustness/`, with its own report; {played} of play): "
          f"{_kinds(conds)}."
          + (f" It also replayed this run itself on new seeds (seed {rep.get('seed')}, "
             "`robustness/replicate/`), and the conditions were played on those seeds: this "
             "run selected the findings to judge (significant after its Holm correction), so "
             "its estimates lean away from no effect (the winner's curse), and a difference "
             "from it would lean to \"lost\"; the replicate is untouched by that selection." if rep
             else " The conditions were played on this run's game seeds.")
          + " A finding "
          "**holds** when under every condition that measures it its own 95 % interval excludes "
          "no effect on the same side as here (an intersection–union test: it needs no "
          "correction over the conditions). Whether a condition moved it is a **test of the "
          f"difference** condition − {against}, each against its own no-effect value: a paired "
          "t-test of the per-game values on the shared game seeds where the finding is a "
          "per-game quantity in both runs, else a two-sample z-test with both runs' standard "
          "errors; Holm over the conditions of each finding (family-wise error 5 %). A finding "
          "is **sensitive** when a condition differs significantly after Holm and flips it (✗ "
          "flipped: significant the other way) or loses it (✗ lost: no longer significant, "
          "nearer no effect); **unresolved** when some condition neither confirms it nor "
          "differs measurably (? too wide), and always when the finding is not significant "
          "after Holm in this run itself (then no condition is judged). A condition that cannot "
          "measure a finding (no comparison group, a card nobody takes: n/m) says why and counts "
          "neither way. A finding about an item this run chose (the strongest of several candidates) is "
          "compared on that same item in every condition. Measured figures get their range, "
          "no verdict. Measured false-alarm rates of this rule: `tests/stats/"
          "test_robustness_calibration.py`.")
    if n["rounds"]:  # ``analyzer robustness --rounds``: the quality findings too
        doc.p("Every run of this check (this run, the replicate and each condition) recorded "
              "its rounds (`--rounds`), so the game-quality findings (`quality:…`) are judged "
              "like any other: a change between arms by its own test, a measured figure by "
              "its range over the conditions.")
    if data.get("estimate"):  # the whole check (base, replicate, conditions) as planned
        # (not imported as ``against``: that name is the comparison's words in this function)
        from analyzer.plan import against as priced

        actual = data.get("actual") or {}
        doc.p("The whole check. " + priced(data["estimate"], actual.get("cpu"),
                                           actual.get("wall")))
    replayed = {c: f"{share:.0%}" for c, share in n["replayed"].items()}  # else "—"
    doc.table(pd.DataFrame([{"condition": c["label"], "folder": f"robustness/{c['name']}",
                             "games per arm": c["games"],
                             "players": ", ".join(c.get("policies", [])),
                             "games changed": _changed(c),
                             **({"games replayed": replayed.get(c["name"], "—")}
                                if replayed else {})}
                            for c in conds]))
    doc.p("Each folder holds a condition's records and the numbers this check reads, not a "
          "report of its own: `analyzer report` on a folder renders its full report.")
    if replayed:
        doc.p("Games replayed: a rule-default condition plays only the games that consulted its "
              "rule in the replicate and copies the others from there (the same game, seed for "
              "seed; `--full-replay` plays them all); the records are the same either way.")
    if idle := [c["label"] for c in conds if c.get("changed_games") == 0]:
        doc.p(f"Changed no decision (every game the same as {against}'s, so every finding is "
              "unchanged there): " + "; ".join(idle) + ".")
    if same := data.get("same_as_base") or []:
        doc.p("Ladder players the base run already uses (not re-run): "
              + ", ".join(f"`{s}`" for s in same) + ".")
    if gone := data.get("left_out") or {}:
        doc.p("Ladder players left out (the game lacks them): " + "; ".join(
            f"`{t}` ({why})" for t, why in gone.items()) + ".")
    if without := data.get("without") or []:
        shown = ", ".join(f"`{w}`" for w in without[:12])
        more = f" and {len(without) - 12} more" if len(without) > 12 else ""
        doc.p(f"Labelled defaults in use without a documented alternative (not varied): "
              f"{shown}{more}.")
    _content(doc, data, rows, ranks)
    # a finding that repeats another's test (a mirror: one policy's gain is the other's loss,
    # ``same_test_as``) is one finding for the tally
    once = [r for r in rows if not r.get("same_test_as")]
    counts = Counter(r.get("verdict") for r in once)
    base_ns = sum(1 for r in once if r.get("verdict") == "unresolved"
                  and not r.get("base_significant", True))
    mirrors = len(rows) - len(once)
    doc.p(f"Verdicts: {counts['holds']} hold, {counts['sensitive']} sensitive, "
          f"{counts['unresolved']} unresolved ({base_ns} of them not significant after Holm in "
          f"this run), {counts['unchecked']} unchecked (no condition measures them); "
          f"{counts['figure']} measured figure(s)"
          + (f"; {mirrors} finding{'s' if mirrors != 1 else ''} repeating another's test "
             "counted once" if mirrors else "") + ".")
    table = []
    for r in rows:
        tested = r.get("verdict") != "figure"
        label = f"#{ranks[r['key']]} " if r.get("key") in ranks else ""
        sign = bool(r.get("signed", tested))
        line = {"finding": f"{label}`{r.get('key')}`"
                + (f" ({str(r['item']).replace('_', ' ')})" if r.get("item") else "")
                + (f" [{r['unit']}]" if r.get("unit") else ""),
                "verdict": (f"unresolved ({NOT_JUDGED})" if tested
                            and not r.get("base_significant") else r.get("verdict")),
                "this run": _cell(r, r, ("✓" if r.get("base_significant") else "?")
                                  if tested else "", sign)}
        if rep:
            line["replicate (new seeds)"] = _cell(r, r.get("replicate"), "", sign)
        for c in conds:
            found = (r.get("by_condition") or {}).get(c["name"])
            state = (r.get("states") or {}).get(c["name"], "")
            if state == "unmeasurable" or (found or {}).get("unmeasurable"):
                line[c["label"]] = "n/m"
                continue
            mark = (MARKS.get(state, "") if tested and (r.get("base_significant")
                                                        or state == "absent") else "")
            test = (found or {}).get("test") or {}
            if mark and test.get("test") in TESTS and state != "same":
                mark += f" (Holm p {p_text(test.get('p_holm'))}, {TESTS[test['test']]})"
            line[c["label"]] = _cell(r, found, mark, sign)
        table.append(line)
    if table:
        doc.p("Each finding (number of the key findings list, its key and [unit]) under "
              "each condition: estimate [95 % interval] in that unit, and its state; where a "
              "condition does not confirm the finding, the Holm-adjusted p-value of its "
              f"difference from {against} and the test (paired per game or two-sample)"
              + (", and this run replayed on new seeds (the replicate), a second look at its "
                 "values" if rep else "") + ". n/m: not "
              "measurable there (the reason is in the finding's verdict).")
        doc.table(pd.DataFrame(table))
        drawn = [r for r in rows if r.get("verdict") != "figure"][:MAX_CHART]
        if drawn:
            ncols = 2 if len(drawn) > 3 else 1
            panel = 0.6 + 0.16 * (len(conds) + 1)
            doc.chart("robustness.png", "Key findings under each condition, one panel per "
                      "finding in its own unit (the axis names the finding's key and unit): "
                      "estimate and 95 % interval of this run (black, top row) and of each "
                      "condition (one labelled row each); grey line: no effect. Green: same "
                      "side and significant, red: flipped or lost, orange: too wide.",
                      lambda ax: _plot(ax, drawn, conds),
                      size=(11.0 if ncols > 1 else 7.0,
                            0.4 + panel * -(-len(drawn) // ncols)))


def _content(doc: Doc, data: Mapping[str, Any], rows: list[Mapping[str, Any]],
             ranks: Mapping[str, int]) -> None:
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
        "folder (its `scenario.toml` names it). A finding's verdict over one table's draws is "
        "its overall verdict read on those draws — one family, Holm over every condition of "
        "the finding — so a table is called sensitive only where the overall verdict names "
        "one of its draws. What differs in each draw from the built-in table:")
    doc.table(pd.DataFrame([{"condition": c["name"], "table file": c.get("file", ""),
                             "differs from the built-in table": c.get("differs", "")}
                            for c in drawn]))
    lines = [{"finding": (f"#{ranks[r['key']]} " if r.get("key") in ranks else "")
              + f"`{r.get('key')}`",
              **{t: v.get("sentence", "") for t, v in (r.get("content") or {}).items()}}
             for r in rows if r.get("content")]
    if lines:
        doc.table(pd.DataFrame(lines))


def _changed(c: Mapping[str, Any]) -> str:
    """How many of a rule condition's games differ from this run's (``—``: not comparable)."""
    n = c.get("changed_games")
    if n is None:
        return "—"
    return f"{n:,} of {c['games'] * max(1, c.get('arms', 1)):,}" if c.get("arms") else f"{n:,}"


COLOURS = {"base": "black", "same": "tab:green", "flip": "tab:red", "lost": "tab:red",
           "wide": "tab:orange", "absent": "lightgrey", "unmeasurable": "lightgrey"}
LABEL_WIDTH = 40  # characters of a condition's label on the chart's axis


def _short_label(text: str) -> str:
    """A condition's label for the chart's axis: without its "(default …)" and at most
    ``LABEL_WIDTH`` characters."""
    text = text.split(" (default ")[0]
    return text if len(text) <= LABEL_WIDTH else text[:LABEL_WIDTH - 1] + "…"


def _plot(ax, rows: list[Mapping[str, Any]], conds: list[Mapping[str, Any]]) -> None:
    """One panel per finding, in the finding's own unit (its ``scale`` and ``unit``): a point
    and 95 % interval for this run (black) and for each condition, each on its own labelled
    row; grey line: the finding's no-effect value."""
    fig = ax.figure
    ax.remove()
    ncols = 2 if len(rows) > 3 else 1
    nrows = -(-len(rows) // ncols)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    names = ["this run"] + [_short_label(c["label"]) for c in conds]
    for panel, r in zip(axes, rows):
        scale = r.get("scale") or 1.0
        null = r.get("null") or 0.0
        points = [("base", r)] + [((r.get("states") or {}).get(c["name"], "absent"),
                                   (r.get("by_condition") or {}).get(c["name"]))
                                  for c in conds]
        for y, (state, f) in enumerate(points):
            if not f or f.get("estimate") is None or (isinstance(f["estimate"], float)
                                                      and math.isnan(f["estimate"])):
                panel.text(0.5, y, "not measured", transform=panel.get_yaxis_transform(),
                           fontsize=6, color="grey", va="center", ha="center")
                continue
            est = scale * float(f["estimate"])
            lo, hi = (scale * float(f[k]) if f.get(k) is not None else est for k in ("lo", "hi"))
            lo, hi = (est if math.isnan(lo) else lo), (est if math.isnan(hi) else hi)
            panel.errorbar(est, y, xerr=[[max(est - lo, 0)], [max(hi - est, 0)]], fmt="o", ms=3,
                           color=COLOURS.get(state, "grey"), lw=1)
        panel.axvline(scale * float(null), color="grey", lw=0.8)
        panel.set_yticks(range(len(names)), names, fontsize=6)
        panel.set_ylim(len(names) - 0.5, -0.5)
        unit = f" [{r['unit']}]" if r.get("unit") else ""
        panel.set_xlabel(f"{r.get('key')}{unit}", fontsize=7)
        panel.tick_params(axis="x", labelsize=6)
    for panel in axes[len(rows):]:
        panel.remove()


# ------------------------------------------------------------------ the verdict in a few words

MAX_VALUES = 3  # condition values quoted in a short verdict


def _group(c: Mapping[str, Any]) -> tuple[str, str]:
    """The group a condition is counted in for a short verdict, and its plural noun: the
    ladder's players, the rule defaults, each guessed content table's draws."""
    kind = c.get("kind")
    if kind == "content":
        return f"content:{c.get('table')}", str(c.get("draws_noun") or f"{c.get('table')} draws")
    return str(kind), {"players": "ladder players", "rule": "rule defaults"}.get(
        str(kind), "conditions")


def _side_of(x: float, null: float) -> int:
    return 0 if x == null else (1 if x > null else -1)


def moved_text(row: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """What moved a finding, in a few words, from the conditions' own numbers, per group of
    conditions (the ladder's players, the rule defaults, each content table's draws): under how
    many the estimate lies on the other side of no effect (``"flips sign under 2 of 4 token
    lists: +14.9, +23.8"``), then those that lost it or left it too uncertain. ``""`` when no
    condition did either."""
    conds = {c["name"]: c for c in data.get("conditions", [])}
    by = row.get("by_condition") or {}
    states = row.get("states") or {}
    null = float(row.get("null") or 0.0)
    try:
        here = _side_of(float(row.get("estimate")), null)
    except (TypeError, ValueError):
        here = 0
    groups: dict[str, tuple[str, list[str]]] = {}
    for name, c in conds.items():
        found = by.get(name) or {}
        if found.get("estimate") is None or found.get("unmeasurable"):
            continue
        g, noun = _group(c)
        groups.setdefault(g, (noun, []))[1].append(name)

    def values(names: list[str], kind: str) -> str:
        shown = []
        for n in names[:MAX_VALUES]:
            v = _show(row, (by.get(n) or {}).get("estimate"))
            label = str(conds[n].get("label", n)).removeprefix("every seat: ").split(" (")[0]
            shown.append(v if kind.startswith("content") else f"{label} {v}")
        return ", ".join(shown) + (" …" if len(names) > MAX_VALUES else "")

    parts = []
    for g, (noun, names) in groups.items():
        flips = [n for n in names if here and _side_of(
            float(by[n]["estimate"]), float(by[n].get("null") or null)) == -here]
        lost = [n for n in names if states.get(n) == "lost" and n not in flips]
        wide = [n for n in names if states.get(n) == "wide" and n not in flips]
        for what, these in (("flips sign", flips), ("loses significance", lost),
                            ("too uncertain", wide)):
            if these:
                parts.append(f"{what} under {len(these)} of {len(names)} {noun}: "
                             f"{values(these, g)}")
    return "; ".join(parts)


def short_verdict(row: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """A finding's robustness verdict for the Answers table, in a few words: ``"holds"``;
    ``"sensitive: flips sign under …"``; ``"unresolved: not significant in this run after
    Holm; flips sign under 2 of 4 token lists: +14.9, +23.8"``; a figure's range; ``"not
    checked"`` when no condition measures it."""
    v = row.get("verdict")
    moved = moved_text(row, data)
    if v == "holds":
        return f"holds under {_all_others(row)}"
    if v == "sensitive":
        return "sensitive: " + (moved or _names(list(row.get("sensitive_to") or []),
                                                _labels(data)))
    if v == "unresolved":
        why = _NOT_HERE if not row.get("base_significant", True) else ""
        return "unresolved: " + "; ".join(p for p in (why, moved) if p) if why or moved \
            else "unresolved"
    if v == "figure":
        rng = row.get("range")
        if rng:
            return (f"{FIGURE}: {_show(row, rng[0])} to {_show(row, rng[1])}{_unit(row)} "
                    "over the conditions")
        return FIGURE
    return "not checked (no condition measures it)"


__all__ = ["FOLDER", "RESULT", "content_text", "load", "moved_text", "read", "reason",
           "section", "short_verdict", "verdict_text"]
