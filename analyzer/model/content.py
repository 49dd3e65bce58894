"""Content priors: plausible alternatives to a game's guessed content tables.

Some content could not be found in any source and is a labelled guess (``[GAP → DEFAULT]`` of
``docs/rules/<game>.md``): a token list, a map, a building nobody could read... A game declares, for each such table, a ``ContentPrior`` in
``GameSpec.content_priors``: what is known about the table (kept in every draw), what a draw
varies (within the ranges the rules file writes down with their reasoning), and a generator
``draw(seed) -> table`` whose table passes the game's own loader and is written as TOML in the
layout of the built-in table, so that the rule option it replaces (a ``*_file`` option) can
point at it. Code that checks findings against the guessed content (``analyzer robustness``)
lists the priors in use for a scenario (``priors_in_use``), draws alternatives and points the
option at each written file, without naming a game.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tomli_w

from analyzer.model.base import GameSpec, RuleValue
from analyzer.model.tables import DRAWN_KEY


@dataclass(frozen=True)
class ContentPrior:
    """Plausible alternatives to one guessed content table of a game.

    Attributes
    ----------
    table : str
        The table's name, e.g. ``"boats"`` (``<table>_file`` is often its option).
    option : str
        The ``*_file`` rule option that replaces the built-in table with a user's file.
    section : str
        Where the rules file of the game states the ranges and their reasoning.
    known : tuple of str
        The documented facts every draw keeps, one short line each.
    varies : tuple of str
        What a draw varies and within which range, one short line each.
    generate : callable
        ``generate(rng: random.Random) -> dict``: one table, laid out like the built-in TOML
        table; every random choice comes from ``rng``.
    summary : callable
        ``summary(table: dict) -> str``: the draw's notable differences from the built-in table
        in a few words, for a report sentence (e.g. ``"one symbol on 18 of 49 tokens"``).
    rule_values : tuple of str
        The names of the ``RuleValue`` s the game reports for this table (``"site"`` also
        covers ``"site.NAME"``): the table is in use in a scenario where one of them is a
        labelled default (provenance ``"default"``), i.e. it acts and the scenario does not
        replace it with its own file.
    header : str
        A comment put at the top of a written table (what it is, how to use it).
    plural : str
        What several draws are called in a sentence, e.g. ``"token lists"`` (default
        ``"<table> tables"``).
    """

    table: str
    option: str
    section: str
    known: tuple[str, ...]
    varies: tuple[str, ...]
    generate: Callable[[random.Random], dict]
    summary: Callable[[dict], str]
    rule_values: tuple[str, ...]
    header: str = ""
    plural: str = ""

    @property
    def draws_noun(self) -> str:
        """``plural``, else ``"<table> tables"``."""
        return self.plural or f"{self.table.replace('_', ' ')} tables"

    def draw(self, seed: int) -> dict:
        """One plausible table: a pure function of ``seed`` (same seed, same table).

        Parameters
        ----------
        seed : int
            Any integer >= 0; draws of different tables from one seed are independent.

        Returns
        -------
        dict
            The table, laid out like the built-in TOML table (``to_toml`` writes it).
        """
        return self.generate(prior_rng(self.table, seed))

    def describe(self, table: Mapping[str, Any]) -> str:
        """The notable differences of a drawn ``table`` from the built-in one, in a few words."""
        return self.summary(dict(table))

    def to_toml(self, table: Mapping[str, Any], seed: int | None = None) -> str:
        """``table`` as TOML text, with a comment naming the prior; with ``seed``, a drawn
        table: its ``drawn_by`` key (``tables.DRAWN_KEY``) says which prior and seed made it,
        so the game counts it as the guess it is (``tables.load_table``)."""
        lines = [f"# A plausible `{self.table}` table (seed {seed}), drawn by the content prior of "
                 f"{self.section}." if seed is not None else
                 f"# A `{self.table}` table laid out for the content prior of {self.section}.",
                 f"# Use it with the rule option `{self.option} = \"<this file>\"`."]
        lines += [f"# {line}" if line else "#" for line in self.header.splitlines()]
        # a drawn table says so (``tables.DRAWN_KEY``): the game still counts it as a guess
        drawn = ({DRAWN_KEY: f"the {self.table} prior of {self.section}, seed {seed}"}
                 if seed is not None else {})
        return "\n".join(lines) + "\n\n" + tomli_w.dumps({**drawn, **table})

    def write(self, seed: int, folder: str | Path) -> Path:
        """Draw the table for ``seed`` and write it as ``<folder>/<table>-<seed>.toml``.

        Returns
        -------
        pathlib.Path
            The written file; name it in a scenario as ``[rules] <option> = "<path>"``.
        """
        path = Path(folder) / f"{self.table}-{seed}.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(self.to_toml(self.draw(seed), seed), encoding="utf-8")
        tmp.replace(path)
        return path

    def condition(self, seed: int, folder: str | Path) -> tuple[dict[str, str], str]:
        """Write draw ``seed`` into ``folder`` (a condition's run directory) and say how a
        scenario written there uses it.

        Returns
        -------
        (dict, str)
            The rule override ``{option: "<table>-<seed>.toml"}`` — a path relative to
            ``folder``, which a scenario file in ``folder`` resolves against its own folder —
            and the draw's notable differences (``describe``).
        """
        path = self.write(seed, folder)
        return {self.option: path.name}, self.describe(self.draw(seed))

    def in_use(self, rule_values: Sequence[RuleValue]) -> bool:
        """Whether this table acts as a labelled default among a config's ``rule_values``."""
        return any(v.provenance == "default"
                   and any(v.name == n or v.name.startswith(n + ".") for n in self.rule_values)
                   for v in rule_values)


def prior_rng(table: str, seed: int) -> random.Random:
    """The generator of one draw: seeded from ``(seed, table)`` through ``numpy.random.SeedSequence``,
    so that draws are reproducible across platforms and two tables drawn from one seed are
    independent.

    Raises
    ------
    ValueError
        ``seed`` is negative or not an integer.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"a content draw's seed must be an integer >= 0 (got {seed!r})")
    ss = np.random.SeedSequence(int(seed), spawn_key=(zlib.crc32(table.encode("utf-8")),))
    return random.Random(int(ss.generate_state(1, np.uint64)[0]))


def priors_in_use(spec: GameSpec, config: Any) -> list[ContentPrior]:
    """The guessed content tables of ``spec`` that act under ``config`` and are not replaced
    by the scenario's own file, in declaration order.

    Parameters
    ----------
    spec : GameSpec
    config : Any
        A config of that game (``spec.make_config(players, expansions, rules)``).
    """
    values = spec.rule_values(config)
    return [p for p in spec.content_priors if p.in_use(values)]


def prior(spec: GameSpec, table: str) -> ContentPrior:
    """The content prior of ``spec`` for ``table``.

    Raises
    ------
    KeyError
        The game declares no prior for ``table`` (the message lists those it declares).
    """
    for p in spec.content_priors:
        if p.table == table:
            return p
    raise KeyError(f"{spec.name} has no content prior {table!r} "
                   f"(has: {', '.join(p.table for p in spec.content_priors) or 'none'})")


def catalogue_rows(spec: GameSpec) -> list[dict[str, Any]]:
    """One row per content prior of ``spec``, for ``analyzer list content``: ``game, table,
    option, section, known, varies`` (``known`` and ``varies`` lists of lines)."""
    return [{"game": spec.name, "table": p.table, "option": p.option, "section": p.section,
             "known": list(p.known), "varies": list(p.varies)} for p in spec.content_priors]


# ---------------------------------------------------------------- helpers the games' generators share


def composition(rng: random.Random, total: int, parts: int, low: int = 0) -> list[int]:
    """``parts`` integers >= ``low`` adding up to ``total``, uniform over all such lists.

    Raises
    ------
    ValueError
        ``total < parts * low``.
    """
    free = total - parts * low
    if free < 0 or parts < 1:
        raise ValueError(f"cannot split {total} into {parts} parts of at least {low}")
    cuts = sorted(rng.sample(range(free + parts - 1), parts - 1))  # stars and bars
    edges = [-1, *cuts, free + parts - 1]
    return [low + edges[i + 1] - edges[i] - 1 for i in range(parts)]


def fill_rows(rng: random.Random, capacity: Sequence[int], counts: Mapping[str, int]) -> list[list[str]]:
    """Give each symbol ``counts[s]`` rows, no row a symbol twice, row ``i`` exactly
    ``capacity[i]`` symbols (the counts must add up to the capacities).

    Symbols go, the most frequent first, to the rows with the most room left, ties broken at
    random (Ryser's greedy: it finds an arrangement whenever one exists).

    Raises
    ------
    ValueError
        No arrangement exists (a symbol more frequent than the rows, or counts that do not add
        up to the capacities).
    """
    if sum(counts.values()) != sum(capacity):
        raise ValueError(f"{sum(counts.values())} symbols for {sum(capacity)} places")
    left = list(capacity)
    rows: list[list[str]] = [[] for _ in capacity]
    order = list(counts)
    rng.shuffle(order)
    order.sort(key=lambda s: -counts[s])
    for sym in order:
        idx = list(range(len(left)))
        rng.shuffle(idx)
        idx.sort(key=lambda i: -left[i])
        chosen = idx[:counts[sym]]
        if len(chosen) < counts[sym] or any(left[i] == 0 for i in chosen):
            raise ValueError(f"no arrangement gives {sym!r} {counts[sym]} rows")
        for i in chosen:
            rows[i].append(sym)
            left[i] -= 1
    return rows


__all__ = ["ContentPrior", "catalogue_rows", "composition", "fill_rows", "prior", "prior_rng", "priors_in_use"]
