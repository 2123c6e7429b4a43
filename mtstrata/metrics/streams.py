"""BLEU over lemma and part-of-speech streams: ``SP-lBLEU`` and ``SP-pBLEU``.

Giménez & Màrquez (2010) and the WMT08 metrics table ("PoS-BLEU") apply BLEU (Papineni et al.
2002; METRICS.md §1.1) to the sequence of lemmas or of fine POS tags instead of the words. The
statistics are BLEU's additive ones, ``[hyp_len, ref_len, correct_1..4, total_1..4]`` with
clipping by the maximum count in any single reference and the closest reference length (ties:
the shorter); the score is sacreBLEU's ``BLEU.compute_bleu`` on their sum, so corpus scores
equal sacreBLEU's on the same streams.

Not here yet: ``SP-lNIST`` / ``SP-pNIST`` (NIST over the streams). They should reuse the
project's NIST implementation (mtstrata/metrics/nist.py), which had not landed when this was
written; asking for them gives an unknown-metric error rather than a substitute.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.helpers import extract_all_word_ngrams

from mtstrata.errors import MissingLayerError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.elements import no_gc
from mtstrata.segment import Layer, Segment

ORDER = 4
# n-grams per (attribute, segment object); the segment is kept so its id is not reused
_NGRAMS: dict[tuple[str, int], tuple[Segment, Counter, int]] = {}
_NGRAMS_MAX = 400_000


@dataclass(frozen=True)
class StreamBLEU(MetricBase):
    """BLEU over a stream of token attributes (lemmas or POS tags)."""

    smooth: Literal["none", "floor", "add-k", "exp"] = "exp"

    attr: ClassVar[str] = ""
    signature_exclude = frozenset()

    def _stream(self, seg: Segment) -> str:
        missing = self.requires - seg.layers
        if missing:
            raise MissingLayerError(
                f"{self.name} needs the layer(s) {', '.join(sorted(map(str, missing)))}; the "
                f"segment {seg.text[:60]!r} has none. Score through `mtstrata score`, which "
                "annotates."
            )
        vals = [getattr(t, self.attr) or "_" for t in seg.tokens]
        # lemmas are compared case-insensitively like the other LE metrics; tags as they are
        return " ".join(v.lower() for v in vals) if self.attr == "lemma" else " ".join(vals)

    def _ngrams(self, seg: Segment) -> tuple[Counter, int]:
        key = (self.attr, id(seg))
        hit = _NGRAMS.get(key)
        if hit is not None and hit[0] is seg:
            return hit[1], hit[2]
        ngrams, n = extract_all_word_ngrams(self._stream(seg), 1, ORDER)
        if len(_NGRAMS) >= _NGRAMS_MAX:
            _NGRAMS.clear()
        _NGRAMS[key] = (seg, ngrams, n)
        return ngrams, n

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        if not refs:
            raise ValueError("at least one reference is needed")
        h_ngrams, h_len = self._ngrams(hyp)
        clip: dict = {}
        ref_len = None
        if len(refs) == 1:  # nothing to merge: clip by the reference's own counts
            clip, ref_len = self._ngrams(refs[0])
        for r in refs if len(refs) > 1 else ():
            r_ngrams, r_len = self._ngrams(r)
            for g, c in r_ngrams.items():
                if c > clip.get(g, 0):
                    clip[g] = c
            # closest reference length, the shorter on ties (METRICS.md §1.1)
            if ref_len is None or (abs(r_len - h_len), r_len) < (abs(ref_len - h_len), ref_len):
                ref_len = r_len
        correct = [0] * ORDER
        total = [max(0, h_len - n) for n in range(ORDER)]
        for g, c in h_ngrams.items():
            correct[len(g) - 1] += min(c, clip.get(g, 0))
        return np.array([h_len, ref_len or 0, *correct, *total], dtype=float)

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        with no_gc():
            return super().stats_batch(hyps, refs)

    def score(self, stats: np.ndarray) -> float:
        s = [int(x) for x in stats]
        return BLEU.compute_bleu(s[2:2 + ORDER], s[2 + ORDER:], s[0], s[1],
                                 smooth_method=self.smooth).score / 100.0


@REGISTRY.register("SP-lBLEU", description="BLEU over the lemma stream", layers=("lemma",
                                                                                  "tokens"))
@dataclass(frozen=True)
class LemmaBLEU(StreamBLEU):
    name = "SP-lBLEU"
    attr = "lemma"
    requires = frozenset({Layer.TOKENS, Layer.LEMMA})


@REGISTRY.register("SP-pBLEU", description="BLEU over the fine POS tag stream (PoS-BLEU)",
                   layers=("pos", "tokens"))
@dataclass(frozen=True)
class PosBLEU(StreamBLEU):
    name = "SP-pBLEU"
    attr = "xpos"
    requires = frozenset({Layer.TOKENS, Layer.POS})
