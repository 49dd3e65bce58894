"""The search of ``tune`` and ``balance``: CMA-ES on values scaled to ``[0, 1]``, one loop.

A searched value is a ``Dimension`` (a declared range, ``[0, 1]`` mapped onto it). ``cma_es``
runs the ``cma`` package's CMA-ES on those positions (its bound handling keeps every candidate
inside), started at ``x0`` with step ``SIGMA0``; its own draws come from a generator seeded
``derived_seed(seed, SEARCH_STREAM, 0)``, so the same seed gives the same search whatever the
jobs, backend or chunks. Each round's candidates are scored by the caller (``evaluate``: it
plays them); CMA-ES minimises. ``identity_seed`` derives the root seed of a fresh-seed check
from a study's whole identity.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

SIGMA0 = 0.3  # CMA-ES's initial step, in units of each dimension's range
SEARCH_STREAM = 1  # spawn key of the search's root seeds (``derived_seed(seed, 1, ...)``)


@dataclass(frozen=True)
class Dimension:
    """One searched value: its name, type, declared bounds and how ``[0, 1]`` maps to it."""

    name: str
    kind: type
    low: float
    high: float

    def decode(self, x: float) -> int | float:
        """The value at position ``x`` in ``[0, 1]`` of the range (clipped): rounded for an
        ``int``, 4 significant digits for a ``float``, inside the bounds."""
        v = self.low + min(max(float(x), 0.0), 1.0) * (self.high - self.low)
        if self.kind is int:
            return int(min(max(round(v), math.ceil(self.low)), math.floor(self.high)))
        return min(max(float(f"{v:.4g}"), self.low), self.high)

    def encode(self, value: float) -> float:
        """The position of ``value`` in ``[0, 1]`` of the range."""
        return (float(value) - self.low) / (self.high - self.low) if self.high > self.low else 0.5


def derived_seed(seed: int, *key: int) -> int:
    """A root seed in ``0..2**63-1`` drawn from ``SeedSequence(seed, spawn_key=key)``."""
    state = np.random.SeedSequence(seed, spawn_key=key).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def identity_seed(seed: int, stream: int, identity: Mapping[str, Any]) -> int:
    """``derived_seed(seed, stream, *words)`` with ``words`` four 32-bit words of a SHA-256 of
    ``identity`` (sorted JSON): two studies that differ in any part of their identity get
    different seeds, the same study the same."""
    text = json.dumps(dict(identity), sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).digest()
    return derived_seed(seed, stream, *(int.from_bytes(digest[i:i + 4], "big")
                                        for i in range(0, 16, 4)))


@dataclass(frozen=True)
class Step:
    """One round of ``cma_es`` after CMA-ES was told its losses: the candidates (positions in
    ``[0, 1]``), their losses, the search distribution's mean clipped to ``[0, 1]`` (the
    estimate of the optimum: the best single candidate is biased by having been picked) and
    the step ``sigma``."""

    round: int
    xs: list[np.ndarray]
    losses: list[float]
    centre: np.ndarray
    sigma: float


def cma_es(x0: Sequence[float], *, popsize: int, seed: int, rounds: int,
           evaluate: Callable[[int, list[np.ndarray]], Sequence[float]]) -> Iterator[Step]:
    """CMA-ES from ``x0`` (positions in ``[0, 1]``, bounded there): each round asks for
    ``popsize`` candidates, scores them with ``evaluate(round, xs)`` (lower is better), tells
    CMA-ES and yields the ``Step``."""
    import cma

    rng = np.random.default_rng(derived_seed(seed, SEARCH_STREAM, 0))
    opts = {"bounds": [0, 1], "popsize": popsize, "seed": np.nan, "verbose": -9,
            "randn": lambda *shape: rng.standard_normal(shape)}
    if len(x0) == 1:  # cma 4.x cannot cap the step of a 1-D search to its bounds (it raises
        opts["maxstd"] = np.inf  # "not yet initialized"); the bounds still hold every candidate
    es = cma.CMAEvolutionStrategy(list(x0), SIGMA0, opts)
    for g in range(rounds):
        xs = es.ask()
        losses = list(evaluate(g, xs))
        es.tell(xs, losses)
        yield Step(g, xs, losses, np.clip(es.result.xfavorite, 0, 1), float(es.sigma))


def cma_version() -> str:
    """The ``cma`` package's version (``summary.json``)."""
    import cma

    return cma.__version__
