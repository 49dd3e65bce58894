"""The study kinds (``analyzer simulate``, ``compare``, ``sweep`` ...: ``MODULES``).

Each study module (``analyzer/study/<kind>.py``) declares its kind once, as ``KIND =
StudyKind(...)``. This module only collects them (``kinds``, ``STUDIES``), importing the
modules by name when first asked, so it imports no study and makes no import cycle.

A study kind is the ``kind`` a run records (``summary.json["run"]["study"]["kind"]``; a plain
run is ``simulate``) and the command that runs it.
"""

from __future__ import annotations

import functools
import importlib
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from analyzer.errors import OptionError

# the modules declaring a ``KIND``, in the order of the commands
MODULES = tuple(f"analyzer.study.{m}" for m in (
    "simulate", "compare", "sweep", "ablate", "tournament", "tune", "robustness", "balance",
    "sensitivity", "quality"))
# the run flags every study command takes (``analyzer.study_cli``), as API keyword arguments
# (``quiet`` is the API's ``progress=False``)
RUN_FLAGS = ("games", "seed", "jobs", "backend", "scheduler", "chunk_size", "out", "resume",
             "force", "quiet", "csv", "plan", "time")

CSV_HELP = ("Also write the records as games.csv and seats.csv beside the Parquet files (one "
            "row per game / per seat and game, with a header row), for spreadsheets.")
# options several study kinds take
TargetCi = Annotated[float | None, typer.Option(
    help="Keep adding chunks until every win-rate interval is within ± this share (e.g. 0.01 "
         "= ±1 pp), or --games is reached; says how many games it took.")]
Rounds = Annotated[bool, typer.Option(
    "--rounds", help="Also record each game's score and position estimate after every round "
                     "(rounds.parquet) and report the game-quality findings (quality:...: game "
                     "length, close finishes, lead changes, comebacks, drama). Costs about "
                     "15-65 % of games/s with fast players, so it is off by default.")]
KingmakingSamples = Annotated[int, typer.Option(
    "--kingmaking-samples",
    help="With --rounds: test each game for kingmaking (quality:kingmaking) by trying at most "
         "N other choices of seats that could no longer win, each a counterfactual replay "
         "of the game with the same chance and players (0: off). Costs up to N games per "
         "game.")]
ScenarioFile = Annotated[Path, typer.Argument(help="Scenario TOML file.")]
CORRECTIONS = Literal["holm", "bh"]


