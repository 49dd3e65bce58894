"""Atomic file writes of the report: the one helper lives in ``analyzer.files``."""

from analyzer.files import atomic_path, atomic_write

__all__ = ["atomic_path", "atomic_write"]
