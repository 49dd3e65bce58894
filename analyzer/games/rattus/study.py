"""Rattus's own report sections: the Sultan's diplomat scoring and the value of the Trader's
caravan (``scenarios/africanus-sultan.toml``), each with the paired comparison against the
variants that take the card out.

Declared in ``SPEC.sections`` (``__init__.py``) and called by the generic report after its own
sections (``analyzer/report/sections.py``). Works from the record tables alone: games
``class_cards``, ``n_players``; seats ``sultan_points``, ``diplomats_*``, ``tiebreak``,
``caravan_*``, ``won``, ``score`` (see ``metrics.py``). Each section writes nothing beyond an
empty result when no arm has its card in play.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.games.base import StudySection
from analyzer.games.rattus import findings
from analyzer.report import balance, charts, design
from analyzer.report import players as player_counts
from analyzer.report.document import (
    BASE,
    CORRECTION_SHORT,
    Doc,
    clip_share,
    concat,
    correction_of,
    iv_dict,
    iv_tuple,
    num,
    pct,
    rows_of,
    signed,
)
from analyzer.report.records import Table, as_table


def _arms_with_card(games: Table, seats: Table, card: str, active: str) -> list[str]:
    """Variants where ``card`` is in play (from ``class_cards``, else from activity in records)."""
    if "class_cards" in games:
        g = games.read(("variant", "class_cards"))
        has = g.assign(_has=_has_card(g, card)).groupby("variant", sort=False)["_has"].any()
        return [v for v, ok in has.items() if ok]
    act = seats.read(("variant", active)).groupby("variant", sort=False)[active].sum()
    return [v for v, total in act.items() if total > 0]


def _has_card(games: pd.DataFrame, card: str) -> pd.Series:
    """Per game row: is ``card`` among the game's ``class_cards`` (comma-separated)?"""
    with_card = [s for s in pd.unique(games["class_cards"])
                 if card in [c.strip() for c in str(s).split(",")]]
    return games["class_cards"].isin(with_card)


def _games_with_card(games: Table, arm: str, card: str) -> np.ndarray | None:
    """The ``game_id`` of the games of ``arm`` with ``card`` among their ``class_cards``, or
    ``None`` when the card is in every game (or the records have no ``class_cards``)."""
    if "class_cards" not in games:
        return None
    g = games.read(("game_id", "class_cards"), [arm])
    has = _has_card(g, card)
    return None if has.all() else g.loc[has, "game_id"].to_numpy()


def _in_play(games: Table, seats: Table, arm: str, card: str,
             columns: tuple[str, ...]) -> tuple[pd.DataFrame, int, str]:
    """The seat rows of ``arm`` (seat ``columns``) from games with ``card`` in play, the arm's
    game count, and a phrase for the denominator ("of 82 games with the Sultan in play (of 100)").

    Cards drawn at random per game (no fixed ``class_cards``) put the card in only some games;
    every rate of a card's section is over those games only.
    """
    s = seats.read(columns, [arm])
    n_all = s["game_id"].nunique()
    ids = _games_with_card(games, arm, card)
    if ids is not None:
        s = s[s["game_id"].isin(ids)]
    n = s["game_id"].nunique()
    phrase = f"{n} games with the {card.title()} in play"
    if n != n_all:
        phrase += f" (of {n_all}; the class cards are drawn per game)"
    return s, n, phrase


PAIR_SEATS = ("variant", "game_id", "seat", "won", "score")


