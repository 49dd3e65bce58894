"""The Python API; the CLI is a thin shell over it, so a notebook can do what a shell does.

>>> from analyzer.api import simulate
>>> res = simulate("scenarios/africanus-sultan.toml", games=200, jobs=1)   # doctest: +SKIP
>>> res.seats.groupby("variant")["score"].mean()                           # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer import __version__, report, runner, tablediff
from analyzer.errors import OptionError, RuleError, ScenarioError
from analyzer.files import atomic_write
from analyzer.games import available_games, get_game
from analyzer.games.base import build_policy, policy_doc, policy_params
from analyzer.games.content import catalogue_rows as content_catalogue
from analyzer.scenario import BASE, Scenario, load_scenario, to_toml, with_overrides

__all__ = [
    "Results",
    "catalogue",
    "render_report",
    "replay",
    "replay_scenario",
    "simulate",
    "validate",
]


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
    _games: pd.DataFrame | None = field(default=None, repr=False)
    _seats: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def games(self) -> pd.DataFrame:
        if self._games is None:
            self._games = pd.read_parquet(self.out_dir / "games.parquet")
        return self._games

    @property
    def seats(self) -> pd.DataFrame:
        if self._seats is None:
            self._seats = pd.read_parquet(self.out_dir / "seats.parquet")
        return self._seats


def validate(path_or_scenario: str | Path | Scenario) -> Scenario:
    """Load and validate a scenario (a path, or an already built ``Scenario``).

    Raises
    ------
    ScenarioError
        The one-line description of the first problem found.
    """
    if isinstance(path_or_scenario, Scenario):
        return path_or_scenario
    return load_scenario(path_or_scenario)


def _defaults_in_use(scenario: Scenario) -> dict[str, list[dict[str, Any]]]:
    """Per arm, the rule values whose provenance is ``default`` (for the report header)."""
    spec = scenario.spec
    out = {}
    for arm in scenario.arms:
        config = spec.make_config(scenario.arm_players(arm), scenario.expansions, arm.rules)
        out[arm.name] = [
            {"name": rv.name, "section": rv.section,
             "value": rv.value if isinstance(rv.value, (int, float, str, bool)) else str(rv.value)}
            for rv in spec.rule_values(config) if rv.provenance == "default"
        ]
    return out


def out_dir_for(out: str | Path | None, default: Path) -> Path:
    """The run directory: ``out`` or ``default``; an empty ``out`` is refused."""
    if out is None:
        return default
    if not str(out).strip():
        raise OptionError("out", "empty path (give a directory, e.g. {out})", out="reports/run1")
    return Path(out)


CSV_FILES = ("games", "seats")  # record tables written as <name>.csv with csv=True

_KIND_WORDS = {"simulate": "run", "sweep": "sweep", "ablate": "ablation", "compare": "comparison",
               "tournament": "tournament", "tune": "tuning"}


def run_identity(scenario: Scenario, kind: str = "simulate", seed: int | None = None) -> dict:
    """What names a run in its directory: scenario ``name``, root ``seed`` and study ``kind``
    (``simulate``, ``sweep``, ``ablate``, ``compare``); stored in ``chunks/fingerprint.json``."""
    return {"name": scenario.name, "seed": scenario.seed if seed is None else seed, "kind": kind}


def _stored_identity(out: Path) -> dict | None:
    """``run_identity`` of the run in ``out`` (its fingerprint, else its ``summary.json`` for a
    directory of an older version); ``None`` when neither says."""
    try:
        stored = json.loads((out / "chunks" / "fingerprint.json").read_text())
        if "name" not in stored:
            run = json.loads((out / "summary.json").read_text())["run"]
            stored = {"name": run["name"], "seed": run["seed"],
                      "kind": (run.get("study") or {}).get("kind", "simulate")}
        return {"name": stored["name"], "seed": stored["seed"],
                "kind": stored.get("kind", "simulate")}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _describe(run: dict) -> str:
    return f"{_KIND_WORDS.get(run['kind'], run['kind'])} of {run['name']!r} (seed {run['seed']})"


def check_out_dir(out: Path, run: dict | None = None, *, force: bool = False,
                  resume: bool = False) -> None:
    """Refuse an ``out`` that would lose or mix another study's files; nothing is written.

    Refused: a file; a non-empty directory that is not a run directory; a run directory
    (``chunks/fingerprint.json``) of another run than ``run`` (``run_identity``: a different
    scenario name, seed or study kind) unless ``force`` or ``resume`` (``runner`` checks a
    resume). A run directory of the same run may be run into again: without ``resume`` its
    chunks are replaced, with it they are kept.

    Raises
    ------
    OptionError
        Names the directory, the run it holds and the run asked for.
    """
    if out.exists() and not out.is_dir():
        raise OptionError("out", f"cannot create {out} (it is a file; give a new or empty "
                                 "directory, or a run directory)")
    if out.is_dir() and not (out / "chunks" / "fingerprint.json").exists():
        try:
            busy = any(out.iterdir())
        except OSError as err:
            raise OptionError("out", f"cannot read {out} ({err.strerror})") from None
        if busy:
            raise OptionError("out", f"{out} is a non-empty directory that is not a run "
                                     "directory (allowed: a new or empty directory, or the "
                                     "directory of an earlier run, with {resume} to keep its "
                                     "chunks)", resume=True)
    elif out.is_dir() and run is not None and not (force or resume):
        stored = _stored_identity(out)
        if stored is not None and stored != run:
            raise OptionError("out", f"{out} holds the {_describe(stored)}, not the "
                                     f"{_describe(run)}; give another {{out}}, or {{force}} to "
                                     "replace it", out=None, force=True)


def _prepare_out(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OptionError("out", f"cannot create {out} ({err.strerror})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise OptionError("out", f"{out} is not writable")


def simulate(path_or_scenario: str | Path | Scenario, *, games: int | None = None,
             seed: int | None = None, jobs: int | None = None, backend: str = "loky",
             scheduler: str | None = None, out: str | Path | None = None,
             chunk_size: int | None = None, resume: bool = False, force: bool = False,
             progress: bool = False, target_ci: float | None = None,
             study: dict[str, Any] | None = None, out_checked: bool = False,
             csv: bool = False) -> Results:
    """Run a scenario: play, store the records, compute the statistics and write the report.

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
    games, seed : int, optional
        Override the scenario's ``games`` (``>= 1``) / root ``seed``.
    jobs : int, optional
        Worker processes (default: all cores).
    backend : {"loky", "sequential", "dask"}
    scheduler : str, optional
        ``tcp://HOST:PORT`` of a dask.distributed scheduler (with ``backend="dask"``).
    out : str or Path, optional
        Run directory; default ``reports/<scenario name>``.
    chunk_size : int, optional
        Games per chunk (default ``runner.DEFAULT_CHUNK_SIZE``); never changes a record.
    resume : bool
        Keep the finished chunks of an interrupted run of the same scenario and seed.
    force : bool
        Replace the run in ``out`` even when it is another scenario's, seed's or study's
        (without it that is refused, so no study is lost by a mistyped ``out``).
    progress : bool
        Show a progress bar on stderr when it is a terminal.
    target_ci : float, optional
        Stop adding chunks once every reported win-rate interval is within ``±target_ci``
        (a share, e.g. 0.01), or at ``games`` (``analyzer.precision``; a study kind in
        ``precision.HALF_WIDTHS`` sets which intervals).
    study : dict, optional
        Facts of a study command (``sweep``, ``ablate``) kept in ``summary.json["run"]["study"]``
        for its report section.
    out_checked : bool
        The caller already ran ``check_out_dir`` (``ablate`` writes its tables there first).
    csv : bool
        Also write the records as ``games.csv`` and ``seats.csv`` beside the Parquet files
        (``runner.write_csv``: same columns and rows, atomically). Without it, CSV files an
        earlier run left in ``out`` are removed, so they never disagree with the records.

    Returns
    -------
    Results

    Raises
    ------
    ScenarioError
        Invalid scenario; nothing is written.
    OptionError
        A bad keyword argument: ``target_ci`` outside (0, 0.5), an ``out`` that is a
        non-empty directory but no run directory, or another run's directory without
        ``force`` (``check_out_dir``); nothing is written.
    analyzer.runner.RunInterrupted
        Ctrl-C; the finished chunks are kept for ``resume``.
    """
    scenario = with_overrides(validate(path_or_scenario), games=games, seed=seed)
    max_games = scenario.games
    chunk_size = runner.DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size
    jobs = runner.check_options(jobs, chunk_size, backend, scheduler, scenario.games)
    if target_ci is not None and not 0 < target_ci < 0.5:
        raise OptionError("target_ci", f"must be a half-width between 0 and 0.5 (got {target_ci})")
    out_dir = out_dir_for(out, Path("reports") / scenario.name)
    identity = run_identity(scenario, (study or {}).get("kind", "simulate"))
    if not out_checked:
        check_out_dir(out_dir, identity, force=force, resume=resume)
    spec = scenario.spec
    defaults = _defaults_in_use(scenario)
    # what each user data table changes, read now: the report is re-rendered from the run facts
    tables = tablediff.run_facts(spec.tables, [(a.name, a.rules) for a in scenario.arms])
    created = not out_dir.exists()
    _prepare_out(out_dir)
    try:
        result, precision = _play(scenario, spec, out_dir, target_ci, identity,
                                  chunk_size=chunk_size, jobs=jobs, resume=resume,
                                  backend=backend, scheduler=scheduler, progress=progress)
    except ScenarioError:  # refused before any game (e.g. no --scheduler): leave nothing
        if created:
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    if precision is not None:
        scenario = with_overrides(scenario, games=precision.games)
    runner.aggregate(result.parts("games"), out_dir / "games.parquet")
    runner.aggregate(result.parts("seats"), out_dir / "seats.parquet")
    for name in CSV_FILES:
        if csv:
            runner.write_csv(out_dir / f"{name}.parquet", out_dir / f"{name}.csv")
        else:
            (out_dir / f"{name}.csv").unlink(missing_ok=True)
    atomic_write(out_dir / "scenario.toml", to_toml(scenario))
    played = result.games_played * len(scenario.arms)
    run_facts = {
        "name": scenario.name, "description": scenario.description,
        "scenario_file": scenario.file, "game": scenario.game,
        "expansions": list(scenario.expansions), "players": scenario.players,
        "games": scenario.games, "seed": scenario.seed, "seat_rotation": scenario.seat_rotation,
        "arms": [{"name": a.name, "description": a.description, "rules": dict(a.rules),
                  "seats": [s.name for s in a.seats], "players": scenario.arm_players(a)}
                 for a in scenario.arms],
        "defaults": defaults, "tables": tables, "version": __version__, "jobs": jobs,
        "backend": backend, "chunk_size": chunk_size, "chunks_resumed": result.resumed,
        "games_played": played, "seconds": result.seconds,
        "games_per_second": played / result.seconds if result.seconds > 0 and played else None,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    if precision is not None:
        run_facts["target_ci"] = {"target": precision.target, "games": precision.games,
                                  "half_width": precision.half_width,
                                  "reached": precision.reached, "steps": list(precision.steps),
                                  "max_games": max_games}
    if study is not None:
        run_facts["study"] = study
    atomic_write(out_dir / "summary.json", json.dumps({"run": run_facts}, default=str))
    summary = report.render(out_dir)
    return Results(out_dir, summary)


def _play(scenario: Scenario, spec, out_dir: Path, target_ci: float | None, identity: dict,
          **options):
    """Play the run's chunks (to ``target_ci`` if given); ``(RunResult, Precision or None)``."""
    fingerprint = {"scenario": scenario.fingerprint(), "seed": scenario.seed,
                   "version": __version__, "name": identity["name"], "kind": identity["kind"]}
    if target_ci is not None:
        from analyzer.precision import HALF_WIDTHS, max_half_width, run_to_target

        return run_to_target(spec, runner.plan_arms(scenario), scenario.seed, scenario.games,
                             out_dir / "chunks", target_ci, rotate=scenario.seat_rotation,
                             fingerprint=fingerprint,
                             half_width=HALF_WIDTHS.get(identity["kind"], max_half_width),
                             **options)
    return runner.run(spec, runner.plan_arms(scenario), scenario.seed, scenario.games,
                      out_dir / "chunks", rotate=scenario.seat_rotation, fingerprint=fingerprint,
                      **options), None


