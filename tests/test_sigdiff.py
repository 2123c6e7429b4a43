"""Metric-vs-metric tests (mtstrata.meta.sigdiff) give mt-metrics-eval's numbers: Williams'
test equal to its formula (transcribed independently in tests/stats_oracles.py), PERM-BOTH
equal to its algorithm (same file) within Monte Carlo error at equal resamples on WMT17 de-en,
and to the exact permutation distribution (every swap enumerated) on a small case; the
clusters are its AssignRanks'."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats

from mtstrata.meta import sigdiff, stats
from tests.conftest import WMT17_DEEN
from tests.stats_oracles import mtme_permutation_sig_diff, mtme_williams, old_kendall


def _close(p, want, k):
    """Two independent Monte Carlo estimates of one p at k draws each: 4 standard errors."""
    se = math.sqrt(2 * max(want * (1 - want), 1 / k) / k)
    assert abs(p - want) <= 4 * se, (p, want, se)


@pytest.mark.parametrize("seed", range(8))
def test_williams_equals_mt_metrics_eval_formula(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 40))
    human = rng.normal(size=n)
    a = human + rng.normal(scale=rng.uniform(0.3, 2), size=n)
    b = 0.5 * a + human + rng.normal(scale=rng.uniform(0.3, 2), size=n)
    delta, p_a, p_b = sigdiff.williams(human, a, b)
    r1, r2 = scipy.stats.pearsonr(human, a)[0], scipy.stats.pearsonr(human, b)[0]
    r12 = scipy.stats.pearsonr(a, b)[0]
    mtme = mtme_williams(r1, r2, r12, n)  # the p of whichever metric is ahead
    assert delta == pytest.approx(r1 - r2, abs=1e-14)
    ahead, behind = (p_a, p_b) if r1 > r2 else (p_b, p_a)
    assert ahead == pytest.approx(mtme, rel=1e-12, abs=1e-15)
    assert behind == pytest.approx(1 - mtme, rel=1e-12, abs=1e-15)
    assert p_a + p_b == pytest.approx(1.0, abs=1e-15)


def test_williams_is_undefined_on_too_few_items_or_a_constant_metric():
    assert math.isnan(sigdiff.williams([1, 2, 3], [1, 3, 2], [2, 1, 3])[1])
    assert math.isnan(sigdiff.williams([1, 2, 3, 5], [1, 1, 1, 1], [2, 1, 3, 4])[1])


def _exact_p(stat, human, a, b):
    """PERM-BOTH's p by enumerating every one of the 2^n swaps (equally likely)."""
    za, zb = scipy.stats.zscore(a), scipy.stats.zscore(b)
    delta = stat(za, human) - stat(zb, human)
    hits = 0
    masks = list(itertools.product([False, True], repeat=len(human)))
    for w in masks:
        w = np.array(w)
        hits += stat(np.where(w, zb, za), human) - stat(np.where(w, za, zb), human) >= delta
    return hits / len(masks)


@pytest.mark.parametrize("stat", [stats.pearson, stats.kendall, stats.pairwise_accuracy])
def test_perm_both_equals_the_enumerated_permutation_distribution(stat):
    human = np.array([0.1, 0.5, 0.2, 0.9, 0.4, 0.7, 0.3, 0.8])  # eight systems: 256 swaps
    a = np.array([1.0, 4.0, 2.5, 9.0, 3.0, 6.0, 2.0, 7.5])
    b = np.array([2.0, 3.0, 1.0, 6.0, 5.0, 4.0, 3.5, 8.0])
    want = _exact_p(stat, human, a, b)
    k = 20_000
    delta, p, p_rev = sigdiff.perm_both(stat, human, a, b, k=k, seed=3)
    assert delta == pytest.approx(stat(a, human) - stat(b, human), abs=1e-12)
    _close(p, want, k)
    assert p + p_rev >= 1.0  # both count the draws equal to delta


