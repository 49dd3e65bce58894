"""Running a study: the one machinery behind every study command (``analyzer.studies``).

``prepare`` checks a study's scenario overrides, run options and run directory before anything
is written and returns a ``StudyRun``. Its ``session`` creates the directory and turns every
stop into one line (``analyzer.rundir.RunDir.session``); ``play`` plays a scenario's arms on
shared seeds (to a target precision if asked) and ``finish`` writes the records, the scenario
as run, the run facts (with the labelled defaults in use) and the report. ``play_arms`` plays a
list of arms into a folder of the run (fingerprinted, resumable) and ``play_batch`` a batch of
them, one subfolder each, so a stop keeps every finished one. So, every study starts with
``prepare``:

- ``simulate`` is ``prepare`` then ``play``;
- ``compare``, ``sweep``, ``ablate`` and ``tournament`` turn their input into one scenario and
  ``play`` it with their study facts;
- ``tune`` and ``balance`` play their search (``analyzer.study.search``) as batches into
  ``search/`` and ``finish`` with their fresh-seed check (``play_arms`` into ``chunks/``);
- ``robustness`` is a ``simulate`` of the base and of each condition, in one session.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, astuple, dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer import __version__, plan, report, runner, stats, studies, tablediff
from analyzer.errors import OptionError, RunStopped, ScenarioError
from analyzer.keywords import checked
from analyzer.report.summary import Arm, RunFacts, Summary, dumps
from analyzer.rundir import RunDir, identity
from analyzer.scenario import Scenario, load_scenario, to_toml, with_overrides
from analyzer.study import questions

CSV_FILES = ("games", "seats")  # record tables written as <name>.csv with csv=True
ROUNDS_FILE = "rounds.parquet"  # the checkpoints after every round (``rounds=True``)
KINGMAKING_FILE = "kingmaking.parquet"  # the kingmaking test per game (``kingmaking_samples``)


@dataclass
class Results:
    """A finished run: its directory and, read on first use, the two record tables.

    Attributes
    ----------
    out_dir : Path
        The run directory (``report.html`` etc.).
    summary : dict
        The content of ``summary.json``.
    games, seats : DataFrame
        ``games.parquet`` / ``seats.parquet`` (columns: ``game_id, seed, variant`` + the game's
        declared game columns; ``game_id, variant`` + its seat columns).
    """

    out_dir: Path
    summary: dict[str, Any]

    @functools.cached_property
    def games(self) -> pd.DataFrame:
        return pd.read_parquet(self.out_dir / "games.parquet")

    @functools.cached_property
    def seats(self) -> pd.DataFrame:
        return pd.read_parquet(self.out_dir / "seats.parquet")


@checked
def validate(path_or_scenario: str | Path | Scenario, kind: str | None = "simulate",
             rounds: bool | None = None) -> Scenario:
    """Load and validate a scenario (a path, or an already built ``Scenario``) for a study of
    ``kind`` (``analyzer.studies``: its questions are checked as that study reads them;
    ``None``: each as the kind whose key it is, ``questions.reader``), played
    with ``--rounds`` or not (``rounds``; ``None``: not known, ``analyzer validate``; a
    ``quality:`` question of a run without rounds is refused, ``questions.check``).

    Raises
    ------
    ScenarioError
        Every problem of the file, one line each (``analyzer.scenario.load_scenario``); a
        question's key the study will not make (``questions.check``).
    """
    if isinstance(path_or_scenario, Scenario):
        return path_or_scenario
    scenario = load_scenario(path_or_scenario)
    questions.check(scenario, kind, rounds)  # before a game is played
    return scenario


def defaults_in_use(scenario: Scenario) -> dict[str, list[Any]]:
    """Per arm (by name), the rule values it plays that are labelled defaults
    (``GameSpec.rule_values`` with ``provenance == "default"``), in the game's order: each a
    ``RuleValue`` (``name``, ``value``, ``section``)."""
    spec = scenario.spec
    out = {}
    for arm in scenario.arms:
        config = spec.make_config(scenario.arm_players(arm), scenario.expansions, arm.rules)
        out[arm.name] = [rv for rv in spec.rule_values(config) if rv.provenance == "default"]
    return out


def defaults_facts(scenario: Scenario) -> dict[str, list[dict[str, Any]]]:
    """``defaults_in_use`` as run facts (``summary.json["run"]["defaults"]``, the report's
    header line and appendix): per arm ``{"name", "section", "value"}``, a value that is not a
    plain scalar as text."""
    return {arm: [{"name": rv.name, "section": rv.section,
                   "value": rv.value if isinstance(rv.value, (int, float, str, bool))
                   else str(rv.value)} for rv in values]
            for arm, values in defaults_in_use(scenario).items()}


@dataclass(frozen=True)
class RunOptions:
    """How a study's games are played (checked by ``run_options``): worker processes,
    backend, dask scheduler, games per chunk, progress on stderr and CSV copies of the
    records."""

    jobs: int
    backend: str
    scheduler: str | None
    chunk_size: int
    progress: bool = False
    csv: bool = False
    rounds: bool = False  # record the checkpoints after every round (``model.flow``)
    kingmaking: int = 0  # counterfactual games per game of the kingmaking test (with rounds)

    def play(self) -> dict[str, Any]:
        """The keyword arguments of ``runner.run`` these options set (all but ``csv``)."""
        return {k: v for k, v in asdict(self).items() if k != "csv"}


def run_options(n_games: int, *, jobs: int | None = None, backend: str = "loky",
                scheduler: str | None = None, chunk_size: int | None = None,
                progress: bool = False, csv: bool = False, games_flag: str = "games",
                default_chunk: int = runner.DEFAULT_CHUNK_SIZE, rounds: bool = False,
                kingmaking_samples: int = 0) -> RunOptions:
    """Check the run options of ``n_games`` games per arm (``runner.check_options``).

    ``chunk_size`` ``None`` is ``default_chunk``; then too many chunks are blamed on
    ``games_flag``, the keyword argument that set ``n_games`` (a given ``chunk_size`` is
    blamed itself).

    Raises
    ------
    OptionError
        See ``runner.check_options``; ``kingmaking_samples`` not a whole number >= 0, or
        above 0 without ``rounds``.
    """
    if (isinstance(kingmaking_samples, bool) or not isinstance(kingmaking_samples, int)
            or kingmaking_samples < 0):
        raise OptionError("kingmaking_samples", "must be a whole number of counterfactual "
                                                f"games per game, 0 or more (got "
                                                f"{kingmaking_samples!r})")
    if kingmaking_samples and not rounds:
        raise OptionError("kingmaking_samples", "only with {rounds} (the test needs each "
                                                "game's position estimate after every round)",
                          rounds=True)
    size = default_chunk if chunk_size is None else chunk_size
    if chunk_size is None and -(-n_games // size) > runner.MAX_CHUNKS:
        raise OptionError(games_flag, f"{n_games:,} games make more than "
                                      f"{runner.MAX_CHUNKS:,} chunks of {size}")
    jobs = runner.check_options(jobs, size, backend, scheduler, n_games)
    return RunOptions(jobs, backend, scheduler, size, progress, csv, bool(rounds),
                      kingmaking_samples)


@dataclass(eq=False)
class StudyRun:
    """A study checked and ready to run (``prepare``): its scenario (overrides applied), kind
    (a key of ``analyzer.studies.STUDIES``), run options, run directory and target precision."""

    scenario: Scenario
    kind: str
    options: RunOptions
    dir: RunDir
    target_ci: float | None = None
    estimate: plan.Estimate | None = field(default=None, init=False)  # set by ``settle``

    def settle(self, scenario: Scenario | None = None, *, label: str | None = None,
               before: Sequence[plan.Part] = ()) -> StudyRun:
        """``analyzer.plan.settle`` of playing ``scenario`` (default: the prepared one; its
        arms matter, its games are the prepared run's): the run, its games per arm set by a
        ``--time`` budget, with the estimate kept for the run facts. ``--plan`` stops here
        (``plan.Planned``), before anything is written. ``label`` names the part (default the
        kind's word); ``before``: parts the study plays first, priced with it (a probe)."""
        scenario = self.scenario if scenario is None else scenario
        part = plan.Part(label or studies.word(self.kind), scenario, self.scenario.games,
                         chunk=self.options.chunk_size, kind=self.kind)
        o = self.options
        est = plan.settle([*before, part], o.jobs, o.backend, runner.MAX_CHUNKS * o.chunk_size,
                          rounds=o.rounds, kingmaking=o.kingmaking)
        run = self
        if est is not None and est.games not in (None, self.scenario.games):
            run = replace(self, scenario=with_overrides(self.scenario, games=est.games))
        run.estimate = est
        return run

    @contextmanager
    def session(self, *, nest: bool = False) -> Iterator[StudyRun]:
        """``RunDir.session`` of the run directory; a stop also stops idle workers."""
        with self.dir.session(nest=nest, on_stop=runner.stop_workers):
            yield self

    def play_arms(self, arms: Sequence[runner.ArmPlan], root: int, games: int, folder: Path, *,
                  scenario: Scenario, chunk_size: int | None = None,
                  fingerprint: Mapping[str, Any] | None = None, resume: bool | None = None,
                  progress: bool = False) -> runner.RunResult:
        """Play ``arms`` on the same ``games`` seeds of ``root`` into ``folder`` with the run's
        options (``runner.run``; ``chunk_size`` default the run's; the checkpoints after every
        round with ``RunOptions.rounds``): ``scenario`` gives the game and the seat rotation.
        The folder is fingerprinted (default: ``RunDir.fingerprint`` of ``scenario``, ``root``
        and a hash of the arms) and kept on ``resume`` (default the
        run's)."""
        if fingerprint is None:
            fingerprint = self.dir.fingerprint(scenario, root, arms=_digest(arms))
        how = {**self.options.play(), "chunk_size": chunk_size or self.options.chunk_size,
               "progress": progress, "kingmaking": 0}  # (no kingmaking test here)
        return runner.run(scenario.spec, arms, root, games, folder, rotate=scenario.seat_rotation,
                          resume=self.dir.resume if resume is None else resume,
                          fingerprint=dict(fingerprint), **how)

    def play_batch(self, folder: Path, batch: Sequence[tuple[str, Sequence[runner.ArmPlan]]],
                   root: int, games: int, *, scenario: Scenario, chunk_size: int | None = None,
                   what: str = "setting") -> list[runner.RunResult]:
        """Play each ``(label, arms)`` of ``batch`` (a setting, a candidate) on the same
        ``games`` seeds of ``root`` into ``folder/label``, one after the other (``play_arms``):
        a stop keeps every finished one, and the finished chunks of the one playing, and says
        so; a resume plays only the rest.

        Raises
        ------
        RunStopped
            Its ``saved`` names the finished ``what``s, then the chunks of the one stopped.
        """
        results = []
        for k, (label, arms) in enumerate(batch):
            try:
                results.append(self.play_arms(arms, root, games, folder / label,
                                              scenario=scenario, chunk_size=chunk_size))
            except RunStopped as err:
                err.saved = f"{k} of {len(batch)} {what}s saved in {folder}; {err.saved}"
                raise
        return results

    def play(self, scenario: Scenario | None = None, *, study: dict[str, Any] | None = None,
             files: Mapping[str, str] | None = None) -> Results:
        """Play every arm of ``scenario`` (default: the prepared one) on shared seeds into
        ``chunks/`` (to ``target_ci`` if set), then ``finish``."""
        scenario = self.scenario if scenario is None else scenario
        # before a game is played (issues #25, #34); a quality: key needs --rounds
        questions.check(scenario, self.kind, self.options.rounds)
        spec = scenario.spec
        arms = runner.plan_arms(scenario)
        common = {"rotate": scenario.seat_rotation, "fingerprint": self.dir.fingerprint(scenario),
                  "resume": self.dir.resume, **self.options.play()}
        precision = None
        if self.target_ci is not None:
            from analyzer.precision import run_to_target

            ref = studies.STUDIES[self.kind].half_width
            result, precision = run_to_target(
                spec, arms, scenario.seed, scenario.games, self.dir.chunks, self.target_ci,
                half_width=studies.load(ref) if ref else stats.max_win_rate_half_width, **common)
            scenario = with_overrides(scenario, games=precision.games)
        else:
            result = runner.run(spec, arms, scenario.seed, scenario.games, self.dir.chunks,
                                **common)
        self.dir.saved = (f"all {len(result.chunks)} chunks saved in {self.dir.chunks}, the "
                          "report not yet written")
        if result.copied is not None and study is not None:  # ``runner.copy_arms``
            study = {**study, "replayed": {a.name: 1 - result.copied.get(a.name, 0)
                                           / scenario.games for a in scenario.arms}}
        facts = {}
        if precision is not None:
            facts["target_ci"] = {"target": precision.target, "games": precision.games,
                                  "half_width": precision.half_width,
                                  "reached": precision.reached, "steps": list(precision.steps),
                                  "max_games": self.scenario.games}
        return self.finish(scenario, result, study=study, facts=facts, files=files)

    def run_facts(self, scenario: Scenario, result: runner.RunResult) -> RunFacts:
        """``summary.json["run"]``: the scenario's facts, the labelled defaults in use per arm,
        what each user data table changes, and how the games were played."""
        played = result.games_played * len(scenario.arms)
        return RunFacts(
            scenario.name, scenario.description, scenario.file, scenario.game,
            tuple(scenario.expansions), scenario.players, scenario.games, scenario.seed,
            scenario.seat_rotation,
            tuple(Arm(a.name, a.description, dict(a.rules), tuple(s.name for s in a.seats),
                      scenario.arm_players(a)) for a in scenario.arms),
            defaults_facts(scenario), tuple(q.as_dict() for q in scenario.questions),
            # what each user data table changes, read now: the report is re-rendered from these
            tuple(tablediff.run_facts(scenario.spec.tables,
                                      [(a.name, a.rules) for a in scenario.arms])),
            __version__, self.options.jobs, self.options.backend, self.options.chunk_size,
            result.resumed, played, result.seconds, result.cpu_seconds,
            self.estimate.facts() if self.estimate is not None else None,
            played / result.seconds if result.seconds > 0 and played else None,
            time.strftime("%Y-%m-%d %H:%M:%S"))

    def finish(self, scenario: Scenario, result: runner.RunResult, *,
               study: dict[str, Any] | None = None, facts: Mapping[str, Any] | None = None,
               files: Mapping[str, str] | None = None) -> Results:
        """Write the run's records (``games.parquet``, ``seats.parquet`` and, with ``csv``,
        their CSV copies), ``scenario.toml``, ``files`` (name -> text), ``summary.json``
        (``run_facts`` updated by ``facts``, then ``study``) and the report."""
        d = self.dir
        begun = time.process_time()  # the records and report: a run's fixed cost (plan)
        runner.aggregate(result.parts("games"), d.path / "games.parquet")
        runner.aggregate(result.parts("seats"), d.path / "seats.parquet")
        for kind, name in (("rounds", ROUNDS_FILE), ("kingmaking", KINGMAKING_FILE)):
            if result.parts(kind):
                runner.aggregate(result.parts(kind), d.path / name)
            else:  # an earlier run's checkpoints would disagree with these records
                (d.path / name).unlink(missing_ok=True)
        for name in CSV_FILES:
            if self.options.csv:
                runner.write_csv(d.path / f"{name}.parquet", d.path / f"{name}.csv")
            else:  # an earlier run's copies would disagree with these records
                (d.path / f"{name}.csv").unlink(missing_ok=True)
        d.write("scenario.toml", to_toml(scenario))
        for name, text in (files or {}).items():
            d.write(name, text)
        facts = dict(facts or {})
        if result.parts("kingmaking"):  # what the kingmaking test cost (``report.quality``)
            tested = pd.read_parquet(d.path / KINGMAKING_FILE,
                                   columns=["playouts", "cpu_seconds", "kingmade"])
            facts["kingmaking"] = {
                "samples": result.kingmaking,
                "out_of_contention": float(scenario.spec.flow.out_of_contention),
                "games": len(tested), "playouts": int(tested["playouts"].sum()),
                "cpu_seconds": float(tested["cpu_seconds"].sum())}
        run = {**self.run_facts(scenario, result).as_dict(), **facts,
               **({"study": study} if study is not None else {})}
        d.write("summary.json", dumps(Summary(RunFacts.of(run)), indent=None))
        d.saved = (f"the records of all {len(result.chunks)} chunks saved in {d.path}, the "
                   "report not yet written")
        full = not _NUMBERS_ONLY.get()
        try:
            written = report.render(d.path) if full else report.render(d.path, full=False)
        except ScenarioError as err:  # e.g. a question's unknown key: the games are kept
            lines = err.problems or [str(err)]
            saved = (f"the games are saved in {d.path}: fix the file and resume the run (no "
                     "game is played again)")
            raise ScenarioError.of([*lines, saved]) from None
        plan.record_report(scenario.spec.name, self.kind if full else plan.NUMBERS,
                           time.process_time() - begun, len(scenario.arms), result.rounds)
        return Results(d.path, written)


_NUMBERS_ONLY: contextvars.ContextVar[bool] = contextvars.ContextVar("analyzer_numbers_only",
                                                                     default=False)


def numbers_only() -> AbstractContextManager:
    """Within this block a run writes its records and only its report's numbers
    (``summary.json``, ``findings.parquet``: ``report.render(full=False)``), no chart, Markdown
    or HTML, and its cost is kept as ``plan.NUMBERS``'s. ``analyzer robustness`` plays its
    replicate and conditions so: it reads nothing else of them. ``analyzer report DIR``
    renders such a run in full."""
    return runner.within(_NUMBERS_ONLY, True)


@checked
def prepare(scenario: Scenario, kind: str = "simulate", *, games: int | None = None,
            seed: int | None = None, jobs: int | None = None, backend: str = "loky",
            scheduler: str | None = None, out: str | Path | None = None,
            chunk_size: int | None = None, resume: bool = False, force: bool = False,
            progress: bool = False, target_ci: float | None = None, csv: bool = False,
            naming: Mapping[str, Any] | None = None,
            sizes: Sequence[tuple] | None = None, rounds: bool = False,
            kingmaking_samples: int = 0) -> StudyRun:
    """Check a study before anything runs or is written: the ``games`` / ``seed`` overrides,
    the run options, the target precision and the run directory (``RunDir.choose``; default
    ``reports/`` + the study kind's ``default_out`` of the scenario name and ``naming``).

    ``sizes``: what the run options are checked for (``run_options``), each ``(games per
    arm, the option that set them, default chunk size)``; the first sets the options, the
    others are only checked (a tune's fresh-seed check). Default: the scenario's games.

    Raises
    ------
    OptionError
        A bad keyword argument; nothing is written.
    """
    if kind not in studies.STUDIES:
        raise OptionError("kind", f"unknown study kind {kind!r} (allowed: "
                                  f"{', '.join(studies.STUDIES)})")
    scenario = with_overrides(scenario, games=games, seed=seed)
    sizes = sizes or [(scenario.games, "games", runner.DEFAULT_CHUNK_SIZE)]
    options, *_ = [run_options(n, jobs=jobs, backend=backend, scheduler=scheduler,
                               chunk_size=chunk_size, progress=progress, csv=csv,
                               games_flag=flag, default_chunk=size, rounds=rounds,
                               kingmaking_samples=kingmaking_samples)
                  for n, flag, size in sizes]
    if target_ci is not None and not 0 < target_ci < 0.5:
        raise OptionError("target_ci", f"must be a half-width between 0 and 0.5 (got {target_ci})")
    default = Path("reports") / studies.STUDIES[kind].default_out.format(name=scenario.name,
                                                                        **(naming or {}))
    return StudyRun(scenario, kind, options,
                    RunDir.choose(out, default, identity(scenario.name, scenario.seed, kind),
                                  force=force, resume=resume), target_ci)


@checked
def simulate(path_or_scenario: str | Path | Scenario, *, games: int | None = None,
             seed: int | None = None, jobs: int | None = None, backend: str = "loky",
             scheduler: str | None = None, out: str | Path | None = None,
             chunk_size: int | None = None, resume: bool = False, force: bool = False,
             progress: bool = False, target_ci: studies.TargetCi = None,
             study: dict[str, Any] | None = None, csv: bool = False,
             rounds: studies.Rounds = False,
             kingmaking_samples: studies.KingmakingSamples = 0) -> Results:
    """Run a scenario: play, store the records, compute the statistics and write the report.

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
    games, seed : int, optional
        Override the scenario's ``games`` (``1..MAX_GAMES``) / root ``seed``.
    jobs : int, optional
        Worker processes (default: all cores).
    backend : {"loky", "sequential", "dask"}
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a dask.distributed scheduler (with ``backend="dask"``).
    out : str or Path, optional
        Run directory; default ``reports/<scenario name>`` (a study kind's own, see
        ``analyzer.studies``).
    chunk_size : int, optional
        Games per chunk (default ``runner.DEFAULT_CHUNK_SIZE``); never changes a record.
    resume : bool
        Keep the finished chunks of an interrupted run of the same scenario and seed.
    force : bool
        Replace the run in ``out`` even when it is another scenario's, seed's or study's
        (without it that is refused, so no study is lost by a mistyped ``out``).
    progress : bool
        Show progress on stderr: a bar on a terminal, else a line every
        ``runner.PROGRESS_EVERY`` seconds.
    target_ci : float, optional
        Stop adding chunks once every reported win-rate interval is within ``±target_ci``
        (a share, e.g. 0.01), or at ``games`` (``analyzer.precision``; a study kind's
        ``half_width`` sets which intervals).
    study : dict, optional
        Facts of a study command (``kind`` and what its report section needs), kept in
        ``summary.json["run"]["study"]``.
    csv : bool
        Also write the records as ``games.csv`` and ``seats.csv`` beside the Parquet files
        (``runner.write_csv``: same columns and rows, atomically). Without it, CSV files an
        earlier run left in ``out`` are removed, so they never disagree with the records.
    rounds : bool
        Also record every game's checkpoints after each round (``rounds.parquet``,
        ``model.flow``; a game that declares ``GameSpec.flow``) and report the ``quality:``
        findings from them. The games and seats records are the same either way.
    kingmaking_samples : int
        With ``rounds``: test every game for kingmaking (``quality:kingmaking``) with at
        most this many counterfactual games per game (``model.flow.kingmaking``), into
        ``kingmaking.parquet``; 0 (default): no test. The other records are the same.

    Returns
    -------
    Results

    Raises
    ------
    ScenarioError
        Invalid scenario; nothing is written.
    OptionError
        A bad keyword argument (a wrong type, ``target_ci`` outside (0, 0.5), an ``out`` that
        is a non-empty directory but no run directory, or another run's directory without
        ``force``); nothing is written. The run directory removed during the run.
    analyzer.errors.RunInterrupted
        Ctrl-C; what is finished is kept for ``resume``.
    """
    scenario = validate(path_or_scenario, rounds=rounds)
    run = prepare(scenario, (study or {}).get("kind", "simulate"), games=games, seed=seed,
                  jobs=jobs, backend=backend, scheduler=scheduler, out=out,
                  chunk_size=chunk_size, resume=resume, force=force, progress=progress,
                  target_ci=target_ci, csv=csv, rounds=rounds,
                  kingmaking_samples=kingmaking_samples).settle()
    with run.session():
        return run.play(study=study)


def _digest(arms: Sequence[runner.ArmPlan]) -> str:
    """A short hash of what ``arms`` play (names, rules, seats; a replay's index, so an arm
    of replay 0 hashes as before replays existed)."""
    return hashlib.sha256(json.dumps([astuple(a)[:5] if not a.replay else astuple(a)
                                      for a in arms]).encode()).hexdigest()[:16]


def only_base(scenario: Scenario) -> Scenario:
    """The scenario without its variants (a study that makes its own)."""
    return replace(scenario, arms=scenario.arms[:1])
