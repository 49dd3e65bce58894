"""The Answers table that opens every report, its chart, and the caveats it rests on (issue #25).

Right under the title a report shows one row per question — the answer in one short sentence
with its 95 % interval (``short_text``), whether to act on it (``verdict``; issue #34) and an
example game — a chart of the answers (``draw``), "Also found" (``also_found``) and the box
"What these answers rest on" (``caveats``); the README's "Answers" says what each means. The
questions are the study file's ``[[questions]]``; without any, the study kind's own answers in a
fixed order (the study registry's ``answers``: ``simulate``, ``compare``, ``sweep`` … below).

Every answer is read from the run's finding records (``finding_keys``, ``findings._record``) or,
for a sweep's per-value answers, from its sections' numbers, so this module names no game, card
or game metric.
"""

from __future__ import annotations

import difflib
import math
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib import colormaps

from analyzer import stats, studies
from analyzer.report import (
    citations,
    finding_keys,
    guesses,
    quality,
    robustness,
    role_keys,
    units,
)
from analyzer.report.document import BASE, Doc, p_text, pct, replay_command
from analyzer.report.extension import key_patterns
from analyzer.report.finding_keys import as_written, value_text
from analyzer.report.findings import missing
from analyzer.report.summary import RunFacts

HEADING = "Answers"
CAVEATS = "What these answers rest on"
ALSO = "Also found"
MAX_ALSO = 3  # lines under the Answers: the largest unasked findings that hold
CHART = "answers.png"
MAX_CAVEATS = 3  # labelled defaults named in the box; the appendix has every one
MAX_SHOWN = 8  # rows of the table and chart; every answer is in summary.json
APPENDIX = "Appendix: labelled defaults in use"  # the report's last section (report._appendix)
LINK = f"[{APPENDIX.split(':')[0].lower()}](#{citations.slug(APPENDIX)})"  # a link to it
Answer = dict[str, Any]  # {ask, key, record, text}; record: a finding record (or None)


# ------------------------------------------------------------------ the questions' answers


def declared(questions: Sequence[Mapping[str, str]], records: Sequence[Mapping[str, Any]],
             kind: str = "simulate", patterns: Sequence[str] = ()
             ) -> tuple[list[Answer], list[str]]:
    """The answers to the declared ``questions`` (``{ask, finding}``) from the run's finding
    records, and a note for each question this study kind does not answer (a key of another
    kind's, or, in a study that makes its own arms, a key its arms do not have).

    A key by role (``role_keys``: ``rating_gap:best``, ``win_rate:best``) is answered by the
    record it picks. A question the run cannot answer after all is a row saying why
    (``why``; issue #34: one unanswerable row, never a lost report): a key by role with nothing
    to pick, a key of the game's own (``patterns``, ``extension.key_patterns``) the records
    could not estimate (``not_estimated``; ``finding_keys.unestimated``), or any other key the
    run did not make (nobody used the card, too few games) — with the nearest keys it has.
    Before play ``analyzer.study.questions.check`` has refused a key the run could never make,
    so this is what the games decided.
    """
    out, notes = [], []
    have = [str(r.get("key")) for r in records]
    for q in questions:
        key = q["finding"]
        record = next((r for r in records if r.get("key") == key), None)
        if record is None and key in role_keys.ALIASES:
            record = role_keys.alias(records, key)
            if record is None:
                out.append(_unanswered(q, why=f"the run has no `{key.partition(':')[0]}:` "
                                              "finding to pick the best from"))
                continue
        if record is not None:
            out.append({"ask": q["ask"], "key": key, "record": record})
            continue
        other = finding_keys.other_kind(key, kind)
        close = difflib.get_close_matches(key, have, n=2, cutoff=0.6)
        hint = f" (nearest: {', '.join(f'`{k}`' for k in close)})" if close else ""
        if finding_keys.unestimated(records, key, patterns):
            out.append(_unanswered(q, not_estimated=True))
        elif other:
            notes.append(f"`{key}` is answered by `analyzer {other}`")
        elif (key.partition(":")[0] == quality.FAMILY
              and not any(k.partition(":")[0] == quality.FAMILY for k in have)):
            out.append(_unanswered(q, why="`quality:` findings are measured only with --rounds "
                                          "(the checkpoints after every round): play the study "
                                          "again with --rounds", needs_rounds=True))
        elif (key.partition(":")[0] == quality.FAMILY
              and key.split(":")[1:2] == list(quality.KINGMAKING)):
            out.append(_unanswered(q, why="`quality:kingmaking` is measured only with --rounds "
                                          "--kingmaking-samples N (counterfactual replays): "
                                          "play the study again with them", needs_rounds=True))
        elif key.startswith("rating_gap:") and (gap := next(
                (k for k in have if k.startswith("rating_gap:")), None)):
            # a pair named in advance: the run rates the best against the next, known after play
            turned = gap.split(":")[1:] == key.split(":")[1:][::-1]
            out.append(_unanswered(q, why=(
                f"this run rated the pair the other way round, `{gap}`" if turned else
                f"this run's rating gap is the best-rated entrant's over the next, `{gap}`, "
                "not this pair")))
        elif not as_written(kind):
            notes.append(f"`{key}` is not a key of this {studies.word(kind)}"
                         + (f" (did you mean `{close[0]}`?)" if close else ""))
        else:
            out.append(_unanswered(q, why="the run did not make this finding: its games gave "
                                          "it nothing to measure (nobody did what it is about, "
                                          f"or too few games){hint}"))
    return out, notes


