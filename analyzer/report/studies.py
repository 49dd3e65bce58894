"""Report sections driven by run facts: first-player advantage (every report), the stopping
rule of a target-precision run, and the ``sweep`` and ``ablate`` studies.

``study_sections(doc, run, games, seats, players)`` reads ``summary.json["run"]`` (``study``,
``target_ci``) besides the records, so ``analyzer report DIR`` re-renders these sections too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from analyzer import stats
from analyzer.report import charts
from analyzer.report.document import BASE, Doc, num, pct, rows_of
from analyzer.report.records import Table, as_table, glob_escape, release_memory

CORRECTION_NAME = {"holm": "Holm (family-wise error 5 %)",
                   "bh": "Benjamini–Hochberg (false-discovery rate 5 %)"}


def study_sections(doc: Doc, run: dict, games: Table | pd.DataFrame,
                   seats: Table | pd.DataFrame, players: int,
                   item_kind: str = "item") -> dict[str, Any]:
    """Fill ``doc`` with the run-driven sections; returns their numbers for ``summary.json``.

    ``games``, ``seats``: the record tables (DataFrames or ``Table`` objects); each section reads
    the seat columns it uses, one variant at a time. ``item_kind``: what an ablation takes out,
    in the game's words (``GameSpec.item_kind``).
    """
    seats = as_table(seats)
    out: dict[str, Any] = {"first_player": first_player(doc, seats, players)}
    release_memory()
    if run.get("target_ci"):
        out["target_ci"] = target_precision(doc, run["target_ci"])
    study = run.get("study") or {}
    if study.get("kind") == "sweep":
        out["sweep"] = sweep_section(doc, study, seats, players, games)
    elif study.get("kind") == "ablate":
        out["ablate"] = ablate_section(doc, study, seats, item_kind)
    elif study.get("kind") == "compare":
        out["compare"] = compare_section(doc, study)
    release_memory()
    return out


def first_player(doc: Doc, seats: Table | pd.DataFrame, players: int) -> dict[str, Any]:
    """First-player advantage per variant: the start player's win rate against the fair share
    ``1/n``, and a chi-square test that all turn-order positions win equally often (a
    seat-order effect). Positions come from ``start_position`` (0 = start player) when the
    records have it, else from ``seat``.

    The z-test of the start player uses the fair share's variance ``p0 (1 − p0) / N`` (a tie's ``1/k``
    counts as a fractional win, so the test is approximate when ties are common).
    """
    doc.h("First-player advantage")
    fair = 1.0 / players
    seats = as_table(seats)
    key = "start_position" if "start_position" in seats else "seat"
    rows, recs = [], []
    for var in seats.variants():
        s = seats.read((key, "won"), [var])
        first = s[s[key] == 0]
        n = len(first)
        wins = float(first["won"].sum())
        iv = stats.wilson(wins, n)
        z = (iv.estimate - fair) / math.sqrt(fair * (1 - fair) / n) if n else math.nan
        p_first = float(2 * sps.norm.sf(abs(z))) if n else math.nan
        per_seat = s.groupby(key)["won"].sum().to_numpy(float)
        p_all = float(sps.chisquare(per_seat).pvalue) if per_seat.sum() > 0 else math.nan
        rows.append({"variant": var, "games": n,
                     "start player win rate": pct(iv.estimate, iv.lo, iv.hi),
                     "fair share": f"{100 * fair:.1f} %",
                     "advantage": f"{100 * (iv.estimate - fair):+.1f} pp "
                                  f"[{100 * (iv.lo - fair):+.1f}, {100 * (iv.hi - fair):+.1f}]",
                     "p (start player = fair)": _p(p_first),
                     "p (all positions equal)": _p(p_all)})
        recs.append({"variant": var, "games": n, "rate": iv.estimate, "lo": iv.lo, "hi": iv.hi,
                     "fair": fair, "p_first": p_first, "p_all_seats": p_all})
    doc.p(f"The start player's win rate against the fair share 1/{players} "
          "(95% Wilson interval; advantage = rate − fair share in percentage points), a z-test "
          "of the start player against the fair share and a chi-square test that all turn-order "
          "positions win equally often. Policies rotate over the seats, so a position effect is "
          "the game's, not a player's.")
    doc.table(pd.DataFrame(rows))
    return {"by_variant": recs}


def target_precision(doc: Doc, facts: dict) -> dict[str, Any]:
    """How a ``--target-ci`` run stopped: games needed and the widest interval reached."""
    doc.h("Stopping rule: target precision")
    steps = ", ".join(str(s) for s in facts.get("steps", []))
    if facts.get("reached"):
        verdict = (f"reached after **{facts['games']} games** per variant: every reported "
                   f"win-rate interval is within ±{100 * facts['half_width']:.2f} pp")
    else:
        verdict = (f"**not reached**: the run stopped at the cap of {facts['games']} games per "
                   f"variant with the widest interval ±{100 * facts['half_width']:.2f} pp")
    doc.p(f"Target: every win-rate interval (by variant and policy, by variant and seat; 95% "
          f"Wilson) within ±{100 * facts['target']:.2f} percentage points. The run added chunks "
          f"of games (totals after each round: {steps}) and {verdict}.")
    return dict(facts)


def compare_section(doc: Doc, study: dict) -> dict[str, Any]:
    """Which arm came from which scenario file of ``analyzer compare``."""
    doc.h("Compared scenarios")
    doc.p(f"Arms are named by scenario (`NAME`, `NAME/VARIANT`); `base` is the base arm of "
          f"the first scenario, `{study.get('reference', '?')}`, the reference of every paired "
          "difference.")
    doc.table(pd.DataFrame([{"scenario": sc["name"], "description": sc.get("description", ""),
                             "file": sc["file"], "arms": ", ".join(sc["arms"])}
                            for sc in study.get("scenarios", [])]))
    return dict(study)


def _p(p: float) -> str:
    return "–" if p is None or math.isnan(p) else (f"{p:.3f}" if p >= 0.001 else "< 0.001")


def _flags(table: pd.DataFrame, correction: str) -> pd.DataFrame:
    adj, sig = stats.adjust_pvalues(table["p_value"].to_numpy(float), correction)
    return table.assign(p_adjusted=adj, significant_adjusted=sig)


SWEEP_SEATS = ("variant", "game_id", "seat", "policy", "won")  # and the swept metric


def sweep_section(doc: Doc, study: dict, seats: Table | pd.DataFrame,
                  players: int, games: Table | pd.DataFrame | None = None) -> dict[str, Any]:
    """Metric against the swept value(s), per seat, with intervals and the paired change
    against the base (multiple-comparison corrected), and which values changed no decision
    (``same_games``; with ``games``, the game records are compared too).

    Holds the base's rows and one variant's at a time (``SWEEP_SEATS`` and the metric).
    """
    seats = as_table(seats)
    tables = [seats] if games is None else [as_table(games), seats]
    metric = study.get("metric", "won")
    correction = study.get("correction", "holm")
    params = study["params"]
    values = {r["variant"]: r["values"] for r in study["variants"]}
    doc.h(f"Sweep: {', '.join(params)}")
    if metric not in seats:
        doc.p(f"The seat records have no column `{metric}`; showing the win rate instead.")
        metric = "won"
    arms = [v for v in seats.variants() if v in values or v == BASE]
    # a sweep of some seats' parameters shows players (their names differ); else seats
    policies = seats.read(("variant", "policy"), arms)
    by = "policy" if policies.groupby("variant")["policy"].nunique().max() > 1 else "seat"
    del policies
    columns = (*SWEEP_SEATS, glob_escape(metric))
    base = seats.read(columns, [BASE]) if BASE in arms else None
    tabs, diffs = {}, []
    for var in arms:
        v = base if var == BASE else seats.read(columns, [var])
        tabs[var] = (stats.win_rates(v, ("variant", by)) if metric == "won"
                     else stats.mean_values(v, ("variant", by), metric))
        if var != BASE and base is not None:
            diffs.append(_paired_by(base, v, var, metric, by))
        del v
    del base
    tab = pd.concat([tabs[v] for v in sorted(arms)], ignore_index=True)
    if metric == "won":
        tab = tab.rename(columns={"rate": "value"})
        what, unit = "win rate", "share of games"
    else:
        tab = tab.rename(columns={"mean": "value"})
        what, unit = f"mean {metric}", "per seat-game"
    same = [v for v in arms if v != BASE and BASE in arms and same_games(tables, v)]
    diff = _flags(pd.concat(diffs, ignore_index=True) if diffs else pd.DataFrame(
        columns=["variant", by, *stats.DIFFERENCE_COLUMNS]), correction)
    tab = tab.merge(diff[["variant", by, "diff", "lo", "hi", "p_value", "p_adjusted",
                          "significant_adjusted"]].rename(columns={"lo": "d_lo", "hi": "d_hi"}),
                    on=["variant", by], how="left")
    scale, dunit = (100, " pp") if metric == "won" else (1, "")
    rows = []
    for r in tab.to_dict("records"):
        vals = values.get(r["variant"], {})
        row = {"variant": r["variant"], **{p: _show(vals.get(p, "(base)")) for p in params},
               by: r[by],
               what: (pct(r["value"], r["lo"], r["hi"]) if metric == "won"
                      else num(r["value"], r["lo"], r["hi"]))}
        if r["variant"] != BASE:
            row["change vs base"] = (f"{scale * r['diff']:+.2f}{dunit} "
                                     f"[{scale * r['d_lo']:+.2f}, {scale * r['d_hi']:+.2f}]")
            row["p adjusted"] = _p(r["p_adjusted"])
            row["significant"] = "yes" if r["significant_adjusted"] else "no"
            row["games vs base"] = ("identical to the base's: this value changed no decision"
                            if r["variant"] in same else "differ from the base's")
        else:
            row.update({"change vs base": "–", "p adjusted": "–", "significant": "–",
                        "games vs base": "–"})
        rows.append(row)
    doc.p(f"One variant per value{' combination' if len(params) > 1 else ''}, all on the base's "
          f"game seeds. {what.capitalize()} per {by} with 95% "
          f"{'Wilson' if metric == 'won' else 't'} intervals; change against the base is the "
          f"paired per-game difference (variant − base). Significance is flagged after "
          f"{CORRECTION_NAME[correction]} correction over the {len(diff)} comparisons of this "
          "table." + (" A player whose parameters the sweep changes is named with a `*`; its "
                      "change is against the same seat of the same base game." if by == "policy"
                      else ""))
    doc.table(pd.DataFrame(rows))
    if same:
        doc.p(", ".join(f"`{v}`" for v in same) + ": **"
              + ("this value" if len(same) == 1 else "each of these values")
              + " changed no decision**. "
              + ("Its games are" if len(same) == 1 else "Each one's games are")
              + " identical to the base's (every game and seat record equal, game for game), "
              "so the parameter did not act there on these seeds.")
    curve = tab[tab["variant"] != BASE].copy()
    doc.chart("sweep.png", f"{what.capitalize()} per {by} against {params[0]} (95% intervals).",
              lambda ax: plot_sweep(ax, curve, values, params, what, unit, players, metric, by),
              size=(7.5, 4.5))
    return {"metric": metric, "correction": correction, "table": rows_of(tab),
            "same_games": same}


SAME_SKIP = ("variant", "policy")  # the arm's name and a swept player's name (``greedy*``)
SAME_COLUMNS = 16  # columns compared at a time


def same_games(tables: Sequence[Table | pd.DataFrame], variant: str) -> bool:
    """Whether ``variant``'s records equal the base's game for game in every column but
    ``SAME_SKIP``: the same games, so the variant changed no decision (on these seeds).

    Reads ``SAME_COLUMNS`` columns of the two arms at a time; floats equal NaN to NaN.
    """
    for table in map(as_table, tables):
        cols = [glob_escape(c) for c in table.columns if c not in SAME_SKIP]
        for i in range(0, len(cols), SAME_COLUMNS):
            a = table.read(cols[i:i + SAME_COLUMNS], [BASE])
            b = table.read(cols[i:i + SAME_COLUMNS], [variant])
            if len(a) != len(b) or not all(_same_column(a[c], b[c]) for c in a.columns):
                return False
    return True


def _same_column(a: pd.Series, b: pd.Series) -> bool:
    x, y = a.to_numpy(), b.to_numpy()
    if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
        return bool(np.array_equal(x, y, equal_nan=x.dtype.kind == y.dtype.kind == "f"))
    return [str(v) for v in x] == [str(v) for v in y]


def _paired_by(base: pd.DataFrame, variant: pd.DataFrame, name: str, metric: str,
               by: str) -> pd.DataFrame:
    """Paired per-game differences (variant − base) per ``by`` group of one variant.

    Grouped by ``policy``, a base row takes the name of the variant's player at the same
    seat of the same game, so a renamed (swept) player is compared with its own seat.
    """
    if by == "seat":
        return stats.pair_differences(base, variant, name, metric, ("seat",))
    b = base.drop(columns="policy").merge(variant[["game_id", "seat", "policy"]],
                                          on=["game_id", "seat"])
    return stats.pair_differences(b, variant, name, metric, ("policy",))


def _show(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def plot_sweep(ax, tab: pd.DataFrame, values: dict, params: list[str], what: str, unit: str,
               players: int, metric: str, by: str = "seat") -> None:
    """One line per ``by`` group (and per combination of the other parameters) of
    ``tab["value"]`` against the first parameter, with interval error bars."""
    first = params[0]
    xs_raw = [values[v][first] for v in tab["variant"]]
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_raw)
    order = list(dict.fromkeys(_show(x) for x in xs_raw))
    tab = tab.assign(x=[float(x) if numeric else order.index(_show(x)) for x in xs_raw],
                     rest=[", ".join(f"{p}={_show(values[v][p])}" for p in params[1:])
                           for v in tab["variant"]])
    for (group, rest), grp in tab.groupby([by, "rest"], sort=True):
        grp = grp.sort_values("x")
        y = grp["value"].to_numpy(float)
        err = charts.error_bars(y, grp["lo"], grp["hi"])
        lab = (f"seat {group}" if by == "seat" else str(group)) + (f" ({rest})" if rest else "")
        ax.errorbar(grp["x"], y, yerr=err, marker="o", capsize=3, label=lab)
    if metric == "won":
        ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label="1 / players")
    if not numeric:
        ax.set_xticks(range(len(order)), order)
    ax.set_xlabel(first)
    ax.set_ylabel(f"{what} [{unit}]")
    ax.set_title(f"{what.capitalize()} per {by} against {first}")
    charts.legend(ax)


def item_users(seats: Table | pd.DataFrame, usage: list[str], variant: str) -> pd.DataFrame:
    """Per base game, the seat(s) that used an item most and their paired outcomes.

    In each base game the seats with the largest ``sum(usage columns) > 0`` are the users (a
    tie shares the game: their outcomes are averaged). The same seats are followed into the
    same game of ``variant``.

    Returns
    -------
    DataFrame
        One row per game where the item was used: ``game_id, won_b, won_v, score_b, score_v``.
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
    return pair.groupby("game_id", as_index=False)[["won_b", "won_v", "score_b", "score_v"]].mean()


