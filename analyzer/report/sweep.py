"""The report section of ``analyzer sweep``: the metric against the swept value(s), per seat or
per player, with the paired change against the base (corrected over the distinct tests), the
values that changed no decision and, when every seat is exchangeable, the game-level outcomes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import balance, charts, design, units
from analyzer.report import players as players_mod
from analyzer.report.document import (
    BASE,
    CORRECTION_NAME,
    Doc,
    concat,
    num,
    p_text,
    pct,
    rows_of,
    signed,
    span,
)
from analyzer.report.records import Table, as_table, glob_escape
from analyzer.report.units import SHARE

SWEEP_SEATS = ("variant", "game_id", "seat", "policy", "won")  # and the swept metric


def section(doc: Doc, run: dict, games: Table, seats: Table, players: int,
            item_kind: str = "item") -> dict[str, Any]:
    """The study section of a sweep (``analyzer.studies``): ``write`` of ``numbers``; returns
    the numbers for ``summary.json``."""
    study = run.get("study") or {}
    found = numbers(study, seats, games, run)
    write(doc, found, study, players_mod.counts(games))
    return found


def numbers(study: dict, seats: Table | pd.DataFrame, games: Table | pd.DataFrame | None = None,
            run: dict | None = None) -> dict[str, Any]:
    """The sweep's numbers over the arms of the base's player count (other counts: the section
    on player counts). ``metric`` (``won`` when the seat records lack the study's), ``tests``
    (the distinct tests corrected over), ``same_games`` (``same_games``; with ``games`` the
    game records too) and ``table``: per variant and seat (player, when an arm mixes policies)
    the metric with its 95 % interval and the paired change against the base (``base_mean``,
    ``diff``, ``d_lo``, ``d_hi``, ``p_adjusted``, ``mirror_of``...). With ``games``:
    ``game_level`` (``_game_level``) when the metric is the win rate and every arm's seats are
    exchangeable (``design.SeatDesign``: a seat's win rate cannot move), ``players_curve``
    (``_player_curve``) for a sweep of the player count. Holds the base's rows and one
    variant's at a time (``SWEEP_SEATS`` and the metric).
    """
    seats = as_table(seats)
    arm_counts = players_mod.counts(games) if games is not None else {}
    paired = players_mod.paired_arms(arm_counts)
    all_games, all_seats = games, seats
    if len(paired) < len(arm_counts):  # other player counts: the players section has them
        games, seats = as_table(games).only(paired), seats.only(paired)
    metric = study.get("metric", "won") if study.get("metric", "won") in seats else "won"
    correction = study.get("correction", "holm")
    arms = seats.variants()  # the base and one arm per value (combination) of the study
    found = design.designs(seats, run)
    # a sweep of some seats' parameters shows players (their names differ); else seats
    by = "policy" if any(d.mixed for d in found.values()) else "seat"
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
    tables = [seats] if games is None else [as_table(games), seats]
    same = [v for v in arms if v != BASE and BASE in arms and same_games(tables, v)]
    diff = stats.correct(concat(diffs, ["variant", by, *stats.DIFFERENCE_COLUMNS]), correction, by)
    tab = pd.concat([tabs[v] for v in sorted(arms)], ignore_index=True).rename(
        columns={"rate": "value", "mean": "value"}).merge(
        diff[["variant", by, "base_mean", "diff", "lo", "hi", "p_value", "p_adjusted",
              "significant_adjusted", "mirror_of"]].rename(columns={"lo": "d_lo", "hi": "d_hi"}),
        on=["variant", by], how="left")
    out = {"metric": metric, "correction": correction, "table": rows_of(tab),
           "value_unit": SHARE if metric == "won" else units.of_column(metric),
           "tests": stats.family_size(diff, by), "same_games": same}
    if metric == "won" and by == "seat" and design.all_exchangeable(found) and games is not None:
        out["game_level"] = _game_level(games, seats, correction)
    if len(paired) < len(arm_counts) and study.get("params") == ["players"]:
        out["players_curve"] = _player_curve(all_games, all_seats, arm_counts)
    return out


def write(doc: Doc, n: Mapping[str, Any], study: dict,
          arm_counts: Mapping[str, int] | None = None) -> None:
    """The "Sweep" section of the numbers ``n`` (``numbers``) of ``study`` (its ``params``,
    ``variants``, ``metric``, ``replayed``): tables, sentences and charts. ``arm_counts``: each
    arm's player count (``players.counts``; not in ``summary.json``) for the table's arms."""
    params = study["params"]
    values = {r["variant"]: r["values"] for r in study["variants"]}
    doc.h(f"Sweep: {', '.join(params)}")
    if n["metric"] != study.get("metric", "won"):
        doc.p(f"The seat records have no column `{study['metric']}`; showing the win rate "
              "instead.")
    if "game_level" in n:  # by seat: no arm mixes policies
        doc.p(design.exchangeable_reason({}) + " So the sweep is read from game-level "
              "outcomes; the per-seat win rates are in `summary.json` (`sweep.table`).")
        _write_game_level(doc, n, values, params)
        _notes(doc, n["same_games"], study)
    else:
        _write_table(doc, n, values, params, study)
    arm_counts = arm_counts or {}
    paired = players_mod.paired_arms(arm_counts)
    if len(paired) < len(arm_counts):
        doc.p(f"This table shows the {len(paired)} arm{'s' if len(paired) != 1 else ''} of "
              f"{arm_counts[players_mod.reference(arm_counts)]} players, paired with the "
              "base; the arms of other player counts are compared in the section on player "
              "counts, paired by game seed on game-level outcomes.")
        if "players_curve" in n:
            _write_player_curve(doc, n["players_curve"])


def _write_table(doc: Doc, n: Mapping[str, Any], values: dict, params: list[str],
                 study: dict) -> None:
    """The per-seat (or per-player) table of ``write``, its notes and chart."""
    tab, metric, same = pd.DataFrame(n["table"]), n["metric"], n["same_games"]
    by = "policy" if "policy" in tab else "seat"
    what, unit, scale, dunit = (("win rate", "share of games", 100, " pp") if metric == "won"
                                else (f"mean {metric}", "per seat-game", 1, ""))
    rows = []
    for r in tab.to_dict("records"):
        vals = values.get(r["variant"], {})
        row = {"variant": r["variant"], **{p: str(vals.get(p, "(base)")) for p in params},
               by: r[by], what: (pct if metric == "won" else num)(r["value"], r["lo"], r["hi"]),
               **dict.fromkeys(("base (same seats)", "change vs base", "p adjusted",
                                "significant", "games vs base"), "–")}
        if r["variant"] != BASE:
            row["base (same seats)"] = (f"{100 * r['base_mean']:.1f} %" if metric == "won"
                                        else f"{r['base_mean']:.2f}")
            row["change vs base"] = span(scale * r["diff"], scale * r["d_lo"],
                                          scale * r["d_hi"], 2, dunit)
            twin = r["mirror_of"]
            row["p adjusted"] = p_text(r["p_adjusted"]) + (
                f" (same test as {twin})" if pd.notna(twin) else "")
            row["significant"] = "yes" if r["significant_adjusted"] else "no"
            row["games vs base"] = ("identical to the base's: this value changed no decision"
                            if r["variant"] in same else "differ from the base's")
        rows.append(row)
    copies = int(tab["mirror_of"].notna().sum()) if len(tab) else 0
    doc.p(f"One variant per value{' combination' if len(params) > 1 else ''}, all on the base's "
          f"game seeds. {what.capitalize()} per {by} with 95% "
          f"{'Wilson' if metric == 'won' else 't'} intervals over games (a player at several "
          "seats of a game: cluster-robust, games as the unit); change against the base is the "
          "paired per-game difference (variant − base), measured from the base value of the "
          "same seats in the same games (column `base (same seats)`). Significance is flagged "
          f"after {CORRECTION_NAME[n['correction']]} correction over the {n['tests']} distinct "
          "tests of this table"
          + (f" ({copies} row{'s' if copies != 1 else ''} repeat another row's test exactly — "
             "e.g. what the other players lose of the swept player's gain when every game has a "
             "winner — and take its p-value)" if copies else "")
          + "." + (" A player whose parameters the sweep changes is named with a `*`; its "
                   "change is against the same seat of the same base game." if by == "policy"
                   else ""))
    doc.table(pd.DataFrame(rows))
    _notes(doc, same, study)
    curve = tab[tab["variant"] != BASE].copy()
    if curve.empty:  # no value other than the base's at this player count: nothing to draw
        return
    doc.chart("sweep.png", f"{what.capitalize()} per {by} against {params[0]} (95% intervals).",
              lambda ax: plot_sweep(ax, curve, values, params, what, unit, metric, by),
              size=(7.5, 4.5))


def _player_curve(games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
                  arm_counts: Mapping[str, int]) -> list[dict[str, Any]]:
    """A sweep of the player count: the start player's advantage (over a fair position of its
    own table) and the mean final score against the player count, one point per arm with its
    95 % interval over games (``balance.arm_table``), the base's count included."""
    games, seats = as_table(games), as_table(seats)
    rows = []
    for var, n in sorted(arm_counts.items(), key=lambda kv: kv[1]):  # seats 0..n-1 each game
        t = balance.arm_table(balance.per_game_of(games, seats, var, range(n))).iloc[0]
        rows.append({"variant": var, "players": n,
                     **{k: float(t[k]) for k in ("start_adv", "start_adv_lo", "start_adv_hi",
                                                 "score", "score_lo", "score_hi") if k in t}})
    return rows


def _write_player_curve(doc: Doc, rows: list[dict[str, Any]]) -> None:
    """The two charts of ``_player_curve``'s rows (none with fewer than 2 arms or no
    start-player advantage)."""
    if len(rows) < 2 or "start_adv" not in rows[0]:
        return

    def draw(ax, key: str, scale: float, label: str) -> None:
        x = [r["players"] for r in rows]
        y = [scale * r[key] for r in rows]
        err = charts.error_bars(np.asarray(y, float), [scale * r[f"{key}_lo"] for r in rows],
                                [scale * r[f"{key}_hi"] for r in rows])
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3)
        if key == "start_adv":
            ax.axhline(0, color="grey", linestyle="--", linewidth=1, label="no advantage")
            charts.legend(ax)
        ax.set_xticks(x)
        ax.set_xlabel("players")
        ax.set_ylabel(label)

    doc.chart("sweep_players.png", "The start player's advantage against the player count: its "
              "win share minus a fair position's (1 − q)/n of its own table, pp, 95 % t "
              "intervals over games (grey: no advantage).",
              lambda ax: draw(ax, "start_adv", 100, "start-player advantage [pp]"),
              size=(6.5, 4.0))
    doc.chart("sweep_players_score.png", "Mean final score per seat against the player count "
              "(95 % t intervals over games).",
              lambda ax: draw(ax, "score", 1, "mean final score [points]"), size=(6.5, 4.0))


