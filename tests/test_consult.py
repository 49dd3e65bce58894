"""Copy-on-consult (issue #37, item 2): a game that never consulted a rule option is the same
game under any other value of it, so ``runner.copy_from`` copies its records instead of
replaying it. Checked on every rule option of every game against a full replay."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from analyzer import runner
from analyzer.errors import RuleError
from analyzer.games import available_games, get_game
from analyzer.study.robustness import alternatives

GAMES = 40  # per table and option in the default suite; the slow check plays more


def _options():
    """Every (game, option, alternative) a rule-default condition can vary: each option that
    has a documented alternative to its default, guards left out."""
    out = []
    for name in available_games():
        spec = get_game(name)
        for o in spec.options:
            if o.guard:
                continue
            for alt in alternatives(o, o.default):
                out.append(pytest.param(name, o.name, alt, id=f"{name}-{o.name}-{alt}"))
    return out


def _tables(spec):
    """The player tables a check plays: the game's bench table and its fewest players."""
    bench = spec.bench_table()
    low = spec.min_players
    out = [(bench.players, tuple(bench.expansions))]
    for exps in ((), tuple(bench.expansions)):
        try:
            spec.make_config(low, exps, {})
        except RuleError:
            continue
        if (low, exps) not in out:
            out.append((low, exps))
    return out


def _arm(spec, players, exps, rules, seats):
    return runner.ArmPlan("base", players, exps, json.dumps(rules, sort_keys=True),
                          tuple((s, s, "{}") if ":" not in s else
                                (s, s.split(":")[0], s.split(":", 1)[1]) for s in seats))


