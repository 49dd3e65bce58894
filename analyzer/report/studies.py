"""Report sections driven by run facts: first-player advantage (every report), the stopping
rule of a target-precision run, and the ``sweep`` and ``ablate`` studies.

``study_sections(doc, run, games, seats, players)`` reads ``summary.json["run"]`` (``study``,
``target_ci``) besides the records, so ``analyzer report DIR`` re-renders these sections too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from analyzer import stats
from analyzer.report import balance, charts, design
from analyzer.report import players as players_mod
from analyzer.report.document import (
    BASE,
    CORRECTION_NAME,
    Doc,
    correction_of,
    num,
    pct,
    rows_of,
    signed,
)
from analyzer.report.records import Table, as_table, glob_escape, release_memory


def study_sections(doc: Doc, run: dict, games: Table | pd.DataFrame,
                   seats: Table | pd.DataFrame, players: int,
                   item_kind: str = "item") -> dict[str, Any]:
    """Fill ``doc`` with the run-driven sections; returns their numbers for ``summary.json``.

    ``games``, ``seats``: the record tables (DataFrames or ``Table`` objects); each section reads
    the seat columns it uses, one variant at a time. ``item_kind``: what an ablation takes out,
    in the game's words (``GameSpec.item_kind``).
    """
    seats = as_table(seats)
    correction = correction_of(run)
    out: dict[str, Any] = {"first_player": first_player(doc, seats, players, run, correction)}
    release_memory()
    if run.get("target_ci"):
        out["target_ci"] = target_precision(doc, run["target_ci"], seats)
    study = run.get("study") or {}
    if study.get("kind") == "sweep":
        arm_counts = players_mod.counts(games)
        paired = players_mod.paired_arms(arm_counts)
        if len(paired) < len(arm_counts):  # other player counts: the players section has them
            games, seats = as_table(games).only(paired), seats.only(paired)
        out["sweep"] = sweep_section(doc, study, seats, players, games, run)
        if len(paired) < len(arm_counts):
            doc.p(f"This table shows the {len(paired)} arm{'s' if len(paired) != 1 else ''} of "
                  f"{arm_counts[players_mod.reference(arm_counts)]} players, paired with the "
                  "base; the arms of other player counts are compared in the section on player "
                  "counts, paired by game seed on game-level outcomes.")
    elif study.get("kind") == "ablate":
        out["ablate"] = ablate_section(doc, study, seats, item_kind)
    elif study.get("kind") == "compare":
        out["compare"] = compare_section(doc, study)
    release_memory()
    return out


def first_player(doc: Doc, seats: Table | pd.DataFrame, players: int,
                 run: dict | None = None, correction: str = "holm") -> dict[str, Any]:
    """First-player advantage per variant: the start player's win rate against a fair
    position's, and a chi-square test that all turn-order positions win equally often (a
    seat-order effect). Positions come from ``start_position`` (0 = start player) when the
    records have it, else from ``seat``.

    A fair position wins ``(1 − q)/n`` of the games, ``q`` the share of games nobody won; the
    advantage is the mean over games of the start player's win share minus the game's fair share
    (``stats.start_player_advantage``: t interval, t-test against 0). Both tests are corrected
    over the variants (``correction``), each column its own family. With several policies, no
    seat rotation and a start player who never moves, position and policy are confounded: the
    tests are skipped and the report says so (``design.SeatDesign``).
    """
    doc.h("First-player advantage")
    seats = as_table(seats)
    key = "start_position" if "start_position" in seats else "seat"
    found = design.designs(seats, run)
    recs = []
    n_seats: dict[str, int] = {}  # each arm's player count
    for var in seats.variants():
        s = seats.read(("game_id", key, "won"), [var])
        if key == "seat":
            s = s.rename(columns={"seat": "start_position"})
        per = stats.start_player_games(s)
        n = len(per)
        iv = stats.wilson(float(per["start"].sum()), n)
        fair = float((per["total"] / per["seats"]).mean()) if n else math.nan
        no_winner = float((per["total"] <= 0).mean()) if n else math.nan
        adv = stats.start_player_advantage(s) if n else None
        per_seat = s.groupby("start_position")["won"].sum().to_numpy(float)
        confounded = found[var].position_confounded
        p_first = math.nan if confounded or adv is None else adv.p_value
        p_all = (float(sps.chisquare(per_seat).pvalue) if per_seat.sum() > 0 and not confounded
                 else math.nan)
        n_seats[var] = int(per["seats"].max()) if n else players
        recs.append({"variant": var, "games": n, "rate": iv.estimate, "lo": iv.lo, "hi": iv.hi,
                     "fair": fair, "p_first": p_first, "p_all_seats": p_all,
                     "no_winner": no_winner,
                     "advantage": adv.mean if adv else math.nan,
                     "advantage_lo": adv.lo if adv else math.nan,
                     "advantage_hi": adv.hi if adv else math.nan,
                     "position_test": "skipped: policy and position confounded" if confounded
                     else "done"})
    table = pd.DataFrame(recs)
    table = stats.correct(table, correction, p_column="p_first").rename(
        columns={"p_adjusted": "p_first_adjusted", "significant_adjusted": "first_significant"})
    table = stats.correct(table, correction, p_column="p_all_seats").rename(
        columns={"p_adjusted": "p_all_adjusted", "significant_adjusted": "all_significant"})
    rows = []
    n, n_note = players_mod.fair_share_n(n_seats)
    for r in table.to_dict("records"):
        skipped = r["position_test"] != "done"
        rows.append({"variant": r["variant"],
                     **({"players": n_seats[r["variant"]]} if n_note else {}),
                     "games": r["games"],
                     "start player win rate": pct(r["rate"], r["lo"], r["hi"]),
                     "fair share": f"{100 * r['fair']:.1f} %",
                     "advantage": "– (confounded)" if skipped else
                     _span(100 * r["advantage"], 100 * r["advantage_lo"],
                           100 * r["advantage_hi"], 1, " pp"),
                     "p (start player = fair)": _p_flag(r["p_first_adjusted"],
                                                        r["first_significant"]),
                     "p (all positions equal)": _p_flag(r["p_all_adjusted"],
                                                        r["all_significant"])})
    any_no_winner = bool((table["no_winner"] > 0).any()) if len(table) else False
    fam = CORRECTION_NAME[correction]
    n_first = stats.family_size(table, p_column="p_first")
    n_all = stats.family_size(table, p_column="p_all_seats")
    doc.p(f"The start player's win rate (95% Wilson interval over games) against the share a "
          f"fair position wins, (1 − q)/{n}"
          + (", q = the share of games nobody won (a game without a winner is a loss for every "
             "position, so it counts against no one)" if any_no_winner else
             " with q = 0 here: every game has a winner")
          + (f"; {n_note} (column `players`)" if n_note else "")
          + ". **Advantage** = the mean over games of the start player's win share minus the "
          "game's fair share, in percentage points with a 95% t interval over games; "
          "`p (start player = fair)` is a t-test of advantage = 0, `p (all positions equal)` a "
          "chi-square test that every turn-order position wins equally often. p-values after "
          f"{fam} correction over the variants, each column its own family ({n_first} and "
          f"{n_all} tests); `*` = significant after correction. "
          + _position_sentence(found))
    doc.table(pd.DataFrame(rows))
    return {"correction": correction, "by_variant": rows_of(table)}


def _position_sentence(found: dict[str, design.SeatDesign]) -> str:
    """Why a position effect is (or is not) the game's, from the arms' seat layouts."""
    confounded = [v for v, d in found.items() if d.position_confounded]
    if confounded:
        names = ", ".join(f"`{v}`" for v in confounded[:5]) + (" …" if len(confounded) > 5 else "")
        return ("Seat rotation is off and the start player never moves, so each policy always "
                "plays from the same turn-order position: position and policy are confounded, "
                f"and the position tests are skipped for {names}.")
    if not any(d.mixed for d in found.values()):
        return "Every seat plays the same policy, so a position effect is the game's."
    if all(d.rotation for d in found.values()):
        return ("Policies rotate over the seats, so each policy plays each position equally "
                "often and a position effect is the game's, not a player's.")
    return ("Seat rotation is off, but the start player moves from game to game, so each "
            "policy reaches every position by chance (not equally often by design); a position "
            "effect is still the game's.")


def _p_flag(p: float, significant: bool) -> str:
    """An adjusted p-value with ``*`` when significant after correction."""
    return _p(p) + (" *" if significant else "")


def target_precision(doc: Doc, facts: dict, seats: Table | pd.DataFrame) -> dict[str, Any]:
    """How a ``--target-ci`` run stopped: games needed and the widest interval reached.

    The widest half-width is recomputed from the records over the intervals
    ``stats.HALF_WIDTH_COVERS`` names (one variant at a time), so the sentence covers exactly
    the intervals it names; the run-time value stays in ``half_width``.
    """
    doc.h("Stopping rule: target precision")
    seats = as_table(seats)
    cols = ("variant", "game_id", "policy", "seat", "start_position", "won")
    widest = max((stats.max_win_rate_half_width(seats.read(cols, [v]))
                  for v in seats.variants()), default=math.nan)
    covers = ", ".join(stats.HALF_WIDTH_COVERS)
    steps = ", ".join(str(s) for s in facts.get("steps", []))
    if facts.get("reached") and widest <= facts["target"] + 1e-12:
        verdict = (f"reached after **{facts['games']} games** per variant: every win-rate "
                   f"interval {covers} is within ±{100 * widest:.2f} pp")
    elif facts.get("reached"):  # a run whose stopping rule checked fewer intervals
        verdict = (f"stopped after **{facts['games']} games** per variant, when the intervals "
                   f"its stopping rule checked were within ±{100 * facts['half_width']:.2f} pp; "
                   f"the widest of the intervals named here is ±{100 * widest:.2f} pp, **above** "
                   "the target")
    else:
        verdict = (f"**not reached**: the run stopped at the cap of {facts['games']} games per "
                   f"variant with the widest of these intervals ±{100 * widest:.2f} pp")
    doc.p(f"Target: every win-rate interval {covers} (95% Wilson, games as the unit) within "
          f"±{100 * facts['target']:.2f} percentage points. The run added chunks of games "
          f"(totals after each round: {steps}) and {verdict}. Differences between two rates "
          "(the start-player advantage, paired changes) are not covered: their intervals are "
          "wider.")
    return {**facts, "half_width_report": widest, "covers": list(stats.HALF_WIDTH_COVERS)}


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


def _flags(table: pd.DataFrame, correction: str, by: str | None = None) -> pd.DataFrame:
    return stats.correct(table, correction, by)


SWEEP_SEATS = ("variant", "game_id", "seat", "policy", "won")  # and the swept metric


def sweep_section(doc: Doc, study: dict, seats: Table | pd.DataFrame, players: int,
                  games: Table | pd.DataFrame | None = None,
                  run: dict | None = None) -> dict[str, Any]:
    """Metric against the swept value(s), per seat or per player, with intervals and the paired
    change against the base (multiple-comparison corrected over the distinct tests), and which
    values changed no decision (``same_games``; with ``games``, the game records are compared too).

    When the metric is the win rate and every arm's seats are exchangeable (one policy at every
    seat and a moving start player: ``design.SeatDesign``), a seat's win rate cannot move, so
    the game-level outcomes are shown instead (``_sweep_game_level``); the per-seat numbers stay
    in ``summary.json``. Holds the base's rows and one variant's at a time (``SWEEP_SEATS`` and
    the metric).
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
    found = {v: d for v, d in design.designs(seats, run).items() if v in arms}
    # a sweep of some seats' parameters shows players (their names differ); else seats
    by = "policy" if any(d.mixed for d in found.values()) else "seat"
    columns = (*SWEEP_SEATS, glob_escape(metric))
    base = seats.read(columns, [BASE]) if BASE in arms else None
    tabs, diffs, fair = {}, [], {}
    for var in arms:
        v = base if var == BASE else seats.read(columns, [var])
        per = v.groupby("game_id")["won"]
        fair[var] = float((per.sum() / per.size()).mean())  # (1 − q)/n of this arm
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
        columns=["variant", by, *stats.DIFFERENCE_COLUMNS]), correction, by)
    n_tests = stats.family_size(diff, by)
    tab = tab.merge(diff[["variant", by, "base_mean", "diff", "lo", "hi", "p_value",
                          "p_adjusted", "significant_adjusted", "mirror_of"]]
                    .rename(columns={"lo": "d_lo", "hi": "d_hi"}),
                    on=["variant", by], how="left")
    result = {"metric": metric, "correction": correction, "table": rows_of(tab),
              "tests": n_tests, "same_games": same}
    if metric == "won" and by == "seat" and design.all_exchangeable(found) and games is not None:
        doc.p(design.exchangeable_reason(found) + " So the sweep is read from game-level "
              "outcomes; the per-seat win rates are in `summary.json` (`sweep.table`).")
        result["game_level"] = _sweep_game_level(doc, games, seats, arms, values, params,
                                                 correction)
        _no_decision_note(doc, same)
        return result
    scale, dunit = (100, " pp") if metric == "won" else (1, "")
    rows = []
    for r in tab.to_dict("records"):
        vals = values.get(r["variant"], {})
        row = {"variant": r["variant"], **{p: _show(vals.get(p, "(base)")) for p in params},
               by: r[by],
               what: (pct(r["value"], r["lo"], r["hi"]) if metric == "won"
                      else num(r["value"], r["lo"], r["hi"]))}
        if r["variant"] != BASE:
            base_value = r["base_mean"]
            row["base (same seats)"] = (f"{100 * base_value:.1f} %" if metric == "won"
                                        else f"{base_value:.2f}")
            row["change vs base"] = _span(scale * r["diff"], scale * r["d_lo"],
                                          scale * r["d_hi"], 2, dunit)
            twin = r["mirror_of"]
            row["p adjusted"] = _p(r["p_adjusted"]) + (
                f" (same test as {twin})" if isinstance(twin, str) or
                (twin is not None and not (isinstance(twin, float) and math.isnan(twin)))
                else "")
            row["significant"] = "yes" if r["significant_adjusted"] else "no"
            row["games vs base"] = ("identical to the base's: this value changed no decision"
                            if r["variant"] in same else "differ from the base's")
        else:
            row.update({"base (same seats)": "–", "change vs base": "–", "p adjusted": "–",
                        "significant": "–", "games vs base": "–"})
        rows.append(row)
    copies = int(diff["mirror_of"].notna().sum()) if len(diff) else 0
    doc.p(f"One variant per value{' combination' if len(params) > 1 else ''}, all on the base's "
          f"game seeds. {what.capitalize()} per {by} with 95% "
          f"{'Wilson' if metric == 'won' else 't'} intervals over games (a player at several "
          "seats of a game: cluster-robust, games as the unit); change against the base is the "
          "paired per-game difference (variant − base), measured from the base value of the "
          "same seats in the same games (column `base (same seats)`). Significance is flagged "
          f"after {CORRECTION_NAME[correction]} correction over the {n_tests} distinct tests of "
          "this table"
          + (f" ({copies} row{'s' if copies != 1 else ''} repeat another row's test exactly — "
             "e.g. what the other players lose of the swept player's gain when every game has a "
             "winner — and take its p-value)" if copies else "")
          + "." + (" A player whose parameters the sweep changes is named with a `*`; its "
                   "change is against the same seat of the same base game." if by == "policy"
                   else ""))
    doc.table(pd.DataFrame(rows))
    _no_decision_note(doc, same)
    curve = tab[tab["variant"] != BASE].copy()
    doc.chart("sweep.png", f"{what.capitalize()} per {by} against {params[0]} (95% intervals).",
              lambda ax: plot_sweep(ax, curve, values, params, what, unit, players, metric, by,
                                    fair),
              size=(7.5, 4.5))
    return result


