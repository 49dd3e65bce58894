"""Report section: the balance of each arm and its paired difference against the base.

Game-agnostic (any game's records): per arm (base, variant, or compared scenario) the win rate
of every seat, the share of games without a winner, the death rate (when seat records have
``died``), the score spread between first and last place and the mean game length; then, on the
same game seeds, each arm minus the base with paired 95% intervals. Used by ``simulate`` with
variants and by ``analyzer compare``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import design
from analyzer.report.document import (
    BASE,
    CORRECTION_NAME,
    Doc,
    cells,
    change,
    rows_of,
    signed,
    value_text,
)
from analyzer.report.records import Table, as_table
from analyzer.report.units import SHARE

MAX_DIFF_ROWS = 16  # beyond this many arms the per-arm difference table lives in summary.json


def arm_per_game(games: pd.DataFrame, seats: pd.DataFrame, variant: str,
                 seat_ids: Sequence[int]) -> pd.DataFrame:
    """One row per game of one variant (``games``: ``game_id, rounds``; ``seats``: ``game_id,
    seat, score, won`` and optionally ``died``, ``start_position``; that variant's rows only)
    with its balance metrics, in order of first appearance: ``variant, game_id, spread`` (best
    − worst final score [points]), ``death`` (share of the game's seats that died, when seats
    have ``died``), ``won_<seat>`` (1/k share of the win) for every seat of ``seat_ids`` (``nan``
    where absent), ``rounds``, ``no_winner`` (0/1), ``score`` (mean final score [points]),
    ``seats`` (seats in the game) and, with ``start_position``, ``start_adv`` (the start player's
    win share minus the game's fair share, ``stats.start_player_games``)."""
    g = seats.groupby("game_id", sort=False)
    out = pd.DataFrame({"spread": g["score"].max() - g["score"].min(),
                        "won_total": g["won"].sum()})
    if "died" in seats:
        out["death"] = g["died"].mean()
    for seat in seat_ids:
        won = seats[seats["seat"] == seat].groupby("game_id")["won"].sum()
        out[f"won_{int(seat)}"] = won.reindex(out.index)
    out["rounds"] = games.set_index("game_id")["rounds"].reindex(out.index).to_numpy()
    out["no_winner"] = (out.pop("won_total") <= 0).astype(float)
    out["score"] = g["score"].mean()
    out["seats"] = g.size().astype(float)
    if "start_position" in seats:
        out["start_adv"] = stats.start_player_games(seats)["advantage"].reindex(out.index)
    out = out.reset_index()
    out.insert(0, "variant", variant)
    return out


KEPT_ARMS = 4  # arms whose per-game metrics a table keeps (``per_game_of``)


def per_game_of(games: Table, seats: Table, variant: str,
                seat_ids: Sequence[int]) -> pd.DataFrame:
    """``arm_per_game`` of arm ``variant`` read from the tables (games ``variant, game_id,
    rounds``; seats ``BALANCE_SEATS``), a new frame. The first ``KEPT_ARMS`` arms' are
    computed once per pair of tables and kept in ``seats.derived`` (the balance section and a
    game section's game-level comparison ask for the same arms)."""
    key = ("arm_per_game", variant, tuple(int(s) for s in seat_ids))
    kept = seats.derived.setdefault("arm_per_game", {})
    found = kept.get(key)
    if found is not None and found[0] is games:
        return found[1].copy()
    pg = arm_per_game(games.read(("variant", "game_id", "rounds"), [variant]),
                      seats.read(BALANCE_SEATS, [variant]), variant, seat_ids)
    if len(kept) < KEPT_ARMS:
        kept[key] = (games, pg.copy())
    return pg


def seat_numbers(seats: Table) -> list[int]:
    """The seat numbers in the seat records, ascending."""
    return [int(k) for k in np.unique(seats.read(("seat",))["seat"].to_numpy())]


def _seat_cols(pg: pd.DataFrame) -> list[str]:
    return sorted((c for c in pg if c.startswith("won_")), key=lambda c: int(c[4:]))


def arm_table(pg: pd.DataFrame) -> pd.DataFrame:
    """Per arm: games, seat win rates with Wilson intervals, max − min, no-winner share, death
    rate (``stats.clustered_share``: games as the unit), spread, rounds, mean score and the
    start-player advantage with t intervals (numeric columns, for ``summary.json``; no t
    interval below ``stats.MIN_GAMES`` games, the advantage's clipped to ±1)."""
    rows = []
    for var, grp in pg.groupby("variant", sort=False):
        n = len(grp)
        row: dict[str, Any] = {"variant": var, "games": n}
        rates = []
        for c in _seat_cols(pg):
            iv = stats.wilson(float(grp[c].sum()), n)
            rates.append(iv.estimate)
            row[f"seat_{c[4:]}"], row[f"seat_{c[4:]}_lo"], row[f"seat_{c[4:]}_hi"] = iv.estimate, iv.lo, iv.hi
        row["max_minus_min"] = max(rates) - min(rates)
        iv = stats.wilson(float(grp["no_winner"].sum()), n)
        row["no_winner"], row["no_winner_lo"], row["no_winner_hi"] = iv.estimate, iv.lo, iv.hi
        if "death" in grp:
            seats = grp["seats"].to_numpy(float)
            iv = stats.clustered_share(grp["death"].to_numpy(float) * seats, seats)
            row["death"], row["death_lo"], row["death_hi"] = iv.estimate, iv.lo, iv.hi
        for m in ("spread", "rounds", "score", "start_adv"):
            if m in grp:
                iv = stats.mean_interval(grp[m].to_numpy(float))
                lo, hi = iv.lo, iv.hi
                if n < stats.MIN_GAMES:  # too few games for a t interval to mean anything
                    lo = hi = float("nan")
                elif m == "start_adv":  # a share minus a share: never past ±1
                    lo, hi = stats.clip_interval(lo, hi, -1.0, 1.0)
                row[m], row[f"{m}_lo"], row[f"{m}_hi"] = iv.estimate, lo, hi
        rows.append(row)
    return pd.DataFrame(rows)


DIFF_COLUMNS = ["variant", "metric", "n", "diff", "lo", "hi", "p_value", "significant"]


def arm_differences(base: pd.DataFrame, arm: pd.DataFrame, name: str) -> list[tuple]:
    """Per metric, the paired difference arm − base over their shared game ids: rows
    ``DIFF_COLUMNS`` (``variant, metric, n, diff, lo, hi, p_value, significant``); metrics
    ``won_<seat>``, ``no_winner``, ``death`` (if present), ``spread``, ``rounds``, ``score``,
    ``start_adv`` (if present). ``base`` and ``arm`` are ``per_game`` rows indexed by
    ``game_id``."""
    metrics = [*_seat_cols(base), "no_winner", *(["death"] if "death" in base else []),
               "spread", "rounds", "score", *(["start_adv"] if "start_adv" in base else [])]
    ids = base.index.intersection(arm.index)
    rows = []
    for m in metrics:  # a share's difference (in pp) is bounded
        d = stats.paired_difference(base.loc[ids, m].to_numpy(float),
                                    arm.loc[ids, m].to_numpy(float), bounds=(
                                        stats.SHARE_DIFFERENCE if _outcome(m)[2] else None))
        rows.append((name, m, d.n, d.mean, d.lo, d.hi, d.p_value, d.significant))
    return rows


BALANCE_SEATS = ("variant", "game_id", "seat", "score", "won", "died", "start_position")


def section(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            run: Mapping[str, Any] | None = None, correction: str = "holm") -> dict:
    """Fill the balance section (``write`` of ``numbers``); returns its numbers (``{}`` with a
    single arm)."""
    found = numbers(games, seats, correction)
    if found:
        write(doc, found, design.designs(seats, run))
    return found


def numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            correction: str = "holm") -> dict[str, Any]:
    """For ``summary.json`` (``{}`` with a single arm): ``arms``, a row per arm (``arm_table``);
    with a base also ``vs_base``, the other arms' paired differences against it
    (``arm_differences``, ``correct_by_metric``), and ``correction``. Holds the base's per-game
    metrics and one variant's at a time (seats ``BALANCE_SEATS``, games ``variant, game_id,
    rounds``)."""
    games, seats = as_table(games), as_table(seats)
    names = seats.variants()
    if len(names) < 2:
        return {}
    seat_ids = seat_numbers(seats)
    base = per_game_of(games, seats, BASE, seat_ids) if BASE in names else None
    rows, diff_rows = [], []
    for var in names:
        pg = base if var == BASE else per_game_of(games, seats, var, seat_ids)
        rows.append(arm_table(pg))
        if base is not None and var != BASE:
            diff_rows += arm_differences(base.set_index("game_id"), pg.set_index("game_id"), var)
    out: dict[str, Any] = {"arms": rows_of(pd.concat(rows, ignore_index=True))}
    if base is not None:
        diffs = correct_by_metric(pd.DataFrame(diff_rows, columns=DIFF_COLUMNS), correction)
        out.update(vs_base=rows_of(diffs), correction=correction)
    return out


# game-level outcomes: metric -> (label, scale, unit, digits), start_adv first (``players``);
# a seat's win rate (``won_<seat>`` of a difference, ``seat_<seat>`` of an arm) is a share
OUTCOMES = {"start_adv": ("start-player advantage", 100, " pp", 1),
            "score": ("mean score", 1, "", 2), "no_winner": ("no winner", 100, " pp", 1),
            "death": ("death rate", 100, " pp", 1), "spread": ("score spread", 1, "", 1),
            "rounds": ("rounds", 1, "", 2)}


def _outcome(m: str) -> tuple[str, int, str, int]:
    seat = m.removeprefix("won_").removeprefix("seat_")
    return (f"seat {seat} wins", 100, " pp", 1) if seat.isdigit() else OUTCOMES[m]


def arm_cell(m: str, x: float, lo: float, hi: float) -> str:
    """An arm's value of outcome ``m`` with its interval: a share in %, the start-player
    advantage in pp (without an interval below ``stats.MIN_GAMES`` games), a mean as it is."""
    _, scale, unit, digits = _outcome(m)
    if m != "start_adv":
        return value_text(x, lo, hi, "%" if unit else "", scale, digits)
    return change(x, lo, hi, scale, unit, digits) + (
        " (too few games to estimate)" if math.isnan(lo) else "")


def write(doc: Doc, n: Mapping[str, Any], designs: Mapping[str, design.SeatDesign]) -> None:
    """The "Balance of each variant" section of the numbers ``n`` (``numbers``, not ``{}``).
    ``designs``: the arms' ``design.SeatDesign`` (not in ``summary.json``); when every arm's
    seats are exchangeable the seat win rates (each ``(1 − q)/n`` by design) give way to the mean
    score and the start-player advantage. Beyond ``MAX_DIFF_ROWS`` arms the differences against
    the base are in ``summary.json`` only."""
    arms = pd.DataFrame(n["arms"])
    exchangeable = design.all_exchangeable(designs)
    seat_cols = [] if exchangeable else [c for c in arms if c[5:].isdigit() and c[:5] == "seat_"]
    means = ["score", "start_adv"] if exchangeable else []
    shown = [m for m in (*seat_cols, *means, "no_winner", "death", "spread", "rounds") if m in arms]
    doc.h("Balance of each variant")
    doc.p((design.exchangeable_reason(designs) + " So per variant, in place of the seats' win "
           "rates: the mean final score [points] and the **start-player advantage** (the start "
           "player's win share minus a fair position's, (1 − q)/n, in percentage points); then "
           if exchangeable else
           "Per variant: each seat's win rate over **all** games (a game without a winner "
           "counts as a loss for every seat, so the seat rates add up to 1 − the no-winner "
           "share), `max − min` of the seat win rates (0 = every seat equally likely to win), ")
          + "the share of games nobody won"
          + (", the death rate (share of seats that died)" if "death" in arms else "")
          + ", the score spread (best − worst final score in a game [points]) and the mean game "
          "length [rounds]. Brackets: 95% intervals over games (Wilson for shares — for the "
          "death rate at the effective number of games, as the seats of one game die together "
          "— and t for means).")
    tab = pd.DataFrame({"variant": arms["variant"], "games": arms["games"]})
    for m in shown:
        tab[_outcome(m)[0]] = cells(arms, partial(arm_cell, m), m)
    if not exchangeable:
        tab.insert(2 + len(seat_cols), "max − min",
                   [f"{100 * x:.1f} pp" for x in arms["max_minus_min"]])
    doc.table(tab)
    if "vs_base" not in n:
        return
    n_rows = len(arms) - 1
    if n_rows > MAX_DIFF_ROWS:
        doc.p(f"{n_rows} variants: their paired differences against the base are in "
              "`summary.json` (`balance.vs_base`).")
        return
    doc.p("Against the base, game by game on the same seeds (variant − base, 95% t interval of "
          f"the per-game differences; `*` = significant after {CORRECTION_NAME[n['correction']]} "
          f"correction over the {n_rows} row{'s' if n_rows != 1 else ''} of each column). "
          "Win rates and shares in percentage points (pp).")
    doc.table(pd.DataFrame(difference_rows(n["vs_base"], shown)))


def difference_rows(diffs: Sequence[Mapping[str, Any]], shown: Sequence[str]
                    ) -> list[dict[str, str]]:
    """One table row per variant of the ``arm_differences`` rows ``diffs`` (after
    ``correct_by_metric``): each metric of ``shown`` that it has, as ``signed``."""
    by_arm: dict[str, dict[str, Mapping[str, Any]]] = {}
    for r in diffs:
        by_arm.setdefault(r["variant"], {})[r["metric"].replace("won_", "seat_")] = r
    return [{"variant": var, **{_outcome(m)[0]: signed(d[m], *_outcome(m)[1:])
                                for m in shown if m in d}} for var, d in by_arm.items()]


def correct_by_metric(diffs: pd.DataFrame, correction: str = "holm") -> pd.DataFrame:
    """``arm_differences`` rows with ``p_adjusted`` and ``significant_adjusted``, each metric (a
    column of the report's table) corrected over its rows (the variants), and the
    ``value_unit`` of each row's numbers (``METRIC_UNITS``)."""
    if diffs.empty:
        return diffs.assign(p_adjusted=pd.Series(dtype=float),
                            significant_adjusted=pd.Series(dtype=bool),
                            value_unit=pd.Series(dtype=str))
    parts = [stats.correct(grp, correction) for _, grp in diffs.groupby("metric", sort=False)]
    out = pd.concat(parts).sort_index()
    return out.assign(value_unit=[METRIC_UNITS.get(m, SHARE) for m in out["metric"]])


# the unit of a metric's numbers (``arm_differences``); every other metric is a share
METRIC_UNITS = {"score": "points", "spread": "points", "rounds": "rounds"}


def spread_noise_floor(n_games: int, n_seats: int, no_winner: float = 0.0, draws: int = 2000,
                       seed: int = 0) -> float:
    """Mean ``max − min`` of seat win rates of a perfectly fair game over ``n_games`` games.

    The observed ``max − min`` is never 0 by chance alone; this is the value a set with equal
    seats shows on average (multinomial winner, ``no_winner`` share of games without one).
    """
    rng = np.random.default_rng(seed)
    p = np.full(n_seats + 1, (1 - no_winner) / n_seats)
    p[-1] = no_winner
    wins = rng.multinomial(n_games, p, size=draws)[:, :n_seats] / n_games
    return float((wins.max(axis=1) - wins.min(axis=1)).mean())
