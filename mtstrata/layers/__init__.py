"""Annotation layers: the Annotator protocol, backends and the annotation plan.

A run asks for the union of the layers its metrics require; :func:`annotate_texts` annotates
each distinct text once (through the cache) and returns a :class:`~mtstrata.segment.Segment` per
text. Importing this package must not import spaCy, stanza or torch: backends load lazily.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from mtstrata import progress
from mtstrata.cache import Cache
from mtstrata.layers.base import (
    ANNOTATORS,
    LABELLERS,
    SRL_NEEDS,
    Annotator,
    Labeller,
    Plan,
    create_annotator,
    plan,
)
from mtstrata.layers.executors import Batch, batches, check_jobs, parse_executor
from mtstrata.segment import Layer, Segment

__all__ = ["ANNOTATORS", "LABELLERS", "SRL_NEEDS", "AnnotationOptions", "Annotator", "Labeller",
           "Plan", "annotate_texts", "create_annotator", "plan", "plan_run"]


@dataclass(frozen=True)
class AnnotationOptions:
    """How a run annotates: annotator spec, role labeller, cache, parallelism, output."""

    annotator: str = "spacy"  # a spec: "spacy", "spacy:jobs=2", "stanza:dir=/models"
    labeller: str = "learned"  # the better labeller on gold PropBank (benchmarks/bench_srl.py)
    cache: str | None = None  # None: the default location; see mtstrata.cache
    use_cache: bool = True
    jobs: int = 1
    allow_unlocked: bool = False
    quiet: bool = False
    executor: str = "local"  # local | dask | dask:tcp://HOST:PORT (see layers.executors)


LOG = logging.getLogger("mtstrata")
PROGRESS_MIN = 300  # a progress bar only when more texts than this need annotating
BATCH_WRITE = 1000  # segments per cache transaction


def plan_run(layers: Collection[Layer], options: AnnotationOptions | None = None,
             schemes: Mapping[Layer, str] | None = None) -> Plan:
    """The plan of a run that needs ``layers`` (checked before any model loads)."""
    options = options or AnnotationOptions()
    parse_executor(options.executor)  # a bad executor or --jobs fails before anything loads
    check_jobs(options.jobs)
    # --jobs is the number of worker processes (a local pool or a Dask cluster), each
    # annotating with its own single-process copy of the annotator
    annotator = create_annotator(options.annotator, allow_unlocked=options.allow_unlocked or None)
    return plan(layers, annotator, options.labeller, schemes)


def annotate_texts(
    texts: Sequence[str], layers: Collection[Layer], options: AnnotationOptions | None = None,
    the_plan: Plan | None = None, *, keep: bool = True,
) -> tuple[dict[str, Segment], str]:
    """Annotate distinct ``texts`` with ``layers``; return ``{text: Segment}`` and the
    signature of what annotated them (the run's union of layers).

    Each distinct text is annotated once: first looked up in the cache (keyed by that
    signature and the text), the rest annotated in batches and written back, batch by batch,
    in transactions. A summary line goes to stderr unless ``options.quiet``. With
    ``keep=False`` (only fill the cache: ``mtstrata annotate``) nothing is kept and the
    dictionary is empty: memory does not grow with the texts, and what the workers send is
    stored without being decoded.
    """
    if not layers:
        return {t: Segment.from_text(t) for t in texts}, ""
    options = options or AnnotationOptions()
    todo_plan = the_plan or plan_run(layers, options)
    sig = todo_plan.signature()
    distinct = list(dict.fromkeys(texts))
    t0 = time.perf_counter()
    out: dict[str, Segment] = {}
    cache = Cache(options.cache) if options.use_cache else None
    try:
        found = cache.get_many(sig, distinct) if cache is not None else {}
        hits = len(found)
        todo = [t for t in distinct if t not in found]
        if keep:
            out = found
        del found

        def flush(batch: Batch) -> None:
            if keep:
                for seg in batch:
                    out[seg.text] = seg
            if cache is not None:
                cache.put_many(sig, batch, batch.payloads, batch.texts)

        # no texts left: never load the model (a warm run costs only the cache lookup)
        if todo:
            with progress.bar("annotating", total=len(todo), unit="seg", quiet=options.quiet,
                              min_total=PROGRESS_MIN) as bar:
                for batch in batches(todo_plan.annotator, todo, todo_plan.backend_layers,
                                     options.executor, BATCH_WRITE, options.jobs, bar.update,
                                     todo_plan.labeller, decode=keep):
                    flush(batch)
    finally:
        if cache is not None:
            cache.close()
    if not options.quiet:
        LOG.info("annotation: %d distinct segments, %d from the cache, %d annotated, %.1f s (%s)",
                 len(distinct), hits, len(distinct) - hits, time.perf_counter() - t0, sig)
    return out, sig