@dataclass(frozen=True)
class StudyKind:
    """One study kind, declared once in its module as ``KIND``.

    Attributes
    ----------
    kind : str
        Its name: the command and ``run.study.kind``.
    word : str
        A run of it in a message: ``"the sweep of 'toy' (seed 3)"``.
    api : callable
        Its Python function (``analyzer.api`` exports it). Its parameters annotated
        ``Annotated[type, typer.Option(...)]`` are the command's own options (a union type is
        read on the command line as its first member, a sequence as a repeated option).
    argument : tuple of (str, annotation)
        The command's argument: its name and ``Annotated[type, typer.Argument(...)]``.
    help : str or callable
        The command's help (a callable: made when the command is registered).
    tell : callable
        ``tell(run, results, res, say)``: what the command prints once the study is done, of
        the run facts (``RunFacts``), its numbers in ``summary.json`` (``results``; ``{}``
        when none) and the finished study ``res`` (its files).
    default_out : str
        Its run directory under ``reports/``: a format string of ``name`` (the scenario's or
        pool's) and the study's own keyword arguments (``seat`` of ``tune``).
    section, own_report : str, optional
        ``"module:function"`` of its section in the generic report (called as
        ``section(doc, run, games, seats, players, item_kind)``), or the module whose
        ``write(doc, numbers(run, seats), run, run_dir)`` (or ``build(doc, run, seats,
        run_dir)``) writes a report of its own.
    appendix : bool
        An own report ends with the labelled-defaults appendix of the generic one.
    results : tuple of str
        The path of its numbers in ``summary.json["results"]``.
    half_width : str, optional
        ``"module:function"`` of the widest interval ``--target-ci`` narrows (``None``: every
        reported win-rate interval, ``analyzer.stats.max_win_rate_half_width``).
    answers : str
        ``"module:function"`` giving the study's answers in a fixed order when the study file
        declares no ``[[questions]]`` (issue #25, ``analyzer.report.answers``).
    families : mapping
        The finding-key families only this kind makes, each with its meaning and unit
        (``{"tuned_minus_start": ("the tuned … minus the start's …", "pp")}``).
    as_written : bool
        It plays the study file's own arms, so a question's unknown key is an error; a kind
        making arms of its own (a sweep's values) has keys the file cannot know.
    entrants : bool
        Its keys are per entrant of a pool (``win_rate:ENTRANT``, ``rating_gap``).
    game_keys : bool
        Its report has the game's own sections, whose keys a question may name.
    flag_help : mapping
        Run flags whose meaning the command narrows (``tune --games``), by keyword.
    budgets : bool or str
        A reason ``--time`` cannot size its games (``True``: it can).
    options : mapping
        Command-line options its Python function does not take, ``name: (annotation,
        default)``; with ``command``, ``"module:function"`` of what the command runs instead
        of the function: ``command(argument, options, flags)``.
    """

    kind: str
    word: str
    api: Callable[..., Any]
    argument: tuple[str, Any]
    help: str | Callable[[], str]
    tell: Callable[[Any, Any, Any, Callable[[str], None]], None]
    default_out: str = "{name}"
    section: str | None = None
    own_report: str | None = None
    appendix: bool = True
    results: tuple[str, ...] = ()
    half_width: str | None = None
    answers: str = "analyzer.report.answers:simulate"
    families: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    as_written: bool = False
    entrants: bool = False
    game_keys: bool = True
    flag_help: Mapping[str, str] = field(default_factory=dict)
    budgets: bool | str = True
    options: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)
    command: str | None = None


@functools.cache
def _collect(modules: tuple[str, ...]) -> dict[str, StudyKind]:
    # cached per tuple of modules: a test may add one to ``MODULES``
    return {k.kind: k for k in (importlib.import_module(m).KIND for m in modules)}


def kinds() -> dict[str, StudyKind]:
    """Every study kind, by name, in the order of ``MODULES``."""
    return _collect(MODULES)


def __getattr__(name: str) -> Any:
    if name == "STUDIES":  # collected when first used: the study modules import this one
        return kinds()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def word(kind: str) -> str:
    """How a message names a run of ``kind`` (``"sweep"``, ``"ablation"``); an unknown kind
    by its name."""
    return kinds()[kind].word if kind in kinds() else kind


def a_word(kind: str) -> str:
    """``word(kind)`` with its indefinite article (``"a sweep"``, ``"an ablation"``)."""
    name = word(kind)
    return ("an " if name[:1] in "aeiou" else "a ") + name


def of_run(run: Mapping[str, Any]) -> StudyKind:
    """The study kind of a run's facts (``summary.json["run"]``; none or a kind this version
    does not know: ``simulate``)."""
    return kinds().get((run.get("study") or {}).get("kind") or "simulate", kinds()["simulate"])


def load(ref: str) -> Any:
    """The object a ``"module:name"`` reference names (imported now)."""
    module, _, name = ref.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, name) if name else obj


def results_of(results: Mapping[str, Any], kind: str) -> Any:
    """The numbers of study ``kind`` in ``summary.json["results"]`` (``None`` when absent)."""
    node: Any = results
    for key in kinds()[kind].results:
        node = (node or {}).get(key) if isinstance(node, Mapping) else None
    return node if kinds()[kind].results else None


def in_words(items: list[str]) -> str:
    """``"a, b and c"`` (``items`` not empty)."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def listing() -> str:
    """``"simulate, compare, sweep, ablate, tournament, tune and robustness"``: every study
    command, for help texts."""
    return in_words(list(kinds()))


def check_correction(correction: str) -> None:
    """Refuse a multiple-comparison correction other than ``CORRECTIONS`` (``OptionError``)."""
    allowed = typing.get_args(CORRECTIONS)
    if correction not in allowed:
        raise OptionError("correction", f"must be {' or '.join(allowed)} (got {correction!r})")
