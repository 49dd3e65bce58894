"""The study kinds, each declared once: what ``analyzer simulate``, ``compare``, ``sweep``,
``ablate``, ``tournament``, ``tune``, ``robustness`` and ``balance`` are.

A study kind is the ``kind`` a run records (``summary.json["run"]["study"]["kind"]``; a plain
run is ``simulate``) and the command that runs it. Its entry in ``STUDIES`` names

- ``api``: its Python function (``analyzer.api`` exports every one),
- ``command``: its command-line function (``analyzer.study_cli``); every one takes the run
  flags ``RUN_FLAGS`` (declared once there, as ``typing.Annotated`` aliases) and its own
  options,
- ``section``: its section of the generic report, or ``own_report``: the module whose
  ``build`` writes a report of its own instead (with the labelled-defaults appendix when
  ``appendix``),
- ``results``: where its numbers are in ``summary.json["results"]``,
- ``half_width``: what ``--target-ci`` narrows (``None``: every reported win-rate interval,
  ``analyzer.precision.max_half_width``),
- ``answers``: the function that gives the study's answers in a fixed order when the study
  file declares no ``[[questions]]`` — the report's Answers table (issue #25,
  ``analyzer.report.answers``).

Functions are named by dotted path (``"module:function"``, ``load``) and imported when used,
so this module imports no study and the registry makes no import cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# the run flags every study command takes (``analyzer.study_cli``), as API keyword arguments
# (``quiet`` is the API's ``progress=False``)
ANSWERS = "analyzer.report.answers"  # the module of every study kind's ``answers``
RUN_FLAGS = ("games", "seed", "jobs", "backend", "scheduler", "chunk_size", "out", "resume",
             "force", "quiet", "csv", "plan", "time")


@dataclass(frozen=True)
class StudyKind:
    """One study kind (see the module docstring).

    Attributes
    ----------
    kind : str
        Its name: the command and ``run.study.kind``.
    word : str
        A run of it in a message: ``"the sweep of 'toy' (seed 3)"``.
    summary : str
        One line for the command-line help.
    api, command : str
        ``"module:function"`` of its Python function and of its command.
    default_out : str
        Its run directory under ``reports/``: a format string of ``name`` (the scenario's or
        pool's) and the study's own keyword arguments (``seat`` of ``tune``).
    section, own_report : str, optional
        ``"module:function"`` of its section in the generic report (called as
        ``section(doc, study, run, games, seats, context)``), or the module whose
        ``build(doc, run, seats, run_dir)`` writes a report of its own.
    appendix : bool
        An own report ends with the labelled-defaults appendix of the generic one.
    results : tuple of str
        The path of its numbers in ``summary.json["results"]``.
    half_width : str, optional
        ``"module:function"`` of the widest interval ``--target-ci`` narrows.
    answers : str, optional
        ``"module:function"`` giving the study's answers in a fixed order (issue #25).
    """

    kind: str
    word: str
    summary: str
    api: str
    command: str
    default_out: str = "{name}"
    section: str | None = None
    own_report: str | None = None
    appendix: bool = True
    results: tuple[str, ...] = ()
    half_width: str | None = None
    answers: str | None = None


STUDIES: dict[str, StudyKind] = {s.kind: s for s in (
    StudyKind("simulate", "run", "Run a scenario, store the records and write the report.",
              "analyzer.api:simulate", "analyzer.study_cli:simulate",
              answers=f"{ANSWERS}:simulate"),
    StudyKind("compare", "comparison",
              "Play several scenarios on the same game seeds; paired differences.",
              "analyzer.study.compare:compare", "analyzer.study_cli:compare",
              section="analyzer.report.compare:section", results=("studies", "compare"),
              answers=f"{ANSWERS}:compare"),
    StudyKind("sweep", "sweep",
              "One variant per parameter value on shared seeds; the metric against the value.",
              "analyzer.study.sweep:sweep", "analyzer.study_cli:sweep", "{name}-sweep",
              section="analyzer.report.sweep:section", results=("studies", "sweep"),
              answers=f"{ANSWERS}:sweep"),
    StudyKind("ablate", "ablation", "Value of each item in play, by leaving it out.",
              "analyzer.study.ablate:ablate", "analyzer.study_cli:ablate", "{name}-ablate",
              section="analyzer.report.ablate:section", results=("studies", "ablate"),
              answers=f"{ANSWERS}:ablate"),
    StudyKind("tournament", "tournament",
              "Rate players on common seeds (Plackett–Luce, head to head).",
              "analyzer.study.tournament:tournament", "analyzer.study_cli:tournament",
              own_report="analyzer.report.tournament",
              results=("tournament",),
              half_width="analyzer.precision:entrant_half_width",
              answers=f"{ANSWERS}:tournament"),
    StudyKind("tune", "tuning",
              "Fit one seat's policy parameters (CMA-ES), checked on fresh seeds.",
              "analyzer.study.tune:tune", "analyzer.study_cli:tune", "{name}-tune-seat{seat}",
              own_report="analyzer.report.tuning", results=("tune",),
              answers=f"{ANSWERS}:tune"),
    StudyKind("robustness", "robustness check",
              "Do the key findings hold for other players and other rule defaults?",
              "analyzer.study.robustness:robustness", "analyzer.study_cli:robustness",
              section="analyzer.report.robustness:section", results=("robustness",),
              answers=f"{ANSWERS}:simulate"),
    StudyKind("balance", "balance search",
              "Find the rule or table value that brings a finding to a target, checked on "
              "fresh seeds.", "analyzer.study.balance:balance", "analyzer.study_cli:balance",
              "{name}-balance", own_report="analyzer.report.balancing", results=("balance",),
              answers=f"{ANSWERS}:balance"),
)}


def study_kind(kind: str | None) -> StudyKind:
    """The entry of ``kind`` (``None`` or a kind this version does not know: ``simulate``)."""
    return STUDIES.get(kind or "simulate", STUDIES["simulate"])


def word(kind: str) -> str:
    """How a message names a run of ``kind`` (``"sweep"``, ``"ablation"``); an unknown kind
    by its name."""
    return STUDIES[kind].word if kind in STUDIES else kind


def of_run(run: Mapping[str, Any]) -> StudyKind:
    """The study kind of a run's facts (``summary.json["run"]``)."""
    return study_kind((run.get("study") or {}).get("kind"))


def load(ref: str) -> Any:
    """The object a ``"module:name"`` reference names (imported now)."""
    module, _, name = ref.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, name) if name else obj


def results_of(results: Mapping[str, Any], kind: str) -> Any:
    """The numbers of study ``kind`` in ``summary.json["results"]`` (``None`` when absent)."""
    node: Any = results
    for key in STUDIES[kind].results:
        node = (node or {}).get(key) if isinstance(node, Mapping) else None
    return node if STUDIES[kind].results else None


def listing() -> str:
    """``"simulate, compare, sweep, ablate, tournament, tune and robustness"``: every study
    command, for help texts."""
    names = list(STUDIES)
    return ", ".join(names[:-1]) + " and " + names[-1]
