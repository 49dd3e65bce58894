"""A study file's questions, planned and checked before a game is played (issues #31, #34).

``plan`` lists every finding key a study of a scenario (or a tournament pool) WILL make, each
with its meaning in words and its unit: the generic findings' (``report.findings.GENERIC_KEYS``,
one per arm, seat or policy they follow from), a tournament's, the game's own report sections'
(``StudySection.plan``, from the code that makes their keys), and the keys by role
(``report.role_keys``: ``seat:worst``, ``rating_gap:best``, ``diff:ARM_A:ARM_B:KEY`` …).
``analyzer findings SCENARIO.toml`` prints it; ``check`` holds every ``[[questions]]`` key against
it exactly, before play (``analyzer validate`` and every study command): a key the run will not
make is one line saying why — a card not in play, no such variant, a family this study kind has
none of — and the nearest keys it will make.

A study that makes arms of its own (a sweep, an ablation, a tune, a balance search) cannot know
its keys from the file: there only a key's family is checked (``key_families``), and a key its
arms lack is a row of the Answers saying so (``report.answers.declared``).
"""

from __future__ import annotations

import difflib
import fnmatch
import inspect
from dataclasses import dataclass, field
from typing import Any

from analyzer import studies
from analyzer.errors import ScenarioError
from analyzer.report import quality, role_keys
from analyzer.report.extension import PlanArm, PlannedKey, key_patterns
from analyzer.report.finding_keys import as_written, did_you_mean, other_kind, own_families
from analyzer.report.findings import GENERIC_KEYS

# a sweep's own answer per arm (``report.answers.sweep``)
SWEEP_FAMILIES = ("score_mean",)
# the seat and diff role keys follow from the seat records of the file's own arms
ROLE_FAMILIES = ("seat", "diff")
# why a run without ``--rounds`` makes no ``quality:`` key (``Plan.absent``)
NO_ROUNDS = ("the game-quality findings are measured only from the checkpoints after every "
             "round, which this run does not record (it is played without --rounds)")
# a tournament's skill spread (``report.tournament.key_findings``, issue #36)
SKILL_SPREAD = {
    "quality:skill_spread": (("the best-rated entrant's win rate minus the worst-rated's, "
                              "bootstrap over deals (a figure)"), "pp"),
    "quality:skill_spread:rating": (("the best-rated entrant's Plackett–Luce rating minus the "
                                     "worst-rated's, bootstrap over deals (a figure)"),
                                    "log-strength")}


@dataclass
class Plan:
    """The finding keys a study will make, before a game is played.

    Attributes
    ----------
    keys : list of PlannedKey
        Every key the run will make, in the report's order of kinds (generic, the study kind's,
        the game's sections', the keys by role).
    absent : dict of str to str
        A family the game has that this run will not make (its section's ``plan`` made none),
        with why in a few words.
    arms : list of str
        The arms' names, the base first.
    templates : list of PlannedKey
        Keys by role written with placeholders (``diff:ARM_A:ARM_B:KEY``), with their definition.
    """

    keys: list[PlannedKey] = field(default_factory=list)
    absent: dict[str, str] = field(default_factory=dict)
    arms: list[str] = field(default_factory=list)
    templates: list[PlannedKey] = field(default_factory=list)

    def names(self) -> list[str]:
        """The keys, in order."""
        return [k.key for k in self.keys]


def key_families(spec: Any) -> set[str]:
    """Every finding-key family a study of ``spec``'s game can have: the generic ones, each
    study kind's own, the keys by role and those of the game's report sections."""
    generic = {*GENERIC_KEYS, *(f for fams in own_families().values() for f in fams),
               *SWEEP_FAMILIES, *ROLE_FAMILIES}
    if getattr(spec, "flow", None) is not None:  # the game records its rounds (``--rounds``)
        generic.add(quality.FAMILY)
    return generic | {p.partition(":")[0] for p in key_patterns(spec)}