def _card_out(doc: Doc, games: Table, seats: Table, card: str, active: str, user: str,
              run: Mapping[str, Any] | None = None) -> dict:
    """Win-rate and score change of variants that take ``card`` out while the base has it.

    Per seat — or, when every arm's seats are exchangeable (``design.SeatDesign``: a seat's
    win rate cannot move), the game-level outcomes (``balance.diff_table``'s metrics) — over
    the games whose base had the card; then the seats that used the card in a base game
    (``user`` > 0) followed into the same game without the card (cluster-robust over games:
    the game is the unit). Marks are corrected over the rows of each column (the run's
    correction, ``document.correction_of``: Holm unless the study asks for BH). Holds the base's
    rows and one variant's at a time.
    """
    with_card = _arms_with_card(games, seats, card, active)
    # an arm of another player count plays other games: not paired seat by seat with the base
    paired = player_counts.paired_arms(player_counts.counts(games))
    outs = [v for v in seats.variants() if v not in with_card and v in paired]
    if BASE not in with_card or not outs:
        doc.p(f"No variant takes the {card.title()} out of the base game, so there is no "
              "with/without comparison.")
        return {}
    found = design.designs(seats, run)
    exchangeable = design.all_exchangeable({v: found[v] for v in (BASE, *outs)})
    method = correction_of(run)
    mname = CORRECTION_SHORT[method]
    base = seats.read((*PAIR_SEATS, user), [BASE])
    ids = _games_with_card(games, BASE, card)  # only the games whose base had the card
    base_in = base if ids is None else base[base["game_id"].isin(ids)]
    users = base.loc[base[user] > 0, ["game_id", "seat", "won", "score"]]
    per_game = base_in.groupby("game_id")["won"].agg(["sum", "size"])
    fair = float((per_game["sum"] / per_game["size"]).mean())  # (1 − q)/n of the base games
    del base
    seat_ids = balance.seat_numbers(seats)
    base_pg = None
    if exchangeable:
        base_pg = _game_level(games, seats, BASE, ids, seat_ids).set_index("game_id")
    won, score, followed, levels = [], [], [], []
    for var in outs:
        other = seats.read(PAIR_SEATS, [var])
        other_in = other if ids is None else other[other["game_id"].isin(ids)]
        won.append(stats.pair_differences(base_in, other_in, var, "won", ("seat",)))
        score.append(stats.pair_differences(base_in, other_in, var, "score", ("seat",)))
        if base_pg is not None:
            levels += balance.arm_differences(
                base_pg, _game_level(games, seats, var, ids, seat_ids).set_index("game_id"), var)
        del other_in
        pair = users.merge(other[["game_id", "seat", "won", "score"]], on=["game_id", "seat"],
                           suffixes=("_b", "_v"))
        del other
        n_games = pair["game_id"].nunique()
        if n_games >= 2:  # the users' outcomes in the base and in this variant
            # several users of one game are not independent: games are the unit
            won_by_game = pair.groupby("game_id")[["won_b", "won_v"]].sum()
            fell = won_by_game["won_b"] > won_by_game["won_v"]  # did worse without the card
            followed.append({
                "variant": var, "n": len(pair), "games": n_games,
                "fell": _examples(won_by_game.index[fell]),
                "rose": _examples(won_by_game.index[~fell & (won_by_game["won_b"]
                                                             < won_by_game["won_v"])]),
                "won_b": pair["won_b"].mean(), "won_v": pair["won_v"].mean(),
                "dw": stats.clustered_difference(pair["won_b"], pair["won_v"], pair["game_id"]),
                "ds": stats.clustered_difference(pair["score_b"], pair["score_v"],
                                                 pair["game_id"])})
        del pair
    del base_in, users
    columns = ["variant", "seat", *stats.DIFFERENCE_COLUMNS]
    won = stats.correct(concat(won, columns), method, "seat")
    score = stats.correct(concat(score, columns), method, "seat")
    out: dict[str, Any] = {"won_by_seat": rows_of(won), "score_by_seat": rows_of(score),
                           "users": [], "correction": method, "per_seat_shown": not exchangeable}
    if exchangeable:
        diffs = balance.correct_by_metric(pd.DataFrame(levels, columns=balance.DIFF_COLUMNS),
                                          method)
        labels = {"score": ("mean score", 1, "", 2), "start_adv": ("start-player advantage",
                                                                    100, " pp", 1),
                  "no_winner": ("no winner", 100, " pp", 1), "spread": ("score spread", 1, "", 1),
                  "rounds": ("rounds", 1, "", 2)}
        rows = []
        for var, grp in diffs.groupby("variant", sort=False):
            row = {"variant": var}
            for r in grp.to_dict("records"):
                if r["metric"] in labels:
                    name, sc, unit, dig = labels[r["metric"]]
                    row[name] = signed(r, sc, unit, dig)
            rows.append(row)
        doc.p(f"Without the {card.title()} ({', '.join(outs)}), same seeds: "
              + design.exchangeable_reason({v: found[v] for v in (BASE, *outs)})
              + " So the change is shown in game-level outcomes (variant − base per game, 95% t "
              f"intervals, `*` after {mname} correction over the rows of each column):")
        doc.table(pd.DataFrame(rows))
        out["game_level"] = rows_of(diffs)
    else:
        rows = [{"variant": w["variant"], "seat": w["seat"],
                 "win rate with": f"{100 * w['base_mean']:.1f} %",
                 f"win rate without {card}": f"{100 * w['variant_mean']:.1f} %",
                 "change": signed(w, 100, " pp", 1), "score change": signed(sc)}
                for w, sc in zip(won.to_dict("records"), score.to_dict("records"))]
        doc.p(f"Without the {card.title()} ({', '.join(outs)}), same seeds, per seat "
              f"(variant − base, 95% intervals, `*` after {mname} correction over the rows of each "
              "column):")
        doc.table(pd.DataFrame(rows))
    users_table = pd.DataFrame([{"variant": f["variant"], "p_value": f["dw"].p_value,
                                 "lo": f["dw"].lo, "hi": f["dw"].hi} for f in followed])
    flags = stats.correct(users_table, method)["significant_adjusted"].tolist() \
        if len(users_table) else []
    score_flags = stats.correct(pd.DataFrame([{"p_value": f["ds"].p_value, "lo": f["ds"].lo,
                                               "hi": f["ds"].hi} for f in followed]),
                                method)["significant_adjusted"].tolist() if followed else []
    for f, sig, ssig in zip(followed, flags, score_flags):
        var, dw, ds = f["variant"], f["dw"], f["ds"]
        doc.p(f"The {f['n']} seats that used the {card.title()} (`{user}` > 0, in {f['games']} "
              f"games) won {100 * f['won_b']:.1f} % of their base games (a fair position wins "
              f"{100 * fair:.1f} %); the same seats in the same games of `{var}` won "
              f"{100 * f['won_v']:.1f} %: change "
              f"{signed({'diff': dw.mean, 'lo': dw.lo, 'hi': dw.hi, 'significant_adjusted': sig}, 100, ' pp', 1)}, "
              f"score change {signed({'diff': ds.mean, 'lo': ds.lo, 'hi': ds.hi, 'significant_adjusted': ssig})} points "
              "(95% cluster-robust t intervals with the game as the unit, as the users of one "
              f"game are not independent; `*` after {mname} over the {len(followed)} variant"
              f"{'s' if len(followed) != 1 else ''}). "
              "(These seats are selected by what happened in the base game, so part of the "
              "change is selection, not the card.)")
        out["users"].append({"variant": var, "n": f["n"], "games": f["games"],
                             "won_with": f["won_b"], "won_without": f["won_v"],
                             "won_diff": vars(dw), "score_diff": vars(ds),
                             "won_significant_adjusted": bool(sig),
                             "score_significant_adjusted": bool(ssig), "fair": fair,
                             "examples": f["fell"] if dw.mean <= 0 else f["rose"]})
    return out


