"""A toy study kind, declared only here (issue #31: a study kind is one declaration in its own
module): ``analyzer toystudy SCENARIO --boost X`` plays the scenario's base arm against a
variant whose seats have ``params.boost = X`` and reports the boost in a section of its own.
``tests/test_study_kinds.py`` registers it by adding this module to ``analyzer.studies.MODULES``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
import typer

from analyzer.keywords import checked
from analyzer.scenario import Scenario
from analyzer.studies import ScenarioFile, StudyKind
from analyzer.study.run import Results, only_base, simulate, validate
from analyzer.study.sweep import expand, parse_param

Boost = Annotated[float, typer.Option(help="The boost of every seat of the boosted variant.")]


@checked
def toystudy(path_or_scenario: str | Path | Scenario, *, boost: Boost = 2.0,
             **run_options: Any) -> Results:
    """Play the base arm and a variant with every seat's ``boost`` parameter at ``boost``."""
    scenario = only_base(validate(path_or_scenario, "toystudy"))
    expanded, rows = expand(scenario, [parse_param(f"params.boost={boost}")])
    return simulate(expanded, study={"kind": "toystudy", "boost": boost, "variants": rows},
                    **run_options)


def section(doc: Any, run: dict, games: Any, seats: Any, players: int,
            item_kind: str = "item") -> dict[str, Any]:
    """The toy study's section: its boost and each arm's win rate of seat 0."""
    doc.h("Toy study")
    doc.p(f"Every seat of the boosted variant has boost {run['study']['boost']}.")
    won = seats.read(("variant", "seat", "won"))
    rates = won[won["seat"] == 0].groupby("variant")["won"].mean()
    doc.table(pd.DataFrame({"variant": rates.index, "seat 0 wins": rates.to_numpy()}))
    return {"boost": run["study"]["boost"], "seat0": {str(k): float(v) for k, v in rates.items()}}


def answers(records: Any, results: Any, run: Any) -> list[dict[str, Any]]:
    """No answers of its own: the Answers table says so."""
    return []


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    say(f"toy study: boost {run.study['boost']}, {run.games} games x {len(run.arms)} arms")


KIND = StudyKind(
    "toystudy", "toy study", toystudy, ("scenario", ScenarioFile), tell=tell,
    default_out="{name}-toystudy", section="toystudy:section",
    results=("studies", "toystudy"), answers="toystudy:answers",
    help="""Play a scenario against a boosted copy of itself (a toy study kind).

    Examples:

      analyzer toystudy toy.toml --boost 3
    """)