def _no_decision_note(doc: Doc, same: list[str]) -> None:
    """Name the swept values whose games are identical to the base's (``same_games``)."""
    if same:
        doc.p(", ".join(f"`{v}`" for v in same) + ": **"
              + ("this value" if len(same) == 1 else "each of these values")
              + " changed no decision**. "
              + ("Its games are" if len(same) == 1 else "Each one's games are")
              + " identical to the base's (every game and seat record equal, game for game), "
              "so the parameter did not act there on these seeds.")


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


OUTCOME_LABELS = {"score": "mean score [points]", "start_adv": "start-player advantage [pp]",
                  "no_winner": "no winner", "death": "death rate",
                  "spread": "score spread [points]", "rounds": "rounds"}


def _sweep_game_level(doc: Doc, games: Table | pd.DataFrame, seats: Table, arms: list[str],
                      values: dict, params: list[str], correction: str) -> list[dict]:
    """The sweep read from game-level outcomes (``balance.arm_table``, ``balance.diff_table``):
    one row per value and outcome, the change against the base corrected over the values in
    each outcome."""
    games = as_table(games)
    seat_ids = balance.seat_numbers(seats)

    def arm_games(var: str) -> pd.DataFrame:
        return balance.arm_per_game(games.read(("variant", "game_id", "rounds"), [var]),
                                    seats.read(balance.BALANCE_SEATS, [var]), var, seat_ids)

    base = arm_games(BASE) if BASE in arms else None
    levels, diff_rows = [], []
    for var in sorted(arms):
        pg = base if var == BASE else arm_games(var)
        levels.append(balance.arm_table(pg))
        if base is not None and var != BASE:
            diff_rows += balance.arm_differences(base.set_index("game_id"),
                                              pg.set_index("game_id"), var)
        del pg
    levels = pd.concat(levels, ignore_index=True).set_index("variant")
    diffs = balance.correct_by_metric(pd.DataFrame(diff_rows, columns=balance.DIFF_COLUMNS),
                                      correction)
    outcomes = [m for m in OUTCOME_LABELS if m in levels]
    rows, recs = [], []
    for var in levels.index:
        for m in outcomes:
            sc = 1 if m in ("score", "spread", "rounds") else 100
            lv = levels.loc[var]
            rec = {"variant": var, "outcome": m, "value": lv[m], "lo": lv[f"{m}_lo"],
                   "hi": lv[f"{m}_hi"]}
            row = {"variant": var, **{p: _show(values.get(var, {}).get(p, "(base)"))
                                      for p in params},
                   "outcome": OUTCOME_LABELS[m],
                   "value": (pct(lv[m], lv[f"{m}_lo"], lv[f"{m}_hi"])
                             if m in ("no_winner", "death") else
                             _span(sc * lv[m], sc * lv[f"{m}_lo"], sc * lv[f"{m}_hi"], 1)
                             if m == "start_adv" else num(lv[m], lv[f"{m}_lo"], lv[f"{m}_hi"]))}
            d = diffs[(diffs["variant"] == var) & (diffs["metric"] == m)]
            if len(d):
                r = d.iloc[0].to_dict()
                row["change vs base"] = signed(r, sc, "" if sc == 1 else " pp",
                                               2 if sc == 1 else 1)
                row["p adjusted"] = _p(r["p_adjusted"])
                rec.update({k: r[k] for k in ("diff", "p_value", "p_adjusted",
                                              "significant_adjusted")})
                rec.update(d_lo=r["lo"], d_hi=r["hi"])
            else:
                row.update({"change vs base": "–", "p adjusted": "–"})
            rows.append(row)
            recs.append(rec)
    n_values = len([v for v in levels.index if v != BASE])
    doc.p("Game-level outcomes per value, all on the base's game seeds: mean final score of "
          "the game's seats, the start-player advantage (start player's win share − a fair "
          "position's (1 − q)/n, pp), the share of games nobody won, the death rate (when "
          "recorded), the score spread (best − worst) and the rounds per game; 95% intervals "
          "over games (t; Wilson for shares, the death rate at the effective number of games). "
          "Change against the base: paired per-game difference (variant − base, 95% t); `*` "
          f"after {CORRECTION_NAME[correction]} correction over the {n_values} value"
          f"{'s' if n_values != 1 else ''} of each outcome.")
    doc.table(pd.DataFrame(rows))
    curve = pd.DataFrame([r for r in recs if r["outcome"] == "score" and r["variant"] != BASE])
    if len(curve):
        doc.chart("sweep.png", f"Mean final score per game against {params[0]} (95% t "
                  "intervals; every seat's win rate is fixed by design, see the text).",
                  lambda ax: plot_sweep(ax, curve, values, params, "mean final score",
                                        "points per seat-game", 0, "score", "outcome"),
                  size=(7.5, 4.5))
    return recs


