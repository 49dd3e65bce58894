"""The study commands of the CLI: ``analyzer simulate``, ``compare``, ``sweep``, ``ablate``,
``tournament``, ``tune``, ``robustness`` and ``balance`` (``analyzer.studies`` names each one's
command here).

Every study command takes the same run flags, declared once below as ``typing.Annotated``
aliases (``Games``, ``Seed``, ``Jobs``, ``BackendFlag``, ``Scheduler``, ``ChunkSize``, ``Out``,
``Resume``, ``Force``, ``Quiet``, ``Csv``): ``run_flags`` adds them to a command, which declares
only its own options and gets the flags bundled as ``RunFlags`` (the API's keyword arguments
and the resume hint). ``analyzer.cli`` registers the commands from the registry; user errors
are handled there like every other command's (one line on stderr, exit 2).
"""

from __future__ import annotations

import functools
import inspect
import shlex
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from copy import copy
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer import api, plan, runner, studies
from analyzer.errors import AnalyzerError, OptionError, RunInterrupted, RunStopped
from analyzer.games import available_games, get_game
from analyzer.study.robustness import DEFAULT_CONTENT, DEFAULT_LADDER, SEARCH_GAMES

# keyword arguments of the API whose flag is not ``--`` + the keyword (see ``flag``)
_FLAGS = {"index": "--game", "params": "--param", "expansions": "--expansion", "kind": "KIND",
          "progress": "--quiet", "paths": "SCENARIOS", "path_or_scenario": "SCENARIO",
          "path_or_pool": "POOL"}


FORCE_HELP = ("Replace the run in --out, everything in it, even when another scenario, seed "
              "or study made it (else refused, so a mistyped --out loses no study).")


CSV_HELP = ("Also write the records as games.csv and seats.csv beside the Parquet files (one "
            "row per game / per seat and game, with a header row), for spreadsheets.")


class Backend(str, Enum):
    loky = "loky"
    sequential = "sequential"
    dask = "dask"


class Correction(str, Enum):
    holm = "holm"
    bh = "bh"


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
Csv = Annotated[bool, typer.Option("--csv", help=CSV_HELP)]
PlanFlag = Annotated[bool, typer.Option(
    "--plan", help="Print the plan (parts, arms, games) and its estimated CPU and wall time, "
                   "from this machine's measured speed of these players, then exit without "
                   "playing or writing the run directory.")]
TimeFlag = Annotated[str | None, typer.Option(
    "--time", help="A wall-time budget such as 90s, 10m or 1.5h: --games is chosen to fit it "
                   "(from the measured speed) and the plan says the ± of a seat's win share "
                   "it buys.")]
TargetCi = Annotated[float | None, typer.Option(
    help="Keep adding chunks until every win-rate interval is within ± this share (e.g. 0.01 "
         "= ±1 pp), or --games is reached; says how many games it took.")]
ScenarioFile = Annotated[Path, typer.Argument(help="Scenario TOML file.")]


@dataclass(frozen=True)
class RunFlags:
    """The run flags of one command line (``studies.RUN_FLAGS``)."""

    games: int | None
    seed: int | None
    jobs: int | None
    backend: Backend
    scheduler: str | None
    chunk_size: int | None
    out: str | None
    resume: bool
    force: bool
    quiet: bool
    csv: bool
    plan: bool = False
    time: str | None = None

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
        return {"games": self.games, "seed": self.seed, "jobs": self.jobs, "chunk_size": self.chunk_size,
                "backend": None if self.backend is Backend.loky else self.backend,
                "scheduler": self.scheduler, "out": self.out, "csv": self.csv,
                "time": self.time}


# each run flag: its alias and default, in ``studies.RUN_FLAGS`` order
_RUN_FLAGS: dict[str, tuple[Any, Any]] = {
    "games": (Games, None), "seed": (Seed, None), "jobs": (Jobs, None),
    "backend": (BackendFlag, Backend.loky), "scheduler": (Scheduler, None),
    "chunk_size": (ChunkSize, None), "out": (Out, None), "resume": (Resume, False),
    "force": (Force, False), "quiet": (Quiet, False), "csv": (Csv, False),
    "plan": (PlanFlag, False), "time": (TimeFlag, None),
}
assert tuple(_RUN_FLAGS) == studies.RUN_FLAGS


