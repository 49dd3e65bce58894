"""Pyramidion's own report section: the baseline study (scenarios/pyramidion-baseline*.toml).

Answers, from the record tables alone: seat balance by start position, greedy against the named
strategies, which sites are most contested, and how each goods source goes with winning.
Declared in ``SPEC.sections`` (``__init__.py``); the generic report calls it after its own
sections.

Columns read (see ``analyzer/games/pyramidion/metrics.py``): games ``sites``,
``site_activations``, ``site_contestants``, ``site_revolts``, ``first_to_target``, ``end``; seats
``start_position``, ``vp``, ``boats_loaded``, ``goods_<source>``, ``tiles_placed``,
``revolts_won``, ``won``.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter
from scipy import stats as sps

from analyzer import stats
from analyzer.games.pyramidion import findings
from analyzer.report import charts
from analyzer.report.document import (
    CORRECTION_SHORT,
    Doc,
    cells,
    correction_of,
    iv_dict,
    num,
    p_text,
    pct,
    rows_of,
    signed,
)
from analyzer.report.extension import StudySection, studied_arm
from analyzer.report.extension import fair_share as fair_share_of
from analyzer.report.findings import PER_GAME_KEY
from analyzer.report.players import counts as arm_player_counts
from analyzer.report.players import fair_share_n
from analyzer.report.records import Table, as_table
from analyzer.report.units import SHARE

# goods sources in the seat records (docs/rules/pyramidion.md §5 phases 3, 5, 7 and 8, §10.2)
SOURCES: tuple[tuple[str, str], ...] = (
    ("goods_merchant", "merchant contest (the site's goods, phase 5 step 7)"),
    ("goods_negotiator", "negotiator tiles (phase 3)"),
    ("goods_slave_driver", "slave-driver tiles while loading (phase 7)"),
    ("goods_phase8", "slave-driver tiles in phase 8 (option good_of_site)"),
    ("goods_revolt", "revolts won"),
    ("goods_special", "special cards (Thief, Bandit, Stone dragger, Cairo)"),
)


def acted_sources(seats: pd.DataFrame) -> list[str]:
    """The goods columns of ``SOURCES`` that gave at least one good in these seat records (a
    source whose rule is not in play, e.g. phase 8 under the default, is left out)."""
    return [c for c, _ in SOURCES if c in seats and bool((seats[c] != 0).any())]


def site_figures(games: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per site of the site tables in these games: activations, contestants and revolts per game.

    The game records name their sites (``sites``, a JSON list in table order) and hold one
    integer per site in each ``site_*`` column (``metrics.GAME_COLUMNS``), so a site of a user
    ``sites_file`` is read under its own name.

    Returns
    -------
    dict of str to ndarray
        Site name (first-seen order) -> array of shape ``(len(games), 3)``: activations,
        seats playing at least one card summed over the activations, revolts. A game whose
        table lacks the site has zeros.
    """
    out: dict[str, np.ndarray] = {}
    names = games["sites"].astype(str).to_numpy()
    cols = [games[c].astype(str).to_numpy() for c in ("site_activations", "site_contestants",
                                                       "site_revolts")]
    for table in pd.unique(names):
        rows = np.flatnonzero(names == table)
        sites = json.loads(table)
        for j, col in enumerate(cols):
            values = np.array([v.split(",") for v in col[rows]], dtype=np.int64).reshape(
                len(rows), len(sites))
            for k, site in enumerate(sites):
                out.setdefault(site, np.zeros((len(games), 3), dtype=np.int64))[rows, j] = values[:, k]
    return out


