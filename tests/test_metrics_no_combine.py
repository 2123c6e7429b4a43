"""``mtstrata.metrics`` imports nothing from ``mtstrata.combine`` (the dependency order of
ARCHITECTURE.md: metrics <- combine): the ULC metric reads every kind of set file (uniform and
learned) through :mod:`mtstrata.metrics.setfile`."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

METRICS = Path(__file__).resolve().parent.parent / "mtstrata" / "metrics"


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            names += [a.value for a in node.args if isinstance(a, ast.Constant)]
    return names


def test_no_metrics_module_imports_combine_at_any_level():
    bad = {str(p.relative_to(METRICS)): n for p in METRICS.rglob("*.py")
           for n in _imports(p) if n.startswith("mtstrata.combine")}
    assert bad == {}


def test_reading_both_kinds_of_set_loads_no_combine_module(tmp_path):
    code = f"""
import json, sys
from mtstrata.metrics import create
from mtstrata.metrics.learned_set import LearnedSet, Level
from mtstrata.metrics.provenance import member_signatures
from mtstrata.metrics.setfile import Norm
n = (Norm("chrf", 0.0, 100.0), Norm("bleu", 0.0, 100.0))
prov = {{"signatures": member_signatures(["chrf", "bleu"])}}
learned = LearnedSet(Level(n, (1.0, 0.5), 1.0), Level(n, (0.2, 0.3), 1.0), prov)
learned.save({str(tmp_path / 'l.json')!r})
for spec in ("ULC-lex", "ulc:{tmp_path / 'l.json'}"):
    m = create(spec)
    assert m.combiner.metrics
leaked = sorted(k for k in sys.modules if k.startswith("mtstrata.combine"))
print(json.dumps(leaked))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)
    assert (out.returncode, out.stdout.strip()) == (0, "[]"), out.stderr
