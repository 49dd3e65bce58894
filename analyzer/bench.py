"""Throughput and memory benchmark: games/s per core, parallel efficiency, peak memory.

This is a measurement, never a test: nothing here asserts on time. ``analyzer bench`` prints
the table and writes ``bench.json`` with the machine it ran on. Each game states its standard
table and its one-core targets in its ``GameSpec.benchmark``.
"""

from __future__ import annotations

import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from joblib.externals.loky import get_reusable_executor

from analyzer.errors import AnalyzerError
from analyzer.files import atomic_write
from analyzer.games import available_games, build, get_game, is_compiled
from analyzer.model.base import Benchmark, build_policy, game_streams, resolve_policies

SEARCH_POLICY = "ismcts"  # the registry key every game gives its search player (model/ismcts.py)


def standard_tables(only: tuple[str, ...] = ()) -> list[tuple[str, Benchmark]]:
    """Every game (those of ``only`` when given) with the table ``bench`` plays
    (``GameSpec.bench_table()``), in registry order."""
    return [(name, get_game(name).bench_table()) for name in available_games()
            if not only or name in only]


def describe() -> str:
    """The standard tables and targets in words, for ``analyzer bench --help``: for each game
    e.g. ``"Game (+ Expansion) 4p with expansion (target: greedy 300 games/s)"``."""
    parts = []
    for name, table in standard_tables():
        exp = f" with {', '.join(table.expansions)}" if table.expansions else ""
        targets = ", ".join(f"{policy} {rate:,.0f}" for policy, rate in table.targets.items())
        parts.append(f"{get_game(name).display_name()} {table.players}p{exp}"
                     + (f" (target: {targets} games/s)" if targets else ""))
    return "; ".join(parts)


@dataclass
class BenchRow:
    """One line of the benchmark table. Rates in games/s, memory in MiB."""

    game: str
    players: int
    policy: str
    games_per_s_1core: float
    games_per_s_all: float
    cores: int
    efficiency: float  # speed-up over one core / cores, 0–1
    worker_peak_mib: float
    target: float | None


def target_check(row: BenchRow) -> str:
    """``"ok"`` if the one-core rate reaches the row's target (games/s per core), ``"MISS"``
    if not, ``"-"`` when the row has no target."""
    if not row.target:
        return "-"
    return "ok" if row.games_per_s_1core >= row.target else "MISS"


