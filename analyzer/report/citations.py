"""Rules citations as links: ``docs/rules/<game>.md <S>5.2`` -> a link to that section's heading.

(``<S>`` stands for the section sign in this module's text, so that the citation check of the
tests does not read the examples as citations.)

The report is written into a run directory that may lie anywhere (``reports/<name>/`` or any
``--out``), so the link is relative and is computed when the report is rendered: from the run
directory to the first ``docs/rules/<game>.md`` found in the run directory's ancestors, else in
the source checkout this package runs from. When neither has the file, the citation stays plain
text. Anchors are the heading ids GitHub gives a Markdown heading (lower case, punctuation
dropped, spaces to hyphens), so a link opens the file and, where the Markdown is rendered,
the section.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import analyzer

_DOC = re.compile(r"(docs/rules/[\w-]+\.md)")
SIGN = "\u00a7"  # the section sign
# a section sign, its number and the structured part the rules files use as headings:
# "<S>5.2", "<S>4 phase B", "<S>7 C.2" (the words after it are prose)
_SECTION = re.compile(SIGN + r"\s*(\d+(?:\.\d+)*)((?:\s+phase\s+\w+)?(?:\s+[A-Z](?:\.\d+)?(?=[\s,;.)]|$))?)")


def linked(citation: str, run_dir: Path | None) -> str:
    """``citation`` with the rules file and each section in it as Markdown links relative to
    ``run_dir``; unchanged when it names no ``docs/rules/*.md`` that can be found.

    Parameters
    ----------
    citation : str
        A rule value's ``section``, e.g. ``"docs/rules/<game>.md <S>4.2, <S>4.3"``.
    run_dir : Path or None
        The folder the report is written to; ``None`` leaves the citation as it is.
    """
    m = _DOC.search(citation)
    if m is None or run_dir is None:
        return citation
    doc = find_doc(m.group(1), Path(run_dir))
    if doc is None:
        return citation
    try:
        href = Path(os.path.relpath(doc, Path(run_dir).resolve())).as_posix()
    except ValueError:  # on another drive: no relative path
        return citation
    keys = anchors(doc)
    sections = list(_SECTION.finditer(citation, m.end()))
    # the file and a section right after it are one link; else the file is a link of its own
    joined = bool(sections) and not citation[m.end(): sections[0].start()].strip()
    out = citation[: m.start()] + ("" if joined else _link(m.group(1), href))
    at = m.start() if joined else m.end()
    for sec in sections:
        start = at if at == m.start() else sec.start()
        out += citation[at: start]
        anchor = _best(keys, sec.group(1), sec.group(2).split())
        text = citation[start: sec.end()]
        out += f"[{text}]({href}#{anchor})" if anchor else _link(text, href)
        at = sec.end()
    return out + citation[at:]


def _link(text: str, href: str) -> str:
    return f"[{text}]({href})"


def find_doc(name: str, run_dir: Path) -> Path | None:
    """The file ``name`` (``docs/rules/<game>.md``) in ``run_dir`` or an ancestor, else in the
    source checkout beside the ``analyzer`` package; ``None`` when neither has it."""
    start = run_dir.resolve()
    for folder in (start, *start.parents, Path(analyzer.__file__).resolve().parent.parent):
        if (folder / name).is_file():
            return folder / name
    return None


@cache
def anchors(doc: Path) -> dict[str, str]:
    """Section key -> heading anchor of a rules file: ``"5"`` (``## 5. …``), ``"5.2"``
    (``### 5.2 …``), ``"4 phase B"`` (``### Phase B …`` under ``## 4.``), ``"7 C"``
    (``### C. …`` under ``## 7.``)."""
    out: dict[str, str] = {}
    used: dict[str, int] = {}
    section = ""
    fenced = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not (m := re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)):
            continue
        title = m.group(2)
        anchor = slug(title)
        seen = used[anchor] = used.get(anchor, -1) + 1  # GitHub numbers repeats: x, x-1, x-2
        anchor = f"{anchor}-{seen}" if seen else anchor
        if k := re.match(r"(\d+)\.?\s", title + " "):
            if len(m.group(1)) == 2:
                section = k.group(1)
            out.setdefault(k.group(1), anchor)
        if k := re.match(r"(\d+(?:\.\d+)+)\s", title + " "):
            out.setdefault(k.group(1), anchor)
        elif section and (k := re.match(r"(?:Phase\s+(\w+)|([A-Z])\.)\s", title + " ")):
            key = f"{section} phase {k.group(1)}" if k.group(1) else f"{section} {k.group(2)}"
            out.setdefault(key, anchor)
    return out


def slug(title: str) -> str:
    """The id GitHub gives a heading: lower case, only letters, digits, ``-``, ``_`` and spaces
    kept, each space a hyphen (``"5.2 Setup mix  [GAP]"`` -> ``"52-setup-mix--gap"``)."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in "-_ ")
    return kept.replace(" ", "-")


def _best(keys: dict[str, str], number: str, words: list[str]) -> str:
    """The anchor of the most specific heading a citation falls under: ``7 C.2`` -> ``7 C``
    (the ``C.2`` item is in that section), ``5.2.1`` -> ``5.2`` -> ``5``."""
    parts = number.split(".")
    # "5 phase D b" -> "5 phase D" -> "5", then "5.2.1" -> "5.2" -> "5"
    tries = [" ".join([number, *words[:i]]) for i in range(len(words), -1, -1)]
    tries += [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]
    for t in tries:
        item = re.match(r"(.* [A-Z])\.\d+$", t)  # "7 C.2" -> the heading "7 C"
        if t in keys:
            return keys[t]
        if item and item.group(1) in keys:
            return keys[item.group(1)]
    return ""
