"""A layer of its own: ``word-lengths`` (the length of each token), its provider, its codec and
a metric that reads it, ``long-words``. Adding a layer kind is this one module: mtstrata plans
it, computes it from the tokens in the annotation workers (beside the parse), stores it with
its own codec (two bytes a token, not JSON), caches it keyed by its provider's signature and
names that signature (with this distribution's release) in the ``ann`` fact of the numbers it
feeds.

A plugin layer may read another: ``long-flags`` (1 for each token of 7 letters or more) is
computed from ``word-lengths``, after it, and keyed by both providers' signatures; the metric
``long-share`` (the hypothesis's share of such words) reads it."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.layers.provider import ComputedLayer
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.payloads import Codec, register_codec
from mtstrata.segment import ExtraLayer, Layer, Segment

WORD_LENGTHS = ExtraLayer("word-lengths")
LONG_FLAGS = ExtraLayer("long-flags")


class LengthsCodec(Codec):
    """``word-lengths`` as bytes: a magic, then each length as an unsigned 16-bit integer."""

    MAGIC = b"wl1"

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> bytes:
        return self.MAGIC + struct.pack(f"<{len(seg.value(layer))}H", *seg.value(layer))

    def decode(self, payload: str | bytes) -> list[int]:
        if not isinstance(payload, bytes) or not payload.startswith(self.MAGIC):
            raise ValueError("not a word-lengths payload")
        body = payload[len(self.MAGIC):]
        return list(struct.unpack(f"<{len(body) // 2}H", body))

    def valid(self, payload: object) -> bool:
        return (isinstance(payload, bytes) and payload.startswith(self.MAGIC)
                and len(payload) % 2 == len(self.MAGIC) % 2)


register_codec(WORD_LENGTHS, LengthsCodec())


@dataclass(frozen=True)
class WordLengths(ComputedLayer):
    """The provider of ``word-lengths`` (entry point group ``mtstrata.providers``): computed
    in the annotation workers (``runs``), read from the tokens."""

    name: ClassVar[str] = "word-lengths"
    version: ClassVar[str] = "1"
    needs: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS})

    runs: ClassVar[str] = "worker"

    def compute(self, segments: Sequence[Segment]) -> list[list[int]]:
        """The length of each token of each segment."""
        return [[min(len(t.form), 65535) for t in seg.tokens] for seg in segments]


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
class LongFlags(ComputedLayer):
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
