"""The metric contract, checked for every registered metric (and every family example).

Each metric must: build with its defaults; round-trip its signature; give statistics of one
constant length; give the identical hypothesis its best score; keep statistics additive (the
batch rows equal the single-segment rows, and the score of a corpus split in two and scored
part by part, statistics summed, equals the corpus score); and be deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.metrics.base import Metric
from mtstrata.segment import Segment
from tests.conftest import hand_segments


def all_specs() -> list[str]:
    specs = []
    for e in metrics.REGISTRY.entries():
        specs.extend(e.examples if e.pattern is not None else [e.name])
    return sorted(set(specs))


SPECS = all_specs()


def build(spec: str) -> Metric:
    m = metrics.create(spec)
    return m


def test_there_are_metrics():
    assert len(SPECS) >= 1


@pytest.mark.parametrize("spec", SPECS)
def test_signature_round_trips(spec):
    m = build(spec)
    again = metrics.from_signature(m.signature())
    assert again.signature() == m.signature()
    assert again == m


@pytest.mark.parametrize("spec", SPECS)
def test_contract(spec):
    m = build(spec)
    segs = hand_segments()
    n = len(segs)
    # hypothesis i scored against reference (i + 1) % n: different sentences
    refs = [[segs[(i + 1) % n]] for i in range(n)]
    st = m.stats_batch(segs, refs)
    assert st.shape[0] == n and st.ndim == 2
    rows = [np.asarray(m.stats(h, r), dtype=float) for h, r in zip(segs, refs)]
    assert {r.shape for r in rows} == {(st.shape[1],)}, "stats length must be constant"
    # metrics whose statistics depend on the batch's reference corpus (NIST's information
    # weights) are additive given that corpus, but a lone segment has other weights
    caps = m.capabilities()
    corpus_dependent = caps.corpus_dependent
    if not corpus_dependent:
        np.testing.assert_allclose(st, np.vstack(rows))
    assert np.isfinite(st).all()

    # additivity: the statistics of a corpus split in two, each part computed on its own
    # (two runs), summed, give the score of the whole corpus computed at once
    total = m.score(st.sum(axis=0))
    if not corpus_dependent:
        head = m.stats_batch(segs[:2], refs[:2])
        tail = m.stats_batch(segs[2:], refs[2:])
        split = m.score(head.sum(axis=0) + tail.sum(axis=0))
        assert split == pytest.approx(total, abs=1e-12), (split, total)
        one_by_one = m.score(np.vstack(rows).sum(axis=0))
        assert one_by_one == pytest.approx(total, abs=1e-12), (one_by_one, total)

    # identity is best: the identical hypothesis scores at least as well as any other one
    ident = m.stats_batch(segs, [[s] for s in segs])
    best = m.segment_scores(ident)
    other = m.segment_scores(st)
    better = np.greater_equal if m.higher_is_better else np.less_equal
    # a family restricted to one element type (NE-Mes(PERSON)) is undefined (NaN, left out of
    # the mean as in Asiya) on a segment where neither side has that type: identity is
    # compared where it is defined, which must be somewhere
    defined = ~np.isnan(best)
    assert defined.any(), f"identity is undefined on every segment: {best}"
    assert better(best[defined], other[defined]).all(), (best, other)
    # METEOR's fragmentation penalty 0.5 * (1/m)^3 leaves identity slightly below 1, by an
    # amount that depends on the length: such metrics declare identity_depends_on_length
    if not corpus_dependent and not caps.identity_depends_on_length:
        assert np.allclose(best[defined], best[defined][0]), (
            f"identity scores differ across segments: {best}")
    assert better(m.score(ident.sum(axis=0)), total)

    # determinism
    np.testing.assert_array_equal(m.stats_batch(segs, refs), st)


@pytest.mark.parametrize("spec", SPECS)
def test_statistics_have_names(spec):
    m = build(spec)
    segs = hand_segments()
    names = m.stat_names()
    assert len(names) == len(set(names)), f"duplicate statistic names: {names}"
    assert m.stats_batch(segs, [[s] for s in segs]).shape[1] == len(names)


PROJECTED = [
    ("bleu:max_order=2", "bleu"), ("bleu:smooth=floor,max_order=3", "bleu:smooth=exp"),
    ("bleu-sbp:max_order=2", "bleu-sbp"), ("nist:max_order=3", "nist"),
    ("chrf:char_order=3,beta=1", "chrf"), ("chrf", "chrf++"),
    ("SP-pBLEU:smooth=floor", "SP-pBLEU"),
]


@pytest.mark.parametrize("variant, base", PROJECTED)
def test_declared_projections_equal_own_statistics(variant, base):
    # the named columns of the base are exactly the variant's own statistics, on real-looking
    # data and on hypotheses all shorter than their references (where a guess by values went
    # wrong: bleu-sbp's sbp_min column equals hyp_len there)
    from mtstrata.metrics.base import projection

    v, b = build(variant), build(base)
    cols = projection(v, b)
    assert cols is not None
    segs = hand_segments()
    cases = [(segs, [[segs[(i + 1) % len(segs)]] for i in range(len(segs))])]
    if not v.requires:
        cases.append(([Segment.from_text(s.text) for s in segs],
                      [[Segment.from_text(s.text + " and then some more words")] for s in segs]))
    for hyps, refs in cases:
        np.testing.assert_array_equal(b.stats_batch(hyps, refs)[:, cols],
                                      v.stats_batch(hyps, refs))


@pytest.mark.parametrize("a, b", [("bleu:ref_length=shortest", "bleu"), ("bleu", "bleu-sbp"),
                                  ("chrf:lc=yes", "chrf++"), ("4-GRR:order=2", "4-GRR"),
                                  ("tBLEU", "bleu"), ("SP-Op(NN)", "SP-Op(*)")])
def test_no_projection_across_statistics(a, b):
    from mtstrata.metrics.base import projection

    assert projection(build(a), build(b)) is None
