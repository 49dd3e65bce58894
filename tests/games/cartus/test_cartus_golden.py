"""Golden replay: the readable log of one fixed 4-player game, diffed line by line.

A rules or policy change that moves this game shows up here; after checking the diff by eye,
regenerate with ``CARTUS_GOLDEN=1 pytest tests/games/cartus/test_cartus_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

from analyzer.games.cartus import default_config, play_game

GOLDEN = Path(__file__).parent / "golden" / "cartus_4p_seed7.txt"


def test_golden_replay_4p_seed7():
    """rules §3–§7 end to end: same seed, same policies ⇒ the stored replay log."""
    lines: list[str] = []
    play_game(default_config(4), ["greedy", "random", "cautious", "random"], 7, log=lines.append)
    text = "\n".join(lines) + "\n"
    if os.environ.get("CARTUS_GOLDEN"):
        GOLDEN.write_text(text)
    assert text.splitlines() == GOLDEN.read_text().splitlines()
