"""Leave-one-out variants of Rattus Cartus: each building in play, replaced by the other
building of its class (docs/rules/cartus.md §3: the 30 cards are 5 per class, each class has an
A and a B building).
"""

from __future__ import annotations

from analyzer.errors import RuleError
from analyzer.model.base import Ablation


def ablations(config) -> list[Ablation]:
    """One ``Ablation`` per building in play, in canonical building order.

    Building ``b`` (class ``b // 2``) is replaced card for card by the other building of its
    class, ``b ^ 1``, using that building's copies not already in play (a class always has
    exactly 5 cards, so there are always enough). The variant is an explicit selection.

    Parameters
    ----------
    config : CartusConfig
        A config with ``selection == "explicit"``.

    Returns
    -------
    list of Ablation
        ``rules``: ``building_selection = "explicit"``, ``buildings`` (30 ``"name:copy"``
        cards), ``building_set_name`` removed; ``usage``: ``premium_<b>``, ``standard_<b>``.

    Raises
    ------
    RuleError
        ``building_selection`` is random: the buildings in play change from game to game, so
        "without building X" is not one variant (fix the set with ``buildings``).
    """
    if config.selection != "explicit":
        raise RuleError("building_selection",
                        f"ablation needs a fixed building set (got {config.selection!r}; give "
                        "`buildings` or `building_set_name`, selection 'explicit')")
    copies = config.copies
    names = config.building_names
    in_play = set(config.fixed_cards)
    out = []
    for b in sorted({c // copies for c in in_play}):
        other = b ^ 1
        mine = [c for c in sorted(in_play) if c // copies == b]
        free = [c for c in range(other * copies, (other + 1) * copies) if c not in in_play]
        cards = sorted((in_play - set(mine)) | set(free[: len(mine)]))
        items = [f"{names[c // copies]}:{c % copies + 1}" for c in cards]
        out.append(Ablation(
            item=names[b],
            rules={"building_selection": "explicit", "buildings": items, "building_set_name": None},
            replaced_by=names[other],
            usage=(f"premium_{names[b]}", f"standard_{names[b]}"),
        ))
    return out