def test_a_metric_against_itself_is_never_significant():
    human = np.arange(10.0)
    a = np.array([3, 1, 2, 5, 4, 7, 6, 9, 8, 0], float)
    assert sigdiff.perm_both(stats.pearson, human, a, a, k=200, seed=1) == (0.0, 1.0, 1.0)


def _sign_kendall(g, m):
    """Kendall tau-b from the sign matrices of every pair (tests/stats_oracles.py's old_kendall):
    for the items' few systems, a hundred times faster than scipy's kendalltau per call."""
    return (old_kendall(m, g),)


def _np_pearson(g, m):
    """Pearson r as numpy computes it (scipy's pearsonr is slow per call)."""
    return (float(np.corrcoef(g, m)[0, 1]),)


def test_by_system_grouping_averages_per_group_as_mt_metrics_eval():
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(4), 12)  # four systems, twelve segments each
    human = rng.normal(size=48)
    a, b = human + rng.normal(size=48), human + rng.normal(scale=2, size=48)
    k = 3000
    delta, p, _ = sigdiff.perm_both(stats.pearson, human, a, b, groups=groups, k=k, seed=2)
    want, want_delta = mtme_permutation_sig_diff(human, b, a, _np_pearson, lens=[12] * 4,
                                                 k=k, seed=2)
    assert delta == pytest.approx(want_delta, abs=1e-12)
    _close(p, want, k)


@pytest.fixture(scope="module")
def deen():
    """WMT17 de-en judged rows scored by sentence BLEU and chrF (and each system's BLEU and
    chrF over its judged rows), with the human scores."""
    if not WMT17_DEEN.is_dir():
        pytest.skip(f"WMT17 data not available at {WMT17_DEEN}")
    from mtstrata.meta.data import read_dev_corpus
    from mtstrata.metrics import create
    from mtstrata.scoring import compute

    c = read_dev_corpus(WMT17_DEEN)
    rows = sorted(c.seg_rows, key=lambda r: r[1])  # grouped by item, as mt-metrics-eval packs
    hyps = [c.systems[s][i] for s, i, _ in rows]
    refs = [[c.refs[0][i] for _, i, _ in rows]]
    ms = [create("bleu"), create("chrf")]
    run = compute({"judged": hyps}, refs, ms)
    raw = [run.stats[("judged", k)] for k in range(len(ms))]
    names = np.array([s for s, _, _ in rows])
    systems = [s for s in c.systems if (names == s).any()]
    return {"seg": [m.segment_scores(r) for m, r in zip(ms, raw, strict=True)],
            "human": np.array([h for _, _, h in rows]),
            "seg_idx": np.array([i for _, i, _ in rows]),
            "sys": [np.array([m.score(r[names == s].sum(0)) for s in systems])
                    for m, r in zip(ms, raw, strict=True)],
            "sys_human": np.array([c.sys_human[s] for s in systems]), "sys_of_row": names}


@pytest.mark.parametrize(("level", "stat", "corr"), [
    ("sys", stats.pearson, scipy.stats.pearsonr),
    ("sys", stats.kendall, scipy.stats.kendalltau),
    ("seg", stats.pearson, scipy.stats.pearsonr),
    ("seg", stats.kendall, scipy.stats.kendalltau),
    ("item", stats.kendall, "sign"),
])
def test_perm_both_equals_mt_metrics_eval_on_wmt17_deen(deen, level, stat, corr):
    k = 1000
    if level == "sys":
        human, (bleu, chrf), groups, lens = deen["sys_human"], deen["sys"], None, None
    else:
        human, (bleu, chrf) = deen["human"], deen["seg"]
        groups = deen["seg_idx"] if level == "item" else None
        lens = np.unique(groups, return_counts=True)[1] if level == "item" else None
    corr = _sign_kendall if corr == "sign" else corr
    delta, p, _ = sigdiff.perm_both(stat, human, chrf, bleu, groups=groups, k=k, seed=7)
    want, want_delta = mtme_permutation_sig_diff(human, bleu, chrf, corr, lens=lens, k=k,
                                                 seed=7)
    assert delta == pytest.approx(want_delta, abs=1e-12)
    _close(p, want, k)


