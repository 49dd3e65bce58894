"""Rattus's own report sections: the Sultan's diplomat scoring and the value of the Trader's
caravan (``scenarios/africanus-sultan.toml``), each with how often every start position, arm
and policy takes and uses the card, and the paired comparison against the variants that take
the card out.

Declared in ``SPEC.sections`` (``__init__.py``) and called by the generic report after its own
sections (``analyzer/report/sections.py``). Works from the record tables alone: games
``class_cards``, ``n_players``; seats ``start_position``, ``policy``, ``sultan_points``,
``diplomats_*``, ``tiebreak``, ``caravan_*``, ``took_sultan``, ``took_trader``, ``won``, ``score``
(see ``metrics.py``). The start player is drawn per game, so a seat number means nothing:
per-seat numbers are given per start position (0 = the start player). Each section writes nothing beyond an
empty result when no arm has its card in play.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.games.rattus import findings
from analyzer.report import balance, charts, design
from analyzer.report import players as player_counts
from analyzer.report.document import (
    BASE,
    CORRECTION_SHORT,
    Doc,
    cells,
    clip_share,
    concat,
    correction_of,
    iv_dict,
    num,
    pct,
    rows_of,
    signed,
)
from analyzer.report.extension import StudySection, fair_share, studied_arm
from analyzer.report.findings import PER_GAME_KEY
from analyzer.report.records import Table, as_table
from analyzer.report.units import SHARE


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
             columns: tuple[str, ...]) -> tuple[pd.DataFrame, int, int]:
    """The seat rows of ``arm`` (seat ``columns``) from games with ``card`` in play, their
    game count and the arm's (``_from_text``).

    Cards drawn at random per game (no fixed ``class_cards``) put the card in only some games;
    every rate of a card's section is over those games only.
    """
    s = seats.read(columns, [arm])
    n_all = s["game_id"].nunique()
    ids = _games_with_card(games, arm, card)
    if ids is not None:
        s = s[s["game_id"].isin(ids)]
    return s, s["game_id"].nunique(), n_all


def _from_text(card: str, n: Mapping[str, Any]) -> str:
    """Where the rates of ``card``'s section (numbers ``n``) come from, in words: "From the
    `base` games: the 82 games with the Sultan in play (of 100; ...)"."""
    n_all = n[PER_GAME_KEY]["write"]["games_all"]
    phrase = (f"From the `{n['variant']}` games: the {n['games']} games with the "
              f"{card.title()} in play")
    if n["games"] != n_all:
        phrase += f" (of {n_all}; the class cards are drawn per game)"
    return phrase


PAIR_SEATS = ("variant", "game_id", "seat", "won", "score")


def position_column(seats: Table | pd.DataFrame) -> str:
    """``"start_position"`` (0 = the start player, drawn per game) when the records have it,
    else ``"seat"`` (records without it: the start player counts as seat 0)."""
    return "start_position" if "start_position" in seats else "seat"


def _where(key: str) -> str:
    """The words for a position of ``position_column``: ``"start position"`` or ``"seat"``."""
    return "start position" if key == "start_position" else "seat"


def _position_label(position: int, key: str, players: int) -> str | int:
    """A start position as ``"0 (start player)"``, ``"3 (last)"`` of ``players`` positions, else
    the number; a seat (``key`` ``"seat"``) as it is."""
    if key != "start_position":
        return position
    if position == 0:
        return "0 (start player)"
    return f"{position} (last)" if position == players - 1 else str(position)


def _change(d: Mapping[str, Any], significant: bool, n: int | None = None,
            share: bool = True) -> str:
    """A difference ``d`` (``stats.Difference`` fields: ``mean``, else ``estimate``; ``lo``,
    ``hi``) as ``signed``: a share's in pp, its interval clipped to [−1, 1]."""
    diff = d["mean"] if "mean" in d else d["estimate"]
    if not share:
        return signed({"diff": diff, "lo": d["lo"], "hi": d["hi"], "significant": significant})
    return signed({"diff": diff, "lo": max(d["lo"], -1.0), "hi": min(d["hi"], 1.0),
                   "significant": significant, "n": n}, 100, " pp", 1)


