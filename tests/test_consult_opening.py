"""Copy-on-consult for Rattus ``opening_pairs_distinct_regions`` (issue #37, item 2), whose other
value adds an option at each second opening pair (docs/rules/rattus.md §6.1): its read depends
on the player (``forward.Player.pick_among``, ``keeps_pick``). With every kind of seat, the
condition (false) copied from the default's games that did not consult it gives a full
replay's records, byte for byte. Greedy seats keep their pick when the added region scores
below it, so most of their games are copied; random and search seats declare nothing, so
their games are replayed."""

from __future__ import annotations

import pytest
from test_consult import check_option
from test_consult_placement import SEATS

GAMES = {"greedy": 100, "tuned": 100, "tuned-vs-greedy": 60, "random": 40, "ismcts": 8}


@pytest.mark.parametrize("seats", list(SEATS))
def test_opening_pairs_copy_equals_full_replay(tmp_path, seats):
    """Each kind of seat: the alternative (false) copied from the default's games that did
    not consult it equals its full replay; greedy tables copy most games, a random or
    searching seat reads the option in every game."""
    total, copied = check_option(tmp_path, "rattus", "opening_pairs_distinct_regions", False,
                                 GAMES[seats], lambda spec, n: SEATS[seats](n))
    if seats in ("random", "ismcts"):
        assert copied == 0, f"{seats}: a game copied though a seat declares nothing"
    else:
        assert copied >= 0.8 * total, f"{seats}: only {copied} of {total} games copied"
