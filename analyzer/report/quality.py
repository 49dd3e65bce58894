"""Game-quality findings from the checkpoints after every round (``rounds.parquet``, issue #36).

A run played with ``--rounds`` has, per game, arm and round, each seat's visible score, its
position estimate and whether it is out (``model.flow``); the last checkpoint of a game is its
end, where the estimate is the win share. From them, per game (the unit of every interval), the
metrics of ``METRICS``, each defined in docs/guide.md (the game-quality section, with its source).

Each metric gives one figure per arm (the mean over games with its 95 % interval: Wilson for a
0/1 per game, Student's t otherwise) and, for every arm after the first, its change against the
first arm: paired game by game over the shared seeds when the arms seat as many players, else
Welch's, tested with the other findings (Holm). Nothing here names a game: the game declares
its round, close margin and elimination (``GameSpec.flow``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report import charts
from analyzer.report.document import BASE, Doc
from analyzer.report.findings import Finding

ROUNDS_FILE = "rounds.parquet"
KINGMAKING_FILE = "kingmaking.parquet"
FAMILY = "quality"

#: metric -> (what it is in words, unit, scale, digits, 0/1 per game, possible range)
METRICS: dict[str, tuple[str, str, float, int, bool, tuple[float, float] | None]] = {
    "rounds": ("game length: rounds per game", "rounds", 1.0, 2, False, None),
    "close_finish": (("share of the games with a winner whose winner finished at most the game's "
                     "close margin ahead of the next seat"), "%", 100.0, 1, True, (0.0, 1.0)),
    "tie_break": ("share of the games with a winner decided by a tie-break (equal final scores)",
                  "%", 100.0, 1, True, (0.0, 1.0)),
    "lead_changes": ("changes of the score leader per game", "per game", 1.0, 2, False, None),
    "lead_changes_estimate": ("changes of the leader by position estimate per game",
                              "per game", 1.0, 2, False, None),
    "decided_at": (("share of the game, in rounds, elapsed when the eventual winner takes the "
                   "lead by estimate to the end (100 % = at the end)"), "%", 100.0, 1, False,
                   (0.0, 1.0)),
    "comeback": (("share of the games won by a seat not leading on score at two thirds of the "
                 "game"), "%", 100.0, 1, True, (0.0, 1.0)),
    "drama": (("mean gap between the leader's estimated win share and the eventual winner's, "
              "over the rounds where the winner was behind"), "pp", 100.0, 1, False, (0.0, 1.0)),
    "eliminated": ("share of the seats out of the game (eliminated) at its end", "%", 100.0, 1,
                   False, (0.0, 1.0)),
    "rounds_out": ("rounds a seat sat out before the end, mean over seats", "rounds", 1.0, 2,
                   False, None),
    "kingmaking": (("share of the games where a seat that could no longer win made a choice "
                    "that changed the winner (counterfactual replays under a sample budget: a "
                    "lower bound)"), "%", 100.0, 1, True, (0.0, 1.0)),
}
ELIMINATION = ("eliminated", "rounds_out")
KINGMAKING = ("kingmaking",)


def metrics(eliminates: bool, kingmaking: bool = False) -> list[str]:
    """The metrics a game makes: every one, the elimination ones only where it eliminates,
    ``kingmaking`` only when the run tested it (``--kingmaking-samples``)."""
    return [m for m in METRICS if (eliminates or m not in ELIMINATION)
            and (kingmaking or m not in KINGMAKING)]


def key(metric: str, arm: str, change: bool = False) -> str:
    """``quality:METRIC:ARM``, or ``quality:METRIC:ARM:change`` (against the first arm)."""
    return f"{FAMILY}:{metric}:{arm}" + (":change" if change else "")


def _leaders(values: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Per checkpoint the sole leader among the seats ``alive`` (shape (R, S)), -1 where the
    lead is shared."""
    v = np.where(alive, values, -np.inf)
    top = v.max(axis=1, keepdims=True)
    at_top = v == top
    return np.where(at_top.sum(axis=1) == 1, at_top.argmax(axis=1), -1)


