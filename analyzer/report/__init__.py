"""The run report: ``reports/<name>/`` with tables, charts, Markdown and self-contained HTML.

Layout of a run directory::

    scenario.toml      the scenario as run (overrides applied)
    games.parquet      one row per game and variant
    seats.parquet      one row per seat, game and variant
    summary.json       {"run": run facts, "results": the report's numbers}
    report.md, report.html, charts/*.png
    chunks/            the per-chunk parts (kept for --resume)

``render(run_dir)`` reads only the Parquet files and ``summary.json["run"]`` (written at run time:
scenario facts and descriptions, labelled defaults, what each user data table changes,
throughput), so ``analyzer report DIR`` re-renders without playing a game. Rules citations
link to ``docs/rules/`` relative to wherever the run directory is (``citations.py``). The report names no game: after its generic sections it calls the sections the
run's game declares (``GameSpec.sections``, found through the registry by ``run["game"]``).
Which study made the run (``run["study"]["kind"]``) decides, through the study registry
(``analyzer.studies``), its own section (``compare.py``, ``sweep.py``, ``ablate.py``) or a
report of its own (``tournament.py``, ``tuning.py``) and where its numbers go in
``summary.json``. Every file is written to a temporary name and renamed. Each section reads only
the record columns it uses, one section at a time (``records.py``), so the report's memory stays
near flat in the number of games.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analyzer import studies, userfiles
from analyzer.errors import AnalyzerError, RuleError
from analyzer.files import atomic_write
from analyzer.games import get_game
from analyzer.model.base import GameSpec
from analyzer.report import (
    answers,
    citations,
    finding_keys,
    findings,
    guesses,
    quality,
    records,
    robustness,
    role_keys,
    sample_size,
    summary,
)
from analyzer.report import render as fmt
from analyzer.report.answers import APPENDIX, LINK
from analyzer.report.document import Doc, Numbers, correction_of
from analyzer.report.first_player import first_player
from analyzer.report.sections import all_sections
from analyzer.report.summary import Arm, RunFacts
from analyzer.report.target_precision import target_precision

__all__ = ["RUN_FILES", "atomic_write", "build", "render"]

RUN_FILES = ("scenario.toml", "games.parquet", "seats.parquet", "summary.json", "report.md",
             "report.html")


def _short(value: Any, width: int = 60) -> str:
    """A value for a table cell; long tables (a map, a token list) are cut with an ellipsis."""
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def _header(doc: Doc, run: RunFacts, games: pd.DataFrame, options: set[str] | None = None
            ) -> None:
    doc.h("This run")
    variants = list(pd.unique(games["variant"]))
    n = int((games["variant"] == variants[0]).sum()) if variants else 0
    editions = ", ".join(sorted(map(str, pd.unique(games["rules_version"]))))
    counts = sorted({int(n) for n in pd.unique(games["n_players"])}) if "n_players" in games \
        else []
    players = (f"{run.said('players')} players" if len(counts) < 2 else
               f"{run.said('players')} players in the base, "
               f"arms of {', '.join(map(str, counts[:-1]))} and {counts[-1]} players (column "
               "`players` below)")
    doc.p(f"Game **{run.said('game')}** (expansions: {', '.join(run.expansions) or 'none'}), "
          f"{players}, **{n} games** per variant, root seed **{run.said('seed')}**, seat "
          f"rotation {'on' if run.seat_rotation else 'off'}. Rules edition: `{editions}`. "
          f"Scenario: `{run.said('scenario_file')}` (as run: `scenario.toml`).")
    doc.p(defaults_line(run.defaults, options))  # how often: the Answers box
    k = len(variants)
    for text in run.how_played(f"Played {n:,} games × {k} variant{'s' if k != 1 else ''} = "
                               f"{int(run.games_played or n * k):,} games in {run.seconds:.1f} s"):
        doc.p(text)
    if run.arms:
        doc.p("Variants (all on the same game seeds):")
        doc.table(_variants_table(run.arms, run.tables))
    _user_tables(doc, run.tables, len(run.arms))


def defaults_line(defaults: dict[str, list[dict]], options: set[str] | None = None,
                  acted: dict | None = None) -> str:
    """One line for the report's top: how many rule values of the run are labelled defaults —
    rule options and guessed content (a value whose name is not a rule option of the game:
    a data-table entry, grouped by the table its name starts with, ``TABLE.ENTRY`` -> ``TABLE``) —
    with a link to the appendix that lists them. ``options``: the game's rule option names
    (``None``: the game is unknown here, no split). ``acted``: how often the game's counted
    labelled defaults acted (``guesses.measure``); when given, the line ends with the share of
    the first arm's games where one did."""
    if "base" not in defaults:
        return f"Labelled defaults: not recorded for this run (see the {LINK})."
    names = list(dict.fromkeys(d["name"] for values in defaults.values() for d in values))
    if not names:
        return "**Labelled defaults**: no rule value of this run is a labelled default."
    extra = len(set(names) - {d["name"] for d in defaults["base"]})
    many = len(names) != 1
    head = (f"**Labelled defaults**: {len(names)} rule value{'s' if many else ''} of this run "
            f"{'are' if many else 'is a'} `[GAP → DEFAULT]` choice{'s' if many else ''} of the "
            "rules file, not sourced" + (f" ({extra} of them only in variants)" if extra else ""))
    if options is not None:
        content = [n for n in names if n not in options]
        tables = list(dict.fromkeys(n.partition(".")[0] for n in content))
        k = len(names) - len(content)
        head += (f": {k} rule option{'s' if k != 1 else ''} and {len(content)} content "
                 f"entr{'ies' if len(content) != 1 else 'y'}"
                 + (f" from {len(tables)} guessed content table{'s' if len(tables) != 1 else ''} "
                    f"({', '.join(f'`{t}`' for t in tables)}), what is known of each and what its "
                    "plausible alternatives vary in `analyzer list content`" if tables else ""))
    return (head + f"; listed in the {LINK}. Results rest on them."
            + guesses.header_sentence(acted, LINK))


