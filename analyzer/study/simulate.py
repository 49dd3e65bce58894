"""The plain run, ``analyzer simulate``: play a scenario's arms and write the report (its
machinery is ``analyzer.study.run``; ``--robustness`` then checks the findings)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from analyzer import precision, runner
from analyzer.studies import ScenarioFile, StudyKind
from analyzer.study.robustness import DEFAULT_CONTENT
from analyzer.study.run import simulate


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The games played and their speed, the target precision reached, where the report is."""
    rate = run.games_per_second
    say(f"{run.games} games x {len(run.arms)} variant(s) ({run.chunks_resumed} chunk(s) resumed)"
        + (f", {runner.speed(rate)}" if rate else ""))
    if tc := run.target_ci:
        say(precision.target_text(tc))


Robustness = Annotated[bool, typer.Option(
    "--robustness", help="Then check every key finding against the default ladder of players "
                         "and every labelled default's alternative (`analyzer robustness` with "
                         "its defaults; use that command to choose --players, --defaults or "
                         "--search-games).")]
Content = Annotated[int | None, typer.Option(
    "--content", help="With --robustness: draws of each guessed content table in use "
                      f"(0: none; default {DEFAULT_CONTENT}).")]

KIND = StudyKind(
    "simulate", "run", simulate, ("scenario", ScenarioFile), tell=tell,
    options={"robustness": (Robustness, False), "content": (Content, None)},
    command="analyzer.study_cli:simulate", as_written=True,
    help="""Run a scenario, store the records and write the report (in reports/NAME).

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
    """)