def _card_out_numbers(games: Table, seats: Table, card: str, active: str, user: str,
                      run: Mapping[str, Any] | None = None) -> dict:
    """Win-rate and score change of variants that take ``card`` out while the base has it.

    Per start position (0 = the start player; per seat when the records have no
    ``start_position``), the same position of the same game paired across the arms — and, when
    every arm's seats are exchangeable (``design.SeatDesign``: a seat's win rate cannot move),
    also the game-level outcomes (``balance.arm_differences``' metrics) — over the games whose base
    had the card; then the seats that used the card in a base game
    (``user`` > 0) followed into the same game without the card (cluster-robust over games:
    the game is the unit). Marks are corrected over the rows of each column (the run's
    correction, ``document.correction_of``: Holm unless the study asks for BH). Holds the base's
    rows and one variant's at a time.

    Returns ``{}`` when no paired variant lacks the card, else ``won_by_position``,
    ``score_by_position`` (rows of ``stats.pair_differences`` by ``position_column``),
    ``users``, ``correction``, ``game_level`` when the seats are exchangeable; under
    ``"_per_game"`` the users' per-game changes and ``designs``, the compared arms'
    ``design.SeatDesign`` (base first) for ``_card_out_write``.
    """
    with_card = _arms_with_card(games, seats, card, active)
    # an arm of another player count plays other games: not paired seat by seat with the base
    paired = player_counts.paired_arms(player_counts.counts(games))
    outs = [v for v in seats.variants() if v not in with_card and v in paired]
    if BASE not in with_card or not outs:
        return {}
    found = design.designs(seats, run)
    found = {v: found[v] for v in (BASE, *outs)}
    exchangeable = design.all_exchangeable(found)
    method = correction_of(run)
    key = position_column(seats)
    base = seats.read((*PAIR_SEATS, key, user), [BASE])
    ids = _games_with_card(games, BASE, card)  # only the games whose base had the card
    base_in = base if ids is None else base[base["game_id"].isin(ids)]
    users = base.loc[base[user] > 0, ["game_id", "seat", "won", "score"]]
    # a game in which every seat used the card has no seat without it to compare the users
    # with: their combined win share is the game's in both arms, a change of 0 by construction
    seats_per_game = base.groupby("game_id").size()
    users_per_game = users.groupby("game_id").size()
    all_users = users_per_game.index[users_per_game.to_numpy()
                                     >= seats_per_game.reindex(users_per_game.index).to_numpy()]
    fair = fair_share(base_in)
    del base
    seat_ids = balance.seat_numbers(seats)
    base_pg = None
    if exchangeable:
        base_pg = _game_level(games, seats, BASE, ids, seat_ids).set_index("game_id")
    won, score, followed, levels = [], [], [], []
    out_per_game: dict[str, Any] = {}  # the users' changes, for the findings
    for var in outs:
        other = seats.read((*PAIR_SEATS, key), [var])
        other_in = other if ids is None else other[other["game_id"].isin(ids)]
        won.append(stats.pair_differences(base_in, other_in, var, "won", (key,)))
        score.append(stats.pair_differences(base_in, other_in, var, "score", (key,)))
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
            # per game, over the games with a seat that did not use the card: the users'
            # combined share of the win (did a user win the game?) with and without it
            compared = won_by_game.drop(index=all_users, errors="ignore")
            b, v = compared["won_b"], compared["won_v"]
            dg = stats.paired_difference(b.to_numpy(float), v.to_numpy(float),
                                         bounds=stats.SHARE_DIFFERENCE)
            dw = stats.clustered_difference(pair["won_b"], pair["won_v"], pair["game_id"],
                                            bounds=stats.SHARE_DIFFERENCE)
            ds = stats.clustered_difference(pair["score_b"], pair["score_v"], pair["game_id"])
            followed.append({  # the flags are set once every variant's test is known
                "variant": var, "n": len(pair), "games": n_games,
                "won_with": pair["won_b"].mean(), "won_without": pair["won_v"].mean(),
                "won_diff": vars(dw), "score_diff": vars(ds), "won_significant_adjusted": None,
                "score_significant_adjusted": None, "fair": fair,
                # games that show the change's own sign: the users did worse without the card
                "examples": _examples(compared.index[b > v] if dg.mean <= 0 else
                                      compared.index[b < v]),
                "all_user_games": len(all_users.intersection(won_by_game.index)),
                "games_compared": len(compared),
                "won_with_game": float(b.mean()) if len(compared) else math.nan,
                "won_without_game": float(v.mean()) if len(compared) else math.nan,
                "won_diff_game": vars(dg)})
            out_per_game[f"users:{var}"] = (v - b).rename_axis("game_id")
        del pair
    n_user_games = int(users["game_id"].nunique())
    del base_in, users
    columns = ["variant", key, *stats.DIFFERENCE_COLUMNS]
    out: dict[str, Any] = {
        "won_by_position": rows_of(stats.correct(concat(won, columns), method, key)),
        "score_by_position": rows_of(stats.correct(concat(score, columns), method, key)),
        "position_column": key, "users": followed, "correction": method}
    if exchangeable:
        out["game_level"] = rows_of(balance.correct_by_metric(
            pd.DataFrame(levels, columns=balance.DIFF_COLUMNS), method))
    for part in ("won", "score"):
        diffs = pd.DataFrame([u[f"{part}_diff"] for u in followed], columns=["p_value", "lo", "hi"])
        for u, sig in zip(followed, stats.correct(diffs, method)["significant_adjusted"]):
            u[f"{part}_significant_adjusted"] = bool(sig)
    out[PER_GAME_KEY] = {**out_per_game, "designs": found}
    missing = [var for var in outs if var not in {u["variant"] for u in followed}]
    if missing:  # say why no finding follows the users there
        out["users_unmeasurable"] = {
            var: (f"no seat used the {card.title()} in a base game" if n_user_games == 0 else
                  f"only {n_user_games} base game(s) with a seat that used the {card.title()}")
            for var in missing}
    return out


