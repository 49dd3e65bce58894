"""The key findings and measured figures of a run, by their stable keys.

Every report puts its key findings into ``summary.json`` (``results.findings.findings``; a study
kind with a report of its own, under its results: ``results.<kind key>.findings.findings``),
each with a stable ``key`` such as ``first_player:base``, ``item:NAME`` or a game's own
(``analyzer/games/<game>/findings.py``). ``analyzer findings RUN_DIR`` lists them, and the
commands that name a finding (``analyzer balance --finding KEY``, a scenario's
``[[questions]]``) look a key up with ``lookup``: one place that says which keys exist and,
for a typo, which one was meant.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from analyzer import studies, userfiles
from analyzer.errors import AnalyzerError, OptionError
from analyzer.report import role_keys, summary
from analyzer.report.findings import Finding
from analyzer.report.summary import Summary
from analyzer.scenario import shown


def as_written(kind: str) -> bool:
    """Whether study ``kind`` plays the study file's own arms (its ``StudyKind.as_written``):
    its keys are known before play (``analyzer.study.questions.plan``) and a question's key is
    held against them exactly (a kind this version does not know: no)."""
    kinds = studies.kinds()
    return kind in kinds and kinds[kind].as_written


def own_families() -> dict[str, Mapping[str, tuple[str, str]]]:
    """Study kind -> the finding-key families only it makes, each with its meaning and unit
    (``StudyKind.families``)."""
    return {k: s.families for k, s in studies.kinds().items() if s.families}


def other_kind(key: str, kind: str) -> str:
    """The study kind whose own key ``key`` is when that is not ``kind`` (``"tune"`` for
    ``tuned_minus_start`` in a simulate run), else ``""``."""
    family = key.partition(":")[0]
    return next((k for k, fams in own_families().items() if family in fams and k != kind), "")


def of_summary(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The finding records of a run's ``summary.json`` content, in the report's order (tested
    findings by size, then the measured figures); empty when the run has none."""
    results = summary.get("results") or {}
    node = results.get("findings")
    if not isinstance(node, Mapping):  # a study kind with a report of its own
        own = studies.results_of(results, studies.of_run(summary.get("run") or {}).kind)
        node = own.get("findings") if isinstance(own, Mapping) else None
    return list((node or {}).get("findings") or [])


def read(run_dir: str | Path) -> list[dict[str, Any]]:
    """The finding records of the run in ``run_dir`` (``records_of`` its ``finished``).

    Raises
    ------
    AnalyzerError
        As ``finished``, or its findings are malformed.
    """
    return records_of(finished(run_dir), run_dir)


def not_a_run(run_dir: str | Path, other: str = "") -> str:
    """Why ``run_dir`` is no finished run, when the folder says so: it does not exist, is a
    file, or holds the chunks of a run that has not finished; ``""`` otherwise. ``other``:
    what else the command takes, added to the hint."""
    give = f"give the directory of a finished run, e.g. reports/NAME{', ' + other if other else ''}"
    folder = Path(run_dir)
    if not folder.exists():
        return f"no such directory ({give})"
    if not folder.is_dir():
        return f"not a directory ({give})"
    if (folder / "chunks").is_dir() and not (folder / "summary.json").exists():
        return ("the run is not finished (no summary.json yet): finish it with its command "
                "and `analyzer ... --resume`")
    return ""


def finished(run_dir: str | Path) -> Summary:
    """The ``summary.json`` of the finished run in ``run_dir`` (``summary.read``).

    Raises
    ------
    AnalyzerError
        ``run_dir`` holds no readable ``summary.json`` with results (not a finished run), or
        one of a newer schema.
    """
    path = userfiles.looked_up(Path(run_dir) / "summary.json")
    if not path.exists() and not path.is_symlink():
        raise AnalyzerError(f"{run_dir}: " + (not_a_run(run_dir, "or a scenario or pool .toml file")
                                              or "not a run directory, no summary.json here "
                                              "(give the directory of a finished run, e.g. "
                                              "reports/NAME)"))
    found = summary.read(path)
    if not found.results:
        raise AnalyzerError(f"{run_dir}: the run has no results yet (re-render it with "
                            f"`analyzer report {run_dir}`, or finish it with its command "
                            "and `analyzer ... --resume`)")
    return found


def records_of(found: Summary, run_dir: str | Path) -> list[dict[str, Any]]:
    """The finding records of the run ``found`` (``of_summary``) of ``run_dir``.

    Raises
    ------
    AnalyzerError
        They are not a list of finding records.
    """
    path = userfiles.looked_up(Path(run_dir) / "summary.json")
    try:
        records = of_summary({"run": found.run.as_dict(), "results": found.results})
    except (AttributeError, TypeError, ValueError, KeyError):
        records = None
    problem = "its findings are not a list of records" if records is None else _malformed(records)
    if problem:
        raise AnalyzerError(f"{path}: not a summary analyzer wrote ({problem}); re-render it "
                            f"with `analyzer report {run_dir}`")
    return records


#: The fields of a finding record that listing and lookup read, with the types they may have.
_FIELDS: dict[str, tuple[type, ...]] = {
    "key": (str,), "sentence": (str,), "unit": (str,), "estimate": (int, float),
    "lo": (int, float), "hi": (int, float), "null": (int, float), "scale": (int, float),
    "digits": (int,)}