def _quality(scenario: Any) -> list[PlannedKey]:
    """The ``quality:`` keys a run of ``scenario`` with ``--rounds`` makes (``kingmaking``
    with ``--kingmaking-samples``)
    (``report.quality``): per metric each arm's figure, then each later arm's change against
    the first; none when the game records no rounds (``GameSpec.flow``)."""
    flow = getattr(scenario.spec, "flow", None)
    if flow is None:
        return []
    names = [a.name for a in scenario.arms]
    out = []
    for metric in quality.metrics(flow.eliminates, kingmaking=True):
        words, unit = quality.METRICS[metric][:2]
        needs = ("--rounds --kingmaking-samples N" if metric in quality.KINGMAKING
                 else "--rounds")
        out += [PlannedKey(quality.key(metric, a), f"{a}'s {words} (with {needs})", unit)
                for a in names]
        out += [PlannedKey(quality.key(metric, a, change=True),
                           f"{a}'s change of the {words} against {names[0]} (paired by seed; "
                           f"with {needs})", "pp" if unit == "%" else unit) for a in names[1:]]
    return out


def _arms(scenario: Any) -> list[PlanArm]:
    """The scenario's arms as a section's ``plan`` sees them (the game's config of each)."""
    return [PlanArm(arm.name, n, scenario.spec.make_config(n, scenario.expansions, arm.rules),
                    tuple(s.name for s in arm.seats))
            for arm in scenario.arms for n in [scenario.arm_players(arm)]]


def _generic(scenario: Any) -> list[PlannedKey]:
    """The generic findings' keys of a simulate run of ``scenario`` (``report.findings.generic``:
    the start player in the base; each policy's win rate where the base seats several; per
    variant of the base's player count its score, start-player and per-policy changes; per
    arm of another player count its two changes)."""
    def k(family: str, key: str, **names: str) -> PlannedKey:
        meaning = GENERIC_KEYS[family][1]
        for placeholder, name in names.items():
            meaning = meaning.replace(placeholder, name)
        return PlannedKey(key, meaning, GENERIC_KEYS[family][2])

    base = scenario.arms[0]
    out = [k("first_player", f"first_player:{base.name}")]
    names = list(dict.fromkeys(s.name for s in base.seats))
    if len(names) > 1:
        out += [k("win_rate", f"win_rate:{n}", POLICY=n) for n in names]
    several = len(names) > 1 or any(len({s.name for s in a.seats}) > 1 for a in scenario.arms)
    for arm in scenario.arms[1:]:
        if scenario.arm_players(arm) == scenario.players:
            out.append(k("score", f"score:{arm.name}", VARIANT=arm.name))
            out.append(k("start_adv", f"start_adv:{arm.name}", VARIANT=arm.name))
            if several:
                out += [k("policy", f"policy:{arm.name}:{n}", VARIANT=arm.name, POLICY=n)
                        for n in dict.fromkeys(s.name for s in arm.seats)]
        else:
            out += [PlannedKey(f"players:{m}:{arm.name}",
                               f"{arm.name} ({scenario.arm_players(arm)} players)'s change of "
                               f"{what} against base, paired by seed where the arms share "
                               "seeds, else Welch", unit)
                    for m, what, unit in (("start_adv", "the start player's advantage", "pp"),
                                          ("score", "the mean final score per seat-game",
                                           "points"))]
    return out


def _entrants(scenario: Any) -> list[str]:
    return list(dict.fromkeys(s.name for arm in scenario.arms for s in arm.seats))


