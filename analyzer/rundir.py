"""The run directory of a study (``reports/<name>/`` or ``--out``), handled in one place.

``RunDir`` owns what every study command (``analyzer.studies.STUDIES``) does with its
directory:

- **identity**: a run is named by its scenario ``name``, root ``seed`` and study ``kind``
  (``identity``); they are stored with the chunks' fingerprint in ``chunks/fingerprint.json``,
  and ``read_fingerprint`` is the one place that file is parsed;
- **--out** (``RunDir.choose``): refuses a file, a non-empty directory that is no run
  directory, another run's directory unless ``force``, and a ``resume`` into another run's;
  nothing is written; ``force`` clears the directory when the study starts (``create``), and
  puts the old run back when the study is refused before it saved anything;
- **--resume** (``prepare_chunks``): keeps the chunks of the same run (same fingerprint) and
  refuses another's, naming what differs; without it the chunks are started over;
- **temporary files and atomic writes**: every file is written to ``.NAME.tmpPID`` beside it
  and renamed (``write``, ``writing``: ``analyzer.files``); a run removes the temporary files a
  killed run left (``clean_temporary``);
- **stops** (``session``): Ctrl-C or SIGTERM anywhere in a study becomes one
  ``RunInterrupted`` saying what is saved; the directory removed (or made unwritable) during
  the run becomes one ``OptionError`` naming it.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from analyzer import __version__, studies, userfiles
from analyzer.errors import (
    OptionError,
    RunInterrupted,
    RunStopped,
    ScenarioError,
    WriteFailed,
)
from analyzer.files import atomic_path, atomic_write

CHUNKS = "chunks"
FINGERPRINT = "fingerprint.json"
# fingerprint keys that name a run (scenario name, study kind) rather than decide its records:
# a plain run into another run's directory is refused when they differ (``RunDir.choose``)
IDENTITY = ("name", "kind")
NOTHING = "nothing saved yet"
TEMPORARY = ".*.tmp[0-9]*"  # ``analyzer.files.atomic_path``'s temporary names
REPLACED = ".replaced.tmp{pid}"  # where ``--force`` sets the old run aside (``RunDir.set_aside``)
# errors of a write into the run directory that are the directory's state, not a bug
_DIRECTORY_ERRNOS = {errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.EPERM, errno.EROFS,
                     errno.ENOSPC, errno.EDQUOT, errno.ESTALE}


def identity(name: str, seed: int, kind: str = "simulate") -> dict[str, Any]:
    """What names a run in its directory: ``{"name", "seed", "kind"}`` (``kind`` a key of
    ``analyzer.studies.STUDIES``)."""
    return {"name": name, "seed": seed, "kind": kind}


def engine_files() -> list[Path]:
    """The sources that play a game: ``analyzer/model`` and ``analyzer/games`` (rules, content
    tables, players and their default parameters), sorted."""
    root = Path(__file__).resolve().parent
    return sorted([*root.glob("model/*.py"), *root.glob("games/**/*.py"),
                   *root.glob("games/**/*.toml")])


@functools.lru_cache(maxsize=1)
def engines() -> str:
    """A short hash (16 hex digits) of ``engine_files``' names and bytes. The version string
    does not move with every change of the rules or players: a fingerprint (chunks kept for a
    resume) and a measured speed (``analyzer.plan``) made by other engine sources are not this
    code's."""
    digest = hashlib.sha256()
    for path in engine_files():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def describe(run: dict[str, Any]) -> str:
    """``"sweep of 'toy' (seed 3)"``: a run identity (or a fingerprint) in a message."""
    return (f"{studies.word(run.get('kind', 'simulate'))} of {run.get('name', '?')!r} "
            f"(seed {run.get('seed', '?')})")


