"""Questions a designer can plan before playing (issue #34, items 1-3): ``analyzer findings
SCENARIO.toml`` lists the keys a run will make, before any game; ``validate`` and every study
hold a question's key against that plan exactly, with the reason and the nearest keys; keys by
role (``seat:worst``, ``win_rate:best``, ``rating_gap:best``, ``diff:A:B:KEY``) need no answer in
advance; a question the run cannot answer after all is one row saying why, never a lost report."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import TOY_SCENARIO
from typer.testing import CliRunner

from analyzer import api
from analyzer.cli import app
from analyzer.errors import ScenarioError
from analyzer.games import available_games
from analyzer.games.rattus.findings import CARD_KEYS
from analyzer.report import answers, role_keys
from analyzer.report.finding_keys import of_summary
from analyzer.scenario import load_scenario
from analyzer.study import questions

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"


def _ask(key: str, ask: str = "?") -> str:
    return f'\n[[questions]]\nask = "{ask}"\nfinding = "{key}"\n'


def _shipped(kind: str) -> dict[str, Path]:
    """Per game, the shipped scenario (``kind="scenario"``) with the fewest arms, or its
    tournament pool (``kind="pool"``)."""
    out: dict[str, tuple[int, Path]] = {}
    for path in sorted(SCENARIOS.glob("*.toml")):
        data = tomllib.loads(path.read_text())
        if ("entrants" in data) != (kind == "pool"):
            continue
        size = len(data.get("variants") or [])
        if data["game"] not in out or size < out[data["game"]][0]:
            out[data["game"]] = (size, path)
    return {g: p for g, (_, p) in out.items()}


def _local(path: Path, tmp_path: Path, extra: str = "", name: str = "s.toml") -> Path:
    """A copy of a shipped file under ``tmp_path`` whose params files still resolve, with its
    questions replaced by ``extra``."""
    text = path.read_text().replace('params_file = "tuned/', f'params_file = "{SCENARIOS / "tuned"}/')
    out = tmp_path / name
    out.write_text(text.split("[[questions]]")[0] + extra)
    return out


# ------------------------------------------------------------------ 1. the plan before play


@pytest.mark.parametrize("game", available_games())
def test_findings_of_a_scenario_lists_its_keys_before_play_on_every_game(game, tmp_path):
    """On every game: ``analyzer findings SCENARIO.toml`` plays nothing, exits 0 and lists each
    planned key with its unit and meaning; the keys a run then makes are all planned, so a
    question naming one of them passes ``validate``."""
    path = _shipped("scenario")[game]
    res = CliRunner().invoke(app, ["findings", str(path)])
    assert res.exit_code == 0, res.output
    planned = questions.plan(load_scenario(path), "simulate")
    lines = res.stdout.splitlines()
    for k in planned.keys:
        at = next(i for i, line in enumerate(lines) if line.split()[:1] == [k.key])
        assert f"[{k.unit or 'no unit'}]" in lines[at] and lines[at + 1].strip() == k.meaning
    assert {"first_player:base", "seat:worst", "seat:spread"} <= set(planned.names())
    assert not list(tmp_path.iterdir())  # nothing written, nothing played
    run = api.simulate(_local(path, tmp_path), games=24, jobs=1, out=tmp_path / "run",
                       progress=False)
    made = {str(r["key"]) for r in of_summary(json.loads((run.out_dir / "summary.json")
                                                         .read_text()))}
    assert made and made <= set(planned.names()), made - set(planned.names())


def test_findings_of_a_scenario_as_json_and_csv_give_each_planned_key_with_its_unit():
    """``analyzer findings SCENARIO.toml --json`` (and ``--csv``) give the planned keys as
    rows with their unit and meaning, not the text listing (it used to ignore the flag)."""
    path = _shipped("scenario")["rattus"]
    planned = questions.plan(load_scenario(path), "simulate")
    res = CliRunner().invoke(app, ["findings", str(path), "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["key"] for r in rows] == planned.names() + [k.key for k in planned.templates]
    assert all(r["unit"] == k.unit for r, k in zip(rows, planned.keys, strict=False))
    res = CliRunner().invoke(app, ["findings", str(path), "--csv"])
    assert res.exit_code == 0, res.output
    head, first = res.stdout.splitlines()[:2]
    assert head == "key,unit,meaning,role" and first.startswith(planned.keys[0].key + ",")


@pytest.mark.parametrize("game", sorted(_shipped("pool")))
def test_findings_of_a_tournament_pool_lists_each_entrant_and_the_role_keys(game):
    path = _shipped("pool")[game]
    res = CliRunner().invoke(app, ["findings", str(path)])
    assert res.exit_code == 0, res.output
    entrants = [e.get("name") or e["policy"]
                for e in tomllib.loads(path.read_text())["entrants"]]
    keys = [line.split()[0] for line in res.stdout.splitlines()[1::2]]
    assert keys == [f"win_rate:{e}" for e in entrants] + ["rating_gap:best", "win_rate:best",
                                                          "quality:skill_spread",
                                                          "quality:skill_spread:rating"]
    assert "[log-strength]" in res.stdout


def _refused(path: Path) -> str:
    res = CliRunner().invoke(app, ["validate", str(path)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len(res.stderr.strip().splitlines()) == 1
    return res.stderr


def test_held_out_a_variants_first_player_is_refused_with_its_reason(tmp_path):
    """The trial's case: ``first_player:VARIANT`` passed validate and stopped the run after
    every game. Now: one line before play, why (base only) and the key that answers it."""
    sultan = SCENARIOS / "africanus-sultan.toml"
    variant = tomllib.loads(sultan.read_text())["variants"][0]["name"]
    err = _refused(_local(sultan, tmp_path, _ask(f"first_player:{variant}")))
    assert f"unknown finding key 'first_player:{variant}'" in err
    assert "made for the base arm only" in err and f"did you mean 'start_adv:{variant}'" in err
    out = tmp_path / "never"
    res = CliRunner().invoke(app, ["simulate", str(tmp_path / "s.toml"), "--games", "4",
                                   "--out", str(out)])
    assert res.exit_code == 2 and not out.exists()


def test_held_out_a_card_not_in_play_is_refused_with_its_reason(tmp_path):
    """A card section's key with the card in no arm: refused before play, saying the card is
    not in play; with the card in play it passes. No key of another card is offered in its
    place (it suggested the Sultan's keys for the Trader's: the closest keys at all, not
    close ones)."""
    sultan = SCENARIOS / "africanus-sultan.toml"
    data = tomllib.loads(sultan.read_text())
    card = "trader"
    key = next(k for k, _, _ in CARD_KEYS[card])
    path = _local(sultan, tmp_path, _ask(key))
    assert CliRunner().invoke(app, ["validate", str(path)]).exit_code == 0
    text = path.read_text()
    for cards in [data["rules"]["class_cards"], *(v["rules"]["class_cards"]
                                                  for v in data["variants"])]:
        swap = [c if c != card else next(x for x in ("peasant", "merchant") if x not in cards)
                for c in cards]
        text = text.replace(json.dumps(cards), json.dumps(swap))
    path.write_text(text)
    sc = load_scenario(path)
    assert all(card not in sc.spec.make_config(sc.arm_players(a), sc.expansions, a.rules)
               .class_cards for a in sc.arms)
    err = _refused(path)
    assert f"unknown finding key {key!r}" in err and "the Trader is in no arm's class cards" in err
    assert "did you mean" not in err


def test_validate_reads_each_key_as_the_study_kind_that_makes_it(write_scenario):
    """``analyzer validate`` refused every shipped tune and balance file (their questions are
    ``tuned_minus_start`` and ``balance:…`` keys, checked as a simulate run's): a file names no
    study kind, so each key is read by the kind that makes it, with a note naming it; a key
    no kind makes is still refused."""
    shipped = [p for p in sorted(SCENARIOS.glob("*.toml")) if "questions" in p.read_text()
               and ("tuned_minus_start" in p.read_text() or "balance:" in p.read_text())]
    assert len(shipped) >= 2
    for path in shipped:
        res = CliRunner().invoke(app, ["validate", str(path)])
        assert res.exit_code == 0, res.output
        kind = "tune" if "tuned_minus_start" in path.read_text() else "balance"
        assert f"is answered by analyzer {kind}" in res.stdout
    path = write_scenario(TOY_SCENARIO + _ask("tuned_minus_start") + _ask("tuned_minus_sart"))
    err = _refused(path)
    assert "questions[1].finding: unknown finding key 'tuned_minus_sart'" in err
    with pytest.raises(ScenarioError, match="keys are made by analyzer tune"):
        api.validate(path)  # a study of a named kind still reads them as that kind


def test_replay_plays_a_game_whatever_the_questions(write_scenario, tmp_path):
    """A run's ``scenario.toml`` keeps the study file's questions, which a sweep or ablation
    may not answer (they name the variants it dropped): ``analyzer replay`` plays one game and
    does not check them (every replay command of such a report exited 2)."""
    path = write_scenario(TOY_SCENARIO + _ask("policy:gone:bold"))
    with pytest.raises(ScenarioError):
        api.validate(path)
    record, _ = api.replay_scenario(path, 2, "no-sultan", log=lambda s: None)
    runs = api.simulate(write_scenario(TOY_SCENARIO, "plain.toml"), games=3, jobs=1,
                        out=tmp_path / "run")
    played = runs.games[(runs.games["variant"] == "no-sultan") & (runs.games["game_id"] == 2)]
    assert record["winner_seats"] == played["winner_seats"].iloc[0]
    assert record["class_cards"] == "peasant,merchant,trader"


def test_a_key_of_another_study_kind_says_which_kind_makes_it(write_scenario):
    sc = load_scenario(write_scenario(TOY_SCENARIO + _ask("tuned_minus_start")))
    with pytest.raises(ScenarioError, match="has none of: 'tuned_minus_start' keys are made by "
                                            "analyzer tune"):
        questions.check(sc, "simulate")


def test_a_diff_key_names_arms_of_the_file(write_scenario):
    ok = load_scenario(write_scenario(TOY_SCENARIO + _ask("diff:no-sultan:base:first_player")))
    questions.check(ok, "simulate")
    bad = load_scenario(write_scenario(TOY_SCENARIO + _ask("diff:no-sultn:base:first_player"),
                                       "bad.toml"))
    with pytest.raises(ScenarioError, match="no such variant 'no-sultn' \\(the arms: base, "
                                            "no-sultan"):
        questions.check(bad, "simulate")
    bad = load_scenario(write_scenario(TOY_SCENARIO + _ask("diff:no-sultan:base:wins"), "c.toml"))
    with pytest.raises(ScenarioError, match="allowed KEY: first_player, score_mean, "
                                            "win_rate:POLICY, seat:N"):
        questions.check(bad, "simulate")
    for key, why in (("diff:no-sultan:base:win_rate:bolt", "no policy 'bolt' among the seats"),
                     ("diff:no-sultan:base:seat:4", "start positions 1 \\(the start player\\) to 3"),
                     ("diff:no-sultan:base:seat:first", "allowed KEY"),
                     ("diff:no-sultan:base:seat:0", "allowed KEY")):
        bad = load_scenario(write_scenario(TOY_SCENARIO + _ask(key), "d.toml"))
        with pytest.raises(ScenarioError, match=why):
            questions.check(bad, "simulate")
    for key in ("diff:no-sultan:base:win_rate:bold", "diff:base:no-sultan:seat:2"):
        questions.check(load_scenario(write_scenario(TOY_SCENARIO + _ask(key), "e.toml")),
                        "simulate")


def test_a_diff_of_any_per_arm_figure_is_paired_by_seed(write_scenario, tmp_path):
    """``win_rate:POLICY`` and a start position's win share differenced between two arms on
    the same seeds: the mean over games of the per-game difference, recomputed here from the
    seat records."""
    keys = ("diff:no-sultan:base:win_rate:bold", "diff:no-sultan:base:seat:1",
            "diff:no-sultan:base:score_mean")
    path = write_scenario(TOY_SCENARIO + "".join(_ask(k) for k in keys))
    res = api.simulate(path, games=60, jobs=1, out=tmp_path / "run", progress=False)
    made = {r["key"]: r for r in of_summary(json.loads((res.out_dir / "summary.json")
                                                       .read_text()))}
    seats = pd.read_parquet(res.out_dir / "seats.parquet")
    seats["variant"] = seats["variant"].astype(str)

    def share(arm: str, column: str, name: object) -> pd.Series:
        s = seats[seats["variant"] == arm]
        fair = s.groupby("game_id")["won"].sum() / s.groupby("game_id").size()
        mine = s[s[column].astype(str) == str(name)].groupby("game_id")["won"].mean()
        return mine - fair.reindex(mine.index)

    for key, column, name in ((keys[0], "policy", "bold"), (keys[1], "start_position", 0)):  # seat:1 = position 0
        d = (share("no-sultan", column, name) - share("base", column, name)).dropna()
        assert made[key]["estimate"] == pytest.approx(d.mean())
        assert made[key]["unit"] == "pp" and made[key]["games"] == len(d) == 60
        assert "paired over the 60 games" in made[key]["sentence"]
    per = seats.groupby(["variant", "game_id"])["score"].mean()
    assert made[keys[2]]["estimate"] == pytest.approx((per["no-sultan"] - per["base"]).mean())


def test_the_answers_no_longer_check_questions():
    """The checks live in the study layer (issue #31): the report only answers."""
    for name in ("possible_keys", "game_key_patterns", "key_families", "check_questions"):
        assert not hasattr(answers, name)


# ------------------------------------------------------------------ 2. keys by role


def test_role_keys_are_computed_from_the_records(write_scenario, tmp_path):
    """``seat:worst``, ``seat:spread`` and a paired ``diff:`` answered with the values the seat
    records give, the game as the unit."""
    asks = "".join(_ask(k) for k in ("seat:worst", "seat:spread",
                                     "diff:no-sultan:base:first_player", "win_rate:best"))
    path = write_scenario(TOY_SCENARIO + asks)
    res = api.simulate(path, games=60, jobs=1, out=tmp_path / "run", progress=False)
    summary = json.loads((res.out_dir / "summary.json").read_text())
    got = {a["key"]: a for a in summary["results"]["answers"]["answers"]}
    assert list(got) == ["seat:worst", "seat:spread", "diff:no-sultan:base:first_player",
                         "win_rate:best"]
    seats = pd.read_parquet(res.out_dir / "seats.parquet")
    seats = seats[seats["variant"].astype(str) == "base"]
    won = seats.pivot_table(index="game_id", columns="start_position", values="won",
                            aggfunc="sum")
    fair = seats.groupby("game_id")["won"].sum() / seats.groupby("game_id").size()
    means = won.sub(fair, axis=0).mean()
    assert got["seat:worst"]["estimate"] == pytest.approx(100 * means.min())
    assert got["seat:spread"]["estimate"] == pytest.approx(100 * (means.max() - means.min()))
    lo, hi = got["seat:spread"]["lo"], got["seat:spread"]["hi"]
    assert lo < got["seat:spread"]["estimate"] < hi or np.isnan(lo)
    records = {r["key"]: r for r in of_summary(summary)}
    rates = {k: r["estimate"] for k, r in records.items()
             if k.startswith("win_rate:") and k != "win_rate:best"}
    assert got["win_rate:best"]["estimate"] == pytest.approx(100 * max(rates.values()))
    assert "paired over the 60 games" in records["diff:no-sultan:base:first_player"]["sentence"]


def test_rating_gap_best_needs_no_names_in_advance(tmp_path):
    from test_tournament import POOL

    (tmp_path / "mid.toml").write_text('policy = "biased"\n[params]\nboost = 0.5\n')
    pool = tmp_path / "pool.toml"
    pool.write_text(POOL + _ask("rating_gap:best", "Who is strongest, by how much?")
                    + _ask("win_rate:best"))
    assert CliRunner().invoke(app, ["validate", str(pool)]).exit_code == 0
    res = CliRunner().invoke(app, ["tournament", str(pool), "--out", str(tmp_path / "t"),
                                   "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    got = {a["key"]: a for a in summary["results"]["answers"]["answers"]}
    gap = next(r for r in of_summary(summary) if str(r["key"]).startswith("rating_gap:"))
    assert got["rating_gap:best"]["estimate"] == pytest.approx(gap["estimate"] * gap["scale"])
    assert str(gap["key"]).split(":")[1] in got["rating_gap:best"]["answer"]


def test_every_role_key_has_a_definition_in_the_plan(write_scenario):
    planned = questions.plan(load_scenario(write_scenario(TOY_SCENARIO)), "simulate")
    text = "\n".join(questions.listing(planned, "simulate"))
    for key, (meaning, unit) in role_keys.DEFINITIONS.items():
        if key != "rating_gap:best":  # a tournament's
            assert key in text and meaning in text, key


# ------------------------------------------------------------------ 3. one unanswerable row


def test_an_unanswerable_question_is_a_row_and_the_report_stands(write_scenario, tmp_path):
    """A key the plan allows but the games do not give (one game: no seat spread to measure) is
    a row saying why; every other answer and the report stand; exit 0."""
    path = write_scenario(TOY_SCENARIO + _ask("seat:worst", "Which seat is worst?")
                          + _ask("first_player:base", "Start player?"))
    out = tmp_path / "run"
    res = CliRunner().invoke(app, ["simulate", str(path), "--games", "1", "--jobs", "1",
                                   "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    got = summary["results"]["answers"]["answers"]
    assert [a["key"] for a in got] == ["seat:worst", "first_player:base"]
    assert got[0]["answer"].startswith("`seat:worst`: not answered: the run did not make this "
                                       "finding")
    md = (out / "report.md").read_text()
    assert "Which seat is worst?" in md and "## Key findings" in md


def test_declared_never_raises_for_a_missing_key():
    records = [{"key": "first_player:base", "estimate": 0.01, "lo": -0.02, "hi": 0.04,
                "unit": "pp", "scale": 100}]
    chosen, notes = answers.declared([{"ask": "a", "finding": "policy:x:y"},
                                      {"ask": "b", "finding": "win_rate:best"},
                                      {"ask": "c", "finding": "first_player:base"}],
                                     records, "simulate")
    assert notes == [] and [a["key"] for a in chosen] == ["policy:x:y", "win_rate:best",
                                                         "first_player:base"]
    assert "not answered" in answers.short_text(chosen[0]["record"])
    assert "no `win_rate:` finding to pick the best from" in answers.short_text(
        chosen[1]["record"])
    assert chosen[2]["record"] is records[0]


def test_a_pair_of_building_sets_is_a_paired_difference_with_its_test(tmp_path):
    """``sets:A-B`` (issue #34): the set of arm A minus that of arm B in seat spread², paired by
    seed, from the shipped set comparison cut to three arms; the plan lists exactly the keys
    the run makes (no main effects: three sets are neither a 2^k design nor one class at a
    time), and a pair of one arm with itself is refused before play."""
    text = (SCENARIOS / "cartus-building-sets.toml").read_text().split("\n[[variants]]\n")
    a, b = (tomllib.loads(v)["name"] for v in text[1:3])
    body = "\n[[variants]]\n".join(text[:3])
    path = tmp_path / "sets.toml"
    path.write_text(body.replace("games = 1000", "games = 30") + _ask(f"sets:{a}-base"))
    planned = questions.plan(load_scenario(path), "simulate")
    assert not [k for k in planned.names() if k.startswith("effects:")]
    assert [t.key for t in planned.templates] == ["sets:ARM_A-ARM_B", "diff:ARM_A:ARM_B:KEY"]
    bad = tmp_path / "bad.toml"
    bad.write_text(body + _ask(f"sets:{b}-{b}"))
    assert "compares the building sets of two different arms" in _refused(bad)
    run = api.simulate(path, jobs=1, out=tmp_path / "run", progress=False)
    summary = json.loads((run.out_dir / "summary.json").read_text())
    made = {str(r["key"]): r for r in of_summary(summary)}
    assert set(made) - {f"sets:{a}-base"} <= set(planned.names())
    assert {k for k in planned.names() if k.startswith("sets:")} <= set(made)
    pair = made[f"sets:{a}-base"]
    assert pair["unit"] == "pp²" and pair["lo"] <= pair["estimate"] <= pair["hi"]
    numbers = summary["results"]["building_sets"]
    rows = {r["building_set"]: r for r in numbers["sets"]}
    (got,) = numbers["pairs"]
    assert got["paired"] is True and got["effect"] == pytest.approx(
        rows[got["set_a"]]["spread2"] - rows[got["set_b"]]["spread2"])
    answer = summary["results"]["answers"]["answers"][0]
    assert answer["key"] == f"sets:{a}-base" and "paired by seed" in pair["sentence"]


@pytest.mark.parametrize("key, why", [
    ("policy:no-sultan:nobody", "no policy 'nobody' among the seats of no-sultan"),
    ("score:base", "base is the reference"),
    ("start_adv:elsewhere", "no such variant 'elsewhere' (the arms: base, no-sultan"),
    ("win_rate:nobody", "no policy 'nobody' in the base arm"),
])
def test_each_refusal_says_why(write_scenario, key, why):
    sc = load_scenario(write_scenario(TOY_SCENARIO + _ask(key)))
    with pytest.raises(ScenarioError) as err:
        questions.check(sc, "simulate")
    assert why in str(err.value) and "did you mean" in str(err.value)


def test_a_diff_across_player_counts_is_unpaired_and_says_so(write_scenario, tmp_path):
    """Arms of another player count play other games: the difference is Welch's over the two
    arms' per-game values, and its sentence says it is unpaired; with the same count it is
    paired game by game."""
    text = ('name = "counts"\ngame = "toy"\nplayers = 3\ngames = 50\nseed = 5\n[rules]\n'
            'sides = 6\n[[seats]]\npolicy = "random"\n[[variants]]\nname = "two"\nplayers = 2\n'
            + _ask("diff:two:base:score_mean") + _ask("diff:two:base:first_player")
            + _ask("diff:two:base:seat:1"))
    res = api.simulate(write_scenario(text), jobs=1, out=tmp_path / "run", progress=False)
    summary = json.loads((res.out_dir / "summary.json").read_text())
    made = {r["key"]: r for r in of_summary(summary)}
    score = made["diff:two:base:score_mean"]
    assert "unpaired" in score["sentence"] and "Welch" in score["sentence"]
    seats = pd.read_parquet(res.out_dir / "seats.parquet")
    per = seats.groupby([seats["variant"].astype(str), "game_id"])["score"].mean()
    assert score["estimate"] == pytest.approx(per["two"].mean() - per["base"].mean())
    assert "unpaired" in made["diff:two:base:first_player"]["sentence"]
    seat = made["diff:two:base:seat:1"]
    s = seats.assign(variant=seats["variant"].astype(str))
    fair = s.groupby(["variant", "game_id"])["won"].sum() / s.groupby(["variant", "game_id"]).size()
    first = s[s["start_position"] == 0]  # seat:1, the start player
    one = first.groupby(["variant", "game_id"])["won"].mean() - fair.reindex(
        first.groupby(["variant", "game_id"]).size().index)
    assert seat["estimate"] == pytest.approx(one.loc["two"].mean() - one.loc["base"].mean())
    assert "unpaired" in seat["sentence"] and seat["unit"] == "pp"


@pytest.mark.parametrize("selection, planned", [("random_cards", False),
                                                ("random_buildings", True)])
def test_building_sets_drawn_at_random_are_planned_only_when_selections_repeat(
        tmp_path, selection, planned):
    """Cartus building cards drawn per game (mode c) almost never repeat a selection: no set
    keys are promised; one building per class (mode b, 64 selections) repeats them."""
    path = tmp_path / "drawn.toml"
    path.write_text(f'name = "drawn"\ngame = "cartus"\nplayers = 4\ngames = 100\n'
                    f'[rules]\nbuilding_selection = "{selection}"\n'
                    + '[[seats]]\npolicy = "greedy"\n' * 4)
    plan = questions.plan(load_scenario(path), "simulate")
    assert ("sets:most_balanced" in plan.names()) is planned