def render_report(run_dir: str | Path) -> Path:
    """Re-render the report of a run directory from its Parquet files; returns ``report.html``."""
    report.render(run_dir)
    return Path(run_dir) / "report.html"


def replay_scenario(path_or_scenario: str | Path | Scenario, index: int, variant: str = BASE,
                    log: Callable[[str], None] = print) -> tuple[dict, list[dict]]:
    """Replay game ``index`` of a scenario's arm ``variant`` with a readable log.

    Same seed, seat rotation and policies as in ``simulate``, so the log explains that game's
    records.

    Raises
    ------
    ScenarioError
        Bad scenario, ``index`` outside ``0..games-1`` or unknown variant.
    """
    scenario = validate(path_or_scenario)
    if not 0 <= index < scenario.games:
        raise OptionError("index", f"{index} is outside 0..{scenario.games - 1}")
    names = [a.name for a in scenario.arms]
    if variant not in names:
        raise OptionError("variant", f"unknown variant {variant!r} (allowed: {', '.join(names)})")
    arm = runner.plan_arms(scenario)[names.index(variant)]
    spec = scenario.spec
    config, policies, _ = runner._arm_setup(spec, arm)
    r = runner.rotation(index, len(policies), scenario.seat_rotation)
    return spec.play_game(config, policies[r:] + policies[:r], runner.game_seed(scenario.seed, index),
                          log=log)


