"""The report of ``analyzer sensitivity``: each knob one step down and up, its paired effect on
the finding, largest first, with a tornado chart (issue #35).

Each arm's records are reported as a run of their own (``analyzer.report.build`` without
charts, the arm named ``base``), so the finding at a setting is the number ``analyzer report``
of that setting prints; its per-game values (``findings.parquet``) are paired with the base
arm's on the shared game seeds: ``stats.paired_difference`` (mean of the per-game differences
with a t interval, the game as the unit; a difference of shares with no spread gets the
no-spread interval over ±1, as the balance section's). That is the difference a ``compare`` of
the two settings reports for the same per-game quantity (``start_adv:VARIANT`` for the start
player's advantage ``first_player:base``, ``score:VARIANT`` for the mean score). The p-values
are corrected by Holm's step-down method over every knob × direction row (family-wise error
5 %).
"""

from __future__ import annotations

import gc
import math
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import charts, findings
from analyzer.report.document import BASE, Doc, Numbers, p_text, value_text
from analyzer.report.findings import Finding
from analyzer.report.records import Table, as_table

MAX_ANSWERS = 8  # rows of the Answers table (every row is in the table below it)
SHARE_UNITS = ("pp", "%")  # a per-game value that is a share: its differences lie in ±1


def read_parts(result: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The games and seats records of a ``runner.RunResult`` (its chunk files), ``variant`` as
    text."""
    games, seats = (pd.concat([pd.read_parquet(p) for p in result.parts(kind)], ignore_index=True)
                    for kind in ("games", "seats"))
    return games.astype({"variant": str}), seats.astype({"variant": str})


def arm_findings(run: Mapping[str, Any], games: pd.DataFrame, seats: pd.DataFrame, arm: str,
                 folder: Path) -> tuple[list[dict[str, Any]], dict[str, pd.Series]]:
    """The finding records of ``arm``'s records reported as a run of their own, and the
    per-game values of those that have them.

    Parameters
    ----------
    run : mapping
        The run facts (``name``, ``game``, ``expansions``, ``players``, ``seed``,
        ``seat_rotation``; ``arms`` with this arm's ``rules``).
    games, seats : DataFrame
        Records with a ``variant`` column; only ``arm``'s rows are used (renamed ``base``).
    arm : str
    folder : Path
        A scratch folder: the report's ``findings.parquet`` is written there.

    Returns
    -------
    (list of dict, dict of str to Series)
        The records (``summary.json``'s) and, by key, the per-game values indexed by
        ``game_id`` (a finding's own values; an item's are left out).
    """
    from analyzer import report  # the report package: its build, as ``analyzer report`` runs it

    g = games[games["variant"] == arm].assign(variant=BASE).reset_index(drop=True)
    s = seats[seats["variant"] == arm].assign(variant=BASE).reset_index(drop=True)
    rules = next((dict(a.get("rules") or {}) for a in run.get("arms") or []
                  if a.get("name") == arm), {})
    one = {"name": run.get("name"), "game": run.get("game"),
           "expansions": list(run.get("expansions") or []), "players": run.get("players"),
           "games": int(g["game_id"].nunique()), "seed": run.get("seed"),
           "seat_rotation": run.get("seat_rotation"), "study": {"kind": "simulate"},
           "arms": [{"name": BASE, "rules": rules, "seats": [], "players": run.get("players")}]}
    folder.mkdir(parents=True, exist_ok=True)
    results = report.build(Numbers(folder), one, g, s, run_dir=folder)
    records = list((results.get("findings") or {}).get("findings") or [])
    try:
        table = pd.read_parquet(folder / findings.PER_GAME)
    except (OSError, ValueError):
        table = pd.DataFrame(columns=["key", "item", "game_id", "value"])
    return records, {str(key): grp.set_index("game_id")["value"].sort_index()
                     for key, grp in table[table["item"] == ""].groupby("key", sort=False)}


def effect(base: pd.Series, arm: pd.Series, unit: str | None) -> stats.Difference:
    """The paired difference ``arm − base`` of a finding's per-game values on their shared
    games (``stats.paired_difference``; bounds ±1 for a share's)."""
    ids = base.index.intersection(arm.index).sort_values()
    return stats.paired_difference(base.loc[ids].to_numpy(float), arm.loc[ids].to_numpy(float),
                                   bounds=stats.SHARE_DIFFERENCE if unit in SHARE_UNITS else None)


def _plain(x: Any) -> str:
    return str(int(x)) if float(x).is_integer() else f"{float(x):g}"


def rows(study: Mapping[str, Any], base: pd.Series, arms: Mapping[str, pd.Series | None]
         ) -> tuple[list[dict[str, Any]], dict[str, pd.Series]]:
    """One row per move (``study["moves"]``): the effect of that arm on the finding, paired
    with the base on shared games, Holm over the rows, sorted by the absolute effect
    (largest first; a row without a number last); and by arm, its per-game differences from
    the base (not for ``summary.json``).

    Each row: ``path, label, direction, start, value, step, arm, unchanged, games, estimate,
    lo, hi, p_value, p_holm, holds, text`` (numbers in the finding's own scale; ``text`` in its
    shown unit: ``"+1 on NAME: +2.1 pp [+1.4, +2.8]"``; ``unchanged``: the per-game value is
    the same in every game, the interval then ``no_spread``'s).
    """
    unit, scale = study.get("unit") or "", float(study.get("scale") or 1)
    digits = int(study.get("digits") or 1)
    out, diffs = [], {}
    for m in study["moves"]:
        values = arms.get(m["arm"])
        row = {k: m[k] for k in ("path", "label", "direction", "start", "value", "step", "arm")}
        row["unchanged"] = False
        if values is None or not len(values):
            row.update(games=0, estimate=math.nan, lo=math.nan, hi=math.nan, p_value=math.nan)
        else:
            d = effect(base, values, unit)
            ids = base.index.intersection(values.index).sort_values()
            diffs[m["arm"]] = dm = values.loc[ids] - base.loc[ids]
            row.update(games=int(d.n), estimate=float(d.mean), lo=float(d.lo), hi=float(d.hi),
                       p_value=float(d.p_value), unchanged=bool(len(dm) and (dm == 0).all()))
        out.append(row)
    p = np.array([r["p_value"] for r in out], dtype=float)
    adj, sig = stats.adjust_pvalues(p, "holm") if len(p) else (p, p.astype(bool))
    for r, a, s in zip(out, adj, sig):
        r["p_holm"], r["holds"] = float(a), bool(s)
        # the report's one signed format (``document.value_text``), its one minus sign
        move = f"{'+' if r['direction'] > 0 else '-'}{_plain(r['step'])} on {r['label']}"
        if math.isnan(r["estimate"]):
            r["text"] = f"{move}: not measured (the finding has no value at this setting)"
        else:
            r["text"] = (f"{move}: " + value_text(r["estimate"], r["lo"], r["hi"], unit, scale,
                                                  digits, signed=True, no_spread=False))
            if r.get("unchanged"):
                r["text"] += " (no game's value changed)"
    out.sort(key=lambda r: (math.isnan(r["estimate"]), -abs(np.nan_to_num(r["estimate"]))))
    return out, diffs


def _tornado(ax, knobs: list[tuple[str, dict | None, dict | None]], unit: str, scale: float
             ) -> None:
    """The tornado chart: per knob (largest effect on top) its down bar and up bar from 0,
    each with its 95 % interval."""
    y = np.arange(len(knobs))[::-1]
    for col, which, color, off in ((1, "down", "tab:blue", 0.18), (2, "up", "tab:orange", -0.18)):
        idx = [i for i, k in enumerate(knobs) if k[col] is not None]
        if not idx:
            continue
        rs = [knobs[i][col] for i in idx]
        v = np.array([scale * r["estimate"] for r in rs], float)
        err = charts.error_bars(v, [scale * r["lo"] for r in rs], [scale * r["hi"] for r in rs])
        ax.barh(y[idx] + off, v, 0.36, xerr=err, capsize=2, color=color, label=f"one step {which}")
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_yticks(y, [k[0] for k in knobs])
    ax.set_xlabel(f"change of the finding [{unit}]" if unit else "change of the finding")
    charts.legend(ax)


def _by_knob(table: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict | None, dict | None]]:
    """Per knob, in the order of its largest absolute effect: ``(label, down row, up row)``."""
    out: dict[str, list] = {}
    for r in table:
        if math.isnan(r["estimate"]):
            continue
        k = out.setdefault(r["path"], [r["label"], None, None])
        k[1 if r["direction"] < 0 else 2] = dict(r)
    return [tuple(v) for v in out.values()]  # type: ignore[misc]


def _finding(r: Mapping[str, Any], study: Mapping[str, Any], key: str, diffs: dict) -> Finding:
    """A row as a key finding (``sensitivity:PATH:down|up``), its per-game values ``diffs[arm]``."""
    word = "down" if r["direction"] < 0 else "up"
    return Finding(
        f"`{r['label']}` one step {word} ({_plain(r['start'])} → {_plain(r['value'])}) changes "
        f"`{key}` by {{value}} (paired on {r['games']} shared games)", r["estimate"], r["lo"],
        r["hi"], study.get("unit") or "", float(study.get("scale") or 1),
        int(study.get("digits") or 1), True, 0.0, p_value=r["p_value"], games=r["games"],
        t_df=r["games"] - 1, example_variant=r["arm"], key=f"sensitivity:{r['path']}:{word}",
        per_game=diffs.get(r["arm"]))


def build(doc: Doc, run: dict[str, Any], seats: Table | pd.DataFrame,
          run_dir: Path | None = None) -> dict[str, Any]:
    """Fill ``doc`` with the sensitivity report (``write``); returns its ``numbers``, which
    read the arms' games from ``run_dir``."""
    n = numbers(run, seats, run_dir)
    write(doc, n, n["findings"].pop(findings.ASSESSED), run, run_dir)
    return n


def numbers(run: dict[str, Any], seats: Table | pd.DataFrame, run_dir: Path | None = None
            ) -> dict[str, Any]:
    """The sensitivity's numbers for ``summary.json``: each arm's records (the games from
    ``run_dir/games.parquet``) reported as a run of their own (``arm_findings``), each move's
    finding paired with the base's (``rows``): ``finding``, ``unit``, ``scale``, ``base`` (the
    finding's record at the base), ``rows``, ``refused``, ``unused``, ``correction`` and
    ``findings`` (``findings.numbers`` of each row as a finding, its per-game differences
    from the base, ``_finding``)."""
    study, key = run["study"], run["study"]["finding"]
    unit, scale = study.get("unit") or "", float(study.get("scale") or 1)
    seats_df = as_table(seats).read(["*"]).astype({"variant": str})
    games = (as_table(Path(run_dir) / "games.parquet").read(["*"]) if run_dir is not None
             else seats_df[["variant", "game_id"]].drop_duplicates()).astype({"variant": str})
    per_arm: dict[str, pd.Series | None] = {}
    base_rec: Mapping[str, Any] | None = None
    gc.freeze()  # statsmodels' Holm calls gc.collect() per call: skip what is alive now
    try:
        with tempfile.TemporaryDirectory(prefix="analyzer-sensitivity-") as tmp:
            for i, arm in enumerate([BASE, *(m["arm"] for m in study["moves"])]):
                recs, values = arm_findings(run, games, seats_df, arm, Path(tmp) / f"a{i}")
                per_arm[arm] = values.get(key)
                if arm == BASE:
                    base_rec = next((r for r in recs if r.get("key") == key), None)
    finally:
        gc.unfreeze()
    base = per_arm.get(BASE)
    table, diffs = rows(study, base if base is not None else pd.Series(dtype=float), per_arm)
    found = [_finding(r, study, key, diffs) for r in table if not math.isnan(r["estimate"])]
    return {"finding": key, "unit": unit, "scale": scale, "base": dict(base_rec or {}),
            "rows": table, "refused": study.get("refused") or [],
            "unused": study.get("unused") or [], "correction": "holm",
            "findings": findings.numbers(found)}


def write(doc: Doc, n: dict[str, Any], assessed: tuple, run: dict[str, Any],
          run_dir: Path | None = None) -> None:
    """The sensitivity report of its numbers ``n`` (``numbers``; ``assessed``: its key
    findings' ``findings.ASSESSED``) and the run facts ``run``; the key findings' per-game
    values go to ``run_dir`` (``findings.write``)."""
    study, key, unit, table = run["study"], n["finding"], n["unit"], n["rows"]
    top = len(doc.blocks)
    doc.h("Sensitivity: each knob one step down and up")
    at_base = (f" At the scenario's values: {n['base'].get('sentence')}." if n["base"] else
               " The base arm gave the finding no value.")
    doc.p(f"Every numeric rule option and table value the scenario uses (simulator guards "
          f"left out) moved one step ({study.get('step_rule')}) down and up, each an arm "
          f"played on the base's {run.get('games')} game seeds. The effect on `{key}` is the "
          f"mean of the per-game differences from the base with its 95 % t interval (paired on "
          f"shared seeds, the game as the unit), in {unit or 'its unit'}.{at_base} "
          f"**Holm**: p-values corrected over all {len(table)} knob × direction rows "
          "(family-wise error 5 %); sorted by the absolute effect, largest first.")
    shown = pd.DataFrame([{
        "knob one step": r["text"].split(":", 1)[0],
        f"effect [{unit}]" if unit else "effect": r["text"].split(": ", 1)[1],
        "games": r["games"], "p": p_text(r["p_value"]), "p (Holm)": p_text(r["p_holm"]),
        "holds after Holm": "yes" if r["holds"] else "no"} for r in table])
    if len(shown):
        doc.table(shown)
    knobs = _by_knob(table)
    if knobs:
        doc.chart("sensitivity_tornado.png",
                  f"Tornado chart: the change of `{key}` when each knob moves one step down "
                  f"(blue) or up (orange), largest effect on top, with 95 % intervals (paired "
                  "on shared seeds).",
                  lambda ax: _tornado(ax, knobs, unit, n["scale"]),
                  size=(7.5, max(2.5, 0.45 * len(knobs) + 1.2)))
    if study.get("dropped_variants"):
        doc.p("The scenario's own variants (" + ", ".join(
            f"`{v}`" for v in study["dropped_variants"]) + ") are not played: sensitivity "
              "moves the base arm (make a variant the base of its own scenario to move it).")
    if study.get("refused"):
        doc.p("Not played (the game refuses the value): " + "; ".join(
            f"`{r['path']}` → {_plain(r['value'])} ({r['why']})" for r in study["refused"])
              + ".")
    if study.get("unused"):
        doc.p(f"Left out, as the scenario does not use them (moving them changes nothing the "
              f"game lists as acting): {len(study['unused'])} value(s), e.g. "
              + ", ".join(f"`{p}`" for p in study["unused"][:8]) + ".")
    findings.write(
        doc, n["findings"], assessed, run_dir, top, "No knob moved the finding measurably.",
        note=f"Each finding is a knob's one-step change of `{key}`, paired on shared seeds.")


def answers(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
            run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The largest one-step effects, largest first (``MAX_ANSWERS``; ``answers.order`` says
    so in the Answers caption)."""
    mine = [r for r in records if str(r.get("key")).startswith("sensitivity:")]
    mine.sort(key=lambda r: -abs(float(r.get("estimate") or 0.0)))
    return [{"ask": f"What does one step {str(r['key']).rsplit(':', 1)[1]} on "
                    f"`{str(r['key']).split(':')[1].split('.', 1)[1]}` do?",
             "key": str(r["key"]), "record": r} for r in mine[:MAX_ANSWERS]]


# the order of these answers, for the Answers caption (``analyzer.report.answers.section``)
answers.order = "largest absolute effect first"  # type: ignore[attr-defined]
