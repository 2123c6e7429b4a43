"""The O(n^2) meta-evaluation statistics mtstrata had before they were made O(n log n):
sign matrices over all pairs. Kept as the reference that tests/test_stats_scale.py compares the
new code with, and that benchmarks/bench_meta.py times for the before/after figures."""

from __future__ import annotations

import numpy as np

from mtstrata.meta import stats


def old_kendall(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    iu = np.triu_indices(len(x), 1)
    dx = np.sign(x[:, None] - x[None, :])[iu]
    dy = np.sign(y[:, None] - y[None, :])[iu]
    s = float((dx * dy).sum())
    den = np.sqrt(float((dx != 0).sum()) * float((dy != 0).sum()))
    return s / den if den > 0 else float("nan")


def old_accuracy(metric, human):
    m, h = np.asarray(metric, float), np.asarray(human, float)
    iu = np.triu_indices(len(m), 1)
    dh = np.sign(h[:, None] - h[None, :])[iu]
    dm = np.sign(m[:, None] - m[None, :])[iu]
    keep = dh != 0
    return float((dh[keep] == dm[keep]).mean()) if keep.any() else float("nan")


def old_itemwise(metric, human):
    vals = [old_kendall(m, h) for m, h in zip(np.atleast_2d(metric), np.atleast_2d(human),
                                              strict=True)]
    vals = [v for v in vals if not np.isnan(v)]
    return float(np.mean(vals)) if vals else float("nan")


def old_grouped(judged, human, seg_idx):  # meta/records.py's _itemwise as it was
    vals = []
    for s in np.unique(seg_idx):
        rows = seg_idx == s
        if rows.sum() >= 2:
            v = old_itemwise(judged[rows][None], human[rows][None])
            if not np.isnan(v):
                vals.append(v)
    return float(np.mean(vals)) if vals else float("nan")


def old_bootstrap_ci(stat, metric, human, *, n=1000, alpha=0.05, seed=12345):
    """The (n, items) resample matrix of the old bootstrap; Pearson vectorised over it."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(metric), size=(n, len(metric)))
    if stat is stats.pearson:
        x, y = metric[idx], human[idx]
        x = x - x.mean(axis=1, keepdims=True)
        y = y - y.mean(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            vals = (x * y).sum(1) / np.sqrt((x * x).sum(1) * (y * y).sum(1))
    else:
        vals = np.array([stat(metric[i], human[i]) for i in idx])
    vals = vals[~np.isnan(vals)]
    lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2])
    return stat(metric, human), float(lo), float(hi)


def mtme_agreement(metric, human):
    """mt-metrics-eval's ``stats.Agreement`` (pairwise accuracy, google-research/mt-metrics-eval
    mt_metrics_eval/stats.py), transcribed: over all pairs, sign(gold diff) == sign(metric
    diff); NaN pairs left out as mtstrata leaves them out."""
    import itertools

    agree = pairs = 0
    for a, b in itertools.combinations(zip(human, metric, strict=True), 2):
        if np.isnan([a[0], a[1], b[0], b[1]]).any():
            continue
        agree += np.sign(a[0] - b[0]) == np.sign(a[1] - b[1])
        pairs += 1
    return agree / pairs if pairs else float("nan")


def mtme_permutation_sig_diff(gold, scores1, scores2, corr_fcn, lens=None, k=1000, seed=0,
                              masks=None, tol=0.0):
    """mt-metrics-eval's ``stats.PermutationSigDiff`` (PERM-BOTH), written again from its
    algorithm for the tests (mt_metrics_eval is not on PyPI): gold and the two metrics' scores
    as flat vectors with the group sizes ``lens`` (one group: no averaging); both metrics
    z-scored over all items (scipy); each of ``k`` draws takes a fair coin per item
    (``binomial(1, 0.5)``) to swap the metrics there; the correlation of a group with a
    constant side is NaN, NaN groups are dropped from the average and an empty average is 0;
    p = share of draws with corr(hybrid2) - corr(hybrid1) >= delta, for "metric 2 correlates
    better than metric 1". No early stop (its default block equals k = 1000).

    ``masks`` (k x items booleans) replaces the coins (True: w1 = 1), to replay another
    implementation's draws; ``tol`` counts draws within it of delta (a tie rule). Groups of one
    item are left out of the loop (their correlation is NaN, dropped: the same average)."""
    import scipy.stats

    gold = np.asarray(gold, float)
    m1 = scipy.stats.zscore(np.asarray(scores1, float))
    m2 = scipy.stats.zscore(np.asarray(scores2, float))
    lens = [len(gold)] if lens is None else list(lens)
    starts = np.r_[0, np.cumsum(lens)]
    bounds = [(b, e) for b, e in zip(starts[:-1], starts[1:], strict=True) if e - b >= 2]

    def corr(ms):
        vals = []
        for b, e in bounds:
            g, m = gold[b:e], ms[b:e]
            if e - b < 2 or np.all(g == g[0]) or np.all(m == m[0]):
                vals.append(np.nan)
            else:
                vals.append(corr_fcn(g, m)[0])
        vals = np.asarray(vals, float)
        vals = vals[~np.isnan(vals)]
        return np.average(vals) if len(vals) else 0

    rng = np.random.RandomState(seed)
    delta = corr(m2) - corr(m1)
    large = 0
    for i in range(k):
        w1 = rng.binomial(1, 0.5, len(m1)) if masks is None else masks[i].astype(int)
        w2 = 1 - w1
        c1, c2 = corr(w1 * m1 + w2 * m2), corr(w2 * m1 + w1 * m2)
        large += c2 - c1 >= delta - tol
    return large / k, delta


def mtme_williams(r12, r13, r23, n):
    """mt-metrics-eval's ``stats.WilliamsTest`` (one-sided), written again from its formula:
    r12, r13 the two metrics' correlations with gold, r23 theirs with each other."""
    import scipy.stats

    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    tnum = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    tden = np.sqrt(2 * (n - 1) / (n - 3) * k + rbar**2 * (1 - r23) ** 3)
    return scipy.stats.t.sf(np.abs(tnum / tden), n - 3)


