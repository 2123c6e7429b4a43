"""Pearson equals scipy.stats.pearsonr on sane data and stays exact for scores scaled by 1e300
(the old code overflowed silently); coefficients and bootstrap bounds never leave [-1, 1]."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from mtstrata.meta import bootstrap, stats


@pytest.mark.parametrize("seed", range(5))
def test_pearson_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=40)
    y = 0.5 * x + rng.normal(size=40)
    want = scipy.stats.pearsonr(x, y).statistic
    assert stats.pearson(x, y) == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("scale", [1e300, 1e-300, 1e150])
def test_pearson_of_extreme_scales_equals_scipy_unscaled(scale):
    rng = np.random.default_rng(7)
    human = rng.normal(size=30)
    metric = human + rng.normal(size=30)
    want = scipy.stats.pearsonr(metric, human).statistic
    assert stats.pearson(metric, human * scale) == pytest.approx(want, rel=1e-12)
    assert stats.pearson(metric * scale, human * scale) == pytest.approx(want, rel=1e-12)
    assert scipy.stats.pearsonr(metric, human * scale).statistic == pytest.approx(want,
                                                                                rel=1e-12)
    v, lo, hi = bootstrap.bootstrap_ci(stats.pearson, metric, human * scale, n=200, seed=1)
    v0, lo0, hi0 = bootstrap.bootstrap_ci(stats.pearson, metric, human, n=200, seed=1)
    assert (v, lo, hi) == pytest.approx((v0, lo0, hi0), rel=1e-12)
    assert np.isfinite([lo, hi]).all()


def test_infinite_scores_make_pearson_undefined():
    x = np.array([1.0, 2.0, np.inf, 4.0])
    assert np.isnan(stats.pearson(x, np.arange(4.0)))
    assert np.isnan(stats.pearson(np.arange(4.0), -x))


def test_coefficients_and_bounds_stay_in_unit_interval():
    rng = np.random.default_rng(3)
    for _ in range(300):  # perfectly linear data: the unclipped formula gives 1 + 2e-16 often
        a = rng.normal(size=int(rng.integers(3, 30)))
        b = a * rng.uniform(0.1, 10) + rng.normal()
        assert -1.0 <= stats.pearson(a, b) <= 1.0
        assert -1.0 <= stats.pearson(a, -b) <= 1.0
    a = rng.normal(size=12)
    for b in (3 * a + 1, -7 * a):
        v, lo, hi = bootstrap.bootstrap_ci(stats.pearson, a, b, n=500, seed=5)
        assert -1.0 <= lo <= hi <= 1.0 and abs(v) == pytest.approx(1.0)
