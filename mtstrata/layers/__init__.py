"""Annotation layers: providers, the plan of a run, and the driver that computes every layer.

A run asks for the union of the layers its metrics require; :func:`annotate_texts` computes
each distinct text once per layer (through the cache, which keeps one row per layer of a text,
keyed by that layer's provider: a text annotated for a superset of layers serves any subset, and
a new layer is computed alone) and returns a :class:`~mtstrata.segment.Segment` per text. Every
layer is computed, stored and read the same way: by its provider
(:mod:`mtstrata.layers.provider`), as the run's plan resolved it (:mod:`mtstrata.layers.planning`),
through its codec (:mod:`mtstrata.payloads`). Importing this package must not import spaCy,
stanza or torch: providers load their models lazily.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mtstrata import progress
from mtstrata.cache import Cache, SegmentAssembler, gc_paused
from mtstrata.errors import ModelError
from mtstrata.layers.executors import Chain, batches, resolve_jobs
from mtstrata.layers.options import AnnotationOptions, plan_run, with_plan
from mtstrata.layers.planning import Plan, build, plan
from mtstrata.layers.provider import (
    PROVIDERS,
    SCHEMES,
    ComputedLayer,
    Labeller,
    Provider,
    ProviderBase,
    add_frames,
)
from mtstrata.payloads import layer_payloads
from mtstrata.segment import Layer, Segment

__all__ = ["PROVIDERS", "SCHEMES", "AnnotationOptions", "ComputedLayer", "Labeller", "Plan",
           "Provider", "ProviderBase", "add_frames", "annotate_texts", "build", "plan",
           "plan_run", "with_plan"]


LOG = logging.getLogger("mtstrata")
PROGRESS_MIN = 300  # a progress bar only when more texts than this need annotating
BATCH_WRITE = 1000  # texts per cache transaction
Rows = dict[Layer, "str | bytes"]


@dataclass
class _Work:
    """What one run has to compute, text by text (see :func:`annotate_texts`): the texts of
    each worker chain, then, in the order the plan computes them, the texts each provider
    computes in this process."""

    have: dict[str, Rows]
    chains: dict[Chain, list[str]] = field(default_factory=dict)
    here: list[tuple[Any, frozenset[Layer], list[str]]] = field(default_factory=list)

    def fresh(self) -> set[str]:
        return ({t for ts in self.chains.values() for t in ts}
                | {t for _, _, ts in self.here for t in ts})


def _todo(p: Plan, want: frozenset[Layer], texts: Sequence[str], have: dict[str, Rows]
          ) -> _Work:
    """Group the texts by what they miss: a text whose raw-text provider must run (in the
    workers) gets there every later provider that can run there too, with what those read
    computed along; every other missing layer is computed in this process, provider by
    provider, from the layers before it."""
    order = p.order(want)
    mine = {id(q): frozenset(x for x in want if p.provider_of(x) is q) for q in order}
    reads = {id(q): p.closure(q.needs) if q.needs else frozenset() for q in order}
    work = _Work(have)
    here: dict[int, list[str]] = {}
    for t in texts:
        h = have.get(t, {})
        chain: list[tuple[Any, frozenset[Layer]]] = []
        missing: set[Layer] = set()  # what the chain computes for this text
        for q in order:
            miss = frozenset(x for x in mine[id(q)] if x not in h)
            if not miss:
                continue
            r = reads[id(q)]
            if q.runs == "worker" and not q.needs and not chain:  # the chain's head
                chain.append((q, miss))
                missing |= miss
            elif (q.runs == "worker" and chain and r <= chain[0][0].assigns | missing
                  and r & missing):  # it reads what the worker computes: all of it there
                head, got = chain[0]
                chain[0] = (head, frozenset(got | (r & head.assigns)))
                chain.append((q, miss))
                missing |= miss | r
            else:
                here.setdefault(id(q), []).append(t)
        if chain:
            head, got = chain[0]
            chain[0] = (head, frozenset(head.bundle(got)) | (
                {Layer.TOKENS} if Layer.TOKENS in head.assigns else set()))
            work.chains.setdefault(tuple(chain), []).append(t)
    work.here = [(q, mine[id(q)], here[id(q)]) for q in order if id(q) in here]
    return work


def _check_tokens(text: str, old: Rows, new: Mapping[str, str]) -> None:
    if Layer.TOKENS in old and old[Layer.TOKENS] != new.get("tokens", old[Layer.TOKENS]):
        raise ModelError(
            f"the annotator's tokens of {text[:60]!r} differ from those in the annotation "
            "cache under the same signature: the cache is inconsistent (edited, or written by "
            "a nondeterministic tokenizer). Move the cache file away or run with --no-cache.")


def annotate_texts(
    texts: Sequence[str], layers: Collection[Layer], options: AnnotationOptions | None = None,
    the_plan: Plan | None = None, *, keep: bool = True,
) -> tuple[dict[str, Segment], str]:
    """Annotate distinct ``texts`` with ``layers``; return ``{text: Segment}`` and the
    signature of what produced those layers (:meth:`Plan.signature`).

    Each layer of each distinct text is computed once: looked up in the cache (keyed by the
    layer's provider, :meth:`Plan.layer_key`), what is missing computed (texts that miss the
    same layers together, with only what those layers need) and written back batch by batch,
    in transactions. A summary line goes to the log unless ``options.quiet``. With
    ``keep=False`` (only fill the cache: ``mtstrata annotate``) nothing is kept and the
    dictionary is empty: what the workers send is stored without being decoded.
    """
    if not layers:
        return {t: Segment.from_text(t) for t in texts}, ""
    options = options or AnnotationOptions()
    p = the_plan or plan_run(layers, options)
    want = p.closure(layers)
    keys = p.keys(want)
    sig = p.signature(layers)
    distinct = list(dict.fromkeys(texts))
    t0 = time.perf_counter()
    cache = Cache(options.cache) if options.use_cache else None
    try:
        have = cache.get_layers(keys, distinct) if cache is not None else {}
        out = _valid(p, want, have) if keep else {}
        work = _todo(p, want, distinct, have)
        # (a layer computed here reads the layers just computed: they are kept for it)
        done = _compute(p, work, keys, cache, options, keep or bool(work.here))
    finally:
        if cache is not None:
            cache.close()
    if keep:
        build_seg = SegmentAssembler()
        with gc_paused():
            for t in distinct:
                if t not in out:
                    seg = build_seg(t, have[t], p.schemes_of(want))
                    if seg is None:
                        raise ModelError(f"internal error: the layers of {t[:60]!r} do not fit "
                                         "together; run with --no-cache and report it.")
                    out[t] = seg
    if not options.quiet:
        fresh = len(work.fresh())
        LOG.info("annotation: %d distinct segments, %d from the cache, %d annotated%s, %.1f s "
                 "(%s)", len(distinct), len(distinct) - fresh, fresh,
                 "".join(f"; {d}" for d in done), time.perf_counter() - t0, sig)
    return ({t: out[t] for t in distinct} if keep else {}), sig


def _valid(p: Plan, want: frozenset[Layer], have: dict[str, Rows]) -> dict[str, Segment]:
    """Segments of the texts whose every layer is cached; a text whose rows do not decode or
    fit together loses its cached rows, and a provider's rows that are not its output for the
    text (:meth:`~mtstrata.layers.provider.ProviderBase.fits`: an emb row of another text) are
    dropped (misses: computed again and overwritten)."""
    build = SegmentAssembler()
    schemes = p.schemes_of(want)
    checks = list({id(q): q for x in want if (q := p.provider_of(x)) is not None}.values())
    out: dict[str, Segment] = {}
    with gc_paused():
        for t, rows in list(have.items()):
            seg = build(t, rows, schemes)
            if seg is None:
                del have[t]
                continue
            for q in checks:
                if not q.fits(t, seg):
                    for x in q.assigns & want:
                        rows.pop(x, None)
            if len(rows) == len(want):
                out[t] = seg
    return out


def _compute(p: Plan, work: _Work, keys: dict[Layer, str], cache: Cache | None,
             options: AnnotationOptions, keep: bool) -> list[str]:
    """Compute what ``work`` says is missing, storing it batch by batch; returns one line per
    piece of work done (for the summary)."""
    done: list[str] = []
    jobs = resolve_jobs(options.jobs)
    have = work.have
    split = p.sentences_from()
    for chain, todo in work.chains.items():
        computed = frozenset(x for _, layers in chain for x in layers)
        store = {**keys, **{x: p.layer_key(x) for x in computed}}  # with what came along
        names = "+".join(sorted(x.value for x in computed))
        with progress.bar(f"annotating {names}", total=len(todo), unit="seg",
                          quiet=options.quiet, min_total=PROGRESS_MIN) as bar:
            for batch in batches(chain, todo, options.executor, BATCH_WRITE, jobs, bar.update,
                                 split):
                rows = []
                for t, r in zip(batch.texts, batch.rows, strict=True):
                    old = have.setdefault(t, {}) if keep else have.get(t, {})
                    _check_tokens(t, old, r)
                    new = {_layer(k): v for k, v in r.items()}
                    if keep:  # (a run that only fills the cache keeps nothing)
                        old.update((k, v) for k, v in new.items() if k in keys)
                    rows.append((t, new))
                if cache is not None:
                    cache.put_layers(store, rows)
        done.append(f"{len(todo)} texts annotated for {names} ({p.signature(computed)})")
    for q, layers, texts in work.here:
        _here(p, q, layers, texts, have, keys, cache, options, jobs)
        names = "+".join(sorted(x.value for x in layers))
        done.append(f"{len(texts)} texts given the {names} layer by {q.name} "
                    f"({p.signature(layers)})")
    return done


def _layer(name: str) -> Layer:
    from mtstrata.segment import layer_named

    return layer_named(name)  # type: ignore[return-value]


def _here(p: Plan, q: Any, layers: frozenset[Layer], texts: list[str], have: dict[str, Rows],
          keys: dict[Layer, str], cache: Cache | None, options: AnnotationOptions, jobs: int
          ) -> None:
    """Compute ``layers`` of ``texts`` with the provider ``q`` in this process, from the
    layers it reads (all in ``have`` by now), storing them a batch at a time."""
    needs = p.closure(q.needs) - layers if q.needs else frozenset()
    build_seg = SegmentAssembler()
    schemes = p.schemes_of(needs)
    split = p.sentences_from()

    def inputs() -> Any:
        for t in texts:
            if not needs:
                yield Segment.from_text(t)
                continue
            seg = build_seg(t, {k: v for k, v in have.get(t, {}).items() if k in needs},
                            schemes)
            if seg is None:
                raise ModelError(f"internal error: the layers the {q.name} provider reads of "
                                 f"{t[:60]!r} do not fit together; run with --no-cache and "
                                 "report it.")
            yield seg

    rows: list[tuple[str, Rows]] = []
    names = "+".join(sorted(x.value for x in layers))
    with progress.bar(f"computing {names}", total=len(texts), unit="seg", quiet=options.quiet,
                      min_total=PROGRESS_MIN) as bar:
        for seg in q.pipe(inputs(), layers, jobs=jobs, quiet=options.quiet):
            r: Rows = dict(layer_payloads(seg, sorted(layers, key=lambda x: x.value), split))
            have.setdefault(seg.text, {}).update(r)
            rows.append((seg.text, r))
            bar.update(1)
            if len(rows) >= BATCH_WRITE:
                if cache is not None:
                    cache.put_layers(keys, rows)
                rows = []
    if rows and cache is not None:
        cache.put_layers(keys, rows)
