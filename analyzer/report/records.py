"""The run's record tables for the report, a few columns and one variant at a time.

The report needs a handful of record columns at a time, never the whole tables: the seat table
has one row per seat, game and variant (600,000 rows for 50,000 games × 3 variants × 4 seats)
and up to ~50 metric columns. A section is handed the two tables as ``Table`` objects and reads
what it uses where it uses it, usually one variant's rows at a time::

    seats.read(("game_id", "seat", "won"), variants=["base"])   # a DataFrame of 3 columns

so the report holds one step's working set, not the records, and its peak memory stays near
flat in the number of games. A ``Table`` is built on a Parquet file (``render``) or on a
DataFrame (a notebook's or a test's: ``as_table(frame)``), so every section also takes plain
DataFrames.

Read from Parquet, the columns come in compact, exact dtypes (``read_table``): a string column
is a ``Categorical`` with sorted categories (a byte a row; groups sort as the strings do), an
integer column is ``int32`` when no sum or difference of its values can leave ``int32``. Float
columns (``won`` = 1/k, scores) stay ``float64``, so every number is the one ``pd.read_parquet``
gives; ``tests/test_memory.py`` renders the shipped studies from Parquet and from plain
DataFrames and fails if the results differ.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from analyzer.errors import AnalyzerError

INT32_MAX = 2 ** 31 - 1
KEYS = ("game_id", "seat")  # integer keys: compared, grouped and joined, never summed
BATCH_ROWS = 65536  # rows decoded at a time while reading; the memory beyond the result


def matching(names: Sequence[str], patterns: Iterable[str]) -> list[str]:
    """The names matching any of the fnmatch ``patterns``, in the order of ``names``."""
    patterns = tuple(patterns)
    return [n for n in names if any(fnmatchcase(n, p) for p in patterns)]


def glob_escape(name: str) -> str:
    """``name`` as an fnmatch pattern matching only itself (a column named at run time)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def read_table(path: str | Path, patterns: Sequence[str] | None = None,
               variants: Sequence[str] | None = None) -> pd.DataFrame:
    """One Parquet record file, only the columns matching ``patterns``, in compact dtypes.

    The columns are filled batch by batch (a few thousand rows at a time) into arrays allocated
    once at their final size, so reading costs the result plus one batch, not a second copy.

    Parameters
    ----------
    path : str or Path
        ``games.parquet`` or ``seats.parquet`` of a run.
    patterns : sequence of str, optional
        fnmatch patterns of the columns to read, e.g. ``("seat", "score*")``; ``None`` reads
        every column. Columns keep the file's order.
    variants : sequence of str, optional
        Only the rows of these variants (arms), in file order.

    Returns
    -------
    DataFrame
        Shape ``(rows, selected columns)``, a ``RangeIndex``. A string column is a
        ``Categorical`` of the values present, categories sorted; an integer column is
        ``int32`` when ``2 · max|x| · rows`` fits in ``int32`` (so every sum or difference of its
        values does) or it is a key (``game_id``, ``seat``) that fits; anything else (floats,
        a column with nulls or without statistics) is what ``pd.read_parquet`` gives.
    """
    # Arrow's buffers from the C heap, so release_memory can hand them back
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        return _read(Path(path), patterns, variants)
    finally:
        pa.set_memory_pool(previous)
        if _KEPT is None or _KEPT.decoded:  # the decode buffers, freed in between the result's
            _trim()                          # arrays (none when every column was kept)
        if _KEPT is not None:
            _KEPT.decoded = False


def _codes(column, seen: dict | None) -> np.ndarray:
    """A batch column as a numpy array: a dictionary column (``seen`` given: value -> code, the
    values seen so far, extended here) as the codes of its values, else its values."""
    if seen is None:
        return column.to_numpy(zero_copy_only=False)
    lookup = np.array([seen.setdefault(v, len(seen)) for v in column.dictionary.to_pylist()],
                      dtype=np.int32)
    return lookup[column.indices.to_numpy(zero_copy_only=False)]