def _changes(leaders: np.ndarray) -> int:
    sole = leaders[leaders >= 0]
    return int(np.count_nonzero(sole[1:] != sole[:-1]))


def game_values(score: np.ndarray, estimate: np.ndarray, out: np.ndarray,
                close_margin: float) -> dict[str, float]:
    """The quality metrics of one game (docs/guide.md, the game-quality section): one value per
    ``METRICS`` key, ``nan`` where the game does not count (no winner, no sole winner).

    ``score``, ``estimate``, ``out``: shape (R, S), per checkpoint (rounds in order, the end
    last) and seat the visible score [points], the estimate (win share; at the end the final
    win shares) and whether the seat is out. ``close_margin``: the game's [points].
    """
    n_rounds = score.shape[0]
    alive = ~out
    final_alive = alive[-1]
    won = estimate[-1]
    best = won.max()
    winners = np.flatnonzero(won == best) if best > 0 else np.array([], dtype=int)
    nan = math.nan
    v = {"rounds": float(n_rounds),
         "lead_changes": float(_changes(_leaders(score, alive))),
         "lead_changes_estimate": float(_changes(_leaders(estimate, alive))),
         "eliminated": float(out[-1].mean()),
         "rounds_out": float(out[:-1].sum(axis=0).mean()) if n_rounds > 1 else 0.0,
         "close_finish": nan, "tie_break": nan, "decided_at": nan, "comeback": nan,
         "drama": nan, "kingmaking": nan}
    if len(winners) > 1:  # a shared win: as close as can be, no tie-break decided it
        v["close_finish"], v["tie_break"] = 1.0, 0.0
    if len(winners) != 1:
        return v
    w = int(winners[0])
    others = [s for s in range(score.shape[1]) if s != w and final_alive[s]]
    final = score[-1]
    margin = final[w] - max(final[s] for s in others) if others else math.inf
    v["close_finish"] = float(margin <= close_margin)
    v["tie_break"] = float(any(final[s] == final[w] for s in others))
    leaders = _leaders(estimate, alive)
    k = n_rounds
    while k > 1 and leaders[k - 2] == w:
        k -= 1
    v["decided_at"] = k / n_rounds
    at = max(1, math.ceil(2 * n_rounds / 3)) - 1
    v["comeback"] = float(score[at, w] < np.where(alive[at], score[at], -np.inf).max())
    gaps = [estimate[t].max() - estimate[t, w] for t in range(n_rounds - 1)
            if estimate[t, w] < estimate[t].max()]
    v["drama"] = float(np.mean(gaps)) if gaps else 0.0
    return v


def per_game(rounds: pd.DataFrame, close_margin: float) -> pd.DataFrame:
    """The quality metrics of every game of ``rounds`` (``flow.ROUND_COLUMNS``), one row per
    ``(variant, game_id)`` (a MultiIndex), one column per ``METRICS`` key."""
    r = rounds.sort_values(["variant", "game_id", "round", "seat"], kind="stable")
    rows, index = [], []
    for (variant, game_id), g in r.groupby(["variant", "game_id"], sort=False, observed=True):
        n_seats = int(g["seat"].max()) + 1
        shape = (len(g) // n_seats, n_seats)
        rows.append(game_values(g["score"].to_numpy(float).reshape(shape),
                                g["estimate"].to_numpy(float).reshape(shape),
                                g["out"].to_numpy(bool).reshape(shape), close_margin))
        index.append((str(variant), int(game_id)))
    return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["variant", "game_id"]),
                        columns=list(METRICS))


def read(run_dir: Path | None, name: str = ROUNDS_FILE) -> pd.DataFrame | None:
    """The run's ``rounds.parquet`` (or ``name``: ``KINGMAKING_FILE``), or ``None`` when it
    has none (played without ``--rounds``, ``--kingmaking-samples``)."""
    if run_dir is None or not (Path(run_dir) / name).is_file():
        return None
    frame = pd.read_parquet(Path(run_dir) / name)
    frame["variant"] = frame["variant"].astype(str)
    return frame