def start_position_table(seats: pd.DataFrame) -> pd.DataFrame:
    """Win rate and mean VP by start position (place in round 1's player order).

    Parameters
    ----------
    seats : DataFrame
        One variant's seat records with ``variant, game_id, start_position, won, vp``.

    Returns
    -------
    DataFrame
        Columns ``[variant, start_position, n, wins, rate, lo, hi, vp, vp_lo, vp_hi, p_equal]``:
        Wilson 95% interval on the win share, t interval on VP, and ``p_equal`` (same for every
        row) the chi-square goodness-of-fit p-value of "the winner's start position
        is uniform" (one winner per game, a k-way tie split 1/k; docs/rules/pyramidion.md §4, §6).
    """
    var = seats["variant"].iloc[0]
    w = stats.win_rates(seats, ("start_position",))
    m = stats.mean_values(seats, ("start_position",), "vp")
    wins = w["wins"].to_numpy(float)
    p = float(sps.chisquare(wins, np.full(len(wins), wins.sum() / len(wins))).pvalue) \
        if len(wins) > 1 and wins.sum() > 0 else math.nan
    rows = [(var, int(r.start_position), int(r.n), float(r.wins), r.rate, r.lo, r.hi, v.mean,
             v.lo, v.hi, p) for r, v in zip(w.itertuples(), m.itertuples())]
    return pd.DataFrame(rows, columns=["variant", "start_position", "n", "wins", "rate", "lo",
                                       "hi", "vp", "vp_lo", "vp_hi", "p_equal"])


def _gap(seats: pd.DataFrame, mine: pd.Series, col: str,
         bounds: tuple[float, float] | None = None) -> tuple[pd.DataFrame, stats.Difference]:
    """Per game with both, the mean ``col`` of the seats ``mine`` (``a``) and of the other
    seats (``b``), and the paired difference ``a − b`` over those games."""
    both = pd.concat([seats[mine].groupby("game_id")[col].mean().rename("a"),
                      seats[~mine].groupby("game_id")[col].mean().rename("b")],
                     axis=1, join="inner")
    return both, stats.paired_difference(both["b"], both["a"], bounds=bounds)


def head_to_head(seats: pd.DataFrame, per_game: dict | None = None) -> pd.DataFrame:
    """One variant's seats (``seats``): each policy's per-game win share against the other
    seats, paired; no row when it seats one policy.

    For every game, the mean ``won`` of one policy's seats minus the mean ``won`` of the other
    seats; a t interval over games (the seats of one game are not independent, the games are).

    Returns
    -------
    DataFrame
        Columns ``[variant, policy, games, rate, others, diff, lo, hi, significant, p_value,
        mirror_of]`` (shares 0–1 per seat-game; ``diff`` = ``rate − others``; ``mirror_of`` =
        the policy whose comparison this one repeats exactly — with two policies, one's lead is
        the other's lag — see ``stats.mirrors``). ``per_game``, when given, receives each
        row's per-game differences under ``"head_to_head:VARIANT:POLICY"`` (for the findings).
    """
    var, rows, diffs = seats["variant"].iloc[0], [], {}
    for pol in sorted(pd.unique(seats["policy"])) if seats["policy"].nunique() > 1 else ():
        both, d = _gap(seats, seats["policy"] == pol, "won", stats.SHARE_DIFFERENCE)
        diffs[(pol,)] = both["a"] - both["b"]
        if per_game is not None:
            per_game[f"head_to_head:{var}:{pol}"] = diffs[(pol,)].rename_axis("game_id")
        rows.append([var, pol, d.n, float(both["a"].mean()), float(both["b"].mean()), d.mean,
                     d.lo, d.hi, d.significant, d.p_value, None])
    twins = stats.mirrors(diffs)
    for row, key in zip(rows, diffs):
        row[-1] = None if twins[key] is None else twins[key][0]
    return pd.DataFrame(rows, columns=["variant", "policy", "games", "rate", "others", "diff",
                                       "lo", "hi", "significant", "p_value", "mirror_of"])