def _helped(alias: Any, text: str) -> Any:
    """``alias`` (``Annotated[type, typer.Option(...)]``) with another help text."""
    base, info = typing.get_args(alias)
    info = copy(info)
    info.help = text
    return Annotated[base, info]


def run_flags(plans: bool = True, budgets: bool | str = True,
              **help_texts: str) -> Callable[[Callable], Callable]:
    """Give a command the run flags: its signature (what typer reads) gains every flag of
    ``_RUN_FLAGS`` after its own options, and it is called with them bundled as
    ``flags=RunFlags(...)`` inside the ``analyzer.plan`` mode of ``--plan`` and ``--time``
    (``--plan`` prints the plan and exits 0; progress on: the estimate is said on stderr
    before play). ``plans=False``: a command whose study does not price its plan yet (its
    ``--plan`` and ``--time`` are refused in one line); ``budgets`` a reason: one whose
    games ``--time`` cannot size yet (refused in one line with the reason). ``help_texts``: a
    flag whose meaning the command narrows (``tune --games``: games per candidate), by
    keyword."""
    def decorate(command: Callable) -> Callable:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values()
               if p.name != "flags"]
        extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                   annotation=_helped(alias, help_texts[name])
                                   if name in help_texts else alias)
                 for name, (alias, default) in _RUN_FLAGS.items()]

        @functools.wraps(command)
        def with_flags(*args: Any, **kwargs: Any) -> Any:
            flags = RunFlags(**{name: kwargs.pop(name, default)
                                for name, (_, default) in _RUN_FLAGS.items()})
            if not plans and (flags.plan or flags.time is not None):
                raise OptionError("plan" if flags.plan else "time",
                                  f"not supported by {command.__name__} yet (its study does "
                                  "not price its plan)")
            if budgets is not True and flags.time is not None:
                raise OptionError("time", f"not supported by {command.__name__} yet ({budgets}; "
                                          "see its cost with {plan})", plan=True)
            budget = plan.parse_time(flags.time) if flags.time is not None else None
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
def resumable(words: list[str], **options) -> Iterator[None]:
    """Around a study: if Ctrl-C, SIGTERM or dying workers stop it, its message gives the
    command that resumes it (``resume_hint`` + ``--resume``) instead of the API's
    ``resume=True``; a stop before the study's own session began says nothing is saved."""
    try:
        yield
    except RunStopped as err:
        err.resume_with = f"{resume_hint(words, **options)} --resume"
        raise
    except KeyboardInterrupt:
        err = RunInterrupted("interrupted", "nothing saved yet")
        err.resume_with = resume_hint(words, **options)
        raise err from None


def resume_hint(words: list[str], **options) -> str:
    """The command that reproduces a run (``--resume`` is appended by the runner): ``words``
    plus every option that was given (``None``/``False`` are left out; lists repeat the flag)."""
    hint = list(words)
    for key, value in options.items():
        name = "--" + key.replace("_", "-")
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


def echo_verdicts(res) -> None:
    """Print the robustness verdict counts (or the conditions still missing) and where the
    report is."""
    rob = studies.results_of(res.summary.get("results", {}), "robustness") or {}
    if rob.get("complete") is False:
        typer.echo(f"robustness check incomplete: {len(rob['finished'])} of "
                   f"{rob['conditions']} conditions finished; missing: "
                   + "; ".join(rob["missing"]))
    else:
        repeats = set(rob.get("repeats") or ())  # a mirror finding is one finding
        verdicts = [v for k, v in (rob.get("verdicts") or {}).items() if k not in repeats]
        typer.echo(f"{rob.get('conditions', 0)} condition(s); key findings: " + ", ".join(
            f"{verdicts.count(v)} {v}" for v in ("holds", "sensitive", "unresolved",
                                                 "unchecked", "figure")))
    typer.echo(f"report: {res.out_dir / 'report.html'}")


def _echo_result(res) -> None:
    run = res.summary.get("run", {})
    tc = run.get("target_ci")
    games = f"{run.get('games')} games"
    if tc:
        games += (f" (target ±{100 * tc['target']:.2f} pp "
                  + ("reached" if tc["reached"] else f"not reached at the cap; widest "
                     f"±{100 * tc['half_width']:.2f} pp") + ")")
    typer.echo(f"{games} x {len(run.get('arms', []))} variant(s)")
    if (run.get("study") or {}).get("note"):
        typer.echo(run["study"]["note"])
    sweep = studies.results_of(res.summary.get("results", {}), "sweep") or {}
    for variant in sweep.get("same_games", []):
        typer.echo(f"{variant}: games identical to the base's (this value changed no decision)")
    typer.echo(f"report: {res.out_dir / 'report.html'}")


