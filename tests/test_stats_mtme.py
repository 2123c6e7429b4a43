"""The statistics mt-metrics-eval defines under the same names give the same numbers here
(google-research/mt-metrics-eval, mt_metrics_eval/stats.py, transcribed as oracles below):
system/segment Pearson and Spearman (scipy, a constant side undefined), Kendall tau-b, tau-c,
23 and acc23 (``KendallVariants``), item-wise averaging (``AverageCorrelation`` with
``average_by='item'``: items with fewer than two scores or an undefined tau left out) and
pairwise accuracy (``Agreement``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata.meta import stats
from tests.stats_oracles import mtme_agreement


def mtme_kendall_variants(gold, metric, variant):
    """KendallVariants with epsilon 0, its sufficient statistics counted pair by pair."""
    con = dis = xtie_only = ytie_only = tie_both = 0
    for i, j in itertools.combinations(range(len(gold)), 2):
        dx, dy = np.sign(metric[i] - metric[j]), np.sign(gold[i] - gold[j])
        if dx == 0 and dy == 0:
            tie_both += 1
        elif dx == 0:
            xtie_only += 1
        elif dy == 0:
            ytie_only += 1
        elif dx == dy:
            con += 1
        else:
            dis += 1
    xtie, ytie = xtie_only + tie_both, ytie_only + tie_both
    tot = con + dis + xtie_only + ytie_only + tie_both
    if tot == 0 or (variant in ("b", "c") and (xtie == tot or ytie == tot)):
        return float("nan")
    if variant == "b":
        return (con - dis) / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    if variant == "c":
        m = min(len(set(metric)), len(set(gold)))
        return 2 * (con - dis) / (len(gold) ** 2 * (m - 1) / m)
    if variant == "23":
        return (con + tie_both - dis - xtie_only - ytie_only) / tot
    return (con + tie_both) / tot


def mtme_corr(fn, gold, metric):
    """AverageCorrelation's treatment of scipy's pearsonr/spearmanr: constant -> NaN."""
    if len(gold) < 2 or np.all(gold == gold[0]) or np.all(metric == metric[0]):
        return float("nan")
    return float(fn(gold, metric)[0])


def same(a, b):
    return (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, rel=1e-9, abs=1e-12)


scores = st.lists(st.tuples(st.integers(-4, 4), st.integers(-4, 4)), min_size=2, max_size=14)


@settings(max_examples=200, deadline=None)
@given(scores)
def test_system_level_statistics_equal_mt_metrics_eval(pairs):
    metric = np.array([p[0] for p in pairs], float)
    gold = np.array([p[1] for p in pairs], float) * 0.37
    assert same(stats.pearson(metric, gold), mtme_corr(scipy.stats.pearsonr, gold, metric))
    assert same(stats.spearman(metric, gold), mtme_corr(scipy.stats.spearmanr, gold, metric))
    for variant in ("b", "c", "23", "acc23"):
        assert same(stats.kendall(metric, gold, variant),
                    mtme_kendall_variants(gold, metric, variant)), variant
    assert same(stats.pairwise_accuracy(metric, gold), mtme_agreement(metric, gold))


def test_accuracy_counts_pairs_the_humans_tie_as_mt_metrics_eval_does():
    human = np.array([1.0, 1.0, 2.0, 3.0])
    metric = np.array([5.0, 5.0, 6.0, 4.0])  # tie agrees; (0,3),(1,3),(2,3) disagree
    assert stats.pairwise_accuracy(metric, human) == pytest.approx(3 / 6)
    assert mtme_agreement(metric, human) == pytest.approx(3 / 6)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(1, 12))
def test_itemwise_kendall_equals_mt_metrics_eval_item_average(seed, n_sys, n_items):
    rng = np.random.default_rng(seed)
    metric = rng.integers(0, 4, size=(n_items, n_sys)).astype(float)
    gold = rng.integers(0, 4, size=(n_items, n_sys)).astype(float)
    gold[rng.random(gold.shape) < 0.2] = np.nan  # mt-metrics-eval's None gold scores
    taus = []
    for g, m in zip(gold, metric, strict=True):
        keep = ~np.isnan(g)
        if keep.sum() < 2:
            continue
        t = mtme_kendall_variants(g[keep], m[keep], "b")
        if not np.isnan(t):
            taus.append(t)
    want = float(np.mean(taus)) if taus else float("nan")  # mtme: 0 when none (we: undefined)
    assert same(stats.kendall_itemwise(metric, gold), want)
    rows, cols = np.nonzero(~np.isnan(gold))  # the same as judged rows grouped by segment
    assert same(stats.kendall_grouped(metric[rows, cols], gold[rows, cols], rows), want)