def replay(game: str, players: int, expansions: Sequence[str] = (), seed: int = 0,
           policy: str | None = None, rules: dict[str, Any] | None = None,
           log: Callable[[str], None] = print) -> tuple[dict, list[dict]]:
    """Play one game with ``policy`` at every seat and integer ``seed``, logging every step.

    Raises
    ------
    ScenarioError
        Unknown game, expansion, policy; player count out of range; bad rules.
    """
    try:
        spec = get_game(game)
        if policy is None:
            policy = "greedy" if "greedy" in spec.policies else min(spec.policies)
        config = spec.make_config(players, tuple(expansions), dict(rules or {}))
        policies = [build_policy(spec.policies, policy, {}) for _ in range(players)]
    except RuleError as err:  # name the keyword argument at fault
        keyword = {"players": "players", "expansions": "expansions", "policy": "policy"}
        if err.field in keyword:
            raise OptionError(keyword[err.field], err.message) from None
        raise OptionError("rules", str(err)) from None
    if seed < 0:
        raise OptionError("seed", f"must be at least 0 (got {seed})")
    return spec.play_game(config, policies, seed, log=log)


def catalogue(kind: str, game: str | None = None) -> list[dict[str, Any]]:
    """What a scenario can name: ``games``, ``policies`` (with typed parameters), ``rules``
    (rule options) or a content kind such as ``cards``.

    Returns
    -------
    list of dict
        One row per item: ``games`` → ``game, players, expansions``; ``policies`` → ``game,
        policy, params`` (list of ``(name, type, default, bounds, help)``); ``rules`` → ``game, option,
        help``; ``content`` → ``game, table, option, section, known, varies`` (each guessed
        content table, ``analyzer.games.content.catalogue_rows``); content kinds → ``game, name`` and, where the game groups that kind
        (``GameSpec.content_groups``, e.g. buildings by class), the group.

    Raises
    ------
    OptionError
        Unknown game; a kind no game has, or a content kind of another game than ``game``
        (names the game it belongs to).
    """
    try:
        names = [game] if game else available_games()
        specs = [get_game(n) for n in names]
    except RuleError as err:
        raise OptionError("game", err.message) from None
    kinds = {"games", "policies", "rules", "content"} | {k for s in specs for k in s.content}
    if kind not in kinds:
        owners = [n for n in available_games() if kind in get_game(n).content]
        if game and owners:
            raise OptionError("game", f"{kind!r} is a list of {' and '.join(owners)}, not of "
                                      f"{game}; list it with {{game}}", game=owners[0])
        raise OptionError("kind", f"unknown kind {kind!r} (allowed: {', '.join(sorted(kinds))})")
    rows: list[dict[str, Any]] = []
    for spec in specs:
        if kind == "games":
            rows.append({"game": spec.name, "players": f"{spec.min_players}-{spec.max_players}",
                         "expansions": ", ".join(spec.expansions) or "none"})
        elif kind == "policies":
            for name, cls in sorted(spec.policies.items()):
                rows.append({"game": spec.name, "policy": name, "params": policy_params(cls),
                             "doc": policy_doc(cls)})
        elif kind == "rules":
            rows += [{"game": spec.name, "option": name, "help": spec.options.describe(name)}
                     for name in spec.options.names()]
        elif kind == "content":  # the guessed content tables and their priors
            rows += content_catalogue(spec)
        else:
            label, groups = spec.content_groups.get(kind, ("", {}))
            for n in spec.content.get(kind, ()):
                rows.append({"game": spec.name, "name": n, **({label: groups[n]} if label else {})})
    return rows