def _notes(doc: Doc, same: list[str], study: dict) -> None:
    """Name the swept values whose games are identical to the base's (``same_games``), and
    say the share of each variant's games played rather than copied (``replayed`` of the
    study facts, ``runner.copy_arms``; nothing when every game was played)."""
    if same:
        doc.p(", ".join(f"`{v}`" for v in same) + ": **"
              + ("this value" if len(same) == 1 else "each of these values")
              + " changed no decision**. "
              + ("Its games are" if len(same) == 1 else "Each one's games are")
              + " identical to the base's (every game and seat record equal, game for game), "
              "so the parameter did not act there on these seeds.")
    replayed = study.get("replayed") or {}
    if not any(share < 1 for share in replayed.values()):
        return
    doc.p("Games played: a variant one recorded rule value away from an earlier arm plays only "
          "the games that consulted that rule and copies the others from that arm (the same "
          "game, seed for seed; `--full-replay` plays them all); the records are the same "
          "either way. Share played: " + ", ".join(
              f"`{v}` {100 * share:.1f} %" for v, share in replayed.items() if v != BASE) + ".")


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


def _game_level(games: Table | pd.DataFrame, seats: Table,
                correction: str) -> list[dict[str, Any]]:
    """Game-level outcomes (``balance.numbers``): per variant and outcome (``OUTCOME_LABELS``)
    ``value``, ``lo``, ``hi`` and, but for the base, the change against it (``diff``, ``d_lo``,
    ``d_hi``, ``p_value``, ``p_adjusted``...) corrected over the values of each outcome."""
    games = as_table(games)
    found = balance.numbers(games, seats, correction) or {"arms": rows_of(balance.arm_table(
        balance.per_game_of(games, seats, seats.variants()[0], balance.seat_numbers(seats))))}
    diffs = {(r["variant"], r["metric"]): r for r in found.get("vs_base", [])}
    recs = []
    for lv in sorted(found["arms"], key=lambda r: r["variant"]):
        var = lv["variant"]
        for m in (m for m in OUTCOME_LABELS if m in lv):
            r = diffs.get((var, m))
            rec = {"variant": var, "outcome": m, "value": lv[m], "lo": lv[f"{m}_lo"],
                   "hi": lv[f"{m}_hi"]}
            if r is not None:
                rec.update({k: r[k] for k in ("diff", "p_value", "p_adjusted",
                                              "significant_adjusted")}, d_lo=r["lo"], d_hi=r["hi"])
            recs.append(rec)
    return recs