def kingmaking_cost(tested: pd.DataFrame | None) -> dict[str, float] | None:
    """What the kingmaking test cost (``kingmaking.parquet``): ``games`` tested (games x
    arms), ``playouts`` (counterfactual games, in all), ``cpu_seconds`` (CPU time of the
    playouts, in all), ``kingmade`` (games found kingmade), ``open`` (games with at least
    one candidate: a choice of a seat out of contention) and ``candidates`` (the mean number
    of candidates per game); ``None`` without a test."""
    if tested is None or tested.empty:
        return None
    return {"games": len(tested), "playouts": int(tested["playouts"].sum()),
            "open": int((tested["candidates"] > 0).sum()),
            "candidates": float(tested["candidates"].mean()),
            "cpu_seconds": float(tested["cpu_seconds"].sum()),
            "kingmade": int(tested["kingmade"].sum())}


def _arm_figure(values: pd.Series, metric: str, arm: str, round_name: str) -> Finding:
    words, unit, scale, digits, binary, bounds = METRICS[metric]
    x = values.dropna().to_numpy(float)
    edge = bounds == (0.0, 1.0) and len(x) and (x.max() <= 0.0 or x.min() >= 1.0)
    # a share at 0 (or 1) in every game has no spread: Wilson's bound, each game one trial
    iv = (stats.wilson(float(x.sum()), len(x)) if binary else
          stats.wilson(0.0 if x.max() <= 0.0 else float(len(x)), len(x)) if edge else
          stats.mean_interval(x))
    if metric in ("rounds", "rounds_out"):
        words = words.replace("rounds", f"{round_name}s", 1)
    return Finding(f"`{arm}`: {words} (mean over {len(x)} games)", iv.estimate, iv.lo, iv.hi,
                   unit, scale, digits, False, None, games=len(x), key=key(metric, arm),
                   example_variant=arm, t_df=None if binary else max(len(x) - 1, 1),
                   bounds=bounds, per_game=values.dropna().rename(None))


def _arm_change(base: pd.Series, other: pd.Series, metric: str, ref: str, arm: str,
                paired: bool) -> Finding:
    words, unit, scale, digits, binary, _ = METRICS[metric]
    bounds = stats.SHARE_DIFFERENCE if binary else None
    if paired:
        both = pd.concat([base.rename("b"), other.rename("a")], axis=1, join="inner").dropna()
        d = stats.paired_difference(both["b"], both["a"], bounds=bounds)
        per_game = (both["a"] - both["b"]).rename(None)
        how = f"paired on {d.n} games of the same seeds"
    else:
        d = stats.unpaired_difference(base.dropna(), other.dropna(), bounds=bounds)
        per_game = None
        how = "unpaired (other player count): Welch"
    return Finding(f"`{arm}` minus `{ref}` in the {words}: {{value}} ({how})", d.mean,
                   d.lo, d.hi, "pp" if unit == "%" else unit, scale, digits, True, 0.0,
                   p_value=None if math.isnan(d.p_value) else d.p_value, games=d.n,
                   key=key(metric, arm, change=True), example_variant=arm,
                   t_df=d.n - 1 if paired else None, per_game=per_game)


def numbers(games: pd.DataFrame, arms: Sequence[str], players: Mapping[str, int],
            eliminates: bool, round_name: str = "round", kingmaking: bool = False
            ) -> list[Finding]:
    """The ``quality:`` findings (what ``summary.json`` holds of them) of the ``per_game``
    metrics ``games``: per metric (``metrics(eliminates, kingmaking)``), each arm's figure, then
    each later arm's change against the first of ``arms`` (in the run's order), paired by seed
    where ``players`` (arm -> player count) gives both arms one count."""
    present = [a for a in arms if a in games.index.get_level_values("variant")]
    if not present:
        return []
    ref = present[0]
    out: list[Finding] = []
    for metric in metrics(eliminates, kingmaking):
        by_arm = {a: games.loc[a][metric] for a in present}
        out += [_arm_figure(by_arm[a], metric, a, round_name) for a in present]
        for a in present[1:]:
            same = players.get(a) == players.get(ref)
            out.append(_arm_change(by_arm[ref], by_arm[a], metric, ref, a, same))
    return out


