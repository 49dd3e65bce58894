"""The generic report sections, built from the record tables alone.

Each builder takes the ``games`` and ``seats`` tables and a ``Doc`` to fill, and returns its
numbers for ``summary.json``. The tables are ``records.Table`` objects on the run's Parquet files
(``render``) or plain DataFrames; a builder reads the columns it uses, one variant's rows at a
time where it can (``records.py``), so the report's memory does not grow with the records. These
sections work for every game; a game's own sections (its ``study.py``, declared in its
``GameSpec.sections``) are passed in by the caller and run after them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from analyzer import stats
from analyzer.games.base import StudySection
from analyzer.report import balance, charts
from analyzer.report.document import BASE, Doc, concat, iv_tuple, num, pct, rows_of, signed
from analyzer.report.records import Table, as_table, release_memory

RESULT_SEATS = ("variant", "game_id", "seat", "policy", "score", "won", "start_position", "died")


def results(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            players: int) -> dict:
    """Win rate by policy and by seat, mean scores, score distribution, game length.

    Reads one variant at a time: games ``variant, rounds, end``; seats ``RESULT_SEATS``.
    """
    games, seats = as_table(games), as_table(seats)
    arms = seats.variants()
    win, score, order_all, summaries, scores = {}, {}, [], [], {}
    policies: set[str] = set()
    mixed = False  # some variant seats several policies
    for var in arms:
        sv = seats.read(RESULT_SEATS, [var])
        g = games.read(("variant", "rounds", "end"), [var])
        win[var] = stats.win_rates(sv, ("variant", "policy"))
        score[var] = stats.mean_values(sv, ("variant", "policy"), "score")
        mixed = mixed or sv["policy"].nunique() > 1
        policies.update(pd.unique(sv["policy"]))
        so = stats.seat_order(sv)
        so.insert(0, "variant", var)
        order_all.append(so)
        rounds = stats.mean_interval(g["rounds"].to_numpy())
        won = sv.groupby("game_id")["won"].sum()  # per game: 0 when nobody won
        summaries.append({
            "variant": var, "summary": stats.summary(sv["score"]), "rounds": rounds,
            "cap": int((g["end"] == "turn_cap").sum()),
            "no_winner": stats.wilson(float((won <= 0).sum()), len(won)),
            "any_no_winner": bool((won <= 0).any()),
            "death": stats.wilson(float(sv["died"].sum()), len(sv)) if "died" in sv else None})
        scores[var] = sv["score"].to_numpy()
        del sv, g, won
    out: dict[str, Any] = {}
    doc.h("Win rates")
    by_policy = pd.concat([win[v] for v in sorted(arms)], ignore_index=True)
    by_score = pd.concat([score[v] for v in sorted(arms)], ignore_index=True)
    tab = by_policy.merge(by_score, on=["variant", "policy"], suffixes=("", "_score"))
    if mixed:
        doc.p("Win share per seat-game (a k-way tie for first counts 1/k) with 95% Wilson "
              "intervals; mean final score with 95% t intervals.")
        doc.table(pd.DataFrame({
            "variant": tab["variant"], "policy": tab["policy"], "seat-games": tab["n"],
            "win rate": [pct(r, lo, hi) for r, lo, hi in zip(tab["rate"], tab["lo"], tab["hi"])],
            "mean score": [num(m, lo, hi) for m, lo, hi in
                           zip(tab["mean"], tab["lo_score"], tab["hi_score"])],
        }))
        doc.chart("win_rate_by_policy.png", "Win rate by policy (error bars: 95% Wilson).",
                  lambda ax: charts.plot_win_rates(ax, by_policy, "policy", 1 / players))
    else:
        doc.p("Every seat of a variant plays the same policy, so a win rate by policy is 1/"
              f"{players} by construction and is not shown; see the start positions below.")
    out["win_rate_by_policy"] = rows_of(by_policy)
    out["score_by_policy"] = rows_of(by_score)

    doc.h("Turn order")
    order = pd.concat(order_all, ignore_index=True)
    rows = [{"variant": r.variant, "start position": r.position,
             "win rate": pct(r.rate, r.lo, r.hi),
             "mean score": num(r.score, r.score_lo, r.score_hi)} for r in order.itertuples()]
    doc.p("Seats by their position in the turn order at the start of the game (0 = the start "
          f"player, 1 = next …). A fair position wins {100 / players:.1f} % of games."
          + (" Policies rotate over the seats, so each seat sees each policy equally often."
             if len(policies) > 1 else ""))
    doc.table(pd.DataFrame(rows))
    doc.chart("win_rate_by_position.png", "Win rate by start position (error bars: 95% Wilson).",
              lambda ax: charts.plot_win_rates(ax, order, "position", 1 / players))
    out["seat_order"] = rows_of(order)

    doc.h("Scores and game length")
    srows = []
    show_no_winner = "died" in seats or any(s["any_no_winner"] for s in summaries)
    for s in summaries:
        rounds = s["rounds"]
        row = {"variant": s["variant"], **{k: round(v, 2) for k, v in s["summary"].items()},
               "rounds": num(rounds.estimate, rounds.lo, rounds.hi), "turn-cap ends": s["cap"]}
        if show_no_winner:
            row["no winner"] = pct(*iv_tuple(s["no_winner"]))
        if s["death"] is not None:
            row["death rate"] = pct(*iv_tuple(s["death"]))
        srows.append(row)
    dist = pd.DataFrame(srows)
    stat_cols = list(stats.summary([]))
    shown = dist.assign(**{c: [f"{v:.2f}" if not math.isnan(v) else "–" for v in dist[c]]
                           for c in stat_cols})  # one digit count for every statistic
    doc.p("Final score per seat-game [points]: mean, standard deviation and quantiles; mean "
          "rounds per game; games stopped by the turn cap instead of a normal end"
          + ("; share of games nobody won" if show_no_winner else "")
          + ("; death rate (share of seat-games whose player died)" if "died" in seats else "")
          + " (95% Wilson intervals).")
    doc.table(shown)
    doc.chart("score_histogram.png", "Final score distribution per variant.",
              lambda ax: charts.plot_score_histogram(ax, scores))
    out["scores"] = rows_of(dist)
    return out


VARIANT_SEATS = ("variant", "game_id", "seat", "policy", "score", "won")


def variants(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame) -> dict:
    """Paired differences of every variant against the base, on the same game seeds.

    Holds the base's rows and one variant's at a time (seats ``VARIANT_SEATS``).
    """
    seats = as_table(seats)
    arms = seats.variants()
    if len(arms) < 2:
        return {}
    doc.h("Variants against the base (paired on the same seeds)")
    doc.p("Each variant replays the base's games with the same seeds; the difference is taken "
          "game by game (variant − base) with a 95% t interval. `*` marks an interval that "
          "excludes 0. Win-rate differences are in percentage points (pp).")
    parts: dict[str, list[pd.DataFrame]] = {"won": [], "score_seat": [], "score_all": [],
                                            "policy": []}
    base = seats.read(VARIANT_SEATS, [BASE]) if BASE in arms else None
    policies = set() if base is None else set(pd.unique(base["policy"]))
    for var in arms:
        if var == BASE:
            continue
        v = seats.read(VARIANT_SEATS, [var])
        policies.update(pd.unique(v["policy"]))
        if base is not None:
            parts["won"].append(stats.pair_differences(base, v, var, "won", ("seat",)))
            parts["score_seat"].append(stats.pair_differences(base, v, var, "score", ("seat",)))
            parts["score_all"].append(stats.pair_differences(base, v, var, "score", ()))
            parts["policy"].append(stats.pair_differences(base, v, var, "won", ("policy",)))
        del v
    won, score_seat, score_all, pol = (
        concat(parts[k], ["variant", *by, *stats.DIFFERENCE_COLUMNS])
        for k, by in (("won", ["seat"]), ("score_seat", ["seat"]), ("score_all", []),
                      ("policy", ["policy"])))
    rows = []
    for (var, grp), (_, sgrp) in zip(won.groupby("variant", sort=False),
                                     score_seat.groupby("variant", sort=False)):
        for w, s in zip(grp.to_dict("records"), sgrp.to_dict("records")):
            rows.append({"variant": var, "seat": w["seat"],
                         "win rate base": f"{100 * w['base_mean']:.1f} %",
                         "win rate change": signed(w, 100, " pp", 1),
                         "score change": signed(s)})
    doc.table(pd.DataFrame(rows))
    doc.p("Mean final score over all seats, change per game: " + "; ".join(
        f"{r['variant']}: {signed(r)} points" for r in score_all.to_dict("records")) + ".")
    out = {"won_by_seat": rows_of(won), "score_by_seat": rows_of(score_seat),
           "score_all": rows_of(score_all)}
    if len(policies) > 1:
        doc.table(pd.DataFrame({"variant": pol["variant"], "policy": pol["policy"],
                                "win rate change": [signed(r, 100, " pp", 1)
                                                    for r in pol.to_dict("records")]}))
        out["won_by_policy"] = rows_of(pol)
    return out


def all_sections(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
                 players: int, game_sections: Sequence[StudySection] = (),
                 run: Mapping[str, Any] | None = None) -> dict:
    """Fill ``doc`` with the generic sections, then the game's own ``game_sections`` in order.

    ``games``, ``seats``: the record tables, as DataFrames or as ``Table`` objects on the run's
    Parquet files (``render``); each section reads the columns it needs from them, and the
    memory a section freed is handed back before the next one starts. ``run``: the run facts,
    handed to the game's sections. A game section's numbers go under its ``key``; one that
    returns ``None`` (it does not apply to these records) has no key.
    """
    games, seats = as_table(games), as_table(seats)
    arms = seats.variants()
    many = len(arms) > MANY_VARIANTS
    if many:
        # per-variant tables and charts of 64 arms are unreadable: the generic sections show the
        # first arm; the balance table (one row per arm) and the study sections cover them all
        first = arms[0]
        doc.p(f"{len(arms)} variants: the next two sections show the first (`{first}`) only; "
              "every variant is in the per-variant tables below and in `summary.json`.")
        out = {"results": results(doc, games.only([first]), seats.only([first]), players),
               "variants": {}}
    else:
        out = {"results": results(doc, games, seats, players)}
        release_memory()
        out["variants"] = variants(doc, games, seats)
    release_memory()
    replaced = many and any(s.replaces_balance is not None and s.replaces_balance(games)
                            for s in game_sections)
    if not replaced:  # else a game section shows each arm's balance
        out["balance"] = balance.section(doc, games, seats, players)
        release_memory()
    for section in game_sections:
        numbers = section.build(doc, games, seats, players, dict(run or {}))
        if numbers is not None:
            out[section.key] = numbers
        release_memory()
    return out


MANY_VARIANTS = 8  # above this, generic per-variant tables give way to one-row-per-arm tables
