"""``analyzer balance SCENARIO --finding KEY --vary PATH=LO..HI``: the rule or content value
that brings a finding to a target, checked on fresh seeds (the README's "Balance" section is
the user's guide; this says how).

**What is balanced.** ``KEY`` is a key finding or measured figure of the scenario's run
(``analyzer.report.finding_keys``), brought to ``target`` (default its no-effect value), or with
``equalize`` several made equal; ``item:NAME`` is an item's value from ``analyzer ablate``
(``Study``). A probe of the scenario as it is (``PROBE_GAMES`` games, in a temporary folder)
checks the keys and finds whether the base arm alone gives the finding (the search then plays
that arm alone). The knobs are ``analyzer.study.knobs``'s.

**The search.** Integer knobs of at most ``SCAN_MAX`` settings in all are scanned, every
setting on the same ``budget // settings`` seeds, the setting taken the one of least
``objective`` (one knob: on the LOWESS smooth, ``smooth_gaps``). Otherwise CMA-ES
(``search.cma_es``, the knobs scaled to ``[0, 1]``, started at the scenario's values) minimises
``objective``: the squared distance to the goal plus a tie-break toward the scenario's values
worth one standard error per range. Every candidate of a round plays the same seeds, round
``g`` from ``derived_seed(seed, 1, g + 1)``; the value taken is the search distribution's final
mean (integer knobs: ``settle``). Each setting is evaluated by the report's own code
(``findings_of``), so the number searched on is the number a report prints.

**The check.** The value found and the scenario as it is play ``validation_games`` fresh games
on the same seeds (``check_seed``: from the whole balance identity, so two balances are checked
on different games), with all the study's arms: each finding with its 95 % interval, and their
paired differences with a delete-a-group jackknife interval (``GROUPS`` blocks of consecutive
games, ``t(GROUPS − 1)``; Kott, "The delete-a-group jackknife", J. Official Statistics 17,
2001), which serves any finding that is a smooth function of per-game means. With
``robustness`` every rung of the player ladder plays the value found on the check's seeds
(``ladder``). The verdicts come from the check's games only (``verdicts``, issue #35), never
from the search's estimates (winner's curse). ``--race`` and ``--over``: ``analyzer.study.race``
and ``analyzer.study.over``.

**Files** in the run directory: ``balanced.toml`` (the scenario at the value found, with the
check's seed and size, so that its run reproduces the checked estimate), each changed table
beside it as ``TABLE.toml``, ``search.parquet`` (every setting evaluated), ``games.parquet`` /
``seats.parquet`` (the check: arms ``original``/``balanced``, ``:ARM`` for a variant),
``scenario.toml``, ``summary.json``, the report, and ``search/round-NNNN/sKK/`` (one folder per
setting; a race: ``search/race/sKK/``), ``chunks/``, ``ladder/`` (for ``resume``).
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import json
import math
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
import typer
from scipy import stats as sps

from analyzer import __version__, report, runner, stats
from analyzer import plan as planning
from analyzer.errors import OptionError, RunStopped
from analyzer.keywords import checked
from analyzer.report import finding_keys, quality
from analyzer.report.answers import within
from analyzer.report.document import BASE, Numbers
from analyzer.report.findings import PER_GAME, missing, value_unit
from analyzer.scenario import MAX_GAMES, Scenario, to_toml, with_overrides
from analyzer.studies import ScenarioFile, StudyKind
from analyzer.study import knobs, questions
from analyzer.study import over as overs
from analyzer.study import race as racing
from analyzer.study.ablate import expand as ablation
from analyzer.study.robustness import SEARCH_GAMES, player_conditions, verdict
from analyzer.study.robustness import ladder_tokens as robustness_ladder
from analyzer.study.run import Results, StudyRun, prepare, validate
from analyzer.study.search import (
    SEARCH_STREAM,
    SIGMA0,
    cma_es,
    cma_version,
    derived_seed,
    identity_seed,
)
from analyzer.study.sensitivity import top_vary

DEFAULT_GAMES = 200  # games per candidate per round
DEFAULT_BUDGET = 6000  # games of the whole search
DEFAULT_VALIDATION = 2000  # games of the fresh-seed check, per arm and setting
PROBE_GAMES = 100  # games of the probe that checks the keys (in a temporary folder)
SCAN_MAX = 64  # integer knobs of at most this many settings in all are scanned, not searched
GROUPS = 20  # blocks of games of the delete-a-group jackknife
LOWESS_MIN, LOWESS_FRAC = 5, 0.6  # a scan of at least 5 values is smoothed (``smooth_gaps``)
ROUNDS_CAP = 1000
CHECK_STREAM, PROBE_STREAM = 2, 3  # spawn keys of the root seeds (``search.SEARCH_STREAM``: 1)
ORIGINAL, BALANCED = "original", "balanced"  # the check's two settings (variant names)
ALPHA_TOST = 0.05  # each one-sided test of ``--tolerance`` (a 90 % interval inside the band)
ITEM = "item:"  # the keys of an ablation's item values (``analyzer.report.findings``)


# ------------------------------------------------------------------ what one setting plays


@dataclass(frozen=True)
class Study:
    """The run a finding comes from: ``kind`` ``"simulate"`` (the scenario's arms; ``arms``:
    the ones kept, ``None`` all) or ``"ablate"`` (the base and the leave-one-out arm of each of
    ``items``)."""

    kind: str
    arms: tuple[str, ...] | None = None
    items: tuple[str, ...] = ()

    def of(self, scenario: Scenario, folder: Path) -> tuple[Scenario, dict[str, Any]]:
        """The scenario of this study at one setting and its study facts
        (``summary.json["run"]["study"]``). An ablation's generated tables go to ``folder``.

        Raises
        ------
        ScenarioError
            ``analyzer.study.ablate.expand``: the game has no ablations, nothing to ablate.
        """
        if self.kind == "ablate":
            expanded, rows = ablation(replace(scenario, arms=scenario.arms[:1]), folder)
            rows = [r for r in rows if r["item"] in self.items]
            keep = {BASE} | {r["variant"] for r in rows}
            sc = replace(expanded, arms=tuple(a for a in expanded.arms if a.name in keep))
            return sc, {"kind": "ablate", "items": rows, "correction": "holm",
                        "seats": [s.name for s in sc.arms[0].seats], "dropped_variants": []}
        if self.arms is not None:
            scenario = replace(scenario, arms=tuple(a for a in scenario.arms
                                                    if a.name in self.arms))
        return scenario, {"kind": "simulate"}


Records = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]  # games, seats, rounds


def findings_of(scenario: Scenario, facts: Mapping[str, Any], records: Records,
                chart_dir: Path, per_game: dict[str, pd.Series] | None = None
                ) -> dict[str, dict[str, Any]]:
    """The key findings of one setting's records, by key: what ``analyzer report`` of them would
    put in ``summary.json`` (``analyzer.report.build`` without charts).

    Parameters
    ----------
    scenario : Scenario
        The setting's study scenario (its arms are the records' variants).
    facts : mapping
        Its study facts (``Study.of``).
    records : (DataFrame, DataFrame, DataFrame or None)
        Its games and seats records (``variant`` = arm names) and its checkpoints after every
        round (``_records``; recorded when a ``quality:`` key is balanced or kept: the
        ``quality:`` findings).
    chart_dir : Path
        A scratch folder (nothing is meant to be written there).
    per_game : dict, optional
        Filled with each finding's own per-game values (``game_id`` -> value, the report's
        ``findings.parquet``, written into ``chart_dir``) for those that have them: the race
        pairs settings game by game with them.
    """
    games, seats, rounds = records
    run = {"name": scenario.name, "game": scenario.game,
           "expansions": list(scenario.expansions), "players": scenario.players,
           "games": int(games["game_id"].nunique()), "seed": scenario.seed,
           "seat_rotation": scenario.seat_rotation, "study": dict(facts),
           "arms": [{"name": a.name, "rules": dict(a.rules), "seats": [s.name for s in a.seats],
                     "players": scenario.arm_players(a)} for a in scenario.arms]}
    begun = time.process_time()  # a setting's findings: priced by the plan (``FINDINGS``)
    if per_game is not None:
        chart_dir.mkdir(parents=True, exist_ok=True)
    results = report.build(Numbers(chart_dir), run, games, seats, rounds=rounds,
                           **({} if per_game is None else {"run_dir": chart_dir}))
    if per_game is not None:
        try:
            table = pd.read_parquet(chart_dir / PER_GAME)
        except (OSError, ValueError):  # no findings section: no per-game values
            table = pd.DataFrame(columns=["key", "item", "game_id", "value"])
        for key, grp in table[table["item"] == ""].groupby("key", sort=False):
            per_game[str(key)] = grp.set_index("game_id")["value"].sort_index()
    FINDINGS[0] += time.process_time() - begun
    FINDINGS[1] += 1
    return {str(r["key"]): r for r in finding_keys.of_summary({"run": run, "results": results})}


FINDINGS = [0.0, 0]  # CPU seconds and calls of ``findings_of`` in this process (the plan's
# fixed cost of a setting: ``plan.record_report(game, "balance-setting", ...)``)


@contextmanager
def _quick_gc() -> Iterator[None]:
    """Freeze the objects alive now out of the garbage collector's sweeps while settings are
    evaluated: ``statsmodels``' ``multipletests`` (Benjamini–Hochberg, ``stats.adjust_pvalues``)
    calls ``gc.collect()`` on every call, a tenth of a second each with a loaded scientific
    stack. Frozen objects are only skipped, never freed early."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _play(run: StudyRun, settings: Sequence[Scenario], labels: Sequence[str], root: int,
          games: int, folder: Path, **how: Any) -> tuple[runner.RunResult, list[Records]]:
    """Play every arm of every setting on the same ``games`` seeds of ``root`` into ``folder``
    (``StudyRun.play_arms``, with ``how``); the variant of setting ``k``'s arm is ``labels[k]``
    for its base and ``labels[k]:ARM`` for a variant. Returns the run and each setting's
    records (``_records``)."""
    plans, names = [], {}
    for k, (sc, label) in enumerate(zip(settings, labels)):
        for p in runner.plan_arms(sc):
            name = label if p.name == BASE else f"{label}:{p.name}"
            names[name] = (k, p.name)
            plans.append(replace(p, name=name))
    result = run.play_arms(plans, root, games, folder, scenario=settings[0], **how)
    return result, _records(result, names, len(settings))


def _records(result: runner.RunResult, names: Mapping[str, tuple[int, str]], n: int
             ) -> list[Records]:
    """Per setting ``0..n-1``: its games and seats records and its checkpoints after every
    round (``None``: the run recorded none, ``RunOptions.rounds``), variants named by arm
    again."""
    kinds = ("games", "seats", "rounds") if result.parts("rounds") else ("games", "seats")
    tables = [pd.concat([pd.read_parquet(p) for p in result.parts(kind)], ignore_index=True)
              .astype({"variant": str}) for kind in kinds]
    out = []
    for k in range(n):
        mine = {v: arm for v, (j, arm) in names.items() if j == k}
        parts = [t[t["variant"].isin(list(mine))].reset_index(drop=True) for t in tables]
        parts = [t.assign(variant=t["variant"].map(mine)) for t in parts]
        out.append((parts[0], parts[1], parts[2] if len(parts) > 2 else None))
    return out


def _subset(records: Records, scenario: Scenario, drop: tuple[int, int] | None = None
            ) -> Records:
    """``records`` of ``scenario``'s arms only, without the games ``drop[0] .. drop[1] - 1``."""
    keep, frames = {a.name for a in scenario.arms}, []
    for frame in records:
        if frame is not None:
            mask = frame["variant"].isin(keep)
            if drop is not None:
                mask &= ~frame["game_id"].between(drop[0], drop[1] - 1)
            frame = frame[mask].reset_index(drop=True)
        frames.append(frame)
    return frames[0], frames[1], frames[2]


# ------------------------------------------------------------------ the plan


