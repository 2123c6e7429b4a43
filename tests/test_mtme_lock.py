"""Runs writing ``score --format mtme`` into one ``--out``/``--lp`` at once lose nothing
(issue 35 item 3): the manifest's read-merge-replace, and the score files merged with it, run
under the manifest's lock, so each run merges what the other wrote."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from mtstrata.cli import main
from mtstrata.meta import mtme

ROOT = Path(__file__).resolve().parents[1]


def _files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("the cat sat on the mat\na dog barks\n")
    hyps = []
    for i, text in enumerate(["the cat sat\na dog\n", "a cat sat on a mat\nthe dog barks\n",
                              "cat\ndog\n", "the cat is on the mat\na dog barked\n"]):
        h = tmp_path / f"sys{i}.txt"
        h.write_text(text)
        hyps.append(h)
    return ref, hyps


def test_the_merge_runs_under_the_manifests_lock(tmp_path, monkeypatch):
    ref, hyps = _files(tmp_path)
    held = []
    inner = mtme._write_locked

    def probe(d, *a, **k):
        fd = os.open(d / (mtme.MANIFEST + ".lock"), os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)  # nobody held it
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(fd)
        return inner(d, *a, **k)

    monkeypatch.setattr(mtme, "_write_locked", probe)
    assert main(["score", "-r", str(ref), "-i", str(hyps[0]), "-m", "bleu", "-f", "mtme",
                 "--out", str(tmp_path / "out"), "--lp", "de-en", "-q"]) == 0
    assert held == [True]


def test_concurrent_runs_keep_every_system_and_row(tmp_path):
    ref, hyps = _files(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MTSTRATA_CACHE": str(tmp_path / "c.sqlite")}
    out = tmp_path / "out"
    procs = [subprocess.Popen([sys.executable, "-m", "mtstrata", "score", "-r", str(ref), "-i",
                               str(h), "-m", "bleu", "chrf", "wer", "-f", "mtme", "--out",
                               str(out), "--lp", "de-en", "-q"], env=env,
                              stderr=subprocess.PIPE, text=True) for h in hyps]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    rows = (out / "de-en" / mtme.MANIFEST).read_text().splitlines()
    assert len(rows) == 1 + 3  # the header and one row per metric
    for f in (out / "de-en").glob("*.sys.score"):
        systems = sorted(line.split()[0] for line in f.read_text().splitlines())
        assert systems == [f"sys{i}" for i in range(4)], f
