"""``analyzer compare A.toml B.toml …``: several scenarios on the same game seeds.

The scenarios are merged into one scenario whose arms are every arm of every file, in order,
and that scenario is run by ``analyzer.study.run.simulate`` (the one machinery, the one report). So game
``i`` of every scenario is played from ``SeedSequence(seed, spawn_key=(i,))`` with the seed and
game count of the first file (or ``--seed`` / ``--games``), and every difference is paired game
by game against the first scenario, whose base arm keeps the name ``base``; every other arm
is named by its scenario (``NAME``, ``NAME/VARIANT``).

Scenarios may differ in their player count: each arm keeps its own (``Arm.players``). Such arms
play the same game seeds: a 3-player and a 5-player game are different games, but game i of
each is dealt from seed i, so the report compares their game-level outcomes paired by seed
(``analyzer.report.players``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer import runner
from analyzer.errors import OptionError, ScenarioError
from analyzer.keywords import checked
from analyzer.scenario import BASE, Scenario, load_scenario, valid_name
from analyzer.studies import KingmakingSamples, Rounds, StudyKind, TargetCi
from analyzer.study.run import Results, simulate

# what must agree for the arms to be played as one study (the player count may differ: such arms
# are compared on game-level outcomes only, paired by seed)
SAME = ("game", "expansions", "seat_rotation")


def arm_label(scenario: Scenario, arm_name: str, first: bool) -> str:
    """The ``variant`` value of an arm in a comparison.

    Every arm is named by its scenario: ``NAME`` for a base arm, ``NAME/VARIANT`` for a variant
    arm. The one exception is the first scenario's base arm, the reference of every paired
    difference, which keeps the name ``base`` (the report says which scenario it is).
    """
    if arm_name == BASE:
        return BASE if first else scenario.name
    return f"{scenario.name}/{arm_name}"


def _show(value) -> str:
    """A scenario value for a message: lists and tuples as ``[a, b]`` (``[]`` when empty)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return repr(value)


def unique_names(scenarios: Sequence[Scenario]) -> list[Scenario]:
    """The scenarios with repeated names told apart (``toy``, ``toy-2`` …) for arm labels."""
    seen: dict[str, int] = {}
    out = []
    for sc in scenarios:
        seen[sc.name] = seen.get(sc.name, 0) + 1
        out.append(sc if seen[sc.name] == 1 else replace(sc, name=f"{sc.name}-{seen[sc.name]}"))
    return out


def combine(scenarios: Sequence[Scenario], name: str | None = None) -> Scenario:
    """One scenario holding every arm of ``scenarios`` (first file first).

    Parameters
    ----------
    scenarios : sequence of Scenario
        At least two, all of the same game, expansions and seat rotation; an arm of another
        player count than the first scenario's keeps its own (``Arm.players``).
    name : str, optional
        Run name (default ``compare-A-vs-B`` from the first two names, ``-and-N-more`` after).

    Returns
    -------
    Scenario
        Seed and games of the first scenario; arms relabelled by ``arm_label``.

    Raises
    ------
    ScenarioError
        Fewer than two scenarios, a mismatch in ``SAME`` (names the file and field), or two arms
        that would get the same label.
    """
    if len(scenarios) < 2:
        raise ScenarioError("compare: give at least two scenario files")
    if name is not None and not valid_name(name):
        raise OptionError("name", f"only letters, digits and -_. are allowed, not dots alone "
                                  f"(got {name!r})")
    first = scenarios[0]
    for sc in scenarios[1:]:
        for fld in SAME:
            a, b = getattr(first, fld), getattr(sc, fld)
            if a != b:
                raise ScenarioError(
                    f"{sc.file}: {fld}: {_show(b)} differs from {_show(a)} in {first.file} (compare plays "
                    f"the scenarios as one study, so {', '.join(SAME)} must agree; put other "
                    "differences in players, [rules] or [[seats]])")
    arms = []
    seen: dict[str, str] = {}
    for j, sc in enumerate(unique_names(scenarios)):
        for arm in sc.arms:
            label = arm_label(sc, arm.name, j == 0)
            if label in seen:
                raise ScenarioError(f"{sc.file}: name: arm {label!r} is also in {seen[label]}; "
                                    "give the scenarios distinct names")
            seen[label] = sc.file
            desc = arm.description or (sc.description if arm.name == BASE else "")
            players = sc.arm_players(arm)
            arms.append(replace(arm, name=label, description=desc or f"from {sc.file}",
                                players=None if players == first.players else players))
    if name is None:
        name = f"compare-{first.name}-vs-{scenarios[1].name}"
        if len(scenarios) > 2:
            name += f"-and-{len(scenarios) - 2}-more"
    return replace(first, file=" + ".join(sc.file for sc in scenarios), name=name,
                   description=f"comparison of {', '.join(sc.name for sc in scenarios)}",
                   arms=tuple(arms))


@checked
def compare(paths: Sequence[str | Path], *, name: Name = None, target_ci: TargetCi = None,
            rounds: Rounds = False, kingmaking_samples: KingmakingSamples = 0,
          **run_options) -> Results:
    """Run several scenarios on the same game seeds and write one report.

    Parameters
    ----------
    paths : sequence of str or Path
        Two or more scenario files; the first is the reference of every paired difference.
    name : str, optional
        Run name (default from the file names); the run directory is ``reports/<name>`` unless
        ``out`` is given.
    target_ci, rounds, kingmaking_samples, **run_options
        The run flags of ``analyzer.api.simulate``.

    Returns
    -------
    analyzer.api.Results

    Raises
    ------
    ScenarioError
        See ``combine`` and ``analyzer.api.simulate``.
    """
    scenarios = [load_scenario(p) for p in paths]  # the first bad file raises
    combined = combine(scenarios, name)
    study = {"kind": "compare", "reference": scenarios[0].name,
             "scenarios": [{"name": sc.name, "file": str(sc.file), "description": sc.description,
                            "arms": [arm_label(sc, a.name, j == 0) for a in sc.arms]}
                           for j, sc in enumerate(unique_names(scenarios))]}
    return simulate(combined, study=study, target_ci=target_ci, rounds=rounds,
                    kingmaking_samples=kingmaking_samples, **run_options)


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The games played, from how many scenarios, and where the report is."""
    rate = run.games_per_second
    say(f"{run.games} games x {len(run.arms)} arm(s) from {len(run.study['scenarios'])} "
        "scenarios" + (f", {runner.speed(rate)}" if rate else ""))


Name = Annotated[str | None, typer.Option(help="Run name (default from the scenario names).")]

KIND = StudyKind(
    "compare", "comparison", compare, ("scenarios", Annotated[list[Path], typer.Argument(
        help="Two or more scenario TOML files.")]), tell=tell,
    section="analyzer.report.compare:section", results=("studies", "compare"),
    answers="analyzer.report.answers:compare",
    flag_help={"games": "Games per scenario (default: the first file's).",
               "seed": "Root seed (default: the first file's)."},
    help="""Play several scenarios on the same game seeds and report paired differences (in
    reports/compare-A-vs-B, or reports/NAME with --name).

    Per scenario: win rate by seat, no-winner share, death rate (games that record deaths),
    score spread between first and last place, game length; and each scenario minus the first,
    game by game, with 95% intervals. The scenarios must share game, players, expansions and
    seat rotation; seed and games come from the first file unless given.

    Examples:

      analyzer compare scenarios/cartus-first-game.toml my-cartus-set.toml

      analyzer compare a.toml b.toml c.toml --games 2000 --out /tmp/abc
    """)
