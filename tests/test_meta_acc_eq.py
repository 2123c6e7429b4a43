"""Tie-calibrated pairwise accuracy (mtstrata.meta.acc_eq) against mt-metrics-eval's
``KendallWithTiesOpt`` outputs (stored in tests/data: hand-made arrays and WMT21 en-ru) and a
brute-force copy of the definition in exact fractions (tests/stats_oracles.py); the
pair-swapping permutation test against its enumerated distribution."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mtstrata.meta import acc_eq as ae
from tests.meta_data import REF_NAMES, TRAINED, reference, wmt21
from tests.stats_oracles import brute_acc_eq


def _cells(human, metric):
    """(metric, human, system ids, segment ids) of (systems x segments) lists (None: unjudged)."""
    h = np.array([[np.nan if v is None else v for v in r] for r in human], float)
    m = np.array([[np.nan if v is None else v for v in r] for r in metric], float)
    s, n = h.shape
    return m.ravel(), h.ravel(), np.repeat(np.arange(s), n), np.tile(np.arange(n), s)


def _rows(human, metric, by):
    h, m = np.asarray(human, object), np.asarray(metric, object)
    if by == "none":
        return [list(zip(h.ravel(), m.ravel(), strict=True))]
    if by == "sys":
        return [list(zip(hr, mr, strict=True)) for hr, mr in zip(h, m, strict=True)]
    return [list(zip(hc, mc, strict=True)) for hc, mc in zip(h.T, m.T, strict=True)]


@pytest.mark.parametrize("by", ["none", "item", "sys"])
def test_hand_made_case_equals_mt_metrics_eval(by):
    """Human ties, an unjudged cell and metric differences equal up to float noise (0.1 - 0.09
    and 0.11 - 0.1 are separate candidates, as in mt-metrics-eval)."""
    ref = reference()["handmade"]["acc_eq_small"]
    m, h, sys_, seg = _cells(ref["human"], ref["metric"])
    got = ae.acc_eq(m, h, {"none": None, "item": seg, "sys": sys_}[by])
    want = ref["results"][by]
    assert got.value == pytest.approx(want["value"], abs=1e-12)
    assert got.epsilon == want["epsilon"]
    value, eps, base = brute_acc_eq(_rows(ref["human"], ref["metric"], by))
    assert (got.value, got.epsilon) == (pytest.approx(value, abs=1e-15), eps)
    assert got.baseline == pytest.approx(base, abs=1e-15)
    assert got.value >= want["acc23_eps0"] - 1e-12  # acc23 is the value at epsilon 0


@pytest.mark.parametrize("seed", range(12))
def test_equals_the_brute_force_definition(seed):
    rng = np.random.default_rng(seed)
    s, n = int(rng.integers(2, 6)), int(rng.integers(1, 8))
    human = rng.integers(0, 3, size=(s, n)).astype(float).tolist()
    metric = np.round(rng.normal(size=(s, n)), 1)
    metric = (metric + rng.choice([0, 1e-17, 0.1], size=(s, n))).tolist()
    for i, j in zip(rng.integers(0, s, 3), rng.integers(0, n, 3), strict=True):
        human[i][j] = None
    m, h, sys_, seg = _cells(human, metric)
    for by, groups in (("none", None), ("item", seg), ("sys", sys_)):
        value, eps, base = brute_acc_eq(_rows(human, metric, by))
        got = ae.acc_eq(m, h, groups)
        if math.isnan(value):
            assert math.isnan(got.value)
            continue
        assert got.value == pytest.approx(value, abs=1e-14), by
        assert got.epsilon == eps and got.baseline == pytest.approx(base, abs=1e-14), by


@pytest.mark.parametrize("dataset, groupings", [("wmt21_enru_mqm", ("item", "sys")),
                                                ("wmt21_enru_da", ("item",))])
def test_wmt21_enru_equals_mt_metrics_eval(dataset, groupings):
    """Values within 1e-12 of mt-metrics-eval's running float sum; epsilon the smallest exact
    maximiser, which is mt-metrics-eval's wherever its drift did not pick a later threshold of
    the same accuracy (BLEURT-20 item: 0.10 here, 0.11 there, both 28953/47957)."""
    d = wmt21(dataset)
    ref = reference()[dataset]
    groups = {"item": d["seg_idx"], "sys": d["seg_sys"]}
    for name in TRAINED:
        judged = d["metrics"][name][d["seg_sys"], d["seg_idx"]]
        for by in groupings:
            r = ref["metrics"][REF_NAMES[name]]["acc_eq"][by]
            got = ae.acc_eq(judged, d["seg_human"], groups[by])
            assert got.pairs == r["pairs"]
            assert got.value == pytest.approx(r["mtme"]["value"], abs=1e-12), (name, by)
            assert got.epsilon == r["independent"]["epsilon"], (name, by)
            if r["mtme"]["epsilon"] == r["independent"]["epsilon"]:
                assert got.epsilon == r["mtme"]["epsilon"]
            assert got.baseline == pytest.approx(ref["all_tied_baseline"][by], abs=1e-12)


def test_rows_without_a_pair_are_left_out():
    got = ae.acc_eq([1.0, 2.0, 3.0, np.nan], [1.0, 2.0, 3.0, 4.0], [0, 0, 1, 1])
    assert (got.rows, got.pairs, got.value) == (1, 1, 1.0)
    assert math.isnan(ae.acc_eq([1.0, 2.0], [3.0, 4.0], [0, 1]).value)


def test_long_rows_are_paired_in_blocks(monkeypatch):
    rng = np.random.default_rng(1)
    h, m = rng.integers(0, 4, 60).astype(float), np.round(rng.normal(size=60), 1)
    whole = ae.acc_eq(m, h)
    monkeypatch.setattr(ae, "_BLOCK", 37)
    assert ae.acc_eq(m, h) == whole
    pairs = [(int(a), int(b)) for a, b, _ in ae.pair_blocks(None, 60) for a, b in zip(a, b)]
    assert sorted(pairs) == list(itertools.combinations(range(60), 2))


def test_pairs_test_equals_its_enumerated_distribution():
    """Two items of four systems: 12 pairs, every one of the 2^k swaps of the pairs where the
    metrics' outcomes differ enumerated; delta = acc_eq(a) - acc_eq(b) at their own epsilons."""
    human = np.array([3.0, 1, 2, 2, 0, 1, 1, 2])
    items = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    a = np.array([0.9, 0.1, 0.5, 0.52, 0.2, 0.6, 0.61, 0.9])
    b = np.array([0.3, 0.8, 0.5, 0.1, 0.9, 0.1, 0.4, 0.2])
    ea, eb = ae.acc_eq(a, human, items), ae.acc_eq(b, human, items)
    delta, draws, den = ae.pairs_test_draws(human, a, b, items, (ea.epsilon, eb.epsilon),
                                            k=4000, seed=3)
    assert delta / den == pytest.approx(ea.value - eb.value, abs=1e-15)
    rows, per_row, c1 = ae.correct_at(a, human, items, ea.epsilon)
    c2 = ae.correct_at(b, human, items, eb.epsilon)[2]
    w = (c1.astype(int) - c2.astype(int)) / per_row[rows] / 2
    diff = np.flatnonzero(w)
    null = [w.sum() - 2 * w[diff][list(bits)].sum() if any(bits) else w.sum()
            for bits in itertools.product([False, True], repeat=diff.size)]
    want = float(np.mean(np.array(null) >= w.sum() - 1e-12))
    p = float(np.mean(draws >= delta))
    assert abs(p - want) <= 4 * math.sqrt(max(want * (1 - want), 1e-3) / 4000), (p, want)
