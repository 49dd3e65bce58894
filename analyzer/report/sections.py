"""Report sections built from the record tables alone.

Each builder takes the ``games`` and ``seats`` tables and a ``Doc`` to fill, and returns its
numbers for ``summary.json``. The tables are ``records.Table`` objects on the run's Parquet files
(``render``) or plain DataFrames; a builder reads the columns it uses, one variant's rows at a
time where it can (``records.py``), so the report's memory does not grow with the records. The
generic sections work for every game; a study section activates only when its columns are
present (``sultan_points`` → Sultan diplomats, ``caravan_cubes_own`` → caravan), so other games
get the generic report.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import charts
from analyzer.report.records import Table, as_table, release_memory

BASE = "base"


@dataclass
class Doc:
    """A report as a list of blocks: ``("h", text)``, ``("p", text)``, ``("table", DataFrame)``,
    ``("chart", file name, caption)``; charts are written to ``chart_dir`` as they are added."""

    chart_dir: Path
    blocks: list[tuple] = field(default_factory=list)

    def h(self, text: str) -> None:
        self.blocks.append(("h", text))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def table(self, df: pd.DataFrame) -> None:
        self.blocks.append(("table", df))

    def chart(self, name: str, caption: str, draw, size=(7.0, 4.0)) -> None:
        charts.save_png(draw, self.chart_dir / name, size)
        self.blocks.append(("chart", name, caption))


def pct(rate: float, lo: float, hi: float) -> str:
    """``"25.3 % [24.1, 26.5]"``."""
    if rate is None or (isinstance(rate, float) and math.isnan(rate)):
        return "–"
    return f"{100 * rate:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]"


def num(mean: float, lo: float, hi: float, digits: int = 2) -> str:
    """``"12.34 [12.01, 12.67]"``."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "–"
    if isinstance(lo, float) and math.isnan(lo):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def signed(d: pd.Series | dict, scale: float = 1.0, unit: str = "", digits: int = 2) -> str:
    """A paired difference as ``"+1.20 pp [0.40, 2.00] *"`` (``*`` = significant at 95%)."""
    star = " *" if d["significant"] else ""
    return (f"{scale * d['diff']:+.{digits}f}{unit} [{scale * d['lo']:+.{digits}f}, "
            f"{scale * d['hi']:+.{digits}f}]{star}")


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in df.to_dict(orient="records")]


RESULT_SEATS = ("variant", "game_id", "seat", "policy", "score", "won", "start_position", "died")


