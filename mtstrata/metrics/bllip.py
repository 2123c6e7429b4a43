"""Bllip: dependency-pair precision and recall (Pozar & Charniak 2006; METRICS.md §3).

The dependency bag ``D`` of a sentence holds the unlabelled (head word, dependent word) pairs of
its parse, lower-cased, punctuation included, the root left out. Against one reference::

    P = |D_c ∩ D_r| / |D_c|      R = |D_c ∩ D_r| / |D_r|      (multisets)
    score = sqrt(P · R) = |D_c ∩ D_r| / sqrt(|D_c| · |D_r|)     (combine=geometric, default)
    score = 2PR / (P + R)                                         (combine=f1)

Every score in the paper's appendix has the geometric form (e.g. 0.0836242 = 1/sqrt(11·13)).
Several references (``refs``): ``best`` (default), ``average``, ``worst`` of the per-reference
scores, or ``pooled``: a candidate pair matches if it is in any reference and recall is against
the multiset union of the references. Pooling favours short candidates, since the union grows
with every reference while the candidate does not (the brevity concern of the paper's §3).
The system score is the mean of the segment scores; a segment whose bags are both empty (one
word per sentence) is undefined and left out.

Statistics: ``[Σ segment score, defined segments, hits, |D_c|, |D_r|]``, the counts of the kept
reference (``average``: the mean counts over references), for the corpus P/R in ``details``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.elements import (
    EXTRACTORS,
    SEP,
    Bags,
    Item,
    _lower,
    extract,
    extractor,
    no_gc,
)
from mtstrata.metrics.overlap import counts, pool
from mtstrata.segment import Layer, Segment

_NAN = float("nan")
_ONE = {0: 0}  # the single type "pair" at position 0


@extractor("dep-pair", ("pair",), [Layer.TOKENS, Layer.DEP],
           "unlabelled (head, dependent) word pairs joined by SEP; roots left out")
def _pairs(seg: Segment) -> dict[str, list[Item]]:
    words = _lower(seg)
    return {"pair": [words[t.head - 1] + SEP + words[i]
                     for i, t in enumerate(seg.tokens) if t.head]}


def bllip_value(hits: float, hyp: float, ref: float, combine: str) -> float:
    """The per-reference score from the bag sizes (NaN if both bags are empty)."""
    if hyp + ref <= 0:
        return _NAN
    if hyp <= 0 or ref <= 0:
        return 0.0
    if combine == "geometric":
        return hits / math.sqrt(hyp * ref)
    return 2.0 * hits / (hyp + ref)


@REGISTRY.register("Bllip", description="dependency-pair precision/recall, geometric mean "
                   "(Pozar & Charniak 2006)", layers=("dep", "tokens"))
@dataclass(frozen=True)
class Bllip(MetricBase):
    """Bllip with ``combine = geometric | f1`` and ``refs = best | average | worst | pooled``."""

    combine: Literal["geometric", "f1"] = "geometric"
    refs: Literal["best", "average", "worst", "pooled"] = "best"

    name = "Bllip"
    requires = frozenset({Layer.TOKENS, Layer.DEP})

    def _row(self, hb: Bags, rbs: Sequence[Bags]) -> np.ndarray:
        if self.refs == "pooled":
            rbs = [pool(rbs)]
        per = [counts(hb, rb, _ONE, 1) for rb in rbs]
        vals = [bllip_value(*c, self.combine) for c in per]
        defined = [k for k, v in enumerate(vals) if v == v]
        if not defined:
            return np.array([0.0, 0.0, *per[0]])
        if self.refs == "average":
            return np.array([float(np.mean([vals[k] for k in defined])), 1.0,
                             *np.mean([per[k] for k in defined], axis=0)])
        pick = min if self.refs == "worst" else max
        k = pick(defined, key=lambda k: vals[k])  # first reference on ties
        return np.array([vals[k], 1.0, *per[k]])

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        if not refs:
            raise ValueError("at least one reference is needed")
        ex = EXTRACTORS["dep-pair"]
        return self._row(extract(ex, hyp), [extract(ex, r) for r in refs])

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        ex = EXTRACTORS["dep-pair"]
        out = np.zeros((len(hyps), 5))
        with no_gc():
            for i, (h, rs) in enumerate(zip(hyps, refs)):
                out[i] = self._row(extract(ex, h), [extract(ex, r) for r in rs])
        return out

    def score(self, stats: np.ndarray) -> float:
        return float(stats[0] / stats[1]) if stats[1] > 0 else _NAN

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        st = np.atleast_2d(stats)
        den = np.where(st[:, 1] > 0, st[:, 1], 1.0)
        return np.where(st[:, 1] > 0, st[:, 0] / den, _NAN)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """Corpus-level dependency-pair precision and recall of the kept references."""
        hits, hyp, ref = (float(x) for x in stats[2:5])
        return {"Bllip P": hits / hyp if hyp else _NAN, "Bllip R": hits / ref if ref else _NAN}