# the game-level outcomes shown, in ``balance.arm_differences``' order
GAME_LEVEL = ("no_winner", "spread", "rounds", "score", "start_adv")


def _card_out_write(doc: Doc, section: Mapping[str, Any], card: str, user: str) -> None:
    """The with/without comparison of ``card`` (``<card>_out``, ``_card_out_numbers``', of its
    section's numbers ``section``), the seats with ``user`` > 0 being the card's users."""
    n, players = section[f"{card}_out"], section[PER_GAME_KEY]["write"]["players"]
    designs = section[PER_GAME_KEY].get("designs")
    if not n:
        doc.p(f"No variant takes the {card.title()} out of the base game, so there is no "
              "with/without comparison.")
        return
    outs = ", ".join(list(designs)[1:])
    mname = CORRECTION_SHORT[n["correction"]]
    if "game_level" in n:
        doc.p(f"Without the {card.title()} ({outs}), same seeds: "
              + design.exchangeable_reason(designs)
              + " So the change is shown in game-level outcomes (variant − base per game, 95% t "
              f"intervals, `*` after {mname} correction over the rows of each column), then per "
              "start position, which can move:")
        doc.table(pd.DataFrame(balance.difference_rows(n["game_level"], GAME_LEVEL)))
    # a turn-order position is never exchangeable: its win rate can move with the rules
    key = n["position_column"]
    where = _where(key)
    rows = [{"variant": w["variant"], where: _position_label(w[key], key, players),
             "win rate with": f"{100 * w['base_mean']:.1f} %",
             f"win rate without {card}": f"{100 * w['variant_mean']:.1f} %",
             "change": signed(w, 100, " pp", 1), "score change": signed(sc)}
            for w, sc in zip(n["won_by_position"], n["score_by_position"])]
    doc.p(f"Without the {card.title()} ({outs}), same seeds, per {where} "
          f"(the same {where} of the same game in both arms; variant − base, 95% intervals, `*` "
          f"after {mname} correction over the rows of each column):")
    doc.table(pd.DataFrame(rows))
    for u in n["users"]:
        dw, ds, dg = u["won_diff"], u["score_diff"], u["won_diff_game"]
        doc.p(f"The {u['n']} seats that used the {card.title()} (`{user}` > 0, in {u['games']} "
              f"games) won {100 * u['won_with']:.1f} % of their base games (a fair position wins "
              f"{100 * u['fair']:.1f} %); the same seats in the same games of `{u['variant']}` won "
              f"{100 * u['won_without']:.1f} %: change "
              f"{_change(dw, u['won_significant_adjusted'], u['games'])}, score change "
              f"{_change(ds, u['score_significant_adjusted'], share=False)} points "
              "(95% cluster-robust t intervals with the game as the unit, as the users of one "
              f"game are not independent; `*` after {mname} over the {len(n['users'])} variant"
              f"{'s' if len(n['users']) != 1 else ''}). "
              "(These seats are selected by what happened in the base game, so part of the "
              "change is selection, not the card.)")
        if u["games_compared"] >= 2:
            doc.p(f"Per game (the game as the unit): in the {u['games_compared']} of these games "
                  f"with a seat that did not use the {card.title()} (in {u['all_user_games']} "
                  "every seat used it, so the users' share of the win cannot change), a user won "
                  f"{100 * u['won_with_game']:.1f} % of the base games and "
                  f"{100 * u['won_without_game']:.1f} % of the same games of `{u['variant']}`: "
                  "change " + _change(dg, False, dg["n"])
                  + " (paired t over games).")


def _game_level(games: Table, seats: Table, arm: str, ids: np.ndarray | None,
                seat_ids: list[int]) -> pd.DataFrame:
    """``balance.arm_per_game`` of ``arm``, over the games ``ids`` (all when ``None``: the
    balance section's, ``balance.per_game_of``)."""
    if ids is None:
        return balance.per_game_of(games, seats, arm, seat_ids)
    g = games.read(("variant", "game_id", "rounds"), [arm])
    s = seats.read(balance.BALANCE_SEATS, [arm])
    g, s = g[g["game_id"].isin(ids)], s[s["game_id"].isin(ids)]
    return balance.arm_per_game(g, s, arm, seat_ids)


TAKE_USE_SEATS = ("variant", "game_id", "seat", "policy", "start_position")