def _unanswered(q: Mapping[str, str], **why: Any) -> Answer:
    """A row of the Answers for a question the run cannot answer (``declared``), its record
    marked ``why`` (the reason in words, ``not_estimated`` or ``needs_rounds``)."""
    return {"ask": q["ask"], "key": q["finding"],
            "record": {"key": q["finding"], "estimate": None, **why}}


# ------------------------------------------------------------------ each study kind's answers


def _by_key(records: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(r.get("key")): r for r in records}


def _arms(run: Mapping[str, Any]) -> list[str]:
    return [a.name for a in RunFacts.of(run).arms] or [BASE]


def _answer(ask: str, record: Mapping[str, Any] | None) -> list[Answer]:
    return [] if record is None else [{"ask": ask, "key": str(record.get("key")),
                                       "record": record}]


def _start_player(found: Mapping[str, Mapping[str, Any]]) -> list[Answer]:
    return _answer("Does the start player have an edge (base)?", found.get(f"first_player:{BASE}"))


def simulate(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
             run: Mapping[str, Any]) -> list[Answer]:
    """Each variant's paired effect on the players it is about (its policies' win-rate
    changes; without several policies, its change of the mean score), then each arm of another
    player count's change of the start player's advantage, then the start player's advantage."""
    found = _by_key(records)
    out: list[Answer] = []
    for arm in _arms(run)[1:]:
        about = [r for k, r in found.items() if k.startswith(f"policy:{arm}:")]
        out += [{"ask": f"What does `{arm}` do to `{str(r['key']).split(':', 2)[2]}`?",
                 "key": str(r.get("key")), "record": r} for r in about]
        if not about:
            out += _answer(f"What does `{arm}` do to the mean score?", found.get(f"score:{arm}"))
            out += _answer(f"What does `{arm}` do to the start player's edge?",
                           found.get(f"players:start_adv:{arm}"))
    return out + _start_player(found)


def compare(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
            run: Mapping[str, Any]) -> list[Answer]:
    """The ranking of the compared scenarios: each against the first by its paired effect
    (its policies' win rates, else the mean score), best first; then a scenario of another
    player count, whose scores are not paired, by its change of the start player's edge (not
    ranked with them: another unit, and larger is not better); then the start player."""
    found = _by_key(records)
    rows, counts = [], []
    for arm in _arms(run)[1:]:
        about = [r for k, r in found.items() if k.startswith(f"policy:{arm}:")]
        rows += [((f"How does `{arm}` rank against `{BASE}` for `"
                   f"{str(r['key']).split(':', 2)[2]}`?"), r) for r in about]
        if not about and f"score:{arm}" in found:
            rows.append((f"How does `{arm}` rank against `{BASE}` (mean score)?",
                         found[f"score:{arm}"]))
        elif not about and f"players:start_adv:{arm}" in found:  # not ranked with the scores
            counts.append(((f"What does `{arm}` (another player count) do to the start "
                           "player's edge?"), found[f"players:start_adv:{arm}"]))
    rows.sort(key=lambda qr: -_value(qr[1]))
    return [a for ask, r in rows + counts for a in _answer(ask, r)] + _start_player(found)


def sweep(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
          run: Mapping[str, Any]) -> list[Answer]:
    """Along the swept value, in its order. Across player counts: per arm the start player's
    advantage and the mean score (their own values, from the sections' numbers); else each
    value's paired effect on the players it is about (simulate's answers)."""
    if len({a.players for a in RunFacts.of(run).arms}) < 2:
        # the swept player (``NAME*``, sweep.py) is the one each value is about
        swept = [r for r in records if str(r.get("key")).startswith("policy:")
                 and str(r.get("key")).endswith("*")]
        return simulate(swept or records, results, run) + (
            _start_player(_by_key(records)) if swept else [])
    studies_ = results.get("studies") or {}
    first = {r["variant"]: r for r in (studies_.get("first_player") or {}).get("by_variant") or []}
    scores = {r["variant"]: r for r in (results.get("balance") or {}).get("arms") or []}
    scores.update({r["variant"]: r for r in (results.get("players") or {}).get("arms") or []})
    out: list[Answer] = []
    for arm in _arms(run):  # the start player's advantage at every count, then the mean scores
        out += _own(f"Start player's edge at `{arm}`?", f"first_player:{arm}",
                    "The start player's advantage", arm, first.get(arm), "advantage", "pp", 100,
                    1, 0.0)
    for arm in _arms(run):
        out += _own(f"Mean score at `{arm}`?", f"score_mean:{arm}", "The mean final score", arm,
                    scores.get(arm), "score", "points", 1, 2, None)
    return out


