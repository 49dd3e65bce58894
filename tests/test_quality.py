"""Game flow and the quality findings (issue #36): checkpoints after every round, known answers
on toy races (tests/flowtoy.py), recomputation from rounds.parquet, determinism with recording
on and off, resume, and the three games."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import flowtoy
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from analyzer import api, runner
from analyzer.errors import ScenarioError
from analyzer.games import get_game, register_game
from analyzer.model.flow import Checkpoints
from analyzer.report import finding_keys, quality
from analyzer.study import questions

register_game(flowtoy.SPEC)

R = 6


def _scenario(mode: str, players: int = 2, games: int = 40, variants: str = "",
              questions_text: str = "") -> str:
    return (f'name = "race-{mode}"\ngame = "flowtoy"\nplayers = {players}\ngames = {games}\n'
            f'seed = 7\nseat_rotation = false\n\n[rules]\nmode = "{mode}"\nrounds = {R}\n\n'
            f'[[seats]]\npolicy = "random"\n{variants}{questions_text}')


def _one(mode: str, seed: int, players: int = 2) -> tuple[dict, Checkpoints]:
    cfg = flowtoy.make_config(players, (), {"mode": mode, "rounds": R})
    marks = Checkpoints(flowtoy.FLOW)
    game, _ = flowtoy.SPEC.play_game(cfg, "random", seed, checkpoints=marks)
    return game, marks


def _values(marks: Checkpoints) -> dict[str, float]:
    arr = [np.array([row[i] for row in marks.rows]) for i in (1, 2, 3)]
    return quality.game_values(*arr, close_margin=flowtoy.FLOW.close_margin)


def test_checkpoints_after_every_round_and_at_the_end():
    _, marks = _one("steady", 3, players=3)
    assert [r[0] for r in marks.rows] == list(range(1, R + 1))
    assert marks.rows[0][1] == (2.0, 1.0, 1.0)
    assert marks.rows[-1][1] == (2.0 * R, R, R)
    assert marks.rows[-1][2] == (1.0, 0.0, 0.0)  # the end: the win shares


def test_lead_never_changes():
    v = _values(_one("steady", 1, players=3)[1])
    assert v["lead_changes"] == v["lead_changes_estimate"] == 0
    assert v["decided_at"] == pytest.approx(1 / R)  # leading from the first checkpoint
    assert v["comeback"] == v["drama"] == v["close_finish"] == v["tie_break"] == 0
    assert v["rounds"] == R


def test_coin_flip_decided_on_the_last_round():
    seen = set()
    for seed in range(40):
        game, marks = _one("coin", seed)
        v = _values(marks)
        if game["coin"] == 0:  # seat 0 led all along and won
            assert (v["lead_changes"], v["comeback"], v["drama"]) == (0, 0, 0)
            assert v["decided_at"] == pytest.approx(1 / R)
            assert v["close_finish"] == 0
        else:  # the coin gave the trailing seat the game in the last round
            assert v["lead_changes"] == v["lead_changes_estimate"] == 1
            assert v["decided_at"] == 1.0 and v["comeback"] == 1.0 and v["close_finish"] == 1.0
            assert v["drama"] == pytest.approx(np.mean([math.tanh(t / 2) for t in range(1, R)]))
        seen.add(game["coin"])
    assert seen == {0, 1}


def test_tie_break_and_elimination():
    v = _values(_one("tie", 2, players=3)[1])
    assert v["tie_break"] == 1 and v["close_finish"] == 1 and v["decided_at"] == 1
    v = _values(_one("elim", 2, players=4)[1])
    assert v["eliminated"] == pytest.approx(1 / 4)
    assert v["rounds_out"] == pytest.approx((R - 1) / 4)


def test_recording_changes_no_record_and_draws_no_number():
    for name, players in (("rattus", 4), ("cartus", 4), ("pyramidion", 3), ("flowtoy", 2)):
        spec = get_game(name)
        arm = runner.ArmPlan("base", players, (), "{}",
                             tuple((f"p{s}", "random" if name == "flowtoy" else "greedy", "{}")
                                   for s in range(players)))
        off = runner.play_chunk(spec, [arm], 11, 0, 3)
        on = runner.play_chunk(spec, [arm], 11, 0, 3, rounds=True)
        assert len(on) == 5 and len(off) == 4
        assert on[2].equals(off[2]) and on[3].equals(off[3])
        assert on[4].num_rows > 0 and set(on[4].column("game_id").to_pylist()) == {0, 1, 2}


def _bytes(run_dir: Path, name: str) -> bytes:
    return (run_dir / name).read_bytes()


def test_records_byte_identical_with_rounds_on_and_off(tmp_path, write_scenario):
    path = write_scenario(_scenario("coin", games=12))
    off = api.simulate(path, out=tmp_path / "off", jobs=1, chunk_size=5)
    on = api.simulate(path, out=tmp_path / "on", jobs=1, chunk_size=5, rounds=True)
    for name in ("games.parquet", "seats.parquet"):
        assert _bytes(off.out_dir, name) == _bytes(on.out_dir, name)
    assert not (off.out_dir / "rounds.parquet").exists()
    assert (on.out_dir / "rounds.parquet").exists()
    keys = {r["key"] for r in finding_keys.read(on.out_dir)}
    assert "quality:comeback:base" in keys
    assert not any(k.startswith("quality:") for k in
                   (r["key"] for r in finding_keys.read(off.out_dir)))


def test_resume_replays_a_chunk_without_its_rounds_part(tmp_path, write_scenario):
    path = write_scenario(_scenario("coin", games=15))
    whole = api.simulate(path, out=tmp_path / "whole", jobs=1, chunk_size=5, rounds=True)
    run = tmp_path / "cut"
    api.simulate(path, out=run, jobs=1, chunk_size=5, rounds=True)
    (run / "chunks" / "rounds-000000005-000000010.parquet").unlink()
    (run / "summary.json").unlink()
    again = api.simulate(path, out=run, jobs=1, chunk_size=5, rounds=True, resume=True)
    assert again.summary["run"]["chunks_resumed"] == 2
    for name in ("games.parquet", "seats.parquet", "rounds.parquet"):
        assert pq.read_table(whole.out_dir / name).equals(pq.read_table(run / name))


def _recompute(rounds: pd.DataFrame, arm: str, margin: float) -> dict[str, float]:
    """Each finding's per-arm mean, from rounds.parquet, written independently of
    report.quality (a loop over games and plain Python)."""
    sums: dict[str, list[float]] = {}
    for _, g in rounds[rounds["variant"] == arm].groupby("game_id"):
        g = g.sort_values(["round", "seat"])
        rs = sorted(g["round"].unique())
        score = {r: list(g[g["round"] == r]["score"]) for r in rs}
        est = {r: list(g[g["round"] == r]["estimate"]) for r in rs}
        last = rs[-1]
        won = est[last]
        winners = [s for s, x in enumerate(won) if x == max(won) and x > 0]

        def sole(xs: list[float]) -> int | None:
            top = [s for s, x in enumerate(xs) if x == max(xs)]
            return top[0] if len(top) == 1 else None

        def changes(table: dict, rs: list = rs) -> int:
            lead = [sole(table[r]) for r in rs]
            lead = [x for x in lead if x is not None]
            return sum(1 for a, b in itertools.pairwise(lead) if a != b)

        sums.setdefault("rounds", []).append(len(rs))
        sums.setdefault("lead_changes", []).append(changes(score))
        sums.setdefault("lead_changes_estimate", []).append(changes(est))
        if len(winners) != 1:
            continue
        w = winners[0]
        rest = [x for s, x in enumerate(score[last]) if s != w]
        sums.setdefault("close_finish", []).append(float(score[last][w] - max(rest) <= margin))
        sums.setdefault("tie_break", []).append(float(score[last][w] in rest))
        k = len(rs)
        for i in range(len(rs) - 1, 0, -1):
            if sole(est[rs[i - 1]]) != w:
                break
            k = i
        sums.setdefault("decided_at", []).append(k / len(rs))
        third = rs[math.ceil(2 * len(rs) / 3) - 1]
        sums.setdefault("comeback", []).append(float(score[third][w] < max(score[third])))
        gaps = [max(est[r]) - est[r][w] for r in rs[:-1] if est[r][w] < max(est[r])]
        sums.setdefault("drama", []).append(sum(gaps) / len(gaps) if gaps else 0.0)
    return {k: sum(v) / len(v) for k, v in sums.items()}


def test_findings_recomputed_from_rounds_parquet(tmp_path, write_scenario):
    variant = '\n[[variants]]\nname = "steady"\nrules = { mode = "steady" }\n'
    path = write_scenario(_scenario("coin", games=40, variants=variant))
    res = api.simulate(path, out=tmp_path / "run", jobs=1, rounds=True)
    rounds = pd.read_parquet(res.out_dir / "rounds.parquet")
    records = {r["key"]: r for r in finding_keys.read(res.out_dir)}
    coins = pd.read_parquet(res.out_dir / "games.parquet")
    for arm in ("base", "steady"):
        mine = _recompute(rounds, arm, flowtoy.FLOW.close_margin)
        for metric, value in mine.items():
            assert records[quality.key(metric, arm)]["estimate"] == pytest.approx(value), metric
    # the coin's seat-1 games are exactly the comebacks of the base arm
    base = coins[coins["variant"] == "base"]
    assert records["quality:comeback:base"]["estimate"] == pytest.approx((base["coin"] == 1).mean())
    # a change against the base, paired on the same seeds, is a tested finding
    change = records["quality:lead_changes:steady:change"]
    assert change["null"] == 0 and change["estimate"] == pytest.approx(
        -_recompute(rounds, "base", 1.0)["lead_changes"])
    summary = json.loads((res.out_dir / "summary.json").read_text())
    assert "Game flow" in (res.out_dir / "report.md").read_text()
    assert (res.out_dir / "charts" / "game_flow.png").exists()
    assert (res.out_dir / "charts" / "game_length.png").exists()
    flow = quality.by_round(rounds, "steady")  # seat 0 wins every steady race, 2 points a round
    winner = flow[flow["who"] == "winner"].set_index("round")
    assert list(winner["score"]) == [2.0 * t for t in range(1, R + 1)]
    assert winner.loc[R, "estimate"] == 1.0
    assert summary["results"]["findings"]["findings"]


def test_quality_keys_planned_and_askable(write_scenario):
    q = '\n[[questions]]\nask = "Comebacks?"\nfinding = "quality:comeback:base"\n'
    path = write_scenario(_scenario("coin", questions_text=q))
    sc = api.validate(path)
    planned = questions.plan(sc).names()
    assert "quality:comeback:base" in planned and "quality:drama:base" in planned
    assert "quality:eliminated:base" in planned  # the race declares elimination
    assert not questions.problems(sc, "simulate")
    bad = write_scenario(_scenario("coin", questions_text=q.replace("comeback", "combeack")),
                         "bad.toml")
    with pytest.raises(ScenarioError, match="did you mean 'quality:comeback:base'"):
        api.validate(bad)


@pytest.mark.parametrize("name,players", [("rattus", 4), ("cartus", 4), ("pyramidion", 3)])
def test_every_game_makes_the_quality_findings(tmp_path, write_scenario, name, players):
    path = write_scenario(f'name = "{name}-flow"\ngame = "{name}"\nplayers = {players}\n'
                          'games = 20\nseed = 3\n\n[[seats]]\npolicy = "greedy"\n')
    res = api.simulate(path, out=tmp_path / name, jobs=1, rounds=True)
    keys = {r["key"]: r for r in finding_keys.read(res.out_dir)}
    for metric in quality.metrics(get_game(name).flow.eliminates):
        assert quality.key(metric, "base") in keys
    assert keys["quality:rounds:base"]["estimate"] >= 2
    assert ("quality:eliminated:base" in keys) == (name == "cartus")
    if name == "cartus":  # the seats out are the seats the plague killed (seats.parquet)
        died = pd.read_parquet(res.out_dir / "seats.parquet")["died"].mean()
        assert keys["quality:eliminated:base"]["estimate"] == pytest.approx(died)


def test_rounds_independent_of_jobs_and_chunks(tmp_path):
    spec = get_game("rattus")
    arm = runner.ArmPlan("base", 4, (), "{}", tuple((f"p{s}", "greedy", "{}") for s in range(4)))
    one = runner.run(spec, [arm], 5, 6, tmp_path / "one", backend="sequential", chunk_size=6,
                     rounds=True)
    two = runner.run(spec, [arm], 5, 6, tmp_path / "two", jobs=2, chunk_size=2, rounds=True)
    runner.aggregate(one.parts("rounds"), tmp_path / "one.parquet")
    runner.aggregate(two.parts("rounds"), tmp_path / "two.parquet")
    assert pq.read_table(tmp_path / "one.parquet").equals(pq.read_table(tmp_path / "two.parquet"))
    assert one.parts("rounds") and not runner.run(spec, [arm], 5, 2, tmp_path / "off",
                                                  backend="sequential").parts("rounds")


def test_sweep_and_compare_make_the_quality_findings(tmp_path, write_scenario):
    path = write_scenario(_scenario("coin", games=20))
    res = api.sweep(path, "rules.rounds=3,9", out=tmp_path / "sweep", jobs=1, rounds=True)
    keys = {r["key"]: r for r in finding_keys.read(res.out_dir)}
    arms = [a["name"] for a in res.summary["run"]["arms"]]
    assert quality.key("rounds", arms[0]) in keys
    longer = [a for a in arms[1:] if keys[quality.key("rounds", a)]["estimate"] == 9]
    assert longer and keys[quality.key("rounds", longer[0], change=True)]["estimate"] == 9 - \
        keys[quality.key("rounds", arms[0])]["estimate"]
    other = write_scenario(_scenario("steady", games=20).replace("race-steady", "race-b"),
                           "b.toml")
    res = api.compare([path, other], out=tmp_path / "cmp", jobs=1, rounds=True)
    keys = {r["key"] for r in finding_keys.read(res.out_dir)}
    assert any(k.startswith("quality:lead_changes:") and k.endswith(":change") for k in keys)


def test_a_quality_question_without_rounds_is_refused_before_play(tmp_path, write_scenario):
    """A ``quality:`` question of a run played without ``--rounds`` used to be answered "no
    answer (needs --rounds)" after every game was played: it is refused before play, one line
    naming the question, the key and the fix; with ``--rounds`` it is played and answered.
    ``analyzer validate`` (whether the run will record rounds is not known) accepts it, and
    ``analyzer findings`` of the file lists the quality keys as made "with --rounds"."""
    from typer.testing import CliRunner

    from analyzer.cli import app

    q = '\n[[questions]]\nask = "Comebacks?"\nfinding = "quality:comeback:base"\n'
    path = write_scenario(_scenario("coin", questions_text=q, games=20))
    sc = api.validate(path)  # the run may record rounds: `analyzer validate` says it needs them
    said = CliRunner().invoke(app, ["validate", str(path)])
    assert said.exit_code == 0 and "note: " in said.stdout and "run it with --rounds" in said.stdout
    assert "quality:comeback:base" not in questions.plan(sc, rounds=False).names()
    assert questions.plan(sc, rounds=False).absent["quality"] == questions.NO_ROUNDS
    res = CliRunner().invoke(app, ["simulate", str(path), "--out", str(tmp_path / "o"),
                                   "--jobs", "1", "--quiet"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output
    assert "questions[0] ('Comebacks?')" in lines[0] and "'quality:comeback:base'" in lines[0]
    assert "add --rounds to the command" in lines[0]
    assert not (tmp_path / "o").exists()
    # a sweep without --rounds: the family alone is known, and refused the same way
    with pytest.raises(ScenarioError, match="add --rounds"):
        api.sweep(path, "rules.rounds=5,6", out=tmp_path / "sw", jobs=1)
    # a study that never records rounds says where to ask it instead
    with pytest.raises(ScenarioError, match="analyzer ablate records no rounds"):
        questions.check(sc, "ablate")
    # a quality key misspelled: the rounds fix and the nearest quality key
    bad = write_scenario(_scenario("coin", questions_text=q.replace("comeback", "combeack")),
                         "bad.toml")
    with pytest.raises(ScenarioError, match="add --rounds.*did you mean 'quality:comeback:base'"):
        api.simulate(bad, out=tmp_path / "b", jobs=1)
    res = api.simulate(path, out=tmp_path / "r", jobs=1, rounds=True)
    answer = res.summary["results"]["answers"]["answers"][0]
    assert answer["key"] == "quality:comeback:base" and answer["estimate"] is not None


def test_balance_keeps_a_quality_finding_in_its_band(tmp_path, write_scenario):
    """Issue #36 item 4: ``balance --keep quality:rounds:base=3..4`` records the rounds of every
    setting it plays (the quality findings need them; the probe used to call the key unknown),
    refuses each setting whose game length leaves the band (the race lasts exactly its
    ``rounds`` option: 5..8 are refused, their gap NaN), finds a value inside it, and its report
    says what was kept, measured on the check's fresh games."""
    path = write_scenario(_scenario("coin", games=100))
    res = api.balance(path, finding="first_player:base", vary="rules.rounds=3..8",
                      keep="quality:rounds:base=3..4", budget=240, validation_games=40,
                      out=tmp_path / "b", jobs=1)
    rows = pd.read_parquet(res.out_dir / "search.parquet").set_index("rules.rounds")
    assert list(rows["keep_0"]) == [3.0, 4.0, 5.0, 6.0, 7.0, 8.0]  # each setting's own rounds
    assert rows.loc[[5, 6, 7, 8], "gap"].isna().all() and rows.loc[[3, 4], "gap"].notna().all()
    study = res.summary["run"]["study"]
    assert study["keep"] == [{"key": "quality:rounds:base", "low": 3.0, "high": 4.0}]
    balanced = res.balanced_file.read_text()
    assert "rounds = 3" in balanced or "rounds = 4" in balanced  # inside the band
    text = (res.out_dir / "report.md").read_text()
    assert "**Kept**" in text and "inside the band 3.00..4.00 rounds kept" in text
    assert (res.out_dir / "rounds.parquet").is_file()


