"""``analyzer tune SCENARIO --seat I``: fit a policy's parameters to win, checked on fresh seeds.

What is tuned, the CMA-ES search, the result and the check are as the README's "Tune" says.
The search runs on the parameters scaled to ``[0, 1]`` (``search.cma_es``), started at the
seat's own parameters with step ``SIGMA0``; an ``int`` parameter is rounded, a ``float`` kept to
4 significant digits, and that value is what is played and written. The fitness is the seat's
``won`` (1/k for a k-way tie for first).

**Seeds.** Generation ``g`` plays game ``i`` from ``SeedSequence(S_g, spawn_key=(i,))`` with
``S_g`` drawn from ``SeedSequence(seed, spawn_key=(1, g))``; the final check uses ``S_v`` from
``spawn_key=(2, *identity)`` (``Plan.check_seed``); CMA-ES's own draws come from a generator
seeded from the scenario seed, so the same scenario, seed and budget give the same ``tuned.toml``
whatever the jobs, backend or chunks.

Files in the run directory besides the usual ones: ``tuned.toml``, ``search.parquet`` (every
candidate of every generation: parameters and win rate, a fraction as its ``win_rate_unit``
says), ``search/gen-NNNN/cKK/`` (one folder per candidate, for ``resume``).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
import tomli_w
import typer

from analyzer import __version__, runner, stats, studies
from analyzer import plan as planning
from analyzer.errors import OptionError
from analyzer.keywords import checked
from analyzer.model.base import GameSpec, parameter_fields
from analyzer.report.tuning import difference_text
from analyzer.report.units import SHARE
from analyzer.scenario import MAX_GAMES, Scenario, Seat, with_overrides
from analyzer.studies import StudyKind
from analyzer.study.run import Results, StudyRun, only_base, prepare, validate
from analyzer.study.search import (
    SEARCH_STREAM,
    SIGMA0,
    Dimension,
    cma_es,
    cma_version,
    derived_seed,
    identity_seed,
)
from analyzer.study.tournament import is_pool, load_pool, seatings

DEFAULT_GAMES = 200  # games per candidate per generation
DEFAULT_BUDGET = 20_000  # games of the whole search
DEFAULT_VALIDATION = 2000  # games of the fresh-seed check, per arm
CHECK_STREAM = 2  # spawn key of the check's root seed (the search's: ``search.SEARCH_STREAM``)
MAX_POPSIZE = 1000  # candidates per generation (CMA-ES's memory grows with its square)
MAX_GENERATIONS = 10_000  # generations of one search


def dimensions(spec: GameSpec, policy: str) -> tuple[list[Dimension], list[str]]:
    """The tunable parameters of ``policy`` (numeric, with finite declared bounds, ``low <
    high``, not declared ``tunable=False`` as a budget of time or effort is) and the names of
    the others (kept as the seat has them).

    Raises
    ------
    OptionError
        ``seat``: the policy has no tunable parameter.
    """
    cls = spec.policies[policy]
    hints = typing.get_type_hints(cls)
    dims, fixed = [], []
    for f in parameter_fields(cls):
        low, high = f.metadata.get("low"), f.metadata.get("high")
        kind = hints.get(f.name)
        if (kind in (int, float) and low is not None and high is not None and low < high
                and f.metadata.get("tunable", True)):
            dims.append(Dimension(f.name, kind, float(low), float(high)))
        else:
            fixed.append(f.name)
    if not dims:
        raise OptionError("seat", f"policy {policy!r} has no numeric parameter with declared "
                                  "bounds to tune")
    return dims, fixed


@dataclass(frozen=True)
class Plan:
    """What a tune plays (``plan``): the base scenario, the tuned seat, the opponents' tables
    and the budget split into generations."""

    scenario: Scenario
    seat: int
    dims: tuple[Dimension, ...]
    fixed: tuple[str, ...]
    start: dict[str, Any]
    tables: tuple[tuple[Seat, ...], ...]  # the other seats of each table (one without a pool)
    popsize: int
    games: int  # games per candidate per generation
    deals: int  # game seeds per generation (games split over the tables)
    generations: int
    validation_deals: int
    budget: int
    opponents: str | None
    check_seed: int  # root seed of the fresh-seed check (from the whole run identity)

    @property
    def policy(self) -> str:
        """The tuned seat's policy."""
        return self.scenario.arms[0].seats[self.seat].policy

    @property
    def label(self) -> str:
        """The tuned seat's name in the records (its name with a ``*``, made unique)."""
        names = {s.name for s in self.scenario.arms[0].seats} | {s.name for t in self.tables
                                                                 for s in t}
        label = self.scenario.arms[0].seats[self.seat].name + "*"
        while label in names:
            label += "*"
        return label

    def params(self, x: np.ndarray) -> dict[str, Any]:
        """The seat's parameters at the scaled point ``x``: the start's, tuned ones replaced."""
        return {**self.start, **{d.name: d.decode(v) for d, v in zip(self.dims, x)}}

    def arms(self, candidates: list[dict[str, Any]], names: list[str]) -> list[runner.ArmPlan]:
        """One arm per candidate and table: the tuned seat plays ``candidates[k]``."""
        sc = self.scenario
        rules = json.dumps(dict(sc.arms[0].rules), sort_keys=True)
        out = []
        for name, params in zip(names, candidates):
            me = (self.label, self.policy, json.dumps(params, sort_keys=True))
            for t, others in enumerate(self.tables):
                seats = [(s.name, s.policy, json.dumps(dict(s.params), sort_keys=True))
                         for s in others]
                seats.insert(self.seat if len(self.tables) == 1 else 0, me)
                arm = name if len(self.tables) == 1 else f"{name}:t{t:02d}"
                out.append(runner.ArmPlan(arm, sc.players, sc.expansions, rules, tuple(seats)))
        return out


