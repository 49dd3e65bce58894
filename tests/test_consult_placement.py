"""Copy-on-consult for Rattus ``placement_mandatory`` (issue #37, item 2), whose read depends on
the player (``forward.Player.pick_among``): with every kind of seat, a condition that copies
the games that did not consult it gives a full replay's records, byte for byte. The greedy
seats declare what they picked among, so most of their games are copied; random and search
seats declare nothing, so their games are replayed."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from test_consult import check_option

from analyzer.games import rattus

TUNED = json.dumps(tomllib.loads(
    (Path(rattus.__file__).parent / "greedy-tuned.toml").read_text())["params"])
SEATS = {
    "greedy": lambda n: ["greedy"] * n,
    "tuned": lambda n: ["greedy:" + TUNED] * n,
    "tuned-vs-greedy": lambda n: ["greedy:" + TUNED] + ["greedy"] * (n - 1),
    "random": lambda n: ["random"] + ["greedy"] * (n - 1),
    "ismcts": lambda n: ["ismcts:" + json.dumps({"iterations": 4})] + ["greedy"] * (n - 1),
}
GAMES = {"greedy": 30, "tuned": 30, "tuned-vs-greedy": 30, "random": 12, "ismcts": 4}


@pytest.mark.parametrize("seats", list(SEATS))
def test_placement_mandatory_copy_equals_full_replay(tmp_path, seats):
    """Each kind of seat: the alternative (true) copied from the default's games that did not
    consult it equals its full replay; greedy tables copy most games, a random or searching
    seat reads the option in every game here."""
    total, copied = check_option(tmp_path, "rattus", "placement_mandatory", True, GAMES[seats],
                                 lambda spec, n: SEATS[seats](n))
    if seats in ("random", "ismcts"):
        assert copied == 0, f"{seats}: a game copied though a seat declares nothing"
    else:
        assert copied >= 0.8 * total, f"{seats}: only {copied} of {total} games copied"
