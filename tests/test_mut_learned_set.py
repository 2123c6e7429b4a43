"""A learned set combines each level with that level's model (found by
tools/mutation_sample.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.metrics.learned_set import LearnedSet, Level
from mtstrata.metrics.setfile import Norm


def test_each_level_uses_its_own_normalisations_and_weights():
    # learned(t) = sum_m w_m * norm_m(m(t)), norm_m = (x - low) / (high - low), per level
    seg = Level((Norm("bleu", 0.0, 100.0), Norm("ter", 0.0, 2.0, False)), (0.25, 0.75), 1.0)
    sys_ = Level((Norm("bleu", 10.0, 30.0), Norm("ter", 0.5, 1.0, False)), (0.6, 0.1), 1.0)
    ls = LearnedSet(seg, sys_)
    scores = {"bleu": np.array([20.0, 30.0]), "ter": np.array([0.8, 0.5])}
    assert ls.combine(scores, "seg") == pytest.approx(
        [0.25 * 0.2 + 0.75 * (1 - 0.4), 0.25 * 0.3 + 0.75 * (1 - 0.25)])
    assert ls.combine(scores, "sys") == pytest.approx(
        [0.6 * 0.5 + 0.1 * (1 - 0.6), 0.6 * 1.0 + 0.1 * (1 - 0.0)])
    assert ls.combine(scores) == pytest.approx(ls.combine(scores, "seg"))  # the default
