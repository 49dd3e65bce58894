"""Shared fixtures: the toy game (tests/toygame.py) registered as ``toy`` and scenario files."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # so `toygame` imports here and in loky workers

import toygame

from analyzer.games import register_game

register_game(toygame.SPEC)

# the measured speeds of analyzer.plan go to a cache of this test session, not the user's
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="analyzer-test-cache-")

TOY_SCENARIO = """\
name = "toy-study"
game = "toy"
players = 3
games = 60
seed = 42

[rules]
sides = 6
cards = ["peasant", "sultan", "trader"]

[[seats]]
policy = "biased"
name = "bold"
params = { boost = 1.0, chance = 0.8 }

[[seats]]
policy = "random"

[[seats]]
policy = "biased"

[[variants]]
name = "no-sultan"
rules = { cards = ["peasant", "merchant", "trader"] }

[[variants]]
name = "no-trader"
rules = { cards = ["peasant", "sultan", "merchant"] }
"""


@pytest.fixture
def toy_file(tmp_path: Path) -> Path:
    """A valid toy scenario with two variants, written to a temporary folder."""
    path = tmp_path / "toy.toml"
    path.write_text(TOY_SCENARIO)
    return path


@pytest.fixture
def write_scenario(tmp_path: Path):
    """Write scenario text to ``tmp_path / name`` and return the path."""
    def write(text: str, name: str = "s.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path
    return write
