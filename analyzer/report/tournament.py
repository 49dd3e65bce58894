"""The report of ``analyzer tournament``: who is stronger, by how much, and against whom.

Built from the seat records and the run facts alone (``summary.json["run"]["study"]``: the
entrants and the schedule), so ``analyzer report DIR`` re-renders it. The numbers come from
``analyzer.ratings``: Plackett–Luce ratings, win rates and mean ranks per entrant and the
head-to-head matrix, each with a 95 % bootstrap interval over deals. The report opens with its
key findings (``key_findings``): the best-rated entrant's rating gap to the next and each
entrant's win rate against a fair seat's, ranked and Holm-corrected by ``findings``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer import ratings
from analyzer.report import charts, findings
from analyzer.report.document import Doc, cells, change, num, param_text, pct, rows_of
from analyzer.report.findings import Finding
from analyzer.report.records import Table, as_table
from analyzer.report.summary import RunFacts

SEAT_COLUMNS = ("variant", "game_id", "seat", "policy", "rank", "won")


def numbers(run: dict[str, Any], seats: Table | pd.DataFrame) -> dict[str, Any]:
    """The tournament's numbers, ``ratings.rate`` of the seat records' finishes with
    ``run["study"]``'s entrants and bootstrap: ``ratings`` and ``head_to_head``
    (``ratings.Ratings``' rows, best-rated first), ``deals``, ``skill_spread``, ``bootstrap``
    (replicates), ``games``, ``findings`` (``findings.numbers`` of ``key_findings``),
    ``reliable``, ``reliability`` (``ratings.reliability``'s warning, ``""`` if none) and
    ``min_deals``."""
    study = run.get("study") or {}
    names = [e["name"] for e in study.get("entrants", [])] or None
    found = ratings.finishes(as_table(seats).read(SEAT_COLUMNS), names)
    result = ratings.rate(found, n_boot=int(study.get("bootstrap", ratings.DEFAULT_BOOT)),
                          seed=int(study.get("boot_seed", 0)))
    warning = ratings.reliability(result.deals, int(study.get("orders") or 1),
                                  dict(zip(result.table["entrant"], result.table["deals_won"])))
    players = int(RunFacts.of(run).players or 0)  # every table seats the pool's players
    return {"ratings": rows_of(result.table), "head_to_head": rows_of(result.head_to_head),
            "deals": result.deals, "skill_spread": dict(result.spread),
            "bootstrap": result.n_boot, "games": found.n_games,
            "findings": findings.numbers(key_findings(result.table, result.deals, players,
                                                      dict(result.spread))),
            "reliable": not warning, "reliability": warning, "min_deals": ratings.MIN_DEALS}


def write(doc: Doc, n: dict[str, Any], assessed: tuple, run: dict[str, Any],
          run_dir: Path | None = None) -> None:
    """The tournament report of its numbers ``n`` (``numbers``; ``assessed``: its key findings'
    ``findings.ASSESSED``) and the run facts ``run`` (the schedule: ``run["study"]``). Rules
    citations link relative to ``run_dir``."""
    study, facts = run.get("study") or {}, RunFacts.of(run)
    players = int(facts.players or 0)  # every table seats the pool's players
    table, h2h = pd.DataFrame(n["ratings"]), pd.DataFrame(n["head_to_head"])
    spread = n["skill_spread"]
    if n["reliability"]:
        doc.p(f"**{n['reliability']}**")
    top = len(doc.blocks)  # the key findings go here once the numbers are in
    _header(doc, facts, study, n)
    fair = float(table["fair_share"].iloc[0]) if len(table) else math.nan
    doc.h("Ratings")
    doc.p(f"Plackett–Luce ratings from the finishing order of every game (maximum likelihood; "
          f"seats tied on score and every tie-break are drawn from the same remaining set, "
          f"Breslow's rule). A rating is a log-strength centred on the pool's mean: entrants "
          f"rated `a` and `b` finish in that order with odds `exp(a − b)` when compared alone; "
          f"`gap to next` is the rating minus the next row's. Win rate counts a k-way tie for "
          f"first as 1/k; {fair_text(fair, players)}; `above fair` is the win rate minus it. "
          f"Mean rank is 1 for first. `games` are the games an entrant sat in, `seat-games` its "
          f"seats summed over them (more than its games where it holds several seats of a "
          f"table): the win rate and the mean rank are per seat-game. "
          + (f"Intervals: 95 % expanded percentile bootstrap over the {n['deals']} deals "
             f"({n['bootstrap']} replicates; the percentile levels widened for few deals, "
             "Hesterberg 2015): every game of a deal is resampled together, as they share its "
             "chance draws; a difference takes its interval from the same replicates. A share "
             "of 0 or 1 in every game (an entrant that never wins) has nothing to resample: it "
             "gets Wilson's bound over its deals, and its distance from a fair seat a MOVER "
             "interval." if n["bootstrap"] else
             "No intervals: " + ("a single deal has nothing to resample." if n["deals"] < 2
                                 else "no bootstrap replicates were asked.")))
    doc.table(pd.DataFrame({
        "rank": range(1, len(table) + 1), "entrant": table["entrant"],
        "rating": cells(table, num, "rating"),
        "gap to next": cells(table, change, "gap_next", "gap_lo", "gap_hi"),
        "win rate": cells(table, pct, "win_rate", "win_lo", "win_hi"),
        "above fair": cells(table, lambda *d: change(*d, 100, "pp", 1), "above_fair"),
        "mean rank": cells(table, num, "mean_rank", "rank_lo", "rank_hi"),
        "games": table["games"], "seat-games": table["seat_games"],
    }))
    doc.chart("ratings.png", "Plackett–Luce rating of each entrant (95% bootstrap intervals "
                             "over deals).", lambda ax: plot_ratings(ax, table),
              size=(7.0, 1.2 + 0.45 * len(table)))
    doc.h("Head to head")
    doc.p("Share of meetings (a seat of each in the same game) in which the row's entrant "
          "finished above the column's; a tie counts 1/2. 95 % bootstrap interval over deals; "
          "in brackets after it, the share the ratings predict (`1 / (1 + exp(b − a))`), a check "
          "of the model: a large gap means strength is not one number here (e.g. one entrant "
          "exploits another).")
    order = list(table["entrant"])
    doc.table(_matrix(h2h, order))
    if len(h2h):
        doc.chart("head_to_head.png", "Share of meetings the row's entrant finished above the "
                                      "column's.", lambda ax: plot_head_to_head(ax, h2h, order),
                  size=(2.5 + 0.9 * len(order), 1.5 + 0.8 * len(order)))
    if spread:
        doc.h("Skill spread")
        doc.p(f"How far apart the pool's players are (issue #36): the best-rated entrant "
              f"`{spread['strongest']}` against the worst-rated `{spread['weakest']}`, their win "
              f"rates' difference "
              f"{change(spread['win'], spread['win_lo'], spread['win_hi'], 100, 'pp', 1)} and "
              f"their ratings' {change(spread['rating'], spread['rating_lo'], spread['rating_hi'])} "
              f"(log-strength; `quality:skill_spread` and `quality:skill_spread:rating`). 95 % "
              f"bootstrap intervals over the {n['deals']} deals from the same replicates as "
              "the table, the two entrants held fixed as ranked on all deals; being picked as "
              "the extremes, the spread leans high when the entrants are close. A wide spread "
              "says the game rewards skill (for these players); near 0, the players' strength "
              "barely matters (compare `analyzer quality --luck`).")
    _schedule(doc, study)
    findings.write(
        doc, n["findings"], assessed, run_dir, at=top,
        none_text="No finding to report: no entrant was rated.",
        note="Here the unit is the **deal** (a game seed: every table's game of it, resampled "
             "together) instead of the game. The intervals are percentile bootstrap intervals "
             "over deals; each p-value is a test over deals (a t-test of the per-deal values; "
             "for an entrant that won none of its games, or a pair where one always finished "
             "above, the exact binomial over deals), not read off the interval.")


def fair_text(fair: float, players: int) -> str:
    """The share a fair seat wins, as said in the report: ``1/n`` when every game has a winner,
    else ``(1 − q)/n`` with ``q`` the share of games nobody won (``fair``: the pool's win share
    per seat-game)."""
    if math.isnan(fair):
        return "a fair seat wins (1 − q)/n of its games"
    q = 1.0 - fair * players
    if abs(q) < 1e-9:
        return f"a fair seat wins 1/{players} = {100 * fair:.1f} % (every game has a winner)"
    return (f"a fair seat wins (1 − q)/{players} = {100 * fair:.1f} %, q = {100 * q:.1f} % the "
            "share of games nobody won (a loss for every seat)")


def key_findings(table: pd.DataFrame, deals: int, players: int,
                 spread: dict[str, Any] | None = None) -> list[Finding]:
    """The tournament's findings: the best-rated entrant's rating gap to the next-rated one, and
    each entrant's win rate minus a fair seat's (``ratings.Ratings.table``, best first), each
    with its bootstrap interval over ``deals`` and the p-value of its test over deals
    (``gap_p``, ``above_fair_p``: a t-test of per-deal values, an exact binomial over deals
    for a share of 0 or 1), not one read off the asymmetric percentile interval. A win rate is
    per seat-game: its sentence counts the entrant's games, and its seat-games too where it held
    several seats of a table (as the ratings table's ``games`` and ``seat-games`` columns).
    With ``spread`` (``ratings.Ratings.spread``), the skill spread as two measured figures:
    ``quality:skill_spread`` (the best-rated entrant's win rate minus the worst-rated's) and
    ``quality:skill_spread:rating`` (their rating difference)."""
    out = []
    if len(table) >= 2:
        best, second = table.iloc[0], table.iloc[1]
        out.append(Finding(
            f"`{best['entrant']}` is the best-rated entrant, {{value}} in Plackett–Luce rating "
            f"above the next-rated `{second['entrant']}` (log-strength; it finishes above it "
            f"with odds {math.exp(best['gap_next']):.2f} to 1 when the two are compared alone; "
            f"bootstrap over {deals} deals)", float(best["gap_next"]), float(best["gap_lo"]),
            float(best["gap_hi"]), "", 1, 2, True, 0.0, games=deals, p_value=_p(best, "gap_p"),
            key=f"rating_gap:{best['entrant']}:{second['entrant']}", min_games=2,
            stored_unit="log-strength"))
    for r in table.itertuples():
        count = (f"{r.games:,} games" if r.seat_games == r.games else
                 f"{r.seat_games:,} seat-games (its seats in the {r.games:,} games it sat in)")
        out.append(Finding(
            f"`{r.entrant}` wins {pct(r.win_rate, r.win_lo, r.win_hi)} of its "
            f"{count} against a fair seat's {100 * r.fair_share:.1f} % "
            f"({players} players): {{value}} (bootstrap over {deals} deals)",
            float(r.above_fair), float(r.above_fair_lo), float(r.above_fair_hi), "pp", 100, 1,
            True, 0.0, games=deals, key=f"win_rate:{r.entrant}", min_games=2,
            p_value=_p(r._asdict(), "above_fair_p")))
    if spread:
        pair = f"`{spread['strongest']}` (best-rated) minus `{spread['weakest']}` (worst-rated)"
        out.append(Finding(
            f"Skill spread: {pair} in win rate, {{value}} (bootstrap over {deals} deals)",
            float(spread["win"]), float(spread["win_lo"]), float(spread["win_hi"]), "pp", 100,
            1, True, None, games=deals, key="quality:skill_spread", min_games=2,
            bounds=(-1.0, 1.0)))
        out.append(Finding(
            f"Rating spread: {pair}, {{value}} in Plackett–Luce rating (log-strength; "
            f"bootstrap over {deals} deals)", float(spread["rating"]),
            float(spread["rating_lo"]), float(spread["rating_hi"]), "", 1, 2, True, None,
            games=deals, key="quality:skill_spread:rating", min_games=2,
            stored_unit="log-strength"))
    return out


def _p(row, column: str) -> float | None:
    """A row's p-value of a test over deals (``ratings.Ratings.table``), ``None`` where the
    table has none (the finding then reads it off its interval)."""
    p = row.get(column)
    return None if p is None or math.isnan(p) else float(p)


def _header(doc: Doc, facts: RunFacts, study: dict, n: dict[str, Any]) -> None:
    n_tables = len(study.get("tables", [])) or n["deals"]
    seatings = study.get("seatings", "?")
    how = ("every seating" if study.get("all_seatings", True)
           else f"a balanced sample of {seatings} seatings")
    orders = ("every order of its entrants" if study.get("seat_orders") == "all"
              else "every rotation")
    doc.h("This run")
    doc.p(f"Game **{facts.said('game')}** (expansions: {', '.join(facts.expansions) or 'none'}"
          f"), {facts.said('players')} players. **{len(n['ratings'])} entrants**, {how} of "
          f"them ({seatings}), each in {orders}: {n_tables} tables, each playing the same "
          f"**{n['deals']} deal{'s' if n['deals'] != 1 else ''}** (game seeds from root seed **{facts.said('seed')}**), so "
          f"every entrant plays every seat equally often on the same deals. **{n['games']:,} "
          f"games** in all. Pool file: `{study.get('pool_file', facts.said('scenario_file'))}` "
          "(as run: `pool.toml`).")
    for text in facts.how_played(f"Played in {facts.seconds:.1f} s"):
        doc.p(text)
    if tc := facts.target_ci:
        doc.p(f"Stopping rule: every entrant's win-rate interval (deals as the unit) within "
              f"±{100 * tc['target']:.2f} pp — "
              + (f"reached after {tc['games']} deals." if tc["reached"] else
                 f"not reached at the cap of {tc['games']} deals (widest "
                 f"±{100 * tc['half_width']:.2f} pp)."))
    rules = facts.arms[0].rules if facts.arms else {}
    doc.p("Rules: " + ("; ".join(f"{k} = {param_text(v)}" for k, v in rules.items())
                       or "the game's defaults") + ".")
    # the labelled defaults in use: the appendix table (``report._appendix``, issue #25)
    doc.h("Entrants")
    doc.table(pd.DataFrame([
        {"entrant": e["name"], "policy": e["policy"],
         "parameters": ", ".join(f"{k} = {param_text(v)}" for k, v in e["params"].items())
         or "the policy's defaults"}
        for e in study.get("entrants", [])]))


def _matrix(h2h: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Rows and columns in rating order; a cell reads ``"63.0 % [58.1, 67.4] (61 %)"``."""
    shown = {(r.entrant, r.opponent): f"{pct(r.above, r.lo, r.hi)} ({100 * r.model:.0f} %)"
             for r in h2h.itertuples()}
    return pd.DataFrame([{"entrant": a, **{b: "–" if a == b else shown.get((a, b), "never met")
                                          for b in order}} for a in order])


def plot_ratings(ax, table: pd.DataFrame) -> None:
    """Horizontal points with 95 % interval bars, best entrant at the top (``table``:
    ``entrant, rating, rating_lo, rating_hi``, best first)."""
    t = table.iloc[::-1]
    y = np.arange(len(t))
    x = t["rating"].to_numpy(float)
    ax.errorbar(x, y, xerr=charts.error_bars(x, t["rating_lo"], t["rating_hi"]), fmt="o",
                capsize=3, color="#1f4e79")
    ax.set_yticks(y, list(t["entrant"]))
    ax.axvline(0, color="grey", linewidth=1, linestyle="--")
    ax.set_xlabel("Plackett–Luce rating [log-strength, pool mean 0]")
    ax.set_title("Ratings (95% bootstrap intervals over deals)")


def plot_head_to_head(ax, h2h: pd.DataFrame, order: list[str]) -> None:
    """Heat map of the share of meetings the row's entrant finished above the column's
    (``h2h``: ``entrant, opponent, above``), cells annotated in percent."""
    m = h2h.pivot(index="entrant", columns="opponent", values="above").reindex(
        index=order, columns=order).to_numpy(float)
    image = ax.imshow(m, cmap="RdBu", vmin=0, vmax=1)
    for i, j in zip(*np.nonzero(~np.isnan(m))):
        ax.text(j, i, f"{100 * m[i, j]:.0f}", ha="center", va="center", fontsize="small",
                color="white" if abs(m[i, j] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
    ax.set_yticks(range(len(order)), order)
    ax.set_xlabel("opponent")
    ax.set_ylabel("entrant")
    ax.figure.colorbar(image, ax=ax, label="share finished above [0–1]")
    ax.set_title("Head to head")


def _schedule(doc: Doc, study: dict) -> None:
    if not (tables := study.get("tables")):
        return
    doc.h("Schedule")
    by_seating: dict[int, list[dict]] = {}
    for t in tables:
        by_seating.setdefault(t["seating"], []).append(t)
    doc.p("Each seating's tables (arms of the records: `variant` = table) in seat order 0, 1, …; "
          "every table plays every deal.")
    doc.table(pd.DataFrame([
        {"seating": k, "entrants": ", ".join(sorted(ts[0]["seats"])),
         "tables": "; ".join(f"`{t['arm']}`: {' / '.join(t['seats'])}" for t in ts)}
        for k, ts in sorted(by_seating.items())]))