def take_use_numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame, card: str, take: str,
             use: str, arm: str) -> dict:
    """How often ``card`` is taken and used, per game: by start position, by arm, by policy.

    ``take`` counts the times a seat took the card in phase A (docs/rules/rattus.md §7 A: from
    the supply or from its holder, so a card can change hands many times in one game); ``use``
    counts its ability used (diplomats placed §2.3, caravan moves §2.2). Only the games with the
    card in play count (``_in_play``).

    * Per start position of ``arm`` (0 = the start player): takes and uses per game, mean with a
      t interval over games (each position appears once per game), and the share of games the
      position took the card at least once (Wilson). Then the start player against the last
      position, paired within games (``stats.paired_difference``: start player − last).
    * Per arm with the card in play: the table's takes and uses per game (t intervals), the
      share of games with a take and with a use (Wilson).
    * Per arm and policy, for an arm that mixes policies: per seat per game, cluster-robust t
      intervals with the game as the unit (``stats.mean_values``).

    Returns
    -------
    dict
        ``{}`` when the records have neither column; else ``card, take, use, variant, games,
        by_position, first_last`` (``{take, use}``: ``stats.Difference`` fields plus ``first``
        and ``last`` means and ``examples``, game ids where the start player took the card more
        often than the last position — less often when that is the difference's sign),
        ``by_arm``, ``by_policy``.
    """
    games, seats = as_table(games), as_table(seats)
    cols = [c for c in (take, use) if c in seats]
    if not cols:
        return {}
    out: dict[str, Any] = {"card": card, "take": take if take in seats else None,
                           "use": use if use in seats else None, "variant": arm}

    # per start position, the studied arm
    s, out["games"], _ = _in_play(games, seats, arm, card, (*TAKE_USE_SEATS, *cols))
    key = position_column(s)
    wide = s.pivot_table(index="game_id", columns=key, values=cols, aggfunc="sum",
                         observed=True)
    rows, positions = [], sorted(s[key].unique())
    for pos in positions:
        row: dict[str, Any] = {key: int(pos), "games": int(wide[cols[0]][pos].notna().sum())}
        for c in cols:
            row[c] = iv_dict(_counts(wide[c][pos].dropna().to_numpy(float))[0])
        if take in cols:
            row["took_share"] = iv_dict(_counts(wide[take][pos].dropna().to_numpy(float))[1])
        rows.append(row)
    out["by_position"] = rows
    first_last: dict[str, Any] = {}
    if key == "start_position" and len(positions) >= 2 and out["games"] >= 2:
        last = positions[-1]
        both = wide.dropna(subset=[(c, p) for c in cols for p in (positions[0], last)])
        for c in cols:
            a, b = both[c][positions[0]].to_numpy(float), both[c][last].to_numpy(float)
            d = stats.paired_difference(b, a)  # start player − last position
            first_last["take" if c == take else "use"] = {
                **vars(d), "first": float(a.mean()), "last": float(b.mean()),
                "last_position": int(last),
                # games that show the difference's own sign (a run where the last position
                # takes it more shows those games)
                "examples": _examples(both.index[a > b] if d.mean >= 0 else both.index[a < b])}
            if c == take:
                out[PER_GAME_KEY] = {"takes_first_last": pd.Series(
                    a - b, index=pd.Index(both.index, name="game_id"))}
    out["first_last"] = first_last
    del s, wide

    # per arm (and per policy where an arm mixes them)
    arm_rows, pol_rows = [], []
    for a in _arms_with_card(games, seats, card, use if use in seats else take):
        s, n, _ = _in_play(games, seats, a, card, (*TAKE_USE_SEATS, *cols))
        per_game = s.groupby("game_id")[cols].sum()
        row = {"variant": a, "games": n}
        for c in cols:
            iv, some = _counts(per_game[c].to_numpy(float))
            row[c], row[f"{c}_share"] = iv_dict(iv), iv_dict(some)
        arm_rows.append(row)
        if "policy" in s and s["policy"].nunique() > 1:
            for c in cols:
                for r in stats.mean_values(s, ("policy",), c).to_dict("records"):
                    pol_rows.append({"variant": a, "column": c, **r, "value_unit":
                                     f"{'takes' if c == take else 'uses'} per seat-game"})
        del s, per_game
    out["by_arm"] = arm_rows
    out["by_policy"] = pol_rows
    return out


