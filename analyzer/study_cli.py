"""The study commands of the CLI (``analyzer simulate``, ``sweep``, ``robustness`` ...), each
built (``command``) from its study kind's declaration (``analyzer.studies``) and the run flags
every study command takes, declared once below as ``RunFlags``; ``run_flags`` adds them to a
command. ``analyzer.cli`` registers the commands and handles their user errors like every
other command's (one line on stderr, exit 2).
"""

from __future__ import annotations

import functools
import inspect
import shlex
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from copy import copy
from dataclasses import dataclass, fields
from enum import Enum
from typing import Annotated, Any

import typer
from typer.models import OptionInfo

from analyzer import plan, runner, studies
from analyzer.errors import AnalyzerError, OptionError, RunInterrupted, RunStopped
from analyzer.report.summary import RunFacts

# keyword arguments of the API whose flag is not ``--`` + the keyword (see ``flag``)
_FLAGS = {"index": "--game", "params": "--param", "expansions": "--expansion", "kind": "KIND",
          "progress": "--quiet", "paths": "SCENARIOS", "path_or_scenario": "SCENARIO",
          "path_or_pool": "POOL"}


FORCE_HELP = ("Replace the run in --out, everything in it, even when another scenario, seed "
              "or study made it (else refused, so a mistyped --out loses no study).")



class Backend(str, Enum):
    loky = "loky"
    sequential = "sequential"
    dask = "dask"


# ------------------------------------------------------------------ the run flags, once

Games = Annotated[int | None, typer.Option(help="Games per variant (overrides the file).")]
Seed = Annotated[int | None, typer.Option(help="Root seed (overrides the file).")]
Jobs = Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")]
BackendFlag = Annotated[Backend, typer.Option("--backend", help="Parallel backend.")]
Scheduler = Annotated[str | None, typer.Option(
    help="dask scheduler address tcp://HOST:PORT (with --backend dask; without it a local "
         "cluster is started).")]
ChunkSize = Annotated[int | None, typer.Option(
    help="Games per chunk (unit of work, checkpoint and progress; never changes results).")]
Out = Annotated[str | None, typer.Option(
    help="Run directory (default: under reports/, named after the scenario and the study).")]
Resume = Annotated[bool, typer.Option("--resume", help="Skip the chunks an interrupted run "
                                                       "saved.")]
Force = Annotated[bool, typer.Option("--force", help=FORCE_HELP)]
Quiet = Annotated[bool, typer.Option(
    "--quiet", help=f"No progress (a bar on a terminal, else a line every "
                    f"{runner.PROGRESS_EVERY:.0f} s).")]
Csv = Annotated[bool, typer.Option("--csv", help=studies.CSV_HELP)]
PlanFlag = Annotated[bool, typer.Option(
    "--plan", help="Print the plan (parts, arms, games) and its estimated CPU and wall time, "
                   "from this machine's measured speed of these players, then exit without "
                   "playing or writing the run directory (balance first plays its probe, in a "
                   "temporary folder).")]
TimeFlag = Annotated[str | None, typer.Option(
    "--time", help="A wall-time budget such as 90s, 10m or 1.5h: --games is chosen to fit it, "
                   "in place of --games (from the measured speed), and the plan says the ± of "
                   "a seat's win share it buys. Not on tune and balance: their cost is their "
                   "--budget.")]


@dataclass(frozen=True)
class RunFlags:
    """The run flags of one command line (``studies.RUN_FLAGS``): each field's annotation is
    its option, its default the flag's."""

    games: Games = None
    seed: Seed = None
    jobs: Jobs = None
    backend: BackendFlag = Backend.loky
    scheduler: Scheduler = None
    chunk_size: ChunkSize = None
    out: Out = None
    resume: Resume = False
    force: Force = False
    quiet: Quiet = False
    csv: Csv = False
    plan: PlanFlag = False
    time: TimeFlag = None

    def api(self) -> dict[str, Any]:
        """The API's keyword arguments these flags set."""
        return {"games": self.games, "seed": self.seed, "jobs": self.jobs,
                "backend": self.backend.value, "scheduler": self.scheduler,
                "chunk_size": self.chunk_size, "out": self.out, "resume": self.resume,
                "force": self.force, "progress": not self.quiet, "csv": self.csv}

    def hint(self) -> dict[str, Any]:
        """The flags of the run as given, for the resume hint (``--quiet`` and ``--force`` are
        left out; ``--jobs`` changes no record but is kept, as the user chose it for the machine;
        ``--backend loky`` is the default)."""
        return {flag(k): v for k, v in {
            "games": self.games, "seed": self.seed, "jobs": self.jobs,
            "chunk_size": self.chunk_size,
            "backend": None if self.backend is Backend.loky else self.backend,
            "scheduler": self.scheduler, "out": self.out, "csv": self.csv,
            "time": self.time}.items()}


