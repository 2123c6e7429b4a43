"""An empty output has no elements (found by tools/mutation_sample.py)."""

from __future__ import annotations

import pytest

from mtstrata import metrics
from mtstrata.segment import Layer, Segment
from tests.conftest import hand_segments


@pytest.mark.parametrize("spec", ["DP-Or(*)", "DP-Oc(*)", "DP-HWCM_w-4"])
def test_an_empty_hypothesis_side_counts_no_item_and_scores_zero(spec):
    # METRICS.md §2: one side empty -> 0 with the other side's count in the denominator. A
    # batch whose hypotheses are all empty (an empty system output) has no token at all.
    ref = hand_segments()[0]
    empty = Segment(text="", layers=frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS,
                                               Layer.DEP}))
    m = metrics.create(spec)
    stats = m.stats_batch([empty], [[ref]])
    names = m.stat_names()
    hyp_counts = [v for n, v in zip(names, stats[0], strict=True) if n.startswith("hyp")
                  or ":hyp" in n]
    assert hyp_counts and sum(hyp_counts) == 0
    assert m.score(stats.sum(axis=0)) == 0.0