def _own(ask: str, key: str, what: str, arm: str, row: Mapping[str, Any] | None, column: str,
         unit: str, scale: float, digits: int, null: float | None) -> list[Answer]:
    """An answer read from a section's numbers (``row``'s ``column`` with its ``_lo``, ``_hi``)
    rather than a finding record (same fields); none when ``row`` lacks it."""
    if row is None or missing(row.get(column)):
        return []
    lo, hi = row.get(f"{column}_lo"), row.get(f"{column}_hi")
    record: dict[str, Any] = {"key": key, "estimate": row[column],
                              "lo": math.nan if lo is None else lo,
                              "hi": math.nan if hi is None else hi, "unit": unit,
                              "scale": scale, "digits": digits, "signed": null is not None,
                              "null": null, "example_variant": arm, "examples": []}
    record["sentence"] = f"{what} in `{arm}`: {value_text(record)}"
    return [{"ask": ask, "key": key, "record": record}]


def ablate(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
           run: Mapping[str, Any]) -> list[Answer]:
    """The ranking of the items by their value to their heaviest user, largest first."""
    items = sorted((r for r in records if str(r.get("key")).startswith("item:")),
                   key=lambda r: -_value(r))
    return [a for r in items for a in _answer(
        f"What is `{str(r['key']).partition(':')[2]}` worth?", r)]


def tournament(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
               run: Mapping[str, Any]) -> list[Answer]:
    """The ranking: the best-rated entrant's gap to the next, then each entrant's win rate
    against a fair seat's, best first."""
    gap = [r for r in records if str(r.get("key")).startswith("rating_gap:")]
    out = [a for r in gap for a in _answer("Which player is strongest, and by how much?", r)]
    wins = sorted((r for r in records if str(r.get("key")).startswith("win_rate:")),
                  key=lambda r: -_value(r))
    spread = _by_key(records).get("quality:skill_spread")
    return out + [a for r in wins for a in _answer(
        f"How often does `{str(r['key']).partition(':')[2]}` win, against a fair seat?", r)] + \
        _answer("How far apart are the strongest and the weakest player (skill spread)?", spread)


def tune(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
         run: Mapping[str, Any]) -> list[Answer]:
    """Tuned − start on fresh seeds, then the tuned seat against a fair seat."""
    found = _by_key(records)
    return (_answer("How much do the tuned parameters gain (tuned − start)?",
                    found.get("tuned_minus_start"))
            + _answer("Does the tuned seat beat a fair seat?", found.get("tuned_above_fair")))


def balance(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
            run: Mapping[str, Any]) -> list[Answer]:
    """The balance search's answers in its report's order."""
    return [a for r in records if str(r.get("key")).startswith("balance:")
            for a in _answer("Which value brings the finding to its target?"
                             if ":at_value:" in str(r["key"]) else
                             "How much does that value change the finding?", r)]


# ------------------------------------------------------------------ the table and chart


def _value(record: Mapping[str, Any], name: str = "estimate") -> float:
    v = record.get(name)
    return -math.inf if missing(v) else float(v)


_PLAIN_PARENS = re.compile(r" \((?![^()]*\[)[^()]*\)")  # a parenthesis without an interval


def short_text(record: Mapping[str, Any]) -> str:
    """The answer in one short sentence with its number, unit and 95 % interval: a phrase per
    generic key family; a game's own finding, its sentence without its explanatory
    parentheses (the key findings below keep them). A record marked ``at_value_found`` (a
    balance's answer to the study file's question, measured at the value found) says so."""
    text = _short_text(record)
    if record.get("at_value_found") and not record.get("why") and not missing(
            record.get("estimate")):
        return text.rstrip(".") + ", at the value found."
    return text


