"""Finding keys by role, not by name (issue #34): keys a study file's ``[[questions]]`` can ask
before anybody knows which entrant, seat or arm they will be about.

``DEFINITIONS`` says what each key measures, in the words and units ``analyzer findings
SCENARIO.toml`` lists (``analyzer.study.questions``). ``alias`` answers ``ALIASES`` from a run's
finding records; ``findings`` makes the others (``SEAT_KEYS``, ``diff:``) from the seat records,
only for the keys a question asks, so that a run asking none keeps its findings as they were.
The game is the unit throughout.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from analyzer import stats
from analyzer.report.document import BASE
from analyzer.report.findings import Finding, arm_games, missing
from analyzer.report.records import Table, as_table
from analyzer.report.summary import RunFacts

#: key (or pattern) -> (what it measures in words, unit)
DEFINITIONS: dict[str, tuple[str, str]] = {
    "rating_gap:best": (("the best-rated entrant's rating minus the next one's (whoever they "
                         "turn out to be; the tournament's rating_gap:BEST:NEXT)"), "log-strength"),
    "win_rate:best": (("the largest win_rate:NAME finding: that player's win rate minus a fair "
                       "seat's (picked after the games as the largest)"), "pp"),
    "seat:worst": (("the seat in turn order (start position) furthest below a fair share in the "
                    "base arm: its win share minus the game's fair share, mean over every game "
                    "(the game as the unit; p multiplied by the number of seats, Bonferroni, "
                    "since it is picked as the worst)"), "pp"),
    "seat:spread": (("the largest minus the smallest seat (start position) win rate in the base "
                     "arm, 95 % BCa bootstrap interval over games"), "pp"),
    "diff:ARM_A:ARM_B:KEY": (("the per-arm figure KEY (first_player, score_mean, win_rate:POLICY, "
                              "seat:N) of ARM_A minus "
                              "ARM_B: paired over games where the arms share seeds (same player "
                              "count), else matched by seed and compared unpaired (Welch)"),
                             "the unit of KEY"),
}
#: per-arm figures a ``diff:`` key can name: KEY (``POLICY`` a seat's policy name, ``N`` a start
#: position, 0 = the start player) -> (words, unit, scale, digits); each is a per-game value of
#: the arm (``per_arm_values``), so two arms sharing seeds are paired game by game
PER_ARM: dict[str, tuple[str, str, float, int]] = {
    "first_player": ("the start player's advantage", "pp", 100.0, 1),
    "score_mean": ("the mean final score per seat-game", "points", 1.0, 2),
    "win_rate:POLICY": ("POLICY's win share minus a fair seat's", "pp", 100.0, 1),
    "seat:N": ("the win share of start position N (1 = the start player, as the report counts) minus a fair seat's", "pp", 100.0, 1),
}
ALIASES = ("rating_gap:best", "win_rate:best")
SEAT_KEYS = ("seat:worst", "seat:spread")
BOOTSTRAP = 1000  # resamples of the spread's BCa interval
SEED = 20261202  # of those resamples, so that a report re-renders the same numbers


def is_role(key: str) -> bool:
    """Whether ``key`` is a key by role (an alias, a seat key or a ``diff:`` key)."""
    return key in ALIASES or key in SEAT_KEYS or key.startswith("diff:")


def split_diff(key: str) -> tuple[str, str, str] | None:
    """``(ARM_A, ARM_B, KEY)`` of ``diff:ARM_A:ARM_B:KEY``, or ``None`` when ``key`` is not of
    that shape."""
    parts = key.split(":", 3)
    if len(parts) != 4 or parts[0] != "diff" or not all(parts[1:]):
        return None
    return parts[1], parts[2], parts[3]


def per_arm(what: str) -> tuple[str, str, float, int] | None:
    """``(words, unit, scale, digits)`` of the per-arm figure ``what`` a ``diff:`` key names
    (``PER_ARM``, its placeholder filled in), or ``None`` when a difference cannot take it."""
    family, sep, name = what.partition(":")
    if not sep:
        return PER_ARM.get(what) if what in ("first_player", "score_mean") else None
    if family == "win_rate" and name:
        words, *rest = PER_ARM["win_rate:POLICY"]
        return (words.replace("POLICY", f"`{name}`"), *rest)  # type: ignore[return-value]
    if family == "seat" and name.isdigit() and int(name) >= 1:
        words, *rest = PER_ARM["seat:N"]
        return (words.replace("N", name), *rest)  # type: ignore[return-value]
    return None


def per_arm_problem(what: str) -> str:
    """Why ``diff:A:B:what`` cannot be differenced, one line naming the KEYs it can; ``""`` when
    it can."""
    if per_arm(what) is not None:
        return ""
    return (f"{what!r} is not a per-arm figure a difference can take (allowed KEY: "
            f"{', '.join(PER_ARM)})")


def per_arm_values(seats: Table, arm: str, what: str, cache: dict) -> pd.Series | None:
    """Per game of ``arm`` (indexed by ``game_id``, ascending) the figure ``what`` (``PER_ARM``)
    as a fraction or in points; ``None`` when the records lack it. A share is the win share of
    the seats it names minus the game's fair share (the game's total win share over its seats),
    so a policy seated twice in a game counts once, the game as the unit."""
    if what in ("first_player", "score_mean"):
        return arm_games(seats, arm, cache).get("start_adv" if what == "first_player" else "score")
    family, _, name = what.partition(":")
    col = "policy" if family == "win_rate" else (
        "start_position" if "start_position" in seats else "seat")
    if col not in seats or "won" not in seats:
        return None
    s = seats.read(("game_id", col, "won"), [arm])
    fair = s.groupby("game_id", sort=True)["won"].sum() / s.groupby("game_id", sort=True).size()
    # a start position is counted from 1 (the start player), as the report's seat order is
    mine = s[s[col] == int(name) - 1] if family == "seat" else s[s[col].astype(str) == name]
    if mine.empty:
        return None
    share = mine.groupby("game_id", sort=True)["won"].mean().astype(float)
    return (share - fair.reindex(share.index)).rename(None)


def alias(records: Sequence[Mapping[str, Any]], key: str) -> dict[str, Any] | None:
    """The record answering alias ``key`` (``ALIASES``) among a run's finding ``records``, as
    a copy under ``key`` whose sentence names whom it is about; ``None`` when the run has none
    to pick from."""
    family = key.partition(":")[0]
    pool = [r for r in records if str(r.get("key", "")).startswith(family + ":")
            and str(r.get("key")) != key and not missing(r.get("estimate"))]
    if not pool:
        return None
    top = pool[0] if family == "rating_gap" else max(pool, key=lambda r: float(r["estimate"]))
    named = str(top["key"]).partition(":")[2]
    return {**top, "key": key, "role_of": str(top["key"]),
            "sentence": f"{top.get('sentence', '')} (the best: `{named}`, {top['key']})"}


def findings(run: Mapping[str, Any], seats: Table | pd.DataFrame) -> list[Finding]:
    """The seat and ``diff:`` findings the run's questions ask (``run["questions"]``), made
    from the seat records; a key that cannot be computed from them is left out (its question
    then gets a row saying why, ``answers.declared``)."""
    asked = [str(q.get("finding")) for q in RunFacts.of(run).questions]
    seats = as_table(seats)
    out: list[Finding] = []
    cache: dict = {}
    for key in dict.fromkeys(asked):
        if key in SEAT_KEYS and BASE in seats.variants():
            out += _seat(seats, key)
        elif split_diff(key) is not None:
            out += _diff(seats, run, key, cache)
    return out


def _position_shares(seats: Table) -> pd.DataFrame:
    """Per game of the base arm (rows) and seat in turn order (columns): its win share minus
    the game's fair share (the game's total win share over its seats)."""
    pos = "start_position" if "start_position" in seats else "seat"
    s = seats.read(("game_id", pos, "won"), [BASE])
    won = s.pivot_table(index="game_id", columns=pos, values="won", aggfunc="sum")
    fair = s.groupby("game_id")["won"].sum() / s.groupby("game_id").size()
    return won.sub(fair.reindex(won.index), axis=0)


def _seat(seats: Table, key: str) -> list[Finding]:
    d = _position_shares(seats)
    n, k = d.shape
    if n < 2 or k < 2:
        return []
    means = d.mean()
    if key == "seat:worst":
        worst = means.idxmin()
        col = d[worst].dropna()
        r = stats.paired_difference(np.zeros(len(col)), col.to_numpy(float),
                                    bounds=stats.SHARE_DIFFERENCE)
        p = None if math.isnan(r.p_value) else min(1.0, r.p_value * k)
        return [Finding(
            f"The seat furthest below a fair share is position {worst} (0 = the start player) of "
            f"`{BASE}`: its win share minus a fair seat's {{value}} over {len(col)} games (the "
            f"game as the unit; p × {k} seats, Bonferroni, since it is picked as the worst)",
            r.mean, r.lo, r.hi, "pp", 100, 1, True, 0.0, p_value=p, games=len(col),
            t_df=len(col) - 1, key=key, item=str(worst), example_variant=BASE,
            per_game=col.rename(None))]
    x = d.fillna(0.0).to_numpy(float) + 0.0
    est = float(means.max() - means.min())
    rng = np.random.default_rng(SEED)
    w = rng.multinomial(n, np.full(n, 1.0 / n), size=BOOTSTRAP) / n
    boot = np.ptp(w @ x, axis=1)  # max − min of each resample
    jack = np.ptp((x.sum(axis=0) - x) / (n - 1), axis=1)  # of each game left out
    iv = stats.bca_interval(est, boot, jack)
    return [Finding(
        f"The seats (start positions) of `{BASE}` win from {100 * float(means.min()):+.1f} to "
        f"{100 * float(means.max()):+.1f} pp of a fair share: max − min {{value}} over {n} games "
        "(BCa bootstrap over games; a fair game shows some spread by chance)",
        est, iv.lo, iv.hi, "pp", 100, 1, games=n, key=key, example_variant=BASE)]


def _diff(seats: Table, run: Mapping[str, Any], key: str, cache: dict) -> list[Finding]:
    a, b, what = split_diff(key)  # type: ignore[misc]
    spec = per_arm(what)
    if spec is None or a not in seats.variants() or b not in seats.variants():
        return []
    words, unit, scale, digits = spec
    va, vb = (per_arm_values(seats, arm, what, cache) for arm in (a, b))
    if va is None or vb is None:
        return []
    facts = RunFacts.of(run)
    counts = {arm.name: arm.players for arm in facts.arms}
    paired = counts.get(a, facts.players) == counts.get(b, facts.players)
    bounds = stats.SHARE_DIFFERENCE if unit == "pp" else None
    if paired:
        both = pd.concat([vb.rename("b"), va.rename("a")], axis=1, join="inner").dropna()
        r = stats.paired_difference(both["b"].to_numpy(), both["a"].to_numpy(), bounds=bounds)
        how = f"paired over the {r.n} games both arms played on the same seeds"
        per_game = (both["a"] - both["b"]).rename(None)
    else:
        r = stats.unpaired_difference(vb.dropna().to_numpy(), va.dropna().to_numpy(),
                                      bounds=bounds)
        how = ("matched by seed but unpaired: the arms seat different player counts, so their "
               "games are not the same games (Welch interval)")
        per_game = None
    if math.isnan(r.mean):
        return []
    return [Finding(f"`{a}` minus `{b}` in {words}: {{value}} ({how})", r.mean, r.lo, r.hi,
                    unit, scale, digits, True, 0.0,
                    p_value=None if math.isnan(r.p_value) else r.p_value,
                    games=int(r.n), t_df=int(r.n) - 1 if paired else None, key=key,
                    example_variant=a, per_game=per_game)]


__all__ = ["ALIASES", "DEFINITIONS", "PER_ARM", "SEAT_KEYS", "alias", "findings", "is_role",
           "per_arm", "per_arm_problem", "per_arm_values", "split_diff"]
