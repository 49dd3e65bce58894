"""Every section citation in the code, data tables, scenarios and tests resolves.

A citation is a section sign followed by a section number: ``docs/rules/cartus.md <S>4 phase D b``,
a range ``<S>2–<S>7``, a list ``<S>3.3, <S>4``, or a bare ``(<S>7 C.2)``. (``<S>`` stands for the
section sign, written as an escape in this file so that the scan does not read this docstring.)
A bare citation belongs to the nearest ``docs/rules/<game>.md`` named earlier in the same file,
else to the game whose folder holds the file (``analyzer/games/<game>/``, ``tests/games/<game>/``);
a citation that belongs to no document is an error.

A section resolves when the cited document has it as a heading (``## 5.``, ``### 5.2``,
``### C.`` or ``### Phase D`` under ``## 7.`` / ``## 4.``) or as a labelled item under a heading:
a bold label (``**C.2 …**``, ``**b. …**``, ``**Step 4a …**``, ``**Mode (a) …**``), a numbered
list step (``3. …``) or a test-case row (``| Q9 |``, ``| T14 |``). Words after the structured
part (``<S>5 Palace``, ``<S>10.2 card table``) are prose and are not checked. In a game's folder
every bare test-case id (``Q9`` for Rattus, ``T14`` for Cartus and Pyramidion) must exist too.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from analyzer.errors import RuleError
from analyzer.games import available_games

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("analyzer", "tests", "scenarios")
SUFFIXES = (".py", ".toml")
SECTION = "\u00a7"
GAMES_WITH_RULES = tuple(available_games())  # each has docs/rules/<game>.md
# game -> (the section of docs/rules/<game>.md with the test cases, their id letter, how many)
CASES = {"rattus": ("12", "Q", 22), "cartus": ("8", "T", 20), "pyramidion": ("11", "T", 22)}
TEST_ID = {game: letter for game, (_, letter, _) in CASES.items()}

_NUM = r"\d+(?:\.\d+)*"
_CITE = re.compile(SECTION + r"\s*(" + _NUM + r")")
_RANGE_END = re.compile(r"\s*[–-]\s*(" + _NUM + r")")  # an end with its own sign is a citation itself
_PHASES = re.compile(r"\s+phases?\s+([A-Z]|\d+)\b((?:\s*(?:,|and)\s*(?:[A-Z]|\d+)\b)*)")
_ITEM = re.compile(r"\s+([A-Z](?:\.\d+)?)(?!\w|\.\d)")
_LETTER = re.compile(r"\s+([a-z])(?![\w'])")
_STEPS = re.compile(r",?\s+steps?\s+(\d+[a-z]?)(?:\s*[–-]\s*(\d+[a-z]?))?")
_TESTS = re.compile(r"\s+([QT])(\d+)(?:\s*[–-]\s*[QT]?(\d+))?\b")
_MODE = re.compile(r"\s+mode\s+\(?([a-z])\)?(?!\w)")
_DOC = re.compile(r"([\w./<>-]+\.md)`{0,2}\s*\(?\s*$")
_RULES_DOC = re.compile(r"docs/rules/(\w+)\.md")


# ---------------------------------------------------------------- the documents' anchors

def anchors(text: str) -> set[str]:
    """Every citable key of one Markdown document: ``"5"``, ``"5.2"``, ``"7 C"``, ``"7 C.2"``,
    ``"4 phase D"``, ``"4 phase D b"``, ``"5 phase 5 step 4a"``, ``"7.1 step 3"``,
    ``"3 mode a"``, ``"12 Q9"``."""
    keys: set[str] = set()
    sec = sub = ""
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if m := re.match(r"## (\d+)\.?\s", line):
            sec = sub = m.group(1)
        elif m := re.match(r"### (\d+(?:\.\d+)+)\s", line):
            sub = m.group(1)
        elif m := re.match(r"### Phase (\w+)\b", line):
            sub = f"{sec} phase {m.group(1)}"
        elif m := re.match(r"### ([A-Z])\.\s", line):
            sub = f"{sec} {m.group(1)}"
        elif m := re.match(r"\s*(?:- )?\*\*([A-Z]\.\d+)[\s.*]", line):
            keys.add(f"{sec} {m.group(1)}")
            continue
        elif m := re.match(r"\s*(?:- )?\*\*([a-z])\.[\s*]", line):
            keys.add(f"{sub} {m.group(1)}")
            continue
        elif m := re.match(r"\s*(?:- )?\*\*Step (\d+[a-z]?)\b", line):
            keys.add(f"{sub} step {m.group(1)}")
            continue
        elif m := re.match(r"\s*(?:- )?\*\*Mode \(([a-z])\)", line):
            keys.add(f"{sub} mode {m.group(1)}")
            continue
        elif m := re.match(r"(\d+)\.\s", line):
            keys.add(f"{sub} step {m.group(1)}")
            continue
        elif m := re.match(r"\|\s*([QT]\d+)\s*\|", line):
            keys.add(f"{sec} {m.group(1)}")
            continue
        else:
            continue
        keys.add(sub)
    return keys


_ANCHORS: dict[Path, set[str] | None] = {}


def doc_anchors(path: Path) -> set[str] | None:
    """Anchors of a repository document, ``None`` if it does not exist."""
    if path not in _ANCHORS:
        _ANCHORS[path] = anchors(path.read_text(encoding="utf-8")) if path.is_file() else None
    return _ANCHORS[path]


def case_ids(keys: set[str]) -> set[str]:
    letters = "".join(sorted(set(TEST_ID.values())))
    return {k.split()[-1] for k in keys if re.fullmatch(rf"\d+ [{letters}]\d+", k)}


# ---------------------------------------------------------------- the citations

def missing_parts(keys: set[str], number: str, tail: str) -> list[str]:
    """The keys one citation needs that ``keys`` lacks; ``tail`` is the text after the number."""
    need: list[str] = []
    bases = [number]
    if m := _PHASES.match(tail):
        bases = [f"{number} phase {x}" for x in [m.group(1), *re.findall(r"[A-Z]|\d+", m.group(2))]]
        tail = tail[m.end():]
    elif m := _ITEM.match(tail):
        item = m.group(1)
        base = f"{number} {item}"
        if base not in keys and "." not in item and f"{number} phase {item}" in keys:
            base = f"{number} phase {item}"  # "<S>4 D b" is short for "<S>4 phase D b"
        bases = [base]
        tail = tail[m.end():]
    need.extend(bases)
    if m := _LETTER.match(tail):
        need.extend(f"{b} {m.group(1)}" for b in bases)
    elif m := _STEPS.match(tail):
        first, last = m.group(1), m.group(2)
        steps = [first]
        if last:
            lo, hi = int(re.match(r"\d+", first).group()), int(re.match(r"\d+", last).group())
            steps = [str(k) for k in range(lo, hi + 1)] + ([last] if not last.isdigit() else [])
        need.extend(f"{b} step {s}" for b in bases for s in steps)
    elif m := _TESTS.match(tail):
        lo = int(m.group(2))
        hi = int(m.group(3)) if m.group(3) else lo
        need.extend(f"{number} {m.group(1)}{k}" for k in range(lo, hi + 1))
    elif m := _MODE.match(tail):
        need.append(f"{number} mode {m.group(1)}")
    return [k for k in need if k not in keys]


def folder_game(rel: Path) -> str | None:
    parts = rel.parts
    for i in range(len(parts) - 2):
        if parts[i] == "games" and parts[i + 1] in GAMES_WITH_RULES:
            return parts[i + 1]
    return None


def scanned_files() -> list[Path]:
    files = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and ".venv" not in path.parts:
                files.append(path)
    return files


def check_file(path: Path) -> tuple[int, list[str]]:
    """``(number of citations, problems)`` of one source file."""
    rel = path.relative_to(ROOT)
    text = path.read_text(encoding="utf-8")
    home = folder_game(rel)
    problems: list[str] = []
    count = 0

    def where(pos: int) -> str:
        return f"{rel}:{text.count(chr(10), 0, pos) + 1}"

    def default_doc(pos: int) -> str | None:
        named = list(_RULES_DOC.finditer(text, 0, pos))
        if named:
            return named[-1].group(0)
        return f"docs/rules/{home}.md" if home else None

    for m in _CITE.finditer(text):
        count += 1
        start, number = m.start(), m.group(1)
        line_end = text.find("\n", m.end())
        tail = text[m.end(): line_end if line_end >= 0 else len(text)]
        explicit = _DOC.search(text, max(0, start - 80), start)
        doc = explicit.group(1) if explicit else default_doc(start)
        cited = f"{doc} {SECTION}{number}{tail[:30]}".rstrip()
        if doc is None:
            problems.append(f"{where(start)}: {SECTION}{number}{tail[:30]} names no document and no game")
            continue
        keys = doc_anchors(ROOT / doc)
        if keys is None:
            problems.append(f"{where(start)}: {cited}: {doc} is not in the repository")
            continue
        lack = missing_parts(keys, number, tail)
        if r := _RANGE_END.match(tail):
            lack += [k for k in [r.group(1)] if k not in keys]
        if lack:
            problems.append(f"{where(start)}: {cited}: no {', '.join(lack)} in {doc}")
    if home in TEST_ID:  # a game without an entry fails test_rules_documents_keep_their_structure
        letter = TEST_ID[home]
        keys = doc_anchors(ROOT / f"docs/rules/{home}.md") or set()
        ids = case_ids(keys)
        for m in re.finditer(rf"\b{letter}(\d+)\b", text):
            if default_doc(m.start()) == f"docs/rules/{home}.md" and m.group(0) not in ids:
                problems.append(f"{where(m.start())}: test case {m.group(0)} is not in docs/rules/{home}.md")
    return count, problems


# ---------------------------------------------------------------- tests

def test_every_citation_resolves():
    total, problems = 0, []
    for path in scanned_files():
        n, bad = check_file(path)
        total += n
        problems += bad
    assert total > 300, "the scan found almost no citations: is the section sign pattern broken?"
    assert not problems, f"{len(problems)} citations do not resolve:\n" + "\n".join(problems)


def test_no_reference_outside_the_repository():
    """Docstrings and comments point at ``docs/``, never at design notes, tickets or paths that
    only exist outside the repository."""
    outside = re.compile(r"\b(?:DESIGN|STYLE)\.md\b|/work/|\.\./shared|\bshared/rules\b|\bissue \d+\b")
    me = Path(__file__).resolve()
    found = []
    for path in scanned_files():
        if path == me:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if m := outside.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {m.group(0)}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("game", GAMES_WITH_RULES)
def test_rules_documents_keep_their_structure(game):
    """The numbered sections and test-case ids the code relies on are headings of the document."""
    keys = doc_anchors(ROOT / f"docs/rules/{game}.md")
    assert keys is not None, f"docs/rules/{game}.md is missing"
    assert game in CASES, f"add where docs/rules/{game}.md keeps its test cases to CASES"
    sec, letter, n = CASES[game]
    assert {f"{sec} {letter}{k}" for k in range(1, n + 1)} <= keys
    assert {str(k) for k in range(1, 12)} <= keys


@pytest.mark.parametrize("game", GAMES_WITH_RULES)
def test_rule_values_cite_resolvable_sections(game):
    """Every rule value a config reports (the report's provenance table) cites a section that
    exists, at every player count and expansion set."""
    from analyzer.games import get_game

    spec = get_game(game)
    subsets = [c for k in range(len(spec.expansions) + 1) for c in itertools.combinations(spec.expansions, k)]
    seen = 0
    problems = []
    for players, expansions in itertools.product(range(spec.min_players, spec.max_players + 1), subsets):
        try:
            config = spec.make_config(players, list(expansions), {})
        except RuleError:  # a count this expansion set does not allow
            continue
        for rv in spec.rule_values(config):
            seen += 1
            m = re.match(r"(docs/rules/\w+\.md)\s*(.*)$", rv.section)
            if not m:
                problems.append(f"{rv.name}: section {rv.section!r} names no docs/rules file")
                continue
            keys = doc_anchors(ROOT / m.group(1)) or set()
            for part in re.finditer(SECTION + r"\s*(" + _NUM + r")([^" + SECTION + r",;]*)", m.group(2)):
                lack = missing_parts(keys, part.group(1), part.group(2))
                if lack:
                    problems.append(f"{rv.name}: {rv.section}: no {', '.join(lack)}")
    assert seen > 0
    assert not problems, "\n".join(sorted(set(problems)))


def test_anchor_parser_on_a_sample():
    """The parser finds headings, labelled items, numbered steps and test ids, and a citation
    needs exactly its structured parts."""
    sample = (
        "## 4. Round\n### Phase D — resolve\n**b. Perform actions.** text\n## 5. Site\n"
        "### Phase 5 — Activating\n**Step 4a — Executioner.** x\n## 7. Turn\n### C. Move\n"
        "- **C.2 Spread.** x\n### 7.1 Algorithm\n1. first\n3. third\n## 12. Cases\n"
        "| Q9 | situation |\n```\n## 99. inside a fence\n```"
    )
    keys = anchors(sample)
    assert {"4 phase D", "4 phase D b", "5 phase 5 step 4a", "7 C", "7 C.2", "7.1 step 3", "12 Q9"} <= keys
    assert "99" not in keys
    assert missing_parts(keys, "4", " D b, T5") == []
    assert missing_parts(keys, "4", " phase D c") == ["4 phase D c"]
    assert missing_parts(keys, "7", " C.3") == ["7 C.3"]
    assert missing_parts(keys, "12", " Q8–Q9") == ["12 Q8"]
    assert missing_parts(keys, "7.1", " steps 1–3") == ["7.1 step 2"]
    assert missing_parts(keys, "5", " Palace: premium") == []


def test_the_designers_guide_cites_only_sections_that_exist():
    """docs/guide.md (issue #25, part 6) cites the rules like the code does."""
    count, problems = check_file(ROOT / "docs" / "guide.md")
    assert count >= 3 and not problems, problems
