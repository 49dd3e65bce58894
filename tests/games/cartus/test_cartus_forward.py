"""The Rattus Cartus forward model beyond the contract every game keeps
(tests/games/test_forward_model.py): what determinization redraws, information sets, what the
seat's view refuses, legal answers of each kind (docs/rules/cartus.md §11), the search player."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from analyzer.errors import HiddenInformation, IllegalChoice
from analyzer.games.cartus import SPEC, default_config, new_state, play_game
from analyzer.games.cartus.config import N_TYPES, PASS
from analyzer.games.cartus.resolution import count_vectors, counts_ok
from analyzer.model.base import build_policy, game_streams

RULES = [{}, {"rats_visible": False, "sword_chooser": "random", "start_player": "random"},
         {"sword_target": "any_player", "flute_target": "any_player", "building_spaces": 2}]


def advance(st, players, rngs, steps: int) -> None:
    """Play ``steps`` decisions (or to the end) with ``players``."""
    for _ in range(steps):
        if st.is_terminal():
            return
        s = st.current_seat()
        st.apply(players[s].choose(st.view(s), rngs[s]))


def greedy_game(n: int, seed: int, rules=None):
    """A new game with greedy players and their generators."""
    st = new_state(default_config(n, **(rules or {})), seed)
    _, rngs = game_streams(seed, n)
    return st, [build_policy(SPEC.policies, "greedy").player(s) for s in range(n)], rngs


@pytest.mark.parametrize("n", [2, 4, 5])
@pytest.mark.parametrize("rules", RULES)
def test_determinize_redraws_every_hidden_place_and_keeps_every_card(n, rules):
    """docs/rules/cartus.md §11: the other hands, face-down cards, deck order, unseen Nun-row
    cards and building order are redrawn; the seat's hand and every card are kept."""
    st, players, rngs = greedy_game(n, 11, rules)
    varied = {"hands": 0, "deck": 0, "nun_row": 0, "buildings": 0, "entries": 0}
    checked = 0
    while not st.is_terminal():
        seat = st.current_seat()
        for seed in range(4):
            d = st.determinize(seat, seed)
            assert d.hands[seat] == st.hands[seat]
            varied["hands"] += d.hands != st.hands
            varied["deck"] += d.deck != st.deck
            varied["nun_row"] += d.nun_row != st.nun_row
            varied["buildings"] += d.building_deck != st.building_deck
            varied["entries"] += d.entries != st.entries
            # conservation: the same cards, only elsewhere
            assert sorted(d.deck + [k for h in d.hands for k in range(6) for _ in range(h[k])]
                          + d.nun_row_class + [k for e in d.entries for _, c in e for k in range(6) for _ in range(c[k])]) \
                == sorted(st.deck + [k for h in st.hands for k in range(6) for _ in range(h[k])]
                          + st.nun_row_class + [k for e in st.entries for _, c in e for k in range(6) for _ in range(c[k])])
            assert [sum(h) for h in d.hands] == [sum(h) for h in st.hands]
        checked += 1
        advance(st, players, rngs, 7)
    assert checked > 10
    assert all(v > 0 for v in varied.values()), varied


def test_information_key_holds_what_the_seat_has_seen():
    """A look (rules §4 phase B) shows one Nun-row card to one seat: only that seat's key
    depends on the card's value; the position looked at is public."""
    st = new_state(default_config(3), 4)
    st.nun_row[2] = 4
    twin = st.clone()
    twin.nun_row[2] = 0
    assert st.information_key(0) == twin.information_key(0)
    st.seen[1] |= 1 << 2
    twin.seen[1] |= 1 << 2
    assert st.information_key(0) == twin.information_key(0)
    assert st.information_key(1) != twin.information_key(1)
    assert st.view(1).nun_card(2) == (st.nun_row_class[2], 4)
    with pytest.raises(HiddenInformation):
        st.view(0).nun_card(2)


def test_view_hides_other_hands_face_down_cards_and_rats():
    st, players, rngs = greedy_game(4, 2, {"rats_visible": False})
    while st.decision_kind() != "cards" or not any(st.sizes[r] for r in range(len(st.row))):
        advance(st, players, rngs, 1)
    seat = st.current_seat()
    v = st.view(seat)
    assert v.rats(seat) == st.rats[seat]
    with pytest.raises(HiddenInformation):
        v.rats((seat + 1) % 4)
    r, i = next((r, i) for r in range(len(st.row)) for i, (s, _) in enumerate(st.entries[r]) if s != seat)
    with pytest.raises(HiddenInformation):
        v.revealed_cards(r, i)
    assert v.sizes(r)[i][1] == sum(st.entries[r][i][1])
    assert not hasattr(v, "hands") and not hasattr(v, "deck")


def _policies():
    return [(name, build_policy(SPEC.policies, name, {"iterations": 6} if name == "ismcts" else {}))
            for name in SPEC.policies]


@settings(max_examples=200, deadline=None)
@given(hand=st_.lists(st_.integers(0, 3), min_size=N_TYPES, max_size=N_TYPES),
       exact=st_.integers(-1, 4), cap=st_.integers(-1, 4), playable=st_.booleans(),
       probe=st_.lists(st_.integers(0, 3), min_size=N_TYPES, max_size=N_TYPES))
def test_property_legality_check_accepts_exactly_the_legal_answers(hand, exact, cap, playable, probe):
    """``counts_ok`` (what ``apply`` checks) accepts exactly ``count_vectors`` (what
    ``legal_actions`` lists), in lexicographic order, without repeats."""
    every = count_vectors(hand, exact=exact, cap=cap, playable=playable)
    assert list(every) == sorted(set(every))
    assert all(counts_ok(c, hand, exact, cap, playable) for c in every)
    assert counts_ok(tuple(probe), hand, exact, cap, playable) == (tuple(probe) in set(every))
    if playable:
        assert all(c[PASS] == 0 for c in every)


