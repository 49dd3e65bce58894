"""``analyzer robustness``: does each key finding of a study hold for other players and other
rule defaults?

The scenario is played once as it is (the base run, ``analyzer simulate``'s run directory) and
again under each **condition**, on the same game seeds:

- **players** — every seat of every arm replaced by one rung of a ladder of players (by default
  ``random``, ``greedy``, the tuned greedy ``tuned/<game>-greedy.toml`` beside the scenario, and
  the game's default ``ismcts``, its strongest measured player, where the game has them); a rung
  whose policy searches plays ``search_games`` games per arm;
- **rule defaults** — for each labelled default the run uses (``provenance == "default"``) that
  has an alternative (the other value of a ``bool``, the other ``choices`` of a ``str`` option,
  or ``Option.alternatives``), the scenario with that one value changed, at its own players.

Each condition is an ordinary run directory under ``OUT/robustness/<condition>/`` (played by
``api.simulate``: parallel, dask, resumable, with its own report); its key findings are matched
to the base's by their stable ``key``. Per finding and condition the state is one of

``same``   the condition's 95 % interval excludes no effect, on the base's side;
``flip``   it excludes no effect on the other side;
``lost``   it includes no effect and excludes the base's estimate (measurably smaller);
``wide``   it includes both no effect and the base's estimate (too few games to tell);
``absent`` the condition does not compute the finding (e.g. a policy's effect when every seat
           plays one rung).

and the verdict is **holds** (``same`` in every condition that computes it), **sensitive**
(a ``flip`` or ``lost`` somewhere, naming where) or **unresolved** (no ``flip``/``lost`` but some
``wide``, or the base itself not significant); **unchecked** when no condition computes it. "Holds" asks every condition's own test to reject
no effect, an intersection–union test, so it needs no correction over the conditions (Berger &
Hsu, Statist. Sci. 1996;11:283). A measured figure (a share or a rate without a no-effect
value) gets no verdict: its range over the conditions is given.

The verdicts are written to ``OUT/robustness/robustness.json``; the base report, re-rendered,
carries them in its key findings and a "Robustness" section (``analyzer/report/robustness.py``).
This module names no game: the ladder and the alternatives come from the game's registry and
option declarations.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer import api, runner
from analyzer.errors import OptionError, RuleError, ScenarioError
from analyzer.files import atomic_write
from analyzer.games.base import build_policy
from analyzer.games.ismcts import Ismcts
from analyzer.report.robustness import FOLDER, RESULT
from analyzer.scenario import Scenario, Seat, read_params_file, with_overrides

# the strongest rung is the game's default ismcts (README: "Players of known strength"), never a
# cut-down setting rated below the tuned greedy
DEFAULT_LADDER = ("random", "greedy", "tuned", "ismcts")
# games per arm of a rung whose policy searches: with every seat searching, the default study's
# ismcts rung costs about 19 CPU-minutes at 200 (3 arms, ~1.9 s a game), inside its stated time
SEARCH_GAMES = 200


@dataclass(frozen=True)
class Condition:
    """One re-run of the scenario.

    Attributes
    ----------
    name : str
        Folder and key, e.g. ``"players-random"`` or ``"rule-OPTION-VALUE"``.
    kind : str
        ``"players"`` or ``"rule"``.
    label : str
        What changed, for the report: ``"every seat: random"``,
        ``"OPTION = true (default false)"``.
    scenario : Scenario
        The scenario to play (same seeds as the base; ``games`` per arm).
    """

    name: str
    kind: str
    label: str
    scenario: Scenario


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
    (``"ismcts:iterations=50"``, ``":"`` between ``key=value`` pairs), ``"tuned"`` (the
    parameters file ``tuned/<game>-greedy.toml`` beside the scenario, as ``analyzer tune``
    ships them) or a path to a parameters file (``*.toml``).

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
    from analyzer.sweep import parse_value

    spec = scenario.spec
    base_dir = Path(scenario.file).parent if scenario.file and not scenario.file.startswith(
        "<") else Path(".")
    token = token.strip()
    if token == "tuned" or token.endswith(".toml"):
        path = (base_dir / "tuned" / f"{spec.name}-greedy.toml") if token == "tuned" else Path(token)
        if token == "tuned" and not path.is_file():
            if not required:
                return None
            raise OptionError("players", f"tuned: no tuned parameters for {spec.name} at {path} "
                                         "(make them with `analyzer tune`, or name a file)")
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
    for token in (DEFAULT_LADDER if ladder is None else ladder):
        found = rung(scenario, token, required=ladder is not None)
        if found is None:
            continue
        name, seat = found
        if all((s.policy, dict(s.params)) == (seat.policy, dict(seat.params))
               for a in scenario.arms for s in a.seats):
            same.append(name)
            continue
        arms = tuple(replace(a, seats=tuple(seat for _ in a.seats)) for a in scenario.arms)
        n = min(games, search_games) if searches(scenario, seat) else games
        params = ", ".join(f"{k} = {_value_text(v)}" for k, v in seat.params.items())
        label = f"every seat: {seat.policy}" + (f" ({params})" if params and name != "tuned"
                                                else "") + (" with the tuned parameters"
                                                            if name == "tuned" else "")
        out.append(Condition(f"players-{name}", "players", label,
                             replace(scenario, arms=arms, games=n,
                                     name=f"{scenario.name}-players-{name}")))
    return out, same


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
    the game's order (``rule_values`` with ``provenance == "default"``)."""
    spec, seen, out = scenario.spec, set(), []
    for arm in scenario.arms:
        config = spec.make_config(scenario.arm_players(arm), scenario.expansions, arm.rules)
        for rv in spec.rule_values(config):
            if rv.provenance == "default" and rv.name not in seen:
                seen.add(rv.name)
                out.append((rv.name, rv.value, rv.section))
    return out


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
    known = {n for n, _, _ in used}
    varied = [n for n, v, _ in used if n in spec.options and alternatives(spec.options[n], v)]
    if names is not None:
        allowed = f"(allowed: {', '.join(varied) or 'none'})"
        bad = [n for n in names if n not in known]
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
        option = spec.options[name] if name in spec.options else None  # noqa: SIM401 (no .get)
        alts = alternatives(option, value) if option is not None else []
        if not alts:
            without.append(name)
            continue
        for alt in alts:
            arms = []
            for arm in scenario.arms:
                rules = dict(arm.rules)
                if name not in rules:
                    rules[name] = alt
                arms.append(replace(arm, rules=rules))
            try:
                for arm in arms:
                    spec.make_config(scenario.arm_players(arm), scenario.expansions, arm.rules)
            except RuleError:  # this alternative does not fit the run (e.g. another count)
                continue
            tag = _folder_name(f"{name}-{_value_text(alt)}")
            out.append(Condition(
                f"rule-{tag}", "rule", f"{name} = {_value_text(alt)} (default "
                f"{_value_text(value)})", replace(scenario, arms=tuple(arms), games=games,
                                                  name=f"{scenario.name}-{tag}")))
    return out, without


