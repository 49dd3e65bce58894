"""Run until a target precision: add chunks until every reported win-rate interval is narrow.

``--target-ci H`` asks that every win-rate interval the report shows (the groupings
``stats.max_win_rate_half_width`` lists) be no wider than ``±H``. The run grows in whole chunks
on the runner's resume mechanism: a larger ``n_games`` keeps every chunk already on disk (same
seeds, same chunk boundaries) and plays only the new ones, so a run stopped at ``n`` games holds
exactly the records of a plain ``n``-game run. It stops at the target or at ``--games``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analyzer import runner, stats
from analyzer.errors import OptionError


@dataclass(frozen=True)
class Precision:
    """How a target-precision run ended.

    Attributes
    ----------
    target : float
        The asked half-width (a share, e.g. 0.01 = ±1 percentage point).
    games : int
        Games per variant played in the end.
    half_width : float
        The widest half-width of the reported win-rate intervals at ``games``.
    reached : bool
        ``half_width <= target`` (else the ``--games`` cap stopped the run).
    steps : tuple of int
        Game counts after each round of chunks.
    """

    target: float
    games: int
    half_width: float
    reached: bool
    steps: tuple[int, ...]


def entrant_half_width(seats: pd.DataFrame) -> float:
    """Widest half-width of the 95% intervals of each player's win rate over all arms, with
    the game seed as the unit (a tournament: every arm plays every seed, so the games of one
    seed are not independent): ``Σ won / Σ seats`` per player, delta-method interval over
    seeds (``stats.ratio_interval``); a player that won none (or all) of its games, whose
    spread is 0, Wilson's interval counting each seed one trial, as its ratings table gives
    it (``ratings`` edge shares; the zero-width interval stopped a run as precise).

    Parameters
    ----------
    seats : DataFrame
        Seat records (``game_id, policy, won``).
    """
    per = seats.groupby(["policy", "game_id"], observed=True)["won"].agg(["sum", "size"])
    widths = []
    for _, grp in per.groupby(level="policy", observed=True):
        won, seats_ = float(grp["sum"].sum()), float(grp["size"].sum())
        if won <= 0 or won >= seats_:
            iv = stats.wilson(0.0 if won <= 0 else len(grp), len(grp))
        else:
            iv = stats.ratio_interval(grp["sum"].to_numpy(float), grp["size"].to_numpy(float))
        widths.append((iv.hi - iv.lo) / 2 if iv.hi == iv.hi else 1.0)  # nan: one seed, unknown
    return float(max(widths))


def target_text(tc: dict, unit: str = "games") -> str:
    """What a command says of its ``--target-ci`` (the run facts' ``target_ci``: ``target``,
    ``reached``, ``games``, ``half_width``, shares): ``"target ±1.00 pp reached after 400
    games"`` or ``"target ±1.00 pp not reached at 400 games, widest ±1.52 pp"``; ``unit``:
    what ``games`` counts, plural (a tournament's ``"deals"``)."""
    n = f"{tc['games']} {unit if tc['games'] != 1 else unit.removesuffix('s')}"
    return (f"target ±{100 * tc['target']:.2f} pp "
            + (f"reached after {n}" if tc["reached"] else
               f"not reached at {n}, widest ±{100 * tc['half_width']:.2f} pp"))


def next_games(n: int, half_width: float, target: float, chunk_size: int, cap: int) -> int:
    """The next game count: the ``1/sqrt(n)`` law's estimate of what reaches ``target`` plus
    10 %, at least one more chunk, rounded up to whole chunks and at most ``cap``."""
    want = n * (half_width / target) ** 2 * 1.1 if target > 0 else cap
    want = max(want, n + chunk_size)
    return min(cap, int(math.ceil(want / chunk_size) * chunk_size))


def run_to_target(spec, arms: Sequence[runner.ArmPlan], root_seed: int, max_games: int,
                  chunk_dir: Path, target: float, *, chunk_size: int, jobs: int,
                  resume: bool = False,
                  half_width: Callable[[pd.DataFrame], float] = stats.max_win_rate_half_width,
                  **run_kwargs) -> tuple[runner.RunResult, Precision]:
    """Play chunks until the widest reported win-rate half-width is ``<= target``.

    Parameters
    ----------
    spec, arms, root_seed, chunk_dir
        As for ``analyzer.runner.run``.
    max_games : int
        The cap (``--games`` or the scenario's ``games``).
    target : float
        Half-width as a share, ``0 < target < 0.5``.
    chunk_size, jobs : int
        The first round plays ``max(chunk_size * jobs, 4 * chunk_size)`` games (at most the cap).
    half_width : callable
        The widest reported half-width of the seat records so far (``variant, game_id, policy,
        seat, won``): ``stats.max_win_rate_half_width``, or a study kind's ``half_width``
        (``analyzer.studies``: ``entrant_half_width`` for a tournament).
    **run_kwargs
        Passed on to ``runner.run`` (rotate, backend, scheduler, fingerprint, progress...).

    Returns
    -------
    (RunResult, Precision)
        The result covers games ``0..Precision.games-1``; ``seconds`` and ``games_played`` add
        up every round.

    Raises
    ------
    OptionError
        ``target`` outside (0, 0.5).
    """
    if not 0 < target < 0.5:
        raise OptionError("target_ci", f"must be a half-width between 0 and 0.5 (got {target})")
    n = min(max_games, max(chunk_size * jobs, 4 * chunk_size))
    steps, done = [], []
    while True:
        result = runner.run(spec, arms, root_seed, n, chunk_dir, chunk_size=chunk_size, jobs=jobs,
                            resume=resume or bool(steps), **run_kwargs)
        done.append(result)
        steps.append(n)
        seats = pd.concat([pd.read_parquet(p, columns=_columns(p))
                           for p in result.parts("seats")], ignore_index=True)
        hw = half_width(seats)
        if hw <= target or n >= max_games:
            break
        n = next_games(n, hw, target, chunk_size, max_games)
    total = runner.RunResult(result.chunk_dir, result.chunks, done[0].resumed,
                             sum(r.seconds for r in done), sum(r.games_played for r in done),
                             sum(r.cpu_seconds for r in done), result.rounds, copied=result.copied)
    return total, Precision(target, n, hw, hw <= target, tuple(steps))


def _columns(part: Path) -> list[str]:
    """The seat columns ``stats.max_win_rate_half_width`` reads that the part has."""
    import pyarrow.parquet as pq

    names = pq.read_schema(part).names
    return [c for c in ("variant", "game_id", "policy", "seat", "start_position", "won")
            if c in names]
