"""``--force`` makes the run directory what a fresh run makes (``RunDir.create``), and a
refused command writes nothing there (``RunDir.check``, before the study writes its tables)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from analyzer.cli import app

ROOT = Path(__file__).resolve().parents[1]
cli = CliRunner()
# what other studies leave in a run directory (balance, tune, robustness, tournament, ablate)
STRAY = ["balanced.toml", "tuned.toml", "pool.toml", "robustness/players-x/report.md",
         "robustness/robustness.json", "tables/without-x-cards_file.toml", "charts/old.png"]


def _tree(root: Path) -> dict[str, int]:
    """Every file under ``root`` by relative path, with its size class (empty or not)."""
    return {str(p.relative_to(root)): p.stat().st_size > 0 for p in sorted(root.rglob("*"))
            if p.is_file()}


def _simulate(toy_file: Path, out: Path, *extra: str):
    res = cli.invoke(app, ["simulate", str(toy_file), "--games", "20", "--jobs", "1", "--out",
                           str(out), "--quiet", *extra])
    assert res.exit_code == 0, res.output
    return res


def test_force_leaves_only_what_a_fresh_run_makes(toy_file, tmp_path):
    old = tmp_path / "old"
    _simulate(toy_file, old, "--seed", "3", "--csv")
    for name in STRAY:
        (old / name).parent.mkdir(parents=True, exist_ok=True)
        (old / name).write_text("from another study")
    # another seed is another run: refused without --force, nothing touched
    res = cli.invoke(app, ["simulate", str(toy_file), "--games", "20", "--out", str(old)])
    assert res.exit_code == 2 and "--force" in res.stderr
    assert (old / "balanced.toml").exists()
    _simulate(toy_file, old, "--force")
    fresh = tmp_path / "fresh"
    _simulate(toy_file, fresh)
    assert _tree(old) == _tree(fresh)
    assert not (old / "games.csv").exists()


def test_force_with_resume_keeps_the_chunks(toy_file, tmp_path):
    """``--resume`` keeps what it resumes, ``--force`` or not (robustness plays its conditions
    so)."""
    out = tmp_path / "run"
    _simulate(toy_file, out)
    (out / "tuned.toml").write_text("kept")
    res = _simulate(toy_file, out, "--resume", "--force")
    assert "resumed" in res.stdout and (out / "tuned.toml").read_text() == "kept"


def test_a_refused_ablate_resume_writes_nothing_into_another_study(toy_file, tmp_path):
    out = tmp_path / "run"
    _simulate(toy_file, out)
    before = _tree(out), (out / "report.md").read_text()
    res = cli.invoke(app, ["ablate", str(ROOT / "scenarios" / "pyramidion-baseline.toml"),
                           "--games", "8", "--jobs", "1", "--resume", "--out", str(out),
                           "--quiet"])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "holds the run of 'toy-study'" in lines[0], lines
    assert not (out / "tables").exists()
    assert (_tree(out), (out / "report.md").read_text()) == before


def test_a_refused_resume_of_another_seed_writes_nothing(toy_file, tmp_path):
    out = tmp_path / "run"
    _simulate(toy_file, out)
    before = _tree(out)
    res = cli.invoke(app, ["ablate", str(toy_file), "--seed", "9", "--resume", "--out",
                           str(out)])
    assert res.exit_code == 2 and "not an ablation" in res.stderr, res.output
    res = cli.invoke(app, ["simulate", str(toy_file), "--seed", "9", "--resume", "--out",
                           str(out)])
    assert res.exit_code == 2, res.output
    assert "--resume:" in res.stderr and "whose seed differs" in res.stderr
    assert _tree(out) == before


def test_a_refused_forced_study_leaves_the_run_it_was_to_replace(toy_file, tmp_path):
    """``--force`` into a run directory, then refused before a game (the toy game has nothing
    to ablate): the old run is as it was, nothing of the refused one is left."""
    out = tmp_path / "run"
    _simulate(toy_file, out)
    (out / "tuned.toml").write_text("another study's")
    before = _tree(out), (out / "report.md").read_text()
    res = cli.invoke(app, ["ablate", str(toy_file), "--games", "8", "--jobs", "1", "--force",
                           "--out", str(out), "--quiet"])
    assert res.exit_code == 2 and "does not define ablations" in res.stderr, res.output
    assert (_tree(out), (out / "report.md").read_text()) == before
    # a forced run that is not refused replaces it, and leaves no set-aside folder
    _simulate(toy_file, out, "--force", "--seed", "8")
    assert not (out / "tuned.toml").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
