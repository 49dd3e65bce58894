"""``analyzer robustness --content K`` (analyzer/study/robustness.py ``content_conditions``,
``content_verdicts``): K plausible draws of each guessed content table in use, each one
condition ``content-<table>-<i>`` played on the same seeds with its drawn table in its own run
directory, and per finding a verdict over each table's draws in words."""

from __future__ import annotations

import copy
import json
import tomllib
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.errors import OptionError
from analyzer.games.rattus import content as rat
from analyzer.model.tables import builtin_table
from analyzer.report import robustness as report_robustness
from analyzer.scenario import load_scenario
from analyzer.study import robustness

REPO = Path(__file__).resolve().parents[1]
STUDY = REPO / "scenarios" / "africanus-sultan.toml"

SMALL = """\
name = "content-small"
game = "rattus"
players = 3
games = 40
seed = 11

[[seats]]
policy = "greedy"
"""


def _small(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def _run(args: list[str]):
    return CliRunner().invoke(app, args)


# ------------------------------------------------------------------ the conditions


def test_one_condition_per_draw_and_table_named_and_seeded_by_the_run_seed(tmp_path):
    scenario = load_scenario(STUDY)
    assert [p.table for p in robustness.content_in_use(scenario)] == ["tokens", "map",
                                                                      "region_cards"]
    conds = robustness.content_conditions(scenario, 3, ["tokens", "map"], 50, tmp_path)
    assert [c.name for c in conds] == [f"content-{t}-{i}" for t in ("tokens", "map")
                                       for i in (1, 2, 3)]
    seeds = [robustness.content_seed(scenario.seed, t, i) for t in ("tokens", "map") for i in (1, 2, 3)]
    assert [c.draw_seed for c in conds] == seeds
    assert len(set(seeds)) == 6  # each table's draws have seeds of their own
    for c in conds:
        assert c.kind == "content" and c.scenario.games == 50
        assert c.scenario.seed == scenario.seed  # the same game seeds as the base
        path = tmp_path.resolve() / f"{c.prior.table}-{c.draw_seed}.toml"
        for arm in c.scenario.arms:  # every arm plays the draw, nothing else changes
            assert arm.rules == {**dict(scenario.arms[[a.name for a in scenario.arms]
                                                      .index(arm.name)].rules),
                                 c.prior.option: str(path)}
        assert c.differs == c.prior.describe(c.prior.draw(c.draw_seed))
    # the same run seed gives the same draws; another gives others
    again = robustness.content_conditions(scenario, 3, ["tokens", "map"], 50, tmp_path)
    assert [(c.name, c.draw_seed, c.differs) for c in again] == [
        (c.name, c.draw_seed, c.differs) for c in conds]
    other = robustness.content_conditions(replace(scenario, seed=1), 3, None, 50, tmp_path)
    assert {c.draw_seed for c in other}.isdisjoint(seeds)
    assert [c.name for c in other][-1] == "content-region_cards-3"
    assert robustness.content_conditions(scenario, 0, None, 50, tmp_path) == []


def test_a_draw_seed_comes_from_the_run_seed_the_table_and_the_index():
    first = {t: robustness.content_seed(7, t, 1) for t in ("tokens", "map", "region_cards")}
    assert len(set(first.values())) == 3  # two tables' first draws do not share a seed
    assert robustness.content_seed(7, "map", 1) == first["map"]  # same inputs, same seed
    assert robustness.content_seed(7, "map", 2) != first["map"]
    assert robustness.content_seed(8, "map", 1) != first["map"]


def test_bad_content_options_are_refused_naming_what_is_allowed(tmp_path):
    scenario = load_scenario(STUDY)
    with pytest.raises(OptionError, match="must be a number of draws from 0 to 1,000"):
        robustness.content_conditions(scenario, -1, None, 50, tmp_path)
    with pytest.raises(OptionError, match=r"from 0 to 1,000 \(got 100000000;"):
        robustness.content_conditions(scenario, 100_000_000, None, 50, tmp_path)
    with pytest.raises(OptionError, match=r"boats: not a guessed content table of rattus "
                                          r"\(allowed: tokens, map, region_cards\)"):
        robustness.content_conditions(scenario, 2, ["tokens", "boats"], 50, tmp_path)
    small = _small(tmp_path)
    cases = [
        (["robustness", str(STUDY), "--content", "-1"], "--content: must be a number of draws"),
        (["robustness", str(STUDY), "--content-tables", "tokens,nope"],
         ("--content-tables: nope: not a guessed content table of rattus (allowed: tokens, map, "
          "region_cards)")),
        # the base game has no region cards: the table is not in use there
        (["robustness", str(small), "--content-tables", "region_cards"],
         "--content-tables: region_cards: not in use in this run (allowed: tokens, map)"),
        (["robustness", str(small), "--content-tables", ""], "--content-tables: an empty entry"),
        (["simulate", str(small), "--content", "2"], "--content: only with --robustness"),
    ]
    for args, message in cases:
        res = _run(args)
        assert res.exit_code == 2, (args, res.output)
        assert message in res.output, (args, res.output)
        assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1
    assert not (tmp_path / "reports").exists()


def test_simulate_robustness_passes_content_on(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from analyzer import studies

    seen = {}

    def fake(scenario, **kwargs):
        seen.update(kwargs)
        return SimpleNamespace(summary={}, out_dir=tmp_path)

    monkeypatch.setitem(studies.kinds(), "robustness",
                        replace(studies.kinds()["robustness"], api=fake))  # what the CLI calls
    res = _run(["simulate", str(_small(tmp_path)), "--games", "10", "--jobs", "1", "--out",
                str(tmp_path / "run"), "--quiet", "--robustness", "--content", "3"])
    assert res.exit_code == 0, res.output
    assert seen["content"] == 3


# ------------------------------------------------------------------ a whole run


def _content_run(tmp_path: Path, out: Path, jobs: str, *extra: str):
    res = _run(["robustness", str(_small(tmp_path)), "--players", "none", "--defaults",
                "none", "--content", "2", "--content-tables", "tokens,map", "--jobs", jobs,
                "--out", str(out), "--quiet", *extra])
    assert res.exit_code == 0, res.output
    return json.loads((out / "robustness" / "robustness.json").read_text())


def test_a_content_run_plays_each_draw_in_its_own_directory_and_judges_over_the_draws(
        tmp_path):
    out = tmp_path / "run"
    data = _content_run(tmp_path, out, "1")
    names = [c["name"] for c in data["conditions"]]
    assert names == ["content-tokens-1", "content-tokens-2", "content-map-1", "content-map-2"]
    for c in data["conditions"]:
        folder = out / "robustness" / c["name"]
        assert c["kind"] == "content" and c["games"] == 40
        drawn = folder / c["file"]
        assert drawn.is_file() and (folder / "findings.parquet").is_file()  # numbers only
        assert c["file"] == f"{c['table']}-{c['seed']}.toml"
        # scenario.toml names the drawn table by a path relative to its own folder
        written = tomllib.loads((folder / "scenario.toml").read_text())
        assert written["rules"][f"{c['table']}_file"] == c["file"]
        assert c["differs"] and c["changed_games"] is not None
        res = _run(["validate", str(folder / "scenario.toml")])
        assert res.exit_code == 0, res.output
        # a drawn table is still a guess: it is a labelled default of the condition's run, so
        # its guess counters count (a guessed token face is revealed in every game)
        run = json.loads((folder / "summary.json").read_text())["run"]
        assert c["table"] in {d["name"] for d in run["defaults"]["base"]}
        if c["table"] == "tokens":
            faces = pd.read_parquet(folder / "games.parquet", columns=["acted_token_face"])
            assert (faces["acted_token_face"] > 0).all()
    # simulate on a condition's scenario.toml plays the same games as the condition did
    cond = out / "robustness" / "content-map-1"
    again = tmp_path / "again"
    res = _run(["simulate", str(cond / "scenario.toml"), "--jobs", "1", "--out", str(again),
                "--quiet"])
    assert res.exit_code == 0, res.output
    cols = ["game_id", "seat", "score", "won"]
    pd.testing.assert_frame_equal(pd.read_parquet(again / "seats.parquet", columns=cols),
                                  pd.read_parquet(cond / "seats.parquet", columns=cols))
    # content tables drawn are no longer listed as "not varied"
    assert "tokens" not in data["without"] and "map" not in data["without"]
    for row in data["findings"]:
        assert set(row["content"]) == {"tokens", "map"}
        for table, v in row["content"].items():
            assert v["draws"] == 2 and v["sentence"]
            if v["verdict"] == "holds":
                noun = {"tokens": "token lists", "map": "maps"}[table]
                assert v["sentence"].startswith(f"holds over 2 plausible {noun}")
    # run again: every condition is kept (its drawn table and relative scenario.toml too)
    again_data = _content_run(tmp_path, out, "1")
    assert again_data["findings"] == data["findings"]
    for c in data["conditions"]:
        written = tomllib.loads((out / "robustness" / c["name"] / "scenario.toml").read_text())
        assert written["rules"][f"{c['table']}_file"] == c["file"]
    report = (out / "report.md").read_text()
    assert "Guessed content varied: 2 plausible token lists (`tokens`" in report
    assert "Over guessed content: `tokens`: " in report.split("## Robustness")[0]
    assert "2 plausible maps (`map`" in report
    not_varied = [line for line in report.splitlines() if "(not varied)" in line]
    assert all("`tokens`" not in line and "`map`" not in line for line in not_varied)


def test_same_seed_same_draws_and_records_whatever_the_jobs(tmp_path):
    one = _content_run(tmp_path, tmp_path / "one", "1")
    two = _content_run(tmp_path, tmp_path / "two", "2")
    assert [(c["name"], c["seed"], c["differs"]) for c in one["conditions"]] == [
        (c["name"], c["seed"], c["differs"]) for c in two["conditions"]]
    for c in one["conditions"]:
        a = tmp_path / "one" / "robustness" / c["name"]
        b = tmp_path / "two" / "robustness" / c["name"]
        assert (a / c["file"]).read_text() == (b / c["file"]).read_text()
        for table in ("games", "seats"):
            x = pd.read_parquet(a / f"{table}.parquet").sort_values(
                ["game_id"] + (["seat"] if table == "seats" else []), ignore_index=True)
            y = pd.read_parquet(b / f"{table}.parquet").sort_values(
                ["game_id"] + (["seat"] if table == "seats" else []), ignore_index=True)
            pd.testing.assert_frame_equal(x, y)
    strip = ("tests",)
    for r1, r2 in zip(one["findings"], two["findings"]):
        assert {k: v for k, v in r1.items() if k not in strip} == {
            k: v for k, v in r2.items() if k not in strip}


def test_a_draw_that_changes_no_game_is_named_as_such(tmp_path, monkeypatch):
    """A prior whose draw is the built-in token list itself: every game is the same as the
    base's, and the condition and the sentence say so."""
    same = replace(rat.TOKENS, generate=lambda rng: copy.deepcopy(
        builtin_table("analyzer.games.rattus", "tokens.toml")))
    monkeypatch.setattr(robustness, "content_in_use", lambda scenario: [same])
    out = tmp_path / "run"
    res = _run(["robustness", str(_small(tmp_path)), "--players", "none", "--defaults", "none",
                "--content", "1", "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert [(c["name"], c["changed_games"]) for c in data["conditions"]] == [
        ("content-tokens-1", 0)]
    for row in data["findings"]:
        assert "content-tokens-1 changed no game" in row["content"]["tokens"]["sentence"]
    report = (out / "report.md").read_text()
    assert "Changed no decision" in report and "tokens draw 1" in report.split(
        "Changed no decision")[1].split("\n")[0]


# ------------------------------------------------------------------ verdicts over draws


def _fake(folder: Path, findings: list[dict], run: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(
        {"run": run, "results": {"findings": {"findings": findings}}}))


def _f(est, lo, hi, key):
    return {"key": key, "estimate": est, "lo": lo, "hi": hi, "null": 0.0, "figure": False,
            "scale": 100, "unit": "pp"}


def test_a_finding_that_flips_in_a_constructed_draw_is_sensitive_naming_what_differs(tmp_path):
    scenario = load_scenario(STUDY)
    conds = robustness.content_conditions(scenario, 3, ["tokens", "map"], 100, tmp_path / "t")
    run = {"name": "s", "seed": 1, "games": 100, "finished": "now"}
    _fake(tmp_path, [_f(0.10, 0.06, 0.14, "adv"), _f(0.2, 0.1, 0.3, "other")], run)
    for c in conds:
        flip = c.name == "content-tokens-2"
        _fake(tmp_path / "robustness" / c.name,
              [_f(-0.08, -0.12, -0.04, "adv") if flip else _f(0.09, 0.05, 0.13, "adv"),
               _f(0.2, 0.1, 0.3, "other")], run)
    data = robustness.assess(tmp_path, conds)
    rows = {r["key"]: r for r in data["findings"]}
    adv = rows["adv"]
    assert adv["verdict"] == "sensitive" and adv["sensitive_to"] == ["content-tokens-2"]
    tokens, maps = adv["content"]["tokens"], adv["content"]["map"]
    assert tokens["verdict"] == "sensitive" and tokens["sensitive_to"] == ["content-tokens-2"]
    differs = conds[1].differs
    assert "Royalty" in differs or "most frequent" in differs or " on " in differs
    assert tokens["sentence"] == ("sensitive to the token lists: of 3 plausible token lists, "
                                  f"flipped with content-tokens-2 ({differs})")
    assert maps["verdict"] == "holds" and maps["sentence"] == "holds over 3 plausible maps"
    # one family (issue #32 R2): a table's states and tests are the overall verdict's, Holm
    # over every condition of the finding, read on that table's draws
    names = [c.name for c in conds[:3]]
    assert tokens["states"] == {n: adv["states"][n] for n in names}
    assert tokens["tests"] == {n: adv["tests"][n] for n in names}
    assert tokens["family"] == "every condition of the finding"
    assert rows["other"]["content"]["tokens"]["sentence"] == "holds over 3 plausible token lists"
    assert report_robustness.content_text(adv) == (
        " Over guessed content: `tokens`: sensitive to the token lists: of 3 plausible token "
        "lists, flipped with content-tokens-2; `map`: holds over 3 plausible maps.")
    # the report section shows the sentences and what differs in each draw
    from analyzer.report.document import Doc

    (tmp_path / "charts").mkdir()
    doc = Doc(tmp_path / "charts")
    report_robustness.section(doc, data, {"adv": 1, "other": 2})
    text = "\n".join(b[1] if b[0] != "table" else b[1].to_csv() for b in doc.blocks)
    assert "Guessed content varied: 3 plausible token lists" in text
    assert "flipped with content-tokens-2" in text and differs in text


def test_a_table_verdict_follows_the_overall_family_and_never_contradicts_it(tmp_path):
    """Issue #32 R2: a draw whose difference passes Holm over its table's 3 draws (p 0.012 <
    0.05/3) but not over the finding's 6 conditions (> 0.05/6) made the table "sensitive to
    the token lists" beside an overall "unresolved". One family now: the table says what the
    overall verdict says of its draws."""
    scenario = load_scenario(STUDY)
    conds = robustness.content_conditions(scenario, 3, ["tokens", "map"], 100, tmp_path / "t")
    run = {"name": "s", "seed": 1, "games": 100, "finished": "now"}
    _fake(tmp_path, [_f(0.10, 0.06, 0.14, "adv")], run)
    for c in conds:
        near = c.name == "content-tokens-2"  # a difference of −0.0724, se 0.0289: p 0.012
        _fake(tmp_path / "robustness" / c.name,
              [_f(0.0276, 0.0276 - 0.04, 0.0276 + 0.04, "adv") if near
               else _f(0.09, 0.05, 0.13, "adv")], run)
    adv = robustness.assess(tmp_path, conds)["findings"][0]
    assert 0.05 / 6 < adv["tests"]["content-tokens-2"]["p_value"] < 0.05 / 3
    assert adv["verdict"] == "unresolved"
    tokens = adv["content"]["tokens"]
    assert tokens["verdict"] == "unresolved" and tokens["unresolved_in"] == ["content-tokens-2"]
    assert tokens["sentence"].startswith("unresolved over 3 plausible token lists")
    assert adv["content"]["map"]["verdict"] == "holds"


def test_a_content_run_moved_elsewhere_keeps_its_content_conditions(tmp_path):
    """Issue #33: a `--content` run moved to another directory replayed every content
    condition (their fingerprints hold the drawn table's absolute path). They are found by
    what their folders say with relative paths now, and the verdicts are the same."""
    import shutil

    first = tmp_path / "first"
    args = ["--players", "none", "--defaults", "none", "--content", "1", "--content-tables",
            "tokens", "--games", "12", "--jobs", "1", "--quiet"]
    res = _run(["robustness", str(_small(tmp_path)), *args, "--out", str(first)])
    assert res.exit_code == 0, res.output
    data = json.loads((first / "robustness" / "robustness.json").read_text())
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(str(first), str(moved))
    stamp = (moved / "robustness" / "content-tokens-1" / "seats.parquet").stat().st_mtime_ns
    res = _run(["robustness", str(tmp_path / "small.toml"), *args[:-1], "--out", str(moved),
                "--resume"])
    assert res.exit_code == 0, res.output
    assert "tokens draw 1" in res.output and "finished earlier, kept" in res.output
    assert "arm(s) x 12 games" not in res.output  # nothing played again
    assert (moved / "robustness" / "content-tokens-1" / "seats.parquet").stat().st_mtime_ns == (
        stamp)
    again = json.loads((moved / "robustness" / "robustness.json").read_text())
    assert [r["verdict"] for r in again["findings"]] == [r["verdict"] for r in data["findings"]]


def test_a_moved_content_condition_written_in_another_toml_layout_is_kept(tmp_path):
    """A moved content condition is recognised by its ``scenario.toml``'s data, not its text:
    a run written by an earlier TOML writer (another layout, comments) is not played again."""
    import shutil

    first = tmp_path / "first"
    args = ["--players", "none", "--defaults", "none", "--content", "1", "--content-tables",
            "tokens", "--games", "12", "--jobs", "1", "--quiet"]
    assert _run(["robustness", str(_small(tmp_path)), *args, "--out", str(first)]).exit_code == 0
    written = first / "robustness" / "content-tokens-1" / "scenario.toml"
    written.write_text("# written by an older release\n\n" + written.read_text().replace(
        " = ", "   =   "))
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(str(first), str(moved))
    res = _run(["robustness", str(tmp_path / "small.toml"), *args[:-1], "--out", str(moved),
                "--resume"])
    assert res.exit_code == 0, res.output
    assert "finished earlier, kept" in res.output and "arm(s) x 12 games" not in res.output