def take_use_write(doc: Doc, n: Mapping[str, Any], use: str, use_name: str,
                   players: int) -> None:
    """The "who takes and uses the card" paragraphs and tables of ``take_use_numbers``' numbers
    ``n`` (nothing when ``n`` is empty). ``use``: the use column, named in the text even when the
    records lack it; ``use_name``: its words ("diplomats placed"); ``players``: the player count
    (the last position's label)."""
    if not n:
        return
    name, take = n["card"].title(), n["take"]
    cols = [c for c in (take, n["use"]) if c]
    names = {take: "takes", n["use"]: use_name}
    doc.p(f"**Who takes and uses the {name}.** "
          + ("A take is a phase-A take of the card (docs/rules/rattus.md §7 A), from the supply "
             "or from the seat holding it, so it can change hands many times in one game; "
             if take else "")
          + f"the uses are the {use_name} (`{use}`). Counts per game, over the games with the "
            f"{name} in play.")
    key = "start_position" if "start_position" in (n["by_position"] or [{}])[0] else "seat"
    where = _where(key)

    def counts(row: Mapping[str, Any], shares: bool) -> dict[str, str]:
        """A row's counts per game, with the shares of games with one when ``shares``."""
        out = {}
        for c in cols:
            out[f"{names[c]} per game"] = num(*_iv(row[c]))
            if shares:
                which = "a take" if c == take else "a use"
                out[f"games with {which}"] = pct(*_iv(row[f"{c}_share"]))
        return out

    table = [{where: _position_label(row[key], key, players), **counts(row, False),
              **({"games it took the card": pct(*_iv(row["took_share"]))} if take else {})}
             for row in n["by_position"]]
    doc.p(f"Per {where} in `{n['variant']}` (95% t intervals over the {n['games']} games; each "
          "position once per game; the share of games with a take, 95% Wilson):")
    doc.table(pd.DataFrame(table))
    if n["first_last"]:
        parts = [f"{names[c]} {_change(d, d['significant'], share=False)} per game"
                 for c, d in zip(cols, n["first_last"].values())]
        d = next(iter(n["first_last"].values()))
        doc.p(f"Start player − last position ({d['last_position']}), paired within the {d['n']} "
              f"games (95% t intervals; `*`: the interval excludes 0): " + "; ".join(parts) + ".")
    arm_cells = [{"variant": row["variant"], "games": row["games"], **counts(row, True)}
                 for row in n["by_arm"]]
    pol_cells: dict[tuple, dict[str, Any]] = {}
    for r in n["by_policy"]:
        cell = pol_cells.setdefault((r["variant"], r["policy"]), {
            "variant": r["variant"], "policy": r["policy"], "seat-games": r["n"]})
        cell[f"{names[r['column']]} per seat per game"] = num(r["mean"], r["lo"], r["hi"])
    doc.p(f"Per arm with the {name} in play: the whole table's counts per game (95% t "
          "intervals over games) and the share of games with at least one (95% Wilson):")
    doc.table(pd.DataFrame(arm_cells))
    if pol_cells:
        doc.p("Per policy (arms with several policies): per seat per game, 95% cluster-robust t "
              "intervals with the game as the unit (a policy plays several seats of one game):")
        doc.table(pd.DataFrame(list(pol_cells.values())))


def _iv(d: Mapping[str, float]) -> tuple[float, float, float]:
    """``(estimate, lo, hi)`` of an ``iv_dict``."""
    return d["estimate"], d["lo"], d["hi"]


def _counts(x: np.ndarray) -> tuple[stats.Interval, stats.Interval]:
    """Counts per game ``x``: their mean (t interval) and the share of games with one (Wilson)."""
    return stats.mean_interval(x), stats.wilson(float((x > 0).sum()), len(x))


SULTAN_SEATS = ("variant", "game_id", "seat", "policy", "start_position", "score", "won",
                "tiebreak", "sultan_points", "diplomats_surviving", "diplomats_placed")


def _card_numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame, players: int,
                  run: Mapping[str, Any] | None, card: str, active: str, take: str, use: str,
                  columns: tuple[str, ...], own: Callable[[pd.DataFrame], tuple]) -> dict:
    """A card section's numbers: ``{}`` when no arm has ``card`` (``_arms_with_card`` of
    ``active``), else the studied arm's ``variant`` and ``games`` with the card in play, the
    section's own numbers, ``take_use`` (``take_use_numbers`` of ``take`` and ``use``) and
    ``<card>_out`` (``_card_out_numbers``). ``own(s) -> (head, tail, per_game, user)`` makes the
    own numbers from the studied arm's seat rows ``s`` (``columns``, ``_in_play``): those shown
    before ``take_use`` and after it, the findings' per-game values and the column of the
    card's users. ``"_per_game"`` (never in ``summary.json``) holds the findings' per-game values
    and, under ``"write"``, ``players`` and ``games_all`` (the studied arm's games)."""
    games, seats = as_table(games), as_table(seats)
    arms = _arms_with_card(games, seats, card, active)
    if not arms:
        return {}
    arm = studied_arm(arms)
    s, n_games, n_all = _in_play(games, seats, arm, card, columns)
    head, tail, per_game, user = own(s)
    del s
    out: dict[str, Any] = {
        "variant": arm, "games": n_games, **head,
        "take_use": take_use_numbers(games, seats, card, take, use, arm), **tail,
        f"{card}_out": _card_out_numbers(games, seats, card, active, user, run)}
    out[PER_GAME_KEY] = {**per_game, **out["take_use"].pop(PER_GAME_KEY, {}),
                     **out[f"{card}_out"].pop(PER_GAME_KEY, {}),
                     "write": {"players": players, "games_all": n_all}}
    return out


def sultan_numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame, players: int,
                   run: Mapping[str, Any] | None = None) -> dict:
    """Sultan diplomat scoring (docs/rules/rattus.md §2.3), ``_card_numbers`` of the Sultan:
    points and diplomats placed per start position, the diplomat leader's win rate and the
    games whose winner the diplomat points decided (``_sultan``)."""
    return _card_numbers(games, seats, players, run, "sultan", "sultan_points", "took_sultan",
                         "diplomats_placed", SULTAN_SEATS, _sultan)