# ------------------------------------------------------------------ verdicts


def _num(x: Any) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return math.nan
    return v


def state(base: Mapping[str, Any], other: Mapping[str, Any] | None) -> str:
    """The state of a tested finding under one condition (module docstring):
    ``same``, ``flip``, ``lost``, ``wide`` or ``absent``. ``base`` and ``other`` are finding
    records of ``summary.json`` (``estimate``, ``lo``, ``hi``, ``null``)."""
    if other is None:
        return "absent"
    null, est = _num(base.get("null")), _num(base.get("estimate"))
    lo, hi = _num(other.get("lo")), _num(other.get("hi"))
    if any(math.isnan(v) for v in (null, est, lo, hi)):
        return "absent"
    side = 1 if est > null else -1
    if lo > null or hi < null:
        return "same" if (1 if lo > null else -1) == side else "flip"
    return "lost" if (est < lo or est > hi) else "wide"


def verdict(base: Mapping[str, Any], by_condition: Mapping[str, Mapping[str, Any] | None]
            ) -> dict[str, Any]:
    """The verdict of one key finding over the conditions.

    Parameters
    ----------
    base : mapping
        The finding's record in the base run (``summary.json`` ``findings``: ``estimate``,
        ``lo``, ``hi``, ``null``, ``figure``).
    by_condition : mapping of str to mapping or None
        Condition name -> the same finding's record there (``None``: not computed there).

    Returns
    -------
    dict
        ``{"verdict": "holds" | "sensitive" | "unresolved" | "unchecked" | "figure",
        "states": {condition:
        state}, "sensitive_to": [...], "unresolved_in": [...], "absent_in": [...]}``; a figure
        has ``"range": [low, high]`` of the estimates where computed instead of states.
    """
    if base.get("figure") or base.get("null") is None:
        values = {c: _num(r.get("estimate")) for c, r in by_condition.items() if r is not None}
        values = {c: v for c, v in values.items() if not math.isnan(v)}
        out: dict[str, Any] = {"verdict": "figure",
                               "absent_in": [c for c, r in by_condition.items() if r is None]}
        if values:
            low = min(values, key=values.get)
            high = max(values, key=values.get)
            out["range"] = [values[low], values[high]]
            out["range_at"] = [low, high]
        return out
    base_state = state(base, base)
    states = {c: state(base, r) for c, r in by_condition.items()}
    moved = [c for c, s in states.items() if s in ("flip", "lost")]
    wide = [c for c, s in states.items() if s == "wide"]
    if all(s == "absent" for s in states.values()):
        result = "unchecked"
    elif base_state != "same":
        result = "unresolved"
    elif moved:
        result = "sensitive"
    elif wide:
        result = "unresolved"
    else:
        result = "holds"
    return {"verdict": result, "base_significant": base_state == "same", "states": states,
            "sensitive_to": moved, "unresolved_in": wide,
            "absent_in": [c for c, s in states.items() if s == "absent"]}


