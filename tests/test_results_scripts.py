"""The documented results generators (``make results``) on missing or foreign inputs: one
paragraph on standard error and exit 2, never a traceback, nothing computed or created
(issue 35 item 7/8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tools.results_doc import run_script, write_sections

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ["results_linguistic", "results_wmt19", "make_results", "emb_results"]


def _run(tool, args, tmp_path):
    # run from an empty directory (nothing may be created there): the repository's root is
    # where ``python -m tools.NAME`` finds the tools
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", f"tools.{tool}", *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
                          check=False)


@pytest.mark.parametrize("tool", TOOLS)
def test_a_missing_data_folder_is_one_paragraph(tmp_path, tool):
    tables = tmp_path / "tables"
    args = ["--data", str(tmp_path / "nothing"), "--out", str(tmp_path / "R.md")]
    args += ["--tables", str(tables)] if tool in ("results_wmt19", "make_results") else []
    args += ["--cache", str(tmp_path / "c.sqlite"), "--full-tables"] \
        if tool == "emb_results" else []
    r = _run(tool, args, tmp_path)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "nothing" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing created


def test_a_results_file_without_the_markers_is_refused(tmp_path):
    (tmp_path / "R.md").write_text("no markers here\n")
    code = run_script(lambda: write_sections(tmp_path / "R.md", "tools/results_wmt19.py",
                                             {"wmt19": ["x"]}), "tools/results_wmt19.py")
    assert code == 2
    assert (tmp_path / "R.md").read_text() == "no markers here\n"
    assert run_script(lambda: write_sections(tmp_path / "absent.md", "tools/results_wmt19.py",
                                             {"wmt19": ["x"]}), "x") == 2
