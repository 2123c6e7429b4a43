"""Annotation on a Dask LocalCluster: same segments as a local run; a worker killed mid-run
loses nothing and writes nothing twice. Roles are labelled in the workers."""

from __future__ import annotations

import os
import signal
import threading
import time

import distributed  # noqa: F401  (required: a broken install fails here, never skips)
import pytest

from mtstrata.cache import SegmentAssembler
from mtstrata.errors import ConfigError
from mtstrata.layers import (
    AnnotationOptions,
    Labeller,
    ProviderBase,
    annotate_texts,
    plan,
    planning,
)
from mtstrata.layers.executors import batches, guided, parse_executor
from mtstrata.segment import Frame, Layer, Segment


class SlowTagger(ProviderBase):
    """A model-free annotator: tags every word, slowly enough to be killed mid-batch."""

    name = "slow"
    assigns = frozenset({Layer.TOKENS, Layer.POS})

    def __init__(self, delay: float = 0.0):
        self.delay = delay

    def __repr__(self) -> str:
        return f"SlowTagger({self.delay})"

    def signature(self, layers):
        return "slow-1"

    def pipe(self, segments, layers, *, jobs=1, quiet=True):
        for seg in segments:
            t = seg.text
            time.sleep(self.delay)
            w = t.split()
            yield Segment.from_words(w, upos=["X"] * len(w), xpos=[f"T{len(t)}"] * len(w))


@pytest.fixture
def slow(monkeypatch):
    import cloudpickle

    import mtstrata.layers as layers_pkg

    cloudpickle.register_pickle_by_value(__import__(__name__))  # workers cannot import tests
    made = []
    real = planning.build

    def create(spec, **kw):
        if not (isinstance(spec, str) and spec.partition(":")[0] == "spacy"):
            return real(spec, **kw)
        made.append(SlowTagger(0.02))
        return made[-1]

    monkeypatch.setattr(planning, "build", create)
    monkeypatch.setattr(layers_pkg, "BATCH_WRITE", 25)
    yield made
    cloudpickle.unregister_pickle_by_value(__import__(__name__))


TEXTS = [f"sentence {i} of the test corpus" for i in range(300)]


def _segments(batch) -> list[Segment]:
    """The segments of a batch's layer payloads (as the driver builds them)."""
    build = SegmentAssembler()
    return [build(t, {Layer(k): v for k, v in r.items()}, {})
            for t, r in zip(batch.texts, batch.rows, strict=True)]


def _keys() -> dict:
    return plan({Layer.POS}, SlowTagger()).keys({Layer.POS})


def test_parse_executor():
    assert parse_executor("local") == ("local", None)
    assert parse_executor("dask") == ("dask", None)
    assert parse_executor("dask:tcp://10.0.0.1:8786") == ("dask", "tcp://10.0.0.1:8786")
    for bad in ("ray", "local:x", "dusk"):
        with pytest.raises(ConfigError, match="executor"):
            parse_executor(bad)


@pytest.mark.parametrize("n,workers", [(0, 2), (1, 2), (49, 1), (15928, 2), (3000, 8), (999, 3)])
def test_guided_batches_cover_the_texts_and_shrink(n, workers):
    b = guided(n, workers, 1000)
    if not n:
        assert b == []
        return
    assert [i for i, _ in b] == [0, *[j for _, j in b[:-1]]] and b[-1][1] == n
    sizes = [j - i for i, j in b]
    assert all(s <= 1000 for s in sizes) and all(s >= 50 for s in sizes[:-1])
    assert sizes == sorted(sizes, reverse=True)[:len(sizes) - 1] + sizes[-1:]  # non-increasing
    if n >= 15000:
        assert sizes[0] == 1000 and sizes[-2] == 50