def _game_level(games: Table, seats: Table, arm: str, ids: np.ndarray | None,
                seat_ids: list[int]) -> pd.DataFrame:
    """``balance.arm_per_game`` of ``arm``, over the games ``ids`` (all when ``None``)."""
    g = games.read(("variant", "game_id", "rounds"), [arm])
    s = seats.read(balance.BALANCE_SEATS, [arm])
    if ids is not None:
        g, s = g[g["game_id"].isin(ids)], s[s["game_id"].isin(ids)]
    return balance.arm_per_game(g, s, arm, seat_ids)


SULTAN_SEATS = ("variant", "game_id", "seat", "score", "won", "tiebreak", "sultan_points",
                "diplomats_surviving", "diplomats_placed")


def sultan(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
           players: int, run: Mapping[str, Any] | None = None) -> dict:
    """Sultan diplomat scoring (docs/rules/rattus.md §2.3): points per seat, the diplomat leader's
    win rate, games whose winner the diplomat points decided, and the Sultan-out comparison.

    Reads the studied arm's seats (``SULTAN_SEATS``), then ``_card_out``'s pairs of arms.
    """
    games, seats = as_table(games), as_table(seats)
    arms = _arms_with_card(games, seats, "sultan", "sultan_points")
    if not arms:
        return {}
    arm = BASE if BASE in arms else arms[0]
    s, n_games, phrase = _in_play(games, seats, arm, "sultan", SULTAN_SEATS)
    out: dict[str, Any] = {"variant": arm, "games": n_games}
    doc.h("Sultan: diplomat scoring")
    doc.p(f"From the `{arm}` games: the {phrase}; every share below is over these games. "
          "Diplomat points are the Sultan's end-game points for the most / second-most diplomat "
          "discs on the board.")
    dist = []
    for seat, grp in s.groupby("seat")["sultan_points"]:
        d = stats.distribution(grp)
        d.insert(0, "seat", seat)
        dist.append(d)
    dist = pd.concat(dist, ignore_index=True)
    means = stats.mean_values(s, ("seat",), "sultan_points")
    piv = dist.pivot(index="seat", columns="value", values="share").fillna(0.0)
    tab = pd.DataFrame({"seat": piv.index})
    for v in piv.columns:
        tab[f"{v} pts"] = [f"{100 * x:.1f} %" for x in piv[v]]
    tab["mean points"] = [num(m, lo, hi) for m, lo, hi in zip(means["mean"], means["lo"], means["hi"])]
    doc.table(tab)
    doc.chart("diplomat_points.png", "Diplomat points per seat: share of games (95% Wilson).",
              lambda ax: charts.plot_value_shares(ax, dist.assign(seat=dist["seat"].astype(str)),
                                                  "seat", "diplomat points [points]",
                                                  "Diplomat points per seat"))
    out["points_distribution"] = rows_of(dist)
    out["points_mean"] = rows_of(means)

    # the holder(s) of most diplomat discs on the board at the end
    col = "diplomats_surviving" if "diplomats_surviving" in s else "sultan_points"
    top = s.groupby("game_id")[col].transform("max")
    leader = (s[col] == top) & (top > 0)
    per_game = pd.DataFrame({"game_id": s["game_id"], "lead": leader,
                             "lead_won": s["won"].where(leader, 0.0), "won": s["won"]}).groupby(
        "game_id").agg(n_lead=("lead", "sum"), lead_won=("lead_won", "sum"), won=("won", "sum"),
                       seats=("lead", "size"))
    per_game = per_game[per_game["n_lead"] > 0]
    iv = stats.wilson(float(per_game["lead_won"].sum()), len(per_game))
    # without an edge the k holders win k/n of the game's win share (0 in a game nobody won)
    fair = (float((per_game["n_lead"] * per_game["won"] / per_game["seats"]).mean())
            if len(per_game) else math.nan)
    doc.p(f"**Most diplomats wins**: in the {len(per_game)} games where someone had a diplomat on "
          f"the board at the end, the holder(s) of the most diplomats won {pct(*iv_tuple(iv))} of them "
          f"(a tie for first counts 1/k; without any edge they would win {100 * fair:.1f} %).")
    out["leader_wins"] = {"games": len(per_game), **iv_dict(iv), "no_edge": fair,
                          "examples": _examples(per_game.index[per_game["lead_won"] > 0])}

    changed = stats.winners_without(s, "sultan_points")
    iv2 = stats.wilson(int(changed.sum()), len(changed))
    doc.p(f"**Diplomat points changed the winner** in {pct(*iv_tuple(iv2))} of games "
          f"({int(changed.sum())} of {len(changed)} games with the Sultan in play): recomputing the winner from score − "
          "diplomat points (same tie-break) gives a different set of winners.")
    out["winner_changed"] = {"games": len(changed), "changed": int(changed.sum()), **iv_dict(iv2),
                             "examples": _examples(changed.index.get_level_values("game_id")[
                                 changed.to_numpy(bool)])}
    user = "diplomats_placed" if "diplomats_placed" in s else "sultan_points"
    del s, per_game, changed
    out["sultan_out"] = _card_out(doc, games, seats, "sultan", "sultan_points", user, run)
    return out


