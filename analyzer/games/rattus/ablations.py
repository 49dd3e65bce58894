"""Leave-one-out variants of Rattus (+ Africanus): each class card in play, swapped out.

docs/rules/rattus.md §6 keeps the number of class cards in play fixed (6, or 8 at 5–6 players), so
"without card X" means X is replaced by a class card not in play. Which one is the tool's
choice, not a rule: the first card not in play in card-table order, base cards before the
Africanus ones (the bundled study swaps the Sultan for the Merchant the same way).
"""

from __future__ import annotations

from analyzer.errors import RuleError
from analyzer.games.rattus.config import BASE_CARDS, CARD_EXPANSION, CARD_NAMES
from analyzer.games.rattus.metrics import SEAT_COLUMNS
from analyzer.model.base import Ablation


def ablations(config) -> list[Ablation]:
    """One ``Ablation`` per class card in play (docs/rules/rattus.md §6, §8).

    Parameters
    ----------
    config : RattusConfig
        A config with a fixed ``class_cards`` list.

    Returns
    -------
    list of Ablation
        ``rules``: ``class_cards`` with the card replaced; ``usage``: ``took_<card>`` when the
        seat records have it (times the seat took that card), else empty.

    Raises
    ------
    RuleError
        ``class_cards`` is drawn per game (no fixed list to take a card out of), or every
        class card is already in play.
    """
    if config.class_cards is None:
        raise RuleError("class_cards", "ablation needs a fixed list of class cards (the cards "
                                       "are drawn per game; give `class_cards`)")
    in_play = list(config.class_cards)
    pool = [c for c in CARD_NAMES if c in BASE_CARDS] + [
        c for c, e in zip(CARD_NAMES, CARD_EXPANSION) if e != "base" and config.africanus]
    spare = [c for c in pool if c not in in_play]
    if not spare:
        raise RuleError("class_cards", "every class card is in play; none is left to replace one")
    out = []
    for card in in_play:
        cards = [spare[0] if c == card else c for c in in_play]
        usage = (f"took_{card}",) if f"took_{card}" in SEAT_COLUMNS else ()
        out.append(Ablation(item=card, rules={"class_cards": cards}, replaced_by=spare[0],
                            usage=usage))
    return out
