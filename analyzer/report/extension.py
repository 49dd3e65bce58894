"""The report's extension point: a game's own report sections (``StudySection``).

A game package (``analyzer/games/<game>/study.py``) declares its sections with this class and
hands them over through ``GameSpec.sections``; the report builds them after its generic
sections. It lives in the report layer, so the game contract (``analyzer.model``) never names
the report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from analyzer.report.document import BASE


@dataclass(frozen=True)
class StudySection:
    """One of a game's own report sections, declared in its ``study.py``.

    Attributes
    ----------
    key : str
        Where its numbers go in ``summary.json["results"]``, e.g. ``"my_section"``.
    numbers : callable
        ``numbers(games, seats, players, run) -> dict or None``: everything the section
        computes. ``games``, ``seats``: the record tables (``analyzer.report.records.Table`` or
        DataFrames; read only the columns used, one variant at a time where possible);
        ``players``: the player count; ``run``: the run facts (``summary.json["run"]``, may be
        empty). Returns the numbers for ``summary.json``, or ``None`` when the section does not
        apply to these records (then nothing is written and it has no key).
    write : callable
        ``write(doc, numbers, run) -> None``: the section's heading, text, tables and charts in
        ``doc`` (an ``analyzer.report.document.Doc``), phrased from the ``numbers`` it returned
        and the run facts ``run`` alone; no statistics. A fact the text needs that
        ``summary.json`` does not hold rides in ``numbers["_per_game"]`` (``findings.
        PER_GAME_KEY``), which is removed before ``summary.json`` is written.
    replaces_balance : callable, optional
        ``replaces_balance(games) -> bool``: True when, for these records, the section shows
        each arm's balance itself; with many arms the generic balance section is then left out.
    findings : callable, optional
        ``findings(numbers, run) -> list of analyzer.report.findings.Finding``: the section's
        headline numbers as key findings (sentence, estimate, 95 % interval, unit, no-effect
        value or p-value, example game ids), made from its ``numbers``; the report puts them,
        with the generic findings, first (``analyzer/report/findings.py``).
    key_patterns : tuple of str
        The keys its findings can have, as ``fnmatch`` patterns (``"my_section:edge"``,
        ``"my_section:arm:*"``): a study file's question naming a key of the same family (the part
        before the first ``:``) that matches none, or a family no section or study has, is
        refused before a game is played.
    plan : callable, optional
        ``plan(arms) -> (keys, why)``: the keys its findings WILL have in a run of ``arms``
        (a sequence of ``PlanArm``), before a game is played, each a ``PlannedKey`` or a tuple
        of its fields (key, meaning, unit); ``why``: when it makes none, the reason in a few words ("the X card is
        in no arm's rules"), else ``""``. ``analyzer findings SCENARIO.toml`` lists them and
        ``validate`` checks a question's key against them (``analyzer.study.questions``).
        Without one, the section's keys are its ``key_patterns``, unchecked against the arms.
    units : tuple of (str, str)
        The unit of each number its ``numbers`` returns, as ``(path pattern, unit)`` relative to
        ``key`` (``"rows[].mean"``, ``"*.share"``; ``analyzer.report.units``), first match wins.
    """

    key: str
    numbers: Callable[..., dict | None]
    write: Callable[..., None]
    replaces_balance: Callable[[Any], bool] | None = None
    findings: Callable[[dict, dict], Sequence[Any]] | None = None
    key_patterns: tuple[str, ...] = ()
    plan: Callable[[Sequence[Any]], tuple[Sequence[Any], str]] | None = None
    units: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class PlanArm:
    """One arm of a study as a section's ``plan`` sees it before a game is played.

    Attributes
    ----------
    name : str
        The arm's name (``"base"`` for the scenario's own rules).
    players : int
        Its player count.
    config : object
        The game's own configuration of the arm (``GameSpec.make_config``).
    policies : tuple of str
        The names of its seats' players, seat by seat.
    """

    name: str
    players: int
    config: Any
    policies: tuple[str, ...]


@dataclass(frozen=True)
class PlannedKey:
    """A finding key a run will make, with its meaning in words and its unit (``"pp"``,
    ``"points"``, ``"%"``; ``""`` when it has none).

    A key written with placeholders (``sets:ARM_A-ARM_B``: the run makes the one a question
    asks) has ``check``: ``check(key) -> str``, ``""`` when ``key`` is one the run will make,
    else why not in a few words."""

    key: str
    meaning: str
    unit: str
    check: Callable[[str], str] | None = field(default=None, compare=False)


def studied_arm(names: Sequence[str]) -> str:
    """The arm a section's single-arm tables are drawn from: the base when it is among
    ``names``, else the first."""
    return BASE if BASE in names else names[0]


def fair_share(seats: Any) -> float:
    """The share of games a fair seat wins, ``(1 − q)/n`` (``q``: the share of games nobody
    won): per game the seats' summed ``won`` over their number, averaged over the games of
    ``seats`` (a DataFrame of seat rows with ``game_id`` and ``won``)."""
    per = seats.groupby("game_id")["won"].agg(["sum", "size"])
    return float((per["sum"] / per["size"]).mean())


def key_patterns(spec: Any) -> tuple[str, ...]:
    """The finding keys ``spec``'s (a ``GameSpec``'s, or ``None``) report sections can make,
    as ``fnmatch`` patterns (``StudySection.key_patterns``)."""
    sections = getattr(spec, "sections", None)
    return tuple(p for s in (sections() if sections else ()) for p in s.key_patterns)
