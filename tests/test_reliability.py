"""Faults: SIGKILL then --resume, Ctrl-C (SIGINT) of a loky run, a worker process that dies,
the hard turn cap, resume refusal and atomic report files."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import faultgame
import pandas as pd
import pytest
from typer.testing import CliRunner

from analyzer import api
from analyzer.cli import app
from analyzer.games import register_game

register_game(faultgame.SPEC)
cli = CliRunner()
ROOT = Path(__file__).resolve().parents[1]

RATTUS = """\
name = "kill-test"
game = "rattus"
expansions = ["africanus"]
players = 4
games = 400
seed = 11
[rules]
class_cards = ["knight", "monk", "witch", "king", "sultan", "trader"]
[[seats]]
policy = "random"
"""


def _one_line(res, code: int = 2) -> str:
    assert res.exit_code == code, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.output
    return lines[0]


def _start(args: list[str]) -> subprocess.Popen:
    """``analyzer ARGS`` in a child process (the installed package, as a user runs it)."""
    return subprocess.Popen([sys.executable, "-m", "analyzer", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_chunks(proc: subprocess.Popen, chunk_dir: Path, n: int, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while len(list(chunk_dir.glob("games-*.parquet"))) < n:
        assert proc.poll() is None, f"run ended before {n} chunks: {proc.communicate()}"
        assert time.monotonic() < end, "no chunks appeared"
        time.sleep(0.01)


@pytest.fixture(scope="module")
def rattus_ref(tmp_path_factory):
    """The scenario file and an uninterrupted run of it (--jobs 1, 20-game chunks)."""
    base = tmp_path_factory.mktemp("kill")
    path = base / "kill.toml"
    path.write_text(RATTUS)
    ref = base / "ref"
    api.simulate(path, jobs=1, chunk_size=10, out=ref)
    return path, ref


def _same_aggregates(a: Path, b: Path) -> None:
    for name in ("games.parquet", "seats.parquet"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_sigkill_then_resume_recomputes_only_unfinished_chunks(rattus_ref, tmp_path):
    """SIGKILL mid-run; --resume keeps every saved chunk file untouched, plays the rest, and the
    aggregated games/seats Parquet files are byte-identical to an uninterrupted run's."""
    path, ref = rattus_ref
    out = tmp_path / "cut"
    proc = _start(["simulate", str(path), "--jobs", "1", "--chunk-size", "10", "--out", str(out),
                   "--quiet"])
    _wait_for_chunks(proc, out / "chunks", 4)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "games.parquet").exists()
    saved = {p: p.stat().st_mtime_ns for p in (out / "chunks").glob("games-*.parquet")}
    assert 4 <= len(saved) < 60
    res = cli.invoke(app, ["simulate", str(path), "--jobs", "1", "--chunk-size", "10", "--out",
                           str(out), "--quiet", "--resume"])
    assert res.exit_code == 0, res.output
    assert f"({len(saved)} chunk(s) resumed)" in res.stdout
    for p, mtime in saved.items():
        assert p.stat().st_mtime_ns == mtime, f"{p.name} was recomputed"
    assert not list((out / "chunks").glob(".*.tmp*"))
    _same_aggregates(out, ref)