# each run flag: its alias and default, in ``studies.RUN_FLAGS`` order
_RUN_FLAGS: dict[str, tuple[Any, Any]] = {
    f.name: (typing.get_type_hints(RunFlags, include_extras=True)[f.name], f.default)
    for f in fields(RunFlags)}
assert tuple(_RUN_FLAGS) == studies.RUN_FLAGS


def _helped(alias: Any, text: str) -> Any:
    """``alias`` (``Annotated[type, typer.Option(...)]``) with another help text."""
    base, info = typing.get_args(alias)
    info = copy(info)
    info.help = text
    return Annotated[base, info]


def run_flags(budgets: bool | str = True, **help_texts: str) -> Callable[[Callable], Callable]:
    """Give a command the run flags: its signature (what typer reads) gains every flag of
    ``_RUN_FLAGS`` after its own options, and it is called with them bundled as
    ``flags=RunFlags(...)`` inside the ``analyzer.plan`` mode of ``--plan`` and ``--time``
    (``--plan`` prints the plan and exits 0; progress on: the estimate is said on stderr
    before play). ``budgets`` a reason: a command whose games ``--time`` cannot size yet
    (refused in one line with the reason). ``help_texts``: a flag whose meaning the command
    narrows (``tune --games``: games per candidate), by keyword."""
    def decorate(command: Callable) -> Callable:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values()
               if p.name != "flags"]
        texts = dict(help_texts)
        if budgets is not True:  # listed like every run flag, and said to be refused
            texts.setdefault("time", f"Not supported by this command yet ({budgets}).")
        extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                   annotation=_helped(alias, texts[name])
                                   if name in texts else alias)
                 for name, (alias, default) in _RUN_FLAGS.items()]

        @functools.wraps(command)
        def with_flags(*args: Any, **kwargs: Any) -> Any:
            flags = RunFlags(**{name: kwargs.pop(name, default)
                                for name, (_, default) in _RUN_FLAGS.items()})
            if budgets is not True and flags.time is not None:
                raise OptionError("time", f"not supported by {command.__name__} yet ({budgets}; "
                                          "see its cost with {plan})", plan=True)
            budget = plan.parse_time(flags.time) if flags.time is not None else None
            if budget is not None and flags.games is not None:  # said, not refused: a cap
                typer.echo(f"note: --time chooses the games per arm: --games {flags.games} "
                           f"is not used", err=True)
            say = None if flags.quiet else (lambda line: typer.echo(line, err=True))
            try:
                with plan.mode(plan.Mode(flags.plan, budget, say)):
                    return command(*args, flags=flags, **kwargs)
            except plan.Planned as done:
                typer.echo(done.estimate.text())
                return None

        with_flags.__signature__ = inspect.Signature([*own, *extra])  # type: ignore[attr-defined]
        with_flags.__annotations__ = {p.name: p.annotation for p in [*own, *extra]}
        return with_flags
    return decorate


def flag(keyword: str) -> str:
    """The command-line flag of an API keyword argument: ``chunk_size`` -> ``--chunk-size``."""
    return _FLAGS.get(keyword, "--" + keyword.replace("_", "-"))


def cli_message(err: Exception) -> str:
    """The one-line message of a user error as the command line says it: an ``OptionError``
    names the flags (``--jobs``) where the API names keyword arguments (``jobs``)."""
    return err.render(flag) if isinstance(err, OptionError) else str(err)