def _appendix(doc: Doc, run: dict, run_dir: Path | None, acted: dict | None = None) -> None:
    """The labelled defaults of the run, last in the report (``defaults_line`` links here),
    and how often each counted one acted (``guesses.section``)."""
    defaults = run.get("defaults", {})
    # a tournament's arms are seat orders of one table: the first holds its defaults
    base_defaults = defaults.get("base") or next(iter(defaults.values()), [])
    doc.h(APPENDIX)
    if base_defaults:
        doc.p("These rule values are `[GAP → DEFAULT]` choices of the rules file, not sourced from "
              "a rulebook or seed; results rest on them:")
        doc.table(pd.DataFrame([{"rule value": d["name"], "value": _short(d["value"]),
                                 "section": citations.linked(d.get("section", ""), run_dir)}
                                for d in base_defaults]))
    else:
        doc.p("No rule value in use is a labelled default." if defaults
              else "(Not recorded for this run.)")
    for name, values in defaults.items():
        extra = [d for d in values if d not in base_defaults]
        if name != "base" and extra:
            doc.p(f"Variant `{name}` also uses: " + "; ".join(
                f"{d['name']} = {_short(d['value'])}" for d in extra) + ".")
    guesses.section(doc, acted, lambda text: citations.linked(text, run_dir))


