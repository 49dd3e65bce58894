"""Copy-on-consult between the arms of one run (issue #37, item 2: "the same to `sweep` arms
that change one rule"): an arm one tracked rule value away from an earlier arm copies the games
that never consulted the rule (``runner.copy_arms``). Checked on every tracked rule option of
every game against a full replay of the same sweep, byte for byte."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analyzer import runner
from analyzer.errors import RuleError
from analyzer.games import available_games, get_game
from analyzer.study.robustness import alternatives

GAMES = 24  # per option in the default suite; the slow check plays more


def _tracked():
    """Every (game, option) the game tracks, with the values a sweep of it takes: the
    default and each documented alternative."""
    out = []
    for name in available_games():
        spec = get_game(name)
        for o in spec.options:
            if o.guard or not spec.consult_bit(o.name):
                continue
            values = [o.default, *alternatives(o, o.default)]
            if len(values) > 1:
                out.append(pytest.param(name, o.name, values, id=f"{name}-{o.name}"))
    return out


def _table_of(spec, option, values):
    """A player table where every value is allowed: the bench table, else the fewest players."""
    bench = spec.bench_table()
    for players, exps in ((bench.players, tuple(bench.expansions)),
                          (spec.min_players, tuple(bench.expansions)), (spec.min_players, ())):
        try:
            for v in values:
                spec.make_config(players, exps, {option: v})
        except RuleError:
            continue
        return players, exps
    return None


def _arm(name, players, exps, rules, seats=None):
    seats = seats or ["greedy"] * players
    return runner.ArmPlan(name, players, exps, json.dumps(rules, sort_keys=True),
                          tuple((s, s, "{}") for s in seats))


def _sweep_arms(players, exps, grid):
    """The arms of a sweep: the base (no rule set), then one per combination of ``grid``
    (option -> values), as ``analyzer sweep`` makes them."""
    import itertools

    arms = [_arm("base", players, exps, {})]
    names = list(grid)
    for combo in itertools.product(*(grid[n] for n in names)):
        rules = dict(zip(names, combo))
        arms.append(_arm(" ".join(f"{n}={json.dumps(v)}" for n, v in rules.items()),
                         players, exps, rules))
    return arms


def _run(spec, arms, folder, games, copy):
    rounds = spec.flow is not None
    with runner.copy_arms() if copy else _nothing():
        res = runner.run(spec, arms, 4321, games, folder, backend="sequential",
                         chunk_size=max(1, games // 3), rounds=rounds)
    tables = {kind: pa.concat_tables([pq.read_table(p) for p in res.parts(kind)])
              for kind in ("games", "seats", "rounds") if res.parts(kind)}
    tables["consults"] = pa.concat_tables(
        [pq.read_table(runner.part_path(folder, "consults", a, b)) for a, b in res.chunks])
    return res, tables


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# Options whose read is one-sided: only the value that offers more options can tell whether a
# pick survives the other value's fewer (``forward.GameState.spare``); the value that offers
# fewer records a read wherever the sets differ. A game copied into such an arm keeps the
# source's finer mask, so there the option's bit may be clear where a replay sets it; never
# the other way round, and every other bit is equal.
ONE_SIDED = {("rattus", "placement_mandatory")}


def _one_sided_bits(spec):
    return sum(spec.consult_bit(o) for g, o in ONE_SIDED if g == spec.name)


def _check_masks(spec, copy, full):
    """The consulted options of a copied run against a full replay's: equal, but for the
    one-sided options' bits, which the copy may lack where the replay has them."""
    loose = _one_sided_bits(spec)
    assert copy.select(["game_id", "variant"]).equals(full.select(["game_id", "variant"]))
    finer = 0
    for c, f in zip(copy.column("consulted").to_pylist(), full.column("consulted").to_pylist()):
        assert c & ~loose == f & ~loose, f"{spec.name}: consulted options differ"
        assert c & loose & ~f == 0, f"{spec.name}: a copy consulted what its replay did not"
        finer += c != f
    return finer


