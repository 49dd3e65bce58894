"""``analyzer robustness --rounds`` (issue #36 item 2): every run of the check records its
rounds, so the game-quality findings (``quality:``) get robustness verdicts like any other;
without ``--rounds`` a ``quality:`` question is refused before play; the copy-on-consult
shortcut copies the rounds too; a run kept from earlier is kept only with the same rounds."""

from __future__ import annotations

import json

import flowtoy
import pyarrow.parquet as pq
import pytest
from test_consult import _copied, _robust_game
from typer.testing import CliRunner

from analyzer import api
from analyzer.cli import app
from analyzer.errors import ScenarioError
from analyzer.games import register_game
from analyzer.study import questions

register_game(flowtoy.SPEC)

QUESTION = '\n[[questions]]\nask = "Comebacks?"\nfinding = "quality:comeback:coin:change"\n'


def _race(tmp_path, questions_text: str = QUESTION, games: int = 30):
    """Two arms of the toy race: ``base`` plays the default ``mode`` (``steady``: seat 0 leads
    throughout, no comeback), ``coin`` the coin flip on the last round (about half the games a
    comeback). Robustness varies the labelled default ``mode``: under ``mode = coin`` both arms
    play the coin and the change between them is gone."""
    path = tmp_path / "race.toml"
    path.write_text(f'name = "race"\ngame = "flowtoy"\nplayers = 2\ngames = {games}\nseed = 7\n'
                    'seat_rotation = false\n\n[rules]\nrounds = 6\n\n[[seats]]\npolicy = '
                    '"random"\n\n[[variants]]\nname = "coin"\n[variants.rules]\nmode = "coin"\n'
                    + questions_text)
    return path


def _check(path, out, rounds, say=None):
    return api.robustness(path, players="none", content=0, jobs=1, out=out, rounds=rounds,
                          **({"say": say} if say else {}))


def test_a_quality_question_gets_a_robustness_verdict(tmp_path):
    out = tmp_path / "o"
    res = _check(_race(tmp_path), out, True)
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert data["rounds"] is True
    names = [c["name"] for c in data["conditions"]]
    assert names == ["rule-mode-coin", "rule-mode-tie", "rule-mode-elim"]
    for folder in ["replicate", *names]:  # every run recorded its rounds
        assert (out / "robustness" / folder / "rounds.parquet").exists(), folder
    rows = {r["key"]: r for r in data["findings"]}
    row = rows["quality:comeback:coin:change"]
    # under mode = coin both arms play the coin: the change is lost there, paired per game
    assert row["verdict"] == "sensitive" and row["sensitive_to"] == ["rule-mode-coin"]
    assert row["states"] == {"rule-mode-coin": "lost", "rule-mode-tie": "same",
                             "rule-mode-elim": "same"}
    assert row["tests"]["rule-mode-coin"]["test"] == "paired"
    assert row["reference"] == "replicate"
    # a measured quality figure gets its range, no verdict
    assert rows["quality:comeback:coin"]["verdict"] == "figure"
    answer = res.summary["results"]["answers"]["answers"][0]
    assert answer["key"] == "quality:comeback:coin:change"
    assert answer["verdict"].startswith("sensitive")
    assert res.summary["results"]["robustness"]["rounds"] is True
    assert res.summary["results"]["robustness"]["verdicts"][
        "quality:comeback:coin:change"] == "sensitive"
    assert "recorded its rounds (`--rounds`)" in (out / "report.md").read_text()


def test_without_rounds_a_quality_question_is_refused_before_play(tmp_path):
    path = _race(tmp_path)
    with pytest.raises(ScenarioError, match="add --rounds to the command"):
        _check(path, tmp_path / "o", False)
    assert not (tmp_path / "o" / "chunks").exists()
    assert questions.records_rounds("robustness")
    res = CliRunner().invoke(app, ["robustness", str(path), "--players", "none", "--jobs", "1",
                                   "--out", str(tmp_path / "c"), "--quiet"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output
    assert "'quality:comeback:coin:change'" in lines[0] and "add --rounds" in lines[0]
    assert not (tmp_path / "c" / "chunks").exists()
    said = CliRunner().invoke(app, ["robustness", "--help"])
    assert "--rounds" in said.stdout


def test_runs_are_kept_only_with_the_same_rounds(tmp_path):
    """The resume fingerprint includes the rounds: a check without them replays every run
    recorded with them (and drops their rounds), and back; the same check again keeps all."""
    path, out = _race(tmp_path, questions_text=""), tmp_path / "o"

    def run(rounds):
        lines: list[str] = []
        _check(path, out, rounds, say=lines.append)
        return sum("kept" in line for line in lines)

    assert run(True) == 0
    assert run(True) == 5  # base, replicate and 3 conditions
    assert run(False) == 0
    assert not (out / "rounds.parquet").exists()
    assert not (out / "robustness" / "rule-mode-coin" / "rounds.parquet").exists()
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert data["rounds"] is False
    assert not any(r["key"].startswith("quality:") for r in data["findings"])
    assert run(False) == 5
    assert run(True) == 0
    assert (out / "robustness" / "rule-mode-coin" / "rounds.parquet").exists()


def test_copy_on_consult_copies_the_rounds_too(tmp_path):
    """A rule-default condition with ``--rounds``: the games copied from the replicate give the
    same records and the same rounds, byte for byte, as ``--full-replay``."""
    path, option = _robust_game()
    if path is None:
        pytest.skip("no shipped one-arm greedy scenario varies a tracked option")
    runs = {}
    for mode in ("full", "copy"):
        out = tmp_path / mode
        api.robustness(path, players="none", content=0, defaults=option, games=24, jobs=1,
                       out=out, force=True, full_replay=mode == "full", rounds=True)
        runs[mode] = out
    data = json.loads((runs["copy"] / "robustness" / "robustness.json").read_text())
    (cond,) = data["conditions"]
    folder = [d / "robustness" / cond["name"] for d in runs.values()]
    assert _copied(folder[1]) > 0, f"{path}: {option} consulted in every game; copy untested"
    assert _copied(folder[0]) == 0
    for name in ("games.parquet", "seats.parquet", "rounds.parquet"):
        assert (folder[0] / name).read_bytes() == (folder[1] / name).read_bytes(), name
    assert pq.read_metadata(folder[1] / "rounds.parquet").num_rows > 0
    verdicts = {m: json.loads((d / "robustness" / "robustness.json").read_text())
                for m, d in runs.items()}
    assert any(r["key"].startswith("quality:") for r in verdicts["copy"]["findings"])
    assert ({r["key"]: r["verdict"] for r in verdicts["full"]["findings"]}
            == {r["key"]: r["verdict"] for r in verdicts["copy"]["findings"]})


def test_simulate_with_robustness_passes_rounds_on(tmp_path):
    """``analyzer simulate --rounds --robustness``: the check keeps the base run (recorded with
    its rounds) and records them in every condition, so the quality question gets its verdict."""
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["simulate", str(_race(tmp_path)), "--rounds", "--robustness",
                                   "--jobs", "1", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "holds this run" in res.stdout and "kept" in res.stdout
    data = json.loads((out / "robustness" / "robustness.json").read_text())
    assert data["rounds"] is True
    (row,) = [r for r in data["findings"] if r["key"] == "quality:comeback:coin:change"]
    assert row["verdict"] == "sensitive"
