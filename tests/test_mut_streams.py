"""Stream BLEU picks sacreBLEU's reference length (found by tools/mutation_sample.py)."""

from __future__ import annotations

import pytest
from sacrebleu.metrics.bleu import BLEU

from mtstrata import metrics
from mtstrata.segment import Segment


def _seg(lemmas: str) -> Segment:
    words = lemmas.split()
    return Segment.from_words(words, lemmas=words)


@pytest.mark.parametrize("refs", [("a b c d", "a b c d e f"), ("a b c d e f", "a b c d")])
def test_stream_bleu_takes_the_shorter_of_two_equally_close_references(refs):
    # sacreBLEU's closest reference length, the shorter on ties: a 5-lemma hypothesis between
    # references of 4 and 6 lemmas has ref_len 4, whatever the order of the references
    hyp = "a b c d x"
    m = metrics.create("SP-lBLEU")
    stats = m.stats_batch([_seg(hyp)], [[_seg(r) for r in refs]])
    assert stats[0, 1] == 4
    want = BLEU(tokenize="none").corpus_score([hyp], [[r] for r in refs])
    assert want.ref_len == 4
    assert m.score(stats.sum(axis=0)) == pytest.approx(want.score, abs=1e-9)
