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

from analyzer.report.findings import Finding


def _source(column: str) -> str:
    """A goods column as words: ``goods_slave_driver`` -> ``slave driver``."""
    return column.removeprefix("goods_").replace("_", " ")


def _absent(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


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


def pyramidion(numbers: Mapping[str, Any], run: Mapping[str, Any]) -> list[Finding]:
    """Findings of the baseline study (see the module docstring)."""
    out = []
    guessed = _defaults(run)
    for r in numbers.get("head_to_head", []):
        if not _absent(r.get("mirror_of")) or _absent(r.get("diff")):
            continue  # with two policies one's lead is the other's lag: the same test
        out.append(Finding(
            f"In `{r['variant']}`, `{r['policy']}` wins {100 * r['rate']:.1f} % per seat against "
            f"the other seats' {100 * r['others']:.1f} % in the same games: {{value}}",
            r["diff"], r["lo"], r["hi"], "pp", 100, 1, True, 0.0, p_value=r.get("p_value"),
            games=int(r["games"]), key=f"head_to_head:{r['variant']}:{r['policy']}"))
    ends = numbers.get("ends") or {}
    arm = ends.get("variant", "base")
    n_games = int(sum((ends.get("ends") or {}).values()))
    model = [r for r in numbers.get("goods_model", []) if not _absent(r.get("odds_ratio"))]
    if model:
        top = max(model, key=lambda r: r["odds_ratio"])
        out.append(Finding(
            f"Of the goods sources, {_source(top['source'])} goes with the largest odds of "
            f"winning in `{arm}`: each extra good multiplies the odds by {{value}}, the other "
            "sources held fixed (conditional logit within games; an association, not a cause)"
            + _source_note(top["source"], guessed), top["odds_ratio"], top["lo"], top["hi"], "", 1, 2,
            null=1.0, log=True, p_value=top.get("p_value"), games=n_games, key="goods:strongest_source"))
    goods = [r for r in numbers.get("goods", []) if not _absent(r.get("diff"))]
    if goods:
        gap = max(goods, key=lambda r: r["diff"])
        out.append(Finding(
            f"Winners in `{arm}` are furthest ahead on {_source(gap['source'])} goods: {{value}} "
            "per game more than the other seats of the same game" + _source_note(gap["source"], guessed),
            gap["diff"], gap["lo"], gap["hi"], "goods", 1, 2, True, 0.0, games=n_games,
            key="goods:largest_gap"))
    sites = [r for r in numbers.get("sites", []) if r.get("variant") == arm and r.get("rank") == 1
             and not _absent(r.get("contest"))]
    if sites:
        s = sites[0]
        guessed_site = f"site.{s['site']}" in guessed
        out.append(Finding(
            f"The most contested site in `{arm}` is {s['site'].replace('_', ' ').title()}: "
            "{value} play cards there per activation"
            + (_note("its production, minimums and ability are") if guessed_site else ""),
            s["contest"], s["lo"], s["hi"], "seats", 1, 2, games=n_games, key="sites:most_contested"))
    first = ends.get("first_to_target_won") or {}
    if ends.get("first_to_target_games") and not _absent(first.get("estimate")):
        out.append(Finding(
            f"The seat that first reaches the VP target wins {{value}} of the "
            f"{ends['first_to_target_games']} games of `{arm}` with such a seat",
            first["estimate"], first["lo"], first["hi"], "%", 100, 1,
            games=int(ends["first_to_target_games"]), key="ends:first_to_target"))
    return out