def _fill(file: pq.ParquetFile, names: list[str], arrays: dict[str, np.ndarray],
          values: dict[str, dict], rows: int, keep: np.ndarray | None = None) -> None:
    """Fill ``arrays`` (name -> array of ``rows``; one not there yet is made in its first
    batch's dtype) with columns ``names`` of ``file``, batch by batch, only the rows of ``keep``;
    a string column (in ``values``) as ``_codes``."""
    start = offset = 0  # rows filled, rows read
    for batch in file.iter_batches(BATCH_ROWS, columns=names, use_threads=False):
        mask = None if keep is None else keep[offset:offset + batch.num_rows]
        offset += batch.num_rows
        stop = start + (batch.num_rows if mask is None else int(mask.sum()))
        for name, column in zip(batch.schema.names, batch.columns):
            data = _codes(column, values.get(name))
            if name not in arrays:
                arrays[name] = np.empty(rows, data.dtype)
            arrays[name][start:stop] = data if mask is None else data[mask]
        start = stop


def _read(path: Path, patterns: Sequence[str] | None,
          variants: Sequence[str] | None) -> pd.DataFrame:
    footer = _footer(path)
    schema = footer.schema
    columns = schema.names if patterns is None else matching(schema.names, patterns)
    if _KEPT is not None:
        return _read_kept(_KEPT, footer, path, columns, variants)
    # strings as codes into their values; the footer read once per file (``_footer``)
    file = pq.ParquetFile(path, read_dictionary=footer.strings, metadata=footer.metadata)
    keep = None if variants is None else footer.rows_of(file, set(variants))
    rows = file.metadata.num_rows if keep is None else int(keep.sum())
    plans = {c: _plan(footer, c, rows) for c in columns}
    arrays = {c: np.empty(rows, dtype) for c, dtype in plans.items() if dtype is not None}
    values: dict[str, dict] = {c: {} for c in footer.strings if c in arrays}  # value -> code
    _fill(file, list(arrays), arrays, values, rows, keep)
    frame = {}
    for name in columns:
        if name in values:
            frame[name] = _categorical(arrays.pop(name), list(values[name]))
        elif name in arrays:
            frame[name] = arrays.pop(name)
        else:  # no statistics or nulls: as pandas reads it
            frame[name] = _plain_column(file, name, keep)
    return pd.DataFrame(frame, index=pd.RangeIndex(rows), copy=False)


