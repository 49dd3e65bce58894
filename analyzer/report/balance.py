"""Report section: the balance of each arm and its paired difference against the base.

Game-agnostic (any game's records): per arm (base, variant, or compared scenario) the win rate
of every seat, the share of games without a winner, the death rate (when seat records have
``died``), the score spread between first and last place and the mean game length; then, on the
same game seeds, each arm minus the base with paired 95% intervals. Used by ``simulate`` with
variants and by ``analyzer compare``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report.document import BASE, Doc, num, pct, rows_of, signed
from analyzer.report.records import Table, as_table

MAX_DIFF_ROWS = 16  # beyond this many arms the per-arm difference table lives in summary.json


def per_game(games: pd.DataFrame, seats: pd.DataFrame,
             seat_ids: Sequence[int] | None = None) -> pd.DataFrame:
    """One row per (variant, game_id) with the balance metrics of that game.

    Parameters
    ----------
    games, seats : DataFrame
        Game records with ``variant, game_id, rounds``; seat records with ``variant, game_id,
        seat, score, won`` and optionally ``died``.
    seat_ids : sequence of int, optional
        The seats to give a ``won_<seat>`` column (default: the seats in ``seats``); a seat
        absent from a game is ``nan`` there.

    Returns
    -------
    DataFrame
        ``variant, game_id, spread`` (best − worst final score [points]), ``death`` (share of the
        game's seats that died, when seats have ``died``), ``won_<seat>`` (1/k share of the win)
        for every seat, ``rounds``, ``no_winner`` (0/1); variant by variant (in order of first
        appearance), games in order of first appearance.
    """
    if seat_ids is None:
        seat_ids = sorted(pd.unique(seats["seat"]))
    parts = []
    for var in pd.unique(seats["variant"]):
        parts.append(arm_per_game(games[games["variant"] == var], seats[seats["variant"] == var],
                                var, seat_ids))
    return pd.concat(parts, ignore_index=True)


def arm_per_game(games: pd.DataFrame, seats: pd.DataFrame, variant: str,
               seat_ids: Sequence[int]) -> pd.DataFrame:
    """``per_game`` of one variant's rows (``games``, ``seats`` hold that variant only)."""
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
    out = out.reset_index()
    out.insert(0, "variant", variant)
    return out


def seat_numbers(seats: Table) -> list[int]:
    """The seat numbers in the seat records, ascending."""
    return [int(k) for k in np.unique(seats.read(("seat",))["seat"].to_numpy())]


def _seat_cols(pg: pd.DataFrame) -> list[str]:
    return sorted((c for c in pg if c.startswith("won_")), key=lambda c: int(c[4:]))


def arm_table(pg: pd.DataFrame) -> pd.DataFrame:
    """Per arm: games, seat win rates with Wilson intervals, max − min, no-winner share, death
    rate, spread and rounds with t intervals (numeric columns, for ``summary.json``)."""
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
        for m in ("death", "spread", "rounds"):
            if m in grp:
                iv = stats.mean_interval(grp[m].to_numpy(float))
                lo = max(0.0, iv.lo) if m == "death" else iv.lo  # a share is never below 0
                row[m], row[f"{m}_lo"], row[f"{m}_hi"] = iv.estimate, lo, iv.hi
        rows.append(row)
    return pd.DataFrame(rows)


def diff_table(pg: pd.DataFrame, base: str = BASE) -> pd.DataFrame:
    """Per non-base arm and metric: paired difference arm − base over shared game ids.

    Returns
    -------
    DataFrame
        ``variant, metric, n, diff, lo, hi, p_value, significant``; metrics ``won_<seat>``,
        ``no_winner``, ``death`` (if present), ``spread``, ``rounds``.
    """
    b = pg[pg["variant"] == base].set_index("game_id")
    rows = []
    for var in pd.unique(pg["variant"]):
        if var != base:
            rows += _differences(b, pg[pg["variant"] == var].set_index("game_id"), var)
    return pd.DataFrame(rows, columns=DIFF_COLUMNS)


DIFF_COLUMNS = ["variant", "metric", "n", "diff", "lo", "hi", "p_value", "significant"]


def _differences(base: pd.DataFrame, arm: pd.DataFrame, name: str) -> list[tuple]:
    """``diff_table`` rows of one arm: ``base`` and ``arm`` are ``per_game`` rows indexed by
    ``game_id``."""
    metrics = [*_seat_cols(base), "no_winner", *(["death"] if "death" in base else []),
               "spread", "rounds"]
    ids = base.index.intersection(arm.index)
    rows = []
    for m in metrics:
        d = stats.paired_difference(base.loc[ids, m].to_numpy(float),
                                    arm.loc[ids, m].to_numpy(float))
        rows.append((name, m, d.n, d.mean, d.lo, d.hi, d.p_value, d.significant))
    return rows


BALANCE_SEATS = ("variant", "game_id", "seat", "score", "won", "died")


def section(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            players: int) -> dict:
    """Fill the balance section; returns its numbers (``{}`` with a single arm).

    Holds the base's per-game metrics and one variant's at a time (seats ``BALANCE_SEATS``,
    games ``variant, game_id, rounds``).
    """
    games, seats = as_table(games), as_table(seats)
    names = seats.variants()
    if len(names) < 2:
        return {}
    seat_ids = seat_numbers(seats)

    def arm_games(var: str) -> pd.DataFrame:
        return arm_per_game(games.read(("variant", "game_id", "rounds"), [var]),
                            seats.read(BALANCE_SEATS, [var]), var, seat_ids)

    base = arm_games(BASE) if BASE in names else None
    base_by_game = None if base is None else base.set_index("game_id")
    rows, diff_rows = [], []
    for var in names:
        pg = base if var == BASE else arm_games(var)
        rows.append(arm_table(pg))
        if base is not None and var != BASE:
            diff_rows += _differences(base_by_game, pg.set_index("game_id"), var)
    arms = pd.concat(rows, ignore_index=True)
    pg = base if base is not None else pg  # any arm: the metric columns are the same
    seat_cols = _seat_cols(pg)
    doc.h("Balance of each variant")
    has_death = "death" in pg
    doc.p("Per variant: each seat's win rate over **all** games (a game without a winner counts "
          "as a loss for every seat, so the seat rates add up to 1 − the no-winner share), "
          "`max − min` of the seat win rates (0 = every seat equally likely to win), the share "
          "of games nobody won"
          + (", the death rate (share of seats that died)" if has_death else "")
          + ", the score spread (best − worst final score in a game [points]) and the mean game "
          "length [rounds]. Brackets: 95% intervals (Wilson for shares, t for means).")
    tab = pd.DataFrame({"variant": arms["variant"], "games": arms["games"]})
    for c in seat_cols:
        s = f"seat_{c[4:]}"
        tab[f"seat {c[4:]} wins"] = [pct(r, lo, hi) for r, lo, hi in
                                     zip(arms[s], arms[f"{s}_lo"], arms[f"{s}_hi"])]
    tab["max − min"] = [f"{100 * x:.1f} pp" for x in arms["max_minus_min"]]
    tab["no winner"] = [pct(r, lo, hi) for r, lo, hi in
                        zip(arms["no_winner"], arms["no_winner_lo"], arms["no_winner_hi"])]
    if has_death:
        tab["death rate"] = [pct(r, lo, hi) for r, lo, hi in
                             zip(arms["death"], arms["death_lo"], arms["death_hi"])]
    tab["score spread"] = [num(m, lo, hi, 1) for m, lo, hi in
                           zip(arms["spread"], arms["spread_lo"], arms["spread_hi"])]
    tab["rounds"] = [num(m, lo, hi) for m, lo, hi in
                     zip(arms["rounds"], arms["rounds_lo"], arms["rounds_hi"])]
    doc.table(tab)
    out: dict[str, Any] = {"arms": rows_of(arms)}
    if base is None:
        return out
    diffs = pd.DataFrame(diff_rows, columns=DIFF_COLUMNS)
    out["vs_base"] = rows_of(diffs)
    if arms.shape[0] - 1 > MAX_DIFF_ROWS:
        doc.p(f"{arms.shape[0] - 1} variants: their paired differences against the base are in "
              "`summary.json` (`balance.vs_base`).")
        return out
    doc.p("Against the base, game by game on the same seeds (variant − base, 95% t interval of "
          "the per-game differences; `*` = the interval excludes 0, not corrected for the number "
          "of comparisons). Win rates and shares in percentage points (pp).")
    labels = {**{c: f"seat {c[4:]} wins" for c in seat_cols}, "no_winner": "no winner",
              "death": "death rate", "spread": "score spread", "rounds": "rounds"}
    scale = {"spread": (1, "", 1), "rounds": (1, "", 2)}
    rows = []
    for var, grp in diffs.groupby("variant", sort=False):
        row = {"variant": var}
        for r in grp.to_dict("records"):
            sc, unit, dig = scale.get(r["metric"], (100, " pp", 1))
            row[labels[r["metric"]]] = signed(r, sc, unit, dig)
        rows.append(row)
    doc.table(pd.DataFrame(rows))
    return out


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