# ------------------------------------------------------------------ the commands


@run_flags()
def simulate(
    scenario: ScenarioFile,
    target_ci: TargetCi = None,
    robustness: Annotated[bool, typer.Option(
        "--robustness", help="Then check every key finding against the default ladder of "
                             "players and every labelled default's alternative (`analyzer "
                             "robustness` with its defaults; use that command to choose "
                             "--players, --defaults or --search-games).")] = False,
    content: Annotated[int | None, typer.Option(
        "--content", help="With --robustness: draws of each guessed content table in use "
                          f"(0: none; default {DEFAULT_CONTENT}).")] = None,
    *, flags: RunFlags,
) -> None:
    """Run a scenario, store the records and write the report (in reports/NAME).

    Game i always uses seed SeedSequence(SEED, spawn_key=(i,)), so results never depend on
    --jobs, --chunk-size or --backend.

    Examples:

      analyzer simulate scenarios/africanus-sultan.toml

      analyzer simulate scenarios/africanus-sultan.toml --games 2000 --jobs 2 --out /tmp/run

      analyzer simulate scenarios/africanus-sultan.toml --resume   # after Ctrl-C

      analyzer simulate scenarios/africanus-sultan.toml --target-ci 0.02 --games 20000

      analyzer simulate scenarios/africanus-sultan.toml --games 2000 --csv

      analyzer simulate scenarios/africanus-sultan.toml --games 2000 --robustness

      analyzer simulate study.toml --backend dask --scheduler tcp://10.0.0.5:8786
    """
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
        api.robustness(scenario, content=content, **flags.api())
    try:
        with resumable(["analyzer", "simulate", str(scenario)], target_ci=target_ci,
                       **flags.hint()):
            res = api.simulate(scenario, target_ci=target_ci, **flags.api())
    except runner.GameTurnCap as err:
        # A game that never ends is reported like a user error (one line, exit 2) with the
        # command that replays it, since the fix is usually a rule option or a policy.
        replay = ["analyzer", "replay", str(scenario), "--game", str(err.game_id)]
        if err.variant != "base":
            replay += ["--variant", err.variant]
        raise AnalyzerError(f"{err}; replay it with: {shlex.join(replay)}"
                            + (f" (after setting seed = {flags.seed} in the scenario)"
                               if flags.seed is not None else "")) from None
    run = res.summary.get("run", {})
    rate = run.get("games_per_second")
    typer.echo(f"{run.get('games')} games x {len(run.get('arms', []))} variant(s) "
               f"({run.get('chunks_resumed', 0)} chunk(s) resumed)"
               + (f", {runner.speed(rate)}" if rate else ""))
    tc = run.get("target_ci")
    if tc:
        typer.echo(f"target ±{100 * tc['target']:.2f} pp "
                   + (f"reached after {tc['games']} games" if tc["reached"] else
                      f"not reached at {tc['games']} games (widest ±{100 * tc['half_width']:.2f} pp)"))
    if robustness:
        with resumable(["analyzer", "robustness", str(scenario)],
                       **{**flags.hint(), "out": str(res.out_dir), "csv": None}):
            res = api.robustness(scenario, say=typer.echo, content=content,
                                 **{**flags.api(), "out": res.out_dir, "force": False})
        echo_verdicts(res)
        return
    typer.echo(f"report: {res.out_dir / 'report.html'}")


@run_flags(games="Games per scenario (default: the first file's).",
           seed="Root seed (default: the first file's).")
def compare(
    scenarios: Annotated[list[Path], typer.Argument(help="Two or more scenario TOML files.")],
    name: Annotated[str | None, typer.Option(
        help="Run name (default from the scenario names).")] = None,
    target_ci: TargetCi = None,
    *, flags: RunFlags,
) -> None:
    """Play several scenarios on the same game seeds and report paired differences (in
    reports/compare-A-vs-B, or reports/NAME with --name).

    Per scenario: win rate by seat, no-winner share, death rate (games that record deaths),
    score spread between first and last place, game length; and each scenario minus the first,
    game by game, with 95% intervals. The scenarios must share game, players, expansions and
    seat rotation; seed and games come from the first file unless given.

    Examples:

      analyzer compare scenarios/cartus-first-game.toml my-cartus-set.toml

      analyzer compare a.toml b.toml c.toml --games 2000 --out /tmp/abc
    """
    with resumable(["analyzer", "compare", *map(str, scenarios)], name=name,
                   target_ci=target_ci, **flags.hint()):
        res = api.compare(scenarios, name=name, target_ci=target_ci, **flags.api())
    run = res.summary.get("run", {})
    rate = run.get("games_per_second")
    typer.echo(f"{run.get('games')} games x {len(run.get('arms', []))} arm(s) from "
               f"{len(scenarios)} scenarios" + (f", {runner.speed(rate)}" if rate else ""))
    typer.echo(f"report: {res.out_dir / 'report.html'}")