class _Kept:
    """What a render read of its record files (``keeping``): each column as handed out per
    variant selection, the whole columns they were cut from (a string column as its codes and
    values in order of first sight, another as the file gives it: ``to_numpy``), decoded once
    per file, and the rows of each variant selection. Keyed by the file's identity (``_Footer.key``: path, inode, size, modification time), so a file replaced
    is read anew; at most ``limit`` bytes are kept, the least recently used column dropped
    first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.decoded = False  # a read decoded something (``read_table`` trims the heap then)
        self.columns: OrderedDict[tuple, tuple] = OrderedDict()

    def get(self, key: tuple) -> tuple | None:
        """The kept entry of ``key`` (made the most recent), ``None`` when not kept."""
        found = self.columns.get(key)
        if found is not None:
            self.columns.move_to_end(key)
        return found

    def put(self, key: tuple, entry: tuple, size: int) -> None:
        """Keep ``entry`` (``size`` bytes), dropping the oldest entries beyond ``limit``."""
        if key in self.columns:
            self.size -= self.columns.pop(key)[-1]
        self.columns[key] = (*entry, size)
        self.size += size
        while self.size > self.limit and len(self.columns) > 1:
            self.size -= self.columns.popitem(last=False)[1][-1]


KEEP_BYTES = 256 * 2 ** 20  # decoded columns a render keeps at most (``keeping``)
_KEPT: _Kept | None = None


@contextmanager
def keeping(limit: int = KEEP_BYTES) -> Iterator[None]:
    """Within this block ``read_table`` decodes each column of a record file once and hands
    out copies of its rows (``render``: a report reads the same columns some 80 times, one
    variant at a time); the results are the very ones a fresh read gives. At most ``limit``
    bytes of decoded columns are kept; all are dropped when the outermost block ends, and a
    file replaced meanwhile is read anew (its inode, size or modification time differ)."""
    global _KEPT
    if _KEPT is not None:  # an enclosing block keeps them
        yield
        return
    _KEPT = _Kept(limit)
    try:
        yield
    finally:
        _KEPT = None


def _read_kept(kept: _Kept, footer: _Footer, path: Path, columns: list[str],
               variants: Sequence[str] | None) -> pd.DataFrame:
    """``_read``'s result, each column read once per variant selection and decoded once per
    file (``keeping``): the same values and dtypes, each column a new array (a caller may
    change it in place)."""
    file = functools.cache(lambda: pq.ParquetFile(path, read_dictionary=footer.strings,
                                                  metadata=footer.metadata))  # opened once, if at all
    chosen = None if variants is None else tuple(sorted(set(variants)))
    keep = None
    rows = footer.metadata.num_rows
    if chosen is not None:
        found = kept.get(("rows", footer.key, chosen))
        if found is None:
            mask = footer.rows_of(file(), set(chosen))
            found = (mask, int(mask.sum()))
            kept.put(("rows", footer.key, chosen), found, int(mask.nbytes))
        keep, rows = found[0], found[1]
    frame: dict[str, Any] = {}
    for name in columns:
        if (found := kept.get(("column", footer.key, name, chosen))) is not None:
            frame[name] = found[0]
    missing = [c for c in columns if c not in frame]
    if missing:
        plans = {c: _plan(footer, c, rows) for c in missing}
        planned = [c for c in missing if plans[c] is not None]
        whole = {c: found for c in planned
                 if (found := kept.get(("whole", footer.key, c))) is not None}
        whole.update(_decode_whole(kept, footer, file(), [c for c in planned if c not in whole]))
        for name in missing:
            if plans[name] is None:  # no statistics or nulls: as pandas reads it
                values = _plain_column(file(), name, keep)
                kept.decoded = True
            else:
                every, strings, _ = whole[name]
                data = every if keep is None else every[keep]
                values = (_categorical(data, strings) if strings is not None
                          else data.astype(plans[name], copy=True))
            kept.put(("column", footer.key, name, chosen), (values,), int(values.nbytes))
            frame[name] = values
    return pd.DataFrame({c: frame[c].copy() for c in columns}, index=pd.RangeIndex(rows),
                        copy=False)


def _decode_whole(kept: _Kept, footer: _Footer, file: pq.ParquetFile,
                  names: list[str]) -> dict[str, tuple]:
    """Decode every row of columns ``names`` and keep them in ``kept``: a string column as
    ``int32`` codes into its values in order of first sight (as ``_read`` fills them), another
    as ``to_numpy`` gives it. Returns ``{name: (array, values or None, bytes)}``."""
    if not names:
        return {}
    strings = set(footer.strings)
    arrays: dict[str, np.ndarray] = {}
    values: dict[str, dict] = {c: {} for c in names if c in strings}
    _fill(file, names, arrays, values, file.metadata.num_rows)
    out: dict[str, tuple] = {}
    for name in names:
        whole = arrays.get(name)
        if whole is None:  # an empty file
            kind = footer.schema.field(name).type
            whole = np.empty(0, np.int32 if name in values else kind.to_pandas_dtype())
        text = list(values[name]) if name in values else None
        out[name] = (whole, text, int(whole.nbytes))
        kept.put(("whole", footer.key, name), (whole, text), int(whole.nbytes))
    kept.decoded = True
    return out


def _is_string(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


class _Footer:
    """What a reader needs from one record file's footer, read once (``_footer``): its metadata
    and Arrow schema, its string columns, each column's statistics, and the variant of every
    row as a small code (a byte a row), so each read of a few variants' rows only compares
    codes. A render reads the same two files some 80 times."""

    def __init__(self, path: Path) -> None:
        file = pq.ParquetFile(path)
        self.metadata = file.metadata
        self.schema = file.schema_arrow
        self.strings = [c for c in self.schema.names if _is_string(self.schema.field(c).type)]
        self._statistics: dict[str, list] = {}
        self._variants: tuple[np.ndarray, dict[str, int]] | None = None
        self.key: tuple = (str(path),)  # the file's identity (``_footer``)

    def statistics(self, name: str) -> list:
        """The Parquet statistics of column ``name`` in every row group (``None`` if missing).

        Record tables are flat (one Parquet leaf per column), so the leaf index is the Arrow
        field index."""
        if name not in self._statistics:
            j = self.schema.get_field_index(name)
            meta = self.metadata
            self._statistics[name] = [meta.row_group(i).column(j).statistics
                                      for i in range(meta.num_row_groups)]
        return self._statistics[name]

    def rows_of(self, file: pq.ParquetFile, variants: set[str]) -> np.ndarray:
        """Boolean mask, shape ``(rows,)``: the rows whose variant is in ``variants``."""
        if self._variants is None:
            self._variants = _variant_codes(file)
        codes, names = self._variants
        wanted = [k for name, k in names.items() if name in variants]
        return np.isin(codes, np.array(wanted, dtype=codes.dtype))


FOOTERS = 4  # record files whose footers are kept (a render reads two; a robustness check more)


def _footer(path: Path) -> _Footer:
    """The footer of the record file at ``path`` (``_Footer``), read once while the file is
    unchanged (the same inode, size and modification time: the report's writers replace a file
    by renaming a new one); the ``FOOTERS`` last files are kept."""
    st = path.stat()
    return _kept_footer(str(path.resolve()), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=FOOTERS)
def _kept_footer(path: str, *stamp: int) -> _Footer:  # stamp: device, inode, size, mtime
    footer = _Footer(Path(path))
    footer.key = (path, *stamp)  # what a render keeps of the file is keyed by it (``keeping``)
    return footer


def _plan(footer: _Footer, name: str, rows: int) -> np.dtype | None:
    """The dtype column ``name`` (``rows`` rows read) is filled in:
    ``int32`` codes for strings, ``int32`` or ``int64`` for integers (see ``read_table``), as is
    for floats and booleans; ``None`` to read it as pandas does (no statistics, nulls, or
    another type)."""
    stats, kind = footer.statistics(name), footer.schema.field(name).type
    if any(s is None or not s.has_null_count or s.null_count for s in stats):
        return None
    if _is_string(kind):
        return np.dtype(np.int32)
    if pa.types.is_integer(kind):
        if any(not s.has_min_max for s in stats):
            return None
        largest = max((max(abs(s.min), abs(s.max)) for s in stats), default=0)
        fits = largest <= INT32_MAX if name in KEYS else 2 * largest * rows <= INT32_MAX
        return np.dtype(np.int32 if fits else kind.to_pandas_dtype())
    if pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        return np.dtype(kind.to_pandas_dtype())
    return None


def _variant_codes(file: pq.ParquetFile) -> tuple[np.ndarray, dict[str, int]]:
    """The ``variant`` of every row as a code (shape ``(rows,)``, ``int8`` or wider) and the
    code of each variant name."""
    names: dict[str, int] = {}
    parts = [_codes(batch.column(0), names)
             for batch in file.iter_batches(BATCH_ROWS, columns=["variant"], use_threads=False)]
    codes = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    return codes.astype(_small_int(len(names))), names


def _small_int(n: int) -> type:
    """The smallest signed integer type that holds the codes of ``n`` values."""
    return np.int8 if n < 2 ** 7 else np.int16 if n < 2 ** 15 else np.int32


def _categorical(codes: np.ndarray, values: list[str]) -> pd.Categorical:
    """Codes into ``values`` (in order of first sight) as a Categorical of the values present,
    categories sorted (so groups sort as the strings would)."""
    present = np.bincount(codes, minlength=len(values)) > 0
    categories = sorted(v for v, p in zip(values, present) if p)
    new_code = {v: k for k, v in enumerate(categories)}
    remap = np.array([new_code.get(v, -1) for v in values], dtype=np.int32)
    return pd.Categorical.from_codes(remap[codes].astype(_small_int(len(categories))),
                                     categories=categories)


def _plain_column(file: pq.ParquetFile, name: str, keep: np.ndarray | None):
    """Column ``name`` the way ``pd.read_parquet`` reads it (rows of ``keep`` only), as an array."""
    column = file.read(columns=[name], use_threads=False).column(0)
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    values = column.to_pandas()
    if keep is not None:
        values = values[keep]
    return values.array


class Table:
    """One record table (``games`` or ``seats``) that hands out a few columns at a time.

    Parameters
    ----------
    source : Path or DataFrame
        ``games.parquet`` / ``seats.parquet`` (each ``read`` decodes only what it returns, in
        compact dtypes), or the table itself (``read`` returns projected copies, dtypes kept).
    variants : sequence of str, optional
        Restrict every read to these variants' rows (see ``only``).

    Examples
    --------
    >>> seats = Table(Path("reports/my-study/seats.parquet"))             # doctest: +SKIP
    >>> "score" in seats, seats.variants()                                 # doctest: +SKIP
    (True, ['base', 'variant-a', 'variant-b'])
    >>> seats.read(("seat", "won"), variants=["base"]).shape               # doctest: +SKIP
    (40000, 2)
    """

    def __init__(self, source: str | Path | pd.DataFrame,
                 variants: Sequence[str] | None = None) -> None:
        if isinstance(source, pd.DataFrame):
            self.source: Path | pd.DataFrame = source
            self.columns: list[str] = list(source.columns)
        else:
            self.source = Path(source)
            try:
                self.columns = _footer(self.source).schema.names
            except (OSError, pa.ArrowException) as err:  # cut short, damaged, not Parquet
                raise AnalyzerError(f"{self.source}: cannot be read as Parquet records "
                                    f"({str(err)[:160]}); run the study again") from None
        self.restricted = None if variants is None else tuple(variants)
        self._names: list[str] | None = None  # variants(), read once
        self.derived: dict = {}  # facts derived from the records, computed once (design.py)

    def __contains__(self, name: object) -> bool:
        """``"died" in seats``: is ``name`` a column, as for a DataFrame."""
        return name in self.columns

    def only(self, variants: Sequence[str]) -> Table:
        """The same table seen through its rows of ``variants`` only."""
        return Table(self.source, self._variants(variants))

    def read(self, patterns: Iterable[str], variants: Sequence[str] | None = None) -> pd.DataFrame:
        """The columns matching the fnmatch ``patterns`` (file order; a pattern matching nothing
        is skipped), rows of ``variants`` (default: all, or the ``only`` restriction).

        Returns
        -------
        DataFrame
            One row per record (in file order) of the chosen variants, a ``RangeIndex``.
        """
        variants = self._variants(variants)
        if isinstance(self.source, pd.DataFrame):
            frame = self.source[matching(self.columns, patterns)]
            if variants is not None:
                frame = frame[self.source["variant"].isin(list(variants))]
            return frame.reset_index(drop=True)
        return read_table(self.source, tuple(patterns), variants)

    def variants(self) -> list[str]:
        """The variant (arm) names in order of first appearance."""
        if self._names is None:
            self._names = list(pd.unique(self.read(("variant",))["variant"]))
        return list(self._names)

    def _variants(self, variants: Sequence[str] | None) -> tuple[str, ...] | None:
        if variants is None:
            return self.restricted
        if self.restricted is None:
            return tuple(variants)
        return tuple(v for v in variants if v in self.restricted)


def as_table(table: Table | pd.DataFrame) -> Table:
    """``table`` itself, or a ``Table`` on the DataFrame ``table``."""
    return table if isinstance(table, Table) else Table(table)


def release_memory() -> None:
    """Hand memory freed by the last report section back to the operating system.

    numpy, pandas and Arrow (``read_table`` decodes through the system allocator) free their
    arrays into the C heap, which keeps the pages; without this, one section's leftovers add to
    the next section's peak. ``malloc_trim`` is glibc's; elsewhere this only empties Arrow's pool.
    """
    pa.default_memory_pool().release_unused()
    _trim()


def _trim() -> None:
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def _malloc_trim():
    """glibc's ``malloc_trim`` (``None`` on a C library without it)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _malloc_trim()