def plan(scenario: Scenario, seat: int, *, budget: int, games: int, popsize: int | None,
         validation_games: int, opponents: str | Path | None = None) -> Plan:
    """Check the tune's options and split the budget.

    Raises
    ------
    OptionError
        ``seat`` outside the scenario's seats or a policy with nothing to tune; ``games``
        (at least ``stats.MIN_GAMES`` per candidate), ``popsize``, ``validation_games`` below
        their minimum; a ``budget`` smaller than one
        generation (``popsize × games``); an ``opponents`` pool of another game.
    """
    base = scenario.arms[0]
    if not 0 <= seat < len(base.seats):
        raise OptionError("seat", f"{seat} is outside 0..{len(base.seats) - 1} (the scenario's "
                                  "seats, before rotation)")
    spec = scenario.spec
    policy = base.seats[seat].policy
    dims, fixed = dimensions(spec, policy)
    if games < 1:
        raise OptionError("games", f"must be at least 1 (got {games})")
    if games < stats.MIN_GAMES:  # no candidate's win rate would be estimated: the search
        # would follow noise and the first candidate be as good as any (as balance refuses)
        raise OptionError("games", f"{games} games per candidate are fewer than the "
                                   f"{stats.MIN_GAMES} a win rate needs to be estimated (the "
                                   f"budget would buy no estimate); give at least {{games}}",
                          games=stats.MIN_GAMES)
    if validation_games < 2:
        raise OptionError("validation_games", f"must be at least 2 (got {validation_games})")
    lam = popsize if popsize is not None else 4 + int(3 * math.log(len(dims)))
    if lam < 2:
        raise OptionError("popsize", f"must be at least 2 (got {lam})")
    generations = budget // (lam * games)
    if generations < 1:
        raise OptionError("budget", f"{budget} games are less than one generation of {lam} "
                                    f"candidates x {games} games ({lam * games}); raise "
                                    "{budget} or lower {games}", budget=None, games=None)
    tables: tuple[tuple[Seat, ...], ...]
    if opponents is None:
        tables = (tuple(s for j, s in enumerate(base.seats) if j != seat),)
    else:
        if not is_pool(opponents):
            raise OptionError("opponents", f"{opponents} is not a tournament pool (it names no "
                                           "[[entrants]]); give a pool file such as "
                                           "scenarios/<game>-ladder.toml")
        pool = load_pool(opponents)
        if pool.game != scenario.game:
            raise OptionError("opponents", f"{opponents} is a pool of {pool.game}, not of "
                                           f"{scenario.game}")
        tables = tuple(tuple(pool.entrants[e] for e in s)
                       for s in seatings(len(pool.entrants), scenario.players - 1,
                                         seed=scenario.seed))
    deals = -(-games // len(tables))
    # the check's seed from the whole run identity: two tunes that differ in any of it are
    # checked on different games (the same games would let picking the better tune select on
    # that check's luck); the same tune on the same games
    check = identity_seed(scenario.seed, CHECK_STREAM, {
        "scenario": scenario.fingerprint(), "seat": seat, "budget": budget, "games": games,
        "popsize": lam, "validation_games": validation_games,
        "tables": [[(s.name, s.policy, dict(s.params)) for s in t] for t in tables]})
    defaults = {f.name: f.default for f in parameter_fields(spec.policies[policy])}
    start = {**{d.name: defaults[d.name] for d in dims}, **base.seats[seat].params}
    return Plan(scenario, seat, tuple(dims), tuple(fixed), start, tables, lam, deals * len(tables),
                deals, generations, -(-validation_games // len(tables)), budget,
                None if opponents is None else str(opponents), check)


def _win_rates(parts: list[Path], label: str) -> dict[str, float]:
    """Win rate of the tuned seat per candidate (arm name before ``:``) over its games, from
    the seats ``parts`` of a generation."""
    seats = pd.concat([pd.read_parquet(p, columns=["variant", "policy", "won"]) for p in parts],
                      ignore_index=True)
    mine = seats[seats["policy"].astype(str) == label]
    cand = mine["variant"].astype(str).str.split(":").str[0]
    return mine.groupby(cand.to_numpy())["won"].mean().to_dict()


@dataclass
class TuneResults(Results):
    """A finished tune: ``analyzer.api.Results`` (``out_dir``, ``summary``, the check's
    ``games`` and ``seats``) plus the fitted parameters (``tuned``) and the file written
    (``tuned_file``)."""

    tuned: dict[str, Any] | None = None
    tuned_file: Path | None = None


@checked
def tune(path_or_scenario: str | Path | Scenario, *, seat: SeatEntry,
         budget: Budget = DEFAULT_BUDGET, games: int = DEFAULT_GAMES, popsize: Popsize = None,
         validation_games: ValidationGames = DEFAULT_VALIDATION, opponents: Opponents = None,
         seed: int | None = None, jobs: int | None = None, backend: str = "loky",
         scheduler: str | None = None, out: str | Path | None = None,
         chunk_size: int | None = None, resume: bool = False, force: bool = False,
         csv: bool = False, log: Callable[[str], None] | None = None) -> TuneResults:
    """Fit the parameters of the policy at seat entry ``seat`` (``analyzer tune``).

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
        Its base arm is used (its variants are not).
    seat : int
        The seat entry (``0..players-1``, before rotation) whose policy is tuned.
    budget : int
        Games the search may play; ``budget // (popsize × games)`` generations, at most
        ``MAX_GENERATIONS``.
    games : int
        Games per candidate per generation (split between the tables with ``opponents``).
    popsize : int, optional
        Candidates per generation, ``2..MAX_POPSIZE`` (default CMA-ES's ``4 + floor(3 ln
        d)`` for ``d`` parameters).
    validation_games : int
        Games of the fresh-seed check, per arm (start and tuned).
    opponents : str or Path, optional
        A tournament pool file: the tuned seat plays every table of ``players − 1`` of its
        entrants instead of the scenario's other seats (only its entrants are used).
    seed : int, optional
        Root seed (default the scenario's): the search, the check and CMA-ES derive from it.
    jobs, backend, scheduler, chunk_size, csv
        As for ``analyzer.api.simulate`` (``chunk_size``: game seeds per chunk).
    out : str or Path, optional
        Run directory (default ``reports/<name>-tune-seat<I>``).
    resume : bool
        Keep the finished chunks of an interrupted tune (same scenario, seed and budget): the
        search replays from them to the same point and goes on.
    force : bool
        Replace another study's run directory.
    log : callable, optional
        Called with one line per generation and for the check (the CLI prints them).

    Returns
    -------
    TuneResults

    Raises
    ------
    ScenarioError
        A bad scenario; nothing is written.
    OptionError
        A bad keyword argument: ``games`` or ``validation_games`` above ``MAX_GAMES``,
        ``popsize`` above ``MAX_POPSIZE``, ``budget`` below 1 or above ``MAX_GENERATIONS``
        generations, or what ``plan`` refuses; nothing is written.
    analyzer.errors.RunInterrupted
        Ctrl-C; says how many generations are saved.
    """
    say = log or (lambda line: None)
    scenario = only_base(with_overrides(validate(path_or_scenario, "tune"), seed=seed))
    for name, value in (("games", games), ("validation_games", validation_games)):
        if value > MAX_GAMES:
            raise OptionError(name, f"at most {MAX_GAMES:,} (got {value:,})")
    if popsize is not None and popsize > MAX_POPSIZE:
        raise OptionError("popsize", f"at most {MAX_POPSIZE:,} candidates per generation "
                                     f"(got {popsize:,})")
    if budget < 1:
        raise OptionError("budget", f"must be at least 1 (got {budget})")
    p = plan(scenario, seat, budget=budget, games=games, popsize=popsize,
             validation_games=validation_games, opponents=opponents)
    if p.generations > MAX_GENERATIONS:
        raise OptionError("budget", f"{budget:,} games make {p.generations:,} generations of "
                                    f"{p.popsize} candidates x {p.games} games; at most "
                                    f"{MAX_GENERATIONS:,} (lower {{budget}}, or raise {{games}} "
                                    "or {popsize})", budget=None, games=None, popsize=None)
    size = max(1, -(-runner.DEFAULT_CHUNK_SIZE // (p.popsize * len(p.tables))))
    check_size = (max(1, -(-runner.DEFAULT_CHUNK_SIZE // (2 * len(p.tables))))
                  if chunk_size is None else chunk_size)
    run = prepare(scenario, "tune", jobs=jobs, backend=backend, scheduler=scheduler, out=out,
                  chunk_size=chunk_size, resume=resume, force=force, csv=csv,
                  naming={"seat": seat}, sizes=[(p.deals, "games", size),
                                                (p.validation_deals, "validation_games",
                                                 check_size)])
    fingerprint = run.dir.fingerprint(
        scenario, seat=seat, budget=budget, games=games, popsize=p.popsize,
        validation_games=validation_games, opponents=_pool_hash(p), chunk_size=check_size)
    run.estimate = planning.settle(plan_parts(p), run.options.jobs, run.options.backend,
                                   final="tune")
    with run.session(nest=True):  # --plan stopped above
        return _search_and_check(run, p, fingerprint, say)


def plan_parts(p: Plan) -> list[planning.Part]:
    """What a tune plays, for ``analyzer.plan``: every generation's candidates (priced at the
    start parameters) and the fresh-seed check; ``--time`` sizes neither (``--budget`` does)."""
    search = p.generations * p.popsize * p.deals
    return [planning.Part(f"search: {p.generations} generation(s) x {p.popsize} candidates x "
                          f"{p.deals} deal(s)", p.scenario, search, scales=False,
                          arms=tuple(p.arms([p.start], ["start"])), reports=0,
                          runs=p.generations),
            planning.Part("check on fresh seeds: start and tuned", p.scenario,
                          p.validation_deals, scales=False,
                          arms=tuple(p.arms([p.start, p.start], ["start", "tuned"])),
                          reports=0)]


def _search_and_check(run: StudyRun, p: Plan, fingerprint: dict[str, Any],
                      say: Callable[[str], None]) -> TuneResults:
    """The search (``search.cma_es``, each generation's candidates played into
    ``search/gen-NNNN/cKK/``: ``StudyRun.play_batch``) and the fresh-seed check (``chunks/``)
    of a prepared tune, then its report and ``tuned.toml``."""
    scenario, d = run.scenario, run.dir
    search_dir = d.path / "search"
    d.prepare_chunks(fingerprint, "search")  # marks a run directory
    started = time.monotonic()
    played: list[runner.RunResult] = []

    def play(g: int, xs: list[np.ndarray]) -> list[float]:
        d.saved = f"{g} of {p.generations} generations saved in {search_dir}"
        names = [f"c{k:02d}" for k in range(len(xs))]
        batch = [(n, p.arms([p.params(x)], [n])) for n, x in zip(names, xs)]
        results = run.play_batch(search_dir / f"gen-{g:04d}", batch,
                                 derived_seed(scenario.seed, SEARCH_STREAM, g + 1), p.deals,
                                 scenario=scenario, chunk_size=run.options.chunk_size,
                                 what="candidate")
        played.extend(results)
        rates = _win_rates([part for r in results for part in r.parts("seats")], p.label)
        return [-rates[n] for n in names]  # CMA-ES minimises

    history, rows = [], []
    x0 = [dim.encode(p.start[dim.name]) for dim in p.dims]
    for step in cma_es(x0, popsize=p.popsize, seed=scenario.seed, rounds=p.generations,
                       evaluate=play):
        g, cands, wins = step.round, [p.params(x) for x in step.xs], [-w for w in step.losses]
        best = int(np.argmax(wins))
        history.append({"generation": g, "seed": derived_seed(scenario.seed, SEARCH_STREAM, g + 1),
                        "best": wins[best], "mean": float(np.mean(wins)),
                        "best_params": cands[best], "mean_params": p.params(step.centre),
                        "sigma": step.sigma})
        rows += [{"generation": g, "candidate": k, "win_rate": w, "win_rate_unit": SHARE,
                  "games": p.games,
                  **{dim.name: c[dim.name] for dim in p.dims}}
                 for k, (c, w) in enumerate(zip(cands, wins))]
        say(f"generation {g + 1}/{p.generations}: best {100 * wins[best]:.1f} %, mean "
            f"{100 * float(np.mean(wins)):.1f} % over {len(cands)} candidates x {p.games} games")
    resumed = sum(r.resumed for r in played)
    games_played = sum(r.games_played for r in played) * len(p.tables)
    cpu = sum(r.cpu_seconds for r in played)
    tuned = history[-1]["mean_params"]
    search_seconds = time.monotonic() - started
    d.saved = (f"all {p.generations} generations saved in {search_dir}, the fresh-seed check "
               "not yet finished")
    # the check: start and tuned on fresh seeds, paired game by game
    check_arms = p.arms([p.start, tuned], ["start", "tuned"])
    check = run.play_arms(check_arms, p.check_seed,
                          p.validation_deals, d.chunks, scenario=scenario,
                          chunk_size=fingerprint["chunk_size"], fingerprint=fingerprint,
                          resume=True)
    games_played += check.games_played * 2 * len(p.tables)
    cpu += check.cpu_seconds
    with d.writing("search.parquet") as tmp:
        pd.DataFrame(rows).to_parquet(tmp)
    seconds = time.monotonic() - started
    study = {
        "kind": "tune", "seat": p.seat, "seat_name": scenario.arms[0].seats[p.seat].name,
        "label": p.label, "policy": p.policy,
        "dimensions": [{"name": dim.name, "type": dim.kind.__name__, "low": dim.low,
                        "high": dim.high, "start": p.start[dim.name], "tuned": tuned[dim.name]}
                       for dim in p.dims],
        "fixed": {k: p.start.get(k) for k in p.fixed if k in p.start}, "start": p.start,
        "tuned": tuned, "popsize": p.popsize, "generations": p.generations,
        "games_per_candidate": p.games, "budget": p.budget, "sigma0": SIGMA0,
        "cma_version": cma_version(), "history": history,
        "validation_games": p.validation_deals * len(p.tables), "validation_seed": p.check_seed,
        "opponents": p.opponents,
        "tables": [[s.name for s in t] for t in p.tables], "search_seconds": search_seconds,
    }
    facts = {
        "games": p.validation_deals,
        "arms": [{"name": a.name, "rules": json.loads(a.rules), "seats": [s[0] for s in a.seats]}
                 for a in check_arms],
        "chunks_resumed": resumed + check.resumed, "games_played": games_played,
        "seconds": seconds, "cpu_seconds": cpu,
        "games_per_second": games_played / seconds if seconds > 0 and games_played else None,
    }
    res = run.finish(scenario, check, study=study, facts=facts)
    figures = studies.results_of(res.summary["results"], "tune")
    path = d.write("tuned.toml", tuned_toml(scenario, p, tuned, figures))
    say(f"fresh seeds ({figures['games']} games, check seed {p.check_seed}): tuned "
        f"{100 * figures['tuned']['rate']:.1f} % vs start {100 * figures['start']['rate']:.1f} %, "
        f"difference {difference_text(figures['difference'])}")
    return TuneResults(res.out_dir, res.summary, tuned=tuned, tuned_file=path)


def _pool_hash(p: Plan) -> str | None:
    if p.opponents is None:
        return None
    text = json.dumps([[(s.name, s.policy, dict(s.params)) for s in t] for t in p.tables],
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def tuned_toml(scenario: Scenario, p: Plan, tuned: dict[str, Any], figures: dict) -> str:
    """``tuned.toml``: the fitted parameters as a ``params_file`` (``game``, ``policy``,
    ``[params]``), with how they were found and checked in comments."""
    command = (f"analyzer tune {scenario.file} --seat {p.seat} --budget {p.budget} --games "
               f"{p.games} --popsize {p.popsize} --validation-games "
               f"{figures['games']} --seed {scenario.seed}"
               + (f" --opponents {p.opponents}" if p.opponents else ""))
    lines = [
        f"# Parameters of policy {p.policy} fitted by `analyzer tune` (analyzer {__version__}):",
        f"#   {command}",
        f"# seat {p.seat} of {scenario.file} ({scenario.name}), seed {scenario.seed}, CMA-ES "
        f"{p.generations} generations x {p.popsize} candidates x {p.games} games"
        + (f", opponents from {p.opponents}" if p.opponents else "") + ".",
        (f"# Check on {figures['games']} fresh games: win rate {_pct(figures['tuned'])} "
         f"against {_pct(figures['start'])} with the starting parameters;"),
        f"# paired difference {difference_text(figures['difference'])} (95%).",
    ]
    return ("\n".join(lines) + "\n"
            + tomli_w.dumps({"game": scenario.game, "policy": p.policy, "params": tuned}))


def _pct(iv: dict) -> str:
    return f"{100 * iv['rate']:.1f} % [{100 * iv['lo']:.1f}, {100 * iv['hi']:.1f}]"


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The tuned parameters, their check on fresh seeds and the params file."""
    say(f"tuned: {', '.join(f'{k} = {v}' for k, v in results['params'].items())}")
    say(f"fresh seeds ({results['games']} games): win rate {100 * results['tuned']['rate']:.1f} % "
        f"tuned vs {100 * results['start']['rate']:.1f} % start; tuned - start "
        f"{difference_text(results['difference'])}")
    say(f"params file: {res.tuned_file}")


# the command's options (``analyzer.studies``); a union is read as its first type
SeatEntry = Annotated[int, typer.Option(
    help="The seat entry (0-based, before rotation) whose policy is tuned.")]
Budget = Annotated[int, typer.Option(
    help="Games the search may play: budget // (popsize x games) generations.")]
Popsize = Annotated[int | None, typer.Option(
    help="Candidates per generation (default 4 + 3 ln(parameters)).")]
ValidationGames = Annotated[int, typer.Option(
    help="Games of the final check on fresh seeds, tuned and start on the same seeds.")]
Opponents = Annotated[Path | str | None, typer.Option(
    help="A tournament pool file: play every table of players-1 of its entrants instead of "
         "the scenario's other seats.")]

KIND = StudyKind(
    "tune", "tuning", tune, ("scenario", Annotated[Path, typer.Argument(
        help="Scenario TOML file (its base arm).")]), tell=tell,
    default_out="{name}-tune-seat{seat}", own_report="analyzer.report.tuning",
    results=("tune",), answers="analyzer.report.answers:tune",
    families={
        "tuned_minus_start": ("the tuned parameters' win rate minus the start's, on fresh seeds",
                              "pp"),
        "tuned_above_fair": ("the tuned seat's win rate minus a fair seat's, on fresh seeds",
                             "pp")}, game_keys=False,
    budgets="its cost is set by --budget, the games in all; --games only splits them",
    flag_help={"games": "Games per candidate per generation (all candidates on the same seeds; "
                        "default 200).",
               "chunk_size": "Game seeds per chunk (default: about 250 games per chunk; never "
                             "changes results).",
               "quiet": "No line per generation."},
    help="""Fit the parameters of one seat's policy (CMA-ES) to maximise its win rate; check
    the result against the starting parameters on fresh seeds (in reports/NAME-tune-seatI).

    Every numeric parameter with declared bounds (analyzer list policies) is fitted inside
    them. Candidates of one generation play the same seeds; the tuned parameters (the
    search's final mean) are written to DIR/tuned.toml, usable from any scenario seat as
    params_file = "tuned.toml". Same scenario, seed and budget => same tuned.toml.

    Examples:

      analyzer tune scenarios/africanus-sultan.toml --seat 0 --budget 20000

      analyzer tune study.toml --seat 2 --budget 4000 --games 100 --out /tmp/tuned

      analyzer tune study.toml --seat 0 --opponents scenarios/rattus-ladder.toml
    """)
