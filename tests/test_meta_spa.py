"""Soft pairwise accuracy (mtstrata.meta.spa) against mt-metrics-eval's published behaviour
(its own outputs on hand-made arrays and on WMT21 en-ru, stored in tests/data) and against an
independent copy of the definition with exact integer sums (tests/stats_oracles.py); its
significance test against the enumerated permutation distribution."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mtstrata.meta import spa
from tests.meta_data import REF_NAMES, TRAINED, reference, wmt21
from tests.stats_oracles import exact_spa, mtme_sign_vectors


def _arr(rows):
    return np.array([[np.nan if v is None else v for v in r] for r in rows], float)


def test_sign_vectors_are_mt_metrics_evals():
    ref = reference()["handmade"]["spa_small"]
    keep = ~spa.swapped(8)
    assert (keep[:10].astype(int) * 2 - 1).tolist() == ref["mask_first_10_rows_(+1=keep,-1=swap)"]
    assert keep.sum(0).tolist() == ref["mask_plus_one_count_per_column"]
    assert np.array_equal(keep, mtme_sign_vectors(1000, 8) == 1)


@pytest.mark.parametrize("case", ["spa_small", "spa_random_int"])
def test_spa_and_p_values_equal_mt_metrics_eval_on_integer_scores(case):
    """Integer scores: mt-metrics-eval's float32 sums are exact, so its numbers are the exact
    ones (systems 0 and 3 of spa_small have equal human scores: p = 1, every draw ties)."""
    ref = reference()["handmade"][case]
    h, m = np.array(ref["human_seg"]), np.array(ref["metric_seg"])
    got = spa.p_values(h)
    want = _arr(ref["p_human" if case == "spa_small" else "p_human_1000"])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)
    if case == "spa_small":
        assert spa.spa(h, m) == pytest.approx(float(ref["spa"]), abs=1e-12)
    else:
        assert spa.spa(h, m) == pytest.approx(float(ref["spa_1000"]), abs=1e-12)
        assert spa.spa(h, m, 200) == pytest.approx(float(ref["spa_200"]), abs=1e-12)


@pytest.fixture(scope="module")
def enru():
    d = wmt21()
    common = ~np.isnan(d["human"]).any(0)
    return d["human"][:, common], {m: x[:, common] for m, x in d["metrics"].items()}


def test_wmt21_enru_spa_is_the_exact_tie_value_within_float32_of_mt_metrics_eval(enru):
    """527 segments rated for all 14 systems. mt-metrics-eval sums float32 and its last bit
    decides the permutations that tie (metric scores with three decimals); counted by rule, SPA
    equals the exact-sum value (its mask) and differs from mt-metrics-eval's by <= 2e-4."""
    human, metrics = enru
    ref = reference()["wmt21_enru_mqm"]
    assert human.shape == (14, ref["segments_rated_for_all_systems"])
    for name in TRAINED:
        r = ref["metrics"][REF_NAMES[name]]
        got = spa.spa(human, metrics[name])
        assert got == pytest.approx(r["spa_exact_ties_same_mask"]["value"], abs=1e-12)
        assert abs(got - r["spa_mtme"]["value"]) <= 2e-4
    want, _, _ = exact_spa(human, metrics["COMET-QE-MQM_2021"], 10**6, 10**3)
    assert spa.spa(human, metrics["COMET-QE-MQM_2021"]) == pytest.approx(want, abs=1e-12)


def test_spa_with_segments_missing_for_some_systems_uses_the_common_ones():
    """wmt21_enru_da: judged segments differ between systems; mt-metrics-eval raises (the
    stored error); here the segments judged for all 9 systems (581) are used."""
    d = wmt21("wmt21_enru_da")
    ref = reference()["wmt21_enru_da"]
    assert "cannot reshape" in ref["metrics"]["BLEURT-20-refA"]["spa_mtme"]["error"]
    segs, cols = spa.common_segments(d["seg_sys"], d["seg_idx"], len(d["systems"]))
    assert segs.size == ref["segments_rated_for_all_systems"] == 581
    h = spa.matrix(d["seg_human"], d["seg_sys"], cols, len(d["systems"]), segs.size)
    for name in TRAINED:
        m = d["metrics"][name][:, segs]
        got = spa.spa(h, m)
        r = ref["metrics"][REF_NAMES[name]]
        assert got == pytest.approx(r["spa_exact_ties_same_mask"]["value"], abs=1e-12)


def test_common_segments_skip_repeated_and_partial_cells():
    seg_sys = np.array([0, 1, 2, 0, 1, 0, 1, 2, 2, 0, 1, 2])
    seg_idx = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3])  # 1: system 2 missing; 2: twice
    segs, cols = spa.common_segments(seg_sys, seg_idx, 3)
    assert segs.tolist() == [0, 3]
    assert cols.tolist() == [0, 0, 0, -1, -1, -1, -1, -1, -1, 1, 1, 1]