def _findings(run_dir: Path) -> list[dict[str, Any]]:
    """The key finding records of a finished run directory (``summary.json``)."""
    summary = json.loads((run_dir / "summary.json").read_text())
    return list(((summary.get("results") or {}).get("findings") or {}).get("findings") or [])


def changed_games(base_dir: Path, run_dir: Path) -> int | None:
    """How many games (variant, game id) of the run in ``run_dir`` differ from the base's in
    any seat's ``score`` or ``won``; ``None`` when the two runs are not the same games (another
    size, or records missing). 0: the changed rule value never decided anything."""
    cols = ["variant", "game_id", "seat", "score", "won"]
    try:
        a = pd.read_parquet(base_dir / "seats.parquet", columns=cols)
        b = pd.read_parquet(run_dir / "seats.parquet", columns=cols)
    except (OSError, ValueError, KeyError):
        return None
    if len(a) != len(b):
        return None
    a = a.sort_values(cols[:3], ignore_index=True)
    b = b.sort_values(cols[:3], ignore_index=True)
    if not (a[cols[:3]].astype(str).equals(b[cols[:3]].astype(str))):
        return None
    differs = (a["score"].to_numpy() != b["score"].to_numpy()) | (
        a["won"].to_numpy() != b["won"].to_numpy())
    return int(a.loc[differs, ["variant", "game_id"]].drop_duplicates().shape[0])


def assess(base_dir: Path, conditions: Sequence[Condition], without: Sequence[str] = ()
           ) -> dict[str, Any]:
    """Match every condition's findings to the base run's by key and give each a verdict.

    Returns
    -------
    dict
        What ``robustness.json`` holds: ``base`` (the base run's identity: name, seed, games,
        finished), ``conditions`` (name, kind, label, games, policy of each), ``findings`` (per
        base finding: key, sentence, estimate, interval, unit, scale, null, the verdict and, per
        condition, its estimate and interval), ``without`` (defaults with no alternative).
    """
    run = json.loads((base_dir / "summary.json").read_text())["run"]
    base = _findings(base_dir)
    per = {c.name: {f["key"]: f for f in _findings(base_dir / FOLDER / c.name)}
           for c in conditions}
    rows = []
    for f in base:
        found = {c.name: per[c.name].get(f["key"]) for c in conditions}
        rows.append({
            **{k: f.get(k) for k in ("key", "sentence", "estimate", "lo", "hi", "unit", "scale",
                                     "digits", "signed", "null", "figure", "exact", "holds")},
            **verdict(f, found),
            "by_condition": {c: (None if r is None else {k: r.get(k) for k in
                                                         ("estimate", "lo", "hi", "games")})
                             for c, r in found.items()},
        })
    return {
        "base": {k: run.get(k) for k in ("name", "seed", "games", "finished")},
        "conditions": [{"name": c.name, "kind": c.kind, "label": c.label,
                        "games": c.scenario.games,
                        "changed_games": (changed_games(base_dir, base_dir / FOLDER / c.name)
                                          if c.kind == "rule" else None),
                        "arms": len(c.scenario.arms),
                        "policies": sorted({s.name for a in c.scenario.arms for s in a.seats})}
                       for c in conditions],
        "findings": rows, "without": list(without),
        "method": "intersection-union: holds = every condition's own 95 % interval excludes no "
                  "effect on the base's side",
    }


# ------------------------------------------------------------------ running


