"""A test-only game that kills the worker process playing it: ``toy`` plus a fault switch.

Rule options (besides the toy's ``sides`` and ``cards``):

- ``die_marker`` (str, required): a file path; the first worker to create it dies.
- ``die`` (``"once"`` | ``"always"``): die only in the worker that creates the marker, or in
  every worker process that plays a game.
- ``main_pid`` (int, required): the test process, which never dies (so a sequential run or the
  loader's validation is safe).

A worker dies with ``os._exit`` (no cleanup, as a SIGKILL or an OOM kill would), before it
returns its chunk. Nothing here is reachable from a user scenario: the game is registered only
by the tests.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import toygame

from analyzer.errors import RuleError


@dataclass(frozen=True)
class FaultConfig:
    toy: toygame.ToyConfig
    die: str
    marker: str
    main_pid: int


def make_config(players, expansions, rules):
    rules = dict(rules)
    die = rules.pop("die", "once")
    if die not in ("once", "always"):
        raise RuleError("die", f"must be 'once' or 'always' (got {die!r})")
    marker = rules.pop("die_marker", None)
    main_pid = rules.pop("main_pid", None)
    if not isinstance(marker, str) or not isinstance(main_pid, int):
        raise RuleError("die_marker", "die_marker (str) and main_pid (int) are required")
    return FaultConfig(toygame.make_config(players, expansions, rules), die, marker, main_pid)


def play_game(config, policies, seed, log=None):
    if os.getpid() != config.main_pid:
        try:
            fd = os.open(config.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.close(fd)
            created = True
        except FileExistsError:
            created = False
        if created or config.die == "always":
            os._exit(17)
    return toygame.play_game(config.toy, policies, seed, log)


def rule_values(config):
    return toygame.rule_values(config.toy)


SPEC = replace(toygame.SPEC, name="faulty", make_config=make_config, play_game=play_game,
               rule_values=rule_values)