def results(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            players: int) -> dict:
    """Win rate by policy and by seat, mean scores, score distribution, game length.

    Reads one variant at a time: games ``variant, rounds, end``; seats ``RESULT_SEATS``.
    """
    games, seats = as_table(games), as_table(seats)
    arms = seats.variants()
    win, score, order_all, summaries, scores = {}, {}, [], [], {}
    policies: set[str] = set()
    mixed = False  # some variant seats several policies
    for var in arms:
        sv = seats.read(RESULT_SEATS, [var])
        g = games.read(("variant", "rounds", "end"), [var])
        win[var] = stats.win_rates(sv, ("variant", "policy"))
        score[var] = stats.mean_values(sv, ("variant", "policy"), "score")
        mixed = mixed or sv["policy"].nunique() > 1
        policies.update(pd.unique(sv["policy"]))
        so = stats.seat_order(sv)
        so.insert(0, "variant", var)
        order_all.append(so)
        rounds = stats.mean_interval(g["rounds"].to_numpy())
        won = sv.groupby("game_id")["won"].sum()  # per game: 0 when nobody won
        summaries.append({
            "variant": var, "summary": stats.summary(sv["score"]), "rounds": rounds,
            "cap": int((g["end"] == "turn_cap").sum()),
            "no_winner": stats.wilson(float((won <= 0).sum()), len(won)),
            "any_no_winner": bool((won <= 0).any()),
            "death": stats.wilson(float(sv["died"].sum()), len(sv)) if "died" in sv else None})
        scores[var] = sv["score"].to_numpy()
        del sv, g, won
    out: dict[str, Any] = {}
    doc.h("Win rates")
    by_policy = pd.concat([win[v] for v in sorted(arms)], ignore_index=True)
    by_score = pd.concat([score[v] for v in sorted(arms)], ignore_index=True)
    tab = by_policy.merge(by_score, on=["variant", "policy"], suffixes=("", "_score"))
    if mixed:
        doc.p("Win share per seat-game (a k-way tie for first counts 1/k) with 95% Wilson "
              "intervals; mean final score with 95% t intervals.")
        doc.table(pd.DataFrame({
            "variant": tab["variant"], "policy": tab["policy"], "seat-games": tab["n"],
            "win rate": [pct(r, lo, hi) for r, lo, hi in zip(tab["rate"], tab["lo"], tab["hi"])],
            "mean score": [num(m, lo, hi) for m, lo, hi in
                           zip(tab["mean"], tab["lo_score"], tab["hi_score"])],
        }))
        doc.chart("win_rate_by_policy.png", "Win rate by policy (error bars: 95% Wilson).",
                  lambda ax: charts.plot_win_rates(ax, by_policy, "policy", 1 / players))
    else:
        doc.p("Every seat of a variant plays the same policy, so a win rate by policy is 1/"
              f"{players} by construction and is not shown; see the start positions below.")
    out["win_rate_by_policy"] = _records(by_policy)
    out["score_by_policy"] = _records(by_score)

    doc.h("Turn order")
    order = pd.concat(order_all, ignore_index=True)
    rows = [{"variant": r.variant, "start position": r.position,
             "win rate": pct(r.rate, r.lo, r.hi),
             "mean score": num(r.score, r.score_lo, r.score_hi)} for r in order.itertuples()]
    doc.p("Seats by their position in the turn order at the start of the game (0 = the start "
          f"player, 1 = next …). A fair position wins {100 / players:.1f} % of games."
          + (" Policies rotate over the seats, so each seat sees each policy equally often."
             if len(policies) > 1 else ""))
    doc.table(pd.DataFrame(rows))
    doc.chart("win_rate_by_position.png", "Win rate by start position (error bars: 95% Wilson).",
              lambda ax: charts.plot_win_rates(ax, order, "position", 1 / players))
    out["seat_order"] = _records(order)

    doc.h("Scores and game length")
    srows = []
    show_no_winner = "died" in seats or any(s["any_no_winner"] for s in summaries)
    for s in summaries:
        rounds = s["rounds"]
        row = {"variant": s["variant"], **{k: round(v, 2) for k, v in s["summary"].items()},
               "rounds": num(rounds.estimate, rounds.lo, rounds.hi), "turn-cap ends": s["cap"]}
        if show_no_winner:
            row["no winner"] = pct(*_iv(s["no_winner"]))
        if s["death"] is not None:
            row["death rate"] = pct(*_iv(s["death"]))
        srows.append(row)
    dist = pd.DataFrame(srows)
    stat_cols = list(stats.summary([]))
    shown = dist.assign(**{c: [f"{v:.2f}" if not math.isnan(v) else "–" for v in dist[c]]
                           for c in stat_cols})  # one digit count for every statistic
    doc.p("Final score per seat-game [points]: mean, standard deviation and quantiles; mean "
          "rounds per game; games stopped by the turn cap instead of a normal end"
          + ("; share of games nobody won" if show_no_winner else "")
          + ("; death rate (share of seat-games whose player died)" if "died" in seats else "")
          + " (95% Wilson intervals).")
    doc.table(shown)
    doc.chart("score_histogram.png", "Final score distribution per variant.",
              lambda ax: charts.plot_score_histogram(ax, scores))
    out["scores"] = _records(dist)
    return out


VARIANT_SEATS = ("variant", "game_id", "seat", "policy", "score", "won")


