"""Synthetic robustness runs with a known truth, for the calibration of the verdict
(``analyzer.robustness.verdict``, tests/stats/test_robustness_calibration.py).

A finding is estimated in the base run and under each condition. Either every estimate is an
independent normal sample (``independent_rates``: the condition's games are other games, or a
finding has no per-game values), or the runs are per-game values on shared seeds, a condition
re-drawing only a share of the games (``paired_rates``: a rule that changes some games, compared
game by game by ``robustness.paired_record``). The truth is the same effect everywhere (a robust
finding) or no effect anywhere (a null).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analyzer import robustness

Z = 1.959963984540054
POWER_80 = Z + 0.8416212335729143  # effect / se giving 80 % power to a two-sided 5 % z-test

# designs the issue quotes: each condition's standard error relative to the base's
DESIGNS = {
    "4 independent conditions": (1.0,) * 4,
    "default study: 3 player + 8 rule conditions": (1.0,) * 11,
    # a search rung plays 200 of the 1,000 games per arm of cartus-building-sets
    "Cartus: 1 search rung (200 games) + 14 rule conditions": (math.sqrt(1000 / 200),)
    + (1.0,) * 14,
}


def _record(est: float, se: float) -> dict:
    return {"estimate": est, "lo": est - Z * se, "hi": est + Z * se, "null": 0.0,
            "figure": False}


def old_state(base: dict, other: dict | None) -> str:
    """The rule before issue #21 (for the "before" figure): ``lost`` when the condition's
    interval includes no effect and excludes the base's point estimate."""
    if other is None:
        return "absent"
    side = 1 if base["estimate"] > base["null"] else -1
    lo, hi = other["lo"], other["hi"]
    if lo > base["null"] or hi < base["null"]:
        return "same" if (1 if lo > base["null"] else -1) == side else "flip"
    return "lost" if (base["estimate"] < lo or base["estimate"] > hi) else "wide"


def _old_verdict(base: dict, found: dict) -> str:
    if not (base["lo"] > 0 or base["hi"] < 0):
        return "unresolved"
    states = [old_state(base, r) for r in found.values()]
    if any(s in ("flip", "lost") for s in states):
        return "sensitive"
    return "unresolved" if "wide" in states else "holds"


def independent_rates(ratios, effect: float, replicates: int, rng: np.random.Generator,
                      old: bool = False) -> dict[str, float]:
    """Shares of replicates per verdict when the base (standard error 1) and each condition
    (standard error ``ratios[k]``) estimate the same ``effect`` independently."""
    counts: dict[str, int] = {}
    ratios = np.asarray(ratios, float)
    for _ in range(replicates):
        base = _record(effect + rng.normal(), 1.0)
        ests = effect + ratios * rng.normal(size=ratios.size)
        found = {f"c{k}": _record(e, s) for k, (e, s) in enumerate(zip(ests, ratios))}
        v = _old_verdict(base, found) if old else robustness.verdict(base, found)["verdict"]
        counts[v] = counts.get(v, 0) + 1
    return {k: n / replicates for k, n in counts.items()}


def paired_rates(changed, effect: float, games: int, replicates: int,
                 rng: np.random.Generator, old: bool = False) -> dict[str, float]:
    """Shares of replicates per verdict when the runs are per-game values (mean ``effect``
    standard deviation 1 per game, so the base's standard error is ``1/√games``) on shared
    seeds and condition ``k`` plays ``changed[k]`` of the games differently (re-drawn), the
    rest exactly as the base; compared game by game (``robustness.paired_record``)."""
    counts: dict[str, int] = {}
    ids = pd.RangeIndex(games)
    for _ in range(replicates):
        x = pd.Series(effect + rng.normal(size=games), index=ids)
        base = _summary(x)
        found = {}
        for k, share in enumerate(changed):
            y = x.copy()
            redraw = rng.random(games) < share
            y[redraw] = effect + rng.normal(size=int(redraw.sum()))
            rec = _summary(y)
            found[f"c{k}"] = rec if old else robustness.paired_record(base, rec, x, y)
        v = _old_verdict(base, found) if old else robustness.verdict(base, found)["verdict"]
        counts[v] = counts.get(v, 0) + 1
    return {k: n / replicates for k, n in counts.items()}


def _summary(x: pd.Series) -> dict:
    """A finding record of the mean of per-game values ``x`` with its t interval."""
    from analyzer import stats

    iv = stats.mean_interval(x.to_numpy())
    return {"estimate": iv.estimate, "lo": iv.lo, "hi": iv.hi, "null": 0.0, "figure": False}


def mc_interval(rate: float, replicates: int) -> tuple[float, float]:
    """Wilson 95 % interval of a rate measured over ``replicates`` (Monte-Carlo error)."""
    from analyzer import stats

    iv = stats.wilson(rate * replicates, replicates)
    return iv.lo, iv.hi
