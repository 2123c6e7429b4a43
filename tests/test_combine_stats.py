"""Statistics of mtstrata.combine against scipy and hand-computed values."""

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata.combine import significance as sig
from mtstrata.combine import stats

RNG = np.random.default_rng(0)
CASES = [
    (RNG.normal(size=12), RNG.normal(size=12)),
    (np.array([1, 2, 2, 3, 3, 3, 4.0]), np.array([2, 1, 2, 3, 5, 3, 4.0])),  # ties both sides
    (np.arange(9.0), np.arange(9.0) ** 3),
]


@pytest.mark.parametrize(("x", "y"), CASES)
def test_correlations_match_scipy(x, y):
    assert stats.pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y)[0])
    assert stats.spearman(x, y) == pytest.approx(scipy.stats.spearmanr(x, y)[0])
    assert stats.kendall(x, y) == pytest.approx(scipy.stats.kendalltau(x, y)[0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=3, max_size=20))
def test_kendall_property_vs_scipy(pairs):
    x, y = (np.array(v, float) for v in zip(*pairs, strict=True))
    ref = scipy.stats.kendalltau(x, y)[0]
    got = stats.kendall(x, y)
    assert (np.isnan(ref) and np.isnan(got)) or got == pytest.approx(ref)
    assert (stats.rankdata(x) == scipy.stats.rankdata(x)).all()


def test_pairwise_accuracy_hand():
    # human order a>b>c; metric swaps b,c -> pairs (a,b) ok, (a,c) ok, (b,c) wrong
    assert stats.pairwise_accuracy(np.array([3, 1, 2.0]), np.array([3, 2, 1.0])) == \
        pytest.approx(2 / 3)


def test_itemwise_and_flat_kendall():
    m = np.array([[1, 2, 3.0], [3, 2, 1.0], [1, 1, 1.0]])
    h = np.array([[1, 2, 3.0], [1, 2, 3.0], [1, 2, 3.0]])
    assert stats.kendall_itemwise(m, h) == pytest.approx(0.0)  # +1, -1, constant row skipped
    assert stats.kendall_flat(m, h) == pytest.approx(scipy.stats.kendalltau(m.ravel(),
                                                                             h.ravel())[0])


def test_bootstrap_ci_matches_scipy_percentile():
    x, y = RNG.normal(size=200), RNG.normal(size=200)
    y = x + y
    v, lo, hi = stats.bootstrap_ci(stats.pearson, x, y, n=2000, seed=1)
    ref = scipy.stats.bootstrap((x, y), lambda a, b: scipy.stats.pearsonr(a, b)[0],
                                paired=True, n_resamples=2000, method="percentile",
                                random_state=3)
    assert lo < v < hi
    assert lo == pytest.approx(ref.confidence_interval.low, abs=0.03)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=0.03)
    # non-vectorised path gives the same interval for the same seed
    slow = stats.bootstrap_ci(lambda a, b: stats.pearson(a, b), x, y, n=300, seed=1)
    fast = stats.bootstrap_ci(stats.pearson, x, y, n=300, seed=1)
    assert slow == pytest.approx(fast)


def test_compare_metrics_detects_better_metric():
    h = RNG.normal(size=300)
    good, bad = h + 0.3 * RNG.normal(size=300), h + 2 * RNG.normal(size=300)
    r = stats.compare_metrics(stats.pearson, good, bad, h, n=500, seed=2)
    assert r["delta"] > 0 and r["low"] > 0 and r["p"] < 0.01
    r2 = stats.compare_metrics(stats.pearson, bad, good, h, n=500, seed=2)
    assert r2["p"] > 0.99


def ratio(s):  # corpus score from summed (matches, total): a non-trivial ratio metric
    return float(s[0] / s[1])


def test_sign_test_vs_scipy():
    a = np.array([1, 2, 3, 4, 5, 6, 7, 8.0])
    b = np.array([0, 1, 2, 5, 4, 3, 7, 0.0])  # 6 wins, 1 loss, 1 tie
    r = sig.sign_test(a, b)
    assert (r["wins"], r["losses"], r["ties"]) == (6, 1, 1)
    assert r["p"] == pytest.approx(scipy.stats.binomtest(6, 7).pvalue)


def test_paired_bootstrap_and_ar():
    n = 400
    tot = np.full(n, 10.0)
    base = np.c_[RNG.binomial(10, 0.5, n), tot]
    better = np.c_[RNG.binomial(10, 0.6, n), tot]
    same = base.copy()
    r = sig.paired_bootstrap(ratio, base, {"better": better, "same": same}, n=500, seed=3)
    assert r["better"]["p"] < 0.01 and r["same"]["p"] == 1.0  # ties count as not better
    assert r["better"]["score"] == pytest.approx(better[:, 0].sum() / better[:, 1].sum())
    assert r["better"]["low"] < r["better"]["score"] < r["better"]["high"]
    assert sig.approximate_randomization(ratio, better, base, n=500, seed=4)["p"] < 0.01
    ar = sig.approximate_randomization(ratio, base, same, n=200, seed=4)
    assert ar["p"] == 1.0


def test_resample_counts_sum_to_n():
    c = sig.resample_counts(50, 20, seed=5)
    assert (c.sum(axis=1) == 50).all()
