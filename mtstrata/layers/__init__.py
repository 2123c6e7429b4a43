"""Annotation layers: the Annotator protocol, backends and the annotation plan.

A run asks for the union of the layers its metrics require; :func:`annotate_texts` annotates
each distinct text once (through the cache) and returns a :class:`~mtstrata.segment.Segment` per
text. Importing this package must not import spaCy, stanza or torch: backends load lazily.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from mtstrata.errors import MissingLayerError
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


def annotate_texts(
    texts: Sequence[str], layers: Collection[Layer], options: AnnotationOptions | None = None
) -> tuple[dict[str, Segment], str]:
    """Annotate distinct ``texts`` with ``layers``; return ``{text: Segment}`` and the
    annotator signature that goes into every score's signature."""
    if not layers:
        return {t: Segment.from_text(t) for t in texts}, ""
    raise MissingLayerError(
        "the layers " + ", ".join(sorted(str(x) for x in layers)) + " need an annotator, and no "
        "annotation backend is installed in this build of mtstrata."
    )
