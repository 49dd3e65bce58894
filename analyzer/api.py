"""The Python API; the CLI is a thin shell over it, so a notebook can do what a shell does.

Every study kind (``analyzer.studies``) has its function here, and so does every other command
(``__all__``). Each checks its arguments before anything runs (a wrong type is one
``OptionError`` naming the argument: ``analyzer.keywords``) and raises only ``AnalyzerError``
for what a caller can get wrong.

>>> from analyzer.api import simulate
>>> res = simulate("scenarios/africanus-sultan.toml", games=200, jobs=1)   # doctest: +SKIP
>>> res.seats.groupby("variant")["score"].mean()                           # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from analyzer import report, runner
from analyzer.errors import OptionError, RuleError
from analyzer.games import available_games, get_game
from analyzer.keywords import checked
from analyzer.model.base import build_policy, policy_doc, policy_params
from analyzer.model.content import catalogue_rows as content_catalogue
from analyzer.report import finding_keys, finding_table
from analyzer.scenario import BASE, Scenario, load_scenario
from analyzer.study import questions
from analyzer.study import tournament as pools
from analyzer.study.ablate import ablate
from analyzer.study.balance import balance
from analyzer.study.compare import compare
from analyzer.study.quality import quality
from analyzer.study.robustness import robustness
from analyzer.study.run import Results, simulate, validate
from analyzer.study.sensitivity import sensitivity
from analyzer.study.sweep import sweep
from analyzer.study.tournament import is_pool, tournament, validate_pool
from analyzer.study.tune import tune

__all__ = [
    "Results",
    "ablate",
    "balance",
    "catalogue",
    "compare",
    "findings",
    "findings_table",
    "is_pool",
    "plan_keys",
    "quality",
    "render_report",
    "replay",
    "replay_scenario",
    "robustness",
    "sensitivity",
    "simulate",
    "sweep",
    "tournament",
    "tune",
    "validate",
    "validate_pool",
]


@checked
def render_report(run_dir: str | Path) -> Path:
    """Re-render the report of a run directory from its Parquet files; returns ``report.html``."""
    report.render(run_dir)
    return Path(run_dir) / "report.html"


@checked
def plan_keys(path: str | Path) -> tuple[Any, str]:
    """The finding keys a run of the scenario or tournament pool file ``path`` will make,
    before any game is played (``analyzer findings SCENARIO.toml``): the
    ``analyzer.study.questions.Plan`` (``.keys``: each with ``key``, ``meaning``, ``unit``) and
    the study kind it is planned for (``"simulate"``, or ``"tournament"`` for a pool).

    Raises
    ------
    ScenarioError
        The file does not load (as ``validate`` says).
    """
    if is_pool(path):
        pool = pools.load_pool(path)
        return questions.plan(pools.as_scenario(pool, pools.deals_for(
            pool.games, pools.orders_per_seating(pool))), "tournament"), "tournament"
    return questions.plan(load_scenario(path), "simulate"), "simulate"


@checked
def findings(run_dir: str | Path) -> list[dict[str, Any]]:
    """The key findings and measured figures of a finished run (``analyzer findings``): one
    dict per key with its ``sentence``, ``estimate``, ``lo``, ``hi``, ``unit``, ``scale``,
    ``null`` (``None`` for a measured figure) and ``figure``, in the report's order.

    Raises
    ------
    AnalyzerError
        ``run_dir`` holds no finished run.
    """
    return finding_keys.read(run_dir)


@checked
def findings_table(run_dir: str | Path) -> list[dict[str, Any]]:
    """The findings of a finished run as machine-readable rows (``analyzer findings --json``):
    ``key, question, estimate, lo, hi, unit, null, verdict``, numbers in the unit the report
    shows (``analyzer.report.finding_table``).

    Raises
    ------
    AnalyzerError
        ``run_dir`` holds no finished run.
    """
    return finding_table.rows(run_dir)


@checked
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
    # one game: the questions, which a run answers, are not checked
    scenario = (path_or_scenario if isinstance(path_or_scenario, Scenario)
                else load_scenario(path_or_scenario))
    if not 0 <= index < scenario.games:
        raise OptionError("index", f"{index} is outside 0..{scenario.games - 1}")
    names = [a.name for a in scenario.arms]
    if variant not in names:
        raise OptionError("variant", f"unknown variant {variant!r} (allowed: {', '.join(names)})")
    arm = runner.plan_arms(scenario)[names.index(variant)]
    spec = scenario.spec
    config, policies, _ = runner.arm_setup(spec, arm)
    r = runner.rotation(index, len(policies), scenario.seat_rotation)
    seated = [(name, policy) for name, policy, _ in arm.seats[r:] + arm.seats[:r]]
    header = "policies: " + ", ".join(  # the scenario's seat names, as the records show them
        f"seat {s} {name}" + (f" ({policy})" if name != policy else "")
        for s, (name, policy) in enumerate(seated))
    first = [True]

    def named(line: str) -> None:
        if first[0] and line.startswith("policies: "):
            line = header
        first[0] = False
        log(line)

    return spec.play_game(config, policies[r:] + policies[:r], runner.game_seed(scenario.seed, index),
                          log=named)


@checked
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
        if err.field in ("game", "players", "expansions", "policy"):
            raise OptionError(err.field, err.message) from None
        raise OptionError("rules", str(err)) from None
    if seed < 0:
        raise OptionError("seed", f"must be at least 0 (got {seed})")
    return spec.play_game(config, policies, seed, log=log)


@checked
def catalogue(kind: str, game: str | None = None) -> list[dict[str, Any]]:
    """What a scenario can name: ``games``, ``policies`` (with typed parameters), ``rules``
    (rule options) or a content kind such as ``cards``.

    Returns
    -------
    list of dict
        One row per item: ``games`` → ``game, players, expansions``; ``policies`` → ``game,
        policy, params`` (list of ``(name, type, default, bounds, help)``); ``rules`` → ``game, option,
        help``; ``content`` → ``game, table, option, section, known, varies`` (each guessed
        content table, ``analyzer.model.content.catalogue_rows``); content kinds → ``game, name`` and, where the game groups that kind
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