def read_fingerprint(chunk_dir: Path) -> dict[str, Any] | None:
    """The fingerprint stored in ``chunk_dir`` (``fingerprint.json``): scenario hash, seed,
    package version and engine sources' hash, chunk size and the ``IDENTITY`` keys; ``None``
    when there is none or it cannot be read (a run killed before writing it, a damaged file)."""
    try:
        data = json.loads((Path(chunk_dir) / FINGERPRINT).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def prepare_chunks(chunk_dir: Path, fingerprint: dict[str, Any], resume: bool) -> None:
    """Create ``chunk_dir`` for a run; on ``resume`` check it belongs to the same run.

    Without ``resume`` an old chunk directory is emptied. ``fingerprint`` (scenario hash, seed,
    package version and engine sources' hash, chunk size, and the ``IDENTITY`` keys naming the
    run) is stored as ``fingerprint.json``; a resume with another chunk size is refused (the
    chunk files are named by their game-id ranges). A resume removes the temporary files of a
    killed run.

    Raises
    ------
    OptionError
        ``resume`` into a directory made by a different scenario, seed, version or engine
        sources (names what differs; ``out`` when it is another study's directory), or whose
        fingerprint cannot be read; a directory that cannot be written.
    """
    if resume and (chunk_dir / FINGERPRINT).exists():
        old = read_fingerprint(chunk_dir)
        if old is None:  # refused, never wiped: the chunks may still be wanted
            raise OptionError(
                "resume", f"{chunk_dir / FINGERPRINT} cannot be read (damaged or cut short), so "
                "the chunks there cannot be matched to this run; drop {resume} to play them "
                "again", resume=True)
        _check_resume(chunk_dir, old, fingerprint)
        clean_temporary(chunk_dir)
        return
    try:
        if chunk_dir.exists():
            shutil.rmtree(chunk_dir)
        chunk_dir.mkdir(parents=True)
        atomic_write(chunk_dir / FINGERPRINT, json.dumps(fingerprint, indent=1))
    except OSError as err:
        raise OptionError("out", f"cannot write to {chunk_dir.parent} ({err.strerror})") from None


def _check_study(chunk_dir: Path, old: dict[str, Any], new: dict[str, Any]) -> None:
    """Refuse a resume into another study's chunks (``out``), naming the study there."""
    if old.get("kind", new.get("kind")) != new.get("kind") and "kind" in new:
        word = studies.word(new["kind"])
        raise OptionError(
            "out", f"{chunk_dir.parent} holds the {describe(old)}, not "
            f"{'an' if word[0] in 'aeiou' else 'a'} {word}; give another {{out}}, or drop "
            "{resume} and give {force} to replace it", out=None, resume=True, force=True)


def _check_resume(chunk_dir: Path, old: dict[str, Any], new: dict[str, Any]) -> None:
    """Refuse a resume into another run's chunks, naming the real cause: another study
    (``out``), another chunk size (``chunk_size``) or other records (``resume``)."""
    _check_study(chunk_dir, old, new)
    size, old_size = new.get("chunk_size"), old.get("chunk_size")
    rest_old, rest_new = ({k: v for k, v in run.items() if k not in (*IDENTITY, "chunk_size")}
                          for run in (old, new))
    if rest_old != rest_new:
        keys = {**rest_new, **rest_old}  # a key of either run (``rounds`` only when recorded)
        differ = [k for k in keys if rest_old.get(k) != rest_new.get(k)]
        stored = ", ".join(f"{k} {rest_old.get(k)}" for k in keys)
        raise OptionError(
            "resume", f"{chunk_dir.parent} holds a run whose {', '.join(differ)} "
            f"differ{'s' if len(differ) == 1 else ''} from this one's (stored: "
            f"{stored}); use another {{out}} or drop {{resume}} to start over",
            out=None, resume=True)
    if old_size is not None and size is not None and old_size != size:
        raise OptionError(
            "chunk_size", f"the run in {chunk_dir.parent} uses chunks of {old_size} games "
            f"(got {size}); resume with {{chunk_size}}, or drop {{resume}} to start over",
            chunk_size=old_size, resume=True)


def clean_temporary(root: Path) -> None:
    """Remove the temporary files (``.NAME.tmpPID``) a killed run left under ``root``. Safe
    while no other process writes there (one run per directory)."""
    for stale in Path(root).rglob(TEMPORARY):
        if stale.is_file():
            stale.unlink(missing_ok=True)


def _name_lengths(path: Path) -> None:
    """Refuse a directory whose path the file system cannot hold: a name longer than it allows
    (usually 255 bytes) or a path longer than its limit (usually 4096)."""
    try:
        name_max = os.pathconf(".", "PC_NAME_MAX")
        path_max = os.pathconf(".", "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        name_max, path_max = 255, 4096
    for part in path.parts:
        if len(os.fsencode(part)) > name_max:
            raise OptionError("out", f"cannot use {userfiles.short(path)}: a name in it is "
                                     f"{len(os.fsencode(part)):,} bytes long (at most {name_max})")
    if len(os.fsencode(str(path.absolute()))) >= path_max:
        raise OptionError("out", f"cannot use {userfiles.short(path)}: the path is longer than "
                                 f"{path_max - 1:,} bytes")


class RunDir:
    """The directory of one study run (see the module docstring).

    Parameters
    ----------
    path : Path
        The directory (need not exist yet).
    run : dict
        Its ``identity``.
    force, resume : bool
        ``--force`` / ``--resume``.

    Attributes
    ----------
    saved : str
        What is on disk so far, for the message of a stop (``session``); the study updates it
        as it goes (``"nothing saved yet"`` at first).
    """

    def __init__(self, path: Path, run: dict[str, Any], *, force: bool = False,
                 resume: bool = False):
        self.path = Path(path)
        self.run = run
        self.force = force
        self.resume = resume
        self.saved = NOTHING
        self.created = False
        self.replaced: Path | None = None  # what ``force`` set aside (``set_aside``)

    @classmethod
    def choose(cls, out: str | Path | None, default: Path, run: dict[str, Any], *,
               force: bool = False, resume: bool = False) -> RunDir:
        """The run directory ``out`` (or ``default``), checked for this run (the module
        docstring's **--out**; an empty ``out`` is refused); nothing is written. A directory
        of the same run may be run into again: without ``resume`` its chunks are replaced,
        with it they are kept; with ``force`` everything in it is replaced (``create``).

        Raises
        ------
        OptionError
            Names the directory, the run it holds and the run asked for.
        """
        if out is not None and not str(out).strip():
            raise OptionError("out", "empty path (give a directory, e.g. {out})",
                              out="reports/run1")
        rd = cls(default if out is None else Path(out), run, force=force, resume=resume)
        _name_lengths(rd.path)
        try:
            rd.check()
        except OSError as err:  # a path the system refuses to look at (too deep, a loop)
            raise OptionError("out", f"cannot use {userfiles.short(rd.path)} "
                                     f"({err.strerror})") from None
        return rd

    @property
    def chunks(self) -> Path:
        """``chunks/``: the runner's parts of the run, and its fingerprint."""
        return self.path / CHUNKS

    def stored(self) -> dict[str, Any] | None:
        """The ``identity`` of the run already in the directory (its fingerprint, else the
        ``summary.json`` of an older version); ``None`` when neither says."""
        found = read_fingerprint(self.chunks)
        if found is None:
            return None
        if "name" not in found:
            try:
                run = userfiles.read_json(self.path / "summary.json")["run"]
                found = {"name": run["name"], "seed": run["seed"],
                         "kind": (run.get("study") or {}).get("kind", "simulate")}
            except (userfiles.UnreadableFile, KeyError, TypeError):
                return None
        return identity(found["name"], found.get("seed"), found.get("kind", "simulate"))

    def check(self) -> None:
        """The checks of ``choose`` (see there)."""
        out = self.path
        if out.exists() and not out.is_dir():
            raise OptionError("out", f"cannot create {out} (it is a file; give a new or empty "
                                     "directory, or a run directory)")
        # said before the plan and any play, not when the run creates it
        above = next((p for p in out.absolute().parents if p.exists()), None)
        if not out.exists() and above is not None and not above.is_dir():
            raise OptionError("out", f"cannot create {out} ({above} is a file)")
        if not out.exists() and above is not None and not os.access(above, os.W_OK | os.X_OK):
            raise OptionError("out", f"cannot create {out} ({above} is not writable)")
        if out.is_dir() and not (self.chunks / FINGERPRINT).exists():
            try:
                busy = any(not p.match(REPLACED.format(pid="*")) for p in out.iterdir())
            except OSError as err:
                raise OptionError("out", f"cannot read {out} ({err.strerror})") from None
            if busy:
                raise OptionError("out", f"{out} is a non-empty directory that is not a run "
                                         "directory (allowed: a new or empty directory, or the "
                                         "directory of an earlier run, with {resume} to keep "
                                         "its chunks)", resume=True)
        elif out.is_dir() and self.resume:
            # refused here, before the study writes anything (an ablation's tables, say)
            stored = self.stored()
            if stored is not None and self.run:
                _check_study(self.chunks, stored, self.run)
                differ = [k for k in ("name", "seed") if stored[k] != self.run[k]]
                if differ:
                    raise OptionError(
                        "resume", f"{out} holds a run whose {' and '.join(differ)} "
                        f"differ{'s' if len(differ) == 1 else ''} from this one's (stored: the "
                        f"{describe(stored)}); use another "
                        "{out} or drop {resume} to start over", out=None, resume=True)
        elif out.is_dir() and not self.force:
            stored = self.stored()
            if stored is not None and stored != self.run:
                raise OptionError("out", f"{out} holds the {describe(stored)}, not the "
                                         f"{describe(self.run)}; give another {{out}}, or "
                                         "{force} to replace it", out=None, force=True)

    def create(self) -> None:
        """Create the directory (and its parents) and remove the temporary files a killed run
        left in it. With ``force`` (and no ``resume``) everything in it is set aside first
        (``set_aside``), so the directory is what a fresh run makes; ``session`` deletes it at
        the end, or puts it back when the study is refused before it saved anything.

        Raises
        ------
        OptionError
            It cannot be created, cleared or is not writable.
        """
        self.created = not self.path.exists()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            for stale in self.path.glob(REPLACED.format(pid="*")):  # a killed forced run's
                shutil.rmtree(stale, ignore_errors=True)
            if self.force and not self.resume and not self.created:
                self.set_aside()
        except OSError as err:
            raise OptionError("out", f"cannot create {self.path} ({err.strerror})") from None
        if not os.access(self.path, os.W_OK | os.X_OK):
            raise OptionError("out", f"{self.path} is not writable")
        clean_temporary(self.path)

    def set_aside(self) -> None:
        """Move everything in the directory into a hidden folder in it (``REPLACED``; the
        directory itself stays, with its permissions); ``settle`` deletes or restores it."""
        aside = self.path / REPLACED.format(pid=os.getpid())
        aside.mkdir()
        for child in list(self.path.iterdir()):
            if child != aside:
                child.rename(aside / child.name)
        self.replaced = aside

    def settle(self, restore: bool) -> None:
        """After a forced run: delete what ``set_aside`` moved away, or, with ``restore`` (the
        study was refused), remove what the run wrote and put the old files back."""
        aside, self.replaced = self.replaced, None
        if aside is None or not aside.is_dir():
            return
        if not restore:
            shutil.rmtree(aside, ignore_errors=True)
            return
        for child in list(self.path.iterdir()):
            if child != aside:
                shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
        for child in list(aside.iterdir()):
            child.rename(self.path / child.name)
        aside.rmdir()

    def fingerprint(self, scenario: Any, seed: int | None = None, **decides: Any
                    ) -> dict[str, Any]:
        """What a folder of this run's chunks depends on: ``scenario``'s hash
        (``Scenario.fingerprint``), the root ``seed`` of its games (default the scenario's),
        the package version, the engine sources' hash (``engines``) and ``decides`` (a study's
        options, the arms of a batch), with the run's ``IDENTITY`` keys. The one place a
        fingerprint is made."""
        return {"scenario": scenario.fingerprint(),
                "seed": scenario.seed if seed is None else seed, "version": __version__,
                "engine": engines(), **decides,
                **{k: self.run[k] for k in IDENTITY if k in self.run}}

    def prepare_chunks(self, fingerprint: dict[str, Any], *folders: str) -> None:
        """``prepare_chunks`` of ``chunks/`` with this run's ``resume``; without ``resume``
        the study's ``folders`` (``search``, ``ladder``…) are removed too (``remove``)."""
        prepare_chunks(self.chunks, fingerprint, self.resume)
        if folders and not self.resume:  # none named: nothing else to start over
            self.remove(*folders)

    def remove(self, *folders: str) -> None:
        """Remove the subfolders ``folders`` of the run directory (none: the whole
        directory), as far as they exist: a study starting over, a condition's run of
        another chunk size."""
        for name in folders or ("",):
            shutil.rmtree(self.path / name, ignore_errors=True)

    def write(self, name: str, data: str | bytes) -> Path:
        """Write ``name`` (relative to the directory; its folders are made) atomically;
        returns its path."""
        target = self.path / name
        if self.path.is_dir():  # never re-create a run directory removed during the run
            target.parent.mkdir(parents=True, exist_ok=True)
        return atomic_write(target, data)

    @contextmanager
    def writing(self, name: str) -> Iterator[Path]:
        """A temporary path for a writer that takes a file name; renamed to ``name`` when the
        block ends (``analyzer.files.atomic_path``)."""
        with atomic_path(self.path / name) as tmp:
            yield tmp

    def finished(self, scenario: Any) -> bool:
        """Whether the directory holds a finished run of exactly ``scenario`` (same arms, seed
        and games): its ``summary.json`` has results and its fingerprint matches."""
        try:
            summary = userfiles.read_json(self.path / "summary.json")
        except userfiles.UnreadableFile:
            return False
        if not isinstance(summary, dict):
            return False
        run = summary.get("run") or {}
        # (the directory exists: without a fingerprint ``same_chunks`` is false)
        return (bool(summary.get("results")) and run.get("seed") == scenario.seed
                and run.get("games") == scenario.games and run.get("target_ci") is None
                and self.same_chunks(scenario))

    def same_chunks(self, scenario: Any, chunk_size: int | None = None) -> bool:
        """Whether the chunks here (if any) are of ``scenario``, its seed and this chunk size
        (``None``: any; so a resume keeps them); true for a directory that does not exist yet."""
        found = read_fingerprint(self.chunks)
        if found is None:
            return not self.path.exists()
        return (found.get("scenario") == scenario.fingerprint()
                and found.get("seed") == scenario.seed
                and chunk_size in (None, found.get("chunk_size", chunk_size)))

    @contextmanager
    def session(self, *, nest: bool = False,
                on_stop: Callable[[], None] | None = None) -> Iterator[RunDir]:
        """Around a study's work in this directory: create it, then turn every stop into one
        line.

        - Ctrl-C / SIGTERM (``KeyboardInterrupt``) anywhere becomes ``RunInterrupted`` whose
          message says what is saved (``saved``); ``on_stop`` runs first (stops idle worker
          processes). Its ``__context__`` is the signal's exception (the CLI's exit code).
        - A ``RunStopped`` from inside (a runner's count of chunks) passes through; with
          ``nest`` (and something saved), ``saved`` is put in front of it (``"3 of 10 generations saved in …
          (generation 4: 1 of 2 chunks saved in …)"``).
        - An ``OSError`` on the directory (removed, unwritable, full) becomes one
          ``OptionError`` naming it.
        - A user error before anything was saved removes a directory this run created.
        """
        self.create()
        refused = False
        try:
            yield self
        except KeyboardInterrupt:
            if on_stop is not None:
                on_stop()
            raise RunInterrupted("interrupted", self.saved) from None
        except RunStopped as err:
            if nest and self.saved != NOTHING:
                err.saved = f"{self.saved} ({err.saved})"
            raise
        except OSError as err:
            if isinstance(err, WriteFailed) or not self._ours(err):  # names its file already
                raise
            gone = not self.path.is_dir()
            raise OptionError(
                "out", f"{self.path} was removed during the run" if gone else
                f"cannot write {err.filename} ({err.strerror})",
            ) from None
        except ScenarioError:  # refused before any game (no dask scheduler, nothing to ablate)
            refused = self.saved == NOTHING
            if self.created and refused:
                shutil.rmtree(self.path, ignore_errors=True)
            raise
        finally:  # a refused forced run leaves the run it was to replace as it was
            self.settle(restore=refused)

    def _ours(self, err: OSError) -> bool:
        """Whether ``err`` is a write into this directory failing because of its state."""
        if err.errno not in _DIRECTORY_ERRNOS:
            return False
        if not self.path.is_dir():
            return True
        names = [n for n in (err.filename, getattr(err, "filename2", None)) if n]
        root = str(self.path.resolve())
        return any(str(Path(os.fspath(n)).resolve()).startswith(root) for n in names)
