"""Measurements of ``analyzer balance --race`` for the README (issue #35 item 5); not a test.

    PYTHONPATH=. python tests/race_measure.py engine SEEDS PER [race]  # the toy through balance
    PYTHONPATH=. python tests/race_measure.py sim REPLICATES [race]  # simulated; TAG-style too

The synthetic objective is tests/balancetoy.py with 3 players: the start player scores ``u0 +
L`` against ``u1``, ``u2`` (uniform), ``L = edge + 0.1 × (steps − 5)``, so its share of wins is
``P(L) = ∫₀¹ clip(u + L, 0, 1)² du`` and the finding ``first_player:base`` is ``P(L) − 1/3``;
with ``edge = 0`` the answer over ``steps = 0..10`` is 5 (the only setting within ±5 pp).

``engine``: per seed, ``balance`` scan and ``balance --race`` of ``steps = 0..10`` at ``PER``
games per setting with ``--tolerance 5``: games, value, verdict, seconds (one process, jobs 1).

``sim``: the same objective on the toy's own draws, common seeds (``toy_games``): the
exhaustive scan (the setting nearest the target on its estimate; no LOWESS; independent draws),
the race by each rule (``race.pair_stops`` as balance plays it for this finding, and the
goal-band ``race.stops``): games, the value taken, and how often the setting truly nearest the
target stopped (also with the target half and a quarter step between two settings),
and two TAG-style searches with one fresh game per evaluation: an NTBEA-like bandit (the
1-tuple of the one knob: UCB over the 11 settings on ``−|mean − target|``, exploration ``k``)
and CMA-ES on single games (``search.cma_es``; the loss ``(Y₁ − t)(Y₂ − t)`` of two fresh
games, unbiased for ``(P − t)²``; one game's ``(Y − t)²`` is minimised by the smallest ``P``,
not the target). For each: games until the recommended setting is within the tolerance and
stays there to the cap.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from analyzer.study import race
from analyzer.study.search import cma_es

TARGET = 1 / 3
TOLERANCE = 0.05
STEPS = np.arange(11)
CAP = 20_000


def share(lead: float) -> float:
    """The start player's share of wins with lead ``lead`` (3 players, uniform draws)."""
    u = np.linspace(0, 1, 200_001)
    return float(np.trapezoid(np.clip(u + lead, 0, 1) ** 2, u))


LEAD = 0.1 * (STEPS - 5)
TRUTH = np.array([share(x) for x in LEAD])


def within(k: int) -> bool:
    return abs(TRUTH[k] - TARGET) <= TOLERANCE


def scan_sim(rng, per):
    wins = rng.random((len(STEPS), per)) < TRUTH[:, None]  # not common seeds: conservative
    return int(np.argmin(np.abs(wins.mean(1) - TARGET))), len(STEPS) * per


def toy_games(rng, per, lead=LEAD):
    """The toy's games on common seeds: game ``i`` deals ``u0, u1, u2`` once and every setting
    plays it (the start player wins when ``min(u0 + L, 1) > max(u1, u2)``); per setting and game
    the win (1) or not."""
    u0, m = rng.random(per), np.maximum(rng.random(per), rng.random(per))
    return (np.minimum(u0[None, :] + lead[:, None], 1) > m[None, :]).astype(float)


def race_sim(rng, per, rule="pairs", lead=LEAD):
    """One race on the toy's games: the value taken, the games played and whether the setting
    truly nearest the target (``BEST``, for ``lead``) stopped early."""
    schedule = race.looks(per)
    wins = toy_games(rng, per, lead)
    sums = np.cumsum(wins, axis=1)
    running = list(range(len(STEPS)))
    played = [0] * len(STEPS)
    for j, (n, level) in enumerate(zip(schedule, race.look_levels(schedule))):
        for k in running:
            played[k] = n
        if j == len(schedule) - 1 or len(running) == 1:
            break
        p = sums[running, n - 1] / n
        if rule == "pairs":
            stopped, _ = race.pair_stops(list(p - TARGET), [wins[k, :n] for k in running],
                                         level)
        else:
            se = np.sqrt(np.maximum(p * (1 - p), 1.0 / n) / n)
            stopped, _ = race.stops(list(p - TARGET), list(se), TOLERANCE, level)
        running = [k for k, s in zip(running, stopped) if not s]
    p = sums[running, per - 1] / per
    truth = np.array([share(x) for x in lead]) if lead is not LEAD else TRUTH
    best = set(np.flatnonzero(np.isclose(np.abs(truth - TARGET),
                                         np.abs(truth - TARGET).min())).tolist())
    scan = int(np.argmin(np.abs(sums[:, per - 1] / per - TARGET)))  # on the same games
    return (running[int(np.argmin(np.abs(p - TARGET)))], sum(played),
            not best & set(running), scan)


def settle_time(recommended: list[int]) -> int | None:
    """Games until the recommendation is within the tolerance for good (``None``: never)."""
    last_bad = max((i for i, k in enumerate(recommended) if not within(k)), default=-1)
    return None if last_bad == len(recommended) - 1 else last_bad + 1


