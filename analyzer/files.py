"""Atomic file writes: a file is written under a temporary name, flushed to disk and renamed
into place, so a crash or Ctrl-C leaves the old file or none, never half a file.

Used for every file analyzer writes: run records and chunks (runner), reports, bench results
and generated data tables. A write the disk refuses (full, over quota, read-only, not allowed:
``WRITE_ERRNOS``) becomes one ``analyzer.errors.WriteFailed`` naming the file, which the command
line prints as one line with exit code 2.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analyzer.errors import WriteFailed

# errors of a write that are the disk's state or its permissions, not a bug (a removed folder,
# ENOENT, is left to the caller: ``analyzer.rundir.RunDir.session`` names it)
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM,
                          errno.EFBIG})


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; on success it replaces ``path``.

    For writers that take a file name (``pyarrow.parquet.write_table``, a ``ParquetWriter``),
    which must close the file before the block ends. The temporary file is ``.NAME.tmpPID`` in
    the same folder (same file system, so the rename is atomic); it is fsynced before the
    rename and removed if the block raises.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        yield tmp
        with open(tmp, "rb+") as fh:  # the writer closed it; make its bytes durable
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        try:
            tmp.unlink(missing_ok=True)  # a failed write leaves no stray temporary file
        except OSError:  # a read-only disk: nothing was written there either
            pass
        if isinstance(err, OSError) and err.errno in WRITE_ERRNOS:
            raise WriteFailed(str(path), err) from None
        raise


def atomic_write(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` (bytes, or a ``str`` as UTF-8) to ``path`` atomically (``atomic_path``);
    returns ``path``.

    Raises
    ------
    analyzer.errors.WriteFailed
        The disk refused the write (see ``atomic_path``).
    """
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(raw)
    return path
