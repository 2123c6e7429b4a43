"""Layer rules that no test reached (found by tools/mutation_sample.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("cores, most", [(8, 16), (1, 4), (None, 4)])
def test_spacy_jobs_allow_twice_the_cores_and_at_least_four(cores, most):
    # spacy:jobs=N accepts 1..max(4, 2 x cores) (each worker loads the model; more only add
    # memory) and refuses one more with the limit named. A fresh interpreter sees the cores.
    code = (f"import os; os.cpu_count = lambda: {cores}\n"
            "from mtstrata.errors import ModelError\n"
            "from mtstrata.layers.spacy_backend import SpacyAnnotator\n"
            f"SpacyAnnotator(jobs={most}, allow_unlocked=True)\n"
            "try:\n"
            f"    SpacyAnnotator(jobs={most + 1}, allow_unlocked=True)\n"
            "except ModelError as e:\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert f"jobs must be 1..{most}" in r.stdout
