"""The ``mtstrata`` command ends a process that imported torch without the interpreter's module
teardown (:func:`mtstrata.cli.entry`): what it printed, wrote and cached is all there, and its
exit code is main's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample"


def run(args, tmp_path, **kw):
    env = dict(os.environ, MTSTRATA_CACHE=str(tmp_path / "cache.sqlite"), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, check=False, **kw)


def test_a_torch_run_prints_writes_and_caches_everything(tmp_path):
    base = ["-m", "mtstrata", "score", "-r", str(SAMPLE / "ref.A.txt"), "-i",
            *map(str, sorted((SAMPLE / "sys").glob("*.txt"))), "-m", "EMB-F", "chrf"]
    first = run([*base, "--format", "json"], tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.rstrip().endswith("}")  # the whole JSON document, flushed
    again = run(base, tmp_path)  # every text from the cache the first run filled
    assert again.returncode == 0, again.stderr
    assert again.stdout.rstrip().splitlines()[-1].startswith("chrF: chrF|")  # all printed
    assert "0 annotated" in again.stderr and "texts embedded" not in again.stderr, again.stderr


def test_the_exit_code_is_mains_after_torch_loaded(tmp_path):
    code = ("import sys, torch; sys.argv = ['mtstrata', 'score', '-r', 'absent.txt', '-i', "
            "'absent.txt', '-m', 'bleu']; from mtstrata.cli import entry; entry()")
    r = run(["-c", code], tmp_path)
    assert r.returncode == 2 and "absent.txt" in r.stderr
    ok = run(["-c", code.replace("'score', '-r', 'absent.txt', '-i', 'absent.txt', "
                                 "'-m', 'bleu'", "'list', 'metrics'")], tmp_path)
    assert ok.returncode == 0 and "BLEU" in ok.stdout


def test_the_command_and_python_m_use_entry():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'mtstrata = "mtstrata.cli:entry"' in text
    assert "entry()" in (ROOT / "mtstrata" / "__main__.py").read_text(encoding="utf-8")
