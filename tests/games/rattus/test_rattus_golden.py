"""Golden replay log: a 4p Africanus seed-7 game diffed against a stored file.

Regenerate only deliberately (a rule or policy change): ``RATTUS_REGEN_GOLDEN=1 pytest tests/games/rattus``.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from analyzer.games.rattus import default_config, play_game

GOLDEN = Path(__file__).parent / "golden" / "rattus_4p_africanus_seed7.txt"
POLICIES = ["greedy", "random", "greedy", "random"]


def _replay() -> str:
    lines: list[str] = []
    play_game(default_config(4, ("africanus",)), POLICIES, 7, lines.append)
    return "\n".join(lines) + "\n"


def test_golden_log_4p_africanus_seed7():
    """The replay log of the stored game is unchanged, line for line."""
    text = _replay()
    if os.environ.get("RATTUS_REGEN_GOLDEN"):
        GOLDEN.write_text(text)
    expected = GOLDEN.read_text()
    diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), "stored", "now", n=1))
    assert text == expected, diff[:4000]
