"""Build hook: compile the game engines with mypyc (issue 7: games/s per core).

The modules stay ordinary, readable Python and are the source of truth; mypyc compiles them
unchanged to C extensions that sit beside them and are imported first. Set
``ANALYZER_PURE_PYTHON=1`` when installing to skip compiling (same games, 1.5-2.5x slower).

Compiling is best-effort (README, "Install"): without a working C compiler (and the Python
headers) the package installs as pure Python and says so in one line; ``analyzer --version``
tells which build runs. Everything else about the package is in ``pyproject.toml``.
"""

import ast
import os
import shutil
import sys
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

PACKAGE = Path(__file__).resolve().parent / "analyzer"
MODEL, GAMES = PACKAGE / "model", PACKAGE / "games"
FALLBACK = "engines not compiled: {why}; installing pure Python (same games, about 2x slower; see README)"
# what a failed compiler raises: CompileError/LinkError, a compiler not found, no compiler known
COMPILER_ERRORS = (CCompilerError, ExecError, PlatformError)
BUILDS = {"bdist_wheel", "editable_wheel", "build", "build_ext", "develop", "install"}  # not egg_info, dist_info


def compiled_modules() -> dict[str, tuple[str, ...]]:
    """Package -> the modules one game runs through: ``analyzer.model`` for the shared ones (the
    play loop), then each ``analyzer.games.<game>``, from the ``COMPILED_MODULES`` tuple of the
    package's ``__init__.py``, read with ast. Nothing is imported: the run-time dependencies
    are not installed in pip's isolated build environment."""
    out = {}
    for init in [MODEL / "__init__.py", *sorted(GAMES.glob("*/__init__.py"))]:
        for node in ast.parse(init.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED_MODULES":
                package = ".".join(init.parent.relative_to(PACKAGE.parent).parts)
                out[package] = tuple(ast.literal_eval(node.value))
    return out


def c_compiler_problem() -> str | None:
    """Why no C extension can be built here, or ``None``: compiles a tiny C file that includes
    ``Python.h`` with the compiler setuptools' ``build_ext`` uses (``CC``, ``CFLAGS`` and the
    Python headers as it sets them), before mypyc spends minutes generating C."""
    from distutils.ccompiler import new_compiler  # setuptools' distutils, as build_ext uses it
    from distutils.sysconfig import customize_compiler, get_python_inc

    with tempfile.TemporaryDirectory(prefix="analyzer-cc-") as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text("#include <Python.h>\nint analyzer_probe(void) { return 0; }\n")
        compiler = new_compiler()
        try:
            customize_compiler(compiler)
            compiler.compile([str(source)], output_dir=tmp, include_dirs=[get_python_inc()])
        except COMPILER_ERRORS:
            cc = (getattr(compiler, "compiler_so", None) or ["the C compiler"])[0]
            if shutil.which(cc) is None:
                return f"no C compiler ({cc!r} not found)"
            return f"no working C compiler ({cc!r} fails on a test file that includes Python.h)"
    return None


class BuildEngines(build_ext):
    """``build_ext`` that falls back to pure Python when compiling fails after the probe
    passed: it removes the extensions already built (a half-compiled engine would not import)
    and says so in one line."""

    def build_extensions(self) -> None:
        try:
            super().build_extensions()
        except COMPILER_ERRORS:
            for ext in self.extensions:
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            print(FALLBACK.format(why="compiling them failed (the compiler's messages are above)"),
                  file=sys.stderr)


ext_modules = []
problem = None if os.environ.get("ANALYZER_PURE_PYTHON") == "1" else c_compiler_problem()
if problem:
    # pip runs this file for the metadata too: say it once, where the wheel is built
    if BUILDS & set(sys.argv[1:]):
        print(FALLBACK.format(why=problem), file=sys.stderr)
elif os.environ.get("ANALYZER_PURE_PYTHON") != "1":
    from mypyc.build import mypycify

    for package, modules in compiled_modules().items():
        sources = [f"{package.replace('.', '/')}/{m}.py" for m in modules]
        # type-check the compiled modules only, not all they import; numpy and the other run-time
        # dependencies are not installed yet in pip's isolated build environment
        flags = ["--follow-imports=silent", "--ignore-missing-imports"]
        ext_modules += mypycify([*sources, *flags], group_name=f"{package}.native")

setup(ext_modules=ext_modules, cmdclass={"build_ext": BuildEngines})
