"""One dependency order for the package: each unit imports only units below it.

A unit is a top-level module (``mtstrata/cache.py``) or a subpackage (``mtstrata/metrics/``).
Every ``import`` of every module counts, at module level or inside a function (a function-level
import is still a dependency: it runs), except those under ``if TYPE_CHECKING:``. An import
that goes up the order (or to a unit the order does not place) fails, naming the file, the line
and the edge; so no import cycle between units can come back.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mtstrata"

#: lowest first. The top-level modules are the core: data types, registries, signatures,
#: errors, tokenizers, outputs, pins; then the annotation layers, the metrics, running them,
#: what is built from score tables, the report, the commands, the command line.
ORDER = (
    "_version", "errors", "languages", "console", "segment", "payloads", "_patterns", "plugins",
    "registry", "signature", "progress",
    "tokenizers", "output", "lock", "wordnet", "environment", "cache", "corpus", "tokenized",
    "layers",
    "metrics",
    "scoring",
    "meta",
    "combine",
    "report",
    "commands",
    "cli", "__main__",
)

#: imports that may still go up the order while a move is under way elsewhere: (file relative to
#: mtstrata/, the import line's text). Empty: keep it so. A stale entry fails the test.
ALLOWED: set[tuple[str, str]] = set()


def unit_of(module: str) -> str | None:
    """``mtstrata.metrics.lexical.bleu`` -> ``metrics``; the package itself -> None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "mtstrata" else None


def module_of(path: Path, root: Path = PACKAGE) -> tuple[str, str]:
    """(dotted module name, dotted package a relative import starts from) of ``path``."""
    rel = path.relative_to(root.parent).with_suffix("").parts
    if rel[-1] == "__init__":
        return ".".join(rel[:-1]), ".".join(rel[:-1])
    return ".".join(rel), ".".join(rel[:-1])


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            t = node.test
            if (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
                    isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING"):
                skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def imports_of(path: Path, root: Path = PACKAGE) -> list[tuple[int, str, str]]:
    """(line, imported module, line's text) of every import in ``path`` (typing-only aside).
    ``from mtstrata import cache`` imports ``mtstrata.cache``."""
    _, package = module_of(path, root)
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source, filename=str(path))
    skip = _type_checking_nodes(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names = [f"{mod}.{a.name}" for a in node.names] if mod == "mtstrata" else [mod]
        else:
            continue
        out += [(node.lineno, n, lines[node.lineno - 1].strip()) for n in names]
    return out


def violations(root: Path = PACKAGE) -> tuple[list[str], set[tuple[str, str]]]:
    """Every import against ORDER (as messages), and the ALLOWED entries that were used."""
    rank = {u: i for i, u in enumerate(ORDER)}
    bad, used = [], set()
    for path in sorted(root.rglob("*.py")):
        src = unit_of(module_of(path, root)[0])
        if src is None:
            continue  # mtstrata/__init__.py: the public API, above everything
        rel = path.relative_to(root).as_posix()
        for line, target, text in imports_of(path, root):
            dst = unit_of(target)
            if dst is None or dst == src:
                continue
            if (rel, text) in ALLOWED:
                used.add((rel, text))
                continue
            where = f"mtstrata/{rel}:{line}"
            if src not in rank or dst not in rank:
                unknown = src if src not in rank else dst
                bad.append(f"{where}: unit {unknown!r} has no place in ORDER; add it there "
                           f"({src} -> {dst})")
            elif rank[dst] > rank[src]:
                bad.append(f"{where}: {src} -> {dst} goes up the order ({text})")
    return bad, used


def test_every_import_follows_one_order():
    bad, _ = violations()
    assert not bad, "imports against the dependency order:\n" + "\n".join(bad)


def test_allow_list_has_no_stale_entries():
    _, used = violations()
    stale = sorted(ALLOWED - used)
    assert not stale, f"remove these entries from ALLOWED (the imports are gone): {stale}"


def test_the_checker_sees_function_level_and_relative_imports(tmp_path):
    """The parser itself, on a made-up package: a function-level import counts, a TYPE_CHECKING
    one does not, a relative import resolves against the importing package, and a unit the
    order does not know is named."""
    root = tmp_path / "mtstrata"
    (root / "layers").mkdir(parents=True)
    probe = root / "layers" / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from mtstrata.commands import score\n"
                     "def f():\n    from ..metrics import base\n    from . import base as b\n"
                     "    from .. import cache, novel\n", encoding="utf-8")
    found = [(line, mod) for line, mod, _ in imports_of(probe, root)]
    assert found == [(1, "typing"), (5, "mtstrata.metrics"), (6, "mtstrata.layers"),
                     (7, "mtstrata.cache"), (7, "mtstrata.novel")]
    bad, _ = violations(root)
    assert bad == [
        "mtstrata/layers/probe.py:5: layers -> metrics goes up the order (from ..metrics import "
        "base)",
        "mtstrata/layers/probe.py:7: unit 'novel' has no place in ORDER; add it there "
        "(layers -> novel)"]
