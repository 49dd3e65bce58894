"""The first-player advantage section of every report: the start player's win rate against a
fair position's share and a test that every turn-order position wins equally often, per
variant (multiple-comparison corrected over the variants)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from scipy import stats as sps

from analyzer import stats
from analyzer.report import design
from analyzer.report import players as players_mod
from analyzer.report.document import CORRECTION_NAME, Doc, p_text, pct, rows_of, value_text
from analyzer.report.records import Table, as_table
from analyzer.report.units import SHARE


def first_player(doc: Doc, seats: Table | pd.DataFrame, run: dict | None = None,
                 correction: str = "holm") -> dict[str, Any]:
    """First-player advantage per variant: ``write`` of its ``numbers``, returned."""
    found = numbers(seats, run, correction)
    write(doc, found, design.designs(as_table(seats), run))
    return found


def numbers(seats: Table | pd.DataFrame, run: dict | None = None,
            correction: str = "holm") -> dict[str, Any]:
    """The first-player numbers of every variant. Positions come from ``start_position`` (0 =
    the start player) when the records have it, else from ``seat``.

    A fair position wins ``(1 − q)/n`` of the games, ``q`` the share of games nobody won; the
    advantage is the mean over games of the start player's win share minus the game's fair share
    (``stats.start_player_advantage``: t interval, t-test against 0); the position test is a
    chi-square test. Both tests are corrected over the variants (``correction``), each column
    its own family. Where position and policy are confounded (``design.SeatDesign``) the tests
    are skipped.

    Returns ``{"correction", "by_variant"}``: per variant its rates and tests (shares as
    fractions) and ``positions``, each turn-order position's win share with its Wilson
    interval (``{position, rate, lo, hi, unit: "share"}``; 0 = the start player), from which
    the Answers' "Also found" names a seat-order imbalance at any position.
    """
    seats = as_table(seats)
    key = "start_position" if "start_position" in seats else "seat"
    found = design.designs(seats, run)
    recs = []
    for var in seats.variants():
        s = seats.read(("game_id", key, "won"), [var]).rename(columns={"seat": "start_position"})
        per = stats.start_player_games(s)
        iv = stats.wilson(float(per["start"].sum()), len(per))
        adv = stats.start_player_advantage(s)
        won_at = s.groupby("start_position")["won"].sum()
        confounded = found[var].position_confounded
        p_all = (float(sps.chisquare(won_at.to_numpy(float)).pvalue)
                 if won_at.sum() > 0 and not confounded else math.nan)
        # each position's win share over the games it was held in (Wilson), for a seat-order
        # imbalance at any position (the Answers' "Also found", issue #34)
        held = s.groupby("start_position")["game_id"].nunique()
        wins = {k: stats.wilson(float(won), int(held[k])) for k, won in won_at.items()}
        positions = [{"position": int(k), "rate": w.estimate, "lo": w.lo, "hi": w.hi,
                      "unit": SHARE} for k, w in wins.items()]
        recs.append({"variant": var, "games": len(per), "rate": iv.estimate, "lo": iv.lo,
                     "hi": iv.hi, "fair": float((per["total"] / per["seats"]).mean()),
                     "p_first": math.nan if confounded else adv.p_value, "p_all_seats": p_all,
                     "no_winner": float((per["total"] <= 0).mean()), "advantage": adv.mean,
                     "advantage_lo": adv.lo, "advantage_hi": adv.hi,
                     "position_test": "skipped: policy and position confounded" if confounded
                     else "done", "positions": positions})
    table = pd.DataFrame(recs)
    for p, name in (("p_first", "first"), ("p_all_seats", "all")):
        table = stats.correct(table, correction, p_column=p).rename(columns={
            "p_adjusted": f"p_{name}_adjusted", "significant_adjusted": f"{name}_significant"})
    return {"correction": correction, "by_variant": rows_of(table)}


def write(doc: Doc, n: dict[str, Any], found: dict[str, design.SeatDesign]) -> None:
    """The "First-player advantage" section of the numbers ``n`` (``numbers``). ``found``: the
    arms' seat layouts (``design.designs``), which say why a position effect is the game's;
    each arm's player count is the number of positions it held."""
    doc.h("First-player advantage")
    table = pd.DataFrame(n["by_variant"])
    n_seats = {r["variant"]: len(r["positions"]) for r in n["by_variant"]}
    shown, n_note = players_mod.fair_share_n(n_seats)
    rows = []
    for r in n["by_variant"]:
        skipped = r["position_test"] != "done"
        rows.append({"variant": r["variant"],
                     **({"players": n_seats[r["variant"]]} if n_note else {}),
                     "games": r["games"],
                     "start player win rate": pct(r["rate"], r["lo"], r["hi"]),
                     "fair share": f"{100 * r['fair']:.1f} %",
                     "advantage": "– (confounded)" if skipped else value_text(
                         r["advantage"], r["advantage_lo"], r["advantage_hi"], "pp", 100, 1, True),
                     "p (start player = fair)": p_text(r["p_first_adjusted"])
                     + (" *" if r["first_significant"] else ""),
                     "p (all positions equal)": p_text(r["p_all_adjusted"])
                     + (" *" if r["all_significant"] else "")})
    any_no_winner = any(r["no_winner"] > 0 for r in n["by_variant"])
    n_first = stats.family_size(table, p_column="p_first")
    n_all = stats.family_size(table, p_column="p_all_seats")
    doc.p(f"The start player's win rate (95% Wilson interval over games) against the share a "
          f"fair position wins, (1 − q)/{shown}"
          + (", q = the share of games nobody won (a game without a winner is a loss for every "
             "position, so it counts against no one)" if any_no_winner else
             " with q = 0 here: every game has a winner")
          + (f"; {n_note} (column `players`)" if n_note else "")
          + ". **Advantage** = the mean over games of the start player's win share minus the "
          "game's fair share, in percentage points with a 95% t interval over games; "
          "`p (start player = fair)` is a t-test of advantage = 0, `p (all positions equal)` a "
          "chi-square test that every turn-order position wins equally often. p-values after "
          f"{CORRECTION_NAME[n['correction']]} correction over the variants, each column its own "
          f"family ({n_first} and {n_all} tests); `*` = significant after correction. "
          + _position_sentence(found))
    doc.table(pd.DataFrame(rows))


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