def mtme_sign_vectors(permutations, n_segments):
    """mt-metrics-eval's sign vectors of SPA's permutations (pce.py), from its description:
    numpy default_rng(4), (permutations, segments) float32 uniforms, rounded to the nearest
    integer (half to even), times 2 minus 1: +1 keeps a segment, -1 swaps it."""
    u = np.random.default_rng(4).random((permutations, n_segments), dtype=np.float32)
    return (2 * np.rint(u) - 1).astype(np.int64)


def exact_spa(human, metric, scale_h=1, scale_m=1, permutations=1000):
    """SPA (Thompson et al. 2024) from its definition with exact sums: scores times their
    scale are integers (a decimal grid), so every permuted and observed difference is an exact
    integer and ties are ties. p_ij = share of permutations whose difference of system sums
    (system i minus j, signs applied per segment) is at least the observed one; SPA = 1 - mean
    over pairs i < j of |p_human - p_metric|. Returns (SPA, human p matrix, metric p matrix)."""
    def pvals(x, scale):
        xi = np.rint(np.asarray(x, float) * scale).astype(np.int64)
        sigma = mtme_sign_vectors(permutations, xi.shape[1])
        s = xi.shape[0]
        out = np.full((s, s), np.nan)
        for i in range(s):
            for j in range(i + 1, s):
                d = xi[i] - xi[j]
                out[i, j] = float(np.mean(sigma @ d >= d.sum()))
        return out

    ph, pm = pvals(human, scale_h), pvals(metric, scale_m)
    iu = np.triu_indices(ph.shape[0], 1)
    return 1 - float(np.mean(np.abs(ph - pm)[iu])), ph, pm


def brute_acc_eq(rows):
    """Tie-calibrated pairwise accuracy (Deutsch et al. 2023) by brute force: ``rows`` is a list
    of rows, each a list of (human, metric) cells (None: unjudged, left out); every unordered
    pair of a row's cells; epsilon runs over 0 and every |metric difference|; a pair is correct
    when |dm| > eps and sign(dm) == sign(dh) != 0, or |dm| <= eps and dh == 0; the value is the
    mean over rows with a pair of the row's share of correct pairs, in exact fractions; the
    smallest epsilon of the largest value wins. Returns (value, epsilon, all-tied baseline)."""
    import itertools
    from fractions import Fraction

    pair_rows = []
    for row in rows:
        cells = [(h, m) for h, m in row if h is not None and m is not None]
        pairs = [(a[0] - b[0], a[1] - b[1]) for a, b in itertools.combinations(cells, 2)]
        if pairs:
            pair_rows.append(pairs)
    if not pair_rows:
        return float("nan"), float("nan"), float("nan")

    def value(eps):
        total = Fraction(0)
        for pairs in pair_rows:
            ok = sum(1 for dh, dm in pairs
                     if (abs(dm) > eps and dm * dh > 0) or (abs(dm) <= eps and dh == 0))
            total += Fraction(ok, len(pairs))
        return total / len(pair_rows)

    cands = sorted({0.0} | {abs(dm) for pairs in pair_rows for _, dm in pairs})
    best, best_eps = None, None
    for eps in cands:
        v = value(eps)
        if best is None or v > best:
            best, best_eps = v, eps
    base = sum(Fraction(sum(dh == 0 for dh, _ in p), len(p)) for p in pair_rows) / len(pair_rows)
    return float(best), best_eps, float(base)