@run_flags()
def sweep(
    scenario: ScenarioFile,
    param: Annotated[list[str], typer.Option(
        "--param", help="PATH=v1,v2,… with PATH rules.NAME, params.NAME (every seat whose "
                        "policy has it), seats[I].params.NAME or players (the player count: "
                        "compared on game-level outcomes, paired by seed); repeat for a grid.")],
    metric: Annotated[str, typer.Option(
        help="won (win rate) or a numeric seat column such as score.")] = "won",
    correction: Annotated[Correction, typer.Option(
        help="Multiple-comparison correction of the change-vs-base table.")] = Correction.holm,
    target_ci: TargetCi = None,
    *, flags: RunFlags,
) -> None:
    """One variant per parameter value on shared seeds; chart the metric against the value (in
    reports/NAME-sweep).

    Examples:

      analyzer sweep scenarios/africanus-sultan.toml --param params.plague_risk=0,0.5,1 --games 400

      analyzer sweep scenarios/africanus-sultan.toml --param rules.diplomat_points_first=2,4,6 --metric score

      analyzer sweep study.toml --param params.a=1,2 --param params.b=x,y   # a 2x2 grid

      analyzer sweep scenarios/cartus-first-game.toml --param players=3,4,5 --games 400
    """
    with resumable(["analyzer", "sweep", str(scenario)], param=param, metric=metric,
                   target_ci=target_ci, correction=correction, **flags.hint()):
        res = api.sweep(scenario, param, metric=metric, correction=correction.value,
                        target_ci=target_ci, **flags.api())
    _echo_result(res)


@run_flags()
def ablate(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (its rules must fix "
                                                  "the items in play).")],
    correction: Annotated[Correction, typer.Option(
        help="Multiple-comparison correction of the ranked table.")] = Correction.holm,
    target_ci: TargetCi = None,
    *, flags: RunFlags,
) -> None:
    """Leave-one-out value of each item in play (help text: ``_ablate_help``)."""
    with resumable(["analyzer", "ablate", str(scenario)], target_ci=target_ci,
                   correction=correction, **flags.hint()):
        res = api.ablate(scenario, correction=correction.value, target_ci=target_ci,
                         **flags.api())
    _echo_result(res)


def _ablate_help() -> str:
    """``analyzer ablate --help``, with what each game ablates (its GameSpec)."""
    kinds = "; ".join(f"{get_game(g).display_name()}: {get_game(g).item_kind}s"
                      for g in available_games() if get_game(g).ablations is not None)
    return (f"Value of each item in play, by leaving it out ({kinds}); in reports/NAME-ablate."
            "\n\nEach item in play gets a paired variant without it (replaced as the game's "
            "rules say); the report ranks the items by the win-rate change of the seat that "
            "used each most.\n\n"
            "Examples:\n\n"
            "  analyzer ablate scenarios/africanus-sultan.toml --games 400\n\n"
            "  analyzer ablate scenarios/cartus-first-game.toml --games 1000 --correction bh")


@run_flags(games="Games per variant of the base and of every condition (overrides the file).",
           out="Run directory of the base run (default: reports/NAME); the conditions go to "
               "OUT/robustness/.",
           csv=CSV_HELP + " (the base run's records)")
