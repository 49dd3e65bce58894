"""The ``analyzer`` command line: a thin shell over ``analyzer.api``.

The study commands (simulate, compare, sweep, ablate, tournament, tune and robustness) are in
``analyzer.study_cli``, registered from ``analyzer.studies``; the others are here.

User errors (``AnalyzerError``: a bad scenario, option or data table) are caught in one place,
``_Group.invoke``: one line on stderr (one per problem of a scenario file), exit code 2, no
traceback; where the API names a keyword argument (``OptionError``) the line names its flag.
A write the disk refuses (full, read-only, not allowed: ``analyzer.files.WRITE_ERRNOS``) is
one line naming the file, exit code 2.
A stop (Ctrl-C, SIGTERM) anywhere is one line saying what is saved and how to resume, exit
130 / 143. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import re
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from analyzer import __version__, api, files, studies, study_cli, userfiles
from analyzer.errors import AnalyzerError, RunInterrupted, TurnCapExceeded
from analyzer.games import available_games, build, get_game
from analyzer.report import summary

LONG_WORD = 300  # characters without a blank that an error line shows whole
_LONG_WORD = re.compile(rf"\S{{{LONG_WORD + 1},}}")


def one_line(message: str) -> str:
    """``message`` with every run of more than ``LONG_WORD`` non-blank characters (a user's
    value echoed back: a 10,000-character name, a list without spaces) cut to its start and
    end, so an error stays a line a person reads; a path keeps its file name."""
    return _LONG_WORD.sub(lambda m: f"{m[0][:60]}…{m[0][-60:]} ({len(m[0]):,} characters)",
                          message)


class _Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, a batch scheduler), stopped like Ctrl-C; exit code 143."""


def _on_sigterm(signum, frame):
    raise _Terminated


@contextmanager
def _sigterm_as_interrupt():
    """While a command runs, SIGTERM stops it like Ctrl-C (chunks saved, workers killed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


class _Group(TyperGroup):
    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """As typer's, but a usage error (unknown command or option, a value of the wrong type)
        is one line on stderr with exit code 2 instead of a multi-line box."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except typer.TyperException as err:  # typer's public root of its usage errors
            message = " ".join(err.format_message().split())
            ctx = getattr(err, "ctx", None)
            where = ctx.command_path if ctx is not None else "analyzer"
            typer.echo(one_line(f"analyzer: error: {message} (see: {where} --help)"), err=True)
            sys.exit(getattr(err, "exit_code", 2))
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)

    def invoke(self, ctx: typer.Context):
        try:
            with _sigterm_as_interrupt():
                return super().invoke(ctx)
        except RunInterrupted as err:
            typer.echo(f"analyzer: {study_cli.cli_message(err)}", err=True)
            raise typer.Exit(143 if isinstance(err.__context__, _Terminated) else 130) from None
        except KeyboardInterrupt as err:  # a command that saves nothing (list, replay, bench)
            stop = "terminated (SIGTERM)" if isinstance(err, _Terminated) else "interrupted"
            typer.echo(f"analyzer: {stop}: nothing was saved; run the command again", err=True)
            raise typer.Exit(143 if isinstance(err, _Terminated) else 130) from None
        except (AnalyzerError, TurnCapExceeded) as err:  # a never-ending game: see simulate
            for line in getattr(err, "problems", None) or [study_cli.cli_message(err)]:
                typer.echo(one_line(f"analyzer: error: {line}"), err=True)
            raise typer.Exit(2) from None
        except OSError as err:  # the disk's state (full, read-only, not allowed), not a bug
            if err.errno not in files.WRITE_ERRNOS:
                raise
            where = f"{err.filename}: " if err.filename else ""
            typer.echo(one_line(f"analyzer: error: {where}{err.strerror or err}"), err=True)
            raise typer.Exit(2) from None


# rich_markup_mode=None: typer's plain help, as in its docs. Its rich help panel prints a type
# for every option, so a flag read "--quiet <bool>" as if it took a value; the plain one
# shows a flag as a flag.
app = typer.Typer(
    cls=_Group, add_completion=False, pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    help=f"Monte-Carlo strategy analysis for "
         f"{studies.in_words([get_game(g).display_name() for g in available_games()])}.\n\n"
         "Start with: analyzer simulate scenarios/africanus-sultan.toml\n\n"
         f"Study commands: {studies.listing()}. Each takes the same run flags "
         f"({' '.join(study_cli.flag(k) for k in studies.RUN_FLAGS)}) and writes a run "
         "directory with its records and report.",
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"analyzer {__version__}, {build()}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def _main(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version and the build (compiled or pure Python engines) and exit.")] = False,
) -> None:
    # bare `analyzer`: the help once, and exit 2 as for any incomplete command line
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(2)


study_cli.register(app)  # the study commands first (analyzer.studies), then the others


