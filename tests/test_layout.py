"""The package's layout rules: no import cycles, the layers import downward only (the model
under the games, the games under the report's extension point, the report under the study
commands), a game is one folder (nothing outside ``analyzer/games/<game>/`` names it), and the
registry finds the game packages by itself and lets their import errors through."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import analyzer.games
from analyzer import api, bench
from analyzer.errors import RuleError, ScenarioError
from analyzer.games import available_games, get_game
from analyzer.model.base import (
    COMMON_GAME_COLUMNS,
    COMMON_SEAT_COLUMNS,
    SHARED_SEAT_COLUMNS,
    PlayerCounts,
)
from analyzer.model.ismcts import Ismcts

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "analyzer"


# ------------------------------------------------------------------ import graph


def _module_names(root: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for every ``.py`` under the package folder ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    """The package modules one module imports, at module level and inside functions; imports
    under ``if TYPE_CHECKING:`` do not run and do not count."""

    def __init__(self, module: str, is_package: bool, known: set[str]):
        self.package = module if is_package else module.rpartition(".")[0]
        self.known = known
        self.found: set[str] = set()

    def _add(self, name: str) -> None:
        while name and name not in self.known:  # `import a.b.X` where X is not a module
            name = name.rpartition(".")[0]
        if name:
            self.found.add(name)

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parent = self.package.split(".")
            parent = parent[: len(parent) - (node.level - 1)]
            base = ".".join(parent + ([base] if base else []))
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            self._add(sub if sub in self.known else base)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (``from pkg import mod`` counts as
    importing ``pkg.mod``; ``from pkg import name`` as importing ``pkg``)."""
    files = _module_names(root)
    known = set(files)
    graph = {}
    for name, path in files.items():
        visitor = _Imports(name, path.name == "__init__.py", known)
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        graph[name] = visitor.found - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (``[a, b, …, a]``) through each strongly connected part of ``graph`` with more
    than one module (Tarjan's algorithm, then a path back to the part's first module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    parts: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    out = []
    for part in parts:
        start, inside = part[0], set(part)
        path, seen = [start], {start}
        while True:  # walk inside the part until an edge leads back to the start
            nxt = sorted(graph[path[-1]] & inside)
            if start in nxt:
                out.append([*path, start])
                break
            step = next((w for w in nxt if w not in seen), None)
            if step is None:  # dead end inside the part: back up
                path.pop()
                continue
            path.append(step)
            seen.add(step)
    return out


def test_no_import_cycles():
    """No module of ``analyzer`` imports itself through others (TYPE_CHECKING imports aside)."""
    found = cycles(import_graph(PACKAGE))
    assert not found, "import cycles: " + "; ".join(" -> ".join(c) for c in found)


def test_report_and_games_import_in_one_direction():
    """A game's study imports the generic report; the report imports no game package."""
    graph = import_graph(PACKAGE)
    games = {f"analyzer.games.{g}" for g in available_games()}
    for module, targets in graph.items():
        if module.startswith(("analyzer.report", "analyzer.stats", "analyzer.runner")):
            assert not {t for t in targets if t.startswith(tuple(games))}, module
    assert "analyzer.report.document" in graph["analyzer.games.rattus.study"]


def test_cycle_finder_names_a_cycle_and_skips_type_checking(tmp_path):
    """The graph and cycle finder on a made-up package: ``a -> b -> a`` at function level is
    found and named; ``c``'s TYPE_CHECKING import of ``a`` is no edge."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import thing\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from pkg import a\nelse:\n    from . import b\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.c"] == {"pkg.b"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]


# ------------------------------------------------------------------ the layers

# A layer is a top-level module or subpackage of ``analyzer`` (``report``, ``model``, ``runner``…);
# the registry (``analyzer/games/__init__.py``) is the layer ``games`` and each game package its
# own layer ``games.<game>``.
# The report's extension point and the report modules a game's own sections build with: a game
# imports nothing else of ``report/``.
REPORT_API = {f"analyzer.report.{m}" for m in (
    "extension", "document", "records", "charts", "design", "findings", "players", "balance",
    "units")}
# What the model layer (the contract and the shared machinery) may import besides itself.
MODEL_MAY_IMPORT = {"errors", "userfiles"}
# The one place the report still looks a game up itself (issue #31 step 3: the caller should
# hand the report its game's spec and sections): report modules importing the registry.
REPORT_REGISTRY_PENDING = {"analyzer.report"}
# The floors the layers stand on today (11; issue #31 asks at most 12): a new longest chain of
# imports between layers fails here; lower it when a change takes floors away.
MAX_FLOORS = 11


def layer(module: str) -> str:
    """``analyzer.report.findings`` -> ``report``; ``analyzer.games.rattus.study`` ->
    ``games.rattus``; ``analyzer.games`` -> ``games`` (the registry); ``analyzer`` itself ->
    ``analyzer``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "analyzer"
    if parts[1] == "games" and len(parts) > 2:
        return f"games.{parts[2]}"
    return parts[1]


def layer_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Layer -> the other layers its modules import."""
    out: dict[str, set[str]] = {layer(m): set() for m in graph}
    for module, targets in graph.items():
        out[layer(module)] |= {layer(t) for t in targets} - {layer(module)}
    return out


def floors(graph: dict[str, set[str]]) -> tuple[int, list[str]]:
    """The number of layers on the longest chain of imports of an acyclic ``graph``, and that
    chain (top first)."""
    memo: dict[str, list[str]] = {}

    def chain(v: str) -> list[str]:
        if v not in memo:
            memo[v] = [v, *max((chain(w) for w in sorted(graph[v])), key=len, default=[])]
        return memo[v]

    longest = max((chain(v) for v in sorted(graph)), key=len)
    return len(longest), longest


def test_layers_import_downward_only():
    """The layers form no cycle (no arrow runs back up), and they stand on no more floors than
    ``MAX_FLOORS``."""
    layers = layer_graph(import_graph(PACKAGE))
    found = cycles(layers)
    assert not found, "layers importing each other: " + "; ".join(" -> ".join(c) for c in found)
    n, longest = floors(layers)
    assert n <= MAX_FLOORS, f"{n} floors (at most {MAX_FLOORS}): " + " -> ".join(longest)
    print(f"{len(layers)} layers on {n} floors: " + " -> ".join(longest))


def test_model_imports_no_game_no_study_and_no_report():
    """``analyzer/model/`` is the floor the games stand on: it imports itself and the leaf
    modules of ``MODEL_MAY_IMPORT`` only (not the registry, a game, the report or a study)."""
    graph = import_graph(PACKAGE)
    wrong = sorted(f"{m} -> {t}" for m, targets in graph.items() if layer(m) == "model"
                   for t in targets if layer(t) not in {"model", *MODEL_MAY_IMPORT})
    assert not wrong, "the model imports upward: " + "; ".join(wrong)


def test_report_imports_no_game_and_only_the_contract_of_the_model():
    """The report names no game package and of the model only the contract (``model.base``);
    the registry only where ``REPORT_REGISTRY_PENDING`` says (and that list is exact, so it
    shrinks when the report is handed its game)."""
    graph = import_graph(PACKAGE)
    report = {m: targets for m, targets in graph.items() if layer(m) == "report"}
    wrong = sorted(f"{m} -> {t}" for m, targets in report.items() for t in targets
                   if layer(t).startswith("games.") or (layer(t) == "model" and t != "analyzer.model.base"))
    assert not wrong, "the report reaches into the games or the model: " + "; ".join(wrong)
    registry = {m for m, targets in report.items() if "analyzer.games" in targets}
    assert registry == REPORT_REGISTRY_PENDING, registry ^ REPORT_REGISTRY_PENDING


def test_a_game_builds_on_the_model_and_the_report_extension_point():
    """A game package imports the model, the statistics, ``errors``, its own modules and, of
    the report, only ``REPORT_API`` (its sections); never another game, the registry, the
    runner or a study command; and nothing outside a game's folder imports it (the registry
    finds it by name)."""
    graph = import_graph(PACKAGE)
    wrong = []
    for module, targets in graph.items():
        own = layer(module)
        for t in targets:
            there = layer(t)
            if own.startswith("games.") and there != own and not (
                    there in {"model", "stats", "errors"} or t in REPORT_API):
                wrong.append(f"{module} -> {t}")
            if not own.startswith("games.") and there.startswith("games."):
                wrong.append(f"{module} -> {t}")
    assert not wrong, "a game's imports cross the layers: " + "; ".join(sorted(wrong))
    assert "analyzer.report.extension" in graph["analyzer.games.rattus.study"]


def test_the_layer_checks_catch_an_arrow_back_up():
    """The checks are live: on a made-up graph, a model module importing the report makes a
    cycle of layers and is named; the floors count the longest chain."""
    graph = {"analyzer.model.base": {"analyzer.errors"}, "analyzer.errors": set(),
             "analyzer.games.toy": {"analyzer.model.base", "analyzer.report.extension"},
             "analyzer.report.extension": set(), "analyzer.report": {"analyzer.model.base"}}
    layers = layer_graph(graph)
    assert not cycles(layers)
    assert floors(layers) == (4, ["games.toy", "report", "model", "errors"])
    graph["analyzer.model.base"].add("analyzer.report")
    assert cycles(layer_graph(graph)) == [["model", "report", "model"]]


# ------------------------------------------------------------------ nobody else names a game

# What one game owns and the rest of the package must not name: the game, its title's words and
# expansions, its content (cards, buildings, sites), its own policies, rule options and columns.
# model/base.py, the contract, is left out: its docstrings take their examples from the games.
SCANNED = sorted([*PACKAGE.glob("*.py"), *PACKAGE.glob("report/**/*.py"), ROOT / "setup.py",
                  *PACKAGE.glob("games/*.py"),
                  *(p for p in PACKAGE.glob("model/*.py") if p.name != "base.py")])
ALLOWED_EVERYWHERE = (
    re.compile(r"scenarios/[\w.-]+\.toml"),  # a shipped scenario file, e.g. in a help example
)
COMMAND_EXAMPLE = re.compile(r"^\s*analyzer [a-z]+ ")  # a line of a help text's examples
ALLOWED_IN = {  # file -> (pattern of a line allowed to name a game, why)
    "analyzer/cli.py": (COMMAND_EXAMPLE, "a command example"),
    "analyzer/study_cli.py": (COMMAND_EXAMPLE, "a command example"),
    "analyzer/scenario.py": (re.compile(r'^\s*(game|expansions|class_cards|rules) = '),
                             "the module docstring's example scenario"),
}


def _owned_names() -> dict[str, str]:
    """Lower-case name -> the game owning it."""
    shared = {*COMMON_GAME_COLUMNS, *COMMON_SEAT_COLUMNS, *SHARED_SEAT_COLUMNS}
    specs = [get_game(g) for g in available_games()]
    every_game_policy = set.intersection(*(set(s.policies) for s in specs))
    # a policy built on the shared search player (model/ismcts.py) is the framework's, not a game's
    every_game_policy |= {p for s in specs for p, cls in s.policies.items() if issubclass(cls, Ismcts)}
    out = {}
    for spec in specs:
        names = [spec.name, *re.findall(r"[A-Za-z]{4,}", spec.title), *spec.expansions,
                 *(x for items in spec.content.values() for x in items),
                 *(p for p in spec.policies if p not in every_game_policy),
                 *spec.options.names(), *spec.game_columns, *spec.seat_columns]
        out.update({n.lower(): spec.name for n in names if n not in shared})
    return out


def _pattern(names: dict[str, str]) -> re.Pattern:
    """Whole-word matches; a plain word that could be English (a column ``rats``, an option
    ``players``) counts only in quotes (``"rats"``, ``rats``), a game's name, title, expansion
    and content anywhere."""
    anywhere, quoted = [], []
    for n, game in names.items():
        spec = get_game(game)
        loose = ("_" in n or "-" in n or n == game or n in map(str.lower, spec.expansions)
                 or n in {w.lower() for w in re.findall(r"[A-Za-z]{4,}", spec.title)}
                 or n in {x.lower() for items in spec.content.values() for x in items})
        (anywhere if loose else quoted).append(re.escape(n))
    return re.compile(r"(?<![\w-])(?:" + "|".join(sorted(anywhere, key=len, reverse=True))
                      + r")(?![\w-])|([\"'`])(?:" + "|".join(sorted(quoted, key=len, reverse=True))
                      + r")\1", re.IGNORECASE)


def test_only_a_game_folder_names_its_game():
    """The runner, stats, report, API, CLI, registry and setup.py name no game, card, building,
    site, game policy, rule option or game column (apart from ``ALLOWED_IN``): adding a game
    touches only ``analyzer/games/<game>/``, ``scenarios/`` and ``docs/rules/``."""
    names = _owned_names()
    pattern = _pattern(names)
    hits = []
    for path in SCANNED:
        rel = path.relative_to(ROOT).as_posix()
        allowed = ALLOWED_IN.get(rel)
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if allowed and allowed[0].search(line):
                continue
            for skip in ALLOWED_EVERYWHERE:
                line = skip.sub("", line)
            hits += [f"{rel}:{no}: {m.group(0)} ({names[m.group(0).strip(chr(34) + chr(39) + '`').lower()]})"
                     for m in pattern.finditer(line)]
    assert not hits, "game-specific names outside the game's folder:\n" + "\n".join(hits)


# The statistics, runner and report modules, docstrings and comments included, name no word of a
# game's vocabulary either: a word of a game's column, rule option, content kind, table or
# labelled-default name that only one game uses (``_game_words``), so an example there is
# generic. ``GENERIC_WORDS`` are English words such a name happens to contain that generic
# code needs (a name of a new game adding one: rephrase, or list the word here with care).
STRICT = sorted([*PACKAGE.glob("report/**/*.py"), PACKAGE / "stats.py", PACKAGE / "runner.py"])
STRICT_PENDING: dict[str, str] = {}  # file -> why it is not scanned yet
GENERIC_WORDS = {
    "action", "actions", "adds", "base", "class", "count", "dealt", "death", "deaths",
    "distinct", "distribution", "drawn", "effect", "elsewhere", "from", "given", "hand",
    "held", "high", "last", "left", "leftovers", "match", "minimum", "move", "moves", "name",
    "opening", "pair", "pairs", "phase", "play", "played", "pool", "range", "removed",
    "replace", "result", "same", "second", "selection", "space", "spaces", "special", "spread", "stack",
    "standard", "table", "ties", "took", "total", "turn", "turns", "unused", "value",
}


def _game_words() -> dict[str, str]:
    """Lower-case word -> the one game whose names use it (words of 4 letters or more, and
    each without its plural ``s``), from its columns, rule options, content kinds, data tables
    and labelled defaults; words of the shared columns and ``GENERIC_WORDS`` left out."""
    shared = {w for c in (*COMMON_GAME_COLUMNS, *COMMON_SEAT_COLUMNS, *SHARED_SEAT_COLUMNS)
              for w in re.split(r"[_\W]+", c.lower())}
    owners: dict[str, set[str]] = {}
    for game in available_games():
        spec = get_game(game)
        for name in (*spec.game_columns, *spec.seat_columns, *spec.options.names(),
                     *spec.content, *spec.tables, *(c.default for c in spec.guesses)):
            for word in re.split(r"[_\W\d]+", name.lower()):
                for form in {word, word.removesuffix("s")}:
                    if len(form) >= 4 and form not in shared:
                        owners.setdefault(form, set()).add(game)
    return {w: next(iter(g)) for w, g in owners.items()
            if len(g) == 1 and w not in GENERIC_WORDS}


def test_statistics_runner_and_report_use_no_game_vocabulary():
    """``report/``, ``stats.py`` and ``runner.py`` name no game, even in a docstring, a comment
    or an example: neither a name ``test_only_a_game_folder_names_its_game`` checks, nor a word
    of a game's own vocabulary (a column, option, content kind or table word of one game)."""
    words, names = _game_words(), _owned_names()
    pattern = re.compile(r"(?<![\w-])(?:" + "|".join(
        sorted(map(re.escape, words), key=len, reverse=True)) + r")(?![\w-])", re.IGNORECASE)
    named = _pattern(names)
    hits = []
    for path in STRICT:
        rel = path.relative_to(ROOT).as_posix()
        if rel in STRICT_PENDING:
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            hits += [f"{rel}:{no}: {m.group(0)} ({words[m.group(0).lower()]})"
                     for m in pattern.finditer(line)]
            hits += [f"{rel}:{no}: {m.group(0)}" for m in named.finditer(line)]
    assert not hits, "a game's vocabulary in generic code:\n" + "\n".join(hits)