def site_contest(games: pd.DataFrame) -> pd.DataFrame:
    """Per site of one variant's games (``games``): how contested it is, ranked.

    The sites are those of the site table in use (``site_figures``). Contestants per
    activation over all games is the ratio Σ contestants / Σ activations (contestants: seats
    playing at least one card, summed over a game's activations of the site), with a
    delta-method 95% interval (``stats.ratio_interval``); revolts per activation likewise
    (docs/rules/pyramidion.md §5 phase 5).

    Returns
    -------
    DataFrame
        Columns ``[variant, rank, site, activations, act_lo, act_hi, contest, lo, hi, revolts,
        rev_lo, rev_hi, games_revolt]``: activations per game (t interval), contestants per
        activation, revolts per activation, and the share of games with a revolt there.
        ``rank`` 1 = most contestants per activation.
    """
    var, rows = games["variant"].iloc[0], []
    for site, fig in site_figures(games).items():
        act, who, rev = (fig[:, j].astype(float) for j in range(3))
        a = stats.mean_interval(act)
        c = stats.ratio_interval(who, act)
        r = stats.ratio_interval(rev, act)
        rows.append([var, 0, site, a.estimate, a.lo, a.hi, c.estimate, c.lo, c.hi,
                     r.estimate, max(0.0, r.lo), r.hi, float((rev > 0).mean())])
    rows.sort(key=lambda row: -row[6] if not math.isnan(row[6]) else math.inf)
    for k, row in enumerate(rows, 1):
        row[1] = k
    return pd.DataFrame(rows, columns=["variant", "rank", "site", "activations", "act_lo",
                                       "act_hi", "contest", "lo", "hi", "revolts", "rev_lo",
                                       "rev_hi", "games_revolt"])


def goods_by_outcome(seats: pd.DataFrame, per_game: dict | None = None) -> pd.DataFrame:
    """Goods per source for the winner(s) and the other seats of the same game, paired by game.

    Per game: mean goods of the seats with ``won > 0`` minus the mean of the others (games
    where every seat shares the win are skipped), with a t interval over games.

    Returns
    -------
    DataFrame
        Columns ``[source, share, winners, others, diff, lo, hi, significant, p_value]``, one
        row per source that gave goods (``acted_sources``): ``share`` is the source's share of
        all goods taken (0–1); the rest are goods per seat-game. ``per_game``, when given,
        receives each source's per-game differences under ``"goods_gap:SOURCE"``.
    """
    won = seats["won"] > 0
    cols = acted_sources(seats)
    total = float(sum(seats[c].sum() for c in cols)) or math.nan
    rows = []
    for col in cols:
        both, d = _gap(seats, won, col)
        if per_game is not None:
            per_game[f"goods_gap:{col}"] = (both["a"] - both["b"]).rename_axis("game_id")
        rows.append((col, float(seats[col].sum()) / total, float(both["a"].mean()),
                     float(both["b"].mean()), d.mean, d.lo, d.hi, d.significant, d.p_value))
    return pd.DataFrame(rows, columns=["source", "share", "winners", "others", "diff", "lo", "hi",
                                       "significant", "p_value"])


MAX_LOG_ODDS = math.log(1000.0)  # an interval bound beyond 1000× (or 1/1000×) = not estimable


