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
from analyzer.report import balance, charts, design
from analyzer.report import players as players_mod
from analyzer.report.document import (
    BASE,
    CORRECTION_NAME,
    Doc,
    cells,
    concat,
    correction_of,
    iv_tuple,
    num,
    pct,
    rows_of,
    signed,
)
from analyzer.report.extension import StudySection
from analyzer.report.records import Table, as_table, release_memory

RESULT_SEATS = ("variant", "game_id", "seat", "policy", "score", "won", "start_position", "died")


def results(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            players: int, run: Mapping[str, Any] | None = None) -> dict:
    """Win rate by policy and by seat, mean scores, score distribution, game length.

    Reads one variant at a time: games ``variant, rounds, end``; seats ``RESULT_SEATS``.
    Intervals take the game as the unit (``stats.win_rates``, ``stats.mean_values``,
    ``stats.clustered_share``).
    """
    games, seats = as_table(games), as_table(seats)
    arms = seats.variants()
    found = design.designs(seats, run)
    win, score, order_all, srows, scores = {}, {}, [], [], {}
    any_no_winner = False
    fair: dict[str, float] = {}
    n_seats: dict[str, int] = {}  # each arm's player count
    for var in arms:
        sv = seats.read(RESULT_SEATS, [var])
        g = games.read(("variant", "rounds", "end"), [var])
        w = stats.win_rates(sv, ("variant", "policy"))
        if not found[var].mixed:  # one policy at every seat: (1 − q)/n by construction
            w["lo"], w["hi"] = math.nan, math.nan
        w["by_construction"] = not found[var].mixed
        win[var] = w
        score[var] = stats.mean_values(sv, ("variant", "policy"), "score")
        so = stats.seat_order(sv)
        so.insert(0, "variant", var)
        order_all.append(so)
        per_game = sv.groupby("game_id")
        won = per_game["won"].sum()  # per game: 0 when nobody won
        fair[var] = float((won / per_game.size()).mean())
        n_seats[var] = int(per_game.size().max()) if len(won) else players
        any_no_winner |= bool((won <= 0).any())
        row = {"variant": var, **{k: round(v, 2) for k, v in stats.summary(sv["score"]).items()},
               "rounds": num(*iv_tuple(stats.mean_interval(g["rounds"].to_numpy()))),
               "turn-cap ends": int((g["end"] == "turn_cap").sum()),
               "no winner": pct(*iv_tuple(stats.wilson(float((won <= 0).sum()), len(won))))}
        if "died" in sv:
            row["death rate"] = pct(*iv_tuple(stats.clustered_share(
                per_game["died"].sum().to_numpy(float), per_game.size().to_numpy(float))))
        srows.append(row)
        scores[var] = sv["score"].to_numpy()
        del sv, g, won, per_game
    mixed = any(d.mixed for d in found.values())
    n, n_note = players_mod.fair_share_n(n_seats)
    out: dict[str, Any] = {}
    doc.h("Win rates")
    by_policy = pd.concat([win[v] for v in sorted(arms)], ignore_index=True)
    by_score = pd.concat([score[v] for v in sorted(arms)], ignore_index=True)
    tab = by_policy.merge(by_score, on=["variant", "policy"], suffixes=("", "_score"))
    if mixed:
        doc.p("Win share per seat-game (a k-way tie for first counts 1/k) with 95% Wilson "
              "intervals, and mean final score with 95% t intervals, both with the game as the "
              "unit: a policy at several seats of one game gets the cluster-robust interval "
              "over games (its seats' outcomes in one game are not independent). A variant "
              "with one policy at every seat wins (1 − q)/n by construction (q = share of games "
              "nobody won): no interval.")
        doc.table(pd.DataFrame({
            "variant": tab["variant"], "policy": tab["policy"], "seat-games": tab["n"],
            "win rate": [f"{100 * r:.1f} % (by construction)" if bc else pct(r, lo, hi)
                         for r, lo, hi, bc in zip(tab["rate"], tab["lo"], tab["hi"],
                                                   tab["by_construction"])],
            "mean score": cells(tab, num, "mean", "lo_score", "hi_score"),
        }))
        shown = by_policy[~by_policy["by_construction"]]
        doc.chart("win_rate_by_policy.png", "Win rate by policy (error bars: 95% Wilson, games "
                  "as the unit; variants with one policy left out).",
                  lambda ax: charts.plot_win_rates(ax, shown, "policy", _fair_line(fair, players)))
    else:
        doc.p("Every seat of a variant plays the same policy, so a win rate by policy is "
              f"(1 − q)/{n} by construction (q = share of games nobody won"
              + (f"; {n_note}" if n_note else "") + ") and is not shown; see the start "
              "positions below.")
    out["win_rate_by_policy"] = rows_of(by_policy)
    out["score_by_policy"] = rows_of(by_score)

    doc.h("Turn order")
    order = pd.concat(order_all, ignore_index=True)
    rows = [{"variant": r.variant, "start position": r.position,
             "win rate": pct(r.rate, r.lo, r.hi),
             "mean score": num(r.score, r.score_lo, r.score_hi)} for r in order.itertuples()]
    equal = len({round(f, 12) for f in fair.values()}) == 1
    first_fair = next(iter(fair.values()), 1 / players)
    every_won = all(abs(f * n_seats[v] - 1) < 1e-12 for v, f in fair.items())
    shares = (f"{100 * first_fair:.1f} %" if equal else
              ", ".join(f"{v}: {100 * f:.1f} %" for v, f in fair.items()))
    if every_won and not n_note:
        fair_text = f"A fair position wins {100 / n_seats[arms[0]]:.1f} % of games."
    elif every_won:
        fair_text = f"A fair position wins 1/n of games ({shares}), {n_note}."
    else:
        fair_text = (f"A fair position wins (1 − q)/{n} of games ({shares}), q = the share of "
                     "games nobody won" + (f", {n_note}" if n_note else "") + ".")
    doc.p("Seats by their position in the turn order at the start of the game (0 = the start "
          "player, 1 = next …), 95% Wilson intervals over games. " + fair_text + " "
          + _position_text(found))
    doc.table(pd.DataFrame(rows))
    doc.chart("win_rate_by_position.png", "Win rate by start position (error bars: 95% Wilson; "
              "dashed: a fair position's share).",
              lambda ax: charts.plot_win_rates(ax, order, "position", _fair_line(fair, players)))
    out["seat_order"] = rows_of(order)

    doc.h("Scores and game length")
    show_no_winner = "died" in seats or any_no_winner
    dist = pd.DataFrame(srows)
    if not show_no_winner:
        dist = dist.drop(columns="no winner")
    stat_cols = list(stats.summary([]))
    shown_dist = dist.assign(**{c: [f"{v:.2f}" if not math.isnan(v) else "–" for v in dist[c]]
                                for c in stat_cols})  # one digit count for every statistic
    doc.p("Final score per seat-game [points]: mean, standard deviation and quantiles; mean "
          "rounds per game (95% t interval); games stopped by the turn cap instead of a normal "
          "end"
          + ("; share of games nobody won (95% Wilson interval over games)"
             if show_no_winner else "")
          + ("; death rate = share of seat-games whose player died, 95% Wilson interval at the "
             "effective number of games (the seats of one game die together more often than "
             "independent seats would; none in n games gives Wilson's bound for 0 of n games)"
             if "died" in seats else "") + ".")
    doc.table(shown_dist)
    doc.chart("score_histogram.png", "Final score distribution per variant.",
              lambda ax: charts.plot_score_histogram(ax, scores))
    out["scores"] = rows_of(dist)
    return out