def _play(spec, arm, folder, games, rounds):
    res = runner.run(spec, [arm], 1234, games, folder / "chunks", backend="sequential",
                     chunk_size=max(1, games // 3), rounds=rounds)
    runner.aggregate(res.parts("games"), folder / "games.parquet")
    runner.aggregate(res.parts("seats"), folder / "seats.parquet")
    if res.parts("rounds"):
        runner.aggregate(res.parts("rounds"), folder / "rounds.parquet")
    return res


def _copied(folder) -> int:
    return sum(pq.read_table(p).num_rows for p in (folder / "chunks").glob("copied-*.parquet"))


def check_option(tmp_path, game, option, alt, games, seats_of):
    """Play the default, the alternative in full and the alternative copy-on-consult; the
    last two must give the same records, byte for byte. Returns (games, copied) summed over
    the tables."""
    spec = get_game(game)
    total = copied = 0
    for players, exps in _tables(spec):
        try:
            spec.make_config(players, exps, {option: alt})
        except RuleError:
            continue
        seats = seats_of(spec, players)
        rounds = spec.flow is not None
        tag = f"{players}-{'-'.join(exps)}"
        src, full, copy = (tmp_path / f"{k}-{tag}" for k in ("src", "full", "copy"))
        _play(spec, _arm(spec, players, exps, {}, seats), src, games, rounds)
        alt_arm = _arm(spec, players, exps, {option: alt}, seats)
        _play(spec, alt_arm, full, games, rounds)
        with runner.copy_from(src, option):
            _play(spec, alt_arm, copy, games, rounds)
        names = ["games.parquet", "seats.parquet"] + (["rounds.parquet"] if rounds else [])
        for name in names:
            a, b = pq.read_table(full / name), pq.read_table(copy / name)
            assert a.equals(b), f"{game} {option}={alt!r} at {tag}: {name} differs"
            assert (full / name).read_bytes() == (copy / name).read_bytes()
        n = _copied(copy)
        if not spec.consult_bit(option):
            assert n == 0  # an option the game does not track is always replayed
        total += games
        copied += n
    return total, copied


def _greedy(spec, players):
    return ["greedy"] * players


@pytest.mark.parametrize(("game", "option", "alt"), _options())
def test_copy_on_consult_equals_full_replay(tmp_path, game, option, alt):
    """Every rule option of every game: the copy-on-consult records equal a full replay's."""
    spec = get_game(game)
    if not spec.consult_bit(option):
        # not tracked: no copy source, so the run is the full replay
        with runner.copy_from(tmp_path, option):
            assert runner._copy_source(spec, [], 1, False) is None
        return
    check_option(tmp_path, game, option, alt, GAMES, _greedy)


def _with_search(spec, players):
    return ["ismcts:" + json.dumps({"iterations": 8})] + ["greedy"] * (players - 1)


@pytest.mark.slow
@pytest.mark.parametrize(("game", "option", "alt"), _options())
def test_copy_on_consult_many_games(tmp_path, game, option, alt):
    """The same on 200 greedy games per table, and on 30 with a searching seat (its playouts
    run the rules on cloned states: their reads count)."""
    spec = get_game(game)
    if not spec.consult_bit(option):
        return
    check_option(tmp_path / "greedy", game, option, alt, 200, _greedy)
    if "ismcts" in spec.policies:
        check_option(tmp_path / "search", game, option, alt, 30, _with_search)


def test_tracked_options_are_rule_options():
    """Every tracked option is a declared rule option, at most once (63 fit a mask)."""
    for name in available_games():
        spec = get_game(name)
        assert len(set(spec.consults)) == len(spec.consults) <= 63
        assert all(o in spec.options for o in spec.consults)


def test_copy_needs_the_same_seed(tmp_path):
    """A source of other seeds is not copied from."""
    for name in available_games():
        spec = get_game(name)
        if not spec.consults:
            continue
        bench = spec.bench_table()
        arm = _arm(spec, bench.players, tuple(bench.expansions), {}, _greedy(spec, bench.players))
        _play(spec, arm, tmp_path / name, 3, False)
        with runner.copy_from(tmp_path / name, spec.consults[0]):
            assert runner._copy_source(spec, [arm], 1234, False) is not None
            assert runner._copy_source(spec, [arm], 99, False) is None
        return
    pytest.skip("no game tracks an option")


def test_copy_needs_masks_of_the_same_options(tmp_path):
    """A source whose masks name other options (an older run, before a bit was added) or none
    is not copied from: its games are played, since a missing bit would read as unconsulted."""
    for name in available_games():
        spec = get_game(name)
        if not spec.consults:
            continue
        bench = spec.bench_table()
        arm = _arm(spec, bench.players, tuple(bench.expansions), {}, _greedy(spec, bench.players))
        folder = tmp_path / name
        _play(spec, arm, folder, 3, False)
        option = spec.consults[0]
        with runner.copy_from(folder, option):
            assert runner._copy_source(spec, [arm], 1234, False) is not None
        parts = sorted((folder / "chunks").glob("consults-*.parquet"))
        older = json.dumps(list(spec.consults[:-1])).encode()
        for k, part in enumerate(parts):
            table = pq.read_table(part)
            # the first part names fewer options, the others none (a run before the key)
            pq.write_table(table.replace_schema_metadata(
                {runner.CONSULT_OPTIONS: older} if k == 0 else None), part)
        with runner.copy_from(folder, option):
            assert runner._copy_source(spec, [arm], 1234, False) is None
        return
    pytest.skip("no game tracks an option")


def _robust_game():
    """A shipped scenario of a game that tracks an option the scenario's robustness check
    varies, with that option: (scenario file, option)."""
    from pathlib import Path

    from analyzer.errors import ScenarioError
    from analyzer.scenario import load_scenario
    from analyzer.study.robustness import rule_conditions

    for path in sorted(Path("scenarios").glob("*.toml")):
        try:
            sc = load_scenario(path)
        except ScenarioError:  # a scenario another study kind reads
            sc = None
        if sc is None:
            continue
        if sc.questions or len(sc.arms) != 1 or any(s.policy != "greedy" for s in sc.arms[0].seats):
            continue
        conds, _ = rule_conditions(sc, None, 10)
        tracked = [c.option for c in conds if sc.spec.consult_bit(c.option)]
        if tracked:
            return path, tracked[-1]
    return None, None


def test_robustness_copies_what_a_rule_does_not_touch(tmp_path):
    """``analyzer robustness`` on a shipped scenario, one tracked rule default: the condition
    copied from the replicate gives the same records, byte for byte, as ``--full-replay``,
    and robustness.json and summary.json give the share replayed."""
    from analyzer import api

    path, option = _robust_game()
    if path is None:
        pytest.skip("no shipped one-arm greedy scenario varies a tracked option")
    runs = {}
    for mode in ("full", "copy"):
        out = tmp_path / mode
        api.robustness(path, players="none", content=0, defaults=option, games=60, jobs=1,
                       out=out, force=True, full_replay=mode == "full")
        runs[mode] = out
    data = {m: json.loads((d / "robustness" / "robustness.json").read_text())
            for m, d in runs.items()}
    (cond,) = data["copy"]["conditions"]
    assert data["full"]["conditions"][0]["replayed"] == 1.0
    assert 0 <= cond["replayed"] <= 1
    folder = [d / "robustness" / cond["name"] for d in runs.values()]
    for name in ("games.parquet", "seats.parquet"):
        assert (folder[0] / name).read_bytes() == (folder[1] / name).read_bytes()
    copied = _copied(folder[1])
    assert copied > 0, f"{path}: {option} was consulted in every game; the copy is untested"
    assert cond["replayed"] == pytest.approx(1 - copied / (60 * cond["arms"]))
    summary = json.loads((runs["copy"] / "summary.json").read_text())
    found = json.dumps(summary["results"])
    assert '"replayed"' in found
