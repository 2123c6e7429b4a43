"""The learned role model's training gives the same bytes whatever the caller's environment,
and retraining reproduces the sha256 pinned in models.lock (tools/train_srl.py)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtstrata.layers.srl import learned as srl_learned
from tools import srl_propbank as pb
from tools import train_srl

ROOT = Path(__file__).resolve().parent.parent

needs_data = pytest.mark.skipif(not pb.data_path().is_file(),
                                reason=f"gold PropBank data not found at {pb.data_path()}")


def _train(out: Path, env: dict[str, str], *extra: str) -> str:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("OPENBLAS", "OMP_", "MKL_", "NPY_"))}
    r = subprocess.run([sys.executable, "-m", "tools.train_srl", "--out", str(out),
                        *extra], env={**base, "PYTHONPATH": str(ROOT), **env}, cwd=ROOT,
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr + r.stdout
    return hashlib.sha256(out.read_bytes()).hexdigest()


@needs_data
@pytest.mark.spacy
def test_training_bytes_do_not_depend_on_the_callers_threads_or_kernels(tmp_path):
    """Without the script's kernel pinning these two environments give different weights
    (measured on an AVX-512 machine: other OpenBLAS kernels sum in another order)."""
    a = _train(tmp_path / "a.npz", {"OPENBLAS_CORETYPE": "Sandybridge",
                                    "OPENBLAS_NUM_THREADS": "2"}, "--limit", "200",
               "--extra")
    b = _train(tmp_path / "b.npz", {"OPENBLAS_CORETYPE": "Prescott",
                                    "NPY_DISABLE_CPU_FEATURES": "AVX512F"}, "--limit", "200",
               "--extra")
    assert a == b


@needs_data
@pytest.mark.spacy
@pytest.mark.slow
@pytest.mark.skipif(not train_srl.DEFAULT_EXTRA.is_file(),
                    reason=f"the EWT training section is not built at {train_srl.DEFAULT_EXTRA} "
                    "(tools/srl_ewt_gold.py, from public snapshots): the pinned model is "
                    "trained on it too")
def test_retraining_reproduces_the_pinned_model(tmp_path):
    got = _train(tmp_path / "m.npz", {})
    assert got == srl_learned.pinned()["sha256"]


@needs_data
def test_missing_or_overlapping_extra_gold_exits_2_naming_the_file(tmp_path):
    """Before any parsing: a missing --extra file, and one holding a document of the shared
    file (whose held-out part must stay unseen), stop with exit 2 and the file's name."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS", "NPY_"))}
    missing = tmp_path / "none.jsonl"
    shared_line = pb.data_path().read_text(encoding="utf-8").splitlines()[0]
    overlap = tmp_path / "overlap.jsonl"
    overlap.write_text(shared_line + "\n", encoding="utf-8")
    for extra, said in ((missing, "is missing"), (overlap, "holds documents of the shared")):
        r = subprocess.run([sys.executable, "-m", "tools.train_srl", "--out",
                            str(tmp_path / "m.npz"), "--extra", str(extra)],
                           env={**base, "PYTHONPATH": str(ROOT)}, cwd=ROOT,
                           capture_output=True, text=True, check=False)
        assert r.returncode == 2, r.stderr
        assert f"--extra {extra}" in r.stderr and said in r.stderr, r.stderr
        assert "Traceback" not in r.stderr
        assert not (tmp_path / "m.npz").exists()
