"""The tools that build the shipped artefacts live beside the package, never inside it.

``tools/`` (and ``benchmarks/``) are importable parts of the source repository, not of the wheel:
the package never imports them, a package message names a tool only with where it lives, every
tool or benchmark the package names exists, and no test, tool or benchmark edits ``sys.path``
(the repository's root is importable under pytest because ``tests/`` is a package; a tool runs
as ``python -m tools.NAME`` from the root).
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

import mtstrata

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(mtstrata.__file__).resolve().parent
#: the repository's trees outside the package
OUTSIDE = ("tools", "benchmarks", "tests")


def _sources(tree: Path) -> list[Path]:
    return sorted(tree.rglob("*.py"))


def _docstring_ids(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr)}


def test_the_root_is_importable_and_tools_is_the_repositorys():
    import benchmarks
    import tools

    assert Path(tools.__file__).resolve().parent == ROOT / "tools"
    assert Path(benchmarks.__file__).resolve().parent == ROOT / "benchmarks"
    assert "not part of the wheel" in " ".join((tools.__doc__ or "").lower().split())


def test_the_wheel_ships_only_the_package():
    from setuptools import find_packages

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = conf["tool"]["setuptools"]["packages"]["find"]["include"]
    shipped = find_packages(str(ROOT), include=include)
    assert shipped and all(p == "mtstrata" or p.startswith("mtstrata.") for p in shipped)


def test_the_package_never_imports_the_repositorys_tools():
    found = []
    for path in _sources(PACKAGE):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                      if n.split(".")[0] in OUTSIDE]
    assert found == []


#: a tool, benchmark or script named by path or module: ``tools/x.py``, ``tools.x``,
#: ``benchmarks/bench_x.py``, ``scripts/x.py``
NAMED = re.compile(r"\b(tools|benchmarks|scripts)[/.](\w+)(\.py\b)?")


def _named(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in NAMED.finditer(text)
            if not (m.group(1) == "tools" and m.group(3) is None and m.group(2) == "py")]


def test_every_tool_the_package_names_exists():
    """Docstrings, comments and messages alike: a path or module of the repository that the
    package names is there (no ``scripts/`` Python file is left: the tools moved)."""
    missing = []
    for path in [*_sources(PACKAGE), *PACKAGE.glob("data/*.lock")]:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for tree, name in _named(line):
                there = ([ROOT / tree / f"{name}.py"] if tree != "scripts" else
                         [ROOT / "scripts" / f"{name}.sh"])
                if not any(p.is_file() for p in there):
                    missing.append(f"{path.relative_to(ROOT)}:{lineno}: {tree}/{name}")
    assert missing == []


def test_a_package_message_names_a_tool_with_where_it_lives():
    """The wheel does not ship ``tools/``: a string of the package's code (docstrings aside)
    that names a tool says it is in the mtstrata source repository (or tree)."""
    bare = []
    for path in _sources(PACKAGE):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstring_ids(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docs and _named(node.value)
                    and not re.search(r"source (repository|tree)", node.value)):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:80]!r}")
    assert bare == []


@pytest.mark.parametrize("tree", OUTSIDE)
def test_no_test_tool_or_benchmark_edits_sys_path(tree):
    """Not in their code, nor in the code they hand a child interpreter: the root is found
    because ``tests/`` is a package (pytest) or the child runs from it (``python -m``)."""
    edit = re.compile(r"sys\.path\s*(\.\s*(insert|append|extend)\b|\+?=[^=])")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in _sources(ROOT / tree) if p != Path(__file__)
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if edit.search(line)]
    assert found == []