def plan(scenario: Any, kind: str = "simulate", rounds: bool | None = None) -> Plan:
    """The keys a study of ``kind`` on ``scenario`` will make (see the module docstring).

    ``rounds``: whether the run records its rounds (``--rounds``), which the ``quality:`` keys
    need; ``None`` (not known: ``analyzer findings SCENARIO.toml``, ``analyzer validate``)
    plans them, each saying "with --rounds"; ``False`` names the family in ``Plan.absent``
    (``NO_ROUNDS``).

    For a tournament (``scenario`` the pool as a scenario, ``tournament.as_scenario``): each
    entrant's ``win_rate:NAME`` and the role keys ``rating_gap:best``, ``win_rate:best``. For a
    study of arms of its own, only the study kind's own keys are known (``StudyKind.families``).
    """
    spec = scenario.spec
    out = Plan(arms=[a.name for a in scenario.arms])
    roles = role_keys.DEFINITIONS
    if kind == "tournament":
        out.keys += [PlannedKey(f"win_rate:{n}", f"{n}'s win rate minus a fair seat's, over "
                                "the deals of the schedule", "pp") for n in _entrants(scenario)]
        out.keys += [PlannedKey(k, *roles[k]) for k in ("rating_gap:best", "win_rate:best")]
        out.keys += [PlannedKey(k, *v) for k, v in SKILL_SPREAD.items()]
        return out
    if not as_written(kind):
        out.keys += [PlannedKey(f, *v) for f, v in own_families().get(kind, {}).items()]
        return out
    out.keys += _generic(scenario)
    arms = _arms(scenario)
    if rounds is False:
        if getattr(spec, "flow", None) is not None:
            out.absent[quality.FAMILY] = NO_ROUNDS
    else:
        out.keys += _quality(scenario)
    for section in (spec.sections() if spec.sections is not None else ()):
        if section.plan is None:  # a section without a plan: its patterns, as written
            out.templates += [PlannedKey(p, f"a finding of the {section.key} section (* = a "
                                            "name the run fills in)", "", check=lambda key, p=p:
                                            "" if fnmatch.fnmatchcase(key, p)
                                            else f"not of the form {p}")
                              for p in section.key_patterns]
            continue
        keys, why = section.plan(arms)
        keys = [k if isinstance(k, PlannedKey) else PlannedKey(*k) for k in keys]
        out.keys += [k for k in keys if k.check is None]
        out.templates += [k for k in keys if k.check is not None]
        if not keys:
            for p in section.key_patterns:
                out.absent[p.partition(":")[0]] = why
    if any(k.key.startswith("win_rate:") for k in out.keys):
        out.keys.append(PlannedKey("win_rate:best", *roles["win_rate:best"]))
    out.keys += [PlannedKey(k, *roles[k]) for k in role_keys.SEAT_KEYS]
    out.templates.append(PlannedKey("diff:ARM_A:ARM_B:KEY", *roles["diff:ARM_A:ARM_B:KEY"],
                                    check=lambda key: _diff_problem(key, scenario)))
    return out


def _diff_problem(key: str, scenario: Any) -> str:
    """Why ``diff:ARM_A:ARM_B:KEY`` is not a key of this run, or ``""`` when it is."""
    parts = role_keys.split_diff(key)
    names = [a.name for a in scenario.arms]
    if parts is None:
        return "a cross-arm difference is written diff:ARM_A:ARM_B:KEY"
    a, b, what = parts
    for arm in (a, b):
        if arm not in names:
            return f"no such variant {arm!r} (the arms: {', '.join(names)})"
    if a == b:
        return "a difference needs two different arms"
    problem = role_keys.per_arm_problem(what)
    if problem:
        return problem
    family, _, name = what.partition(":")
    for arm in (a, b):
        sc_arm = next(x for x in scenario.arms if x.name == arm)
        if family == "win_rate" and name not in {s.name for s in sc_arm.seats}:
            return f"no policy {name!r} among the seats of {arm}"
        if family == "seat" and int(name) > scenario.arm_players(sc_arm):
            return (f"{arm} seats {scenario.arm_players(sc_arm)} players: start positions 1 "
                    f"(the start player) to {scenario.arm_players(sc_arm)}")
    return ""


