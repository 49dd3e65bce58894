"""The study commands of the CLI: ``analyzer sweep``, ``ablate``, ``tournament`` and ``tune``.

Registered on the main typer app by ``analyzer.cli`` (``register(app)``); user errors are
handled there like every other command's (one line on stderr, exit 2).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from analyzer.errors import OptionError
from analyzer.games import available_games, get_game
from analyzer.robustness import DEFAULT_LADDER, SEARCH_GAMES
from analyzer.runner import RunStopped

# keyword arguments of the API whose flag is not ``--`` + the keyword (see ``flag``)
_FLAGS = {"index": "--game", "params": "--param", "expansions": "--expansion", "kind": "KIND"}


FORCE_HELP = ("Replace the run in --out even when another scenario, seed or study made it "
              "(else refused, so a mistyped --out loses no study).")


CSV_HELP = ("Also write the records as games.csv and seats.csv beside the Parquet files (one "
            "row per game / per seat and game, with a header row), for spreadsheets.")


class Backend(str, Enum):
    loky = "loky"
    sequential = "sequential"
    dask = "dask"


class Correction(str, Enum):
    holm = "holm"
    bh = "bh"


def flag(keyword: str) -> str:
    """The command-line flag of an API keyword argument: ``chunk_size`` -> ``--chunk-size``."""
    return _FLAGS.get(keyword, "--" + keyword.replace("_", "-"))


def cli_message(err: Exception) -> str:
    """The one-line message of a user error as the command line says it: an ``OptionError``
    names the flags (``--jobs``) where the API names keyword arguments (``jobs``)."""
    return err.render(flag) if isinstance(err, OptionError) else str(err)


@contextmanager
def resumable(words: list[str], **options) -> Iterator[None]:
    """Around a run: if Ctrl-C or dying workers stop it, its message gives the command that
    resumes it (``resume_hint`` + ``--resume``) instead of the API's ``resume=True``."""
    try:
        yield
    except RunStopped as err:
        err.resume_with = f"{resume_hint(words, **options)} --resume"
        raise


def resume_hint(words: list[str], **options) -> str:
    """The command that reproduces a run (``--resume`` is appended by the runner): ``words``
    plus every option that was given (``None``/``False`` are left out; lists repeat the flag)."""
    hint = list(words)
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            hint.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                hint += [flag, str(v)]
        else:
            hint += [flag, str(getattr(value, "value", value))]
    return shlex.join(hint)


def echo_verdicts(res) -> None:
    """Print the robustness verdict counts and where the report is."""
    rob = res.summary.get("results", {}).get("robustness") or {}
    verdicts = list((rob.get("verdicts") or {}).values())
    typer.echo(f"{rob.get('conditions', 0)} condition(s); key findings: " + ", ".join(
        f"{verdicts.count(v)} {v}" for v in ("holds", "sensitive", "unresolved", "unchecked",
                                             "figure")))
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
    sweep = res.summary.get("results", {}).get("studies", {}).get("sweep") or {}
    for variant in sweep.get("same_games", []):
        typer.echo(f"{variant}: games identical to the base's (this value changed no decision)")
    typer.echo(f"report: {res.out_dir / 'report.html'}")


