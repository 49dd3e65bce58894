"""Synthetic robustness runs with a known truth, for the calibration of the verdict
(``analyzer.study.robustness.verdict``, tests/stats/test_robustness_calibration.py).

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

from analyzer.study import robustness

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


# ------------------------------------------------------------------ given the finding is shown
#
# A verdict is shown only for a finding significant in the base after the run's Holm correction
# over its key findings (the gate). The rates below are conditional on that: the base is drawn
# until it passes the gate, then the replicate (the base replayed on new seeds) and the
# conditions, played on the replicate's seeds, are drawn and judged with
# ``robustness.verdict(base, found, reference=replicate)``.

GATE_FINDINGS = 10  # key findings in the run's Holm family (the default study reports about 10)
EFFECTS = (1.5, 2.0, 2.8, 3.5)  # true effect in base standard errors (issue #32)

# the designs of issue #32 (its first part), as (name, kind, shares): "independent" conditions have the
# base's standard error and no per-game values; "paired" conditions are per-game values on the
# replicate's seeds, condition k re-drawing share ``shares[k]`` of the games (1.0: every game,
# as a ladder player or a content draw does) on ``games[k]`` of them (None: all; a search rung
# plays a fiftieth of the default study's 10,000 games per arm)
SHOWN_DESIGNS = {
    "4 independent conditions": ("independent", (1.0,) * 4, (None,) * 4),
    "default study: 3 players + a search rung + 8 paired rules": (
        "paired", (1.0, 1.0, 1.0, 1.0, 0.02, 0.05, 0.1, 0.3, 0.5, 1.0, 1.0, 1.0),
        (None, None, None, 1 / 50) + (None,) * 8),
    "9 content draws": ("paired", (1.0,) * 9, (None,) * 9),
}


def shown_bases(effect: float, count: int, rng: np.random.Generator,
                findings: int = GATE_FINDINGS, alpha: float = 0.05) -> np.ndarray:
    """``count`` base z-values of a finding with true effect ``effect`` (in base standard
    errors) that passed the run's Holm gate: significant after Holm over ``findings`` key
    findings, the other ``findings − 1`` without effect (the strictest gate for this one)."""
    from scipy import stats as sps

    kept: list[np.ndarray] = []
    total = 0
    steps = alpha / (findings - np.arange(findings))  # Holm's thresholds, smallest p first
    while total < count:
        z = effect + rng.normal(size=20_000)
        p = 2 * sps.norm.sf(np.abs(np.column_stack([z, rng.normal(size=(z.size, findings - 1))])))
        order = np.argsort(p, axis=1)
        passed = np.cumprod(np.take_along_axis(p, order, axis=1) <= steps, axis=1).astype(bool)
        rank = np.argmax(order == 0, axis=1)  # where this finding sorts
        shown = passed[np.arange(z.size), rank]
        kept.append(z[shown])
        total += int(shown.sum())
    return np.concatenate(kept)[:count]


def _gated(z: float, se: float) -> dict:
    return {**_record(z * se, se), "holds": True}


def shown_rates(design: str, effect: float, replicates: int, rng: np.random.Generator,
                games: int = 1000, against_base: bool = False) -> dict[str, float]:
    """Shares of verdicts among ``replicates`` runs whose finding was shown (``shown_bases``),
    the same true ``effect`` (base standard errors) in the base, the replicate and every
    condition of ``design`` (``SHOWN_DESIGNS``). ``against_base``: the rule before issue #32
    (differences against the base itself; independent designs only)."""
    kind, shares, sizes = SHOWN_DESIGNS[design]
    counts: dict[str, int] = {}
    zs = shown_bases(effect, replicates, rng)
    if kind == "independent":
        ratios = np.asarray(shares, float)
        for z in zs:
            base = _gated(z, 1.0)
            ref = _record(effect + rng.normal(), 1.0)
            ests = effect + ratios * rng.normal(size=ratios.size)
            found = {f"c{k}": _record(e, s) for k, (e, s) in enumerate(zip(ests, ratios))}
            v = (robustness.verdict(base, found) if against_base
                 else robustness.verdict(base, found, reference=ref))["verdict"]
            counts[v] = counts.get(v, 0) + 1
        return {k: n / replicates for k, n in counts.items()}
    if against_base:
        raise ValueError("the rule before issue #32 is measured on independent designs")
    mean = effect / math.sqrt(games)  # per-game sd 1: the base's standard error is 1/√games
    ids = pd.RangeIndex(games)
    for z in zs:
        base = _gated(z, 1 / math.sqrt(games))
        x = pd.Series(mean + rng.normal(size=games), index=ids)
        ref = _summary(x)
        found = {}
        for k, (share, size) in enumerate(zip(shares, sizes)):
            n = games if size is None else max(2, round(games * size))
            y = x.iloc[:n].copy()
            redraw = rng.random(n) < share
            y[redraw] = mean + rng.normal(size=int(redraw.sum()))
            found[f"c{k}"] = robustness.paired_record(ref, _summary(y), x, y)
        v = robustness.verdict(base, found, reference=ref)["verdict"]
        counts[v] = counts.get(v, 0) + 1
    return {k: n / replicates for k, n in counts.items()}
