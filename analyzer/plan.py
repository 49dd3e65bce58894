"""A study's plan and its cost before anything is played (``--plan``, ``--time``; issue #37).

A study lists what it will play as ``Part``s (a scenario whose every arm plays ``games``
games on shared seeds). ``estimate`` prices them from the measured speed of each arm on this
machine: ``speed`` plays a few seeded games of the arm in this process (at most
``CALIBRATION_CPU`` CPU seconds, the arms not yet measured sharing ``CALIBRATION_TOTAL``, at
least ``MIN_GAMES``) and caches the CPU seconds a game in
``speed.json`` under the user's cache home (``$XDG_CACHE_HOME/analyzer``, default
``~/.cache/analyzer``), keyed by machine, analyzer version and build, game, player count,
expansions, rule options and the seats' policies and parameters. Nothing here is a constant
speed of a game.

Wall time is CPU time / the cores the run gets: ``workers = min(jobs, cores)`` (1 for the
sequential backend) share the cores with the other processes that keep the machine busy now
(the 1-minute load average ``L``), each getting ``min(1, cores / (L + workers))`` of a core
(``capacity``). Only playing is priced: the workers' start-up and the reports are left out.

``--time`` (``parse_time``) sizes the games per arm to fit a wall-time budget (``fit``) and
says what precision that buys (``seat_half_width``: the 95 % Wilson half-width of a seat's
win share at the fair share 1/players, with the game as the unit).

The command line sets the mode once for a command (``mode``); a study calls ``settle`` right
before it plays. Without a mode (the Python API) ``settle`` does nothing and calibrates
nothing.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import math
import os
import platform
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analyzer import __version__, runner, stats
from analyzer.errors import OptionError
from analyzer.files import atomic_write

CALIBRATION_CPU = 0.3  # CPU seconds of play that measure one arm's speed, at most
CALIBRATION_TOTAL = 1.5  # CPU seconds of play a plan's calibrations share (a study of many arms)
MIN_CPU = 0.03  # ... and at least, per arm
MIN_GAMES = 1  # games an arm's calibration plays at least (a slow player: one game)
MAX_GAMES = 400  # games an arm's calibration plays at most (a fast player)
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


@contextmanager
def mode(m: Mode) -> Iterator[Mode]:
    """Make ``m`` the mode of the studies run inside (the command line's ``--plan``,
    ``--time`` and progress)."""
    token = _MODE.set(m)
    try:
        yield m
    finally:
        _MODE.reset(token)


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
class Part:
    """Something a study plays: every arm of ``scenario`` (validated) for ``games`` games.

    ``scales``: ``--time`` sizes its games (a part of fixed games, such as a search player's
    condition, keeps them). ``arms``: what is played, when not the scenario's own arms (a
    study that builds ``runner.ArmPlan``s itself)."""

    label: str
    scenario: Any
    games: int
    scales: bool = True
    arms: tuple[runner.ArmPlan, ...] | None = None

    def plans(self) -> list[runner.ArmPlan]:
        """The arms it plays."""
        return list(self.arms) if self.arms is not None else runner.plan_arms(self.scenario)


@dataclass(frozen=True)
class Line:
    """One part of a plan, priced: its label, arms, games per arm and CPU seconds."""

    label: str
    arms: int
    games: int
    cpu: float


@dataclass(frozen=True)
class Estimate:
    """The priced plan of a study.

    Attributes
    ----------
    lines : tuple of Line
    cpu, wall : float
        Estimated CPU seconds (all processes) and wall seconds (``cpu / capacity``).
    workers, jobs, cores : int
    load : float
        The load average of the other processes, when estimated.
    games : int, optional
        Games per arm of the scaled parts (``None``: no part scales, as a tune's).
    players : int
        Players of the first part (for the precision of a seat's win share).
    budget : float, optional
        The ``--time`` budget in seconds that set ``games``.
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

    def assumes(self) -> str:
        """What the wall time assumes, in words."""
        share = (f"cores free (load {self.load:.1f})" if capacity(self.workers, self.cores,
                                                                   self.load) >= self.workers
                 else f"the {self.cores} cores shared with a load of {self.load:.1f}")
        return (f"CPU / {self.workers} worker(s) (min of --jobs {self.jobs} and {self.cores} "
                f"cores), {share}, playing only: worker start-up and reports left out")

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
            text += f" (--time {duration(self.budget)} chose {self.games:,} games per arm)"
        return text

    def text(self) -> str:
        """The plan as ``--plan`` prints it: one line per part, then ``summary``."""
        rows = [f"{ln.label}: {ln.arms} arm(s) x {ln.games:,} games = {ln.arms * ln.games:,} "
                f"games, {duration(ln.cpu)} CPU" for ln in self.lines]
        return "\n".join([*rows, self.summary()])

    def facts(self) -> dict[str, Any]:
        """The estimate as run facts (``summary.json["run"]["estimate"]``)."""
        return {"cpu": self.cpu, "wall": self.wall, "workers": self.workers, "jobs": self.jobs,
                "load": self.load,
                "cores": self.cores, "games": self.games, "budget": self.budget,
                "assumes": self.assumes()}


def against(estimate: dict[str, Any] | None, cpu: float | None, wall: float | None) -> str:
    """A report's sentence of the estimate (``Estimate.facts``) against the actual CPU and
    wall seconds; ``""`` when the run made no estimate (the Python API, ``--quiet``)."""
    if not estimate:
        return ""
    def ratio(actual: float | None, est: float) -> str:
        return f" ({actual / est:.2f}x the estimate)" if actual and est > 0 else ""
    budget = (f" for a --time budget of {duration(estimate['budget'])}"
              if estimate.get("budget") else "")
    return (f"Estimated before play{budget}: {duration(estimate['cpu'])} CPU, "
            f"{duration(estimate['wall'])} wall ({estimate.get('assumes', '')}); actual: "
            f"{duration(cpu or 0.0)} CPU{ratio(cpu, estimate['cpu'])}, "
            f"{duration(wall or 0.0)} wall{ratio(wall, estimate['wall'])}.")


def duration(seconds: float) -> str:
    """``"0.043 s"``, ``"2.5 s"``, ``"12 s"``, ``"4 min 10 s"``, ``"2 h 05 min"``."""
    if seconds < 1:  # a small run: two digits, not "0.0 s"
        return f"{seconds:.2g} s"
    if seconds < 10:
        return f"{seconds:.1f} s"
    s = round(seconds)
    if s < 3600:
        return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


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
            "version": __version__, "build": build()}


def arm_key(spec: Any, arm: runner.ArmPlan) -> str:
    """The cache key of an arm's speed: machine, version and build, game, player count,
    expansions, rules and the seats' policies with their parameters (not the seat names nor
    their order)."""
    what = {**_machine(), "game": spec.name, "players": arm.players,
            "expansions": list(arm.expansions), "rules": arm.rules,
            # sorted: the calibration plays the seat rotations, so the order is no cost
            "seats": sorted([policy, params] for _, policy, params in arm.seats)}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:24]


