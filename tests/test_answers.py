"""The Answers table that opens every report (issue #25, parts 1–3): questions declared in study
files, checked where their keys can be known; each study kind's own answers in a fixed order;
the answers in ``summary.json``; the caveats said once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TOY_SCENARIO
from typer.testing import CliRunner

from analyzer import api
from analyzer.cli import app
from analyzer.errors import ScenarioError
from analyzer.games import available_games
from analyzer.report import answers
from analyzer.report.extension import key_patterns
from analyzer.report.finding_keys import of_summary
from analyzer.scenario import Question, load_scenario, parse_scenario, to_toml
from analyzer.study import questions

ROOT = Path(__file__).resolve().parents[1]

QUESTIONS = """
[[questions]]
ask = "What does leaving the Sultan out do to the bold player?"
finding = "policy:no-sultan:bold"

[[questions]]
ask = "Does the start player have an edge?"
finding = "first_player:base"
"""


def _summary(res) -> dict:
    return json.loads((res.out_dir / "summary.json").read_text())


class _Done:
    """What a command gave: its exit code, standard output and standard error."""

    def __init__(self, res):
        self.returncode, self.stdout, self.stderr = res.exit_code, res.stdout, res.stderr
        assert res.exception is None or isinstance(res.exception, SystemExit)


def _cli(*args: str) -> _Done:
    """The command line in this process (the toy game is registered here only)."""
    return _Done(CliRunner().invoke(app, list(args)))


# ------------------------------------------------------------------ 1. questions


def test_questions_are_read_and_written_back(write_scenario):
    sc = load_scenario(write_scenario(TOY_SCENARIO + QUESTIONS))
    assert sc.questions == (
        Question("What does leaving the Sultan out do to the bold player?",
                 "policy:no-sultan:bold"),
        Question("Does the start player have an edge?", "first_player:base"))
    again = parse_scenario(__import__("tomllib").loads(to_toml(sc)), sc.file)
    assert again.questions == sc.questions
    # questions do not change what the games are: the chunks of a run stay resumable
    assert again.fingerprint() == load_scenario(write_scenario(TOY_SCENARIO, "b.toml")).fingerprint()


@pytest.mark.parametrize("text, line", [
    ('[[questions]]\nask = "x"\nfinding = "first_player:base"\nkey = 1\n',
     "questions[0].key: unknown key (allowed: ask, finding, tolerance)"),
    ('[[questions]]\nask = "x"\nfinding = "first_player:base"\ntolerance = -2\n',
     ("questions[0].tolerance: must be a positive, finite number in the finding's unit "
      "(e.g. 2 for ±2 pp; got -2)")),
    ('[[questions]]\nask = "x"\nfinding = "first_player:base"\ntolerance = 0\n',
     "questions[0].tolerance: must be a positive"),
    ('[[questions]]\nask = "x"\nfinding = "first_player:base"\ntolerance = inf\n',
     "questions[0].tolerance: must be a positive"),
    ('[[questions]]\nask = "x"\nfinding = "first_player:base"\ntolerance = "2 pp"\n',
     "questions[0].tolerance: must be a positive"),
    ('[[questions]]\nask = "x"\nfinding = "first_player:base"\ntolerance = true\n',
     "questions[0].tolerance: must be a positive"),
    ('[[questions]]\nask = "x"\n', "questions[0].finding: missing"),
    ('[[questions]]\nask = "x"\nfinding = " "\n', "questions[0].finding: must not be empty"),
    ('questions = "first_player:base"\n', "questions: must be a list"),
])
def test_a_malformed_question_is_one_line_naming_the_file_and_field(write_scenario, text, line):
    path = write_scenario(text + TOY_SCENARIO if text.startswith("questions =")
                          else TOY_SCENARIO + text)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(err.value).startswith(f"{path}: {line}")


def test_an_unknown_arm_key_is_refused_before_a_game_is_played(write_scenario, tmp_path):
    """The variants and seats are known from the scenario: a typo in one is one line with
    "did you mean", exit 2, nothing played."""
    path = write_scenario(TOY_SCENARIO + QUESTIONS.replace("policy:no-sultan:bold",
                                                           "policy:no-sultn:bold"))
    out = tmp_path / "run"
    proc = _cli("simulate", str(path), "--games", "20", "--jobs", "1", "--out", str(out),
                "--quiet")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert f"{path}: questions[0].finding: unknown finding key 'policy:no-sultn:bold'" in lines[0]
    assert "did you mean 'policy:no-sultan:bold'" in lines[0]
    assert not (out / "games.parquet").exists()
    proc = _cli("validate", str(path))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "did you mean 'policy:no-sultan:bold'" in proc.stderr


def test_an_unknown_key_of_a_game_family_is_refused_before_play(write_scenario, tmp_path):
    """Every key is planned from the scenario before play (issue #34): a variant's first player,
    a family the game has none of and a typo of a game section's key are each one line with the
    reason and the nearest keys, exit 2, nothing played."""
    path = write_scenario(TOY_SCENARIO + QUESTIONS.replace("first_player:base",
                                                           "first_player:bsae"))
    names = questions.plan(load_scenario(path), "simulate").names()
    assert [k for k in names if k.startswith("first_player:")] == ["first_player:base"]
    # a family no key of the game has is refused before play
    path = write_scenario(TOY_SCENARIO + QUESTIONS.replace("first_player:base", "firstplayer:base"))
    out = tmp_path / "run"
    proc = _cli("simulate", str(path), "--games", "30", "--jobs", "1", "--out", str(out),
                "--quiet")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "did you mean 'first_player'" in proc.stderr and not out.exists()
    # a game section's key the run will not make: refused before play too, now
    path = write_scenario(TOY_SCENARIO + QUESTIONS.replace("first_player:base", "sultan:users:no-sultn"))
    proc = _cli("simulate", str(path), "--games", "30", "--jobs", "1", "--out", str(out),
                "--quiet")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert f"{path}: questions[1].finding: unknown finding key 'sultan:users:no-sultn'" in lines[0]
    assert "did you mean 'sultan:users:no-sultan'" in lines[0]
    assert not (out / "games.parquet").exists()


def test_declared_questions_are_answered_in_their_order(write_scenario, tmp_path):
    path = write_scenario(TOY_SCENARIO + QUESTIONS)
    res = api.simulate(path, games=60, jobs=1, out=tmp_path / "run", progress=False)
    summary = _summary(res)
    got = summary["results"]["answers"]
    assert got["declared"] is True
    assert [a["key"] for a in got["answers"]] == ["policy:no-sultan:bold", "first_player:base"]
    records = {r["key"]: r for r in of_summary(summary)}
    for a in got["answers"]:
        r = records[a["key"]]
        assert a["estimate"] == pytest.approx(r["estimate"] * r["scale"])
        assert (a["lo"], a["hi"]) == (pytest.approx(r["lo"] * r["scale"]),
                                      pytest.approx(r["hi"] * r["scale"]))
        assert a["unit"] == "pp"
        # without robustness the verdict is the run's own Holm correction, in words
        assert a["verdict"] == (answers.SIGNIFICANT if r["holds"] else answers.NOT_SIGNIFICANT)
        assert a["answer"].endswith(".") and "[" in a["answer"]
    assert got["answers"][0]["question"].startswith("What does leaving the Sultan out")
    example = got["answers"][1]["example"]
    assert example["variant"] == "base" and example["game_id"] in records[
        "first_player:base"]["examples"]
    assert f"--game {example['game_id']}`" in (res.out_dir / "report.md").read_text()
    md = (res.out_dir / "report.md").read_text()
    heads = [line for line in md.splitlines() if line.startswith("## ")]
    assert heads[:2] == ["## Answers", "## Key findings"]
    assert "What does leaving the Sultan out do to the bold player?" in md.split("## Key")[0]


# ------------------------------------------------------------------ 2. fixed order per kind


def test_simulate_answers_each_variant_on_its_players_then_the_start_player(toy_file,
                                                                             tmp_path):
    res = api.simulate(toy_file, games=60, jobs=1, out=tmp_path / "run", progress=False)
    summary = _summary(res)
    keys = [a["key"] for a in summary["results"]["answers"]["answers"]]
    found = [r["key"] for r in of_summary(summary)]
    expected = [k for arm in ("no-sultan", "no-trader") for k in found
                if k.startswith(f"policy:{arm}:")]
    assert len(expected) >= 4  # several policies play: each variant is about them
    assert keys == expected + ["first_player:base"]
    assert summary["results"]["answers"]["declared"] is False


def test_the_fixed_order_functions_on_known_records():
    """Known records in, known order out: compare ranks by effect, ablate by value,
    tournament puts the gap first then the win rates best first, tune tuned − start."""
    def rec(key, est, unit="pp"):
        return {"key": key, "estimate": est, "lo": est - 0.01, "hi": est + 0.01, "unit": unit,
                "scale": 100, "digits": 1, "signed": True, "null": 0.0, "sentence": key}

    run = {"arms": [{"name": "base"}, {"name": "a"}, {"name": "b"}]}
    records = [rec("first_player:base", 0.02), rec("score:a", -0.1, "points"),
               rec("score:b", 0.3, "points"), rec("item:x", 0.01), rec("item:y", 0.05),
               rec("rating_gap:s:m", 0.4, ""), rec("win_rate:m", 0.01), rec("win_rate:s", 0.2),
               rec("tuned_above_fair", 0.1), rec("tuned_minus_start", 0.05)]
    keys = lambda f: [a["key"] for a in f(records, {}, run)]
    assert keys(answers.compare) == ["score:b", "score:a", "first_player:base"]
    assert keys(answers.simulate) == ["score:a", "score:b", "first_player:base"]
    assert keys(answers.ablate) == ["item:y", "item:x"]
    assert keys(answers.tournament) == ["rating_gap:s:m", "win_rate:s", "win_rate:m"]
    assert keys(answers.tune) == ["tuned_minus_start", "tuned_above_fair"]
    # a scenario of another player count has no paired score: its start player's edge (the
    # comparison's own answers were missing for 3 against 4 players)
    three = run["arms"] + [{"name": "c"}]
    got = answers.compare(records + [rec("players:start_adv:c", 0.2),
                                     rec("players:score:c", 9.8, "points")], {}, {"arms": three})
    # after the ranking: a share of another unit, where larger is not better
    assert [a["key"] for a in got] == ["score:b", "score:a", "players:start_adv:c",
                                       "first_player:base"]
    assert got[2]["ask"] == "What does `c` (another player count) do to the start player's edge?"


def test_a_player_count_sweep_answers_per_count(write_scenario, tmp_path):
    one = TOY_SCENARIO.split("[[seats]]")[0] + '[[seats]]\npolicy = "random"\n'
    res = api.sweep(write_scenario(one), ["players=2,3,4"], games=60, jobs=1,
                    out=tmp_path / "sw", progress=False)
    got = _summary(res)["results"]["answers"]["answers"]
    firsts = [a for a in got if a["key"].startswith("first_player:")]
    means = [a for a in got if a["key"].startswith("score_mean:")]
    assert len(firsts) >= 3 and len(means) >= 3
    by_variant = {r["variant"]: r for r in
                  _summary(res)["results"]["studies"]["first_player"]["by_variant"]}
    for a in firsts:
        r = by_variant[a["key"].partition(":")[2]]
        assert a["estimate"] == pytest.approx(100 * r["advantage"])


def test_a_sweep_asks_its_own_questions_first_then_the_files(write_scenario, tmp_path):
    """A sweep makes arms of its own: its per-arm answers come first, in the file's words
    where the file asks the same key, then the file's other questions it answers."""
    text = TOY_SCENARIO.split("[[seats]]")[0] + '[[seats]]\npolicy = "random"\n' + (
        '\n[[questions]]\nask = "Does the start player lead?"\nfinding = "first_player:base"\n')
    res = api.sweep(write_scenario(text), ["players=3,4"], games=40, jobs=1,
                    out=tmp_path / "sw", progress=False)
    got = _summary(res)["results"]["answers"]
    asks = {a["key"]: a["question"] for a in got["answers"]}
    assert got["declared"] and asks["first_player:base"] == "Does the start player lead?"
    assert any(k.startswith("first_player:") and k != "first_player:base" for k in asks)


def test_ablate_tournament_and_tune_open_with_their_answers(toy_file, tmp_path):
    from test_tournament import POOL

    shipped = (ROOT / "scenarios" / "cartus-first-game.toml").read_text()
    res = api.ablate(ROOT / "scenarios" / "cartus-first-game.toml", games=24, jobs=1,
                     out=tmp_path / "declared", progress=False)
    got = _summary(res)["results"]["answers"]  # its own questions first, then the file's
    keys = [a["key"] for a in got["answers"]]
    assert got["declared"] and keys[-1] == "first_player:base"
    assert keys[:-1] and all(k.startswith("item:") for k in keys[:-1])
    plain = tmp_path / "plain.toml"
    plain.write_text(shipped.split("[[questions]]")[0])
    res = api.ablate(plain, games=24, jobs=1, out=tmp_path / "ab", progress=False)
    got = _summary(res)["results"]["answers"]["answers"]
    assert got and all(a["key"].startswith("item:") for a in got)
    assert [a["estimate"] for a in got] == sorted((a["estimate"] for a in got), reverse=True)

    (tmp_path / "mid.toml").write_text('policy = "biased"\n[params]\nboost = 0.5\n')
    pool = tmp_path / "pool.toml"
    pool.write_text(POOL + '\n[[questions]]\nask = "Is strong strongest?"\n'
                    'finding = "win_rate:strong"\n')
    res = api.tournament(pool, out=tmp_path / "t", jobs=1, bootstrap=20)
    summary = _summary(res)
    got = summary["results"]["answers"]["answers"]
    assert [a["key"] for a in got] == ["win_rate:strong"]
    md = (res.out_dir / "report.md").read_text()
    assert md.split("\n## ")[1].startswith("Answers")
    assert "## Appendix: labelled defaults in use" in md
    assert "Labelled defaults in use (" not in md  # no paragraph of values any more

    res = api.tune(toy_file, seat=0, out=tmp_path / "tu", jobs=1, budget=240, games=20,
                   popsize=4, validation_games=60)
    got = _summary(res)["results"]["answers"]["answers"]
    assert [a["key"] for a in got][:1] == ["tuned_minus_start"]


def test_an_unknown_pool_entrant_key_is_one_line(tmp_path):
    from test_tournament import POOL

    (tmp_path / "mid.toml").write_text('policy = "biased"\n[params]\nboost = 0.5\n')
    pool = tmp_path / "pool.toml"
    pool.write_text(POOL + '\n[[questions]]\nask = "x"\nfinding = "win_rate:strnog"\n')
    proc = _cli("tournament", str(pool), "--out", str(tmp_path / "t"), "--quiet")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "questions[0].finding: unknown finding key 'win_rate:strnog'" in proc.stderr
    assert "did you mean 'win_rate:strong'" in proc.stderr


# ------------------------------------------------------------------ 3. caveats once


def test_the_caveats_box_says_what_acted_once():
    acted = {"counters": [{"column": "acted_a", "default": "rule_a", "what": "a guessed face "
                           "was revealed (per reveal)", "section": ""},
                          {"column": "acted_b", "default": "rule_b", "what": "b", "section": ""}],
             "arms": [{"variant": "base", "games": 10, "any": {"share": 0.7},
                       "counters": [{"column": "acted_a", "in_use": True, "acted": 7,
                                     "share": 0.7},
                                    {"column": "acted_b", "in_use": True, "acted": 0,
                                     "share": 0.0}]}]}
    text = answers.caveats(acted, {"base": [{"name": "rule_a"}, {"name": "rule_b"}]}, "[x](#y)")
    assert text.startswith("**What these answers rest on:**")
    assert "a guessed face was revealed (`rule_a`) in 70.0 %" in text
    assert "`rule_b`" not in text  # it never acted
    assert "2 rule values of this run are labelled defaults" in text and "[x](#y)" in text


def test_after_a_robustness_check_each_answer_has_its_verdict(write_scenario, tmp_path):
    """The conditions' runs do not answer the file's questions (their arms differ); the base's
    Answers carry each finding's verdict, in words, and the chart a point per condition."""
    path = write_scenario(TOY_SCENARIO + QUESTIONS)
    res = api.robustness(path, players="biased,random", defaults="none", games=40, jobs=1,
                         out=tmp_path / "r")
    data = json.loads((tmp_path / "r" / "robustness" / "robustness.json").read_text())
    rows = {r["key"]: r for r in data["findings"]}
    got = {a["key"]: a for a in res.summary["results"]["answers"]["answers"]}
    assert set(got) == {"policy:no-sultan:bold", "first_player:base"}
    start = rows["first_player:base"]
    said = got["first_player:base"]["verdict"]
    assert said == answers.robustness.short_verdict(start, data)
    word = {"holds": "holds", "sensitive": "sensitive", "unresolved": "unresolved",
            "figure": "measured figure", "unchecked": "not checked"}[start["verdict"]]
    assert said.startswith(word)
    md = (tmp_path / "r" / "report.md").read_text()
    assert "| question | answer | verdict | example game |" in md
    for cond in data["conditions"]:  # the conditions' own runs answer no question
        sub = json.loads((tmp_path / "r" / "robustness" / cond["name"] / "summary.json")
                         .read_text())
        assert sub["run"]["questions"] == [] and sub["results"]["answers"]["declared"] is False


# per game, a shipped study whose run makes every finding family the game's sections declare
SHOWCASE = {"rattus": "africanus-sultan", "cartus": "cartus-building-sets",
            "pyramidion": "pyramidion-baseline"}


@pytest.mark.parametrize("game", available_games())
def test_every_key_of_a_game_is_in_a_declared_family(game, tmp_path):
    """The families and key patterns the check knows are the ones the runs make: every key of
    a shipped study is in a known family and, in a game's own family, matches a declared
    pattern; every family a game's sections declare occurs (so a question is never refused for
    a key the run would have had, and the declarations are not stale)."""
    import fnmatch

    assert game in SHOWCASE, f"name a shipped scenario of {game} in SHOWCASE"
    path = ROOT / "scenarios" / f"{SHOWCASE[game]}.toml"
    assert load_scenario(path).spec.name == game
    spec = load_scenario(path).spec
    res = api.simulate(path, games=40, jobs=1, out=tmp_path / "run", progress=False)
    keys = {str(r["key"]) for r in of_summary(_summary(res))}
    assert {k.partition(":")[0] for k in keys} <= questions.key_families(spec)
    patterns = key_patterns(spec)
    own = {p.partition(":")[0] for p in patterns}
    for key in keys:
        if key.partition(":")[0] in own:
            assert any(fnmatch.fnmatchcase(key, p) for p in patterns), key
    assert own and own <= {k.partition(":")[0] for k in keys}


def test_a_question_of_an_unknown_family_is_refused_before_play(tmp_path):
    text = (ROOT / "scenarios" / "africanus-sultan.toml").read_text().replace(
        'params_file = "tuned/', f'params_file = "{ROOT / "scenarios" / "tuned"}/')
    path = tmp_path / "typo.toml"
    path.write_text(text.split("[[questions]]")[0]
                    + '[[questions]]\nask = "?"\nfinding = "sultn:leader_edge"\n')
    out = tmp_path / "never"
    for command in (["validate", str(path)],
                    ["sweep", str(path), "--param", "players=3,4", "--out", str(out)]):
        res = CliRunner().invoke(app, command)
        assert res.exit_code == 2 and not out.exists(), res.output
        line = res.stderr.strip()
        assert "\n" not in line and "questions[0].finding: unknown finding key 'sultn:leader_edge'" in line
        assert "did you mean 'sultan'?" in line
    # a key of the game's own family that its sections never make, refused before play too
    path.write_text(path.read_text().replace("sultn:leader_edge", "sultan:leadr_edge"))
    res = CliRunner().invoke(app, ["simulate", str(path), "--out", str(out)])
    assert res.exit_code == 2 and not out.exists() and "did you mean 'sultan:leader_edge'" in res.stderr
    # a tournament answers its own families only, and says which
    from test_tournament import POOL

    (tmp_path / "mid.toml").write_text('policy = "biased"\n[params]\nboost = 0.5\n')
    pool = tmp_path / "pool.toml"
    pool.write_text(POOL + '\n[[questions]]\nask = "?"\nfinding = "first_player:base"\n')
    res = CliRunner().invoke(app, ["validate", str(pool)])
    assert res.exit_code == 2 and "a tournament answers win_rate:ENTRANT" in res.stderr


def test_a_study_with_arms_of_its_own_notes_a_near_miss_key():
    records = [{"key": "item:palace", "estimate": 0.1, "lo": 0.0, "hi": 0.2, "unit": "pp"}]
    chosen, notes = answers.declared([{"ask": "Palace?", "finding": "item:palce"}], records,
                                     "ablate")
    want = "`item:palce` is not a key of this ablation (did you mean `item:palace`?)"
    assert not chosen and notes == [want]


def test_the_box_names_every_caveat_of_nearly_every_game():
    """The findings leave a caveat of (nearly) every game to the box, so the box names each of
    them, beyond its usual three; rarer ones past three are summed up."""
    shares = [1.0, 0.99, 0.97, 0.95, 0.91, 0.5, 0.2]
    counters = [{"column": f"acted_{i}", "default": f"rule_{i}", "what": f"thing {i}",
                 "section": ""} for i in range(len(shares))]
    arm = {"variant": "base", "games": 100, "any": {"share": 1.0},
           "counters": [{"column": f"acted_{i}", "in_use": True, "acted": int(100 * s),
                         "share": s} for i, s in enumerate(shares)]}
    text = answers.caveats({"counters": counters, "arms": [arm]}, {}, "[x](#y)")
    assert all(f"(`rule_{i}`)" in text for i in range(5))
    assert "`rule_5`" not in text and "2 more, each in at most 50.0 %" in text


def test_a_quality_question_of_a_run_without_rounds_says_it_needs_rounds():
    """A ``quality:`` key asked of a run played without ``--rounds`` is one row saying to play
    again with ``--rounds`` (it used to read "too few games", with a misleading nearest key);
    once the run has ``quality:`` findings, a missing one is the games' doing again."""
    q = [{"ask": "Lead changes?", "finding": "quality:lead_changes:fix:change"}]
    records = [{"key": "score:fix", "estimate": 0.1, "lo": 0.0, "hi": 0.2, "unit": "points"}]
    chosen, notes = answers.declared(q, records)
    assert not notes and len(chosen) == 1
    record = chosen[0]["record"]
    assert "only with --rounds" in answers.short_text(record)
    assert answers.holm_verdict(record) == "no answer (needs --rounds)"
    with_rounds = records + [{"key": "quality:rounds:base", "estimate": 7.0, "figure": True}]
    chosen, _ = answers.declared(q, with_rounds)
    assert answers.holm_verdict(chosen[0]["record"]) == "no answer (too few games)"


def test_numbers_choose_the_answers_and_scale_them_to_the_unit_shown():
    """``answers.numbers`` on known records: without questions the kind's own answers in its
    order; with a question, that question first under its own words; estimates in the unit
    shown (estimate × scale); the records themselves only under ``CHOSEN``."""
    def rec(key, est):
        return {"key": key, "estimate": est, "lo": est - 0.01, "hi": est + 0.01, "unit": "pp",
                "scale": 100, "digits": 1, "signed": True, "null": 0.0, "sentence": key}

    records = [rec("score:a", 0.3), rec("first_player:base", 0.02)]
    run = {"study": {"kind": "simulate"}, "arms": [{"name": "base"}, {"name": "a"}]}
    n = answers.numbers(run, records, {})
    assert [a["key"] for a in n["answers"]] == ["score:a", "first_player:base"]
    assert n["declared"] is False and n["not_answered"] == []
    first = n["answers"][0]
    assert (first["estimate"], first["lo"], first["hi"]) == pytest.approx((30.0, 29.0, 31.0))
    assert [a["record"] for a in n[answers.CHOSEN]] == records
    asked = {**run, "questions": [{"ask": "Edge?", "finding": "first_player:base"}]}
    n = answers.numbers(asked, records, {})
    assert n["declared"] is True
    assert [(a["question"], a["key"]) for a in n["answers"]][:1] == [("Edge?", "first_player:base")]


def test_questions_all_of_another_kind_leave_the_kinds_own_answers_undeclared():
    """A simulation whose only question is a tune's key answers with its own questions: the
    summary says they are not the file's (``declared`` false) and notes the question."""
    rec = {"key": "first_player:base", "estimate": 0.02, "lo": 0.01, "hi": 0.03, "unit": "pp",
           "scale": 100, "digits": 1, "signed": True, "null": 0.0, "sentence": "s"}
    run = {"study": {"kind": "simulate"}, "arms": [{"name": "base"}],
           "questions": [{"ask": "Tuned?", "finding": "tuned_minus_start"}]}
    n = answers.numbers(run, [rec], {})
    assert n["declared"] is False
    assert [a["key"] for a in n["answers"]] == ["first_player:base"]
    assert n["not_answered"] == ["`tuned_minus_start` is answered by `analyzer tune`"]


def test_a_rating_gap_of_another_pair_says_which_pair_the_run_rated():
    """``rating_gap:A:B`` passes the plan (a pair of the pool's entrants; the best and the next
    are known after play), and when the run rated another pair the row said "its games gave
    it nothing to measure … or too few games"; it names the pair the run rated."""
    gap = {"key": "rating_gap:ismcts:greedy", "estimate": 0.4, "lo": 0.1, "hi": 0.7,
           "unit": "", "scale": 1, "digits": 2, "signed": True, "null": 0.0, "sentence": "gap"}
    rows, notes = answers.declared([{"ask": "greedy over random?",
                                     "finding": "rating_gap:greedy:random"}], [gap], "tournament")
    (row,) = rows
    assert notes == [] and row["record"]["estimate"] is None
    assert row["record"]["why"] == ("this run's rating gap is the best-rated entrant's over the "
                                    "next, `rating_gap:ismcts:greedy`, not this pair")
    (turned,), _ = answers.declared([{"ask": "?", "finding": "rating_gap:greedy:ismcts"}], [gap],
                                    "tournament")
    assert turned["record"]["why"] == ("this run rated the pair the other way round, "
                                       "`rating_gap:ismcts:greedy`")