#: key family -> (the parts its key has at least, its short answer: ``{v}`` the value, ``{0}``,
#: ``{1}`` … the key's parts)
_PHRASES = {
    "policy": (3, "`{2}`: {v} in {what}, paired with its seats in `{base}`."),
    "first_player": (1, "The start player's win rate minus a fair seat's: {v}."),
    "score": (1, "Mean score per seat-game: {v} against `{base}`."),
    "start_adv": (1, "Start player's edge: {v} against `{base}`."),
    "item": (2, "`{1}`: {v} in win rate to the seat that used it most."),
    "win_rate": (2, "`{1}`'s win rate minus a fair seat's: {v}."),
    "rating_gap": (3, "`{1}` is rated {v} above `{2}` (log-strength)."),
    "tuned_minus_start": (1, "Tuned − start: {v} in win rate, on fresh seeds."),
    "tuned_above_fair": (1, "The tuned seat's win rate minus a fair seat's: {v}, on fresh seeds."),
}
#: (key family, number of parts) -> the answer's label in the chart (``{0}``, ``{1}`` … its parts)
_LABELS = {("policy", 3): "{2} in {1}", ("win_rate", 2): "{1}: win rate",
           ("item", 2): "{1}: value", ("rating_gap", 3): "{1} above {2}",
           ("score", 2): "{1}: mean score", ("start_adv", 2): "{1}: start player"}


def _short_text(record: Mapping[str, Any]) -> str:
    key = str(record.get("key") or "")
    parts = key.split(":")
    if record.get("why"):
        return f"`{key}`: not answered: {record['why']}."
    if record.get("not_estimated"):
        return (f"`{key}`: not estimated in this run: its games gave this finding no value (too "
                "few games, or too few decisive ones, for its model); play more games.")
    if missing(record.get("estimate")) or record.get("too_few_games"):
        return f"`{key}`: too few games to estimate (`analyzer findings` says how many)."
    v = value_text(record)
    what = "win rate" if record.get("unit") == "pp" else "mean"
    if parts[0] == "players" and len(parts) == 3:  # players:start_adv:ARM, players:score:ARM
        parts = parts[1:]
    if parts[0] in _PHRASES and len(parts) >= _PHRASES[parts[0]][0]:
        return _PHRASES[parts[0]][1].format(*parts, v=v, what=what, base=BASE)
    sentence = str(record.get("sentence") or "")
    if not sentence:
        return v + "."
    return _PLAIN_PARENS.sub("", sentence).rstrip(".") + "."


SIGNIFICANT = "significant after Holm over this run's findings"
NOT_SIGNIFICANT = "not significant"
FIGURE = robustness.FIGURE  # one phrase for a number with no test, robustness checked or not


def holm_verdict(record: Mapping[str, Any]) -> str:
    """Whether to act on a finding without a robustness check: ``SIGNIFICANT`` (it holds after
    Holm over this run's tested findings), ``NOT_SIGNIFICANT``, ``FIGURE`` for a number with
    no test (a share, a rate, a sweep's own per-arm value) or the verdict computed with it (a
    balance's equivalence test, ``Finding.verdict``), or why there is no answer."""
    if record.get("not_estimated") or record.get("unmeasurable"):
        return "no answer (not estimated in this run)"
    if record.get("needs_rounds"):
        return "no answer (needs --rounds)"
    if missing(record.get("estimate")) or record.get("too_few_games"):
        return "no answer (too few games)"
    if record.get("exact"):
        return "exact: the same difference in every game"
    if record.get("figure") or "holds" not in record:
        return str(record.get("verdict") or FIGURE)
    return SIGNIFICANT if record.get("holds") else NOT_SIGNIFICANT


def within(shown: bool, bound: str) -> str:
    """An equivalence verdict (two one-sided tests) in words, the one phrasing of the Answers
    table and the balance's check: ``"balanced within ±2 pp"`` or ``"not shown within ±2
    pp"`` (``bound``: the band, ``"±2 pp"``)."""
    return f"{'balanced' if shown else 'not shown'} within {bound}"


def tolerance_text(record: Mapping[str, Any], tolerance: float) -> str:
    """The equivalence verdict of a question's ``tolerance`` (in the finding's shown unit):
    ``"balanced within ±2 pp"`` only when two one-sided tests at 5 % (``stats.equivalence``)
    put the finding within ``tolerance`` of its no-effect value, else ``"not shown within ±2
    pp"``; a finding without a no-effect value or on a log scale cannot be tested."""
    bound = f"±{tolerance:g}{' ' + record['unit'] if record.get('unit') else ''}"
    if record.get("null") is None or record.get("log"):
        return f"{bound} not tested (the finding has no no-effect value on its own scale)"
    scale = float(record.get("scale") or 1.0)
    se = record.get("se")
    est = record.get("estimate")
    if missing(se) or missing(est):
        return f"{within(False, bound)} (no interval)"
    df = record.get("t_df")
    eq = stats.equivalence(float(est), float(se), tolerance / scale,
                           target=float(record["null"]),
                           df=None if missing(df) else float(df))
    return within(eq.shown, bound) + (f" (equivalence test, {p_text(eq.p_value, phrase=True)})"
                                      if eq.shown else "")


