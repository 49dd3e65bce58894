"""The contract every registered game keeps with the rest of analyzer (model/base.py).

Parametrized over every game package of the registry and every player count it allows: random
games finish, records carry exactly the declared columns, the same seed gives the same records,
and win shares add up to one game.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from analyzer.errors import RuleError
from analyzer.games import available_games, get_game
from analyzer.model.base import (
    COMMON_GAME_COLUMNS,
    COMMON_SEAT_COLUMNS,
    SHARED_SEAT_COLUMNS,
    build_policy,
)
from analyzer.report.extension import StudySection

GAMES = available_games()


def _cases():
    for name in GAMES:
        spec = get_game(name)
        for players in range(spec.min_players, spec.max_players + 1):
            for expansions in ([()] + [(e,) for e in spec.expansions]):
                try:
                    config = spec.make_config(players, expansions, {})
                except RuleError:  # e.g. 5-6 player Rattus needs Africanus
                    continue
                yield pytest.param(name, players, expansions, config, id=f"{name}-{players}p-{'+'.join(expansions) or 'base'}")


CASES = list(_cases())


@pytest.mark.parametrize("name,players,expansions,config", CASES)
def test_random_games_finish_with_declared_records(name, players, expansions, config):
    spec = get_game(name)
    for seed in range(5):
        game, seats = spec.play_game(config, ["random"] * players, seed)
        assert set(game) == set(spec.game_columns)
        assert set(COMMON_GAME_COLUMNS) <= set(game)
        assert len(seats) == players
        for s, rec in enumerate(seats):
            assert set(rec) == set(spec.seat_columns)
            assert set(COMMON_SEAT_COLUMNS) <= set(rec)
            assert rec["seat"] == s
        # A game may have no winner where the rules say so (docs/rules/cartus.md §7.1, everyone dies).
        shares = sum(r["won"] for r in seats)
        assert shares == pytest.approx(1.0) or (shares == 0 and game["winner_seats"] == "")
        assert min(r["rank"] for r in seats) == 1
        assert game["n_players"] == players
        assert game["end"] in ("trigger", "turn_cap")
        winners = {int(x) for x in str(game["winner_seats"]).split(",") if x}
        assert winners == {r["seat"] for r in seats if r["won"] > 0}


@pytest.mark.parametrize("name,players,expansions,config", CASES)
def test_same_seed_same_records(name, players, expansions, config):
    spec = get_game(name)
    policies = ["greedy"] * players
    a = spec.play_game(config, policies, np.random.SeedSequence(20261129, spawn_key=(3,)))
    b = spec.play_game(config, policies, np.random.SeedSequence(20261129, spawn_key=(3,)))
    assert a == b
    c = spec.play_game(config, policies, np.random.SeedSequence(20261129, spawn_key=(4,)))
    assert a != c  # the seed matters


@pytest.mark.parametrize("name", GAMES)
def test_every_policy_plays(name):
    spec = get_game(name)
    players = max(spec.min_players, min(4, spec.max_players))
    config = next(c.values[3] for c in CASES if c.values[0] == name and c.values[1] == players)
    for policy in spec.policies:
        _, seats = spec.play_game(config, [policy] * players, 11)
        assert [r["policy"] for r in seats] == [policy] * players


@pytest.mark.parametrize("name", GAMES)
def test_declared_dtypes_are_pandas_dtypes(name):
    import pandas as pd

    spec = get_game(name)
    for dtype in list(spec.game_columns.values()) + list(spec.seat_columns.values()):
        pd.api.types.pandas_dtype(dtype)


@pytest.mark.parametrize("name", GAMES)
def test_rule_values_carry_provenance(name):
    spec = get_game(name)
    config = spec.make_config(spec.min_players + 1, (), {}) if name != "rattus" else spec.make_config(4, ("africanus",), {})
    values = spec.rule_values(config)
    assert values
    assert {v.provenance for v in values} <= {"seed", "rulebook", "default", "user"}


@pytest.mark.parametrize("name", GAMES)
def test_shared_columns_keep_their_meaning(name):
    """A seat column the generic report knows (``died``, ``tiebreak``) has its shared dtype."""
    spec = get_game(name)
    for column, dtype in SHARED_SEAT_COLUMNS.items():
        if column in spec.seat_columns:
            assert spec.seat_columns[column] == dtype, column


@pytest.mark.parametrize("name", GAMES)
def test_study_sections_are_declared(name):
    """The game's own report sections: ``StudySection`` objects with their own summary keys,
    none taken by the generic report."""
    spec = get_game(name)
    assert spec.sections is not None
    sections = spec.sections()
    keys = [s.key for s in sections]
    assert sections and all(isinstance(s, StudySection) and callable(s.numbers)
                            and callable(s.write) for s in sections)
    assert len(set(keys)) == len(keys)
    assert not set(keys) & {"results", "variants", "balance", "studies"}
    assert spec.title and spec.item_kind


@pytest.mark.parametrize("name", GAMES)
def test_one_policy_name_or_object_plays_every_seat(name):
    """One rule in every game (model/base.py resolve_policies): a single name or policy object
    means every seat; a sequence gives one per seat; a wrong length is a RuleError."""
    spec = get_game(name)
    players = spec.min_players + 1
    config = spec.make_config(players, (), {})
    seed = 11
    by_seat = spec.play_game(config, ["random"] * players, seed)
    assert spec.play_game(config, "random", seed) == by_seat
    assert spec.play_game(config, ("random",) * players, seed) == by_seat
    one = build_policy(spec.policies, "random")
    assert spec.play_game(config, one, seed) == by_seat
    assert all(r["policy"] == "random" for r in spec.play_game(config, "random", seed)[1])
    for wrong in (["random"] * (players + 1), ["random"], []):
        with pytest.raises(RuleError, match=f"{players} players need {players} policies"):
            spec.play_game(config, wrong, seed)


# How each game's replay log names the first start player (the seat that acts first in round 1),
# and the rule options that make the start player random (docs/rules/cartus.md §3 step 8
# starts at seat 0 by default; Rattus and Pyramidion draw it).
FIRST_START = {"rattus": r"start player seat (\d+)", "cartus": r"start player seat (\d+)",
               "pyramidion": r"Round 1 \(order \[(\d+)"}
RANDOM_START = {"cartus": {"start_player": "random"}}


@pytest.mark.parametrize("name,players,expansions,config", CASES)
def test_start_position_counts_from_the_first_start_player(name, players, expansions, config):
    """``start_position`` 0 is the seat the replay log names as round 1's start player, and the
    positions are a permutation of 0..n-1 (at 5-player Cartus they were once counted from the
    start player at the end of the game)."""
    assert name in FIRST_START, f"{name}: add its replay log's start-player line to FIRST_START"
    spec = get_game(name)
    config = spec.make_config(players, expansions, RANDOM_START.get(name, {}))
    firsts = set()
    for seed in range(8):
        lines: list[str] = []
        _, seats = spec.play_game(config, ["random"] * players, seed, log=lines.append)
        found = [m for m in (re.search(FIRST_START[name], line) for line in lines) if m]
        assert found, f"{name}: no start player in the replay log"
        first = int(found[0].group(1))
        assert sorted(r["start_position"] for r in seats) == list(range(players))
        assert [r["seat"] for r in seats if r["start_position"] == 0] == [first]
        firsts.add(first)
    assert len(firsts) > 1, "the start player never changed: the test cannot tell the seats apart"