def _malformed(records: Sequence[Any]) -> str:
    """What is wrong with hand-edited finding records (``""`` when nothing is): each must be a
    table with a text ``key`` and fields of the types ``_FIELDS`` gives (or null)."""
    for i, r in enumerate(records):
        if not isinstance(r, Mapping):
            return f"finding {i} is not a table"
        if not isinstance(r.get("key"), str):
            return f"finding {i} has no text 'key'"
        for name, types in _FIELDS.items():
            v = r.get(name)
            if v is not None and (not isinstance(v, types) or isinstance(v, bool)):
                return f"finding {r['key']!r}: {name} must be {' or '.join(t.__name__ for t in types)} (got {v!r:.40})"
    return ""


def unestimated(records: Sequence[Mapping[str, Any]], key: str, patterns: Sequence[str]) -> bool:
    """Whether ``key``, absent from ``records``, is a real key of the game that these records
    could not estimate: it matches one of the game's key ``patterns`` of which no record has a
    key (else a key of that pattern was estimated and ``key`` is a typo of one, e.g.
    ``item:NAME`` with a misspelt name)."""
    return any(fnmatch.fnmatchcase(key, p)
               and not any(fnmatch.fnmatchcase(str(r.get("key")), p) for r in records)
               for p in patterns)


def lookup(records: Sequence[Mapping[str, Any]], key: str, *, option: str = "finding",
           where: str = "the run", patterns: Sequence[str] = ()) -> Mapping[str, Any]:
    """The record of finding ``key`` among ``records``.

    Parameters
    ----------
    records : sequence of mapping
        Finding records (``of_summary``, ``read``): each has ``key``.
    key : str
    option : str
        The keyword argument (or field) that named the key, for the message.
    where : str
        What the records are of, for the message (``"the run in reports/x"``).
    patterns : sequence of str
        The game's own keys as ``fnmatch`` patterns (``extension.key_patterns``): a key
        matching one of which no record has a key is real, only not estimated in these records
        (``unestimated``), and is said to be so.

    Raises
    ------
    OptionError
        ``key`` is not among them: one line with the closest keys ("did you mean") and every
        key allowed; or, for a key matching ``patterns``, that the records gave it no value.
    """
    for r in records:
        if r.get("key") == key:
            return r
    if unestimated(records, key, patterns):
        raise OptionError(option, f"{shown(key)} is a key of this game, but {where} gave it no value "
                                  "(too few games, or too few decisive ones, for its model): "
                                  "play more games")
    if role_keys.is_role(key):  # listed by `analyzer findings`, but made per question only
        raise OptionError(option, f"{shown(key)} is a key by role (it names whichever seat, "
                                  "player or arm the results pick): a study file's questions "
                                  "answer it, but it cannot be used here; give the key of what "
                                  "it picks (`analyzer findings RUN_DIR` lists the run's keys)")
    keys = [str(r.get("key")) for r in records]
    if not keys:
        raise OptionError(option, f"{shown(key)}: {where} has no key finding or measured figure")
    raise OptionError(option, f"unknown finding key {shown(key)} in {where}"
                              f"{did_you_mean(key, keys)}; allowed: {', '.join(keys)}")


def did_you_mean(key: str, names: Sequence[str], close: Sequence[str] | None = None) -> str:
    """``" (did you mean 'a' or 'b'?)"`` naming ``close`` (default: up to three ``names``
    close to ``key``, difflib), or ``""`` when there is none."""
    close = difflib.get_close_matches(key, names, n=3, cutoff=0.6) if close is None else close
    return f" (did you mean {' or '.join(repr(k) for k in close)}?)" if close else ""


def value_text(record: Mapping[str, Any]) -> str:
    """A record's estimate with its 95 % interval and unit, as its report shows it
    (``"+10.0 pp [+4.6, +15.4]"``)."""
    def num(name: str, default: float = math.nan) -> float:
        v = record.get(name)
        return default if v is None else float(v)

    return Finding(statement="", estimate=num("estimate"), lo=num("lo"), hi=num("hi"),
                   unit=record.get("unit") or "", scale=num("scale", 1.0),
                   digits=int(record.get("digits") or 1), signed=bool(record.get("signed")),
                   null=record.get("null")).value_text()


def display(record: Mapping[str, Any], value: float) -> float:
    """``value`` (in the record's own scale, a share as 0–1) in the unit the report shows
    (``scale``: a share of 0.1 is 10 %)."""
    return value * float(record.get("scale") or 1.0)


def stored(record: Mapping[str, Any], value: float) -> float:
    """A ``value`` given in the unit the report shows back in the record's own scale."""
    return value / float(record.get("scale") or 1.0)


def listing(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """``analyzer findings``: one line per key — the key, whether it is a tested finding or a
    measured figure, its value with its interval, its no-effect value — then its sentence
    indented under it."""
    if not records:
        return ["(no key finding or measured figure in this run)"]
    width = max(len(str(r.get("key"))) for r in records)
    lines = []
    for r in records:
        kind = "figure " if r.get("figure") else "finding"
        null = r.get("null")
        against = ("" if null is None else
                   f"  (no effect: {display(r, float(null)):g}{' ' + r['unit'] if r.get('unit') else ''})")
        lines.append(f"{r.get('key')!s:<{width}}  {kind}  {value_text(r)}{against}")
        lines.append(f"{'':<{width}}  {r.get('sentence', '')}")
    return lines


__all__ = [
    "as_written",
    "did_you_mean",
    "display",
    "finished",
    "listing",
    "lookup",
    "of_summary",
    "other_kind",
    "own_families",
    "read",
    "records_of",
    "stored",
    "unestimated",
    "value_text",
]
