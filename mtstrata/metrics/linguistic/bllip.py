"""Bllip: dependency-pair precision and recall (Pozar & Charniak 2006).

The dependency bag ``D`` of a sentence holds the unlabelled (head word, dependent word) pairs of
its parse, one per token: lower-cased, punctuation included, and the root's pair with the head
``ROOT``. Every score of the paper's appendix is ``k / sqrt(n_c · n_r)`` with ``n`` the number
of *tokens* (e.g. sentence 7: 4 / sqrt(8 · 6) = 0.57735), which only a bag holding the root's
pair gives. Against one reference::

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
from typing import ClassVar, Literal

import numpy as np

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.counts import pair_counts
from mtstrata.metrics.linguistic.elements import Extractor, Occurrences, Vocab, extractor
from mtstrata.metrics.linguistic.overlap import best_reference
from mtstrata.segment import Layer, Segment

_NAN = float("nan")
#: the head of a root's pair (words are lower-cased, so no word equals it)
ROOT = "ROOT"


@extractor("dep-pair", ("pair",), [Layer.TOKENS, Layer.DEP],
           "unlabelled (head, dependent) word pairs, one per token (head ROOT for a root)")
def DEP_PAIR(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    w = c.ids("words", vocab)
    heads = np.where(c.parent >= 0, w[np.maximum(c.parent, 0)], vocab[ROOT])
    return c.seg_of, np.zeros(len(w), dtype=np.int64), vocab.pairs(heads, w)


def bllip_array(hits: np.ndarray, hyp: np.ndarray, ref: np.ndarray, combine: str
                ) -> np.ndarray:
    """:func:`bllip_value` elementwise over arrays of counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        v = hits / np.sqrt(hyp * ref) if combine == "geometric" else 2.0 * hits / (hyp + ref)
    v = np.where((hyp <= 0) | (ref <= 0), 0.0, v)
    return np.where(hyp + ref > 0, v, _NAN)


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
    """Bllip with ``combine = geometric | f1`` and ``refs = best | average | worst | pooled``.

    >>> from mtstrata.segment import Segment
    >>> hyp = Segment.from_words("he has a ball", heads=[2, 0, 4, 2])
    >>> ref = Segment.from_words("he has the ball", heads=[2, 0, 4, 2])
    >>> m = Bllip()
    >>> m.score(m.stats(hyp, [ref]))  # (ROOT, has) (has, he) (has, ball) of 4 pairs each
    0.75
    """

    combine: Literal["geometric", "f1"] = "geometric"
    refs: Literal["best", "average", "worst", "pooled"] = "best"

    name = "Bllip"
    definition = 2  # 2 (mtstrata 0.2.0): the bags include the root's pair (paper appendix)
    statistics: ClassVar[tuple[str, ...]] = ("score_sum", "defined", "hits", "hyp", "ref")
    requires = frozenset({Layer.TOKENS, Layer.DEP})

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        pc = pair_counts(DEP_PAIR, hyps, refs, pooled=self.refs == "pooled")
        n = len(hyps)
        hits = pc.hits[:, :, 0].astype(float)
        ref = pc.ref[:, :, 0].astype(float)
        hyp = np.broadcast_to(pc.hyp[:, None, 0].astype(float), hits.shape)
        vals = bllip_array(hits, hyp, ref, self.combine)
        defined = pc.valid & ~np.isnan(vals)
        out = np.zeros((n, 5))
        out[:, 1] = defined.any(axis=1)
        rows = np.arange(n)
        if self.refs == "average":
            k = np.maximum(defined.sum(axis=1), 1)
            out[:, 0] = np.where(defined, vals, 0.0).sum(axis=1) / k
            for col, arr in ((2, hits), (3, hyp), (4, ref)):
                out[:, col] = np.where(defined, arr, 0.0).sum(axis=1) / k
            undefined = ~defined.any(axis=1)  # the counts of the first reference, as for max
            out[undefined, 2:] = np.stack([hits[undefined, 0], hyp[undefined, 0],
                                           ref[undefined, 0]], axis=1)
            return out
        b = best_reference(vals, pc.valid, "min" if self.refs == "worst" else "max")
        s = vals[rows, b]
        out[:, 0] = np.where(np.isnan(s), 0.0, s)
        out[:, 2], out[:, 3], out[:, 4] = hits[rows, b], hyp[rows, b], ref[rows, b]
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
