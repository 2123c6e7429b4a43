"""chrF, chrF++ and TER: equal to sacreBLEU at corpus and sentence level (our statistics)."""

from __future__ import annotations

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics, scoring

WORDS = ["the", "The", "cat", "sat", "on", "mat", "a", "dog", ".", ",", "über", "naïve", "10",
         "cats", "mats", "(it)", "x"]
sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=12).map(" ".join)

SETTINGS = [
    ("chrf", sacrebleu.CHRF, {}),
    ("chrf++", sacrebleu.CHRF, {"word_order": 2}),
    ("chrf:lc=yes,beta=1", sacrebleu.CHRF, {"lowercase": True, "beta": 1}),
    ("chrf:eps=yes", sacrebleu.CHRF, {"eps_smoothing": True}),
    ("ter", sacrebleu.TER, {}),
    ("ter:case=yes,no_punct=yes", sacrebleu.TER, {"case_sensitive": True, "no_punct": True}),
]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), setting=st.sampled_from(SETTINGS), nrefs=st.integers(1, 3))
def test_equals_sacrebleu(data, setting, nrefs):
    spec, cls, kwargs = setting
    n = data.draw(st.integers(1, 5))
    hyps = data.draw(st.lists(sentence, min_size=n, max_size=n))
    refs = [data.draw(st.lists(sentence, min_size=n, max_size=n)) for _ in range(nrefs)]
    ref_metric = cls(**kwargs)
    run = scoring.compute({"s": hyps}, refs, [metrics.create(spec)])
    s = run.score("s", 0, sentence_level=True)
    assert s.value == pytest.approx(ref_metric.corpus_score(hyps, refs).score, abs=1e-9)
    theirs = [ref_metric.sentence_score(h, [r[i] for r in refs]).score
              for i, h in enumerate(hyps)]
    np.testing.assert_allclose(s.segments, theirs, rtol=0, atol=1e-9)


def test_ter_is_an_error_rate():
    assert metrics.create("ter").higher_is_better is False
    assert metrics.create("chrf").higher_is_better is True
