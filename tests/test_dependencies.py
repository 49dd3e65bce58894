"""Every third-party module the package imports is a declared dependency.

A plain ``pip install .`` must give a working CLI, so each import in ``analyzer/`` is checked
against ``pyproject.toml``: a module imported unconditionally belongs to a distribution in
``[project] dependencies``; a module of an optional extra is imported only inside
``try: ... except ImportError`` whose handler names the extra (``analyzer[dask]``). No import
reaches into a dependency's private module (``typer._click``).
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "analyzer"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(req: str) -> str:
    return _norm(re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req).group(1))


def declared() -> tuple[set[str], dict[str, set[str]]]:
    """Distribution names of ``[project] dependencies`` and of each optional extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {_requirement_name(r) for r in project["dependencies"]}
    extras = {extra: {_requirement_name(r) for r in reqs}
              for extra, reqs in project.get("optional-dependencies", {}).items()}
    return core, extras


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError")
               for n in names)


def imports() -> list[tuple[str, Path, int, str | None]]:
    """``(module, file, line, guard)`` for every absolute import of a module outside the standard
    library and the package; ``guard`` is the source of the ``except ImportError`` handler that
    wraps it, ``None`` when the import is unconditional."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        guards: dict[int, str] = {}  # id(import node) -> handler source
        for node in ast.walk(tree):
            if isinstance(node, ast.Try):
                handlers = [h for h in node.handlers if _catches_import_error(h)]
                if handlers:
                    text = "\n".join(ast.get_source_segment(source, h) or "" for h in handlers)
                    for stmt in node.body:
                        for inner in ast.walk(stmt):
                            guards[id(inner)] = text
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names or top == "analyzer":
                    continue
                out.append((module, path.relative_to(ROOT), node.lineno, guards.get(id(node))))
    return out


def test_every_imported_module_is_a_declared_dependency():
    core, extras = declared()
    dists = importlib.metadata.packages_distributions()
    found = imports()
    assert {m.split(".")[0] for m, *_ in found} >= {"numpy", "pandas", "typer"}  # the scan works
    gaps = []
    for module, path, line, guard in found:
        top = module.split(".")[0]
        names = {_norm(d) for d in dists.get(top, ())}
        where = f"{path}:{line} imports {module}"
        if not names:
            gaps.append(f"{where}: no installed distribution provides {top!r}")
        elif names & core:
            continue
        elif guard is None:
            gaps.append(f"{where}: {sorted(names)} is not in [project] dependencies")
        else:
            owners = [extra for extra, reqs in extras.items() if names & reqs]
            if not owners:
                gaps.append(f"{where}: {sorted(names)} is in no dependency list")
            elif not any(f"analyzer[{extra}]" in guard for extra in owners):
                gaps.append(f"{where}: the ImportError message does not name the extra "
                            f"analyzer[{owners[0]}]")
    assert not gaps, "\n".join(gaps)


def test_no_private_module_of_a_dependency_is_imported():
    private = [f"{path}:{line} imports {module}" for module, path, line, _ in imports()
               if any(part.startswith("_") for part in module.split(".")[1:])]
    assert not private, "\n".join(private)


def test_the_scan_sees_a_missing_declaration(tmp_path, monkeypatch):
    """The check fails on a gap: an undeclared import in a copy of the package is reported."""
    fake = tmp_path / "analyzer"
    fake.mkdir()
    (fake / "bad.py").write_text("import hypothesis\ntry:\n    import dask\nexcept ImportError:\n"
                                 "    raise SystemExit('no dask')\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "declared",
                        lambda: ({"numpy", "pandas", "typer"}, {"dask": {"dask"}}))
    (fake / "ok.py").write_text("import numpy, pandas, typer\n")
    try:
        test_every_imported_module_is_a_declared_dependency()
    except AssertionError as err:
        text = str(err)
    else:
        raise AssertionError("an undeclared import passed the check")
    assert "imports hypothesis" in text and "not in [project] dependencies" in text
    assert "does not name the extra analyzer[dask]" in text
