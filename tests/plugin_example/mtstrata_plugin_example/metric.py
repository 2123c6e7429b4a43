"""``length-ratio``: the corpus's hypothesis words over its (first) reference words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.segment import Segment


@REGISTRY.register("length-ratio", description="hypothesis words / reference words (plugin)")
@dataclass(frozen=True)
class LengthRatio(MetricBase):
    name: ClassVar[str] = "length-ratio"
    statistics: ClassVar[tuple[str, ...]] = ("hyp_words", "ref_words")
    higher_is_better: ClassVar[bool] = True

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        return np.array([len(hyp.text.split()), len(refs[0].text.split())], dtype=float)

    def score(self, stats: np.ndarray) -> float:
        return float(stats[0] / stats[1]) if stats[1] else 0.0
