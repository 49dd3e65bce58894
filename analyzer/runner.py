"""Seeded, chunked, parallel game runs that stream records to Parquet.

Game ``i`` of a run draws only from ``SeedSequence(root_seed, spawn_key=(i,))``, whatever the
chunk size, the number of jobs or the backend; every arm (the base and each variant) replays
game ``i`` from that same seed, so comparisons are paired game by game. A chunk (a range of game
ids, all arms) is the unit of parallel work, of checkpointing (``chunks/games-FIRST-STOP.parquet``
and ``chunks/seats-FIRST-STOP.parquet``; ``resume`` skips the chunks already on disk) and of
progress. Workers only play and return Arrow tables; the parent writes every file, so a remote
dask cluster needs no shared disk.
"""

from __future__ import annotations

import contextvars
import json
import os
import re
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from analyzer import __version__
from analyzer.errors import OptionError, RunInterrupted, TurnCapExceeded, WorkerDied
from analyzer.files import atomic_path
from analyzer.model.base import GameSpec, build_policy
from analyzer.model.flow import KINGMAKING_COLUMNS, ROUND_COLUMNS, Checkpoints, Kingmaking
from analyzer.rundir import engines, prepare_chunks

BACKENDS = ("loky", "sequential", "dask")
DEFAULT_CHUNK_SIZE = 250
WORKER_RETRIES = 2  # times the unfinished chunks are resubmitted after a worker process died
MAX_JOBS = 1024  # worker processes; joblib accepts more than the cores, this stops typos
MAX_CHUNKS = 1_000_000  # chunk files per run (raise --chunk-size for more games)
SCHEDULER_FORM = re.compile(r"(tcp|tls)://[^\s:/]+:\d{1,5}")
DASK_CONNECT_TIMEOUT = "10s"  # how long to wait for a --scheduler before a one-line error
PROGRESS_EVERY = 30.0  # seconds between progress lines when stderr is not a terminal
ID_GAME_COLUMNS = {"game_id": "int64", "seed": "int64", "variant": "string"}
ID_SEAT_COLUMNS = {"game_id": "int64", "variant": "string"}
# per game played: the bit mask of the rule options it consulted (GameSpec.consults; -1: none
# recorded, every option counts as consulted)
CONSULT_COLUMNS = {"game_id": "int64", "variant": "string", "consulted": "int64"}
# the consults file's metadata key naming the options of its bits, in bit order: a copy reads
# a bit only from a file whose options are this engine's (an older run's may lack a newer bit)
CONSULT_OPTIONS = b"options"
# a chunk played (``timed_chunk``): first, stop, games, seats, CPU seconds, checkpoints,
# kingmaking test, consulted options, games copied between arms
Played = tuple[int, int, pa.Table, pa.Table, float, pa.Table | None, pa.Table | None, pa.Table,
               pa.Table]


class GameTurnCap(TurnCapExceeded):
    """A game of a run hit its engine's hard turn cap; names the game index and variant.

    ``str(err)`` is one line: which game of which variant, the engine's message (with the
    seed) and, from the CLI, the ``analyzer replay`` command that shows the game.

    Attributes
    ----------
    game_id : int
        The game index ``I`` (``analyzer replay SCENARIO --game I``).
    variant : str
        The arm (``--variant``).
    """

    def __init__(self, message: str, game_id: int, variant: str):
        super().__init__(message)
        self.game_id = game_id
        self.variant = variant

    def __reduce__(self):  # travels back from loky/dask workers with its attributes
        return type(self), (self.args[0], self.game_id, self.variant)


@dataclass(frozen=True)
class ArmPlan:
    """What one arm plays: plain, picklable data rebuilt into a config in each worker.

    Attributes
    ----------
    name : str
        ``"base"`` or the variant name (the ``variant`` column).
    players : int
    expansions : tuple of str
    rules : str
        The rule options as sorted JSON (hashable, cheap to send).
    seats : tuple of (str, str, str)
        ``(display name, policy name, params as JSON)`` per seat, before rotation.
    replay : int
        ``0``: game ``i`` as every run plays it. ``r >= 1``: game ``i``'s deal (its chance
        stream) with the players drawing from replay ``r``'s streams (``base.game_streams``;
        ``analyzer quality --luck``).
    """

    name: str
    players: int
    expansions: tuple[str, ...]
    rules: str
    seats: tuple[tuple[str, str, str], ...]
    replay: int = 0


def plan_arms(scenario) -> list[ArmPlan]:
    """One ``ArmPlan`` per arm of a validated ``analyzer.scenario.Scenario``."""
    return [
        ArmPlan(a.name, scenario.arm_players(a), scenario.expansions,
                json.dumps(dict(a.rules), sort_keys=True),
                tuple((s.name, s.policy, json.dumps(dict(s.params), sort_keys=True)) for s in a.seats))
        for a in scenario.arms
    ]


def game_seed(root_seed: int, game_id: int) -> np.random.SeedSequence:
    """The seed of game ``game_id``: ``SeedSequence(root_seed, spawn_key=(game_id,))``.

    A fresh object each call: ``SeedSequence.spawn`` is stateful, so arms must not share one.
    """
    return np.random.SeedSequence(root_seed, spawn_key=(game_id,))


def rotation(game_id: int, n_seats: int, rotate: bool = True) -> int:
    """Offset of the seat rotation in game ``game_id``: seat ``s`` plays entry ``(s + r) % n``."""
    return game_id % n_seats if rotate else 0