def robustness(path_or_scenario: str | Path | Scenario, *, players: Sequence[str] | None = None,
               defaults: Sequence[str] | None = None, games: int | None = None,
               search_games: int = SEARCH_GAMES, seed: int | None = None,
               jobs: int | None = None, backend: str = "loky", scheduler: str | None = None,
               out: str | Path | None = None, chunk_size: int | None = None,
               resume: bool = False, force: bool = False, progress: bool = False,
               say: Callable[[str], None] = lambda line: None) -> api.Results:
    """Run the scenario (unless ``out`` holds its finished run) and every condition; write
    ``robustness.json`` and re-render the base report with the verdicts.

    Parameters
    ----------
    players : sequence of str, optional
        The ladder (``rung`` tokens); ``None``: ``DEFAULT_LADDER`` where the game has each;
        empty: no player conditions.
    defaults : sequence of str, optional
        The labelled defaults to vary; ``None``: every one in use with an alternative; empty:
        none.
    games : int, optional
        Games per arm of the base and of every condition (default: the scenario's).
    search_games : int
        Games per arm of a rung whose policy searches (at most ``games``).
    jobs, backend, scheduler, chunk_size, progress :
        As for ``api.simulate`` (every run goes through the runner).
    out : str or Path, optional
        The base run directory (default ``reports/<scenario name>``); conditions go to
        ``OUT/robustness/<condition>/``.
    resume : bool
        Keep the finished chunks of interrupted runs; finished condition runs are always kept
        (a condition whose ``summary.json`` matches its scenario is not played again).
    force : bool
        Replace another run in ``out`` (as ``simulate``).
    say : callable
        Gets one line per condition (what runs, how many games).

    Returns
    -------
    api.Results
        The base run directory and its summary (with ``robustness`` in the results).

    Raises
    ------
    ScenarioError, OptionError
        A bad scenario or option; nothing is played.
    """
    scenario = with_overrides(api.validate(path_or_scenario), games=games, seed=seed)
    if search_games < 1:
        raise OptionError("search_games", f"must be at least 1 (got {search_games})")
    conditions, same = player_conditions(scenario, players, scenario.games, search_games)
    rules, without = rule_conditions(scenario, defaults, scenario.games)
    conditions += rules
    if not conditions:
        raise OptionError("players", "no condition to run: give a ladder of players or leave "
                                     "the labelled defaults to vary")
    out_dir = api.out_dir_for(out, Path("reports") / scenario.name)
    base_run = None
    if not force and _finished(out_dir, scenario):
        say(f"base: {out_dir} holds this run ({scenario.games} games per arm), kept")
    else:
        say(f"base: {len(scenario.arms)} arm(s) x {scenario.games} games")
        base_run = api.simulate(scenario, jobs=jobs, backend=backend, scheduler=scheduler,
                                out=out_dir, chunk_size=chunk_size, resume=resume, force=force,
                                progress=progress)
    folder = out_dir / FOLDER
    started = time.monotonic()
    for i, c in enumerate(conditions, 1):
        target = folder / c.name
        if _finished(target, c.scenario):
            say(f"[{i}/{len(conditions)}] {c.label}: finished earlier, kept")
            continue
        say(f"[{i}/{len(conditions)}] {c.label}: {len(c.scenario.arms)} arm(s) x "
            f"{c.scenario.games} games")
        size = chunk_size or _chunk(c.scenario.games)
        if not _same_run(target, c.scenario, size):  # another size's chunks: start it over
            shutil.rmtree(target, ignore_errors=True)
        api.simulate(c.scenario, jobs=jobs, backend=backend, scheduler=scheduler, out=target,
                     chunk_size=size, resume=True,
                     force=True, progress=progress)
    data = assess(out_dir, conditions, without)
    data["same_as_base"] = same
    data["seconds"] = time.monotonic() - started
    atomic_write(folder / RESULT, json.dumps(data, default=str, indent=1))
    summary = api.report.render(out_dir)
    del base_run
    return api.Results(out_dir, summary)


def _chunk(games: int) -> int:
    """The chunk size of a condition: the runner's default, but at least 8 chunks per arm for
    a short run (a searching rung), so that its few slow games spread over the workers."""
    return max(1, min(runner.DEFAULT_CHUNK_SIZE, games // 8))


def _same_run(run_dir: Path, scenario: Scenario, chunk_size: int) -> bool:
    """Whether the chunks in ``run_dir`` (if any) are of ``scenario``, its seed and this chunk
    size (then a resume keeps them)."""
    try:
        fingerprint = json.loads((run_dir / "chunks" / "fingerprint.json").read_text())
    except (OSError, ValueError):
        return not run_dir.exists()
    return (fingerprint.get("scenario") == scenario.fingerprint()
            and fingerprint.get("seed") == scenario.seed
            and fingerprint.get("chunk_size", chunk_size) == chunk_size)


def _finished(run_dir: Path, scenario: Scenario) -> bool:
    """Whether ``run_dir`` holds a finished run of exactly ``scenario`` (same arms, seed and
    games): its ``summary.json`` has results and its stored scenario matches."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text())
        fingerprint = json.loads((run_dir / "chunks" / "fingerprint.json").read_text())
    except (OSError, ValueError):
        return False
    run = summary.get("run") or {}
    return (bool(summary.get("results")) and run.get("seed") == scenario.seed
            and run.get("games") == scenario.games and run.get("target_ci") is None
            and fingerprint.get("scenario") == scenario.fingerprint()
            and fingerprint.get("seed") == scenario.seed)


__all__ = ["Condition", "alternatives", "assess", "defaults_in_use",
           "player_conditions", "robustness", "rule_conditions", "rung", "state", "verdict"]