def test_the_vocabulary_check_finds_game_words():
    """The check is live: words of one game's names count, shared and generic ones do not."""
    words = _game_words()
    assert {"building", "site", "diplomat", "plague", "caravan"} <= set(words)
    assert not {"score", "seat", "won", "died", "turn", "value"} & set(words)


def test_name_check_finds_a_game_name():
    """The check is live: it flags a column, a card and a game name in generic code."""
    pattern = _pattern(_owned_names())
    assert pattern.search('cols = ("variant", "sultan_points")')
    assert pattern.search("the Pyramidion goods")
    assert pattern.search('if "deaths" in games:') and not pattern.search("no deaths here")
    assert not pattern.search('seats.read(("game_id", "won", "died"))')  # shared columns


# ------------------------------------------------------------------ the registry


def _extra_package(tmp_path: Path, monkeypatch, name: str, source: str) -> None:
    """A game package ``name`` in a second folder of ``analyzer.games`` (removed afterwards)."""
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text(source)
    monkeypatch.setattr(analyzer.games, "__path__", [*analyzer.games.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, f"analyzer.games.{name}", raising=False)


def test_registry_finds_every_game_package():
    # every folder of analyzer/games/ with an __init__.py is a game, alphabetical
    folders = sorted(p.parent.name for p in Path(analyzer.games.__file__).parent.glob("*/__init__.py"))
    assert folders and available_games() == folders
    for name in available_games():
        assert get_game(name).name == name


def test_a_new_game_folder_is_all_it_takes(tmp_path, monkeypatch):
    """A package dropped into the games folder is listed and usable, nothing else changed."""
    _extra_package(tmp_path, monkeypatch, "extragame",
                   "from dataclasses import replace\nimport toygame\n"
                   "SPEC = replace(toygame.SPEC, name='extragame', title='Extra Game')\n")
    assert "extragame" in available_games()
    assert "extragame" in [r["game"] for r in api.catalogue("games")]
    assert get_game("extragame").display_name() == "Extra Game"
    assert "extragame" in [g for g, _ in bench.standard_tables()]


@pytest.mark.parametrize(("source", "error"), [
    ("import analyzer.games.no_such_module\n", ModuleNotFoundError),
    ("SPEC = undefined_name\n", NameError),
])
def test_an_import_error_in_a_game_propagates(tmp_path, monkeypatch, source, error):
    """A broken game package is a bug: its error reaches the caller and the game never just
    drops out of ``list games`` (or of the contract tests)."""
    _extra_package(tmp_path, monkeypatch, "brokengame", source)
    assert "brokengame" in available_games()
    with pytest.raises(error):
        get_game("brokengame")
    with pytest.raises(error):
        api.catalogue("games")


def test_unknown_game_is_a_user_error():
    with pytest.raises(RuleError, match=re.escape(f"unknown game 'nope' (allowed: {', '.join(available_games())}")):
        get_game("nope")
    with pytest.raises(ScenarioError, match="^game: unknown game 'nope'"):
        api.catalogue("games", "nope")


def test_bench_tables_come_from_the_games():
    """``bench`` plays each game at the table its GameSpec states, with its targets."""
    tables = dict(bench.standard_tables())
    assert set(tables) == set(available_games())
    for name, table in tables.items():
        spec = get_game(name)
        assert table == spec.bench_table()
        assert spec.min_players <= table.players <= spec.max_players
        assert set(table.expansions) <= set(spec.expansions)
        assert set(table.targets) <= set(spec.policies)
    toy = replace(get_game("toy"), players=PlayerCounts("toy", 2, 3), benchmark=None)
    assert toy.bench_table().players == 3 and toy.bench_table().targets == {}


PLAY_ONLY = """
import sys
from analyzer.games import available_games, get_game
for name in available_games():
    spec = get_game(name)
    table = spec.bench_table()
    spec.play_game(spec.make_config(table.players, table.expansions, {}), ["random"] * table.players, 1)
print(" ".join(m for m in ("pandas", "matplotlib", "scipy", "analyzer.report") if m in sys.modules))
"""


def test_playing_games_loads_no_report():
    """A worker that only plays games never imports a game's study module, so it does not pay
    for pandas, matplotlib or scipy (``GameSpec.sections`` is a callable for that reason)."""
    done = subprocess.run([sys.executable, "-c", PLAY_ONLY], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == []
