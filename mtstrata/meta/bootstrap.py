"""Bootstrap over items: percentile confidence intervals of a meta-evaluation statistic, and a
paired test of "metric X correlates better than metric Y" resampling the same items for both
(Koehn 2004 style). All seeded.

Resamples are drawn in chunks of at most :data:`CHUNK` values (memory
linear in the number of items) from the same seeded stream as one (resamples x n) draw, so
intervals do not depend on the chunking. Resamples on which the statistic is undefined are
left out; when the statistic itself or every resample is undefined, the interval is
(NaN, NaN). Pearson is vectorised over the resamples (one matrix product).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mtstrata.meta.stats import _pearson_rows, pearson

CHUNK = 1 << 20  # values per chunk of resampled indices


def _resamples(n_items: int, n: int, seed: int):
    """Seeded bootstrap index rows in blocks of at most ``CHUNK`` values: the same rows as
    ``default_rng(seed).integers(0, n_items, size=(n, n_items))``."""
    rng = np.random.default_rng(seed)
    step = max(1, CHUNK // max(n_items, 1))
    for k in range(0, n, step):
        yield rng.integers(0, n_items, size=(min(step, n - k), n_items))


def _on_resamples(stat: Callable[[np.ndarray, np.ndarray], float], metric: np.ndarray,
                  human: np.ndarray, idx: np.ndarray) -> np.ndarray:
    if stat is pearson:  # vectorised: one matrix product instead of one call per resample
        return _pearson_rows(metric[idx], human[idx])
    return np.array([stat(metric[i], human[i]) for i in idx], float)


def _prepare(*arrays: np.ndarray) -> list[np.ndarray]:
    """Float arrays; 1-D ones without the items that hold a NaN in any of them."""
    arrs = [np.asarray(a, float) for a in arrays]
    if len({len(a) for a in arrs}) > 1:
        raise ValueError("paired scores differ in length.")
    if all(a.ndim == 1 for a in arrs):
        keep = ~np.any([np.isnan(a) for a in arrs], axis=0)
        if not keep.all():
            arrs = [a[keep] for a in arrs]
    return arrs


def _check(n: int, alpha: float = 0.05) -> None:
    if n < 0 or not 0 < alpha < 1:
        raise ValueError(f"bootstrap needs n >= 0 resamples and 0 < alpha < 1 (got {n}, "
                         f"{alpha}).")


def bootstrap_ci(stat: Callable[[np.ndarray, np.ndarray], float], metric: np.ndarray,
                 human: np.ndarray, *, n: int = 1000, alpha: float = 0.05, seed: int = 12345
                 ) -> tuple[float, float, float]:
    """Percentile bootstrap CI of ``stat(metric, human)`` resampling items with replacement.

    Items (rows of 2-D input) are resampled; for 1-D input, items with a NaN on either side
    are left out first. Resamples where ``stat`` is undefined are left out; the interval is
    (NaN, NaN) when the statistic or every resample is undefined (or ``n == 0``).

    Returns:
        ``(value, low, high)``.
    """
    _check(n, alpha)
    metric, human = _prepare(metric, human)
    value = float(stat(metric, human)) if len(metric) else float("nan")
    if np.isnan(value) or n == 0:
        return value, float("nan"), float("nan")
    vals = np.concatenate([_on_resamples(stat, metric, human, idx)
                           for idx in _resamples(len(metric), n, seed)])
    vals = vals[~np.isnan(vals)]
    if not vals.size:
        return value, float("nan"), float("nan")
    lo, hi = np.quantile(vals, [alpha / 2, 1 - alpha / 2])
    return value, float(lo), float(hi)


@dataclass(frozen=True)
class MetricComparison:
    """Does metric X correlate better with humans than metric Y: delta = stat(X) - stat(Y),
    its 95% bootstrap interval and the one-sided p (all NaN when undefined)."""

    delta: float
    low: float
    high: float
    p: float
    seed: int
    n: int


def compare_metrics(stat: Callable[[np.ndarray, np.ndarray], float], metric_x: np.ndarray,
                    metric_y: np.ndarray, human: np.ndarray, *, n: int = 1000,
                    seed: int = 12345) -> MetricComparison:
    """Paired bootstrap test: does metric X correlate better with humans than metric Y?

    Both metrics are evaluated on the same resampled items (for 1-D input, items with a NaN in
    X, Y or the human scores are left out first); the p-value is the share of resamples in
    which X does not beat Y (one-sided, H0: X <= Y), over the resamples where both are defined.
    ``delta``, ``low``, ``high`` and ``p`` are NaN when undefined.

    Returns:
        A :class:`MetricComparison`.
    """
    _check(n)
    mx, my, h = _prepare(metric_x, metric_y, human)
    nan = float("nan")
    if not len(h):
        return MetricComparison(nan, nan, nan, nan, seed, n)
    delta = float(stat(mx, h)) - float(stat(my, h))
    if np.isnan(delta) or n == 0:
        return MetricComparison(delta, nan, nan, nan, seed, n)
    d = np.concatenate([_on_resamples(stat, mx, h, idx) - _on_resamples(stat, my, h, idx)
                        for idx in _resamples(len(h), n, seed)])
    d = d[~np.isnan(d)]
    if not d.size:
        return MetricComparison(delta, nan, nan, nan, seed, n)
    lo, hi = np.quantile(d, [0.025, 0.975])
    return MetricComparison(delta, float(lo), float(hi), float((d <= 0).mean()), seed, n)