def _sultan(s: pd.DataFrame) -> tuple[dict, dict, dict, str]:
    """``_card_numbers``' ``own`` of the Sultan."""
    key = position_column(s)
    dist = []
    for pos, grp in s.groupby(key)["sultan_points"]:
        d = stats.distribution(grp)
        d.insert(0, key, pos)
        dist.append(d)
    head: dict[str, Any] = {}
    if "diplomats_placed" in s:
        head["placed_mean"] = rows_of(stats.mean_values(s, (key,), "diplomats_placed"))
    head["position_column"] = key
    head["points_distribution"] = rows_of(pd.concat(dist, ignore_index=True))
    head["points_mean"] = rows_of(stats.mean_values(s, (key,), "sultan_points"))

    leader, edge = leader_edge(s)
    per_game = pd.DataFrame({"game_id": s["game_id"], "lead": leader,
                             "lead_won": s["won"].where(leader, 0.0), "won": s["won"]}).groupby(
        "game_id").agg(n_lead=("lead", "sum"), lead_won=("lead_won", "sum"), won=("won", "sum"),
                       seats=("lead", "size"))
    per_game = per_game[per_game["n_lead"] > 0]
    iv = stats.wilson(float(per_game["lead_won"].sum()), len(per_game))
    # without an edge the k holders win k/n of the game's win share (0 in a game nobody won)
    fair = (float((per_game["n_lead"] * per_game["won"] / per_game["seats"]).mean())
            if len(per_game) else math.nan)
    changed = stats.winners_without(s, "sultan_points")
    iv2 = stats.wilson(int(changed.sum()), len(changed))
    tail = {"leader_wins": {"games": len(per_game), **iv_dict(iv), "no_edge": fair,
                            "examples": _examples(per_game.index[per_game["lead_won"] > 0]),
                            "reference": edge.reference, "leaders": edge.groups,
                            "edge": {"estimate": edge.edge, "lo": edge.lo, "hi": edge.hi,
                                     "p_value": edge.p_value, "games": len(per_game),
                                     "unestimable": edge.unestimable}},
            "winner_changed": {"games": len(changed), "changed": int(changed.sum()),
                               **iv_dict(iv2), "examples": _examples(
                                   changed.index.get_level_values("game_id")[
                                       changed.to_numpy(bool)])}}
    user = "diplomats_placed" if "diplomats_placed" in s else "sultan_points"
    return head, tail, {"leader_edge": edge.per_game}, user


def sultan_write(doc: Doc, n: Mapping[str, Any], run: Mapping[str, Any] | None = None) -> None:
    """The "Sultan: diplomat scoring" section of ``sultan_numbers``' numbers ``n`` (nothing
    when ``n`` is empty)."""
    if not n:
        return
    players = n[PER_GAME_KEY]["write"]["players"]
    doc.h("Sultan: diplomat scoring")
    doc.p(_from_text("sultan", n) + "; every share below is over these games. Diplomat points "
          "are the Sultan's end-game points for the most / second-most diplomat discs on the "
          "board.")
    key = n["position_column"]
    where = _where(key)
    dist = pd.DataFrame(n["points_distribution"])
    means = pd.DataFrame(n["points_mean"])
    piv = dist.pivot(index=key, columns="value", values="share").fillna(0.0)
    tab = pd.DataFrame({where: [_position_label(p, key, players) for p in piv.index]})
    for v in piv.columns:
        tab[f"{v} pts"] = [f"{100 * x:.1f} %" for x in piv[v]]
    tab["mean points"] = cells(means, num, "mean", "lo", "hi")
    if "placed_mean" in n:
        placed = pd.DataFrame(n["placed_mean"]).set_index(key)
        tab["diplomats placed"] = [num(*placed.loc[p, ["mean", "lo", "hi"]]) for p in piv.index]
    doc.p(f"Per {where}{' (0 = the start player, drawn per game)' if key == 'start_position' else ''}"
          ": share of games with each number of diplomat points, and the mean points and "
          "diplomats placed per game (95% t intervals over games; each position once per game):")
    doc.table(tab)
    doc.chart("diplomat_points.png",
              f"Diplomat points per {where}: share of games (95% Wilson).",
              lambda ax: charts.plot_value_shares(
                  ax, dist.assign(**{where: dist[key].astype(str)}), where,
                  "diplomat points [points]", f"Diplomat points per {where}"))
    take_use_write(doc, n["take_use"], "diplomats_placed", "diplomats placed", players)
    lead, changed = n["leader_wins"], n["winner_changed"]
    doc.p(f"**Most diplomats wins**: in the {lead['games']} games where someone had a diplomat on "
          f"the board at the end, the holder(s) of the most diplomats won {pct(*_iv(lead))} of "
          f"them (a tie for first counts 1/k; a fair seat would win {100 * lead['no_edge']:.1f} %)."
          + _edge_text(lead))
    doc.p(f"**Diplomat points changed the winner** in {pct(*_iv(changed))} of games "
          f"({changed['changed']} of {changed['games']} games with the Sultan in play): "
          "recomputing the winner from score − diplomat points (same tie-break) gives a "
          "different set of winners.")
    _card_out_write(doc, n, "sultan",
                    "diplomats_placed" if "placed_mean" in n else "sultan_points")