CARAVAN_SEATS = ("variant", "game_id", "caravan_*")


def caravan(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            players: int, run: Mapping[str, Any] | None = None) -> dict:
    """Caravan value (docs/rules/rattus.md §2.2): bonus cubes per caravan move for the mover and for
    opponents, how many survive to the end, and the Trader-out comparison.

    Reads the studied arm's seats (``CARAVAN_SEATS``), then ``_card_out``'s pairs of arms.
    """
    games, seats = as_table(games), as_table(seats)
    arms = _arms_with_card(games, seats, "trader", "caravan_moves")
    if not arms:
        return {}
    arm = BASE if BASE in arms else arms[0]
    s, n_games, phrase = _in_play(games, seats, arm, "trader", CARAVAN_SEATS)
    cols = ["caravan_moves", "caravan_cubes_own", "caravan_cubes_given",
            "caravan_cubes_own_surviving", "caravan_cubes_received",
            "caravan_cubes_received_surviving"]
    g = s.groupby("game_id")[[c for c in cols if c in s]].sum()
    moves = g["caravan_moves"].to_numpy(float)
    doc.h("Caravan: value of the Trader's bonus cubes")
    mv = stats.mean_interval(moves)
    doc.p(f"From the `{arm}` games: the {phrase}. The caravan moved "
          f"{num(mv.estimate, mv.lo, mv.hi)} times per game with the Trader in play. Bonus cubes per move (ratio of totals over games, 95% delta-method intervals):")
    own = stats.ratio_interval(g["caravan_cubes_own"], moves)
    given = stats.ratio_interval(g["caravan_cubes_given"], moves)
    total = stats.ratio_interval(g["caravan_cubes_own"] + g["caravan_cubes_given"], moves)
    rows = [("mover", "placed", own), ("opponents", "placed", given)]
    surv_own = surv_recv = None
    if "caravan_cubes_own_surviving" in g:
        rows.append(("mover", "surviving",
                     stats.ratio_interval(g["caravan_cubes_own_surviving"], moves)))
        surv_own = clip_share(stats.ratio_interval(g["caravan_cubes_own_surviving"],
                                               g["caravan_cubes_own"]))
    if "caravan_cubes_received_surviving" in g:
        rows.append(("opponents", "surviving",
                     stats.ratio_interval(g["caravan_cubes_received_surviving"], moves)))
        surv_recv = clip_share(stats.ratio_interval(g["caravan_cubes_received_surviving"],
                                                g["caravan_cubes_received"]))
    table = pd.DataFrame([(w, st, iv.estimate, iv.lo, iv.hi) for w, st, iv in rows],
                         columns=["who", "stage", "value", "lo", "hi"])
    doc.table(pd.DataFrame({"cubes go to": table["who"], "stage": table["stage"],
                            "cubes per move": [num(v, lo, hi) for v, lo, hi in
                                               zip(table["value"], table["lo"], table["hi"])]}))
    doc.p(f"All bonus cubes: {num(total.estimate, total.lo, total.hi)} per move.")
    out: dict[str, Any] = {"variant": arm, "games": n_games, "moves_per_game": iv_dict(mv),
                           "per_move": rows_of(table),
                           "total_per_move": iv_dict(total)}
    if surv_own is not None and surv_recv is not None:
        doc.p(f"Share surviving to the end: mover's own bonus cubes {pct(*iv_tuple(surv_own))}, "
              f"cubes handed to opponents {pct(*iv_tuple(surv_recv))}. Cubes of one colour are "
              "identical, so \"surviving\" is an expected count: each time a seat loses, moves or "
              "sends to the palace cubes of a region, they are taken at random among its ordinary "
              "cubes there (the diplomat's cube leaves last, docs/rules/rattus.md §2.3), and a bonus "
              "cube that moves keeps counting where it goes.")
        out["survival_own"] = iv_dict(surv_own)
        out["survival_given"] = iv_dict(surv_recv)
    doc.chart("caravan_bonus.png", "Caravan bonus cubes per move: mover vs opponents.",
              lambda ax: plot_caravan(ax, table))
    del s, g
    out["trader_out"] = _card_out(doc, games, seats, "trader", "caravan_moves", "caravan_moves",
                                  run)
    return out


def plot_caravan(ax, table: pd.DataFrame) -> None:
    """Bonus cubes per caravan move, for the mover and for opponents, placed and surviving.

    ``table``: columns ``[who, stage, value, lo, hi]`` with ``who`` in {mover, opponents} and
    ``stage`` in {placed, surviving}.
    """
    charts.grouped_bars(ax, table, "who", "stage", "value", "lo", "hi")
    ax.set_xlabel("who gets the bonus cube")
    ax.set_ylabel("cubes per caravan move")
    ax.set_title("Caravan bonus cubes per move (95% intervals)")


def _examples(game_ids, k: int = 3) -> list[int]:
    """The first ``k`` of ``game_ids`` (ascending), for a key finding's example games."""
    return sorted(int(i) for i in game_ids)[:k]


SECTIONS = (StudySection("sultan", sultan, findings=findings.sultan),
            StudySection("caravan", caravan, findings=findings.caravan))