def ablate_section(doc: Doc, study: dict, seats: Table | pd.DataFrame,
                   kind: str = "item") -> dict[str, Any]:
    """Ranked leave-one-out table: each item's value to the seat that used it most.

    ``kind``: what an item is in the game's words (``"building"``...). Holds the base's rows and
    one item's variant at a time.
    """
    seats = as_table(seats)
    correction = study.get("correction", "holm")
    doc.h(f"Value of each {kind} (leave-one-out)")
    seats_used = study.get("seats")
    if seats_used is not None:
        dropped = study.get("dropped_variants") or []
        doc.p(f"Seats (the base arm's, every variant): {', '.join(seats_used)}."
              + (f" The scenario's own variants ({', '.join(f'`{d}`' for d in dropped)}) are "
                 "**not used** by ablate: only the base arm is ablated, so sections below that "
                 "compare variants see the base and its leave-one-out variants only."
                 if dropped else ""))
    base = seats.read(("variant", "game_id", "score"), [BASE])
    n_games = int(len(base) / max(seats.read(("seat",))["seat"].nunique(), 1))
    arms = set(seats.variants())
    recs = []
    for it in study["items"]:
        var = it["variant"]
        if var not in arms:
            continue
        usage = [c for c in it.get("usage", []) if c in seats]
        all_score = stats.pair_differences(
            base, seats.read(("variant", "game_id", "score"), [var]), var, "score", ())
        rec = {"item": it["item"], "replaced_by": it.get("replaced_by") or "(removed)",
               # with − without, like the value (variant_differences gives variant − base)
               "variant": var, "score_all": -float(all_score["diff"].iloc[0]),
               "games_used": 0, "won_with": math.nan, "won_without": math.nan,
               "value": math.nan, "lo": math.nan, "hi": math.nan, "p_value": math.nan,
               "score_value": math.nan, "score_lo": math.nan, "score_hi": math.nan}
        if usage:
            pair = item_users(seats, usage, var)
            rec["games_used"] = len(pair)
            if len(pair) >= 2:
                dw = stats.paired_difference(pair["won_v"], pair["won_b"])  # with − without
                ds = stats.paired_difference(pair["score_v"], pair["score_b"])
                rec.update(won_with=pair["won_b"].mean(), won_without=pair["won_v"].mean(),
                           value=dw.mean, lo=dw.lo, hi=dw.hi, p_value=dw.p_value,
                           score_value=ds.mean, score_lo=ds.lo, score_hi=ds.hi)
        recs.append(rec)
    table = _flags(pd.DataFrame(recs), correction)
    table = table.sort_values("value", ascending=False, na_position="last", kind="stable")
    rows = [{"rank": i + 1, kind: r["item"], "replaced by": r["replaced_by"],
             "games used": f"{r['games_used']} of {n_games}",
             "win rate with": _pc(r["won_with"]), "win rate without": _pc(r["won_without"]),
             "value [pp]": _span(100 * r["value"], 100 * r["lo"], 100 * r["hi"], 1),
             "score value [points]": _span(r["score_value"], r["score_lo"], r["score_hi"], 2),
             "p adjusted": _p(r["p_adjusted"]),
             "significant": "yes" if r["significant_adjusted"] else "no",
             "all-seat score value [points]": f"{r['score_all']:+.2f}"}
            for i, r in enumerate(table.to_dict("records"))]
    doc.p(f"Each {kind} in play is taken out (as the game's rules replace it; column "
          f"“replaced by”) in a variant that replays the base's games on the same seeds. "
          f"In every base game the seat that used the {kind} most (largest usage count, ties "
          f"share the game) is followed into the same game without it. **Value** = win rate "
          f"with − without for that seat, in percentage points, with a 95% paired t interval "
          f"(likewise the score). The seat is picked from the base game, so the value is "
          f"conditional on being the heaviest user there (a selection effect: a seat that "
          f"drew well used the {kind} more). Significance after {CORRECTION_NAME[correction]} "
          f"correction over the {int(table['p_value'].notna().sum())} {kind}s. Every value column "
          f"is **with − without** (positive = the game goes better with the {kind}); the last "
          f"is the mean final score over all seats, with − without.")
    if not any(it.get("usage") for it in study["items"]):
        doc.p(f"The records of this game have no per-seat usage column for its {kind}s, so no "
              "user can be picked; only the all-seat score change is shown.")
    doc.table(pd.DataFrame(rows))
    shown = table.dropna(subset=["value"])
    if len(shown):
        doc.chart("ablation.png", f"Value of each {kind} to the seat that used it most "
                                  "(win rate with − without, 95% intervals).",
                  lambda ax: plot_ablation(ax, shown, kind), size=(7.5, 0.6 + 0.45 * len(shown)
                                                                  if len(shown) > 6 else 4.0))
    return {"correction": correction, "table": rows_of(table)}


def _pc(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.1f} %"


def _span(m: float, lo: float, hi: float, digits: int) -> str:
    if m is None or math.isnan(m):
        return "–"
    return f"{m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def plot_ablation(ax, table: pd.DataFrame, kind: str) -> None:
    """Horizontal bars: each item's value (win rate with − without, pp) with its interval;
    significant items (after correction) drawn dark."""
    t = table.iloc[::-1]
    y = np.arange(len(t))
    v = 100 * t["value"].to_numpy(float)
    err = charts.error_bars(v, 100 * t["lo"].to_numpy(float), 100 * t["hi"].to_numpy(float))
    colors = ["#1f4e79" if s else "#9dc3e6" for s in t["significant_adjusted"]]
    ax.barh(y, v, xerr=err, color=colors, capsize=3)
    ax.set_yticks(y, list(t["item"]))
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_xlabel("win rate with − without [percentage points]")
    ax.set_ylabel(kind)
    ax.set_title(f"Value of each {kind} to its heaviest user (dark: significant)")
