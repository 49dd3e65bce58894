"""The report's header and run facts: study and variant descriptions, the variants table, what a
user data table changes (``analyzer.tablediff``) and the links from rule values to
``docs/rules/``."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from analyzer import api, tablediff
from analyzer.games import get_game
from analyzer.report import citations
from analyzer.study.ablate import ablate
from analyzer.study.compare import compare
from analyzer.study.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent
STUDY = "Does the Sultan pay for itself? Three seats, one of them bold."
NO_SULTAN = "the Sultan is replaced by the Merchant"


@pytest.fixture
def described(write_scenario):
    """The toy scenario with a study description and one variant's description."""
    from conftest import TOY_SCENARIO

    text = TOY_SCENARIO.replace('seed = 42\n', f'seed = 42\ndescription = "{STUDY}"\n')
    text = text.replace('name = "no-sultan"\n', f'name = "no-sultan"\ndescription = "{NO_SULTAN}"\n')
    return write_scenario(text, "described.toml")


def _md(run_dir: Path) -> str:
    return (run_dir / "report.md").read_text(encoding="utf-8")


def _run(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())["run"]


def _variants(md: str) -> list[str]:
    """The rows of the variants table (header first)."""
    part = md.split("Variants (all on the same game seeds):\n\n")[1].split("\n\n")[0]
    return [line for line in part.splitlines() if not line.startswith("|---")]


# ---------------------------------------------------------------- descriptions


def test_descriptions_under_the_title_in_the_variants_table_and_in_the_run_facts(described, tmp_path):
    out = api.simulate(described, games=12, jobs=1, out=tmp_path / "run").out_dir
    run = _run(out)
    assert run["description"] == STUDY
    assert [a["description"] for a in run["arms"]] == ["", NO_SULTAN, ""]
    md = _md(out)
    assert md.split("\n\n")[1] == STUDY  # the first paragraph under the title
    rows = _variants(md)
    assert rows[0] == "| variant | description | rules (changes from base) | seats |"
    assert rows[2].startswith(f"| no-sultan | {NO_SULTAN} | cards = ")
    html = (out / "report.html").read_text(encoding="utf-8")
    assert re.search(r"</h1>\s*<p>" + re.escape(STUDY) + "</p>", html)
    assert f"<td>{NO_SULTAN}</td>" in html


def test_a_variant_without_rule_changes_is_not_called_defaults(described, tmp_path):
    """A sweep of a player parameter changes no rule: its arms have "the same rules as the
    base"; the sweep's own descriptions name the values."""
    out = sweep(described, ["seats[0].params.boost=0,2"], games=12, jobs=1, out=tmp_path / "sw").out_dir
    run = _run(out)
    assert run["description"] == STUDY
    assert [a["description"] for a in run["arms"][1:]] == ["sweep boost=0", "sweep boost=2"]
    md = _md(out)
    assert "(defaults)" not in md
    rows = _variants(md)
    assert rows[2] == "| boost=0 | sweep boost=0 | same rules as the base | bold*, random, biased |"


def test_a_base_without_rules_says_the_games_defaults(write_scenario, tmp_path):
    path = write_scenario('name = "plain"\ngame = "toy"\nplayers = 2\ngames = 5\nseed = 1\n\n'
                          '[[seats]]\npolicy = "random"\n')
    rows = _variants(_md(api.simulate(path, jobs=1, out=tmp_path / "run").out_dir))
    assert rows == ["| variant | rules | seats |", "| base | none set (the game's defaults) | random, random |"]


def test_compare_shows_each_scenarios_description(described, write_scenario, tmp_path):
    from conftest import TOY_SCENARIO

    other = write_scenario(TOY_SCENARIO.replace('name = "toy-study"', 'name = "other"')
                           .replace('seed = 42\n', 'seed = 42\ndescription = "the same study again"\n'),
                           "other.toml")
    out = compare([described, other], games=10, jobs=1, out=tmp_path / "cmp").out_dir
    run = _run(out)
    assert [s["description"] for s in run["study"]["scenarios"]] == [STUDY, "the same study again"]
    arms = {a["name"]: a["description"] for a in run["arms"]}
    assert arms["base"] == STUDY and arms["other"] == "the same study again"
    assert arms["toy-study/no-sultan"] == NO_SULTAN
    md = _md(out)
    assert "| other | the same study again | same rules as the base |" in md
    compared = md.split("## Compared scenarios")[1]
    assert f"| toy-study | {STUDY} |" in compared