def report(doc: Doc | None, run_dir: Path | None, run: Mapping[str, Any],
           flow: Any, rounds: pd.DataFrame | None = None) -> list[Finding]:
    """The ``quality:`` findings of the run in ``run_dir`` (``numbers``) and, into ``doc``
    when given, its "Game flow" section (``write``); nothing without ``rounds.parquet`` or
    the game's ``flow``. ``rounds``: the checkpoints themselves (``ROUND_COLUMNS``, variants
    named by arm) instead of ``run_dir``'s file (``analyzer balance``'s settings)."""
    if rounds is None:
        rounds = read(run_dir)
    if rounds is None or flow is None or rounds.empty:
        return []
    games = per_game(rounds, float(flow.close_margin))
    tested = read(run_dir, KINGMAKING_FILE)  # its kingmade (``flow.KINGMAKING_COLUMNS``)
    if kingmaking := (tested is not None and not tested.empty):
        made = tested.set_index(["variant", "game_id"])["kingmade"].astype(float)
        games["kingmaking"] = made.reindex(games.index).to_numpy()
    arms = [str(a.get("name")) for a in run.get("arms") or []] or [BASE]
    players = {str(a.get("name")): int(a.get("players") or run.get("players") or 0)
               for a in run.get("arms") or []}
    found = numbers(games, arms, players, bool(flow.eliminates),
                    getattr(flow, "round_name", "round"), kingmaking)
    if doc is not None and found:
        shown = list(dict.fromkeys(f.example_variant for f in found))  # the arms with games
        write(doc, found, kingmaking_cost(tested), (run.get("kingmaking") or {}).get("samples"),
              getattr(flow, "out_of_contention", None), by_round(rounds, shown[0]),
              games["rounds"], _length_arms(games, shown))
    return found


def by_round(rounds: pd.DataFrame, arm: str) -> pd.DataFrame:
    """Mean score and estimate by round of ``arm``'s sole winners and of the other seats
    (games without a sole winner left out): columns ``round``, ``who`` (``"winner"`` or
    ``"others"``), ``score``, ``estimate``, ``games``."""
    r = rounds[rounds["variant"] == arm]
    last = r.groupby("game_id")["round"].transform("max")
    final = r[r["round"] == last]
    top = final.groupby("game_id")["estimate"].transform("max")
    lead = final[(final["estimate"] == top) & (top > 0)]
    sole = lead.groupby("game_id")["seat"].agg(["first", "size"])
    winner = sole.loc[sole["size"] == 1, "first"]
    r = r[r["game_id"].isin(winner.index)]
    who = np.where(r["seat"].to_numpy() == winner.reindex(r["game_id"]).to_numpy(),
                   "winner", "others")
    return (r.assign(who=who).groupby(["round", "who"])
            .agg(score=("score", "mean"), estimate=("estimate", "mean"),
                 games=("game_id", "nunique")).reset_index())


def _draw_flow(ax: Any, flow: pd.DataFrame) -> None:
    twin = ax.twinx()
    for who, style in (("winner", "-"), ("others", "--")):
        part = flow[flow["who"] == who]
        ax.plot(part["round"], part["score"], style, color="tab:blue", label=f"score, {who}")
        twin.plot(part["round"], 100 * part["estimate"], style, color="tab:orange",
                  label=f"estimate, {who}")
    ax.set_xlabel("round (the last is the end)")
    ax.set_ylabel("mean score (points)")
    twin.set_ylabel("mean estimated win share (%)")
    lines = ax.get_lines() + twin.get_lines()
    ax.legend(lines, [ln.get_label() for ln in lines], fontsize=8, loc="upper left")


LENGTH_ARMS = 6  # more arms than this: the histogram shows the first, shortest and longest


def _length_arms(games: pd.DataFrame, arms: Sequence[str]) -> list[str]:
    """The arms the game-length histogram draws: every arm, or past ``LENGTH_ARMS`` (step
    lines on top of each other read as one) the first arm and those with the shortest and
    the longest mean game length."""
    if len(arms) <= LENGTH_ARMS:
        return list(arms)
    means = games["rounds"].groupby(level=0).mean().reindex(arms)
    return list(dict.fromkeys([arms[0], str(means.idxmin()), str(means.idxmax())]))


def _draw_lengths(ax: Any, lengths: pd.Series, arms: Sequence[str]) -> None:
    bins = np.arange(int(lengths.min()) - 0.5, int(lengths.max()) + 1.5, 1.0)
    for arm in arms:
        ax.hist(lengths.loc[arm], bins=bins, histtype="step", label=arm)
    ax.set_xlabel("rounds per game")
    ax.set_ylabel("games")
    charts.legend(ax)


def write(doc: Doc, found: Sequence[Finding], cost: Mapping[str, float] | None = None,
          samples: int | None = None, threshold: float | None = None,
          flow: pd.DataFrame | None = None, lengths: pd.Series | None = None,
          shown: Sequence[str] = ()) -> None:
    """The "Game flow" section of the findings ``found`` (``numbers``): every figure, one row
    per arm and one column per metric. Passed in, as ``summary.json`` does not hold them:
    ``cost`` (``kingmaking_cost``), ``samples`` (the budget per game) and ``threshold``
    (``Flow.out_of_contention``), what the kingmaking test cost; ``flow`` (``by_round`` of
    the first arm), a chart of the mean score and estimate by round of the winners and the
    others; ``lengths`` (``per_game``'s ``rounds``) and ``shown`` (the arms it draws), a
    histogram of game length."""
    figures = [f for f in found if f.null is None]
    if not figures:
        return
    doc.h("Game flow")
    doc.p("Recorded after every round (`rounds.parquet`, `--rounds`): game length, close "
          "finishes, lead changes, when the game is decided, comebacks and drama, each with "
          "its 95 % interval over games (docs/guide.md, the game-quality section). Changes "
          "against the first arm are key findings (`quality:METRIC:ARM:change`).")
    parts = [f.key.split(":", 2)[1:] for f in figures]  # (metric, arm)
    arms = list(dict.fromkeys(arm for _, arm in parts))
    names = list(dict.fromkeys(metric for metric, _ in parts))
    rows: dict[str, dict[str, str]] = {a: {"arm": a} for a in arms}
    for (metric, arm), f in zip(parts, figures):
        rows[arm][metric] = f.value_text()
    doc.table(pd.DataFrame(list(rows.values()), columns=["arm", *names]))
    if cost is not None:
        n = max(cost["games"], 1)
        budget = f"at most {samples} per game" if samples else "a sample per game"
        out = (f"below {100 * threshold:g} % estimated win share to the end"
               if threshold is not None else "out of contention")
        doc.p(f"Kingmaking (`quality:kingmaking`): choices of seats {out} tried again in "
              f"counterfactual replays with the same chance and players ({budget}, "
              f"`--kingmaking-samples`): {cost['playouts']:,} playouts over {cost['games']:,} "
              f"games ({cost['playouts'] / n:.2f} per game), {cost['cpu_seconds']:.1f} CPU s "
              f"({cost['cpu_seconds'] / n:.3f} s per game); {cost['open']:,} games had a "
              f"choice to try ({cost['candidates']:.1f} candidates per game on average), "
              f"{cost['kingmade']:,} were kingmade. A lower bound: more samples find more.")
    if flow is not None and not flow.empty:
        doc.chart("game_flow.png", f"Mean score (blue) and estimated win share (orange) by "
                  f"round in `{arms[0]}`: the eventual winner (solid) and the other seats "
                  "(dashed); games with a shared win or none left out.",
                  lambda ax: _draw_flow(ax, flow))
    if lengths is not None:
        which = ("per arm" if len(arms) <= LENGTH_ARMS else
                 f"in `{arms[0]}` and the arms with the shortest and the longest mean game "
                 f"({len(arms)} arms: the Game flow table gives every one)")
        doc.chart("game_length.png", f"Game length: games by number of rounds, {which}.",
                  lambda ax: _draw_lengths(ax, lengths, shown))


__all__ = ["FAMILY", "KINGMAKING_FILE", "METRICS", "by_round", "game_values", "key",
           "kingmaking_cost", "metrics", "numbers", "per_game", "read", "report", "write"]
