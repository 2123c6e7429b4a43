"""Overlap rules that no golden value reached (found by tools/mutation_sample.py)."""

from __future__ import annotations

import math

import pytest

from mtstrata import metrics
from mtstrata.segment import Layer, Segment
from tests.test_overlap import slide_pair


def test_macro_average_leaves_out_a_segment_with_no_roles_on_either_side():
    # METRICS.md §2: empty on both sides -> undefined, left out; the system score is the mean
    # of the defined segment scores. The slide pair scores (4/9 + 0 + 0 + 1 + 0) / 5 under
    # avg=macro; a pair with no frame on either side must not pull the mean towards 0.
    hyp, ref = slide_pair()
    bare = Segment.from_words("the rockets fell .", lemmas=["the", "rocket", "fall", "."]
                              ).with_layers(Layer.SRL)  # labelled: no predicate found
    m = metrics.create("SR-Or(*):avg=macro")
    stats = m.stats_batch([hyp, bare], [[ref], [bare]])
    seg = m.segment_scores(stats)
    assert seg[0] == pytest.approx((4 / 9 + 1) / 5, abs=1e-12)
    assert math.isnan(seg[1])
    assert m.score(stats.sum(axis=0)) == pytest.approx((4 / 9 + 1) / 5, abs=1e-12)
