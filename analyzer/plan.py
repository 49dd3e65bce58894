"""A study's plan and its cost before anything is played (``--plan``, ``--time``; issue #37).

A study lists what it will play as ``Part``s (a scenario whose every arm plays ``games``
games on shared seeds). ``estimate`` prices them from what was measured on this machine, for
this analyzer version and build, cached in ``speed.json`` under the user's cache home
(``$XDG_CACHE_HOME/analyzer``, default ``~/.cache/analyzer``; the README's "A plan and a
budget" says what each measure is). Nothing here is a constant speed of a game or a constant
cost of a run:

* **CPU seconds a game** of each arm (``speed``, ``calibrate``; keyed by ``arm_key``), with
  the rule options each game consulted (``GameSpec.consults``): ``consulted_share``.
* **Worker start-up** (``startup``): the wall seconds to start ``jobs`` loky worker processes
  that import the engines, measured once (the run then reuses those workers).
* **A run's report** (``report_cost``): the CPU seconds of writing a run's records and report,
  measured by every run as it finishes (``record_report``).

Wall time = start-up + each part's play (``play_wall``, beside the load measured by ``load``:
``capacity``) + each report (in one process). ``--time`` (``parse_time``) sizes the games per
arm to fit a wall-time budget (``fit``) and says what precision that buys
(``seat_half_width``).

The command line sets the mode once for a command (``mode``); a study calls ``settle`` right
before it plays. Without a mode (the Python API) ``settle`` does nothing and calibrates
nothing. After the run, the report states the estimate against the actual CPU and wall time
(``against``).
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import math
import os
import platform
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from analyzer import __version__, rundir, runner, stats
from analyzer.errors import OptionError
from analyzer.files import atomic_write
from analyzer.runner import duration

CALIBRATION_CPU = 0.3  # CPU seconds of play that measure one arm's speed, at most
CALIBRATION_TOTAL = 6.0  # CPU seconds of play a plan's calibrations share (a study of many arms)
MIN_CPU = 0.1  # ... and at least, per arm (a greedy arm: about 30 games, enough for a consulted share)
# how ``calibrate`` turns its chunks into a speed (``per_game``): in the cache key, so that a
# speed measured another way is measured again (2: the slope past the first chunk; 3: at
# least MIN_CPU = 0.1 s an arm, where 0.03 s gave a greedy arm 7 games, priced at 1.5x)
CALIBRATION_METHOD = 3
MIN_GAMES = 1  # games an arm's calibration plays at least (a slow player: one game)
MAX_GAMES = 400  # games an arm's calibration plays at most (a fast player)
LOAD_PROBE = 0.25  # wall seconds ``load`` spins to measure the share of a core it gets
WHOLE_CORE = 0.9  # a share of a core above this is a whole core (scheduling noise)
RUNNABLE_FILE = "/proc/loadavg"  # its fourth field counts the processes runnable now (Linux)
RUNNABLE_EVERY = 0.01  # wall seconds between two counts during the probe
MIN_SHARE_GAMES = 20  # calibration games per arm that a consulted share needs (fewer: none)
TIME_FORM = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smh])\s*")
UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}


class Planned(Exception):
    """``--plan``: the study stopped before playing; ``estimate`` is its plan."""

    def __init__(self, estimate: Estimate):
        super().__init__("planned")
        self.estimate = estimate


@dataclass(frozen=True)
class Mode:
    """How ``settle`` acts for one command: stop with the plan (``plan``), fit the games to
    ``budget`` wall seconds, and ``say`` the estimate (``None``: silent)."""

    plan: bool = False
    budget: float | None = None
    say: Callable[[str], None] | None = None


_MODE: contextvars.ContextVar[Mode | None] = contextvars.ContextVar("analyzer_plan", default=None)


def mode(m: Mode) -> AbstractContextManager[Mode]:
    """Make ``m`` the mode of the studies run inside (the command line's ``--plan``,
    ``--time`` and progress)."""
    return runner.within(_MODE, m)


def parse_time(text: str) -> float:
    """Seconds of a budget such as ``"90s"``, ``"10m"``, ``"1.5h"`` (a number and s, m or h).

    Raises
    ------
    OptionError
        Not of that form, or zero.
    """
    match = TIME_FORM.fullmatch(text or "")
    seconds = float(match[1]) * UNITS[match[2]] if match else 0.0
    if not match or seconds <= 0:
        raise OptionError("time", f"must be a positive duration such as 90s, 10m or 1.5h "
                                  f"(got {text!r})")
    return seconds


@dataclass(frozen=True)
class Copy:
    """A rule condition that copies the games which did not consult ``option``
    (``runner.copy_from``) from a run of ``arms`` (the replicate's); ``run_dir``: a finished run
    of those arms whose records give the share (``consulted_share``)."""

    option: str
    arms: tuple[runner.ArmPlan, ...]
    run_dir: Path | None = None


@dataclass(frozen=True)
class Part:
    """Something a study plays: every arm of ``scenario`` (validated) for ``games`` games.

    ``scales``: ``--time`` sizes its games (a part of fixed games, such as a search player's
    condition, keeps them). ``arms``: what is played, when not the scenario's own arms (a
    study that builds ``runner.ArmPlan``s itself). ``copy``: a rule condition that plays only
    the games which consult its option (``Copy``; ``None``: all). ``chunk``: its chunk
    size (default the runner's, but at least ``spread`` chunks a run: a short run's few slow
    games spread over the workers). ``runs``: it plays as that many runs of equal games one after
    the other (a balance's settings), each in its own chunks. ``kind``: the study kind of the
    report it writes, ``reports`` how many (0: none)."""

    label: str
    scenario: Any
    games: int
    scales: bool = True
    arms: tuple[runner.ArmPlan, ...] | None = None
    copy: Copy | None = None
    chunk: int | None = None
    kind: str = "simulate"
    reports: int = 1
    runs: int = 1
    spread: int = 1

    def plans(self) -> list[runner.ArmPlan]:
        """The arms it plays."""
        return list(self.arms) if self.arms is not None else runner.plan_arms(self.scenario)


@dataclass(frozen=True)
class Line:
    """One part of a plan, priced: its label, arms, games per arm, CPU seconds of play (at its
    ``share`` of games played), wall seconds of play and of its reports."""

    label: str
    arms: int
    games: int
    cpu: float
    wall: float = 0.0
    share: float = 1.0
    report: float = 0.0


@dataclass(frozen=True)
class Estimate:
    """The priced plan of a study.

    Attributes
    ----------
    lines : tuple of Line
    cpu, wall : float
        Estimated CPU seconds of play (all worker processes) and wall seconds of everything:
        ``startup`` + each line's play and report wall + ``final``.
    workers, jobs, cores : int
    games : int, optional
        Games per arm of the scaled parts (``None``: no part scales, as a tune's).
    players : int
        Players of the first part (for the precision of a seat's win share).
    budget : float, optional
        The ``--time`` budget in seconds that set ``games``.
    load : float
        The load average of the other processes, when estimated.
    startup : float
        Wall seconds to start the worker processes (0: none, or already started).
    final : float
        Wall seconds of the closing report written after every part (a robustness check's).
    unmeasured : bool
        No run's report was measured yet on this machine and version: reports are left out.
    capped : bool
        ``games`` is the most a run plays (``settle``'s ``most``): the budget is not used up.
    begun, spent : float
        ``time.monotonic()`` and ``runner.cpu_spent()`` when the estimate was made (the
        actual is measured from there).
    """

    lines: tuple[Line, ...]
    cpu: float
    wall: float
    workers: int
    jobs: int
    cores: int
    games: int | None
    players: int
    budget: float | None = None
    load: float = 0.0
    startup: float = 0.0
    final: float = 0.0
    unmeasured: bool = False
    capped: bool = False
    begun: float = 0.0
    spent: float = 0.0

    @property
    def reports(self) -> float:
        """Wall seconds of all reports."""
        return sum(ln.report for ln in self.lines) + self.final

    @property
    def tail(self) -> float:
        """Wall seconds of the last report: the one a run's own report cannot time."""
        return self.final or next((ln.report for ln in reversed(self.lines) if ln.report), 0.0)

    def assumes(self) -> str:
        """What the wall time assumes, in words."""
        share = (f"cores free (load {self.load:.1f})" if capacity(self.workers, self.cores,
                                                                   self.load) >= self.workers
                 else f"the {self.cores} cores shared with a load of {self.load:.1f}")
        reports = ("reports left out (none of these kinds measured yet on this machine: the "
                   "first run may take longer than planned)" if self.unmeasured
                   else f"{duration(self.reports)} of reports")
        return (f"{self.workers} worker(s) (min of --jobs {self.jobs} and {self.cores} "
                f"cores), {share}; {duration(self.startup)} of worker start-up, {reports}")

    def summary(self) -> str:
        """One line: games, CPU and wall time, the ± it buys, and the budget if any."""
        total = sum(line.arms * line.games for line in self.lines)
        text = (f"plan: {len(self.lines)} part(s), {sum(ln.arms for ln in self.lines)} arm(s), "
                f"{total:,} games; estimated {duration(self.cpu)} CPU, about "
                f"{duration(self.wall)} wall ({self.assumes()})")
        if self.games is not None:
            text += (f"; a seat's win share ±{100 * seat_half_width(self.games, self.players):.1f}"
                     f" pp at {self.games:,} games")
        if self.budget is not None:
            most = ", the most a run plays: the budget is not used up" if self.capped else ""
            text += f" (--time {duration(self.budget)} chose {self.games:,} games per arm{most})"
        return text

    def text(self) -> str:
        """The plan as ``--plan`` prints it: one line per part, then ``summary``."""
        rows = []
        for ln in self.lines:
            copied = (f" ({100 * ln.share:.0f} % played, the rest copied)" if ln.share < 1
                      else "")
            rows.append(f"{ln.label}: {ln.arms} arm(s) x {ln.games:,} games = "
                        f"{ln.arms * ln.games:,} games{copied}, {duration(ln.cpu)} CPU")
        return "\n".join([*rows, self.summary()])

    def facts(self) -> dict[str, Any]:
        """The estimate as run facts (``summary.json["run"]["estimate"]``), with what was
        spent since it was made: ``elapsed`` wall seconds and ``played`` CPU seconds of play
        (``runner.cpu_spent``), both up to now (a report states them before it is written:
        ``tail`` is its own estimated wall)."""
        return {"cpu": self.cpu, "wall": self.wall, "workers": self.workers, "jobs": self.jobs,
                "load": self.load,
                "cores": self.cores, "games": self.games, "budget": self.budget,
                "startup": self.startup, "reports": self.reports, "tail": self.tail,
                "elapsed": time.monotonic() - self.begun if self.begun else None,
                "played": runner.cpu_spent() - self.spent if self.begun else None,
                "assumes": self.assumes()}


def against(estimate: dict[str, Any] | None, cpu: float | None, wall: float | None) -> str:
    """A report's sentence of the estimate (``Estimate.facts``) against the actual CPU and
    wall seconds; ``""`` when the run made no estimate (the Python API, ``--quiet``).

    The actual is what the estimate's own facts measured since it was made (``played`` CPU
    seconds, ``elapsed`` wall seconds up to the report) where they are, else ``cpu`` and
    ``wall`` (an older run's facts: the play only). The wall is compared with the estimate
    less ``tail``, the estimated wall of the report being written."""
    if not estimate:
        return ""
    def ratio(actual: float | None, est: float) -> str:
        return f" ({actual / est:.2f}x the estimate)" if actual and est > 0 else ""
    cpu = cpu if estimate.get("played") is None else estimate["played"]
    wall = wall if estimate.get("elapsed") is None else estimate["elapsed"]
    tail = float(estimate.get("tail") or 0.0)
    budget = (f" for a --time budget of {duration(estimate['budget'])}"
              if estimate.get("budget") else "")
    upto = (f" (the estimate less this report's own {duration(tail)}: "
            f"{duration(estimate['wall'] - tail)})" if tail else "")
    return (f"Estimated before play{budget}: {duration(estimate['cpu'])} CPU of play, "
            f"{duration(estimate['wall'])} wall ({estimate.get('assumes', '')}); actual: "
            f"{duration(cpu or 0.0)} CPU{ratio(cpu, estimate['cpu'])}, "
            f"{duration(wall or 0.0)} wall up to this report{upto}"
            f"{ratio(wall, estimate['wall'] - tail)}.")


def seat_half_width(games: int, players: int, confidence: float = 0.95) -> float:
    """The 95 % Wilson half-width of a seat's win share over ``games`` games at the fair
    share ``p = 1/players`` (each game counts once for the seat: the game is the unit)."""
    n = max(games, 1)
    iv = stats.wilson(n / max(players, 1), n, confidence)
    return (iv.hi - iv.lo) / 2


# ------------------------------------------------------------------ the measured speed


def cache_file() -> Path:
    """``speed.json`` under ``$XDG_CACHE_HOME/analyzer`` (default ``~/.cache/analyzer``)."""
    home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(home) / "analyzer" / "speed.json"


def _machine() -> dict[str, Any]:
    from analyzer.games import build

    return {"node": platform.node(), "machine": platform.machine(),
            "python": platform.python_version(), "cores": os.cpu_count(),
            "version": __version__, "build": build(), "engines": rundir.engines()}


def _digest(what: Any, length: int = 24) -> str:
    """A cache key: the first ``length`` hex digits of the SHA-256 of ``what`` as sorted JSON."""
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:length]


def _machine_key() -> str:
    """A short hash of ``_machine``: the cache entries of this machine, version, build and
    engine sources."""
    return _digest(_machine(), 16)


def arm_key(spec: Any, arm: runner.ArmPlan, rounds: bool = False, kingmaking: int = 0) -> str:
    """The cache key of an arm's speed: machine, version and build, game, player count,
    expansions, rules and the seats' policies with their parameters (not the seat names nor
    their order), and what the run records: ``rounds`` (with a game's ``flow``) and the
    kingmaking samples."""
    what = {**_machine(), "method": CALIBRATION_METHOD, "game": spec.name, "players": arm.players,
            "expansions": list(arm.expansions), "rules": arm.rules,
            # sorted: the calibration plays the seat rotations, so the order is no cost
            "seats": sorted([policy, params] for _, policy, params in arm.seats)}
    rounds = bool(rounds and spec.flow is not None)
    if rounds:  # (only then: the keys without them stay as they were)
        what["rounds"] = True
        if kingmaking:
            what["kingmaking"] = kingmaking
    return _digest(what)


@dataclass(frozen=True)
class Calibration:
    """What ``calibrate`` measured of an arm: CPU seconds a game over ``games`` games, and
    ``consulted``: mask -> games whose mask of consulted rule options it was (-1: none
    recorded)."""

    cpu_per_game: float
    games: int
    consulted: dict[int, int]


def calibrate(spec: Any, arm: runner.ArmPlan, seed: int, rotate: bool = True,
              cpu: float = CALIBRATION_CPU, rounds: bool = False,
              kingmaking: int = 0) -> Calibration:
    """Measure ``arm`` here, as a worker plays it (``runner.play_chunk`` with ``rounds`` and
    ``kingmaking``): games ``0, 1, …`` of root ``seed`` in chunks of 1, 2, 4, … games, until
    ``cpu`` CPU seconds and ``MIN_GAMES`` games, at most ``MAX_GAMES``. The CPU seconds a
    game: ``per_game`` of the chunks."""
    start, n, size = time.process_time(), 0, 1
    masks: list = []
    chunks: list[tuple[int, float]] = []
    while n < MIN_GAMES or (time.process_time() - start < cpu and n < MAX_GAMES):
        stop = min(n + size, max(MAX_GAMES, MIN_GAMES))
        began = time.process_time()
        runner.play_chunk(spec, [arm], seed, n, stop, rotate, rounds, kingmaking, masks=masks)
        chunks.append((stop - n, time.process_time() - began))
        n, size = stop, 2 * size
    return Calibration(per_game(chunks), n, dict(Counter(int(mask) for _, _, mask in masks)))


def per_game(chunks: Sequence[tuple[int, float]]) -> float:
    """CPU seconds a game from calibration chunks ``(games, CPU seconds)``: the least-squares
    slope of a chunk's seconds over its games after the first chunk (which carries the
    process's one-time warm-up). The intercept, each chunk's fixed cost (building the players
    and tables), is left out: a run's chunks of hundreds of games spread it thin, while in a
    calibration of chunks of 1–8 games it was most of a fast player's time (the random
    player's was priced at 11x its actual). With fewer than two later chunk sizes, or a slope
    that is not positive (noise), the later chunks' seconds over their games; with one chunk,
    its seconds over its games."""
    later = list(chunks[1:]) or list(chunks)
    games = np.array([g for g, _ in later], dtype=float)
    seconds = np.array([c for _, c in later], dtype=float)
    if len(set(games.tolist())) >= 2:
        slope = float(np.polyfit(games, seconds, 1)[0])
        if slope > 0:
            return slope
    return max(float(seconds.sum()), 1e-9) / max(float(games.sum()), 1.0)


def _cache() -> dict[str, Any]:
    try:
        cache = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return cache if isinstance(cache, dict) else {}


def _number(entry: Any, name: str) -> float | None:
    """The number ``entry[name]`` of a cache entry; ``None`` when it is not one."""
    value = entry.get(name) if isinstance(entry, dict) else None
    return float(value) if isinstance(value, (int, float)) else None


def _store(key: str, entry: dict[str, Any]) -> None:
    """Keep ``entry`` under ``key`` in the cache, dated (not kept where the cache home is not
    writable: measured again next time)."""
    path, cache = cache_file(), _cache()
    cache[key] = {**entry, "measured": time.strftime("%Y-%m-%d")}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(cache, indent=1))
    except OSError:
        pass


def _entry(spec: Any, arm: runner.ArmPlan, rounds: bool = False,
           kingmaking: int = 0) -> dict[str, Any] | None:
    """The cached speed of ``arm`` (``None``: not measured on this machine and version)."""
    entry = _cache().get(arm_key(spec, arm, rounds, kingmaking))
    return entry if (_number(entry, "cpu_per_game") or 0) > 0 else None


def speed(spec: Any, arm: runner.ArmPlan, seed: int, rotate: bool = True,
          cpu: float = CALIBRATION_CPU, rounds: bool = False, kingmaking: int = 0) -> float:
    """CPU seconds a game of ``arm`` (with ``rounds`` and ``kingmaking`` samples): from the
    cache, else ``calibrate`` for ``cpu`` seconds (and cached)."""
    known = _entry(spec, arm, rounds, kingmaking)
    if known is not None:
        return float(known["cpu_per_game"])
    measured = calibrate(spec, arm, seed, rotate, cpu, rounds, kingmaking)
    _store(arm_key(spec, arm, rounds, kingmaking),
           {"cpu_per_game": measured.cpu_per_game, "games": measured.games,
            "consulted": {str(m): c for m, c in measured.consulted.items()},
            "game": spec.name})
    return measured.cpu_per_game


def consulted_share(spec: Any, arms: Sequence[runner.ArmPlan], option: str,
                    run_dir: Path | None = None) -> tuple[float, str]:
    """The share of games (games x arms) that consult rule ``option`` (``GameSpec.consults``),
    the share a rule condition replays when it copies the rest (``runner.copy_from``), and
    where it comes from: the finished or partial run in ``run_dir`` (its
    ``chunks/consults-*.parquet``), else the calibration of ``arms`` (cached, at least
    ``MIN_SHARE_GAMES`` games each), else ``1.0``, a full replay.
    A game without a recorded mask counts as consulting."""
    bit = spec.consult_bit(option)
    if not bit:
        return 1.0, "the option is not recorded: full replay"
    if run_dir is not None:
        import pyarrow.parquet as pq

        parts = sorted((Path(run_dir) / "chunks").glob("consults-*.parquet"))
        try:
            masks = [m for p in parts
                     for m in pq.read_table(p, columns=["consulted"]).column(0).to_pylist()]
        except (OSError, ValueError):
            masks = []
        if masks:
            hit = sum(1 for m in masks if m is None or m < 0 or m & bit)
            return hit / len(masks), f"measured on {len(masks):,} games of {run_dir}"
    counts = [(_entry(spec, arm) or {}).get("consulted") for arm in arms]
    if not arms or not all(isinstance(c, dict) and sum(c.values()) >= MIN_SHARE_GAMES
                           for c in counts):
        return 1.0, "not measured: full replay"
    pairs = [(int(mask), c) for each in counts for mask, c in each.items()]
    total = sum(c for _, c in pairs)
    return (sum(c for mask, c in pairs if mask < 0 or mask & bit) / total,
            f"measured on {total:,} calibration games")


def _warm_worker() -> int:
    """A worker's first task: import what a chunk needs (``startup``)."""
    from analyzer import games  # noqa: F401  (the engines)
    from analyzer.games import build

    build()
    return os.getpid()


_WARM: set[int] = set()  # jobs of the loky workers this process started (``startup``)


def startup(jobs: int, backend: str = "loky") -> float:
    """Wall seconds to start ``jobs`` loky worker processes that import the engines: cached
    per machine, version, build and ``jobs``, else measured by starting them (the run then
    reuses them: 0 after that in this process). 0 for one worker or another backend."""
    if backend != "loky" or workers(jobs, backend) < 2 or jobs in _WARM:
        return 0.0
    key = _digest({**_machine(), "startup": jobs})
    known = _number(_cache().get(key), "startup")
    if known is not None:
        return known
    from joblib import Parallel, delayed

    begun = time.monotonic()
    Parallel(n_jobs=jobs, backend="loky")(delayed(_warm_worker)() for _ in range(jobs))
    seconds = time.monotonic() - begun
    _store(key, {"startup": seconds, "jobs": jobs, "machine": _machine_key()})
    _WARM.add(jobs)
    return 0.0  # started now: the run finds them running


def _report_key(game: str, kind: str, arms: int, rounds: bool) -> str:
    return _digest({**_machine(), "report": [game, kind, arms, rounds]})


#: report kinds that price one setting's findings (computed, no report written), not a report
SETTING_KINDS = frozenset({"balance-setting"})
#: the report kind of a run that writes only its report's numbers (``summary.json``,
#: ``findings.parquet``; ``study.run.numbers_only``: a robustness check's replicate and
#: conditions): neither a whole report nor a setting's findings stand in for it
NUMBERS = "numbers"


def _family(kind: str) -> int:
    """Which report kinds price alike (``report_cost``): a setting's findings, a run's
    numbers, a whole report."""
    return 0 if kind in SETTING_KINDS else 1 if kind == NUMBERS else 2


def record_report(game: str, kind: str, cpu: float, arms: int = 0, rounds: bool = False) -> None:
    """Keep the CPU seconds a run of ``kind`` on ``game`` with ``arms`` arms (and ``rounds``
    recorded) spent writing its records and report (``report_cost``)."""
    _store(_report_key(game, kind, arms, rounds),
           {"report_cpu": cpu, "game": game, "kind": kind, "arms": arms, "rounds": rounds,
            "machine": _machine_key()})


def report_cost(game: str, kind: str, arms: int = 0, rounds: bool = False) -> float | None:
    """CPU seconds of a run's records and report of ``kind`` on ``game`` with ``arms`` arms
    and ``rounds`` (``record_report``): the one measured so, else the mean of the nearest
    measured on this machine and version (the same game and kind, then the kind, then any
    kind alike: ``SETTING_KINDS`` only stand in for each other, ``NUMBERS`` for itself, or —
    before it was ever measured — the whole reports, of which it is a part); ``None`` when
    none was measured."""
    cache = _cache()
    known = _number(cache.get(_report_key(game, kind, arms, rounds)), "report_cpu")
    if known is not None:
        return known
    here = [e for e in cache.values() if _number(e, "report_cpu") is not None
            and e.get("machine") == _machine_key()]
    # a setting's findings (no report written), a run's numbers (no chart, Markdown or HTML)
    # and a whole run's report are not alike: one never stands in for another (a 10,000-game
    # report priced 45 settings at 13 s each)
    alike = [e for e in here if _family(e.get("kind") or "") == _family(kind)]
    # a run's numbers cost less than its whole report: an upper bound until measured
    whole = [e for e in here if _family(e.get("kind") or "") == 2] if kind == NUMBERS else []
    whole = [e for e in whole if e.get("game") == game] or whole
    for near in ([e for e in here if e.get("kind") == kind and e.get("game") == game],
                 [e for e in here if e.get("kind") == kind], alike, whole):
        if near:
            return sum(e["report_cpu"] for e in near) / len(near)
    return None


def _rates(parts: Sequence[Part], rounds: bool = False, kingmaking: int = 0) -> list[float]:
    """CPU seconds per game of each part (all its arms); the arms not yet measured share
    ``CALIBRATION_TOTAL`` seconds of calibration."""
    new = {arm_key(p.scenario.spec, arm, rounds, kingmaking) for p in parts for arm in p.plans()
           if _entry(p.scenario.spec, arm, rounds, kingmaking) is None}
    each = min(CALIBRATION_CPU, max(MIN_CPU, CALIBRATION_TOTAL / max(len(new), 1)))
    return [sum(speed(p.scenario.spec, arm, p.scenario.seed, p.scenario.seat_rotation, each,
                      rounds, kingmaking)
                for arm in p.plans()) for p in parts]


def _runnable() -> int | None:
    """Processes runnable on the machine at this instant, this one included: the fourth field
    of Linux's ``/proc/loadavg`` (``running/total``); None where there is no such file."""
    try:
        with open(RUNNABLE_FILE) as f:
            return int(f.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None


def load(probe: float = LOAD_PROBE) -> float:
    """The runnable processes besides this one that share the cores now: measured by spinning
    ``probe`` wall seconds and reading the share of a core this process got, ``s``: beside
    ``L`` others on ``c`` cores a process gets ``min(1, c / (L + 1))``, so ``L = c / s - 1``
    when ``s < 1``. With a whole core (``s`` near 1, ``L`` anywhere below ``c``), the mean
    of the runnable processes counted during the spin, less this one (``_runnable``), at most
    ``c - 1``; where that count cannot be read, the 1-minute load average, which lags a run
    that has just ended by a minute or more. 0 where the system has neither."""
    cores = os.cpu_count() or 1
    wall, cpu = time.monotonic(), time.process_time()
    counts: list[int] = []
    while time.monotonic() - wall < probe:
        if len(counts) < (time.monotonic() - wall) / RUNNABLE_EVERY:
            n = _runnable()
            if n is not None:
                counts.append(n)
    share = (time.process_time() - cpu) / max(time.monotonic() - wall, 1e-9)
    if share < WHOLE_CORE:
        return max(cores / max(share, 1e-3) - 1.0, 0.0)
    if counts:
        others = sum(counts) / len(counts) - 1.0
    else:
        try:
            others = os.getloadavg()[0]
        except (AttributeError, OSError):
            return 0.0
    return min(max(others, 0.0), cores - 1.0)


def capacity(workers: int, cores: int, busy: float) -> float:
    """Cores' worth of CPU that ``workers`` processes get on ``cores`` cores beside a load of
    ``busy`` runnable processes: each gets ``min(1, cores / (busy + workers))`` of a core."""
    return workers * min(1.0, cores / max(busy + workers, 1e-9))


def workers(jobs: int, backend: str = "loky") -> int:
    """Processes that play at once: ``min(jobs, cores)``, 1 for the sequential backend."""
    return 1 if backend == "sequential" else max(1, min(jobs, os.cpu_count() or 1))


def play_wall(cpu: float, games: int, chunk: int, w: int, cores: int, busy: float,
              runs: int = 1, tail: bool = True) -> float:
    """Wall seconds to play ``cpu`` CPU seconds of ``games`` games as ``runs`` runs of equal
    games one after the other, each in chunks of ``chunk`` on ``w`` workers:
    ``ceil(chunks / w')`` rounds of one chunk's CPU per run, each worker getting its
    ``capacity`` share of a core (``w' = min(w, chunks)``; a run of one chunk plays in the
    main process). ``tail=False``: ``chunks / w'`` rounds (a last round as full as the others:
    the wall then grows steadily with the games, for ``fit``)."""
    runs = max(1, runs)
    chunks = max(1, math.ceil(games / runs / max(chunk, 1)))
    used = 1 if chunks == 1 else min(w, chunks)
    per_worker = capacity(used, cores, busy) / used
    rounds = math.ceil(chunks / used) if tail else chunks / used
    return runs * rounds * (cpu / runs / chunks) / per_worker


def estimate(parts: Sequence[Part], jobs: int, backend: str = "loky",
             budget: float | None = None, *, rounds: bool = False, kingmaking: int = 0,
             chunk: int | None = None, final: str | None = None, tail: bool = True,
             busy: float | None = None) -> Estimate:
    """The priced plan of ``parts`` played with ``jobs`` worker processes, each game recording
    ``rounds`` and ``kingmaking`` samples, in chunks of ``chunk`` games (a part's own, else
    this, else the runner's default); ``final``: the study kind of a closing report written
    after every part; ``tail``: see ``play_wall``; ``busy``: the load (default ``load()``,
    measured now) (see the module docstring for what the wall time assumes)."""
    busy = load() if busy is None else busy  # before the calibration adds to it
    rates = _rates(parts, rounds, kingmaking)
    w, cores = workers(jobs, backend), os.cpu_count() or 1

    def size(p: Part) -> int:  # its chunk size
        return p.chunk or chunk or max(1, min(runner.DEFAULT_CHUNK_SIZE,
                                              p.games // max(p.runs, 1) // p.spread))

    # (a run of one chunk plays in this process: no worker is started for it)
    start = (startup(jobs, backend)
             if any(p.games > max(p.runs, 1) * size(p) for p in parts) else 0.0)
    single = capacity(1, cores, busy)
    unmeasured = False

    def report(p: Part, kind: str) -> float:  # wall seconds of one report of ``kind``
        nonlocal unmeasured
        spec = p.scenario.spec
        cost = report_cost(spec.name, kind, len(p.plans()), bool(rounds and spec.flow is not None))
        unmeasured |= cost is None
        return (cost or 0.0) / single

    lines = []
    for p, r in zip(parts, rates):
        share = 1.0
        if p.copy is not None and not kingmaking:  # (no copy with the kingmaking test)
            share = consulted_share(p.scenario.spec, p.copy.arms, p.copy.option,
                                    p.copy.run_dir)[0]
        cpu = r * p.games * share
        lines.append(Line(p.label, len(p.plans()), p.games, cpu,
                          play_wall(cpu, p.games, size(p), w, cores, busy, p.runs, tail), share,
                          p.reports * report(p, p.kind) if p.reports else 0.0))
    end = report(parts[0], final) if final and parts else 0.0
    cpu = sum(line.cpu for line in lines)
    wall = start + sum(ln.wall + ln.report for ln in lines) + end
    games = max((p.games for p in parts if p.scales), default=None)
    players = parts[0].scenario.arm_players(parts[0].scenario.arms[0]) if parts else 0
    return Estimate(tuple(lines), cpu, wall, w, jobs, cores, games, players, budget, busy,
                    start, end, unmeasured, begun=time.monotonic(), spent=runner.cpu_spent())


def fit(parts: Sequence[Part], budget: float, jobs: int, backend: str = "loky",
        most: int = runner.MAX_CHUNKS * runner.DEFAULT_CHUNK_SIZE, **how: Any) -> int:
    """Games per arm of the scaled parts that fit ``budget`` wall seconds (the fixed parts
    keep theirs; ``estimate``'s wall: start-up, play, reports, with the workers' last round of
    chunks as full as the others, so that the wall grows with the games), at most ``most``.
    ``how``: ``estimate``'s ``rounds``, ``kingmaking``, ``chunk`` and ``final``.

    Raises
    ------
    OptionError
        Not even one game per arm fits.
    """
    priced = functools.partial(estimate, jobs=jobs, backend=backend, tail=False, busy=load(),
                               **how)  # the load measured once

    def wall(games: int) -> float:
        return priced([replace(p, games=games) if p.scales else p for p in parts]).wall

    if wall(1) > budget:
        fixed = [p for p in parts if not p.scales]
        why = ""
        if fixed:  # the parts the budget cannot shrink are what does not fit
            why = (f", of which the parts of fixed size ({', '.join(p.label for p in fixed)}) "
                   f"take about {duration(priced(fixed).wall)}: make them smaller")
        raise OptionError("time", f"{duration(budget)} is too short: one game per arm, with "
                                  f"the start-up and reports, takes about {duration(wall(1))} "
                                  f"on {workers(jobs, backend)} worker(s){why}")
    if not any(p.scales for p in parts) or wall(most) <= budget:
        return most
    lo, hi = 1, most  # wall(lo) fits, wall(hi) does not; the wall grows with the games
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if wall(mid) <= budget * (1 + 1e-9) else (lo, mid)
    return lo


def settle(parts: Sequence[Part], jobs: int, backend: str = "loky",
           most: int = runner.MAX_CHUNKS * runner.DEFAULT_CHUNK_SIZE, **how: Any
           ) -> Estimate | None:
    """What a study does right before it plays ``parts``, in the command's ``mode``: with a
    budget, fit the games (the returned estimate's ``games``: the study plays that many per
    arm of its scaled parts, at most ``most``); with ``plan``, raise ``Planned``; else ``say``
    the estimate. ``how``: ``estimate``'s ``rounds``, ``kingmaking``, ``chunk`` and ``final``.
    Without a mode: ``None``, nothing measured. It acts once per ``mode``: a study's inner
    runs (a robustness check's conditions) are in its estimate already.

    Raises
    ------
    Planned
        ``--plan``: nothing is played or written.
    OptionError
        See ``fit``.
    """
    m = _MODE.get()
    if m is None or not (m.plan or m.budget is not None or m.say is not None):
        return None
    capped = False
    if m.budget is not None and parts:  # (nothing to play: every run finished earlier)
        games = fit(parts, m.budget, jobs, backend, most, **how)
        capped = games == most
        parts = [replace(p, games=games) if p.scales else replace(p, games=min(p.games, games))
                 for p in parts]
    est = replace(estimate(parts, jobs, backend, m.budget, **how), capped=capped)
    if m.plan:
        raise Planned(est)
    _MODE.set(None)  # once per command: the runs a study makes inside are in this estimate
    if m.say is not None:
        m.say(est.summary())
    return est
