"""Meta-evaluation statistics rules that no test reached (found by tools/mutation_sample.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.meta.bootstrap import bootstrap_ci, compare_metrics
from mtstrata.meta.stats import pearson


def test_paired_scores_of_different_lengths_are_refused_with_the_reason():
    # metric and human scores are paired item by item: a length mismatch is a clear error,
    # for two arrays (bootstrap_ci) and for three (compare_metrics), never a numpy traceback
    a, b = np.arange(5.0), np.arange(4.0)
    with pytest.raises(ValueError, match="differ in length"):
        bootstrap_ci(pearson, a, b, n=10)
    with pytest.raises(ValueError, match="differ in length"):
        compare_metrics(pearson, a, a, b, n=10)
