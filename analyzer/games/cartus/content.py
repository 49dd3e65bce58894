"""Content priors of Rattus Cartus: the unknown 12th building and the supply icons per copy.

The ranges and their reasoning are in ``docs/rules/cartus.md §5.1`` (``magic_b``) and
``§4.1`` (supply icons); each draw keeps what §1, §2 and §5 establish and passes
``config.make_config`` through ``buildings_file`` or ``supply_icons_file``.
"""

from __future__ import annotations

import random
from itertools import product

from analyzer.games.cartus.config import DEFAULT_BUILDINGS, MAGIC_B
from analyzer.model.content import ContentPrior
from analyzer.model.tables import builtin_table

_RULES = "docs/rules/cartus.md"
_BUILDINGS = builtin_table("analyzer.games.cartus", "buildings.toml")
_ICONS = builtin_table("analyzer.games.cartus", "supply_icons.toml")

# ---------------------------------------------------------------- magic_b (§5.1)

# The action of the 12th building: today's "take Flutes", or the action and amounts of one of
# the other eleven buildings, each equally likely.
MAGIC_B_ACTIONS: tuple[tuple[str, object, object], ...] = tuple(
    (b["action"], b["premium"], b["standard"]) for b in _BUILDINGS["building"])


def draw_magic_b(rng: random.Random) -> dict:
    """The buildings table with ``magic_b``'s action drawn from ``MAGIC_B_ACTIONS`` (§5.1)."""
    kind, premium, standard = rng.choice(MAGIC_B_ACTIONS)
    rows = [dict(b) for b in _BUILDINGS["building"]]
    rows[MAGIC_B].update(action=kind, premium=premium, standard=standard, provenance="default",
                         section="§2, §5.1")
    return {"classes": dict(_BUILDINGS["classes"]), "building": rows}


def _source_of(kind: str) -> str:
    return next(b["name"] for b in _BUILDINGS["building"][:MAGIC_B] if b["action"] == kind) \
        if kind != "flute" else "today's"


def magic_b_summary(table: dict) -> str:
    """E.g. ``"magic_b: take 2 jokers / 1 (the marketplace's action)"``."""
    row = table["building"][MAGIC_B]
    return (f"magic_b: {row['action']} premium {row['premium']}, standard {row['standard']} "
            f"({_source_of(row['action'])} action)")


MAGIC_B_PRIOR = ContentPrior(
    table="magic_b", option="buildings_file", section=f"{_RULES} §5.1",
    known=("12 buildings, 2 per class; the eleven named ones and their actions (§2, §5)",
           "the 12th is a Magic building whose name and text are unreadable (§2)"),
    varies=(("magic_b's action and its premium/standard amounts: today's 'take 2 / 1 Flutes', or the "
            "action of one of the other eleven buildings, each of the 12 equally likely"),),
    generate=draw_magic_b, summary=magic_b_summary, rule_values=("building.magic_b",),
    header="Only the magic_b row differs from data/buildings.toml.",
)

# ---------------------------------------------------------------- supply icons (§4.1)

# What one building card may show: draw 0-4 cards, discard 0-2 rats, look at 0-1 Nun-row cards,
# 2 to 4 symbols in all (the range of the three cards the seed shows: D4, R2, D2+L1).
ICON_SETS: tuple[str, ...] = tuple(
    "+".join(f"{k}{n}" for k, n in zip("DRL", (d, r, lk)) if n)
    for d, r, lk in product(range(5), range(3), range(2)) if 2 <= d + r + lk <= 4)
# The three cards the seed shows: (building, copy number, icons), kept in every draw.
KNOWN_ICONS = (("monastery", 1, "D4"), ("fortune_tellers_tent", 3, "D2+L1"), ("monastery", 5, "R2"))


def draw_supply_icons(rng: random.Random) -> dict:
    """A supply-icons table (§4.1): every building five different icon sets from ``ICON_SETS``,
    the seed's three known cards kept at their copies."""
    per: dict[str, dict] = {}
    for name in DEFAULT_BUILDINGS:
        known = {copy: icons for b, copy, icons in KNOWN_ICONS if b == name}
        pool = [s for s in ICON_SETS if s not in known.values()]
        drawn = iter(rng.sample(pool, 5 - len(known)))
        row = [known[c] if c in known else next(drawn) for c in range(1, 6)]
        per[name] = {"value": row, "provenance": "default", "section": "§4.1"}
    return {"default": dict(_ICONS["default"]), "building": per}


def _totals(rows: list[list[str]]) -> tuple[float, float, float]:
    parts = [p for row in rows for text in row for p in text.split("+")]
    cards = sum(len(row) for row in rows)
    return tuple(sum(int(p[1:]) for p in parts if p[0] == k) / cards  # type: ignore[return-value]
                 for k in "DRL")


def supply_icons_summary(table: dict) -> str:
    """E.g. ``"per card 2.1 draws, 0.9 rat discards, 0.3 looks (today 2.2, 0.6, 0.2)"``."""
    rows = [v["value"] for v in table.get("building", {}).values()] or [table["default"]["value"]]
    d, r, lk = _totals(rows)
    d0, r0, l0 = _totals([_ICONS["default"]["value"]])
    return (f"per card {d:.1f} draws, {r:.1f} rat discards, {lk:.1f} looks "
            f"(today {d0:.1f}, {r0:.1f}, {l0:.1f})")


SUPPLY_ICONS = ContentPrior(
    table="supply_icons", option="supply_icons_file", section=f"{_RULES} §4.1",
    known=("copies of one building carry different supply symbols (§1)",
           ("a Monastery that draws 4, a Monastery that discards 2 rats and a Fortune-teller's Tent "
           "that draws 2 and looks at 1 (§1), kept as copies 1, 5 and 3")),
    varies=(("every other card's icons: five different sets per building, each drawing 0-4 cards, "
            f"discarding 0-2 rats and looking at 0-1 Nun-row cards, 2-4 symbols in all ({len(ICON_SETS)} "
            "sets, equally likely)"),),
    generate=draw_supply_icons, summary=supply_icons_summary, rule_values=("supply_icons_per_copy",),
    header="Every building has its own row; [default] is not used by any of them.",
)

PRIORS = (MAGIC_B_PRIOR, SUPPLY_ICONS)