def robustness(
    scenario: ScenarioFile,
    players: Annotated[str | None, typer.Option(
        help="The ladder of players, comma-separated: policy names, POLICY:key=value[:…], "
             "tuned (tuned/GAME-greedy.toml beside the scenario, else the game's own) or a "
             "parameters file; "
             f"'none' for no player conditions (default: {','.join(DEFAULT_LADDER)} where the "
             "game has each).")] = None,
    defaults: Annotated[str | None, typer.Option(
        help="The labelled defaults to vary, comma-separated, or 'none' (default: every "
             "one in use with a documented alternative).")] = None,
    search_games: Annotated[int, typer.Option(
        help="Games per variant for a ladder player that searches (ismcts).")] = SEARCH_GAMES,
    content: Annotated[int | None, typer.Option(
        help="Draws of each guessed content table in use, each a condition content-TABLE-I "
             f"(0: none; default {DEFAULT_CONTENT}; `analyzer list content`).")] = None,
    content_tables: Annotated[str | None, typer.Option(
        help="The guessed content tables to draw, comma-separated, or 'none' (default: every "
             "one in use).")] = None,
    *, flags: RunFlags,
) -> None:
    """Does each key finding hold for other players, other rule defaults and other plausible
    guessed content?

    Plays the scenario (kept if --out already holds its finished run; default reports/NAME)
    and again under each condition on the same seeds, in OUT/robustness/: every seat
    replaced by each player of a ladder, and each labelled default with a documented
    alternative changed one at a time, and K plausible draws of each guessed content
    table (--content K). The report gets a verdict per key finding (holds, sensitive,
    unresolved) and a Robustness section.

    Examples:

      analyzer robustness scenarios/africanus-sultan.toml

      analyzer robustness scenarios/africanus-sultan.toml --games 2000 --search-games 100

      analyzer robustness scenarios/cartus-first-game.toml --players random,greedy --defaults tie_mode,track_tie

      analyzer robustness scenarios/africanus-sultan.toml --players none --defaults none --content 8 --content-tables tokens,map
    """
    with resumable(["analyzer", "robustness", str(scenario)], players=players,
                   defaults=defaults, search_games=search_games, content=content,
                   content_tables=content_tables, **flags.hint()):
        res = api.robustness(scenario, players=players, defaults=defaults,
                             search_games=search_games, content=content,
                             content_tables=content_tables, say=typer.echo, **flags.api())
    echo_verdicts(res)


@run_flags(games="Games per seating (overrides the file; rounded up to whole deals).",
           chunk_size="Deals per chunk (default: about 250 games per chunk; never changes "
                      "results).")
def tournament(
    pool: Annotated[Path, typer.Argument(help="Pool TOML file: game, players, games, seed, "
                                              "[rules] and [[entrants]].")],
    bootstrap: Annotated[int, typer.Option(
        help="Bootstrap replicates of the report's intervals (resampled deals).")] = 1000,
    target_ci: Annotated[float | None, typer.Option(
        help="Stop once every entrant's win-rate interval (deals as the unit) is within "
             "± this share, or at --games.")] = None,
    *, flags: RunFlags,
) -> None:
    """Rate players on common seeds: Plackett–Luce ratings, win rates, mean ranks and a
    head-to-head matrix, each with a 95% bootstrap interval over deals (in reports/NAME).

    Every seating of the entrants (or a balanced sample) plays every seat order on the same
    deals (game seeds), so every entrant plays every seat equally often on the same deals.

    Examples:

      analyzer tournament scenarios/rattus-ladder.toml

      analyzer tournament my-pool.toml --games 400 --jobs 2 --out /tmp/ladder

      analyzer tournament my-pool.toml --resume   # after Ctrl-C
    """
    with resumable(["analyzer", "tournament", str(pool)], target_ci=target_ci,
                   bootstrap=None if bootstrap == 1000 else bootstrap, **flags.hint()):
        res = api.tournament(pool, bootstrap=bootstrap, target_ci=target_ci, **flags.api())
    figures = studies.results_of(res.summary["results"], "tournament")
    rows = figures["ratings"]
    run = res.summary.get("run", {})
    typer.echo(f"{run.get('games')} deals x {len(run.get('arms', []))} tables "
               f"= {figures['games']} games")
    width = max(len(r["entrant"]) for r in rows)
    for i, r in enumerate(rows, 1):
        # --bootstrap 0 asks for no replicates: the ratings then have no interval.
        interval = ("" if r["rating_lo"] is None or r["rating_hi"] is None
                    else f" [{r['rating_lo']:+.2f}, {r['rating_hi']:+.2f}]")
        typer.echo(f"{i:>3}. {r['entrant']:<{width}}  rating {r['rating']:+.2f}"
                   f"{interval}  win rate {100 * r['win_rate']:.1f} %")
    if figures.get("reliability"):
        typer.echo(figures["reliability"])
    typer.echo(f"report: {res.out_dir / 'report.html'}")


