"""A run's ``summary.json``: its schema, written (``dumps``) and read (``read``) here only
(issue #31 step 4). The schema, its versions and how an older file is read: docs/summary.md
(``schema_markdown`` generates its table; a test keeps the two the same).
"""

from __future__ import annotations

import json
import math
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from analyzer import userfiles
from analyzer.errors import AnalyzerError
from analyzer.report import units

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Arm:
    """One arm of the run (``run.arms``): the base (``"base"``) or a variant."""

    name: str
    description: str = ""
    rules: Mapping[str, Any] = field(default_factory=dict)  # rule options as set
    seats: tuple[str, ...] = ()  # the players' names, seat by seat
    players: int | None = None
    present: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, arm: Mapping[str, Any]) -> Arm:
        """The typed arm of a ``run.arms[]`` object (``present``: its keys, as ``RunFacts``)."""
        given = {k: tuple(v) if k == "seats" else v for k, v in arm.items() if k in ARM_FIELDS}
        return cls(**given, present=tuple(k for k in arm if k in ARM_FIELDS))


@dataclass(frozen=True)
class RunFacts:
    """The run facts (``summary.json["run"]``): the scenario as run, the labelled defaults in
    use, what each user table changes and how the games were played. A study adds its own
    (``study``, ``target_ci``). ``present``: the facts a read ``summary.json`` holds, in its
    order (``None``: made now, all of them); ``as_dict`` writes those only, so a re-render
    keeps the file as it was."""

    name: str = ""
    description: str = ""
    scenario_file: str = ""
    game: str = ""
    expansions: tuple[str, ...] = ()
    players: int | None = None  # of the base arm
    games: int | None = None  # per arm
    seed: int | None = None  # the root seed
    seat_rotation: bool = True
    arms: tuple[Arm, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)  # arm -> labelled defaults
    questions: tuple[Mapping[str, Any], ...] = ()  # the study file's [[questions]]
    tables: tuple[Mapping[str, Any], ...] = ()  # user data tables (``tablediff``)
    version: str = ""  # analyzer's
    jobs: int | None = None
    backend: str = ""
    chunk_size: int | None = None
    chunks_resumed: int = 0
    games_played: int = 0
    seconds: float = 0.0
    cpu_seconds: float | None = None
    estimate: Mapping[str, Any] | None = None  # the --time / --plan estimate
    games_per_second: float | None = None
    finished: str = ""  # local time, "YYYY-MM-DD HH:MM:SS"
    target_ci: Mapping[str, Any] | None = None  # a --target-ci run's stopping rule
    study: Mapping[str, Any] | None = None  # the study kind's own facts (``kind``, ...)
    extra: Mapping[str, Any] = field(default_factory=dict)  # facts this version does not know
    present: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, run: Mapping[str, Any] | RunFacts | None) -> RunFacts:
        """The typed facts of ``run`` (a ``summary.json["run"]`` dict, may be empty)."""
        if isinstance(run, RunFacts):
            return run
        run = dict(run or {})
        known = {f.name for f in fields(cls)} - {"extra", "present"}
        given = {k: v for k, v in run.items() if k in known}
        if "arms" in given:
            given["arms"] = tuple(Arm.of(a) if isinstance(a, Mapping) else Arm(str(a))
                                  for a in given["arms"] or ())
        for k in ("expansions", "questions", "tables"):
            if k in given:
                given[k] = tuple(given[k] or ())
        return cls(**given, extra={k: v for k, v in run.items() if k not in known},
                   present=tuple(run))

    def said(self, name: str) -> Any:
        """The fact ``name`` as a report says it: ``"?"`` where the facts do not hold it (an
        older run's, a run without a ``summary.json``)."""
        value = getattr(self, name)
        missing = value in (None, "") if self.present is None else name not in self.present
        return "?" if missing else value

    def how_played(self, head: str) -> list[str]:
        """The report's paragraphs on how the games were played: ``head`` (what was played,
        "Played 200 games in 1.2 s") with the throughput, jobs, backend, chunks resumed and
        version (none without a throughput), then the estimate against the actual times
        (``analyzer.plan.against``; none without one)."""
        out = []
        if self.games_per_second:
            out.append(f"{head} ({self.games_per_second:.0f} games/s over {self.said('jobs')} "
                       f"job(s), backend {self.said('backend')}); {self.chunks_resumed} chunk(s) "
                       f"resumed. analyzer {self.said('version')}.")
        if self.estimate:
            from analyzer.plan import against

            out.append(against(dict(self.estimate), self.cpu_seconds, self.seconds))
        return out

    def kind(self) -> str:
        """The study kind that made the run (``simulate`` when none says)."""
        return str((self.study or {}).get("kind") or "simulate")

    def as_dict(self) -> dict[str, Any]:
        """The facts as ``summary.json["run"]``: the ones read (``present``), in the file's
        order, else every one (``study`` and ``target_ci`` when set), then ``extra``."""
        names = [f.name for f in fields(self) if f.name not in ("extra", "present")]
        if self.present is None:
            names = [n for n in names if n not in OPTIONAL or getattr(self, n) is not None]
        out = {n: _plain(getattr(self, n)) for n in names}
        if self.present is not None:
            out = {k: out[k] if k in out else self.extra[k] for k in self.present}
        return {**out, **self.extra}


