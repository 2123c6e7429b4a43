"""O(n log n) statistics of mtstrata.meta.stats against the O(n^2) definitions they replace.

The ``old_*`` functions are the pairwise definitions the module had before (sign matrices over
all pairs), kept here as the reference; ``brute_counts`` counts every pair by hand. The new
code must give the same values on random data with ties, with NaN, and on real WMT17 judgments,
and must not allocate memory quadratic in the number of items.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata.meta import bootstrap, stats
from tests.conftest import WMT17_DEEN
from tests.stats_oracles import (
    mtme_agreement,
    old_accuracy,
    old_bootstrap_ci,
    old_grouped,
    old_itemwise,
    old_kendall,
)

WMT17 = WMT17_DEEN.parent










def old_bootstrap_pearson(metric, human, n, seed, alpha=0.05):
    return old_bootstrap_ci(stats.pearson, metric, human, n=n, seed=seed, alpha=alpha)[1:]


def brute_counts(x, y):
    """(pairs, C, D, x ties, y ties, both ties) over the pairs without NaN."""
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    out = dict(pairs=0, c=0, d=0, tx=0, ty=0, txy=0)
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            out["pairs"] += 1
            out["tx"] += sx == 0
            out["ty"] += sy == 0
            out["txy"] += sx == 0 and sy == 0
            out["c"] += sx * sy > 0
            out["d"] += sx * sy < 0
    return out


def same(a, b, tol=1e-12):
    return (np.isnan(a) and np.isnan(b)) or abs(a - b) <= tol


values = st.one_of(st.integers(0, 4).map(float), st.just(float("nan")))
pairs_nan = st.lists(st.tuples(values, values), max_size=25)
pairs_tied = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), max_size=25)


def arrays(pairs):
    return tuple(np.array(v, float) for v in zip(*pairs, strict=True)) if pairs else \
        (np.empty(0), np.empty(0))


# --- equality with the old definitions ----------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(pairs_tied)
def test_kendall_and_accuracy_equal_old_definitions(pairs):
    x, y = arrays(pairs)
    assert same(stats.kendall(x, y), old_kendall(x, y))
    assert same(stats.pairwise_accuracy(x, y), mtme_agreement(x, y))
    assert same(stats.kendall_flat(x, y), old_kendall(x, y))


@settings(max_examples=150, deadline=None)
@given(pairs_nan)
def test_pair_counts_equal_brute_force_with_nan(pairs):
    x, y = arrays(pairs)
    ref = brute_counts(x, y)
    for c in (stats.pair_counts(x, y), stats._row_counts(x[None], y[None])):
        got = dict(pairs=c.pairs, c=c.concordant, d=c.discordant, tx=c.x_ties, ty=c.y_ties,
                   txy=c.both_ties)
        assert {k: int(np.squeeze(v)) for k, v in got.items()} == ref


@settings(max_examples=100, deadline=None)
@given(pairs_nan)
def test_variants_equal_their_definitions(pairs):
    x, y = arrays(pairs)
    b = brute_counts(x, y)
    k = ~(np.isnan(x) | np.isnan(y))
    tot, cd = b["pairs"], b["c"] - b["d"]
    untied = tot > b["tx"] and tot > b["ty"]
    # Deutsch et al. (2023) and mt-metrics-eval: 23 and acc23; scipy: b and c
    exp23 = (b["c"] + b["txy"] - b["d"] - (b["tx"] - b["txy"]) - (b["ty"] - b["txy"])) / tot \
        if tot else float("nan")
    acc23 = (b["c"] + b["txy"]) / tot if tot else float("nan")
    tau_c = scipy.stats.kendalltau(x[k], y[k], variant="c").statistic if untied \
        else float("nan")
    tau_b = cd / np.sqrt(tot - b["tx"]) / np.sqrt(tot - b["ty"]) if untied else float("nan")
    assert same(stats.kendall(x, y, "23"), exp23)
    assert same(stats.kendall(x, y, "acc23"), acc23)
    assert same(stats.kendall(x, y, "c"), tau_c)
    assert same(stats.kendall(x, y, "b"), tau_b)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(0, 6), st.integers(0, 2**31))
def test_itemwise_and_grouped_equal_old(rows, cols, seed):
    rng = np.random.default_rng(seed)
    m = rng.integers(0, 3, size=(rows, cols)).astype(float)
    h = rng.integers(0, 3, size=(rows, cols)).astype(float)
    assert same(stats.kendall_itemwise(m, h), old_itemwise(m, h))
    for v in stats.VARIANTS:  # per-row pair counting == the O(n log n) counts
        ref = [stats.kendall(a, b, v) for a, b in zip(m, h, strict=True)]
        ref = [r for r in ref if not np.isnan(r)]
        assert same(stats.kendall_itemwise(m, h, v), float(np.mean(ref)) if ref
                    else float("nan"))
    groups = rng.integers(0, max(1, rows // 2), size=rows * cols)
    assert same(stats.kendall_grouped(m.ravel(), h.ravel(), groups),
                old_grouped(m.ravel(), h.ravel(), groups))


def test_long_rows_take_the_sorting_path(monkeypatch):
    rng = np.random.default_rng(3)
    m, h = rng.integers(0, 5, size=(3, 40)).astype(float), rng.normal(size=(3, 40))
    direct = stats.kendall_itemwise(m, h)
    monkeypatch.setattr(stats, "CHUNK", 64)  # 780 pairs per row > CHUNK // 16: per-row sort
    assert stats.kendall_itemwise(m, h) == pytest.approx(direct, abs=1e-12)
    assert direct == pytest.approx(old_itemwise(m, h), abs=1e-12)


@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_chunked_bootstrap_draws_the_old_resamples(monkeypatch, chunk):
    rng = np.random.default_rng(4)
    x = rng.normal(size=150)
    y = x + rng.normal(size=150)
    monkeypatch.setattr(bootstrap, "CHUNK", chunk)
    _, lo, hi = bootstrap.bootstrap_ci(stats.pearson, x, y, n=200, seed=9)
    assert (lo, hi) == pytest.approx(old_bootstrap_pearson(x, y, 200, 9), abs=1e-12)
    slow = bootstrap.bootstrap_ci(lambda a, b: stats.pearson(a, b), x, y, n=50, seed=9)
    assert slow == pytest.approx(bootstrap.bootstrap_ci(stats.pearson, x, y, n=50, seed=9),
                                 abs=1e-12)


# --- real data ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wmt17():
    """Per pair: judged rows scored by sentence BLEU (many ties) and chrF, and system-level
    BLEU over each system's judged rows, with the human scores."""
    if not WMT17.is_dir():
        pytest.skip("WMT17 data not available")
    from mtstrata.meta.data import read_dev_corpus
    from mtstrata.metrics import create
    from mtstrata.scoring import compute

    out = {}
    for lp_dir in sorted(p for p in WMT17.iterdir() if p.is_dir()):
        c = read_dev_corpus(lp_dir)
        rows = c.seg_rows
        hyps = [c.systems[s][i] for s, i, _ in rows]
        refs = [[c.refs[0][i] for _, i, _ in rows]]
        ms = [create("bleu"), create("chrf")]
        run = compute({"judged": hyps}, refs, ms)
        raw = [run.stats[("judged", k)] for k in range(len(ms))]
        sys_names = np.array([s for s, _, _ in rows])
        systems = [s for s in c.systems if (sys_names == s).any()]
        out[lp_dir.name] = {
            "seg": [m.segment_scores(r) for m, r in zip(ms, raw, strict=True)],
            "human": np.array([h for _, _, h in rows]),
            "seg_idx": np.array([i for _, i, _ in rows]),
            "sys": np.array([ms[0].score(raw[0][sys_names == s].sum(0)) for s in systems]),
            "sys_human": np.array([c.sys_human[s] for s in systems])}
    return out


