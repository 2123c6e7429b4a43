"""``first-verb``: a toy role labeller: the first verb of a segment is its only predicate,
with the words before it as its A0."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from mtstrata.layers.provider import Labeller
from mtstrata.segment import Frame, Layer, Segment, Span


@dataclass(frozen=True)
class FirstVerbLabeller(Labeller):
    """The first verb as the only predicate, the words before it as its A0 (a toy)."""

    name: ClassVar[str] = "first-verb"
    version: ClassVar[str] = "1"
    needs: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS, Layer.POS})
    dep_scheme: ClassVar[str] = "clearnlp"
    languages: ClassVar[frozenset[str] | None] = None  # (any: it reads tags only)

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        out = []
        for seg in segments:
            verbs = [i for i, t in enumerate(seg.tokens) if (t.upos or "") == "VERB"]
            if not verbs:
                out.append(())
                continue
            v = verbs[0]
            args = (Span(0, v, "A0"),) if v else ()
            out.append((Frame(v, args),))
        return out