def check_sweep(tmp_path, spec, arms, games):
    """A sweep with copying and a full replay give the same records (games, seats, rounds and
    the consulted options, ``_check_masks``); returns the copied games per arm."""
    full_res, full = _run(spec, arms, tmp_path / "full", games, copy=False)
    copy_res, copy = _run(spec, arms, tmp_path / "copy", games, copy=True)
    assert full_res.copied is None
    for kind, table in full.items():
        if kind == "consults" and not copy[kind].equals(table):
            assert _check_masks(spec, copy[kind], table) > 0
            continue
        assert copy[kind].equals(table), f"{spec.name}: {kind} differ"
        a, b = tmp_path / f"full-{kind}.parquet", tmp_path / f"copy-{kind}.parquet"
        pq.write_table(table, a)
        pq.write_table(copy[kind], b)
        assert a.read_bytes() == b.read_bytes()
    assert copy_res.copied is not None
    assert "base" not in copy_res.copied  # the first arm has nothing to copy from
    assert sum(copy_res.copied.values()) == sum(
        pq.read_table(p).num_rows for p in (tmp_path / "copy").glob("copied-*.parquet"))
    return copy_res.copied


@pytest.mark.parametrize(("game", "option", "values"), _tracked())
def test_sweep_copy_equals_full_replay(tmp_path, game, option, values):
    """Every tracked rule option of every game: a sweep over its values (the default set
    explicitly too) copies only unconsulted games and gives a full replay's records."""
    spec = get_game(game)
    table = _table_of(spec, option, values)
    if table is None:
        pytest.skip(f"no table allows every value of {option}")
    arms = _sweep_arms(*table, {option: values})
    links = runner.arm_links(spec, arms)
    assert links[0] is None
    assert all(link == (0, spec.consult_bit(option)) for link in links[1:])
    copied = check_sweep(tmp_path, spec, arms, GAMES)
    # what was copied is exactly the base's games that did not consult the option
    masks = _run(spec, arms[:1], tmp_path / "base", GAMES, copy=False)[1]["consults"]
    free = sum(1 for m in masks.column("consulted").to_pylist()
               if m >= 0 and not m & spec.consult_bit(option))
    assert all(copied.get(a.name, 0) == free for a in arms[1:])


@pytest.mark.slow
@pytest.mark.parametrize(("game", "option", "values"), _tracked())
def test_sweep_copy_many_games(tmp_path, game, option, values):
    """The same on 200 games."""
    spec = get_game(game)
    table = _table_of(spec, option, values)
    if table is None:
        pytest.skip(f"no table allows every value of {option}")
    check_sweep(tmp_path, spec, _sweep_arms(*table, {option: values}), 200)


def _two_tracked():
    """A game tracking two options with alternatives, its table and the two (option, values)."""
    for name in available_games():
        spec = get_game(name)
        found = []
        for o in spec.options:
            if not o.guard and spec.consult_bit(o.name) and alternatives(o, o.default):
                values = [o.default, alternatives(o, o.default)[0]]
                if _table_of(spec, o.name, values) == _table_of(spec, o.name, values[:1]):
                    found.append((o.name, values))
        if len(found) >= 2:
            table = _table_of(spec, found[0][0], found[0][1])
            try:
                spec.make_config(*table, {found[0][0]: found[0][1][1],
                                          found[1][0]: found[1][1][1]})
            except RuleError:
                continue
            return spec, table, found[:2]
    return None


def test_two_differences_are_not_copied(tmp_path):
    """An arm that differs from every earlier arm in two things (two rule options, or a rule
    option and the seats) plays every game; a grid's arms copy along one option at a time and
    still give a full replay's records."""
    got = _two_tracked()
    if got is None:
        pytest.skip("no game tracks two options")
    spec, (players, exps), ((a, va), (b, vb)) = got
    both = {a: va[1], b: vb[1]}
    base = _arm("base", players, exps, {})
    two = _arm("two", players, exps, both)
    seated = _arm("seated", players, exps, {a: va[1]}, ["random"] + ["greedy"] * (players - 1))
    assert runner.arm_links(spec, [base, two, seated]) == (None, None, None)
    res, _ = _run(spec, [base, two, seated], tmp_path / "two", 12, copy=True)
    assert res.copied == {}
    assert not list((tmp_path / "two").glob("copied-*.parquet"))
    # an option the game does not track is one difference, but not copied either
    untracked = next((o for o in spec.options if not spec.consult_bit(o.name)
                      and o.type in (bool, int) and not o.guard), None)
    if untracked is not None:
        assert runner.arm_links(spec, [base, _arm("u", players, exps, {
            untracked.name: untracked.default})]) == (None, None)
    # the 2x2 grid (base, then a,b = d,d  d,alt  alt,d  alt,alt): each combination copies
    # from the first arm one value away; d,d sets both options the base leaves unset: none
    grid = _sweep_arms(players, exps, {a: va, b: vb})
    assert runner.arm_links(spec, grid) == (None, None, (1, spec.consult_bit(b)),
                                            (1, spec.consult_bit(a)), (2, spec.consult_bit(a)))
    check_sweep(tmp_path / "grid", spec, grid, 12)


