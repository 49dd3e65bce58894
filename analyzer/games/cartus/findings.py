"""Rattus Cartus's key findings: the headline numbers of its building-set section
(``study.py``) as sentences for the top of the report (``analyzer/report/findings.py``).

From the numbers the section returned: the most balanced building selection (a figure), the
least balanced one (its chi-square test that every seat wins equally often) and, where the
design estimates them, the building choice with the clearest effect on the seat spread² and on
the death rate (docs/rules/cartus.md §3). A sentence about a building whose rule values are
labelled defaults (a guessed building such as ``magic_b``) says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from analyzer.report.extension import PlannedKey
from analyzer.report.findings import Finding

EFFECTS = {"spread2": ("the seat spread² (variance of the seat win rates without chance's part)",
                       1e4, "pp²"),
           "death": ("the death rate", 100, "pp")}


def _guessed(run: Mapping[str, Any]) -> set[str]:
    """Buildings with a labelled-default rule value in this run (``building.<name>``)."""
    names = {d["name"] for values in (run.get("defaults") or {}).values() for d in values}
    return {n.partition(".")[2] for n in names if n.startswith("building.")}


def _note(buildings: list[str], guessed: set[str]) -> str:
    hit = [b for b in buildings if b in guessed]
    if not hit:
        return ""
    return (" — " + ", ".join(f"`{b}`" for b in hit) + (" is a" if len(hit) == 1 else " are")
            + " guessed building" + ("" if len(hit) == 1 else "s")
            + " (labelled default, not sourced)")


def _set(name: str) -> str:
    return ", ".join(f"`{b}`" for b in name.split("+"))


def _choice(row: Mapping[str, Any]) -> str:
    """A building choice's name as an item: ``"CLASS: ALTERNATIVE vs REFERENCE"``."""
    return f"{row['class']}: {row['alternative']} vs {row['reference']}"


def _flagged(row: Mapping[str, Any]) -> bool:
    """A set flagged unbalanced: its seats' win rates differ after the section's correction
    over the sets (``imbalance_sig``; else its corrected p below 5 %)."""
    if row.get("imbalance_sig") is not None:
        return bool(row["imbalance_sig"])
    p = row.get("imbalance_p_adj", row.get("imbalance_p"))
    return p is not None and not math.isnan(p) and p < 0.05


def _smallest(best: Mapping[str, Any], sets: list[Mapping[str, Any]], chance: str) -> str:
    """The sentence of the set with the smallest seat spread: "the most balanced" only when it
    is not flagged unbalanced (issue #34: a flagged set is never called balanced)."""
    spread = (f"seat win rates {{value}} apart (max − min over {best['games']} games{chance})")
    if not _flagged(best):
        return (f"The most balanced of the {len(sets)} building sets is "
                f"{_set(best['building_set'])}: {spread}")
    test = ("flagged unbalanced: chi-square that every seat wins equally often, corrected over "
            "the sets")
    if all(_flagged(r) for r in sets):
        return (f"None of the {len(sets)} building sets is balanced (all {test}); the smallest "
                f"seat spread is {_set(best['building_set'])}'s: {spread}")
    return (f"The building set with the smallest seat spread, {_set(best['building_set'])}, is "
            f"{test}: {spread}")


