"""Rattus Cartus's own report section: which building selections are balanced
(docs/rules/cartus.md §3).

Declared in ``SPEC.sections`` (``__init__.py``); the generic report calls it after its own
sections. It applies when the game records carry ``building_set`` with several values (e.g.
``scenarios/cartus-building-sets.toml``: the 64 one-building-per-class selections; also an
``analyzer compare`` or ``ablate`` of building sets, or one arm drawing one building per class game
by game: each set then from the games that drew it, from ``MIN_DRAWN_GAMES`` games on), and then
stands in for the generic balance section. Works from the records alone: ``building_set`` and ``building_<class>``
(game records), ``seat``, ``won`` and ``died`` (seat records).

Method (the section's text says it in full; ``effects`` gives the intervals):

* **Seat balance** of a set = max − min over seats of the seat win rate (a game without a
  winner is a loss for every seat); **imbalance test**: chi-square that every seat wins equally
  often, corrected over the sets. **Death rate** = share of seats that died (Wilson interval at
  the effective number of games, ``stats.clustered_share``), against the reference set (the
  base arm's) paired on the same seeds.
* Several arms with the same selection on the same seeds are one observation per seed: their
  games are averaged seed by seed, never pooled as if independent.
* **Main effect** of a class's choice and the standard 2^k **interaction** of two classes, on
  the **seat spread²** (``stats.spread_variance``: unbiased, unlike max − min, whose
  differences shrink toward 0 near fair sets; README, the intervals table) and the shares;
  max − min's BCa bootstrap intervals go to ``summary.json`` only. Marks are corrected over
  the rows of each column.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy import stats as sps

from analyzer import stats
from analyzer.games.cartus import findings
from analyzer.games.cartus.config import _components, building_set_id
from analyzer.report import charts
from analyzer.report.balance import seat_numbers, spread_noise_floor
from analyzer.report.document import (
    CORRECTION_SHORT,
    Doc,
    cells,
    correction_of,
    p_text,
    pct,
    rows_of,
    value_text,
)
from analyzer.report.extension import StudySection
from analyzer.report.findings import PER_GAME_KEY
from analyzer.report.records import Table, as_table
from analyzer.report.units import SHARE, SQUARED

BOOTSTRAP = 2000  # bootstrap draws: BCa tails and p-values down to ~1/2000 need a few thousand
SEED = 20240607  # fixed, so a re-render gives the same intervals
METRICS = ("balance", "death", "no_winner", "first_seat", "last_seat")
LINEAR = ("death", "no_winner", "first_seat", "last_seat")  # means over games: per-game contrasts
EFFECT_METRICS = ("spread2", *METRICS)  # spread2: seat-rate variance without chance's part
LABELS = {"balance": "seat balance (max − min)", "death": "death rate", "no_winner": "no winner",
          "first_seat": "seat 0 wins", "last_seat": "last seat wins",
          "spread2": "seat spread² [pp²]"}
TOP_INTERACTIONS = 5  # interactions shown per metric (all are in summary.json)


MIN_DRAWN_GAMES = 20  # games a selection drawn game by game needs to get a row of its own


class SetLayout(NamedTuple):
    """The building sets of the records (``layout``), facts the section's text needs that
    ``summary.json`` does not hold: the ``reference`` set (the first compared: the base arm's),
    the ``factors``, ``drawn`` (selections drawn game by game, kept or not; ``None`` when each
    arm plays one) and the ``arms`` playing each set."""

    reference: str
    factors: list[tuple[str, str, str]]
    drawn: int | None
    arms: dict[str, list[str]]


def layout(games: Table | pd.DataFrame) -> SetLayout | None:
    """The ``SetLayout`` of the game records (``building_*``, ``variant``, ``game_id``) when
    they hold several building selections to compare: each arm plays one, or they are drawn
    game by game and at least one was drawn in ``MIN_DRAWN_GAMES`` games; else ``None``."""
    if "building_set" not in games:
        return None
    games = as_table(games)
    order, arms, _, own = _set_layout(games)
    if len(order) < 2:
        return None
    choice = games.read(("building_*",))
    return SetLayout(str(order[0]), factors(choice),
                     None if own is None else choice["building_set"].nunique(), arms)


def active(games: Table | pd.DataFrame) -> bool:
    """True when the records hold several building selections to compare (``layout``)."""
    return "building_set" in games and len(_set_layout(as_table(games))[0]) > 1


def factors(games: pd.DataFrame) -> list[tuple[str, str, str]]:
    """The classes with exactly two building choices, as ``(class, reference, alternative)``.

    The reference is the building of the first game record (the base arm's), so main effects read
    "the alternative instead of the reference set's building".
    """
    out = []
    for col in games.columns:
        if not col.startswith("building_") or col == "building_set":
            continue
        levels = list(pd.unique(games[col]))
        if len(levels) == 2 and not any("," in str(v) or not v for v in levels):
            out.append((col[len("building_"):], str(levels[0]), str(levels[1])))
    return out


SET_SEATS = ("variant", "game_id", "seat", "won", "died")


def _set_layout(games: Table) -> tuple[list[str], dict[str, list[str]], bool,
                                       dict[str, dict[str, np.ndarray]] | None]:
    """The building sets in order of first appearance, the arms playing each, whether every
    set has the same game ids (then its games are paired by seed), and, when sets are drawn
    game by game, each set's game ids per arm — only the sets drawn in at least
    ``MIN_DRAWN_GAMES`` games are kept then (``None`` when each arm plays one set)."""
    sets = games.read(("variant", "game_id", "building_set"))
    # some arm plays several sets: drawn game by game (rules §3 modes b, c)
    drawn = bool((sets.groupby("variant", observed=True)["building_set"].nunique() > 1).any())
    order = list(pd.unique(sets["building_set"]))
    arms, ids = {}, {}
    own: dict[str, dict[str, np.ndarray]] | None = {} if drawn else None
    for key, grp in sets.groupby("building_set", sort=False, observed=True):
        if drawn:
            if len(grp) < MIN_DRAWN_GAMES:
                continue
            own[key] = {str(a): np.unique(g["game_id"].to_numpy())
                        for a, g in grp.groupby("variant", sort=False, observed=True)}
        arms[key] = list(pd.unique(grp["variant"]))
        ids[key] = np.unique(grp["game_id"].to_numpy())
    order = [key for key in order if key in arms]
    if not order:
        return [], {}, False, own
    ids0 = ids[order[0]]
    paired = all(len(i) == len(ids0) and np.array_equal(i, ids0) for i in ids.values())
    return order, arms, paired, own


def _arm_games(seats: Table, names: Sequence[str],
               seat_ids: list[int]) -> dict[str, pd.DataFrame]:
    """Per arm of ``names``, its games in ascending ``game_id``: columns ``game_id``,
    ``won_<k>`` (seat ``k``'s win share; ``nan`` when the game has no seat ``k``),
    ``no_winner`` (0/1), ``seats`` (seat records of the game) and ``death`` (share of its seats
    that died; only when the records have ``died``) — the values ``arm_per_game`` gives these
    columns, from one read of the seat records for all the arms (not one read per arm)."""
    rec = seats.read(SET_SEATS, list(names))
    position = {k: i for i, k in enumerate(seat_ids)}
    out = {}
    for arm, grp in rec.groupby("variant", sort=False, observed=True):
        ids, inv = np.unique(grp["game_id"].to_numpy(), return_inverse=True)
        won = np.nan_to_num(grp["won"].to_numpy(float))  # a missing share adds 0, as a sum
        col = np.array([position[int(k)] for k in grp["seat"].to_numpy()], dtype=np.intp)
        cells = np.zeros((len(ids), len(seat_ids)))
        filled = np.zeros((len(ids), len(seat_ids)), dtype=np.intp)
        np.add.at(cells, (inv, col), won)
        np.add.at(filled, (inv, col), 1)
        cells[filled == 0] = np.nan
        count = np.bincount(inv, minlength=len(ids)).astype(float)
        frame = {"game_id": ids, **{f"won_{int(k)}": cells[:, i] for i, k in enumerate(seat_ids)},
                 "no_winner": (np.bincount(inv, won, len(ids)) <= 0).astype(float),
                 "seats": count}
        if "died" in grp:
            frame["death"] = np.bincount(inv, grp["died"].to_numpy(float), len(ids)) / count
        out[str(arm)] = pd.DataFrame(frame)
    return out


def _set_arrays(per_arm: Mapping[str, pd.DataFrame], arms: list[str],
                seat_ids: list[int]) -> dict[str, np.ndarray | None]:
    """Per-game arrays of one building set, one row per game id (ascending): ``ids`` (games,),
    ``won`` (games, seats) 1/k win shares, ``death`` (games,) or ``None``, ``no_winner``
    (games,) 0/1, ``seats`` (games,). ``per_arm``: ``_arm_games`` of (at least) ``arms``.

    Several arms with this set (a compare of a scenario with a copy, say) play the same seeds:
    a seed's games are one observation, so they are averaged seed by seed, not pooled.
    """
    pg = pd.concat([per_arm[arm] for arm in arms], ignore_index=True)
    won_cols = [f"won_{int(k)}" for k in seat_ids]
    cols = [*won_cols, "no_winner", "seats", *(["death"] if "death" in pg else [])]
    if len(arms) > 1:
        pg = pg.groupby("game_id", sort=True)[cols].mean().reset_index()
    # C order: the mean over games (axis 0) then sums in the same order as always
    return {"ids": pg["game_id"].to_numpy(),
            "won": np.ascontiguousarray(pg[won_cols].to_numpy(float)),
            "death": pg["death"].to_numpy(float) if "death" in pg else None,
            "no_winner": pg["no_winner"].to_numpy(float),
            "seats": pg["seats"].to_numpy(float)}


def _weights(rng: np.random.Generator, n: int, draws: int, block: int = 25) -> np.ndarray:
    """Bootstrap weights, shape (draws, n): multinomial counts of ``n`` games resampled ``n``
    times, divided by ``n``. Drawn ``block`` rows at a time (the same numbers as one call,
    without a second (draws, n) array of counts)."""
    w = np.empty((draws, n))
    p = np.full(n, 1 / n)
    for start in range(0, draws, block):
        size = min(block, draws - start)
        w[start:start + size] = rng.multinomial(n, p, size=size) / n
    return w


def _metrics(won: np.ndarray, death: np.ndarray | None, nw: np.ndarray) -> dict[str, np.ndarray]:
    """Set metrics from (draws, seats) win rates and (draws,) death / no-winner shares."""
    return {"balance": won.max(axis=1) - won.min(axis=1),
            "death": death if death is not None else np.full(won.shape[0], np.nan),
            "no_winner": nw, "first_seat": won[:, 0], "last_seat": won[:, -1]}


def _jackknife_balance(won: np.ndarray) -> np.ndarray:
    """``max − min`` of the seat win rates with each game left out in turn, shape (games,).

    ``won``: (games, seats) win shares; the rates without game ``i`` are
    ``(Σ won − won_i) / (n − 1)``, in closed form (no (games, games) array).
    """
    n = won.shape[0]
    if n < 2:
        return np.full(n, np.nan)
    rates = (won.sum(axis=0)[None, :] - won) / (n - 1)
    return rates.max(axis=1) - rates.min(axis=1)


class _SetSummary(NamedTuple):
    """What ``set_statistics`` takes from one set's arrays alone (no bootstrap draw):
    ``arrays`` (``_set_arrays``), the balance ``jackknife`` (games,), the linear metrics'
    ``per_game`` values, the table ``row``'s point estimates and imbalance p-value, its
    ``spread`` (seat spread² and jackknife interval) with ``spread_jackknife`` (games,), and
    its ``death`` rate with Wilson interval (empty when not recorded)."""

    arrays: dict[str, np.ndarray | None]
    jackknife: np.ndarray
    per_game: dict[str, np.ndarray]
    row: dict[str, float]
    spread: dict[str, float]
    spread_jackknife: np.ndarray
    death: dict[str, float]


def _set_summary(d: dict[str, np.ndarray | None]) -> _SetSummary:
    """Everything of one set that depends on its arrays ``d`` (``_set_arrays``) only."""
    n = len(d["ids"])
    per_game = {"death": d["death"] if d["death"] is not None else np.full(n, np.nan),
                "no_winner": d["no_winner"], "first_seat": d["won"][:, 0],
                "last_seat": d["won"][:, -1]}
    rates = d["won"].mean(axis=0)
    point = _metrics(rates[None, :], None if d["death"] is None else d["death"].mean()[None],
                     d["no_winner"].mean()[None])
    wins = d["won"].sum(axis=0)
    total = wins.sum()
    p_imb = float(sps.chisquare(wins).pvalue) if total > 0 else float("nan")
    row = {**{f"seat_{k}": float(rates[k]) for k in range(len(rates))},
           "balance": float(point["balance"][0]), "imbalance_p": p_imb,
           "no_winner": float(point["no_winner"][0])}
    spread, sj = stats.spread_variance(d["won"])
    iv = stats.jackknife_interval(spread, sj)[0]
    death = {}
    if d["death"] is not None:
        dv = stats.clustered_share(d["death"] * d["seats"], d["seats"])
        death = {"death": dv.estimate, "death_lo": dv.lo, "death_hi": dv.hi}
    return _SetSummary(d, _jackknife_balance(d["won"]), per_game, row,
                       {"spread2": spread, "spread2_lo": iv.lo, "spread2_hi": iv.hi}, sj, death)


class SetStatistics(NamedTuple):
    """What ``set_statistics`` returns.

    ``table``: one row per set (see ``set_statistics``). ``boot``: bootstrap draws per metric,
    ``{metric: array (draws, sets)}``. ``paired``: the sets replay the same game seeds.
    ``jackknife``: per set, the seat balance with each game left out (arrays (games,)).
    ``per_game``: per linear metric, per set, the per-game values (arrays (games,)).
    ``spread_jackknife``: per set, ``stats.spread_variance``'s leave-one-game-out values.
    """

    table: pd.DataFrame
    boot: dict[str, np.ndarray]
    paired: bool
    jackknife: list[np.ndarray]
    per_game: dict[str, list[np.ndarray]]
    spread_jackknife: list[np.ndarray]


def set_statistics(games: pd.DataFrame, seats: pd.DataFrame, draws: int = BOOTSTRAP,
                   seed: int = SEED) -> SetStatistics:
    """Point estimates, bootstrap draws and tests of every building set.

    Returns
    -------
    SetStatistics
        ``table`` has one row per set: ``building_set, games, arms, seat_<k>, balance,
        balance_lo, balance_hi`` (95% BCa bootstrap), ``spread2, spread2_lo, spread2_hi``
        (``stats.spread_variance``: variance of the seat win rates without chance's part, 95%
        jackknife interval), ``imbalance_p, death, death_lo,
        death_hi`` (``stats.clustered_share``), ``death_diff, death_diff_lo, death_diff_hi,
        death_p, no_winner`` and the ``building_<class>`` choices.
    """
    games, seats = as_table(games), as_table(seats)
    order, arms, paired, own = _set_layout(games)
    seat_ids = seat_numbers(seats)
    rng = np.random.default_rng(seed)
    w = None
    boot = {m: np.empty((draws, len(order))) for m in METRICS}
    jack: list[np.ndarray] = []
    spread_jack: list[np.ndarray] = []
    per_game: dict[str, list[np.ndarray]] = {m: [] for m in LINEAR}
    rows = []
    ref = None
    # Sets played by the same arms have the same games (a run that draws its buildings game by
    # game has many sets in one arm): their arrays and everything computed from the arrays alone
    # are computed once. Only the bootstrap draws are made set by set, in the same order.
    per_arm = _arm_games(seats, list(dict.fromkeys(a for names in arms.values() for a in names)),
                         seat_ids)
    summaries: dict[tuple[str, ...], _SetSummary] = {}
    diffs: dict[tuple[str, ...], tuple[float, float, float, float]] = {}
    for j, key in enumerate(order):  # one set's games at a time (and the reference set's)
        names = tuple(arms[key])
        if own is not None:  # drawn game by game: each arm's own games of this set
            names = tuple(f"{arm}\0{key}" for arm in own[key])
            for arm, ids in own[key].items():
                per_arm[f"{arm}\0{key}"] = per_arm[arm][per_arm[arm]["game_id"].isin(ids)]
        if names not in summaries:
            summaries[names] = _set_summary(_set_arrays(per_arm, list(names), seat_ids))
        s = summaries[names]
        d = s.arrays
        ref = d if ref is None else ref
        n = len(d["ids"])
        if w is None or not paired:  # paired: one draw of the games for every set
            w = _weights(rng, n, draws)
        death = w @ d["death"] if d["death"] is not None else None
        for m, v in _metrics(w @ d["won"], death, w @ d["no_winner"]).items():
            boot[m][:, j] = v
        jack.append(s.jackknife)
        for m in LINEAR:
            per_game[m].append(s.per_game[m])
        row: dict[str, Any] = {"building_set": key, "games": n, "arms": len(arms[key]),
                               **s.row}
        iv = stats.bca_interval(row["balance"], boot["balance"][:, j], jack[-1])
        row["balance_lo"], row["balance_hi"] = iv.lo, iv.hi
        spread_jack.append(s.spread_jackknife)
        row.update(s.spread)
        if d["death"] is not None:
            row.update(s.death)
            if j == 0:
                dd = (0.0, 0.0, 0.0, np.nan)
            elif names in diffs:
                dd = diffs[names]
            elif paired:
                r = stats.paired_difference(ref["death"], d["death"],
                                            bounds=stats.SHARE_DIFFERENCE)
                dd = diffs[names] = (r.mean, r.lo, r.hi, r.p_value)
            else:
                t = sps.ttest_ind(d["death"], ref["death"], equal_var=False)
                ci = t.confidence_interval()
                dd = diffs[names] = (float(d["death"].mean() - ref["death"].mean()), ci.low,
                                     ci.high, t.pvalue)
            row["death_diff"], row["death_diff_lo"], row["death_diff_hi"], row["death_p"] = dd
        rows.append(row)
    table = pd.DataFrame(rows)
    del d, ref, w, s, summaries, per_arm  # the (draws, games) weights before the next read
    choice = games.read(("variant", "building_*"))
    choices = choice.groupby("building_set", sort=False, observed=True)[
        [f"building_{c}" for c, _, _ in factors(choice)]].first()
    choices.index = choices.index.astype(str)
    table = table.merge(choices, left_on="building_set", right_index=True)
    return SetStatistics(table, boot, paired, jack, per_game, spread_jack)


def effects(table: pd.DataFrame, st: SetStatistics,
            facs: list[tuple[str, str, str]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Main effects of each class's choice and two-way interactions, with intervals and p-values.

    A contrast gives weight ``+1/|A|`` to each set of a group ``A`` and ``−1/|B|`` to each of
    ``B``. For the linear metrics (``LINEAR``) with paired sets it is computed game by game, so
    its interval is a paired t interval over games and its p-value the t-test; unpaired, a
    normal interval from the sets' own variances. For the seat spread² (``spread2``,
    ``stats.spread_variance``: unbiased, smooth) a jackknife normal interval and z-test (the
    jackknife of the contrast is the contrast of the sets' jackknives when the sets share their
    games). For the seat balance (``max − min``) a BCa bootstrap interval
    (``stats.bca_interval``) and the p-value that inverts it; max − min is biased upward, the
    more the fairer the set, so its contrasts are pulled toward 0 near fair sets, which no
    bootstrap interval undoes — the report shows ``spread2`` instead.

    Returns
    -------
    (DataFrame, DataFrame)
        Main effects ``class, reference, alternative, metric, effect, lo, hi, p_value`` and
        interactions ``class_a, class_b, metric, standard_effect, standard_lo, standard_hi,
        p_value, effect, lo, hi``: ``standard_effect`` is the standard 2^k interaction effect
        (mean over the sets where the two classes agree minus the mean over the others);
        ``effect``/``lo``/``hi`` are twice it (how much ``class_a``'s main effect changes when
        ``class_b`` switches to its alternative), as earlier reports gave it. Symmetric in the
        two classes.
    """
    x, point = _alternatives(table, facs), _points(table)
    inter = []
    for (a, _, _), (b, _, _) in itertools.combinations(facs, 2):
        agree = x[a] == x[b]
        for m in EFFECT_METRICS:
            est, lo, hi, p = _contrast(st, point, agree, ~agree, m)
            inter.append((a, b, m, est, lo, hi, p, 2 * est, 2 * lo, 2 * hi))
    return (class_effects(table, st, facs, False),
            pd.DataFrame(inter, columns=["class_a", "class_b", "metric", "standard_effect",
                                         "standard_lo", "standard_hi", "p_value", "effect",
                                         "lo", "hi"]))


def _alternatives(table: pd.DataFrame, facs: list[tuple[str, str, str]]) -> dict[str, np.ndarray]:
    """Per class of ``facs``, whether each set (a row of ``table``) uses its alternative."""
    return {c: (table[f"building_{c}"] == alt).to_numpy() for c, _, alt in facs}


def class_effects(table: pd.DataFrame, st: SetStatistics, facs: list[tuple[str, str, str]],
                  one_at_a_time: bool) -> pd.DataFrame:
    """Each class's effect (``_contrast``, with the intervals ``effects`` describes): the sets
    with its alternative minus those without (a main effect), or, ``one_at_a_time`` (a design
    of that name, ``set_design``), the set that changes that class minus the reference set,
    every other class at the reference's building (a simple effect; classes that no set changes
    are left out). Columns ``class, reference, alternative, metric, effect, lo, hi, p_value``."""
    x, point = _alternatives(table, facs), _points(table)
    ref = ~np.logical_or.reduce(list(x.values()))
    rows = [(c, r, alt, m, *_contrast(st, point, x[c], ref if one_at_a_time else ~x[c], m))
            for c, r, alt in facs if x[c].any() or not one_at_a_time for m in EFFECT_METRICS]
    return pd.DataFrame(rows, columns=["class", "reference", "alternative", "metric",
                                       "effect", "lo", "hi", "p_value"])


def _points(table: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per effect metric, the value of every set (a row of ``table``), in row order."""
    point = {m: table[m].to_numpy(float) if m in table else table["balance"].to_numpy() * np.nan
             for m in EFFECT_METRICS}
    point["first_seat"] = table["seat_0"].to_numpy(float)
    last = max(int(c[5:]) for c in table if c.startswith("seat_") and c[5:].isdigit())
    point["last_seat"] = table[f"seat_{last}"].to_numpy(float)
    return point


def _contrast(st: SetStatistics, point: dict[str, np.ndarray], pos: np.ndarray,
              neg: np.ndarray, m: str) -> tuple[float, float, float, float]:
    """``(estimate, lo, hi, p)`` of the mean of metric ``m`` over the sets ``pos`` minus its
    mean over the sets ``neg`` (boolean masks over the rows of ``st.table``), with the interval
    each metric takes (see ``effects``)."""
    if not pos.any() or not neg.any():
        return (np.nan,) * 4
    c = np.where(pos, 1 / pos.sum(), 0.0) - np.where(neg, 1 / neg.sum(), 0.0)
    est = float(point[m][pos].mean() - point[m][neg].mean())
    if m in LINEAR:
        return _linear_contrast(est, c, st.per_game[m], st.paired)
    if m == "spread2":
        jk = (np.column_stack(st.spread_jackknife) @ c if st.paired
              else [cj * j for cj, j in zip(c, st.spread_jackknife) if cj])
        iv, p = stats.jackknife_interval(est, jk)
        return (est, iv.lo, iv.hi, p)
    b = st.boot[m] @ c
    if np.isnan(b).all():
        return (est, np.nan, np.nan, np.nan)
    jack = (np.column_stack(st.jackknife) @ c if st.paired
            else [cj * (j - j.mean()) for cj, j in zip(c, st.jackknife) if cj])
    iv = stats.bca_interval(est, b, jack)
    return (est, iv.lo, iv.hi, stats.bca_p_value(est, b, jack))


def set_pairs(st: SetStatistics, arms: Mapping[str, Sequence[str]], asked: Sequence[str]
              ) -> list[dict[str, Any]]:
    """Each ``sets:A-B`` of ``asked`` (A, B: arm names or building-set ids of the run): the set
    of A minus the set of B in seat spread² (``_contrast``: a jackknife interval and z-test,
    paired by seed when the sets share their games), with their seat balance (max − min).
    ``arms``: the arms playing each set (``_set_layout``)."""
    ids = list(st.table["building_set"].astype(str))
    of = {**{a: s for s, names in arms.items() for a in names}, **{s: s for s in ids}}
    point = _points(st.table)
    out = []
    for key in dict.fromkeys(asked):
        family, _, rest = key.partition(":")
        pair = findings.split_pair(rest, of) if family == "sets" else None
        if pair is None or of[pair[0]] == of[pair[1]]:
            continue
        pos = np.array([s == of[pair[0]] for s in ids])
        neg = np.array([s == of[pair[1]] for s in ids])
        est, lo, hi, p = _contrast(st, point, pos, neg, "spread2")
        games = st.table["games"].to_numpy()
        out.append({"key": key, "a": pair[0], "b": pair[1], "set_a": of[pair[0]],
                    "set_b": of[pair[1]], "effect": est, "lo": lo, "hi": hi, "p_value": p,
                    "paired": st.paired, "games": int(min(games[pos][0], games[neg][0])),
                    "balance_a": float(point["balance"][pos][0]),
                    "balance_b": float(point["balance"][neg][0])})
    return out


def set_design(table: pd.DataFrame, facs: list[tuple[str, str, str]]) -> str:
    """The design the sets (rows of ``table``) form in the classes ``facs``
    (``findings.design``): ``"complete 2^k"``, ``"one class at a time"`` (the reference set and
    at least two sets that each change **one** class's building from it, as ``analyzer
    ablate``'s leave-one-out variants: each class's effect is that set minus the reference, no
    interaction is estimable) or ``"incomplete"``."""
    return findings.design(zip(*_alternatives(table, facs).values()))


def _linear_contrast(est: float, c: np.ndarray, per_game: list[np.ndarray],
                     paired: bool) -> tuple[float, float, float, float]:
    """Interval and p-value of the contrast ``Σ c_s · mean_s`` of a metric that is a mean over
    games: a paired t interval and t-test of the per-game contrasts when the sets share their
    games, else a normal interval with the sets' own variances (``Σ c_s² s_s² / n_s``)."""
    if any(np.isnan(v).all() for v, cj in zip(per_game, c) if cj):
        return (np.nan,) * 4
    if paired:
        values = np.column_stack([v for v, cj in zip(per_game, c) if cj]) @ c[c != 0]
        d = stats.paired_difference(np.zeros(values.size), values)
        return (est, d.lo, d.hi, d.p_value)
    var = sum(cj * cj * np.var(v, ddof=1) / v.size for v, cj in zip(per_game, c) if cj)
    se = float(np.sqrt(var))
    p = float(2 * sps.norm.sf(abs(est) / se)) if se > 0 else (0.0 if est else 1.0)
    return (est, est - stats.Z95 * se, est + stats.Z95 * se, p)


def _correct_effects(frame: pd.DataFrame, method: str) -> pd.DataFrame:
    """``frame`` (main effects or interactions) with ``p_adjusted``/``significant_adjusted``,
    each metric (a column of the report's table) corrected over its rows, and the
    ``value_unit`` of its numbers (a share, the seat spread² a squared one)."""
    if frame.empty:
        return frame
    parts = [stats.correct(grp, method) for _, grp in frame.groupby("metric", sort=False)]
    out = pd.concat(parts).sort_index()
    return out.assign(value_unit=[SQUARED if m == "spread2" else SHARE for m in out["metric"]])


def _effect(metric: str, e: float, lo: float, hi: float, significant: bool) -> str:
    """An effect for the tables: pp, or pp² for the seat spread² (``value_text``; ``"–"`` when
    missing)."""
    unit, scale = ("pp²", 1e4) if metric == "spread2" else ("pp", 100)
    star = " *" if significant and not np.isnan(e) else ""
    return value_text(e, lo, hi, unit, scale, 1, True) + star


def _short(name: str) -> str:
    return name.replace("_", " ")


def first_game_set() -> str:
    """The rulebook's recommended first-game buildings (``[first_game]`` of the built-in
    ``data/components.toml``, docs/rules/cartus.md §1) as a ``building_set`` id."""
    return building_set_id(_components(None, 4, [])["first_game"])


def reference_text(reference: str) -> str:
    """The reference set in words: its buildings (``building_set`` id, ``+``-joined), and
    whether it is the rulebook's first-game set — said only when it is."""
    if not reference:
        return "(not recorded)"
    names = ", ".join(_short(b) for b in reference.split("+"))
    return names + (" — the rulebook's first-game set" if reference == first_game_set()
                    else " (a set of this study, not the rulebook's first-game set)")


def building_sets_numbers(games: Table | pd.DataFrame, seats: Table | pd.DataFrame,
                          players: int, run: Mapping[str, Any] | None) -> dict | None:
    """The building-set section's numbers for ``summary.json``: the ranked ``sets`` table
    (``set_statistics``, its imbalance and death-difference p-values corrected over the sets as
    the run's study asks, Holm by default), the ``noise_floor`` of max − min (a share), the
    ``design`` and, by design, ``main_effects`` and ``interactions`` or ``simple_effects``
    (``effects``, ``class_effects``, corrected per metric); each ``sets:A-B`` question of
    ``run`` under ``pairs`` (``set_pairs``, absent when none is asked). ``None`` when the
    records hold fewer than two sets (``active``). docs/rules/cartus.md §3.

    Reads the seat records once (``SET_SEATS``) and keeps per arm only its per-game arrays;
    games ``variant, game_id, building_*``.
    """
    games, seats = as_table(games), as_table(seats)
    lay = layout(games)
    if lay is None:
        return None
    method, facs = correction_of(run), lay.factors
    asked = [str(q.get("finding")) for q in (run or {}).get("questions") or []]
    st = set_statistics(games, seats)
    table = st.table
    pairs = set_pairs(st, {} if lay.drawn is not None else lay.arms, asked)
    has_death = "death" in table
    for name in ("imbalance", *(["death"] if has_death else [])):
        table[f"{name}_p_adj"], table[f"{name}_sig"] = stats.adjust_pvalues(
            table[f"{name}_p"].to_numpy(), method)
    # main effects are only balanced contrasts when every combination of the varying classes is
    # present exactly once (a full 2^k factorial); otherwise a class's choice is confounded
    design = set_design(table, facs)
    found: dict[str, Any] = {"main_effects": [], "interactions": []}
    if design == "complete 2^k":
        main, inter = effects(table, st, facs)  # before sorting: boot columns follow rows
        found = {"interaction_effect": "standard 2^k",
                 "main_effects": rows_of(_correct_effects(main, method)),
                 "interactions": rows_of(_correct_effects(inter, method))}
    elif design == "one class at a time":
        simple = class_effects(table, st, facs, True)
        found["simple_effects"] = rows_of(_correct_effects(simple, method))
    paired = st.paired
    del st
    table = table.sort_values(["balance", "death" if has_death else "no_winner"]).reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    floor = spread_noise_floor(int(table["games"].median()), players,
                               float(table["no_winner"].mean()))
    return {"paired": paired, **({"pairs": pairs} if pairs else {}),
            "correction": method, "noise_floor": floor, "sets": rows_of(table),
            "arms": len(games.variants()), "design_complete": design == "complete 2^k",
            "design": design, **found, PER_GAME_KEY: {"write": lay}}


def building_sets_write(doc: Doc, numbers: Mapping[str, Any], run: Mapping[str, Any]) -> None:
    """Fill the building-set section (ranked table, main or simple effects, interactions, heat
    maps) from ``numbers`` (``building_sets_numbers``) and the records' ``SetLayout`` it carries
    under ``_per_game``. ``run`` is not read."""
    lay = numbers[PER_GAME_KEY]["write"]
    table, facs, drawn = pd.DataFrame(numbers["sets"]), lay.factors, lay.drawn
    method, paired, floor = numbers["correction"], numbers["paired"], numbers["noise_floor"]
    has_death = "death" in table
    n_sets, n_games = len(table), int(table["games"].median())
    n_arms, mname = numbers["arms"], CORRECTION_SHORT[method]

    doc.h("Building sets: which selections are balanced")
    doc.p(f"{n_sets} distinct building selections"
          + ((f", drawn game by game (each in at least {MIN_DRAWN_GAMES} games)"
              if n_sets == drawn else
              f", drawn game by game: the {n_sets} of the {drawn} drawn in at least "
              f"{MIN_DRAWN_GAMES} games each (the others are left out)")
             if drawn is not None else "")
          + (f" from {n_arms} arms (arms with the same selection play the same seeds, so their "
             "games are averaged seed by seed — one observation per seed, not pooled as if "
             "independent)" if n_arms != n_sets and drawn is None else "")
          + f", {n_games} games each (median)"
          + (" on the **same game seeds** (paired)." if paired else " (not on shared seeds).")
          + " Reference set (" + ("the first set compared" if drawn is not None else
                                  "the base arm's buildings")
          + f"): {reference_text(lay.reference)}. "
          "A set is described by the buildings it uses **instead of** the reference set's.")
    doc.p("**How the ranking is computed.** For every set, each seat's win rate is its share of "
          "all the set's games (a game where everyone died has no winner and counts as a loss for "
          "every seat). The set's **seat balance** is the highest minus the lowest seat win rate; "
          "sets are ranked from the smallest (most balanced) up, ties broken by the lower death "
          f"rate. Even a perfectly fair set shows about {100 * floor:.1f} pp of max − min with "
          f"{n_games} games by chance alone, so differences of that size mean nothing.")
    doc.p(f"**What the intervals and flags mean.** `[lo, hi]` of the death rate is a 95% Wilson "
          "interval at the effective number of games (the seats of one game die together more "
          "often than independent seats would). The balance column has no interval (max − min "
          "is biased upward by chance, see above; its BCa bootstrap interval is in "
          "`summary.json`); whether a set is really unbalanced is the `unbalanced` flag. "
          f"`unbalanced` marks a set whose seats do not win equally often (chi-square test over "
          f"the seats' wins) after **{mname} correction** for testing {n_sets} sets at once "
          f"(family-wise 5 %{'' if method == 'holm' else ' false-discovery rate'}); "
          "`Δ death` is the death rate minus the reference set's"
          + (" on the same seeds (paired t over games)" if paired else " (Welch t test)")
          + f", `*` after {mname} correction over the {n_sets - 1} other sets. Without the "
          f"correction about {0.05 * n_sets:.1f} of {n_sets} fair sets would be flagged by "
          "chance.")
    changes = [", ".join(_short(a) for c, _, a in facs if r[f"building_{c}"] == a)
               for _, r in table.iterrows()]
    view = pd.DataFrame({"rank": table["rank"],
                         "set (instead of reference)": [c or "(reference set)" for c in changes]})
    for c in [c for c in table if c.startswith("seat_") and c[5:].isdigit()]:
        view[f"seat {c[5:]}"] = [f"{100 * v:.1f} %" for v in table[c]]
    # no interval here: max − min is biased upward, its interval need not contain it
    view["balance"] = [f"{100 * b:.1f} pp" for b in table["balance"]]
    view["unbalanced"] = ["yes" if s else "" for s in table["imbalance_sig"]]
    view[f"p ({mname})"] = [p_text(p) for p in table["imbalance_p_adj"]]
    if has_death:
        view["death rate"] = cells(table, pct, "death")
        view["Δ death"] = ["–" if np.isnan(p) else f"{100 * d:+.1f} pp" + (" *" if s else "")
                           for d, p, s in zip(table["death_diff"], table["death_p"],
                                              table["death_sig"])]
    view["no winner"] = [f"{100 * v:.1f} %" for v in table["no_winner"]]
    doc.table(view)
    n_unb = int(table["imbalance_sig"].sum())
    doc.p(f"{n_unb} of {n_sets} sets are flagged unbalanced after {mname} correction; the "
          "order among the others is mostly chance (their balance is near the chance floor)"
          + (f"; {int(table['death_sig'].sum())} differ in death rate from the reference set."
             if has_death else "."))

    doc.h("Building choices: main effects and interactions")
    k = len(facs)
    metrics = [m for m in EFFECT_METRICS if m != "balance" and (has_death or m != "death")]
    ofat = numbers["design"] == "one class at a time"
    if not ofat and not numbers["design_complete"]:
        combos = {tuple(r) for r in
                  table[[f"building_{c}" for c, _, _ in facs]].itertuples(index=False)}
        doc.p(f"Not shown: main effects and interactions need a complete design, every "
              f"combination of the classes that vary present once ({k} class"
              f"{'es' if k != 1 else ''} vary with two buildings each: 2^{k} = {2 ** k} "
              f"selections), so that each class's choice is balanced over the others. These "
              f"{n_sets} selections cover {len(combos)} of them"
              + (" (and some classes vary over more than two buildings)"
                 if len(table) != len(combos) else "")
              + ", so a class's effect cannot be told apart from the other classes' changes. "
              "Compare the selections in the table above instead.")
        return
    main = pd.DataFrame(numbers["simple_effects" if ofat else "main_effects"])
    n_classes = main["class"].nunique() if ofat else k  # one at a time: the classes changed
    intro = (f"One class at a time: besides the reference set, each of these {n_classes} "
             "selections changes the building of **one** class (as `analyzer ablate` builds "
             "them). A class's effect is that selection minus the reference set, every other "
             "class at the reference set's building — a simple effect, not a main effect "
             "averaged over the other classes: with other buildings in the other classes it may "
             "differ. **Interactions** need selections that change two classes at once; there "
             "are none here, so no interaction is estimable (a full 2^k design, like "
             "`scenarios/cartus-building-sets.toml`, gives main effects and interactions). "
             if ofat else
             "Main effect of a class's choice: the mean over the sets that use the alternative "
             "building minus the mean over the sets that use the reference building, the other "
             f"classes averaged over (in this full 2^{k} design every combination of the other "
             f"{k - 1} classes appears equally on both sides). ")
    balance = (" The max − min balance of the ranking is left out (biased upward by chance, the "
               "more the fairer the set; its differences are in `summary.json`). " if ofat else
               " (The max − min balance of the ranking is biased upward by chance, the more the "
               "fairer the set, so its differences between sets shrink toward 0 near fair sets; "
               "its effects, with BCa bootstrap intervals, are in `summary.json` only.) ")
    doc.p(intro + SPREAD2_TEXT + balance
          + "95% intervals: seat spread² from the jackknife over games; shares and win rates "
          + ("from the per-game contrast, paired t over games (the sets share their seeds)."
             if paired else "normal, from each set's own variance over its games (the sets "
             "do not share their seeds, so nothing is paired).")
          + f" `*` = significant after {mname} correction over the {n_classes} classes of each "
          "column.")
    doc.table(pd.DataFrame(_effect_rows(main, metrics)))
    caption = ("Effect of each building choice against the reference set, the other classes "
               "at the reference's buildings: death rate" if ofat else
               "Main effect of each building choice on the death rate")
    title = ("Effect of each building choice (one class at a time)" if ofat else
             "Main effects of the building choices")
    doc.chart(f"building_{'simple' if ofat else 'main'}_effects.png", caption + " and the start "
              "and last seats' win rates (pp, 95% intervals).",
              lambda ax: _plot_effects(ax, main, facs, has_death, title), size=(7.0, 4.0))
    if ofat:
        return
    inter = pd.DataFrame(numbers["interactions"])
    n_pairs = k * (k - 1) // 2
    if n_pairs == 0:
        doc.p("One class varies, so there is no interaction to estimate.")
    else:
        shown = min(TOP_INTERACTIONS, n_pairs)
        which = ("The one class pair is shown" if n_pairs == 1 else
                 f"All {n_pairs} class pairs per metric are shown" if shown == n_pairs else
                 f"Only the {shown} largest (by |effect|) of the {n_pairs} class pairs per "
                 "metric are shown; all are in `summary.json`")
        doc.p("Two-way interactions, the standard 2^k interaction effect: the mean over the "
              "sets where the two classes agree (both reference or both alternative building) "
              "minus the mean over the sets where they differ — half the change of one class's "
              "main effect when the other class also switches to its alternative, as in any "
              f"textbook 2^k design table. {which}. 95% intervals as for the main effects; `*` "
              f"= significant after {mname} correction over all {n_pairs} pair"
              f"{'s' if n_pairs != 1 else ''} of the metric"
              + (" (not only the ones shown)." if shown < n_pairs else "."))
        doc.table(pd.DataFrame(_interaction_rows(inter, shown, has_death)))
    if len(facs) == 6 and n_sets == 64:
        doc.chart("building_sets_balance.png",
                  "Seat balance (max − min seat win rate, pp) of every selection: a row names "
                  "the buildings chosen for the first three classes, a column those for the "
                  f"last three; {HEAT_NOTE} (a fairer selection).",
                  lambda ax: _plot_heat(ax, table, facs, "balance", "seat balance [pp]"),
                  size=(9.5, 8.5))
        if has_death:
            doc.chart("building_sets_death.png",
                      f"Death rate (% of seats) of every selection, same layout; {HEAT_NOTE} "
                      "(fewer deaths).",
                      lambda ax: _plot_heat(ax, table, facs, "death", "death rate [%]"),
                      size=(9.5, 8.5))


SPREAD2_TEXT = (
    "**Seat spread²** measures how unequal the seats are: the variance of the seat win rates "
    "with the part chance adds taken out (pp²; 25 pp² is the variance of seat rates 5 pp either "
    "side of their mean), so it has no bias and its differences are not pulled toward 0; "
    "positive = the alternative makes seats **less** equal.")


def _effect_rows(frame: pd.DataFrame, metrics: list[str]) -> list[dict[str, str]]:
    """One table row per class of a main- or simple-effect frame (``effects``,
    ``simple_effects`` after ``_correct_effects``): its choice and an effect per metric."""
    rows = []
    for (c, ref, alt), grp in frame.groupby(["class", "reference", "alternative"], sort=False):
        r = {"class": c, "choice": f"{_short(alt)} instead of {_short(ref)}"}
        for m in metrics:
            e = grp[grp["metric"] == m].iloc[0]
            r[LABELS[m]] = _effect(m, e["effect"], e["lo"], e["hi"], e["significant_adjusted"])
        rows.append(r)
    return rows


def _interaction_rows(inter: pd.DataFrame, shown: int, has_death: bool) -> list[dict[str, str]]:
    """The ``shown`` largest interactions (by |standard effect|) of the seat spread² and the
    death rate, as table rows."""
    rows = []
    for m in ("spread2", "death") if has_death else ("spread2",):
        sub = inter[inter["metric"] == m].copy()
        sub = sub.reindex(sub["standard_effect"].abs().sort_values(ascending=False).index)
        for r in sub.head(shown).to_dict("records"):
            rows.append({"metric": LABELS[m], "classes": f"{r['class_a']} × {r['class_b']}",
                         "interaction (standard effect)":
                         _effect(m, r["standard_effect"], r["standard_lo"], r["standard_hi"],
                                 r["significant_adjusted"])})
    return rows


def _plot_effects(ax, main: pd.DataFrame, facs, has_death: bool, title: str) -> None:
    """Horizontal error bars of the main (or simple) effects (pp), one row per class: death
    rate (when recorded) and the first and last seats' win rates."""
    ms = (["death"] if has_death else []) + ["first_seat", "last_seat"]
    y = np.arange(len(facs))
    for j, m in enumerate(ms):
        sub = main[main["metric"] == m].set_index("class").reindex([c for c, _, _ in facs])
        e = 100 * sub["effect"].to_numpy(float)
        err = charts.error_bars(e, 100 * sub["lo"].to_numpy(float), 100 * sub["hi"].to_numpy(float))
        ax.errorbar(e, y + (j - 0.5 * (len(ms) - 1)) * 0.2, xerr=err, fmt="o", capsize=3,
                    label=LABELS[m])
    ax.axvline(0, color="grey", linewidth=1)
    ax.set_yticks(y, [f"{_short(alt)} vs {_short(ref)}" for _, ref, alt in facs])
    ax.set_xlabel("effect of the alternative [percentage points]")
    ax.set_title(title)
    charts.legend(ax)


HEAT_NOTE = "lower is better: lighter cells"  # viridis_r: the smallest values are lightest


def _plot_heat(ax, table: pd.DataFrame, facs, metric: str, label: str) -> None:
    """8×8 heat map of ``metric`` (×100) over the 64 selections: a row is the buildings chosen
    for the first three classes of ``facs``, a column those of the last three; ticks name the
    buildings, the colour bar says which end is better (lower, lighter)."""
    rows_f, cols_f = facs[:3], facs[3:]
    combos = list(itertools.product((0, 1), repeat=3))
    bits = np.array(list(_alternatives(table, facs).values()), dtype=int)  # (classes, sets)
    grid = np.full((8, 8), np.nan)  # a set's row (column): its first (last) 3 choices in binary
    grid[[4, 2, 1] @ bits[:3], [4, 2, 1] @ bits[3:]] = 100 * table[metric].to_numpy(float)
    im = ax.imshow(grid, cmap="viridis_r")
    ax.figure.colorbar(im, ax=ax, label=f"{label} ({HEAT_NOTE})")
    for i, j in zip(*np.nonzero(~np.isnan(grid))):
        ax.text(j, i, f"{grid[i, j]:.1f}", ha="center", va="center", fontsize=7,
                color="white" if grid[i, j] > np.nanmean(grid) else "black")

    def tick(fs, combo):
        return " / ".join(_short(a if v else r) for (_, r, a), v in zip(fs, combo))

    ax.set_xticks(range(8), [tick(cols_f, c) for c in combos], rotation=90, fontsize=7)
    ax.set_yticks(range(8), [tick(rows_f, c) for c in combos], fontsize=7)
    ax.set_xlabel("buildings of " + " / ".join(c for c, _, _ in cols_f), fontsize=8)
    ax.set_ylabel("buildings of " + " / ".join(c for c, _, _ in rows_f), fontsize=8)
    ax.set_title(label + " per building selection")


# the units of the section's numbers (``analyzer.report.units``)
UNITS = (("arms", "arms"), ("sets[].arms", "arms"), ("sets[].rank", "rank"),
         ("sets[].games", "games"), ("sets[].spread2*", SQUARED), ("sets[].*", SHARE),
         ("noise_floor", SHARE), ("*effects[].*", "@value_unit"),
         ("interactions[].*", "@value_unit"))
SECTIONS = (StudySection("building_sets", building_sets_numbers, building_sets_write, replaces_balance=active,
                         findings=findings.building_sets, key_patterns=(
                             *(k for k, _, _ in findings.KEYS), "effects:*"), plan=findings.plan,
                         units=UNITS),)
