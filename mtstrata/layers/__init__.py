"""Annotation layers: the Annotator protocol, backends and the annotation plan.

A run asks for the union of the layers its metrics require; :func:`annotate_texts` annotates
each distinct text once (through the cache) and returns a :class:`~mtstrata.segment.Segment` per
text. Importing this package must not import spaCy, stanza or torch: backends load lazily.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from mtstrata.cache import Cache
from mtstrata.errors import UnknownNameError
from mtstrata.layers.base import (
    ANNOTATORS,
    Annotator,
    Plan,
    add_frames,
    load_srl,
    plan,
    srl_signature,
)
from mtstrata.segment import Layer, Segment

__all__ = ["ANNOTATORS", "AnnotationOptions", "Annotator", "Plan", "annotate_texts", "plan"]


@dataclass(frozen=True)
class AnnotationOptions:
    """How a run annotates: backend, cache, parallelism, lock checking, progress output."""

    annotator: str = "spacy"
    cache: str | None = None  # None: the default location; see mtstrata.cache
    use_cache: bool = True
    jobs: int = 1
    allow_unlocked: bool = False
    quiet: bool = False
    stanza_dir: str | None = None


PROGRESS_MIN = 300  # a progress bar only when more texts than this need annotating
BATCH_WRITE = 1000  # segments per cache transaction


def _backend(options: AnnotationOptions, layers: frozenset[Layer]) -> Annotator:
    if options.annotator == "spacy":
        from mtstrata.layers.spacy_backend import SpacyAnnotator

        return SpacyAnnotator(layers, allow_unlocked=options.allow_unlocked, jobs=options.jobs)
    if options.annotator == "stanza":
        from mtstrata.layers.stanza_backend import StanzaAnnotator

        return StanzaAnnotator(layers, model_dir=options.stanza_dir)
    raise UnknownNameError("annotator", options.annotator, ANNOTATORS)


def annotate_texts(
    texts: Sequence[str], layers: Collection[Layer], options: AnnotationOptions | None = None
) -> tuple[dict[str, Segment], str]:
    """Annotate distinct ``texts`` with ``layers``; return ``{text: Segment}`` and the
    annotator signature that goes into every score's signature.

    Each distinct text is annotated once: first looked up in the cache (keyed by the annotator
    signature and the text), the rest annotated in batches and written back, batch by batch, in
    transactions. A summary line goes to stderr unless ``options.quiet``.
    """
    if not layers:
        return {t: Segment.from_text(t) for t in texts}, ""
    options = options or AnnotationOptions()
    todo_plan = plan(layers, options.annotator)
    labeller = load_srl() if todo_plan.srl else None
    backend = _backend(options, todo_plan.backend_layers)
    sig = backend.signature + (f"+{srl_signature(labeller)}" if labeller else "")
    if getattr(backend, "unlocked", False):
        sig += ".unlocked"
    distinct = list(dict.fromkeys(texts))
    t0 = time.perf_counter()
    out: dict[str, Segment] = {}
    cache = Cache(options.cache) if options.use_cache else None
    try:
        if cache is not None:
            out.update(cache.get_many(sig, distinct))
        hits = len(out)
        todo = [t for t in distinct if t not in out]
        bar = None
        if len(todo) > PROGRESS_MIN and not options.quiet and sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=len(todo), unit="seg", desc="annotating", file=sys.stderr)
        batch: list[Segment] = []
        # no texts left: never load the model (a warm run costs only the cache lookup)
        for seg in (backend.annotate(todo) if todo else ()):
            if labeller is not None:
                seg = add_frames(seg, labeller)
            out[seg.text] = seg
            batch.append(seg)
            if len(batch) >= BATCH_WRITE:
                if cache is not None:
                    cache.put_many(sig, batch)
                if bar is not None:
                    bar.update(len(batch))
                batch = []
        if cache is not None:
            cache.put_many(sig, batch)
        if bar is not None:
            bar.update(len(batch))
            bar.close()
    finally:
        if cache is not None:
            cache.close()
    if not options.quiet:
        print(f"mtstrata: annotation: {len(distinct)} distinct segments, {hits} from the cache, "
              f"{len(distinct) - hits} annotated, {time.perf_counter() - t0:.1f} s "
              f"({sig})", file=sys.stderr)
    return out, sig
