"""``--jobs N`` annotates in a local pool of worker processes: the same segments as one
process, and no worker outlives its run, however the run ends (SIGKILL, SIGTERM, ^C, a worker
killed)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mtstrata.layers import AnnotationOptions, annotate_texts
from mtstrata.segment import Layer

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.spacy


def _texts(n: int) -> list[str]:
    """``n`` distinct sentences built from the sample (no cache can hold them)."""
    lines = [ln.strip() for p in sorted((ROOT / "sample").rglob("*.txt"))
             for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return [f"{lines[i % len(lines)]} It was case {i}." for i in range(n)]


def test_pool_gives_the_segments_of_one_process(tmp_path):
    texts = _texts(260)  # more than one pool task (POOL_BATCH)
    layers = {Layer.POS, Layer.LEMMA, Layer.DEP, Layer.NER}
    one, sig1 = annotate_texts(texts, layers, AnnotationOptions(use_cache=False, quiet=True))
    two, sig2 = annotate_texts(texts, layers, AnnotationOptions(
        cache=str(tmp_path / "c.sqlite"), quiet=True, jobs=2))
    assert sig1 == sig2
    assert list(two) == list(one)  # every text, in the input's order
    assert all(two[t] == one[t] for t in texts)


def _start(tmp_path: Path, n: int = 6000) -> tuple[subprocess.Popen[str], list[psutil.Process]]:
    """A ``score --jobs 2`` run, once both of its workers are up and annotating."""
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    texts = _texts(n)
    ref.write_text("\n".join(texts) + "\n", encoding="utf-8")
    hyp.write_text("\n".join(t.replace("case", "example") for t in texts) + "\n",
                   encoding="utf-8")
    p = subprocess.Popen(
        [sys.executable, "-m", "mtstrata", "score", "-r", str(ref), "-i", str(hyp), "-m",
         "DP-Or(*)", "--jobs", "2", "--cache", str(tmp_path / "c.sqlite")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        # a shell that starts the tests in the background passes SIGINT down as ignored, and
        # Python then keeps ignoring it: give the run the default a terminal user has
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    parent = psutil.Process(p.pid)
    deadline = time.time() + 120
    while time.time() < deadline:
        workers = [c for c in parent.children() if "resource_tracker" not in " ".join(c.cmdline())]
        if len(workers) >= 2 and all(w.cpu_times().user > 1.5 for w in workers):
            return p, parent.children(recursive=True)
        assert p.poll() is None, p.stderr.read() if p.stderr else ""
        time.sleep(0.2)
    p.kill()
    raise AssertionError("the workers did not start within 120 s")


def _gone(procs: list[psutil.Process], within: float = 30.0) -> list[int]:
    """PIDs of ``procs`` still running after ``within`` seconds."""
    _, alive = psutil.wait_procs(procs, timeout=within)
    return [a.pid for a in alive if a.status() != psutil.STATUS_ZOMBIE]


@pytest.mark.parametrize("sig, code, says", [
    (signal.SIGTERM, 143, "terminated"),
    (signal.SIGINT, 130, "interrupted"),
])
def test_a_stopped_run_stops_its_workers_and_says_so(tmp_path, sig, code, says):
    p, kids = _start(tmp_path)
    t0 = time.time()
    p.send_signal(sig)
    rc = p.wait(timeout=60)
    err = p.stderr.read() if p.stderr else ""
    assert rc == code, err
    assert time.time() - t0 < 15  # no waiting for the queued work
    assert f"mtstrata: {says}" in err and "Traceback" not in err, err
    assert _gone(kids) == []


def test_a_killed_run_leaves_no_worker(tmp_path):
    p, kids = _start(tmp_path)
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    assert _gone(kids) == []  # PR_SET_PDEATHSIG: the kernel stops them


def test_a_dead_worker_ends_the_run_with_a_clear_error(tmp_path):
    p, kids = _start(tmp_path)
    worker = next(k for k in kids if "resource_tracker" not in " ".join(k.cmdline()))
    os.kill(worker.pid, signal.SIGKILL)
    rc = p.wait(timeout=60)
    err = p.stderr.read() if p.stderr else ""
    assert rc == 2, err
    assert "worker process died" in err and "fewer --jobs" in err and "Traceback" not in err
    assert _gone(kids) == []


def test_the_pool_works_from_a_script_without_a_main_guard(tmp_path):
    """A spawned worker would re-run such a script; the pool must not need the guard."""
    script = tmp_path / "plain.py"
    script.write_text(
        "from tests.test_signals import _texts\n"
        "from mtstrata.layers import AnnotationOptions, annotate_texts\n"
        "from mtstrata.segment import Layer\n"
        "out, _ = annotate_texts(_texts(250), {Layer.POS}, AnnotationOptions(use_cache=False, "
        "quiet=True, jobs=2))\n"
        "print(len(out))\n", encoding="utf-8")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "250", r.stderr[-2000:]