def test_ablate_describes_each_leave_one_out_arm(write_scenario, tmp_path):
    path = write_scenario('name = "abl"\ngame = "rattus"\nexpansions = ["africanus"]\nplayers = 3\n'
                          'games = 4\nseed = 5\ndescription = "what each card is worth"\n\n[rules]\n'
                          'class_cards = ["knight", "monk", "witch", "king", "sultan", "trader"]\n\n'
                          '[[seats]]\npolicy = "random"\n')
    out = ablate(path, jobs=1, out=tmp_path / "abl").out_dir
    run = _run(out)
    assert run["description"] == "what each card is worth"
    arms = {a["name"]: a["description"] for a in run["arms"]}
    assert arms["without-sultan"] == "sultan replaced by peasant"
    assert "| without-sultan | sultan replaced by peasant | class_cards = " in _md(out)


# ---------------------------------------------------------------- user data tables


def test_compare_tables_entry_by_entry():
    builtin = {"provenance": "default", "section": "x",
               "site": [{"name": "north", "size": 1, "goods": {"stone": 1}},
                        {"name": "south", "size": 2, "goods": {"stone": 2}},
                        {"name": "east", "size": 3, "goods": {}}],
               "token": [{"threshold": 1, "symbols": ["a"]}, {"threshold": 2, "symbols": ["b"]}],
               "cubes": {"value": 20, "provenance": "rulebook"}, "limit": 3}
    user = {"site": [{"name": "south", "size": 2, "goods": {"stone": 3}},  # moved: matched by name
                     {"name": "north", "size": 1, "goods": {"stone": 1}, "provenance": "user"},
                     {"name": "west", "size": 4, "goods": {"wood": 1}}],
            "token": [{"threshold": 1, "symbols": ["a", "c"]}, {"threshold": 2, "symbols": ["b"]}],
            "cubes": {"value": 20}, "limit": 4, "extra": True}
    diff = tablediff.compare(builtin, user)
    assert diff.entries == 7  # 3 sites, 2 tokens, cubes, limit
    assert diff.changes == (
        ("[[site]] south", "goods.stone 2 → 3"),
        ("[[site]] east", "removed"),
        ("[[token]] 1", "symbols [a] → [a, c]"),
        ("limit", "3 → 4"),
        ("[[site]] west", "added (size = 4, goods.wood = 1)"),
        ("extra", "added (true)"),
    )
    assert tablediff.compare(builtin, builtin).changes == ()


def test_rows_without_distinct_names_are_aligned_as_sequences():
    """A row edited in place is one change; a row taken out or put in shifts nothing."""
    a = {"card": [{"name": "x", "v": 1}, {"name": "x", "v": 2}]}
    b = {"card": [{"name": "x", "v": 1}, {"name": "x", "v": 5}, {"name": "y", "v": 1}]}
    assert tablediff.compare(a, b).changes == (("[[card]] 2", "v 2 → 5"),
                                               ("[[card]]", "added as row 3 (name = y, v = 1)"))
    rows = [{"kind": k, "count": 2} for k in "abcdef"]
    diff = tablediff.compare({"deck": rows}, {"deck": rows[:2] + rows[3:]})
    assert (diff.entries, diff.changes) == (6, (("[[deck]] 3", "removed (kind = c, count = 2)"),))


def test_long_values_are_cut():
    a = {"t": {"value": list(range(5))}}
    b = {"t": {"value": list(range(100))}}
    (entry, change), = tablediff.compare(a, b).changes
    assert entry == "[t]" and change.startswith("value [0, 1, 2, 3, 4] → [0, 1, 2,")
    assert change.endswith("…") and len(change) <= tablediff.LINE_WIDTH


def _tokens_file(path: Path, bump: int) -> Path:
    """The built-in token table with the first ``bump`` base tokens' thresholds raised by 1."""
    table = get_game("rattus").tables["tokens_file"]
    text = Path(table).read_text(encoding="utf-8")
    parts = text.split("[[base]]")
    for i in range(1, bump + 1):
        parts[i] = re.sub(r"threshold = (\d)", lambda m: f"threshold = {int(m.group(1)) + 1}", parts[i], count=1)
    path.write_text("[[base]]".join(parts), encoding="utf-8")
    return path


