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
from typing import Any

from mtstrata.errors import MissingLayerError, UnknownNameError
from mtstrata.layers.cache import Cache
from mtstrata.segment import Layer, Segment


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


ANNOTATORS = ("spacy", "stanza")
PROGRESS_MIN = 300  # a progress bar only when more texts than this need annotating


def _backend(options: AnnotationOptions, layers: frozenset[Layer]) -> Any:
    if options.annotator == "spacy":
        from mtstrata.layers.spacy_backend import SpacyAnnotator

        return SpacyAnnotator(layers, allow_unlocked=options.allow_unlocked, jobs=options.jobs)
    if options.annotator == "stanza":
        from mtstrata.layers.stanza_backend import StanzaAnnotator

        return StanzaAnnotator(layers, model_dir=options.stanza_dir)
    raise UnknownNameError("annotator", options.annotator, ANNOTATORS)


def plan(layers: Collection[Layer], options: AnnotationOptions) -> tuple[frozenset[Layer], bool]:
    """The layers the backend must produce, and whether semantic roles are labelled on top.

    Semantic roles come from :mod:`mtstrata.layers.srl`, a labeller over the dependency layer;
    it needs tokens, lemmas, POS and dependencies from the backend.
    """
    want = frozenset(layers)
    srl = Layer.SRL in want
    base = (want - {Layer.SRL}) | {Layer.TOKENS}
    if srl:
        base |= {Layer.LEMMA, Layer.POS, Layer.DEP}
    provides = {"spacy": {Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER,
                          Layer.CHUNKS},
                "stanza": {Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER}}
    have = provides.get(options.annotator)
    if have is None:
        raise UnknownNameError("annotator", options.annotator, ANNOTATORS)
    missing = base - have
    if missing:
        others = [a for a, p in provides.items() if missing <= p]
        raise MissingLayerError(
            f"the annotator {options.annotator!r} does not provide the layer(s) "
            f"{', '.join(sorted(str(x) for x in missing))} that the requested metrics need. "
            + (f"Use --annotator {others[0]}." if others else "No installed annotator does; "
               "choose metrics that need other layers (see `mtstrata list metrics`)."))
    return base, srl


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
    base, with_srl = plan(layers, options)
    labeller = None
    if with_srl:
        try:
            from mtstrata.layers import srl as labeller
        except ImportError:
            raise MissingLayerError(
                "the layer srl (semantic roles) needs the semantic-role labeller "
                "mtstrata.layers.srl, which is not part of this build.") from None
    backend = _backend(options, base)
    sig = backend.signature + (f"+srl-{labeller.VERSION}" if labeller else "")
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
        for seg in backend.annotate(todo):
            if labeller is not None:
                seg = labeller.add_frames(seg)
            out[seg.text] = seg
            batch.append(seg)
            if len(batch) >= 1000:
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
