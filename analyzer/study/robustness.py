"""``analyzer robustness``: does each key finding of a study hold for other players and other
rule defaults?

The scenario is played as it is (the base run), once more on new seeds (the **replicate**,
``OUT/robustness/replicate/``, ``replicate_seed``) and under each **condition** on the
replicate's seeds: every seat played by one rung of a ladder of players
(``player_conditions``), one labelled default changed to a documented alternative
(``rule_conditions``), or a plausible draw of a guessed content table (``content_conditions``,
judged also per table: ``content_verdicts``); README, "Does the answer hold?". Each is an
ordinary run directory under ``OUT/robustness/<condition>/`` holding only the numbers read
(``study.run.numbers_only``); its key findings are matched to the base's by their stable
``key``. Per finding and condition the state is one of

``same``          the condition's 95 % interval excludes no effect, on the base's side;
``flip``          it excludes no effect on the other side, and the difference condition − base
                  is significant after Holm over the finding's conditions;
``lost``          it does not, and that difference is significant towards no effect;
``wide``          neither (too few games to tell);
``unmeasurable``  the condition cannot measure the finding (no comparison group, a card nobody
                  takes; the record says why) — it counts neither way;
``absent``        the condition does not compute the finding (e.g. a policy's effect when every
                  seat plays one rung).

The difference is each run's effect against its own no-effect value (a condition's own
reference), condition − replicate (the base selected the findings judged, so its estimates lean
away from no effect — the winner's curse — and a difference from it would lean to "lost"; the
replicate is untouched by that selection; where it cannot measure a finding, condition − base),
tested by a paired t-test of the per-game values on the shared game seeds where the
finding is a per-game quantity in both runs (``findings.parquet``, ``paired_record``), else by a
two-sample z-test with both standard errors (``compare``); Holm over the conditions that measure
the finding keeps the chance of a false "sensitive" at 5 % per finding (measured:
``tests/stats/test_robustness_calibration.py``). A finding about an item the run chose (a site,
a goods source) is compared on the base's item in every condition. The verdict is **holds**
(``same`` in every condition that measures it), **sensitive** (a ``flip`` or ``lost``
somewhere, naming where) or **unresolved** (no ``flip``/``lost`` but some ``wide``; and always
when the base finding is not significant after the run's Holm correction — then no condition
is judged); **unchecked** when no condition measures it. "Holds" asks every condition's own
test to reject no effect, an intersection–union test, so it needs no correction over the
conditions (Berger & Hsu, Statist. Sci. 1996;11:283). A measured figure (a share or a rate
without a no-effect value) gets no verdict: its range over the conditions is given.

The verdicts are written to ``OUT/robustness/robustness.json``; the base report, re-rendered,
carries them in its key findings and a "Robustness" section (``analyzer/report/robustness.py``).
This module names no game: the ladder and the alternatives come from the game's registry and
option declarations.
"""

from __future__ import annotations

import json
import math
import time
import tomllib
import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import typer

from analyzer import games, plan, report, runner, stats, studies
from analyzer.errors import OptionError, RuleError, ScenarioError
from analyzer.keywords import checked
from analyzer.model.base import build_policy
from analyzer.model.content import ContentPrior, priors_in_use
from analyzer.model.ismcts import Ismcts
from analyzer.report.document import number
from analyzer.report.findings import PER_GAME
from analyzer.report.robustness import FOLDER, NOT_JUDGED, RESULT, reason
from analyzer.rundir import CHUNKS, RunDir, read_fingerprint
from analyzer.scenario import MAX_GAMES, Scenario, Seat, read_params_file, to_toml
from analyzer.studies import Rounds, ScenarioFile, StudyKind
from analyzer.study import run as study_run
from analyzer.study.run import Results, prepare, simulate, validate
from analyzer.study.sweep import parse_value

SPREAD = 8  # chunks per arm a condition has at least: its few slow games spread over workers
PLAN = "plan.json"  # OUT/robustness/plan.json: the conditions a check runs, written first
REPLICATE = "replicate"  # OUT/robustness/replicate/: the base run again on new seeds
REPLICATE_KEY = 0x7265706C  # spawn key of the replicate's root seed ("repl")

# the strongest rung is the game's default ismcts (README: "Players of known strength"), never a
# cut-down setting rated below the tuned greedy
MAX_CONTENT = 1000  # draws per content table: each is a full run of the scenario
DEFAULT_LADDER = ("random", "greedy", "tuned", "ismcts")
# games per arm of a rung whose policy searches: with every seat searching (about 0.39 CPU s a game
# of the default study, measured 2026-12-03 on the idle but slow 2-core machine), the default
# study's ismcts rung costs about 4 CPU-minutes at 200 (3 arms, 600 games; README, "Cost")
SEARCH_GAMES = 200


@dataclass(frozen=True)
class Condition:
    """One re-run of the scenario.

    Attributes
    ----------
    name : str
        Folder and key, e.g. ``"players-random"`` or ``"rule-OPTION-VALUE"``.
    kind : str
        ``"players"``, ``"rule"``, ``"content"`` or ``"replicate"``.
    label : str
        What changed, for the report: ``"every seat: random"``,
        ``"OPTION = true (default false)"``.
    scenario : Scenario
        The scenario to play (same seeds as the base; ``games`` per arm).
    prior : ContentPrior, optional
        A ``"content"`` condition's prior: its scenario plays the prior's draw ``draw_seed``.
    draw_seed : int
        The seed of that draw (``ContentPrior.draw``).
    differs : str
        What differs in that draw from the built-in table (``ContentPrior.describe``).
    option : str
        A ``"rule"`` condition's rule option (the one value it changes): its games that did
        not consult it in the replicate are copied from there (``runner.copy_from``).
    """

    name: str
    kind: str
    label: str
    scenario: Scenario
    prior: ContentPrior | None = None
    draw_seed: int = 0
    differs: str = ""
    option: str = ""

    @property
    def file(self) -> str:
        """The file name of a content condition's drawn table (``ContentPrior.write``)."""
        assert self.prior is not None
        return f"{self.prior.table}-{self.draw_seed}.toml"


# ------------------------------------------------------------------ the conditions


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _folder_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text).strip("-.") or "x"


def rung(scenario: Scenario, token: str, *, required: bool = True) -> tuple[str, Seat] | None:
    """The seat a ladder entry names.

    ``token`` is a policy name (``"greedy"``), a policy with parameters
    (``"ismcts:iterations=100"``, ``":"`` between ``key=value`` pairs), ``"tuned"`` (the
    parameters file ``tuned_file``) or a path to a parameters file (``*.toml``).

    Returns
    -------
    (str, Seat) or None
        The rung's name and its seat; ``None`` when the game lacks the policy or the tuned file
        and ``required`` is false.

    Raises
    ------
    OptionError
        (keyword ``players``) an unknown policy, a bad parameter, a missing or bad file.
    """
    spec = scenario.spec
    token = token.strip()
    if token == "tuned" or token.endswith(".toml"):
        path = tuned_file(scenario) if token == "tuned" else Path(token)
        if path is None:
            if not required:
                return None
            raise OptionError("players", f"tuned: {no_tuned(scenario)} (make them with "
                                         "`analyzer tune`, or name a file)")
        try:
            policy, params = read_params_file(path, None, spec)
        except ScenarioError as err:
            raise OptionError("players", str(err)) from None
        name = "tuned" if token == "tuned" else _folder_name(path.stem)
        return name, Seat(name, policy, params)
    policy, *pairs = token.split(":")
    if policy not in spec.policies:
        if not required:
            return None
        raise OptionError("players", f"{policy!r} is not a {spec.name} policy (allowed: "
                                     f"{', '.join(sorted(spec.policies))}, tuned, or a "
                                     "parameters file *.toml)")
    params: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise OptionError("players", f"{token!r}: write parameters as "
                                         "POLICY:key=value[:key=value…]")
        params[key.strip()] = parse_value(value.strip())
    try:
        build_policy(spec.policies, policy, params)
    except RuleError as err:
        raise OptionError("players", f"{token!r}: {err}") from None
    name = _folder_name(token.replace(":", "-").replace("=", ""))
    return name, Seat(name, policy, params)