def _template(key: str, planned: Plan) -> PlannedKey | None:
    """The key with placeholders of ``planned`` in ``key``'s family, if any."""
    family = key.partition(":")[0]
    mine = [t for t in planned.templates if t.key.partition(":")[0] == family
            and t.check is not None]
    return next((t for t in mine if not t.check(key)), mine[0] if mine else None)


def why_not(key: str, planned: Plan, scenario: Any, kind: str) -> str:
    """Why the run will not make ``key``, in a few words (``key`` not in ``planned``)."""
    family, _, rest = key.partition(":")
    names = planned.arms
    other = other_kind(key, kind)
    if other:
        return (f"a family this {studies.word(kind)} has none of: {family!r} keys are made by "
                f"analyzer {other}")
    if family in planned.absent:
        return planned.absent[family]
    template = _template(key, planned)
    if template is not None:
        return template.check(key)
    if kind == "tournament":
        if family == "rating_gap":  # (a pair is allowed: ``check``)
            return "a tournament's rating gap is rating_gap:best (or rating_gap:BEST:NEXT)"
        return ("a family a tournament has none of: a tournament answers win_rate:ENTRANT, "
                "win_rate:best, rating_gap:best (the best-rated entrant and the next) and "
                "quality:skill_spread[:rating]")
    parts = key.split(":")
    if family in GENERIC_KEYS:
        arm = {"first_player": rest, "score": rest, "start_adv": rest,
               "policy": parts[1] if len(parts) > 1 else "",
               "players": parts[-1] if len(parts) > 2 else ""}.get(family)
        if arm is not None and arm not in names:
            return f"no such variant {arm!r} (the arms: {', '.join(names)})"
        if family == "first_player":
            return ("the start player's advantage is made for the base arm only; a variant's "
                    f"change of it is start_adv:{rest}")
        if family == "win_rate":
            return ("win_rate:POLICY is made only where the base arm seats several policies "
                    "(one policy's win rate is a fair seat's by construction)"
                    if not any(k.key.startswith("win_rate:") for k in planned.keys
                               if k.key != "win_rate:best")
                    else f"no policy {rest!r} in the base arm")
        if arm == names[0] and family != "policy":
            return f"{arm} is the reference: a {family} key is a variant's change against it"
        if family == "policy" and len(parts) == 3 and any(
                k.key.startswith(f"policy:{arm}:") for k in planned.keys):
            return f"no policy {parts[2]!r} among the seats of {arm}"
        if family == "policy" and not any(k.key.startswith("policy:") for k in planned.keys):
            return ("a policy's change is made only where several policies play (with one, "
                    "it is the mean score's change: score:VARIANT)")
        if family in ("score", "start_adv", "policy", "players"):
            return ("this variant plays another player count: its changes are players:METRIC:"
                    "VARIANT" if family != "players" else
                    "this variant plays the base's player count: its changes are score:VARIANT "
                    "and start_adv:VARIANT")
    if family in key_families(scenario.spec):
        return f"not one of the {family!r} keys this run makes"
    return f"no key of this game starts with {family + ':'!r}"


def nearest(key: str, planned: Plan, n: int = 3) -> list[str]:
    """The keys of ``planned`` closest to ``key`` (difflib), else those of its family; none
    when neither (the closest at all were unrelated keys: ``goods:largest_gap`` for a
    tournament's ``rating_gap:A:B``)."""
    names = planned.names()
    family = key.partition(":")[0] + ":"
    return (difflib.get_close_matches(key, names, n=n, cutoff=0.5)
            or [k for k in names if k.startswith(family)][:n])


def records_rounds(kind: str) -> bool:
    """Whether a study of ``kind`` can record its rounds (its Python function takes
    ``rounds``: ``analyzer simulate``, ``compare``, ``sweep``, ``robustness`` with
    ``--rounds``)."""
    kinds = studies.kinds()
    return kind in kinds and "rounds" in inspect.signature(kinds[kind].api).parameters


