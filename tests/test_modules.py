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


#: third-party libraries the parent of the import checks loads before forking: no mtstrata
#: module is imported before the one a child checks, only the libraries' start-up is shared
PRELOADED = ("numpy", "scipy", "scipy.stats", "importlib.metadata", "sqlite3", "json")

#: one interpreter, no mtstrata module imported: for each module a forked child imports it
#: alone (nothing of mtstrata before it) and reports its error; the parent never imports one
_FORKING = """
import importlib, os, sys, traceback
for lib in sys.argv[1].split(","):
    importlib.import_module(lib)
assert not any(m == "mtstrata" or m.startswith("mtstrata.") for m in sys.modules)
failed = []
for name in sys.argv[2:]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            importlib.import_module(name)
            code = 0
        except BaseException:
            os.write(w, traceback.format_exc()[-2000:].encode())
            code = 1
        os._exit(code)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        err = f.read().decode(errors="replace")
    _, status = os.waitpid(pid, 0)
    if status != 0:
        failed.append(f"{name}: exit {status}: {err}")
print("\\n".join(failed))
sys.exit(1 if failed else 0)
"""


def test_every_module_imports_alone():
    r = subprocess.run([sys.executable, "-c", _FORKING, ",".join(PRELOADED), *MODULES],
                       capture_output=True, text=True, cwd=os.getcwd(), check=False, timeout=600)
    assert r.returncode == 0, (r.stdout[-4000:], r.stderr[-2000:])


def test_the_import_check_sees_a_module_that_fails_alone(tmp_path):
    # the forking check reports a module whose import fails, with its error
    (tmp_path / "broken_alone.py").write_text("import mtstrata.no_such_module\n",
                                              encoding="utf-8")
    r = subprocess.run([sys.executable, "-c", _FORKING, "json", "json", "broken_alone"],
                       capture_output=True, text=True, cwd=tmp_path, check=False, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(
                           [str(tmp_path), os.environ.get("PYTHONPATH", "")])})
    assert r.returncode == 1 and "broken_alone" in r.stdout and "no_such_module" in r.stdout
    assert "json:" not in r.stdout


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