def plan_chunks(n_games: int, chunk_size: int) -> list[tuple[int, int]]:
    """Half-open game-id ranges ``[(first, stop), ...]`` covering ``0..n_games``.

    ``check_options`` keeps their number at most ``MAX_CHUNKS``."""
    return [(a, min(a + chunk_size, n_games)) for a in range(0, n_games, chunk_size)]


def check_options(jobs: int | None, chunk_size: int, backend: str, scheduler: str | None,
                  n_games: int | None = None) -> int:
    """Validate the run options; returns ``jobs`` with ``None`` replaced by the core count.

    Raises
    ------
    OptionError
        ``jobs`` outside 1..MAX_JOBS, ``chunk_size`` below 1 or more than ``MAX_CHUNKS`` chunks
        of ``n_games``, unknown backend, ``scheduler`` without dask or not ``tcp://HOST:PORT``.
    """
    jobs = (os.cpu_count() or 1) if jobs is None else jobs
    if jobs < 1:
        raise OptionError("jobs", f"must be at least 1 (got {jobs})")
    if jobs > MAX_JOBS:
        raise OptionError("jobs", f"at most {MAX_JOBS} (got {jobs})")
    if chunk_size < 1:
        raise OptionError("chunk_size", f"must be at least 1 (got {chunk_size})")
    if n_games is not None and -(-n_games // chunk_size) > MAX_CHUNKS:
        raise OptionError("chunk_size", f"{n_games} games in chunks of {chunk_size} make more "
                                        f"than {MAX_CHUNKS:,} chunks (allowed: at least "
                                        f"{-(-n_games // MAX_CHUNKS)})")
    if backend not in BACKENDS:
        raise OptionError("backend", f"unknown backend {backend!r} (allowed: {', '.join(BACKENDS)})")
    if scheduler and backend != "dask":
        raise OptionError("scheduler", "only used with {backend}", backend="dask")
    if scheduler and not SCHEDULER_FORM.fullmatch(scheduler):
        raise OptionError("scheduler", f"{scheduler!r} is not an address "
                                       "(allowed: tcp://HOST:PORT or tls://HOST:PORT)")
    return jobs


_CONFIGS: dict[tuple, Any] = {}  # per-process cache: a config is built once per arm, not per chunk


def arm_setup(spec: GameSpec, arm: ArmPlan) -> tuple[Any, list, list[str]]:
    """``(config, policies, seat names)`` of an arm, as a worker plays it (the config built
    once per process and arm)."""
    key = (spec.name, arm.players, arm.expansions, arm.rules)
    if key not in _CONFIGS:
        _CONFIGS[key] = spec.make_config(arm.players, arm.expansions, json.loads(arm.rules))
    policies = [build_policy(spec.policies, p, json.loads(params)) for _, p, params in arm.seats]
    return _CONFIGS[key], policies, [name for name, _, _ in arm.seats]


def play_chunk(spec: GameSpec, arms: Sequence[ArmPlan], root_seed: int, first: int, stop: int,
               rotate: bool = True, rounds: bool = False, kingmaking: int = 0, *,
               skip: Collection[tuple[int, int]] = (), masks: list | None = None,
               links: Sequence[tuple[int, int] | None] = (), copied: list | None = None
               ) -> tuple:
    """Play games ``first..stop-1`` under every arm; a pure function of its arguments.

    ``rounds`` (a game with ``spec.flow``): also record a checkpoint after every round
    (``model.flow``); the games and their records are the same either way. ``kingmaking``
    (with ``rounds``): also test every game for kingmaking with at most this many
    counterfactual games (``flow.kingmaking``; 0: not tested), a sixth table
    (``flow.KINGMAKING_COLUMNS``, one row per game and arm); the records are the same.
    ``skip``: the ``(game id, arm index)`` pairs not to play (no rows for them; ``copy_from``
    fills them in). ``masks``: a list that gets ``(game id, arm name, mask)`` per game played,
    the rule options it consulted (``GameSpec.consults``; -1 when the game records none).
    ``links`` (``arm_links``): per arm, ``(j, bit)`` when it differs from the earlier arm ``j``
    only in the rule option of mask bit ``bit``; game ``i`` of that arm is then not played when
    game ``i`` of arm ``j`` did not consult the option: its records are arm ``j``'s with the
    arm's name (the same game, seed for seed; ``copy_arms``), and ``copied`` (a list) gets
    ``(game id, arm name)``. Without ``kingmaking`` only (its test plays other games).

    Returns
    -------
    (int, int, pyarrow.Table, pyarrow.Table) or, with ``rounds``, and a fifth pyarrow.Table
        ``first``, ``stop``, the game records (one row per game and arm: ``game_id, seed,
        variant`` + ``spec.game_columns``) and the seat records (``game_id, variant`` +
        ``spec.seat_columns``), each in id order, arms in scenario order; with ``rounds`` the
        checkpoints (``flow.ROUND_COLUMNS``: one row per game, arm, round and seat; no row for
        a game without ``flow``).
    """
    gcols = {**ID_GAME_COLUMNS, **spec.game_columns}
    scols = {**ID_SEAT_COLUMNS, **spec.seat_columns}
    grows: dict[str, list] = {c: [] for c in gcols}
    srows: dict[str, list] = {c: [] for c in scols}
    setups = [arm_setup(spec, arm) for arm in arms]
    record = rounds and spec.flow is not None
    testing = record and kingmaking > 0
    rrows: dict[str, list] = {c: [] for c in ROUND_COLUMNS}
    krows: dict[str, list] = {c: [] for c in KINGMAKING_COLUMNS}
    skipped = set(skip)
    links = tuple(links) if kingmaking <= 0 else ()
    for i in range(first, stop):
        made: dict[int, tuple] = {}  # arm -> (its rows of game i: start, end; its mask)
        for k, (arm, (config, policies, names)) in enumerate(zip(arms, setups)):
            if (i, k) in skipped:
                continue
            link = links[k] if k < len(links) else None
            if link is not None and link[0] in made and made[link[0]][2] >= 0 \
                    and not made[link[0]][2] & link[1]:
                made[k] = _copy_game(made[link[0]], arm.name, grows, srows, rrows)
                if masks is not None:
                    masks.append((i, arm.name, made[k][2]))
                if copied is not None:
                    copied.append((i, arm.name))
                continue
            row = _ends(grows, srows, rrows)
            r = rotation(i, len(policies), rotate)
            pols = policies[r:] + policies[:r]
            marks = Checkpoints(spec.flow) if record else None
            trial = Kingmaking(kingmaking) if testing else None
            extra = {"replay": arm.replay} if arm.replay else {}
            if marks is not None:  # only then: a game without ``flow`` takes no checkpoints
                extra["checkpoints"] = marks
            if trial is not None:
                extra["kingmaking_test"] = trial
            reads = getattr(config, "reads", None) if spec.consults else None
            if reads is not None:
                reads[0] = 0
            try:
                game, seats = spec.play_game(config, pols, game_seed(root_seed, i), **extra)
            except TurnCapExceeded as err:
                raise GameTurnCap(f"game {i} of variant {arm.name!r} (root seed {root_seed}) did "
                                  f"not end: {err}", i, arm.name) from None
            mask = -1 if reads is None else int(reads[0])
            if masks is not None:
                masks.append((i, arm.name, mask))
            _check_keys(spec, game, spec.game_columns, "game")
            game = {**game, "game_id": i, "seed": root_seed, "variant": arm.name}
            for c in gcols:
                grows[c].append(game[c])
            for rec in seats:
                _check_keys(spec, rec, spec.seat_columns, "seat")
                rec = {**rec, "game_id": i, "variant": arm.name,
                       "policy": names[(rec["seat"] + r) % len(names)]}
                for c in scols:
                    srows[c].append(rec[c])
            if marks is not None:
                _add_rounds(rrows, marks, i, arm.name)
            made[k] = (row, _ends(grows, srows, rrows), mask)
            if trial is not None:
                for c, v in (("game_id", i), ("variant", arm.name), ("kingmade", trial.kingmade),
                             ("playouts", trial.playouts), ("candidates", trial.candidates),
                             ("cpu_seconds", trial.cpu_seconds)):
                    krows[c].append(v)
    out = (first, stop, _table(grows, gcols), _table(srows, scols))
    if not rounds:
        return out
    out = (*out, _table(rrows, ROUND_COLUMNS))
    return (*out, _table(krows, KINGMAKING_COLUMNS)) if kingmaking > 0 else out


def _ends(*tables: dict[str, list]) -> tuple[int, ...]:
    """The row count of each table of ``play_chunk`` (its columns are equally long)."""
    return tuple(len(t["game_id"]) for t in tables)


def _copy_game(source: tuple, name: str, *tables: dict[str, list]) -> tuple:
    """Append a copy of one game's rows (``source``: ``(starts, ends, mask)`` in ``tables``)
    under arm ``name``; returns the copy's ``(starts, ends, mask)``."""
    (starts, ends, mask), begin = source, _ends(*tables)
    for table, a, b in zip(tables, starts, ends):
        for c, values in table.items():
            values.extend([name] * (b - a) if c == "variant" else values[a:b])
    return begin, _ends(*tables), mask


def _add_rounds(rows: dict[str, list], marks: Checkpoints, game_id: int, arm: str) -> None:
    """Append the checkpoints of one game to the ``rounds`` columns."""
    for round_no, scores, est, out in marks.rows:
        for seat, values in enumerate(zip(scores, est, out)):
            for c, v in zip(ROUND_COLUMNS, (game_id, arm, round_no, seat, *values)):
                rows[c].append(v)


def timed_chunk(spec: GameSpec, arms: Sequence[ArmPlan], root_seed: int, first: int, stop: int,
                rotate: bool = True, rounds: bool = False, kingmaking: int = 0,
                skip: Collection[tuple[int, int]] = (),
                links: Sequence[tuple[int, int] | None] = ()) -> Played:
    """``play_chunk`` and the CPU seconds it took in the process that played it (the actual
    cost a run reports against its estimate, ``analyzer.plan``), then the checkpoints table
    (``None`` without ``rounds``), the kingmaking table (``None`` without ``kingmaking``),
    the consulted options of each game (``CONSULT_COLUMNS``) and the games copied from
    another arm (``links``; ``game_id, variant``)."""
    start = time.process_time()
    masks: list = []
    copied: list = []
    out = play_chunk(spec, arms, root_seed, first, stop, rotate, rounds, kingmaking, skip=skip,
                     masks=masks, links=links, copied=copied)
    consulted = _table({c: [m[k] for m in masks] for k, c in enumerate(CONSULT_COLUMNS)},
                       CONSULT_COLUMNS).replace_schema_metadata(
        {CONSULT_OPTIONS: json.dumps(list(spec.consults))})
    copies = _table({c: [m[k] for m in copied] for k, c in enumerate(ID_SEAT_COLUMNS)},
                    ID_SEAT_COLUMNS)
    return (*out[:4], time.process_time() - start, out[4] if rounds else None,
            out[5] if len(out) > 5 else None, consulted, copies)


_SPENT = [0.0]  # CPU seconds of every chunk played in this process's runs (``cpu_spent``)


def cpu_spent() -> float:
    """CPU seconds of play (the chunks' ``timed_chunk`` seconds, all processes) of every
    ``run`` made in this process so far: a study's actual against its estimate
    (``analyzer.plan``)."""
    return _SPENT[0]


def _check_keys(spec: GameSpec, record: dict, declared, kind: str) -> None:
    if record.keys() != declared.keys():
        extra = sorted(set(record) - set(declared))
        missing = sorted(set(declared) - set(record))
        raise RuntimeError(f"{spec.name}: {kind} record keys differ from the declared columns "
                           f"(extra {extra}, missing {missing})")


def _table(rows: dict[str, list], columns: dict[str, str]) -> pa.Table:
    return pa.table({c: pa.array(rows[c], type=pa.type_for_alias(t)) for c, t in columns.items()})


def part_path(chunk_dir: Path, kind: str, first: int, stop: int) -> Path:
    """The ``kind`` part of chunk ``first..stop-1``: ``KIND-FIRST-STOP.parquet``. Its records
    ``games`` and ``seats``; with ``rounds`` its checkpoints ``rounds`` and with
    ``kingmaking`` its test ``kingmaking``; ``consults``, the consulted rule options of its
    games (``CONSULT_COLUMNS``, not a record); ``copied``, the games copied rather than
    played (``copy_from``, ``copy_arms``: ``game_id, variant``; absent when none was)."""
    return chunk_dir / f"{kind}-{first:09d}-{stop:09d}.parquet"


def write_parquet_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` atomically (``analyzer.files.atomic_path``)."""
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


@dataclass
class RunResult:
    """What ``run`` did: the chunk files of the run (in id order) and how many were resumed."""

    chunk_dir: Path
    chunks: list[tuple[int, int]]
    resumed: int
    seconds: float
    games_played: int
    cpu_seconds: float = 0.0  # CPU time of playing, summed over the processes that played
    rounds: bool = False  # the chunks have checkpoints (``part_path``)
    kingmaking: int = 0  # counterfactual games per game of the kingmaking test (0: none)
    copied: dict[str, int] | None = None  # arm -> games copied, not played (``copy_arms``)

    def parts(self, kind: str) -> list[Path]:
        """The ``"games"``, ``"seats"``, ``"rounds"`` or ``"kingmaking"`` Parquet parts of the
        run, in game-id order (``"rounds"``, ``"kingmaking"``: none when the run recorded no
        checkpoints, no kingmaking test)."""
        on = {"rounds": self.rounds, "kingmaking": self.rounds and self.kingmaking > 0}
        return [part_path(self.chunk_dir, kind, a, b) for a, b in self.chunks
                if on.get(kind, True)]


def run(spec: GameSpec, arms: Sequence[ArmPlan], root_seed: int, n_games: int, chunk_dir: Path, *,
        rotate: bool = True, jobs: int | None = None, backend: str = "loky",
        scheduler: str | None = None, chunk_size: int = DEFAULT_CHUNK_SIZE, resume: bool = False,
        fingerprint: dict | None = None, progress: bool = False,
        clock: Callable[[], float] = time.monotonic, rounds: bool = False,
        kingmaking: int = 0) -> RunResult:
    """Play ``n_games`` games under each arm and write one Parquet pair per chunk.

    Parameters
    ----------
    spec : GameSpec
    arms : sequence of ArmPlan
        The base first, then the variants; all play the same game seeds.
    root_seed : int
        ``0 <= root_seed < 2**63``.
    n_games : int
        Games per arm, ``>= 1``.
    chunk_dir : Path
        Where the parts go (created; emptied unless ``resume``).
    rotate : bool
        Seat rotation (``i mod n``).
    jobs : int, optional
        Worker processes, ``>= 1``; default all cores.
    backend : {"loky", "sequential", "dask"}
        joblib backend. ``"dask"`` connects to ``scheduler`` (``tcp://HOST:PORT``) or starts a
        local cluster of ``jobs`` workers.
    chunk_size : int
        Games per chunk, ``>= 1``. Does not change any record.
    resume : bool
        Keep the chunks already in ``chunk_dir`` (same fingerprint) and play only the rest; a
        chunk that cannot be read (cut short, damaged) is played again, said in one line on
        stderr.
    progress : bool
        Show progress on stderr: a rich bar (games done, games/s, ETA) on a terminal, else a
        line every ``PROGRESS_EVERY`` seconds (``ProgressLines``).
    clock : callable
        Time source in seconds, injectable for tests.
    rounds, kingmaking : bool, int
        As for ``play_chunk``: checkpoints after every round, a kingmaking test, each written
        beside the chunk (``part_path``); a resume keeps only chunks that have them.

    Returns
    -------
    RunResult

    Raises
    ------
    OptionError
        Bad ``jobs``, ``chunk_size``, ``backend``; resume into a different run.
    RunInterrupted
        Ctrl-C; says how many chunks are saved and how to resume.
    WorkerDied
        Worker processes died ``WORKER_RETRIES + 1`` times in a row (each time the unfinished
        chunks are resubmitted); the finished chunks are saved.
    GameTurnCap
        A game hit its engine's hard turn cap (names the game index, variant and seed).
    """
    jobs = check_options(jobs, chunk_size, backend, scheduler, n_games)
    start = clock()
    fingerprint = dict(fingerprint or {})
    fingerprint.setdefault("seed", root_seed)
    fingerprint.setdefault("version", __version__)
    fingerprint.setdefault("engine", engines())  # a resume never mixes games of other rules
    fingerprint["chunk_size"] = chunk_size  # chunk files are named by their game-id ranges
    rounds = rounds and spec.flow is not None
    if rounds:  # only then: a run without checkpoints keeps the fingerprint it always had
        fingerprint["rounds"] = True
    kingmaking = kingmaking if rounds else 0
    if kingmaking:
        fingerprint["kingmaking"] = kingmaking
    with ExitStack() as stack:
        if backend == "dask":  # connect first: a bad --scheduler writes nothing
            _start_dask(stack, scheduler, jobs)
            from joblib import parallel_config

            stack.enter_context(parallel_config(backend="dask"))
        prepare_chunks(chunk_dir, fingerprint, resume)
        chunks = plan_chunks(n_games, chunk_size)
        todo = [c for c in chunks
                if not (resume and _chunk_saved(chunk_dir, *c, n_arms=len(arms),
                                                rounds=rounds, kingmaking=kingmaking > 0))]
        resumed = saved = len(chunks) - len(todo)
        played = sum(b - a for a, b in todo)
        cpu_seconds = 0.0
        bar = stack.enter_context(_progress(progress, n_games * len(arms),
                                            (n_games - played) * len(arms), clock))
        pending = list(todo)
        source = None if kingmaking > 0 else _copy_source(spec, arms, root_seed, rounds)
        skips = {c: source.skip(*c) if source is not None else () for c in todo}
        links = arm_links(spec, arms) if _ARMS.get() and kingmaking <= 0 else ()
        for attempt in range(WORKER_RETRIES + 1):
            try:
                with _quiet_cancel():
                    for first, stop, games, seats, cpu, marks, tested, consulted, copies in (
                            _execute(spec, arms, root_seed, pending, rotate, jobs, backend,
                                     rounds, kingmaking, skips, links)):
                        cpu_seconds += cpu
                        _SPENT[0] += cpu
                        copied = copies if copies.num_rows else None
                        if source is not None and skips[(first, stop)]:
                            games, seats, marks, consulted, taken = source.fill(
                                skips[(first, stop)], games, seats, marks, consulted)
                            copied = pa.concat_tables([taken, copies])
                        # games last: both ⇒ chunk complete
                        for kind, table in (("kingmaking", tested), ("copied", copied),
                                            ("consults", consulted), ("rounds", marks),
                                            ("seats", seats), ("games", games)):
                            path = part_path(chunk_dir, kind, first, stop)
                            if table is not None:
                                write_parquet_atomic(table, path)
                            elif kind == "copied":  # an earlier run's list would be wrong
                                path.unlink(missing_ok=True)
                        saved += 1
                        bar((stop - first) * len(arms))
                break
            except KeyboardInterrupt:  # Ctrl-C, or SIGTERM through the CLI's handler
                stop_workers()
                raise RunInterrupted("interrupted",
                                     _saved(saved, len(chunks), chunk_dir)) from None
            except Exception as err:
                if not _worker_death(err):
                    raise
                # The finished chunks are on disk; resubmit only the others.
                pending = [c for c in pending
                           if not part_path(chunk_dir, "games", *c).exists()]
                if attempt == WORKER_RETRIES:
                    raise WorkerDied(
                        f"a worker process died {WORKER_RETRIES + 1} times "
                        f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})",
                        _saved(saved, len(chunks), chunk_dir)) from None
    return RunResult(chunk_dir, chunks, resumed, clock() - start, played, cpu_seconds, rounds,
                     kingmaking, copied_games(chunk_dir, chunks) if _ARMS.get() else None)


def _chunk_saved(chunk_dir: Path, first: int, stop: int, n_arms: int, rounds: bool = False,
                 kingmaking: bool = False) -> bool:
    """Whether the chunk ``first..stop-1`` is on disk whole, so a resume keeps it.

    Both parts must exist and read as Parquet (a file cut short by a full disk or a copy, or
    damaged otherwise, does not), the games part with one row per game and arm, and both
    hold only the games ``first..stop-1`` (not another chunk's file under this name). A part that
    exists but cannot be read is said in one line on stderr; the chunk is played again (its
    records are a pure function of the seed, so the replay writes the same rows).
    """
    kinds = ["games", "seats"] + ["rounds"] * rounds + ["kingmaking"] * (rounds and kingmaking)
    parts = [part_path(chunk_dir, kind, first, stop) for kind in kinds]
    if not all(p.exists() for p in parts):
        return False
    for part in parts:
        try:
            table = pq.read_table(part)
        except (OSError, pa.ArrowException) as err:
            problem = " ".join(str(err).split()) or type(err).__name__
            break
        rows = table.num_rows
        if part == parts[0] and rows != (stop - first) * n_arms:
            problem = f"{rows} game records, expected {(stop - first) * n_arms}"
            break
        # A file of another chunk under this chunk's name (a copy or a move gone wrong)
        # reads fine but holds other games: keeping it would duplicate them.
        span = pc.min_max(table.column("game_id"))
        low, high = span["min"].as_py(), span["max"].as_py()
        if rows and not (low is not None and first <= low and high < stop):
            problem = f"holds games {low}..{high}, not {first}..{stop - 1}"
            break
    else:
        return True
    print(f"analyzer: {part} cannot be read ({problem[:200]}); playing games {first}..{stop - 1} "
          "again", file=sys.stderr, flush=True)
    return False


@contextmanager
def _quiet_cancel() -> Iterator[None]:
    """While chunks are played: joblib's warning that a stop (an interrupt, a full disk)
    cancelled or left unused the queued chunks (a UserWarning on stderr) is not shown; the
    stop's one line says what is saved."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"\d+ tasks (which were still being "
                                                  r"processed|have been successfully executed)",
                                category=UserWarning)
        yield


def _saved(saved: int, total: int, chunk_dir: Path) -> str:
    return f"{saved} of {total} chunks saved in {chunk_dir}"


def stop_workers() -> None:
    """Stop the idle loky worker processes at once (they would linger for minutes, holding
    the output pipes, when only the parent got the signal)."""
    from joblib.externals.loky import reusable_executor

    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=False, kill_workers=True)


def _worker_death(err: BaseException) -> bool:
    """Whether ``err`` says a worker process died (loky) or was lost (dask), not a game bug."""
    from joblib.externals.loky.process_executor import BrokenProcessPool

    # KilledWorker: dask.distributed's, imported only with dask
    return isinstance(err, BrokenProcessPool) or type(err).__name__ == "KilledWorker"


def _execute(spec, arms, root_seed, todo, rotate, jobs, backend, rounds: bool, kingmaking: int,
             skips: dict, links: Sequence[tuple[int, int] | None]) -> Iterator[Played]:
    """Chunk results as they finish (any order), each with its CPU seconds, checkpoints,
    kingmaking test, consulted options and games copied between arms (``timed_chunk``);
    ``skips``: chunk -> the games not to play in it; ``links``: ``arm_links``. A dask run
    is connected (``_start_dask``) before."""
    arms = list(arms)
    local_serial = backend == "loky" and (jobs == 1 or len(todo) <= 1)
    if backend == "sequential" or local_serial:
        for first, stop in todo:
            yield timed_chunk(spec, arms, root_seed, first, stop, rotate, rounds, kingmaking,
                              skips.get((first, stop), ()), links)
        return
    from joblib import Parallel, delayed

    if backend == "dask":
        parallel = Parallel(return_as="generator_unordered")
    else:
        parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered",
                            pre_dispatch="2*n_jobs")
    yield from parallel(delayed(timed_chunk)(spec, arms, root_seed, a, b, rotate, rounds,
                                             kingmaking, skips.get((a, b), ()), links)
                        for a, b in todo)


# ------------------------------------------------------------------ copy-on-consult

_COPY: contextvars.ContextVar[tuple[Path, str] | None] = contextvars.ContextVar(
    "analyzer_copy_from", default=None)


@contextmanager
def within(var: contextvars.ContextVar, value: Any) -> Iterator[Any]:
    """A block inside which ``var`` (a setting of the runs made there) is ``value``."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


def copy_from(run_dir: Path, option: str) -> AbstractContextManager:
    """Within this block, ``run`` copies from the finished run in ``run_dir`` every game that
    did not consult rule option ``option`` there instead of playing it.

    The caller promises that the runs it makes here differ from that run in the value of
    ``option`` only (same game, seed, arms by name, seats and rotation). A game that never
    read ``option`` (its mask in ``run_dir/chunks/consults-*.parquet`` lacks the option's bit,
    ``GameSpec.consults``) is the same game under any value of it, seed for seed, so its
    records there are its records here. A game without a mask (a chunk of an older run, or
    one whose masks name other options than this engine's: ``CONSULT_OPTIONS``), an option
    the game does not record, or a run whose seed or checkpoints differ from the source's is
    played. The copied games of each chunk are listed in ``part_path`` ``"copied"``; the
    records do not say it (they equal a full replay's).
    """
    return within(_COPY, (Path(run_dir), option))


class _Source:
    """The games a run copies from a finished run (``copy_from``) and their records."""

    def __init__(self, games: pa.Table, seats: pa.Table, rounds: pa.Table | None,
                 consulted: pa.Table, free: set[tuple[int, str]], order: dict[str, int]):
        self.games, self.seats, self.rounds, self.consulted = games, seats, rounds, consulted
        self.free, self.order = free, order

    def skip(self, first: int, stop: int) -> tuple[tuple[int, int], ...]:
        """The ``(game id, arm index)`` pairs of chunk ``first..stop-1`` to copy."""
        return tuple((i, k) for i in range(first, stop) for name, k in self.order.items()
                     if (i, name) in self.free)

    def _merge(self, played: pa.Table, pairs: set[tuple[int, str]], source: pa.Table) -> pa.Table:
        """``played`` with the rows of ``pairs`` from ``source``, in the order ``play_chunk``
        writes them: by game id, then arm, each game's rows in their own order."""
        keys = zip(source.column("game_id").to_pylist(), source.column("variant").to_pylist())
        keep = pa.array([j for j, key in enumerate(keys) if key in pairs], type=pa.int64())
        copies = source.take(keep).select(played.column_names).cast(played.schema)
        both = pa.concat_tables([played, copies])
        gid = np.asarray(both.column("game_id").to_pylist(), dtype=np.int64)
        arm = np.asarray([self.order[v] for v in both.column("variant").to_pylist()],
                         dtype=np.int64)
        order = np.lexsort((arm, gid))  # stable: a game's rows keep their order
        return both.take(pa.array(order, type=pa.int64())).combine_chunks()

    def fill(self, skip: Sequence[tuple[int, int]], games: pa.Table, seats: pa.Table,
             marks: pa.Table | None, consulted: pa.Table
             ) -> tuple[pa.Table, pa.Table, pa.Table | None, pa.Table, pa.Table]:
        """A chunk's tables with its skipped games (``skip``'s pairs, by game id, then arm)
        copied in, and the list of those games in that order."""
        names = {k: name for name, k in self.order.items()}
        pairs = {(i, names[k]) for i, k in skip}
        games = self._merge(games, pairs, self.games)
        seats = self._merge(seats, pairs, self.seats)
        if marks is not None and self.rounds is not None:
            marks = self._merge(marks, pairs, self.rounds)
        consulted = self._merge(consulted, pairs, self.consulted)
        copied = _table({"game_id": [i for i, _ in skip], "variant": [names[k] for _, k in skip]},
                        ID_SEAT_COLUMNS)
        return games, seats, marks, consulted, copied


def _copy_source(spec: GameSpec, arms: Sequence[ArmPlan], root_seed: int, rounds: bool
                 ) -> _Source | None:
    """The source ``copy_from`` set, read for a run of ``arms`` at ``root_seed``; ``None``
    when nothing can be copied (no source, an option not recorded, another seed, checkpoints
    the source lacks, unreadable files)."""
    given = _COPY.get()
    if given is None:
        return None
    folder, option = given
    bit = spec.consult_bit(option)
    if not bit:
        return None
    try:
        parts = sorted((folder / "chunks").glob("consults-*.parquet"))
        if not parts:
            return None
        tracked = json.dumps(list(spec.consults)).encode()
        kept = [t for t in map(pq.read_table, parts)
                if (t.schema.metadata or {}).get(CONSULT_OPTIONS) == tracked]
        if not kept:
            return None
        consulted = pa.concat_tables(kept)
        games = pq.read_table(folder / "games.parquet")
        seats = pq.read_table(folder / "seats.parquet")
        marks = pq.read_table(folder / "rounds.parquet") if rounds else None
    except (OSError, pa.ArrowException):
        return None
    seeds = set(games.column("seed").to_pylist())
    if seeds != {root_seed}:
        return None
    order = {a.name: k for k, a in enumerate(arms)}
    recorded = set(zip(games.column("game_id").to_pylist(), games.column("variant").to_pylist()))
    free = {(i, v) for i, v, m in zip(consulted.column("game_id").to_pylist(),
                                      consulted.column("variant").to_pylist(),
                                      consulted.column("consulted").to_pylist())
            if m is not None and m >= 0 and not m & bit and v in order and (i, v) in recorded}
    return _Source(games, seats, marks, consulted, free, order)


_ARMS: contextvars.ContextVar[bool] = contextvars.ContextVar("analyzer_copy_arms",
                                                             default=False)


def copy_arms() -> AbstractContextManager:
    """Within this block, ``run`` copies game ``i`` of an arm linked to an earlier arm
    (``arm_links``) from that arm's game ``i`` when that game did not consult the option
    (``play_chunk``'s ``links``) instead of playing it; their count per arm is in
    ``RunResult.copied``. Not with a kingmaking test (a run with one plays every game)."""
    return within(_ARMS, True)


def arm_links(spec: GameSpec, arms: Sequence[ArmPlan]) -> tuple[tuple[int, int] | None, ...]:
    """Per arm, ``(j, bit)``: the first earlier arm ``j`` that differs from it only in the
    value of one rule option whose reads the game records (``GameSpec.consult_bit``: ``bit``),
    or ``None``.

    "Only" means the same player count, expansions, seats (names, policies, parameters) and
    replay, and rule options equal but for that one (an option set in one arm and left to its
    default in the other counts as differing). Two differences, or one in an option whose
    reads the game does not record, give ``None``: that arm plays every game.
    """
    rules = [json.loads(a.rules) for a in arms]
    out: list[tuple[int, int] | None] = []
    for k, arm in enumerate(arms):
        link = None
        for j in range(k):
            other = arms[j]
            if (other.players, other.expansions, other.seats, other.replay) != (
                    arm.players, arm.expansions, arm.seats, arm.replay):
                continue
            keys = set(rules[j]) | set(rules[k])
            differ = [o for o in sorted(keys) if o not in rules[j] or o not in rules[k]
                      or json.dumps(rules[j][o]) != json.dumps(rules[k][o])]
            if len(differ) == 1 and spec.consult_bit(differ[0]):
                link = (j, spec.consult_bit(differ[0]))
                break
        out.append(link)
    return tuple(out)


def copied_games(chunk_dir: Path, chunks: Sequence[tuple[int, int]]) -> dict[str, int]:
    """Arm name -> the games of ``chunks`` copied rather than played (``part_path`` ``"copied"``: from
    another run, ``copy_from``, or from another arm, ``copy_arms``); an arm with none is not
    listed."""
    counts: Counter[str] = Counter()
    for first, stop in chunks:
        path = part_path(chunk_dir, "copied", first, stop)
        if path.exists():
            counts.update(pq.read_table(path, columns=["variant"]).column("variant").to_pylist())
    return dict(counts)


def _start_dask(stack: ExitStack, scheduler: str | None, jobs: int) -> None:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise OptionError("backend", "dask: dask.distributed is not installed "
                                     "(pip install 'analyzer[dask]')") from None
    try:
        if scheduler:
            stack.enter_context(Client(scheduler, timeout=DASK_CONNECT_TIMEOUT))
        else:
            cluster = stack.enter_context(LocalCluster(n_workers=jobs, threads_per_worker=1,
                                                       processes=True, host="127.0.0.1",
                                                       dashboard_address=None))
            stack.enter_context(Client(cluster))
    except (OSError, TimeoutError) as err:
        raise OptionError("scheduler", f"cannot connect to {scheduler!r} ({err})") from None


class ProgressLines:
    """Progress as plain lines, for a stderr that is not a terminal (a log file, CI).

    At most one line per ``every`` seconds of ``clock`` (``tick``, called by ``_progress``'s
    timer about once a second, and after each chunk): games done of the total, games/s since
    the start (``speed``) and the time left at that rate, e.g. ``progress: 1,250/10,000 games
    (12.5 %), 310 games/s, about 28 s left``.

    Parameters
    ----------
    total, done : int
        Games of the run (every arm) and games already done (resumed chunks).
    clock : callable
        Time source in seconds (injectable for tests, as ``rich.progress.Progress``'s).
    write : callable
        Gets each line.
    every : float
        Seconds between lines.
    """

    def __init__(self, total: int, done: int, clock: Callable[[], float],
                 write: Callable[[str], None], every: float = PROGRESS_EVERY):
        self.total, self.done, self.clock, self.write, self.every = total, done, clock, write, every
        self.start = self.last = clock()
        self.new = 0
        self.lock = threading.Lock()

    def __call__(self, n: int) -> None:
        """``n`` more games done."""
        with self.lock:
            self.done += n
            self.new += n
        self.tick()

    def tick(self) -> None:
        """Write a line if ``every`` seconds passed since the last one."""
        now = self.clock()
        with self.lock:
            if now - self.last < self.every:
                return
            self.last = now
            line = self.line(now)
        self.write(line)

    def line(self, now: float) -> str:
        """The progress line at time ``now``."""
        elapsed = max(now - self.start, 1e-9)
        rate = self.new / elapsed
        left = (f"about {duration((self.total - self.done) / rate)} left" if rate > 0
                else "time left unknown yet")
        share = 100 * self.done / self.total if self.total else 100.0
        return (f"progress: {self.done:,}/{self.total:,} games ({share:.1f} %), "
                f"{speed(rate)}, {left}")


def speed(rate: float) -> str:
    """A play rate of ``rate`` games a second in words: ``"310 games/s"``, ``"4.5 games/s"``
    (a decimal under 10), ``"2.5 s/game"`` under one game a second (a search player),
    ``"no game done yet"`` at 0."""
    if rate <= 0:
        return "no game done yet"
    if rate < 1:
        return f"{_figure(1 / rate)} s/game"
    return f"{_figure(rate)} games/s"


def _figure(x: float) -> str:
    return f"{x:.1f}" if x < 10 else f"{x:,.0f}"


def duration(seconds: float) -> str:
    """``"0.043 s"``, ``"2.5 s"``, ``"12 s"``, ``"4 min 10 s"``, ``"2 h 05 min"``: a time
    as the progress line, the plan and the reports say it."""
    if seconds < 1:  # a small run: two digits, not "0.0 s"
        return f"{seconds:.2g} s"
    if seconds < 10:
        return f"{seconds:.1f} s"
    s = round(seconds)
    if s < 3600:
        return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


@contextmanager
def _progress(show: bool, total: int, done: int, clock: Callable[[], float]):
    """A callable ``advance(n_games)``: a rich bar on stderr when ``show`` and stderr is a
    terminal; else, when ``show``, ``ProgressLines`` on stderr."""
    if not show:
        yield lambda n: None
        return
    from rich import progress as rp
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        lines = ProgressLines(total, done, clock,
                              lambda text: print(text, file=sys.stderr, flush=True),
                              every=PROGRESS_EVERY)
        stop = threading.Event()

        def timer() -> None:
            while not stop.wait(1.0):
                lines.tick()

        thread = threading.Thread(target=timer, name="analyzer-progress", daemon=True)
        thread.start()
        try:
            yield lines
        finally:
            stop.set()
            thread.join()
        return
    t0 = clock()
    rate = rp.TextColumn("{task.fields[speed]:>16}")
    with rp.Progress(rp.TextColumn("games"), rp.BarColumn(), rp.MofNCompleteColumn(), rate,
                     rp.TimeElapsedColumn(), rp.TextColumn("ETA"), rp.TimeRemainingColumn(),
                     console=console, get_time=clock, transient=False) as prog:
        task = prog.add_task("games", total=total, completed=done, speed=speed(0.0))
        new = [0]

        def advance(n: int) -> None:
            new[0] += n
            elapsed = max(clock() - t0, 1e-9)
            prog.update(task, advance=n, speed=speed(new[0] / elapsed))

        yield advance


CSV_BATCH_ROWS = 65536  # rows converted at a time by write_csv


def write_csv(source: Path, target: Path) -> int:
    """The Parquet record file ``source`` (``games.parquet``, ``seats.parquet``) as CSV.

    A header row of the column names, then one line per record, in file order (pyarrow's CSV
    writer: comma-separated, strings quoted, no index column). Converted batch by batch, so the
    memory stays flat in the number of games; written atomically (``atomic_path``).

    Returns
    -------
    int
        Rows written (without the header).
    """
    import pyarrow.csv as pa_csv

    file = pq.ParquetFile(source)
    rows = 0
    with atomic_path(target) as tmp, pa_csv.CSVWriter(tmp, file.schema_arrow) as writer:
        for batch in file.iter_batches(CSV_BATCH_ROWS, use_threads=False):
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows


def aggregate(parts: Sequence[Path], target: Path) -> int:
    """Concatenate Parquet ``parts`` into ``target`` one part at a time (flat memory).

    Returns
    -------
    int
        Rows written.
    """
    rows, writer = 0, None
    with atomic_path(target) as tmp, ExitStack() as stack:  # the writer closed before the rename
        for part in parts:
            table = pq.read_table(part)
            if writer is None:
                writer = stack.enter_context(pq.ParquetWriter(tmp, table.schema))
            writer.write_table(table)
            rows += table.num_rows
    return rows
