"""The randomisation test's trial sums (:func:`mtstrata.meta.significance.swapped_sums`):
one product for exact integer statistics, with the bits of the four products of the formula;
the four products for any other statistics."""

from __future__ import annotations

import numpy as np
import pytest

from mtstrata.meta.significance import _exact, approximate_randomization, swapped_sums


def four_products(pos, a, b):
    return pos @ a + (1.0 - pos) @ b, (1.0 - pos) @ a + pos @ b


@pytest.mark.parametrize("seed", range(5))
def test_integer_statistics_give_the_bits_of_the_formula(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    a = rng.integers(0, 60, size=(n, 9)).astype(float)
    b = rng.integers(0, 60, size=(n, 9)).astype(float)
    pos = rng.integers(2, size=(300, n), dtype=bool).astype(float)
    assert _exact(a) and _exact(b)
    for got, want in zip(swapped_sums(pos, a, b), four_products(pos, a, b), strict=True):
        assert np.array_equal(got, want)


def test_fractional_statistics_take_the_formula_itself():
    rng = np.random.default_rng(1)
    a, b = rng.random((50, 3)), rng.random((50, 3))
    pos = rng.integers(2, size=(40, 50), dtype=bool).astype(float)
    assert not _exact(a)
    for got, want in zip(swapped_sums(pos, a, b), four_products(pos, a, b), strict=True):
        assert np.array_equal(got, want)


def test_too_large_totals_are_not_taken_for_exact():
    assert not _exact(np.full((4, 2), 2.0 ** 51))
    assert _exact(np.full((4, 2), 7.0)) and not _exact(np.array([[0.5]]))


def test_p_values_are_those_of_the_formula():
    # the randomisation test's p with the one-product path equals the p of the four products
    rng = np.random.default_rng(3)
    a = rng.integers(0, 20, size=(120, 4)).astype(float)
    b = a + rng.integers(0, 3, size=(120, 4))

    def score(row):
        return float(row[0] / max(row[1], 1.0))

    got = approximate_randomization(score, a, b, n=500, seed=7)
    pos = np.random.default_rng(7).integers(2, size=(500, 120), dtype=bool).astype(float)
    sa, sb = four_products(pos, a, b)
    d = np.abs(np.array([score(r) for r in sa]) - np.array([score(r) for r in sb]))
    delta = abs(score(a.sum(0)) - score(b.sum(0)))
    assert got.p == (int((d > delta).sum()) + 1) / 501
