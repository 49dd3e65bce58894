"""The report of ``analyzer quality --luck R``: how much of the outcome the deal decides
(issue #36 item 3).

Each deal (a game seed: its chance stream) is played ``R`` times with other player streams
(``analyzer.study.quality``). An outcome's **luck share** is the between-deal part of its
variance, ICC(1) of a one-way random-effects ANOVA (``stats.variance_split``), with a 95 %
percentile bootstrap over deals; ``won`` and ``score`` are also pooled over the seats (their
parts summed before the share is taken). The method, its sources and how to read it:
docs/guide.md, "Luck or skill?".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import answers as answer_rows
from analyzer.report import findings
from analyzer.report.document import Doc, param_text, value_text
from analyzer.report.findings import Finding
from analyzer.report.records import Table, as_table
from analyzer.report.summary import RunFacts

OUTCOMES = {  # outcome -> (words, unit of its variance)
    "won": ("each seat's win share", "share²"),
    "score": ("each seat's final score", "points²"),
    "margin": ("the winner's margin over the runner-up", "points²"),
}


def by_deal(seats: pd.DataFrame, column: str, replays: Sequence[str]
         ) -> tuple[np.ndarray, list[int]]:
    """``column`` of the seat records as ``(D, R, P)``: deal, replay, start position; with the
    positions. Deals missing a replay are left out."""
    s = seats[seats["variant"].isin(replays)]
    wide = s.pivot_table(index="game_id", columns=["variant", "start_position"], values=column,
                         aggfunc="first").dropna()
    positions = sorted({p for _, p in wide.columns})
    arr = np.stack([wide[v][positions].to_numpy(float) for v in replays], axis=1)
    return arr, positions


def margins(scores: np.ndarray) -> np.ndarray:
    """The winner's final score minus the runner-up's, per game: ``scores`` ``(..., P)`` ->
    ``(...)`` (0 for a tie on score)."""
    top = np.sort(scores, axis=-1)
    return top[..., -1] - top[..., -2]


def varied(seats: pd.DataFrame, replays: Sequence[str]) -> int:
    """How many deals' replays differ in some seat's score, win share or rank (0: every
    player played every replay alike)."""
    cols = [c for c in ("score", "won", "rank") if c in seats.columns]
    s = seats[seats["variant"].isin(replays)].sort_values(["game_id", "variant", "seat"])
    per = s.groupby(["game_id", "variant"], sort=True)[cols].apply(
        lambda g: tuple(g.to_numpy(float).ravel()))
    return int(per.groupby(level=0).nunique().gt(1).sum())


def outcomes(seats: pd.DataFrame, replays: Sequence[str], n_boot: int, seed: int
             ) -> list[dict[str, Any]]:
    """The split of every outcome: ``won`` and ``score`` pooled over the start positions then
    by position, and ``margin``; each a ``split`` dict with ``outcome``, ``position`` (``None``
    pooled), ``pooled``, ``key`` (``luck:won``, ``luck:won:P``…) and ``unit`` (of the
    variances)."""
    won, positions = by_deal(seats, "won", replays)
    score = by_deal(seats, "score", replays)[0]
    parts = [(name, pos, a) for name, arr in (("won", won), ("score", score))
             for pos, a in [(None, arr)] + [(p, arr[:, :, [k]]) for k, p in enumerate(positions)]]
    if len(positions) >= 2:
        parts.append(("margin", None, margins(score)))
    return [{"outcome": name, "position": pos, "pooled": pos is None,
             "key": f"luck:{name}" + ("" if pos is None else f":{pos + 1}"),
             "unit": OUTCOMES[name][1], **stats.variance_split(a, n_boot, seed)}
            for name, pos, a in parts]


def _share_text(row: Mapping[str, Any]) -> str:
    return value_text(row["share"], row["lo"], row["hi"], "%", 100, 1, no_spread=False)




def _what(row: Mapping[str, Any]) -> str:
    words = OUTCOMES[row["outcome"]][0]
    if row["position"] is None:
        return words + (" (pooled over the seats)" if row["outcome"] != "margin" else "")
    where = "the start player" if row["position"] == 0 else f"start position {row['position'] + 1}"
    return words.replace("each seat's", f"{where}'s")


def finding(row: Mapping[str, Any]) -> Finding:
    """A pooled outcome's luck share as a measured figure (``luck:won``, ``luck:score``,
    ``luck:margin``): no test, an interval over deals."""
    # below 0 (the replays of a deal differ more than the deals): no share is detectable, and
    # a share of variance cannot be negative, so the estimate is given as that, not a share
    said = (f"The deal explains no detectable share of the variance of {_what(row)} (its "
            "ANOVA estimate, {value}, is below 0 by chance)" if row["share"] < 0 else
            f"The deal explains {{value}} of the variance of {_what(row)}; the rest is left to "
            "play")
    return Finding(
        f"{said} "
        f"(one-way random-effects ANOVA over {row['deals']} deals × {row['replays']} replays, "
        "bootstrap over deals)", float(row["share"]), float(row["lo"]), float(row["hi"]), "%",
        100, 1, False, None, games=int(row["deals"]), key=str(row["key"]),
        bounds=(-1.0, 1.0), min_games=2, stored_unit="share")


def numbers(run: Mapping[str, Any], seats: Table | pd.DataFrame) -> dict[str, Any]:
    """The luck study's numbers (``results["luck"]``): ``outcomes`` (each
    ``outcomes`` row with its ``text``), ``deals``, ``replays`` (per deal), ``varied_deals``
    (``varied``), ``deterministic`` (no player drew from its own stream in the probe: no
    bootstrap), ``note`` (``_note``), ``bootstrap`` (replicates) and ``findings``
    (``findings.numbers`` of each pooled outcome's share, ``finding``). ``run``: the run facts,
    whose arms are the replays and whose ``study`` holds the probe, bootstrap and its seed."""
    study = run.get("study") or {}
    facts = RunFacts.of(run)
    replays = [a.name for a in facts.arms]
    records = as_table(seats).read(["*"])
    records["variant"] = records["variant"].astype(str)
    moved = varied(records, replays)
    drew = list((study.get("probe") or {}).get("drew") or [])
    deterministic = bool(drew) and not any(drew)  # refused before play: an old or edited run
    n_boot = 0 if deterministic else int(study.get("bootstrap", 0))
    rows = outcomes(records, replays, n_boot, int(study.get("boot_seed", 0)))
    for row in rows:
        row["text"] = (f"{_what(row)}: the deal explains no detectable share of the variance "
                       f"(its estimate, {_share_text(row)}, is below 0 by chance)"
                       if row["share"] < 0 else
                       f"{_what(row)}: the deal explains {_share_text(row)} of the variance")
    return {"outcomes": rows, "deals": rows[0]["deals"] if rows else 0, "replays": len(replays),
            "varied_deals": moved, "deterministic": deterministic,
            "note": _note(moved, drew, facts, deterministic), "bootstrap": n_boot,
            "findings": findings.numbers([finding(r) for r in rows if r["pooled"] and not
                                          math.isnan(r["share"]) and not deterministic])}


def write(doc: Doc, n: Mapping[str, Any], assessed: tuple, run: Mapping[str, Any],
          run_dir: Path | None = None) -> None:
    """The luck report of the numbers ``n`` (``numbers``; ``assessed``: its key findings'
    ``findings.ASSESSED``): its note, "This run" (from the run facts ``run``, which ``n`` does
    not hold: game, seats, seed, time, rules), the split's table and the key findings (the
    example games link into ``run_dir``)."""
    facts, deals, rows = RunFacts.of(run), n["deals"], n["outcomes"]
    if n["note"]:
        doc.p(f"**{n['note']}**")
    top = len(doc.blocks)
    doc.h("This run")
    seats_text = ", ".join(f"`{s}`" for s in (facts.arms[0].seats if facts.arms else ()))
    doc.p(f"Game **{facts.said('game')}** (expansions: {', '.join(facts.expansions) or 'none'}"
          f"), {facts.said('players')} players ({seats_text}). **{deals} deals** (game seeds "
          f"from root seed **{facts.said('seed')}**), each played **{n['replays']} times** "
          f"with the same chance stream and seating and other player streams (replay 0 is "
          f"the game `analyzer simulate` plays). {n['varied_deals']} of the {deals} deals "
          f"played out differently in some replay.")
    for text in facts.how_played(f"Played in {facts.seconds:.1f} s"):
        doc.p(text)
    rules = facts.arms[0].rules if facts.arms else {}
    doc.p("Rules: " + ("; ".join(f"{k} = {param_text(v)}" for k, v in rules.items())
                       or "the game's defaults") + ".")
    if dropped := (run.get("study") or {}).get("dropped_variants"):
        doc.p("The scenario's own variants (" + ", ".join(f"`{v}`" for v in dropped)
              + ") are not played: the study replays the base arm.")
    doc.h("Luck and skill: the deal's share of the outcome")
    doc.p("The law of total variance splits an outcome's variance into the part the deal "
          "decides (the variance of its expected value given the deal: luck of the draw) and "
          "the part left to play (the mean variance over replays of one deal). Estimated as a "
          "one-way random-effects ANOVA over deals: the between-deal part is `(MSB − MSW)/R`, "
          "the variance of the deal means corrected for the within-deal noise that is in "
          "each mean of only R replays; the **luck share** is between / (between + within), "
          "the intraclass correlation ICC(1): 100 % when the deal alone decides, 0 % when "
          "play alone does (below 0: no luck detectable, a chance estimate). A seat is read "
          "by start position (turn order); its win share is 1/k for a k-way tie for first and "
          f"0 when nobody wins. 95 % percentile bootstrap intervals over the {deals} deals "
          f"({n['bootstrap']} replicates; a deal is resampled with all its "
          "replays). A game draws from its one chance stream in the order events happen, "
          "so once two replays take different choices later draws can fall to different "
          "events: those count as play here, and the luck share is a lower bound of the part "
          "chance plays. **How to read it**: a high luck share of the win means the players' "
          "choices barely move who wins at this table (for these players: a stronger player "
          "may leave less to the deal).")
    doc.table(pd.DataFrame([{
        "outcome": _what(r), "luck share": _share_text(r),
        "between deals": f"{r['between']:.4g}", "within a deal": f"{r['within']:.4g}",
        "variance unit": r["unit"]} for r in rows]))
    findings.write(
        doc, n["findings"], assessed, run_dir, top,
        "No split to report: the replays did not differ (deterministic players)."
        if n["deterministic"] else "No outcome varied.",
        note="Here the unit is the **deal** (a game seed with all its replays); each figure "
             "is a share of variance with a bootstrap interval over deals, not a test.")


def _note(moved: int, drew: Sequence[int], facts: RunFacts, deterministic: bool) -> str:
    """What the reader must know before the split: players without randomness (all: the
    split is meaningless; some: named), or replays that never differed."""
    if deterministic:
        return ("No player drew from its own stream (deterministic players): every replay of "
                "a deal plays out alike, so the replays cannot tell the deal from the play and "
                "the split below is meaningless. Seat players with their own randomness "
                "(`random`, `ismcts`) to measure it.")
    names = list(facts.arms[0].seats) if facts.arms else []
    # seats numbered from 0, as in the scenario's [[seats]], the replay log and --seat
    still = [f"seat {s} (`{names[s]}`)" if s < len(names) else f"seat {s}"
             for s, k in enumerate(drew) if not k]
    out = []
    if still:
        out.append(f"{', '.join(still)} drew nothing from its own stream in the probe's "
                   "deals: it plays every replay alike, so its choices count as the deal's "
                   "here (its skill is inside the luck share).")
    if moved == 0:
        out.append("The players drew from their streams, yet no replay of any deal changed an "
                   "outcome: the deal decided every game.")
    return " ".join(out)


def answers(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
            run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """How much of the win, the score and the margin the deal decides."""
    found = {str(r.get("key")): r for r in records}
    return [a for what, key in (("who wins", "won"), ("the final scores", "score"),
                                ("the winning margin", "margin"))
            for a in answer_rows._answer(f"How much of {what} does the deal decide?",
                                         found.get(f"luck:{key}"))]
