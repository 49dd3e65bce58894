"""``analyzer quality SCENARIO --luck R``: how much of the outcome the deal decides and how much
is left to play (issue #36 item 3).

**The play.** The scenario's base arm (its own variants are not played) on ``games`` deals,
each deal replayed ``R`` times. A *deal* is a game seed: deal ``i`` is ``SeedSequence(seed,
spawn_key=(i,))``, whose child 0 drives every chance event of the game (``base.game_streams``).
Replay ``r`` plays deal ``i`` with the same chance stream and the same seating, the players
drawing from replay ``r``'s own streams: replay 0 is game ``i`` exactly as ``analyzer
simulate`` plays it, replay ``r >= 1`` gives seat ``s``'s player the stream ``(1 + s, r)``
(``runner.ArmPlan.replay``). The replays are the run's arms (``replay0``, ``replay1``, …), so
the study has the runner's chunks, backends and ``--resume``.

**The numbers** (``analyzer.report.luck``): per outcome (each seat's win share and final
score, by start position and pooled over the seats, and the winner's margin), the law of total
variance ``Var(Y) = Var(E[Y | deal]) + E[Var(Y | deal)]`` estimated as a one-way
random-effects ANOVA over deals: the share of the variance the deal explains (luck of the
draw) is the intraclass correlation ICC(1), with a 95 % percentile bootstrap interval over
deals (the deal is the unit).

**Players without randomness.** A player that draws nothing from its stream plays every
replay of a deal alike: when every seat does, the replays are identical and the split means
nothing. Policies do not declare whether they draw (a greedy player draws only to break ties),
so a probe (``drawing_seats``: ``PROBE_GAMES`` deals before play) watches each seat's generator
and the study is refused when none moves; the report names a seat that never drew, and counts
the deals whose replays differ (none, with players that draw: the deal decided every game).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer import plan, runner, stats
from analyzer.errors import OptionError
from analyzer.keywords import checked
from analyzer.model.base import game_streams
from analyzer.model.play import play
from analyzer.scenario import Scenario, with_overrides
from analyzer.studies import ScenarioFile, StudyKind
from analyzer.study.run import Results, only_base, prepare, validate

MIN_REPLAYS = 2  # the within-deal variance needs two replays of a deal
MAX_REPLAYS = 100
REPLAY = "replay"  # the arms are replay0, replay1, …
DEFAULT_BOOT = 1000  # bootstrap replicates over deals
PROBE_GAMES = 20  # deals of the probe that checks the players draw from their own streams


def replays(scenario: Scenario, n: int) -> Scenario:
    """``scenario``'s base arm ``n`` times, named ``replay0`` … (what ``scenario.toml`` and the
    run facts list; each is played with its own player streams)."""
    base = scenario.arms[0]
    return replace(scenario, arms=tuple(
        replace(base, name=f"{REPLAY}{r}",
                description=f"deal replayed with player streams {r}" if r else
                "the deal as analyzer simulate plays it")
        for r in range(n)))


def drawing_seats(scenario: Scenario, games: int = PROBE_GAMES) -> list[int]:
    """In how many of the first ``games`` deals each seat's player drew from its own stream
    (its generator's state moved): a seat at 0 plays without randomness of its own, as far as
    the probe shows. Plays the base arm's games as the run does (seat rotation included),
    through the forward model (``GameSpec.new_state``)."""
    spec = scenario.spec
    arm = runner.plan_arms(scenario)[0]
    config, policies, _ = runner.arm_setup(spec, arm)
    n = len(policies)
    drew = [0] * n
    for i in range(min(games, scenario.games)):
        r = runner.rotation(i, n, scenario.seat_rotation)
        pols = policies[r:] + policies[:r]
        seed = runner.game_seed(scenario.seed, i)
        _, rngs = game_streams(seed, n)
        before = [g.getstate() for g in rngs]
        state = spec.new_state(config, seed)
        play(state, [p.player(s) for s, p in enumerate(pols)], rngs)
        for s in range(n):
            drew[(s + r) % n] += rngs[s].getstate() != before[s]  # by the arm's seat order
    return drew


def can_replay(spec: Any) -> bool:
    """Whether the game's ``play_game`` takes ``replay=`` (the shared forward model's does,
    ``forward.ForwardGame.play_game``)."""
    try:
        return "replay" in inspect.signature(spec.play_game).parameters
    except (TypeError, ValueError):
        return False


@checked
def quality(path_or_scenario: str | Path | Scenario, *, luck: Luck = 4,
            bootstrap: Bootstrap = DEFAULT_BOOT, seed: int | None = None,
            games: int | None = None, **run_options: Any) -> Results:
    """Replay every deal ``luck`` times with other player streams and split the outcome
    variance into the share the deal explains and the share left to play
    (``analyzer quality``; see the module docstring).

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
        Its base arm is played (its variants are not).
    luck : int
        Replays of each deal, ``MIN_REPLAYS..MAX_REPLAYS`` (replay 0 is the run's own game).
    bootstrap : int
        Bootstrap replicates over deals of the intervals, 0..100,000 (0: no intervals).
    seed, games : int, optional
        Root seed and deals (default the scenario's ``seed`` and ``games``).
    **run_options
        The run flags of ``analyzer.api.simulate`` (``out`` default
        ``reports/<name>-quality``).

    Returns
    -------
    analyzer.api.Results
        ``summary["results"]["luck"]`` holds the split of every outcome.

    Raises
    ------
    OptionError
        ``luck`` outside ``MIN_REPLAYS..MAX_REPLAYS``, ``bootstrap`` outside 0..100,000, fewer
        than ``stats.MIN_GAMES`` deals, a game whose play loop cannot replay a deal, a bad run
        flag; nothing is written.
    ScenarioError
        A bad scenario file.
    """
    if not MIN_REPLAYS <= luck <= MAX_REPLAYS:
        raise OptionError("luck", f"must be {MIN_REPLAYS}..{MAX_REPLAYS} replays of each deal "
                                  f"(got {luck}): the play's share needs at least two")
    if not 0 <= bootstrap <= 100_000:
        raise OptionError("bootstrap", f"must be in 0..100,000 (got {bootstrap})")
    given = with_overrides(validate(path_or_scenario, "quality"), games=games, seed=seed)
    scenario = only_base(given)
    if scenario.games < stats.MIN_GAMES:
        raise OptionError("games", f"{scenario.games} deals are fewer than the "
                                   f"{stats.MIN_GAMES} a bootstrap over deals needs; give at "
                                   "least {games}", games=stats.MIN_GAMES)
    if not can_replay(scenario.spec):
        raise OptionError("luck", f"{scenario.game}'s play loop cannot replay a deal with other "
                                  "player streams (it is not the shared forward model's, "
                                  "model/forward.py)")
    played, probed = replays(scenario, luck), min(PROBE_GAMES, scenario.games)
    # --plan stops here, unplayed; it prices the probe's deals (played first, fixed) too
    probe = plan.Part("probe: which seats draw from their own stream", scenario, probed,
                      scales=False, reports=0)
    run = prepare(played, "quality", **run_options).settle(
        label=f"luck study (each deal played {luck} times)", before=[probe])
    drew = drawing_seats(scenario)
    if not any(drew):
        seats = ", ".join(dict.fromkeys(s.policy for s in scenario.arms[0].seats))
        raise OptionError("luck", f"no player of {scenario.name} ({seats}) drew from its own "
                                  f"stream in {probed} deals: "
                                  "deterministic players replay every deal alike, so the "
                                  "split would be meaningless; seat players with their own "
                                  "randomness (random, ismcts)")
    scenario = run.scenario
    arms = [replace(a, replay=r) for r, a in enumerate(runner.plan_arms(scenario))]
    study = {"kind": "quality", "luck": luck, "bootstrap": bootstrap, "boot_seed": scenario.seed,
             "dropped_variants": [a.name for a in given.arms[1:]],
             "probe": {"games": probed, "drew": drew}}
    with run.session():
        result = run.play_arms(arms, scenario.seed, scenario.games, run.dir.chunks,
                               scenario=scenario, progress=run.options.progress)
        run.dir.saved = (f"all {len(result.chunks)} chunks saved in {run.dir.chunks}, the "
                         "report not yet written")
        return run.finish(scenario, result, study=study)


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The deals and replays played, the luck share of the win and of the score, and a warning
    when no deal's replays differ."""
    say(f"{run.games} deals x {len(run.arms)} replays")
    if results.get("note"):
        say(f"note: {results['note']}")
    for row in results.get("outcomes", []):
        if row.get("pooled"):
            say(row["text"])


Luck = Annotated[int, typer.Option(
    help="Replays of each deal with other player streams (at least 2): the deal's share of "
         "the outcome variance is read from how much the replays of a deal agree.")]
Bootstrap = Annotated[int, typer.Option(
    help="Bootstrap replicates over deals of the 95 % intervals (0: none).")]

KIND = StudyKind(
    "quality", "luck study", quality, ("scenario", ScenarioFile), tell=tell,
    default_out="{name}-quality", own_report="analyzer.report.luck", results=("luck",),
    answers="analyzer.report.luck:answers",
    families={"luck": (("the share of an outcome's variance the deal explains (ICC over "
                        "replayed deals)"), "%")},
    flag_help={"games": "Deals (default the scenario's games); each is played --luck times.",
               "quiet": "No progress."},
    help="""Luck or skill: replay every deal R times with other player streams and split the
    outcome variance (each seat's win, score, the winning margin) into the share the deal
    explains and the share left to play, with 95% bootstrap intervals over deals (in
    reports/NAME-quality). Needs players with their own randomness (random, ismcts).

    Examples:

      analyzer quality scenarios/cartus-ismcts-vs-greedy.toml --luck 4 --games 20

      analyzer quality study.toml --luck 8 --jobs 2
    """)
