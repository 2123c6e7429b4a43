"""The Annotator protocol and the annotation plan.

An annotator declares the layers it ``provides``; metrics declare the layers they ``require``
(:class:`~mtstrata.segment.Layer`). :func:`plan` turns the union of the required layers into
the work of one backend (spaCy or stanza) plus, when semantic roles are asked for, the
semantic-role labeller of :mod:`mtstrata.layers.srl` run over the backend's dependency layer.
It fails before any model is loaded when no installed annotator provides a requested layer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol, runtime_checkable

from mtstrata.errors import MissingLayerError, UnknownNameError
from mtstrata.segment import Layer, Segment

#: What each backend can fill (checked before a model is loaded).
BACKEND_PROVIDES: dict[str, frozenset[Layer]] = {
    "spacy": frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER,
                        Layer.CHUNKS}),
    "stanza": frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER}),
}
ANNOTATORS = tuple(BACKEND_PROVIDES)
#: The layers the semantic-role labeller reads.
SRL_NEEDS = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP})


@runtime_checkable
class Annotator(Protocol):
    """A backend that turns raw texts into annotated segments.

    Attributes:
        name: Short name (``spacy``, ``stanza``).
        provides: Layers this annotator can fill.
        signature: Identifies backend version, model, model version and the components that
            run; it keys the cache and goes into every score signature.
    """

    name: str
    provides: frozenset[Layer]
    signature: str

    def annotate(self, texts: Sequence[str]) -> Iterator[Segment]:
        """Yield one :class:`Segment` per text, in order."""
        ...


@dataclass(frozen=True)
class Plan:
    """What a run must do: the backend layers, and whether semantic roles go on top."""

    annotator: str
    backend_layers: frozenset[Layer]
    srl: bool


def plan(layers: Collection[Layer], annotator: str) -> Plan:
    """Plan the annotators for ``layers``.

    Args:
        layers: The union of the layers the requested metrics require.
        annotator: The backend name (``spacy`` or ``stanza``).

    Returns:
        The :class:`Plan`.

    Raises:
        UnknownNameError: ``annotator`` is not a backend.
        MissingLayerError: no installed annotator provides one of ``layers``.
    """
    have = BACKEND_PROVIDES.get(annotator)
    if have is None:
        raise UnknownNameError("annotator", annotator, ANNOTATORS)
    want = frozenset(layers)
    srl = Layer.SRL in want
    base = (want - {Layer.SRL}) | {Layer.TOKENS}
    if srl:
        base |= SRL_NEEDS
    missing = base - have
    if missing:
        others = [a for a, p in BACKEND_PROVIDES.items() if missing <= p]
        raise MissingLayerError(
            f"the annotator {annotator!r} does not provide the layer(s) "
            f"{', '.join(sorted(str(x) for x in missing))} that the requested metrics need. "
            + (f"Use --annotator {others[0]}." if others else
               "No installed annotator does; choose metrics that need other layers "
               "(see `mtstrata list metrics`)."))
    return Plan(annotator, base, srl)


def load_srl() -> ModuleType:
    """The semantic-role labeller module (imported lazily: it is optional in a build).

    Raises:
        MissingLayerError: :mod:`mtstrata.layers.srl` is not available.
    """
    try:
        from mtstrata.layers import srl
    except ImportError as e:
        raise MissingLayerError(
            "the layer srl (semantic roles) needs the semantic-role labeller "
            f"mtstrata.layers.srl, which cannot be imported in this build ({e}). Choose metrics "
            "that do not need srl, or install a build that includes it.") from None
    if not hasattr(srl, "label_frames"):
        raise MissingLayerError("mtstrata.layers.srl has no label_frames(); the semantic-role "
                                "labeller of this build is incomplete.")
    return srl


def srl_signature(srl: ModuleType) -> str:
    """The labeller's part of the annotator signature (its version string)."""
    return f"srl-{getattr(srl, 'SRL_VERSION', getattr(srl, 'VERSION', 'unversioned'))}"


def add_frames(seg: Segment, srl: ModuleType) -> Segment:
    """``seg`` with the labeller's frames and :attr:`Layer.SRL` declared (even if no frame)."""
    frames = tuple(srl.label_frames(seg))
    return dataclasses.replace(seg, frames=frames, layers=seg.layers | {Layer.SRL})
