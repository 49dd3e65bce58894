"""Strict key checks shared by the games' data-table loaders (every ``*_file`` rule option)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from analyzer.errors import RuleError


def check_keys(field: str, source: str, where: str, table: Any, allowed: Iterable[str]) -> None:
    """Raise ``RuleError(field, ...)`` if ``table`` (a dict) holds a key outside ``allowed``.

    Parameters
    ----------
    field : str
        The rule option the user set (a ``*_file`` option).
    source : str
        The data file as the user named it (or the built-in file's name).
    where : str
        The table inside the file, e.g. ``"regions[3]"``; empty for the top level.
    table : Any
        The parsed TOML table; anything but a dict is left to the caller's own checks.
    allowed : iterable of str
        The keys (or sub-tables) the layout allows.
    """
    if not isinstance(table, dict):
        return
    allowed = tuple(allowed)
    unknown = sorted(k for k in table if k not in allowed)
    if unknown:
        what = f"{where}: unknown key {unknown[0]!r}" if where else f"unknown key or table {unknown[0]!r}"
        raise RuleError(field, f"{source}: {what} (allowed: {', '.join(allowed)})")


def option_help(default: Any, allowed: str, help_: str, section: str) -> str:
    """One line per rule option, the same for every game (``analyzer list rules``).

    Reads ``default <value>; allowed: <values or type>; <help> (<rules section>)``.
    """
    return f"default {default!r}; allowed: {allowed}; {help_} ({section})"