def variants(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame) -> dict:
    """Paired differences of every variant against the base, on the same game seeds.

    Holds the base's rows and one variant's at a time (seats ``VARIANT_SEATS``).
    """
    seats = as_table(seats)
    arms = seats.variants()
    if len(arms) < 2:
        return {}
    doc.h("Variants against the base (paired on the same seeds)")
    doc.p("Each variant replays the base's games with the same seeds; the difference is taken "
          "game by game (variant − base) with a 95% t interval. `*` marks an interval that "
          "excludes 0. Win-rate differences are in percentage points (pp).")
    parts: dict[str, list[pd.DataFrame]] = {"won": [], "score_seat": [], "score_all": [],
                                            "policy": []}
    base = seats.read(VARIANT_SEATS, [BASE]) if BASE in arms else None
    policies = set() if base is None else set(pd.unique(base["policy"]))
    for var in arms:
        if var == BASE:
            continue
        v = seats.read(VARIANT_SEATS, [var])
        policies.update(pd.unique(v["policy"]))
        if base is not None:
            parts["won"].append(stats.pair_differences(base, v, var, "won", ("seat",)))
            parts["score_seat"].append(stats.pair_differences(base, v, var, "score", ("seat",)))
            parts["score_all"].append(stats.pair_differences(base, v, var, "score", ()))
            parts["policy"].append(stats.pair_differences(base, v, var, "won", ("policy",)))
        del v
    won, score_seat, score_all, pol = (
        _concat(parts[k], ["variant", *by, *stats.DIFFERENCE_COLUMNS])
        for k, by in (("won", ["seat"]), ("score_seat", ["seat"]), ("score_all", []),
                      ("policy", ["policy"])))
    rows = []
    for (var, grp), (_, sgrp) in zip(won.groupby("variant", sort=False),
                                     score_seat.groupby("variant", sort=False)):
        for w, s in zip(grp.to_dict("records"), sgrp.to_dict("records")):
            rows.append({"variant": var, "seat": w["seat"],
                         "win rate base": f"{100 * w['base_mean']:.1f} %",
                         "win rate change": signed(w, 100, " pp", 1),
                         "score change": signed(s)})
    doc.table(pd.DataFrame(rows))
    doc.p("Mean final score over all seats, change per game: " + "; ".join(
        f"{r['variant']}: {signed(r)} points" for r in score_all.to_dict("records")) + ".")
    out = {"won_by_seat": _records(won), "score_by_seat": _records(score_seat),
           "score_all": _records(score_all)}
    if len(policies) > 1:
        doc.table(pd.DataFrame({"variant": pol["variant"], "policy": pol["policy"],
                                "win rate change": [signed(r, 100, " pp", 1)
                                                    for r in pol.to_dict("records")]}))
        out["won_by_policy"] = _records(pol)
    return out


def _concat(parts: list[pd.DataFrame], columns: list[str]) -> pd.DataFrame:
    """The parts one under the other (an empty table with ``columns`` when there are none)."""
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


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


