"""The O(n^2) meta-evaluation statistics mtstrata had before they were made O(n log n):
sign matrices over all pairs. Kept as the reference that tests/test_stats_scale.py compares the
new code with, and that benchmarks/bench_meta.py times for the before/after figures."""

from __future__ import annotations

import numpy as np

from mtstrata.combine import stats


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


def old_grouped(judged, human, seg_idx):  # combine/report.py's _itemwise as it was
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