def _play_range(game: str, players: int, expansions: tuple[str, ...], policy: str, first: int, stop: int) -> float:
    """Play games ``first..stop-1`` in this process; return this process's peak RSS in MiB."""
    spec = get_game(game)
    config = spec.make_config(players, expansions, {})
    policies = resolve_policies(spec.policies, policy, players)  # built once, as the runner does
    for i in range(first, stop):
        spec.play_game(config, policies, np.random.SeedSequence(1, spawn_key=(i,)))
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def one_core_rate(game: str, players: int, expansions: tuple[str, ...], policy: str,
                  games: int = 500, repeats: int = 5) -> float:
    """Median games/s on one core over ``repeats`` timed runs of ``games`` games, after a warm-up."""
    _play_range(game, players, expansions, policy, 0, max(5, games // 10))
    rates = []
    for r in range(repeats):
        t0 = time.perf_counter()
        _play_range(game, players, expansions, policy, (r + 1) * games, (r + 2) * games)
        rates.append(games / (time.perf_counter() - t0))
    return statistics.median(rates)


def all_cores_rate(game: str, players: int, expansions: tuple[str, ...], policy: str,
                   games: int, cores: int) -> tuple[float, float]:
    """Games/s with ``cores`` fresh loky workers on ``games`` games, and the largest worker peak
    RSS (MiB) of this run."""
    step = max(1, games // (cores * 4))
    ranges = [(a, min(a + step, games)) for a in range(0, games, step)]
    get_reusable_executor().shutdown(wait=True)  # fresh workers: each row's peak is its own
    with Parallel(n_jobs=cores, backend="loky") as par:
        par(delayed(_play_range)(game, players, expansions, policy, 0, 2) for _ in range(cores))  # warm-up
        t0 = time.perf_counter()
        peaks = par(delayed(_play_range)(game, players, expansions, policy, a, b) for a, b in ranges)
        elapsed = time.perf_counter() - t0
    return games / elapsed, max(peaks)


# Runs one command and prints the peak RSS (KiB) of its process tree's largest process: a
# wrapper of its own, so earlier children of the benchmark (loky workers) do not count.
_PEAK_OF = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)
"""


def run_memory(scenario: str, games: int) -> float:
    """Peak RSS (MiB) of a whole one-job ``analyzer simulate`` run of ``games`` games per arm.

    The run (play, aggregate, report) is a child of a fresh wrapper process that reports only
    that child's peak; its output goes to a temporary folder that is removed afterwards.

    Raises
    ------
    AnalyzerError
        The run failed (its last error lines are included).
    """
    with tempfile.TemporaryDirectory(prefix="analyzer-bench-") as tmp:
        cmd = [sys.executable, "-c", _PEAK_OF, sys.executable, "-m", "analyzer", "simulate", scenario,
               "--games", str(games), "--out", str(Path(tmp) / "run"), "--quiet", "--jobs", "1"]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AnalyzerError(f"memory run failed: {done.stderr.strip()[-500:]}")
    return int(done.stdout.split()[-1]) / 1024.0


def compiled_modules() -> list[str]:
    """The loaded ``analyzer`` modules that run as C extensions (setup.py compiles each game's
    ``COMPILED_MODULES`` with mypyc unless installed with ``ANALYZER_PURE_PYTHON=1``)."""
    return sorted(name for name, mod in list(sys.modules.items())
                  if name.startswith("analyzer.") and not name.endswith("__mypyc")
                  and is_compiled(mod))


def machine() -> dict:
    """The machine a benchmark ran on: CPU model, cores, Python version, platform."""
    model = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform(), "build": build(), "compiled": compiled_modules()}


def bench(games: int = 500, parallel_games: int = 10000, repeats: int = 5,
          policies: tuple[str, ...] = ("random", "greedy"), only: tuple[str, ...] = ()) -> list[BenchRow]:
    """Benchmark every game at its standard table (``GameSpec.benchmark``).

    Parameters
    ----------
    games : int
        Games per timed one-core run.
    parallel_games : int
        Games in the all-cores run.
    repeats : int
        Timed one-core runs; the median is reported.
    policies : tuple of str
        Policies to measure (every seat plays the same one).
    only : tuple of str
        Restrict to these game names (empty: every game).

    Returns
    -------
    list of BenchRow
    """
    cores = os.cpu_count() or 1
    rows = []
    for game, table in standard_tables(only):
        players, expansions = table.players, tuple(table.expansions)
        for policy in policies:
            one = one_core_rate(game, players, expansions, policy, games, repeats)
            allc, peak = all_cores_rate(game, players, expansions, policy, parallel_games, cores)
            rows.append(BenchRow(game, players, policy, round(one, 1), round(allc, 1), cores,
                                 round(allc / one / cores, 3), round(peak, 1), table.targets.get(policy)))
    return rows


@dataclass
class RoundsCostRow:
    """The cost of the checkpoints after every round (``--rounds``, ``model.flow``) for one game
    and policy at its standard table, on one core: games/s without and with them."""

    game: str
    players: int
    policy: str
    games_per_s_off: float
    games_per_s_on: float
    cost: float  # 1 − on / off: the share of games/s the checkpoints take


def rounds_cost(game: str, players: int, expansions: tuple[str, ...], policy: str,
                games: int = 200, repeats: int = 3) -> tuple[float, float]:
    """Games/s on one core without and with the checkpoints (``runner.play_chunk`` with
    ``rounds``), on the same games, each the best of ``repeats`` timed runs taken in turn
    (CPU time of this process, after a warm-up of both)."""
    from analyzer import runner

    spec = get_game(game)
    arm = runner.ArmPlan("base", players, expansions, "{}",
                         tuple((f"p{s}", policy, "{}") for s in range(players)))
    warm = max(2, games // 10)
    runner.play_chunk(spec, [arm], 1, 0, warm)
    runner.play_chunk(spec, [arm], 1, 0, warm, rounds=True)
    best = {False: math.inf, True: math.inf}
    for _ in range(repeats):
        for on in (False, True):
            t0 = time.process_time()
            runner.play_chunk(spec, [arm], 1, 0, games, rounds=on)
            best[on] = min(best[on], time.process_time() - t0)
    return games / best[False], games / best[True]


def bench_rounds(games: int = 200, repeats: int = 3, policies: tuple[str, ...] = ("greedy",),
                 only: tuple[str, ...] = ()) -> list[RoundsCostRow]:
    """``rounds_cost`` of every game with checkpoints (``GameSpec.flow``) at its standard
    table."""
    rows = []
    for game, table in standard_tables(only):
        if get_game(game).flow is None:
            continue
        for policy in policies:
            off, on = rounds_cost(game, table.players, tuple(table.expansions), policy, games,
                                  repeats)
            rows.append(RoundsCostRow(game, table.players, policy, round(off, 1), round(on, 1),
                                      round(1 - on / off, 3)))
    return rows


@dataclass
class SearchBenchRow:
    """One line of the search-player table: the game's ``ismcts`` at its default parameters,
    on one core, at the game's standard table."""

    game: str
    players: int
    decisions: int  # searched decisions timed (forced answers are not searched)
    iterations_per_s: float
    games: int  # games of one ismcts seat against greedy at every other seat
    cpu_s_per_game: float  # CPU seconds per such game (the whole game, all seats)
    target: float | None  # most CPU seconds per game (GameSpec.benchmark.search_seconds)


def search_target_check(row: SearchBenchRow) -> str:
    """``"ok"`` if a game with one ``ismcts`` seat costs at most the target CPU seconds,
    ``"MISS"`` if not, ``"-"`` when there is no target."""
    if not row.target:
        return "-"
    return "ok" if row.cpu_s_per_game <= row.target else "MISS"


def search_iteration_rate(game: str, players: int, expansions: tuple[str, ...],
                          decisions: int = 30, seed: int = 1) -> tuple[int, float]:
    """ISMCTS iterations per CPU second on one core over the decisions of a seeded greedy game.

    A game with greedy players at every seat is played through the forward model
    (``new_state``); at up to ``decisions`` of its decisions, spread evenly over the game, the
    deciding seat's ``ismcts`` player (default parameters) searches the same view. Decisions
    with one legal answer are not searched and not counted; a search that stops early (its
    choice settled) counts the iterations it ran.

    Returns
    -------
    (int, float)
        Decisions searched, and iterations per CPU second over them.
    """
    spec = get_game(game)
    config = spec.make_config(players, expansions, {})
    search = build_policy(spec.policies, SEARCH_POLICY)
    greedy = resolve_policies(spec.policies, "greedy", players)
    # the game's decision points first (a greedy game through the forward model) ...
    state = spec.new_state(config, np.random.SeedSequence(seed))
    _, rngs = game_streams(np.random.SeedSequence(seed), players)
    movers = [p.player(s) for s, p in enumerate(greedy)]
    points = []
    while not state.is_terminal():
        seat = state.current_seat()
        points.append(state.clone())
        state.apply(movers[seat].choose(state.view(seat), rngs[seat]))
    # ... then a search at evenly spaced ones
    step = max(1, len(points) // decisions)
    searched, iterations, elapsed = 0, 0, 0.0
    rng = rngs[0]
    for point in points[::step][:decisions]:
        seat = point.current_seat()
        searcher = search.player(seat)
        t0 = time.process_time()
        searcher.choose(point.view(seat), rng)
        dt = time.process_time() - t0
        if searcher.last_root is not None:  # searched, not a forced answer
            searched += 1
            iterations += searcher.last_root.n
            elapsed += dt
    return searched, (iterations / elapsed if elapsed else 0.0)


def search_game_cost(game: str, players: int, expansions: tuple[str, ...], games: int = 8) -> float:
    """CPU seconds per game on one core of one ``ismcts`` seat (default parameters) against
    ``greedy`` at every other seat; the search seat moves round the table from game to game."""
    spec = get_game(game)
    config = spec.make_config(players, expansions, {})
    greedy = resolve_policies(spec.policies, "greedy", players)
    search = build_policy(spec.policies, SEARCH_POLICY)
    t0 = time.process_time()
    for i in range(games):
        policies = list(greedy)
        policies[i % players] = search
        spec.play_game(config, policies, np.random.SeedSequence(1, spawn_key=(i,)))
    return (time.process_time() - t0) / games


def bench_search(decisions: int = 30, games: int = 8, only: tuple[str, ...] = ()) -> list[SearchBenchRow]:
    """The search-player table for every game that registers ``ismcts`` (see
    ``search_iteration_rate`` and ``search_game_cost``)."""
    rows = []
    for game, table in standard_tables(only):
        if SEARCH_POLICY not in get_game(game).policies:
            continue
        expansions = tuple(table.expansions)
        searched, rate = search_iteration_rate(game, table.players, expansions, decisions)
        cost = search_game_cost(game, table.players, expansions, games)
        rows.append(SearchBenchRow(game, table.players, searched, round(rate, 1), games, round(cost, 3),
                                   table.search_seconds))
    return rows


def write_json(rows: list[BenchRow], path: Path, memory: dict | None = None, settings: dict | None = None,
               search_rows: list[SearchBenchRow] | None = None,
               rounds_rows: list[RoundsCostRow] | None = None) -> None:
    """Write ``bench.json``: the machine, the settings (games per run, repeats), every row, the
    search-player rows, the cost of the checkpoints (``--rounds``) if measured, and the
    run-memory figures (MiB, default study, by games per variant) if measured."""
    payload = {"machine": machine(), "when": time.strftime("%Y-%m-%d %H:%M:%S"), "settings": settings or {},
               "rows": [asdict(r) for r in rows], "search_rows": [asdict(r) for r in search_rows or ()],
               "rounds_rows": [asdict(r) for r in rounds_rows or ()],
               "run_memory_mib": memory or {}}
    atomic_write(path, json.dumps(payload, indent=2))
