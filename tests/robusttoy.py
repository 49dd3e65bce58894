"""A toy game whose balance depends on the players and on a guessed table, for ``analyzer
balance --over`` tests (tests/balancetoy.py with two policies and a content prior).

The rules are balancetoy's (each seat scores ``factor × (gain + u) + offset × 2v``, the start
player, seat 0, gets ``lead`` more), but the start player's policy moves the lead:

    lead = edge + 0.1 × (steps − 5) − 0.1 × lag + (bonus − 0.1) + (0.2 if seat 0 plays "bold")

so with ``edge = 0`` and the built-in bonus (0.1) the start player's edge (``first_player:base``)
is 0 at ``steps = 5`` for ``plain`` players and at ``steps = 3`` for ``bold`` ones. With two
players and lead ``L`` the start player wins ``1/2 + L − L·|L|/2`` of the games: ``L = ±0.1``
gives ±9.5 pp, ``±0.2`` ±18 pp. Over both players (worst case) the value is ``steps = 4`` (each
0.1 away), not the single player's 5.

The bonus table is a labelled guess with a content prior ``bonus``, whose every draw puts the
start bonus at ``DRAWN`` (0.03: the lead 0.07 lower).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import balancetoy

from analyzer.model.base import GameSpec, OptionSet, RuleValue, game_streams, rank_and_won
from analyzer.model.content import ContentPrior

DRAWN = 0.03  # the start bonus of every draw of the prior
SHIFT = 0.2  # the lead a bold start player adds


@dataclass(frozen=True)
class Config:
    base: balancetoy.Config
    guessed: bool  # the bonus table is the built-in (a labelled default)


@dataclass(frozen=True)
class Plain:
    """Plays nothing: the dice decide."""


@dataclass(frozen=True)
class Bold:
    """Plays nothing either, but a bold start player leads by ``SHIFT`` more."""


OPTIONS = OptionSet("robusttoy", balancetoy.OPTIONS.options)


def make_config(players, expansions, rules):
    return Config(balancetoy.make_config(players, expansions, rules),
                  not rules.get("bonus_file"))


def play_game(config, policies, seed, log=None):
    c = config.base
    n = c.players
    chance, _ = game_streams(seed, n)
    u = [chance.random() for _ in range(n)]
    v = [chance.random() for _ in range(n)]
    lead = c.lead + (SHIFT if isinstance(policies[0], Bold) else 0.0)
    scores = [c.factor * (c.gain + u[s]) + c.offset * 2 * v[s] + (lead if s == 0 else 0.0)
              for s in range(n)]
    ranks, won = rank_and_won(scores)
    game = {"n_players": n, "rounds": 1, "end": "trigger",
            "winner_seats": ",".join(str(s) for s in range(n) if ranks[s] == 1),
            "rules_version": "robusttoy-1"}
    seats = [{"seat": s, "policy": type(policies[s]).__name__, "score": scores[s],
              "rank": ranks[s], "won": won[s], "start_position": s} for s in range(n)]
    return game, seats


def rule_values(config):
    return [RuleValue("edge", config.base.lead, "default", "robusttoy rule 1"),
            RuleValue("bonus", "built-in", "default" if config.guessed else "user",
                      "robusttoy rule 6")]


def _generate(rng: random.Random) -> dict:
    rng.random()  # a draw's one random choice: its value is fixed (DRAWN)
    return {"bonus": [{"name": "start", "value": DRAWN}, {"name": "other", "value": 0.0}]}


BONUS_PRIOR = ContentPrior(
    table="bonus", option="bonus_file", section="robusttoy rule 6",
    known=("two entries: start and other",), varies=(f"start: always {DRAWN}",),
    generate=_generate, summary=lambda t: f"start bonus {t['bonus'][0]['value']}",
    rule_values=("bonus",), plural="bonus tables")

SPEC = GameSpec(
    name="robusttoy",
    players=balancetoy.PlayerCounts("robusttoy", 2, 4),
    rules_version="robusttoy-1",
    make_config=make_config,
    play_game=play_game,
    policies={"plain": Plain, "bold": Bold},
    game_columns=dict(balancetoy.COMMON_GAME_COLUMNS),
    seat_columns=dict(balancetoy.COMMON_SEAT_COLUMNS),
    rule_values=rule_values,
    options=OPTIONS,
    tables={"bonus_file": balancetoy.BONUS},
    content_priors=(BONUS_PRIOR,),
)
