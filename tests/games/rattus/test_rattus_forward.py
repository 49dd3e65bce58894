"""The Rattus forward model beyond the contract every game keeps (tests/games/test_forward_model.py):
what determinization redraws and keeps, illegal answers of Rattus's own kinds, the search
player, the heuristic estimate and the action names (docs/rules/rattus.md §15 hidden information)."""

from __future__ import annotations

import random

import pytest

from analyzer.errors import IllegalChoice
from analyzer.games.rattus import POLICIES, default_config, new_state, play_game
from analyzer.games.rattus.config import CARD_INDEX
from analyzer.games.rattus.state import STARTER_SLOT
from analyzer.model.base import build_policy

AFR = ("africanus",)
# configs whose hidden information differs: base tokens, region cards, 5-6 players, the Witch in play
CASES = [(2, (), {}), (4, (), {}), (4, AFR, {}), (5, AFR, {}), (3, AFR, {"astronomer_leftovers": "deck_bottom"}),
         (4, AFR, {"class_cards": ["knight", "witch", "monk", "astronomer", "explorer", "merchant"]}),
         (6, AFR, {"region_card_must_match_plague_region": True})]


def _cfg(case):
    players, exps, opts = case
    return default_config(players, exps, **opts)


def _decision_points(case, seed: int, every: int = 7):
    """Yield states at every ``every``-th decision of a seeded greedy/random game."""
    cfg = _cfg(case)
    state = new_state(cfg, seed)
    pols = [POLICIES["greedy" if s % 2 else "random"]().player(s) for s in range(cfg.n_players)]
    rngs = [random.Random(seed + s) for s in range(cfg.n_players)]
    k = 0
    while not state.is_terminal():
        if k % every == 0:
            yield state
        seat = state.current_seat()
        state.apply(pols[seat].choose(state.view(seat), rngs[seat]))
        k += 1


def _all_tokens(game) -> list[int]:
    st = game.state
    return sorted([*st.supply_tokens, *st.removed_tokens, *(t for toks in st.tokens for t in toks)])


@pytest.mark.parametrize("case", CASES)
def test_determinize_redraws_token_faces_supply_order_and_other_hands(case):
    """§15: the copy keeps the board and the seat's hand; the token faces, the supply order and
    the other hands vary, and every token is still somewhere."""
    for state in list(_decision_points(case, 21, every=25))[1:4]:
        seat = state.current_seat()
        hidden = set()
        for seed in range(12):
            d = state.determinize(seat, seed)
            assert d.state.cubes == state.state.cubes and d.state.hands[seat] == state.state.hands[seat]
            hidden.add((tuple(map(tuple, d.state.tokens)), tuple(d.state.supply_tokens),
                        tuple(tuple(h) for q, h in enumerate(d.state.hands) if q != seat)))
            assert _all_tokens(d) == _all_tokens(state)
        assert len(hidden) > 1


def test_determinize_keeps_what_the_witch_showed():
    """§8.1: the faces a Witch showed its holder stay where they are in that seat's copies; other
    seats' copies redraw them, and starting tokens stay starting tokens until a Witch looks."""
    cfg = default_config(4, AFR, class_cards=["knight", "witch", "monk", "merchant", "king", "sultan"])
    state = new_state(cfg, 8)
    witch = CARD_INDEX["witch"]
    rng = random.Random(3)
    while not (state.decision_kind() == "step" and "take" in state.legal_actions()
               and state.state.holder[witch] != state.current_seat()):
        acts = state.legal_actions()
        state.apply(acts[rng.randrange(len(acts))])
    seat = state.current_seat()
    # take the witch and look at two tokens
    state.apply("take")
    state.apply(witch)
    state.apply("witch")
    first = state.legal_actions()[0]
    state.apply(first)
    second = state.legal_actions()[-1]
    state.apply(second)
    assert state.decision_kind() == "witch_swap"
    (r1, i1), (r2, i2), a, b = state.view(seat).context()
    assert state.view(seat).known_tokens() == tuple(sorted([(r1, i1, a), (r2, i2, b)]))
    other = (seat + 1) % 4
    assert state.view(other).context() is None
    assert not {(r1, i1), (r2, i2)} & {(r, i) for r, i, _ in state.view(other).known_tokens()}
    faces = set()
    starting = set(cfg.starting_tokens)
    for seed in range(20):
        mine = state.determinize(seat, seed)
        assert (mine.state.tokens[r1][i1], mine.state.tokens[r2][i2]) == (a, b)
        theirs = state.determinize(other, seed)
        faces.add((theirs.state.tokens[r1][i1], theirs.state.tokens[r2][i2]))
        for r, flags in enumerate(theirs.state.token_flags):
            for i, f in enumerate(flags):
                if f & STARTER_SLOT:
                    assert theirs.state.tokens[r][i] in starting
    assert len(faces) > 1