@pytest.mark.parametrize("seed", range(4))
def test_spa_equals_the_exact_definition_on_decimal_scores(seed):
    rng = np.random.default_rng(seed)
    s, n = int(rng.integers(2, 7)), int(rng.integers(3, 40))
    human = rng.integers(0, 5, size=(s, n)) * 25.0  # many ties on both sides
    metric = np.round(human / 100 + rng.normal(scale=0.3, size=(s, n)), 2)
    want, ph, pm = exact_spa(human, metric, 1, 100, permutations=300)
    assert spa.spa(human, metric, 300) == pytest.approx(want, abs=1e-12)
    np.testing.assert_allclose(spa.p_values(metric, 300), pm, atol=1e-12)
    assert math.isnan(spa.spa(human[:1], metric[:1]))


def test_reversing_the_systems_changes_p_only_through_ties():
    """p_ji = 1 - p_ij + t_ij (t: the share of tying draws, >= 0): systems 0 and 3 of spa_small
    have equal human scores (t = 1); on continuous scores nothing ties and SPA is order-free."""
    ref = reference()["handmade"]["spa_small"]
    h = np.array(ref["human_seg"])
    fwd, back = spa.p_values(h), spa.p_values(h[::-1])
    ties = np.array([fwd[i, j] + back[3 - j, 3 - i] - 1 for i in range(4)
                     for j in range(i + 1, 4)])
    assert ties[2] == pytest.approx(1.0) and ties.min() >= -1e-12
    rng = np.random.default_rng(0)
    hc, mc = rng.normal(size=(5, 30)), rng.normal(size=(5, 30))
    assert spa.spa(hc, mc) == pytest.approx(spa.spa(hc[::-1], mc[::-1]), abs=1e-12)


def test_significance_test_equals_its_enumerated_distribution():
    """3 systems x 4 segments: all 2^12 cell swaps enumerated, SPA of both hybrids by the
    exact oracle (after z-scoring over all cells); the seeded Monte Carlo p agrees within 4
    standard errors, and delta is SPA(metric) - SPA(versus)."""
    from mtstrata.meta.sigdiff import zscore

    human = np.array([[3.0, 1, 2, 2], [2, 2, 1, 0], [0, 1, 1, 1]])
    a = np.array([[0.9, 0.2, 0.5, 0.6], [0.5, 0.6, 0.1, 0.2], [0.1, 0.3, 0.4, 0.0]])
    b = np.array([[0.2, 0.8, 0.3, 0.1], [0.7, 0.4, 0.5, 0.6], [0.3, 0.1, 0.6, 0.2]])
    delta, draws, steps = spa.test_draws(human, a, b, k=4000, seed=2)
    assert delta / steps == pytest.approx(spa.spa(human, a) - spa.spa(human, b), abs=1e-12)
    za, zb = zscore(a.ravel()).reshape(3, 4), zscore(b.ravel()).reshape(3, 4)
    hits = total = 0
    for bits in itertools.product([False, True], repeat=12):
        w = np.array(bits).reshape(3, 4)
        d = (spa.spa(human, np.where(w, zb, za)) - spa.spa(human, np.where(w, za, zb)))
        hits += d >= delta / steps - 1e-12
        total += 1
    want = hits / total
    p = float(np.mean(draws >= delta))
    assert abs(p - want) <= 4 * math.sqrt(max(want * (1 - want), 1e-3) / 4000), (p, want)


def test_systems_are_taken_in_sorted_name_order():
    """The fixed order (MTME's is a Python set's): 'a' before 'a-b', whatever the table's."""
    assert spa.by_name(np.array([0, 1, 2, 0]), ["sc", "sa", "sb"]).tolist() == [2, 0, 1, 2]
    assert spa.by_name(np.array([0, 1]), ["a-b", "a"]).tolist() == [1, 0]
    from mtstrata.meta.wmt_records import spa_value

    ref = reference()["handmade"]["spa_small"]
    h, m = np.array(ref["human_seg"]), np.array(ref["metric_seg"])
    s, n = h.shape
    seg_sys, seg_idx = np.repeat(np.arange(s), n), np.tile(np.arange(n), s)
    names = ["d", "c", "b", "a"]  # the table lists them backwards: SPA reorders
    got = spa_value(m[::-1].ravel(), h[::-1].ravel(), spa.by_name(seg_sys, names), seg_idx, s)
    assert got[0] == pytest.approx(float(ref["spa"]), abs=1e-12)
