"""Data tables: the one loader of every game's built-in ``data/*.toml`` and user ``*_file`` tables,
and the checks their layouts share.

Every failure to read a user table (missing, a directory, unreadable, not UTF-8, not TOML) and
every layout error the helpers below find becomes one ``RuleError`` naming the rule option, the
file as the user gave it and what is wrong. Built-in tables are parsed once per process.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from analyzer import userfiles
from analyzer.errors import RuleError

PROVENANCE_KEY = "provenance"  # the one key a data table uses for a value's provenance
DRAWN_KEY = "drawn_by"  # top-level key of a drawn table: which content prior and seed made it
TABLE_PROVENANCES = ("seed", "rulebook", "default", "user")


@cache
def builtin_table(package: str, name: str) -> dict:
    """A built-in table ``<package>/data/<name>``, parsed once (treat the result as read-only).

    Parameters
    ----------
    package : str
        A game package, ``"analyzer.games.<game>"``.
    name : str
        File name inside its ``data`` folder, e.g. ``"map.toml"``.
    """
    return tomllib.loads(resources.files(package).joinpath("data", name).read_text("utf-8"))


def read_table(option: str, path: Any, like: str = "") -> dict:
    """A user's TOML table, or one ``RuleError(option, ...)`` naming the file and the problem.

    Parameters
    ----------
    option : str
        The rule option that names the file (a ``*_file`` option).
    path : str or pathlib.Path
        The file as the user gave it.
    like : str
        The built-in table whose layout the file must have, for the "file not found" message.

    Raises
    ------
    RuleError
        Not a path; the file is missing, a directory, not a regular file (a FIFO, a device),
        larger than ``userfiles.TOML_LIMIT``, unreadable, not UTF-8 or not valid TOML (also: nested
        too deep).
    """
    if not isinstance(path, (str, Path)) or not str(path):
        raise RuleError(option, f"must be a path to a TOML file (got {path!r})")
    name = str(path)
    try:
        return userfiles.read_toml(path)
    except userfiles.UnreadableFile as err:
        why = {"missing": f"file not found: {name!r} (give a TOML file laid out like "
                          f"{like or 'the built-in table'})",
               "directory": f"{name!r} is a directory, not a TOML file",
               "encoding": f"{name!r} is {err.reason}",
               "syntax": f"{name!r} is not valid TOML: "
                         f"{err.reason.removeprefix('malformed TOML: ')}"}
        raise RuleError(option, why.get(err.kind, f"{name!r}: {err.reason}")) from None


def load_table(option: str, path: Any, package: str, name: str) -> tuple[dict, str, bool]:
    """The table a game uses: the user's file when ``path`` is set, else the built-in one.

    A file with a top-level ``drawn_by`` key (``DRAWN_KEY``) is a plausible draw of a guessed
    table (``analyzer.model.content`` writes it): still a labelled guess, so it is read from
    ``path`` but its rows keep their own provenances, as the built-in table's do (its guess
    counters count), instead of all being ``"user"``. The key is removed before the game's
    loader sees the table.

    Returns
    -------
    (dict, str, bool)
        The parsed table, its name for messages (the user's path or ``data/<name>``) and
        whether it is the user's own (not a drawn guess).
    """
    if path is None:
        return builtin_table(package, name), f"data/{name}", False
    table = read_table(option, path, f"data/{name}")
    return table, str(path), table.pop(DRAWN_KEY, None) is None


def check_keys(field: str, source: str, where: str, table: Any, allowed: Iterable[str]) -> None:
    """Raise ``RuleError(field, ...)`` if ``table`` is not a table or holds a key outside ``allowed``.

    Parameters
    ----------
    field : str
        The rule option the user set (a ``*_file`` option).
    source : str
        The data file as the user named it (or the built-in file's name).
    where : str
        The table inside the file, e.g. ``"[[site]] 3"``; empty for the top level.
    table : Any
        The parsed TOML table.
    allowed : iterable of str
        The keys (or sub-tables) the layout allows.
    """
    allowed = tuple(allowed)
    if not isinstance(table, dict):
        raise RuleError(field, f"{source}: {where or 'top level'}: must be a table with keys "
                               f"{', '.join(allowed)} (got {table!r})")
    unknown = sorted(str(k) for k in table if k not in allowed)
    if unknown:
        what = f"{where}: unknown key {unknown[0]!r}" if where else f"unknown key or table {unknown[0]!r}"
        raise RuleError(field, f"{source}: {what} (allowed: {', '.join(allowed)})")


ENTRY_KEYS = ("value", PROVENANCE_KEY, "section")


def entry(field: str, source: str, table: dict, key: str, user: bool, where: str = "") -> tuple[Any, str, str]:
    """``(value, provenance, section)`` of an entry table ``[key]`` with keys ``value``,
    ``provenance`` and ``section`` (a section of the game's rules reference).

    Raises
    ------
    RuleError
        The entry is missing, has no ``value``, holds another key or an unknown provenance.
    """
    where = where or f"[{key}]"
    found = table.get(key)
    if not isinstance(found, dict) or "value" not in found:
        raise RuleError(field, f"{source}: missing entry {where} with a `value` (and `provenance`)")
    check_keys(field, source, where, found, ENTRY_KEYS)
    return found["value"], provenance(field, f"{source}: {where}", found, user), str(found.get("section", ""))


def rows(field: str, source: str, table: dict, key: str, allowed: Iterable[str]) -> list[dict]:
    """The non-empty ``[[key]]`` array of ``table``, each row checked with ``check_keys``.

    Raises
    ------
    RuleError
        ``key`` is missing, not an array of tables, empty, or a row holds an unknown key.
    """
    found = table.get(key)
    if not isinstance(found, list) or not found:
        raise RuleError(field, f"{source}: needs a non-empty [[{key}]] array of tables")
    for i, row in enumerate(found):
        check_keys(field, source, f"[[{key}]] {i + 1}", row, allowed)
    return found


#: The largest number a data table may hold (a count of cards, a score, an amount of goods):
#: far above any board game's, and small enough that a game built from it fits in memory.
TABLE_MAX = 1000


def integer(field: str, where: str, value: Any, low: int = 0, high: int = TABLE_MAX) -> int:
    """``value`` if it is an integer (not a bool) in ``low..high``; else ``RuleError`` naming
    ``where``. ``high`` defaults to ``TABLE_MAX``: every table number is bounded before the
    game builds anything from it (a count of 10**9 cards would fill the memory)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low or value > high:
        raise RuleError(field, f"{where}: must be an integer {low}..{high} (got {value!r})")
    return value


def one_of(field: str, where: str, value: Any, allowed: tuple, what: str = "value") -> Any:
    """``value`` if it is one of ``allowed``; else ``RuleError`` naming ``where``, ``what`` the
    value is (e.g. ``"good"``) and the allowed values."""
    if isinstance(value, (list, dict)) or value not in allowed:
        raise RuleError(field, f"{where}: unknown {what} {value!r} (allowed: {', '.join(map(str, allowed))})")
    return value


def provenance(field: str, where: str, row: dict, user: bool, default: str = "default") -> str:
    """A row's provenance: ``"user"`` for every value of a user's table, else the row's
    ``provenance`` key (checked) or ``default``."""
    if user:
        return "user"
    return one_of(field, where, row.get(PROVENANCE_KEY, default), TABLE_PROVENANCES, PROVENANCE_KEY)