def test_illegal_bool_and_tuple_actions_raise():
    """An int never stands for a bool (witch swap, caravan bonus), nor a float inside a tuple."""
    cfg = default_config(4, AFR, class_cards=["knight", "witch", "monk", "merchant", "king", "sultan"])
    state = new_state(cfg, 8)
    rng = random.Random(4)
    seen = set()
    while not state.is_terminal() and len(seen) < 3:
        kind, acts = state.decision_kind(), state.legal_actions()
        if kind == "witch_swap" and "swap" not in seen:
            seen.add("swap")
            for bad in (0, 1, None):
                with pytest.raises(IllegalChoice):
                    state.apply(bad)
        if kind == "merchant" and "merchant" not in seen:
            seen.add("merchant")
            src, dst, k, disc = acts[0]
            with pytest.raises(IllegalChoice):
                state.apply((src, dst, float(k), disc))
            with pytest.raises(IllegalChoice):
                state.apply([src, dst, k, disc])
        if kind == "step" and "witch" in acts and "steer" not in seen:
            seen.add("steer")
            state.apply("witch")
            continue
        state.apply(acts[rng.randrange(len(acts))])
    assert {"swap", "merchant"} <= seen


def test_ismcts_plays_a_game_and_logs_its_reasons():
    """ismcts is a registered policy: it plays a whole game and the replay log says why it chose."""
    lines: list[str] = []
    pol = build_policy(POLICIES, "ismcts", {"iterations": 10})
    g, seats = play_game(default_config(3, AFR), [pol, "greedy", "random"], 4, lines.append)
    assert seats[0]["policy"] == "ismcts" and g["end"] in ("trigger", "turn_cap")
    reasons = [ln for ln in lines if "ismcts seat 0" in ln]
    assert reasons and "visits" in reasons[0]
    assert play_game(default_config(3, AFR), [pol, "greedy", "random"], 4) == (g, seats)


def test_heuristic_returns_score_as_if_the_final_plague_struck_now():
    """Search cut-off estimate (§10.3, §10.4): seat 1's 5 cubes under two tokens that each kill
    one of them (A or M, threshold met) count for less than seat 0's 4 safe cubes; shares are a
    softmax of the estimated scores."""
    from rattus_helpers import make_game, put, region, tokens

    game = make_game(2)
    put(game, "Anglia", 4, 0)
    put(game, "Gallia", 0, 5)
    assert game.heuristic_returns()[1] > game.heuristic_returns()[0]  # 4 vs 5, no rats
    killers = [t for t, tok in enumerate(game.cfg.tokens) if tok[0] <= 3 and tok[1] + tok[2] >= 1]
    tokens(game, "Gallia", *killers[:2])
    shares = game.heuristic_returns()
    assert sum(shares) == pytest.approx(1.0) and shares[0] > shares[1]
    assert game.state.cubes[region(game, "Gallia")] == [0, 5]  # an estimate: nothing changed


def test_actions_are_described_by_name():
    """The replay log (ismcts reasons) names regions, cards and classes, never bare indices."""
    from analyzer.games.rattus.view import describe_action

    cfg = default_config(4, AFR)
    assert describe_action(cfg, "place", 1) == "place in Gallia"
    assert describe_action(cfg, "take", CARD_INDEX["witch"]) == "take witch"
    assert describe_action(cfg, "step", "witch") == "use witch"
    assert describe_action(cfg, "step", "plague") == "move the plague"
    assert describe_action(cfg, "merchant", (0, 1, 2, True)) == "2 cubes with disc Anglia -> Gallia"
    assert describe_action(cfg, "region_card", (0, 6)) == f"region card {cfg.rcard_labels[0]} for islam"
    state = new_state(cfg, 3)
    for _ in range(300):
        if state.is_terminal():
            break
        view = state.view(state.current_seat())
        for a in state.legal_actions():
            assert not view.describe_action(a).isdigit()
        state.apply(state.legal_actions()[-1])


def test_ismcts_runs_from_the_shipped_scenario(tmp_path):
    """scenarios/rattus-ismcts-vs-greedy.toml runs (here with few iterations and games): the
    ismcts seat is recorded under its registry name in every seat position."""
    from pathlib import Path

    from analyzer import api

    text = (Path(__file__).resolve().parents[3] / "scenarios" / "rattus-ismcts-vs-greedy.toml").read_text()
    text = text.replace('policy = "ismcts"', 'policy = "ismcts"\nparams = { iterations = 4 }', 1)
    path = tmp_path / "ism.toml"
    path.write_text(text)
    (tmp_path / "tuned").mkdir()  # its tuned greedy seats read tuned/ beside the scenario
    (tmp_path / "tuned" / "rattus-greedy.toml").write_text(
        (Path(__file__).resolve().parents[3] / "scenarios" / "tuned" / "rattus-greedy.toml").read_text())
    res = api.simulate(path, games=4, jobs=1, backend="sequential", out=tmp_path / "run")
    ism = res.seats[res.seats["policy"] == "ismcts"]
    assert len(ism) == 4 and sorted(ism["seat"]) == [0, 1, 2, 3]
