"""SR-Mrs's documented threshold rule (found by tools/mutation_sample.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.metrics.linguistic.soft import soft_counts


@pytest.mark.parametrize("threshold, hits", [(0.6, 0.6), (0.59, 0.6), (0.61, 0.0)])
def test_a_pair_counts_when_its_cosine_is_at_least_the_threshold(threshold, hits):
    # soft.py: "a pair counts its cosine as a (soft) hit when the cosine is at least
    # threshold"; unit vectors (1, 0) and (0.6, 0.8) have cosine 0.6 exactly
    h = {"A1": np.array([[1.0, 0.0]])}
    r = {"A1": np.array([[0.6, 0.8]])}
    assert soft_counts(h, r, threshold) == (pytest.approx(hits, abs=1e-15), 1.0, 1.0)
