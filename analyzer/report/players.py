"""Report section: arms of other player counts, their game-level outcomes side by side.

An arm of another player count plays the same game seeds as the base but not the same games,
so its seats have no counterpart: the seat-level paired sections see only the arms of the
base's count (``paired_arms``), and this section compares every arm on game-level outcomes,
paired by seed (``stats.paired_difference``; Welch's ``stats.unpaired_difference`` only where
two arms share no seed), corrected over the arms of each column. Why pairing by seed is valid:
README, "Pairing by seed". Game-agnostic: it reads ``n_players`` and ``rounds`` of the game
records and ``BALANCE_SEATS`` of the seat records, one arm at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import pandas as pd

from analyzer import stats
from analyzer.report import balance
from analyzer.report.document import (
    CORRECTION_NAME,
    Doc,
    cells,
    rows_of,
    signed,
)
from analyzer.report.extension import studied_arm
from analyzer.report.records import Table, as_table

OUTCOMES = balance.OUTCOMES  # game-level outcomes compared, start_adv first


def counts(games: Table | pd.DataFrame) -> dict[str, int]:
    """Each arm's player count (``n_players`` of its game records), arms in record order."""
    g = as_table(games).read(("variant", "n_players"))
    first = g.drop_duplicates("variant")
    return {str(v): int(n) for v, n in zip(first["variant"], first["n_players"])}


def fair_share_n(arm_counts: Mapping[str, int]) -> tuple[str, str]:
    """How a sentence writes the player count of a fair share ``(1 − q)/n``: ``("3", "")`` when
    every arm has 3 players, else ``("n", "n = the arm's player count: 3 (`base`), 5
    (`five`)")``, arms grouped by count (four names each at most), so no sentence gives the
    base's count for an arm of another. ``arm_counts``: arm -> player count (``counts``)."""
    values = sorted(set(arm_counts.values()))
    if len(values) <= 1:
        return (str(values[0]) if values else "n"), ""
    groups = []
    for n in values:
        names = [f"`{v}`" for v, k in arm_counts.items() if k == n]
        groups.append(f"{n} ({', '.join(names[:4])}{' …' if len(names) > 4 else ''})")
    return "n", "n = the arm's player count: " + ", ".join(groups)


def reference(arm_counts: Mapping[str, int]) -> str:
    """The arm every other is compared with: the base, else the first (``studied_arm``)."""
    return studied_arm(list(arm_counts))


def paired_arms(arm_counts: Mapping[str, int]) -> list[str]:
    """The arms of the reference arm's player count (every arm when there is one count)."""
    ref = arm_counts[reference(arm_counts)] if arm_counts else None
    return [v for v, n in arm_counts.items() if n == ref]


def section(doc: Doc, games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
            correction: str = "holm") -> dict[str, Any]:
    """Fill the player-count section (``write`` of its ``numbers``); returns its numbers
    (``{}`` when every arm has one player count)."""
    games, seats = as_table(games), as_table(seats)
    arm_counts = counts(games)
    if len(set(arm_counts.values())) < 2:
        return {}
    per_game = {v: balance.per_game_of(games, seats, v, balance.seat_numbers(seats.only([v])))
                for v in arm_counts}
    found = numbers(per_game, arm_counts, correction)
    # a fair position of an arm's table wins (1 − q)/n of its games
    write(doc, found, {v: float(((1.0 - pg["no_winner"]) / pg["seats"]).mean())
                       for v, pg in per_game.items() if "start_adv" in pg})
    return found


def numbers(per_game: Mapping[str, pd.DataFrame], arm_counts: Mapping[str, int],
            correction: str = "holm") -> dict[str, Any]:
    """The player-count section's numbers of the arms' per-game outcomes ``per_game`` (arm ->
    ``balance.arm_per_game`` rows) and their player counts ``arm_counts`` (``counts``):
    ``arms``, per arm its player count and the ``balance.arm_table`` columns; ``vs_base``, per
    arm of another count than the reference and outcome, the ``seed_difference`` (``variant,
    players, metric, n, diff, lo, hi, p_value, significant, test, p_adjusted,
    significant_adjusted``; ``n`` = effective games for ``"welch"``); ``reference``,
    ``correction``."""
    ref = reference(arm_counts)
    base, tables, rows = per_game[ref], [], []
    for var, pg in per_game.items():
        tab = balance.arm_table(pg)
        tab.insert(1, "players", arm_counts[var])
        tables.append(tab)
        if arm_counts[var] == arm_counts[ref]:
            continue  # same table size: paired, in the variants and balance sections
        for m in (m for m in OUTCOMES if m in base):
            d, test = seed_difference(base, pg, m)
            rows.append({"variant": var, "players": arm_counts[var], "metric": m, "n": d.n,
                         "diff": d.mean, "lo": d.lo, "hi": d.hi, "p_value": d.p_value,
                         "significant": d.significant, "test": test})
    diffs = balance.correct_by_metric(pd.DataFrame(rows), correction)
    return {"reference": ref, "correction": correction,
            "arms": rows_of(pd.concat(tables, ignore_index=True)), "vs_base": rows_of(diffs)}