TUNED_FILE = "greedy-tuned.toml"  # the tuned greedy a game package ships (its search's rollout)


def _tuned_places(scenario: Scenario) -> list[Path]:
    """Where the ``tuned`` rung is looked for, in order: ``tuned/<game>-greedy.toml`` beside
    the scenario (as ``analyzer tune`` ships them), then the game package's own
    ``greedy-tuned.toml`` (``analyzer/games/<game>/``)."""
    spec = scenario.spec
    here = (Path(scenario.file).parent if scenario.file and not scenario.file.startswith("<")
            else Path("."))
    return [here / "tuned" / f"{spec.name}-greedy.toml",
            Path(games.__file__).resolve().parent / spec.name / TUNED_FILE]


def tuned_file(scenario: Scenario) -> Path | None:
    """The parameters file of the ``tuned`` rung: the first of ``_tuned_places`` that exists,
    wherever the scenario is (so the default ladder and ``--players tuned`` find the same
    file); ``None`` when there is none."""
    return next((p for p in _tuned_places(scenario) if p.is_file()), None)


def no_tuned(scenario: Scenario) -> str:
    """Why there is no ``tuned`` rung, in words (the places looked at)."""
    return (f"no tuned parameters for {scenario.spec.name} at "
            + " or ".join(str(p) for p in _tuned_places(scenario)))


def searches(scenario: Scenario, seat: Seat) -> bool:
    """Whether ``seat``'s policy searches (costly per decision): its class is an ``Ismcts``."""
    cls = scenario.spec.policies.get(seat.policy)
    return isinstance(cls, type) and issubclass(cls, Ismcts)


def player_conditions(scenario: Scenario, ladder: Sequence[str] | None, games: int,
                      search_games: int) -> tuple[list[Condition], list[str]]:
    """One condition per rung of ``ladder`` (``None``: ``DEFAULT_LADDER``, leaving out rungs the
    game lacks): every seat of every arm plays the rung; a searching rung plays
    ``min(games, search_games)`` games per arm.

    Returns
    -------
    (conditions, same_as_base)
        ``same_as_base``: rungs every seat of every arm already plays (the base run is that
        condition; not run again).
    """
    out, same = [], []
    named: dict[str, str] = {}  # condition name -> the ladder entry that gave it
    tokens = [t.strip() for t in (DEFAULT_LADDER if ladder is None else ladder)]
    stems = [Path(t).stem for t in tokens if t.endswith(".toml")]
    for token in tokens:
        found = rung(scenario, token, required=ladder is not None)
        if found is None:
            continue
        name, seat = found
        file = token.endswith(".toml")
        if file and stems.count(Path(token).stem) > 1:
            # two files of one name in two folders: each named by its path as given
            name = _folder_name(token.removesuffix(".toml").replace("/", "-"))
            seat = replace(seat, name=name)
        if name in named:  # two entries, one folder: the second would overwrite the first
            twice = ("given twice" if named[name] == token else
                     f"{named[name]!r} and {token!r} both name it")
            raise OptionError("players", f"two ladder players would share the condition "
                                         f"players-{name} ({twice}); give each once, or rename "
                                         "a parameters file")
        named[name] = token
        if all((s.policy, dict(s.params)) == (seat.policy, dict(seat.params))
               for a in scenario.arms for s in a.seats):
            same.append(name)
            continue
        arms = tuple(replace(a, seats=tuple(seat for _ in a.seats)) for a in scenario.arms)
        n = min(games, search_games) if searches(scenario, seat) else games
        params = ", ".join(f"{k} = {_value_text(v)}" for k, v in seat.params.items())
        label = (f"every seat: {seat.policy} with the tuned parameters" if name == "tuned" else
                 f"every seat: {name} ({seat.policy}, parameters from {Path(token).name})"
                 if file else  # named by its file, not its many values
                 f"every seat: {seat.policy}" + (f" ({params})" if params else ""))
        out.append(Condition(f"players-{name}", "players", label,
                             replace(scenario, arms=arms, games=n,
                                     name=f"{scenario.name}-players-{name}")))
    return out, same


def left_out(scenario: Scenario, ladder: Sequence[str] | None) -> dict[str, str]:
    """The rungs of the default ladder (``ladder`` ``None``) the game lacks, each with why it
    was left out (the report says so); empty for a ladder the user gave (every entry of it
    must exist)."""
    if ladder is not None:
        return {}
    return {t: no_tuned(scenario) if t == "tuned" else f"{scenario.spec.name} has no {t!r} player"
            for t in DEFAULT_LADDER if rung(scenario, t, required=False) is None}


def alternatives(option: Any, value: Any) -> list[Any]:
    """The documented other values of a labelled default now at ``value``: a ``bool``'s other
    value, a ``str`` option's other ``choices``, else ``option.alternatives``."""
    if option.type is bool:
        return [not value]
    if option.type is str and option.choices:
        return [c for c in option.choices if c != value]
    return [v for v in option.alternatives if v != value]


def defaults_in_use(scenario: Scenario) -> list[tuple[str, Any, str]]:
    """``(name, value, section)`` of every labelled default any arm of the scenario uses, in
    the game's order (``analyzer.study.run.defaults_in_use``, the arms merged)."""
    seen: dict[str, tuple[str, Any, str]] = {}
    for values in study_run.defaults_in_use(scenario).values():
        for rv in values:
            seen.setdefault(rv.name, (rv.name, rv.value, rv.section))
    return list(seen.values())


def rule_conditions(scenario: Scenario, names: Sequence[str] | None,
                    games: int) -> tuple[list[Condition], list[str]]:
    """One condition per alternative of each labelled default in use (``names``: only those;
    ``None``: all). Each arm that leaves the option at its default gets the alternative; an arm
    that sets it keeps its own value.

    Returns
    -------
    (conditions, without)
        ``without``: the defaults in use that have no documented alternative (content tables,
        simulator guards, values without a documented range).

    Raises
    ------
    OptionError
        (keyword ``defaults``) a name that is not a labelled default of this run.
    """
    spec = scenario.spec
    used = defaults_in_use(scenario)
    alts = {n: alternatives(spec.options[n], v) if n in spec.options else [] for n, v, _ in used}
    varied = [n for n, a in alts.items() if a]
    if names is not None:
        allowed = f"(allowed: {', '.join(varied) or 'none'})"
        bad = [n for n in names if n not in alts]
        if bad:
            raise OptionError("defaults", f"{', '.join(bad)}: not a labelled default of this run "
                                          f"{allowed}")
        fixed = [n for n in names if n not in varied]
        if fixed:
            raise OptionError("defaults", f"{', '.join(fixed)}: a labelled default without a "
                                          f"documented alternative, so not varied {allowed}")
    out, without = [], []
    for name, value, _section in used:
        if names is not None and name not in names:
            continue
        if not alts[name]:
            without.append(name)
            continue
        for alt in alts[name]:
            arms = [replace(a, rules={**a.rules, name: a.rules.get(name, alt)})
                    for a in scenario.arms]
            try:
                for arm in arms:
                    spec.make_config(scenario.arm_players(arm), scenario.expansions, arm.rules)
            except RuleError:  # this alternative does not fit the run (e.g. another count)
                continue
            tag = _folder_name(f"{name}-{_value_text(alt)}")
            out.append(Condition(
                f"rule-{tag}", "rule", f"{name} = {_value_text(alt)} (default "
                f"{_value_text(value)})", replace(scenario, arms=tuple(arms), games=games,
                                                  name=f"{scenario.name}-{tag}"), option=name))
    return out, without


# ------------------------------------------------------------------ the replicate


def replicate_seed(seed: int) -> int:
    """The root seed of the replicate of a run with root ``seed`` (and of every condition):
    ``SeedSequence(seed, spawn_key=(REPLICATE_KEY,))`` as a 32-bit integer. Its games are not
    the base's, so the replicate and the conditions are independent of the base run that
    selected the findings; the same run seed gives the same replicate."""
    return _seed32(seed, REPLICATE_KEY)