def _card_out(doc: Doc, games: Table, seats: Table, card: str, active: str, user: str) -> dict:
    """Win-rate and score change of variants that take ``card`` out while the base has it.

    Besides the per-seat table, the seats that used the card in a base game (``user`` > 0) are
    followed into the same game without the card: how their win share moves. Holds the base's
    rows and one variant's at a time.
    """
    with_card = _arms_with_card(games, seats, card, active)
    outs = [v for v in seats.variants() if v not in with_card]
    if BASE not in with_card or not outs:
        doc.p(f"No variant takes the {card.title()} out of the base game, so there is no "
              "with/without comparison.")
        return {}
    base = seats.read((*PAIR_SEATS, user), [BASE])
    ids = _games_with_card(games, BASE, card)  # only the games whose base had the card
    base_in = base if ids is None else base[base["game_id"].isin(ids)]
    users = base.loc[base[user] > 0, ["game_id", "seat", "won", "score"]]
    del base
    won, score, followed = [], [], []
    for var in outs:
        other = seats.read(PAIR_SEATS, [var])
        other_in = other if ids is None else other[other["game_id"].isin(ids)]
        won.append(stats.pair_differences(base_in, other_in, var, "won", ("seat",)))
        score.append(stats.pair_differences(base_in, other_in, var, "score", ("seat",)))
        del other_in
        pair = users.merge(other[["game_id", "seat", "won", "score"]], on=["game_id", "seat"],
                           suffixes=("_b", "_v"))
        del other
        if len(pair) >= 2:  # the users' outcomes in the base and in this variant
            followed.append({
                "variant": var, "n": len(pair), "won_b": pair["won_b"].mean(),
                "won_v": pair["won_v"].mean(),
                "dw": stats.paired_difference(pair["won_b"], pair["won_v"]),
                "ds": stats.paired_difference(pair["score_b"], pair["score_v"])})
        del pair
    del base_in, users
    columns = ["variant", "seat", *stats.DIFFERENCE_COLUMNS]
    won, score = _concat(won, columns), _concat(score, columns)
    rows = [{"variant": w["variant"], "seat": w["seat"],
             "win rate with": f"{100 * w['base_mean']:.1f} %",
             f"win rate without {card}": f"{100 * w['variant_mean']:.1f} %",
             "change": signed(w, 100, " pp", 1), "score change": signed(s)}
            for w, s in zip(won.to_dict("records"), score.to_dict("records"))]
    doc.p(f"Without the {card.title()} ({', '.join(outs)}), same seeds, per seat "
          "(variant − base, 95% intervals, `*` significant):")
    doc.table(pd.DataFrame(rows))
    out = {"won_by_seat": _records(won), "score_by_seat": _records(score), "users": []}
    for f in followed:
        var, dw, ds = f["variant"], f["dw"], f["ds"]
        n_players = int(games.read(("n_players",))["n_players"].iloc[0])
        doc.p(f"The {f['n']} seats that used the {card.title()} (`{user}` > 0) won "
              f"{100 * f['won_b']:.1f} % of their base games (a fair share is "
              f"{100 / n_players:.1f} %); the same seats in the same games of `{var}` won "
              f"{100 * f['won_v']:.1f} %: change "
              f"{signed({'diff': dw.mean, 'lo': dw.lo, 'hi': dw.hi, 'significant': dw.significant}, 100, ' pp', 1)}, "
              f"score change {signed({'diff': ds.mean, 'lo': ds.lo, 'hi': ds.hi, 'significant': ds.significant})} points. "
              "(These seats are selected by what happened in the base game, so part of the "
              "change is selection, not the card.)")
        out["users"].append({"variant": var, "n": f["n"], "won_with": f["won_b"],
                             "won_without": f["won_v"], "won_diff": vars(dw),
                             "score_diff": vars(ds)})
    return out


SULTAN_SEATS = ("variant", "game_id", "seat", "score", "won", "tiebreak", "sultan_points",
                "diplomats_surviving", "diplomats_placed")


def sultan(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
           players: int) -> dict:
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
    out["points_distribution"] = _records(dist)
    out["points_mean"] = _records(means)

    # the holder(s) of most diplomat discs on the board at the end
    col = "diplomats_surviving" if "diplomats_surviving" in s else "sultan_points"
    top = s.groupby("game_id")[col].transform("max")
    leader = (s[col] == top) & (top > 0)
    per_game = pd.DataFrame({"game_id": s["game_id"], "lead": leader,
                             "lead_won": s["won"].where(leader, 0.0)}).groupby("game_id").agg(
        n_lead=("lead", "sum"), lead_won=("lead_won", "sum"))
    per_game = per_game[per_game["n_lead"] > 0]
    iv = stats.wilson(float(per_game["lead_won"].sum()), len(per_game))
    fair = float((per_game["n_lead"] / players).mean()) if len(per_game) else math.nan
    doc.p(f"**Most diplomats wins**: in the {len(per_game)} games where someone had a diplomat on "
          f"the board at the end, the holder(s) of the most diplomats won {pct(*_iv(iv))} of them "
          f"(a tie for first counts 1/k; without any edge they would win {100 * fair:.1f} %).")
    out["leader_wins"] = {"games": len(per_game), **_ivd(iv), "no_edge": fair}

    changed = stats.winners_without(s, "sultan_points")
    iv2 = stats.wilson(int(changed.sum()), len(changed))
    doc.p(f"**Diplomat points changed the winner** in {pct(*_iv(iv2))} of games "
          f"({int(changed.sum())} of {len(changed)} games with the Sultan in play): recomputing the winner from score − "
          "diplomat points (same tie-break) gives a different set of winners.")
    out["winner_changed"] = {"games": len(changed), "changed": int(changed.sum()), **_ivd(iv2)}
    user = "diplomats_placed" if "diplomats_placed" in s else "sultan_points"
    del s, per_game, changed
    out["sultan_out"] = _card_out(doc, games, seats, "sultan", "sultan_points", user)
    return out


CARAVAN_SEATS = ("variant", "game_id", "caravan_*")