def rounds_fix(kind: str) -> str:
    """What to do for a ``quality:`` key in a run of ``kind`` without ``--rounds``."""
    if records_rounds(kind):
        return "add --rounds to the command"
    return (f"analyzer {kind} records no rounds: ask it of analyzer simulate, compare, "
            "sweep or robustness with --rounds")


def key_problem(scenario: Any, key: str, kind: str = "simulate",
                rounds: bool | None = None, planned: Plan | None = None, *,
                asked_by: str | None = None, close_only: bool = False) -> str:
    """Why a study of ``kind`` on ``scenario`` will not make finding ``key``, in one line
    ending with the nearest keys it makes (``why_not``, ``nearest``); ``""`` when it will.
    A ``quality:`` key the run would make with ``--rounds`` but is played without it
    (``rounds`` False) says so and the fix (``rounds_fix`` of ``asked_by``, the study kind
    asking: default ``kind``). ``planned``: ``plan(scenario, kind, rounds)`` when the caller
    has it. ``close_only``: suggest only the planned keys close to ``key`` (difflib), and for
    an unknown family the families the plan makes, not every family of the game's studies
    (a command that names one finding of this run, ``analyzer sensitivity --finding``)."""
    family = key.partition(":")[0]
    families = key_families(scenario.spec)
    if planned is None:
        planned = plan(scenario, kind, rounds)
    families |= {k.partition(":")[0] for k in planned.names()}  # a kind's own (skill spread)
    # a quality: key the run makes without its rounds (a tournament's skill spread) needs none
    needs_rounds = (family == quality.FAMILY and rounds is False and family in families
                    and key not in planned.names())
    if needs_rounds:  # held against the keys it would make with --rounds
        planned = plan(scenario, kind, rounds=True)
    names = planned.names()
    if family not in families and close_only:
        made = sorted({k.partition(":")[0] for k in names})
        return (f"no key of this run starts with {family + ':'!r}{did_you_mean(key, names)}; "
                f"its families: {', '.join(made)}")
    if family not in families:
        return (f"no key of this game starts with {family + ':'!r}"
                f"{did_you_mean(family, sorted(families))}; families: {', '.join(sorted(families))}")
    template = _template(key, planned)
    why = ""
    # not as written: its arms are its own, the family is what the file can know; a
    # tournament's best and next are known after play (the Answers say which)
    if (as_written(kind) and key not in names
            and not (kind == "tournament" and family == "rating_gap" and _pair(key, scenario))
            and (template is None or template.check(key))):
        why = why_not(key, planned, scenario, kind) + did_you_mean(
            key, names, None if close_only else nearest(key, planned))
    if needs_rounds:
        return (f"{key!r} is a game-quality finding, measured only with --rounds (the "
                f"checkpoints after every round), and this run is played without it: "
                f"{rounds_fix(asked_by or kind)}" + (f"; besides, {why}" if why else ""))
    return why


def _pair(key: str, scenario: Any) -> bool:
    """``rating_gap:A:B`` of two different entrants of the pool."""
    parts = key.split(":")
    return (len(parts) == 3 and parts[1] != parts[2]
            and {parts[1], parts[2]} <= set(_entrants(scenario)))


def reader(key: str, kind: str | None) -> str:
    """The study kind that reads question key ``key``: ``kind``; for a file that names none
    (``None``: ``analyzer validate``) the kind whose own key it is (``tuned_minus_start``:
    tune; ``other_kind``), else simulate."""
    return kind or other_kind(key, "simulate") or "simulate"