def _seed32(seed: int, *key: int) -> int:
    """``SeedSequence(seed, spawn_key=key)`` as a 32-bit integer."""
    return int(np.random.SeedSequence(int(seed), spawn_key=key).generate_state(1, np.uint32)[0])


def replicate_condition(scenario: Scenario) -> Condition:
    """The base scenario on the replicate's seeds (``replicate_seed``), played into
    ``OUT/robustness/replicate/``: the reference every condition's difference is taken
    against (``verdict``'s ``reference``), and a second look at the base's values."""
    seed = replicate_seed(scenario.seed)
    return Condition(REPLICATE, REPLICATE, f"this run replayed on new seeds (seed {seed})",
                     replace(scenario, seed=seed, name=f"{scenario.name}-{REPLICATE}"))


# ------------------------------------------------------------------ guessed content

DEFAULT_CONTENT = 2  # draws per guessed content table when --content is not given (README)
CONTENT_KEY = 0x636F6E74  # spawn key of the content draws ("cont"): apart from the games' seeds
TABLES = "drawn-tables"  # OUT/robustness/drawn-tables/: the drawn tables the conditions play


def content_seed(seed: int, table: str, i: int) -> int:
    """The seed of draw ``i`` (1, 2, ...) of content table ``table`` in a run with root
    ``seed``: ``SeedSequence(seed, spawn_key=(CONTENT_KEY, crc32(table), i))`` as a 32-bit
    integer, so the same (run seed, table, draw) gives the same draw and two tables' draws
    have seeds of their own (a report naming "seed N" names one draw of one table)."""
    return _seed32(seed, CONTENT_KEY, zlib.crc32(table.encode("utf-8")), int(i))


def content_in_use(scenario: Scenario) -> list[ContentPrior]:
    """The guessed content tables that act in some arm of ``scenario`` and that the arm does
    not replace with a file of its own (``priors_in_use``; a drawn file the arm names is
    still a guess, but the arm's), in the game's declaration order."""
    spec = scenario.spec
    used: set[str] = set()
    for arm in scenario.arms:
        config = spec.make_config(scenario.arm_players(arm), scenario.expansions, arm.rules)
        used |= {p.table for p in priors_in_use(spec, config) if p.option not in arm.rules}
    return [p for p in spec.content_priors if p.table in used]


def content_conditions(scenario: Scenario, draws: int, tables: Sequence[str] | None,
                       games: int, folder: Path) -> list[Condition]:
    """``draws`` conditions per guessed content table in use (``tables``: only those; ``None``:
    all in use), named ``content-<table>-<i>``: every arm that uses the built-in table plays
    draw ``i`` of its prior (seed ``content_seed(scenario.seed, table, i)``), read from
    ``folder/<table>-<seed>.toml`` (written when the condition is played).

    Raises
    ------
    OptionError
        (keyword ``content``) ``draws`` is not an integer from 0 to ``MAX_CONTENT``; (``content_tables``) a name
        that is not a guessed content table in use in this run (the message lists those).
    """
    if isinstance(draws, bool) or not isinstance(draws, int) or not 0 <= draws <= MAX_CONTENT:
        raise OptionError("content", f"must be a number of draws from 0 to {MAX_CONTENT:,} (got "
                                     f"{draws!r}; 0: no content conditions)")
    used = content_in_use(scenario)
    names = [p.table for p in used]
    if tables is not None:
        every = [p.table for p in scenario.spec.content_priors]
        bad = [t for t in tables if t not in names]
        if bad:
            why = ("not a guessed content table of " + scenario.spec.name
                   if any(t not in every for t in bad) else "not in use in this run")
            raise OptionError("content_tables", f"{', '.join(bad)}: {why} (allowed: "
                                                f"{', '.join(names) or 'none'})")
        used = [p for p in used if p.table in tables]
    out = []
    for p in used:
        for i in range(1, draws + 1):
            seed = content_seed(scenario.seed, p.table, i)
            path = str((folder / f"{p.table}-{seed}.toml").resolve())
            arms = tuple(replace(a, rules={**a.rules, p.option: path})
                         if p.option not in a.rules else a for a in scenario.arms)
            out.append(Condition(
                f"content-{p.table}-{i}", "content", f"{p.table} draw {i} (seed {seed})",
                replace(scenario, arms=arms, games=games,
                        name=f"{scenario.name}-content-{p.table}-{i}"),
                prior=p, draw_seed=seed, differs=p.describe(p.draw(seed))))
    return out


def keep_draw(c: Condition, run_dir: Path) -> None:
    """Put a finished content condition's drawn table in its run directory and make its
    ``scenario.toml`` name it by a relative path, so that ``analyzer validate`` / ``simulate``
    / ``report`` on that file read the same table wherever the directory is."""
    if c.prior is None:
        return
    c.prior.condition(c.draw_seed, run_dir)
    RunDir(run_dir, {}).write("scenario.toml", to_toml(portable(c, run_dir)))


def portable(c: Condition, run_dir: Path) -> Scenario:
    """A content condition's scenario with its drawn table named by the file name (read
    beside the scenario file in ``run_dir``) instead of the absolute path it was played
    from: what its ``scenario.toml`` says, the same wherever the directory is."""
    if c.prior is None:
        return c.scenario
    drawn = str((run_dir.parent / TABLES / c.file).resolve())  # what the run read
    option = c.prior.option
    arms = tuple(replace(a, rules={**a.rules, option: c.file}) if a.rules.get(option) == drawn
                 else a for a in c.scenario.arms)
    return replace(c.scenario, arms=arms)


def wants_rounds(scenario: Scenario, rounds: bool) -> bool:
    """Whether a run of ``scenario`` with ``rounds`` records them (only a game with a
    ``GameSpec.flow`` does)."""
    return bool(rounds) and getattr(scenario.spec, "flow", None) is not None


def rounds_as_asked(run_dir: Path, scenario: Scenario, rounds: bool) -> bool:
    """Whether the run in ``run_dir`` recorded its rounds (its chunks' fingerprint says
    ``rounds``, ``runner.run``; not when it has no readable fingerprint) exactly when a run of
    ``scenario`` with ``rounds`` records them (``wants_rounds``)."""
    found = read_fingerprint(Path(run_dir) / CHUNKS)
    return bool((found or {}).get("rounds")) == wants_rounds(scenario, rounds)


def finished(c: Condition, run_dir: Path, rounds: bool = False) -> bool:
    """Whether ``run_dir`` holds the finished run of condition ``c``, its rounds recorded
    exactly as asked (``rounds_as_asked``; else the findings would differ by the ``quality:``
    family). A content condition's directory moved elsewhere (with its ``OUT``; its chunks
    name the drawn table by an absolute path) is known by what ``keep_draw`` wrote: its
    ``scenario.toml`` (``portable``), this draw beside it and a finished ``summary.json`` of
    these seeds and games."""
    if not rounds_as_asked(run_dir, c.scenario, rounds):
        return False
    target = RunDir(run_dir, {})
    if target.finished(c.scenario):
        return True
    if c.prior is None:
        return False
    try:
        summary = json.loads((run_dir / "summary.json").read_text())
        # the same data, whatever the layout (a TOML writer's may differ by version)
        written = tomllib.loads((run_dir / "scenario.toml").read_text())
        table = (run_dir / c.file).read_text(encoding="utf-8")
    except (OSError, ValueError):  # tomllib.TOMLDecodeError is a ValueError
        return False
    run = (summary.get("run") or {}) if isinstance(summary, dict) else {}
    return (bool(summary.get("results")) and run.get("seed") == c.scenario.seed
            and run.get("games") == c.scenario.games and run.get("target_ci") is None
            and written == tomllib.loads(to_toml(portable(c, run_dir)))
            and table == c.prior.to_toml(c.prior.draw(c.draw_seed), c.draw_seed))


