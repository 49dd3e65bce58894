"""Every number in ``summary.json`` has a declared unit (issue #34 item 7): each study command
runs on a tiny budget and every numeric leaf of its ``summary.json`` finds its unit in
``analyzer.report.units`` (the generic table and the game's own sections' tables)."""

from __future__ import annotations

import json
from pathlib import Path

import balancetoy
import lucktoy
import pytest
import test_balance
import test_tournament
from conftest import TOY_SCENARIO

from analyzer import api
from analyzer.games import get_game, register_game
from analyzer.report import finding_table, units

register_game(balancetoy.SPEC)
register_game(lucktoy.SPEC)
ROOT = Path(__file__).resolve().parents[1]

RUNS = {
    "simulate": lambda d: api.simulate(d / "toy.toml", games=20, jobs=1, out=d / "simulate"),
    "compare": lambda d: api.compare([d / "toy.toml", d / "b.toml"], games=20, jobs=1,
                                     out=d / "compare"),
    "sweep": lambda d: api.sweep(d / "toy.toml", ["rules.sides=6,4"], games=20, jobs=1,
                                 out=d / "sweep"),
    "tournament": lambda d: api.tournament(d / "pool.toml", games=10, bootstrap=20, jobs=1,
                                           out=d / "tournament"),
    "tune": lambda d: api.tune(d / "toy.toml", seat=0, budget=80, games=20, popsize=4,
                               validation_games=20, jobs=1, out=d / "tune"),
    "robustness": lambda d: api.robustness(d / "toy.toml", players="biased,random",
                                           defaults="none", games=20, jobs=1,
                                           out=d / "robustness"),
    "balance": lambda d: api.balance(d / "btoy.toml", finding="first_player:base",
                                     vary="rules.edge=-0.3..0.3", budget=80, games=20,
                                     popsize=4, validation_games=40, jobs=1,
                                     out=d / "balance"),
    "balance-race": lambda d: api.balance(d / "btoy.toml", finding="first_player:base",
                                          vary="rules.steps=3..7", budget=5 * 40, race=True,
                                          validation_games=40, jobs=1, out=d / "balance-race"),
    "quality": lambda d: api.quality(d / "luck.toml", luck=3, bootstrap=20, jobs=1,
                                     out=d / "quality"),
    # a real game's own sections: Cartus's building sets (ablate and a set design), Pyramidion's
    "ablate": lambda d: api.ablate(ROOT / "scenarios" / "cartus-first-game.toml", games=4,
                                   jobs=1, out=d / "ablate"),
    "cartus-sets": lambda d: api.simulate(ROOT / "scenarios" / "cartus-building-sets.toml",
                                          games=4, jobs=1, out=d / "cartus-sets"),
    "pyramidion": lambda d: api.simulate(ROOT / "scenarios" / "pyramidion-baseline-3p.toml",
                                         games=4, jobs=1, out=d / "pyramidion"),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("units")
    (d / "toy.toml").write_text(TOY_SCENARIO)
    (d / "b.toml").write_text(TOY_SCENARIO.replace('"toy-study"', '"b"')
                              .replace("sides = 6", "sides = 5"))
    (d / "mid.toml").write_text('policy = "biased"\n[params]\nboost = 0.5\n')
    (d / "pool.toml").write_text(test_tournament.POOL)
    (d / "btoy.toml").write_text(test_balance.TOY.format(edge=0.2))
    (d / "luck.toml").write_text(lucktoy.SCENARIO.format(mode="mixed", games=30,
                                                         policy="random"))
    for run in RUNS.values():
        run(d)
    return d


def _sections(summary: dict) -> tuple:
    spec = get_game(summary["run"]["game"])
    return tuple(spec.sections()) if spec.sections is not None else ()


@pytest.mark.parametrize("name", list(RUNS))
def test_every_number_of_summary_json_has_a_unit(runs, name):
    summary = json.loads((runs / name / "summary.json").read_text())
    sections = _sections(summary)
    body = {k: summary[k] for k in ("schema_version", "run", "results")}
    assert sum(1 for _ in units.numbers(body)) > 20
    assert units.missing(body, sections) == []
    # summary.json says them: each pattern a number matched, in the table's order
    assert summary["units"] == units.declared(body, sections) and summary["units"]
    table = units.table(sections)
    for path, _, chain in units.numbers(body):
        unit = units.unit_of(path, chain, table)
        assert unit and unit not in ("fraction", "%", "pp") or path.startswith(
            "results.answers."), (path, unit)  # a share is stored as a share


def test_shares_are_shares_and_counts_are_counts(runs):
    summary = json.loads((runs / "simulate" / "summary.json").read_text())
    body = {k: summary[k] for k in ("schema_version", "run", "results")}
    got = {path: units.unit_of(path, chain, units.table(_sections(summary)))
           for path, _, chain in units.numbers(body)}
    assert got["run.games"] == "games per arm" and got["run.seconds"] == "seconds"
    assert got["results.results.win_rate_by_policy[].rate"] == units.SHARE
    assert got["results.results.win_rate_by_policy[].n"] == "games"
    assert got["results.results.scores[].mean"] == "points"
    assert got["results.studies.first_player.by_variant[].p_first"] == units.PROBABILITY
    first = next(r for r in summary["results"]["findings"]["findings"]
                 if r["key"] == "first_player:base")
    assert (first["unit"], first["value_unit"]) == ("pp", units.SHARE)


def test_findings_json_gives_the_answers_unit(runs):
    """``analyzer findings RUN_DIR --json``: one row per finding, each with a unit; a finding
    the Answers table answers has the answer's number and unit."""
    rows = finding_table.rows(runs / "tournament")
    said = {a["key"]: a for a in json.loads((runs / "tournament" / "summary.json").read_text())
            ["results"]["answers"]["answers"]}
    assert rows and all(r["unit"] for r in rows)
    gap = next(r for r in rows if r["key"].startswith("rating_gap:"))
    assert gap["unit"] == said[gap["key"]]["unit"] == "log-strength"
    assert gap["estimate"] == pytest.approx(said[gap["key"]]["estimate"])


def test_the_first_matching_pattern_gives_the_unit():
    table = (("a.b", "games"), ("a.*", "points"), ("*.x", "@value_unit"), ("*.y", "@unit"))
    assert units.unit_of("a.b", (), table) == "games"
    assert units.unit_of("a.c[].d", (), table) == "points"
    record = {"x": 1.0, "y": 2.0, "unit": "pp"}
    outer = {"value_unit": "share", "rows": [record]}
    assert units.unit_of("q.rows[].x", (outer, record), table) == "share"
    assert units.unit_of("q.rows[].y", (outer, record), table) == "pp"
    assert units.unit_of("q.z", ({},), table) is None
    assert units.unit_of("q.x", ({},), table) is None  # no value_unit to read
    assert units.missing({"q": {"games": 3, "ok": True, "z": 2.5}}) == ["q.z"]