@run_flags(budgets="its cost is set by --budget, the games in all; --games only splits them",
           games="Games per candidate per generation (all candidates on the same seeds; "
                 "default 200).",
           chunk_size="Game seeds per chunk (default: about 250 games per chunk; never "
                      "changes results).",
           quiet="No line per generation.")
def tune(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (its base arm).")],
    seat: Annotated[int, typer.Option(
        help="The seat entry (0-based, before rotation) whose policy is tuned.")],
    budget: Annotated[int, typer.Option(
        help="Games the search may play: budget // (popsize x games) generations.")] = 20000,
    popsize: Annotated[int | None, typer.Option(
        help="Candidates per generation (default 4 + 3 ln(parameters)).")] = None,
    validation_games: Annotated[int, typer.Option(
        help="Games of the final check on fresh seeds, tuned and start on the same seeds.")] = 2000,
    opponents: Annotated[Path | None, typer.Option(
        help="A tournament pool file: play every table of players-1 of its entrants "
             "instead of the scenario's other seats.")] = None,
    *, flags: RunFlags,
) -> None:
    """Fit the parameters of one seat's policy (CMA-ES) to maximise its win rate; check
    the result against the starting parameters on fresh seeds (in reports/NAME-tune-seatI).

    Every numeric parameter with declared bounds (analyzer list policies) is fitted inside
    them. Candidates of one generation play the same seeds; the tuned parameters (the
    search's final mean) are written to DIR/tuned.toml, usable from any scenario seat as
    params_file = "tuned.toml". Same scenario, seed and budget => same tuned.toml.

    Examples:

      analyzer tune scenarios/africanus-sultan.toml --seat 0 --budget 20000

      analyzer tune study.toml --seat 2 --budget 4000 --games 100 --out /tmp/tuned

      analyzer tune study.toml --seat 0 --opponents scenarios/rattus-ladder.toml
    """
    from analyzer.study.tune import DEFAULT_GAMES

    options = {k: v for k, v in flags.api().items() if k != "progress"}
    options["games"] = DEFAULT_GAMES if flags.games is None else flags.games
    with resumable(["analyzer", "tune", str(scenario)], seat=seat, budget=budget,
                   popsize=popsize, validation_games=validation_games, opponents=opponents,
                   **flags.hint()):
        res = api.tune(scenario, seat=seat, budget=budget, popsize=popsize,
                       validation_games=validation_games, opponents=opponents,
                       log=None if flags.quiet else lambda line: typer.echo(line, err=True),
                       **options)
    figures = studies.results_of(res.summary["results"], "tune")
    d = figures["difference"]
    from analyzer.report.tuning import difference_text
    typer.echo(f"tuned: {', '.join(f'{k} = {v}' for k, v in figures['params'].items())}")
    typer.echo(f"fresh seeds ({figures['games']} games): win rate "
               f"{100 * figures['tuned']['rate']:.1f} % tuned vs "
               f"{100 * figures['start']['rate']:.1f} % start; tuned - start "
               f"{difference_text(d)}")
    typer.echo(f"params file: {res.tuned_file}")
    typer.echo(f"report: {res.out_dir / 'report.html'}")


@run_flags(budgets="its cost is set by --budget and --validation-games; its probe plays "
                   "first",
           games="Games per candidate per round of a CMA-ES search (all candidates of a round "
                 "on the same seeds; default 200).",
           chunk_size="Game seeds per chunk (default: about 250 games per chunk; never "
                      "changes results).",
           quiet="No line per round.")
