"""Replay logs of every game: a seat/policy header line, the Rattus legend, plural wording."""

from __future__ import annotations

import re

import pytest

from analyzer.games import available_games, get_game


def _policies(game: str) -> list[str]:
    """greedy, random, greedy, ... at the game's benchmark table (4 players; Rattus with
    Africanus)."""
    return (["greedy", "random"] * 9)[:get_game(game).bench_table().players]


def _log(game: str) -> list[str]:
    lines: list[str] = []
    spec = get_game(game)
    bench = spec.bench_table()
    spec.play_game(spec.make_config(bench.players, bench.expansions, {}), _policies(game), 3, lines.append)
    return lines


@pytest.mark.parametrize("game", available_games())
def test_log_header_names_policy_per_seat(game):
    lines = _log(game)
    header = [ln for ln in lines[:5] if ln.startswith("policies: ")]
    seats = ", ".join(f"seat {i} {p}" for i, p in enumerate(_policies(game)))
    assert header == [f"policies: {seats}"], lines[:5]


@pytest.mark.parametrize("game", available_games())
def test_log_wording_is_plural_aware(game):
    text = "\n".join(_log(game))
    assert "(s)" not in text
    assert not re.search(r"\b1 (cubes|rats|cards)\b(?! \d)", text)


def test_rattus_log_explains_token_abbreviations():
    legend = [ln for ln in _log("rattus")[:6] if ln.startswith("legend: ")]
    assert len(legend) == 1
    assert all(w in legend[0] for w in ("5+M+Is", "Bo", "bourgeoisie", "Is", "islam", "M = ", "A = "))
