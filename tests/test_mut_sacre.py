"""chrF's documented order rule (found by tools/mutation_sample.py)."""

from __future__ import annotations

import pytest
from sacrebleu.metrics.chrf import CHRF

from mtstrata import metrics
from mtstrata.segment import Segment

HYP = ["the cat sat on the mat", "a dog barked at the postman"]
REFS = ["the cat sat on a mat", "the dog barked at a postman"]


def test_word_orders_only_are_allowed_and_equal_sacrebleu():
    # "both must be >= 0 and at least one >= 1": char_order=0 counts word n-grams only
    m = metrics.create("chrf:char_order=0,word_order=2")
    stats = m.stats_batch([Segment.from_text(h) for h in HYP],
                          [[Segment.from_text(r)] for r in REFS])
    want = CHRF(char_order=0, word_order=2).corpus_score(HYP, [REFS]).score
    assert m.score(stats.sum(axis=0)) == pytest.approx(want, abs=1e-9)