def caravan(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            players: int) -> dict:
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
        surv_own = _share(stats.ratio_interval(g["caravan_cubes_own_surviving"],
                                               g["caravan_cubes_own"]))
    if "caravan_cubes_received_surviving" in g:
        rows.append(("opponents", "surviving",
                     stats.ratio_interval(g["caravan_cubes_received_surviving"], moves)))
        surv_recv = _share(stats.ratio_interval(g["caravan_cubes_received_surviving"],
                                                g["caravan_cubes_received"]))
    table = pd.DataFrame([(w, st, iv.estimate, iv.lo, iv.hi) for w, st, iv in rows],
                         columns=["who", "stage", "value", "lo", "hi"])
    doc.table(pd.DataFrame({"cubes go to": table["who"], "stage": table["stage"],
                            "cubes per move": [num(v, lo, hi) for v, lo, hi in
                                               zip(table["value"], table["lo"], table["hi"])]}))
    doc.p(f"All bonus cubes: {num(total.estimate, total.lo, total.hi)} per move.")
    out: dict[str, Any] = {"variant": arm, "games": n_games, "moves_per_game": _ivd(mv),
                           "per_move": _records(table),
                           "total_per_move": _ivd(total)}
    if surv_own is not None and surv_recv is not None:
        doc.p(f"Share surviving to the end: mover's own bonus cubes {pct(*_iv(surv_own))}, "
              f"cubes handed to opponents {pct(*_iv(surv_recv))}.")
        out["survival_own"] = _ivd(surv_own)
        out["survival_given"] = _ivd(surv_recv)
    doc.chart("caravan_bonus.png", "Caravan bonus cubes per move: mover vs opponents.",
              lambda ax: charts.plot_caravan(ax, table))
    del s, g
    out["trader_out"] = _card_out(doc, games, seats, "trader", "caravan_moves", "caravan_moves")
    return out


def _share(iv: stats.Interval) -> stats.Interval:
    """A proportion's interval clipped to [0, 1] (the delta method can overshoot)."""
    return stats.Interval(iv.estimate, max(0.0, iv.lo), min(1.0, iv.hi))


def _iv(iv: stats.Interval) -> tuple[float, float, float]:
    return iv.estimate, iv.lo, iv.hi


def _ivd(iv: stats.Interval) -> dict[str, float]:
    return {"estimate": iv.estimate, "lo": iv.lo, "hi": iv.hi}


# imported here, after Doc and the formatters it uses are defined (it imports them from here)
from analyzer.report.pyramidion_study import pyramidion

# Study sections, each active when its column is present in the seat records.
STUDIES = (("sultan_points", sultan), ("caravan_cubes_own", caravan),
           ("goods_merchant", pyramidion))


def all_sections(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
                 players: int) -> dict:
    """Fill ``doc`` with the generic sections and every study whose columns are present.

    ``games``, ``seats``: the record tables, as DataFrames or as ``Table`` objects on the run's
    Parquet files (``render``); each section reads the columns it needs from them, and the
    memory a section freed is handed back before the next one starts.
    """
    from analyzer.report import balance, building_sets

    games, seats = as_table(games), as_table(seats)
    arms = seats.variants()
    many = len(arms) > MANY_VARIANTS
    if many:
        # per-variant tables and charts of 64 arms are unreadable: the generic sections show the
        # first arm; the balance table (one row per arm) and the study sections cover them all
        first = arms[0]
        doc.p(f"{len(arms)} variants: the next two sections show the first (`{first}`) only; "
              "every variant is in the per-variant tables below and in `summary.json`.")
        out = {"results": results(doc, games.only([first]), seats.only([first]), players),
               "variants": {}}
    else:
        out = {"results": results(doc, games, seats, players)}
        release_memory()
        out["variants"] = variants(doc, games, seats)
    release_memory()
    sets = building_sets.active(games)
    if not (sets and many):  # else the set table says it
        out["balance"] = balance.section(doc, games, seats, players)
        release_memory()
    if sets:
        out["building_sets"] = building_sets.section(doc, games, seats, players)
        release_memory()
    for column, build in STUDIES:
        if column in seats:
            out[build.__name__] = build(doc, games, seats, players)
            release_memory()
    return out


MANY_VARIANTS = 8  # above this, generic per-variant tables give way to one-row-per-arm tables

