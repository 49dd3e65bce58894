"""``analyzer sensitivity SCENARIO --finding KEY``: every numeric rule and table value of a
scenario moved one step down and one step up, its effect on a finding, at a glance (issue #35).

The knobs (those ``analyzer balance --vary`` could vary, ``analyzer.study.knobs``, that the base
arm uses), the steps and the numbers are as the README's "Sensitivity" says: the base arm and
one arm per knob and direction on the same game seeds, in one ``StudyRun.play``; each arm's
finding paired with the base's by ``stats.paired_difference`` (``analyzer.report.sensitivity``),
Holm over every knob × direction row.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
import shlex
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer

from analyzer import runner, stats, userfiles
from analyzer.errors import OptionError, RuleError, ScenarioError
from analyzer.keywords import checked
from analyzer.report import extension, finding_keys
from analyzer.report import sensitivity as report_sensitivity
from analyzer.report.summary import RunFacts
from analyzer.scenario import BASE, Scenario, with_overrides
from analyzer.studies import ScenarioFile, StudyKind
from analyzer.study import knobs, questions
from analyzer.study.run import Results, StudyRun, only_base, prepare, validate
from analyzer.study.search import derived_seed

FLOAT_STEP = 0.1  # a float knob's default step: this share of its value (this, at 0)
PROBE_GAMES = 100  # games of the probe that checks the key (in a temporary folder)
PROBE_STREAM = 3  # spawn key of the probe's root seed (as ``analyzer balance``'s probe)
_GLOB = set("*?[")


@dataclass(frozen=True)
class Move:
    """One knob moved one step: the arm that plays it.

    Attributes
    ----------
    path : str
        The knob (``rules.NAME`` or ``tables.TABLE.ENTRY.FIELD``).
    direction : int
        -1 (down) or +1 (up).
    start, value, step : int or float
        The base arm's value, the value played and the step (``value = start + direction ×
        step``).
    arm : str
        The arm's name, ``LABEL=VALUE`` (``vp_token_value=2``).
    """

    path: str
    direction: int
    start: int | float
    value: int | float
    step: int | float
    arm: str

    def facts(self) -> dict[str, Any]:
        """The move for ``summary.json["run"]["study"]["moves"]``."""
        return {"path": self.path, "label": self.path.split(".", 1)[1],
                "direction": self.direction, "start": self.start, "value": self.value,
                "step": self.step, "arm": self.arm}


def _number(x: float) -> int | float:
    """``x`` as a whole number when it is one (for names and TOML)."""
    return int(x) if float(x).is_integer() else float(x)


def parse_step(step: str | float | None) -> float | None:
    """``--step S`` as a positive finite number (``None``: each knob's natural step).

    Raises
    ------
    OptionError
        Not a number, not finite or not above 0.
    """
    if step is None:
        return None
    try:
        value = float(str(step).strip())
    except ValueError:
        raise OptionError("step", f"must be a number (got {step!r})") from None
    if not math.isfinite(value) or value <= 0:
        raise OptionError("step", f"must be a finite number above 0 (got {step!r})")
    return value


def candidates(scenario: Scenario) -> list[str]:
    """Every knob path of ``scenario``'s game, in the game's order: its numeric rule options
    that are no simulator guard, then every number of each content table the base arm plays
    (``knobs.entries`` × the numbers of each entry)."""
    spec = scenario.spec
    out = [f"rules.{o.name}" for o in spec.options if knobs._knob_option(o)]
    for option in (o for o in spec.tables if o.endswith(knobs.FILE_SUFFIX)):
        table = option.removesuffix(knobs.FILE_SUFFIX)
        data = knobs.read_table(scenario, option)
        for entry in knobs.entries(data):
            _, node = knobs._entry(data, entry, f"tables.{table}.{entry}")
            out += [f"tables.{table}.{entry}.{f}" for f in knobs._numbers(node)]
    return out


def _selected(scenario: Scenario, paths: list[str], only: str | Sequence[str] | None
              ) -> list[str]:
    """``paths`` restricted to ``only`` (comma-separated paths or globs).

    Raises
    ------
    OptionError
        (``only``) an empty list, a path that names no knob (the reason ``analyzer balance
        --vary`` gives: an unknown option, a guard, not a number), a glob that matches none.
    """
    if only is None:
        return paths
    words = [w.strip() for w in (only.split(",") if isinstance(only, str) else only)]
    if not words or any(not w for w in words):
        raise OptionError("only", f"give comma-separated knob paths or globs (got {only!r})")
    keep: set[str] = set()
    for word in words:
        if _GLOB & set(word):
            hit = fnmatch.filter(paths, word)
            if not hit:
                raise OptionError("only", f"{word!r} matches no knob of {scenario.name} (knobs "
                                          f"are rules.NAME and tables.TABLE.ENTRY.FIELD)")
            keep.update(hit)
        elif word in paths:
            keep.add(word)
        else:
            raise OptionError("only", _unknown(scenario, word, paths))
    return [p for p in paths if p in keep]


def _unknown(scenario: Scenario, path: str, paths: list[str]) -> str:
    """Why ``path`` names no knob, in one line (``knobs.knob``'s reason where it has one)."""
    try:
        knobs.knob(scenario, f"{path}=0..1")
    except OptionError as err:
        return err.message
    near = difflib.get_close_matches(path, paths, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return f"{path}: not a knob of {scenario.name}{hint}"


def _knob(scenario: Scenario, path: str, lo: float, hi: float) -> knobs.Knob:
    """``knobs.knob`` of ``path`` over ``lo..hi`` (raises its ``OptionError``)."""
    return knobs.knob(scenario, f"{path}={_number(lo)!r}..{_number(hi)!r}")


def _values(scenario: Scenario) -> list[Any]:
    """What the game says acts (``rule_values``) in ``scenario``'s base arm: (name, value)
    pairs, for telling a knob in use from one that is not."""
    spec = scenario.spec
    arm = scenario.arms[0]
    config = spec.make_config(scenario.arm_players(arm), scenario.expansions, arm.rules)
    return [(rv.name, repr(rv.value)) for rv in spec.rule_values(config)]


def moves(scenario: Scenario, paths: Sequence[str], step: float | None, folder: Path
          ) -> tuple[list[Move], list[dict[str, Any]], list[str]]:
    """The arms of a sensitivity: each knob of ``paths`` one step down and up.

    Parameters
    ----------
    scenario : Scenario
        Its base arm is moved.
    paths : sequence of str
        Knob paths (``candidates``).
    step : float, optional
        The step of every knob (``None``: 1 for an integer, ``FLOAT_STEP`` of the value for a
        float).
    folder : Path
        Where changed tables are written to compare what acts.

    Returns
    -------
    (list of Move, list of dict, list of str)
        The moves; each direction not played ``{"path", "direction", "value", "why"}``; the
        paths not in use (moving them changes nothing the game says acts).

    Raises
    ------
    OptionError
        (``step``) a step that is not a whole number where an integer knob is moved.
    """
    base_values = None
    out, refused, unused = [], [], []
    for path in paths:
        known = _start(scenario, path)
        if known is None:
            unused.append(path)
            continue
        start, kind = known
        if step is None:
            s: float = 1 if kind is int else (FLOAT_STEP * abs(start) or FLOAT_STEP)
        elif kind is int and not float(step).is_integer():
            raise OptionError("step", f"{_number(step)} is not a whole number, and {path} is an "
                                      "integer (restrict the knobs with {only})", only=None)
        else:
            s = step
        s = kind(s)
        mine = []
        for d in (-1, 1):
            value = kind(start + d * s)
            lo, hi = (value, start) if d < 0 else (start, value)
            try:
                _knob(scenario, path, lo, hi)
            except OptionError as err:
                refused.append({"path": path, "direction": d, "value": value,
                                "why": err.message.split(": ", 1)[-1]})
                continue
            mine.append(Move(path, d, kind(start), value, s,
                             f"{path.split('.', 1)[1]}={_number(value)!r}"))
        if not mine:
            continue
        if base_values is None:
            base_values = _values(scenario)
        moved = [_setting(scenario, m, folder) for m in mine]
        if all(_values(sc) == base_values for sc in moved):
            unused.append(path)
            refused[:] = [r for r in refused if r["path"] != path]
            continue
        out += mine
    return out, refused, unused


def _start(scenario: Scenario, path: str) -> tuple[float, type] | None:
    """The base arm's value of knob ``path`` and the type of the values it takes (``int`` or
    ``float``: its option's type; a table number's as written); ``None``: it has no value."""
    try:
        if path.startswith("rules."):
            option = scenario.spec.options[path.split(".", 1)[1]]
            value = scenario.spec.options.resolve(scenario.players,
                                                  scenario.arms[0].rules)[option.name]
            return None if value is None else (float(value), option.type)
        parts = path.split(".")
        data = knobs.read_table(scenario, parts[1] + knobs.FILE_SUFFIX)
        _, entry = knobs._entry(data, parts[2], path)
        _, value = knobs._field(entry, parts[3:], path, parts[2])
        return float(value), int if isinstance(value, int) else float
    except (OptionError, RuleError, KeyError):
        return None


def _setting(scenario: Scenario, m: Move, folder: Path) -> Scenario:
    """``scenario`` (its base arm) with the knob of ``m`` at its value; a changed table is
    written to ``folder``."""
    k = _knob(scenario, m.path, min(m.value, m.start), max(m.value, m.start))
    return knobs.setting(only_base(scenario), [k], [m.value], folder)


def expand(scenario: Scenario, found: Sequence[Move], folder: Path) -> Scenario:
    """The scenario's base arm and one arm per move (named ``Move.arm``), changed tables
    written to ``folder``."""
    base = scenario.arms[0]
    arms = [base]
    for m in found:
        changed = _setting(scenario, m, folder).arms[0]
        word = "down" if m.direction < 0 else "up"
        arms.append(replace(changed, name=m.arm, description=(
            f"{m.path} one step {word}: {_number(m.start)!r} -> {_number(m.value)!r}")))
    return replace(scenario, arms=tuple(arms))


def check_key(scenario: Scenario, key: str) -> None:
    """Refuse, before any game, a ``key`` the run of ``scenario``'s base arm will not make
    (``questions.key_problem`` of its plan, ``analyzer findings SCENARIO.toml``: why, and the
    nearest keys it makes; a ``quality:`` key needs rounds, which a sensitivity does not
    record).

    Raises
    ------
    OptionError
        (``finding``) ``unknown finding key 'KEY' for a sensitivity of NAME: WHY (did you mean
        …?); analyzer findings FILE lists every key its run makes``.
    """
    why = questions.key_problem(only_base(scenario), key, "simulate", rounds=False,
                                asked_by="sensitivity", close_only=True)
    if why:
        raise OptionError("finding", f"unknown finding key {key!r} for a sensitivity of "
                                     f"{scenario.name}: {why}; analyzer findings "
                                     f"{scenario.file} lists every key its run makes")


def probe(run: StudyRun, scenario: Scenario, key: str, folder: Path,
          say: Callable[[str], None]) -> dict[str, Any]:
    """Play the base arm on ``PROBE_GAMES`` games into ``folder`` and check that ``key`` is a
    finding of its run with per-game values (what the pairing needs); returns its record.

    Raises
    ------
    OptionError
        (``finding``) an unknown key (``finding_keys.lookup``: the closest and every allowed
        key), or one without per-game values (with those that have them).
    """
    games = min(PROBE_GAMES, scenario.games)
    say(f"probe: {games} games of {scenario.name} as it is, to check the finding key")
    result = run.play_arms(runner.plan_arms(only_base(scenario)),
                           derived_seed(scenario.seed, PROBE_STREAM), games, folder / "chunks",
                           scenario=scenario, chunk_size=runner.DEFAULT_CHUNK_SIZE, resume=False)
    g, s = report_sensitivity.read_parts(result)
    facts = {"name": scenario.name, "game": scenario.game,
             "expansions": list(scenario.expansions), "players": scenario.players,
             "seed": scenario.seed, "seat_rotation": scenario.seat_rotation,
             "arms": [{"name": BASE, "rules": dict(scenario.arms[0].rules)}]}
    records, values = report_sensitivity.arm_findings(facts, g, s, BASE, folder / "report")
    made = {r.get("key"): r for r in records}
    patterns = extension.key_patterns(scenario.spec)
    if key not in made and finding_keys.unestimated(records, key, patterns):
        finding_keys.lookup(records, key, option="finding", where=f"the run of {scenario.name}",
                            patterns=patterns)  # raises: a key of the game's, not estimated
    if key not in values or key not in made:  # planned (``check_key``), yet not pairable
        paired = sorted(k for k in values if k in made)
        raise OptionError("finding", f"{key} has no per-game values in the run of "
                                     f"{scenario.name}'s base arm, so it cannot be paired game "
                                     f"by game; keys that can: {', '.join(paired) or 'none'}")
    return dict(made[key])


@checked
def sensitivity(path_or_scenario: str | Path | Scenario, *, finding: Finding,
                step: Step = None, only: Only = None, seed: int | None = None,
                games: int | None = None, log: Callable[[str], None] | None = None,
                **run_options: Any) -> Results:
    """Move every numeric rule and table value one step down and up and report the effect of
    each on a finding (``analyzer sensitivity``; see the module docstring).

    Parameters
    ----------
    path_or_scenario : str, Path or Scenario
        Its base arm is moved (the scenario's own variants are not played).
    finding : str
        The finding key (``analyzer findings RUN_DIR``) whose change is measured; it must have
        per-game values (a mean over games: ``first_player:base``, ``win_rate:POLICY``, some
        of a game's own).
    step : str or float, optional
        The step of every knob (default: 1 for an integer, 10 % of the value for a float).
    only : str, optional
        Comma-separated knob paths or globs (``rules.*,tables.buildings.palace.*``).
    seed, games : int, optional
        Root seed and games per arm (default the scenario's).
    log : callable, optional
        Called with the probe's and the knobs' lines (the CLI prints them).
    **run_options
        The run flags of ``analyzer.api.simulate`` (``out`` default
        ``reports/<name>-sensitivity``).

    Returns
    -------
    analyzer.api.Results

    Raises
    ------
    OptionError
        An unknown key (with the allowed ones), a key without per-game values, an unknown
        ``only`` path, a bad ``step``, or a scenario with no numeric knob to move; nothing is
        written but the probe's temporary folder.
    """
    say = log or (lambda line: None)
    given = with_overrides(validate(path_or_scenario, "sensitivity"), games=games, seed=seed)
    dropped = [a.name for a in given.arms[1:]]
    scenario = only_base(given)
    if scenario.games < stats.MIN_GAMES:  # no row would get an interval worth reading
        raise OptionError("games", f"{scenario.games} games per arm are fewer than the "
                                   f"{stats.MIN_GAMES} a paired difference needs; give at "
                                   "least {games}", games=stats.MIN_GAMES)
    if not isinstance(finding, str) or not finding.strip():
        raise OptionError("finding", "give a finding key (analyzer findings RUN_DIR lists them)")
    key = finding.strip()
    check_key(scenario, key)  # before any game: the probe only checks its per-game values
    s = parse_step(step)
    paths = _selected(scenario, candidates(scenario), only)
    if not paths:
        raise OptionError("only" if only is not None else "finding",
                          f"{scenario.name} has no numeric rule option or table value to move "
                          "(guards are not knobs)")
    run = prepare(scenario, "sensitivity", **run_options)
    with tempfile.TemporaryDirectory(prefix="analyzer-sensitivity-") as tmp:
        scratch = Path(tmp)
        found, refused, unused = moves(scenario, paths, s, scratch / "tables")
        if not found:
            why = "; ".join(f"{r['path']} {'+' if r['direction'] > 0 else '-'}: {r['why']}"
                            for r in refused[:3])
            raise OptionError("only" if only is not None else "finding",
                              f"{scenario.name}: no knob can be moved one step"
                              + (f" ({why})" if why else " that changes what the game plays"))
        rec = probe(run, scenario, key, scratch / "probe", say)
        say(f"{len({m.path for m in found})} knob(s), {len(found)} arm(s) besides the base, "
            f"{scenario.games} games each; finding {key} ({rec.get('unit') or 'no unit'})")
        run = run.settle(expand(scenario, found, scratch / "plan"))
    with run.session():
        expanded = expand(run.scenario, found, run.dir.path / "tables")
        study = {"kind": "sensitivity", "finding": key, "step": s,
                 "step_rule": ("the step given (--step)" if s is not None else
                               f"1 for an integer knob, {100 * FLOAT_STEP:.0f} % of the value "
                               f"for a float one ({FLOAT_STEP} at 0)"),
                 "only": only if isinstance(only, (str, type(None))) else ",".join(only),
                 "moves": [m.facts() for m in found], "refused": refused, "unused": unused,
                 "unit": rec.get("unit"), "scale": rec.get("scale"), "digits": rec.get("digits"),
                 "sentence": rec.get("sentence"), "correction": "holm",
                 "dropped_variants": dropped}
        return run.play(expanded, study=study)


TOP = 3  # knobs the suggested ``analyzer balance`` varies
SPAN = 3  # steps each side of the scenario's value the suggested range covers


def top_knobs(rows: Sequence[dict[str, Any]], k: int = TOP) -> list[dict[str, Any]]:
    """The ``k`` knobs of the largest effects (by their larger direction), those that hold
    after Holm first: one row per knob (its larger effect's)."""
    best: dict[str, dict[str, Any]] = {}
    for r in rows:
        e = r.get("estimate")
        if e is None or (isinstance(e, float) and math.isnan(e)):
            continue
        old = best.get(r["path"])
        if old is None or (r["holds"], abs(e)) > (old["holds"], abs(old["estimate"])):
            best[r["path"]] = r
    ranked = sorted(best.values(), key=lambda r: (not r["holds"], -abs(r["estimate"])))
    return ranked[:k]


def vary_range(scenario: Scenario, row: dict[str, Any], span: int = SPAN) -> str | None:
    """``PATH=LO..HI`` for ``analyzer balance --vary``: up to ``span`` steps each side of the
    knob's value, narrowed step by step where the game refuses an end (``None``: no range)."""
    start, step = row["start"], row["step"]
    for n_lo, n_hi in ((a, b) for total in range(2 * span, 0, -1) for a in range(span, -1, -1)
                       for b in (total - a,) if 0 <= b <= span):
        lo, hi = _number(start - n_lo * step), _number(start + n_hi * step)
        try:
            _knob(scenario, row["path"], lo, hi)
        except OptionError:
            continue
        return f"{row['path']}={lo!r}..{hi!r}"
    return None


def balance_command(run: RunFacts, rows: Sequence[dict[str, Any]]) -> str | None:
    """The ``analyzer balance`` command that varies the top knobs (``top_knobs``, each over
    ``vary_range``) to bring the finding to its no-effect value; ``None`` when the run's
    scenario file cannot be read again or no knob has a range."""
    try:
        scenario = only_base(validate(run.scenario_file))
    except (ScenarioError, OSError, RuleError):  # the file changed or moved since
        return None
    varies = [v for r in top_knobs(rows) if (v := vary_range(scenario, r)) is not None]
    if not varies:
        return None
    words = ["analyzer", "balance", run.scenario_file, "--finding", run.study["finding"],
             *(w for v in varies for w in ("--vary", v))]
    return " ".join(shlex.quote(w) for w in words)


def top_vary(scenario: Scenario, text: str, keys: Sequence[str] = (),
             say: Callable[[str], None] | None = None) -> list[str] | None:
    """``analyzer balance --vary top:K[@RUN_DIR]``: the ``PATH=LO..HI`` of the ``K`` knobs with
    the largest effect in the finished sensitivity run ``RUN_DIR`` (``top_knobs``: those that
    hold after Holm first, each over ``vary_range``); ``RUN_DIR`` defaults to
    ``reports/<scenario name>-sensitivity``. ``None`` for any other text (a plain
    ``PATH=LO..HI``). ``keys``: the findings the balance moves (the run must rank the knobs by
    one of them); ``say`` is told which knobs were taken, named, and from where.

    Raises
    ------
    OptionError
        (``vary``) K not a whole number of at least 1; no finished sensitivity run there; one
        of another game or scenario, or ranking the knobs by another finding than ``keys``;
        a stale one (the scenario's value of a knob is no longer the one it moved); no knob
        of it with a range. Every message names ``RUN_DIR``.
    """
    head, _, rest = text.strip().partition(":")
    if head != "top" or not rest:
        return None
    count, _, where = rest.partition("@")
    if not count.strip().isdigit() or int(count) < 1:
        raise OptionError("vary", f"{text!r}: give top:K with K a whole number of at least 1 "
                                  "(top:3, top:3@RUN_DIR)")
    folder = Path(where.strip()) if where.strip() else Path("reports") / (
        KIND.default_out.format(name=scenario.name))
    again = (f"run analyzer sensitivity {scenario.file or scenario.name} again, or give "
             "top:K@RUN_DIR of a sensitivity of this scenario")
    try:
        summary = userfiles.read_json(userfiles.looked_up(folder / "summary.json"))
    except userfiles.UnreadableFile as err:
        raise OptionError("vary", f"{text}: no finished sensitivity run in {folder} ({err.reason}"
                                  "; run analyzer sensitivity first, or give top:K@RUN_DIR)"
                          ) from None
    run = summary.get("run") if isinstance(summary, dict) else None
    rows = (((summary.get("results") or {}).get("sensitivity") or {}).get("rows")
            if isinstance(summary, dict) else None)
    if not isinstance(run, dict) or (run.get("study") or {}).get("kind") != "sensitivity" \
            or not rows:
        raise OptionError("vary", f"{text}: {folder} is not a finished sensitivity run")
    if run.get("game") != scenario.game:
        raise OptionError("vary", f"{text}: {folder} is a sensitivity run of {run.get('game')}, "
                                  f"not of {scenario.game}")
    if run.get("name") != scenario.name:
        raise OptionError("vary", f"{text}: {folder} is a sensitivity run of scenario "
                                  f"{run.get('name')!r}, not of {scenario.name!r}; {again}")
    ranked_by = (run.get("study") or {}).get("finding")
    if keys and ranked_by not in keys:
        raise OptionError("vary", f"{text}: {folder} ranks the knobs by their effect on "
                                  f"{ranked_by}, not on {' or '.join(keys)} (the finding "
                                  f"balanced); run `analyzer sensitivity --finding {keys[0]}`, or "
                                  "give top:K@RUN_DIR of one")
    top = top_knobs(rows, int(count))
    for r in top:
        now = (_start(scenario, r["path"]) or (None,))[0]
        if now is None or not math.isclose(now, float(r["start"]), rel_tol=1e-9, abs_tol=1e-12):
            raise OptionError("vary", f"{text}: {folder} is stale: it moved {r['path']} from "
                                      f"{_number(r['start'])!r}, and the scenario now "
                                      + ("has no such value" if now is None else
                                         f"has {_number(now)!r}") + f"; {again}")
    varies = [v for r in top if (v := vary_range(scenario, r))]
    if not varies:
        raise OptionError("vary", f"{text}: no knob of {folder} has a range to vary")
    if say is not None:
        few = (f" (it has {len(varies)} with a range)" if len(varies) < int(count) else "")
        say(f"--vary {text}: the {count.strip()} knob(s) with the largest effect on {ranked_by} "
            f"in the sensitivity run {folder}{few}, those that hold after Holm first, each {SPAN} "
            f"steps either side: {', '.join(varies)}")
    return varies


def tell(run: Any, results: Any, res: Any, say: Callable[[str], None]) -> None:
    """The games played, the largest effect, the ``analyzer balance`` command that varies the
    top knobs, and where the report is."""
    study = run.study or {}
    say(f"{run.games} games x {len(run.arms)} arm(s): "
        f"{len({m['path'] for m in study.get('moves', [])})} knob(s) one step down and up")
    rows = results.get("rows") or []
    if rows:
        held = sum(1 for r in rows if r.get("holds"))
        say(f"largest: {rows[0]['text']} — "
            + ("holds after Holm" if rows[0].get("holds") else "not significant after Holm")
            + (f"; {held} of the {len(rows)} moves hold" if held else
               f"; none of the {len(rows)} moves holds: these effects may be noise"))
        command = balance_command(run, rows)
        if command:
            named = [r["label"] for r in top_knobs(rows)]
            say(f"to balance on the {len(named)} knob(s) with the largest effect on "
                f"{study.get('finding')} in this run ({', '.join(named)}): {command}")


Finding = Annotated[str, typer.Option(
    help="The finding key whose change is measured (analyzer findings RUN_DIR lists them); it "
         "must have per-game values, e.g. first_player:base.")]
Step = Annotated[str | None, typer.Option(
    help="The step of every knob (default: 1 for an integer, 10 % of the value for a float).")]
Only = Annotated[str | None, typer.Option(
    help="Only these knobs: comma-separated paths or globs (rules.*, tables.buildings.*).")]

KIND = StudyKind(
    "sensitivity", "sensitivity study", sensitivity, ("scenario", ScenarioFile), tell=tell,
    default_out="{name}-sensitivity", own_report="analyzer.report.sensitivity",
    results=("sensitivity",), answers="analyzer.report.sensitivity:answers",
    families={"sensitivity": ("a knob's one-step change of the finding, paired on shared seeds",
                              "the finding's unit")},
    flag_help={"games": "Games per arm (the base and each knob one step down and up; default "
                        "the scenario's).",
               "quiet": "No probe line."},
    help="""Every numeric rule option and table value one step down and up: its effect on a finding,
    paired on shared seeds, Holm over the knobs; a tornado chart (in reports/NAME-sensitivity).

    Examples:

      analyzer sensitivity scenarios/cartus-buildings-sensitivity.toml --finding first_player:base --games 200

      analyzer sensitivity study.toml --finding win_rate:greedy --only 'rules.*' --step 2
    """)