def _to_decision(kind: str, n: int = 4, seed: int = 3):
    st, players, rngs = greedy_game(n, seed)
    while st.decision_kind() != kind:
        advance(st, players, rngs, 1)
    return st


def test_s11_answers_outside_the_offered_options_raise_never_coerced():
    """docs/rules/cartus.md §11: every answer is one of the options offered; a float, a bool
    where an int is asked (or an int where a bool is), a list for a tuple, a count outside the
    hand all raise ``IllegalChoice``; nothing is rounded or converted."""
    st = _to_decision("supply")
    before = st.information_key(st.current_seat())
    for bad in (1.0, 1.9, 0.5, True, False, "1", None, -1, len(st.row), [0], (0,)):
        with pytest.raises(IllegalChoice):
            st.apply(bad)
    assert st.information_key(st.current_seat()) == before  # nothing happened
    st.apply(1)
    st = _to_decision("cards")
    hand = st.hands[st.current_seat()]
    zero = [0] * N_TYPES
    for bad in (zero, tuple(zero[:-1]), (1.0,) + tuple(zero[1:]), (True,) + tuple(zero[1:]) if not hand[0] else None,
                tuple(h + 1 if t == 0 else 0 for t, h in enumerate(hand)), (0,) * (N_TYPES - 1) + (1,), 0):
        if bad is None:
            continue
        with pytest.raises(IllegalChoice):
            st.apply(bad)
    st.apply(tuple(zero))
    st = _to_decision("use_pass", seed=1)
    for bad in (1, 0, 1.0, "yes"):
        with pytest.raises(IllegalChoice):
            st.apply(bad)
    st.apply(False)


def test_s11_legal_actions_are_offered_in_a_fixed_order():
    st = _to_decision("cards")
    acts = st.legal_actions()
    assert acts == count_vectors(st.hands[st.current_seat()], playable=True) and acts[0] == (0,) * N_TYPES
    assert set(st.search_actions()) <= set(acts) and len(st.search_actions()) <= 17
    for a in acts[:50]:
        assert st.describe_action(a).startswith("play ")


def test_ismcts_plays_a_game_and_logs_its_reasons():
    """The ``ismcts`` policy plays from play_game (and so from scenarios and replay), reproducibly,
    and says in the replay log why it chose what it chose."""
    cfg = default_config(3)
    pol = build_policy(SPEC.policies, "ismcts", {"iterations": 12, "rollout": "greedy"})
    lines: list[str] = []
    a = play_game(cfg, [pol, "greedy", "random"], 5, log=lines.append)
    assert a == play_game(cfg, [pol, "greedy", "random"], 5)
    assert a[1][0]["policy"] == "ismcts"
    reasons = [ln for ln in lines if "ismcts seat 0" in ln]
    assert len(reasons) > 20 and "visits" in reasons[0] and "mean" in reasons[0]
    assert any("play " in ln or "enter row" in ln for ln in reasons)


def test_every_player_is_made_per_seat_from_frozen_parameters():
    """Players are made per seat and per game; the policies themselves keep no state."""
    for name in SPEC.policies:
        pol = build_policy(SPEC.policies, name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            pol.__setattr__("x", 1)
        a, b = pol.player(0), pol.player(1)
        assert hasattr(a, "choose")
        if name in ("greedy", "cautious", "ismcts"):
            assert a is not b and pol.player(0) is not a
    assert list(itertools.islice(SPEC.policies, 3)) == ["random", "greedy", "cautious"]


def test_ismcts_with_a_playout_cut_off_scores_the_position():
    """``rollout_depth``: playouts stop early and ``heuristic_returns`` (the game scored as it
    stands, rules §7) rates the position; a forced answer is given without searching."""
    st, players, rngs = greedy_game(4, 8)
    advance(st, players, rngs, 30)
    est = st.heuristic_returns()
    assert len(est) == 4 and 0.0 <= sum(est) <= 1.0 + 1e-9
    pol = build_policy(SPEC.policies, "ismcts", {"iterations": 10, "rollout_depth": 6, "rollout": "random",
                                                 "prior": 0.0})  # prior 0: the searched answers only
    player = pol.player(st.current_seat())
    a = player.choose(st.view(st.current_seat()), random.Random(0))
    root = player.last_root
    assert a in st.search_actions() and sum(ch.n for ch in root.children.values()) == root.n <= 10
    while len(st.search_actions()) != 1:
        advance(st, players, rngs, 1)
    seat = st.current_seat()
    assert pol.player(seat).choose(st.view(seat), random.Random(0)) == st.search_actions()[0]


def test_determinize_deals_every_hidden_card_to_every_hidden_place_alike():
    """At the first decision (no card played yet) seat 0 sees its own hand only: each other
    hand, the deck and the five Nun-row cards are one pool, so a class's expected share of
    seat 1's hand is its share of the pool, and an unseen Nun-row card shows 2 nuns on average
    (rules §2: 4x4, 2x3, 2x2, 2x1, 4x0 per class)."""
    st = new_state(default_config(4), 21)
    pool = [14 - st.hands[0][k] for k in range(6)]
    total = sum(pool)
    draws = 600
    held = [0] * 6
    nuns = 0
    for seed in range(draws):
        d = st.determinize(0, seed)
        for k in range(6):
            held[k] += d.hands[1][k]
        nuns += sum(d.nun_row)
    for k in range(6):
        assert held[k] / draws == pytest.approx(5 * pool[k] / total, abs=0.15)
    assert nuns / draws / 5 == pytest.approx(2.0, abs=0.15)