@contextmanager
def resumable(words: list[str], options: Mapping[str, Any]) -> Iterator[None]:
    """Around a study: if Ctrl-C, SIGTERM or dying workers stop it, its message gives the
    command that resumes it (``resume_hint`` + ``--resume``) instead of the API's
    ``resume=True``; a stop before the study's own session began says nothing is saved."""
    try:
        yield
    except RunStopped as err:
        err.resume_with = f"{resume_hint(words, options)} --resume"
        raise
    except KeyboardInterrupt:
        err = RunInterrupted("interrupted", "nothing saved yet")
        err.resume_with = resume_hint(words, options)
        raise err from None


def resume_hint(words: list[str], options: Mapping[str, Any]) -> str:
    """The command that reproduces a run (``--resume`` is appended by the runner): ``words``
    plus every option that was given, by flag (``None``/``False`` are left out; lists repeat
    the flag)."""
    hint = list(words)
    for name, value in options.items():
        if value is None or value is False:
            continue
        if value is True:
            hint.append(name)
        elif isinstance(value, (list, tuple)):
            for v in value:
                hint += [name, str(v)]
        else:
            hint += [name, str(getattr(value, "value", value))]
    return shlex.join(hint)


# ------------------------------------------------------------------ the commands, built


def _cli_type(hint: Any) -> Any:
    """The type the command line reads for an API annotation: of a union its first type (still
    optional when the union has ``None``), a sequence as a list (a repeated option)."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    types_ = [h for h in typing.get_args(hint) if h is not type(None)] if union else [hint]
    first = types_[0]
    if typing.get_origin(first) is Sequence:
        first = list[typing.get_args(first)]  # type: ignore[misc]
    return first | None if union and type(None) in typing.get_args(hint) else first


def options(kind: studies.StudyKind) -> list[inspect.Parameter]:
    """The command's own options: the parameters of the kind's function annotated with a
    ``typer.Option``, then its command-line-only ``options``."""
    hints = typing.get_type_hints(kind.api, include_extras=True)
    out = []
    for p in inspect.signature(kind.api).parameters.values():
        base, *info = typing.get_args(hints.get(p.name)) or (None,)
        if info and isinstance(info[0], OptionInfo):
            out.append(inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default,
                                         annotation=Annotated[_cli_type(base), info[0]]))
    return out + [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                    annotation=annotation)
                  for name, (annotation, default) in kind.options.items()]


def option_flag(p: inspect.Parameter) -> str:
    """The flag of an option of ``options``: its declared one (``--param``) or ``flag``'s."""
    info = typing.get_args(p.annotation)[1]
    return info.param_decls[0] if info.param_decls else flag(p.name)


def api_flags(func: Callable, flags: RunFlags) -> dict[str, Any]:
    """The run flags as the keyword arguments ``func`` takes: a flag it has no parameter for is
    left out (unless it takes ``**kwargs``), so is one not given whose default is not ``None``;
    ``log`` (lines on stderr, none with ``--quiet``) and ``say`` (lines on stdout) when it
    takes them."""
    params = inspect.signature(func).parameters
    any_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    out = {k: v for k, v in flags.api().items()
           if (k in params and not (v is None and params[k].default is not None))
           or (k not in params and any_keyword)}
    if "log" in params and not flags.quiet:
        out["log"] = lambda line: typer.echo(line, err=True)
    if "say" in params:
        out["say"] = typer.echo
    return out


