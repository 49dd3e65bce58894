"""``analyzer ablate``: the value of each card, building or special card (leave-one-out).

For every item in play the game's ``SPEC.ablations`` gives a variant without it, replaced as
that game's rules say (``analyzer/games/<game>/ablations.py``). All variants replay the base's
game seeds, so each item's effect is a paired, game-by-game difference; the report ranks the
items by the change in win rate of the seat that used the item most (see
``analyzer.report.ablate``), with intervals and a multiple-comparison correction. The
generated data tables of the variants are written into the run directory (``tables/``) once
``analyzer.study.run.prepare`` has checked it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer.errors import RuleError, ScenarioError
from analyzer.files import atomic_write
from analyzer.games import available_games, get_game
from analyzer.keywords import checked
from analyzer.scenario import Scenario, add_variants
from analyzer.studies import CORRECTIONS, StudyKind, TargetCi, check_correction
from analyzer.study import sweep
from analyzer.study.run import Results, only_base, prepare, validate


def expand(scenario: Scenario, table_dir: Path) -> tuple[Scenario, list[dict]]:
    """The scenario with one ``without-<item>`` variant per item in play.

    Generated data tables (``Ablation.files``) are written to ``table_dir`` and the variant's
    ``*_file`` option points at them.

    Returns
    -------
    (Scenario, list of dict)
        The expanded scenario and per item ``{"item", "variant", "replaced_by", "usage"}``.

    Raises
    ------
    ScenarioError
        The game has no ablations, or the scenario has no fixed set to ablate (the game's
        message says what to give).
    """
    spec = scenario.spec
    if spec.ablations is None:
        raise ScenarioError(f"ablate: {scenario.game} does not define ablations")
    base = scenario.arms[0]
    config = spec.make_config(scenario.players, scenario.expansions, base.rules)
    try:
        items = spec.ablations(config)
    except RuleError as err:
        raise ScenarioError(f"{scenario.file}: rules.{err.field}: {err.message}") from None
    if not items:
        raise ScenarioError(f"ablate: nothing to ablate in {scenario.file}")
    variants, rows = [], []
    for ab in items:
        name = f"without-{ab.item}"
        rules = dict(ab.rules)
        for option, text in ab.files.items():
            table_dir.mkdir(parents=True, exist_ok=True)
            rules[option] = str(atomic_write(table_dir / f"{name}-{option}.toml", text).resolve())
        desc = f"{ab.item} replaced by {ab.replaced_by}" if ab.replaced_by else f"{ab.item} removed"
        variants.append((name, rules, desc))
        rows.append({"item": ab.item, "variant": name, "replaced_by": ab.replaced_by,
                     "usage": list(ab.usage)})
    return add_variants(scenario, variants, where="ablate"), rows


@checked
def ablate(path_or_scenario: str | Path | Scenario, *, correction: Correction = "holm",
           target_ci: TargetCi = None, **run_options: Any) -> Results:
    """Run the leave-one-out study of a scenario and write its report (``analyzer ablate``).

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
        Its base arm must fix the items in play (the game's content rule option, such as the
        cards or buildings in use).
        Variants already in the scenario are left out (only the base is ablated).
    correction : {"holm", "bh"}
        Multiple-comparison correction of the ranked table.
    target_ci, **run_options
        The run flags of ``analyzer.api.simulate`` (``out`` default ``reports/<name>-ablate``).

    Raises
    ------
    ScenarioError
        See ``expand``; a bad correction; anything ``api.simulate`` refuses (before anything
        is written).
    """
    scenario = validate(path_or_scenario, "ablate")
    check_correction(correction)
    dropped = [arm.name for arm in scenario.arms[1:]]
    run = prepare(only_base(scenario), "ablate", target_ci=target_ci,
                   **run_options)  # the study's own variants only
    seats = [s.name for s in run.scenario.arms[0].seats]
    note = f"ablate plays the base arm's seats ({', '.join(seats)})"
    if dropped:
        note += (f"; the scenario's own variants ({', '.join(dropped)}) are not used by ablate "
                 "(ablate one of them by making it the base of its own scenario)")
    with tempfile.TemporaryDirectory() as scratch:  # the variants' tables, for the plan only
        run = run.settle(expand(run.scenario, Path(scratch))[0])
    with run.session():
        expanded, rows = expand(run.scenario, run.dir.path / "tables")
        study = {"kind": "ablate", "items": rows, "correction": correction,
                 "dropped_variants": dropped, "seats": seats, "note": note + "."}
        return run.play(expanded, study=study)


def _help() -> str:
    """``analyzer ablate --help``, with what each game ablates (its GameSpec)."""
    kinds = "; ".join(f"{get_game(g).display_name()}: {get_game(g).item_kind}s"
                      for g in available_games() if get_game(g).ablations is not None)
    return (f"Value of each item in play, by leaving it out ({kinds}); in reports/NAME-ablate."
            "\n\nEach item in play gets a paired variant without it (replaced as the game's "
            "rules say); the report ranks the items by the win-rate change of the seat that "
            "used each most.\n\n"
            "Examples:\n\n"
            "  analyzer ablate scenarios/africanus-sultan.toml --games 400\n\n"
            "  analyzer ablate scenarios/cartus-first-game.toml --games 1000 --correction bh")


Correction = Annotated[CORRECTIONS, typer.Option(
    help="Multiple-comparison correction of the ranked table.")]

KIND = StudyKind(
    "ablate", "ablation", ablate, ("scenario", Annotated[Path, typer.Argument(
        help="Scenario TOML file (its rules must fix the items in play).")]),
    help=_help, tell=sweep.tell, default_out="{name}-ablate",
    section="analyzer.report.ablate:section", results=("studies", "ablate"),
    answers="analyzer.report.answers:ablate", families={
        "item": ("an item's value in win rate to the seat that used it most", "pp")})
