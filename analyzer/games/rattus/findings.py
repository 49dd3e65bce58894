"""Rattus's key findings: the headline numbers of its own report sections (``study.py``) as
sentences for the top of the report (``analyzer/report/findings.py``).

Each function takes the numbers its section returned (``summary.json["results"][key]``, with
the per-game values under ``"_per_game"``, which never reach ``summary.json``) and the run
facts, and returns ``Finding`` objects: the diplomat leader's win share (a figure) and its edge
over what the same players win when they do not lead, and how often diplomat points change the
winner (docs/rules/rattus.md §2.3), the bonus cubes of a caravan move (§2.2), how much more often
the start player than the last position takes the Sultan or the Trader (§7 A), and what the
seats that used the Sultan or the Trader lose in the same games without it — per game, over the
games where some seat did not use it (a finding says "not measurable" where no game has one).
Each finding carries the guessed content its games are played on (``Finding.caveats``): the
rat-token faces (§5.2, revealed in every game) and, at 5-6 players, the stand-in Africa regions
AF1–AF5 (§4.3), when they are labelled defaults of the finding's arm (``run["defaults"]``); the
report says one in a finding only where it is that finding's own, not the whole run's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from analyzer.report.findings import Finding


def guessed(run: Mapping[str, Any], variant: str) -> tuple[tuple[str, str], ...]:
    """The guessed content the games of ``variant`` are played on, as ``Finding.caveats``:
    ``("tokens", "guessed token faces")`` and, at 5-6 players, ``("map", "the stand-in regions
    AF1–AF5")``, each when it is a labelled default there (not a user token table or map); the
    report says one only where it is the finding's own (``analyzer.report.findings``)."""
    defaults = run.get("defaults") or {}
    names = {d["name"] for d in defaults.get(variant, defaults.get("base", []))}
    arm = next((a for a in run.get("arms") or [] if a.get("name") == variant), {})
    players = arm.get("players") or run.get("players") or 0
    parts = []
    if "tokens" in names:
        parts.append(("tokens", "guessed token faces"))
    if "map" in names and int(players) >= 5:
        parts.append(("map", "the stand-in regions AF1–AF5"))
    return tuple(parts)


def _per_game(numbers: Mapping[str, Any], name: str) -> Any:
    """A per-game series the section computed (``numbers["_per_game"][name]``), or ``None``."""
    return (numbers.get("_per_game") or {}).get(name)


def _all_users(u: Mapping[str, Any], card: str) -> str:
    """``"every seat used the CARD in 93 % of the games with a user (140 of 150)"``: how
    often the users' finding has no seat without the card to compare with."""
    every, games = int(u.get("all_user_games", 0)), int(u.get("games", 0))
    share = f"{100 * every / games:.0f} %" if games else "none"
    return f"every seat used the {card} in {share} of the games with a user ({every} of {games})"


def _users(numbers: Mapping[str, Any], out_key: str, card: str,
           run: Mapping[str, Any]) -> list[Finding]:
    """The users of ``card`` followed into the same games without it (``_card_out_numbers``'
    ``users``): the change of their combined share of the win per game (a user won the game),
    paired over the games where some seat did not use the card — the game as the unit. A variant
    where no game has such a seat, or nobody used the card, gives an unmeasurable finding with
    the reason."""
    out = numbers.get(out_key) or {}
    found = []
    for u in out.get("users", []):
        d = u.get("won_diff_game")
        n = int(u.get("games_compared", 0))
        context = _all_users(u, card)
        if d is None or n < 2:
            why = f"{context}, so no seat is left without it to compare the users with"
            found.append(_followed(card, u["variant"], why, context=context))
            continue
        found.append(Finding(
            f"In the {n} games of `base` where a seat used the {card} and another did not, a "
            f"user won {100 * u['won_with_game']:.1f} % of the games; in the same games of "
            f"`{u['variant']}` the same seats won {100 * u['won_without_game']:.1f} %: a change "
            f"of {{value}} per game (the game as the unit; the seats are picked by what they "
            "did in the base game, so part of this is selection)",
            d["mean"], d["lo"], d["hi"], "pp", 100, 1, True, 0.0, p_value=d["p_value"],
            games=n, examples=tuple(u.get("examples", ())), example_variant=u["variant"],
            t_df=n - 1,
            example_what=(f"a seat that used the {card} in `base` won "
                          f"{'less' if d['mean'] <= 0 else 'more'} without it"),
            key=users_key(card, u["variant"]), per_game=_per_game(numbers, f"users:{u['variant']}"),
            caveats=guessed(run, u["variant"]),
            context=f"{context}, leaving {n} to compare"))
    for variant, why in (out.get("users_unmeasurable") or {}).items():
        found.append(_followed(card, variant, why))
    return found


def _followed(card: str, variant: str, why: str, **more: Any) -> Finding:
    """The unmeasurable finding on ``card``'s users followed into ``variant``, saying ``why``
    (in the unit and with the no-effect value it has where measured: a robustness check
    then says it is not measurable in this run, not a unitless figure)."""
    return Finding(f"The seats that used the {card} in `base`, followed into `{variant}`",
                   math.nan, math.nan, math.nan, "pp", 100, 1, True, 0.0,
                   key=users_key(card, variant), example_variant=variant, unmeasurable=why,
                   **more)


def _first_last(numbers: Mapping[str, Any], card: str, run: Mapping[str, Any]) -> list[Finding]:
    """The start player against the last position in takes of ``card`` (``take_use``'s
    ``first_last["take"]``): a paired difference within games, tested against 0."""
    tu = numbers.get("take_use") or {}
    d = (tu.get("first_last") or {}).get("take")
    key = f"{card.lower()}:takes_first_last"
    if not d or d.get("n", 0) < 2:
        if tu.get("take") and tu.get("games") is not None:
            return [Finding(f"The start player against the last position in takes of the {card}",
                            math.nan, math.nan, math.nan, "takes", 1, 2, True, 0.0, key=key,
                            unmeasurable=f"{tu.get('games', 0)} game(s) with the {card} in play; "
                                         "a start-player comparison needs at least 2 and the "
                                         "start positions in the records")]
        return []
    var, last = tu.get("variant", "base"), d["last_position"]
    return [Finding(
        f"In `{var}` the start player takes the {card} {d['first']:.2f} times per game and the "
        f"last position ({last}) {d['last']:.2f} times: start player − last {{value}} "
        f"per game (paired within the {d['n']} games with the {card} in play)",
        d["mean"], d["lo"], d["hi"], "takes", 1, 2, True, 0.0,
        p_value=d["p_value"], games=int(d["n"]), t_df=int(d["n"]) - 1,
        examples=tuple(d.get("examples", ())), example_variant=var,
        example_what=(f"the start player took the {card} "
                      f"{'more' if d['mean'] >= 0 else 'less'} often than the last position"),
        key=key, per_game=_per_game(numbers, "takes_first_last"), caveats=guessed(run, var),
        context=(f"the start player takes the {card} {d['first']:.2f} times per game, the "
                 f"last position {d['last']:.2f}"))]


def sultan(numbers: Mapping[str, Any], run: Mapping[str, Any]) -> list[Finding]:
    """Findings of the Sultan section: the diplomat leader's share of the wins (a figure) and
    its edge over what the same players win when they do not lead (tested against 0), how
    often diplomat points change the winner (a figure), the start player against the last
    position in takes of the Sultan, and the Sultan's users without it."""
    var = numbers.get("variant", "base")
    out = []
    lead = numbers.get("leader_wins") or {}
    if lead.get("games"):
        out.append(Finding(
            f"The holder(s) of the most diplomats at the end win {{value}} of the {lead['games']} "
            f"games of `{var}` where a diplomat is on the board (a fair seat: "
            f"{100 * lead['no_edge']:.1f} %; who leads matters, see the leader's edge)",
            lead["estimate"], lead["lo"], lead["hi"], "%", 100, 1,
            games=int(lead["games"]),
            examples=tuple(lead.get("examples", ())), example_variant=var,
            example_what="the diplomat leader won", key="sultan:leader_wins",
            caveats=guessed(run, var)))
        edge = lead.get("edge") or {}
        if edge.get("unestimable"):
            out.append(Finding("The diplomat leader's edge over the same players when they do "
                               "not lead", math.nan, math.nan, math.nan, "pp", 100, 1, True, 0.0,
                               key="sultan:leader_edge", example_variant=var,
                               unmeasurable=edge["unestimable"]))
        elif edge:
            who = ", ".join(f"`{p}` {100 * v:.0f} %" for p, v in sorted(
                (lead.get("leaders") or {}).items(), key=lambda kv: -kv[1])[:2])
            out.append(Finding(
                f"The diplomat leader wins {100 * lead['estimate']:.1f} % of the "
                f"{lead['games']} games of `{var}` with a diplomat on the board; the same "
                f"players (leaders: {who}) win {100 * lead['reference']:.1f} % per seat-game "
                "when they do not lead in those games, so leading adds {value} (the reference "
                "weights each leader by its player; delta-method t interval over the games "
                "with a leader)", edge["estimate"], edge["lo"], edge["hi"], "pp", 100,
                1, True, 0.0, p_value=edge.get("p_value"), games=int(edge.get("games") or 0),
                t_df=int(edge.get("games") or 0) - 1,
                examples=tuple(lead.get("examples", ())), example_variant=var,
                example_what="the diplomat leader won", key="sultan:leader_edge",
                per_game=_per_game(numbers, "leader_edge"), caveats=guessed(run, var)))
    changed = numbers.get("winner_changed") or {}
    if changed.get("games"):
        out.append(Finding(
            f"Diplomat points change the winner in {{value}} of the {changed['games']} games of "
            f"`{var}` with the Sultan in play", changed["estimate"],
            changed["lo"], changed["hi"], "%", 100, 1, games=int(changed["games"]),
            examples=tuple(changed.get("examples", ())), example_variant=var,
            example_what="the diplomat points changed the winner", key="sultan:winner_changed",
            caveats=guessed(run, var)))
    return (out + _first_last(numbers, "Sultan", run)
            + _users(numbers, "sultan_out", "Sultan", run))


def caravan(numbers: Mapping[str, Any], run: Mapping[str, Any]) -> list[Finding]:
    """Findings of the caravan section: bonus cubes per caravan move (a figure), the start
    player against the last position in takes of the Trader, and the Trader's users without
    it."""
    out = []
    total = numbers.get("total_per_move") or {}
    if total and total.get("estimate") is not None:
        per = {(r["who"], r["stage"]): r["value"] for r in numbers.get("per_move", [])}
        split = ""
        if ("mover", "placed") in per and ("opponents", "placed") in per:
            split = (f" ({per[('mover', 'placed')]:.2f} to the mover, "
                     f"{per[('opponents', 'placed')]:.2f} to opponents)")
        moves = numbers.get("moves_per_game") or {}
        out.append(Finding(
            f"A caravan move hands out {{value}}{split}, over the {numbers['games']} games of "
            f"`{numbers.get('variant', 'base')}` with the Trader in play"
            + (f" ({moves['estimate']:.2f} moves per game)" if moves.get("estimate") is not None
               else ""), total["estimate"],
            total["lo"], total["hi"], "bonus cubes", 1, 2,
            games=int(numbers["games"]), key="caravan:cubes_per_move",
            caveats=guessed(run, numbers.get("variant", "base"))))
    return (out + _first_last(numbers, "Trader", run)
            + _users(numbers, "trader_out", "Trader", run))


# ------------------------------------------------------------------ the keys before play

#: per card section: the keys its findings make whenever the card is in play, with their
#: meaning and unit (``plan``); a ``users`` key per variant that takes the card out follows
CARD_KEYS = {
    "sultan": (("sultan:leader_wins", ("share of the games won by the holder(s) of the most "
                                       "diplomats (a figure, docs/rules/rattus.md §2.3)"), "%"),
               ("sultan:leader_edge", ("the diplomat leader's win share minus the same players' "
                                       "when they do not lead"), "pp"),
               ("sultan:winner_changed", ("share of the games whose winner the diplomat points "
                                          "changed (a figure)"), "%"),
               ("sultan:takes_first_last", ("takes of the Sultan per game, start player minus "
                                            "the last position (paired within games)"), "takes")),
    "trader": (("caravan:cubes_per_move", ("bonus cubes a caravan move hands out (a figure, "
                                           "docs/rules/rattus.md §2.2)"), "bonus cubes"),
               ("trader:takes_first_last", ("takes of the Trader per game, start player minus "
                                            "the last position (paired within games)"), "takes")),
}


def users_key(card: str, variant: str) -> str:
    """The key of the finding on ``card``'s users followed into ``variant`` (``_users``)."""
    return f"{card.lower()}:users:{variant}"


def _in_play(config: Any, card: str) -> bool | None:
    """Whether ``card`` is in play in games of ``config``: True/False for a fixed list of
    class cards, ``None`` when they are drawn per game (§6.2) and it may be."""
    if config.class_cards is not None:
        return card in config.class_cards
    return None if config.africanus else False


def plan(card: str, arms: Any) -> tuple[list[tuple[str, str, str]], str]:
    """The keys the ``card`` section (``sultan`` or ``trader``) will make for ``arms``
    (``report.extension.PlanArm``, the base first) as ``(key, meaning, unit)``, and why none
    when it makes none: the card is in no arm's class cards (§6.2, §2.2-2.3)."""
    playing = [a for a in arms if _in_play(a.config, card) is not False]
    if not playing:
        if not any(a.config.africanus for a in arms):
            return [], (f"the {card.title()} is an Africanus card and no arm plays the "
                        "expansion (expansions = [\"africanus\"]; docs/rules/rattus.md §6.2)")
        return [], (f"the {card.title()} is in no arm's class cards (rule option class_cards; "
                    "docs/rules/rattus.md §6.2)")
    keys = list(CARD_KEYS[card])
    base = arms[0]
    if _in_play(base.config, card):
        for a in arms[1:]:
            if a.players == base.players and _in_play(a.config, card) is False:
                keys.append((users_key(card, a.name),
                             (f"the seats that used the {card.title()} in base, their win share "
                              f"per game in the same games of {a.name} (without it) minus in "
                              "base"), "pp"))
    return keys, ""
