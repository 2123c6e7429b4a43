"""EMB-F, EMB-P, EMB-R: greedy maximum-cosine matching of contextual token vectors.

Zhang et al. (2020), "BERTScore: Evaluating Text Generation with BERT" (ICLR), with the
vectors of the ``emb`` layer (all-MiniLM-L6-v2, sub-word pieces mean-pooled onto sacreBLEU 13a
tokens; see :mod:`mtstrata.layers.embedding`). For hypothesis tokens ``x_i`` and reference
tokens ``y_j`` (unit vectors) and weights ``w`` (1, or idf)::

    P = Σ_i w(x_i) max_j x_i·y_j / Σ_i w(x_i)      R = Σ_j w(y_j) max_i x_i·y_j / Σ_j w(y_j)
    F = 2PR / (P + R)

``idf=yes``: ``w(t) = log((M + 1) / (df(t) + 1))`` over the M reference texts of the run
(BERTScore's formula; tokens compared lowercased), for both sides. No baseline rescaling (it
is linear, so correlations do not change). Several references: the one with the best segment
F is kept. Empty sides: both empty is a perfect match (one virtual matched token); one side
empty scores 0.

Statistics (additive): ``[p_sum, p_weight, r_sum, r_weight]`` of the kept reference. The
segment score is F (P, R) of its row; the **corpus score is F of the summed rows**, i.e. P and
R are ratios of sums over the corpus (weighted by token counts, or idf mass), not means of
segment scores. EMB-P and EMB-R are projections of the same statistics.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.embedding._common import EmbBase, Vectors
from mtstrata.metrics.prepared import Prepared
from mtstrata.segment import Segment

STATS = ("p_sum", "p_weight", "r_sum", "r_weight")


def prf(row: np.ndarray) -> tuple[float, float, float]:
    """P, R, F of a (summed) statistics row; an empty side gives 0."""
    p = row[0] / row[1] if row[1] > 0 else 0.0
    r = row[2] / row[3] if row[3] > 0 else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return float(p), float(r), float(f)


def match_stats(h: Vectors, r: Vectors, idf: dict[str, float] | None, default: float
                ) -> np.ndarray:
    """The statistics row of one hypothesis against one reference."""
    if not h.tokens and not r.tokens:
        return np.ones(4)
    wh = np.array([idf.get(t.lower(), default) for t in h.tokens] if idf is not None
                  else np.ones(len(h.tokens)))
    wr = np.array([idf.get(t.lower(), default) for t in r.tokens] if idf is not None
                  else np.ones(len(r.tokens)))
    if not h.tokens or not r.tokens:
        return np.array([0.0, wh.sum(), 0.0, wr.sum()])
    sim = np.clip(h.tok @ r.tok.T, -1.0, 1.0)
    return np.array([wh @ sim.max(axis=1), wh.sum(), wr @ sim.max(axis=0), wr.sum()])


@dataclass(frozen=True)
class EmbF(EmbBase):
    """Greedy max-cosine token matching F (see the module docstring).

    >>> EmbF().stat_names()
    ('p_sum', 'p_weight', 'r_sum', 'r_weight')
    """

    idf: bool = False

    name: ClassVar[str] = "EMB-F"
    part: ClassVar[str] = "F"
    statistics: ClassVar[tuple[str, ...]] = STATS

    @property
    def corpus_dependent(self) -> bool:  # idf weights come from the batch's references
        return self.idf

    def stats_family(self) -> type:
        return EmbF

    def _idf(self, refs: Prepared, rv: list[list[Vectors]]) -> dict[str, float]:
        """idf of each lowercased token over the reference texts of the run (built once)."""

        def build() -> dict[str, float]:
            texts = [v for rs in rv for v in rs]
            df = Counter(t for v in texts for t in {x.lower() for x in v.tokens})
            m = len(texts)
            return {t: math.log((m + 1) / (c + 1)) for t, c in df.items()}

        return refs.state(("emb-idf", self.model), build)

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        hv, rv, pr = self.sides(hyps, refs)
        idf: dict[str, float] | None = None
        default = 1.0
        if self.idf:
            idf = self._idf(pr, rv)
            n_texts = sum(len(rs) for rs in rv)
            default = math.log(n_texts + 1)  # a token no reference has (df = 0)
        rows = np.zeros((len(hv), len(STATS)))
        for i, (h, rs) in enumerate(zip(hv, rv, strict=True)):
            cands = [match_stats(h, r, idf, default) for r in rs]
            rows[i] = max(cands, key=lambda c: prf(c)[2])
        return rows

    def score(self, stats: np.ndarray) -> float:
        p, r, f = prf(np.asarray(stats, dtype=float))
        return {"P": p, "R": r, "F": f}[self.part]

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return np.array([self.score(row) for row in np.atleast_2d(stats)], dtype=float)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        p, r, f = prf(np.asarray(stats, dtype=float))
        return {"P": p, "R": r, "F": f}


@dataclass(frozen=True)
class EmbP(EmbF):
    name: ClassVar[str] = "EMB-P"
    part: ClassVar[str] = "P"


@dataclass(frozen=True)
class EmbR(EmbF):
    name: ClassVar[str] = "EMB-R"
    part: ClassVar[str] = "R"


_LAYERS = ("emb",)
REGISTRY.add("EMB-F", EmbF, "BERTScore-style F of greedy max-cosine token matching in the "
             "emb layer (idf=yes: idf weights from the references)", _LAYERS)
REGISTRY.add("EMB-P", EmbP, "precision of EMB-F's greedy token matching", _LAYERS)
REGISTRY.add("EMB-R", EmbR, "recall of EMB-F's greedy token matching", _LAYERS)