@app.command()
def validate(scenario: Annotated[Path, typer.Argument(
        help="Scenario or tournament pool TOML file.")]) -> None:
    """Check a scenario or a tournament pool file: exit 0 if it runs, else print every problem
    (one line each) and exit 2.

    Examples:

      analyzer validate scenarios/africanus-sultan.toml

      analyzer validate scenarios/rattus-ladder.toml
    """
    if api.is_pool(scenario):
        pool = api.validate_pool(scenario)
        typer.echo(f"{scenario}: ok (tournament pool: {pool.game}, {pool.players} players, "
                   f"{len(pool.entrants)} entrants, {pool.games} games per seating, seed "
                   f"{pool.seed}; run it with analyzer tournament)")
        return
    sc = api.validate(scenario, None)  # the file names no study kind: each key's own reads it
    names = [a.name for a in sc.arms]
    arms = ", ".join(names) if len(names) <= 8 else (
        ", ".join(names[:5]) + f", … ({len(names)} variants)")
    typer.echo(f"{scenario}: ok ({sc.game}, {sc.players} players, {sc.games} games, seed "
               f"{sc.seed}; variants: {arms})")
    from analyzer.study import questions  # a quality: question needs a run with --rounds

    for line in questions.problems(sc, None, rounds=False):
        if "measured only with --rounds" in line:
            typer.echo("note: " + line.replace("add --rounds to the command",
                                               "run it with --rounds"))
    for i, q in enumerate(sc.questions):
        if (kind := questions.reader(q.finding, None)) != "simulate":
            typer.echo(f"note: questions[{i}] ({q.finding!r}) is answered by analyzer {kind}")


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(
        help="A run directory made by a study command.")]) -> None:
    """Re-render report.md, report.html, charts and summary.json from a run's Parquet files.

    A robustness check that stopped between its conditions is named in the report with the
    conditions still missing.

    Example:

      analyzer report reports/africanus-sultan
    """
    try:
        path = api.render_report(run_dir)
    except KeyboardInterrupt:
        err = RunInterrupted("interrupted", f"the records in {run_dir} are kept, the report "
                                            "not re-written")
        err.resume_with = f"analyzer report {run_dir}"
        raise err from None
    results = summary.read(run_dir / "summary.json").results or {}  # render_report wrote it
    rob = studies.results_of(results, "robustness") or {}
    if rob.get("complete") is False:
        typer.echo(f"robustness check incomplete: {len(rob['finished'])} of "
                   f"{rob['conditions']} conditions finished; missing: "
                   + "; ".join(rob["missing"]))
    typer.echo(f"report: {path}")


@app.command()
def findings(run_dir: Annotated[Path, typer.Argument(
        help="A run directory made by a study command, or a scenario or tournament pool TOML "
             "file (the keys its run will make, before any game).")],
        as_json: Annotated[bool, typer.Option(
            "--json", help="Print key, question, estimate, lo, hi, unit, null, verdict of each "
                           "finding as JSON (numbers in the unit the report shows); for a "
                           "scenario or pool file: key, unit, meaning, role of each planned key.")] = False,
        as_csv: Annotated[bool, typer.Option(
            "--csv", help="The same as CSV with a header.")] = False) -> None:
    """List a run's key findings and measured figures by key: the value with its 95 %
    interval and unit, the no-effect value of a tested finding, and the sentence.

    Given a scenario or tournament pool file instead, list every key its run WILL make,
    before any game is played, each with its meaning and unit, and the keys by role
    (seat:worst, win_rate:best, rating_gap:best, diff:ARM_A:ARM_B:KEY ...).

    These keys are what a scenario's [[questions]] name (and analyzer balance --finding KEY).

    Examples:

      analyzer findings scenarios/africanus-sultan.toml

      analyzer findings reports/africanus-sultan

      analyzer findings reports/africanus-sultan --json
    """
    from analyzer.report import finding_keys, finding_table
    from analyzer.study import questions

    if as_json and as_csv:
        raise typer.BadParameter("give --json or --csv, not both")
    is_plan = run_dir.suffix == ".toml" or userfiles.is_file(run_dir)
    planned = api.plan_keys(run_dir) if is_plan else None
    if as_json or as_csv:  # a plan's keys with their unit and meaning, or the findings
        rows = questions.plan_rows(planned[0]) if planned else api.findings_table(run_dir)
        columns = questions.PLAN_COLUMNS if planned else finding_table.COLUMNS
        typer.echo((finding_table.as_json(rows) if as_json
                    else finding_table.as_csv(rows, columns)).rstrip())
        return
    for line in (questions.listing(*planned) if planned
                 else finding_keys.listing(api.findings(run_dir))):
        typer.echo(line)