def verdict(record: Mapping[str, Any], robust: Mapping[str, Any] | None = None,
            tolerance: float | None = None) -> str:
    """Whether to act on an answer, in a few words: the robustness verdict where ``analyzer
    robustness`` checked the finding (``robustness.short_verdict``: "unresolved" and
    "sensitive" say what moved it), else ``holm_verdict``; then, with a question's
    ``tolerance``, ``tolerance_text``."""
    key = str(record.get("key"))
    row = next((r for r in (robust or {}).get("findings", []) if r.get("key") == key), None)
    text = (robustness.short_verdict(row, robust) if row is not None and robust
            else holm_verdict(record))
    if tolerance is not None and not text.startswith("no answer"):
        text += "; " + tolerance_text(record, tolerance)
    return text


def _label(answer: Answer) -> str:
    key = answer["key"]
    parts = key.split(":")
    if parts[0] in ("first_player", "score_mean"):
        return ("start player " if parts[0] == "first_player" else "mean score ") + parts[-1]
    if (parts[0], len(parts)) in _LABELS:
        return _LABELS[parts[0], len(parts)].format(*parts)
    return key if len(key) <= 34 else key[:33] + "…"


def replay_note(run_dir: Path | None) -> str:
    """The caption's sentence on the example-game column: the command its flags complete."""
    command = replay_command(run_dir, 0).rsplit(" --game", 1)[0]
    return f" Example game: replay it with `{command}` and the flags shown."


def table(answers: Sequence[Answer], run_dir: Path | None,
          robust: Mapping[str, Any] | None) -> pd.DataFrame:
    """One row per answer: question, answer, verdict (``verdict``), example game (the flags of
    ``analyzer replay RUN_DIR/scenario.toml`` that replay it: the caption gives the command once,
    so the table stays in the first screen)."""
    rows = []
    for a in answers:
        r = a["record"]
        row = {"question": a["ask"], "answer": short_text(r),
               "verdict": verdict(r, robust, a.get("tolerance"))}
        ex = list(r.get("examples") or [])
        variant = r.get("example_variant") or BASE
        row["example game"] = (f"`--game {int(ex[0])}"
                               + (f" --variant {shlex.quote(variant)}`" if variant != BASE else "`")
                               if ex else "–")
        rows.append(row)
    out = pd.DataFrame(rows)
    if len(out) and (out["example game"] == "–").all():  # no answer is about particular games
        out = out.drop(columns="example game")
    return out


def _scaled(record: Mapping[str, Any], name: str) -> float:
    v = record.get(name)
    return math.nan if missing(v) else float(v) * float(record.get("scale") or 1.0)


def draw(answers: Sequence[Answer], robust: Mapping[str, Any] | None):
    """``draw(ax)`` of the answers chart (it replaces ``ax`` by its own panels): one panel per unit, one row per answer, its
    estimate with its 95 % interval and the no-effect line; after a robustness check one
    coloured, labelled point per condition."""
    units = list(dict.fromkeys(str(a["record"].get("unit") or "") for a in answers))
    conds = list((robust or {}).get("conditions") or [])
    rows = {str(r.get("key")): r for r in (robust or {}).get("findings", [])}

    def plot(ax0) -> None:
        fig = ax0.figure
        ax0.remove()
        sizes = [sum(1 for a in answers if str(a["record"].get("unit") or "") == u)
                 for u in units]
        axes = fig.subplots(len(units), 1, squeeze=False,
                            gridspec_kw={"height_ratios": sizes})[:, 0]
        cmap = colormaps["tab10"]
        for ax, unit in zip(axes, units):
            mine = [a for a in answers if str(a["record"].get("unit") or "") == unit]
            for y, a in enumerate(mine):
                r = a["record"]
                est, lo, hi = (_scaled(r, k) for k in ("estimate", "lo", "hi"))
                if not math.isnan(lo) and not math.isnan(hi):
                    ax.plot([lo, hi], [y, y], color="#333", lw=2)
                ax.plot([est], [y], "o", color="#333", ms=6)
                by = (rows.get(a["key"]) or {}).get("by_condition") or {}
                for j, c in enumerate(conds):
                    v = by.get(c["name"]) or {}
                    x = _scaled({**v, "scale": r.get("scale")}, "estimate")
                    if not math.isnan(x):
                        ax.plot([x], [y + 0.18 + 0.06 * (j % 3)], "D", ms=4, color=cmap(j % 10),
                                label=c["label"] if y == 0 else None)
            null = next((a["record"].get("null") for a in mine
                         if a["record"].get("null") is not None), None)
            if null is not None:
                ax.axvline(float(null) * float(mine[0]["record"].get("scale") or 1.0),
                           color="#999", lw=1, ls="--")
            ax.set_xlim(*axis_range(ax.get_xlim(), unit))
            ax.set_yticks(range(len(mine)), [_label(a) for a in mine], fontsize=8)
            ax.set_ylim(len(mine) - 0.5, -0.6)
            ax.set_xlabel(unit or "value (its own unit: see the answer)", fontsize=8)
            ax.tick_params(axis="x", labelsize=8)
            ax.grid(axis="x", alpha=0.3)
        if conds:
            handles, labels = axes[0].get_legend_handles_labels()
            if handles:
                fig.legend(handles, labels, loc="outside lower center", fontsize=7, ncol=2,
                           frameon=False, title="robustness conditions", title_fontsize=7)
        fig.suptitle("Answers with 95 % intervals" + (" and each robustness condition"
                                                     if conds else ""), fontsize=9)
    return plot