def building_sets(numbers: Mapping[str, Any], run: Mapping[str, Any]) -> list[Finding]:
    """Findings of the building-set section (see the module docstring)."""
    sets = numbers.get("sets") or []
    if not sets:
        return []
    guessed = _guessed(run)
    floor = numbers.get("noise_floor")
    chance = (f"; a fair set shows about {100 * floor:.1f} pp by chance"
              if floor is not None and not math.isnan(floor) else "")
    by_balance = sorted(sets, key=lambda r: r["balance"])
    best, worst = by_balance[0], by_balance[-1]
    # every set's value, so that another run is compared on the same set (analyzer robustness)
    items = {r["building_set"]: (r["balance"], r["balance_lo"], r["balance_hi"]) for r in sets}
    out = [Finding(
        _smallest(best, sets, chance) + _note(best["building_set"].split("+"), guessed),
        best["balance"], best["balance_lo"],
        best["balance_hi"], "pp", 100, 1, games=int(best["games"]), key="sets:most_balanced",
        item=best["building_set"], items=items)]
    if len(sets) > 1:
        out.append(Finding(
            f"The least balanced building set is {_set(worst['building_set'])}: seat win rates "
            f"{{value}} apart (max − min over {worst['games']} games{chance}; tested: "
            f"chi-square that every seat wins equally often, p corrected over the {len(sets)} "
            "sets as in its section, since it is picked as the worst)"
            + _note(worst["building_set"].split("+"), guessed), worst["balance"],
            worst["balance_lo"], worst["balance_hi"], "pp", 100, 1,
            p_value=worst.get("imbalance_p_adj", worst.get("imbalance_p")),
            games=int(worst["games"]),
            key="sets:least_balanced", item=worst["building_set"], items=items))
    out += pairs(numbers)
    effects = numbers.get("main_effects") or numbers.get("simple_effects") or []
    n_games = int(min(r["games"] for r in sets))
    kind = "main effect" if numbers.get("main_effects") else "effect against the reference set"
    for metric, (what, scale, unit) in EFFECTS.items():
        rows = [r for r in effects if r["metric"] == metric and r.get("p_value") is not None
                and not math.isnan(r["p_value"])]
        if not rows:
            continue
        top = min(rows, key=lambda r: r["p_value"])
        # picked as the smallest of the classes' p-values: its p is the section's, corrected
        # over the classes
        p = top.get("p_adjusted", top["p_value"])
        out.append(Finding(
            f"The clearest building choice for {what} is `{top['alternative']}` instead of "
            f"`{top['reference']}` ({top['class']}): {{value}} "
            f"({kind}; p corrected over the {len({r['class'] for r in rows})} classes as in its "
            "section)" + _note([top["alternative"], top["reference"]], guessed), top["effect"],
            top["lo"], top["hi"], unit, scale, 1, True, 0.0, p_value=p,
            games=n_games, key=f"effects:{metric}", item=_choice(top),
            items={_choice(r): (r["effect"], r["lo"], r["hi"]) for r in rows}))
    return out


# ------------------------------------------------------------------ the keys before play

#: the keys the building-set findings make whenever a run plays several building selections
KEYS = (("sets:most_balanced",
         ("the most balanced building set: its seat win rates max − min "
          "(a figure; docs/rules/cartus.md §3)"), "pp"),
        ("sets:least_balanced",
         ("the least balanced building set: its seat win rates max − min, "
          "chi-square that every seat wins equally often, corrected over the sets"), "pp"))


PAIR = ("sets:ARM_A-ARM_B",
        ("the building set of arm ARM_A minus that of ARM_B in seat "
         "spread² (variance of the seat win rates without chance's part): paired by seed where "
         "the sets share their games, jackknife interval and z-test; asked by a question, made "
         "for that pair"), "pp²")


def split_pair(rest: str, names: Any) -> tuple[str, str] | None:
    """``(A, B)`` of ``A-B`` with both among ``names`` (names may hold ``-``), else ``None``."""
    for i, ch in enumerate(rest):
        if ch == "-" and rest[:i] in names and rest[i + 1:] in names and rest[:i] != rest[i + 1:]:
            return rest[:i], rest[i + 1:]
    return None


def pair_check(names: Any):
    """``check(key)`` of ``PAIR`` for a run of arms ``names``: ``""`` when ``key`` is
    ``sets:A-B`` of two of them, else why not."""
    def check(key: str) -> str:
        rest = key.partition(":")[2]
        if split_pair(rest, names) is not None:
            return ""
        return (f"sets:ARM_A-ARM_B compares the building sets of two different arms "
                f"(the arms: {', '.join(names)})")
    return check


