"""Declared record columns and the record builders of a finished game (docs/rules/rattus.md §10.4)."""

# Loop style (compiled with mypyc; the same in every compiled module): the builtins sum, max, min,
# any and all wherever one of them does the job; a loop is written out only where one pass does
# more (several results at once, float terms computed on the way, an index found) or needs i64.

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from analyzer.games.rattus.config import CARD_NAMES, READ_DIPLOMAT_2P_TIE, READ_TIES_COUNT
from analyzer.games.rattus.scoring import (
    diplomat_points,
    region_card_majorities,
    region_card_points,
    tiebreak_keys,
)
from analyzer.games.rattus.state import NOT_IN_PLAY, State
from analyzer.model.base import COMMON_GAME_COLUMNS, COMMON_SEAT_COLUMNS, GuessCounter, rank_and_won

_RULES = "docs/rules/rattus.md"
# The labelled defaults counted where they act (GameSpec.guesses): each a game record column
# holding how many times it decided something in that game, 0 where the value is not a labelled
# default of the game's config (a user table or option, or idle in this setting).
GUESSES: tuple[GuessCounter, ...] = (
    GuessCounter("acted_token_face", "tokens", "a guessed rat-token face was revealed (every "
                 "reveal of the built-in token list)", f"{_RULES} §5.2"),
    GuessCounter("acted_africa_region", "map", "the plague piece or the caravan entered a "
                 "stand-in Africa region (AF1–AF5)", f"{_RULES} §4.3"),
    GuessCounter("acted_no_placing", "placement_mandatory", "a player moved the plague piece "
                 "without placing cubes though he could (placing is optional)", f"{_RULES} §7 B"),
    GuessCounter("acted_class_stack", "same_class_cards_stack", "a holder of two cards of one "
                 "class lost another number of cubes than with one cube per symbol",
                 f"{_RULES} §5.1"),
    GuessCounter("acted_region_card_elsewhere", "region_card_must_match_plague_region",
                 "a region card naming another region protected in the plague region",
                 f"{_RULES} §9"),
    GuessCounter("acted_region_card_point", "region_card_points", "a region card in hand "
                 "scored at the end", f"{_RULES} §9"),
    GuessCounter("acted_region_card_tie", "region_card_majority_ties_count", "a region card's "
                 "holder tied for most cubes in its region at the end (the tie counts as the "
                 "majority)", f"{_RULES} §9"),
    GuessCounter("acted_diplomat_2p_tie", "diplomat_2p_tie_points", "the two players tied for "
                 "most diplomats (3 points each)", f"{_RULES} §2.3"),
    GuessCounter("acted_astronomer_leftovers", "astronomer_leftovers", "the Astronomer left "
                 "cards it did not keep (discarded)", f"{_RULES} §8.2"),
    GuessCounter("acted_explorer_cubes", "explorer_cubes", "the Explorer placed cubes (1)",
                 f"{_RULES} §8.2"),
)

GAME_COLUMNS: dict[str, str] = {
    **COMMON_GAME_COLUMNS,
    "turns": "int64",  # regular turns played
    "regions_in_use": "int64",
    "class_cards": "string",  # comma-separated card names in play
    "trigger_seat": "int64",  # seat whose turn triggered the end, -1 at the round cap
    "final_round_turns": "int64",  # turns in the final round (n_players - 1)
    **{g.column: "int64" for g in GUESSES},
}

SEAT_COLUMNS: dict[str, str] = {
    **COMMON_SEAT_COLUMNS,
    "cubes_on_board": "int64",  # cubes in regions at the end
    "palace_cubes": "int64",
    "cubes_placed": "int64",  # cubes put on the board from supply (opening, B, abilities, caravan)
    "cubes_lost_plague": "int64",
    "class_cards_held": "int64",  # at the end
    "class_cards_end": "string",  # comma-separated names
    "diplomats_placed": "int64",
    "diplomats_surviving": "int64",
    "sultan_points": "int64",  # diplomat points of §2.3
    "region_card_points": "int64",
    "region_cards": "int64",  # region cards in hand at the end
    "caravan_moves": "int64",
    "caravan_cubes_own": "int64",
    "caravan_cubes_given": "int64",
    "caravan_cubes_received": "int64",
    # expected bonus cubes standing at the end if each cube that leaves a region is one of the
    # seat's ordinary cubes there at random (cubes of one colour are identical; §2.2, §2.3)
    "caravan_cubes_own_surviving": "float64",
    "caravan_cubes_received_surviving": "float64",
    "score_cubes": "int64",  # cubes in regions + palace
    "tiebreak": "float64",  # §10.5 key, higher wins ties
    # times the seat took each class card in phase A (§7 A); 0 for cards not in play
    **{f"took_{c}": "int64" for c in CARD_NAMES},
}


_TOOK_COLUMNS: Final = tuple(f"took_{c}" for c in CARD_NAMES)  # in card order


def _column(rows: list[list[int]], p: int) -> int:
    """Sum of column ``p`` of a table of counts."""
    return sum(row[p] for row in rows)