RATTUS = """\
name = "tok"
game = "rattus"
players = 3
games = 4
seed = 3

[rules]
tokens_file = "{file}"

[[seats]]
policy = "random"
"""


@pytest.fixture
def rattus_run(tmp_path):
    """A small Rattus run whose scenario replaces the token table (2 tokens changed)."""
    folder = tmp_path / "study"
    folder.mkdir()
    _tokens_file(folder / "my_tokens.toml", 2)
    (folder / "tok.toml").write_text(RATTUS.format(file="my_tokens.toml"))
    return api.simulate(folder / "tok.toml", jobs=1, out=tmp_path / "run").out_dir


def test_a_user_table_is_shown_by_what_differs_from_the_built_in_one(rattus_run):
    (fact,) = _run(rattus_run)["tables"]
    assert fact["option"] == "tokens_file" and fact["builtin"] == "data/tokens.toml"
    assert fact["path"].endswith("my_tokens.toml") and fact["arms"] == ["base"]
    assert fact["differ"] == 2
    assert fact["changes"] == [{"entry": "[[base]] 1", "change": "threshold 1 → 2"},
                               {"entry": "[[base]] 2", "change": "threshold 1 → 2"}]
    built_in = tomllib.loads(Path(get_game("rattus").tables["tokens_file"]).read_text("utf-8"))
    assert fact["entries"] == len(built_in["base"]) + len(built_in["africanus"])
    md = _md(rattus_run)
    line = next(p for p in md.split("\n\n") if p.startswith("`tokens_file` = "))
    assert line == (f"`tokens_file` = `{fact['file']}`: 2 entries differ from the built-in "
                    f"`data/tokens.toml` ({fact['entries']} entries): `[[base]] 1` threshold 1 → 2; "
                    "`[[base]] 2` threshold 1 → 2.")
    assert f"tokens_file = {fact['file']}" in _variants(md)[1]
    # re-rendered from the run facts: the user's file is no longer needed
    Path(fact["path"]).unlink()
    api.render_report(rattus_run)
    assert _md(rattus_run) == md


def test_many_changes_are_capped_with_a_count(tmp_path):
    facts = tablediff.run_facts(get_game("rattus").tables,
                                [("base", {"tokens_file": str(_tokens_file(tmp_path / "t.toml", 12))}),
                                 ("v", {"tokens_file": str(tmp_path / "t.toml")})], shown=5)
    (fact,) = facts
    assert fact["differ"] == 12 and len(fact["changes"]) == 5 and fact["arms"] == ["base", "v"]


def test_cap_in_the_report(rattus_run):
    summary = json.loads((rattus_run / "summary.json").read_text())
    fact = summary["run"]["tables"][0]
    fact["differ"] = 9  # as if 7 more had been left out of the run facts
    (rattus_run / "summary.json").write_text(json.dumps(summary))
    api.render_report(rattus_run)
    md = _md(rattus_run)
    assert "9 entries differ from the built-in `data/tokens.toml`" in md
    assert "`[[base]] 2` threshold 1 → 2; and 7 more." in md


def test_every_table_option_names_a_built_in_table():
    """Each game's ``tables`` covers its ``*_file`` rule options and points at files that exist."""
    from analyzer.games import available_games

    for name in available_games():
        spec = get_game(name)
        assert set(spec.tables) == {o for o in spec.options.names() if o.endswith("_file")}, name
        for option, path in spec.tables.items():
            assert Path(path).is_file(), (name, option)


# ---------------------------------------------------------------- links to docs/rules


def _slugs(doc: Path) -> set[str]:
    """The heading ids GitHub gives the headings of ``doc`` (written here independently of
    ``analyzer.report.citations``)."""
    out, seen = set(), {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"#+ (.*)", line):
            s = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            seen[s] = seen.get(s, -1) + 1
            out.add(s if seen[s] == 0 else f"{s}-{seen[s]}")
    return out


def _links(md: str) -> list[tuple[str, str]]:
    defaults = md.split("## Appendix: labelled defaults in use")[1].split("\n## ")[0]
    return re.findall(r"\]\(([^)#]+)#?([^)]*)\)", defaults)


