"""Every module works imported on its own (no state that only a registry import sets up)."""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import mtstrata

MODULES = sorted(m.name for m in pkgutil.walk_packages(mtstrata.__path__, "mtstrata.")
                 if m.name != "mtstrata.__main__")  # runs the CLI


def test_every_module_imports_alone():
    code = ("import importlib, sys\n"
            "for name in sys.argv[1:]:\n"
            "    importlib.import_module(name)\n")
    for name in MODULES:  # one fresh interpreter per module: nothing imported before it
        r = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True,
                           cwd=os.getcwd(), check=False, timeout=120)
        assert r.returncode == 0, (name, r.stderr[-2000:])


@pytest.mark.parametrize("module, cls, spec", [
    ("mtstrata.metrics.linguistic.overlap", "SPOp", "SP-Op(*)"),
    ("mtstrata.metrics.linguistic.hwcm", "HWCM", "DP-HWCM_w-4"),
    ("mtstrata.metrics.linguistic.streams", "PosNIST", "SP-pNIST"),
    ("mtstrata.metrics.lexical.nist", "NIST", "nist"),
])
def test_a_metric_module_scores_alone(module, cls, spec):
    # importing only the metric's module (not the registry's plugins) gives the same numbers
    code = (f"import {module} as mod\n"
            "from tests.conftest import hand_segments\n"
            "segs = hand_segments()\n"
            f"m = mod.{cls}()\n"
            "print(repr(m.stats_batch(segs, [[s] for s in segs[1:] + segs[:1]]).tolist()))\n")
    alone = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).resolve().parent.parent).stdout
    from mtstrata import metrics
    from tests.conftest import hand_segments

    segs = hand_segments()
    m = metrics.create(spec)
    assert alone.strip() == repr(m.stats_batch(segs, [[s] for s in segs[1:] + segs[:1]]).tolist())