def final_scores(state: State) -> tuple[list[int], list[int], list[int], list[int]]:
    """``(score, score_cubes, region_card_points, sultan_points)`` per seat (§10.4).

    score = cubes in regions + palace cubes + region-card points + diplomat points.
    """
    cfg = state.cfg
    n = cfg.n_players
    cubes = [state.on_board(p) + state.palace[p] for p in range(n)]
    rc = (region_card_points(state.hands, state.cubes, cfg.rcard_region, cfg.region_card_points,
                             cfg.region_card_majority_ties_count, cfg.reads) if cfg.africanus else [0] * n)
    discs = [_column(state.discs, p) for p in range(n)]
    if n == 2 and discs[0] == discs[1] > 0:
        cfg.reads[0] |= READ_DIPLOMAT_2P_TIE
    dp = diplomat_points(discs, n, cfg.diplomat_points)
    return [cubes[p] + rc[p] + dp[p] for p in range(n)], cubes, rc, dp


def build_records(state: State, policy_names: list[str]) -> tuple[dict, list[dict]]:
    """The game record and one seat record per seat, keys equal to the declared columns."""
    cfg = state.cfg
    n = cfg.n_players
    score, score_cubes, rc, dp = final_scores(state)
    tb = tiebreak_keys(n, state.last_seat)
    ranks, won = rank_and_won(score, [tb])
    in_play = [c for c, h in zip(CARD_NAMES, state.holder) if h != NOT_IN_PLAY]
    game = {
        "n_players": n,
        "rounds": state.turns // n,
        "end": state.end,
        "winner_seats": ",".join(str(s) for s in range(n) if ranks[s] == 1),
        "rules_version": cfg.rules_version,
        "turns": state.turns,
        "regions_in_use": cfg.n_regions,
        "class_cards": ",".join(in_play),
        "trigger_seat": state.trigger_seat,
        "final_round_turns": state.final_round_turns,
        **guess_counts(state),
    }
    seats = []
    for p in range(n):
        held = state.cards_of(p)
        seats.append({
            "seat": p,
            "policy": policy_names[p],
            "score": float(score[p]),
            "rank": ranks[p],
            "won": won[p],
            "start_position": (p - state.start_seat) % n,
            "cubes_on_board": state.on_board(p),
            "palace_cubes": state.palace[p],
            "cubes_placed": state.cubes_placed[p],
            "cubes_lost_plague": state.cubes_lost[p],
            "class_cards_held": len(held),
            "class_cards_end": ",".join(held),
            "diplomats_placed": state.diplomats_placed[p],
            "diplomats_surviving": _column(state.discs, p),
            "sultan_points": dp[p],
            "region_card_points": rc[p],
            "region_cards": len(state.hands[p]),
            "caravan_moves": state.caravan_moves[p],
            "caravan_cubes_own": state.caravan_own[p],
            "caravan_cubes_given": state.caravan_given[p],
            "caravan_cubes_received": state.caravan_received[p],
            "caravan_cubes_own_surviving": sum(row[p] for row in state.tag_own) + state.palace_tag_own[p],
            "caravan_cubes_received_surviving": sum(row[p] for row in state.tag_recv) + state.palace_tag_recv[p],
            "score_cubes": score_cubes[p],
            "tiebreak": tb[p],
        })
        took = state.took[p]
        for k in range(len(_TOOK_COLUMNS)):
            seats[p][_TOOK_COLUMNS[k]] = took[k]
    return game, seats


def guess_counts(state: State) -> dict[str, int]:
    """The ``acted_*`` columns of a finished game (``GUESSES``): how many times each labelled
    default decided something; 0 for a rule value that is not a labelled default here."""
    cfg = state.cfg
    n = cfg.n_players
    alone = tied = 0
    if cfg.africanus:
        per_alone, per_tied = region_card_majorities(state.hands, state.cubes, cfg.rcard_region)
        alone, tied = sum(per_alone), sum(per_tied)
        if tied:
            cfg.reads[0] |= READ_TIES_COUNT
    discs = [_column(state.discs, p) for p in range(n)]
    counts = {
        "acted_token_face": state.discarded_tokens,
        "acted_africa_region": state.acted_africa,
        "acted_no_placing": state.acted_no_placing,
        "acted_class_stack": state.acted_stack,
        "acted_region_card_elsewhere": state.acted_card_elsewhere,
        "acted_region_card_point": (alone + (tied if cfg.region_card_majority_ties_count else 0)
                                    if cfg.region_card_points > 0 else 0),
        "acted_region_card_tie": tied,
        "acted_diplomat_2p_tie": int(n == 2 and discs[0] == discs[1] > 0),
        "acted_astronomer_leftovers": state.acted_astronomer,
        "acted_explorer_cubes": state.acted_explorer,
    }
    guessed = cfg.labelled_defaults
    return {g.column: counts[g.column] if g.default in guessed else 0 for g in GUESSES}


def log_final_scores(state: State, log: Callable[[str], None]) -> None:
    """The replay log's closing lines: each seat's score by part and rank, and the winner (§10.4)."""
    n = state.cfg.n_players
    score, _, rc, dp = final_scores(state)
    ranks, _ = rank_and_won(score, [tiebreak_keys(n, state.last_seat)])
    for p in range(n):
        log(f"seat {p}: score {score[p]} = cubes {state.on_board(p)} + palace {state.palace[p]} + region cards "
            f"{rc[p]} + diplomats {dp[p]}; rank {ranks[p]}")
    log(f"winner: seat {','.join(str(s) for s in range(n) if ranks[s] == 1)}")
