"""Determinism for every real game: the same scenario and seed give identical games/seats
records (sorted by game id) for --jobs 1, --jobs 2, other chunk sizes, the sequential backend,
a dask.distributed cluster (by address, on loopback) and an interrupted-then-resumed run;
variants share the base's game seeds and adding one leaves the base's records unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from analyzer import api, report
from analyzer.cli import app

GAMES = 45  # chunk sizes 7, 10, 11 and 13 all split it unevenly
pytestmark = pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")  # "same" arm: zero diffs

SCENARIOS = {
    "rattus": (('expansions = ["africanus"]\n[rules]\n'
               'class_cards = ["knight", "monk", "witch", "king", "sultan", "trader"]\n'),
               'rules = { class_cards = ["knight", "monk", "witch", "king", "merchant", "trader"] }'),
    "cartus": ("[rules]\n", "rules = { vp_token_value = 2 }"),
    "pyramidion": ("[rules]\n", "rules = { target_vp = 8 }"),
}


def _text(game: str, variants: bool = True) -> str:
    head, change = SCENARIOS[game]
    text = (f'name = "det-{game}"\ngame = "{game}"\nplayers = 4\ngames = {GAMES}\nseed = 99\n{head}'
            '[[seats]]\npolicy = "random"\n[[seats]]\npolicy = "greedy"\n'
            '[[seats]]\npolicy = "random"\n[[seats]]\npolicy = "greedy"\n')
    if variants:
        text += f'[[variants]]\nname = "changed"\n{change}\n[[variants]]\nname = "same"\n'
    return text


def _tables(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    g = pd.read_parquet(out / "games.parquet").sort_values(["game_id", "variant"], kind="stable")
    s = pd.read_parquet(out / "seats.parquet").sort_values(["game_id", "variant", "seat"],
                                                           kind="stable")
    return g.reset_index(drop=True), s.reset_index(drop=True)


def _assert_same(a, b) -> None:
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_frame_equal(a[1], b[1])


def _summary_only(run_dir):
    return json.loads((Path(run_dir) / "summary.json").read_text())


@pytest.fixture(autouse=True)
def _no_report(monkeypatch):
    """Records only: skip rendering charts (the report reads the records, never writes them)."""
    monkeypatch.setattr(report, "render", _summary_only)


@pytest.fixture(scope="module")
def cluster():
    """A dask.distributed LocalCluster of 2 worker processes on loopback."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c.scheduler_address


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def game_ref(request, tmp_path_factory):
    """(game, scenario path, reference records from a one-chunk sequential run)."""
    game = request.param
    base = tmp_path_factory.mktemp(game)
    path = base / f"{game}.toml"
    path.write_text(_text(game))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report, "render", _summary_only)
        ref = api.simulate(path, backend="sequential", chunk_size=GAMES, out=base / "ref")
    return game, path, _tables(ref.out_dir)


@pytest.mark.parametrize("options", [
    {"jobs": 1, "chunk_size": 250},
    {"jobs": 2, "chunk_size": 7},
    {"backend": "sequential", "chunk_size": 13},
], ids=["jobs1", "jobs2-chunk7", "sequential-chunk13"])
def test_jobs_chunks_and_backend_do_not_change_records(game_ref, tmp_path, options):
    _, path, ref = game_ref
    _assert_same(_tables(api.simulate(path, out=tmp_path / "r", **options).out_dir), ref)


def test_dask_cluster_by_address_equals_sequential(game_ref, cluster, tmp_path):
    """--backend dask --scheduler tcp://127.0.0.1:PORT (an existing 2-process cluster)."""
    _, path, ref = game_ref
    res = api.simulate(path, backend="dask", scheduler=cluster, chunk_size=11, out=tmp_path / "d")
    _assert_same(_tables(res.out_dir), ref)


def test_interrupted_then_resumed_equals_uninterrupted(game_ref, tmp_path):
    """Chunks lost to an interruption (and a half-written part) are replayed on --resume with
    another chunk layout of workers; the records equal the uninterrupted run's."""
    _, path, ref = game_ref
    out = tmp_path / "r"
    api.simulate(path, jobs=1, chunk_size=10, out=out)
    for tag in ("000000010-000000020", "000000030-000000040"):
        (out / "chunks" / f"games-{tag}.parquet").unlink()
    (out / "chunks" / ".games-000000010-000000020.parquet.tmp1").write_bytes(b"PAR1 half")
    for name in ("games.parquet", "seats.parquet"):
        (out / name).unlink()
    res = api.simulate(path, jobs=2, chunk_size=10, out=out, resume=True)
    assert res.summary["run"]["chunks_resumed"] == 3
    assert not list((out / "chunks").glob(".*.tmp*"))
    _assert_same(_tables(out), ref)


def test_variants_share_the_base_game_seeds(game_ref):
    """A variant with the base's rules ("same") replays the base game for game: equal records;
    the changed variant played the same game ids with the same root seed."""
    _, _, (games, seats) = game_ref
    def arm(df, name):
        return df[df["variant"] == name].drop(columns="variant").reset_index(drop=True)
    pd.testing.assert_frame_equal(arm(seats, "same"), arm(seats, "base"))
    pd.testing.assert_frame_equal(arm(games, "same"), arm(games, "base"))
    assert list(arm(games, "changed")["game_id"]) == list(range(GAMES))
    assert set(games["seed"]) == {99}
    assert not arm(seats, "changed").equals(arm(seats, "base"))  # the change did something


def test_adding_variants_leaves_the_base_unchanged(game_ref, tmp_path):
    game, _, (games, seats) = game_ref
    alone = tmp_path / "alone.toml"
    alone.write_text(_text(game, variants=False))
    g, s = _tables(api.simulate(alone, jobs=1, out=tmp_path / "a").out_dir)
    pd.testing.assert_frame_equal(g, games[games["variant"] == "base"].reset_index(drop=True))
    pd.testing.assert_frame_equal(s, seats[seats["variant"] == "base"].reset_index(drop=True))


def test_cli_dask_backend_with_scheduler(cluster, tmp_path):
    """The command-line form: simulate --backend dask --scheduler ADDR gives the same records
    as --backend sequential."""
    path = tmp_path / "p.toml"
    path.write_text(_text("pyramidion", variants=False).replace(f"games = {GAMES}", "games = 12"))
    cli = CliRunner()
    outs = []
    for k, extra in enumerate((["--backend", "sequential"],
                               ["--backend", "dask", "--scheduler", cluster])):
        out = tmp_path / f"o{k}"
        res = cli.invoke(app, ["simulate", str(path), "--chunk-size", "5", "--out", str(out),
                               "--quiet", *extra])
        assert res.exit_code == 0, res.output
        outs.append(_tables(out))
    _assert_same(outs[1], outs[0])