def register(app: typer.Typer) -> None:
    """Add ``sweep``, ``ablate``, ``tournament`` and ``tune`` to ``app``."""

    @app.command()
    def sweep(
        scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
        param: Annotated[list[str], typer.Option(
            "--param", help="PATH=v1,v2,… with PATH rules.NAME, params.NAME (every seat whose "
                            "policy has it), seats[I].params.NAME or players (the player count: "
                            "compared unpaired, on game-level outcomes); repeat for a grid.")],
        metric: Annotated[str, typer.Option(
            help="won (win rate) or a numeric seat column such as score.")] = "won",
        games: Annotated[int | None, typer.Option(help="Games per variant (overrides the file).")] = None,
        seed: Annotated[int | None, typer.Option(help="Root seed (overrides the file).")] = None,
        jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
        target_ci: Annotated[float | None, typer.Option(
            help="Stop once every win-rate interval is within ± this share (e.g. 0.01), or at "
                 "--games.")] = None,
        correction: Annotated[Correction, typer.Option(
            help="Multiple-comparison correction of the change-vs-base table.")] = Correction.holm,
        out: Annotated[str | None, typer.Option(
            help="Run directory (default: reports/NAME-sweep).")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="Skip the chunks an interrupted run saved.")] = False,
        force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
        quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
        csv: Annotated[bool, typer.Option("--csv", help=CSV_HELP)] = False,
    ) -> None:
        """One variant per parameter value on shared seeds; chart the metric against the value.

        Examples:

          analyzer sweep scenarios/africanus-sultan.toml --param params.plague_risk=0,0.5,1 --games 400

          analyzer sweep scenarios/africanus-sultan.toml --param rules.diplomat_points_first=2,4,6 --metric score

          analyzer sweep study.toml --param params.a=1,2 --param params.b=x,y   # a 2x2 grid

          analyzer sweep scenarios/cartus-first-game.toml --param players=3,4,5 --games 400
        """
        from analyzer.sweep import sweep as run_sweep

        with resumable(["analyzer", "sweep", str(scenario)], param=param, metric=metric,
                       games=games, seed=seed, target_ci=target_ci, correction=correction,
                       out=out, csv=csv):
            res = run_sweep(scenario, param, metric=metric, correction=correction.value,
                            games=games, seed=seed, jobs=jobs, out=out, target_ci=target_ci,
                            progress=not quiet, resume=resume, force=force, csv=csv)
        _echo_result(res)

    kinds = "; ".join(f"{get_game(g).display_name()}: {get_game(g).item_kind}s"
                      for g in available_games() if get_game(g).ablations is not None)

    @app.command(help=f"Value of each item in play, by leaving it out ({kinds}).\n\n"
                      "Each item in play gets a paired variant without it (replaced as the game's "
                      "rules say); the report ranks the items by the win-rate change of the seat "
                      "that used each most.\n\n"
                      "Examples:\n\n"
                      "  analyzer ablate scenarios/africanus-sultan.toml --games 400\n\n"
                      "  analyzer ablate scenarios/cartus-first-game.toml --games 1000 --correction bh")
    def ablate(
        scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (its rules must fix "
                                                      "the items in play).")],
        games: Annotated[int | None, typer.Option(help="Games per variant (overrides the file).")] = None,
        seed: Annotated[int | None, typer.Option(help="Root seed (overrides the file).")] = None,
        jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
        target_ci: Annotated[float | None, typer.Option(
            help="Stop once every win-rate interval is within ± this share, or at --games.")] = None,
        correction: Annotated[Correction, typer.Option(
            help="Multiple-comparison correction of the ranked table.")] = Correction.holm,
        out: Annotated[str | None, typer.Option(
            help="Run directory (default: reports/NAME-ablate).")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="Skip the chunks an interrupted run saved.")] = False,
        force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
        quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
        csv: Annotated[bool, typer.Option("--csv", help=CSV_HELP)] = False,
    ) -> None:
        """Leave-one-out value of each item in play (help text above, from the registry)."""
        from analyzer.ablate import ablate as run_ablate

        with resumable(["analyzer", "ablate", str(scenario)], games=games, seed=seed,
                       target_ci=target_ci, correction=correction, out=out, csv=csv):
            res = run_ablate(scenario, correction=correction.value, games=games, seed=seed,
                             jobs=jobs, out=out, target_ci=target_ci, progress=not quiet,
                             resume=resume, force=force, csv=csv)
        _echo_result(res)

    @app.command()
    def robustness(
        scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
        players: Annotated[str | None, typer.Option(
            help="The ladder of players, comma-separated: policy names, POLICY:key=value[:…], "
                 "tuned (tuned/GAME-greedy.toml beside the scenario) or a parameters file; "
                 f"'none' for no player conditions (default: {','.join(DEFAULT_LADDER)} where the "
                 "game has each).")] = None,
        defaults: Annotated[str | None, typer.Option(
            help="The labelled defaults to vary, comma-separated, or 'none' (default: every "
                 "one in use with a documented alternative).")] = None,
        games: Annotated[int | None, typer.Option(
            help="Games per variant of the base and of every condition (overrides the "
                 "file).")] = None,
        search_games: Annotated[int, typer.Option(
            help="Games per variant for a ladder player that searches (ismcts).")] = SEARCH_GAMES,
        seed: Annotated[int | None, typer.Option(help="Root seed (overrides the file).")] = None,
        jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
        backend: Annotated[Backend, typer.Option(help="Parallel backend.")] = Backend.loky,
        scheduler: Annotated[str | None, typer.Option(
            help="dask scheduler address tcp://HOST:PORT (with --backend dask).")] = None,
        chunk_size: Annotated[int | None, typer.Option(
            help="Games per chunk (never changes results).")] = None,
        out: Annotated[str | None, typer.Option(
            help="Run directory of the base run (default: reports/NAME); the conditions go "
                 "to OUT/robustness/.")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="Skip the chunks an interrupted run saved.")] = False,
        force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
        quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    ) -> None:
        """Does each key finding hold for other players and other rule defaults?

        Plays the scenario (kept if --out already holds its finished run) and again under
        each condition on the same seeds: every seat replaced by each player of a ladder, and
        each labelled default with a documented alternative changed one at a time. The
        report gets a verdict per key finding (holds, sensitive, unresolved) and a
        Robustness section.

        Examples:

          analyzer robustness scenarios/africanus-sultan.toml

          analyzer robustness scenarios/africanus-sultan.toml --games 2000 --search-games 100

          analyzer robustness scenarios/cartus-first-game.toml --players random,greedy --defaults tie_mode,track_tie
        """
        from analyzer.robustness import robustness as run_robustness

        def words(text: str | None) -> list[str] | None:
            if text is None:
                return None
            items = [w.strip() for w in text.split(",") if w.strip()]
            return [] if items == ["none"] else items

        with resumable(["analyzer", "robustness", str(scenario)], players=players,
                       defaults=defaults, games=games, search_games=search_games, seed=seed,
                       chunk_size=chunk_size, out=out,
                       backend=None if backend is Backend.loky else backend, scheduler=scheduler):
            res = run_robustness(scenario, players=words(players), defaults=words(defaults),
                                 games=games, search_games=search_games, seed=seed, jobs=jobs,
                                 backend=backend.value, scheduler=scheduler,
                                 chunk_size=chunk_size, out=out, resume=resume, force=force,
                                 progress=not quiet, say=typer.echo)
        echo_verdicts(res)

    @app.command()
    def tournament(
        pool: Annotated[Path, typer.Argument(help="Pool TOML file: game, players, games, seed, "
                                                  "[rules] and [[entrants]].")],
        games: Annotated[int | None, typer.Option(
            help="Games per seating (overrides the file; rounded up to whole deals).")] = None,
        seed: Annotated[int | None, typer.Option(help="Root seed (overrides the file).")] = None,
        jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
        backend: Annotated[Backend, typer.Option(help="Parallel backend.")] = Backend.loky,
        scheduler: Annotated[str | None, typer.Option(
            help="dask scheduler address tcp://HOST:PORT (with --backend dask).")] = None,
        chunk_size: Annotated[int | None, typer.Option(
            help="Deals per chunk (default: about 250 games per chunk; never changes results).")] = None,
        target_ci: Annotated[float | None, typer.Option(
            help="Stop once every entrant's win-rate interval (deals as the unit) is within "
                 "± this share, or at --games.")] = None,
        bootstrap: Annotated[int, typer.Option(
            help="Bootstrap replicates of the report's intervals (resampled deals).")] = 1000,
        out: Annotated[str | None, typer.Option(
            help="Run directory (default: reports/NAME).")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="Skip the chunks an interrupted run saved.")] = False,
        force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
        quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    ) -> None:
        """Rate players on common seeds: Plackett–Luce ratings, win rates, mean ranks and a
        head-to-head matrix, each with a 95% bootstrap interval over deals.

        Every seating of the entrants (or a balanced sample) plays every seat order on the same
        deals (game seeds), so every entrant plays every seat equally often on the same deals.

        Examples:

          analyzer tournament scenarios/rattus-ladder.toml

          analyzer tournament my-pool.toml --games 400 --jobs 2 --out /tmp/ladder

          analyzer tournament my-pool.toml --resume   # after Ctrl-C
        """
        from analyzer.tournament import tournament as run_tournament

        with resumable(["analyzer", "tournament", str(pool)], games=games, seed=seed,
                       chunk_size=chunk_size, target_ci=target_ci,
                       backend=None if backend is Backend.loky else backend,
                       scheduler=scheduler, bootstrap=None if bootstrap == 1000 else bootstrap,
                       out=out):
            res = run_tournament(pool, games=games, seed=seed, bootstrap=bootstrap, jobs=jobs,
                                 backend=backend.value, scheduler=scheduler,
                                 chunk_size=chunk_size, target_ci=target_ci, out=out,
                                 resume=resume, force=force, progress=not quiet)
        rows = res.summary["results"]["tournament"]["ratings"]
        run = res.summary.get("run", {})
        typer.echo(f"{run.get('games')} deals x {len(run.get('arms', []))} tables "
                   f"= {res.summary['results']['tournament']['games']} games")
        width = max(len(r["entrant"]) for r in rows)
        for i, r in enumerate(rows, 1):
            typer.echo(f"{i:>3}. {r['entrant']:<{width}}  rating {r['rating']:+.2f} "
                       f"[{r['rating_lo']:+.2f}, {r['rating_hi']:+.2f}]  win rate "
                       f"{100 * r['win_rate']:.1f} %")
        typer.echo(f"report: {res.out_dir / 'report.html'}")

    @app.command()
    def tune(
        scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (its base arm).")],
        seat: Annotated[int, typer.Option(
            help="The seat entry (0-based, before rotation) whose policy is tuned.")],
        budget: Annotated[int, typer.Option(
            help="Games the search may play: budget // (popsize x games) generations.")] = 20000,
        games: Annotated[int, typer.Option(
            help="Games per candidate per generation (all candidates on the same seeds).")] = 200,
        popsize: Annotated[int | None, typer.Option(
            help="Candidates per generation (default 4 + 3 ln(parameters)).")] = None,
        validation_games: Annotated[int, typer.Option(
            help="Games of the final check on fresh seeds, tuned and start on the same seeds.")] = 2000,
        opponents: Annotated[Path | None, typer.Option(
            help="A tournament pool file: play every table of players-1 of its entrants "
                 "instead of the scenario's other seats.")] = None,
        seed: Annotated[int | None, typer.Option(help="Root seed (overrides the file).")] = None,
        jobs: Annotated[int | None, typer.Option(help="Worker processes (default: all cores).")] = None,
        backend: Annotated[Backend, typer.Option(help="Parallel backend.")] = Backend.loky,
        scheduler: Annotated[str | None, typer.Option(
            help="dask scheduler address tcp://HOST:PORT (with --backend dask).")] = None,
        chunk_size: Annotated[int | None, typer.Option(
            help="Game seeds per chunk (default: about 250 games per chunk; never changes results).")] = None,
        out: Annotated[str | None, typer.Option(
            help="Run directory (default: reports/NAME-tune-seatI).")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="Skip the chunks an interrupted run saved.")] = False,
        force: Annotated[bool, typer.Option("--force", help=FORCE_HELP)] = False,
        quiet: Annotated[bool, typer.Option("--quiet", help="No line per generation.")] = False,
    ) -> None:
        """Fit the parameters of one seat's policy (CMA-ES) to maximise its win rate; check
        the result against the starting parameters on fresh seeds.

        Every numeric parameter with declared bounds (analyzer list policies) is fitted inside
        them. Candidates of one generation play the same seeds; the tuned parameters (the
        search's final mean) are written to DIR/tuned.toml, usable from any scenario seat as
        params_file = "tuned.toml". Same scenario, seed and budget => same tuned.toml.

        Examples:

          analyzer tune scenarios/africanus-sultan.toml --seat 0 --budget 20000

          analyzer tune study.toml --seat 2 --budget 4000 --games 100 --out /tmp/tuned

          analyzer tune study.toml --seat 0 --opponents scenarios/rattus-ladder.toml
        """
        from analyzer.tune import tune as run_tune

        with resumable(["analyzer", "tune", str(scenario)], seat=seat, budget=budget,
                       games=games, popsize=popsize, validation_games=validation_games,
                       opponents=opponents, seed=seed, chunk_size=chunk_size,
                       backend=None if backend is Backend.loky else backend,
                       scheduler=scheduler, out=out):
            res = run_tune(scenario, seat=seat, budget=budget, games=games, popsize=popsize,
                           validation_games=validation_games, opponents=opponents, seed=seed,
                           jobs=jobs, backend=backend.value, scheduler=scheduler,
                           chunk_size=chunk_size, out=out, resume=resume, force=force,
                           log=None if quiet else lambda line: typer.echo(line, err=True))
        figures = res.summary["results"]["tune"]
        d = figures["difference"]
        typer.echo(f"tuned: {', '.join(f'{k} = {v}' for k, v in figures['params'].items())}")
        typer.echo(f"fresh seeds ({figures['games']} games): win rate "
                   f"{100 * figures['tuned']['rate']:.1f} % tuned vs "
                   f"{100 * figures['start']['rate']:.1f} % start; tuned - start "
                   f"{100 * d['diff']:+.1f} pp [{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}]")
        typer.echo(f"params file: {res.tuned_file}")
        typer.echo(f"report: {res.out_dir / 'report.html'}")