@dataclass(frozen=True)
class Plan:
    """What a balance plays (``plan``), checked before anything is written."""

    scenario: Scenario  # the scenario as given (seed applied), every arm
    knobs: tuple[knobs.Knob, ...]
    keys: tuple[str, ...]  # the finding, or the findings to make equal
    equalize: bool
    target: float | None  # in the finding's own scale; None: its no-effect value
    study: Study  # what the search plays of each setting
    full: Study  # what the check plays (every arm of the scenario or the ablation's)
    method: str  # "scan" or "cma"
    values: tuple[tuple[int, ...], ...]  # the scan's settings
    popsize: int
    games: int  # per candidate per round (a scan: per setting)
    rounds: int
    validation_games: int
    budget: int
    probe: dict[str, dict[str, Any]]  # the probe's record of each key
    tolerance: float | None = None  # ``--tolerance``, in the finding's own scale
    keep: tuple[tuple[str, float, float], ...] = ()  # ``--keep KEY=LO..HI``, own scale
    over: overs.Over | None = None  # ``--over``: the objective over rungs and draws
    cells: tuple[overs.Cell, ...] = ()  # its rung x content cells (``over.cells``)
    ladder: tuple[str, ...] | None = None  # ``--ladder`` (``None``: the default ladder)
    race: bool = False  # ``--race``: the scan's settings raced (``analyzer.study.race``)

    @property
    def record(self) -> dict[str, Any]:
        """The probe's record of the first key (its unit and scale)."""
        return self.probe[self.keys[0]]


def _keys(finding: str | None, equalize: str | Sequence[str] | None) -> tuple[list[str], bool]:
    if (finding is None) == (equalize is None):
        raise OptionError("finding", "give one of {finding} KEY (bring it to a target) or "
                                     "{equalize} KEY,KEY,… (make them equal)", finding=None,
                          equalize=None)
    if finding is not None:
        return [finding.strip()], False
    keys = [k.strip() for k in (equalize.split(",") if isinstance(equalize, str) else equalize)]
    if len(keys) < 2 or any(not k for k in keys) or len(set(keys)) != len(keys):
        raise OptionError("equalize", f"give two or more different keys, comma-separated (got "
                                      f"{equalize!r})")
    return keys, True