def calibrate(spec: Any, arm: runner.ArmPlan, seed: int, rotate: bool = True,
              cpu: float = CALIBRATION_CPU) -> float:
    """CPU seconds a game of ``arm``, measured here: games ``0, 1, …`` of root ``seed`` (as
    the run plays them) until ``cpu`` seconds and ``MIN_GAMES`` games, at most
    ``MAX_GAMES``."""
    config, policies, _ = runner.arm_setup(spec, arm)
    start, n = time.process_time(), 0
    while n < MIN_GAMES or (time.process_time() - start < cpu and n < MAX_GAMES):
        r = runner.rotation(n, len(policies), rotate)
        spec.play_game(config, policies[r:] + policies[:r], runner.game_seed(seed, n))
        n += 1
    return max(time.process_time() - start, 1e-9) / n


def _cache() -> dict[str, Any]:
    try:
        cache = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return cache if isinstance(cache, dict) else {}


def cached(spec: Any, arm: runner.ArmPlan) -> float | None:
    """The cached CPU seconds a game of ``arm`` (``None``: not measured on this machine and
    version)."""
    entry = _cache().get(arm_key(spec, arm))
    ok = isinstance(entry, dict) and isinstance(entry.get("cpu_per_game"), (int, float)) \
        and entry["cpu_per_game"] > 0
    return float(entry["cpu_per_game"]) if ok else None


def speed(spec: Any, arm: runner.ArmPlan, seed: int, rotate: bool = True,
          cpu: float = CALIBRATION_CPU) -> float:
    """CPU seconds a game of ``arm``: from the cache, else ``calibrate`` for ``cpu`` seconds
    (and cached)."""
    known = cached(spec, arm)
    if known is not None:
        return known
    path, cache, key = cache_file(), _cache(), arm_key(spec, arm)
    cpu = calibrate(spec, arm, seed, rotate, cpu)
    cache[key] = {"cpu_per_game": cpu, "game": spec.name, "measured": time.strftime("%Y-%m-%d")}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(cache, indent=1))
    except OSError:  # no writable cache home: measured again next time
        pass
    return cpu