def balance(
    scenario: ScenarioFile,
    vary: Annotated[list[str], typer.Option(
        "--vary", help="PATH=LO..HI with PATH rules.NAME (a numeric rule option, within its "
                       "bounds) or tables.TABLE.ENTRY.FIELD (a number of a content table); "
                       "repeat to search several jointly.")],
    finding: Annotated[str | None, typer.Option(
        help="The key finding or measured figure to bring to --target (analyzer findings "
             "RUN_DIR lists a run's keys).")] = None,
    equalize: Annotated[str | None, typer.Option(
        help="KEY,KEY,…: make these findings equal instead.")] = None,
    target: Annotated[float | None, typer.Option(
        help="The value to reach, in the unit analyzer findings shows (10 for 10 % or "
             "10 pp); default the finding's no-effect value.")] = None,
    tolerance: Annotated[float | None, typer.Option(
        help="D, in the finding's unit: the check on fresh seeds says \"balanced within ±D\" "
             "only when two one-sided tests at 5 % show it (its 90 % interval inside target "
             "± D; --equalize: every difference inside 0 ± D), else \"not shown\".")] = None,
    keep: Annotated[list[str] | None, typer.Option(
        "--keep", help="KEY=LO..HI (any finding key, the band in its unit): a setting whose "
                       "estimate of KEY leaves the band is refused; repeat for several.")] = None,
    budget: Annotated[int, typer.Option(
        help="Games the search may play in all (a scan of integer knobs: budget / settings "
             "per setting).")] = 6000,
    popsize: Annotated[int | None, typer.Option(
        help="Candidates per round of a CMA-ES search (default 4 + 3 ln(knobs)).")] = None,
    validation_games: Annotated[int, typer.Option(
        help="Games of the check on fresh seeds, per arm, the original and the value found "
             "on the same seeds.")] = 2000,
    robustness: Annotated[bool, typer.Option(
        "--robustness", help="Also play the value found by every rung of the player ladder "
                             "(random, greedy, tuned, ismcts) and say where the balance "
                             "holds.")] = False,
    search_games: Annotated[int, typer.Option(
        help="With --robustness: games per arm for a ladder player that searches "
             "(ismcts).")] = SEARCH_GAMES,
    *, flags: RunFlags,
) -> None:
    """Find the rule or table value that brings a finding to a target, checked on fresh seeds
    (in reports/NAME-balance).

    Integer knobs of at most 64 settings in all are scanned (every setting on the same
    seeds); else CMA-ES searches, all candidates of a round on the same seeds. The value found is checked
    on fresh seeds against the target and against the scenario as it is (paired). Writes
    DIR/balanced.toml (the scenario at the value found; changed tables beside it), the report
    and the records. Same scenario, seed and options => same value.

    Examples:

      analyzer balance scenarios/africanus-sultan.toml --finding sultan:winner_changed --target 10 --vary rules.diplomat_points_first=0..6 --vary rules.diplomat_points_second=0..4

      analyzer balance scenarios/cartus-first-game.toml --finding item:palace --vary tables.buildings.palace.premium=0..4

      analyzer balance study.toml --equalize item:a,item:b --vary rules.NAME=0..10
    """
    from analyzer.report import finding_keys

    options = {k: v for k, v in flags.api().items() if k != "games"}
    options["games"] = flags.games  # None: the default (a scan says when it does not use it)
    with resumable(["analyzer", "balance", str(scenario)], finding=finding, equalize=equalize,
                   target=target, tolerance=tolerance, keep=keep, vary=vary, budget=budget, popsize=popsize,
                   validation_games=validation_games, robustness=robustness,
                   search_games=None if search_games == SEARCH_GAMES else search_games,
                   **flags.hint()):
        res = api.balance(scenario, vary=vary, finding=finding, equalize=equalize,
                          target=target, tolerance=tolerance, keep=keep or (), budget=budget, popsize=popsize,
                          validation_games=validation_games, robustness=robustness,
                          search_games=search_games,
                          log=None if flags.quiet else lambda line: typer.echo(line, err=True),
                          **options)
    figures = studies.results_of(res.summary["results"], "balance")
    check = figures["check"]
    typer.echo("found: " + ", ".join(f"{k} = {v}" for k, v in figures["values"].items()))
    for key in (check["findings"]["balanced"] or {}):
        b, o = check["findings"]["balanced"][key], check["findings"]["original"].get(key)
        if b is None:
            continue
        line = f"fresh seeds ({check['games']} games): {key} {finding_keys.value_text(b)}"
        if o is not None:
            line += f" (the scenario as it is: {finding_keys.value_text(o)})"
        typer.echo(line)
    from analyzer.report.balancing import command_lines
    for line in command_lines(res.summary["run"]["study"]):
        typer.echo(line)
    typer.echo(f"balanced scenario: {res.balanced_file}")
    typer.echo(f"report: {res.out_dir / 'report.html'}")


HELP = {"ablate": _ablate_help}  # commands whose help is made from the games' registry


def register(app: typer.Typer) -> None:
    """Add every study command of ``analyzer.studies.STUDIES`` to ``app``, in its order."""
    for kind in studies.STUDIES.values():
        command = studies.load(kind.command)
        text = HELP[kind.kind]() if kind.kind in HELP else None
        app.command(kind.kind, help=text)(command)