def plan(arms: Any) -> tuple[list[Any], str]:
    """The keys the building-set findings will make for ``arms``
    (``report.extension.PlanArm``) as ``(key, meaning, unit)``, and why none when the run
    plays one building selection only or draws its cards at random (a selection drawn game by
    game is compared from ``study.MIN_DRAWN_GAMES`` games on); then each ``effects:METRIC`` (``EFFECTS``), made where
    the sets differ in classes of two choices. The pair ``PAIR`` a question asks is planned by
    ``pair_check``, last."""
    if all(a.config.selection == "random_cards" for a in arms):
        return [], ("the building cards are drawn at random game by game (building_selection "
                    "random_cards, docs/rules/cartus.md §3): a selection rarely repeats, so "
                    "there are no sets to compare")
    random = any(a.config.selection != "explicit" for a in arms)
    if not random and len({tuple(a.config.fixed_cards) for a in arms}) < 2:
        return [], ("the run plays one building selection (rule options building_selection, "
                    "buildings; docs/rules/cartus.md §3): no set comparison")
    effects = [(f"effects:{m}", f"the clearest building choice for {what}: its effect where "
                "the sets form a complete 2^k design of the classes with two choices, or "
                "change one class at a time" + (" (sets drawn per game: when every "
                                                 "combination occurs)" if random else ""), unit)
               for m, (what, _, unit) in EFFECTS.items()]
    pair = PlannedKey(*PAIR, check=pair_check([a.name for a in arms]))
    return [*KEYS, *(effects if random or _effects_estimable(arms) else []), pair], ""


def _effects_estimable(arms: Any) -> bool:
    """Whether the fixed building sets of ``arms`` give the section main or simple effects:
    the classes with two choices form a complete 2^k design, or every set but the reference
    (the base's) changes exactly one of them (``study.effects``, ``study.set_design``)."""
    def choice(config: Any) -> dict[int, str]:
        return {config.building_class[config.card_building[c]]:
                config.building_names[config.card_building[c]] for c in config.fixed_cards}

    sets = list(dict.fromkeys(tuple(sorted(choice(a.config).items())) for a in arms))
    per_class: dict[int, list[str]] = {}
    for cls, name in dict.fromkeys(pair for s in sets for pair in s):
        per_class.setdefault(cls, []).append(name)
    two = [cls for cls, names in per_class.items() if len(names) == 2]
    return design([[dict(s)[cls] != per_class[cls][0] for cls in two] for s in sets]) != "incomplete"


def design(alts: Any) -> str:
    """The design of building sets, from whether each set (a row of ``alts``) uses the
    alternative of each class with two choices (a column): ``"complete 2^k"`` (every
    combination once), ``"one class at a time"`` (one reference set and at least two that each
    change one class from it), else ``"incomplete"``; every set must be told apart."""
    rows = [tuple(bool(v) for v in r) for r in alts]
    changed = [sum(r) for r in rows]
    if not rows or not rows[0] or len(set(rows)) != len(rows):
        return "incomplete"
    if len(rows) == 2 ** len(rows[0]):
        return "complete 2^k"
    one = changed.count(0) == 1 and changed.count(1) >= 2 and max(changed) <= 1
    return "one class at a time" if one else "incomplete"


def pairs(numbers: Mapping[str, Any]) -> list[Finding]:
    """The ``sets:A-B`` findings a study file's questions asked (``numbers["pairs"]``)."""
    out = []
    for r in numbers.get("pairs") or []:
        how = ("paired by seed: both sets play the same games" if r["paired"] else
               "unpaired: the sets play different games")
        out.append(Finding(
            f"The building set of `{r['a']}` minus that of `{r['b']}` in seat spread²: "
            f"{{value}} ({how}; jackknife interval and z-test; max − min of the seat win rates "
            f"{100 * r['balance_a']:.1f} against {100 * r['balance_b']:.1f} pp)",
            r["effect"], r["lo"], r["hi"], "pp²", 1e4, 1, True, 0.0,
            p_value=None if math.isnan(r["p_value"]) else r["p_value"], games=int(r["games"]),
            key=r["key"], example_variant=r["a"]))
    return out