def _paired_by(base: pd.DataFrame, variant: pd.DataFrame, name: str, metric: str,
               by: str) -> pd.DataFrame:
    """Paired per-game differences (variant − base) per ``by`` group of one variant.

    Grouped by ``policy``, a base row takes the name of the variant's player at the same
    seat of the same game, so a renamed (swept) player is compared with its own seat; when two
    players' changes are the same test (``stats.mirrors``), the swept player's (``*``) is kept.
    """
    if by == "seat":
        return stats.pair_differences(base, variant, name, metric, ("seat",))
    b = base.drop(columns="policy").merge(variant[["game_id", "seat", "policy"]],
                                          on=["game_id", "seat"])
    swept = {(p,) for p in pd.unique(variant["policy"]) if str(p).endswith("*")}
    return stats.pair_differences(b, variant, name, metric, ("policy",), prefer=swept)


def _show(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def plot_sweep(ax, tab: pd.DataFrame, values: dict, params: list[str], what: str, unit: str,
               players: int, metric: str, by: str = "seat",
               fair: Mapping[str, float] | None = None) -> None:
    """One line per ``by`` group (and per combination of the other parameters) of
    ``tab["value"]`` against the first parameter, with interval error bars.

    For the win rate, a dashed line at the share a fair seat wins, ``(1 − q)/n`` per variant
    (``fair``; ``q`` = its share of games nobody won, which the swept value may move), averaged
    over the other parameters at each value; ``1/players`` when ``fair`` is not given."""
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
        if fair:
            line = (tab.drop_duplicates("variant").assign(f=lambda t: t["variant"].map(fair))
                    .groupby("x")["f"].mean().sort_index())
            ax.plot(line.index, line.to_numpy(float), color="grey", linestyle="--",
                    linewidth=1, label="fair share (1 − q)/n")
        else:
            ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1,
                       label="1 / players")
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
               "score_value": math.nan, "score_lo": math.nan, "score_hi": math.nan,
               "games_single": 0, "tied_share": math.nan, "won_with_single": math.nan,
               "won_without_single": math.nan, "value_single": math.nan, "lo_single": math.nan,
               "hi_single": math.nan, "p_value_single": math.nan,
               "score_value_single": math.nan, "score_lo_single": math.nan,
               "score_hi_single": math.nan}
        if usage:
            pair = item_users(seats, usage, var)
            rec["games_used"] = len(pair)
            if len(pair):
                rec["tied_share"] = float((pair["users"] > 1).mean())
            if len(pair) >= 2:
                dw = stats.paired_difference(pair["won_v"], pair["won_b"])  # with − without
                ds = stats.paired_difference(pair["score_v"], pair["score_b"])
                rec.update(won_with=pair["won_b"].mean(), won_without=pair["won_v"].mean(),
                           value=dw.mean, lo=dw.lo, hi=dw.hi, p_value=dw.p_value,
                           score_value=ds.mean, score_lo=ds.lo, score_hi=ds.hi)
                # games that show the value's sign: the user did better with (or without) it
                moved = pair["won_b"] > pair["won_v"] if dw.mean >= 0 else pair["won_b"] < pair["won_v"]
                rec["examples"] = [int(g) for g in pair.loc[moved, "game_id"].head(3)]
            single = pair[pair["users"] == 1]
            rec["games_single"] = len(single)
            if len(single) >= 2:
                dw = stats.paired_difference(single["won_v"], single["won_b"])
                ds = stats.paired_difference(single["score_v"], single["score_b"])
                rec.update(won_with_single=single["won_b"].mean(),
                           won_without_single=single["won_v"].mean(), value_single=dw.mean,
                           lo_single=dw.lo, hi_single=dw.hi, p_value_single=dw.p_value,
                           score_value_single=ds.mean, score_lo_single=ds.lo,
                           score_hi_single=ds.hi)
        recs.append(rec)
    table = stats.correct(pd.DataFrame(recs), correction, p_column="p_value_single").rename(
        columns={"p_adjusted": "p_adjusted_single",
                 "significant_adjusted": "significant_adjusted_single"})
    table = _flags(table, correction)
    # the undiluted value (games with one heaviest user) ranks; the split-credit one follows
    table = table.sort_values(["value_single", "value"], ascending=False, na_position="last",
                              kind="stable")
    n_single = stats.family_size(table, p_column="p_value_single")
    n_split = stats.family_size(table)
    rows = [{"rank": i + 1, kind: r["item"], "replaced by": r["replaced_by"],
             "games used": f"{r['games_used']} of {n_games}",
             "tied games": _pc(r["tied_share"]),
             "win rate with → without (single user)":
                 f"{_pc(r['won_with_single'])} → {_pc(r['won_without_single'])}",
             "value, single user [pp]": _span(100 * r["value_single"], 100 * r["lo_single"],
                                              100 * r["hi_single"], 1)
             + (" *" if r["significant_adjusted_single"] else ""),
             "score value, single user [points]": _span(r["score_value_single"],
                                                        r["score_lo_single"],
                                                        r["score_hi_single"], 2),
             "value, all games (ties split) [pp]": _span(100 * r["value"], 100 * r["lo"],
                                                         100 * r["hi"], 1)
             + (" *" if r["significant_adjusted"] else ""),
             "p adjusted (single; all)": f"{_p(r['p_adjusted_single'])}; {_p(r['p_adjusted'])}",
             "significant": "yes" if r["significant_adjusted_single"] else "no",
             "all-seat score value [points]": f"{r['score_all']:+.2f}"}
            for i, r in enumerate(table.to_dict("records"))]
    fam = CORRECTION_NAME[correction]
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
          f"heaviest user are also a selection of games). `*` and `significant`: after {fam} "
          f"correction over the {kind}s, each value column its own family ({n_single} and "
          f"{n_split} tests). Every value column is **with − without** (positive = the game "
          f"goes better with the {kind}); the last is the mean final score over all seats, "
          f"with − without.")
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
    return {"correction": correction, "table": rows_of(table)}


def _pc(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.1f} %"


def _span(m: float, lo: float, hi: float, digits: int, unit: str = "") -> str:
    if m is None or math.isnan(m):
        return "–"
    if lo == hi == m:  # no spread over the games: the same in every game
        return f"{m:+.{digits}f}{unit} (same in every game)"
    return f"{m:+.{digits}f}{unit} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


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