def _variants_table(arms: Sequence[Arm], tables: Sequence[Mapping]) -> pd.DataFrame:
    """One row per arm: its name, description, rule options (the base's in full, a variant's
    changes from the base) and seats. A user table's path is shown as in the table notes."""
    files = {(t["option"], t["path"]): t["file"] for t in tables}

    def show(rules: Mapping) -> list[str]:
        return [f"{k} = {files.get((k, str(v)), v)}" for k, v in rules.items()]

    base = arms[0].rules
    described = any(arm.description for arm in arms)
    varied = len({arm.players for arm in arms}) > 1  # arms of several player counts
    column = "rules" if len(arms) == 1 else "rules (changes from base)"
    rows = []
    for i, arm in enumerate(arms):
        rules = arm.rules
        if i == 0:
            text = "; ".join(show(rules)) or "none set (the game's defaults)"
        else:
            changed = show({k: v for k, v in rules.items() if base.get(k) != v})
            changed += [f"{k} = the game's default" for k in base if k not in rules]
            text = "; ".join(changed) or "same rules as the base"
        row = {"variant": arm.name}
        if described:
            row["description"] = arm.description
        row[column] = text
        if varied:
            row["players"] = "" if arm.players is None else arm.players
        row["seats"] = ", ".join(arm.seats)
        rows.append(row)
    return pd.DataFrame(rows)


def _user_tables(doc: Doc, tables: Sequence[Mapping], n_arms: int) -> None:
    """One sentence per user data table: what it changes against the built-in table it
    replaces (``analyzer.tablediff``, computed at run time)."""
    for t in tables:
        where = f" (variants: {', '.join(t['arms'])})" if n_arms > 1 else ""
        head = f"`{t['option']}` = `{t['file']}`{where}"
        if "error" in t:
            doc.p(f"{head}: {t['error']}.")
            continue
        differ, entries, builtin = t["differ"], t["entries"], t["builtin"]
        if not differ:
            doc.p(f"{head}: the same {entries} entries as the built-in `{builtin}`.")
            continue
        more = differ - len(t["changes"])
        changes = "; ".join(f"`{c['entry']}` {c['change']}" for c in t["changes"])
        doc.p(f"{head}: {differ} entr{'y differs' if differ == 1 else 'ies differ'} from the "
              f"built-in `{builtin}` ({entries} entries): {changes}"
              + (f"; and {more} more." if more else "."))


def build(doc: Doc, run: dict[str, Any], games: records.Table | pd.DataFrame,
          seats: records.Table | pd.DataFrame, run_dir: Path | None = None,
          rounds: pd.DataFrame | None = None) -> dict[str, Any]:
    """Fill ``doc`` with the header and every section; returns the results for ``summary.json``.

    Parameters
    ----------
    doc : Doc
        The report being built (charts are written to ``doc.chart_dir``).
    run : dict
        The run facts (``summary.json["run"]``); may be empty.
    games, seats : records.Table or DataFrame
        The record tables; each section reads the columns it uses from them.
    run_dir : Path, optional
        Where the report is written: rules citations link to ``docs/rules/`` relative to it
        (``citations.linked``); ``None``: citations stay plain text.
    rounds : DataFrame, optional
        The checkpoints after every round (``quality.ROUNDS_FILE``'s rows) when they are not
        ``run_dir``'s file (``analyzer balance``'s settings): the ``quality:`` findings.
    """
    games, seats = records.as_table(games), records.as_table(seats)
    facts = RunFacts.of(run)
    study, spec = studies.of_run(run), _known_game(facts.game)
    # how often its labelled defaults acted; an own report's arms (tables, start and tuned) pooled
    acted = (guesses.measure(games, spec.guesses, run, guesses.POOLED if study.own_report else None)
             if spec is not None else None)
    if facts.description:  # what the study asks, under the title
        doc.p(facts.description)
    if study.own_report:  # its arms are a schedule's tables or start and tuned: no per-arm one
        results = {study.results[0]: _own_report(studies.load(study.own_report), doc, run,
                                                 seats, run_dir)}
        # the Answers (issue #25) right under the title and the description
        at = int(bool(facts.description) and doc.blocks[:1] == [("p", facts.description)])
        results["answers"] = answers.section(
            doc, run, finding_keys.of_summary({"run": run, "results": results}), results, at,
            run_dir, acted=acted, spec=spec)
        if study.appendix:
            _appendix(doc, run, run_dir, acted)
        return results
    head = games.read(("variant", "rules_version", "n_players"))
    players = int(facts.players or head["n_players"].iloc[0])
    if small := sample_size.small_run(int(facts.games or 0), players):  # said first
        doc.p(small)
    top = len(doc.blocks)  # the key findings go here once every section has its numbers
    _header(doc, facts, head, set(spec.options.names()) if spec is not None else None)
    del head
    if spec is None and facts.game:  # the report is then the generic one
        doc.p(f"The game of this run ({facts.game}) is not one of this installation's, so its "
              "own sections are left out.")
    sections = tuple(spec.sections()) if spec is not None and spec.sections is not None else ()
    item_kind = spec.item_kind if spec is not None else "item"
    results = all_sections(doc, games, seats, players, sections, run)
    results["studies"] = _study_sections(doc, run, games, seats, players, item_kind, study)
    if acted is not None:
        results["guesses"] = acted
    robust = robustness.load(run_dir, run)
    flow = quality.report(doc, run_dir, run, spec.flow if spec is not None else None, rounds)
    results["findings"] = findings.section(doc, results, run, seats, sections, item_kind,
                                           run_dir, at=top, robust=robust,
                                           extra=role_keys.findings(run, seats) + flow)
    # the robustness check of this run (``analyzer robustness``): its section, or what is
    # missing when the check stopped between its conditions
    # the Answers (issue #25) above the key findings, right under the description
    results["answers"] = answers.section(doc, run, results["findings"]["findings"], results,
                                         top, run_dir, robust, acted, spec)
    key = studies.STUDIES["robustness"].results[0]
    if robust is not None:
        numbers = {k: i for i, k in enumerate(results["findings"]["shown"], 1)}
        results[key] = robustness.section(doc, robust, numbers)
    else:
        pending = robustness_pending(run_dir, run)
        if pending is not None:
            results[key] = _pending_section(doc, pending)
    _appendix(doc, run, run_dir, acted)
    return results


