"""Key findings: the run's few answers, first in its report, ranked by size and Holm-corrected.

A finding is one number a report section already computed — the start player's advantage, a
variant's paired effect on the score or on the start player's advantage, a policy's paired
win-rate change, an item's value in an ablation, or a headline figure of the game's own
sections — with its 95 % interval and unit, put into a sentence. The generic findings are read
from the generic sections' numbers (the ``results`` of ``summary.json``); a game adds its own
through ``StudySection.findings`` (in its package), so this module names no game.

Ranking
    By standardized size: ``|estimate − no-effect value| / (standard error · √games)``, the
    effect in per-game standard deviations (for a paired per-game difference this is Cohen's
    ``d_z``); the standard error is read off the 95 % interval (on the log scale for a ratio)
    with the interval's own quantile (Student's t for a t interval, ``Finding.t_df``).
    A finding without an interval to read it from (a test statistic only) takes ``|z|`` from its
    p-value.
Significance
    The tested findings (those with a no-effect value or a p-value) are one family, corrected by
    Holm's step-down method (family-wise error 5 %). A finding's p-value is its section's test,
    else the two-sided normal p-value of ``z`` from its interval (Altman & Bland, BMJ 2011;343:
    d2304). A difference that is the same in every game (``lo == hi``) is exact, not a test.
Figures
    A finding without a no-effect value or p-value (a share of games, a rate per event) is a
    measured figure: listed after the tested findings, in the order the sections give them.
One test, one finding
    Two tested findings of one arm over the same games with the same standardized size and
    p-value are one test (one's per-game differences a multiple of the other's): the second is
    kept out of the Holm family and listed as the same test as the first (``same_test_as``).
What a run cannot say
    A finding the run cannot measure (no comparison group; ``Finding.unmeasurable``) is listed
    with the reason; one over fewer than ``MIN_GAMES`` games reads "too few games to estimate";
    neither is tested. A shown interval never leaves the quantity's possible range.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from analyzer import stats
from analyzer.files import atomic_path
from analyzer.report import guesses
from analyzer.report.document import BASE, Doc, p_text, replay_command, value_text
from analyzer.report.extension import StudySection
from analyzer.report.records import Table, as_table
from analyzer.report.robustness import content_text, verdict_text
from analyzer.report.summary import RunFacts
from analyzer.report.units import SHARE, SQUARED

MAX_TESTED = 10  # tested findings shown; the rest are in summary.json (and in the Holm family)
MAX_FIGURES = 20  # measured figures listed; the rest are in summary.json
MAX_EXAMPLES = 3
MIN_GAMES = stats.MIN_GAMES  # below it a finding gets no interval and no test
PER_GAME = "findings.parquet"  # per-game values of the findings, for ``analyzer robustness``
PER_GAME_KEY = "_per_game"  # where a game section's numbers hand per-game values to its findings


@dataclass(frozen=True)
class Finding:
    """One key finding: a number with its 95 % interval, unit and sentence.

    Attributes
    ----------
    statement : str
        The sentence, Markdown allowed, with ``{value}`` where the estimate and its interval go
        (``"+10.0 pp [+4.6, +15.4]"``); without ``{value}`` they follow after a colon.
    estimate, lo, hi : float
        The number and its 95 % interval, in the section's own scale (a share as 0–1).
    unit, scale, digits, signed
        Shown unit (``"pp"``, ``"%"``, ``"points"``, ``"per move"``), display factor (100
        shows a 0–1 share in % or pp), decimals shown, and whether a sign is shown.
    null : float, optional
        The no-effect value (0 for a difference, a fair share, 1 for an odds ratio); ``None``
        and no ``p_value``: a measured figure, not a test.
    log : bool
        The interval is symmetric on the log scale (a ratio): its standard error is read there.
    p_value : float, optional
        The section's two-sided p-value; ``None``: from the interval (see the module docstring).
    games : int
        The games the number is over (the unit of the standardized size).
    examples, example_variant, example_what
        Up to three ``game_id`` (as ``analyzer replay --game`` takes), the arm they are replayed
        in, and what they show (``"the start player won"``).
    key : str
        A stable name for ``summary.json``, e.g. ``"first_player:base"``.
    per_game : Series, optional
        One value per game (indexed by ``game_id``) whose mean is ``estimate`` (a ratio's
        linearised per-game value, on the log scale for ``log``), written to
        ``findings.parquet`` for ``analyzer robustness`` to pair game by game.
    item, items, item_values
        For a finding about an item the run chose (the strongest of several): that item, and
        every candidate's ``(estimate, lo, hi)`` (plain 95 % intervals) and per-game values,
        so that another run can be compared on the same item.
    unmeasurable : str
        Why this run cannot measure the finding; it is then listed with the reason only.
    bounds : (float, float), optional
        The possible range of the estimate (default: 0–1 for ``%``, −1–1 for ``pp``); a shown
        interval is clipped to it.
    min_games : int
        Below this many ``games``: "too few games to estimate", not tested.
    t_df : float, optional
        The degrees of freedom of a Student-t interval (``games − 1`` for a mean over games),
        whose 97.5 % quantile reads its standard error; ``None``: a normal (or Wilson) one.
    context : str
        What the finding's games are like, as a clause ("every seat used the card in 93 % of
        the games"), which a robustness verdict quotes for a condition that moved it.
    caveats : tuple of (str, str)
        The labelled defaults its games are played on, each ``(name, words)``: the default's
        name (``GuessCounter.default``) and a noun phrase (``"guessed content"``); see
        ``own_caveats``.
    stored_unit : str
        The unit its numbers are stored in, where ``value_unit`` of ``unit`` cannot tell it.
    verdict : str
        A measured figure's own verdict ("balanced within ±2 pp"), shown by the Answers table
        instead of "measured figure".
    """

    statement: str
    estimate: float
    lo: float
    hi: float
    unit: str = ""
    scale: float = 1.0
    digits: int = 1
    signed: bool = False
    null: float | None = None
    log: bool = False
    p_value: float | None = None
    games: int = 0
    examples: tuple[int, ...] = ()
    example_variant: str = BASE
    example_what: str = ""
    key: str = ""
    per_game: pd.Series | None = field(default=None, compare=False, repr=False)
    item: str = ""
    items: Mapping[str, tuple[float, float, float]] = field(default_factory=dict,
                                                            compare=False, repr=False)
    item_values: Mapping[str, pd.Series] = field(default_factory=dict, compare=False,
                                                 repr=False)
    unmeasurable: str = ""
    bounds: tuple[float, float] | None = None
    min_games: int = MIN_GAMES
    context: str = ""
    t_df: float | None = None
    caveats: tuple[tuple[str, str], ...] = ()
    stored_unit: str = ""
    verdict: str = ""

    @property
    def too_few(self) -> bool:
        """Fewer games than ``min_games``: no interval, no test."""
        return 0 < self.games < self.min_games

    @property
    def measured(self) -> bool:
        """The run measures it with an interval worth giving (not unmeasurable, not too few
        games)."""
        return not self.unmeasurable and not self.too_few and not missing(self.estimate)

    def shown_interval(self) -> tuple[float, float]:
        """``(lo, hi)`` clipped to the possible range (``bounds``, else the unit's)."""
        r = self.bounds or {"%": (0.0, 1.0), "pp": (-1.0, 1.0)}.get(self.unit)
        if r is None or missing(self.lo) or missing(self.hi):
            return self.lo, self.hi
        return stats.clip_interval(self.lo, self.hi, *r)

    def value_text(self) -> str:
        """The estimate with its interval and unit, e.g. ``"+10.0 pp [+4.6, +15.4]"``;
        ``"not measurable here (REASON)"`` or ``"too few games to estimate (N games; at least
        M needed)"`` instead when the run cannot give one."""
        if self.unmeasurable:
            return f"not measurable here ({self.unmeasurable})"
        if self.too_few:
            return (f"too few games to estimate ({self.games} game{'s' if self.games != 1 else ''}"
                    f"; at least {self.min_games} needed)")
        lo, hi = self.shown_interval()
        # a difference without spread is the same in every game; a figure keeps its interval
        return value_text(self.estimate, lo, hi, self.unit, self.scale, self.digits,
                          self.signed, no_spread=self.null is not None)

    def sentence(self) -> str:
        """The statement with the value filled in, then its ``caveats`` (`` — played on guessed
        content (a labelled default, not sourced)``)."""
        words = [w for _, w in self.caveats]
        tag = "labelled defaults" if len(words) > 1 else "a labelled default"
        caveat = f" — played on {' and '.join(words)} ({tag}, not sourced)" if words else ""
        if "{value}" in self.statement:
            return self.statement.replace("{value}", self.value_text()) + caveat
        return f"{self.statement}{caveat}: {self.value_text()}"


@dataclass(frozen=True)
class Assessed:
    """A finding with its standardized size and its test after Holm correction.

    ``size`` and ``p_value`` are ``nan`` for a figure; ``exact`` marks a difference that is the
    same in every game (no test, ranked first); ``p_holm`` is ``nan`` outside the family;
    ``same_test_as`` names the finding whose test this one repeats (the same per-game
    differences up to a factor: one test, counted and listed once — it takes that finding's
    ``holds``).
    """

    finding: Finding
    size: float
    p_value: float
    p_holm: float
    holds: bool
    exact: bool = False
    same_test_as: str = ""

    @property
    def tested(self) -> bool:
        """True for a test of the Holm family (not a figure, not exact)."""
        return not math.isnan(self.p_holm)

    @property
    def figure(self) -> bool:
        """True for a measured figure (measured, not tested, not exact, no ``same_test_as``)."""
        return not (self.tested or self.exact or self.same_test_as) and self.finding.measured


def missing(x: Any) -> bool:
    """``x`` is ``None`` or a float NaN (a number a record or section does not have)."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def _z(f: Finding) -> float:
    """``(estimate − null) / standard error`` with the error read off the 95 % interval (``_se``);
    ``nan`` without a null or a usable interval."""
    if f.null is None or missing(f.estimate) or (f.log and min(f.estimate, f.null) <= 0):
        return math.nan
    se = _se(f)
    d = math.log(f.estimate) - math.log(f.null) if f.log else f.estimate - f.null
    return d / se if se > 0 else math.nan


def _se(f: Finding) -> float:
    """The standard error read off the (unclipped) 95 % interval with the quantile it was built
    with (Student's t at ``t_df``, else the normal's), on the log scale for a ratio; ``nan``
    without one."""
    if missing(f.lo) or missing(f.hi) or (f.log and min(f.lo, f.hi) <= 0):
        return math.nan
    q = stats.Z95 if missing(f.t_df) or f.t_df < 1 else float(sps.t.ppf(0.975, f.t_df))
    width = math.log(f.hi) - math.log(f.lo) if f.log else f.hi - f.lo
    return width / (2 * q)


def _same_test(a: tuple, b: tuple) -> bool:
    """Two tested rows ``(finding, size, p, exact)`` are one test: about the same arm
    (``example_variant``), over the same games, with the same standardized size and p-value
    (one's per-game differences a multiple of the other's, e.g. a policy's change against its
    fair share and its lead over the other seats when it plays half of them)."""
    fa, sa, pa, _ = a
    fb, sb, pb, _ = b
    return (fa.games == fb.games and fa.example_variant == fb.example_variant
            and math.isfinite(sa) and math.isfinite(sb)
            and math.isclose(sa, sb, rel_tol=1e-9)
            and math.isclose(pa, pb, rel_tol=1e-6, abs_tol=1e-300))


def assess(findings: Sequence[Finding], alpha: float = 0.05) -> list[Assessed]:
    """Rank ``findings`` and correct their tests (Holm over every distinct tested finding).

    Returns
    -------
    list of Assessed
        Exact differences first, then the tested findings by standardized size (largest first),
        then the figures in the order given, then the findings that repeat another's test
        (``same_test_as``; kept out of the family), then those the run cannot measure
        (``Finding.measured`` false: no number, no test). A difference that is 0 in every game
        (an arm equal to the base) says nothing and is left out.
    """
    rows, unmeasured = [], []
    for f in findings:
        if not f.measured:
            unmeasured.append(f)
            continue
        exact = (f.null is not None and not missing(f.lo) and f.lo == f.hi)
        if exact and f.estimate == f.null:
            continue
        z = _z(f)
        p = f.p_value if not missing(f.p_value) else (
            float(2 * sps.norm.sf(abs(z))) if not math.isnan(z) else math.nan)
        if math.isnan(z) and not math.isnan(p):
            z = float(sps.norm.isf(max(p, 1e-300) / 2))
        size = abs(z) / math.sqrt(f.games) if f.games > 0 and not math.isnan(z) else math.nan
        rows.append((f, math.inf if exact else size, 0.0 if exact else p, exact))
    twin = [-1] * len(rows)  # _same_test never pairs an exact row or one without a p-value
    for j, b in enumerate(rows):
        twin[j] = next((i for i in range(j) if twin[i] < 0 and _same_test(rows[i], b)), -1)
    p = np.array([r[2] if not r[3] and twin[i] < 0 else math.nan for i, r in enumerate(rows)],
                 dtype=float)
    adj, sig = stats.adjust_pvalues(p, "holm", alpha) if len(p) else (p, p.astype(bool))
    out = [Assessed(f, size, pv, float(a), bool(s) or exact, exact) if twin[i] < 0 else
           Assessed(f, size, pv, math.nan, bool(sig[twin[i]]), False, rows[twin[i]][0].key)
           for i, ((f, size, pv, exact), a, s) in enumerate(zip(rows, adj, sig))]
    tested = sorted((a for a in out if a.tested or a.exact),
                    key=lambda a: -a.size if not math.isnan(a.size) else math.inf)
    return (tested + [a for a in out if a.figure] + [a for a in out if a.same_test_as]
            + [Assessed(f, math.nan, math.nan, math.nan, False) for f in unmeasured])


# ------------------------------------------------------------------ the generic findings

#: The generic findings' keys (``generic``) by family: the key's shape, its meaning in words
#: and its unit, for the plan of a run's keys before play (``analyzer.study.questions``).
GENERIC_KEYS: dict[str, tuple[str, str, str]] = {
    "first_player": ("first_player:base", ("the start player's win rate minus a fair "
                                           "position's in the base arm (the game as the unit)"),
                     "pp"),
    "win_rate": ("win_rate:POLICY", ("POLICY's win rate minus a fair seat's in the base arm, "
                                     "where the base seats several policies"), "pp"),
    "score": ("score:VARIANT", ("VARIANT's change of the mean final score per seat-game against "
                                "base (paired on shared seeds)"), "points"),
    "start_adv": ("start_adv:VARIANT", ("VARIANT's change of the start player's advantage "
                                        "against base (paired on shared seeds)"), "pp"),
    "players": ("players:METRIC:VARIANT",
                ("VARIANT (another player count)'s change of METRIC "
                 "(start_adv: the start player's advantage, pp; score: the mean final score, "
                 "points) against base, paired by seed where the arms share seeds, else Welch"),
                "pp or points"),
    "policy": ("policy:VARIANT:POLICY", ("POLICY's change of its win rate in VARIANT against "
                                         "its seats in the same games of base (paired)"), "pp"),
    "item": ("item:NAME", ("NAME's value in win rate to the seat that used it most (with − "
                           "without, paired; an ablation's)"), "pp"),
}



def generic(results: Mapping[str, Any], run: Mapping[str, Any], seats: Table | pd.DataFrame,
            item_kind: str = "item") -> list[Finding]:
    """The findings of the generic sections' numbers (``results`` of ``summary.json``).

    The start player's advantage in the base arm; then, for an ablation, each item's value to
    its heaviest user; else each variant's paired change of the mean score and of the start
    player's advantage (the balance section), each arm of another player count's unpaired
    change of the same two (the player-count section), and each policy's paired win-rate change
    where several policies play (the sweep or the variants section). Example games are read from
    ``seats`` (``game_id, start_position, won``).
    """
    seats = as_table(seats)
    cache: dict = {}
    out = _start_player(results, seats, cache)
    if RunFacts.of(run).kind() == "ablate":
        return out + _ablation(results, item_kind)
    return (out + _win_rates(seats, cache) + _variant_effects(results, seats, cache)
            + _player_counts(results, seats, cache) + _policy_effects(results, seats, cache))


def arm_games(seats: Table, arm: str, cache: dict) -> pd.DataFrame:
    """Per game of ``arm`` (indexed by ``game_id``, ascending): ``score``, the mean final score
    of its seats, and, when the records have ``start_position``, ``start_adv``, the start
    player's win share minus the game's fair share (``stats.start_player_games``) — the
    per-game values behind the generic findings. Kept in ``cache``."""
    if arm not in cache:
        s = seats.read(("game_id", "score", "won", "start_position"), [arm])
        out = pd.DataFrame(index=pd.Index(np.unique(s["game_id"]), name="game_id"))
        if "score" in s:
            out["score"] = s.groupby("game_id", sort=True)["score"].mean()
        if "start_position" in s and "won" in s:
            out["start_adv"] = stats.start_player_games(s)["advantage"].reindex(out.index)
        cache[arm] = out
    return cache[arm]


def _paired_values(seats: Table, arm: str, column: str, cache: dict,
                   reference: str = BASE) -> pd.Series | None:
    """Per game shared by ``arm`` and ``reference``: ``column`` of ``arm_games`` in ``arm``
    minus in ``reference`` (the same game seed); ``None`` when either arm lacks it."""
    arms = seats.variants()
    if arm not in arms or reference not in arms:
        return None
    a, b = arm_games(seats, arm, cache), arm_games(seats, reference, cache)
    if column not in a or column not in b:
        return None
    return _change(b[column], a[column])


def _change(b: pd.Series, a: pd.Series) -> pd.Series:
    """Per game both have (indexed by ``game_id``): ``a`` minus ``b``."""
    both = pd.concat([b.rename("b"), a.rename("a")], axis=1, join="inner")
    return both["a"] - both["b"]


def _moved(change: pd.Series, direction: float) -> tuple[int, ...]:
    """The first games whose ``change`` is above 0 (``direction`` ≥ 0), else below it."""
    return _first(change.index[change > 0 if direction >= 0 else change < 0])


def _start_won(seats: Table, variant: str) -> pd.Series:
    """Per game of ``variant`` (ascending ``game_id``): the start player's share of the win."""
    key = "start_position" if "start_position" in seats else "seat"
    s = seats.read(("game_id", key, "won"), [variant])
    first = s[s[key] == 0].groupby("game_id")["won"].sum()
    return first.reindex(np.unique(s["game_id"]), fill_value=0.0)


def _first(ids: Any) -> tuple[int, ...]:
    return tuple(int(i) for i in list(ids)[:MAX_EXAMPLES])


def _start_player(results: Mapping[str, Any], seats: Table, cache: dict) -> list[Finding]:
    rows = ((results.get("studies") or {}).get("first_player") or {}).get("by_variant") or []
    if not rows:
        return []
    rec = next((r for r in rows if r["variant"] == BASE), rows[0])
    if rec.get("position_test", "done") != "done" or missing(rec.get("advantage")):
        return []
    var = rec["variant"]
    won = _start_won(seats, var)
    ahead = rec["advantage"] >= 0
    ids = won.index[won > 0] if ahead else won.index[won == 0]
    return [Finding(
        f"The start player of `{var}` wins {100 * rec['rate']:.1f} % of its {rec['games']} games "
        f"against a fair position's {100 * rec['fair']:.1f} %: an advantage of {{value}}",
        rec["advantage"], rec["advantage_lo"], rec["advantage_hi"], "pp", 100, 1, True, 0.0,
        p_value=rec.get("p_first"), games=int(rec["games"]), examples=_first(ids),
        t_df=int(rec["games"]) - 1,
        example_variant=var,
        example_what="the start player won" if ahead else "the start player did not win",
        key=f"first_player:{var}",
        per_game=arm_games(seats, var, cache).get("start_adv") if var in seats.variants()
        else None)]


def _win_rates(seats: Table, cache: dict) -> list[Finding]:
    """Each policy's win rate against a fair seat's in the base arm, where the base seats
    several policies: key ``win_rate:POLICY``, as a tournament's entrant's.

    Per game the policy holds a seat in: its mean win share per seat minus the game's fair share
    (its total win share over its seats, so the mean is ``(1 − q)/n``, ``q`` the share of games
    nobody won); the mean over those games with a t interval and test, the game as the unit
    (``stats.paired_difference``, as the start player's advantage; without spread,
    ``stats.no_spread`` over the range a game's difference can take). With two policies one's
    difference is a multiple of the other's (``same_test_as``): the fewest seats come first."""
    if BASE not in seats.variants():
        return []
    rows = _policy_rows(seats, BASE, cache)
    if rows.empty or rows["policy"].nunique() < 2:
        return []
    per = rows.groupby("game_id", sort=True)
    size = per.size()
    fair = (per["won"].sum() / size).astype(float)
    out = []
    held_by = rows.groupby("policy", sort=True).size()
    for pol in sorted(held_by.index, key=lambda name: (held_by[name], name)):  # fewest seats first
        own = rows[rows["policy"] == pol]
        g = own.groupby("game_id", sort=True)
        share, held = g["won"].mean().astype(float), g.size().to_numpy(float)
        ids = share.index
        n_all = size.reindex(ids).to_numpy(float)
        if bool((held == n_all).all()):  # every seat of every game it plays
            continue
        f = fair.reindex(ids)
        # one game's difference: from −1/n (another seat won) to 1/k − 1/n (a seat of the
        # policy's k won) — the range a policy that never (or always) won is measured in
        d = stats.paired_difference(f.to_numpy(), share.to_numpy(), bounds=(
            float((-1 / n_all).min()), float((1 / held - 1 / n_all).max())))
        lo, hi = stats.clip_interval(d.lo, d.hi, -1.0, 1.0)
        rate = stats.win_rates(own.assign(policy=pol), ("policy",)).iloc[0]
        n_seats = int(size.max())
        q = float((f <= 0).mean())
        fair_how = (f"1/{n_seats}: every game had a winner" if q == 0 else
                    f"(1 − q)/{n_seats}, q = {100 * q:.1f} % the share of games nobody won")
        won_ids = ids[share.to_numpy() > f.to_numpy()]
        out.append(Finding(
            f"`{pol}` wins {100 * rate['rate']:.1f} % [{100 * rate['lo']:.1f}, "
            f"{100 * rate['hi']:.1f}] of its {int(rate['n']):,} seat-games in `{BASE}` against a "
            f"fair seat's {100 * float(f.mean()):.1f} % ({fair_how}): {{value}} "
            f"({'t' if (share - f).nunique() > 1 else 'no-spread Wilson'} interval over its "
            f"{len(ids)} games, "
            "the game as the unit)",
            d.mean, lo, hi, "pp", 100, 1, True, 0.0, p_value=d.p_value, games=len(ids),
            t_df=len(ids) - 1,
            examples=_first(won_ids), example_variant=BASE,
            example_what=f"`{pol}` won more than a fair seat", key=f"win_rate:{pol}",
            per_game=(share - f).rename(None)))
    return out


def _variant_effects(results: Mapping[str, Any], seats: Table, cache: dict) -> list[Finding]:
    """Each variant's paired change of the mean final score and of the start player's advantage
    (``balance.vs_base``, metrics ``score`` and ``start_adv``)."""
    out = []
    for r in (results.get("balance") or {}).get("vs_base") or []:
        var, n, metric = r["variant"], int(r["n"]), r["metric"]
        if metric not in ("score", "start_adv"):
            continue
        score = metric == "score"
        what = ("the mean final score by {value} per seat-game" if score
                else "the start player's advantage by {value}")
        out.append(Finding(
            f"`{var}` changes {what} against `{BASE}` (paired on {n} games)",
            r["diff"], r["lo"], r["hi"], *(("points", 1, 2) if score else ("pp", 100, 1)),
            True, 0.0, p_value=r["p_value"], games=n, example_variant=var, t_df=n - 1,
            examples=() if score else _moved_games(seats, var, r["diff"]),
            example_what="" if score else (
                f"the start player won here but not in the same game of `{BASE}`"
                if r["diff"] >= 0 else f"the start player won in `{BASE}` but not here"),
            key=f"{metric}:{var}", per_game=_paired_values(seats, var, metric, cache)))
    return out


def _player_counts(results: Mapping[str, Any], seats: Table, cache: dict) -> list[Finding]:
    """Each arm of another player count: its change of the start player's advantage and of
    the mean score against the reference (``players.vs_base``), paired by game seed where the
    section paired it (game ``i`` of both arms is dealt from the same seed), else Welch's."""
    section = results.get("players") or {}
    ref = section.get("reference", BASE)
    base_n = next((a["players"] for a in section.get("arms", []) if a["variant"] == ref), None)
    out = []
    for r in section.get("vs_base") or []:
        var, n = r["variant"], int(r["n"])
        what = {"start_adv": ("the start player's advantage", "pp", 100, 1),
                "score": ("the mean final score per seat-game", "points", 1, 2)}.get(r["metric"])
        if what is None:
            continue
        label, unit, scale, digits = what
        paired = r.get("test", "welch") == "paired"
        how = (f"paired by game seed over {n} games: game i of both arms is dealt from the same "
               "seed" if paired else "unpaired — no shared game seeds — Welch interval")
        out.append(Finding(
            f"`{var}` ({r['players']} players) changes {label} by {{value}} against `{ref}` "
            f"({base_n} players; {how})"
            + guesses.specific_clause(results.get("guesses"), var, ref), r["diff"], r["lo"],
            r["hi"], unit, scale, digits, True, 0.0, p_value=r["p_value"], games=n,
            example_variant=var, key=f"players:{r['metric']}:{var}",
            t_df=n - 1 if paired else None,
            per_game=_paired_values(seats, var, r["metric"], cache, ref) if paired else None))
    return out


def _moved_games(seats: Table, variant: str, direction: float) -> tuple[int, ...]:
    """Games whose start player did better (``direction`` ≥ 0) or worse in ``variant`` than in
    the same game of the base."""
    arms = seats.variants()
    if BASE not in arms or variant not in arms:
        return ()
    return _moved(_change(_start_won(seats, BASE), _start_won(seats, variant)), direction)


def _policy_rows(seats: Table, variant: str, cache: dict) -> pd.DataFrame:
    """``game_id, seat, policy, won`` of ``variant`` (kept in ``cache``)."""
    key = ("policy_rows", variant)
    if key not in cache:
        rows = seats.read(("game_id", "seat", "policy", "won"), [variant])
        rows["policy"] = rows["policy"].astype(str)
        cache[key] = rows
    return cache[key]


def _policy_paired(seats: Table, variant: str, policy: str, direction: float, cache: dict
                   ) -> tuple[str, pd.Series | None, tuple[int, ...]]:
    """What a policy's win-rate change in ``variant`` is measured against, in words; its
    per-game values (its mean win share per seat in ``variant`` minus in the same game of the
    base, as ``stats.pair_differences``); and the example games where its seats won more
    (``direction`` ≥ 0) or less than the same seats in the same game of the base.

    The reference is its own seats in the base game: the same seats when it holds the same
    ones in every game; the fair share ``(1 − q)/n`` when the base plays it at every seat (the
    sentence says so); else its per-seat share at the seats it holds there."""
    arms = seats.variants()
    if BASE not in arms or variant not in arms:
        return f"its seats in the same games of `{BASE}`", None, ()
    v = _policy_rows(seats, variant, cache)
    b = _policy_rows(seats, BASE, cache)
    vp, bp = v[v["policy"] == policy], b[b["policy"] == policy]
    same = vp.merge(b[["game_id", "seat", "won"]], on=["game_id", "seat"], suffixes=("_v", "_b"))
    per = same.groupby("game_id")[["won_v", "won_b"]].sum()
    examples = _moved(_change(per["won_b"], per["won_v"]), direction)
    per_b = bp.groupby("game_id")["won"].mean()
    values = _change(per_b, vp.groupby("game_id")["won"].mean())
    seats_v, seats_b = _seat_sets(vp), _seat_sets(bp)
    ids = seats_v.index.intersection(seats_b.index)
    if len(ids) and seats_v.reindex(ids).equals(seats_b.reindex(ids)):
        return f"the same seats of `{BASE}`", values, examples
    held = bp.groupby("game_id").size().reindex(ids, fill_value=0)
    everywhere = held == b.groupby("game_id").size().reindex(ids, fill_value=-1)
    if len(ids) and bool(everywhere.all()):
        share = float(per_b.reindex(values.index).mean())
        return (f"its per-seat win share in the same games of `{BASE}`, where it plays every "
                f"seat: the fair share (1 − q)/n, {100 * share:.1f} % here — so this is its "
                "win rate's distance from a fair seat's"), values, examples
    return (f"its per-seat win share in the same games of `{BASE}` (at the seats it holds "
            "there, not the same ones)"), values, examples


def _seat_sets(rows: pd.DataFrame) -> pd.Series:
    """Per game (index ``game_id``, ascending), the set of seats ``rows`` hold there: a bit
    mask (bit ``s`` for seat ``s``) when every seat is in 0..62, else a ``frozenset`` — either
    way two games' values are equal exactly when their sets are."""
    seat = rows["seat"].to_numpy()
    if not len(seat) or not np.issubdtype(seat.dtype, np.integer) or seat.min() < 0 \
            or seat.max() > 62:
        return rows.groupby("game_id")["seat"].apply(frozenset)
    pairs = rows[["game_id", "seat"]].drop_duplicates()
    bits = np.left_shift(np.int64(1), pairs["seat"].to_numpy(np.int64))
    return pd.Series(bits, index=pairs["game_id"].to_numpy()).groupby(level=0).sum()


def _policy_effects(results: Mapping[str, Any], seats: Table, cache: dict) -> list[Finding]:
    """Each policy's paired win-rate change where several policies play: the sweep's table
    when it is by policy, else the variants section's. A row that repeats another row's test
    (``mirror_of``: one policy's gain is the other's loss) is left out. The sentence names the
    reference the change is measured against (``_policy_paired``)."""
    sweep = (results.get("studies") or {}).get("sweep") or {}
    table = sweep.get("table") or []
    if table and "policy" in table[0]:
        metric = sweep.get("metric", "won")
    else:
        table = (results.get("variants") or {}).get("won_by_policy") or []
        metric = "won"
    won = metric == "won"
    what = "win rate" if won else f"mean `{metric}`"
    scale, unit, digits = (100, "pp", 1) if won else (1, "", 2)
    out: list[Finding] = []
    for r in table:
        if r["variant"] == BASE or missing(r.get("diff")) or not missing(r.get("mirror_of")):
            continue
        var, pol, n = r["variant"], r["policy"], int(r.get("n") or 0)
        against, values, examples = (_policy_paired(seats, var, pol, r["diff"], cache) if won
                                     else (f"the same seats of `{BASE}`", None, ()))
        # the levels behind the change, for a robustness verdict's reason
        b, v = r.get("base_mean"), r.get("variant_mean")
        context = ("" if not won or missing(b) or missing(v) else
                   f"`{pol}` wins {100 * b:.1f} % of its seat-games in `{BASE}`, "
                   f"{100 * v:.1f} % in `{var}`")
        # the sweep table's ``lo``/``hi`` are the arm's own value's; its difference's are
        # ``d_lo``/``d_hi``
        lo, hi = (r["d_lo"], r["d_hi"]) if "d_lo" in r else (r["lo"], r["hi"])
        out.append(Finding(
            f"In `{var}`, `{pol}` changes its {what} by {{value}} against {against}"
            + (f" (paired on {n} games)" if n else ""), r["diff"], lo, hi,
            unit, scale, digits, True, 0.0, p_value=r.get("p_value"), games=n,
            t_df=n - 1 if n else None, examples=examples, example_variant=var,
            example_what=(f"`{pol}` won more than the same seats did in `{BASE}`"
                          if r["diff"] >= 0 else
                          f"`{pol}` won less than the same seats did in `{BASE}`"),
            key=f"policy:{var}:{pol}", per_game=values, context=context))
    return out


def _ablation(results: Mapping[str, Any], kind: str) -> list[Finding]:
    """Each item's value to its heaviest user (``ablate`` table: with − without, paired)."""
    table = ((results.get("studies") or {}).get("ablate") or {}).get("table") or []
    out = []
    for r in table:
        if missing(r.get("value")):
            continue
        n = int(r.get("games_used") or 0)
        out.append(Finding(
            f"The {kind} `{r['item']}` is worth {{value}} in win rate to the seat that used it "
            f"most (with − without, paired on the {n} games it was used in; that seat is picked "
            "in the base game, so part of this is selection)", r["value"], r["lo"], r["hi"],
            "pp", 100, 1, True, 0.0, p_value=r.get("p_value"), games=n, t_df=n - 1,
            examples=tuple(r.get("examples") or ()), example_variant=r["variant"],
            example_what=(f"its heaviest user won with `{r['item']}` but less without it"
                          if r["value"] >= 0 else
                          f"its heaviest user won more without `{r['item']}`"),
            key=f"item:{r['item']}"))
    return out


# ------------------------------------------------------------------ the section


def collect(results: Mapping[str, Any], run: Mapping[str, Any], seats: Table | pd.DataFrame,
            game_sections: Sequence[StudySection] = (), item_kind: str = "item") -> list[Finding]:
    """The generic findings, then each game section's (``StudySection.findings`` of the numbers
    it returned, in ``results[section.key]``). A section may hand its findings per-game values
    (``Finding.per_game``) under ``"_per_game"`` in its numbers; they are removed here, after
    its findings are made, so that ``summary.json`` never holds them."""
    out = generic(results, run, seats, item_kind)
    for section in game_sections:
        if section.findings is not None and results.get(section.key):
            out += list(section.findings(results[section.key], dict(run)))
        _drop_per_game(results.get(section.key))
    return out


def _drop_per_game(numbers: Any) -> None:
    """Remove every ``"_per_game"`` entry (per-game series a game section hands its findings,
    ``PER_GAME_KEY``) from a section's numbers, which go to ``summary.json``."""
    if isinstance(numbers, dict):
        numbers.pop(PER_GAME_KEY, None)
    for value in (numbers.values() if isinstance(numbers, dict) else
                  numbers if isinstance(numbers, list) else ()):
        _drop_per_game(value)


def _examples(f: Finding, run_dir: Path | None) -> str:
    if not f.examples:
        return ""
    ids = ", ".join(str(i) for i in f.examples)
    other = f.example_variant != BASE
    arm = f" of `{f.example_variant}`" if other else ""
    both = f" (without `--variant`: the same game of `{BASE}`)" if other else ""
    return (f" Example games{arm} where {f.example_what}: {ids}; replay one with "
            f"`{replay_command(run_dir, f.examples[0], f.example_variant)}`{both}.")


def section(doc: Doc, results: Mapping[str, Any], run: Mapping[str, Any],
            seats: Table | pd.DataFrame, game_sections: Sequence[StudySection] = (),
            item_kind: str = "item", run_dir: Path | None = None, at: int = 0,
            robust: Mapping[str, Any] | None = None,
            extra: Sequence[Finding] = ()) -> dict[str, Any]:
    """Put the "Key findings" section of the ``collect``-ed findings and ``extra`` (made
    elsewhere from the same records: ``role_keys.findings``) into ``doc`` at block ``at`` (the
    report's top): ``write`` of ``numbers``, which it returns. ``robust``: the run's ``analyzer
    robustness`` result (``report.robustness.load``), whose verdict follows each finding."""
    acted = results.get("guesses")
    n = numbers(collect(results, run, seats, game_sections, item_kind) + list(extra), acted)
    write(doc, n, n.pop(ASSESSED), run_dir, at, "No finding to report: this run has no "
          "start-player, variant or study number with an interval.", robust=robust, acted=acted)
    return n


ASSESSED = "_assessed"  # the findings and their assessment, for ``write`` only


def numbers(found: Sequence[Finding], acted: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The key findings' numbers: ``found`` with only their own caveats (``own_caveats``),
    ranked and Holm-corrected (``assess``). ``acted``: how often the labelled defaults acted
    (``guesses.measure``), recorded per finding (``defaults_acted``).

    Returns
    -------
    dict
        ``{"correction": "holm", "tested": n, "shown": [key, ...], "findings": [...]}`` for
        ``summary.json``: every finding (shown or not) with its sentence, numbers, size,
        p-values and example games; ``shown`` are the numbered ones, in their order. Under
        ``ASSESSED`` (for ``write``; not in ``summary.json``) the findings, their assessments
        and the shown ones: ``(found, ranked, shown)``.
    """
    found = [own_caveats(f, acted) for f in found]
    ranked = assess(found)
    tested = [a for a in ranked if a.tested]
    shown = [a for a in ranked if a.exact] + tested[:MAX_TESTED]
    return {"correction": "holm", "tested": len(tested),
            "shown": [a.finding.key for a in shown],
            "findings": [_record(a, acted) for a in ranked], ASSESSED: (found, ranked, shown)}


def write(doc: Doc, n: Mapping[str, Any], assessed: tuple, run_dir: Path | None = None,
          at: int = 0, none_text: str = "No finding to report.", note: str = "",
          robust: Mapping[str, Any] | None = None,
          acted: Mapping[str, Any] | None = None) -> None:
    """Put the "Key findings" section of the numbers ``n`` (``numbers``; ``assessed``: its
    ``ASSESSED``) into ``doc`` at block ``at``: each shown finding a sentence with its interval
    and verdict, example games with their replay command; their per-game values to
    ``run_dir``'s ``findings.parquet`` (``write_per_game``). ``none_text``: the paragraph when
    there is no finding; ``note``: a sentence added to the explanation (e.g. what the unit is
    when it is not the game); ``robust``: as for ``section``; ``acted``: as for ``numbers``,
    each finding then says whether its arm's games lean on them. Used by ``section`` and by
    the reports of their own (``tournament``, ``tune``)."""
    found, ranked, shown = assessed
    verdicts = {r.get("key"): r for r in (robust or {}).get("findings", [])}

    def notes(f: Finding) -> str:  # its robustness verdict, own caveat and example games
        row = verdicts.get(f.key)
        checked = (f" {verdict_text(row, robust)}{content_text(row)}" if row is not None and robust
                   else "")
        return f"{checked}{_lean(f, acted)}{_examples(f, run_dir)}"

    tested = n["tested"]
    twins = [a for a in ranked if a.same_test_as]
    unmeasured = [a for a in ranked if not a.finding.measured]
    figures = [a for a in ranked if a.figure]
    part = type(doc)(doc.chart_dir)  # a Numbers doc stays one: no chart
    part.h("Key findings")
    if not ranked:
        part.p(none_text)
    else:
        cut = (f" (the {MAX_TESTED} largest are shown; all are in `summary.json`, "
               "`findings`)") if tested > MAX_TESTED else ""
        part.p("The run's answers, largest first; each number comes from the section of this "
               "report that computes it, with its 95 % interval in brackets and its unit. "
               "**Size** is the standardized effect: the distance from no effect in per-game "
               "standard deviations (|estimate − no effect| / (standard error · √games); for a "
               "paired per-game difference Cohen's d). **Holds after Holm**: significant after "
               "Holm correction (family-wise error 5 %) over the "
               f"{tested} tested finding{'s' if tested != 1 else ''} of this run"
               f"{cut}. p-values are the sections' own tests, or read off the interval where "
               "a section gives only an interval." + (f" {note}" if note else ""))
    for i, a in enumerate(shown, 1):
        f = a.finding
        if a.exact:
            verdict = "Exact: the same difference in every game, not a test."
        else:
            verdict = ("**Holds after Holm**" if a.holds else "Not significant after Holm")
            verdict += (f" ({p_text(a.p_value, phrase=True)}; Holm-adjusted "
                        f"{p_text(a.p_holm, phrase=True)}; size "
                        f"{a.size:.2f}).")
        part.p(f"{i}. {f.sentence()}. {verdict}{notes(f)}")
    if figures:
        part.p("Measured figures (no no-effect value to test them against)"
               + (f", the first {MAX_FIGURES} of {len(figures)} (all are in `summary.json`, "
                  "`findings`):" if len(figures) > MAX_FIGURES else ":"))
        for f in (a.finding for a in figures[:MAX_FIGURES]):
            part.p(f"- {f.sentence()}.{notes(f)}")
    if twins:
        part.p("The same test as a finding above (one's per-game differences a multiple of the "
               "other's), counted once in the Holm family: " + "; ".join(
                   f"`{a.finding.key}` = `{a.same_test_as}`" for a in twins) + ".")
    if unmeasured:
        part.p("Not measurable in this run (no number, no test):")
        for f in (a.finding for a in unmeasured):
            part.p(f"- `{f.key}`: {f.value_text()}.")
    doc.blocks[at:at] = part.blocks
    if run_dir is not None:
        write_per_game(Path(run_dir) / PER_GAME, found)


def write_per_game(path: Path, found: Sequence[Finding]) -> None:
    """``findings.parquet``: per finding (``key``) and item (``""`` for the finding's own
    value) its per-game values (``game_id``, ``value``), for ``analyzer robustness`` to pair a
    finding game by game with the same finding of a run on the same seeds. Written atomically;
    an empty table when no finding has per-game values."""
    parts = []
    for f in found:
        for item, values in [("", f.per_game), *f.item_values.items()]:
            if values is None or not len(values):
                continue
            parts.append(pd.DataFrame({"key": f.key, "item": item,
                                       "game_id": np.asarray(values.index, dtype=np.int64),
                                       "value": np.asarray(values, dtype=float)}))
    table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        {"key": pd.Series(dtype=str), "item": pd.Series(dtype=str),
         "game_id": pd.Series(dtype=np.int64), "value": pd.Series(dtype=float)})
    with atomic_path(path) as tmp:
        table.to_parquet(tmp, index=False)


def own_caveats(f: Finding, acted: Mapping[str, Any] | None) -> Finding:
    """``f`` with only its own ``caveats``: one whose labelled default acted in at least
    ``guesses.NEARLY_ALL`` of the games of ``base`` (those the "What these answers rest on" box
    describes) and of the finding's arm is the whole run's, said once in that box, and is
    dropped. Kept: one that acted in fewer of the games (it is a fact about some games), or
    that the run does not count (``acted`` has no counter for it)."""
    if not f.caveats or not acted:
        return f
    base, mine = _shares(acted, BASE), _shares(acted, f.example_variant)
    kept = tuple((name, words) for name, words in f.caveats
                 if not min(base.get(name, 0.0), mine.get(name, 0.0)) >= guesses.NEARLY_ALL)
    return f if kept == f.caveats else replace(f, caveats=kept)


def _shares(acted: Mapping[str, Any], variant: str) -> dict[str, float]:
    """Per labelled default name, the share of ``variant``'s games where its counter acted
    (only the counters in use there)."""
    arm = next((a for a in acted["arms"] if a["variant"] == variant), {"counters": ()})
    names = {c["column"]: c["default"] for c in acted["counters"]}
    return {names[r["column"]]: r["share"] for r in arm["counters"] if r["in_use"]}


def _lean(f: Finding, acted: Mapping[str, Any] | None) -> str:
    """A finding's own caveat about its arm: the counted labelled defaults that act in clearly
    more of its arm's games than of the base's (``guesses.specific_clause``) and that the
    sentence does not already name (those of the whole run: the "What these answers rest on"
    box, issue #25)."""
    if not acted or f.example_variant == BASE:
        return ""
    clause = guesses.specific_clause(acted, f.example_variant, BASE)
    if not clause or clause in f.sentence():
        return ""
    return f" Its own caveat: {clause.removeprefix(' — ')}."


def value_unit(unit: str, scale: float, log: bool = False) -> str:
    """The unit a finding record's numbers are stored in: ``units.SHARE`` for a share (``%``)
    or a difference of shares (``pp``) shown ×100, ``units.SQUARED`` for ``pp²`` shown ×10⁴,
    else the shown ``unit``; ``"ratio"`` for a ratio (``log``) without one."""
    if unit in ("%", "pp") and float(scale) == 100.0:
        return SHARE
    if unit == "pp²" and float(scale) == 1e4:
        return SQUARED
    return unit or ("ratio" if log else "")


def _record(a: Assessed, acted: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A finding for ``summary.json`` (the replay command is the report's: it depends on where
    the run directory is; ``examples`` and ``example_variant`` make it). ``defaults_acted``:
    whether its arm's games lean on labelled defaults (``guesses.lean``; ``None`` when the run
    counts none). ``unit`` is the unit shown (the numbers × ``scale``), ``value_unit`` the
    unit the numbers are stored in (``value_unit``)."""
    f = a.finding
    lo, hi = f.shown_interval() if f.measured else (math.nan, math.nan)
    record = {"key": f.key, "sentence": f.sentence(),
              "estimate": f.estimate if f.measured else math.nan, "lo": lo, "hi": hi,
              "unit": f.unit, "value_unit": f.stored_unit or value_unit(f.unit, f.scale, f.log), "scale": f.scale,
              "digits": f.digits,
              "signed": f.signed, "null": f.null, "games": f.games,
              "size": a.size, "p_value": a.p_value, "p_holm": a.p_holm, "holds": a.holds,
              "exact": a.exact,
              "figure": a.figure,
              "examples": list(f.examples), "example_variant": f.example_variant,
              "defaults_acted": guesses.lean(acted, f.example_variant),
              "log": f.log, "se": _se(f) if f.measured else math.nan, "t_df": f.t_df}
    record.update((k, v) for k, v in (("same_test_as", a.same_test_as),
                                      ("unmeasurable", f.unmeasurable), ("context", f.context),
                                      ("verdict", f.verdict)) if v)
    if f.too_few:
        record["too_few_games"] = f.min_games
    if f.item:
        record["item"] = f.item
        record["items"] = {k: {"estimate": v[0], "lo": v[1], "hi": v[2]}
                           for k, v in f.items.items()}
    return record


__all__ = ["ASSESSED", "Assessed", "Finding", "assess", "collect", "generic", "numbers",
           "own_caveats", "replay_command", "section", "value_unit", "write"]