@app.command("list")
def list_(
    kind: Annotated[str, typer.Argument(help="games | policies | rules | content (the guessed content "
                                             "tables) | cards (or another content kind of a game).")],
    game: Annotated[str | None, typer.Option(help="Only this game.")] = None,
) -> None:
    """List what a scenario can name: games, policies (with parameters), rule options, cards.

    Examples:

      analyzer list games

      analyzer list policies --game rattus

      analyzer list cards

      analyzer list content --game rattus
    """
    for row in api.catalogue(kind, game):
        if kind == "policies":
            typer.echo(f"{row['game']}  {row['policy']}: {row['doc']}")
            for name, typ, default, bounds, help_ in row["params"]:
                typer.echo(f"    {name}: {typ} = {default!r}" + (f" in {bounds}" if bounds else "")
                           + (f"  {help_}" if help_ else ""))
        elif kind == "content":  # a guessed table: what is known, what its plausible alternatives vary
            typer.echo(f"{row['game']}  {row['table']}  (option {row['option']}; {row['section']})")
            typer.echo("".join(f"    known: {line}\n" for line in row["known"])
                       + "".join(f"    varies: {line}\n" for line in row["varies"]), nl=False)
        elif kind in ("games", "rules"):
            typer.echo("  ".join(str(v) for v in row.values()))
        else:  # a content name, then what the game groups it by (e.g. a building's class)
            extra = "".join(f"  {k} {v}" for k, v in row.items() if k not in ("game", "name"))
            typer.echo(f"{row['game']}  {row['name']}{extra}")


