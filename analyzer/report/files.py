"""Atomic file writes: every report file goes to a temporary name and is renamed into place."""

from __future__ import annotations

import os
from pathlib import Path


def atomic_write(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through ``.NAME.tmpPID`` in the same folder and ``os.replace``.

    A crash leaves the old file or none, never half a file.

    Parameters
    ----------
    path : str or Path
    data : bytes or str
        ``str`` is written as UTF-8.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with open(tmp, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a failed write leaves no stray temporary file
        raise
    return path
