"""The generic report sections, built from the record tables alone.

Each builder takes the ``games`` and ``seats`` tables and a ``Doc`` to fill: its ``*_numbers``
computes what goes into ``summary.json``, its ``*_write`` words them, and it returns the numbers.
The tables are ``records.Table`` objects on the run's Parquet files (``render``) or plain
DataFrames; a builder reads the columns it uses, one variant's rows at a time where it can
(``records.py``), so the report's memory does not grow with the records. These sections work for
every game; a game's own sections (its ``study.py``, declared in its ``GameSpec.sections``) are
passed in by the caller and run after them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import astuple
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import balance, charts, design
from analyzer.report import players as players_mod
from analyzer.report.document import (
    BASE,
    CORRECTION_NAME,
    CORRECTION_SHORT,
    Doc,
    cells,
    concat,
    correction_of,
    num,
    pct,
    rows_of,
    signed,
)
from analyzer.report.extension import StudySection
from analyzer.report.records import Table, as_table, release_memory

RESULT_SEATS = ("variant", "game_id", "seat", "policy", "score", "won", "start_position", "died")


def results(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            run: Mapping[str, Any] | None = None) -> dict:
    """Win rate by policy and by seat, mean scores, score distribution, game length
    (``results_write`` of ``results_numbers``); returns the numbers for ``summary.json``."""
    found, fair, n_seats, scores = _results(games, seats, run)
    results_write(doc, found, design.designs(seats, run), fair, n_seats, scores)
    return found


def results_numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
                    run: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """For ``summary.json``, per variant and policy the win rate (``win_rate_by_policy``: no
    interval where one policy plays every seat, ``by_construction``) and mean score, per start
    position both (``seat_order``), per variant the final score's ``stats.summary`` [points] with
    the cells shown of rounds, turn-cap ends, no-winner share and death rate (``scores``). Games
    are the unit. Reads one variant at a time: games ``variant, rounds, end``; ``RESULT_SEATS``."""
    return _results(games, seats, run)[0]


def _results(games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
             run: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict, dict, dict]:
    """``results_numbers`` and per arm the facts ``results_write`` takes: fair, n_seats, scores."""
    games, seats = as_table(games), as_table(seats)
    found = design.designs(seats, run)
    win, score, order, srows, fair, n_seats, scores = {}, {}, [], [], {}, {}, {}
    any_no_winner = False
    for var in seats.variants():
        sv = seats.read(RESULT_SEATS, [var])
        g = games.read(("variant", "rounds", "end"), [var])
        w = stats.win_rates(sv, ("variant", "policy"))
        if not found[var].mixed:  # one policy at every seat: (1 − q)/n by construction
            w["lo"], w["hi"] = math.nan, math.nan
        w["by_construction"] = not found[var].mixed
        win[var] = w
        score[var] = stats.mean_values(sv, ("variant", "policy"), "score")
        order.append(stats.seat_order(sv))
        order[-1].insert(0, "variant", var)
        per_game = sv.groupby("game_id")
        won = per_game["won"].sum()  # per game: 0 when nobody won
        fair[var] = float((won / per_game.size()).mean())
        n_seats[var] = int(per_game.size().max())
        scores[var] = sv["score"].to_numpy()
        any_no_winner |= bool((won <= 0).any())
        row = {"variant": var, **{k: round(v, 2) for k, v in stats.summary(sv["score"]).items()},
               "rounds": num(*astuple(stats.mean_interval(g["rounds"].to_numpy()))),
               "turn-cap ends": int((g["end"] == "turn_cap").sum()),
               "no winner": pct(*astuple(stats.wilson(float((won <= 0).sum()), len(won))))}
        if "died" in sv:
            row["death rate"] = pct(*astuple(stats.clustered_share(
                per_game["died"].sum().to_numpy(float), per_game.size().to_numpy(float))))
        srows.append(row)
        del sv, g, won, per_game
    dist = pd.DataFrame(srows)
    if not ("died" in seats or any_no_winner):
        dist = dist.drop(columns="no winner")
    return ({"win_rate_by_policy": rows_of(pd.concat([win[v] for v in sorted(win)])),
             "score_by_policy": rows_of(pd.concat([score[v] for v in sorted(score)])),
             "seat_order": rows_of(pd.concat(order)), "scores": rows_of(dist)},
            fair, n_seats, scores)


def results_write(doc: Doc, n: Mapping[str, Any], designs: Mapping[str, design.SeatDesign],
                  fair: Mapping[str, float], n_seats: Mapping[str, int],
                  scores: Mapping[str, np.ndarray]) -> None:
    """The "Win rates", "Turn order" and "Scores and game length" sections of the numbers ``n``
    (``results_numbers``) and, per arm, facts not in ``summary.json``: ``designs``, its seats'
    layout; ``fair``, a fair position's win share (1 − q)/n, the mean over games of won / seats;
    ``n_seats``, its player count; ``scores``, its final scores [points], shape (seat-games,)."""
    count, n_note = players_mod.fair_share_n(n_seats)
    # the charts' fair share: one line when every variant has the same, else one per variant
    line = (dict(fair) if len({round(f, 12) for f in fair.values()}) > 1
            else next(iter(fair.values())))
    doc.h("Win rates")
    by_policy = pd.DataFrame(n["win_rate_by_policy"])
    if any(d.mixed for d in designs.values()):
        tab = by_policy.merge(pd.DataFrame(n["score_by_policy"]), on=["variant", "policy"],
                              suffixes=("", "_score"))
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
                  lambda ax: charts.plot_win_rates(ax, shown, "policy", line))
    else:
        doc.p("Every seat of a variant plays the same policy, so a win rate by policy is "
              f"(1 − q)/{count} by construction (q = share of games nobody won"
              + (f"; {n_note}" if n_note else "") + ") and is not shown; see the start "
              "positions below.")

    doc.h("Turn order")
    order = pd.DataFrame(n["seat_order"])
    every_won = all(abs(f * n_seats[v] - 1) < 1e-12 for v, f in fair.items())
    shares = (", ".join(f"{v}: {100 * f:.1f} %" for v, f in fair.items())
              if isinstance(line, dict) else f"{100 * line:.1f} %")
    if every_won and not n_note:
        fair_text = f"A fair position wins {100 / next(iter(n_seats.values())):.1f} % of games."
    elif every_won:
        fair_text = f"A fair position wins 1/n of games ({shares}), {n_note}."
    else:
        fair_text = (f"A fair position wins (1 − q)/{count} of games ({shares}), q = the "
                     "share of games nobody won" + (f", {n_note}" if n_note else "") + ".")
    doc.p("Seats by their position in the turn order at the start of the game (0 = the start "
          "player, 1 = next …), 95% Wilson intervals over games. " + fair_text + " "
          + _position_text(designs))
    doc.table(pd.DataFrame({"variant": order["variant"], "start position": order["position"],
                            "win rate": cells(order, pct, "rate", "lo", "hi"),
                            "mean score": cells(order, num, "score")}))
    doc.chart("win_rate_by_position.png", "Win rate by start position (error bars: 95% Wilson; "
              "dashed: a fair position's share).",
              lambda ax: charts.plot_win_rates(ax, order, "position", line))

    doc.h("Scores and game length")
    dist = pd.DataFrame(n["scores"])
    shown_dist = dist.assign(**{c: [f"{v:.2f}" if not math.isnan(v) else "–" for v in dist[c]]
                                for c in stats.summary([])})  # one digit count for every statistic
    doc.p("Final score per seat-game [points]: mean, standard deviation and quantiles; mean "
          "rounds per game (95% t interval); games stopped by the turn cap instead of a normal "
          "end"
          + ("; share of games nobody won (95% Wilson interval over games)"
             if "no winner" in dist else "")
          + ("; death rate = share of seat-games whose player died, 95% Wilson interval at the "
             "effective number of games (the seats of one game die together more often than "
             "independent seats would; none in n games gives Wilson's bound for 0 of n games)"
             if "death rate" in dist else "") + ".")
    doc.table(shown_dist)
    doc.chart("score_histogram.png", "Final score distribution per variant.",
              lambda ax: charts.plot_score_histogram(ax, scores))


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
# what ``variants_numbers`` pairs: its key in ``summary.json`` -> (metric, the rows' columns)
PAIRED = {"won_by_seat": ("won", ("seat",)), "score_by_seat": ("score", ("seat",)),
          "score_all": ("score", ()), "won_by_policy": ("won", ("policy",))}


def variants(doc: Doc, seats: Table | pd.DataFrame, run: Mapping[str, Any] | None = None,
             correction: str = "holm") -> dict:
    """Paired differences of every variant against the base, on the same game seeds
    (``variants_write`` of ``variants_numbers``); returns the numbers (``{}`` with a single
    arm)."""
    found = variants_numbers(seats, run, correction)
    if found:
        variants_write(doc, found, design.designs(seats, run))
    return found


def variants_numbers(seats: Table | pd.DataFrame, run: Mapping[str, Any] | None = None,
                     correction: str = "holm") -> dict[str, Any]:
    """The paired differences variant − base for ``summary.json`` (``{}`` with a single arm),
    ``PAIRED`` (``won_by_policy`` only when some arm mixes policies), each key's rows corrected
    as a family (``correction``; a repeated test, ``stats.mirrors``, counted once), and
    ``per_seat_shown``: false when every arm's seats are exchangeable (``design.SeatDesign``).
    Holds the base's rows and one variant's at a time (seats ``VARIANT_SEATS``)."""
    seats = as_table(seats)
    arms = seats.variants()
    if len(arms) < 2:
        return {}
    found = design.designs(seats, run)
    parts: dict[str, list[pd.DataFrame]] = {k: [] for k in PAIRED}
    base = seats.read(VARIANT_SEATS, [BASE]) if BASE in arms else None
    for var in [a for a in arms if a != BASE] if base is not None else []:
        v = seats.read(VARIANT_SEATS, [var])
        # one policy's gain mirrors the other's loss in a two-policy table: report the
        # policy with the fewest seats (the player the study is about)
        fewest = base["policy"].value_counts(sort=False)
        prefer = [(p,) for p in fewest.index[fewest == fewest.min()]]
        for k, (metric, by) in PAIRED.items():
            parts[k].append(stats.pair_differences(base, v, var, metric, by,
                                                   prefer=prefer if by == ("policy",) else ()))
        del v
    out = {k: rows_of(stats.correct(concat(parts[k], ["variant", *by, *stats.DIFFERENCE_COLUMNS]),
                                    correction, by[0] if by else None))
           for k, (_, by) in PAIRED.items()}
    pol = out.pop("won_by_policy")
    out.update(correction=correction, per_seat_shown=not design.all_exchangeable(found))
    return out | ({"won_by_policy": pol} if any(d.mixed for d in found.values()) else {})


def variants_write(doc: Doc, n: Mapping[str, Any],
                   designs: Mapping[str, design.SeatDesign]) -> None:
    """The "Variants against the base" section of the numbers ``n`` (``variants_numbers``, not
    ``{}``); ``designs``: the arms' ``design.SeatDesign`` (not in ``summary.json``)."""
    doc.h("Variants against the base (paired on the same seeds)")
    fam, short = CORRECTION_NAME[n["correction"]], CORRECTION_SHORT[n["correction"]]
    doc.p("Each variant replays the base's games with the same seeds; the difference is taken "
          "game by game (variant − base) with a 95% t interval over games. `*` = significant "
          f"after {fam} correction over the rows of its column (a change that is an exact "
          "multiple of another row's in every game — one seat's gain is the other's loss — is "
          "the same test and counted once). Win-rate differences are in percentage points (pp).")
    if not n["per_seat_shown"]:
        doc.p(design.exchangeable_reason(designs) + " So no per-seat table here: the game-level "
              "outcomes of each variant (mean score, start-player advantage, no-winner share, "
              "death rate, score spread, length) are compared with the base in the balance "
              "section below.")
    else:
        doc.table(pd.DataFrame([{"variant": w["variant"], "seat": w["seat"],
                                 "win rate base": f"{100 * w['base_mean']:.1f} %",
                                 "win rate change": signed(w, 100, " pp", 1),
                                 "score change": signed(sc)}
                                for w, sc in zip(n["won_by_seat"], n["score_by_seat"])]))
    score_all = n["score_all"]
    doc.p("Mean final score over all seats, change per game: " + "; ".join(
        f"{r['variant']}: {signed(r)} points" for r in score_all)
        + f" (`*` after {short} over the {len(score_all)} variant"
        + f"{'s' if len(score_all) != 1 else ''}).")
    if "won_by_policy" in n:
        doc.p("Win-rate change per policy (the policy's mean win share per seat in a game, "
              "variant − base; the base of each row is the same seats in the same games):")
        doc.table(pd.DataFrame([(r["variant"], r["policy"], f"{100 * r['base_mean']:.1f} %",
                                 signed(r, 100, " pp", 1)) for r in n["won_by_policy"]],
                               columns=["variant", "policy", "win rate base", "win rate change"]))


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
    split = len(paired) < len(arm_counts)  # the paired sections see one player count
    games_p, seats_p = (games.only(paired), seats.only(paired)) if split else (games, seats)
    many = len(arms) > MANY_VARIANTS
    if many:
        # per-variant tables and charts of 64 arms are unreadable: the generic sections show the
        # first arm; the balance table (one row per arm) and the study sections cover them all
        first = arms[0]
        doc.p(f"{len(arms)} variants: the next two sections show the first (`{first}`) only; "
              "every variant is in the per-variant tables below and in `summary.json`.")
        out = {"results": results(doc, games.only([first]), seats.only([first]), run),
               "variants": {}}
    else:
        out = {"results": results(doc, games, seats, run)}
        release_memory()
        out["variants"] = variants(doc, seats_p, run, correction)
    release_memory()
    replaced = many and any(s.replaces_balance is not None and s.replaces_balance(games)
                            for s in game_sections)
    if not replaced:  # else a game section shows each arm's balance
        out["balance"] = balance.section(doc, games_p, seats_p, run, correction)
        release_memory()
    if split:
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