def problems(scenario: Any, kind: str | None, rounds: bool | None = None) -> list[str]:
    """One line per ``[[questions]]`` key of ``scenario`` a study of ``kind`` will not make
    (``check``, ``key_problem``), empty when all are planned; ``kind`` ``None``: each key as
    the kind that reads it would (``reader``). ``rounds``: whether the run records its
    rounds (``None``: not known; a kind that cannot record them, ``False``)."""
    questions = list(getattr(scenario, "questions", ()) or ())
    if not questions:
        return []
    plans: dict[str, tuple[bool | None, Plan]] = {}
    lines = []
    for i, q in enumerate(questions):
        key = q.finding
        kind_i = reader(key, kind)
        if kind_i not in plans:
            r = (False if rounds is None and kind_i in studies.kinds()
                 and not records_rounds(kind_i) else rounds)
            plans[kind_i] = r, plan(scenario, kind_i, r)
        r, planned = plans[kind_i]
        why = key_problem(scenario, key, kind_i, r, planned)
        if not why:
            continue
        if key.partition(":")[0] == quality.FAMILY and r is False and why.startswith(
                repr(key)):
            lines.append(f"{scenario.file}: questions[{i}] ({q.ask!r}): {why}")
        elif why.startswith("no key of this game starts with"):
            lines.append(f"{scenario.file}: questions[{i}].finding: unknown finding key "
                         f"{key!r}: {why}")
        else:
            lines.append(f"{scenario.file}: questions[{i}].finding: unknown finding key "
                         f"{key!r} for this {studies.word(kind_i)}: {why}; `analyzer findings "
                         f"{scenario.file}` lists every key it makes")
    return lines


def check(scenario: Any, kind: str | None, rounds: bool | None = None) -> None:
    """Refuse, before a game is played, a question whose key the study will not make
    (``kind``; ``None``: the kind that reads each key, ``reader``).

    ``rounds``: whether the run records its rounds (``--rounds``); ``None`` when not known
    (``analyzer validate``), which a kind that never records them reads as ``False``.

    Raises
    ------
    ScenarioError
        ``FILE: questions[i].finding: unknown finding key 'KEY' for this run: WHY (did you mean
        …?); `analyzer findings FILE` lists every key it makes``, one line per bad key; a
        ``quality:`` key of a run without rounds: ``FILE: questions[i] ('ASK'): 'KEY' is a
        game-quality finding, measured only with --rounds …: add --rounds to the command``.
    """
    lines = problems(scenario, kind, rounds)
    if lines:
        raise ScenarioError.of(lines)


def listing(planned: Plan, kind: str) -> list[str]:
    """``analyzer findings SCENARIO.toml``: one line per key it will make — the key, its unit —
    then its meaning indented under it; then the keys by role written with placeholders, and
    the game's families it will not make, with why."""
    rows = planned.keys + planned.templates
    if not rows:
        return [f"({studies.a_word(kind)} makes no key finding known before play)"]
    width = max(len(k.key) for k in rows)
    lines = [f"keys {studies.a_word(kind)} of this file will make (before any game is played):"]
    for i, k in enumerate(rows):
        arms = f"  (ARM_A, ARM_B: {', '.join(planned.arms)})" if i >= len(planned.keys) else ""
        lines += [f"{k.key:<{width}}  [{k.unit or 'no unit'}]{arms}", f"{'':<{width}}  {k.meaning}"]
    for family, why in planned.absent.items():
        lines.append(f"(no {family}:* key: {why})")
    return lines


PLAN_COLUMNS = ("key", "unit", "meaning", "role")


def plan_rows(planned: Plan) -> list[dict[str, str]]:
    """``analyzer findings SCENARIO.toml --json`` / ``--csv``: one row per key the run will
    make (``PLAN_COLUMNS``): ``key``, ``unit`` (the report's unit, ``""`` for none),
    ``meaning`` (in words) and ``role`` (``""`` for a key of the run, ``"template"`` for a key
    by role written with placeholders, whose arms are ``planned.arms``)."""
    return [{"key": k.key, "unit": k.unit, "meaning": k.meaning, "role": role}
            for role, keys in (("", planned.keys), ("template", planned.templates)) for k in keys]


__all__ = ["NO_ROUNDS", "PLAN_COLUMNS", "Plan", "check", "key_families", "key_problem",
           "listing", "nearest", "plan", "plan_rows", "problems", "records_rounds", "rounds_fix",
           "why_not"]
