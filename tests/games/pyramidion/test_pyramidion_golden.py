"""Golden replay: the readable log of one seeded 4-player greedy game, diffed line by line (the
stored actions of a game replay through the forward model in tests/games/test_forward_model.py).

A rules or policy change that moves this game shows up here; after checking the diff by eye,
regenerate with ``PYRAMIDION_GOLDEN=1 pytest tests/games/pyramidion/test_pyramidion_golden.py``.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from analyzer.games.pyramidion import default_config, play_game

GOLDEN = Path(__file__).parent / "golden"
LOG = GOLDEN / "pyramidion_4p_greedy_seed7.txt"
SEED = 7


def _diff(expected: str, text: str) -> str:
    return "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), "stored", "now", n=1))[:4000]


def test_golden_replay_4p_greedy_seed7():
    """docs/rules/pyramidion.md §4–§6 end to end: same seed, greedy everywhere ⇒ the stored
    replay log."""
    lines: list[str] = []
    play_game(default_config(4), "greedy", SEED, log=lines.append)
    text = "\n".join(lines) + "\n"
    if os.environ.get("PYRAMIDION_GOLDEN"):
        LOG.write_text(text)
    expected = LOG.read_text()
    assert text == expected, _diff(expected, text)
