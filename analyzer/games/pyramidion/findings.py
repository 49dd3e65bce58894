"""Pyramidion's key findings: the headline numbers of its baseline study (``study.py``) as
sentences for the top of the report (``analyzer/report/findings.py``).

From the numbers the section returned: each policy against the other seats of the same games
(head to head), the goods source that goes with the largest odds of winning (conditional logit)
and the one winners are furthest ahead on (docs/rules/pyramidion.md §5 phases 3, 5 and 7), the
most contested site (§5 phase 5, §7) and how often the first seat to reach the VP target wins
(§6).

A sentence about a goods source or a site whose rule values are labelled defaults in this run
(the guessed site, distribution, revolt-tile and special-card tables of §7, §5 phase 2, §8 and
§10.2, the phase-8 benefit of §5 phase 8) says so, the way the Cartus findings name ``magic_b``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from analyzer import stats
from analyzer.report.findings import Finding, missing


def _source(column: str) -> str:
    """A goods column as words: ``goods_slave_driver`` -> ``slave driver``."""
    return column.removeprefix("goods_").replace("_", " ")


# What each goods source rests on that no source gives: (the rule-value name prefixes whose
# labelled defaults it uses, a few words naming them); an empty prefix tuple: always guessed.
GUESSED_SOURCE: dict[str, tuple[tuple[str, ...], str]] = {
    "goods_merchant": (("site.", "distribution."), "the sites' minimums and goods per round are"),
    "goods_negotiator": (("site.", "distribution."), "the sites' minimums and goods per round are"),
    "goods_slave_driver": (("site.",), "the sites' minimums and goods are"),
    "goods_phase8": ((), "the phase-8 benefit (the rules give its content nowhere) is"),
    "goods_revolt": (("revolt_tile.",), "the revolt tiles' strengths and goods are"),
    "goods_special": (("card.common.thief", "card.common.bandit", "card.common.stone_dragger", "site."),
                      "the special cards' effects and Cairo's conversion are"),
}


def _defaults(run: Mapping[str, Any]) -> set[str]:
    """Names of the rule values that are labelled defaults in this run (any arm)."""
    return {d["name"] for values in (run.get("defaults") or {}).values() for d in values}


def _note(what: str) -> str:
    return f" — {what} guessed (labelled defaults, not sourced)"


def _source_note(column: str, guessed: set[str]) -> str:
    """The note for a finding about goods source ``column`` when it rests on guessed values."""
    prefixes, what = GUESSED_SOURCE.get(column, (None, ""))
    if prefixes is None or (prefixes and not any(n.startswith(prefixes) for n in guessed)):
        return ""
    return _note(what)


def _selected(rows: list[dict], estimate: str, log: bool) -> tuple[dict, float, float, float]:
    """``(row, p, lo, hi)`` of the row with the largest ``estimate`` among ``rows``, corrected for
    having been picked among ``k = len(rows)``: the Bonferroni p-value ``min(1, k·p)`` and the
    ``1 − 0.05/k`` interval (on the log scale for a ratio). Bonferroni's intervals cover all
    ``k`` values at once with 95 % probability, so they cover the picked one whichever is
    picked — the test of the selection (a max-type statistic's bound)."""
    from scipy import stats as sps

    k = len(rows)
    top = max(rows, key=lambda r: r[estimate])
    zk = float(sps.norm.ppf(1 - 0.025 / k))
    est, lo, hi = top[estimate], top["lo"], top["hi"]
    if log:
        e, a, b = math.log(est), math.log(lo), math.log(hi)
        se = stats.interval_se(a, b)
        lo, hi = math.exp(e - zk * se), math.exp(e + zk * se)
    else:
        se = stats.interval_se(lo, hi)
        lo, hi = est - zk * se, est + zk * se
    p = top.get("p_value")
    p = math.nan if missing(p) else min(1.0, k * float(p))
    return top, p, lo, hi


def pyramidion(numbers: Mapping[str, Any], run: Mapping[str, Any]) -> list[Finding]:
    """Findings of the baseline study (see the module docstring). A finding about an item
    the run chose (the strongest goods source, the largest goods gap, the most contested site)
    names its item, carries every candidate's value (for ``analyzer robustness`` to compare the
    same item) and says it was selected; the tested ones are corrected for the selection."""
    out = []
    guessed = _defaults(run)
    per_game = numbers.get("_per_game") or {}
    for r in numbers.get("head_to_head", []):
        if not missing(r.get("mirror_of")) or missing(r.get("diff")):
            continue  # with two policies one's lead is the other's lag: the same test
        key = head_to_head_key(r["variant"], r["policy"])
        out.append(Finding(
            f"In `{r['variant']}`, `{r['policy']}` wins {100 * r['rate']:.1f} % per seat against "
            f"the other seats' {100 * r['others']:.1f} % in the same games: {{value}}",
            r["diff"], r["lo"], r["hi"], "pp", 100, 1, True, 0.0, p_value=r.get("p_value"),
            games=int(r["games"]), example_variant=r["variant"], key=key,
            t_df=int(r["games"]) - 1, per_game=per_game.get(key)))
    ends = numbers.get("ends") or {}
    arm = ends.get("variant", "base")
    n_games = int(sum((ends.get("ends") or {}).values()))
    model = [r for r in numbers.get("goods_model", []) if not missing(r.get("odds_ratio"))]
    if model:
        top, p, lo, hi = _selected(model, "odds_ratio", log=True)
        k = len(model)
        out.append(Finding(
            f"Of the {k} goods sources, {_source(top['source'])} goes with the largest odds of "
            f"winning in `{arm}`: each extra good multiplies the odds by {{value}}, the other "
            "sources held fixed (conditional logit within games; an association, not a cause; "
            f"picked as the largest of the {k}, so its interval and p are Bonferroni-corrected "
            f"over the {k}: 1 − 0.05/{k} interval, p × {k})"
            + _source_note(top["source"], guessed), top["odds_ratio"], lo, hi, "", 1, 2,
            null=1.0, log=True, p_value=p, games=n_games, key="goods:strongest_source",
            item=top["source"],
            items={r["source"]: (r["odds_ratio"], r["lo"], r["hi"]) for r in model}))
    goods = [r for r in numbers.get("goods", []) if not missing(r.get("diff"))]
    if goods:
        gap, p, lo, hi = _selected(goods, "diff", log=False)
        k = len(goods)
        out.append(Finding(
            f"Winners in `{arm}` are furthest ahead on {_source(gap['source'])} goods: {{value}} "
            "per game more than the other seats of the same game (picked as the largest of the "
            f"{k} sources, so its interval and p are Bonferroni-corrected over the {k})"
            + _source_note(gap["source"], guessed),
            gap["diff"], lo, hi, "goods", 1, 2, True, 0.0, p_value=p, games=n_games,
            key="goods:largest_gap", item=gap["source"],
            items={r["source"]: (r["diff"], r["lo"], r["hi"]) for r in goods},
            item_values={r["source"]: per_game[f"goods_gap:{r['source']}"] for r in goods
                         if f"goods_gap:{r['source']}" in per_game}))
    sites = [r for r in numbers.get("sites", []) if r.get("variant") == arm
             and not missing(r.get("contest"))]
    s = next((r for r in sites if r.get("rank") == 1), None)
    if s is not None:
        out.append(Finding(
            f"The most contested site in `{arm}` is {s['site'].replace('_', ' ').title()} (picked "
            f"as the highest of {len(sites)} sites): "
            "{value} play cards there per activation"
            + (_note("its production, minimums and ability are")
               if f"site.{s['site']}" in guessed else ""),
            s["contest"], s["lo"], s["hi"], "seats", 1, 2, games=n_games, key="sites:most_contested",
            item=s["site"], items={r["site"]: (r["contest"], r["lo"], r["hi"]) for r in sites}))
    first = ends.get("first_to_target_won") or {}
    if ends.get("first_to_target_games") and not missing(first.get("estimate")):
        out.append(Finding(
            f"The seat that first reaches the VP target wins {{value}} of the "
            f"{ends['first_to_target_games']} games of `{arm}` with such a seat",
            first["estimate"], first["lo"], first["hi"], "%", 100, 1,
            games=int(ends["first_to_target_games"]), key="ends:first_to_target"))
    return out


# ------------------------------------------------------------------ the keys before play

#: the keys the baseline study's findings make in every run, with meaning and unit (``plan``)
KEYS = (("goods:strongest_source", ("the goods source with the largest odds ratio of winning "
                                    "(picked as the largest; docs/rules/pyramidion.md §6)"),
         "odds ratio"),
        ("goods:largest_gap", ("the goods source winners are furthest ahead on: winners minus "
                               "the others, goods per game"), "goods"),
        ("sites:most_contested", ("the most contested building site: seats contesting it per "
                                  "game (a figure)"), "seats"),
        ("ends:first_to_target", ("share of the games ended by a seat reaching the target first "
                                  "(a figure)"), "%"))


def head_to_head_key(variant: str, policy: str) -> str:
    """The key of ``policy``'s win share against the other seats in ``variant``."""
    return f"head_to_head:{variant}:{policy}"


def plan(arms: Any) -> tuple[list[tuple[str, str, str]], str]:
    """The keys the baseline study will make for ``arms`` (``report.extension.PlanArm``) as
    ``(key, meaning, unit)``: ``KEYS``, and per arm seating several policies each policy's
    head-to-head key — with two, only the first by name (the other's is the same test,
    ``stats.mirrors``)."""
    out = list(KEYS)
    for arm in arms:
        pols = sorted(set(arm.policies))
        for pol in pols[:1] if len(pols) == 2 else pols if len(pols) > 2 else ():
            out.append((head_to_head_key(arm.name, pol),
                        (f"in {arm.name}, {pol}'s win share per seat minus the other seats' in "
                         "the same games (paired within games)"), "pp"))
    return out, ""
