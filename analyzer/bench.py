"""Throughput and memory benchmark: games/s per core, parallel efficiency, peak memory.

This is a measurement, never a test: nothing here asserts on time. ``analyzer bench`` prints
the table and writes ``bench.json`` with the machine it ran on. Each game states its standard
table and its one-core targets in its ``GameSpec.benchmark``.
"""

from __future__ import annotations

import importlib.machinery
import json
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
from analyzer.games import available_games, get_game
from analyzer.games.base import Benchmark, resolve_policies


def standard_tables() -> list[tuple[str, Benchmark]]:
    """Every game with the table ``bench`` plays (``GameSpec.bench_table()``), in registry order."""
    return [(name, get_game(name).bench_table()) for name in available_games()]


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
                  and isinstance(getattr(mod, "__loader__", None), importlib.machinery.ExtensionFileLoader))


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
            "platform": platform.platform(), "compiled": compiled_modules()}


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
    for game, table in standard_tables():
        if only and game not in only:
            continue
        players, expansions = table.players, tuple(table.expansions)
        for policy in policies:
            one = one_core_rate(game, players, expansions, policy, games, repeats)
            allc, peak = all_cores_rate(game, players, expansions, policy, parallel_games, cores)
            rows.append(BenchRow(game, players, policy, round(one, 1), round(allc, 1), cores,
                                 round(allc / one / cores, 3), round(peak, 1), table.targets.get(policy)))
    return rows


def write_json(rows: list[BenchRow], path: Path, memory: dict | None = None, settings: dict | None = None) -> None:
    """Write ``bench.json``: the machine, the settings (games per run, repeats), every row, and
    the run-memory figures (MiB, default study, by games per variant) if measured."""
    payload = {"machine": machine(), "when": time.strftime("%Y-%m-%d %H:%M:%S"), "settings": settings or {},
               "rows": [asdict(r) for r in rows], "run_memory_mib": memory or {}}
    atomic_write(path, json.dumps(payload, indent=2))