def seed_difference(base: pd.DataFrame, arm: pd.DataFrame, metric: str
                    ) -> tuple[stats.Difference, str]:
    """``arm − base`` of a game-level outcome of two arms of different player counts and its
    test, ``"paired"`` by game seed (``game_id``: game ``i`` of both is dealt from the same
    seed) over the game ids both have, when there are at least two, else ``"welch"``
    (unpaired). ``base`` and ``arm``: per-game rows with ``game_id`` and ``metric``."""
    b = base.set_index("game_id")[metric].dropna()
    a = arm.set_index("game_id")[metric].dropna()
    ids = b.index.intersection(a.index)
    share = OUTCOMES.get(metric, ("", 1, ""))[2] == " pp"  # a per-game share (or advantage)
    if len(ids) >= 2:
        return stats.paired_difference(b.loc[ids].to_numpy(float), a.loc[ids].to_numpy(float),
                                       bounds=stats.SHARE_DIFFERENCE if share else None), "paired"
    # the start player's advantage is a share minus a share, −1..1; the others 0..1
    values = (-1.0, 1.0) if metric == "start_adv" else (0.0, 1.0)
    return stats.unpaired_difference(b.to_numpy(float), a.to_numpy(float),
                                     bounds=values if share else None), "welch"


def write(doc: Doc, n: Mapping[str, Any], fair: Mapping[str, float]) -> None:
    """The player-count section of the numbers ``n`` (``numbers``). ``fair``: per arm the mean
    share a fair position of its table wins, which ``summary.json`` does not hold."""
    arms, diffs, ref = pd.DataFrame(n["arms"]), n["vs_base"], n["reference"]
    arm_counts = dict(zip(arms["variant"], arms["players"]))
    metrics = [m for m in OUTCOMES if m in arms]
    others = [v for v, k in arm_counts.items() if k != arm_counts[ref]]
    doc.h("Player counts: game-level outcomes side by side")
    doc.p(f"{len(others)} arm{'s' if len(others) != 1 else ''} ("
          + ", ".join(f"`{v}`: {arm_counts[v]} players" for v in others[:8])
          + (" …" if len(others) > 8 else "")
          + f") play{'s' if len(others) == 1 else ''} another player count than `{ref}` "
          f"({arm_counts[ref]} players). A game at another player count is another game, and "
          "its seats have no counterpart in the reference's, so the seat-by-seat paired "
          "sections (variants against the base, balance of each variant, a sweep's table) show "
          f"only the arms of {arm_counts[ref]} players. But every arm plays the same game "
          "seeds: game i of each arm is dealt from the same seed, so the two games' chance "
          "draws start from the same stream and their outcomes are correlated, while each pair "
          "is independent of the others. The arms are compared here on **game-level** "
          "outcomes, **paired by seed** (the per-game difference over the shared game ids, "
          "which removes the shared luck; Welch's unpaired interval only where two arms share "
          "no seed). A seat's win rate is not compared: "
          "a fair position wins (1 − q)/n, which moves with n by construction; the start "
          "player's **advantage** is measured against a fair position of its own table.")
    tab = arms[["variant", "players", "games"]].copy()
    if fair:
        tab["fair position wins"] = [f"{100 * fair[v]:.1f} %" for v in arms["variant"]]
    for m in metrics:
        tab[OUTCOMES[m][0]] = cells(arms, partial(balance.arm_cell, m), m)
    doc.p("Per arm: the share a fair position wins, (1 − q)/n with q the share of games nobody "
          "won; the start player's advantage over it (its win share minus the game's fair "
          "share, mean over games) [percentage points]; mean final score per seat [points]; the "
          "share of games nobody won"
          + ("; the death rate (share of seats that died)" if "death" in metrics else "")
          + "; the score spread (best − worst final score [points]); rounds per game. 95% "
          "intervals over games (Wilson for shares, t for means).")
    doc.table(tab)
    if not diffs:
        return
    n_rows = len(others)
    welch = sorted({r["variant"] for r in diffs if r["test"] == "welch"})
    how = ("mean over the shared game seeds of the per-game difference (paired by seed), 95% t "
           "interval" + (f"; Welch's unpaired t interval for {', '.join(f'`{v}`' for v in welch)}"
                         " (no shared game seed)" if welch else ""))
    doc.p(f"Against `{ref}` ({arm_counts[ref]} players), arm − reference: {how}; `*` = "
          f"significant after {CORRECTION_NAME[n['correction']]} correction over the {n_rows} "
          f"arm{'s' if n_rows != 1 else ''} of each column.")
    rows: dict[str, dict[str, Any]] = {}
    for r in diffs:
        label, *style = OUTCOMES[r["metric"]]
        row = rows.setdefault(r["variant"], {"variant": r["variant"], "players": r["players"]})
        row[label] = signed(r, *style)
    doc.table(pd.DataFrame(list(rows.values())))