def _plain(value: Any) -> Any:
    """A fact as JSON data: an arm as an object, a tuple as a list."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Arm):
        return {n: _plain(getattr(value, n)) for n in value.present or ARM_FIELDS}
    return value


ARM_FIELDS = tuple(f.name for f in fields(Arm) if f.name != "present")
OPTIONAL = ("target_ci", "study")  # written only when set


@dataclass(frozen=True)
class Summary:
    """A ``summary.json``: ``run`` facts, the report's ``results`` (by section) and ``units``
    (``analyzer.report.units.declared``)."""

    run: RunFacts
    results: Any = None  # a Mapping as written; a hand-edited file's as it is
    units: Mapping[str, str] | None = None
    schema_version: int = SCHEMA_VERSION


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if hasattr(obj, "item"):  # numpy scalars
        return _json_safe(obj.item())
    return obj


def content(summary: Summary, sections: Any = ()) -> dict[str, Any]:
    """The JSON content of ``summary`` (non-finite numbers as ``null``); with results, its
    ``units`` declared now (the game's ``sections`` add theirs)."""
    out: dict[str, Any] = {"schema_version": summary.schema_version,
                           "run": _json_safe(summary.run.as_dict())}
    if summary.results is not None:
        out["results"] = _json_safe(summary.results)
        out["units"] = units.declared(out, sections)
    return out


def dumps(summary: Summary, sections: Any = (), indent: int | None = 1) -> str:
    """``summary.json``'s text of ``summary`` (``content``)."""
    return json.dumps(content(summary, sections), indent=indent, default=str)


def loads(data: Any, path: str | Path = "summary.json") -> Summary:
    """The ``Summary`` of parsed ``summary.json`` content ``data``.

    Raises
    ------
    AnalyzerError
        Its ``schema_version`` is newer than ``SCHEMA_VERSION`` or not a whole number, or its
        ``run`` is not an object. (Content that is not an object has no facts: an empty
        ``Summary`` of version 0.)
    """
    if not isinstance(data, Mapping):  # no facts to read
        return Summary(RunFacts.of({}), None, None, 0)
    version = data.get("schema_version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise AnalyzerError(f"{path}: schema_version must be a whole number (got {version!r})")
    if version > SCHEMA_VERSION:
        raise AnalyzerError(f"{path}: written by a newer analyzer (summary.json schema_version "
                            f"{version}; this one reads up to {SCHEMA_VERSION}): upgrade "
                            "analyzer, or re-run the study with this one")
    run = data.get("run", {})
    if not isinstance(run, Mapping):
        raise AnalyzerError(f"{path}: not a summary analyzer wrote (its run facts are not a "
                            "table)")
    return Summary(RunFacts.of(run), data.get("results"), data.get("units"), version)


def read(path: str | Path) -> Summary:
    """The ``Summary`` in the file ``path`` (``loads``).

    Raises
    ------
    AnalyzerError
        The file cannot be read as JSON (one line with the reason), or as ``loads``.
    """
    try:
        data = userfiles.read_json(path)
    except userfiles.UnreadableFile as err:
        raise AnalyzerError(f"{path}: cannot read it ({err.reason})") from None
    return loads(data, path)


def schema_markdown() -> str:
    """The schema of ``summary.json`` as Markdown: the top-level fields, then the run facts
    (``RunFacts``) and an arm (``Arm``) with their types and, for numbers, their units
    (``analyzer.report.units``)."""
    hints = {c: typing.get_type_hints(c) for c in (RunFacts, Arm)}
    lines = [f"`summary.json` schema version {SCHEMA_VERSION}.", "",
             "| field | type | unit |", "|---|---|---|",
             "| `schema_version` | int | |",
             "| `run` | object: the run facts below | |",
             "| `results` | object: the report's numbers, by section | `units` |",
             "| `units` | object: number path pattern -> unit (first match wins) | |"]
    for cls, prefix, title in ((RunFacts, "run.", "Run facts (`run`):"),
                               (Arm, "run.arms[].", "An arm (`run.arms[]`):")):
        lines += ["", title, "", "| field | type | unit |", "|---|---|---|"]
        for f in fields(cls):
            if f.name in ("extra", "present"):
                continue
            hint = hints[cls][f.name]
            numeric = any(t in (int, float) for t in (typing.get_args(hint) or (hint,)))
            found = units.rule(prefix + f.name) if numeric else None
            kind = str(f.type).replace(" | ", " or ")
            lines.append(f"| `{f.name}` | {kind} | {found[1] if found else ''} |")
    lines += ["", "Units (`units.UNITS`; a game's own sections add theirs under `results.<section>.`):",
              "", "| path pattern | unit |", "|---|---|"]
    lines += [f"| `{p}` | {u.replace('|', '/')} |" for p, u in units.UNITS]
    return "\n".join(lines) + "\n"