def test_real_wmt17_values_unchanged(wmt17):
    assert len(wmt17) == 7
    for d in wmt17.values():
        h = d["human"]
        for seg in d["seg"]:
            assert same(stats.kendall(seg, h), old_kendall(seg, h))
            assert same(stats.kendall_flat(seg, h), old_kendall(seg, h))
            assert same(stats.kendall_grouped(seg, h, d["seg_idx"]),
                        old_grouped(seg, h, d["seg_idx"]))
            assert same(stats.pearson(seg, h), scipy.stats.pearsonr(seg, h).statistic)
            _, lo, hi = bootstrap.bootstrap_ci(stats.pearson, seg, h, n=300, seed=12345)
            assert (lo, hi) == pytest.approx(old_bootstrap_pearson(seg, h, 300, 12345),
                                             abs=1e-12)
        sys_, sh = d["sys"], d["sys_human"]
        assert same(stats.kendall(sys_, sh), old_kendall(sys_, sh))
        assert same(stats.pairwise_accuracy(sys_, sh), old_accuracy(sys_, sh))
    pooled = np.concatenate([d["seg"][0] for d in wmt17.values()])[:2500]
    ph = np.concatenate([d["human"] for d in wmt17.values()])[:2500]
    assert same(stats.kendall(pooled, ph), old_kendall(pooled, ph))
    assert same(stats.pairwise_accuracy(pooled, ph), old_accuracy(pooled, ph))


# --- memory -------------------------------------------------------------------------------
def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_linear_not_quadratic():
    """At n = 40,000 an n x n float matrix is 12.8 GB; the statistics stay within a few
    hundred bytes per item (plus one bootstrap chunk, about 32 MB)."""
    rng = np.random.default_rng(5)
    n = 40_000
    x = rng.integers(0, 50, n).astype(float)
    y = x + rng.normal(size=n).round(1)
    groups = rng.integers(0, n // 5, n)
    bound = 200 * n + 40 * bootstrap.CHUNK
    for fn in (lambda: stats.kendall(x, y), lambda: stats.pairwise_accuracy(x, y),
               lambda: stats.kendall(x, y, "acc23"),
               lambda: stats.kendall_grouped(x, y, groups),
               lambda: bootstrap.bootstrap_ci(stats.pearson, x, y, n=50, seed=1),
               lambda: bootstrap.bootstrap_ci(stats.kendall, x, y, n=3, seed=1)):
        assert _peak(fn) < bound