SHARE_UNITS = ("pp", "%")
SHARE_PAD = 3.0  # pp a share's axis keeps on each side of what it draws


def axis_range(limits: tuple[float, float], unit: str) -> tuple[float, float]:
    """The x range of an answers panel: for a share or a difference of shares (``pp``, ``%``)
    at least ``SHARE_PAD`` pp beyond what is drawn on each side, so that a ±1.5 pp interval
    does not fill the panel (a % axis stays within 0–100); other units as drawn."""
    lo, hi = limits
    if unit not in SHARE_UNITS:
        return lo, hi
    lo, hi = lo - SHARE_PAD, hi + SHARE_PAD
    if unit == "%":
        lo, hi = max(lo, 0.0), min(hi, 100.0)
    return lo, hi


def chart_size(answers: Sequence[Answer], robust: Mapping[str, Any] | None
               ) -> tuple[float, float]:
    """Width and height (inches) of the answers chart: small enough to sit beside the table."""
    units = len({str(a["record"].get("unit") or "") for a in answers})
    conds = len((robust or {}).get("conditions") or [])
    return 5.0, min(7.0, 0.9 + 0.32 * len(answers) + 0.45 * units + 0.22 * ((conds + 1) // 2))


# ------------------------------------------------------------------ caveats once


def caveats(acted: Mapping[str, Any] | None, defaults: Mapping[str, Any], link: str) -> str:
    """The "What these answers rest on" sentence: per counted labelled default that acted in
    the base's games, what it is and its share of games; and how many rule values of the run
    are labelled defaults, with a link to the appendix."""
    names = list(dict.fromkeys(d["name"] for values in (defaults or {}).values() for d in values))
    arm = next(iter((acted or {}).get("arms") or []), None)
    parts = []
    if arm is not None:
        whats = {c["column"]: (c["default"], c["what"]) for c in acted["counters"]}
        used = sorted((r for r in arm["counters"] if r["in_use"] and r["acted"]),
                      key=lambda r: -r["share"])
        # every caveat of (nearly) every game is named here: the findings leave it to the box
        shown = max(MAX_CAVEATS, sum(r["share"] >= guesses.NEARLY_ALL for r in used))
        parts = [f"{whats[r['column']][1].split(' (', 1)[0]} (`{whats[r['column']][0]}`) in "
                 f"{guesses.share_text(r['share'])}" for r in used[:shown]]
        if len(used) > shown:
            parts.append(f"{len(used) - shown} more, each in at most "
                         f"{guesses.share_text(used[shown]['share'])}")
    if not names and not parts:
        return (f"**{CAVEATS}:** no labelled default (guessed content or unsourced rule value) "
                "is in use in this run.")
    head = f"**{CAVEATS}:** "
    if parts:
        whose = ("of every game of the run" if arm["variant"] == guesses.POOLED
                 else f"of the games of `{arm['variant']}`")
        head += (f"guessed content and rule defaults acted in these shares {whose}: "
                 + "; ".join(parts) + ". ")
    elif arm is not None:
        head += "no counted labelled default acted in the games. "
    if names:
        head += (f"{len(names)} rule value{'s' if len(names) != 1 else ''} of this run "
                 f"{'are' if len(names) != 1 else 'is'} labelled default{'s' if len(names) != 1 else ''}"
                 f" (`[GAP → DEFAULT]`), listed in the {link}. Every answer rests on them; one "
                 "below mentions a caveat only when it is its own.")
    return head.rstrip()


# ------------------------------------------------------------------ also found


def seat_order(results: Mapping[str, Any]) -> str:
    """The seat-order imbalance of the base arm in one line, or ``""`` when the test that
    every turn-order position wins equally often (``first_player``'s chi-square, corrected
    over the arms) does not reject: the position furthest from a fair share — any position,
    not only the start player's — with its win share, Wilson interval and the fair share."""
    rows = ((results.get("studies") or {}).get("first_player") or {}).get("by_variant") or []
    rec = next((r for r in rows if r.get("variant") == BASE), None)
    if rec is None or not rec.get("all_significant") or not rec.get("positions"):
        return ""
    fair = float(rec["fair"])
    worst = max(rec["positions"], key=lambda r: abs(float(r["rate"]) - fair))
    where = "the start player" if worst["position"] == 0 else (
        f"the {_ordinal(int(worst['position']) + 1)} to move")
    word = "below" if worst["rate"] < fair else "above"
    # the test is of every position at once, in its own family: a reader took it for a test
    # of the start player that contradicted the start player's own answer
    return (f"Seat order: the turn-order positions of `{BASE}` do not all win equally often "
            f"(chi-square test of every position at once, "
            f"{p_text(rec.get('p_all_adjusted'), phrase=True)} after Holm over the arms, not "
            f"over this run's findings); furthest from a fair {100 * fair:.1f} % is position "
            f"{int(worst['position']) + 1} ({where}), {word} it: "
            f"{pct(worst['rate'], worst['lo'], worst['hi'])} of the games.")


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}.get(
        n, f"{n}th")


def also_found(records: Sequence[Mapping[str, Any]], results: Mapping[str, Any],
               asked: Sequence[str]) -> list[str]:
    """Up to ``MAX_ALSO`` lines under the Answers: a seat-order imbalance (``seat_order``)
    unless a question asks about it, then the largest findings (by standardized size) that
    hold after Holm over the run's findings and that no answer shows, each in one short
    sentence (``short_text``)."""
    asked = set(asked)
    out = []
    seat = seat_order(results)
    if seat and not any(k.startswith(("seat:", "seat_order")) for k in asked):
        out.append(seat)
    holding = [r for r in records if r.get("holds") and not r.get("same_test_as")
               and not r.get("figure") and str(r.get("key")) not in asked
               and not (seat and str(r.get("key")).startswith("seat:"))]
    holding.sort(key=lambda r: -math.inf if r.get("exact") else -_value(r, "size"))
    for r in holding[:MAX_ALSO - len(out)]:
        out.append(f"`{r['key']}`: {short_text(r)}")
    return out


# ------------------------------------------------------------------ the section


def section(doc: Doc, run: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
            results: Mapping[str, Any], at: int, run_dir: Path | None = None,
            robust: Mapping[str, Any] | None = None,
            acted: Mapping[str, Any] | None = None, spec: Any = None) -> dict[str, Any]:
    """The Answers: ``write`` of ``numbers`` into ``doc`` at block ``at``; returns the
    numbers for ``summary.json["results"]["answers"]``."""
    found = numbers(run, records, results, run_dir, robust, spec)
    write(doc, found, found.pop(CHOSEN), run, at, run_dir, robust, acted)
    return found


CHOSEN = "_chosen"  # the answers with their finding records, for ``write`` only


def numbers(run: Mapping[str, Any], records: Sequence[Mapping[str, Any]],
            results: Mapping[str, Any], run_dir: Path | None = None,
            robust: Mapping[str, Any] | None = None, spec: Any = None) -> dict[str, Any]:
    """Which findings answer the run's questions (``[[questions]]``, else the study kind's own
    answers in its order) and their numbers. ``records``: the run's key findings; ``spec``: the
    run's game (``None`` when this installation has none), whose own key patterns tell a key it
    did not estimate from a typo (``declared``).

    Returns
    -------
    dict
        ``{"declared": bool, "not_answered": [str], "answers": [{question, key, answer,
        estimate, lo, hi, unit, verdict, example: {game_id, variant}}], "also_found": [str]}``
        for ``summary.json["results"]["answers"]`` (numbers in the unit shown), and under
        ``CHOSEN`` the answers with their finding records (for ``write``; not in
        ``summary.json``). A question the run cannot answer is a row saying why
        (``declared``), never an error.
    """
    facts, study = RunFacts.of(run), studies.of_run(run)
    questions = list(facts.questions)
    own = studies.load(study.answers)(records, results, run)  # in the kind's fixed order
    # a question may name a finding's key or one of the study kind's own answers (a sweep's
    # ``first_player:ARM``, ``score_mean:ARM``)
    known = list(records) + [a["record"] for a in own
                             if a["key"] not in {str(r.get("key")) for r in records}]
    kind = study.kind
    patterns = key_patterns(spec) if as_written(kind) else ()
    chosen, notes = declared(questions, known, kind, patterns) if questions else (own, [])
    if questions and not chosen:  # none is this study kind's: its own answers
        chosen = own
    elif questions and not as_written(kind):  # a study of arms of its own: its question first
        asked = {a["key"]: a for a in chosen}  # the file's words where both ask the same
        chosen = ([asked.pop(a["key"], a) for a in own]) + list(asked.values())
    tolerances = {(q.get("ask"), q.get("finding")): q.get("tolerance") for q in questions}
    is_own = chosen is own  # before the copy below (comparing after it was always False)
    chosen = [{**a, "tolerance": tolerances.get((a["ask"], a["key"]))} for a in chosen]
    if kind == "balance":  # the file's questions are measured at the value found
        chosen = [a if a["key"].startswith("balance:") else
                  {**a, "record": {**a["record"], "at_value_found": True}} for a in chosen]
    return {"declared": bool(questions) and not is_own, "not_answered": notes,
            "answers": [_summary(a, run_dir, robust) for a in chosen],
            "also_found": also_found(records, results, [a["key"] for a in chosen]),
            CHOSEN: chosen}


def write(doc: Doc, n: Mapping[str, Any], chosen: Sequence[Answer], run: Mapping[str, Any],
          at: int, run_dir: Path | None = None, robust: Mapping[str, Any] | None = None,
          acted: Mapping[str, Any] | None = None) -> None:
    """Put the Answers heading, table, chart and caveats box of the numbers ``n``
    (``numbers``) into ``doc`` at block ``at``; ``chosen``: the answers with their finding
    records (``n[CHOSEN]``), which the table and chart show."""
    study = studies.of_run(run)
    kind, word = study.kind, studies.word(study.kind)
    part = type(doc)(doc.chart_dir)  # a Numbers doc stays one: no chart
    part.h(HEADING)
    if not chosen:
        part.p("No answer: this run has no finding with an interval to answer with.")
    else:
        if n["declared"] and not as_written(kind):
            how = (f"the {word}'s own questions, then those of the study file ([[questions]]) "
                   f"this {word} answers")
        elif n["declared"]:
            how = "the questions the study file declares ([[questions]])"
        else:  # a kind's answers may say their order (``order``: sensitivity's by effect)
            order = getattr(studies.load(study.answers), "order", "in a fixed order")
            how = (f"the {word}'s own questions, {order} (declare yours with "
                   "[[questions]] and a key of analyzer findings RUN_DIR)")
        verdicts = ("; verdict: the robustness check's verdict (and what moved it) where it "
                    "checked the answer, else" if robust else "; verdict:")
        verdicts += (f" \"{SIGNIFICANT}\", \"{NOT_SIGNIFICANT}\" or \"{FIGURE}\" (a number "
                     "with no test)" + ("" if robust else
                                       "; not checked for other players or rule defaults "
                                       "(run analyzer robustness)"))
        shown = chosen[:MAX_SHOWN]
        more = (f" The first {MAX_SHOWN} of {len(chosen)} are shown; all are in "
                "`summary.json` (`answers`)." if len(chosen) > MAX_SHOWN else "")
        part.side(table(shown, run_dir, robust), CHART,
                  f"Answers: {how}. Numbers with their 95 % intervals{verdicts}; the key "
                  f"findings below give each one's test and method.{more}"
                  + (replay_note(run_dir) if any((a["record"] or {}).get("examples")
                                                 for a in shown) else ""),
                  draw(shown, robust), chart_size(shown, robust))
    extra, notes = n["also_found"], n["not_answered"]
    if extra:
        part.p(f"**{ALSO}** (not asked; the largest findings that hold after Holm, and any "
               "seat-order imbalance):")
        for line in extra:
            part.p(f"- {line}")
    if notes:
        part.p("Not answered here: " + "; ".join(notes) + (
            f". {studies.a_word(kind).capitalize()} makes arms of its own; `analyzer findings` "
            "lists its keys."
            if not as_written(kind) else "."))
    part.p(caveats(acted, RunFacts.of(run).defaults, LINK))
    doc.blocks[at:at] = part.blocks


def _summary(a: Answer, run_dir: Path | None, robust: Mapping[str, Any] | None
             ) -> dict[str, Any]:
    r = a["record"]
    ex = list(r.get("examples") or [])
    return {"question": a["ask"], "key": a["key"], "answer": short_text(r),
            "estimate": _scaled(r, "estimate"), "lo": _scaled(r, "lo"), "hi": _scaled(r, "hi"),
            "unit": units.shown(r), "verdict": verdict(r, robust, a.get("tolerance")),
            **({"tolerance": a["tolerance"]} if a.get("tolerance") is not None else {}),
            # the game the table's replay command shows (the command depends on where the run
            # directory is, so it is the report's, as for the key findings)
            "example": ({"game_id": int(ex[0]), "variant": r.get("example_variant") or BASE}
                        if ex else None)}


__all__ = ["ablate", "also_found", "axis_range", "balance", "caveats", "compare", "declared",
           "draw", "holm_verdict", "numbers", "seat_order", "section", "short_text", "simulate",
           "sweep", "table", "tolerance_text", "tournament", "tune", "verdict", "within", "write"]
