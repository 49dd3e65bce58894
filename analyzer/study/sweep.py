"""``analyzer sweep``: one variant per value of one or more parameters, on shared seeds.

The paths (``--param PATH=v1,v2,…``, ``parse_param``), the grid, the player count and the
copying of games that did not consult a swept rule option (``runner.copy_arms``, issue #37,
unless ``full_replay``) are as the README's "Sweep" says. Each combination becomes a variant of
the scenario played on the base's game seeds; the run, records and report are
``analyzer.study.run.simulate``'s, with a sweep section added (``analyzer.report.sweep``).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import tomllib
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer import precision, runner, studies
from analyzer.errors import OptionError
from analyzer.keywords import checked
from analyzer.scenario import BASE, Scenario, Seat, add_variants, shown
from analyzer.studies import (
    CORRECTIONS,
    KingmakingSamples,
    Rounds,
    ScenarioFile,
    StudyKind,
    TargetCi,
)
from analyzer.study.run import Results, only_base, simulate, validate

MAX_VARIANTS = 2000  # value combinations of one sweep (each an arm of the run)

_PATH = re.compile(r"^(rules\.(?P<rule>[A-Za-z0-9_]+)|params\.(?P<param>[A-Za-z0-9_]+)|"
                   r"seats\[(?P<seat>\d+)\]\.params\.(?P<sparam>[A-Za-z0-9_]+)|"
                   r"(?P<players>players))$")


@dataclass(frozen=True)
class Param:
    """One swept parameter: ``path`` as given, its ``kind`` (``rule`` | ``param`` |
    ``players``), the option or parameter ``name``, the seat entry (``None`` = every seat) and
    its ``values``."""

    path: str
    kind: str
    name: str
    seat: int | None
    values: tuple[Any, ...]


def split_values(text: str) -> list[str]:
    """Split ``v1,v2,…`` at top-level commas (commas inside ``[...]``, ``{...}`` or quotes
    belong to the value)."""
    out, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur).strip())
    return out


def parse_value(token: str) -> Any:
    """A value as TOML reads it (``0.5``, ``true``, ``[10, 5, 2]``, ``"x"``); anything TOML
    cannot read is taken as a bare string (``random_cards``)."""
    try:
        return tomllib.loads(f"v = {token}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):  # nested too deep: a string, refused later
        return token


def parse_param(text: str) -> Param:
    """Parse one ``PATH=v1,v2,…`` of ``params`` (``--param``).

    Raises
    ------
    OptionError
        No ``=``, a path of another shape, an empty or repeated value.
    """
    path, eq, rest = text.partition("=")
    path = path.strip()
    m = _PATH.match(path)
    if not eq or not m:
        raise OptionError("params", f"{shown(text)} must read PATH=v1,v2,… with PATH one of "
                                    "rules.NAME, params.NAME, seats[I].params.NAME, players")
    tokens = split_values(rest)
    if not rest.strip() or any(not t for t in tokens):
        raise OptionError("params", f"{path}: give one or more comma-separated values "
                                    f"(got {shown(rest)})")
    values = tuple(parse_value(t) for t in tokens)
    seen: set[str] = set()
    for token, value in zip(tokens, values):
        key = json.dumps(value, sort_keys=True)
        if key in seen:  # name the repeated value, not the whole (maybe huge) list
            raise OptionError("params", f"{path}: a value is listed twice ({shown(token)})")
        seen.add(key)
    if m["players"] and not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise OptionError("params", f"players: give whole player counts (got {rest!r})")
    kind = "players" if m["players"] else "rule" if m["rule"] else "param"
    return Param(path, kind, m["players"] or m["rule"] or m["param"] or m["sparam"],
                 None if m["seat"] is None else int(m["seat"]), values)


def label(value: Any) -> str:
    """A value as it appears in a variant name and on a chart axis."""
    return value if isinstance(value, str) else json.dumps(value)


def expand(scenario: Scenario, params: list[Param]) -> tuple[Scenario, list[dict[str, Any]]]:
    """The scenario with one variant per combination of the parameter values.

    Returns
    -------
    (Scenario, list of dict)
        The scenario (base first) and per variant ``{"variant", "values": {path: value}}``.

    Raises
    ------
    OptionError
        A repeated path, a seat index outside the scenario, a policy parameter no seat has,
        a player count the game refuses or with base seats that are not all the same player,
        or a value the game or the policy refuses (names the variant).
    """
    if not params:
        raise OptionError("params", "give at least one PATH=v1,v2,…")
    paths = [p.path for p in params]
    if len(set(paths)) != len(paths):
        raise OptionError("params", "the same PATH is given twice")
    base = scenario.arms[0]
    n_entries = len(base.seats)
    for p in params:
        if p.seat is not None and not 0 <= p.seat < n_entries:
            raise OptionError("params", f"{p.path}: seat index outside 0..{n_entries - 1}")
    combinations = math.prod(len(p.values) for p in params)
    if combinations > MAX_VARIANTS:
        raise OptionError("params", f"{combinations:,} value combinations; at most "
                                    f"{MAX_VARIANTS:,} (fewer values or fewer PATHs)")
    variants, rows = [], []
    targeted: set[int] = set()  # seat entries whose parameters the sweep sets
    for combo in itertools.product(*(p.values for p in params)):
        rules: dict[str, Any] = {}
        seats = list(base.seats)
        players = scenario.players
        for p, v in zip(params, combo):
            if p.kind == "rule":
                rules[p.name] = v
                continue
            if p.kind == "players":
                players = v
                continue
            targets = [p.seat] if p.seat is not None else range(len(seats))
            hit = False
            for s in targets:
                seat = seats[s]
                fields = getattr(scenario.spec.policies.get(seat.policy), "__dataclass_fields__", {})
                if p.name in fields:
                    seats[s] = Seat(seat.name, seat.policy, {**seat.params, p.name: v})
                    targeted.add(s)
                    hit = True
            if not hit:
                raise OptionError("params", f"{p.path}: no seat's policy has a parameter "
                                            f"{p.name!r} (see `analyzer list policies --game "
                                            f"{scenario.game}`)")
        values = {p.path: v for p, v in zip(params, combo)}
        if all(p.kind == "players" for p in params) and players == scenario.players:
            rows.append({"variant": BASE, "values": values})  # the base itself: not played twice
            continue
        name = " ".join(f"{p.path.split('.')[-1]}={label(v)}" for p, v in zip(params, combo))
        variants.append((name, rules, f"sweep {name}", seats, players))
        rows.append({"variant": name, "values": values})
    # a swept player gets a distinct display name (``greedy*``) in every variant, so the records
    # never show two different players under one name and its curve is one line
    out = []
    for n, r, d, seats, players in variants:
        if not targeted:
            seats = None
        elif len(targeted) < len(seats):
            seats = [replace(x, name=f"{x.name}*") if j in targeted else x
                     for j, x in enumerate(seats)]
        if players != scenario.players:  # the one player at every seat takes every seat
            seats = seats or list(base.seats)
            if any(x != seats[0] for x in seats):
                raise OptionError("params", f"players: variant {n!r}: the base seats are not all "
                                            "the same player, so which seat to add or drop is "
                                            "not defined (sweep players on a scenario with one "
                                            "[[seats]] entry, or compare scenarios of each "
                                            "player count)")
            seats = [seats[0]] * players
        out.append((n, r, d, tuple(seats) if seats else None, players))
    return add_variants(scenario, out, where="params", option=True), rows


@checked
def sweep(path_or_scenario: str | Path | Scenario, params: Params, *,
          metric: Metric = "won", correction: Correction = "holm", target_ci: TargetCi = None,
          rounds: Rounds = False, kingmaking_samples: KingmakingSamples = 0,
          full_replay: FullReplay = False, **simulate_kwargs) -> Results:
    """Run a sweep and write its report (``analyzer sweep``).

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
    params : str or list of str
        ``PATH=v1,v2,…`` strings (see the module docstring); one string is one ``PATH``.
    metric : str
        ``won`` (win rate) or a numeric seat column (``score``, a game's own metric).
    correction : {"holm", "bh"}
        Multiple-comparison correction of the variant-vs-base table.
    target_ci, rounds, kingmaking_samples, **simulate_kwargs
        The run flags of ``analyzer.api.simulate`` (``out`` default ``reports/<name>-sweep``).
    full_replay : bool
        Play every game of every variant (default: a variant one recorded rule value away
        from an earlier arm copies the games that did not consult it, ``runner.copy_arms``).

    Returns
    -------
    analyzer.api.Results

    Raises
    ------
    OptionError
        A bad ``params``, metric or correction, or anything ``api.simulate`` refuses.
    """
    scenario = validate(path_or_scenario, "sweep", rounds)
    if isinstance(params, str):
        params = [params]
    studies.check_correction(correction)
    numeric = sorted(c for c, t in scenario.spec.seat_columns.items()
                     if t.startswith(("int", "float")))
    if metric != "won" and metric not in numeric:
        allowed = ", ".join(c for c in numeric if c != "seat")
        raise OptionError("metric", f"{metric!r} is not a numeric seat column of "
                                    f"{scenario.game} (allowed: won, {allowed})")
    scenario = only_base(scenario)  # the study's own variants only
    parsed = [parse_param(p) for p in params]
    expanded, rows = expand(scenario, parsed)
    study = {"kind": "sweep", "params": [p.path for p in parsed], "variants": rows,
             "metric": metric, "correction": correction}
    with nullcontext() if full_replay else runner.copy_arms():
        return simulate(expanded, study=study, target_ci=target_ci, rounds=rounds,
                        kingmaking_samples=kingmaking_samples, **simulate_kwargs)


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The games played (and the target precision reached), the study's note, the values that
    changed no decision, and where the report is (``analyzer sweep`` and ``ablate``)."""
    tc, study = run.target_ci, run.study or {}
    say(f"{run.games} games x {len(run.arms)} variant(s)"
        + (f" ({precision.target_text(tc)})" if tc else ""))
    if study.get("note"):
        say(study["note"])
    copied = {v: share for v, share in (study.get("replayed") or {}).items() if share < 1}
    if copied:
        say("games played (the rest copied from an arm one rule value away, where the rule was "
            "never consulted): " + ", ".join(f"{v} {100 * share:.0f} %"
                                             for v, share in copied.items()))
    for variant in results.get("same_games", []):
        say(f"{variant}: games identical to the base's (this value changed no decision)")


Params = Annotated[Sequence[str] | str, typer.Option(
    "--param", help="PATH=v1,v2,… with PATH rules.NAME, params.NAME (every seat whose policy "
                    "has it), seats[I].params.NAME or players (the player count: compared on "
                    "game-level outcomes, paired by seed); repeat for a grid.")]
Metric = Annotated[str, typer.Option(
    help="won (win rate) or a numeric seat column such as score.")]
FullReplay = Annotated[bool, typer.Option(
    "--full-replay", help="Play every game of every variant (default: a variant one recorded "
                          "rule value away from an earlier arm copies the games that never "
                          "consulted the rule; the records are the same).")]
Correction = Annotated[CORRECTIONS, typer.Option(
    help="Multiple-comparison correction of the change-vs-base table.")]

KIND = StudyKind(
    "sweep", "sweep", sweep, ("scenario", ScenarioFile), tell=tell,
    default_out="{name}-sweep", section="analyzer.report.sweep:section",
    results=("studies", "sweep"), answers="analyzer.report.answers:sweep",
    help="""One variant per parameter value on shared seeds; chart the metric against the value (in
    reports/NAME-sweep).

    Examples:

      analyzer sweep scenarios/africanus-sultan.toml --param params.plague_risk=0,0.5,1 --games 400

      analyzer sweep scenarios/africanus-sultan.toml --param rules.diplomat_points_first=2,4,6 --metric score

      analyzer sweep study.toml --param params.a=1,2 --param params.b=x,y   # a 2x2 grid

      analyzer sweep scenarios/cartus-first-game.toml --param players=3,4,5 --games 400
    """)
