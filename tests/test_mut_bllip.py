"""Bllip's vectorised scores equal its scalar definition (found by tools/mutation_sample.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mtstrata.metrics.linguistic.bllip import bllip_array, bllip_value


@pytest.mark.parametrize("combine", ["geometric", "f1"])
def test_bllip_array_equals_bllip_value_on_every_count_including_empty_bags(combine):
    # one bag empty -> 0, both empty -> undefined (NaN): the module's rule, which the scalar
    # bllip_value spells out; the array form scoring uses must agree on every case
    grid = [(h, c, r) for c, r in itertools.product(range(4), repeat=2)
            for h in range(min(c, r) + 1)]
    hits, hyp, ref = (np.array(x, float) for x in zip(*grid, strict=True))
    got = bllip_array(hits, hyp, ref, combine)
    for (h, c, r), g in zip(grid, got, strict=True):
        want = bllip_value(h, c, r, combine)
        assert (math.isnan(g) and math.isnan(want)) or g == pytest.approx(want), (h, c, r)
    assert bllip_array(np.array([0.0]), np.array([3.0]), np.array([0.0]), combine)[0] == 0.0
