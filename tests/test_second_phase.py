"""Issue 48 items written before the provider-registry rewrite they waited for, now passing.

* item 2: the digest that signs a metric's numbers covers every module its computation runs
  through (reading, the segment of a text, tokenising, scoring), not only the metric's own
  module: an edit of the sum of segment statistics in ``scoring.Run.score`` moved BLEU
  59.96 -> 57.59 under a byte-identical signature. Each edit below is made in a scratch copy of
  the package and run end to end: a number it moves must move its signature (the run signs the
  edited code ``code:HASH``, :func:`mtstrata.layers.code.code_mark`), and each must move one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: edits of modules a number runs through outside its metric's module: (file, old, new)
EDITS = [
    # the sum of the segment statistics (the probe's edit)
    ("scoring.py", "        total = st.sum(axis=0)\n",
     "        total = st.sum(axis=0) + 1\n"),
    # reading: the bytes of a file to its segments
    ("corpus.py", '    lines = text.split("\\n")\n',
     '    lines = text.replace("the ", "a ").split("\\n")\n'),
    # the driver: a text's segment (no layers)
    ("layers/__init__.py", "        return {t: Segment.from_text(t) for t in texts}, \"\"\n",
     "        return {t: Segment.from_text(t + \" x\") for t in texts}, \"\"\n"),
    # tokenising: the 13a tokenizer's last step (BLEU's, not chrF's)
    ("tokenizers.py", '        return " ".join(line.split())\n',
     '        return " ".join(line.split()[1:])\n'),
]


def _score(package_root: Path, tmp: Path) -> list[dict]:
    ref, hyp = tmp / "ref.txt", tmp / "hyp.txt"
    ref.write_text("the cat sat on the mat today\na dog barked at the moon\n")
    hyp.write_text("the cat sat on a mat today\na dog barked at a moon\n")
    env = {**os.environ, "PYTHONPATH": str(package_root),
           "MTSTRATA_CACHE": str(tmp / "c.sqlite")}
    r = subprocess.run([sys.executable, "-m", "mtstrata", "score", "-r", str(ref), "-i",
                        str(hyp), "-m", "bleu", "chrf", "-f", "json", "-q"], env=env,
                       capture_output=True, text=True, cwd=tmp, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["scores"]


@pytest.fixture(scope="module")
def before(tmp_path_factory) -> list[dict]:
    return _score(ROOT, tmp_path_factory.mktemp("tree"))


@pytest.mark.parametrize(("module", "old", "new"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_on_the_path_of_a_number_changes_its_signature(tmp_path, before, module, old,
                                                              new):
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "mtstrata", copy / "mtstrata",
                    ignore=shutil.ignore_patterns("__pycache__", "srl_*.npz"))
    f = copy / "mtstrata" / module
    text = f.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the edit no longer applies to {module}: update EDITS"
    f.write_text(text.replace(old, new, 1), encoding="utf-8")
    after = _score(copy, tmp_path)
    moved = [(b, a) for b, a in zip(before, after, strict=True) if a["score"] != b["score"]]
    assert moved, f"the edit of {module} moves no number: choose one that does"
    for b, a in moved:  # a number the edit moves never keeps its signature
        assert a["signature"] != b["signature"], (module, a["metric"])
        assert "|code:" in a["signature"], a["signature"]
