"""A layer of its own: ``word-lengths`` (the length of each token), its provider and a metric
that reads it, ``long-words``. Adding a layer kind is this one module: mtstrata plans it,
computes it from the tokens, caches it keyed by its provider's signature and names that
signature (with this distribution's release) in the ``ann`` fact of the numbers it feeds.

A plugin layer may read another: ``long-flags`` (1 for each token of 7 letters or more) is
computed from ``word-lengths``, after it, and keyed by both providers' signatures; the metric
``long-share`` (the hypothesis's share of such words) reads it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.segment import ExtraLayer, Layer, Segment

WORD_LENGTHS = ExtraLayer("word-lengths")
LONG_FLAGS = ExtraLayer("long-flags")


@dataclass(frozen=True)
class WordLengths:
    """The provider of ``word-lengths`` (entry point group ``mtstrata.layer_providers``)."""

    name: ClassVar[str] = "word-lengths"
    version: ClassVar[str] = "1"
    needs: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS})

    def compute(self, segments: Sequence[Segment]) -> list[list[int]]:
        """The length of each token of each segment."""
        return [[len(t.form) for t in seg.tokens] for seg in segments]


@REGISTRY.register("long-words", description="hypothesis over reference words of 7 letters "
                   "or more, from the word-lengths layer (plugin)")
@dataclass(frozen=True)
class LongWords(MetricBase):
    name: ClassVar[str] = "long-words"
    statistics: ClassVar[tuple[str, ...]] = ("hyp_long", "ref_long")
    higher_is_better: ClassVar[bool] = True
    requires: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS, WORD_LENGTHS})  # type: ignore[arg-type]

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        def long(seg: Segment) -> int:
            return sum(n >= 7 for n in seg.extra_layer(WORD_LENGTHS.value))

        return np.array([long(hyp), long(refs[0])], dtype=float)

    def score(self, stats: np.ndarray) -> float:
        return float(stats[0] / stats[1]) if stats[1] else 0.0


@dataclass(frozen=True)
class LongFlags:
    """The provider of ``long-flags``, read from the ``word-lengths`` layer."""

    name: ClassVar[str] = "long-flags"
    version: ClassVar[str] = "1"
    needs: ClassVar[frozenset[Layer]] = frozenset({WORD_LENGTHS})  # type: ignore[arg-type]

    def compute(self, segments: Sequence[Segment]) -> list[list[int]]:
        return [[int(n >= 7) for n in seg.extra_layer(WORD_LENGTHS.value)] for seg in segments]


@REGISTRY.register("long-share", description="share of the hypothesis's words of 7 letters "
                   "or more, from the long-flags layer (plugin)")
@dataclass(frozen=True)
class LongShare(MetricBase):
    name: ClassVar[str] = "long-share"
    statistics: ClassVar[tuple[str, ...]] = ("long", "words")
    higher_is_better: ClassVar[bool] = True
    requires: ClassVar[frozenset[Layer]] = frozenset({LONG_FLAGS})  # type: ignore[arg-type]

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        flags = hyp.extra_layer(LONG_FLAGS.value)
        return np.array([sum(flags), len(flags)], dtype=float)

    def score(self, stats: np.ndarray) -> float:
        return float(stats[0] / stats[1]) if stats[1] else 0.0
