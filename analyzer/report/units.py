"""The unit of every number in ``summary.json`` (issue #34 item 7), declared once in
``UNITS``: path patterns (``*`` any run of characters) to units, the first match wins; a
number's path is its keys joined by ``.``, a list item as ``[]``. What ``@field`` and
``=PREFIX`` units mean, and the one unit per quantity: docs/summary.md, "Units".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

SHARE = "share"  # a fraction of 1: a win rate, a share of games, or a difference of them
SQUARED = "share²"  # a variance of shares (the seat spread²)
PROBABILITY = "probability"

# (path pattern, unit), first match wins: exact paths first, then fields by name
UNITS: tuple[tuple[str, str], ...] = (
    ("schema_version", "schema version"),
    # run facts (``summary.json["run"]``)
    ("run.games", "games per arm"), ("run.players", "players"),
    ("run.arms[].players", "players"), ("run.arms[].rules.*", "rule value"),
    ("run.defaults.*.value", "rule value"), ("run.jobs", "processes"),
    ("run.chunk_size", "games per chunk"), ("run.chunks_resumed", "chunks"),
    ("run.games_played", "games"), ("run.seconds", "seconds"), ("run.cpu_seconds", "seconds"),
    ("run.games_per_second", "games per second"),
    ("run.estimate.cpu", "seconds"), ("run.estimate.wall", "seconds"),
    ("run.estimate.budget", "seconds"), ("run.estimate.workers", "processes"),
    ("run.estimate.jobs", "processes"), ("run.estimate.cores", "cores"),
    ("run.estimate.load", "runnable processes"), ("run.estimate.games", "games per arm"),
    ("run.estimate.startup", "seconds"), ("run.estimate.reports", "seconds"),
    ("run.estimate.tail", "seconds"), ("run.estimate.elapsed", "seconds"),
    ("run.estimate.played", "seconds"),
    ("run.target_ci.target", SHARE), ("run.target_ci.half_width", SHARE),
    ("run.target_ci.games", "games per arm"), ("run.target_ci.max_games", "games per arm"),
    ("run.target_ci.steps[]", "games per arm"), ("run.target_ci.half_width_report", SHARE),
    ("run.tables[].entries", "entries"), ("run.tables[].differ", "entries"),
    ("run.questions[].tolerance", "finding unit as shown"),
    ("run.kingmaking.samples", "counterfactual games per game"),
    ("run.kingmaking.out_of_contention", SHARE), ("run.kingmaking.games", "games"),
    ("run.kingmaking.playouts", "counterfactual games"),
    ("run.kingmaking.cpu_seconds", "seconds"),
    # the study facts of each kind (``run.study``)
    ("run.study.seat", "seat"), ("run.study.popsize", "candidates"),
    ("run.study.generations", "generations"), ("run.study.rounds", "rounds"),
    ("run.study.budget", "games"), ("run.study.games_per_candidate", "games"),
    ("run.study.validation_games", "games"), ("run.study.probe_games", "games"),
    ("run.study.games_asked", "games per seating"), ("run.study.sigma0", "search step"),
    ("run.study.search_seconds", "seconds"), ("run.study.bootstrap", "resamples"),
    ("run.study.seatings", "seatings"), ("run.study.orders", "seat orders"),
    ("run.study.tables[].seating", "seating"), ("run.study.tables[].order", "seat order"),
    ("run.study.scale", "factor"), ("run.study.digits", "digits"),
    ("run.study.target", "@value_unit"),
    ("run.study.history[].generation", "generation"), ("run.study.history[].round", "round"),
    ("run.study.history[].sigma", "search step"),
    ("run.study.history[].best", SHARE), ("run.study.history[].mean", SHARE),
    ("run.study.history[].nearest", "@value_unit"),
    ("run.study.history[].mean[]", "knob value"), ("run.study.history[].centre[]", "knob value"),
    ("run.study.history[].values[]", "knob value"), ("run.study.tolerance", "@value_unit"),
    ("run.study.history[].*_params.*", "parameter value"),
    ("run.study.start.*", "parameter value"), ("run.study.tuned.*", "parameter value"),
    ("run.study.fixed.*", "parameter value"), ("run.study.entrants[].params.*", "parameter value"),
    ("run.study.dimensions[].*", "parameter value"), ("run.study.knobs[].*", "knob value"),
    ("run.study.variants[].values.*", "rule value"), ("run.study.replayed.*", SHARE),
    ("run.study.check.*", "=results.balance.check"),
    ("run.study.race.looks[].look", "look"), ("run.study.race.looks[].games", "games per arm"),
    ("run.study.race.looks[].level", PROBABILITY),
    ("run.study.race.looks[].running", "settings"), ("run.study.race.looks[].stopped", "settings"),
    ("run.study.race.looks[].half_width", "@value_unit"), ("run.study.race.alpha", PROBABILITY),
    ("run.study.race.games", "games per arm"), ("run.study.race.scan_games", "games per arm"),
    ("run.study.race.stopped", "settings"), ("run.study.race.settings", "settings"),
    ("run.study.luck", "replays"), ("run.study.probe.drew[]", "games"),
    # fields of one meaning wherever they are (after the run facts' own)
    ("*.p_value*", PROBABILITY), ("*.p_*", PROBABILITY), ("*_p", PROBABILITY),
    ("*_p_adj", PROBABILITY), ("*.games", "games"), ("*.too_few_games", "games"),
    ("*.examples[]", "game id"), ("*.seed", "seed"), ("*_seed", "seed"),
    ("*.digits", "digits"),
    ("*.scale", "factor"), ("*.t_df", "degrees of freedom"), ("*.mirror_of", "seat"),
    # the results of a study's own report
    ("results.tune.params.*", "parameter value"), ("results.tune.players", "players"),
    ("results.tune.tables", "tables"), ("results.tune.*.n", "games"),
    ("results.tune.start.*", SHARE),
    ("results.tune.tuned.*", SHARE), ("results.tune.difference.*", SHARE),
    ("results.balance.values.*", "knob value"), ("results.balance.check.groups", "groups"),
    ("results.balance.*.target", "@value_unit"),
    ("results.balance.*.tolerance", "@value_unit"), ("results.balance.*.alpha", PROBABILITY),
    ("results.balance.arms[].score*", "points"), ("results.balance.arms[].spread*", "points"),
    ("results.balance.arms[].rounds*", "rounds"), ("results.balance.arms[].*", SHARE),
    ("results.balance.vs_base[].n", "games"), ("results.balance.vs_base[].*", "@value_unit"),
    ("results.tournament.ratings[].rating*", "log-strength"),
    ("results.tournament.ratings[].gap_next", "log-strength"),
    ("results.tournament.ratings[].gap_lo", "log-strength"),
    ("results.tournament.ratings[].gap_hi", "log-strength"),
    ("results.tournament.ratings[].mean_rank", "rank"),
    ("results.tournament.ratings[].rank_*", "rank"),
    ("results.tournament.ratings[].seat_games", "games"),
    ("results.tournament.ratings[].deals_won", "deals"),
    ("results.tournament.ratings[].*", SHARE),
    ("results.tournament.head_to_head[].meetings", "games"),
    ("results.tournament.head_to_head[].*", SHARE), ("results.tournament.deals", "deals"),
    ("results.tournament.skill_spread.rating*", "log-strength"),
    ("results.tournament.skill_spread.win*", SHARE),
    ("results.tournament.min_deals", "deals"), ("results.tournament.bootstrap", "resamples"),
    ("results.robustness.conditions", "conditions"),
    # ``analyzer quality --luck``: variances in the outcome's unit squared (each row's ``unit``)
    ("results.luck.outcomes[].between", "@unit"), ("results.luck.outcomes[].within", "@unit"),
    ("results.luck.outcomes[].total", "@unit"),
    ("results.luck.outcomes[].naive_between", "@unit"),
    ("results.luck.outcomes[].share", SHARE), ("results.luck.outcomes[].lo", SHARE),
    ("results.luck.outcomes[].hi", SHARE), ("results.luck.outcomes[].position", "seat"),
    ("results.luck.*deals", "deals"), ("results.luck.*replays", "replays"),
    ("results.luck.*n_boot", "resamples"), ("results.luck.bootstrap", "resamples"),
    ("results.robustness.replayed.*", SHARE),
    ("results.studies.target_ci.*", "=run.target_ci"),
    ("results.studies.ablate.table[].games*", "games"),
    ("results.studies.ablate.table[].score*", "points"),
    ("results.studies.ablate.table[].*", SHARE),
    ("results.studies.sweep.tests", "tests"), ("results.studies.sweep.table[].n", "games"),
    ("results.studies.sweep.table[].wins", "games"),
    ("results.studies.sweep.table[].*", "@value_unit"),
    ("results.studies.first_player.by_variant[].positions[].position", "seat"),
    ("results.studies.first_player.by_variant[].*", SHARE),
    # the generic sections
    ("results.results.*[].n", "games"), ("results.results.*[].wins", "games"),
    ("results.results.*[].position", "seat"), ("results.results.*[].turn-cap ends", "games"),
    ("results.results.score_by_policy[].*", "points"), ("results.results.scores[].*", "points"),
    ("results.results.seat_order[].score*", "points"), ("results.results.*", SHARE),
    ("results.variants.*[].n", "games"), ("results.variants.*[].seat", "seat"),
    ("results.variants.won_*", SHARE), ("results.variants.score_*", "points"),
    ("results.guesses.arms[].*.acted", "games"),
    ("results.guesses.arms[].*.mean*", "times acted per game"),
    ("results.guesses.arms[].*", SHARE),
    # the findings, the Answers and what every section shares
    ("*.findings.tested", "findings"),
    ("*.findings[].defaults_acted.games", "games"), ("*.findings[].defaults_acted.*", SHARE),
    ("*.findings[].items.*", "@value_unit"),
    ("*.answers[].example.game_id", "game id"), ("results.answers.answers[].*", "@unit"),
    ("*.size", "@value_unit"), ("*.estimate", "@value_unit"), ("*.lo", "@value_unit"), ("*.hi", "@value_unit"),
    ("*.null", "@value_unit"), ("*.se", "@value_unit"), ("*.diff", "@value_unit"),
)


def of_column(column: str) -> str:
    """The unit of a seat record column's values: ``score`` in points, a ``won`` flag's mean a
    share, another (a game's own count) in its own name per seat and game."""
    return {"score": "points", "won": SHARE}.get(column, f"{column} per seat-game")


def shown(record: Mapping[str, Any]) -> str:
    """The unit a finding record's numbers are shown in (× its ``scale``): its ``unit``, else
    the unit they are stored in (a rating's log-strength), else ``"ratio"`` for a ratio."""
    return str(record.get("unit") or record.get("value_unit")
               or ("ratio" if record.get("log") else ""))


@functools.cache
def _compiled(table: tuple[tuple[str, str], ...]) -> tuple[tuple[str, re.Pattern[str], str], ...]:
    return tuple((p, re.compile(re.escape(p).replace(r"\*", ".*")), u) for p, u in table)


def table(sections: Iterable[Any] = ()) -> tuple[tuple[str, str], ...]:
    """``UNITS`` with the units the game's ``sections`` (``StudySection``) declare, theirs
    first, each pattern prefixed with ``results.<section key>.``."""
    own = tuple((f"results.{s.key}.{p}", u) for s in sections
                for p, u in getattr(s, "units", ()))
    return own + UNITS


def numbers(node: Any, path: str = "", chain: tuple[Mapping, ...] = ()
            ) -> Iterator[tuple[str, float, tuple[Mapping, ...]]]:
    """Every number of ``node`` (a ``summary.json`` content) as ``(path, value, objects)``:
    ``objects`` are the enclosing objects, innermost last. Booleans are not numbers."""
    if isinstance(node, Mapping):
        for k, v in node.items():
            yield from numbers(v, f"{path}.{k}" if path else str(k), (*chain, node))
    elif isinstance(node, (list, tuple)):
        for v in node:
            yield from numbers(v, path + "[]", chain)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield path, node, chain


def rule(path: str, units: Sequence[tuple[str, str]] = UNITS) -> tuple[str, str] | None:
    """The first ``(pattern, unit)`` of ``units`` whose pattern matches ``path``; a unit
    ``=PREFIX`` reads the rest of the path under ``PREFIX`` (``run.study.check.*`` is laid out
    as ``results.balance.*``)."""
    for pattern, regex, unit in _compiled(tuple(units)):
        if regex.fullmatch(path):
            if unit.startswith("="):
                head = pattern.rstrip("*").rstrip(".")
                found = rule(unit[1:] + path[len(head):], units)
                return (pattern, found[1]) if found else None
            return pattern, unit
    return None


def unit_of(path: str, chain: Sequence[Mapping] = (),
            units: Sequence[tuple[str, str]] = UNITS) -> str | None:
    """The unit of the number at ``path`` (``rule``), an ``@field`` read from the enclosing
    objects ``chain`` (innermost last); ``None`` when none is declared or the field is
    missing or empty."""
    found = rule(path, units)
    if found is None:
        return None
    unit = found[1]
    if unit == "@unit":
        return str(chain[-1].get("unit") or "") or None if chain else None
    if unit.startswith("@"):
        field = unit[1:]
        return next((str(o[field]) for o in reversed(chain) if o.get(field)), None)
    return unit


def declared(summary: Mapping[str, Any], sections: Iterable[Any] = ()) -> dict[str, str]:
    """``summary.json["units"]``: each pattern of ``table(sections)`` that a number of
    ``summary`` matches, with its unit, in the table's order (the first match wins)."""
    units = table(sections)
    paths = dict.fromkeys(path for path, _, _ in numbers(summary))  # each path matched once
    used = {found[0] for path in paths if (found := rule(path, units)) is not None}
    return {p: u for p, u in units if p in used}


def missing(summary: Mapping[str, Any], sections: Iterable[Any] = ()) -> list[str]:
    """The paths of ``summary``'s numbers without a unit (``unit_of`` ``None``), each once."""
    units = table(sections)
    return list(dict.fromkeys(path for path, _, chain in numbers(summary)
                              if unit_of(path, chain, units) is None))