def ntbea_sim(rng, explore):
    n, wins, rec = np.zeros(len(STEPS)), np.zeros(len(STEPS)), []
    for t in range(CAP):
        if t < len(STEPS):
            k = t
        else:
            value = -np.abs(wins / n - TARGET)
            k = int(np.argmax(value + explore * np.sqrt(np.log(t) / n)))
        n[k] += 1
        wins[k] += rng.random() < TRUTH[k]
        rec.append(int(np.argmax(np.where(n > 0, -np.abs(wins / np.maximum(n, 1) - TARGET),
                                          -np.inf))))
    return settle_time(rec)


def cma_sim(rng, seed):
    rec: list[int] = []

    def evaluate(g, xs):
        out = []
        for x in xs:
            k = round(float(np.clip(x[0], 0, 1)) * 10)
            y1, y2 = (rng.random(2) < TRUTH[k]).astype(float)
            out.append((y1 - TARGET) * (y2 - TARGET))
        return out

    for step in cma_es([0.8], popsize=6, seed=seed, rounds=CAP // 12, evaluate=evaluate):
        rec += [round(float(step.centre[0]) * 10)] * 12  # 6 candidates x 2 games
    return settle_time(rec)


def sim(replicates: int, tag: bool = True) -> dict:
    rng = np.random.default_rng(2026)
    out: dict = {"truth_pp": [round(100 * (x - TARGET), 2) for x in TRUTH]}
    for per in (400, 1000, 2000):
        sc = [scan_sim(rng, per) for _ in range(replicates)]
        for rule in ("region", "pairs"):
            rc = [race_sim(rng, per, rule) for _ in range(replicates)]
            out[f"per{per}-{rule}"] = {
                "scan_games": sc[0][1], "scan_right": np.mean([v == 5 for v, _ in sc]),
                "race_games_mean": float(np.mean([g for _, g, _, _ in rc])),
                "fewer": sc[0][1] / float(np.mean([g for _, g, _, _ in rc])),
                "race_right": float(np.mean([v == 5 for v, _, _, _ in rc])),
                "scan_same_games_right": float(np.mean([s == 5 for _, _, _, s in rc])),
                "race_same_as_scan": float(np.mean([v == s for v, _, _, s in rc])),
                "best_stopped": float(np.mean([b for _, _, b, _ in rc]))}
    # the false stops of the truly nearest setting where it is hardest to keep: the target
    # between two settings (lead shifted half a step: 4 and 5 tie) and a quarter step
    for shift in (0.05, 0.025):
        rc = [race_sim(rng, 1000, "pairs", LEAD + shift) for _ in range(replicates)]
        out[f"shift{shift}"] = {"best_stopped": float(np.mean([b for _, _, b, _ in rc])),
                                "fewer": 11_000 / float(np.mean([g for _, g, _, _ in rc])),
                                "race_same_as_scan": float(np.mean([v == s
                                                                    for v, _, _, s in rc]))}
    if not tag:  # the race only, not the TAG-style searches
        return out
    for explore in (0.1, 0.3, 1.0):
        t = [ntbea_sim(rng, explore) for _ in range(max(20, replicates // 10))]
        ok = [x for x in t if x is not None]
        out[f"ntbea_k{explore}"] = {"median_games": float(np.median(ok)) if ok else None,
                                    "settled": len(ok) / len(t)}
    t = [cma_sim(rng, s) for s in range(max(10, replicates // 40))]
    ok = [x for x in t if x is not None]
    out["cma_single_games"] = {"median_games": float(np.median(ok)) if ok else None,
                               "settled": len(ok) / len(t)}
    return out


def engine(seeds: int, per: int, which: tuple[bool, ...] = (False, True)) -> list[dict]:
    sys.path.insert(0, str(Path(__file__).parent))
    import balancetoy
    from test_balance import START, TOY

    from analyzer.games import register_game
    from analyzer.study.balance import balance

    register_game(balancetoy.SPEC)
    d = Path(tempfile.gettempdir()) / "race-measure"
    d.mkdir(exist_ok=True)
    rows = []
    for seed in range(1, seeds + 1):
        (d / "btoy.toml").write_text(TOY.format(edge=0.0))
        for raced in which:
            t = time.monotonic()
            res = balance(d / "btoy.toml", finding=START, vary="rules.steps=0..10",
                          budget=11 * per, tolerance=5, validation_games=1000, seed=seed,
                          jobs=1, out=d / f"s{seed}-{raced}", race=raced)
            st = res.summary["run"]["study"]
            eq = st["check"]["equivalence"]
            rows.append({"seed": seed, "race": raced, "value": res.values["rules.steps"],
                         "search_games": (st["race"]["games"] if raced else 11 * per),
                         "shown": eq["shown"], "seconds": round(time.monotonic() - t, 1),
                         "check": [round(100 * x, 2) for x in (eq["tests"][0]["lo"],
                                                               eq["tests"][0]["hi"])]})
            print(json.dumps(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    if sys.argv[1] == "engine":  # a fourth argument "race": the race only
        engine(int(sys.argv[2]), int(sys.argv[3]),
               (True,) if sys.argv[4:] == ["race"] else (False, True))
    else:
        print(json.dumps(sim(int(sys.argv[2]), sys.argv[3:] != ["race"]), indent=1,
                         default=float))