def test_kingmaking_test_plays_every_game(tmp_path):
    """With a kingmaking test the run copies nothing (its test plays other games)."""
    for name in available_games():
        spec = get_game(name)
        if spec.flow is None or not spec.consults:
            continue
        option = spec.consults[0]
        o = spec.options[option] if hasattr(spec.options, "__getitem__") else None
        bench = spec.bench_table()
        arms = [_arm("base", bench.players, tuple(bench.expansions), {}),
                _arm("v", bench.players, tuple(bench.expansions),
                     {option: o.default if o is not None else None})]
        with runner.copy_arms():
            res = runner.run(spec, arms, 4321, 3, tmp_path / name, backend="sequential",
                             rounds=True, kingmaking=1)
        assert not res.copied
        return
    pytest.skip("no game with checkpoints tracks an option")


def test_sweep_cli_copies_and_matches_full_replay(tmp_path):
    """``analyzer sweep --param rules.X=…`` copies the games that did not consult X and says
    the share played; ``--full-replay`` plays them all; the records are the same, byte for
    byte."""
    from typer.testing import CliRunner

    from analyzer.cli import app

    scenario, option, values = _cli_case(tmp_path / "probe")
    if scenario is None:
        pytest.skip("no shipped greedy scenario of a game that tracks an option")
    param = f"rules.{option}=" + ",".join(json.dumps(v) for v in values)
    outs = {}
    for mode in ("copy", "full"):
        out = tmp_path / mode
        args = ["sweep", str(scenario), "--param", param, "--games", "30", "--jobs", "1",
                "--out", str(out)] + (["--full-replay"] if mode == "full" else [])
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        outs[mode] = (out, res.output)
    for name in ("games.parquet", "seats.parquet"):
        assert (outs["copy"][0] / name).read_bytes() == (outs["full"][0] / name).read_bytes()
    study = {m: json.loads((o / "summary.json").read_text())["run"]["study"]
             for m, (o, _) in outs.items()}
    assert "replayed" not in study["full"]
    replayed = study["copy"]["replayed"]
    assert replayed["base"] == 1.0
    assert any(share < 1 for share in replayed.values()), f"{option} consulted in every game"
    assert "games played" in outs["copy"][1]
    report = (outs["copy"][0] / "report.md").read_text()
    assert "Games played" in report and "Games played" not in (
        outs["full"][0] / "report.md").read_text()


def _cli_case(folder):
    """A shipped one-arm greedy scenario and the tracked option it leaves at its default that
    its first 30 games consult least, with the values to sweep: (path, option, values)."""
    from pathlib import Path

    from analyzer.errors import ScenarioError
    from analyzer.scenario import load_scenario

    for path in sorted(Path("scenarios").glob("*.toml")):
        try:
            sc = load_scenario(path)
        except ScenarioError:
            continue
        if len(sc.arms) != 1 or any(s.policy != "greedy" for s in sc.arms[0].seats):
            continue
        found = []
        for o in sc.spec.options:
            if o.guard or not sc.spec.consult_bit(o.name) or o.name in sc.arms[0].rules:
                continue
            alts = alternatives(o, o.default)
            if not alts:
                continue
            try:
                sc.spec.make_config(sc.players, tuple(sc.expansions), {o.name: alts[0]})
            except RuleError:
                continue
            found.append((o.name, [o.default, alts[0]]))
        if not found:
            continue
        res = runner.run(sc.spec, runner.plan_arms(sc), sc.seed, 30, folder,
                         backend="sequential", rotate=sc.seat_rotation)
        masks = pa.concat_tables([pq.read_table(runner.part_path(folder, "consults", a, b))
                                  for a, b in res.chunks]).column("consulted").to_pylist()
        option, values = max(found, key=lambda f: sum(
            not m & sc.spec.consult_bit(f[0]) for m in masks))
        return path, option, values
    return None, None, None