def command(kind: studies.StudyKind) -> Callable:
    """The command of study ``kind``: its argument and own options (``options``) and the run
    flags (``run_flags``). It calls the kind's function inside ``resumable`` (the resume hint
    gives the options that differ from their defaults), then the kind's ``tell`` and where the
    report is; a kind with a ``command`` of its own runs that instead."""
    name, annotation = kind.argument
    own = options(kind)
    instead = studies.load(kind.command) if kind.command else None

    def run(*args: Any, flags: RunFlags, **given: Any) -> None:
        argument = given.pop(name) if name in given else args[0]
        if instead is not None:
            return instead(argument, given, flags)
        words = ["analyzer", kind.kind, *map(str, argument if isinstance(argument, list)
                                              else [argument])]
        hint = {option_flag(p): given[p.name] for p in own if given[p.name] != p.default}
        with resumable(words, {**hint, **flags.hint()}):
            res = kind.api(argument, **given, **api_flags(kind.api, flags))
        tell(kind, res)
        typer.echo(f"report: {res.out_dir / 'report.html'}")
        return None

    run.__name__ = kind.kind
    run.__signature__ = inspect.Signature([  # type: ignore[attr-defined]
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation),
        *own, inspect.Parameter("flags", inspect.Parameter.KEYWORD_ONLY)])
    return run_flags(kind.budgets, **kind.flag_help)(run)


def tell(kind: studies.StudyKind, res: Any) -> None:
    """Print what study ``kind`` says of the finished study ``res``: its ``tell`` of the run
    facts and of its own numbers in ``summary.json``."""
    kind.tell(RunFacts.of(res.summary.get("run")),
              studies.results_of(res.summary.get("results"), kind.kind) or {}, res, typer.echo)


def simulate(scenario: Any, given: dict[str, Any], flags: RunFlags) -> None:
    """``analyzer simulate``'s own run (the simulate kind's ``command``): a game stuck at the
    turn cap is one line with the command that replays it, and ``--robustness`` then checks
    the findings (``analyzer robustness`` with its defaults). Both run through their kinds' API
    functions, as every study command does."""
    robustness, content, target_ci = given["robustness"], given["content"], given["target_ci"]
    sim, check = studies.kinds()["simulate"], studies.kinds()["robustness"]
    if content is not None and not robustness:
        raise OptionError("content", "only with {robustness} (it adds conditions to the "
                                     "robustness check)", robustness=True)
    if robustness and target_ci is not None:
        raise OptionError("robustness", "cannot be combined with {target_ci} (the conditions "
                                        "need a fixed number of games; give {games})",
                          target_ci=None, games=None)
    if robustness and flags.time is not None:
        raise OptionError("time", "not supported with {robustness} yet (give it to `analyzer "
                                  "robustness`, which sizes the base and the conditions)",
                          robustness=True)
    if robustness and flags.plan:  # the plan of the whole check: base and conditions
        check.api(scenario, content=content, rounds=given["rounds"], **flags.api())
    try:
        with resumable(["analyzer", "simulate", str(scenario)],
                       {"--target-ci": target_ci, "--rounds": given["rounds"] or None,
                        "--kingmaking-samples": given["kingmaking_samples"] or None,
                        **flags.hint()}):
            res = sim.api(scenario, target_ci=target_ci, rounds=given["rounds"],
                          kingmaking_samples=given["kingmaking_samples"], **flags.api())
    except runner.GameTurnCap as err:
        # A game that never ends is reported like a user error (one line, exit 2) with the
        # command that replays it, since the fix is usually a rule option or a policy.
        replay = ["analyzer", "replay", str(scenario), "--game", str(err.game_id)]
        if err.variant != "base":
            replay += ["--variant", err.variant]
        raise AnalyzerError(f"{err}; replay it with: {shlex.join(replay)}"
                            + (f" (after setting seed = {flags.seed} in the scenario)"
                               if flags.seed is not None else "")) from None
    tell(sim, res)
    if robustness:
        with resumable(["analyzer", "robustness", str(scenario)],
                       {**flags.hint(), "--out": str(res.out_dir), "--csv": None,
                        "--rounds": given["rounds"] or None}):
            res = check.api(scenario, say=typer.echo, content=content, rounds=given["rounds"],
                            **{**flags.api(), "out": res.out_dir, "force": False})
        tell(check, res)
    typer.echo(f"report: {res.out_dir / 'report.html'}")


def register(app: typer.Typer, kinds: Sequence[studies.StudyKind] | None = None) -> None:
    """Add the command of every study kind (``analyzer.studies``; or of ``kinds``) to ``app``,
    in its order."""
    for kind in kinds or studies.kinds().values():
        app.command(kind.kind, help=kind.help() if callable(kind.help) else kind.help)(
            command(kind))
