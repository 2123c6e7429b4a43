"""Statistics of mtstrata.combine against scipy and hand-computed values."""

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata.meta import bootstrap, stats
from mtstrata.meta import significance as sig

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
    v, lo, hi = bootstrap.bootstrap_ci(stats.pearson, x, y, n=2000, seed=1)
    ref = scipy.stats.bootstrap((x, y), lambda a, b: scipy.stats.pearsonr(a, b)[0],
                                paired=True, n_resamples=2000, method="percentile",
                                random_state=3)
    assert lo < v < hi
    assert lo == pytest.approx(ref.confidence_interval.low, abs=0.03)
    assert hi == pytest.approx(ref.confidence_interval.high, abs=0.03)
    # non-vectorised path gives the same interval for the same seed
    slow = bootstrap.bootstrap_ci(lambda a, b: stats.pearson(a, b), x, y, n=300, seed=1)
    fast = bootstrap.bootstrap_ci(stats.pearson, x, y, n=300, seed=1)
    assert slow == pytest.approx(fast)


def test_compare_metrics_detects_better_metric():
    h = RNG.normal(size=300)
    good, bad = h + 0.3 * RNG.normal(size=300), h + 2 * RNG.normal(size=300)
    r = bootstrap.compare_metrics(stats.pearson, good, bad, h, n=500, seed=2)
    assert r.delta > 0 and r.low > 0 and r.p < 0.01
    r2 = bootstrap.compare_metrics(stats.pearson, bad, good, h, n=500, seed=2)
    assert r2.p > 0.99


def ratio(s):  # corpus score from summed (matches, total): a non-trivial ratio metric
    return float(s[0] / s[1])


def test_sign_test_vs_scipy():
    a = np.array([1, 2, 3, 4, 5, 6, 7, 8.0])
    b = np.array([0, 1, 2, 5, 4, 3, 7, 0.0])  # 6 wins, 1 loss, 1 tie
    r = sig.sign_test(a, b)
    assert (r.wins, r.losses, r.ties) == (6, 1, 1)
    assert r.p == pytest.approx(scipy.stats.binomtest(6, 7).pvalue)
    assert r.p == pytest.approx(2 * (1 + 7) / 2**7, rel=1e-12)  # 2 P(X <= 1), X ~ B(7, 1/2)


@pytest.mark.parametrize("wins, losses", [(0, 0), (3, 3), (0, 12), (40, 9), (200, 170)])
def test_sign_test_is_scipys_binomtest_and_the_exact_binomial(wins, losses):
    from math import comb

    a = np.r_[np.ones(wins), np.zeros(losses), np.full(5, 0.5)]
    b = np.full(len(a), 0.5)
    r = sig.sign_test(a, b)
    m, k = wins + losses, min(wins, losses)
    assert (r.wins, r.losses, r.ties) == (wins, losses, 5)
    exact = min(1.0, 2 * sum(comb(m, i) for i in range(k + 1)) / 2**m) if m else 1.0
    assert r.p == pytest.approx(exact, rel=1e-12)
    if m:
        assert r.p == scipy.stats.binomtest(wins, m, 0.5).pvalue


def test_paired_bootstrap_and_ar():
    n = 400
    tot = np.full(n, 10.0)
    base = np.c_[RNG.binomial(10, 0.5, n), tot]
    better = np.c_[RNG.binomial(10, 0.6, n), tot]
    same = base.copy()
    r = sig.paired_bootstrap(ratio, base, {"better": better, "same": same}, n=500, seed=3)
    assert r["better"].p_two_sided < 0.01 and r["same"].p_two_sided == pytest.approx(1 / 501)
    assert r["better"].p_one_sided < 0.01 and r["same"].p_one_sided == 1.0  # ties: not better
    assert r["better"].score == pytest.approx(better[:, 0].sum() / better[:, 1].sum())
    assert r["better"].low < r["better"].score < r["better"].high
    assert sig.approximate_randomization(ratio, better, base, n=500, seed=4).p < 0.01
    ar = sig.approximate_randomization(ratio, base, same, n=200, seed=4)
    # sacreBLEU's strict ">" (multeval's): a zero difference is never attributed to chance
    assert ar.p == pytest.approx(1 / 201)


def test_resample_counts_sum_to_n():
    c = sig.resample_counts(50, 20, seed=5)
    assert (c.sum(axis=1) == 50).all()


