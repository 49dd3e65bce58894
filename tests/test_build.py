"""Which build runs (asked of the registry, analyzer/games/__init__.py): ``analyzer --version``
and ``analyzer bench`` say whether the engines run compiled (mypyc) or as pure Python
(setup.py's fallback without a C compiler, or ``ANALYZER_PURE_PYTHON=1``)."""

from __future__ import annotations

import json
import os
import runpy
from pathlib import Path

import pyarrow.lib
import pytest
from typer.testing import CliRunner

import analyzer
from analyzer import games
from analyzer.cli import app

ROOT = Path(__file__).resolve().parents[1]
PURE = os.environ.get("ANALYZER_PURE_PYTHON") == "1"


def test_a_c_extension_counts_as_compiled_and_python_source_does_not():
    assert games.is_compiled(pyarrow.lib)  # a dependency that is always a C extension
    assert not games.is_compiled(games)
    assert not games.is_compiled(json)


def test_the_build_in_words():
    assert games.describe_build(34, 34) == "compiled engines (mypyc)"
    assert games.describe_build(0, 34) == "pure Python engines (not compiled: about 2x slower; see README)"
    assert games.describe_build(23, 34) == ("partly compiled engines (23 of 34 modules; reinstall to "
                                      "compile all)")


def test_the_engine_modules_are_those_setup_py_compiles(monkeypatch):
    import setuptools

    monkeypatch.setattr(setuptools, "setup", lambda **kwargs: None)  # read setup.py, build nothing
    monkeypatch.setenv("ANALYZER_PURE_PYTHON", "1")
    listed = runpy.run_path(str(ROOT / "setup.py"))["compiled_modules"]()
    assert games.engine_modules() == [f"{package}.{m}" for package, modules in listed.items()
                                      for m in modules]


def test_version_names_the_running_build(monkeypatch):
    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.stdout == f"analyzer {analyzer.__version__}, {games.build()}\n"
    # what the engines' modules are, counted: every one a C extension, or none
    monkeypatch.setattr(games, "is_compiled", lambda module: module.__name__.endswith(".play"))
    res = CliRunner().invoke(app, ["--version"])
    assert "partly compiled engines (1 of " in res.stdout


@pytest.mark.skipif(not PURE, reason="a compiled install (make test): see the next test")
def test_a_pure_python_install_says_so():
    assert games.build().startswith("pure Python engines")


@pytest.mark.skipif(PURE, reason="installed with ANALYZER_PURE_PYTHON=1: nothing is compiled")
def test_a_compiled_install_says_so():
    """In the `make test` venv every engine module is compiled (tests/test_compiled.py)."""
    assert games.build() == "compiled engines (mypyc)"