def _write_game_level(doc: Doc, n: Mapping[str, Any], values: dict, params: list[str]) -> None:
    """The game-level table of ``write`` and its chart; a change's games (``signed``) are its
    variant's per-seat ``n`` in ``table`` (every seat plays every game, on the base's seeds)."""
    games = {r["variant"]: r["n"] for r in n["table"]}
    rows = []
    for r in n["game_level"]:
        var, m = r["variant"], r["outcome"]
        sc = 1 if m in ("score", "spread", "rounds") else 100
        row = {"variant": var, **{p: str(values.get(var, {}).get(p, "(base)")) for p in params},
               "outcome": OUTCOME_LABELS[m],
               "value": (pct(r["value"], r["lo"], r["hi"]) if m in ("no_winner", "death") else
                         span(sc * r["value"], sc * r["lo"], sc * r["hi"], 1)
                         if m == "start_adv" else num(r["value"], r["lo"], r["hi"])),
               "change vs base": "–", "p adjusted": "–"}
        if "diff" in r:
            d = {"n": games[var], "diff": r["diff"], "lo": r["d_lo"], "hi": r["d_hi"],
                 "significant_adjusted": r["significant_adjusted"]}
            row["change vs base"] = signed(d, sc, "" if sc == 1 else " pp", 2 if sc == 1 else 1)
            row["p adjusted"] = p_text(r["p_adjusted"])
        rows.append(row)
    n_values = len({r["variant"] for r in n["game_level"]} - {BASE})
    doc.p("Game-level outcomes per value, all on the base's game seeds: mean final score of "
          "the game's seats, the start-player advantage (start player's win share − a fair "
          "position's (1 − q)/n, pp), the share of games nobody won, the death rate (when "
          "recorded), the score spread (best − worst) and the rounds per game; 95% intervals "
          "over games (t; Wilson for shares, the death rate at the effective number of games). "
          "Change against the base: paired per-game difference (variant − base, 95% t); `*` "
          f"after {CORRECTION_NAME[n['correction']]} correction over the {n_values} value"
          f"{'s' if n_values != 1 else ''} of each outcome.")
    doc.table(pd.DataFrame(rows))
    curve = pd.DataFrame([r for r in n["game_level"]
                          if r["outcome"] == "score" and r["variant"] != BASE])
    if len(curve):
        doc.chart("sweep.png", f"Mean final score per game against {params[0]} (95% t "
                  "intervals; every seat's win rate is fixed by design, see the text).",
                  lambda ax: plot_sweep(ax, curve, values, params, "mean final score",
                                        "points per seat-game", "score", "outcome"),
                  size=(7.5, 4.5))


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


