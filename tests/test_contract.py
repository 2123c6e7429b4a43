"""The metric contract, checked for every registered metric (and every family example).

Each metric must: build with its defaults; round-trip its signature; give statistics of one
constant length; give the identical hypothesis its best score; keep statistics additive (the
batch rows equal the single-segment rows, and the score of a split corpus's summed statistics
equals the corpus score); and be deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata import metrics
from mtstrata.metrics.base import Metric
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
    corpus_dependent = getattr(m, "corpus_dependent", False)
    if not corpus_dependent:
        np.testing.assert_allclose(st, np.vstack(rows))
    assert np.isfinite(st).all()

    # additivity: a split corpus's summed statistics give the corpus score
    total = m.score(st.sum(axis=0))
    split = m.score(st[:2].sum(axis=0) + st[2:].sum(axis=0))
    assert split == pytest.approx(total, abs=1e-12)

    # identity is best: the identical hypothesis scores at least as well as any other one
    ident = m.stats_batch(segs, [[s] for s in segs])
    best = m.segment_scores(ident)
    other = m.segment_scores(st)
    better = np.greater_equal if m.higher_is_better else np.less_equal
    assert better(best, other).all(), (best, other)
    # METEOR's fragmentation penalty 0.5 * (1/m)^3 leaves identity slightly below 1, by an
    # amount that depends on the length: such metrics declare identity_depends_on_length
    if not corpus_dependent and not getattr(m, "identity_depends_on_length", False):
        assert np.allclose(best, best[0]), f"identity scores differ across segments: {best}"
    assert better(m.score(ident.sum(axis=0)), total)

    # determinism
    np.testing.assert_array_equal(m.stats_batch(segs, refs), st)