# --- degenerate data: undefined statistics are NaN, nothing raises or warns ----------------
NAN = float("nan")
DEGENERATE = {
    "no items": (np.empty(0), np.empty(0)),
    "one item": (np.array([1.0]), np.array([2.0])),
    "constant metric": (np.full(6, 0.3), np.arange(6.0)),
    "constant human": (np.arange(6.0), np.full(6, 0.1)),
    "all NaN": (np.full(5, NAN), np.arange(5.0)),
    "one pair without NaN": (np.array([1.0, NAN, 3.0]), np.array([NAN, 2.0, 1.0])),
}


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("case", DEGENERATE)
def test_degenerate_inputs_are_nan(case):
    x, y = DEGENERATE[case]
    for name in ("pearson", "spearman", "kendall", "kendall_c"):
        assert np.isnan(stats.STATISTICS[name](x, y)), name
    assert np.isnan(stats.kendall_itemwise(x, y))
    assert np.isnan(stats.kendall_grouped(x, y, np.zeros(len(x))))
    if case not in ("constant metric", "constant human"):  # mt-metrics-eval's Agreement:
        assert np.isnan(stats.pairwise_accuracy(x, y))    # a one-sided tie disagrees, 0 there
    for stat in (stats.pearson, stats.kendall):
        assert all(np.isnan(bootstrap.bootstrap_ci(stat, x, y, n=50)))
    r = bootstrap.compare_metrics(stats.pearson, x, y, y, n=50)
    assert all(np.isnan(getattr(r, k)) for k in ("delta", "low", "high", "p"))


@pytest.mark.filterwarnings("error")
def test_constant_metric_against_varying_humans():
    m, h = np.full(4, 2.0), np.array([1, 2, 3, 3.0])
    # mt-metrics-eval's Agreement: the pair both tie agrees, the 5 the metric alone ties do not
    assert stats.pairwise_accuracy(m, h) == pytest.approx(1 / 6)
    # ties in both variables count as agreement in tau_23 / acc23 (1 of 6 pairs)
    assert stats.kendall(m, h, "acc23") == pytest.approx(1 / 6)
    assert stats.kendall(m, h, "23") == pytest.approx((1 - 5) / 6)


@pytest.mark.filterwarnings("error")
def test_nan_pairs_are_left_out():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=40), rng.normal(size=40)
    xn, yn = x.copy(), y.copy()
    xn[[3, 8]] = NAN
    yn[[8, 20, 31]] = NAN
    keep = ~(np.isnan(xn) | np.isnan(yn))
    for name, f in stats.STATISTICS.items():
        assert f(xn, yn) == pytest.approx(f(x[keep], y[keep]), abs=1e-12), name
    assert bootstrap.bootstrap_ci(stats.pearson, xn, yn, n=100) == \
        bootstrap.bootstrap_ci(stats.pearson, x[keep], y[keep], n=100)
    assert bootstrap.compare_metrics(stats.kendall, xn, x, yn, n=50) == \
        bootstrap.compare_metrics(stats.kendall, x[keep], x[keep], y[keep], n=50)
    # item-wise: NaN cells are left out within their row
    m = np.array([[1, 2, NAN, 3.0], [3, 2, 1, NAN]])
    h = np.array([[1, 2, 3, 4.0], [NAN, NAN, 1, 2.0]])  # row 2 keeps one pair: undefined
    assert stats.kendall_itemwise(m, h) == pytest.approx(1.0)
    assert stats.kendall_grouped(m.ravel(), h.ravel(), [0, 0, 0, 0, 1, 1, 1, 1]) == \
        pytest.approx(1.0)


@pytest.mark.filterwarnings("error")
def test_bootstrap_undefined_on_every_resample():
    # defined on the full sample, undefined on any resample holding an item twice (all of
    # them for 60 items): formerly an IndexError in np.quantile
    def distinct_only(a, b):
        return stats.pearson(a, b) if np.unique(a).size == a.size else NAN

    x = np.arange(60.0)
    v, lo, hi = bootstrap.bootstrap_ci(distinct_only, x, x ** 2, n=200)
    assert v == pytest.approx(stats.pearson(x, x ** 2)) and np.isnan(lo) and np.isnan(hi)
    r = bootstrap.compare_metrics(distinct_only, x, -x, x ** 2, n=200)
    assert r.delta > 0 and np.isnan(r.low) and np.isnan(r.p)
    # a metric with NaN everywhere but one value (NE-* on data without names)
    ne = np.full(60, NAN)
    ne[5] = 1.0
    assert all(np.isnan(bootstrap.bootstrap_ci(stats.pearson, ne, x, n=100)))


def test_bootstrap_parameters():
    x = np.arange(10.0)
    assert bootstrap.bootstrap_ci(stats.pearson, x, x, n=0)[1:] == pytest.approx((NAN, NAN),
                                                                             nan_ok=True)
    for bad in ({"n": -1}, {"alpha": 0.0}, {"alpha": 1.5}):
        with pytest.raises(ValueError):
            bootstrap.bootstrap_ci(stats.pearson, x, x, **bad)
    with pytest.raises(ValueError):
        stats.kendall(x, x, variant="d")


@pytest.mark.filterwarnings("error")
def test_infinite_values():
    x, y = np.array([1, 2, np.inf, 4.0]), np.array([1, 2, 3, 4.0])
    assert np.isnan(stats.pearson(x, y))
    assert stats.kendall(x, y) == pytest.approx(scipy.stats.kendalltau([1, 2, 5, 4], y)[0])