def _two_arms() -> pd.DataFrame:
    """``per_game``'s table of 4 seeds played by `base` (3, 5, 4, 6 rounds; comebacks in 3 of
    4) and by `v` (4, 5, 6, 7 rounds; 1 comeback); every other metric 0."""
    index = pd.MultiIndex.from_tuples([(a, g) for a in ("base", "v") for g in range(4)],
                                      names=["variant", "game_id"])
    games = pd.DataFrame(0.0, index=index, columns=list(quality.METRICS))
    games["rounds"] = [3.0, 5.0, 4.0, 6.0, 4.0, 5.0, 6.0, 7.0]
    games["comeback"] = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    return games


def test_numbers_are_each_arms_figure_and_its_change_with_known_intervals():
    from scipy import stats as sps
    from statsmodels.stats.proportion import proportion_confint

    found = quality.numbers(_two_arms(), ["base", "v", "absent"], {"base": 2, "v": 2},
                            eliminates=False)
    keys = [f.key for f in found]
    assert keys == [k for m in quality.metrics(False) for k in (
        f"quality:{m}:base", f"quality:{m}:v", f"quality:{m}:v:change")]
    by = {f.key: f for f in found}
    lo, hi = proportion_confint(3, 4, method="wilson")  # 3 comebacks in 4 games
    come = by["quality:comeback:base"]
    assert (come.estimate, come.lo, come.hi, come.games, come.null) == (
        0.75, pytest.approx(lo), pytest.approx(hi), 4, None)
    rounds = by["quality:rounds:base"]
    half = sps.t.ppf(0.975, 3) * np.std([3, 5, 4, 6], ddof=1) / 2
    assert rounds.estimate == 4.5 and (rounds.lo, rounds.hi) == (
        pytest.approx(4.5 - half), pytest.approx(4.5 + half))
    change = by["quality:rounds:v:change"]  # paired on the seeds: differences 1, 0, 2, 1
    half = sps.t.ppf(0.975, 3) * np.std([1, 0, 2, 1], ddof=1) / 2
    assert (change.estimate, change.null, change.games) == (1.0, 0.0, 4)
    assert (change.lo, change.hi) == (pytest.approx(1 - half), pytest.approx(1 + half))
    assert change.p_value == pytest.approx(sps.ttest_1samp([1, 0, 2, 1], 0.0).pvalue)
    welch = quality.numbers(_two_arms(), ["base", "v"], {"base": 2, "v": 3}, eliminates=False)
    change = {f.key: f for f in welch}["quality:rounds:v:change"]  # other player count
    assert "Welch" in change.statement and change.p_value == pytest.approx(
        sps.ttest_ind([4, 5, 6, 7], [3, 5, 4, 6], equal_var=False).pvalue)
    assert quality.numbers(_two_arms(), ["other"], {}, eliminates=False) == []
    # a share at 0 in every game (nobody eliminated) has no spread: Wilson's bound for 0 of 4
    # games, not [0.0, 0.0]; a count (rounds out) keeps its t interval
    lo, hi = proportion_confint(0, 4, method="wilson")
    out = {f.key: f for f in quality.numbers(_two_arms(), ["base"], {"base": 2},
                                             eliminates=True)}
    gone = out["quality:eliminated:base"]
    assert (gone.estimate, gone.lo, gone.hi) == (0.0, pytest.approx(lo), pytest.approx(hi))
    assert hi > 0.4 and (out["quality:rounds_out:base"].lo, out["quality:rounds_out:base"].hi) \
        == (0.0, 0.0)


def test_write_tabulates_the_figures_an_arm_a_row(tmp_path):
    from analyzer.report.document import Doc

    doc = Doc(tmp_path)
    found = quality.numbers(_two_arms(), ["base", "v"], {"base": 2, "v": 2}, eliminates=False)
    quality.write(doc, found)
    (table,) = [b[1] for b in doc.blocks if b[0] == "table"]
    assert list(table.columns) == ["arm", *quality.metrics(False)]
    assert list(table["arm"]) == ["base", "v"]
    by = {f.key: f for f in found}
    assert table["comeback"].iloc[0] == by["quality:comeback:base"].value_text()
    assert table["rounds"].iloc[1] == by["quality:rounds:v"].value_text()
    assert not [b for b in doc.blocks if b[0] == "chart"]  # no chart inputs given


def test_a_metric_shown_in_percent_says_its_scale_in_percent():
    """`analyzer findings` shows `quality:decided_at` in % (65.7 %), so its meaning must not
    say "1 = at the end" (a fraction of 1) but 100 %."""
    import re
    for name, (words, unit, scale, *_rest) in quality.METRICS.items():
        if unit in ("%", "pp") and scale == 100.0:
            assert not re.search(r"\b1 = ", words), (name, words)
