"""Reading a run's record tables for the report with flat memory (DESIGN.md §4, §6).

The report needs every game row but only a few seat columns, and the seat table is the big one
(one row per seat, game and variant; up to ~50 metric columns). ``read_seats`` reads only the
seat columns the report sections use (pyarrow column projection) and ``read_games`` the whole
game table (one row per game; sections find their ``building_*``/``contest_*`` columns by
prefix). Both decode through the system allocator and free Arrow's buffers as pandas takes
the columns, so a 20,000-game report does not hold two copies of the records.

Study sections read columns chosen at run time (``analyzer sweep --metric COLUMN``, the
``usage`` columns of ``analyzer ablate``): every string in the run facts of ``summary.json`` that
names a seat column is read too (``names_in``). A section that reads another fixed seat column
must add it (or a pattern) to ``SEAT_COLUMNS``; ``tests/test_memory.py`` renders the reports of
the shipped studies, a sweep and an ablation from projected and from full tables and fails if
the results differ.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

# Seat columns read by analyzer/report/*.py (fnmatch patterns). IDs and COMMON_SEAT_COLUMNS first.
SEAT_COLUMNS: tuple[str, ...] = (
    "game_id", "variant", "seat", "policy", "score", "rank", "won", "tiebreak",
    # Rattus Sultan and Trader studies (sections.sultan, sections.caravan)
    "sultan_points", "diplomats_*", "caravan_*",
    # balance section
    "died",
    # Pyramidion study
    "start_position", "vp", "boats_loaded", "tiles_placed", "revolts_won", "goods_*",
    # ablate: per-seat usage of each card/building (report/studies.py, GameSpec.ablations)
    "took_*", "premium_*", "standard_*", "cards_played_*",
)


def read_table(path: str | Path, patterns: Sequence[str] | None = None) -> pd.DataFrame:
    """One Parquet record file as a DataFrame, optionally only the columns matching ``patterns``.

    Parameters
    ----------
    path : str or Path
        ``games.parquet`` or ``seats.parquet`` of a run.
    patterns : sequence of str, optional
        fnmatch patterns of the columns to read, e.g. ``("score", "caravan_*")``; ``None`` reads
        every column. Columns keep the file's order; a pattern matching nothing is ignored.

    Returns
    -------
    DataFrame
        Shape ``(rows, selected columns)``, the same dtypes as ``pd.read_parquet``.
    """
    schema = pq.read_schema(path)
    columns = None
    if patterns is not None:
        columns = [c for c in schema.names if any(fnmatchcase(c, p) for p in patterns)]
    # The system allocator returns freed decode buffers to the OS (the default mimalloc/jemalloc
    # pool keeps them), and pandas' string columns stay Arrow-backed in this pool.
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        table = pq.read_table(path, columns=columns)
        frame = table.to_pandas(self_destruct=True, split_blocks=True)
        del table
    finally:
        pa.set_memory_pool(previous)
    return frame


def read_games(run_dir: str | Path) -> pd.DataFrame:
    """``games.parquet`` of ``run_dir``, every column (one row per game and variant)."""
    return read_table(Path(run_dir) / "games.parquet")


def read_seats(run_dir: str | Path, also: Iterable[str] = ()) -> pd.DataFrame:
    """``seats.parquet`` of ``run_dir``: the columns matching ``SEAT_COLUMNS`` or named in ``also``.

    Parameters
    ----------
    run_dir : str or Path
    also : iterable of str
        Further exact column names (e.g. ``names_in(run_facts)``); names that are not columns
        are ignored.
    """
    exact = [glob_escape(n) for n in also]
    return read_table(Path(run_dir) / "seats.parquet", (*SEAT_COLUMNS, *exact))


def names_in(facts: object) -> set[str]:
    """Every string inside ``facts`` (nested dicts, lists), e.g. the run facts of a study."""
    out: set[str] = set()
    stack = [facts]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return out


def glob_escape(name: str) -> str:
    """``name`` as an fnmatch pattern matching only itself."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)
