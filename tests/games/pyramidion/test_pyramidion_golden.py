"""Golden replay: the readable log and the chosen actions of one seeded 4-player greedy game,
diffed line by line; the stored actions replayed through the forward model give the same log.

A rules or policy change that moves this game shows up here; after checking the diff by eye,
regenerate with ``PYRAMIDION_GOLDEN=1 pytest tests/games/pyramidion/test_pyramidion_golden.py``.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

from analyzer.games.base import build_policy, game_streams
from analyzer.games.pyramidion import default_config, new_state, play_game
from analyzer.games.pyramidion.search import POLICIES

GOLDEN = Path(__file__).parent / "golden"
LOG = GOLDEN / "pyramidion_4p_greedy_seed7.txt"
ACTIONS = GOLDEN / "pyramidion_4p_greedy_seed7_actions.jsonl"
SEED = 7


def _tuples(x):
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _diff(expected: str, text: str) -> str:
    return "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), "stored", "now", n=1))[:4000]


def _greedy_actions() -> list:
    """The (seat, decision kind, action) of every decision of the game, played by the loop."""
    state = new_state(default_config(4), SEED)
    _, rngs = game_streams(SEED, 4)
    players = [build_policy(POLICIES, "greedy").player(s) for s in range(4)]
    out = []
    while not state.is_terminal():
        seat = state.current_seat()
        action = players[seat].choose(state.view(seat), rngs[seat])
        out.append([seat, state.decision_kind(), action])
        state.apply(action)
    return out


def test_golden_replay_4p_greedy_seed7():
    """docs/rules/pyramidion.md §4–§6 end to end: same seed, greedy everywhere ⇒ the stored
    replay log and the stored actions."""
    lines: list[str] = []
    play_game(default_config(4), "greedy", SEED, log=lines.append)
    text = "\n".join(lines) + "\n"
    acts = "".join(json.dumps(a) + "\n" for a in _greedy_actions())
    if os.environ.get("PYRAMIDION_GOLDEN"):
        LOG.write_text(text)
        ACTIONS.write_text(acts)
    expected = LOG.read_text()
    assert text == expected, _diff(expected, text)
    assert acts == ACTIONS.read_text()


def test_golden_actions_replayed_through_the_forward_model():
    """The stored actions applied to ``new_state`` (no players at all) give the stored log
    (after its policy header line) and a finished game."""
    lines: list[str] = []
    state = new_state(default_config(4), SEED, log=lines.append)
    for line in ACTIONS.read_text().splitlines():
        seat, kind, action = json.loads(line)
        assert (state.current_seat(), state.decision_kind()) == (seat, kind)
        state.apply(_tuples(action))
    assert state.is_terminal()
    expected = LOG.read_text().splitlines(True)[1:]
    text = "\n".join(lines) + "\n"
    assert text == "".join(expected), _diff("".join(expected), text)