def leader_edge(s: pd.DataFrame) -> tuple[pd.Series, stats.Edge]:
    """The diplomat leader(s) of each game and their edge over what the same players win when
    they do not lead (``stats.flagged_edge``), on the games where the comparison exists.

    The leader holds the most diplomat discs on the board at the end (``diplomats_surviving``,
    else ``sultan_points``); a game where nobody has one has no leader. Those games are left
    out of the edge, its reference included: a player's win share "when not leading" is taken
    over the games that have a leader, so that games without one (e.g. nobody placed a
    diplomat, a different game) do not set what leading is compared with (issue #32, F1: taking
    them in put the reference at the leader's 0 wins in such games; the interval covered
    89.6 %).

    Parameters
    ----------
    s : DataFrame
        Seat rows: ``game_id``, ``won``, ``diplomats_surviving`` or ``sultan_points``, and
        ``policy`` (else ``seat``) naming the player.

    Returns
    -------
    (Series, Edge)
        Per row whether it leads (``s``'s index); the edge, over the games with a leader
        (``Edge.per_game`` indexed by those games).
    """
    col = "diplomats_surviving" if "diplomats_surviving" in s else "sultan_points"
    top = s.groupby("game_id")[col].transform("max")
    leader = (s[col] == top) & (top > 0)
    has = (top > 0).to_numpy()
    rows = s[has]
    # who leads matters: the same players' win share when they do not lead
    players = rows["policy"] if "policy" in rows else rows["seat"]
    return leader, stats.flagged_edge(rows["game_id"], players, leader[has], rows["won"])


def _edge_text(lead: Mapping[str, Any]) -> str:
    """The sentence on who leads (``sultan_numbers``' ``leader_wins``): the leaders' edge over
    what the same players win when they do not lead (``stats.flagged_edge``)."""
    edge = lead["edge"]
    if edge["unestimable"]:
        return (f" Whether leading adds anything beyond who leads cannot be measured here: "
                f"{edge['unestimable']}.")
    who = ", ".join(f"`{p}` {100 * v:.1f} %" for p, v in
                    sorted(lead["leaders"].items(), key=lambda kv: -kv[1])[:3])
    return (f" But who leads matters: the leaders are {who} of the time, and the same players "
            f"win {100 * lead['reference']:.1f} % per seat-game when they do not lead, in the same "
            "games with a leader (each leader weighted by its player); the leaders' edge over "
            "that is "
            + _change(edge, False, edge["games"])
            + " (95 % delta-method t interval over games).")


CARAVAN_SEATS = ("variant", "game_id", "caravan_*")


def caravan_numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame, players: int,
                    run: Mapping[str, Any] | None = None) -> dict:
    """Caravan value (docs/rules/rattus.md §2.2), ``_card_numbers`` of the Trader: bonus cubes
    per caravan move for the mover and for opponents and how many survive to the end
    (``_caravan``)."""
    return _card_numbers(games, seats, players, run, "trader", "caravan_moves", "took_trader",
                         "caravan_moves", CARAVAN_SEATS, _caravan)


def _caravan(s: pd.DataFrame) -> tuple[dict, dict, dict, str]:
    """``_card_numbers``' ``own`` of the Trader."""
    cols = ["caravan_moves", "caravan_cubes_own", "caravan_cubes_given",
            "caravan_cubes_own_surviving", "caravan_cubes_received",
            "caravan_cubes_received_surviving"]
    g = s.groupby("game_id")[[c for c in cols if c in s]].sum()
    moves = g["caravan_moves"].to_numpy(float)
    own = stats.ratio_interval(g["caravan_cubes_own"], moves)
    given = stats.ratio_interval(g["caravan_cubes_given"], moves)
    total = stats.ratio_interval(g["caravan_cubes_own"] + g["caravan_cubes_given"], moves)
    rows = [("mover", "placed", own), ("opponents", "placed", given)]
    survived = {}  # who -> the share of its bonus cubes surviving to the end
    for who, col in (("mover", "caravan_cubes_own"), ("opponents", "caravan_cubes_received")):
        if f"{col}_surviving" in g:
            rows.append((who, "surviving", stats.ratio_interval(g[f"{col}_surviving"], moves)))
            survived[who] = clip_share(stats.ratio_interval(g[f"{col}_surviving"], g[col]))
    out: dict[str, Any] = {
        "moves_per_game": iv_dict(stats.mean_interval(moves)),
        "per_move": rows_of(pd.DataFrame([(w, st, iv.estimate, iv.lo, iv.hi)
                                          for w, st, iv in rows],
                                         columns=["who", "stage", "value", "lo", "hi"])),
        "total_per_move": iv_dict(total)}
    if len(survived) == 2:
        out["survival_own"] = iv_dict(survived["mover"])
        out["survival_given"] = iv_dict(survived["opponents"])
    return out, {}, {}, "caravan_moves"


