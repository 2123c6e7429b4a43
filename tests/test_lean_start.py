"""A run imports what it needs: ``score -m bleu`` loads BLEU's module and the score command,
not the other metrics, commands, meta-evaluation or the report (start-up is most of the cost
of a small run; benchmarks/bench_startup.py measures it against sacreBLEU's command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules_after(args: list[str], tmp_path: Path) -> set[str]:
    code = ("import json, sys\nfrom mtstrata.cli import main\n"
            f"code = main({args!r})\n"
            "print(json.dumps([code, sorted(sys.modules)]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                       check=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT),
                                        "MTSTRATA_CACHE": str(tmp_path / "c.sqlite"),
                                        "XDG_CACHE_HOME": str(tmp_path)})
    code, mods = json.loads(r.stdout.splitlines()[-1])
    assert code == 0, r.stderr
    return set(mods)


def test_score_bleu_imports_bleu_only(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\n", encoding="utf-8")
    mods = modules_after(["score", "-r", str(ref), "-i", str(ref), "-m", "bleu", "-q"],
                         tmp_path)
    assert "mtstrata.metrics.lexical.bleu" in mods and "mtstrata.commands.score" in mods
    ours = {m for m in mods if m.startswith("mtstrata.")}
    # (metrics.provenance: the run facts every signature carries, nrefs and lang; no metric)
    metric_modules = {m for m in ours if m.startswith("mtstrata.metrics.")} - {
        "mtstrata.metrics.base", "mtstrata.metrics.prepared", "mtstrata.metrics.lexical",
        "mtstrata.metrics.provenance"}
    assert metric_modules == {"mtstrata.metrics.lexical.bleu"}
    commands = {m for m in ours if m.startswith("mtstrata.commands.")}
    assert commands <= {"mtstrata.commands.score", "mtstrata.commands._help",
                        "mtstrata.commands.options", "mtstrata.commands._score_output"}
    for heavy in ("mtstrata.combine", "mtstrata.report", "scipy", "torch", "spacy", "nltk",
                  "multiprocessing", "mtstrata.layers.spacy_backend"):
        assert heavy not in mods, heavy


def test_the_help_still_lists_every_command(tmp_path, capsys):
    from mtstrata.cli import build_parser

    text = build_parser().format_help()
    for name in ("annotate", "audit", "compare", "list", "meta", "models", "report", "score",
                 "search"):
        assert name in text
