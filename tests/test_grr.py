"""4-GRR (Chiang et al. 2008): hand-computed paths, WRR at order 1, decomposability."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics
from mtstrata.metrics.grr import grr_denominator, grr_numerator, grr_numerators
from mtstrata.segment import Segment


def _seg(text: str) -> Segment:
    return Segment.from_words(text.split())


@pytest.mark.parametrize(
    ("hyp", "ref", "order", "alpha", "beta", "num"),
    [
        # identity: 4 unigrams + 3 bigrams + 2 trigrams + 1 4-gram = 1+2+3+4
        ("a b c d", "a b c d", 4, 1.0, 0.0, 10),
        # insertion of x breaks the run: a(1) b(2) x(-1) c(1) d(2)
        ("a b x c d", "a b c d", 4, 1.0, 0.0, 5),
        ("a b x c d", "a b c d", 4, 2.5, 0.0, 3.5),
        # deletion of c: a(1) b(2) del(-β) d(1)
        ("a b d", "a b c d", 4, 1.0, 0.0, 4),
        ("a b d", "a b c d", 4, 1.0, 1.0, 3),
        # with a large β, substituting d for c and deleting d beats... nothing: 3 - β < 4 - β
        ("a b d", "a b c d", 4, 1.0, 5.0, -1),
        # substitution keeps position: a(1) y(0) c(1) d(2)
        ("a y c d", "a b c d", 4, 1.0, 0.0, 4),
        # order 2 caps the run weight at 2: a(1) b(2) c(2) d(2)
        ("a b c d", "a b c d", 2, 1.0, 0.0, 7),
        # empty hypothesis: all deletions
        ("", "a b c", 4, 1.0, 0.5, -1.5),
        # swapped words: two substitutions (0) tie with insert b, match a, delete b (-1+1+0)
        ("b a", "a b", 4, 1.0, 0.0, 0),
        ("b a", "a b", 4, 0.0, 0.0, 1),
    ],
)
def test_hand_computed(hyp, ref, order, alpha, beta, num):
    assert grr_numerator(hyp.split(), ref.split(), order, alpha, beta) == pytest.approx(num)


@pytest.mark.parametrize(("n", "order", "den"), [(4, 4, 10), (2, 4, 3), (0, 4, 0), (5, 1, 5)])
def test_denominator(n, order, den):
    assert grr_denominator(n, order) == den


def test_identity_is_one():
    m = metrics.create("4-GRR")
    for text in ["the cat sat on the mat .", "a", "x y x y x y"]:
        assert m.score(m.stats(_seg(text), [_seg(text)])) == pytest.approx(1.0)


def test_names_and_signature():
    m = metrics.create("grr:alpha=2.0,order=3")
    assert m.display_name() == "4-GRR"
    again = metrics.from_signature(m.signature())
    assert again == m
    assert metrics.create("4-GRR") == metrics.create("grr")


words = st.lists(st.sampled_from(list("abcde")), max_size=9)


@settings(max_examples=150, deadline=None)
@given(hyp=words, ref=words)
def test_order_one_equals_wrr(hyp, ref):
    """With N = 1, α = 1, β = 0 the numerator is |r| - WER: the team's WRR metric."""
    grr = metrics.create("grr:order=1")
    wrr = metrics.create("wrr")
    h, r = Segment.from_words(hyp), Segment.from_words(ref)
    sg, sw = grr.stats(h, [r]), wrr.stats(h, [r])
    assert sg[1] == sw[1]
    assert sg[0] == pytest.approx(sw[1] - sw[0])
    if ref:
        assert grr.score(sg) == pytest.approx(wrr.score(sw), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(hyp=words, ref=words)
def test_brute_force_small(hyp, ref):
    """The Viterbi equals an independent recursion over alignments with explicit run lengths."""
    from functools import cache

    a, b, n = 1.0, 0.5, 3

    @cache
    def best(j: int, i: int, run: int) -> float:
        # j hypothesis words read, i reference words read, run = current match run length
        if j == len(hyp) and i == len(ref):
            return 0.0
        opts = []
        if j < len(hyp) and i < len(ref):
            gain = min(run + 1, n) if hyp[j] == ref[i] else None
            if gain is not None:
                opts.append(gain + best(j + 1, i + 1, run + 1))
            opts.append(best(j + 1, i + 1, 0))
        if j < len(hyp):
            opts.append(-a + best(j + 1, i, 0))
        if i < len(ref):
            opts.append(-b + best(j, i + 1, 0))
        return max(opts)

    assert grr_numerator(hyp, ref, n, a, b) == pytest.approx(best(0, 0, 0))


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(-20, 40), st.integers(1, 40)), min_size=1, max_size=8),
    k=st.integers(0, 7),
    gain=st.integers(1, 10),
)
def test_decomposable(rows, k, gain):
    """Raising one segment's score (its numerator) never lowers the corpus score."""
    m = metrics.create("4-GRR")
    st_ = np.array(rows, dtype=float)
    before = m.score(st_.sum(axis=0))
    st_[k % len(rows), 0] += gain
    after = m.score(st_.sum(axis=0))
    assert after >= before
    # the corpus score is the denominator-weighted mean of the segment scores
    w = st_[:, 1] / st_[:, 1].sum()
    assert after == pytest.approx(float((m.segment_scores(st_) * w).sum()))


def test_multi_reference_takes_best():
    m = metrics.create("4-GRR")
    h = _seg("a b c d")
    s = m.stats(h, [_seg("x y z"), _seg("a b c d")])
    assert m.score(s) == pytest.approx(1.0)


def test_bad_parameters():
    from mtstrata.errors import MtstrataError

    with pytest.raises(MtstrataError):
        metrics.create("grr:order=0")
    with pytest.raises(MtstrataError):
        metrics.create("grr:alpha=-1")


@settings(max_examples=40, deadline=None)
@given(pairs=st.lists(st.tuples(words, words), max_size=12), order=st.integers(1, 4),
       beta=st.sampled_from([0.0, 0.5, 2.0]))
def test_batch_equals_single(pairs, order, beta):
    got = grr_numerators(pairs, order, 1.0, beta, block=5)
    want = [grr_numerator(h, r, order, 1.0, beta) for h, r in pairs]
    np.testing.assert_allclose(got, want)
