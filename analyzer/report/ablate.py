"""The report section of ``analyzer ablate``: each item's value to the seat that used it most
(leave-one-out, paired on the base's games), ranked, with intervals and a correction over the
items."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import charts
from analyzer.report.document import BASE, CORRECTION_NAME, Doc, p_text, pct, rows_of, span
from analyzer.report.records import Table, as_table, glob_escape


def section(doc: Doc, run: dict, games: Table, seats: Table, players: int,
            item_kind: str = "item") -> dict[str, Any]:
    """The study section of an ablation (``analyzer.studies``): ``write`` of ``numbers``;
    returns the numbers for ``summary.json``."""
    study, seats = run.get("study") or {}, as_table(seats)
    found = numbers(study, seats)
    write(doc, found, study, item_kind, seats.read(("game_id",), [BASE])["game_id"].nunique())
    return found


def item_users(seats: Table | pd.DataFrame, usage: list[str], variant: str) -> pd.DataFrame:
    """Per base game, the seat(s) that used an item most and their paired outcomes.

    In each base game the seats with the largest ``sum(usage columns) > 0`` are the users (a
    tie shares the game: their outcomes are averaged). The same seats are followed into the
    same game of ``variant``.

    Returns
    -------
    DataFrame
        One row per game where the item was used: ``game_id, won_b, won_v, score_b, score_v,
        users`` (``users`` = how many seats tied as the heaviest user; their outcomes are
        averaged).
    """
    seats = as_table(seats)
    outcome = ("game_id", "seat", "won", "score")
    base = seats.read((*outcome, *(glob_escape(c) for c in usage)), [BASE])
    base["use"] = base[usage].sum(axis=1)
    top = base.groupby("game_id")["use"].transform("max")
    users = base.loc[(base["use"] == top) & (top > 0), list(outcome)]
    del base, top
    other = seats.read(outcome, [variant])
    pair = users.merge(other, on=["game_id", "seat"], suffixes=("_b", "_v"))
    out = pair.groupby("game_id", as_index=False)[["won_b", "won_v", "score_b", "score_v"]].mean()
    out["users"] = pair.groupby("game_id")["seat"].size().to_numpy()
    return out


def _value(pair: pd.DataFrame, suffix: str) -> dict[str, float]:
    """The item's value to its users over the games of ``pair`` (``item_users``' rows), with
    − without, paired game by game: win rate (``value``, ``lo``, ``hi``, ``p_value``) and score
    (``score_*``), each key ending in ``suffix``; ``nan`` with fewer than 2 games."""
    keys = ("won_with", "won_without", "value", "lo", "hi", "p_value", "score_value",
            "score_lo", "score_hi")
    if len(pair) < 2:
        return {k + suffix: math.nan for k in keys}
    dw = stats.paired_difference(pair["won_v"], pair["won_b"], bounds=stats.SHARE_DIFFERENCE)
    ds = stats.paired_difference(pair["score_v"], pair["score_b"])
    values = (pair["won_b"].mean(), pair["won_v"].mean(), dw.mean, dw.lo, dw.hi, dw.p_value,
              ds.mean, ds.lo, ds.hi)
    return {k + suffix: v for k, v in zip(keys, values)}


def numbers(study: dict, seats: Table | pd.DataFrame) -> dict[str, Any]:
    """The leave-one-out numbers of ``study`` (``items``, ``correction``): ``correction`` and
    ``table``, a row per played item ranked by its value to the single heaviest user
    (``value_single``, then ``value``: ``_value``), each value column corrected over the items
    (``p_adjusted_single``, ``p_adjusted``); ``score_all`` (every seat's mean score, with −
    without, points), ``games_used``, ``games_single``, ``tied_share``, up to 3 ``examples``.
    Holds the base's rows and one item's variant at a time."""
    seats = as_table(seats)
    correction = study.get("correction", "holm")
    base = seats.read(("variant", "game_id", "score"), [BASE])
    arms = set(seats.variants())
    recs = []
    for it in study["items"]:
        var = it["variant"]
        if var not in arms:
            continue
        usage = [c for c in it.get("usage", []) if c in seats]
        all_score = stats.pair_differences(
            base, seats.read(("variant", "game_id", "score"), [var]), var, "score", ())
        pair = item_users(seats, usage, var)  # no games without a usage column
        single = pair[pair["users"] == 1]
        rec = {"item": it["item"], "replaced_by": it.get("replaced_by") or "(removed)",
               # with − without, like the value (variant_differences gives variant − base)
               "variant": var, "score_all": -float(all_score["diff"].iloc[0]),
               "games_used": len(pair), **_value(pair, ""), "games_single": len(single),
               "tied_share": float((pair["users"] > 1).mean()), **_value(single, "_single")}
        if len(pair) >= 2:
            # games that show the value's sign: the user did better with (or without) it
            moved = (pair["won_b"] > pair["won_v"] if rec["value"] >= 0
                     else pair["won_b"] < pair["won_v"])
            rec["examples"] = [int(g) for g in pair.loc[moved, "game_id"].head(3)]
        recs.append(rec)
    table = stats.correct(pd.DataFrame(recs), correction, p_column="p_value_single").rename(
        columns={"p_adjusted": "p_adjusted_single",
                 "significant_adjusted": "significant_adjusted_single"})
    table = stats.correct(table, correction)
    # the undiluted value (games with one heaviest user) ranks; the split-credit one follows
    table = table.sort_values(["value_single", "value"], ascending=False, na_position="last",
                              kind="stable")
    return {"correction": correction, "table": rows_of(table)}


def write(doc: Doc, n: dict[str, Any], study: dict, kind: str, n_games: int) -> None:
    """The "Value of each <kind>" section of the numbers ``n`` (``numbers``). ``kind``: an item
    in the game's words (``GameSpec.item_kind``); ``study``: its ``seats``, ``dropped_variants``
    and ``items``; ``n_games``: the base's games (not in ``summary.json``)."""
    table = pd.DataFrame(n["table"])
    doc.h(f"Value of each {kind} (leave-one-out)")
    seats_used = study.get("seats")
    if seats_used is not None:
        dropped = study.get("dropped_variants") or []
        doc.p(f"Seats (the base arm's, every variant): {', '.join(seats_used)}."
              + (f" The scenario's own variants ({', '.join(f'`{d}`' for d in dropped)}) are "
                 "**not used** by ablate: only the base arm is ablated, so sections below that "
                 "compare variants see the base and its leave-one-out variants only."
                 if dropped else ""))
    rows = [{"rank": i + 1, kind: r["item"], "replaced by": r["replaced_by"],
             "games used": f"{r['games_used']} of {n_games}",
             "tied games": pct(r["tied_share"], None, None),
             "win rate with → without (single user)":
                 pct(r["won_with_single"], None, None) + " → "
                 + pct(r["won_without_single"], None, None),
             "value, single user [pp]": span(100 * r["value_single"], 100 * r["lo_single"],
                                              100 * r["hi_single"], 1)
             + (" *" if r["significant_adjusted_single"] else ""),
             "score value, single user [points]": span(r["score_value_single"],
                                                        r["score_lo_single"],
                                                        r["score_hi_single"], 2),
             "value, all games (ties split) [pp]": span(100 * r["value"], 100 * r["lo"],
                                                         100 * r["hi"], 1)
             + (" *" if r["significant_adjusted"] else ""),
             "p adjusted (single; all)":
                 f"{p_text(r['p_adjusted_single'])}; {p_text(r['p_adjusted'])}",
             "significant": "yes" if r["significant_adjusted_single"] else "no",
             "all-seat score value [points]": f"{r['score_all']:+.2f}"}
            for i, r in enumerate(table.to_dict("records"))]
    doc.p(f"Each {kind} in play is taken out (as the game's rules replace it; column "
          f"“replaced by”) in a variant that replays the base's games on the same seeds. "
          f"In every base game the seat that used the {kind} most (largest usage count) is "
          f"followed into the same game without it. **Value** = win rate with − without for "
          f"that seat, in percentage points, with a 95% paired t interval over games (likewise "
          f"the score). When several seats tie as the heaviest user (column “tied games”: the "
          f"share of the games used), they share the game: their outcomes are averaged, and as "
          f"the tied seats' gains and losses largely cancel, those games pull the value toward "
          f"0. So the table ranks by the value over the games with a **single** heaviest user, "
          f"and shows the value over all games with ties split beside it. The seat is picked "
          f"from the base game, so the value is conditional on being the heaviest user there (a "
          f"selection effect: a seat that drew well used the {kind} more; games with a single "
          f"heaviest user are also a selection of games). `*` and `significant`: after "
          f"{CORRECTION_NAME[n['correction']]} correction over the {kind}s, each value column "
          f"its own family ({stats.family_size(table, p_column='p_value_single')} and "
          f"{stats.family_size(table)} tests). Every value column is **with − without** "
          f"(positive = the game goes better with the {kind}); the last is the mean final score "
          "over all seats, with − without.")
    if not any(it.get("usage") for it in study["items"]):
        doc.p(f"The records of this game have no per-seat usage column for its {kind}s, so no "
              "user can be picked; only the all-seat score change is shown.")
    doc.table(pd.DataFrame(rows))
    shown = table.dropna(subset=["value_single"])
    if len(shown):
        doc.chart("ablation.png", f"Value of each {kind} to its single heaviest user "
                                  "(win rate with − without, 95% intervals; games where "
                                  "several seats tie as heaviest user left out).",
                  lambda ax: plot_ablation(ax, shown, kind), size=(7.5, 0.6 + 0.45 * len(shown)
                                                                  if len(shown) > 6 else 4.0))


def plot_ablation(ax, table: pd.DataFrame, kind: str) -> None:
    """Horizontal bars: each item's value to its single heaviest user (win rate with − without,
    pp) with its interval; significant items (after correction) drawn dark."""
    t = table.iloc[::-1]
    y = np.arange(len(t))
    v = 100 * t["value_single"].to_numpy(float)
    err = charts.error_bars(v, 100 * t["lo_single"].to_numpy(float),
                            100 * t["hi_single"].to_numpy(float))
    colors = ["#1f4e79" if s else "#9dc3e6" for s in t["significant_adjusted_single"]]
    ax.barh(y, v, xerr=err, color=colors, capsize=3)
    ax.set_yticks(y, list(t["item"]))
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_xlabel("win rate with − without [percentage points]")
    ax.set_ylabel(kind)
    ax.set_title(f"Value of each {kind} to its single heaviest user (dark: significant)")