def _fair_line(fair: Mapping[str, float], players: int) -> float | dict[str, float]:
    """The fair-share reference of a win-rate chart: one value when every variant has the same
    (``1/n`` when every game has a winner), else one per variant."""
    values = {round(f, 12) for f in fair.values()}
    if len(values) <= 1:
        return next(iter(fair.values()), 1 / players)
    return dict(fair)


def _position_text(found: Mapping[str, design.SeatDesign]) -> str:
    """What the turn-order table can show, from the arms' seat layouts."""
    if any(d.position_confounded for d in found.values()):
        return ("Seat rotation is off and the start player never moves: each policy always "
                "plays from the same position, so a position's win rate mixes the position "
                "with its policy (see the first-player section).")
    if not any(d.mixed for d in found.values()):
        return ""
    if all(d.rotation for d in found.values()):
        return "Policies rotate over the seats, so each seat sees each policy equally often."
    return ("Seat rotation is off, but the start player moves from game to game, so each "
            "policy reaches every position by chance.")


VARIANT_SEATS = ("variant", "game_id", "seat", "policy", "score", "won")


def variants(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
             run: Mapping[str, Any] | None = None, correction: str = "holm") -> dict:
    """Paired differences of every variant against the base, on the same game seeds.

    Per seat (win rate and score) — left out when every arm's seats are exchangeable
    (``design.SeatDesign``), where a seat's win rate cannot move — and per policy in mixed
    variants; the mean score over all seats always. Marks are corrected over the rows of each
    column (``correction``), a repeated test (``stats.mirrors``) counted once. Holds the base's
    rows and one variant's at a time (seats ``VARIANT_SEATS``).
    """
    seats = as_table(seats)
    arms = seats.variants()
    if len(arms) < 2:
        return {}
    found = design.designs(seats, run)
    exchangeable = design.all_exchangeable(found)
    doc.h("Variants against the base (paired on the same seeds)")
    parts: dict[str, list[pd.DataFrame]] = {"won": [], "score_seat": [], "score_all": [],
                                            "policy": []}
    base = seats.read(VARIANT_SEATS, [BASE]) if BASE in arms else None
    mixed = any(d.mixed for d in found.values())
    for var in arms:
        if var == BASE:
            continue
        v = seats.read(VARIANT_SEATS, [var])
        if base is not None:
            parts["won"].append(stats.pair_differences(base, v, var, "won", ("seat",)))
            parts["score_seat"].append(stats.pair_differences(base, v, var, "score", ("seat",)))
            parts["score_all"].append(stats.pair_differences(base, v, var, "score", ()))
            # one policy's gain mirrors the other's loss in a two-policy table: report the
            # policy with the fewest seats (the player the study is about)
            fewest = base["policy"].value_counts(sort=False)
            prefer = [(p,) for p in fewest.index[fewest == fewest.min()]]
            parts["policy"].append(stats.pair_differences(base, v, var, "won", ("policy",),
                                                          prefer=prefer))
        del v
    won, score_seat, score_all, pol = (
        stats.correct(concat(parts[k], ["variant", *by, *stats.DIFFERENCE_COLUMNS]), correction,
                      by[0] if by else None)
        for k, by in (("won", ["seat"]), ("score_seat", ["seat"]), ("score_all", []),
                      ("policy", ["policy"])))
    fam = CORRECTION_NAME[correction]
    doc.p("Each variant replays the base's games with the same seeds; the difference is taken "
          "game by game (variant − base) with a 95% t interval over games. `*` = significant "
          f"after {fam} correction over the rows of its column (a change that is an exact "
          "multiple of another row's in every game — one seat's gain is the other's loss — is "
          "the same test and counted once). Win-rate differences are in percentage points (pp).")
    if exchangeable:
        doc.p(design.exchangeable_reason(found) + " So no per-seat table here: the game-level "
              "outcomes of each variant (mean score, start-player advantage, no-winner share, "
              "death rate, score spread, length) are compared with the base in the balance "
              "section below.")
    else:
        rows = []
        for (var, grp), (_, sgrp) in zip(won.groupby("variant", sort=False),
                                         score_seat.groupby("variant", sort=False)):
            for w, sc in zip(grp.to_dict("records"), sgrp.to_dict("records")):
                rows.append({"variant": var, "seat": w["seat"],
                             "win rate base": f"{100 * w['base_mean']:.1f} %",
                             "win rate change": signed(w, 100, " pp", 1),
                             "score change": signed(sc)})
        doc.table(pd.DataFrame(rows))
    doc.p("Mean final score over all seats, change per game: " + "; ".join(
        f"{r['variant']}: {signed(r)} points" for r in score_all.to_dict("records"))
        + f" (`*` after {fam.split(' (')[0]} over the {len(score_all)} variant"
        + f"{'s' if len(score_all) != 1 else ''}).")
    out = {"won_by_seat": rows_of(won), "score_by_seat": rows_of(score_seat),
           "score_all": rows_of(score_all), "correction": correction,
           "per_seat_shown": not exchangeable}
    if mixed:
        doc.p("Win-rate change per policy (the policy's mean win share per seat in a game, "
              "variant − base; the base of each row is the same seats in the same games):")
        doc.table(pd.DataFrame({"variant": pol["variant"], "policy": pol["policy"],
                                "win rate base": [f"{100 * b:.1f} %" for b in pol["base_mean"]],
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
    returns ``None`` (it does not apply to these records) has no key. Arms of another player
    count than the base are left out of the paired sections (variants, balance) and compared
    in ``players.section`` (key ``players``).
    """
    games, seats = as_table(games), as_table(seats)
    arms = seats.variants()
    correction = correction_of(run)
    arm_counts = players_mod.counts(games)
    paired = players_mod.paired_arms(arm_counts)
    if len(paired) < len(arm_counts):  # the paired sections see one player count
        games_p, seats_p = games.only(paired), seats.only(paired)
    else:
        games_p, seats_p = games, seats
    many = len(arms) > MANY_VARIANTS
    if many:
        # per-variant tables and charts of 64 arms are unreadable: the generic sections show the
        # first arm; the balance table (one row per arm) and the study sections cover them all
        first = arms[0]
        doc.p(f"{len(arms)} variants: the next two sections show the first (`{first}`) only; "
              "every variant is in the per-variant tables below and in `summary.json`.")
        out = {"results": results(doc, games.only([first]), seats.only([first]), players, run),
               "variants": {}}
    else:
        out = {"results": results(doc, games, seats, players, run)}
        release_memory()
        out["variants"] = variants(doc, games_p, seats_p, run, correction)
    release_memory()
    replaced = many and any(s.replaces_balance is not None and s.replaces_balance(games)
                            for s in game_sections)
    if not replaced:  # else a game section shows each arm's balance
        out["balance"] = balance.section(doc, games_p, seats_p, players, run, correction)
        release_memory()
    if len(paired) < len(arm_counts):
        out["players"] = players_mod.section(doc, games, seats, correction)
        release_memory()
    for section in game_sections:
        facts = dict(run or {})
        numbers = section.numbers(games, seats, players, facts)
        if numbers is not None:
            section.write(doc, numbers, facts)
            out[section.key] = numbers
        release_memory()
    return out


MANY_VARIANTS = 8  # above this, generic per-variant tables give way to one-row-per-arm tables
