"""Reading the files a user gives: scenarios, tournament pools, data tables, parameter files and
a run's ``summary.json``.

Every such file is read through ``read_text`` (or ``read_toml`` / ``read_json``): only a regular
file is opened (a FIFO, a device such as ``/dev/zero`` or a socket is refused before it is
opened, so nothing hangs), at most ``limit`` bytes are read (a huge file is refused, not loaded),
and the text must be UTF-8. Parsing a file nested too deep for the parser is a problem of the
file, not a crash. Every failure is one ``UnreadableFile`` whose ``reason`` is a short phrase;
the caller puts the file's name and its own error class around it.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path
from typing import Any

from analyzer.errors import AnalyzerError

#: The largest study or data file read (bytes): far above any real scenario, pool or table.
TOML_LIMIT = 16 * 1024 * 1024
#: The largest ``summary.json`` read (bytes): a run's summary of many arms stays far below it.
JSON_LIMIT = 256 * 1024 * 1024


class UnreadableFile(AnalyzerError):
    """A user's file that cannot be read or parsed.

    ``reason`` is a phrase without the file's name (``"file not found"``, ``"not a regular file
    (a FIFO)"``, ``"too large (… bytes; at most …)"``, ``"malformed TOML: …"``); ``str(err)`` is
    ``PATH: reason``. ``kind`` is one of ``"missing"``, ``"directory"``, ``"special"``,
    ``"large"``, ``"os"``, ``"encoding"``, ``"syntax"`` for callers that word a case their own way.
    """

    def __init__(self, path: str | Path, reason: str, kind: str):
        self.path, self.reason, self.kind = str(path), reason, kind
        super().__init__(f"{path}: {reason}")


def _what(mode: int) -> str:
    """What a file that is not regular is, for messages."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def read_text(path: str | Path, limit: int = TOML_LIMIT) -> str:
    """The UTF-8 text of the regular file ``path``, of at most ``limit`` bytes.

    Raises
    ------
    UnreadableFile
        Missing, a directory, not a regular file (FIFO, device, socket), larger than
        ``limit`` bytes, unreadable, or not UTF-8.
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # stat, not open: opening a FIFO blocks until a writer comes
    except FileNotFoundError:
        raise UnreadableFile(path, "file not found", "missing") from None
    except OSError as err:
        raise UnreadableFile(path, f"cannot read ({err.strerror or err})", "os") from None
    if stat.S_ISDIR(mode):
        raise UnreadableFile(path, "a directory, not a file", "directory")
    if not stat.S_ISREG(mode):
        raise UnreadableFile(path, f"not a regular file ({_what(mode)}); give a file", "special")
    try:
        # O_NONBLOCK: should the path be swapped for a FIFO after the stat, open still returns
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise UnreadableFile(path, "not a regular file; give a file", "special")
            raw = fh.read(limit + 1)
    except OSError as err:
        raise UnreadableFile(path, f"cannot read ({err.strerror or err})", "os") from None
    if len(raw) > limit:
        raise UnreadableFile(path, f"too large (more than {limit:,} bytes; at most {limit:,})", "large")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UnreadableFile(path, f"not UTF-8 text (bad byte at offset {err.start})", "encoding") from None


def _parsed(text: str, path: str | Path, loads: Any, error: type[Exception], what: str) -> Any:
    """``loads(text)``; its ``error`` or a nesting too deep for the parser is an
    ``UnreadableFile`` of ``path`` (kind ``"syntax"``)."""
    try:
        return loads(text)
    except error as err:
        raise UnreadableFile(path, f"malformed {what}: {err}", "syntax") from None
    except RecursionError:
        raise UnreadableFile(path, f"malformed {what}: nested too deep to read", "syntax") from None


def read_toml(path: str | Path, limit: int = TOML_LIMIT) -> dict[str, Any]:
    """The parsed TOML of the user's file ``path`` (``read_text`` then ``tomllib.loads``).

    Raises
    ------
    UnreadableFile
        As ``read_text``, or malformed TOML (also: nested too deep).
    """
    return _parsed(read_text(path, limit), path, tomllib.loads, tomllib.TOMLDecodeError, "TOML")


def read_json(path: str | Path, limit: int = JSON_LIMIT) -> Any:
    """The parsed JSON of the file ``path`` (a run's ``summary.json``), read as ``read_text``.

    Raises
    ------
    UnreadableFile
        As ``read_text``, or malformed JSON (also: nested too deep).
    """
    return _parsed(read_text(path, limit), path, json.loads, ValueError, "JSON")


def looked_up(path: str | Path) -> Path:
    """``path`` as a ``Path``, once the system agreed to look it up: a name too long for the file
    system, or a path too deep or looping, is an ``UnreadableFile`` (kind ``"os"``) here rather
    than an ``OSError`` from the first ``exists()`` of a caller. A missing path passes.

    Raises
    ------
    UnreadableFile
        The system refuses the path itself.
    """
    path = Path(path)
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as err:
        raise UnreadableFile(short(path), f"cannot use this path ({err.strerror or err})",
                             "os") from None
    return path


def short(path: str | Path, width: int = 80) -> str:
    """A path for a one-line message: a very long one is cut in the middle."""
    text = str(path)
    return text if len(text) <= width else f"{text[:width // 2]}…{text[-width // 2:]}"


def is_file(path: str | Path) -> bool:
    """Whether ``path`` is a regular file; a path the system cannot look up (too long, bad
    characters) is not: the caller's own check then says what is wrong with it."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False
