"""Replay logs of the three games: a seat/policy header line, the Rattus legend, plural wording."""

from __future__ import annotations

import re

import pytest

from analyzer.games import cartus, pyramidion, rattus


def _log(game: str) -> list[str]:
    lines: list[str] = []
    if game == "rattus":
        rattus.play_game(rattus.default_config(4, ("africanus",)), ["greedy", "random"] * 2, 3, lines.append)
    elif game == "cartus":
        cartus.play_game(cartus.default_config(4), ["greedy", "random"] * 2, 3, lines.append)
    else:
        pyramidion.play_game(pyramidion.default_config(4), ["greedy", "random"] * 2, 3, lines.append)
    return lines


@pytest.mark.parametrize("game", ["rattus", "cartus", "pyramidion"])
def test_log_header_names_policy_per_seat(game):
    lines = _log(game)
    header = [ln for ln in lines[:5] if ln.startswith("policies: ")]
    assert header == ["policies: seat 0 greedy, seat 1 random, seat 2 greedy, seat 3 random"], lines[:5]


@pytest.mark.parametrize("game", ["rattus", "cartus", "pyramidion"])
def test_log_wording_is_plural_aware(game):
    text = "\n".join(_log(game))
    assert "(s)" not in text
    assert not re.search(r"\b1 (cubes|rats|cards)\b(?! \d)", text)


def test_rattus_log_explains_token_abbreviations():
    legend = [ln for ln in _log("rattus")[:6] if ln.startswith("legend: ")]
    assert len(legend) == 1
    assert all(w in legend[0] for w in ("5+M+Is", "Bo", "bourgeoisie", "Is", "islam", "M = ", "A = "))