def test_rule_values_link_to_their_section_and_the_links_resolve(rattus_run):
    md = _md(rattus_run)
    links = _links(md)
    assert len(links) >= 6  # a 3-player base game lists the defaults that acted: no Africanus options
    for target, anchor in links:
        doc = (rattus_run / target).resolve()
        assert doc == ROOT / "docs" / "rules" / "rattus.md"
        assert anchor in _slugs(doc), anchor
    assert "[docs/rules/rattus.md §4.2](" in md and "), [§4.3](" in md  # the map: two sections
    html = (rattus_run / "report.html").read_text(encoding="utf-8")
    target, anchor = links[0]
    assert f'<a href="{target}#{anchor}">docs/rules/rattus.md §' in html


def test_links_prefer_the_docs_beside_the_run_directory(rattus_run, tmp_path):
    """A run directory inside a checkout (``reports/<name>/``) links to that checkout's docs."""
    repo = tmp_path / "repo"
    (repo / "docs" / "rules").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "rules" / "rattus.md", repo / "docs" / "rules" / "rattus.md")
    run = shutil.copytree(rattus_run, repo / "reports" / "tok")
    api.render_report(run)
    links = _links(_md(run))
    assert links and all(t == "../../docs/rules/rattus.md" for t, _ in links)


def test_without_the_rules_file_the_citation_stays_text(rattus_run, monkeypatch):
    monkeypatch.setattr(citations, "find_doc", lambda name, run_dir: None)
    api.render_report(rattus_run)
    md = _md(rattus_run)
    assert not _links(md) and "| docs/rules/rattus.md §4.2, §4.3 |" in md
    assert citations.linked("docs/rules/nothing.md \u00a71", rattus_run) == "docs/rules/nothing.md \u00a71"
    assert citations.linked("toy rule 1", rattus_run) == "toy rule 1"


# ---------------------------------------------------------------- labelled defaults: top line, appendix


def test_labelled_defaults_are_counted_at_the_top_and_listed_last(rattus_run):
    """One line under "This run" counts the labelled defaults (rule options and guessed content
    tables) and links to the appendix, the report's last section; the link's anchor is the
    appendix heading's id in the HTML as in GitHub's Markdown."""
    md = _md(rattus_run)
    heads = re.findall(r"^## (.*)$", md, re.MULTILINE)
    assert heads[:3] == ["Answers", "Key findings", "This run"]
    assert heads[-1] == "Appendix: labelled defaults in use"
    run = _run(rattus_run)
    names = [d["name"] for d in run["defaults"]["base"]]
    options = set(get_game("rattus").options.names())
    content = [n for n in names if n not in options]
    line = next(p for p in md.split("\n\n") if p.startswith("**Labelled defaults**"))
    assert f"{len(names)} rule values of this run" in line
    assert f"{len(names) - len(content)} rule options and {len(content)} content entr" in line
    tables = list(dict.fromkeys(n.partition(".")[0] for n in content))
    assert "(" + ", ".join(f"`{t}`" for t in tables) + ")" in line
    assert "`tokens`" not in line  # the scenario's own token table is not a default
    assert "[appendix](#appendix-labelled-defaults-in-use)" in line
    top = md.split("## This run")[1].split("\n## ")[0]
    assert "| rule value | value | section |" not in top  # the table is in the appendix only
    html = (rattus_run / "report.html").read_text(encoding="utf-8")
    assert '<h2 id="appendix-labelled-defaults-in-use">' in html
    assert '<a href="#appendix-labelled-defaults-in-use">appendix</a>' in html


def test_defaults_line_splits_options_from_guessed_content_tables():
    from analyzer.report import defaults_line

    d = [{"name": n, "value": 1, "section": ""} for n in ("rule_a", "site.X", "site.Y", "map")]
    line = defaults_line({"base": d[:3], "v": d}, {"rule_a", "rule_b"})
    assert line.startswith("**Labelled defaults**: 4 rule values of this run are")
    assert "(1 of them only in variants)" in line
    assert ("1 rule option and 3 content entries from 2 guessed content tables (`site`, `map`)"
            in line)
    assert "5" not in line  # nothing counted twice
    one = defaults_line({"base": d[:1]}, {"rule_a"})
    assert "1 rule value of this run is a `[GAP → DEFAULT]` choice" in one
    assert "1 rule option and 0 content entries" in one
    assert defaults_line({"base": []}).endswith("no rule value of this run is a labelled default.")
    assert "not recorded" in defaults_line({})
    assert "content" not in defaults_line({"base": d}, None)  # the game is unknown: no split