def content_verdicts(base: Mapping[str, Any], found: Mapping[str, Mapping[str, Any] | None],
                     conditions: Sequence[Condition], changed: Mapping[str, int | None],
                     overall: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per guessed content table, what the finding's verdict says of that table's draws, and a
    sentence saying what the check covered or which draw moves the finding and what differs in
    that draw.

    One family: the states are the overall verdict's (``overall``, ``verdict`` over every
    condition of the finding, Holm over all of them), read on the table's draws; a table is
    "sensitive" only where the overall verdict names one of its draws, so a table's sentence
    never contradicts the overall verdict (issue #32 R2: Holm over one table's draws alone
    said "sensitive" where the overall verdict said "unresolved").

    ``base`` and ``found`` (condition name -> the finding's record there) are as for
    ``verdict``; the ``"content"`` ones of ``conditions`` are grouped by table; ``changed``:
    condition name -> games that differ from the base's (``changed_games``); ``overall``: the
    finding's verdict over all conditions (``verdict``). Returns ``table -> {"verdict",
    "draws", "sentence", "idle", "family", states, tests, …}``, empty without content
    conditions.
    """
    by_table: dict[str, list[Condition]] = {}
    for c in conditions:
        if c.kind == "content" and c.prior is not None:
            by_table.setdefault(c.prior.table, []).append(c)
    out = {}
    for table, conds in by_table.items():
        v = _on_table(base, found, overall, [c.name for c in conds])
        idle = [c.name for c in conds if changed.get(c.name) == 0]
        out[table] = {**v, "draws": len(conds), "family": "every condition of the finding",
                      "idle": idle, "sentence": content_sentence(v, conds, base, idle),
                      "short": content_sentence(v, conds, base, idle, details=False)}
    return out


def _on_table(base: Mapping[str, Any], found: Mapping[str, Mapping[str, Any] | None],
              overall: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """The overall verdict ``overall`` read on the conditions ``names`` (one table's draws):
    their states and tests as the overall Holm gave them, and the verdict they make alone."""
    if overall.get("verdict") == "figure":
        return verdict(base, {n: found.get(n) for n in names})
    states = {n: (overall.get("states") or {}).get(n, "absent") for n in names}
    tests = overall.get("tests") or {}
    return _ruling(states, bool(overall.get("base_significant", True)),
                   unmeasurable={n: r for n, r in (overall.get("unmeasurable_in") or {}).items()
                                 if n in names},
                   tests={n: tests[n] for n in names if n in tests},
                   reference=overall.get("reference", "base"),
                   reason=overall.get("reason", ""), name_unjudged=True)


def content_sentence(v: Mapping[str, Any], conds: Sequence[Condition],
                     base: Mapping[str, Any], idle: Sequence[str], details: bool = True) -> str:
    """The sentence of ``content_verdicts`` for one table (``v``: its verdict over ``conds``,
    the draws of that table; ``idle``: the draws that changed no game); ``details``: with what
    differs in each draw that moves the finding (``ContentPrior.describe``), else the draws'
    names only."""
    noun = conds[0].prior.draws_noun if conds[0].prior is not None else "tables"
    states = v.get("states") or {}
    measured = [c for c in conds if states.get(c.name) not in ("absent", "unmeasurable", None)]
    tail = (f" ({', '.join(idle)} changed no game)" if idle else "")
    by_name = {c.name: c for c in conds}

    def named(names: Sequence[str]) -> str:
        if not details:
            return ", ".join(names)
        return "; ".join(f"{n} ({by_name[n].differs})" for n in names)

    result = v.get("verdict")
    if result == "holds":
        return f"holds over {len(measured)} plausible {noun}{tail}"
    if result == "sensitive":
        parts = [f"{what} with {named(names)}" for what, names in (
            ("flipped", [c for c in v["sensitive_to"] if states.get(c) == "flip"]),
            ("lost", [c for c in v["sensitive_to"] if states.get(c) == "lost"])) if names]
        return (f"sensitive to the {noun}: of {len(measured)} plausible {noun}, "
                + "; ".join(parts) + tail)
    if result == "unresolved" and not v.get("base_significant", True):
        return f"not judged over {len(conds)} plausible {noun}: {NOT_JUDGED}{tail}"
    if result == "unresolved":
        return (f"unresolved over {len(measured)} plausible {noun}: too few games to tell with "
                + ", ".join(v["unresolved_in"]) + tail)
    if result == "figure" and v.get("range"):
        unit = f" {base['unit']}" if base.get("unit") else ""
        lo, hi = (number(x, float(base.get("scale") or 1.0), int(base.get("digits") or 2)) + unit
                  for x in v["range"])
        return (f"from {lo} to {hi} over "
                f"{len(conds)} plausible {noun} (a measured figure, no verdict){tail}")
    return f"not measured with the {noun}{tail}"


# ------------------------------------------------------------------ verdicts

ALPHA = 0.05  # family-wise error of the difference tests over the conditions of one finding
METHOD = ("holds = under every condition that measures the finding its own 95 % interval "
          "excludes no effect on the base's side (intersection-union); flipped / lost = the "
          "difference condition − replicate (the base replayed on the conditions' new seeds; "
          "condition − base where the replicate cannot measure the finding; each against its "
          "own no-effect value) is significant "
          "after Holm over the conditions of the finding: a paired t-test of the per-game values "
          "on the shared game seeds where the finding is a per-game quantity in both runs, else "
          "a two-sample z-test with both standard errors; a finding not significant after Holm "
          "in the base is unresolved")


def _num(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _effect(record: Mapping[str, Any], log: bool) -> tuple[float, float, float]:
    """``(estimate, lo, hi) − null`` of a finding record, on the log scale for a ratio; ``nan``
    where a value is missing or a ratio is not positive."""
    null = _num(record.get("null"))
    values = [_num(record.get(k)) for k in ("estimate", "lo", "hi")]
    if log:
        if null <= 0 or any(not v > 0 for v in values):
            return math.nan, math.nan, math.nan
        return tuple(math.log(v) - math.log(null) for v in values)  # type: ignore[return-value]
    return tuple(v - null for v in values)  # type: ignore[return-value]


def _side(lo: float, hi: float) -> int:
    """+1 when ``[lo, hi]`` lies above 0, −1 below, 0 when it includes 0 (or is missing)."""
    return 1 if lo > 0 else (-1 if hi < 0 else 0)


def compare(base: Mapping[str, Any], other: Mapping[str, Any]) -> stats.Comparison:
    """The test of a condition's finding against the base's: the difference of their effects
    (estimate − each record's own ``null``; log ratio when ``base["log"]``).

    ``other`` may carry the difference already paired game by game (``assess`` adds it from
    the runs' per-game values): ``diff``, ``diff_lo``, ``diff_hi`` and optionally ``diff_p``,
    ``diff_test``, ``diff_games``. Without them the two records are independent samples: a
    two-sample z-test with the standard errors read off both 95 % intervals.
    """
    log = bool(base.get("log"))
    d, lo, hi = (_num(other.get(k)) for k in ("diff", "diff_lo", "diff_hi"))
    if not any(math.isnan(v) for v in (d, lo, hi)):
        p = _num(other.get("diff_p"))
        if math.isnan(p):
            se = stats.interval_se(lo, hi)
            p = (0.0 if d else 1.0) if se == 0 else math.erfc(abs(d) / se / math.sqrt(2))
        return stats.Comparison(d, lo, hi, float(p), str(other.get("diff_test") or "paired"),
                                int(other.get("diff_games") or 0))
    return stats.two_sample_comparison(_effect(base, log)[0], _se(base, log),
                                       _effect(other, log)[0], _se(other, log))


def _se(record: Mapping[str, Any], log: bool) -> float:
    """A record's standard error: its ``se`` (``summary.json`` gives it, on the log scale for
    a ratio), else read off its 95 % interval."""
    se = _num(record.get("se"))
    if not math.isnan(se):
        return se
    _, lo, hi = _effect(record, log)
    return stats.interval_se(lo, hi)


def _usable(reference: Mapping[str, Any] | None, log: bool) -> bool:
    """Whether a replicate's record can be the reference of the differences: measured, with
    an estimate and interval."""
    return (reference is not None and not reference.get("unmeasurable")
            and not any(math.isnan(v) for v in _effect(reference, log)))


def _judge(base: Mapping[str, Any], by_condition: Mapping[str, Mapping[str, Any] | None],
           reference: Mapping[str, Any] | None = None) -> tuple[dict[str, str], dict[str, Any]]:
    """Per condition its state and the test of its difference from ``reference`` (default:
    the base; Holm over the conditions that measure the finding). The side a condition must
    keep is always the base's."""
    log = bool(base.get("log"))
    against = base if reference is None else reference
    e0 = _effect(base, log)[0]
    side0 = 1 if e0 > 0 else -1
    states: dict[str, str] = dict.fromkeys(by_condition, "")  # in the conditions' order
    tests: dict[str, dict[str, Any]] = {}
    own: dict[str, int] = {}
    for c, r in by_condition.items():
        if r is not None and r.get("unmeasurable"):
            states[c] = "unmeasurable"
            continue
        e1, lo1, hi1 = _effect(r or {}, log)  # not computed there (``None``): absent
        if any(math.isnan(v) for v in (e0, e1, lo1, hi1)):
            states[c] = "absent"
            continue
        own[c] = _side(lo1, hi1)
        comp = compare(against, r)
        tests[c] = asdict(comp)  # diff, lo, hi, p_value, test, games
    names = list(tests)
    adjusted, reject = stats.adjust_pvalues([tests[c]["p_value"] for c in names], "holm", ALPHA)
    for c, p_holm, moved in zip(names, adjusted, reject):
        t = tests[c]
        t["p_holm"] = float(p_holm)
        if t["test"] == "exact":  # the difference has no sampling error
            moved = t["diff"] != 0
        if own[c] == side0:
            states[c] = "same"
        elif moved and own[c] == -side0:
            states[c] = "flip"
        elif moved and t["diff"] * side0 < 0:
            states[c] = "lost"
        else:
            states[c] = "wide"
    return states, tests


def state(base: Mapping[str, Any], other: Mapping[str, Any] | None) -> str:
    """The state (the module docstring's: ``same``, ``flip``, ``lost``, ``wide``,
    ``unmeasurable``, ``absent``) of a tested finding under one condition, tested alone
    (``verdict`` corrects over the conditions of a finding). ``base`` and ``other`` are finding
    records of ``summary.json`` (``estimate``, ``lo``, ``hi``, ``null``; optionally ``log`` and
    the paired difference, see ``compare``); each is judged against its own ``null``."""
    return _judge(base, {"c": other})[0]["c"]


def verdict(base: Mapping[str, Any], by_condition: Mapping[str, Mapping[str, Any] | None], *,
            reference: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The verdict of one key finding over the conditions: only a finding significant in the
    base is judged, on the base's side; the differences are taken against ``reference`` where
    given (the replicate: why, in the module docstring).

    Parameters
    ----------
    base : mapping
        The finding's record in the base run (``summary.json`` ``findings``: ``estimate``,
        ``lo``, ``hi``, ``null``, ``figure``; optionally ``holds`` — significant after the
        run's Holm correction — and ``log``, a ratio whose interval is symmetric on the log
        scale).
    by_condition : mapping of str to mapping or None
        Condition name -> the same finding's record there (``None``: not computed there). A
        record may carry the paired difference from the base (``diff``, ``diff_lo``,
        ``diff_hi``, ``diff_p``, ``diff_test``; see ``compare``) and ``unmeasurable`` (why the
        condition cannot measure the finding); a record without a difference is an independent
        sample.
    reference : mapping, optional
        The finding's record in the replicate of the base (same keys as ``base``); each
        condition's record then carries its paired difference from the replicate, if any.
        ``None``, unmeasurable or without a number: the differences are taken against the
        base (``"reference": "base"`` in the result).

    Returns
    -------
    dict
        ``{"verdict": "holds" | "sensitive" | "unresolved" | "unchecked" | "figure",
        "base_significant": bool, "states": {condition: state}, "sensitive_to": [...],
        "unresolved_in": [...], "absent_in": [...], "unmeasurable_in": {condition: reason},
        "tests": {condition: {diff, lo, hi, p_value, p_holm, test, games}}, "reason": str,
        "reference": "replicate" | "base"}`` (what the differences are taken against); the
        verdicts as the module docstring and ``_ruling`` define them. A figure has ``"range":
        [low, high]`` of the estimates where computed (and ``range_at``) instead.
    """
    found = dict(by_condition)
    unmeasurable = {c: str(r["unmeasurable"]) for c, r in found.items()
                    if r is not None and r.get("unmeasurable")}
    if base.get("figure") or base.get("null") is None:
        values = {c: _num(r.get("estimate")) for c, r in found.items()
                  if r is not None and c not in unmeasurable}
        values = {c: v for c, v in values.items() if not math.isnan(v)}
        out: dict[str, Any] = {"verdict": "figure",
                               "absent_in": [c for c, r in found.items() if r is None],
                               "unmeasurable_in": unmeasurable}
        if values:
            low, high = min(values, key=values.get), max(values, key=values.get)
            out.update(range=[values[low], values[high]], range_at=[low, high])
        return out
    if base.get("unmeasurable"):  # the base run itself cannot measure it: nothing to check
        return {"verdict": "unchecked", "base_significant": False,
                "states": {c: "absent" for c in found}, "sensitive_to": [],
                "unresolved_in": [], "absent_in": list(found),
                "unmeasurable_in": unmeasurable, "tests": {},
                "reason": f"not measurable in this run ({base['unmeasurable']})"}
    log = bool(base.get("log"))
    # significant in the base: after the run's Holm correction over its findings where the
    # record says (``holds``), else its own interval excludes no effect
    significant = (bool(base["holds"]) if base.get("holds") is not None
                   else _side(*_effect(base, log)[1:]) != 0)
    usable = _usable(reference, log)
    states, tests = _judge(base, found, reference=reference if usable else None)
    return _ruling(states, significant, unmeasurable=unmeasurable, tests=tests,
                   reference="replicate" if usable else "base", reason=NOT_JUDGED)


def _ruling(states: Mapping[str, str], significant: bool, *, unmeasurable: Mapping[str, str],
            tests: Mapping[str, Any], reference: str, reason: str,
            name_unjudged: bool = False) -> dict[str, Any]:
    """The verdict ladder, the one place it is written (``verdict``, and a table's draws read
    on the overall verdict in ``content_verdicts``): ``unchecked`` where no condition measures
    the finding (``states`` all ``absent``/``unmeasurable``); ``unresolved`` with ``reason``
    where the base is not ``significant``; ``sensitive`` where some state is ``flip`` or
    ``lost``; ``unresolved`` where some is ``wide``; else ``holds``. With the base not
    significant the moved and wide conditions are named only if ``name_unjudged``. Returns
    ``verdict``'s record (``unmeasurable``, ``tests`` and ``reference`` as given)."""
    moved = [c for c, s in states.items() if s in ("flip", "lost")]
    wide = [c for c, s in states.items() if s == "wide"]
    why = ""
    if all(s in ("absent", "unmeasurable") for s in states.values()):
        result = "unchecked"
    elif not significant:
        result, why = "unresolved", reason
        if not name_unjudged:
            moved, wide = [], []
    elif moved:
        result = "sensitive"
    elif wide:
        result = "unresolved"
    else:
        result = "holds"
    return {"verdict": result, "base_significant": significant, "states": states,
            "sensitive_to": moved, "unresolved_in": wide,
            "absent_in": [c for c, s in states.items() if s == "absent"],
            "unmeasurable_in": unmeasurable, "tests": tests, "reason": why,
            "reference": reference}


def _findings(run_dir: Path) -> list[dict[str, Any]]:
    """The key finding records of a finished run directory (``summary.json``)."""
    summary = json.loads((run_dir / "summary.json").read_text())
    return list(((summary.get("results") or {}).get("findings") or {}).get("findings") or [])


def _per_game(run_dir: Path) -> dict[tuple[str, str], pd.Series]:
    """``(key, item) -> per-game values`` (indexed by game id) of a run's findings
    (``findings.parquet``, written by the report); empty when the run has none."""
    try:
        table = pd.read_parquet(run_dir / PER_GAME)
    except (OSError, ValueError):
        return {}
    return {(str(k), str(i)): grp.set_index("game_id")["value"]
            for (k, i), grp in table.groupby(["key", "item"], sort=False, observed=True)}


def _as_item(record: Mapping[str, Any], item: str) -> dict[str, Any] | None:
    """The record of ``item`` of a finding about a chosen item (``items``), or ``None``."""
    values = (record.get("items") or {}).get(item)
    if values is None:
        return None
    out = {k: v for k, v in record.items() if k not in ("se", "diff", "diff_lo", "diff_hi")}
    return {**out, **{k: values.get(k) for k in ("estimate", "lo", "hi")}, "item": item,
            "chosen": record.get("item")}


def paired_record(base: Mapping[str, Any], other: Mapping[str, Any] | None,
                  base_values: pd.Series | None, other_values: pd.Series | None
                  ) -> dict[str, Any] | None:
    """``other`` with the difference from ``base`` paired game by game (``diff``, ``diff_lo``,
    ``diff_hi``, ``diff_p``, ``diff_test``, ``diff_games``; ``stats.overlap_comparison`` of
    the two per-game series, each finding against its own ``null``) when both have per-game
    values on shared games; else ``other`` unchanged (an independent sample)."""
    if other is None or base_values is None or other_values is None or other.get("unmeasurable"):
        return None if other is None else dict(other)
    if not base_values.index.intersection(other_values.index).size:
        return dict(other)
    comp = stats.overlap_comparison(base_values, other_values)
    if math.isnan(comp.lo):
        return dict(other)
    n0, n1 = _num(base.get("null")), _num(other.get("null"))
    shift = ((math.log(n1) - math.log(n0) if n0 > 0 and n1 > 0 else math.nan)
             if base.get("log") else n1 - n0)
    if math.isnan(shift):
        return dict(other)
    return {**other, "diff": comp.diff - shift, "diff_lo": comp.lo - shift,
            "diff_hi": comp.hi - shift, "diff_p": comp.p_value, "diff_test": comp.test,
            "diff_games": comp.games}
def changed_games(base_dir: Path, run_dir: Path) -> int | None:
    """How many games (variant, game id) of the run in ``run_dir`` differ from the base's in
    any seat's ``score`` or ``won``; ``None`` when the two runs are not the same games (another
    size, or records missing). 0: the changed rule value never decided anything."""
    cols = ["variant", "game_id", "seat", "score", "won"]
    try:
        a, b = (pd.read_parquet(d / "seats.parquet", columns=cols) for d in (base_dir, run_dir))
    except (OSError, ValueError, KeyError):
        return None
    if len(a) != len(b):
        return None
    a, b = (t.sort_values(cols[:3], ignore_index=True) for t in (a, b))
    if not (a[cols[:3]].astype(str).equals(b[cols[:3]].astype(str))):
        return None
    differs = np.any([a[k].to_numpy() != b[k].to_numpy() for k in ("score", "won")], axis=0)
    return int(a.loc[differs, ["variant", "game_id"]].drop_duplicates().shape[0])


def assess(base_dir: Path, conditions: Sequence[Condition], without: Sequence[str] = (),
           replicate: Condition | None = None) -> dict[str, Any]:
    """Match every condition's findings to the base run's by key and give each a verdict.

    The differences are taken against ``replicate``'s value of each finding where it measures
    it, else against the base (``verdict``'s ``reference``; each row says which); the base
    still selects what is judged (its Holm gate) and gives the side. A finding about a chosen
    item is compared on the base's item everywhere (from the record's ``items``; ``chosen``:
    where a condition chose another), paired game by game where both runs have per-game
    values (``paired_record``), else as two independent samples (``compare``).

    Returns
    -------
    dict
        What ``robustness.json`` holds: ``base`` (the base run's identity: name, seed, games,
        finished), ``conditions`` (name, kind, label, games, policy of each), ``findings`` (per
        base finding: key, sentence, estimate, interval, unit, scale, null, the game's
        ``context``, the verdict, ``why`` — the verdict's reason in words, from the
        conditions' own numbers (``report.robustness.reason``) — and, per condition, its
        estimate, interval, own null, ``context`` and the test of its difference from the
        base), ``without`` (defaults with no alternative), ``method`` (the tests, in words).
    """
    run = json.loads((base_dir / "summary.json").read_text())["run"]
    base = _findings(base_dir)
    base_values = _per_game(base_dir)
    ref_dir = base_dir / FOLDER / replicate.name if replicate is not None else base_dir
    rep = ({f["key"]: f for f in _findings(ref_dir)} if replicate is not None else {})
    rep_values = _per_game(ref_dir) if replicate is not None else {}
    per = {c.name: {f["key"]: f for f in _findings(base_dir / FOLDER / c.name)}
           for c in conditions}
    values = {c.name: _per_game(base_dir / FOLDER / c.name) for c in conditions}
    changed = {c.name: changed_games(ref_dir, base_dir / FOLDER / c.name)
               for c in conditions if c.kind in ("rule", "content")}
    rows = []
    for f in base:
        item = str(f.get("item") or "")
        # a finding about a chosen item is judged on this run's item everywhere, with its plain
        # (not selection-adjusted) values; its significance here stays the run's own (holds)
        judged = (_as_item(f, item) or f) if item else f
        ref = rep.get(f["key"])
        if ref is not None and item and not ref.get("unmeasurable"):
            ref = _as_item(ref, item)
        if ref is not None and _usable(ref, bool(judged.get("log"))):
            against, against_values = ref, rep_values.get((f["key"], item))
        else:
            against, against_values = judged, base_values.get((f["key"], item))
        found: dict[str, dict[str, Any] | None] = {}
        chosen: dict[str, str] = {}
        for c in conditions:
            r = per[c.name].get(f["key"])
            if r is not None and item and not r.get("unmeasurable"):
                if r.get("item") and r.get("item") != item:
                    chosen[c.name] = str(r["item"])
                r = _as_item(r, item)
            found[c.name] = paired_record(against, r, against_values,
                                          values[c.name].get((f["key"], item)))
        tested = verdict(judged, found, reference=against if against is not judged else None)
        content = content_verdicts(judged, found, conditions, changed, overall=tested)
        rows.append({
            **{k: f.get(k) for k in ("key", "sentence", "estimate", "lo", "hi", "unit", "scale",
                                     "digits", "signed", "null", "figure", "exact", "holds",
                                     "log", "item", "p_holm", "context", "same_test_as")},
            **tested, "chosen_in": chosen, **({"content": content} if content else {}),
            **({"replicate": {k: ref.get(k) for k in (
                "estimate", "lo", "hi", "games", "null", "unmeasurable", "holds", "context")}}
               if ref is not None else {}),
            "by_condition": {c: (None if r is None else {
                **{k: r.get(k) for k in ("estimate", "lo", "hi", "games", "null",
                                         "unmeasurable", "item", "context", "examples",
                                         "example_variant")},
                "test": tested.get("tests", {}).get(c)}) for c, r in found.items()},
        })
    data = {
        "base": {k: run.get(k) for k in ("name", "seed", "games", "finished")},
        **({"replicate": {"name": replicate.name, "label": replicate.label,
                          "seed": replicate.scenario.seed, "games": replicate.scenario.games,
                          "arms": len(replicate.scenario.arms)}}
           if replicate is not None else {}),
        "conditions": [{"name": c.name, "kind": c.kind, "label": c.label,
                        "games": c.scenario.games,
                        "changed_games": changed.get(c.name),
                        "arms": len(c.scenario.arms),
                        "policies": sorted({s.name for a in c.scenario.arms for s in a.seats}),
                        **({"table": c.prior.table, "draws_noun": c.prior.draws_noun,
                            "seed": c.draw_seed, "differs": c.differs,
                            "file": c.file}
                           if c.prior is not None else {})}
                       for c in conditions],
        "findings": rows, "without": list(without), "method": METHOD,
    }
    for row in rows:  # the verdict's reason in words, for the report and the Answers table
        row["why"] = reason(row, data, base_dir)
    return data


# ------------------------------------------------------------------ running


def ladder_tokens(keyword: str, value: str | Sequence[str] | None) -> list[str] | None:
    """The entries of ``players`` / ``defaults``: ``None`` stays ``None`` (the default); a
    string is a comma-separated list, ``"none"`` (or ``["none"]``) none at all.

    Raises
    ------
    OptionError
        An empty string or empty entries: give entries or ``none``.
    """
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    words = [w.strip() for w in items]
    if isinstance(value, str) and not value.strip() or any(not w for w in words):
        raise OptionError(keyword, f"an empty entry in {value!r}; give comma-separated "
                                   "entries, or none to leave them out")
    return [] if words == ["none"] else words


@checked
def robustness(path_or_scenario: str | Path | Scenario, *, players: Ladder = None,
               defaults: Defaults = None, search_games: SearchGames = SEARCH_GAMES,
               content: Content = None, content_tables: ContentTables = None,
               games: int | None = None, seed: int | None = None,
               jobs: int | None = None, backend: str = "loky", scheduler: str | None = None,
               out: str | Path | None = None, chunk_size: int | None = None,
               resume: bool = False, force: bool = False, progress: bool = False,
               csv: bool = False, full_replay: FullReplay = False, rounds: Rounds = False,
               say: Callable[[str], None] = lambda line: None) -> Results:
    """Run the scenario (unless ``out`` holds its finished run), its replicate on new seeds
    (``replicate_condition``) and every condition on the replicate's seeds; write
    ``robustness.json`` and re-render the base report with the verdicts.

    Parameters
    ----------
    players : str or sequence of str, optional
        The ladder (``rung`` tokens; a string is a comma-separated list); ``None``:
        ``DEFAULT_LADDER`` where the game has each; ``"none"`` or empty: no player conditions.
    defaults : str or sequence of str, optional
        The labelled defaults to vary (a string: comma-separated); ``None``: every one in use
        with an alternative; ``"none"`` or empty: none.
    content : int, optional
        Draws of each guessed content table in use (``content_conditions``; ``0``: none;
        ``None``: ``DEFAULT_CONTENT``).
    content_tables : str or sequence of str, optional
        The guessed content tables to draw (a string: comma-separated); ``None``: every one
        in use.
    games : int, optional
        Games per arm of the base and of every condition (default: the scenario's).
    search_games : int
        Games per arm of a rung whose policy searches (at most ``games``).
    jobs, backend, scheduler, chunk_size, progress, csv :
        As for ``api.simulate`` (every run goes through the runner; ``csv`` for the base run).
    out : str or Path, optional
        The base run directory (default ``reports/<scenario name>``); the replicate goes to
        ``OUT/robustness/replicate/``, the conditions to ``OUT/robustness/<condition>/``.
    resume : bool
        Keep the finished chunks of interrupted runs; finished condition runs are always kept
        (a condition whose ``summary.json`` matches its scenario is not played again, also
        after ``out`` was moved: ``finished``).
    force : bool
        Replace another run in ``out`` (as ``simulate``).
    full_replay : bool
        Play every game of a rule-default condition (default: a game that did not consult its
        rule option in the replicate is copied from there, ``runner.copy_from``; the records
        are the same; ``replayed`` in ``robustness.json``).
    rounds : bool
        Record the rounds (``rounds.parquet``) in the base, the replicate and every condition,
        so that the ``quality:`` findings are judged too (without it a ``quality:`` question
        is refused); a run kept from earlier must have recorded them as asked (``finished``).
    say : callable
        Gets one line per condition (what runs, how many games).

    Returns
    -------
    api.Results
        The base run directory and its summary (with ``robustness`` in the results).

    Raises
    ------
    ScenarioError, OptionError
        A bad scenario or option (``players=""`` included); nothing is played.
    analyzer.errors.RunInterrupted
        Ctrl-C; says which runs are finished.
    """
    ladder = ladder_tokens("players", players)
    varied = ladder_tokens("defaults", defaults)
    tables = ladder_tokens("content_tables", content_tables)

    def start(n: int | None) -> study_run.StudyRun:
        """The base run at ``n`` games per arm (``None``: the scenario's)."""
        return prepare(validate(path_or_scenario, rounds=rounds), games=n, seed=seed, jobs=jobs,
                       backend=backend, scheduler=scheduler, out=out, chunk_size=chunk_size,
                       resume=resume, force=force, progress=progress, csv=csv, rounds=rounds)

    def base_kept() -> bool:
        """Whether ``out`` holds the finished base run, its rounds recorded as asked."""
        return (not force and base.dir.finished(base.scenario)
                and rounds_as_asked(base.dir.path, base.scenario, rounds))

    base = start(games)
    if not 1 <= search_games <= MAX_GAMES:
        raise OptionError("search_games", f"must be in 1..{MAX_GAMES:,} (got {search_games})")
    out_dir = base.dir.path
    folder = out_dir / FOLDER

    def build(scenario: Scenario) -> tuple[Condition, list[Condition], list[str], list[str]]:
        """The replicate, the conditions, the rungs the base already plays and the defaults
        left out, at ``scenario.games`` games."""
        conditions, same = player_conditions(scenario, ladder, scenario.games, search_games)
        rules, without = rule_conditions(scenario, varied, scenario.games)
        conditions += rules
        drawn = content_conditions(scenario, DEFAULT_CONTENT if content is None else content,
                                   tables, scenario.games, folder / TABLES)
        conditions += drawn
        varied_tables = {n for c in drawn if c.prior is not None for n in c.prior.rule_values}
        without = [w for w in without if w not in varied_tables]
        if not conditions:
            raise OptionError("players", "no condition to run: give a ladder of players, leave "
                                         "the labelled defaults to vary, or draw guessed content")
        # the conditions play on the replicate's seeds, not the base's: the base selected the
        # findings (its Holm gate), so a difference from it leans to "lost" (issue #32)
        replicate = replicate_condition(scenario)
        conditions = [replace(c, scenario=replace(c.scenario, seed=replicate.scenario.seed))
                      for c in conditions]
        return replicate, conditions, same, without

    replicate, conditions, same, without = build(base.scenario)
    # runs finished earlier are kept, not played: left out of the plan
    kept = {c.name for c in [replicate, *conditions] if finished(c, folder / c.name, rounds)}
    if base_kept():
        kept.add("base")
    copies = None if full_replay else out_dir  # the base's consulted options: the share copied
    estimate = plan.settle(plan_parts(base.scenario, replicate, conditions, search_games, kept,
                                      copies, chunk_size),
                           base.options.jobs, base.options.backend, rounds=rounds,
                           final="robustness")
    if estimate is not None and estimate.games not in (None, base.scenario.games):  # --time
        base = start(estimate.games)
        replicate, conditions, same, without = build(base.scenario)
    scenario = base.scenario
    # the whole check, against the estimate (from when it was made: calibration and start-up)
    begun, cpu = estimate.begun if estimate is not None else time.monotonic(), 0.0
    with base.session(nest=True):
        if base_kept():
            say(f"base: {out_dir} holds this run ({scenario.games} games per arm), kept")
        else:
            say(f"base: {len(scenario.arms)} arm(s) x {scenario.games} games")
            cpu += base.play().summary["run"].get("cpu_seconds") or 0.0
        summary = json.loads((out_dir / "summary.json").read_text())
        base.dir.write(f"{FOLDER}/{PLAN}", json.dumps(
            {"base": {k: summary["run"].get(k) for k in ("name", "seed", "games", "finished")},
             "replicate": {"name": replicate.name, "seed": replicate.scenario.seed},
             "conditions": [{"name": c.name, "label": c.label} for c in conditions]}, indent=1))
        started = time.monotonic()
        for i, c in enumerate([replicate, *conditions]):
            base.dir.saved = (f"the base run, {'its replicate and ' if i else ''}"
                              f"{max(i - 1, 0)} of {len(conditions)} conditions finished in "
                              f"{out_dir}")
            target = RunDir(folder / c.name, {})
            if c.prior is not None:  # a content condition's drawn table, where it is read
                c.prior.write(c.draw_seed, folder / TABLES)
            step = "replicate" if i == 0 else f"{i}/{len(conditions)}"
            if finished(c, target.path, rounds):
                keep_draw(c, target.path)
                say(f"[{step}] {c.label}: finished earlier, kept")
                continue
            say(f"[{step}] {c.label}: {len(c.scenario.arms)} arm(s) x "
                f"{c.scenario.games} games")
            # the runner's default, but SPREAD chunks per arm for a short run (a searching rung)
            size = chunk_size or max(1, min(runner.DEFAULT_CHUNK_SIZE, c.scenario.games // SPREAD))
            if (not target.same_chunks(c.scenario, size)  # another size's chunks: start over
                    or target.path.exists()  # or chunks recorded with(out) rounds
                    and not rounds_as_asked(target.path, c.scenario, rounds)):
                target.remove()
            copying = (runner.copy_from(folder / replicate.name, c.option)
                       if c.kind == "rule" and c.option and not full_replay else nullcontext())
            # only the numbers assess reads: no chart, Markdown or HTML (``analyzer report``
            # renders a condition's run in full)
            with copying, study_run.numbers_only():
                done = simulate(replace(c.scenario, questions=()), jobs=jobs, backend=backend,
                                scheduler=scheduler, out=target.path, chunk_size=size,
                                resume=True, force=True, progress=progress, rounds=rounds)
            cpu += done.summary["run"].get("cpu_seconds") or 0.0
            keep_draw(c, target.path)
        base.dir.saved = (f"the base run, its replicate and all {len(conditions)} conditions "
                          f"finished in {out_dir}, the verdicts not yet written")
        data = assess(out_dir, conditions, without, replicate)
        for row, c in zip(data["conditions"], conditions):
            row["replayed"] = replayed(folder / c.name) if c.kind == "rule" else None
        data.update(same_as_base=same, rounds=wants_rounds(scenario, rounds),
                    left_out=left_out(scenario, ladder), seconds=time.monotonic() - started,
                    estimate=estimate.facts() if estimate is not None else None,
                    actual={"cpu": cpu, "wall": time.monotonic() - begun})
        base.dir.write(f"{FOLDER}/{RESULT}", json.dumps(data, default=str, indent=1))
        spent = time.process_time()
        written = report.render(out_dir)
        plan.record_report(scenario.spec.name, "robustness", time.process_time() - spent,
                           len(scenario.arms), bool(data["rounds"]))
        return Results(out_dir, written)


def plan_parts(scenario: Scenario, replicate: Condition, conditions: Sequence[Condition],
               search_games: int, kept: Collection[str] = (), copies: Path | None = None,
               chunk_size: int | None = None) -> list[plan.Part]:
    """What a robustness check plays, for ``analyzer.plan``: the base, its replicate and
    each condition (a searching rung at ``search_games``, not sized by ``--time``; a content
    draw priced at the base's speed, as its table is written only when it is played), but
    not the runs named in ``kept`` (``"base"``, a condition's name: finished earlier).
    ``copies``: the base run directory when rule conditions copy the games that did not
    consult their option (``runner.copy_from``): such a condition is priced at the share of
    games that consult it (``plan.consulted_share``: the base's records where they are, else
    the calibration's, else a full replay). ``chunk_size``: the ``--chunk-size`` given."""
    parts = [plan.Part("base", scenario, scenario.games, chunk=chunk_size),
             plan.Part(replicate.name, replicate.scenario, scenario.games, chunk=chunk_size,
                       spread=SPREAD, kind=plan.NUMBERS)]
    for c in conditions:
        searching = any(searches(scenario, s) for a in c.scenario.arms for s in a.seats)
        copy = (plan.Copy(c.option, tuple(runner.plan_arms(replicate.scenario)),
                          copies if "base" in kept else None)
                if copies is not None and c.kind == "rule" and c.option else None)
        parts.append(plan.Part(c.name, scenario if c.prior is not None else c.scenario,
                               c.scenario.games, scales=not searching, copy=copy,
                               chunk=chunk_size, spread=SPREAD, kind=plan.NUMBERS))
    return [p for p in parts if p.label not in kept]


def replayed(run_dir: Path) -> float | None:
    """The share of a rule condition's games (games x arms) that were played, not copied from
    the replicate (``runner.part_path`` ``"copied"``): 1.0 for a full replay; ``None`` when its records
    are missing."""
    try:
        total = pq.read_metadata(run_dir / "games.parquet").num_rows
    except (OSError, ValueError):
        return None
    copied = sum(pq.read_metadata(p).num_rows for p in (run_dir / CHUNKS).glob("copied-*.parquet"))
    return (total - copied) / total if total else None  # one division: 0.705, not 0.70500…01


__all__ = ["REPLICATE", "Condition", "alternatives", "assess", "compare", "content_conditions",
           "content_in_use", "content_seed", "content_verdicts", "defaults_in_use",
           "ladder_tokens", "left_out", "paired_record", "player_conditions", "replicate_condition",
           "replicate_seed", "robustness", "rule_conditions", "rung", "state", "tuned_file",
           "verdict"]


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The verdict counts of the key findings (or the conditions still missing)."""
    if results.get("complete") is False:
        say(f"robustness check incomplete: {len(results['finished'])} of {results['conditions']}"
            " conditions finished; missing: " + "; ".join(results["missing"]))
        return
    repeats = set(results.get("repeats") or ())  # a mirror finding is one finding
    verdicts = [v for k, v in (results.get("verdicts") or {}).items() if k not in repeats]
    say(f"{results.get('conditions', 0)} condition(s); key findings: " + ", ".join(
        f"{verdicts.count(v)} {v}" for v in ("holds", "sensitive", "unresolved", "unchecked",
                                             "figure")))


# the command's options (``analyzer.studies``); a union is read as its first type
Ladder = Annotated[str | Sequence[str] | None, typer.Option(
    help="The ladder of players, comma-separated: policy names, POLICY:key=value[:…], tuned "
         "(tuned/GAME-greedy.toml beside the scenario, else the game's own) or a parameters "
         f"file; 'none' for no player conditions (default: {','.join(DEFAULT_LADDER)} where "
         "the game has each).")]
Defaults = Annotated[str | Sequence[str] | None, typer.Option(
    help="The labelled defaults to vary, comma-separated, or 'none' (default: every one in "
         "use with a documented alternative).")]
SearchGames = Annotated[int, typer.Option(
    help="Games per variant for a ladder player that searches (ismcts).")]
Content = Annotated[int | None, typer.Option(
    help="Draws of each guessed content table in use, each a condition content-TABLE-I (0: "
         f"none; default {DEFAULT_CONTENT}; `analyzer list content`).")]
FullReplay = Annotated[bool, typer.Option(
    "--full-replay", help="Replay every game of a rule-default condition (default: the games "
                          "that did not consult the rule are copied from the replicate; the "
                          "records are the same).")]
ContentTables = Annotated[str | Sequence[str] | None, typer.Option(
    help="The guessed content tables to draw, comma-separated, or 'none' (default: every one "
         "in use).")]

KIND = StudyKind(
    "robustness", "robustness check", robustness, ("scenario", ScenarioFile), tell=tell,
    section="analyzer.report.robustness:section", results=("robustness",), as_written=True,
    flag_help={"games": "Games per variant of the base and of every condition (overrides the "
                        "file).",
               "out": "Run directory of the base run (default: reports/NAME); the conditions "
                      "go to OUT/robustness/.",
               "csv": studies.CSV_HELP + " (the base run's records)"},
    help="""Does each key finding hold for other players, other rule defaults and other plausible
    guessed content?

    Plays the scenario (kept if --out already holds its finished run; default reports/NAME)
    and again under each condition on the same seeds, in OUT/robustness/: every seat
    replaced by each player of a ladder, and each labelled default with a documented
    alternative changed one at a time, and K plausible draws of each guessed content
    table (--content K). The report gets a verdict per key finding (holds, sensitive,
    unresolved) and a Robustness section. With --rounds every run records its rounds and the
    game-quality findings (quality:...) are judged too.

    Examples:

      analyzer robustness scenarios/africanus-sultan.toml

      analyzer robustness scenarios/africanus-sultan.toml --games 2000 --search-games 100

      analyzer robustness scenarios/cartus-first-game.toml --players random,greedy --defaults tie_mode,track_tie

      analyzer robustness scenarios/africanus-sultan.toml --players none --defaults none --content 8 --content-tables tokens,map

      analyzer robustness scenarios/africanus-diplomats-flow.toml --rounds   # quality: findings too
    """)