class PidLabeller(Labeller):
    """A model-free role labeller that notes which process labelled (one line per batch)."""

    name = "pid"
    version = "1"

    def __init__(self, log: str):
        self.log = log

    def __repr__(self) -> str:
        return f"PidLabeller({self.log!r})"

    def label(self, segs):
        with open(self.log, "a") as f:
            import dask

            f.write(f"{os.getpid()} {os.environ.get('MALLOC_TRIM_THRESHOLD_', '-')} "
                    f"{dask.config.get('distributed.worker.profile.enabled', '-')}\n")
        return [(Frame(0),) if s.tokens else () for s in segs]


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_roles_are_labelled_in_the_workers(slow, tmp_path, executor):
    log = tmp_path / "pids"
    chain = ((SlowTagger(), frozenset({Layer.TOKENS, Layer.POS})),
             (PidLabeller(str(log)), frozenset({Layer.SRL})))
    got = [seg for batch in batches(chain, TEXTS, executor, 100, workers=2)
           for seg in _segments(batch)]
    assert sorted(s.text for s in got) == sorted(TEXTS)
    assert all(s.frames == (Frame(0),) and Layer.SRL in s.layers for s in got)
    pids = {ln.split()[0] for ln in log.read_text().splitlines()}
    assert pids and str(os.getpid()) not in pids  # labelled by the workers, not the driver
    # our local cluster's workers run without Dask's MALLOC_TRIM_THRESHOLD_ (slower parsing)
    assert {ln.split()[1] for ln in log.read_text().splitlines()} == {"-"}
    if executor == "dask":  # nor Dask's statistical profiler sampling the parsing thread
        assert {ln.split()[2] for ln in log.read_text().splitlines()} == {"False"}
    # one process: labelled here, batch by batch, the same frames
    chain = ((SlowTagger(), frozenset({Layer.TOKENS, Layer.POS})),
             (PidLabeller(str(tmp_path / "here")), frozenset({Layer.SRL})))
    here = [seg for batch in batches(chain, TEXTS, "local", 100) for seg in _segments(batch)]
    assert sorted(here, key=lambda s: s.text) == sorted(got, key=lambda s: s.text)
    assert {ln.split()[0] for ln in (tmp_path / "here").read_text().splitlines()} == {
        str(os.getpid())}


def test_dask_equals_local_and_survives_a_killed_worker(slow, tmp_path):
    local, _ = annotate_texts(TEXTS, {Layer.POS}, AnnotationOptions(
        cache=str(tmp_path / "local.sqlite"), quiet=True))
    killed: list[int] = []

    cache = tmp_path / "dask.sqlite"

    def kill_one_worker() -> None:
        # once the first batches are stored (the workers are busy), kill one worker process
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            if _rows(cache) >= 50:
                for p in _worker_pids():
                    os.kill(p, signal.SIGKILL)
                    killed.append(p)
                    return
            time.sleep(0.05)

    t = threading.Thread(target=kill_one_worker)
    t.start()
    got, sig = annotate_texts(TEXTS, {Layer.POS}, AnnotationOptions(
        cache=str(cache), quiet=True, executor="dask", jobs=2))
    t.join()
    assert killed, "no worker was killed"
    assert got == local  # every text, the same segments
    from mtstrata.cache import Cache

    with Cache(cache) as c:
        assert len(c) == 2 * len(TEXTS)  # tokens and pos of each text, each written once
        assert c.get_many(_keys(), TEXTS) == local  # the workers' JSON, stored as it came


def _rows(path) -> int:
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT COUNT(*) FROM layer").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _worker_pids() -> list[int]:
    """Worker processes the local cluster spawned from this test process (not the
    multiprocessing resource tracker)."""
    import psutil

    out = []
    for p in psutil.Process().children(recursive=True):
        cmd = " ".join(p.cmdline())
        if ("spawn_main" in cmd or "forkserver" in cmd) and "resource_tracker" not in cmd:
            out.append(p.pid)
    return out


def test_unreachable_scheduler_is_a_clear_error(slow, tmp_path):
    with pytest.raises(ConfigError, match="cannot reach the Dask scheduler"):
        annotate_texts(["a b"], {Layer.POS}, AnnotationOptions(
            use_cache=False, quiet=True, executor="dask:tcp://127.0.0.1:1"))


@pytest.mark.parametrize("executor,jobs", [("local", 2), ("dask", 2), ("local", 1)])
def test_fill_only_stores_the_same_rows_and_keeps_nothing(slow, tmp_path, monkeypatch, executor,
                                                          jobs):
    """``keep=False`` (``mtstrata annotate``): nothing is kept, the workers' JSON is stored
    without being decoded in the driver (nor the cache hits' rows), and the cache then holds
    what a keeping run gets."""
    from mtstrata import cache as cache_mod
    from mtstrata.cache import Cache

    kept, sig = annotate_texts(TEXTS, {Layer.POS}, AnnotationOptions(
        cache=str(tmp_path / "kept.sqlite"), quiet=True, executor=executor, jobs=jobs))
    decoded: list[str] = []
    real = cache_mod.SegmentAssembler.__call__
    monkeypatch.setattr(cache_mod.SegmentAssembler, "__call__",
                        lambda self, t, *a: decoded.append(t) or real(self, t, *a))
    path = tmp_path / "filled.sqlite"
    got, sig2 = annotate_texts(TEXTS[:40], {Layer.POS}, AnnotationOptions(  # some from the cache
        cache=str(path), quiet=True))
    decoded.clear()
    got, sig2 = annotate_texts(TEXTS, {Layer.POS}, AnnotationOptions(
        cache=str(path), quiet=True, executor=executor, jobs=jobs), keep=False)
    assert got == {} and sig2 == sig
    assert decoded == []
    monkeypatch.undo()
    with Cache(path) as c:
        assert len(c) == 2 * len(TEXTS) and c.get_many(_keys(), TEXTS) == kept
