"""The report of ``analyzer tune``: how much better the fitted parameters are, on fresh seeds,
and how the search got there.

Built from the check's seat records (arms ``start`` and ``tuned``, each ``:tNN`` per opponents'
table) and the run facts (``summary.json["run"]["study"]``: the parameters, the bounds and each
generation's numbers), so ``analyzer report DIR`` re-renders it. The report opens with its key
findings (``key_findings``): the tuned − start paired win-rate difference and the tuned seat's
win rate against a fair seat's, ranked and Holm-corrected by ``findings``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import charts, findings
from analyzer.report.document import Doc, change, p_text, param_text, pct, value_text
from analyzer.report.findings import Finding
from analyzer.report.records import Table, as_table
from analyzer.report.summary import RunFacts

ARMS = ("start", "tuned")


def numbers(run: dict[str, Any], seats: Table | pd.DataFrame) -> dict[str, Any]:
    """The tune report's numbers: the win rates of the tuned seat under the start and the
    tuned parameters on fresh seeds, and their paired difference, game seed by game seed.

    Parameters
    ----------
    run : dict
        The run facts; ``run["study"]``: ``label`` (the tuned seat's name in the records) and
        ``dimensions`` (each parameter's ``name`` and ``tuned`` value).
    seats : Table or DataFrame
        Seat records of the check (``variant`` = ``start`` or ``tuned``, optionally ``:tNN``
        per table; ``game_id``, ``policy``, ``won``).

    Returns
    -------
    dict
        ``games`` (per arm), ``tables``, ``players``, ``start`` and ``tuned`` (``rate, lo,
        hi``: a 95% Wilson interval with one table, else a t interval over seeds of the
        per-seed mean; ``fair``: a fair seat's share ``(1 − q)/n``, ``q`` the share of the
        arm's games nobody won; ``above_fair``: ``diff, lo, hi, p_value, significant, n`` of
        the seat's win share minus its game's fair share, a t interval over seeds),
        ``difference`` (``diff, lo, hi, p_value, significant, n``: tuned − start, the per-seed
        differences' t interval), ``params`` (the tuned values by name) and ``findings``
        (``findings.numbers`` of ``key_findings``).
    """
    study = run["study"]
    seats = as_table(seats).read(("variant", "game_id", "policy", "won")).astype({"variant": str})
    game = seats.groupby(["variant", "game_id"])["won"]
    # a fair seat of each game wins (1 − q)/n: the game's win shares sum to 1, or 0 if nobody won
    seats = seats.assign(fair=game.transform("sum") / game.transform("size"))
    mine = seats[seats["policy"].astype(str) == study["label"]]
    arm = mine["variant"].str.split(":").str[0].to_numpy()
    per_seed = mine.groupby([arm, "game_id"])[["won", "fair"]].mean().unstack(0)
    won, fair = per_seed["won"], per_seed["fair"]
    tables = int(mine["variant"].nunique() // 2)
    out: dict[str, Any] = {"games": int((arm == "tuned").sum()), "tables": tables,
                           "players": int(game.size().max()) if len(seats) else 0}
    for name in ARMS:
        col = won[name].dropna()
        iv = (stats.wilson(float(col.sum()), len(col)) if tables == 1
              else stats.mean_interval(col.to_numpy()))
        lo, hi = stats.clip_interval(iv.lo, iv.hi, 0.0, 1.0)
        ok = won[name].notna()
        above = stats.paired_difference(fair[name][ok].to_numpy(), col.to_numpy(),
                                        bounds=stats.SHARE_DIFFERENCE)
        out[name] = {"rate": iv.estimate, "lo": lo, "hi": hi,
                     "fair": float(fair[name][ok].mean()), "above_fair": _difference(above)}
    both = won.dropna()
    out["difference"] = _difference(stats.paired_difference(
        both["start"].to_numpy(), both["tuned"].to_numpy(), bounds=stats.SHARE_DIFFERENCE))
    return {**out, "params": {p["name"]: p["tuned"] for p in study["dimensions"]},
            "findings": findings.numbers(key_findings(out, study["label"]))}


def _difference(d: stats.Difference) -> dict[str, Any]:
    """A win-rate difference for ``summary.json``: its interval clipped to the possible ±1
    (a t interval of win shares over few seeds can reach past it); ``too_few`` when it rests on
    fewer than ``stats.MIN_GAMES`` seeds (no interval is then shown)."""
    lo, hi = stats.clip_interval(d.lo, d.hi, -1.0, 1.0)
    return {"diff": d.mean, "lo": lo, "hi": hi, "p_value": d.p_value,
            "significant": d.significant and d.n >= stats.MIN_GAMES, "n": d.n,
            "too_few": d.n < stats.MIN_GAMES}


def difference_text(d: dict[str, Any]) -> str:
    """A win-rate difference of ``numbers`` in words for the command line and the report:
    ``"+3.2 pp [+1.0, +5.4]"``, or ``"+0.0 pp (too few games to estimate: 5 seeds; at least 20
    needed)"``."""
    if d.get("too_few") or d.get("n", stats.MIN_GAMES) < stats.MIN_GAMES:
        return (f"{value_text(d['diff'], None, None, 'pp', 100, 1, True)} (too few games to "
                f"estimate: {d['n']} seeds; at least {stats.MIN_GAMES} needed)")
    return change(d["diff"], d["lo"], d["hi"], 100, "pp", 1)


def write(doc: Doc, n: dict[str, Any], assessed: tuple, run: dict[str, Any],
          run_dir: Path | None = None) -> None:
    """The tune report of its numbers ``n`` (``numbers``; ``assessed``: its key findings'
    ``findings.ASSESSED``) and the run facts ``run`` (the search: ``run["study"]``)."""
    facts = RunFacts.of(run)
    study, players = run["study"], int(facts.players or 0)
    top = len(doc.blocks)  # the key findings go here once the numbers are in
    opponents = (f"every table of {players - 1} entrants of the pool `{study['opponents']}` "
                 f"({len(study['tables'])} tables, the games split between them)"
                 if study.get("opponents") else
                 "the scenario's other seats (" + ", ".join(study["tables"][0]) + ")")
    gens, lam, per = study["generations"], study["popsize"], study["games_per_candidate"]
    doc.p(f"Game **{facts.said('game')}** (expansions: {', '.join(facts.expansions) or 'none'}), "
          f"{players} players, scenario `{facts.said('scenario_file')}` (as run: "
          f"`scenario.toml`), root seed **{facts.said('seed')}**. Tuned: seat {study['seat']} "
          f"(`{study['seat_name']}`, policy `{study['policy']}`, in the records "
          f"`{study['label']}`), against {opponents}; seat rotation "
          f"{'on' if facts.seat_rotation else 'off'}.")
    doc.p(f"Search: CMA-ES (`cma` {study.get('cma_version', '?')}) over the "
          f"{len(study['dimensions'])} numeric parameters scaled to their declared bounds, "
          f"from the starting parameters with step {study.get('sigma0', '?')} of each range; "
          f"**{gens} generations × {lam} candidates × {per} games** = {gens * lam * per:,} "
          f"games ({study['search_seconds']:.0f} s). All candidates of a generation play the "
          f"same game seeds (common random numbers), each generation new ones. The tuned "
          f"parameters are the search distribution's final mean.")
    for text in facts.how_played(f"{facts.games_played:,} games in {facts.seconds:.0f} s"):
        doc.p(text)
    doc.h("Tuned against start, on fresh seeds")
    d = n["difference"]
    unit = ("Wilson intervals" if n["tables"] == 1
            else "t intervals over seeds of the mean over the tables")
    doc.p(f"{n['games']:,} games per arm on seeds no candidate was tuned on (root seed "
          f"{study['validation_seed']}), the start and the tuned parameters on the same seeds. "
          f"Win rate of the tuned seat (a k-way tie for first counts 1/k) with 95% {unit}; "
          f"{_fair_sentence(n, players)}; `above fair` is the seat's win share minus its "
          f"game's fair share, a t interval over seeds. The difference is tuned − start, "
          f"paired seed by seed (t interval of the {d['n']} per-seed differences).")
    doc.table(pd.DataFrame([
        {"parameters": name, "win rate": pct(x["rate"], x["lo"], x["hi"]),
         "fair share": f"{100 * x['fair']:.1f} %",
         "above fair": difference_text(x["above_fair"]), "games": n["games"]}
        for name, x in ((a, n[a]) for a in ARMS)]))
    verdict = ("better" if d["significant"] and d["diff"] > 0 else
               "worse" if d["significant"] else "not distinguishable from the start")
    if d.get("too_few"):
        doc.p(f"**Tuned − start: {difference_text(d)}**: the check is too small to say whether "
              f"the tuned parameters are better; give `--validation-games` at least "
              f"{stats.MIN_GAMES}.")
    else:
        doc.p(f"**Tuned − start: {difference_text(d)}** ({p_text(d['p_value'], phrase=True)}): "
              f"the tuned parameters are {verdict} on fresh seeds.")
    doc.p(f"The check's seeds are derived from this whole tune (scenario, seat, seed, budget, "
          f"games, population, check size and opponents; root seed "
          f"{study['validation_seed']}), so another tune is checked on other games. Still, "
          "**picking the best of several tunes by their checks brings the winner's curse back**: "
          "the picked one's check is biased upwards. To compare tunes, play the tuned "
          "parameters files against each other on new seeds (`analyzer tournament`, or a "
          "scenario with each as a variant) and take that comparison, not the checks.")
    doc.h("Parameters")
    doc.table(pd.DataFrame([
        {"parameter": p["name"], "type": p["type"],
         "bounds": f"[{param_text(p['low'])}, {param_text(p['high'])}]", "start": param_text(p["start"]),
         "tuned": param_text(p["tuned"])} for p in study["dimensions"]]))
    if study.get("fixed"):
        doc.p("Kept as the seat has them (not numeric or without bounds): " + ", ".join(
            f"{k} = {v}" for k, v in study["fixed"].items()) + ".")
    history = pd.DataFrame(study["history"])
    doc.h("Search")
    doc.p("Best and mean win rate of each generation's candidates on that generation's seeds. "
          "The best of many noisy estimates is biased upwards (it was picked for being high); "
          "the fresh-seed check above is not. The dotted line is the start's rate on the "
          "fresh seeds.")
    doc.chart("convergence.png", "Best and mean win rate per generation.",
              lambda ax: plot_convergence(ax, history, n["start"]["rate"], players,
                                          n["start"]["fair"]))
    doc.chart("trajectories.png", "Mean of the search distribution per generation, each "
                                  "parameter as a position in its declared bounds.",
              lambda ax: plot_trajectories(ax, history, study["dimensions"]), size=(7.5, 4.5))
    doc.table(pd.DataFrame({
        "generation": history["generation"] + 1,
        "best": [f"{100 * x:.1f} %" for x in history["best"]],
        "mean": [f"{100 * x:.1f} %" for x in history["mean"]],
        "step (sigma)": [f"{x:.3f}" for x in history["sigma"]],
    }))
    findings.write(
        doc, n["findings"], assessed, run_dir, at=top,
        note="Here the unit is the **game seed** of the fresh-seed check (with several "
             "opponents' tables, the mean over its tables).")


def key_findings(check: dict[str, Any], label: str) -> list[Finding]:
    """The tune run's findings (``numbers``): the tuned − start paired
    win-rate difference and the tuned seat's win rate against a fair seat's, on fresh seeds."""
    d, tuned, above = check["difference"], check["tuned"], check["tuned"]["above_fair"]
    return [
        Finding(f"The tuned parameters change the win rate of the tuned seat (`{label}`) by "
                f"{{value}} against the start parameters, on fresh seeds (paired seed by seed "
                f"over {d['n']} seeds)", d["diff"], d["lo"], d["hi"], "pp", 100, 1, True, 0.0,
                p_value=d["p_value"], games=int(d["n"]), key="tuned_minus_start"),
        Finding(f"With the tuned parameters the seat (`{label}`) wins "
                f"{pct(tuned['rate'], tuned['lo'], tuned['hi'])} of its games against a fair "
                f"seat's {100 * tuned['fair']:.1f} %, on fresh seeds: {{value}} (t interval "
                f"over {above['n']} seeds)", above["diff"], above["lo"], above["hi"], "pp", 100, 1,
                True, 0.0, p_value=above["p_value"], games=int(above["n"]),
                key="tuned_above_fair"),
    ]


def _fair_sentence(check: dict[str, Any], players: int) -> str:
    """What a fair seat wins on the fresh seeds: ``1/n`` when every game has a winner, else
    ``(1 − q)/n`` with the arms' shares."""
    n = check.get("players") or players
    fair = {name: check[name]["fair"] for name in ARMS}
    if all(abs(f * n - 1) < 1e-9 for f in fair.values()):
        return f"a fair seat wins 1/{n} = {100 / n:.1f} % (every game has a winner)"
    return (f"a fair seat wins (1 − q)/{n}, q the share of games nobody won (a loss for every "
            "seat): " + ", ".join(f"{100 * f:.1f} % with the {name} parameters"
                                  for name, f in fair.items()))


def plot_convergence(ax, history: pd.DataFrame, start: float, players: int,
                     fair: float | None = None) -> None:
    """Best and mean win rate per generation (``history``: ``generation, best, mean``); a
    dashed line at a fair seat's share (``fair``, ``(1 − q)/n`` on the fresh seeds; else
    ``1/players``)."""
    g = history["generation"].to_numpy() + 1
    ax.plot(g, history["best"], marker="o", label="best candidate")
    ax.plot(g, history["mean"], marker="s", label="mean of candidates")
    ax.axhline(start, color="black", linestyle=":", linewidth=1, label="start, fresh seeds")
    if fair is not None and not np.isnan(fair):
        ax.axhline(fair, color="grey", linestyle="--", linewidth=1, label="fair seat, fresh seeds")
    elif players:
        ax.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label="1 / players")
    ax.set_xlabel("generation")
    ax.set_ylabel("win rate [share of games]")
    ax.set_title("Convergence")
    charts.legend(ax)


def plot_trajectories(ax, history: pd.DataFrame, dims: list[dict]) -> None:
    """Each parameter's search mean per generation as ``(value − low) / (high − low)``;
    generation 0 is the start."""
    g = np.concatenate([[0], history["generation"].to_numpy() + 1])  # 0: the start
    for p in dims:
        values = np.array([p["start"], *(m[p["name"]] for m in history["mean_params"])],
                          dtype=float)
        ax.plot(g, (values - p["low"]) / (p["high"] - p["low"]), marker=".", label=p["name"])
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("generation (0 = start)")
    ax.set_ylabel("position in the declared bounds [0 = low, 1 = high]")
    ax.set_title("Parameter trajectories (search mean)")
    charts.legend(ax)
