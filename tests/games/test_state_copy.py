"""The one way a position is copied (``analyzer/model/copying.py``), for every registered game.

Each game's position is a dataclass whose fields are listed once; ``copy()`` goes through
``copy_fields``, or gives what it gives with the fields written out (Rattus, whose copy is made
at every search iteration; ``test_copy_misses_no_field`` catches a field left out). Checked on a
toy dataclass (what is copied, what is shared) and on positions of every game reached by random
play: the copy has every field equal, shares no list (nor a list
inside one) and no mutable dataclass (the config, frozen, is shared), and is of the same class.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from analyzer.games import available_games, get_game
from analyzer.model.base import build_policy
from analyzer.model.copying import copy_fields, field_names


@dataclasses.dataclass(slots=True)
class Toy:
    cfg: object
    rows: list[list[int]] = dataclasses.field(default_factory=list)
    flat: list[float] = dataclasses.field(default_factory=list)
    pairs: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    options: tuple = ()
    ctx: dict | None = None
    kind: str = ""

    def __post_init__(self) -> None:
        self.kind = "made by __init__"


def test_copy_fields_copies_lists_two_levels_deep_and_shares_the_rest():
    cfg = object()
    src = Toy(cfg, [[1, 2], [3]], [0.5], [(1, 2)], ((1,), 2), {"a": 1})
    src.kind = "played"
    out = copy_fields(src, field_names(Toy))
    assert type(out) is Toy and out == src
    assert out.kind == "played"  # __init__ (and __post_init__) not run
    assert out.rows is not src.rows and all(a is not b for a, b in zip(out.rows, src.rows))
    assert out.flat is not src.flat and out.pairs is not src.pairs
    assert out.pairs[0] is src.pairs[0]  # tuples are immutable: shared
    assert out.cfg is cfg and out.options is src.options and out.ctx is src.ctx
    out.rows[0].append(9)
    out.flat.append(1.0)
    assert src.rows == [[1, 2], [3]] and src.flat == [0.5]
    assert field_names(Toy) == ("cfg", "rows", "flat", "pairs", "options", "ctx", "kind")


def _positions(game) -> list:
    """The dataclass objects holding ``game``'s position: the game itself or what it holds."""
    found = [x for x in (game, getattr(game, "state", None), getattr(game, "st", None))
             if x is not None and dataclasses.is_dataclass(x)]
    assert found, f"{type(game).__name__}: no position dataclass found"
    return found


@pytest.mark.parametrize("name", available_games())
@pytest.mark.parametrize("moves", [0, 25, 90])
def test_every_game_copies_its_position_field_by_field(name, moves):
    spec = get_game(name)
    table = spec.bench_table()
    config = spec.make_config(table.players, table.expansions, {})
    game = spec.new_state(config, 11)
    policy = build_policy(spec.policies, "random")
    players = [policy.player(s) for s in range(table.players)]
    rng = random.Random(moves)
    for _ in range(moves):
        if game.is_terminal():
            break
        seat = game.current_seat()
        game.apply(players[seat].choose(game.view(seat), rng))
    for pos in _positions(game):
        out = pos.copy()
        assert type(out) is type(pos)
        for f in dataclasses.fields(pos):
            a, b = getattr(pos, f.name), getattr(out, f.name)
            assert a == b, f.name
            if isinstance(a, list):
                assert a is not b, f"{f.name} is shared"
                assert not any(x is y for x, y in zip(a, b) if isinstance(x, list)), f"{f.name}[i] is shared"
            elif dataclasses.is_dataclass(a) and not type(a).__dataclass_params__.frozen:  # a tally
                assert a is not b, f"{f.name} is shared"


def _marked(value, i: int):
    """A value of ``value``'s kind that no position holds by default, distinct for each ``i``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 1000 + i
    if isinstance(value, float):
        return 1000.5 + i
    if isinstance(value, str):
        return f"marked {i}"
    if isinstance(value, tuple):
        return (i, i)
    if isinstance(value, list):
        return [[i, i + 1], [i + 2]] if value and isinstance(value[0], list) else [i, i + 1]
    return value  # the config, a tally, a generator: shared or copied by the game's own rule


@pytest.mark.parametrize("name", available_games())
def test_copy_misses_no_field(name):
    """A position's ``copy()`` (written out field by field where it is hot, Rattus) gives what
    ``copy_fields`` gives over every field: each field is set to a value no default holds
    first, so a field added to the class and left out of a written-out copy fails here."""
    spec = get_game(name)
    table = spec.bench_table()
    game = spec.new_state(spec.make_config(table.players, table.expansions, {}), 5)
    for pos in _positions(game):
        names = field_names(type(pos))
        for i, f in enumerate(names):
            setattr(pos, f, _marked(getattr(pos, f), i))
        out, ref = pos.copy(), copy_fields(pos, names)
        for f in names:
            a, b = getattr(out, f), getattr(ref, f)
            if dataclasses.is_dataclass(a) and not type(a).__dataclass_params__.frozen:
                continue  # a tally: copied by the position's own copy() (checked above)
            assert a == b, f"{f} is not copied"
            if isinstance(a, list):  # (compiled, an int field is boxed anew at each read)
                assert a is not getattr(pos, f), f"{f}: a list is shared"