def _probe(scenario: Scenario, keys: list[str], run: StudyRun, *, option: str,
           say: Callable[[str], None], kept: Sequence[str] = ()
           ) -> tuple[Study, Study, dict[str, dict[str, Any]]]:
    """Play the scenario as it is on ``PROBE_GAMES`` games in a temporary folder and look the
    keys up (and the ``kept`` keys of ``--keep``); returns the study the search plays, the
    study the check plays and each key's record."""
    items = [k[len(ITEM):] for k in keys if k.startswith(ITEM)]
    if items and len(items) != len(keys):
        raise OptionError(option, "an item's value (item:NAME, from an ablation) and a finding "
                                  "of the scenario's own run cannot be balanced together")
    games = min(PROBE_GAMES, scenario.games)
    root = derived_seed(scenario.seed, PROBE_STREAM)
    with tempfile.TemporaryDirectory(prefix="analyzer-probe-") as tmp:
        folder = Path(tmp)
        if items:
            full = Study("ablate", items=tuple(items))
            _, rows = ablation(replace(scenario, arms=scenario.arms[:1]), folder / "ablate")
            known = [f"{ITEM}{r['item']}" for r in rows]
            for k in keys:
                finding_keys.lookup([{"key": x} for x in known], k, option=option,
                                    where=f"an ablation of {scenario.name}")
        else:
            full = Study("simulate")
            for k, opt in [*((k, option) for k in keys), *((k, "keep") for k in kept)]:
                # a key the run will not make is refused before the probe plays (the plan)
                # (rounds None: a quality: key makes the balance record its rounds)
                why = questions.key_problem(scenario, k, "simulate", rounds=None,
                                            asked_by="balance", close_only=True)
                if why:
                    raise OptionError(opt, f"unknown finding key {k!r} in the run of "
                                           f"{scenario.name}: {why}; analyzer findings "
                                           f"{scenario.file} lists every key it makes")
        sc, facts = full.of(scenario, folder / "ablate")
        say(f"probe: {len(sc.arms)} arm(s) x {games} games of {scenario.name} as it is, to "
            "check the finding keys")
        size = max(1, -(-runner.DEFAULT_CHUNK_SIZE // len(sc.arms)))
        _, (rec,) = _play(run, [sc], ["probe"], root, games, folder / "chunks",
                          chunk_size=size, resume=False)
        records = list(findings_of(sc, facts, rec, folder).values())
        patterns = report.extension.key_patterns(scenario.spec)
        chosen: dict[str, dict[str, Any]] = {}
        for k, opt in [*((k, option) for k in keys), *((k, "keep") for k in kept)]:
            chosen[k] = chosen.get(k) or dict(finding_keys.lookup(
                records, k, option=opt, patterns=patterns, where=f"the run of {scenario.name}"))
        study, alone = full, Study("simulate", (BASE,))
        if (not items and len(sc.arms) > 1  # does the finding need the other arms?
                and _alone(alone.of(scenario, folder), rec, chosen, list(chosen), folder)):
            study = alone
    return study, full, chosen


def _alone(setting: tuple[Scenario, dict], records: Records,
           found: Mapping[str, Mapping[str, Any]], keys: Sequence[str], folder: Path) -> bool:
    """Whether the findings ``keys`` of ``setting``'s arms alone (``_subset`` of ``records``)
    are ``found``'s: the same estimate, interval and no-effect value."""
    only = findings_of(*setting, _subset(records, setting[0]), folder)
    return all(k in only and all(only[k].get(f) == found[k].get(f)
                                 or (missing(only[k].get(f)) and missing(found[k].get(f)))
                                 for f in ("estimate", "lo", "hi", "null")) for k in keys)


def plan(scenario: Scenario, run: StudyRun, *, finding: str | None,
         equalize: str | Sequence[str] | None, target: float | None,
         vary: Sequence[str], budget: int, games: int | None, popsize: int | None,
         validation_games: int, say: Callable[[str], None], tolerance: float | None = None,
         keep: Sequence[str] = (), over: str | None = None, over_quantile: float | None = None,
         ladder: str | Sequence[str] | None = None, search_games: int = SEARCH_GAMES,
         race: bool = False) -> Plan:
    """Check every option of a balance, probe the keys and split the budget.

    Before the search starts, ``say`` echoes the target with its unit (``"target: 0.10 % of
    games"``), so that a target given in the wrong scale (0.10 for 10 %) is seen; and, for a
    scan given ``games``, that a scan does not use it (it plays ``budget // settings`` per
    setting).

    With ``over`` (``analyzer.study.over``) the search's objective is the worst case (or
    ``over_quantile``) over the rung x content cells, and ``tolerance`` is required (the range
    of values is those within ±D in every cell).

    Raises
    ------
    OptionError
        A bad key (with the allowed ones), knob (``analyzer.study.knobs.knob``), target, size or
        budget; a bad ``over`` (an unknown part, ``K`` < 1, no ladder player or guessed table
        to vary), or ``over`` without ``tolerance``; ``race`` with ``over`` or where the knobs
        are searched by CMA-ES, not scanned; nothing is written.
    """
    keys, equal = _keys(finding, equalize)
    robust = overs.parse_over(over, over_quantile)
    rungs = robustness_ladder("ladder", ladder)
    if rungs is not None and (robust is None or not robust.players):
        raise OptionError("ladder", "only with {over} players (the rungs the value must hold "
                                    "for)", over=None)
    if robust is not None and tolerance is None:
        raise OptionError("over", "needs {tolerance} D (in the finding's unit): the range it "
                                  "reports is the values whose fresh-seed check is within ±D "
                                  "for every player and draw", tolerance=None)
    bands = [parse_keep(text) for text in keep]
    option = "equalize" if equal else "finding"
    asked_games, games = games, DEFAULT_GAMES if games is None else games
    if equal and target is not None:
        raise OptionError("target", "not with {equalize}: the findings are made equal",
                          equalize=None)
    if target is not None and not math.isfinite(target):
        # nan is unequal to itself: the run's identity could never match its own chunks.
        raise OptionError("target", f"must be a finite number (got {target})")
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance > 0):
        raise OptionError("tolerance", f"must be a positive finite number, in the finding's "
                                       f"unit (got {tolerance})")
    vary = [v for text in vary  # top:K: the K knobs of a sensitivity run, named
            for v in (top_vary(scenario, text, keys, say) or [text])]
    if not vary:
        raise OptionError("vary", "give at least one PATH=LO..HI")
    found = [knobs.knob(scenario, v) for v in vary]
    if len({k.path for k in found}) != len(found):
        raise OptionError("vary", "the same PATH is given twice")
    grid_cells: list[overs.Cell] = []
    if robust is not None:  # before the probe: a bad --over plays nothing
        grid_cells = overs.cells(scenario, robust, rungs, max(budget, validation_games),
                                 search_games, run.dir.path / overs.TABLES,
                                 [k.option for k in found if k.table])
        say(f"over {robust.text}: {len(grid_cells)} cells (players x content), the objective "
            f"{robust.objective} of their distances from the goal, all on the same seeds")
    for name, value, least in (("games", games, 1), ("validation_games", validation_games,
                                                     2 * GROUPS), ("budget", budget, 1)):
        if value < least:
            raise OptionError(name, f"must be at least {least} (got {value})")
        if value > MAX_GAMES:
            raise OptionError(name, f"at most {MAX_GAMES:,} (got {value:,})")
    if popsize is not None and not 2 <= popsize <= 1000:
        raise OptionError("popsize", f"must be in 2..1000 (got {popsize})")
    grid = (math.prod(int(k.high - k.low) + 1 for k in found)
            if all(k.kind is int for k in found) else SCAN_MAX + 1)
    values: tuple[tuple[int, ...], ...] = ()
    if grid <= SCAN_MAX:
        method = "scan"
        values = tuple(itertools.product(*(range(int(k.low), int(k.high) + 1) for k in found)))
        lam, per, rounds = len(values), budget // len(values), 1
        if per < 1:
            raise OptionError("budget", f"{budget} games are fewer than the {len(values)} "
                                        "settings to scan")
        if per < stats.MIN_GAMES:  # no setting would get an estimate: the first would "win"
            raise OptionError("budget", f"{budget} games give the {len(values)} settings to "
                                        f"scan {per} games each, fewer than the "
                                        f"{stats.MIN_GAMES} a finding needs; give at least "
                                        f"{{budget}}", budget=len(values) * stats.MIN_GAMES)
        if asked_games is not None and asked_games != per:
            say(f"scan: --games {asked_games} is not used: a scan of {len(values)} settings "
                f"plays --budget {budget} / {len(values)} = {per} games per setting (raise "
                "--budget for more)")
    else:
        if race:
            raise OptionError("race", "races the settings of a scan (integer knobs of at most "
                                      f"{SCAN_MAX} settings in all); these knobs are searched "
                                      "by CMA-ES")
        method = "cma"
        lam = popsize if popsize is not None else 4 + int(3 * math.log(len(found)))
        per = games
        if per < stats.MIN_GAMES:
            raise OptionError("games", f"{games} games per candidate are fewer than the "
                                       f"{stats.MIN_GAMES} a finding needs; give at least "
                                       "{games}", games=stats.MIN_GAMES)
        rounds = budget // (lam * games)
        if rounds < 1:
            raise OptionError("budget", f"{budget} games are less than one round of {lam} "
                                        f"candidates x {games} games; raise {{budget}} or lower "
                                        "{games}", budget=None, games=None)
        if rounds > ROUNDS_CAP:
            raise OptionError("budget", f"{budget:,} games make {rounds:,} rounds; at most "
                                        f"{ROUNDS_CAP:,} (raise {{games}})", games=None)
    if race and robust is not None:
        raise OptionError("race", "not with {over} (its objective is a worst case over the "
                                  "cells, not one interval per setting)", over=None)
    if race:
        schedule = racing.looks(per)
        say(f"race: {len(values)} settings, looks at {', '.join(map(str, schedule))} games "
            f"each on the scan's seeds; a setting surely off the goal stops (Holm over the "
            f"settings, Pocock-type alpha spending over the looks, {racing.ALPHA:g} in all)")
    study, full, probe = _probe(scenario, keys, run, option=option, say=say,
                                kept=[k for k, _, _ in bands])
    rec = probe[keys[0]]
    if not equal and target is None and rec.get("null") is None:
        raise OptionError("target", f"{keys[0]} is a measured figure without a no-effect value: "
                                    f"give the value to reach (in {rec.get('unit') or 'its unit'}"
                                    f", as `analyzer findings` shows it)")
    if equal and len({(probe[k].get("unit"), probe[k].get("scale")) for k in keys}) > 1:
        raise OptionError("equalize", "the findings are in different units ("
                          + ", ".join(f"{k}: {probe[k].get('unit')}" for k in keys) + ")")
    _check_target(rec, keys[0], target, tolerance)
    stored = None if target is None else finding_keys.stored(rec, target)
    say(target_line(rec, keys, equal, target))
    return Plan(scenario, tuple(found), tuple(keys), equal, stored, study, full, method, values,
                lam, per, rounds, validation_games, budget, probe,
                None if tolerance is None else finding_keys.stored(rec, tolerance),
                _kept_bands(probe, bands, say), robust, tuple(grid_cells),
                None if rungs is None else tuple(rungs), race)


def needs_rounds(finding: str | None, equalize: str | Sequence[str] | None,
                 keep: Sequence[str]) -> bool:
    """Whether a balance must record every game's checkpoints after each round
    (``rounds.parquet``, ``RunOptions.rounds``): a ``quality:`` key is balanced, made equal or
    kept in a band (``--keep quality:lead_changes:base=1..3``; ``analyzer.report.quality``)."""
    keys = [finding or ""]
    keys += (equalize.split(",") if isinstance(equalize, str) else list(equalize or ()))
    keys += [str(text).rpartition("=")[0] for text in keep]
    return any(str(k).strip().startswith(quality.FAMILY + ":") for k in keys)


def parse_keep(text: str) -> tuple[str, float, float]:
    """``--keep KEY=LO..HI`` as ``(key, lo, hi)``, the band in the unit ``analyzer findings``
    shows.

    Raises
    ------
    OptionError
        (keyword ``keep``) not of that shape, a bound that is not a finite number, or LO not
        below HI.
    """
    key, eq, band = str(text).rpartition("=")
    parts = band.split("..")
    if not eq or not key.strip() or len(parts) != 2:
        raise OptionError("keep", f"{text!r} must read KEY=LO..HI (a finding key and the band "
                                  "to keep it in, in its unit, e.g. score:twice=1..2)")
    try:
        lo, hi = (float(x) for x in parts)
    except ValueError:
        raise OptionError("keep", f"{key.strip()}: {band!r} is not LO..HI of numbers") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
        raise OptionError("keep", f"{key.strip()}: LO must be below HI, both finite (got "
                                  f"{band})")
    return key.strip(), lo, hi


def _kept_bands(probe: Mapping[str, Mapping[str, Any]], bands: Sequence[tuple[str, float, float]],
                say: Callable[[str], None]) -> tuple[tuple[str, float, float], ...]:
    """The ``--keep`` bands in each finding's own scale, echoed with their units."""
    out = []
    for key, lo, hi in bands:
        rec = probe[key]
        unit = rec.get("unit") or ""
        say(f"keep: {key} within {lo:g}..{hi:g}{' ' + unit if unit else ''} (a setting whose "
            "estimate leaves it is refused)")
        out.append((key, finding_keys.stored(rec, lo), finding_keys.stored(rec, hi)))
    return tuple(out)


def kept(p: Plan, found: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether a setting keeps every ``--keep`` finding inside its band (its estimate on the
    setting's games; a key not computed there is not kept)."""
    return all(lo <= _est(found, key) <= hi for key, lo, hi in p.keep)


def possible_range(rec: Mapping[str, Any]) -> tuple[float, float] | None:
    """The values a finding can take, in its own scale (a share 0–1, a difference of shares
    −1–1, a ratio above 0), read off its record's unit as the report's ``Finding.range``
    does; ``None``: unbounded."""
    if rec.get("log"):
        return (0.0, math.inf)
    return {"%": (0.0, 1.0), "pp": (-1.0, 1.0)}.get(str(rec.get("unit") or ""))


def _check_target(rec: Mapping[str, Any], key: str, target: float | None,
                  tolerance: float | None) -> None:
    """Refuse, before the search, a target outside the values the finding can take (``--target
    150`` for a share) and a tolerance as wide as that whole range (it would claim nothing).
    ``target`` and ``tolerance`` are in the unit ``analyzer findings`` shows."""
    bounds = possible_range(rec)
    if bounds is None:
        return
    unit = rec.get("unit") or ""
    lo, hi = (finding_keys.display(rec, b) if math.isfinite(b) else b for b in bounds)
    inside = (lambda x: x > lo) if rec.get("log") else (lambda x: lo <= x <= hi)
    if target is not None and not inside(target):
        span = f"above {lo:g}" if math.isinf(hi) else f"{lo:g}..{hi:g}"
        raise OptionError("target", f"{target:g}{' ' + unit if unit else ''} is outside what "
                                    f"{key} can be ({span}{' ' + unit if unit else ''})")
    if tolerance is not None and math.isfinite(hi) and tolerance >= hi - lo:
        raise OptionError("tolerance", f"{tolerance:g} covers every value {key} can be "
                                       f"({lo:g}..{hi:g}{' ' + unit if unit else ''}): give "
                                       "a smaller one")


def target_line(rec: Mapping[str, Any], keys: Sequence[str], equal: bool,
                target: float | None) -> str:
    """The goal in words with its unit, echoed before the search starts: ``"target:
    KEY at 0.1 % of games (in the unit analyzer findings shows; for 10 % of games give
    --target 10)"`` — so that a target given as a share (0.10) where the unit is
    percent is seen before the search plays its games."""
    unit = rec.get("unit") or ""
    if equal:
        return f"target: make {', '.join(keys)} equal"
    if target is None:
        null = rec.get("null")
        shown = finding_keys.display(rec, float(null)) if null is not None else math.nan
        return f"target: {keys[0]} at its no-effect value, {shown:g}{' ' + unit if unit else ''}"
    what = {"%": " % of games", "pp": " pp"}.get(unit, f" {unit}" if unit else "")
    line = f"target: {keys[0]} at {target:g}{what} (in the unit analyzer findings shows"
    if unit in ("%", "pp") and 0 < abs(target) < 1:  # perhaps a share meant as a percentage
        line += f"; for {100 * target:g}{what} give --target {100 * target:g}"
    return line + ")"


# ------------------------------------------------------------------ the objective


def gap(p: Plan, found: Mapping[str, Mapping[str, Any]]) -> float:
    """How far a setting is from the goal, in the findings' scale: the estimate minus the
    target (its no-effect value there when no target is given); with ``equalize`` the
    largest estimate minus the smallest (two keys: the first minus the second). ``nan`` when
    a key is not computed there or a ``--keep`` finding leaves its band (``kept``)."""
    est = [_est(found, k) for k in p.keys]
    if any(math.isnan(e) for e in est) or not kept(p, found):
        return math.nan  # a setting that leaves a --keep band is refused: it ranks last
    return _gap_of(p, est, found[p.keys[0]])


def _gap_of(p: Plan, est: Sequence[float], rec: Mapping[str, Any]) -> float:
    """``gap`` of the keys' estimates ``est`` (none ``nan``), the first key's record ``rec``
    giving its no-effect value (``_target``)."""
    if p.equalize:
        return float(est[0] - est[1]) if len(est) == 2 else float(max(est) - min(est))
    return float(est[0] - _target(p, rec))


def _target(p: Plan, rec: Mapping[str, Any]) -> float:
    """The target at a setting: the one given, else the no-effect value in the first key's
    record ``rec`` there; ``nan`` without one."""
    t = p.target if p.target is not None else rec.get("null")
    return math.nan if missing(t) else float(t)


def record_se(r: Mapping[str, Any]) -> float:
    """A finding record's standard error: its ``se`` (read off the interval with the
    interval's own quantile, ``findings.Finding.quantile``), else ``(hi − lo) / (2 · 1.96)``
    (a record without one); ``nan`` without an interval."""
    se = r.get("se")
    if not missing(se):
        return float(se)
    lo, hi = r.get("lo"), r.get("hi")
    return math.nan if missing(lo) or missing(hi) else stats.interval_se(float(lo), float(hi))


def gap_se(p: Plan, found: Mapping[str, Mapping[str, Any]]) -> float:
    """The standard error of ``gap`` read off the findings' 95 % intervals (``equalize``: the
    root sum of squares of the keys', as if independent: it only scales ``objective``'s
    tie-break)."""
    ses = [record_se(found.get(k) or {}) for k in p.keys]
    return float(ses[0]) if not p.equalize else float(math.sqrt(sum(x * x for x in ses)))


def distance(p: Plan, values: Sequence[float]) -> float:
    """How far a setting is from the scenario's: the root mean square over the knobs of the
    change in units of each knob's range (0 = the scenario's, 1 = a whole range away)."""
    parts = [((float(v) - k.start) / (k.high - k.low)) ** 2 for k, v in zip(p.knobs, values)
             if k.start is not None and k.high > k.low]
    return math.sqrt(sum(parts) / len(parts)) if parts else 0.0


def objective(gap_value: float, dist: float, scale: float) -> float:
    """What the search minimises: ``gap² + (scale · dist)²``. ``scale`` is the round's
    typical standard error of the gap, so moving a whole range away from the scenario's
    values costs as much as being one standard error from the goal: among settings that the
    games cannot tell apart the one nearer the scenario's ranks first, while the gap decides
    everywhere else. A setting where a key is not computed ranks below every other."""
    if math.isnan(gap_value):
        return 1e12
    penalty = scale * dist if not math.isnan(scale) else 0.0
    return gap_value * gap_value + penalty * penalty


def settle(p: Plan, rows: Sequence[Mapping[str, Any]], mean: Sequence[float]) -> list[Any]:
    """The value taken from the search distribution's final ``mean`` (each knob's value, not
    rounded). Float knobs: the mean (4 significant digits). With integer knobs, of the integer
    settings around the mean (each integer knob at the floor or the ceiling of its mean) the
    one with the least ``objective`` on its estimates pooled over every round that played it
    (inverse-variance weights); settings never played are left out, and when none was played
    the mean is rounded."""
    dims = [k.dimension for k in p.knobs]
    exact = [dim.decode(dim.encode(m)) for dim, m in zip(dims, mean)]
    if all(k.kind is not int for k in p.knobs):
        return exact
    choices = [sorted(v for v in {math.floor(m), math.ceil(m)} if k.low <= v <= k.high)
               if k.kind is int else [exact[i]] for i, (k, m) in enumerate(zip(p.knobs, mean))]
    table = pd.DataFrame(rows)
    best, best_score = exact, math.inf
    scale = float(np.nanmedian(table["gap_se"])) if len(table) else math.nan
    for combo in itertools.product(*choices):
        mask = np.ones(len(table), dtype=bool)
        for k, v in zip(p.knobs, combo):
            mask &= np.isclose(table[k.path].to_numpy(dtype=float), float(v))
        played = table[mask & table["gap"].notna() & (table["gap_se"] > 0)]
        if played.empty:
            continue
        w = 1.0 / played["gap_se"].to_numpy() ** 2
        pooled = float((w * played["gap"].to_numpy()).sum() / w.sum())
        score = objective(pooled, distance(p, combo), scale)
        if score < best_score:
            best, best_score = list(combo), score
    return best


def unit_of(p: Plan, key: str, found: Mapping[str, Mapping] | None = None) -> str:
    """The unit ``key``'s numbers are stored in (``findings.value_unit``: ``"share"`` for a
    share or a difference of shares, else the unit shown), from its record at the setting
    (``found``) or else the probe's."""
    return _unit((found or {}).get(key) or p.probe.get(key) or {})


def _unit(r: Mapping[str, Any]) -> str:
    return str(r.get("value_unit") or value_unit(str(r.get("unit") or ""),
                                                 float(r.get("scale") or 1.0)))


def _row(p: Plan, g: int, k: int, values: Sequence[Any], found: Mapping[str, Mapping]) -> dict:
    """One row of ``search.parquet``: ``estimate_I``, ``lo_I``, ``hi_I`` of key I in the unit
    ``unit_I`` (as tune's ``win_rate_unit``); ``null`` and ``gap`` in ``unit_0``'s, ``keep_J``
    in ``keep_J_unit``."""
    row: dict[str, Any] = {"round": g, "candidate": k}
    row.update({kn.path: v for kn, v in zip(p.knobs, values)})
    for i, key in enumerate(p.keys):
        r = found.get(key) or {}
        for f in ("estimate", "lo", "hi"):
            row[f"{f}_{i}"] = _num(r, f)
        row[f"unit_{i}"] = unit_of(p, key, found)
    row["null"] = _num(found.get(p.keys[0]) or {}, "null")
    row["gap"] = gap(p, found)
    row["gap_se"] = gap_se(p, found)
    if p.keep:
        for i, (key, _, _) in enumerate(p.keep):
            row[f"keep_{i}"] = _est(found, key)
            row[f"keep_{i}_unit"] = unit_of(p, key, found)
        row["kept"] = kept(p, found)
    return row


# ------------------------------------------------------------------ the search


def _settings(run: StudyRun, p: Plan, candidates: list[list[Any]], folder: Path,
              cells: Sequence[overs.Cell] | None = None) -> list[list[tuple[Scenario, dict]]]:
    """Per candidate, per cell of ``cells`` (``overs.Cell.apply``; ``None``: the setting
    alone), the study scenario and facts it plays (``Study.of``): the tables in
    ``search/tables``, an ablation's in ``FOLDER/ablate/TAG`` (``TAG-JJ`` in cell ``JJ``)."""
    out = []
    for vals in candidates:
        tag = hashlib.sha256(json.dumps(vals).encode()).hexdigest()[:12]
        base = knobs.setting(p.scenario, p.knobs, vals, run.dir.path / "search" / "tables")
        out.append([p.study.of(base, folder / "ablate" / tag)] if cells is None else
                   [p.study.of(c.apply(base), folder / "ablate" / f"{tag}-{j:02d}")
                    for j, c in enumerate(cells)])
    return out


def _round(run: StudyRun, p: Plan, g: int, candidates: list[list[Any]], games: int,
           scratch: Path, folder_name: str = "search", root: int | None = None,
           cells: bool = False) -> list[list[dict[str, dict[str, Any]]]]:
    """Play round ``g``: every candidate (with ``cells``, in every cell of ``p.cells``; a cell
    that searches: the first ``cap`` of the games) on the same fresh seeds into
    ``FOLDER/round-G/sKK`` (``sKKcJJ`` in cell ``JJ``; ``StudyRun.play_batch``: a stop keeps
    every finished one); per candidate, per cell (one without ``cells``), its findings."""
    folder = run.dir.path / folder_name
    grid = _settings(run, p, candidates, folder, p.cells if cells else None)
    batch = [(f"s{k:02d}c{j:02d}" if cells else f"s{k:02d}", runner.plan_arms(s),
              p.cells[j].games(games) if cells else games, k, j)
             for k, per in enumerate(grid) for j, (s, _) in enumerate(per)]
    root = derived_seed(p.scenario.seed, SEARCH_STREAM, g + 1) if root is None else root
    out: list[list[dict[str, dict[str, Any]]]] = [[{} for _ in per] for per in grid]
    for n in sorted({b[2] for b in batch}, reverse=True):  # a capped rung: its own batch
        now = [b for b in batch if b[2] == n]
        played = run.play_batch(folder / f"round-{g:04d}", [b[:2] for b in now], root, n,
                                scenario=p.scenario)
        for (_, arms, _, k, j), r in zip(now, played):
            rec, = _records(r, {a.name: (0, a.name) for a in arms}, 1)
            out[k][j] = findings_of(*grid[k][j], rec, scratch)
    return out


def _smooth(p: Plan, rows: list[dict], smooth: bool) -> None:
    """Set each row's ``smoothed_gap``: its ``gap``, or with ``smooth`` (one knob's scan) the
    LOWESS smooth's (``smooth_gaps``); ``nan`` where a ``--keep`` band is left."""
    sm = smooth_gaps(p, rows) if smooth else [r["gap"] for r in rows]
    for r, x in zip(rows, sm):
        r["smoothed_gap"] = x if r.get("kept", True) and not missing(r["gap"]) else math.nan


def _robust_rows(p: Plan, g: int, candidates: list[list[Any]],
                 found: list[list[dict[str, dict[str, Any]]]], smooth: bool,
                 cell_rows: list[dict]) -> list[dict]:
    """The rows of a round over the cells: each cell's row (``_row`` with ``cell``) is added
    to ``cell_rows`` (``over.parquet``); each candidate's row is its worst cell's (by
    ``overs.robust``: ``worst_cell``, ``gap`` that cell's signed distance, ``robust_gap`` its
    size). ``smooth``: one knob's scan, each cell's estimates smoothed over the values first
    (``smooth_gaps``)."""
    per_cell = [[_row(p, g, k, c, found[k][j]) for k, c in enumerate(candidates)]
                for j in range(len(p.cells))]
    for j, rows in enumerate(per_cell):
        _smooth(p, rows, smooth)
        for r in rows:
            r["cell"] = p.cells[j].name
    out = []
    for k in range(len(candidates)):
        gaps = [per_cell[j][k]["smoothed_gap"] for j in range(len(p.cells))]
        value, pick = overs.robust(gaps, p.over.quantile if p.over else None)
        row = dict(per_cell[pick if pick is not None else 0][k])
        row.pop("cell")
        row.update({"worst_cell": p.cells[pick].name if pick is not None else "",
                    "robust_gap": abs(value), "smoothed_gap": value})
        if not smooth:
            row["gap"] = value
        out.append(row)
    cell_rows += [r for rows in per_cell for r in rows]
    return out


def _nearest(p: Plan, rows: Sequence[Mapping[str, Any]], cands: Sequence[Sequence[Any]],
             among: Sequence[int], scaled: Sequence[Mapping[str, Any]]) -> int:
    """The scan's rule: of the settings ``among``, the one of least ``objective`` on its
    ``smoothed_gap``, the tie-break scaled by the median ``gap_se`` of the rows ``scaled``."""
    ses = [float(r["gap_se"]) for r in scaled if not missing(r["gap_se"])]
    scale = float(np.median(ses)) if ses else math.nan  # (nanmedian warned on none)
    return min(among, key=lambda k: objective(rows[k]["smoothed_gap"], distance(p, cands[k]),
                                              scale))


def _said(p: Plan, values: Sequence[Any]) -> str:
    return ", ".join(f"{k.label()} = {v}" for k, v in zip(p.knobs, values))


def search(run: StudyRun, p: Plan, scratch: Path, say: Callable[[str], None],
           cell_rows: list[dict], looks: list[dict]) -> tuple[list[Any], list[dict], list[dict]]:
    """The scan or the CMA-ES search; returns the values found, one row per setting evaluated
    (``search.parquet``) and one entry per round. With ``p.cells`` (``--over``) a setting's
    distance is the robust one over the cells (``_robust_rows``; each cell's row is added to
    ``cell_rows``); with ``p.race`` the scan is raced (``_race``; each look's entry is added
    to ``looks``)."""
    d = run.dir
    rows, history = [], []
    if p.method == "scan" and p.race:
        return _race(run, p, scratch, say, looks)

    def played(g: int, cands: list[list[Any]], smooth: bool) -> list[dict]:
        found = _round(run, p, g, cands, p.games, scratch, cells=bool(p.cells))
        if p.cells:
            return _robust_rows(p, g, cands, found, smooth, cell_rows)
        return [_row(p, g, k, c, f[0]) for k, (c, f) in enumerate(zip(cands, found))]

    if p.method == "scan":
        cands = [list(v) for v in p.values]
        cells = f" x {len(p.cells)} cells" if p.cells else ""
        d.saved = (f"the scan of {len(cands)} settings{cells} not yet finished in "
                   f"{d.path / 'search'}")
        rows = played(0, cands, len(p.knobs) == 1)
        if not p.cells:
            _smooth(p, rows, len(p.knobs) == 1)
        best = _nearest(p, rows, cands, range(len(cands)), cell_rows if p.cells else rows)
        say(f"scan: {len(cands)} settings{cells} x {p.games} games each on the same seeds; "
            f"nearest the goal{f' in {p.over.objective}' if p.cells else ''}: "
            + _said(p, cands[best]))
        history.append({"round": 0, "values": cands[best]})
        return cands[best], rows, history
    dims = [k.dimension for k in p.knobs]
    x0 = [min(max(dim.encode(k.start if k.start is not None else (k.low + k.high) / 2), 0.0),
              1.0) for dim, k in zip(dims, p.knobs)]
    new: list[dict[str, Any]] = []

    def play(g: int, xs: list[np.ndarray]) -> list[float]:
        d.saved = f"{g} of {p.rounds} rounds saved in {d.path / 'search'}"
        cands = [[dim.decode(v) for dim, v in zip(dims, x)] for x in xs]
        new[:] = played(g, cands, False)
        scale = float(np.nanmedian([r["gap_se"] for r in new]))
        return [objective(r["gap"], distance(p, c), scale) for r, c in zip(new, cands)]

    for step in cma_es(x0, popsize=p.popsize, seed=p.scenario.seed, rounds=p.rounds,
                       evaluate=play):
        mean = [dim.decode(v) for dim, v in zip(dims, step.centre)]
        rows += new
        gaps = [abs(r["gap"]) for r in new if not math.isnan(r["gap"])]
        history.append({"round": step.round, "mean": mean, "sigma": step.sigma,
                        "nearest": min(gaps) if gaps else None,
                        "centre": [k.low + float(v) * (k.high - k.low)
                                   for k, v in zip(p.knobs, step.centre)]})
        say(f"round {step.round + 1}/{p.rounds}: mean " + _said(p, mean)
            + (f"; nearest candidate {_show(p, min(gaps))} from the goal" if gaps else ""))
    values = settle(p, rows, history[-1]["centre"])
    if values != history[-1]["mean"]:
        say("value taken: " + _said(p, values) + " (of the integer settings around the mean, "
            "the nearest the goal over every round that played it)")
    return values, rows, history


def _race(run: StudyRun, p: Plan, scratch: Path, say: Callable[[str], None],
          looks: list[dict]) -> tuple[list[Any], list[dict], list[dict]]:
    """The scan raced (``--race``; the looks and the stops: ``analyzer.study.race``): at each
    look every setting still running plays the scan's own seeds up to that look's games into
    ``search/race/sKK`` (chunks of the first look's size: a look plays only the new games, and
    a resume replays the looks to the same decisions); those shown farther from the goal stop
    (``race.pair_stops`` on the first key's per-game values, ``_common_games``; else
    ``race.stops``). The value taken is the scan's rule among the settings still running.
    Returns as ``search``, each row a setting's last look with ``games``, ``look``,
    ``stopped`` and ``farther_than``; ``looks`` gets one entry per look (``games``, ``level``,
    ``running``, ``stopped``, ``rule``: ``"pairs"``, ``"band"`` or ``None``, ``half_width``)."""
    d = run.dir
    cands = [list(v) for v in p.values]
    schedule = racing.looks(p.games)
    levels = racing.look_levels(schedule)
    folder = d.path / "search" / "race"
    grid = _settings(run, p, cands, d.path / "search")
    arms = [runner.plan_arms(s) for (s, _), in grid]
    root = derived_seed(p.scenario.seed, SEARCH_STREAM, 1)  # the scan's own seeds
    rows: list[dict] = [{} for _ in cands]
    values: list[pd.Series | None] = [None for _ in cands]  # the finding's per-game values
    paired = len(p.keys) == 1 and not p.equalize  # else the region rule (``racing.stops``)
    running = list(range(len(cands)))
    for j, n in enumerate(schedule):
        for i, k in enumerate(running):
            d.saved = saved = (f"look {j + 1} of {len(schedule)} of the race: {i} of "
                               f"{len(running)} settings saved in {folder}")
            try:
                result = run.play_arms(arms[k], root, n, folder / f"s{k:02d}",
                                       scenario=p.scenario, chunk_size=schedule[0],
                                       resume=d.resume or j > 0)
            except RunStopped as err:
                err.saved = f"{saved}; {err.saved}"
                raise
            rec, = _records(result, {a.name: (0, a.name) for a in arms[k]}, 1)
            per: dict[str, pd.Series] = {}
            rows[k] = _row(p, 0, k, cands[k], findings_of(*grid[k][0], rec, scratch / f"race-{k}",
                                                          per if paired else None))
            rows[k].update(games=n, look=j, stopped=False)
            values[k] = per.get(p.keys[0])
        entry = {"look": j, "games": n, "level": levels[j], "running": len(running),
                 "stopped": 0, "half_width": None, "rule": None}
        if j < len(schedule) - 1 and len(running) > 1:
            common = _common_games([values[k] for k in running],
                                   [rows[k]["estimate_0"] for k in running]) if paired else None
            if common is not None:  # shown farther than another setting, game by game
                stopped, by = racing.pair_stops([rows[k]["gap"] for k in running],
                                                [values[k].loc[common].to_numpy(float)
                                                 for k in running], levels[j])
                for k, b in zip(running, by):
                    if b is not None:
                        rows[k]["farther_than"] = int(running[b])
                entry["rule"] = "pairs"
            else:
                stopped, half = racing.stops([rows[k]["gap"] for k in running],
                                             [rows[k]["gap_se"] for k in running],
                                             float(p.tolerance or 0.0), levels[j])
                entry.update(rule="band", half_width=half)
            gone = [k for k, s in zip(running, stopped) if s]
            for k in gone:
                rows[k]["stopped"] = True
            running = [k for k in running if k not in gone]
            entry["stopped"] = len(gone)
        looks.append(entry)
        say(f"race look {j + 1}/{len(schedule)}: {entry['running']} settings x {n} games; "
            f"{entry['stopped']} stopped, {len(running)} still running")
        if len(running) == 1:
            break
    _smooth(p, rows, len(p.knobs) == 1)
    best = _nearest(p, rows, cands, running, [rows[k] for k in running])
    played = sum(r["games"] for r in rows)
    say(f"race: {played:,} games per arm in all, against {len(cands) * p.games:,} for the "
        f"scan; nearest the goal of the {len(running)} still running: " + _said(p, cands[best]))
    return cands[best], rows, [{"round": 0, "values": cands[best]}]


def _show(p: Plan, value: float) -> str:
    rec = p.record
    return f"{finding_keys.display(rec, value):.{int(rec.get('digits') or 1)}f} " \
           f"{rec.get('unit') or ''}".rstrip()


def _common_games(series: Sequence[pd.Series | None], estimates: Sequence[float]
                  ) -> pd.Index | None:
    """The games every running setting has a per-game value of the finding for (their
    common seeds), or ``None`` — the race then uses the region rule — when one has none, its
    estimate is not the mean of its per-game values (a ratio, a rating: a paired mean would
    not be its difference), or fewer than ``stats.MIN_GAMES`` games pair."""
    if any(s is None or not len(s) for s in series):
        return None
    for s, est in zip(series, estimates):
        mean = float(np.nanmean(s.to_numpy(float)))
        if missing(est) or not math.isclose(mean, float(est), rel_tol=1e-6, abs_tol=1e-9):
            return None
    ids = series[0].index
    for s in series[1:]:
        ids = ids.intersection(s.index)
    return ids.sort_values() if len(ids) >= stats.MIN_GAMES else None


def smooth_gaps(p: Plan, rows: Sequence[Mapping[str, Any]]) -> list[float]:
    """The scan's distance from the goal at each value, from a LOWESS smooth of each key's
    estimates over the values (``statsmodels``; ``LOWESS_FRAC`` of the values, and at least
    ``LOWESS_MIN``, in each local fit, one robustifying pass), so that one noisy estimate does
    not decide; with fewer than ``LOWESS_MIN`` values the estimates themselves. The target is the one given, else each
    value's no-effect value."""
    x = np.array([r[p.knobs[0].path] for r in rows], dtype=float)
    est = np.array([[r[f"estimate_{i}"] for i in range(len(p.keys))] for r in rows],
                   dtype=float)
    if len(x) >= LOWESS_MIN and np.isfinite(est).all():
        from statsmodels.nonparametric.smoothers_lowess import lowess

        frac = max(LOWESS_FRAC, min(1.0, LOWESS_MIN / len(x)))  # at least 5 values a fit
        est = np.column_stack([lowess(est[:, i], x, frac=frac, it=1, return_sorted=False)
                               for i in range(est.shape[1])])
    return [math.nan if np.isnan(e).any() else _gap_of(p, e, r) for r, e in zip(rows, est)]


# ------------------------------------------------------------------ the check


def jackknife(full: float, replicates: Sequence[float], confidence: float = 0.95
              ) -> dict[str, float]:
    """The delete-a-group jackknife interval of a statistic.

    Parameters
    ----------
    full : float
        The statistic on all games.
    replicates : sequence of float
        The statistic with each of ``K`` equal blocks of games left out.
    confidence : float

    Returns
    -------
    dict
        ``estimate`` (``full``), ``se`` (``sqrt((K−1)/K · Σ(θ_b − θ̄)²)``), ``lo``, ``hi``
        (``full ± t(K−1) · se``) and ``groups``; ``nan`` bounds when a replicate is missing.
    """
    reps = np.asarray(replicates, dtype=float)
    k = len(reps)
    if k < 2 or np.isnan(reps).any() or missing(full):
        return {"estimate": full, "se": math.nan, "lo": math.nan, "hi": math.nan, "groups": k}
    se = math.sqrt(stats.jackknife_variance(reps))
    t = float(sps.t.ppf(0.5 + confidence / 2, k - 1))
    return {"estimate": float(full), "se": se, "lo": float(full) - t * se,
            "hi": float(full) + t * se, "groups": k}


def _interval(value: float, iv: Mapping[str, float]) -> dict[str, Any]:
    """A paired statistic with its jackknife interval and a t test of no change; a standard
    error at rounding level (the same change in every game) is exact: 0."""
    iv = dict(iv)
    if not missing(iv["se"]) and iv["se"] <= 1e-9 * max(1.0, abs(value)):
        iv.update(se=0.0, lo=value, hi=value)
    p = math.nan
    if iv["se"] > 0:
        p = float(2 * sps.t.sf(abs(value / iv["se"]), iv["groups"] - 1))
    elif iv["se"] == 0:
        p = 0.0 if value != 0 else 1.0
    return {"diff": value, "lo": iv["lo"], "hi": iv["hi"], "se": iv["se"], "p_value": p,
            "significant": bool(p < 0.05) if not math.isnan(p) else False}


def _est(found: Mapping[str, Mapping[str, Any]], key: str) -> float:
    return _num(found.get(key) or {}, "estimate")


def _num(r: Mapping[str, Any], field: str) -> float:
    """A record's number ``field`` as a float, ``nan`` when it has none."""
    return math.nan if missing(r.get(field)) else float(r[field])


def _contrasts(p: Plan) -> list[tuple[str, str, Callable[[Mapping, Mapping], float]]]:
    """The paired statistics of the check, each with the key whose unit it is in and a function
    of the two settings' findings: balanced − original of each key; with ``equalize`` also, in
    each setting, each key minus the first, and the change of that difference."""
    out: list[tuple[str, str, Callable]] = []
    for key in p.keys:
        out.append((f"change:{key}", key, lambda o, b, key=key: _est(b, key) - _est(o, key)))
    if p.equalize:
        first = p.keys[0]
        for key in p.keys[1:]:
            for name, which in ((ORIGINAL, 0), (BALANCED, 1)):
                out.append((f"difference:{name}:{first}-{key}", first,
                            lambda o, b, key=key, w=which: _est((o, b)[w], first) - _est(
                                (o, b)[w], key)))
            out.append((f"difference:change:{first}-{key}", first,
                        lambda o, b, key=key: (_est(b, first) - _est(b, key))
                        - (_est(o, first) - _est(o, key))))
        if p.tolerance is not None:  # every pair is tested for equivalence (``equivalence``)
            for a, b in itertools.combinations(p.keys[1:], 2):
                out.append((f"difference:{BALANCED}:{a}-{b}", a,
                            lambda o, bal, a=a, b=b: _est(bal, a) - _est(bal, b)))
    return out


def check_seed(p: Plan) -> int:
    """The root seed of a balance's fresh-seed check, from the whole balance identity (as
    ``tune.plan``'s; ``search.identity_seed``): two balances of one scenario that differ in
    any option are checked on different games (else picking the better balance would select on
    that check's luck), the same balance on the same games."""
    return identity_seed(p.scenario.seed, CHECK_STREAM, {
        "scenario": p.scenario.fingerprint(), "keys": list(p.keys), "equalize": p.equalize,
        "target": p.target, "knobs": [(k.path, k.low, k.high) for k in p.knobs],
        "method": p.method, "values": [list(v) for v in p.values], "popsize": p.popsize,
        "games": p.games, "rounds": p.rounds, "budget": p.budget,
        "validation_games": p.validation_games,
        "study": [p.full.kind, list(p.full.arms or ()), list(p.full.items)],
        **({"keep": [list(b) for b in p.keep]} if p.keep else {}),
        **({"race": True} if p.race else {}), **_over_identity(p)})


def _over_identity(p: Plan) -> dict[str, Any]:
    """``--over`` in a balance's identity (nothing without it, so the seeds of a balance
    without ``--over`` are as before): its parts, quantile, cells and tolerance."""
    if p.over is None:
        return {}
    return {"over": [p.over.text, p.over.quantile, [c.name for c in p.cells],
                     [c.cap for c in p.cells], p.tolerance]}


def check(run: StudyRun, p: Plan, values: list[Any], fingerprint: Mapping[str, Any],
          scratch: Path, say: Callable[[str], None]) -> tuple[runner.RunResult, dict, Scenario]:
    """Play the original setting and the value found on ``validation_games`` fresh games (all
    the study's arms, same seeds) into ``chunks/``; the findings of both and the paired
    statistics (``_contrasts``, delete-a-group jackknife). The changed tables are written to
    the run directory as ``TABLE.toml``.

    Returns
    -------
    (RunResult, dict, Scenario)
        The check's run, its numbers (``study["check"]``) and the scenario at the value found.
    """
    d = run.dir
    tables = {k.table: f"{k.table}.toml" for k in p.knobs if k.table}
    balanced = knobs.setting(p.scenario, p.knobs, values, d.path, tables)
    so, fo = p.full.of(p.scenario, d.path / "tables" / ORIGINAL)
    sb, fb = p.full.of(balanced, d.path / "tables" / BALANCED)
    root = check_seed(p)
    n = p.validation_games
    size = run.options.chunk_size or max(1, -(-runner.DEFAULT_CHUNK_SIZE // (
        len(so.arms) + len(sb.arms))))
    d.saved = f"the search finished in {d.path / 'search'}, the fresh-seed check not yet"
    say(f"check: {len(so.arms) + len(sb.arms)} arms x {n} fresh games")
    try:  # the check's chunks join the run's own (prepared by _run): a resume of this run
        result, records = _play(run, [so, sb], [ORIGINAL, BALANCED], root, n, d.chunks,
                                chunk_size=size, fingerprint=fingerprint, resume=True,
                                progress=run.options.progress)
    except OptionError as err:
        if d.resume or err.option not in ("resume", "out", "chunk_size"):
            raise
        # the user gave no --resume: the chunks changed under this run, so another run took the
        # directory while this one searched
        raise OptionError("out", f"another run wrote into {d.path} while this one searched "
                                 "(its chunks are of another balance); give each run its own "
                                 "{out}", out=None) from None
    at = {name: findings_of(*setting, rec, scratch) for name, setting, rec
          in zip((ORIGINAL, BALANCED), ((so, fo), (sb, fb)), records)}

    # the jackknife replays each setting without a block of games (``_subset``); the search's
    # arms suffice when the finding is the same from them alone
    lean = [p.study.of(p.scenario, d.path / "tables" / ORIGINAL),
            p.study.of(balanced, d.path / "tables" / BALANCED)]
    both = [k for k in p.keys if k in at[ORIGINAL] and k in at[BALANCED]]
    if not all(_alone(lean[i], records[i], at[name], both, scratch)
               for i, name in enumerate((ORIGINAL, BALANCED))):
        lean = [(so, fo), (sb, fb)]

    edges = np.linspace(0, n, GROUPS + 1).round().astype(int)
    blocks = [(int(a), int(b)) for a, b in itertools.pairwise(edges)]
    contrasts = _contrasts(p)
    reps: dict[str, list[float]] = {name: [] for name, _, _ in contrasts}
    for i, block in enumerate(blocks):
        d.saved = (f"the fresh-seed check's games saved in {d.chunks}; its jackknife at block "
                   f"{i + 1} of {len(blocks)}")
        o, b = (findings_of(*lean[j], _subset(records[j], lean[j][0], block), scratch)
                for j in (0, 1))
        for name, _, fn in contrasts:
            reps[name].append(fn(o, b))
    paired = {name: {**_interval(fn(at[ORIGINAL], at[BALANCED]),
                                 jackknife(fn(at[ORIGINAL], at[BALANCED]), reps[name])),
                     "value_unit": unit_of(p, key, at[BALANCED])}
              for name, key, fn in contrasts}
    out = {"games": n, "seed": root, "groups": GROUPS,
           "arms": {ORIGINAL: [a.name for a in so.arms], BALANCED: [a.name for a in sb.arms]},
           "jackknife_arms": sorted({a.name for a in lean[1][0].arms}),
           "findings": {name: {k: _keep(at[name].get(k)) for k in p.keys} for name in at},
           "paired": paired}
    out.update(verdicts(p, at[BALANCED], paired, at[ORIGINAL]))
    return result, out, balanced


# ------------------------------------------------------------------ the verdicts


def _pairs(p: Plan) -> list[tuple[str, str]]:
    """The differences ``--equalize`` makes small: the first key against each other; with a
    tolerance every pair (``_contrasts``)."""
    if p.tolerance is None:
        return [(p.keys[0], k) for k in p.keys[1:]]
    return list(itertools.combinations(p.keys, 2))


def verdicts(p: Plan, found: Mapping[str, Mapping[str, Any]],
             paired: Mapping[str, Mapping[str, Any]],
             original: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """What the fresh-seed check says of the value found, for ``study["check"]``: whether the
    target was reached (``reached``: the target inside the finding's 95 % interval there;
    ``equalize``: 0 inside every difference's), with ``--tolerance`` the equivalence verdict
    (``equivalence``), and the scenario's ``[[questions]]`` at the value found and as it is
    (``questions``: setting -> key -> record, issue #34).

    Parameters
    ----------
    p : Plan
    found : mapping
        The finding records at the value found on the check's games (every key of the run).
    paired : mapping
        The check's paired statistics (``_contrasts``), with jackknife ``se``.
    original : mapping, optional
        The records of the scenario as it is on the same games.
    """
    out: dict[str, Any] = {"reached": reached(p, found, paired)}
    if p.keep:
        out["keep"] = keep_check(p, found)
    if p.tolerance is not None:
        out["equivalence"] = equivalence_check(p, found, paired)
    if p.scenario.questions:
        out["questions"] = {name: {q.finding: _asked(q.finding, recs, paired if name == BALANCED
                                                     else None)
                                   for q in p.scenario.questions}
                            for name, recs in ((BALANCED, found), (ORIGINAL, original or {}))}
    return out


def _asked(key: str, found: Mapping[str, Mapping[str, Any]],
           paired: Mapping[str, Mapping[str, Any]] | None) -> dict[str, Any] | None:
    """The record answering a study file's question ``key`` on the check's games of one
    setting (``_keep``'s numbers): a finding of the run as it is; the balance's own
    ``balance:at_value:KEY`` is ``KEY`` there (with ``--over`` these games are the scenario's
    own cell's — players and content as they are —, which ``over_check`` plays on the same
    seeds), ``balance:change:KEY`` the paired change of ``KEY`` (``paired``'s ``change:KEY``,
    at the value found only; ``None`` as it is)."""
    kind, _, rest = key.partition(":")
    if kind != "balance" or ":" not in rest:
        return _keep(found.get(key))
    what, _, inner = rest.partition(":")
    r = found.get(inner)
    if what == "at_value":
        return None if r is None else {**(_keep(r) or {}), "key": key}
    c = (paired or {}).get(f"change:{inner}")
    if what != "change" or r is None or c is None or missing(c.get("diff")):
        return None
    unit = str(r.get("unit") or "")
    return {**(_keep(r) or {}), "key": key, "estimate": c["diff"], "lo": c["lo"],
            "hi": c["hi"], "signed": True, "null": 0.0, "figure": None,
            "unit": "pp" if unit == "%" else unit, "value_unit": c.get("value_unit")}


def keep_check(p: Plan, found: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``--keep``: each kept finding at the value found on the check's fresh games against its
    band (own scale): ``key``, ``low``, ``high``, the record's ``estimate``, ``lo``, ``hi`` and
    ``kept`` (its estimate inside the band; otherwise the value found is refused)."""
    out = []
    for key, lo, hi in p.keep:
        r, est = found.get(key) or {}, _est(found, key)
        out.append({"key": key, "low": lo, "high": hi, "estimate": est,
                    "lo": r.get("lo", math.nan), "hi": r.get("hi", math.nan),
                    "unit": r.get("unit"), "value_unit": unit_of(p, key, found),
                    "scale": r.get("scale"), "digits": r.get("digits"),
                    "signed": r.get("signed"), "kept": bool(lo <= est <= hi)})
    return out


def reached(p: Plan, found: Mapping[str, Mapping[str, Any]],
            paired: Mapping[str, Mapping[str, Any]]) -> bool:
    """Whether the check cannot tell the value found from the goal: the target inside the
    finding's 95 % interval (``equalize``: 0 inside each difference's jackknife interval)."""
    if p.equalize:
        ds = [paired.get(f"difference:{BALANCED}:{a}-{b}") or {} for a, b in _pairs(p)]
        return all(_num(d, "lo") <= 0 <= _num(d, "hi") for d in ds)
    r = found.get(p.keys[0]) or {}
    return _num(r, "lo") <= _target(p, r) <= _num(r, "hi")


def equivalence_check(p: Plan, found: Mapping[str, Mapping[str, Any]],
                      paired: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """``--tolerance D``: two one-sided tests at 5 % (``stats.equivalence``) on the check's
    fresh games that the finding at the value found is within ``target ± D`` (its own standard
    error, normal reference; a ratio's by the delta method from its log scale), or, with
    ``equalize``, that every difference between the findings is within ``0 ± D`` (the paired
    jackknife's standard error, ``t(GROUPS − 1)``; all must be shown, an intersection-union
    test, so no correction). "balanced within ±D"
    only when every test rejects both sides — its 90 % interval inside the band.

    Returns
    -------
    dict
        ``tolerance`` (own scale), ``alpha``, ``shown`` (bool), ``tests``: one per finding or
        difference with ``what``, ``estimate``, ``lo``, ``hi`` (the 90 % interval), ``target``,
        ``p_value`` (the larger one-sided p) and ``shown``.
    """
    tol = float(p.tolerance)
    if p.equalize:
        pairs = [(f"{a} − {b}", a, paired.get(f"difference:{BALANCED}:{a}-{b}") or {})
                 for a, b in _pairs(p)]
        eqs = [(what, a, stats.equivalence(float(d.get("diff", math.nan)),
                                           float(d.get("se", math.nan)), tol, target=0.0,
                                           df=GROUPS - 1)) for what, a, d in pairs]
    else:
        _, t, est, se = _first(p, found)
        eqs = [(p.keys[0], p.keys[0], stats.equivalence(est, se, tol, target=t))]
    tests = [{"what": what, "estimate": eq.estimate, "lo": eq.lo, "hi": eq.hi,
              "target": eq.target, "p_value": eq.p_value, "shown": bool(eq.shown),
              "value_unit": unit_of(p, key, found)} for what, key, eq in eqs]
    return {"tolerance": tol, "value_unit": unit_of(p, p.keys[0], found), "alpha": ALPHA_TOST,
            "shown": all(t["shown"] for t in tests), "tests": tests}


def _first(p: Plan, found: Mapping[str, Mapping[str, Any]]
           ) -> tuple[Mapping[str, Any], float, float, float]:
    """The first key at a setting: its record (``{}`` when not computed), the target (its
    no-effect value there when none is given; ``nan`` without one), its estimate and standard
    error (``record_se``; a ratio's, on the log scale, brought back by the delta method)."""
    r = found.get(p.keys[0]) or {}
    est = _est(found, p.keys[0])
    se = record_se(r) if r else math.nan
    if r.get("log"):
        se *= est
    return r, _target(p, r), est, se


def _keep(r: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A record for the check's numbers: its estimate, interval and no-effect value in
    ``value_unit``, shown ×``scale`` in ``unit``."""
    if r is None:
        return None
    return {**{k: r.get(k) for k in ("key", "sentence", "estimate", "lo", "hi", "unit", "scale",
                                     "digits", "signed", "null", "figure", "games")},
            "value_unit": _unit(r)}


def ladder(run: StudyRun, p: Plan, balanced: Scenario, at: Mapping[str, Any], root: int,
           search_games: int, scratch: Path, say: Callable[[str], None]) -> dict[str, Any]:
    """The value found played by every rung of the default player ladder
    (``robustness.player_conditions``) on the check's seeds, into ``ladder/RUNG``: per rung each
    key's estimate and interval, the distance to the target with a p-value read off the
    interval (Holm over the rungs), and each key's robustness verdict
    (``robustness.verdict``) over the rungs."""
    d = run.dir
    sc, facts = p.full.of(balanced, d.path / "tables" / BALANCED)
    conditions, same = player_conditions(sc, None, p.validation_games, search_games)
    folder = d.path / "ladder"
    rungs: dict[str, dict[str, Any]] = {}
    for i, c in enumerate(conditions, 1):
        d.saved = f"the check finished, {i - 1} of {len(conditions)} ladder rungs in {folder}"
        say(f"ladder [{i}/{len(conditions)}] {c.label}: {len(c.scenario.arms)} arm(s) x "
            f"{c.scenario.games} games")
        _, (rec,) = _play(run, [c.scenario], ["rung"], root, c.scenario.games, folder / c.name)
        found = findings_of(c.scenario, facts, rec, scratch)
        rungs[c.name] = {"label": c.label, "games": c.scenario.games,
                         "findings": {k: _keep(found.get(k)) for k in p.keys}}
    for name in same:  # the scenario's own players are this rung: the check is its run
        rungs[f"players-{name}"] = {"label": f"every seat: {name} (the scenario's own players)",
                                    "games": p.validation_games,
                                    "findings": dict(at[BALANCED])}
    for rung in rungs.values():
        rung["gap"] = {k: _target_test(p, rung["findings"].get(k)) for k in p.keys}
    tests = [(n, k) for n, rung in rungs.items() for k in p.keys
             if not p.equalize and rung["gap"][k] is not None]
    if tests:
        pv = np.array([rungs[n]["gap"][k]["p_value"] for n, k in tests], dtype=float)
        adj, sig = stats.adjust_pvalues(pv, "holm", 0.05)
        for (n, k), a, s in zip(tests, adj, sig):
            rungs[n]["gap"][k].update({"p_holm": float(a), "away": bool(s)})
    verdicts = {k: verdict(at[BALANCED][k], {n: r["findings"].get(k) for n, r in rungs.items()})
                for k in p.keys if at[BALANCED].get(k) is not None}
    return {"rungs": rungs, "verdicts": verdicts, "correction": "holm"}


def _target_test(p: Plan, r: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A rung's estimate against the target: the gap and a two-sided p-value with the standard
    error read off its 95 % interval (``record_se``; normal); ``None`` without a record."""
    if r is None:
        return None
    g = _num(r, "estimate") - _target(p, r)
    if p.equalize or math.isnan(g):
        return {"gap": math.nan, "p_value": math.nan}
    se = record_se(r)
    pv = float(2 * sps.norm.sf(abs(g) / se)) if se > 0 else (0.0 if g else 1.0)
    return {"gap": g, "p_value": pv}


def _cell_test(p: Plan, found: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One cell's two one-sided tests at 5 % that the finding is within ``target ± D``
    (``overs.test``; a ratio's standard error by the delta method), with its 95 % interval;
    ``equalize``: every difference of the findings within ``0 ± D`` (its standard error the
    root sum of squares of theirs), the largest difference's numbers shown."""
    tol = float(p.tolerance)
    if p.equalize:
        tests = []
        for a, b in _pairs(p):
            ra, rb = found.get(a) or {}, found.get(b) or {}
            d = _est(found, a) - _est(found, b)
            se = math.sqrt(record_se(ra) ** 2 + record_se(rb) ** 2) if ra and rb else math.nan
            t = overs.test(d, se, tol, 0.0)
            t.update(what=f"{a} − {b}", lo=d - stats.Z95 * se, hi=d + stats.Z95 * se)
            tests.append(t)
        worst = max(tests, key=lambda t: (-1 if missing(t["estimate"]) else abs(t["estimate"])))
        return {**worst, "shown": all(t["shown"] for t in tests)}
    r, t, est, se = _first(p, found)
    out = overs.test(est, se, tol, t)
    out.update(what=p.keys[0], lo=r.get("lo", math.nan), hi=r.get("hi", math.nan))
    return out


def over_check(run: StudyRun, p: Plan, values: list[Any], scratch: Path,
               say: Callable[[str], None]) -> dict[str, Any]:
    """``--over``'s check on fresh seeds (``overs`` module docstring): every value of each
    knob (the others at their values found, ``overs.check_values``) in every cell, on the
    check's seeds (``check_seed``, so the scenario's own cell at the value found is the
    check's ``balanced`` estimate), ``validation_games`` per arm (a cell that searches: its
    cap), into ``over-check/``; per value and cell the two one-sided tests (``_cell_test``),
    the values that hold in every cell (``overs.ranges``) and the verdict at the value found.

    Returns
    -------
    dict
        ``study["over"]``: the parts, objective, cells, the check's ``rows`` (``knob``,
        ``value``, ``setting``, ``cell``, the tests' numbers, ``shown``), ``at_found`` (cell ->
        row at the value found), ``shown`` (every cell), ``failing`` (cells not shown),
        ``ranges`` per knob, ``games_played``.
    """
    assert p.over is not None and p.tolerance is not None
    plan_rows = overs.check_values(p.knobs, values)
    unique = [list(t) for t in dict.fromkeys(tuple(setting) for _, _, setting in plan_rows)]
    n = p.validation_games
    say(f"over check: {len(unique)} settings x {len(p.cells)} cells x {n} fresh games, to find "
        "the values within the tolerance in every cell")
    run.dir.saved = f"the check finished; the over check's settings in {run.dir.path / 'over-check'}"
    found = _round(run, p, 0, unique, n, scratch, "over-check", check_seed(p), cells=True)
    tests = [[_cell_test(p, f) for f in per] for per in found]
    rows = [{"knob": i, "value": v, "setting": list(setting), "cell": cell.name,
             "games": cell.games(n), **tests[unique.index(setting)][j]}
            for i, v, setting in plan_rows for j, cell in enumerate(p.cells)]
    at = unique.index(list(values))
    at_found = {cell.name: {"value": list(values), "games": cell.games(n), **tests[at][j]}
                for j, cell in enumerate(p.cells)}
    failing = [c for c, r in at_found.items() if not r["shown"]]
    arms = len(p.study.of(p.scenario, scratch / "count")[0].arms)
    played = sum(c.games(n) for c in p.cells) * len(unique) * arms
    return {"parts": p.over.text, "quantile": p.over.quantile, "objective": p.over.objective,
            "ladder": None if p.ladder is None else list(p.ladder),
            "cells": [c.facts() for c in p.cells], "tolerance": p.tolerance, "games": n,
            "seed": check_seed(p), "rows": rows, "at_found": at_found,
            "shown": not failing, "failing": failing,
            "ranges": overs.ranges(rows, [{"path": k.path, "label": k.label()} for k in p.knobs],
                                   [c.name for c in p.cells]),
            "games_played": played}


# ------------------------------------------------------------------ the files


def balanced_toml(p: Plan, balanced: Scenario, values: list[Any], numbers: Mapping[str, Any],
                  command: str) -> str:
    """``balanced.toml``: the scenario at the value found, with the check's seed and size (so
    its run reproduces the checked estimate), tables named by file name beside it, and how it
    was found and checked in comments."""
    tables = {k.option for k in p.knobs if k.table}
    arms = tuple(replace(a, rules={o: (Path(v).name if o in tables else v)
                                   for o, v in a.rules.items()}) for a in balanced.arms)
    sc = with_overrides(replace(balanced, arms=arms, name=f"{p.scenario.name}-balanced"),
                        games=numbers["games"], seed=numbers["seed"])
    rerun = "ablate" if p.full.kind == "ablate" else "simulate"
    lines = [(f"# {p.scenario.name} at the value found by `analyzer balance` (analyzer "
              f"{__version__}):"), f"#   {command}"]
    lines += [f"#   {k.label()} = {v!r} (was {knobs._plain(k.start)})"
              for k, v in zip(p.knobs, values)]
    for k in p.keys:
        r = (numbers["findings"][BALANCED] or {}).get(k)
        if r is not None:
            lines.append(f"# Checked on {numbers['games']} fresh games: {k} = "
                         f"{finding_keys.value_text(r)}.")
    eq = numbers.get("equivalence")
    if eq:
        bound = f"±{finding_keys.display(p.record, eq['tolerance']):g}"
        lines.append(f"# Verdict (two one-sided tests at 5 % on those games): "
                     f"{within(eq['shown'], bound)}.")
    lines.append(f"# `analyzer {rerun} balanced.toml` plays those games again (seed and games "
                 "below) and reproduces that estimate.")
    return "\n".join(lines) + "\n" + to_toml(sc)


# ------------------------------------------------------------------ the study


@dataclass
class BalanceResults(Results):
    """A finished balance: ``analyzer.api.Results`` (``out_dir``, ``summary``, the check's
    ``games`` and ``seats``) plus the values found (``values``: knob path -> value) and
    ``balanced.toml`` (``balanced_file``)."""

    values: dict[str, Any] | None = None
    balanced_file: Path | None = None


@checked
def balance(path_or_scenario: str | Path | Scenario, *, vary: Vary, finding: Finding = None,
            equalize: Equalize = None, target: Target = None, tolerance: Tolerance = None,
            keep: Keep = None, budget: Budget = DEFAULT_BUDGET,
            games: int | None = None, popsize: Popsize = None,
            validation_games: ValidationGames = DEFAULT_VALIDATION,
            robustness: Robust = False, search_games: SearchGames = SEARCH_GAMES,
            over: OverParts = None, over_quantile: OverQuantile = None,
            ladder: LadderOption = None, race: RaceOption = False, seed: int | None = None,
            jobs: int | None = None, backend: str = "loky", scheduler: str | None = None,
            out: str | Path | None = None, chunk_size: int | None = None,
            resume: bool = False, force: bool = False, progress: bool = False,
            csv: bool = False, log: Callable[[str], None] | None = None) -> BalanceResults:
    """Find the value of rule options or table numbers that brings a finding to a target
    (``analyzer balance``; see the module docstring).

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
    vary … race
        The command's own options, each said once in its annotation below (``Vary``,
        ``Finding``, …): ``target``, ``tolerance`` and ``keep`` in the unit ``analyzer
        findings`` shows; ``equalize`` comma-separated or a sequence; ``games`` is CMA-ES's
        only (a scan plays ``budget // settings`` per setting and ``log`` says so).
    seed : int, optional
        Root seed (default the scenario's): the probe, the search, the check derive from it.
    jobs, backend, scheduler, chunk_size, progress, csv, out, resume, force
        As for ``analyzer.api.simulate`` (``out`` default ``reports/<name>-balance``;
        ``resume``: the search replays from the saved chunks to the same point and goes on).
    log : callable, optional
        Called with one line per round and step (the CLI prints them).

    Returns
    -------
    BalanceResults

    Raises
    ------
    ScenarioError
        A bad scenario; nothing is written.
    OptionError
        An unknown key (with the allowed ones), a bad knob, target or size; nothing is written.
    analyzer.errors.RunInterrupted
        Ctrl-C; says what is saved.
    """
    say = log or (lambda line: None)
    kept = [keep] if isinstance(keep, str) else list(keep or ())
    wanted = needs_rounds(finding, equalize, kept)
    scenario = with_overrides(validate(path_or_scenario, "balance", wanted or None), seed=seed)
    rounds = wanted and scenario.spec.flow is not None  # (else the probe names the key)
    varied = [vary] if isinstance(vary, str) else list(vary)
    if not 1 <= search_games <= MAX_GAMES:
        raise OptionError("search_games", f"must be in 1..{MAX_GAMES:,} (got {search_games})")
    for name, value in (("games", games), ("validation_games", validation_games)):
        if isinstance(value, int) and value > MAX_GAMES:  # before the run options size chunks
            raise OptionError(name, f"at most {MAX_GAMES:,} (got {value:,})")
    flag = "validation_games" if validation_games > (games or DEFAULT_GAMES) else "games"
    run = prepare(scenario, "balance", jobs=jobs, backend=backend, scheduler=scheduler,
                  out=out, chunk_size=chunk_size, resume=resume, force=force,
                  progress=progress, csv=csv, sizes=[(max(games or DEFAULT_GAMES,
                                                          validation_games), flag,
                                                      runner.DEFAULT_CHUNK_SIZE)],
                  rounds=rounds)
    with tempfile.TemporaryDirectory(prefix="analyzer-balance-") as tmp, _quick_gc():
        scratch = Path(tmp)
        p = plan(scenario, run, finding=finding, equalize=equalize, target=target, vary=varied,
                 budget=budget, games=games, popsize=popsize,
                 validation_games=validation_games, say=say, tolerance=tolerance,
                 keep=kept, over=over,
                 over_quantile=over_quantile, ladder=ladder, search_games=search_games,
                 race=race)
        fingerprint = run.dir.fingerprint(
            scenario, vary=[[k.path, k.low, k.high] for k in p.knobs], keys=list(p.keys),
            equalize=p.equalize, target=p.target, budget=budget, games=p.games,
            popsize=p.popsize, validation_games=validation_games, robustness=robustness,
            search_games=search_games, chunk_size=chunk_size,
            **({"keep": [list(b) for b in p.keep]} if p.keep else {}),  # the bands change
            **({"rounds": True} if rounds else {}),  # what the search takes; as runner.run's
            **_over_identity(p), **({"race": True} if p.race else {}))
        # --plan stops here, after the probe (it finds the finding's study)
        run.estimate = planning.settle(plan_parts(p, robustness, search_games,
                                                  scratch / "plan"),
                                       run.options.jobs, run.options.backend,
                                       rounds=run.options.rounds, final="balance",
                                       chunk=run.options.chunk_size)
        spent = FINDINGS.copy()
        with run.session(nest=True):
            done = _run(run, p, fingerprint, robustness, search_games, scratch, say)
        if FINDINGS[1] > spent[1]:  # measured: a setting's findings, for the next plan
            planning.record_report(scenario.spec.name, "balance-setting",
                                   (FINDINGS[0] - spent[0]) / (FINDINGS[1] - spent[1]))
        return done


def plan_parts(p: Plan, robust: bool, search_games: int, folder: Path) -> list[planning.Part]:
    """What a balance plays after its probe, for ``analyzer.plan``: the search (every setting
    or candidate, priced at the scenario as it is), the fresh-seed check of the original and
    the value found, and with ``robust`` the ladder's rungs; ``--time`` sizes none of them
    (``--budget`` and ``--validation-games`` do). An ablation's tables go to ``folder``."""
    search, _ = p.study.of(p.scenario, folder / "search")
    full, _ = p.full.of(p.scenario, folder / "full")
    candidates = len(p.values) if p.method == "scan" else p.rounds * p.popsize
    how = f"{p.method}, raced: at most" if p.race else p.method

    def settings(what: str, sc: Scenario, n: int, games: int, fresh: str = "") -> planning.Part:
        return planning.Part(f"{what}{n} setting(s) x {games} {fresh}games", sc, n * games,
                             scales=False, reports=n, runs=n, kind="balance-setting")

    parts = [settings(f"search ({how}): ", search, candidates, p.games),
             # the check's findings: on all its games, on the search's arms, and on each
             # jackknife block left out (``check``)
             *(planning.Part(f"check on fresh seeds: {what}", full, p.validation_games,
                             scales=False, reports=2 + GROUPS, kind="balance-setting")
               for what in ("as it is", "the value found"))]
    if robust:
        conditions, _ = player_conditions(full, None, p.validation_games, search_games)
        parts += [planning.Part(f"ladder: {c.label}", c.scenario, c.scenario.games,
                                scales=False, kind="balance-setting")
                  for c in conditions]
    if p.over is not None:  # priced at each cell's players (the drawn tables are not yet)
        points = len(overs.check_values(p.knobs, [k.start if k.start is not None else k.low
                                                  for k in p.knobs]))
        for c in p.cells:
            sc = c.apply(search, content=False)
            parts += [settings(f"over, cell {c.name}: ", sc, candidates, c.games(p.games)),
                      settings(f"over check, cell {c.name}: about ", sc, points,
                               c.games(p.validation_games), "fresh ")]
        parts = parts[1:]  # the search's own part is the cells'
    return parts


def _run(run: StudyRun, p: Plan, fingerprint: dict[str, Any], robust: bool, search_games: int,
         scratch: Path, say: Callable[[str], None]) -> BalanceResults:
    d = run.dir
    d.prepare_chunks(fingerprint, "search", "ladder", "tables", "over-check", overs.TABLES)
    started = time.monotonic()
    overs.write(p.cells, d.path / overs.TABLES)  # the drawn tables the cells read
    cell_rows: list[dict] = []
    looks: list[dict] = []
    values, rows, history = search(run, p, scratch, say, cell_rows, looks)
    search_seconds = time.monotonic() - started
    check_result, numbers, balanced = check(run, p, values, fingerprint, scratch, say)
    over_numbers = over_check(run, p, values, scratch, say) if p.over is not None else None
    ladder_numbers = (ladder(run, p, balanced, numbers["findings"], numbers["seed"], search_games,
                             scratch, say) if robust else None)
    with d.writing("search.parquet") as tmp:
        pd.DataFrame(rows).to_parquet(tmp)
    seconds = time.monotonic() - started
    rec = p.record
    study = {
        "kind": "balance", "keys": list(p.keys), "equalize": p.equalize,
        "target": p.target, "target_is_null": p.target is None and not p.equalize,
        "unit": rec.get("unit"), "scale": rec.get("scale"), "digits": rec.get("digits"),
        "signed": rec.get("signed"), "value_unit": unit_of(p, p.keys[0], None),
        "sentences": {k: p.probe[k].get("sentence") for k in p.keys},
        "knobs": [{"path": k.path, "label": k.label(), "type": k.kind.__name__,
                   "low": k.low, "high": k.high, "start": k.start, "found": v,
                   "table": k.table, "option": k.option}
                  for k, v in zip(p.knobs, values)],
        "method": p.method, "popsize": p.popsize, "rounds": p.rounds,
        "games_per_candidate": p.games, "budget": p.budget, "sigma0": SIGMA0,
        "study": p.study.kind, "arms_searched": list(p.study.arms or ["all"]),
        "items": list(p.study.items), "probe_games": min(PROBE_GAMES, p.scenario.games),
        "history": history, "search_seconds": search_seconds, "check": numbers,
        "ladder": ladder_numbers,
        "files": ["balanced.toml", *sorted({f"{k.table}.toml" for k in p.knobs if k.table})],
        **({"tolerance": p.tolerance} if p.tolerance is not None else {}),
        **({"keep": [{"key": k, "low": lo, "high": hi} for k, lo, hi in p.keep]} if p.keep else {}),
        **({"cma_version": cma_version()} if p.method == "cma" else {}),
    }
    search_arms = max(1, len(p.study.of(p.scenario, scratch)[0].arms))
    played = len(rows) * p.games * search_arms
    if p.race:
        raced = sum(int(r["games"]) for r in rows)
        study["race"] = {"alpha": racing.ALPHA, "spending": racing.SPENDING,
                         "rules": sorted({x["rule"] for x in looks if x.get("rule")}),
                         "looks": looks, "games": raced, "scan_games": len(rows) * p.games,
                         "stopped": sum(bool(r["stopped"]) for r in rows),
                         "settings": len(rows)}
        played = raced * search_arms
    if over_numbers is not None:
        over_numbers["search_games_played"] = (len(rows) * sum(c.games(p.games) for c in p.cells)
                                               * search_arms)
        played = over_numbers["search_games_played"] + over_numbers["games_played"]
        study["over"] = over_numbers
        study["files"].append("over.parquet")
        with d.writing("over.parquet") as tmp:
            pd.DataFrame(cell_rows).to_parquet(tmp)
    played += check_result.games_played * sum(len(v) for v in numbers["arms"].values())
    facts = {
        "games": p.validation_games,
        "arms": [{"name": name if arm == BASE else f"{name}:{arm}", "rules": {}, "seats": []}
                 for name in (ORIGINAL, BALANCED) for arm in numbers["arms"][name]],
        "chunks_resumed": check_result.resumed, "games_played": played, "seconds": seconds,
        "games_per_second": played / seconds if seconds > 0 else None,
    }
    study["command"] = _command(p)
    res = run.finish(p.scenario, check_result, study=study, facts=facts, files={
        "balanced.toml": balanced_toml(p, balanced, values, numbers, study["command"])})
    found = dict(zip([k.path for k in p.knobs], values))
    return BalanceResults(res.out_dir, res.summary, values=found,
                          balanced_file=d.path / "balanced.toml")


def _command(p: Plan) -> str:
    """The command line of this balance, for ``balanced.toml`` and the report."""
    words = ["analyzer", "balance", p.scenario.file]
    if p.equalize:
        words += ["--equalize", ",".join(p.keys)]
    else:
        words += ["--finding", p.keys[0]]
        if p.target is not None:
            words += ["--target", f"{finding_keys.display(p.record, p.target):g}"]
    if p.tolerance is not None:
        words += ["--tolerance", f"{finding_keys.display(p.record, p.tolerance):g}"]
    if p.over is not None:
        words += ["--over", p.over.text]
        if p.over.quantile is not None:
            words += ["--over-quantile", f"{p.over.quantile:g}"]
        if p.ladder is not None:
            words += ["--ladder", ",".join(p.ladder)]
    for key, lo, hi in p.keep:
        rec = p.probe[key]
        words += ["--keep", (f"{key}={finding_keys.display(rec, lo):g}.."
                             f"{finding_keys.display(rec, hi):g}")]
    for k in p.knobs:
        words += ["--vary", f"{k.path}={knobs._plain(k.low)}..{knobs._plain(k.high)}"]
    if p.race:
        words += ["--race"]
    words += ["--budget", str(p.budget), "--validation-games", str(p.validation_games),
              "--seed", str(p.scenario.seed)]
    if p.method == "cma":
        words += ["--games", str(p.games), "--popsize", str(p.popsize)]
    return " ".join(words)


__all__ = ["BalanceResults", "Plan", "Study", "balance", "check", "findings_of", "gap",
           "jackknife", "objective", "plan", "search"]


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The value found, the findings at it on fresh seeds and the balanced scenario."""
    check = results["check"]
    say("found: " + ", ".join(f"{k} = {v}" for k, v in results["values"].items()))
    for key, b in (check["findings"]["balanced"] or {}).items():
        o = check["findings"]["original"].get(key)
        if b is None:
            continue
        line = f"fresh seeds ({check['games']} games): {key} {finding_keys.value_text(b)}"
        if o is not None:
            line += f" (the scenario as it is: {finding_keys.value_text(o)})"
        say(line)
    from analyzer.report.balancing import command_lines  # the report layer, imported when told
    for line in command_lines(run.study):
        say(line)
    say(f"balanced scenario: {res.balanced_file}")


# the command's options (``analyzer.studies``); a union is read as its first type
Vary = Annotated[Sequence[str] | str, typer.Option(
    "--vary", help="PATH=LO..HI with PATH rules.NAME (a numeric rule option, within its bounds) "
                   "or tables.TABLE.ENTRY.FIELD (a number of a content table); repeat to search "
                   "several jointly; top:K[@RUN_DIR]: the K knobs with the largest effect on "
                   "the finding in the analyzer sensitivity run RUN_DIR (default "
                   "reports/NAME-sensitivity), 3 steps either side.")]
Finding = Annotated[str | None, typer.Option(
    help="The key finding or measured figure to bring to --target (analyzer findings RUN_DIR "
         "lists a run's keys).")]
Equalize = Annotated[str | Sequence[str] | None, typer.Option(
    help="KEY,KEY,…: make these findings equal instead.")]
Target = Annotated[float | None, typer.Option(
    help="The value to reach, in the unit analyzer findings shows (10 for 10 % or 10 pp); "
         "default the finding's no-effect value.")]
Tolerance = Annotated[float | None, typer.Option(
    help="D, in the finding's unit: the check on fresh seeds says \"balanced within ±D\" only "
         "when two one-sided tests at 5 % show it (its 90 % interval inside target ± D; "
         "--equalize: every difference inside 0 ± D), else \"not shown\".")]
Keep = Annotated[Sequence[str] | str | None, typer.Option(
    "--keep", help="KEY=LO..HI (any finding key, the band in its unit): a setting whose "
                   "estimate of KEY leaves the band is refused; repeat for several. A quality: "
                   "key (quality:lead_changes:base=1..3) records every game's rounds.")]
Budget = Annotated[int, typer.Option(
    help="Games the search may play in all (a scan of integer knobs: budget / settings per "
         "setting).")]
Popsize = Annotated[int | None, typer.Option(
    help="Candidates per round of a CMA-ES search (default 4 + 3 ln(knobs)).")]
ValidationGames = Annotated[int, typer.Option(
    help="Games of the check on fresh seeds, per arm, the original and the value found on the "
         "same seeds.")]
Robust = Annotated[bool, typer.Option(
    "--robustness", help="Also play the value found by every rung of the player ladder "
                         "(random, greedy, tuned, ismcts) and say where the balance holds.")]
SearchGames = Annotated[int, typer.Option(
    help="With --robustness or --over players: games per arm for a ladder player that "
         "searches (ismcts).")]
OverParts = Annotated[str | None, typer.Option(
    "--over", help="players, content[:K] or players,content[:K]: the value must balance for "
                   "every rung of the player ladder and K draws of each guessed content table "
                   "(default K 2): the search minimises the worst case over them (same seeds) "
                   "and the check gives the range of values within --tolerance in every one. "
                   "Needs --tolerance.")]
OverQuantile = Annotated[float | None, typer.Option(
    help="With --over: minimise this quantile (0..1] of the players' and draws' distances "
         "from the goal instead of the worst (1).")]
RaceOption = Annotated[bool, typer.Option(
    "--race", help="Race the scan's settings: play them in looks of growing size on the same "
                   "seeds and stop early a setting shown farther from the goal than another "
                   "(paired on the seeds; alpha spending over the looks: the nearest setting "
                   "stops with at most 5 % chance); fewer games, same check.")]
LadderOption = Annotated[str | None, typer.Option(
    "--ladder", help="With --over players: the rungs, comma-separated (policy names, "
                     "POLICY:key=value, tuned or a parameters file; default random, greedy, "
                     "tuned, ismcts where the game has each).")]

KIND = StudyKind(
    "balance", "balance search", balance, ("scenario", ScenarioFile), tell=tell,
    default_out="{name}-balance", own_report="analyzer.report.balancing",
    results=("balance",), answers="analyzer.report.answers:balance", families={
        "balance": ("the value that brings the finding to its target, and its change",
                    "the finding's unit")},
    budgets="its cost is set by --budget and --validation-games; its probe plays first",
    flag_help={"games": "Games per candidate per round of a CMA-ES search (all candidates of a "
                        "round on the same seeds; default 200).",
               "chunk_size": "Game seeds per chunk (default: about 250 games per chunk; never "
                             "changes results).",
               "quiet": "No line per round."},
    help="""Find the rule or table value that brings a finding to a target, checked on fresh seeds
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
    """)
