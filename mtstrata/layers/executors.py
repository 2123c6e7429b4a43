"""Where annotation runs: in this process (``local``; with ``--jobs N`` a pool of N worker
processes on this machine) or on a Dask cluster (``dask[:ADDRESS]``).

Annotation is the slow step of a run (the spaCy parse; README, "Scaling", gives the rate);
the rest is numpy. With ``--executor dask`` the distinct texts are cut into batches that Dask
workers annotate: ``dask`` starts a ``LocalCluster`` of ``--jobs`` worker processes on this
machine, ``dask:tcp://HOST:PORT`` uses a running scheduler (``dask scheduler`` plus ``dask
worker`` on each machine, every one with mtstrata and the pinned models installed).

Why Dask (``distributed``) rather than Ray: the work is a bag of independent batches whose
results come back to one driver, which is exactly ``Client.submit``/``as_completed``; Dask is
pure Python on PyPI (no platform wheels, no daemon), starts a local cluster quickly,
reschedules the tasks of a worker that dies, and speaks to a cluster through one address.

The local pool (``--jobs N``, N > 1) is a ``concurrent.futures.ProcessPoolExecutor`` of forked
processes where the platform has fork (spawn elsewhere). Forked, because a spawned worker
re-imports the caller's main module, which breaks any script that calls mtstrata without an
``if __name__ == "__main__"`` guard; the executor forks all its workers before starting any
thread, the workers never touch the parent's sqlite connection and leave through
``os._exit`` (no finalizer closes it), and nothing is loaded yet when they fork. Its
workers ignore SIGINT (the parent stops them), ask the kernel to send them SIGTERM when their
parent dies (``PR_SET_PDEATHSIG``: a parent killed with SIGKILL leaves no worker behind), and
a worker that dies (out of memory, killed) ends the run with a clear error; every batch
finished before it is already in the cache.

Each worker runs a **chain** of providers over a batch (:data:`Chain`: the provider that reads
the raw text, then those that read what it gave and run in workers, such as the role labeller:
they run in parallel too, not in the driver), loading each model once (kept per worker
process, keyed by the chain's configuration), and returns each text's layers as payloads, each
written by its layer's codec (:mod:`mtstrata.payloads`); the driver stores them as they came,
builds segments from them when the run keeps segments, and is the only writer of the
annotation cache (sqlite keeps one writer). A batch whose
worker dies is run again on another worker (``retries``); results are keyed by batch, so
nothing is lost or written twice.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import re
import signal
import sys
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from mtstrata.errors import ConfigError, ModelError
from mtstrata.segment import Layer, Segment

LOG = logging.getLogger("mtstrata")
T = TypeVar("T")
#: models loaded in this (worker) process, by annotator configuration
_LOADED: dict[str, Any] = {}


def usable_cores() -> int:
    """The processors this process may run on (its CPU affinity; else the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resolve_jobs(jobs: int | None) -> int:
    """``--jobs``: the user's number (checked), or by default the usable cores."""
    if jobs is None:
        return min(usable_cores(), MAX_JOBS)
    check_jobs(jobs)
    return jobs


def check_jobs(jobs: int | None) -> None:
    """``--jobs``: 1..MAX_JOBS (each worker process loads its own model); None: the default
    (the usable cores)."""
    if jobs is None:
        return
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise ConfigError(f"--jobs must be 1..{MAX_JOBS} on this machine ({os.cpu_count()} "
                          f"cores; each worker process loads its own model, about 250 MB); "
                          f"got {jobs!r}.")


def parse_executor(spec: str) -> tuple[str, str | None]:
    """``local`` -> ("local", None); ``dask`` -> ("dask", None); ``dask:ADDR`` -> address."""
    kind, _, address = spec.partition(":")
    if kind not in ("local", "dask") or (kind == "local" and address):
        raise ConfigError(f"unknown executor {spec!r}; use local, dask (a cluster of --jobs "
                          "processes on this machine) or dask:tcp://HOST:PORT (a scheduler).")
    m = _ADDRESS.fullmatch(address) if address else None
    if address and (m is None or not 0 < int(m.group(3)) < 65536):
        raise ConfigError(f"--executor {spec!r}: {address!r} is not a Dask scheduler address; "
                          "write dask:tcp://HOST:PORT (e.g. dask:tcp://10.0.0.5:8786; tls:// "
                          "also), the port 1..65535.")
    return kind, address or None


#: a Dask scheduler's address: [PROTOCOL://]HOST:PORT (HOST a name, IPv4, or [IPv6])
_ADDRESS = re.compile(r"(?:(tcp|tls|ws|wss|ucx)://)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):"
                      r"([0-9]{1,5})")


#: what a worker runs over a batch of texts: (provider, the layers it fills) in order, the first
#: reading the raw text, each later one what those before it gave
Chain = tuple[tuple[Any, frozenset[Layer]], ...]


def pool_size(chain: Chain, workers: int) -> int:
    """How many worker processes to start for ``chain`` within the run's cap of ``workers``
    (``--jobs``; default the usable cores): a provider that runs processes of its own
    (``spacy:jobs=N``) counts them against the cap: a pool of P workers, each starting N, is
    P * (N + 1) processes, so P = ``workers // (N + 1)``; below two such workers the chain runs
    in this process and the provider starts its N alone. N above the cap is refused.

    Raises:
        ConfigError: a provider's processes alone exceed the cap.
    """
    inner = max((j for p, _ in chain if isinstance(j := getattr(p, "jobs", 1), int)
                 and not isinstance(j, bool) and j > 1), default=1)
    if inner > workers:
        raise ConfigError(f"the annotator's jobs={inner} are worker processes of this run, more "
                          f"than the {workers} it may start (--jobs; default: the usable cores). "
                          f"Give --jobs {inner}, or a smaller jobs= in --annotator.")
    return workers if inner == 1 else max(1, workers // (inner + 1))


class Batch:
    """Computed texts as the workers send them: each text's layers as payloads
    (``{layer name: payload}``, :func:`mtstrata.payloads.layer_payloads`). The driver stores
    them as they came and builds segments from them only when the run keeps segments."""

    def __init__(self, texts: list[str] | None = None,
                 rows: list[dict[str, str | bytes]] | None = None):
        self.texts = texts if texts is not None else []
        self.rows = rows if rows is not None else []

    def __len__(self) -> int:
        return len(self.texts)

    def extend(self, other: Batch) -> None:
        self.texts.extend(other.texts)
        self.rows.extend(other.rows)


def run_chain(chain: Chain, texts: Sequence[str], split: Layer) -> Iterator[Segment]:
    """The segments of ``texts``, in order, each provider of ``chain`` filling its layers."""
    segs: Iterable[Segment] = (Segment.from_text(t) for t in texts)
    for provider, layers in chain:
        segs = provider.pipe(segs, layers)
    return iter(segs)


def rows_of(segs: Sequence[Segment], chain: Chain, split: Layer) -> list[dict[str, str | bytes]]:
    """The payloads of the layers ``chain`` fills of each of ``segs`` (only those, whatever
    else a provider filled)."""
    from mtstrata.payloads import layer_payloads

    out_layers = sorted({x for _, layers in chain for x in layers}, key=lambda x: x.value)
    return [{k.value: v for k, v in layer_payloads(seg, out_layers, split).items()}
            for seg in segs]


def chain_rows(chain: Chain, texts: list[str], split: Layer) -> list[dict[str, str | bytes]]:
    """What a worker sends back for ``texts``: :func:`rows_of` the chain's segments."""
    return rows_of(list(run_chain(chain, texts, split)), chain, split)


def _here(chain: Chain, texts: Sequence[str], split: Layer, size: int) -> Iterator[Batch]:
    """In this process: one stream through the chain, cut into batches of ``size``."""
    part: list[Segment] = []
    names: list[str] = []
    for text, seg in zip(texts, run_chain(chain, texts, split), strict=True):
        part.append(seg)
        names.append(text)
        if len(part) >= size:
            yield Batch(names, rows_of(part, chain, split))
            part, names = [], []
    if part:
        yield Batch(names, rows_of(part, chain, split))


def _chain_batch(chain: Chain, split: Layer, texts: list[str]) -> list[dict[str, str | bytes]]:
    """Run on a Dask worker: one batch through this process's copy of the chain."""
    mine = _LOADED.setdefault(repr(chain), chain)
    return chain_rows(mine, texts, split)


MAX_JOBS = max(4, 2 * (os.cpu_count() or 1))  # more workers than this only add memory
POOL_BATCH = 100  # texts per task of the local pool: small enough to stop within a second or two


def _die_with_parent(parent: int) -> None:
    """Linux: have the kernel send this process SIGTERM when its parent exits (and exit now
    if the parent is already gone)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            LOG.debug("prctl(PR_SET_PDEATHSIG) unavailable")
    if os.getppid() != parent:
        os._exit(1)


def _pool_init(parent: int, initializer: Callable[..., object] | None, initargs: tuple) -> None:
    """Run once in each pool worker: the parent handles ^C; SIGTERM (from PR_SET_PDEATHSIG
    too) simply ends the process; then the caller's ``initializer``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a forked worker inherits the parent's Python handler for SIGTERM (which raises, to clean
    # up): here SIGTERM must simply end the process
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)


def forked_map(fn: Callable[[Any], T], items: Iterable[Any], workers: int, what: str,
               initializer: Callable[..., object] | None = None, initargs: tuple = (),
               lost: str = "") -> Iterator[T]:
    """``fn(item)`` for each item, in order, computed by ``workers`` processes of this machine
    (forked where the platform can: they see this process's memory as it is now), with at most
    two tasks per worker in flight, so memory does not grow with the number of items. A worker
    that dies ends the run with a clear error naming ``what`` they were doing (and ``lost``:
    a sentence on what is kept of the work done so far)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                               initializer=_pool_init,
                               initargs=(os.getpid(), initializer, initargs))
    done = False
    # the objects that exist now are left out of the collector's passes until the pool ends:
    # forked workers then share their pages instead of copying them as a pass touches them
    frozen_before = gc.get_freeze_count()
    gc.freeze()
    try:
        todo = iter(items)
        inflight: deque[Any] = deque()
        for item in todo:
            inflight.append(pool.submit(fn, item))
            if len(inflight) >= 2 * workers:
                break
        while inflight:
            result = inflight.popleft().result()
            item = next(todo, _END)
            if item is not _END:
                inflight.append(pool.submit(fn, item))
            yield result
        done = True
    except BrokenProcessPool:
        raise ModelError(f"a worker process died while {what} (killed, or out of memory: each "
                         f"of the {workers} workers holds its own copy of the models). Run again "
                         f"with fewer --jobs.{lost}") from None
    finally:
        manager = getattr(pool, "_executor_manager_thread", None)
        if not done:  # interrupted or failed: stop the workers now, not after their tasks
            _terminate(pool)
        pool.shutdown(wait=done, cancel_futures=not done)
        if not done and manager is not None:
            # let the pool's manager thread finish its clean-up (it closes a pipe) before the
            # interpreter's exit hook writes to that pipe: otherwise, now and then, exit
            # prints "OSError: Bad file descriptor" after our one-paragraph error (a race in the
            # _ThreadWakeup of Python 3.11, the one here; fixed later upstream: CPython gh-125451)
            manager.join(timeout=10)
        if not frozen_before:  # (a caller's own gc.freeze() stays as it was)
            gc.unfreeze()


_END = object()


def _pool_load(chain: Chain, split: Layer) -> None:
    _LOADED["pool"] = (chain, split)  # each worker loads the models once, on first use


def _pool_batch(texts: list[str]) -> list[dict[str, str | bytes]]:
    chain, split = _LOADED["pool"]
    return chain_rows(chain, texts, split)


def _pool_batches(chain: Chain, texts: Sequence[str], split: Layer, workers: int
                  ) -> Iterator[Batch]:
    """Payloads of ``texts`` computed by ``workers`` processes, in order, a task at a time
    (the texts computed before a worker dies are in the cache)."""
    parts = [list(texts[i:i + POOL_BATCH]) for i in range(0, len(texts), POOL_BATCH)]
    for part, rows in zip(parts, forked_map(
            _pool_batch, iter(parts), workers, "annotating", _pool_load, (chain, split),
            lost=" The texts annotated so far are in the cache."), strict=True):
        yield Batch(part, rows)


def _terminate(pool: Any) -> None:
    """Stop a process pool's workers at once (Python 3.14 has ``terminate_workers``)."""
    if hasattr(pool, "terminate_workers"):
        pool.terminate_workers()
        return
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        proc.terminate()


def batches(chain: Chain, texts: Sequence[str], executor: str, size: int, workers: int = 1,
            tick: Callable[[int], object] | None = None, split: Layer = Layer.TOKENS
            ) -> Iterator[Batch]:
    """The payloads of ``texts`` (see :class:`Batch`) computed by ``chain``, in batches of
    about ``size`` texts, as they are done (a distributed run may yield batches out of order);
    ``tick(k)`` is called as ``k`` more texts are done. ``split``: the layer whose rows carry
    sentence starts."""
    kind, address = parse_executor(executor)
    if address is None:  # a cluster of ours: every process it starts counts against the cap
        workers = pool_size(chain, workers)
    parts: Iterable[Batch]
    here = kind == "local" and not (workers > 1 and len(texts) > POOL_BATCH)
    if not here and kind == "local":
        parts = _pool_batches(chain, texts, split, workers)
    elif here:
        parts = _here(chain, texts, split, size)
    else:
        parts = _dask_batches(chain, list(texts), split, address, size, workers)
    batch = Batch()
    for part in parts:
        if tick is not None:
            tick(len(part.texts))
        batch.extend(part)
        if len(batch) >= size:
            yield batch
            batch = Batch()
    if len(batch):
        yield batch


TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"
PROFILE = "distributed.worker.profile.enabled"


def guided(n: int, workers: int, most: int, least: int = 50) -> list[tuple[int, int]]:
    """Bounds ``[i, j)`` of the batches of ``n`` texts for ``workers``: each batch a
    ``1 / (4 * workers)`` share of the texts not yet given out (between ``least`` and ``most``),
    so batches are large while much is left and small at the end, where the workers then
    finish together instead of one idling while the other ends a large batch."""
    out, i = [], 0
    while i < n:
        j = min(n, i + max(least, min(most, -(-(n - i) // (4 * max(workers, 1))))))
        out.append((i, j))
        i = j
    return out


def _dask_batches(chain: Chain, texts: list[str], split: Layer, address: str | None, size: int,
                  workers: int) -> Iterator[Batch]:
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ModelError("--executor dask needs Dask's distributed package: `pip install "
                         "'dask[distributed]==2026.8.0'` (a dependency of mtstrata).") from None
    cluster = None
    try:
        if address is None:
            import dask

            # Dask's workers start with MALLOC_TRIM_THRESHOLD_=65536 (memory handed back to the
            # system at once), which slows spaCy's parsing (README, bench_annotate.py), so not
            # for ours; and without Dask's own statistical profiler, a thread that keeps sampling
            # the parsing thread's stack (for Dask's dashboard, which ours does not start)
            with dask.config.set({TRIM: None, PROFILE: False}):
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster if cluster is not None else address, timeout="10s")
    except (OSError, ValueError, TypeError) as e:  # (unreachable, or an address Dask refuses)
        if cluster is not None:
            cluster.close()
        raise ConfigError(f"cannot reach the Dask scheduler {address or 'of a local cluster'} "
                          f"({e}); check the address (tcp://HOST:PORT) and that it runs.") from None
    run = uuid.uuid4().hex[:8]
    try:
        # a running cluster has as many workers as it has, whatever --jobs says
        have = len(client.scheduler_info().get("workers", ())) or workers
        futures = {client.submit(_chain_batch, chain, split, texts[i:j],
                                 key=f"mtstrata-annotate-{run}-{i}", retries=3,
                                 pure=False): (i, j)
                   for i, j in guided(len(texts), have, size)}
        LOG.debug("annotation: %d batches on %s", len(futures), client.scheduler_info()["address"])
        for future, rows in as_completed(futures, with_results=True):
            i, j = futures[future]
            yield Batch(texts[i:j], rows)
            future.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