def test_williams_on_wmt17_deen_segments_equals_mt_metrics_eval(deen):
    human, (bleu, chrf) = deen["human"], deen["seg"]
    delta, p, _ = sigdiff.williams(human, chrf, bleu)
    r1, r2 = scipy.stats.pearsonr(human, chrf)[0], scipy.stats.pearsonr(human, bleu)[0]
    assert delta > 0  # chrF ahead of sentence BLEU on these rows: the p is mt-metrics-eval's
    want = mtme_williams(r1, r2, scipy.stats.pearsonr(chrf, bleu)[0], len(human))
    assert p == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_clusters_follow_assign_ranks():
    # values decreasing A > B > C > D; B is not beaten by A, C is beaten by A, D not by C
    vals = {"A": 0.9, "B": 0.85, "C": 0.6, "D": 0.55}
    sig = {("A", "B"): 0.2, ("A", "C"): 0.01, ("B", "C"): 0.3, ("A", "D"): 0.001,
           ("B", "D"): 0.01, ("C", "D"): 0.4}
    got = sigdiff.ranks(vals, lambda a, b: sig[(a, b)])
    # AssignRanks: C starts rank 2 (A, of rank 1, beats it); D: only C (rank 2 from C) counts
    assert got == {"A": 1, "B": 1, "C": 2, "D": 2}
    assert sigdiff.ranks({"A": 0.9, "B": float("nan")}, lambda a, b: 0.0) == {"A": 1}


@pytest.mark.parametrize(("stat", "grouped_by_item"), [
    (stats.pearson, False), (stats.spearman, False), (stats.kendall, False),
    (stats.pairwise_accuracy, False), (stats.kendall, True)])
def test_vectorised_resample_statistics_equal_the_statistic_row_by_row(stat, grouped_by_item):
    rng = np.random.default_rng(11)
    n = 12
    x = rng.integers(0, 4, size=(60, n)).astype(float)  # ties, and constant rows now and then
    x[3] = 1.0
    human = rng.integers(0, 5, size=n).astype(float)
    groups = np.repeat(np.arange(5), [1, 2, 3, 3, 3]) if grouped_by_item else None
    fn = sigdiff.grouped(stat)
    want = np.nan_to_num([fn(row, human, groups) for row in x], nan=0.0)
    got = sigdiff._on_hybrids(stat, fn, x, human, groups)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_item_wise_perm_both_on_wmt17_deen_swaps_each_judged_row(deen):
    """The same swaps replayed in the oracle (mt-metrics-eval's algorithm, one coin per judged
    row) give the same p to the last draw: a test that swapped one coin per system (or per
    item) instead would give another (issue 47: 0.326 against 0.268 on de-en)."""
    k, seed = 300, 7
    human, (bleu, chrf) = deen["human"], deen["seg"]
    groups = deen["seg_idx"]
    lens = np.unique(groups, return_counts=True)[1]
    _, p, _ = sigdiff.perm_both(stats.kendall, human, chrf, bleu, groups=groups, k=k,
                                seed=seed)
    masks = np.random.default_rng(seed).integers(2, size=(k, human.size), dtype=bool)
    want, _ = mtme_permutation_sig_diff(human, bleu, chrf, _sign_kendall, lens=lens, k=k,
                                        masks=~masks, tol=sigdiff.TIE_TOL)
    assert p == pytest.approx(want, abs=1e-12)
    sys_of_row = np.unique(deen["sys_of_row"], return_inverse=True)[1]
    per_system = masks[:, sys_of_row]  # the mutant: one coin per system
    mutant, _ = mtme_permutation_sig_diff(human, bleu, chrf, _sign_kendall, lens=lens, k=k,
                                          masks=~per_system, tol=sigdiff.TIE_TOL)
    assert abs(mutant - want) > 2 / k
