"""Annotation layers: the Annotator protocol, backends, providers and the annotation plan.

A run asks for the union of the layers its metrics require; :func:`annotate_texts` annotates
each distinct text once per layer (through the cache, which keeps one row per layer of a text,
keyed by that layer's provider: a text annotated for a superset of layers serves any subset, and
a new layer is computed alone) and returns a :class:`~mtstrata.segment.Segment` per text.
Importing this package must not import spaCy, stanza or torch: backends load lazily.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from mtstrata import progress
from mtstrata.cache import Cache, SegmentAssembler, gc_paused, layer_payloads
from mtstrata.errors import ModelError
from mtstrata.layers.base import (
    ANNOTATORS,
    LABELLERS,
    SRL_NEEDS,
    Annotator,
    Labeller,
    Plan,
    add_frames,
    create_annotator,
    plan,
)
from mtstrata.layers.executors import batches, check_jobs, parse_executor, resolve_jobs
from mtstrata.segment import Layer, Segment

__all__ = ["ANNOTATORS", "LABELLERS", "SRL_NEEDS", "AnnotationOptions", "Annotator", "Labeller",
           "Plan", "annotate_texts", "create_annotator", "plan", "plan_run", "with_plan"]


@dataclass(frozen=True)
class AnnotationOptions:
    """How a run annotates: annotator spec, role labeller, cache, parallelism, output."""

    annotator: str = "spacy"  # a spec: "spacy", "spacy:jobs=2", "stanza:dir=/models"
    labeller: str = "learned"  # the better labeller on gold PropBank (benchmarks/bench_srl.py)
    cache: str | None = None  # None: the default location; see mtstrata.cache
    use_cache: bool = True
    jobs: int | None = None  # worker processes; None: the usable cores (executors.resolve_jobs)
    allow_unlocked: bool = False
    quiet: bool = False
    executor: str = "local"  # local | dask | dask:tcp://HOST:PORT (see layers.executors)
    #: the run's plan, resolved once for every metric of the run (:func:`with_plan`) and passed
    #: down with the options: :func:`plan_run` returns it for any layers it covers, so what a
    #: run annotates and how it signs come from one resolution
    plan: Plan | None = field(default=None, compare=False, repr=False)


LOG = logging.getLogger("mtstrata")
PROGRESS_MIN = 300  # a progress bar only when more texts than this need annotating
BATCH_WRITE = 1000  # texts per cache transaction
Rows = dict[Layer, "str | bytes"]


def plan_run(layers: Collection[Layer], options: AnnotationOptions | None = None,
             schemes: Mapping[Layer, str] | None = None) -> Plan:
    """The plan of a run that needs ``layers`` (checked before any model loads)."""
    options = options or AnnotationOptions()
    parse_executor(options.executor)  # a bad executor or --jobs fails before anything loads
    check_jobs(options.jobs)
    have = options.plan
    if have is not None and have.closure(layers) <= have.layers and all(
            have.schemes.get(k) == v for k, v in (schemes or {}).items()):
        return have  # the run's plan (its signatures of these layers are theirs alone)
    # --jobs is the number of worker processes (a local pool or a Dask cluster), each
    # annotating with its own single-process copy of the annotator
    annotator: Annotator | str = options.annotator
    if Plan().layers_for(layers) or Plan.of_kind("extra", layers):  # built first: a bad
        # --annotator is the first error
        annotator = create_annotator(options.annotator,
                                     allow_unlocked=options.allow_unlocked or None)
    return plan(layers, annotator, options.labeller, schemes)


def with_plan(options: AnnotationOptions | None, layers: Collection[Layer],
              schemes: Mapping[Layer, str] | None = None) -> AnnotationOptions:
    """``options`` carrying the plan of a run whose metrics need ``layers`` (in ``schemes``),
    resolved here once and checked before any model loads (``options`` as they are when no
    layer is needed)."""
    options = options or AnnotationOptions()
    if not layers:
        return options
    return replace(options, plan=plan_run(layers, replace(options, plan=None), schemes))


@dataclass
class _Work:
    """What one run has to compute, text by text (see :func:`annotate_texts`)."""

    have: dict[str, Rows]
    groups: dict[tuple[frozenset[Layer], bool], list[str]]
    label_here: list[str]
    embed: list[str]
    #: the texts that miss each plugin layer (computed last, from the layers it reads)
    extra: dict[Layer, list[str]] = field(default_factory=dict)


def _todo(p: Plan, want: frozenset[Layer], texts: Sequence[str], have: dict[str, Rows]
          ) -> _Work:
    """Group the texts by the backend layers they miss (computed together), those whose roles
    can be labelled from cached layers, and those that miss vectors."""
    backend, roles, vectors = (p.of_kind(k, want) for k in ("annotator", "labeller", "embedder"))
    needs = p.labeller.needs if p.labeller is not None else frozenset()
    bundle = getattr(p.annotator, "bundle", None)
    work = _Work(have, {}, [], [])
    for t in texts:
        h = have.get(t, {})
        miss = frozenset(x for x in backend if x not in h)
        label = bool(roles) and not roles <= h.keys()
        in_worker = label and bool(miss & needs)
        if in_worker:  # the labeller reads what the worker computes: all of it there
            miss |= needs
        elif label:
            work.label_here.append(t)
        if miss and bundle is not None:  # what the backend computes at once (parse once)
            miss = frozenset(bundle(miss))
        if miss:
            work.groups.setdefault((miss, in_worker), []).append(t)
        if vectors and not vectors <= h.keys():
            work.embed.append(t)
        for x in p.of_kind("extra", want) - h.keys():
            work.extra.setdefault(x, []).append(t)
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
    same layers together, with only the components those layers need) and written back batch
    by batch, in transactions. Roles whose inputs are cached are labelled here; vectors are
    computed by the embedding provider. A summary line goes to the log unless
    ``options.quiet``. With ``keep=False`` (only fill the cache: ``mtstrata annotate``)
    nothing is kept and the dictionary is empty: what the workers send is stored without
    being decoded.
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
        # (a plugin layer is computed from the layers just computed: they are kept for it)
        done = _compute(p, work, keys, cache, options, keep or bool(work.extra))
    finally:
        if cache is not None:
            cache.close()
    if keep:
        build = SegmentAssembler()
        with gc_paused():
            for t in distinct:
                if t not in out:
                    seg = build(t, have[t], p.schemes_of(want))
                    if seg is None:
                        raise ModelError(f"internal error: the layers of {t[:60]!r} do not fit "
                                         "together; run with --no-cache and report it.")
                    out[t] = seg
    if not options.quiet:
        fresh = len({t for ts in work.groups.values() for t in ts} | set(work.label_here)
                    | set(work.embed) | {t for ts in work.extra.values() for t in ts})
        LOG.info("annotation: %d distinct segments, %d from the cache, %d annotated%s, %.1f s "
                 "(%s)", len(distinct), len(distinct) - fresh, fresh,
                 "".join(f"; {d}" for d in done), time.perf_counter() - t0, sig)
    return ({t: out[t] for t in distinct} if keep else {}), sig


def _valid(p: Plan, want: frozenset[Layer], have: dict[str, Rows]) -> dict[str, Segment]:
    """Segments of the texts whose every layer is cached; a text whose rows do not decode or
    fit together loses its cached rows (a miss: computed again and overwritten)."""
    build = SegmentAssembler()
    schemes = p.schemes_of(want)
    out: dict[str, Segment] = {}
    with gc_paused():
        for t, rows in list(have.items()):
            seg = build(t, rows, schemes)
            if seg is None:
                del have[t]
            elif len(rows) == len(want):
                out[t] = seg
    return out


def _compute(p: Plan, work: _Work, keys: dict[Layer, str], cache: Cache | None,
             options: AnnotationOptions, keep: bool) -> list[str]:
    """Compute what ``work`` says is missing, storing it batch by batch; returns one line per
    kind of work done (for the summary)."""
    done: list[str] = []
    jobs = resolve_jobs(options.jobs)
    have = work.have
    for (layers, in_worker), todo in work.groups.items():
        store = {**keys, **{x: p.layer_key(x) for x in layers}}  # with what came along
        names = "+".join(sorted(x.value for x in layers)) + ("+srl" if in_worker else "")
        with progress.bar(f"annotating {names}", total=len(todo), unit="seg",
                          quiet=options.quiet, min_total=PROGRESS_MIN) as bar:
            for batch in batches(p.annotator, todo, layers, options.executor, BATCH_WRITE,
                                 jobs, bar.update, p.labeller if in_worker else None):
                rows = []
                for t, r in zip(batch.texts, batch.rows, strict=True):
                    old = have.setdefault(t, {}) if keep else have.get(t, {})
                    _check_tokens(t, old, r)
                    new = {Layer(k): v for k, v in r.items()}
                    if keep:  # (a run that only fills the cache keeps nothing)
                        old.update((k, v) for k, v in new.items() if k in keys)
                    rows.append((t, new))
                if cache is not None:
                    cache.put_layers(store, rows)
        done.append(f"{len(todo)} texts annotated for {names} ({p.signature(layers)})")
    if work.label_here:
        _label_here(p, work, keys, cache)
        done.append(f"{len(work.label_here)} texts labelled for srl from cached layers")
    if work.embed:
        emb = p.by_kind("embedder")
        assert emb is not None
        (layer,) = emb.assigns  # one vector row per text
        for texts, blobs in emb.target.embed(work.embed, jobs=jobs, quiet=options.quiet):
            rows = [(t, {layer: b}) for t, b in zip(texts, blobs, strict=True)]
            for t, r in rows if keep else ():
                have.setdefault(t, {}).update(r)
            if cache is not None:
                cache.put_layers(keys, rows)
        done.append(f"{len(work.embed)} texts embedded ({emb.target.signature})")
    for layer in p.extra_order(work.extra):  # (one may read another: it comes first)
        texts = work.extra[layer]
        _extra_here(p, layer, texts, work.have, keys, cache)
        done.append(f"{len(texts)} texts given the {layer} layer ({p.signature({layer})})")
    return done


def _extra_here(p: Plan, layer: Layer, texts: list[str], have: dict[str, Rows],
                keys: dict[Layer, str], cache: Cache | None) -> None:
    """Compute a plugin layer of ``texts`` from the layers its provider reads (all in
    ``have`` by now) and store its rows, the JSON text of each value."""
    import json

    prov = p.providers[layer]
    needs = p.closure(prov.requires(layer)) - {layer}
    build = SegmentAssembler()
    for i in range(0, len(texts), BATCH_WRITE):
        part = texts[i:i + BATCH_WRITE]
        segs = [build(t, {k: v for k, v in have.get(t, {}).items() if k in needs},
                      p.schemes_of(needs)) for t in part]
        if any(s is None for s in segs):
            raise ModelError(f"internal error: the layers the {layer} layer reads do not fit "
                             "together; run with --no-cache and report it.")
        values = prov.target.compute(segs)
        rows = [(t, {layer: json.dumps(v, ensure_ascii=False, separators=(",", ":"))})
                for t, v in zip(part, values, strict=True)]
        for t, r in rows:
            have.setdefault(t, {}).update(r)
        if cache is not None:
            cache.put_layers(keys, rows)


def _label_here(p: Plan, work: _Work, keys: dict[Layer, str], cache: Cache | None) -> None:
    """Label the roles of texts whose labeller inputs are all cached (no parse needed)."""
    lab = p.by_kind("labeller")
    assert lab is not None
    needs = p.closure(lab.target.needs)
    build = SegmentAssembler()
    for i in range(0, len(work.label_here), BATCH_WRITE):
        part = work.label_here[i:i + BATCH_WRITE]
        segs = []
        for t in part:
            seg = build(t, {k: v for k, v in work.have[t].items() if k in needs},
                        p.schemes_of(needs))
            if seg is None:
                raise ModelError(f"internal error: cached layers of {t[:60]!r} do not fit "
                                 "together; run with --no-cache and report it.")
            segs.append(seg)
        rows = []
        for seg in add_frames(segs, lab.target):
            r: Rows = dict(layer_payloads(seg, sorted(lab.assigns, key=lambda x: x.value)))
            work.have[seg.text].update(r)
            rows.append((seg.text, r))
        if cache is not None:
            cache.put_layers(keys, rows)
