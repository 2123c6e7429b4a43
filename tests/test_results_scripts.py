"""The documented results generators (``make results``) on missing or foreign inputs: one
paragraph on standard error and exit 2, never a traceback, nothing computed or created
(issue 35 item 7/8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ["results_linguistic.py", "results_wmt19.py", "make_results.py", "emb_results.py"]


def _run(script, args, tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "scripts")])}
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
                          check=False)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_missing_data_folder_is_one_paragraph(tmp_path, script):
    tables = tmp_path / "tables"
    args = ["--data", str(tmp_path / "nothing"), "--out", str(tmp_path / "R.md")]
    args += ["--tables", str(tables)] if script in ("results_wmt19.py", "make_results.py") else []
    args += ["--cache", str(tmp_path / "c.sqlite"), "--full-tables"] \
        if script == "emb_results.py" else []
    r = _run(script, args, tmp_path)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "nothing" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing created


def test_a_results_file_without_the_markers_is_refused(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from results_doc import run_script, write_sections
    finally:
        sys.path.pop(0)
    (tmp_path / "R.md").write_text("no markers here\n")
    code = run_script(lambda: write_sections(tmp_path / "R.md", "scripts/results_wmt19.py",
                                             {"wmt19": ["x"]}), "scripts/results_wmt19.py")
    assert code == 2
    assert (tmp_path / "R.md").read_text() == "no markers here\n"
    assert run_script(lambda: write_sections(tmp_path / "absent.md", "scripts/results_wmt19.py",
                                             {"wmt19": ["x"]}), "x") == 2