def goods_win_model(seats: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Conditional logit of winning on goods per source, within each game.

    Model: among the seats of one game, the chance that a seat is the winner is proportional
    to ``exp(Σ β_source · goods_source)`` (McFadden's conditional logit, grouped by
    ``game_id``; ``statsmodels.discrete.conditional_models.ConditionalLogit``). Comparing seats
    of the same game removes whatever the whole table shares (game length, goods arriving).
    A k-way shared win counts as k winners.

    Returns
    -------
    DataFrame
        Columns ``[source, odds_ratio, lo, hi, p_value]``, one row per source that gave goods
        (``acted_sources``): the odds of being the winner per extra good of that source, the
        other sources held fixed; empty when the model cannot be fitted (too few games, a
        constant source, no convergence).
    """
    from statsmodels.discrete.conditional_models import ConditionalLogit

    cols = acted_sources(seats)
    empty = pd.DataFrame(columns=["source", "odds_ratio", "lo", "hi", "p_value"])
    # games with a single winner or a tie of some but not all seats carry information
    y = (seats["won"] > 0).astype(int)
    per_game = y.groupby(seats["game_id"]).agg(["sum", "size"])
    useful = per_game.index[(per_game["sum"] > 0) & (per_game["sum"] < per_game["size"])]
    s = seats[seats["game_id"].isin(useful)]
    x = s[cols].to_numpy(float)
    if len(useful) < 20 or not cols or np.any(x.std(axis=0) == 0):
        return empty
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = ConditionalLogit((s["won"] > 0).astype(int).to_numpy(), x,
                                   groups=s["game_id"].to_numpy()).fit(disp=0)
            ci = np.asarray(fit.conf_int(alpha=1 - confidence))
            beta, p = np.asarray(fit.params), np.asarray(fit.pvalues)
        converged = bool(getattr(fit, "mle_retvals", {}).get("converged", True))
    except (np.linalg.LinAlgError, ValueError):
        return empty
    # separation (a source that perfectly predicts the winner in few games) drives the estimate
    # and its interval off to infinity: such an odds ratio is not estimable, not "huge"
    if (not converged or not np.all(np.isfinite(beta)) or not np.all(np.isfinite(ci))
            or np.any(np.abs(ci) > MAX_LOG_ODDS)):
        return empty
    return pd.DataFrame({"source": cols, "odds_ratio": np.exp(beta), "lo": np.exp(ci[:, 0]),
                         "hi": np.exp(ci[:, 1]), "p_value": p})


def _plot_sites(ax, table: pd.DataFrame, value: str, lo: str, hi: str, xlabel: str,
                title: str) -> None:
    """Horizontal bars per site (most contested on top) with 95% error bars."""
    t = table.iloc[::-1]
    y = np.arange(len(t))
    v = t[value].to_numpy(float)
    err = charts.error_bars(v, t[lo], t[hi])
    ax.barh(y, v, xerr=err, capsize=3, color="#8c6d31")
    ax.set_yticks(y, list(t["site"]))
    ax.set_xlabel(xlabel)
    ax.set_title(title)


def _plot_goods(ax, table: pd.DataFrame) -> None:
    """Goods per seat-game by source, winners against the other seats of the same game."""
    pos = np.arange(len(table))
    width = 0.4
    ax.bar(pos - width / 2, table["winners"], width, label="winner(s)")
    ax.bar(pos + width / 2, table["others"], width, label="other seats")
    ax.set_xticks(pos, [s.removeprefix("goods_").replace("_", " ") for s in table["source"]])
    ax.set_xlabel("goods source")
    ax.set_ylabel("goods taken per seat-game")
    ax.set_title("Goods by source: winners vs the other seats")
    charts.legend(ax)


def _plot_odds(ax, table: pd.DataFrame) -> None:
    """Odds ratio per extra good by source, log scale, with 95% intervals and a line at 1."""
    y = np.arange(len(table))[::-1]
    v = table["odds_ratio"].to_numpy(float)
    err = charts.error_bars(v, table["lo"], table["hi"])
    ax.errorbar(v, y, xerr=err, fmt="o", capsize=3)
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    lo = min(1.0, float(np.nanmin(table["lo"])))
    hi = max(1.0, float(np.nanmax(table["hi"])))
    ticks = [x for x in (0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4, 6, 8) if lo / 1.1 <= x <= hi * 1.1]
    ax.set_xticks(ticks, [f"{x:g}" for x in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(y, [s.removeprefix("goods_").replace("_", " ") for s in table["source"]])
    ax.set_xlabel("odds ratio of winning per extra good (log scale)")
    ax.set_title("Goods source and winning, within a game (95% intervals)")


PYRAMIDION_SEATS = ("variant", "game_id", "seat", "policy", "won", "start_position", "vp",
                    "boats_loaded", "tiles_placed", "revolts_won", "goods_*")
PYRAMIDION_GAMES = ("variant", "game_id", "end", "first_to_target", "sites", "site_*")


def numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame, players: int,
            run: Mapping[str, Any] | None = None) -> dict:
    """The Pyramidion baseline study's numbers (``StudySection.numbers``): ``{"start_position",
    "head_to_head", "policy_profile", "sites", "goods", "goods_model"}`` as lists of records
    (``start_position_table``, ``head_to_head``, the policies' means, ``site_contest``,
    ``goods_by_outcome``, ``goods_win_model``; tests corrected as the run asks, Holm by
    default) and ``ends`` (how the studied arm's games ended). ``"_per_game"`` (never in
    ``summary.json``) holds the findings' per-game values and, under ``"write"``, each arm's
    fair share ``(1 − q)/n`` and how the text writes ``n`` (``players.fair_share_n``).
    docs/rules/pyramidion.md §4–§7. Reads one variant at a time (``PYRAMIDION_SEATS``,
    ``PYRAMIDION_GAMES``).
    """
    games, seats = as_table(games), as_table(seats)
    names = seats.variants()
    # the goods sources that gave goods in some variant (phase 8 only under its option)
    prof_cols = ["vp", "boats_loaded", *acted_sources(seats.read(("goods_*",))), "tiles_placed",
                 "revolts_won"]
    sp, h2h, prof, fair = [], [], [], {}
    per_game: dict[str, Any] = {}  # for the findings, never in summary.json
    for var in names:  # the per-variant tables, one variant's seats at a time
        sv = seats.read(PYRAMIDION_SEATS, [var])
        fair[var] = fair_share_of(sv)
        sp.append(start_position_table(sv))
        h2h.append(head_to_head(sv, per_game))
        prof.append(sv.groupby(["variant", "policy"], sort=False, observed=True)[prof_cols]
                    .mean().reset_index())
        del sv
    sp = pd.concat(sp, ignore_index=True)
    # corrected over the variants (one chi-square per variant) and over the head-to-head rows
    method = correction_of(run)
    p_var = stats.correct(sp.drop_duplicates("variant")[["variant", "p_equal"]], method,
                          p_column="p_equal")
    sp = sp.merge(p_var[["variant", "p_adjusted", "significant_adjusted"]].rename(
        columns={"p_adjusted": "p_equal_adjusted",
                 "significant_adjusted": "equal_significant"}), on="variant", how="left")
    # (variant, policy) groups in order of first appearance in the records
    pairs = seats.read(("variant", "policy")).drop_duplicates().astype(str)
    prof = pd.concat(prof, ignore_index=True).astype({"variant": str, "policy": str})
    sites = pd.concat([site_contest(games.read(PYRAMIDION_GAMES, [var]))
                       for var in games.variants()], ignore_index=True)
    arm = studied_arm(names)
    g = games.read(PYRAMIDION_GAMES, [arm])
    s = seats.read(PYRAMIDION_SEATS, [arm])
    first = g.loc[g["first_to_target"] >= 0, ["game_id", "first_to_target"]]
    fw = s.merge(first, left_on=["game_id", "seat"], right_on=["game_id", "first_to_target"])
    n, n_note = fair_share_n(arm_player_counts(games))  # "n" and a note when counts differ
    per_game["write"] = {"n": n, "n_note": n_note, "fair_share": fair}
    return {"start_position": rows_of(sp),
            "head_to_head": rows_of(stats.correct(pd.concat(h2h, ignore_index=True), method,
                                                  "policy")),
            "policy_profile": rows_of(pairs.merge(prof, on=["variant", "policy"])),
            "sites": rows_of(sites),
            "ends": {"variant": arm, "ends": g["end"].astype("str").value_counts().to_dict(),
                     "first_to_target_games": len(first), "first_to_target_won": iv_dict(
                         stats.wilson(float(fw["won"].sum()), len(first)))},
            "goods": rows_of(stats.correct(goods_by_outcome(s, per_game), method)),
            "goods_model": rows_of(stats.correct(goods_win_model(s), method)),
            PER_GAME_KEY: per_game}


def write(doc: Doc, n: Mapping[str, Any], run: Mapping[str, Any] | None = None) -> None:
    """The Pyramidion baseline study's sections (the module's four questions, answered in
    short first) of its numbers ``n`` (``numbers``). ``run["seat_rotation"]`` says whether the
    policies rotate over the seats; ``run["study"]["correction"]`` names the correction."""
    start = len(doc.blocks)  # the short answers go here once the tables are written
    mname = CORRECTION_SHORT[correction_of(run)]
    facts = n[PER_GAME_KEY]["write"]
    fair_share, count, count_note = facts["fair_share"], facts["n"], facts["n_note"]
    sp = pd.DataFrame(n["start_position"])
    h2h = _frame(n["head_to_head"], ("variant", "policy"))
    gt = _frame(n["goods"], ("source", "share", "winners", "others", "diff"))
    model = _frame(n["goods_model"], ())

    # -- seat balance
    doc.h("Pyramidion: seat balance by start position")
    variants = sp["variant"].nunique()
    doc.p("The start player is drawn at random each game (docs/rules/pyramidion.md §4 default). As in "
          "the Turn order table above, seats are grouped by **start position** (0 = first in "
          "round 1's player order), here with mean VP as well. Later "
          "rounds reorder players through Giza (§5 phase 6). Win share with 95% Wilson "
          f"intervals over games (a fair position wins (1 − q)/{count} = "
          f"{_fair_text(fair_share)} of games, q = the share of games nobody won"
          + (f"; {count_note}" if count_note else "") + "), mean VP with "
          "t intervals, and the chi-square p-value of the hypothesis that every start position "
          f"wins equally often, after {mname} correction over the {variants} variant"
          f"{'s' if variants != 1 else ''} (`*` = significant after correction).")
    doc.table(pd.DataFrame({
        "variant": sp["variant"], "start position": sp["start_position"],
        "win rate": cells(sp, pct, "rate", "lo", "hi"), "mean VP": cells(sp, num, "vp"),
        f"p (all equal), {mname}": [p_text(p) + (" *" if sig and not math.isnan(p) else "")
                                for p, sig in zip(sp["p_equal_adjusted"],
                                                  sp["equal_significant"])],
    }))
    doc.chart("pyramidion_start_position.png",
              "Win rate by start position (error bars: 95% Wilson; dashed: a fair position's "
              "share, (1 − q)/n).",
              lambda ax: charts.plot_win_rates(ax, sp.rename(columns={"start_position":
                                                                      "start position"}),
                                               "start position",
                                               fair_share if len({round(f, 12) for f in
                                                                  fair_share.values()}) > 1
                                               else next(iter(fair_share.values()))))

    # -- greedy against the named strategies
    doc.h("Pyramidion: greedy against the named strategies")
    if h2h.empty:
        doc.p("Every variant of this run seats one policy only, so there is no head-to-head "
              "comparison (`analyzer ablate` plays only the scenario's base seats).")
    else:
        rotate = bool((run or {}).get("seat_rotation", True))
        n_tests = stats.family_size(h2h, "policy")
        doc.p(("In each mixed variant the policies rotate over the seats. " if rotate else
               "Seat rotation is off: each policy keeps its seats, and the start player "
               "moves from game to game. ")
              + "Per game, a policy's mean win share per seat is compared with the other seats' "
              "in the same game; the difference (pp) has a 95% t interval over games, `*` = "
              f"significant after {mname} correction over the {n_tests} distinct comparisons (with "
              "two policies, one's lead is the other's lag: one test). Equal players would each "
              f"win (1 − q)/{count} = {_fair_text(fair_share)} per seat"
              + (f" ({count_note})" if count_note else "") + ".")
        doc.table(pd.DataFrame({
            "variant": h2h["variant"], "policy": h2h["policy"], "games": h2h["games"],
            "win rate per seat": [f"{100 * r:.1f} %" for r in h2h["rate"]],
            "other seats": [f"{100 * r:.1f} %" for r in h2h["others"]],
            "difference": [signed(r, 100, " pp", 1) for r in h2h.to_dict("records")],
        }))
    doc.p("How the policies play: mean per seat-game of VP, boats loaded, goods taken by "
          "source, negotiator/slave-driver tiles placed and revolts won.")
    doc.table(pd.DataFrame(n["policy_profile"])
              .rename(columns=lambda c: c.removeprefix("goods_").replace("_", " ")).round(2))

    # -- contested sites
    arm = n["ends"]["variant"]
    sites = pd.DataFrame(n["sites"])
    top = sites[sites["variant"] == arm]
    doc.h("Pyramidion: most contested sites")
    doc.p(f"From the `{arm}` games, ranked by **contestants per activation**: how many seats "
          "played at least one card at the site when it was activated (ratio over all games, "
          "95% delta-method interval). Revolts per activation and the share of games with at "
          "least one revolt there show where fights escalate (docs/rules/pyramidion.md §5 phase 5). "
          "Other variants' rankings are in `summary.json`.")
    doc.table(pd.DataFrame({
        "rank": top["rank"], "site": top["site"],
        "contestants per activation": cells(top, num, "contest", "lo", "hi"),
        "activations per game": cells(top, num, "activations", "act_lo", "act_hi"),
        "revolts per activation": cells(top, lambda v, lo, hi: num(v, lo, hi, 3), "revolts",
                                        "rev_lo", "rev_hi"),
        "games with a revolt": [f"{100 * v:.1f} %" for v in top["games_revolt"]],
    }))
    if top["contest"].notna().any():
        doc.chart("pyramidion_site_contest.png",
                  f"Contestants per activation by site, `{arm}` games (95% intervals).",
                  lambda ax: _plot_sites(ax, top, "contest", "lo", "hi",
                                         "seats playing cards per activation",
                                         "Most contested sites"))
        by_rev = top.sort_values("revolts", ascending=False, kind="stable")
        doc.chart("pyramidion_site_revolts.png",
                  f"Revolts per activation by site, `{arm}` games (95% intervals).",
                  lambda ax: _plot_sites(ax, by_rev, "revolts", "rev_lo", "rev_hi",
                                         "revolts per activation", "Revolts by site"))

    # -- how games end (context for the goods question), goods sources and winning
    ends, first = n["ends"]["ends"], n["ends"]["first_to_target_games"]
    iv = n["ends"]["first_to_target_won"]
    doc.h("Pyramidion: goods sources and winning")
    doc.p(f"From the `{arm}` games ({sum(ends.values())} games; ends: "
          + ", ".join(f"{k} {v}" for k, v in ends.items())
          + (f"; the seat that first reached the VP target won "
             f"{pct(iv['estimate'], iv['lo'], iv['hi'])}"
             f" of the {first} games with such a seat" if first else "")
          + "). Goods are what boats are loaded with, so goods turn into VP. Per game, the "
          "winner's goods from each source are compared with the other seats' goods from the "
          f"same source (paired by game, 95% t interval, `*` = significant after {mname} "
          f"correction over the {len(gt)} sources)."
          + ("" if len(gt) == len(SOURCES) else " No goods came from "
             + "; ".join(d for c, d in SOURCES if c not in set(gt["source"]))
             + " in these games, so they are left out."))
    doc.table(pd.DataFrame({
        "source": [dict(SOURCES)[c] for c in gt["source"]],
        "share of all goods": [f"{100 * v:.1f} %" for v in gt["share"]],
        "winner(s)": gt["winners"].round(2), "other seats": gt["others"].round(2),
        "difference": [signed(r) for r in gt.to_dict("records")],
    }))
    doc.chart("pyramidion_goods_sources.png",
              f"Goods taken per seat-game by source, winners vs other seats (`{arm}` games).",
              lambda ax: _plot_goods(ax, gt))

    if model.empty:
        doc.p("**Within-game model** (conditional logit of winning on goods per source): not "
              "estimable (too few games). It needs at least 20 games with a clear winner, goods "
              "that vary between seats from every source in play, and a fit that converges with "
              "finite, bounded intervals; on "
              "these records it does not (run more games).")
    else:
        doc.p("**Within-game model** (conditional logit, grouped by game): for two seats of the "
              "same game, how much higher the odds of being the winner are per extra good from "
              "a source, with the other sources held fixed. An odds ratio of 1.5 means "
              "each extra good of that source goes with 1.5× the odds of winning. p-values "
              f"after {mname} correction over the {len(model)} sources (`*` = significant).")
        doc.table(pd.DataFrame({
            "source": [dict(SOURCES)[c] for c in model["source"]],
            "odds ratio per good": cells(model, num, "odds_ratio", "lo", "hi"),
            f"p ({mname})": [p_text(p) + (" *" if sig else "")
                         for p, sig in zip(model["p_adjusted"], model["significant_adjusted"])],
        }))
        doc.chart("pyramidion_goods_odds.png",
                  "Odds ratio of winning per extra good, by source (conditional logit, 95%).",
                  lambda ax: _plot_odds(ax, model))
    doc.p("**What this does and does not show.** These are associations in games played by "
          "these policies under the labelled defaults, not causes: a seat that wins more "
          "contests collects goods from several sources at once, the policies decide where "
          "they play, and goods paid with slave-driver tiles are by construction taken while "
          "loading a boat, so they track VP almost directly. A large odds ratio says winners "
          "tended to have more of that source; it does not say that one more good of it would "
          "raise a player's chances by that much, nor how the game would go if a player chased "
          "that source on purpose (a policy variant answers that).")
    doc.blocks[start:start] = _short_answers(sp, h2h, top, gt, model, arm, fair_share, mname)



def _frame(rows: list[dict], columns: tuple[str, ...]) -> pd.DataFrame:
    """The table of ``rows`` (a list of ``numbers``), with ``columns`` when there is no row."""
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(columns))


def _fair_text(fair: dict[str, float]) -> str:
    """``"25.0 %"``, or one share per variant when they differ."""
    values = {round(100 * f, 1) for f in fair.values()}
    if len(values) == 1:
        return f"{values.pop():.1f} %"
    return ", ".join(f"{100 * f:.1f} % in `{v}`" for v, f in fair.items())


def _short_answers(sp, h2h, top, gt, model, arm: str, fair: dict[str, float],
                   mname: str = "Holm") -> list[tuple]:
    """The four study questions answered in one line each, from the tables below them."""
    lines = []
    b = sp[sp["variant"] == arm]
    if len(b):
        best, worst = b.loc[b["rate"].idxmax()], b.loc[b["rate"].idxmin()]
        lines.append(f"**Seat balance** (`{arm}`): start position {int(best.start_position)} "
                     f"wins most ({100 * best.rate:.1f} %), {int(worst.start_position)} least "
                     f"({100 * worst.rate:.1f} %) against a fair "
                     f"{100 * fair[arm]:.1f} %; "
                     f"{p_text(float(b['p_equal_adjusted'].iloc[0]), phrase=True)} ({mname}) "
                     "for all positions equal.")
    for r in h2h[h2h["policy"] == "greedy"].to_dict("records"):
        lines.append(f"**Greedy in `{r['variant']}`** wins {100 * r['rate']:.1f} % per seat, "
                     f"the other seats {100 * r['others']:.1f} %: "
                     f"{signed(r, 100, ' pp', 1)}.")
    if len(top):
        names = ", ".join(top["site"].head(3))
        rev = top.loc[top["revolts"].idxmax()]
        lines.append(f"**Most contested sites** (`{arm}`): {names}; most revolts per "
                     f"activation at {rev.site}.")
    if len(gt):
        big = gt.loc[gt["share"].idxmax()]
        gap = gt.loc[gt["diff"].idxmax()]
        text = (f"**Goods sources**: most goods come from {big.source.removeprefix('goods_')} "
                f"({100 * big.share:.0f} %); winners are furthest ahead on "
                f"{gap.source.removeprefix('goods_')} (+{gap['diff']:.2f} goods per game)")
        if len(model):
            odd = model.loc[model["odds_ratio"].idxmax()]
            text += (f"; per good, {odd.source.removeprefix('goods_')} goes with the largest "
                     f"odds ratio of winning ({odd.odds_ratio:.2f})")
        lines.append(text.replace("_", " ") + " — associations, see the caveats below.")
    return [("h", "Pyramidion baseline: the answers in short"), *(("p", x) for x in lines)]


# the units of the section's numbers (``analyzer.report.units``)
UNITS = (
    ("start_position[].start_position", "seat"), ("start_position[].n", "games"),
    ("start_position[].wins", "games"), ("*.vp*", "victory points"),
    ("start_position[].*", SHARE), ("head_to_head[].games", "games"),
    ("head_to_head[].*", SHARE), ("policy_profile[].goods_*", "goods per seat-game"),
    ("policy_profile[].boats_loaded", "boats per seat-game"),
    ("policy_profile[].tiles_placed", "tiles per seat-game"),
    ("policy_profile[].revolts_won", "revolts per seat-game"), ("sites[].rank", "rank"),
    ("sites[].act*", "activations per game"), ("sites[].rev*", "revolts per activation"),
    ("sites[].games_revolt", SHARE), ("sites[].*", "contestants per activation"),
    ("ends.ends.*", "games"), ("ends.first_to_target_games", "games"),
    ("ends.first_to_target_won.*", SHARE), ("goods[].share", SHARE),
    ("goods[].*", "goods per seat-game"))
SECTIONS = (StudySection("pyramidion", numbers, write, findings=findings.pyramidion,
                         key_patterns=(*(k for k, _, _ in findings.KEYS), "head_to_head:*"),
                         plan=findings.plan, units=UNITS),)
