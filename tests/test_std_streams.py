"""Closed or unwritable standard streams (issue 35 item 6): the documented exit codes (0 done,
2 the output cannot be written, 120 stdout lost at the final flush), nothing written into the
wrong stream (with stderr closed, Python's ``print(file=sys.stderr)`` falls back to stdout),
and the exit path (:func:`mtstrata.cli.entry`, also after torch) never turns a success into a
failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(args, tmp_path, redirect, extra_env=None):
    """``python -m mtstrata ARGS`` with the shell redirection ``redirect`` (e.g. ``2>&-``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MTSTRATA_CACHE": str(tmp_path / "c.sqlite"),
           **(extra_env or {})}
    cmd = ['sh', '-c', f'exec "$0" -m mtstrata "$@" {redirect}', sys.executable, *args]
    return subprocess.run(cmd, capture_output=True, env=env, cwd=tmp_path, timeout=900,
                          check=False)


@pytest.fixture
def texts(tmp_path):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("the cat sat on the mat\n\n")  # an empty segment: a warning on stderr
    hyp.write_text("the cat sat on a mat\n\n")
    return ["-r", str(ref), "-i", str(hyp)]


@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
def test_warnings_never_reach_stdout_and_success_stays_success(tmp_path, texts, redirect):
    if redirect.endswith("full") and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    r = run(["score", *texts, "-m", "bleu", "-f", "json"], tmp_path, redirect)
    assert r.returncode == 0, r
    assert json.loads(r.stdout)["scores"][0]["metric"] == "BLEU"  # valid JSON, nothing else
    assert b"warning" not in r.stdout


def test_an_error_with_stderr_closed_exits_2_and_says_nothing_on_stdout(tmp_path):
    r = run(["score", "-r", "absent.txt", "-i", "absent.txt", "-m", "bleu"], tmp_path, "2>&-")
    assert r.returncode == 2 and r.stdout == b""


def test_stdout_closed_is_exit_2_with_one_paragraph(tmp_path, texts):
    r = run(["score", *texts, "-m", "bleu"], tmp_path, ">&-")
    assert r.returncode == 2, r
    err = r.stderr.decode()
    assert "standard output is closed" in err and "Traceback" not in err
    assert "internal error" not in err


def test_stdout_full_is_exit_2_naming_the_cause(tmp_path, texts):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    r = run(["score", *texts, "-m", "bleu"], tmp_path, ">/dev/full")
    assert r.returncode == 2 and b"No space left" in r.stderr and b"Traceback" not in r.stderr


def test_help_with_stdout_closed_goes_nowhere_else(tmp_path):
    r = run(["--help"], tmp_path, ">&-")
    assert b"usage" not in r.stderr


def test_a_cold_linguistic_run_with_stderr_closed_exits_0(tmp_path, texts):
    """The run loads torch (the embedding layer), so it ends through entry()'s exit path, which
    flushed a closed stderr (None) and exited 1."""
    r = run(["score", *texts, "-m", "EMB-F", "-f", "json"], tmp_path, "2>&-")
    assert r.returncode == 0, r
    assert json.loads(r.stdout)["scores"][0]["metric"].startswith("EMB-F")


def test_a_closed_descriptor_is_never_reused_by_a_file_the_run_opens(tmp_path):
    """With fd 2 closed, the next file opened got number 2, and anything written to 'standard
    error' (a library, a worker) went into it: the run opens /dev/null there first."""
    code = ("import os, sys; from mtstrata.cli import main; main(['list', 'metrics']); "
            "fd = os.open(os.devnull, os.O_RDONLY); print(fd)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(['sh', '-c', 'exec "$0" -c "$1" 2>&-', sys.executable, code],
                       capture_output=True, text=True, env=env, timeout=300, check=False)
    assert r.returncode == 0, r
    assert int(r.stdout.split()[-1]) > 2


def test_a_usage_error_with_stderr_closed_writes_nothing_to_stdout(tmp_path):
    r = run(["score", "--no-such-option"], tmp_path, "2>&-")
    assert r.returncode == 2 and r.stdout == b""


def test_progress_bars_on_a_full_stderr_do_not_fail_the_run(tmp_path, texts):
    """tqdm's writes to an unwritable stderr raised OSError: exit 2 after all the work."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    hyp2 = tmp_path / "hyp2.txt"
    hyp2.write_text("a cat\n\n")
    r = run(["compare", *texts, str(hyp2), "-b", "hyp", "-m", "bleu", "-n", "50", "-f", "json"],
            tmp_path, "2>/dev/full", {"MTSTRATA_PROGRESS": "1"})
    assert r.returncode == 0, r
    assert json.loads(r.stdout)