def caravan_write(doc: Doc, n: Mapping[str, Any], run: Mapping[str, Any] | None = None) -> None:
    """The "Caravan: value of the Trader's bonus cubes" section of ``caravan_numbers``' numbers
    ``n`` (nothing when ``n`` is empty)."""
    if not n:
        return
    players = n[PER_GAME_KEY]["write"]["players"]
    table = pd.DataFrame(n["per_move"])
    doc.h("Caravan: value of the Trader's bonus cubes")
    doc.p(_from_text("trader", n) + f". The caravan moved {num(*_iv(n['moves_per_game']))} "
          "times per game with the Trader in play. Bonus cubes per move (ratio of totals over "
          "games, 95% delta-method intervals):")
    doc.table(pd.DataFrame({"cubes go to": table["who"], "stage": table["stage"],
                            "cubes per move": cells(table, num, "value", "lo", "hi")}))
    doc.p(f"All bonus cubes: {num(*_iv(n['total_per_move']))} per move.")
    if "survival_own" in n:
        doc.p(f"Share surviving to the end: mover's own bonus cubes "
              f"{pct(*_iv(n['survival_own']))}, cubes handed to opponents "
              f"{pct(*_iv(n['survival_given']))}. Cubes of one colour are "
              "identical, so \"surviving\" is an expected count: each time a seat loses, moves or "
              "sends to the palace cubes of a region, they are taken at random among its ordinary "
              "cubes there (the diplomat's cube leaves last, docs/rules/rattus.md §2.3), and a bonus "
              "cube that moves keeps counting where it goes.")
    doc.chart("caravan_bonus.png", "Caravan bonus cubes per move: mover vs opponents.",
              lambda ax: plot_caravan(ax, table))
    take_use_write(doc, n["take_use"], "caravan_moves", "caravan moves", players)
    _card_out_write(doc, n, "trader", "caravan_moves")


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


# the units of a card section's numbers (``analyzer.report.units``): its take and use counts,
# then the card-out comparison (``_card_out_numbers``)
CARD_UNITS = (
    ("take_use.by_arm[].*_share.*", SHARE), ("take_use.by_arm[].took_*", "takes per game"),
    ("take_use.by_arm[].*", "uses per game"), ("take_use.by_position[].start_position", "seat"),
    ("take_use.by_position[].took_share.*", SHARE),
    ("take_use.by_position[].took_*", "takes per seat-game"),
    ("take_use.by_position[].*", "uses per seat-game"),
    ("take_use.by_policy[].n", "seat-games"), ("take_use.by_policy[].*", "@value_unit"),
    ("take_use.first_last.*.last_position", "seat"), ("take_use.first_last.*.n", "games"),
    ("take_use.first_last.*.examples[]", "game id"),
    ("take_use.first_last.take.*", "takes per seat-game"),
    ("take_use.first_last.use.*", "uses per seat-game"),
    ("*_out.*[].start_position", "seat"), ("*_out.*[].n", "games"),
    ("*_out.won_by_position[].*", SHARE), ("*_out.score_by_position[].*", "points"),
    ("*_out.game_level[].*", "@value_unit"), ("*_out.users[].n", "seat-games"),
    ("*_out.users[].*.n", "seat-games"), ("*_out.users[].examples[]", "game id"),
    ("*_out.users[].*games*", "games"), ("*_out.users[].score_diff.*", "points"),
    ("*_out.users[].*", SHARE))
SECTIONS = (StudySection(
                "sultan", sultan_numbers, sultan_write, findings=findings.sultan, key_patterns=(
                    *(k for k, _, _ in findings.CARD_KEYS["sultan"]), "sultan:users:*"),
                plan=partial(findings.plan, "sultan"), units=(
                    *CARD_UNITS, ("*[].start_position", "seat"), ("*[].n", "games"),
                    ("placed_mean[].*", "diplomats per seat-game"),
                    ("points_distribution[].value", "points"),
                    ("points_distribution[].count", "games"), ("points_distribution[].*", SHARE),
                    ("points_mean[].*", "points"), ("*.examples[]", "game id"),
                    ("winner_changed.changed", "games"), ("leader_wins.*", SHARE),
                    ("winner_changed.*", SHARE))),
            StudySection(
                "caravan", caravan_numbers, caravan_write, findings=findings.caravan, key_patterns=(
                    *(k for k, _, _ in findings.CARD_KEYS["trader"]), "trader:users:*"),
                plan=partial(findings.plan, "trader"), units=(
                    *CARD_UNITS, ("moves_per_game.*", "caravan moves per game"),
                    ("per_move[].*", "bonus cubes per move"),
                    ("total_per_move.*", "bonus cubes per move"), ("survival_*", SHARE))))