def _rates(parts: Sequence[Part]) -> list[float]:
    """CPU seconds per game of each part (all its arms); the arms not yet measured share
    ``CALIBRATION_TOTAL`` seconds of calibration."""
    new = {arm_key(p.scenario.spec, arm) for p in parts for arm in p.plans()
           if cached(p.scenario.spec, arm) is None}
    each = min(CALIBRATION_CPU, max(MIN_CPU, CALIBRATION_TOTAL / max(len(new), 1)))
    return [sum(speed(p.scenario.spec, arm, p.scenario.seed, p.scenario.seat_rotation, each)
                for arm in p.plans()) for p in parts]


def load() -> float:
    """The 1-minute load average (0 where the system has none)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0


def capacity(workers: int, cores: int, busy: float) -> float:
    """Cores' worth of CPU that ``workers`` processes get on ``cores`` cores beside a load of
    ``busy`` runnable processes: each gets ``min(1, cores / (busy + workers))`` of a core."""
    return workers * min(1.0, cores / max(busy + workers, 1e-9))


def workers(jobs: int, backend: str = "loky") -> int:
    """Processes that play at once: ``min(jobs, cores)``, 1 for the sequential backend."""
    return 1 if backend == "sequential" else max(1, min(jobs, os.cpu_count() or 1))


def estimate(parts: Sequence[Part], jobs: int, backend: str = "loky",
             budget: float | None = None) -> Estimate:
    """The priced plan of ``parts`` played with ``jobs`` worker processes (``speed`` of each
    arm; see the module docstring for what the wall time assumes)."""
    busy = load()  # before the calibration adds to it
    rates = _rates(parts)
    lines = tuple(Line(p.label, len(p.plans()), p.games, r * p.games)
                  for p, r in zip(parts, rates))
    cpu = sum(line.cpu for line in lines)
    w, cores = workers(jobs, backend), os.cpu_count() or 1
    games = max((p.games for p in parts if p.scales), default=None)
    players = parts[0].scenario.arm_players(parts[0].scenario.arms[0]) if parts else 0
    return Estimate(lines, cpu, cpu / capacity(w, cores, busy), w, jobs, cores, games,
                    players, budget, busy)


def fit(parts: Sequence[Part], budget: float, jobs: int, backend: str = "loky",
        most: int = runner.MAX_CHUNKS * runner.DEFAULT_CHUNK_SIZE) -> int:
    """Games per arm of the scaled parts that fit ``budget`` wall seconds (the fixed parts
    keep theirs), at most ``most``.

    Raises
    ------
    OptionError
        Not even one game per arm fits.
    """
    busy = load()
    rates = _rates(parts)
    w = workers(jobs, backend)
    cap = capacity(w, os.cpu_count() or 1, busy)
    fixed = sum(r * p.games for p, r in zip(parts, rates) if not p.scales)
    per_game = sum(r for p, r in zip(parts, rates) if p.scales)
    # (a rounding hair below a whole game is that game)
    games = math.floor((budget * cap - fixed) / per_game + 1e-9) if per_game > 0 else most
    if games < 1:
        need = (fixed + per_game) / cap
        raise OptionError("time", f"{duration(budget)} is too short: one game per arm takes "
                                  f"about {duration(need)} on {w} worker(s)")
    return min(games, most)


def settle(parts: Sequence[Part], jobs: int, backend: str = "loky",
           most: int = runner.MAX_CHUNKS * runner.DEFAULT_CHUNK_SIZE) -> Estimate | None:
    """What a study does right before it plays ``parts``, in the command's ``mode``: with a
    budget, fit the games (the returned estimate's ``games``: the study plays that many per
    arm of its scaled parts, at most ``most``); with ``plan``, raise ``Planned``; else ``say``
    the estimate.
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
    if m.budget is not None and parts:  # (nothing to play: every run finished earlier)
        games = fit(parts, m.budget, jobs, backend, most)
        parts = [replace(p, games=games) if p.scales else replace(p, games=min(p.games, games))
                 for p in parts]
    est = estimate(parts, jobs, backend, m.budget)
    if m.plan:
        raise Planned(est)
    _MODE.set(None)  # once per command: the runs a study makes inside are in this estimate
    if m.say is not None:
        m.say(est.summary())
    return est