def test_sigint_stops_a_loky_run_cleanly_and_the_printed_command_resumes(rattus_ref, tmp_path):
    """Ctrl-C (SIGINT) of a 2-worker loky run: exit 130, one line with the saved chunk count
    and the resume command; running that command finishes the run, equal to uninterrupted."""
    path, ref = rattus_ref
    out = tmp_path / "cut"
    proc = _start(["simulate", str(path), "--jobs", "2", "--chunk-size", "10", "--out", str(out),
                   "--quiet"])
    _wait_for_chunks(proc, out / "chunks", 2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    line = err.strip().splitlines()[-1]
    assert line.startswith("analyzer: interrupted: ") and "chunks saved in" in line, err
    saved = int(line.split("interrupted: ")[1].split(" of ")[0])
    assert saved == len(list((out / "chunks").glob("games-*.parquet"))) and saved < 60
    command = shlex.split(line.split("resume with: ")[1])
    assert command[:2] == ["analyzer", "simulate"] and command[-1] == "--resume"
    assert command[command.index("--jobs") + 1] == "2"  # the command as the user gave it
    res = cli.invoke(app, [*command[1:], "--quiet"])
    assert res.exit_code == 0, res.output
    assert f"({saved} chunk(s) resumed)" in res.stdout
    _same_aggregates(out, ref)


def _faulty(tmp_path: Path, die: str) -> Path:
    path = tmp_path / f"faulty-{die}.toml"
    path.write_text(f'game = "faulty"\nplayers = 3\ngames = 40\nseed = 8\n[rules]\n'
                    f'die = "{die}"\ndie_marker = "{tmp_path / ("marker-" + die)}"\n'
                    f'main_pid = {os.getpid()}\n[[seats]]\npolicy = "biased"\n')
    return path


def _records(out: Path):
    g = pd.read_parquet(out / "games.parquet").sort_values(["game_id", "variant"])
    s = pd.read_parquet(out / "seats.parquet").sort_values(["game_id", "variant", "seat"])
    return g.reset_index(drop=True), s.reset_index(drop=True)


def test_a_worker_that_dies_once_is_retried_and_the_output_is_whole(tmp_path):
    """One loky worker os._exit()s mid-chunk: its chunks are resubmitted, the records equal a
    sequential run (where nothing dies)."""
    path = _faulty(tmp_path, "once")
    res = api.simulate(path, jobs=2, chunk_size=5, out=tmp_path / "par")
    assert (tmp_path / "marker-once").exists()  # a worker really died
    assert len(res.games) == 40
    seq = api.simulate(path, backend="sequential", chunk_size=40, out=tmp_path / "seq")
    for a, b in zip(_records(res.out_dir), _records(seq.out_dir)):
        pd.testing.assert_frame_equal(a, b)


def test_workers_that_keep_dying_stop_the_run_with_one_line(tmp_path):
    """Every worker dies: after the retries, one line (exit 2) with the saved chunk count and
    the resume command; no aggregate or report is written."""
    path = _faulty(tmp_path, "always")
    out = tmp_path / "run"
    res = cli.invoke(app, ["simulate", str(path), "--jobs", "2", "--chunk-size", "5", "--out",
                           str(out), "--quiet"])
    line = _one_line(res)
    assert "a worker process died 3 times" in line
    assert "0 of 8 chunks saved" in line and line.endswith("--resume")
    assert not (out / "games.parquet").exists() and not (out / "report.html").exists()


TURN_CAP = """\
game = "rattus"
players = 4
games = 6
seed = 5
[[seats]]
policy = "random"
[[variants]]
name = "short"
rules = { max_turns = 3 }
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_turn_cap_is_one_line_naming_game_seed_and_replay(tmp_path, jobs):
    """A game past the engine's hard turn cap stops the run: exit 2, one line naming the game,
    variant and seed, with the replay command — which shows the log and fails the same way."""
    path = tmp_path / "cap.toml"
    path.write_text(TURN_CAP)
    res = cli.invoke(app, ["simulate", str(path), "--jobs", jobs, "--chunk-size", "3", "--out",
                           str(tmp_path / "o"), "--quiet"])
    line = _one_line(res)
    assert "of variant 'short' (root seed 5) did not end" in line
    assert "within 3 turns; replay seed root 5 game (" in line
    replay = shlex.split(line.split("replay it with: ")[1])
    assert replay[:3] == ["analyzer", "replay", str(path)] and replay[-2:] == ["--variant", "short"]
    again = cli.invoke(app, replay[1:])
    assert "within 3 turns" in _one_line(again)
    assert "seat" in again.stdout  # the log up to the cap


def test_resume_into_another_runs_directory_is_refused_by_the_cli(rattus_ref, tmp_path):
    path, _ = rattus_ref
    out = tmp_path / "run"
    base = ["simulate", str(path), "--games", "20", "--jobs", "1", "--out", str(out), "--quiet"]
    assert cli.invoke(app, base).exit_code == 0
    line = _one_line(cli.invoke(app, [*base, "--seed", "12", "--resume"]))
    assert "--resume:" in line and "whose seed differs" in line and "drop --resume" in line
    other = tmp_path / "other.toml"
    other.write_text(RATTUS.replace('"trader"]', '"merchant"]'))
    line = _one_line(cli.invoke(app, ["simulate", str(other), "--games", "20", "--jobs", "1",
                                      "--out", str(out), "--quiet", "--resume"]))
    assert "whose scenario differs" in line
    # the refused runs left the first run's chunks alone
    assert len(list((out / "chunks").glob("games-*.parquet"))) == 1


def test_report_files_are_never_half_written(toy_file, tmp_path, monkeypatch):
    """The disk fills up halfway through writing report.html of a re-run: the run fails, the old
    report.html stays whole and no temporary file is left behind."""
    from analyzer import files

    out = tmp_path / "run"
    api.simulate(toy_file, jobs=1, out=out)
    before = (out / "report.html").read_bytes()

    class HalfWriter:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, raw):
            self.fh.write(raw[: len(raw) // 2])
            raise OSError(28, "No space left on device")

    def fake_open(path, mode="r", *args, **kw):
        fh = open(path, mode, *args, **kw)  # noqa: SIM115 (closed by HalfWriter or the caller)
        return HalfWriter(fh) if ".report.html.tmp" in str(path) else fh

    monkeypatch.setattr(files, "open", fake_open, raising=False)
    with pytest.raises(OSError, match="No space"):
        api.simulate(toy_file, jobs=1, games=30, out=out)
    assert (out / "report.html").read_bytes() == before
    assert not [p.name for p in out.iterdir() if ".tmp" in p.name]


def test_atomic_write_removes_its_temporary_file_on_failure(tmp_path, monkeypatch):
    from analyzer import files

    target = tmp_path / "report.md"
    target.write_text("old")

    def broken_fsync(fd):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(files.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        files.atomic_write(target, "new text")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_a_dask_worker_that_dies_is_replaced_and_the_output_is_whole(tmp_path):
    """A worker process of a dask LocalCluster (loopback) dies mid-chunk: the nanny restarts it,
    the chunk is rescheduled and the records equal a sequential run's."""
    distributed = pytest.importorskip("dask.distributed")
    path = _faulty(tmp_path, "once")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        res = api.simulate(path, backend="dask", scheduler=cluster.scheduler_address,
                           chunk_size=5, out=tmp_path / "dask")
    assert (tmp_path / "marker-once").exists()  # a worker really died
    seq = api.simulate(path, backend="sequential", chunk_size=40, out=tmp_path / "seq")
    for a, b in zip(_records(res.out_dir), _records(seq.out_dir)):
        pd.testing.assert_frame_equal(a, b)


def test_every_file_of_a_run_is_written_through_the_one_atomic_helper(toy_file, tmp_path,
                                                                      monkeypatch):
    """Chunks, fingerprint, aggregated records, scenario, summary and report: each file of a
    run directory is fsynced under a temporary name and renamed into place (analyzer/files.py),
    so a crash never leaves half a file."""
    from analyzer import files

    synced = []
    real_fsync = os.fsync

    def recording_fsync(fd):
        synced.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", recording_fsync)
    out = tmp_path / "run"
    api.simulate(toy_file, jobs=1, games=30, chunk_size=10, out=out)
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert any(w.startswith("chunks/") for w in written) and any(w.endswith(".png") for w in written)
    names = {n.split(".tmp")[0].lstrip(".") for n in synced}
    assert {Path(w).name for w in written} <= names, sorted({Path(w).name for w in written} - names)
    assert not [w for w in written if ".tmp" in w]


@pytest.mark.parametrize("after", [0.5, 1.5])
def test_ctrl_c_while_the_command_starts_is_one_line(tmp_path, after):
    """Ctrl-C while the libraries load (the first second or two) or the run begins: one line,
    never a traceback, and the exit status a shell shows as 130 (130, or the process ends by
    the signal itself when it lands while the interpreter unwinds a half-done import)."""
    proc = _start(["simulate", "scenarios/africanus-sultan.toml", "--games", "2000", "--jobs", "1",
                   "--out", str(tmp_path / "cut"), "--quiet"])
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (130, -signal.SIGINT), err
    assert "Traceback" not in err and err.strip().startswith("analyzer: interrupted"), err