def _own_report(module: Any, doc: Doc, run: dict[str, Any], seats: records.Table,
                run_dir: Path | None) -> dict[str, Any]:
    """A study's report of its own (``StudyKind.own_report``): its ``write`` of its ``numbers``
    (their key findings' assessment, ``findings.ASSESSED``, handed to ``write`` apart), or its
    ``build`` where the numbers need more; returns the numbers for ``summary.json``."""
    if hasattr(module, "build"):
        return module.build(doc, run, seats, run_dir)
    found = module.numbers(run, seats)
    module.write(doc, found, found["findings"].pop(findings.ASSESSED), run, run_dir)
    return found


def _study_sections(doc: Doc, run: dict[str, Any], games: records.Table, seats: records.Table,
                    players: int, item_kind: str, study: studies.StudyKind) -> dict[str, Any]:
    """The run-driven sections: first-player advantage (every report), the stopping rule of a
    target-precision run, then the study kind's own section (``analyzer.studies``); their
    numbers for ``summary.json["results"]["studies"]``."""
    out: dict[str, Any] = {"first_player": first_player(doc, seats, run, correction_of(run))}
    records.release_memory()
    if tc := RunFacts.of(run).target_ci:
        out["target_ci"] = target_precision(doc, dict(tc), seats)
    if study.section is not None and study.results[:1] == ("studies",):
        out[study.results[1]] = studies.load(study.section)(doc, run, games, seats, players,
                                                            item_kind)
    records.release_memory()
    return out