def plot_sweep(ax, tab: pd.DataFrame, values: dict, params: list[str], what: str, unit: str,
               metric: str, by: str = "seat") -> None:
    """One line per ``by`` group (and per combination of the other parameters) of
    ``tab["value"]`` against the first parameter, with interval error bars.

    For the win rate, a dashed line at the share a fair seat wins, ``(1 − q)/n`` per variant
    (``q`` = its share of games nobody won, which the swept value may move): the variant's
    pooled win share Σ ``wins`` / Σ ``n`` of its rows (every game of a variant seats the same
    players), averaged over the other parameters at each value."""
    first = params[0]
    xs_raw = [values[v][first] for v in tab["variant"]]
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_raw)
    order = list(dict.fromkeys(str(x) for x in xs_raw))
    tab = tab.assign(x=[float(x) if numeric else order.index(str(x)) for x in xs_raw],
                     rest=[", ".join(f"{p}={values[v][p]!s}" for p in params[1:])
                           for v in tab["variant"]])
    for (group, rest), grp in tab.groupby([by, "rest"], sort=True):
        grp = grp.sort_values("x")
        y = grp["value"].to_numpy(float)
        err = charts.error_bars(y, grp["lo"], grp["hi"])
        lab = (f"seat {group}" if by == "seat" else str(group)) + (f" ({rest})" if rest else "")
        ax.errorbar(grp["x"], y, yerr=err, marker="o", capsize=3, label=lab)
    if metric == "won":
        pooled = tab.groupby("variant")[["wins", "n"]].sum()
        line = (tab.drop_duplicates("variant").assign(f=lambda t: t["variant"].map(
            pooled["wins"] / pooled["n"])).groupby("x")["f"].mean().sort_index())
        ax.plot(line.index, line.to_numpy(float), color="grey", linestyle="--", linewidth=1,
                label="fair share (1 − q)/n")
    if not numeric:
        ax.set_xticks(range(len(order)), order)
    ax.set_xlabel(first)
    ax.set_ylabel(f"{what} [{unit}]")
    ax.set_title(f"{what.capitalize()} per {by} against {first}")
    charts.legend(ax)