@app.command()
def replay(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario TOML file (optional).")] = None,
    game: Annotated[str | None, typer.Option(
        help="With SCENARIO: the game index I (0-based). Without: the game name (analyzer list games).")] = None,
    variant: Annotated[str, typer.Option(help="With SCENARIO: which variant.")] = "base",
    players: Annotated[int | None, typer.Option(
        help="Without SCENARIO: number of players (default: 4).")] = None,
    expansion: Annotated[list[str] | None, typer.Option(
        help="Without SCENARIO: an expansion (repeatable).")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Without SCENARIO: the game's seed (default: 0).")] = None,
    policy: Annotated[str | None, typer.Option(
        help="Without SCENARIO: the policy of every seat (default: greedy).")] = None,
) -> None:
    """Print a readable turn-by-turn log of one game (same seed => same log).

    Examples:

      analyzer replay scenarios/africanus-sultan.toml --game 17

      analyzer replay --game rattus --players 4 --expansion africanus --seed 7 --policy greedy
    """
    if scenario is not None:
        given = [flag for flag, value in (("--players", players), ("--seed", seed),
                                          ("--expansion", expansion), ("--policy", policy))
                 if value is not None]
        if given:
            raise AnalyzerError(f"{given[0]}: only without SCENARIO (the scenario sets players, "
                                "seed, expansions and policies; allowed with SCENARIO: --game I, "
                                "--variant NAME)")
        if game is None:
            raise AnalyzerError("--game: missing; with a scenario give the game index I "
                                "(0-based), e.g. --game 0")
        if not game.lstrip("-").isdigit():
            raise AnalyzerError(f"--game: with a scenario give the game index I (0-based), "
                                f"not {game!r}")
        api.replay_scenario(scenario, int(game), variant, log=typer.echo)
    else:
        if not game:
            raise AnalyzerError("--game: give a scenario and an index, or a game name")
        api.replay(game, 4 if players is None else players, expansion or (),
                   0 if seed is None else seed, policy, log=typer.echo)


def _bench_help() -> str:
    """``analyzer bench --help``, with each game's standard table and targets (its GameSpec)."""
    from analyzer import bench as bench_mod

    return ("Measure games/s on one core and on all cores, parallel efficiency and worker peak "
            "memory.\n\n"
            "Every game runs at its standard table with random and with greedy players: "
            f"{bench_mod.describe()}. A benchmark, not a test.\n\n"
            'The target column is the required one-core rate in games/s ("-" = none); the check '
            'column says "ok" when the one-core rate reaches it and "MISS" when it does not. A second '
            "table times each game's search player (ismcts): iterations per CPU second, and CPU seconds "
            "per game with one ismcts seat against greedy, with its target (at most) and check.\n\n"
            "Examples:\n\n  analyzer bench\n\n"
            f"  analyzer bench --game {available_games()[0]} --games 500 --memory")


@app.command(help=_bench_help())
def bench(
    games: Annotated[int, typer.Option(help="Games per timed one-core run.")] = 500,
    parallel_games: Annotated[int, typer.Option(help="Games in the all-cores run (the parallel-efficiency target is stated for 10,000).")] = 10000,
    repeats: Annotated[int, typer.Option(help="Timed one-core runs (the median is shown).")] = 5,
    game: Annotated[list[str] | None, typer.Option(help="Only this game (repeatable).")] = None,
    memory: Annotated[bool, typer.Option(
        "--memory", help="Also measure the peak memory of whole 1,000- and 50,000-game runs (slow).")] = False,
    skip_search: Annotated[bool, typer.Option(
        "--skip-search", help="Leave out the search-player table (ismcts at default parameters: "
        "iterations per CPU second over 30 decisions of a seeded greedy game, and CPU seconds per "
        "game of one ismcts seat against greedy over 8 games; about half a minute).")] = False,
    rounds: Annotated[bool, typer.Option(
        "--rounds", help="Also time the checkpoints after every round (simulate --rounds): "
        "greedy games/s on one core without and with them, on the same games (best of 3 runs "
        "of 200 games).")] = False,
    out: Annotated[Path, typer.Option(help="Where to write the JSON results.")] = Path("bench.json"),
) -> None:
    """Measure games/s and memory (help text: ``_bench_help``, from each game's benchmark)."""
    from analyzer import bench as bench_mod

    for flag, value in (("--games", games), ("--parallel-games", parallel_games), ("--repeats", repeats)):
        if not 1 <= value <= 10_000_000:
            raise AnalyzerError(f"{flag}: must be an integer from 1 to 10,000,000 (got {value})")
    known = available_games()
    for name in game or ():
        if name not in known:
            raise AnalyzerError(f"--game: unknown game {name!r} (allowed: {', '.join(known)})")
    if out.is_dir() or not out.parent.is_dir():
        raise AnalyzerError(f"--out: {out} must be a file path in an existing folder")
    study = Path("scenarios/africanus-sultan.toml")
    if memory and not study.is_file():
        raise AnalyzerError(f"--memory: {study} not found (run it from the project folder)")
    from analyzer.plan import load

    busy = load()  # other runnable processes now: a busy machine lowers every figure below
    if busy >= 0.5:
        typer.echo(f"note: {busy:.1f} other runnable process(es) at the start: the machine is "
                   f"not idle, and the figures below are lower than an idle machine's")
    rows = bench_mod.bench(games, parallel_games, repeats, only=tuple(game or ()))
    typer.echo(f"{'game':<11}{'players':>8}{'policy':>9}{'1 core g/s':>12}{'all g/s':>10}"
               f"{'cores':>6}{'effic.':>8}{'worker MiB':>11}{'target':>8}{'check':>7}")
    for r in rows:
        target = f"{r.target:.0f}" if r.target else "-"
        typer.echo(f"{r.game:<11}{r.players:>8}{r.policy:>9}{r.games_per_s_1core:>12.1f}"
                   f"{r.games_per_s_all:>10.1f}{r.cores:>6}{r.efficiency:>8.2f}"
                   f"{r.worker_peak_mib:>11.1f}{target:>8}{bench_mod.target_check(r):>7}")
    search_rows = [] if skip_search else bench_mod.bench_search(only=tuple(game or ()))
    if search_rows:
        typer.echo(f"\n{'game':<11}{'players':>8}{'search policy':>15}{'decisions':>10}{'iter/s':>9}"
                   f"{'CPU s/game, 1 ismcts':>22}{'target':>8}{'check':>7}")
    for r in search_rows:
        target = f"{r.target:.2f}" if r.target else "-"
        typer.echo(f"{r.game:<11}{r.players:>8}{bench_mod.SEARCH_POLICY:>15}{r.decisions:>10}"
                   f"{r.iterations_per_s:>9.0f}{r.cpu_s_per_game:>22.3f}{target:>8}"
                   f"{bench_mod.search_target_check(r):>7}")
    rounds_rows = bench_mod.bench_rounds(only=tuple(game or ())) if rounds else []
    if rounds_rows:
        typer.echo(f"\n{'game':<11}{'players':>8}{'policy':>9}{'g/s off':>10}{'g/s --rounds':>14}"
                   f"{'cost':>8}")
    for r in rounds_rows:
        typer.echo(f"{r.game:<11}{r.players:>8}{r.policy:>9}{r.games_per_s_off:>10.1f}"
                   f"{r.games_per_s_on:>14.1f}{r.cost:>8.1%}")
    typer.echo(f"build: {build()}")
    mem = {}
    if memory:
        for n in (1000, 50000):
            mem[str(n)] = round(bench_mod.run_memory(str(study), n), 1)
            typer.echo(f"peak memory of a {n}-game run: {mem[str(n)]} MiB")
        grow = mem["50000"] - mem["1000"]
        typer.echo(f"50,000 vs 1,000 games: {grow:+.1f} MiB ({grow / mem['1000']:+.1%})")
    bench_mod.write_json(rows, out, mem, {"games": games, "parallel_games": parallel_games, "repeats": repeats,
                          "load_at_start": round(busy, 2)},
                         search_rows, rounds_rows)
    typer.echo(f"wrote {out}")