def robustness_pending(run_dir: Path | None, run: dict[str, Any]) -> dict[str, Any] | None:
    """A robustness check of this run that stopped before its verdicts: its plan
    (``robustness/plan.json``, written before the first condition) with ``missing``, the
    conditions without a finished run, and ``finished``; ``None`` when there is none."""
    if run_dir is None:
        return None
    folder = Path(run_dir) / robustness.FOLDER
    plan = robustness.read(folder / "plan.json", run)  # None: a plan of an earlier run too
    if plan is None:
        return None

    def done(name: str) -> bool:
        try:
            return bool(userfiles.read_json(folder / name / "summary.json").get("results"))
        except (userfiles.UnreadableFile, AttributeError):
            return False

    conditions = plan.get("conditions") or []
    return {"complete": False, "conditions": len(conditions),
            "finished": [c["name"] for c in conditions if done(c["name"])],
            "missing": [c["label"] for c in conditions if not done(c["name"])]}


def _pending_section(doc: Doc, pending: dict[str, Any]) -> dict[str, Any]:
    """The "Robustness" heading of a check that stopped between its conditions: which are
    missing, and how to finish it."""
    doc.h("Robustness")
    missing = pending["missing"]
    doc.p(f"**The robustness check of this run is incomplete**: {len(pending['finished'])} of "
          f"{pending['conditions']} conditions finished; missing: "
          + "; ".join(missing) + ". No finding has a verdict yet. Finish it with "
          "`analyzer robustness` and the same options plus `--resume`.")
    return pending


def _known_game(name: str) -> GameSpec | None:
    """The ``GameSpec`` of the game ``name`` (the run's), ``None`` when this installation has
    none."""
    try:
        return get_game(name) if name else None
    except RuleError:
        return None


def render(run_dir: str | Path, *, full: bool = True) -> dict[str, Any]:
    """(Re-)write ``summary.json``, ``report.md``, ``report.html`` and ``charts/`` of a run.

    Parameters
    ----------
    run_dir : str or Path
        A run directory holding ``games.parquet`` and ``seats.parquet``.
    full : bool
        ``False``: only the numbers — ``summary.json`` and ``findings.parquet`` (the same as a
        full render's), no chart, Markdown or HTML; a ``report.md``, ``report.html`` or
        ``charts/`` left by an earlier render is removed, as it would disagree with these
        records. ``analyzer robustness`` renders its replicate and conditions so (it reads
        only those two files); ``analyzer report DIR`` renders such a run in full.

    Returns
    -------
    dict
        The summary written to ``summary.json``.

    Raises
    ------
    AnalyzerError
        ``run_dir`` lacks the record files, or one cannot be read as Parquet; its
        ``summary.json`` cannot be read or is of a newer schema (``summary.read``).
    """
    run_dir = userfiles.looked_up(run_dir)
    for name in ("games.parquet", "seats.parquet"):
        if not (run_dir / name).is_file():
            raise AnalyzerError(f"{run_dir}: " + (finding_keys.not_a_run(run_dir) or (
                f"no {name} here (is this a run directory made by `analyzer simulate`?)")))
    summary_path = run_dir / "summary.json"
    facts = summary.read(summary_path).run if summary_path.is_file() else RunFacts.of({})
    run = facts.as_dict()
    chart_dir = run_dir / "charts"
    if full:
        chart_dir.mkdir(exist_ok=True)
        doc = Doc(chart_dir)
    else:
        for name in ("report.md", "report.html"):
            (run_dir / name).unlink(missing_ok=True)
        shutil.rmtree(chart_dir, ignore_errors=True)
        doc = Numbers(chart_dir)
    records.release_memory()  # what playing and aggregating the records left behind
    with records.keeping():  # each record column decoded once
        results = build(doc, run, records.Table(run_dir / "games.parquet"),
                        records.Table(run_dir / "seats.parquet"), run_dir)
    title = f"{facts.name or run_dir.name}: {facts.game} study report"
    spec = _known_game(facts.game)
    written = summary.content(summary.Summary(facts, results),
                              spec.sections() if spec and spec.sections else ())
    atomic_write(summary_path, json.dumps(written, indent=1))
    if full:
        atomic_write(run_dir / "report.md", fmt.to_markdown(title, doc.blocks))
        atomic_write(run_dir / "report.html", fmt.to_html(title, doc.blocks, chart_dir))
    return written
