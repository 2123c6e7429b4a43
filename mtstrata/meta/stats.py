"""Meta-evaluation statistics on precomputed score arrays.

* Pearson r, Spearman rho (Pearson of average ranks), Kendall tau-b (ties in both variables
  corrected: tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)), Kendall 1945) and the other tau
  variants of mt-metrics-eval (``variant=``): ``"c"`` (Stuart's tau-c), ``"23"`` and
  ``"acc23"`` (Deutsch et al. 2023, "Ties Matter": ties in both variables count as agreement;
  acc23 = (C + T_xy) / n0 is pairwise accuracy with ties).
* Segment level: Pearson over the judged rows (WMT17 DA protocol, Bojar et al. 2017); item-wise
  Kendall (per segment across systems, averaged; :func:`kendall_grouped` takes judged rows and
  their segment ids) and flattened Kendall.
* Pairwise system accuracy (Kocmi et al. 2021), mt-metrics-eval's ``Agreement``: share of all
  system pairs whose metric difference has the sign of the human difference (ties included).
* Bootstrap intervals and the paired metric comparison: :mod:`mtstrata.meta.bootstrap`.

Cost: every statistic takes O(n log n) time and O(n) memory in the number of items n. Tau-b
is scipy's merge-sort Kendall; the other variants and pairwise accuracy come from the pair
counts of :func:`pair_counts` (C - D from scipy, tie counts from sorting); no n x n matrix is
ever built. Item-wise Kendall
compares the pairs of each item's few systems directly, a bounded number of rows at a time.

Degenerate data never raises: pairs with a NaN on either side are left out (for item-wise
Kendall, per item); a statistic with too few pairs left, or with a constant side (no variance
for Pearson, every pair tied for Kendall, every human pair tied for accuracy), is undefined.
**Undefined correlations are NaN; callers print them as – and write null in JSON.** Infinite
values are ordinary values for the rank statistics and make Pearson NaN. Pearson is computed on
standardised rows, so any finite scale of the scores (1e300, 1e-300) gives the same
coefficient, always within [-1, 1].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

CHUNK = 1 << 20  # values per bootstrap chunk / per block of item-wise pairs
VARIANTS = ("b", "c", "23", "acc23")



def _sps():  # noqa: ANN202
    """scipy.stats, imported on first use (it takes over a second: not on every command's
    start-up)."""
    import scipy.stats

    return scipy.stats

def _pairs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-D float arrays with the pairs holding a NaN on either side left out."""
    x = np.asarray(x, float).ravel()
    y = np.asarray(y, float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"paired scores differ in length: {x.size} and {y.size}.")
    keep = ~(np.isnan(x) | np.isnan(y))
    return (x, y) if keep.all() else (x[keep], y[keep])


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation coefficient (NaN if either side is constant, holds an infinity, or
    n < 2), computed as :func:`_pearson_rows` does: robust to any finite scale, in [-1, 1]."""
    x, y = _pairs(x, y)
    if x.size < 2:
        return float("nan")
    return float(_pearson_rows(x[None, :], y[None, :])[0])


def rankdata(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties share the mean of their positions (scipy)."""
    return _sps().rankdata(np.asarray(x, float), method="average").astype(float)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rho: Pearson of average ranks."""
    x, y = _pairs(x, y)
    return pearson(rankdata(x), rankdata(y))


@dataclass(frozen=True)
class PairCounts:
    """Sufficient statistics of the rank statistics over the n0 = n(n-1)/2 pairs of n items
    (scalars, or arrays with one value per row for :func:`_row_counts`).

    Attributes:
        n: items; pairs: n0; x_ties, y_ties: pairs tied in x (in y), whatever the other side;
        both_ties: pairs tied in both; s: C - D (concordant minus discordant pairs);
        distinct: min of the numbers of distinct x and y values (for tau-c).
    """

    n: np.ndarray
    pairs: np.ndarray
    x_ties: np.ndarray
    y_ties: np.ndarray
    both_ties: np.ndarray
    s: np.ndarray
    distinct: np.ndarray

    @property
    def concordant(self) -> np.ndarray:
        """C: pairs ordered the same way on both sides, with no tie."""
        return (self.pairs - self.x_ties - self.y_ties + self.both_ties + self.s) // 2

    @property
    def discordant(self) -> np.ndarray:
        """D: pairs ordered the opposite way, with no tie."""
        return self.concordant - self.s


def _ties(*cols: np.ndarray) -> tuple[int, int]:
    """(pairs of items equal in every column, distinct value tuples), from one sort."""
    if cols[0].size == 0:
        return 0, 0
    if len(cols) == 1:
        srt = np.sort(cols[0])
        change = srt[1:] != srt[:-1]
    else:
        order = np.lexsort(cols[::-1])
        change = np.zeros(cols[0].size - 1, bool)
        for c in cols:
            cs = c[order]
            change |= cs[1:] != cs[:-1]
    runs = np.diff(np.flatnonzero(np.r_[True, change, True])).astype(np.int64)
    return int((runs * (runs - 1) // 2).sum()), runs.size


def pair_counts(x: np.ndarray, y: np.ndarray) -> PairCounts:
    """Pair counts of two score lists (NaN pairs left out) in O(n log n) time, O(n) memory.

    C - D comes from scipy's tau-b (a merge-sort count of discordant pairs) times its
    denominator, rounded: an integer, recovered exactly (the floating-point error is about
    n^2 x 1e-16, below 0.05 for n < 10^7). Tie counts come from sorting.
    """
    x, y = _pairs(x, y)
    n = x.size
    pairs = n * (n - 1) // 2
    (tx, dx), (ty, dy), (txy, _) = _ties(x), _ties(y), _ties(x, y)
    s = 0
    if pairs > tx and pairs > ty:  # otherwise no pair is untied on both sides: C = D = 0
        tau = _sps().kendalltau(x, y).statistic
        s = int(round(float(tau) * np.sqrt(float(pairs - tx)) * np.sqrt(float(pairs - ty))))
    return PairCounts(*(np.int64(v) for v in (n, pairs, tx, ty, txy, s, min(dx, dy))))


def _row_counts(x: np.ndarray, y: np.ndarray) -> PairCounts:
    """:func:`pair_counts` of every row of two ``(rows, m)`` arrays, comparing each row's
    m(m-1)/2 pairs directly (m is small: systems of one item)."""
    valid = ~(np.isnan(x) | np.isnan(y))
    x = np.where(valid, x, np.nan)
    y = np.where(valid, y, np.nan)
    i, j = np.triu_indices(x.shape[1], 1)
    pv = valid[:, i] & valid[:, j]
    with np.errstate(invalid="ignore"):
        dx = np.sign(x[:, i] - x[:, j])
        dy = np.sign(y[:, i] - y[:, j])
    tx, ty = pv & (dx == 0), pv & (dy == 0)
    s = np.where(pv, dx * dy, 0.0).sum(1).astype(np.int64)

    def distinct(a: np.ndarray) -> np.ndarray:
        srt = np.sort(a, axis=1)  # NaN last
        return (~np.isnan(srt[:, :1])).sum(1) + (
            (srt[:, 1:] != srt[:, :-1]) & ~np.isnan(srt[:, 1:])).sum(1)

    n = valid.sum(1)
    return PairCounts(n, pv.sum(1), tx.sum(1), ty.sum(1), (tx & ty).sum(1), s,
                      np.minimum(distinct(x), distinct(y)))


def _tau(c: PairCounts, variant: str) -> np.ndarray:
    """A Kendall variant from pair counts (NaN where undefined)."""
    pairs, tx, ty = (np.asarray(v, float) for v in (c.pairs, c.x_ties, c.y_ties))
    s, txy = np.asarray(c.s, float), np.asarray(c.both_ties, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant == "b":
            ok = (pairs > tx) & (pairs > ty)
            val = s / np.sqrt(pairs - tx) / np.sqrt(pairs - ty)
        elif variant == "c":
            n, m = np.asarray(c.n, float), np.asarray(c.distinct, float)
            ok = (pairs > tx) & (pairs > ty)
            val = 2 * s / (n**2 * (m - 1) / m)
        elif variant in ("23", "acc23"):
            ok = pairs > 0
            val = (s + txy - (tx - txy) - (ty - txy)) / pairs if variant == "23" else \
                (np.asarray(c.concordant, float) + txy) / pairs
        else:
            raise ValueError(f"unknown Kendall variant {variant!r}; choose one of {VARIANTS}.")
    return np.where(ok, val, np.nan)


def kendall(x: np.ndarray, y: np.ndarray, variant: str = "b") -> float:
    """Kendall tau (``variant`` "b", "c", "23" or "acc23"; see the module docstring)."""
    if variant != "b":
        return float(_tau(pair_counts(x, y), variant))
    x, y = _pairs(x, y)  # tau-b straight from scipy: no tie counts needed
    if x.size < 2 or x.min() == x.max() or y.min() == y.max():
        return float("nan")
    return float(_sps().kendalltau(x, y).statistic)


def pairwise_accuracy(metric: np.ndarray, human: np.ndarray) -> float:
    """Pairwise accuracy (Kocmi et al. 2021) as mt-metrics-eval computes it
    (``stats.Agreement``): the share of all system pairs on which the sign of the metric's
    difference is the sign of the humans', (C + T_both) / n0. A pair tied by both agrees; a
    pair tied on one side only does not. (Before 0.2.0 mtstrata skipped pairs the humans tie,
    C / (n0 - T_human): the same number whenever no two human scores are equal.) Undefined
    (NaN) with fewer than two systems.
    """
    c = pair_counts(metric, human)
    return float((c.concordant + c.both_ties) / c.pairs) if c.pairs > 0 else float("nan")


def _itemwise_taus(metric: np.ndarray, human: np.ndarray, variant: str) -> np.ndarray:
    """Kendall of every row of two ``(rows, m)`` arrays, a block of rows at a time."""
    rows, m = metric.shape
    npairs = m * (m - 1) // 2
    if npairs > CHUNK // 16:  # long rows: each row on its own, O(m log m)
        return np.array([kendall(a, b, variant) for a, b in zip(metric, human, strict=True)])
    step = max(1, CHUNK // max(npairs, 1))
    return np.concatenate([_tau(_row_counts(metric[k:k + step], human[k:k + step]), variant)
                           for k in range(0, rows, step)] or [np.empty(0)])


def _nanmean(vals: np.ndarray) -> float:
    vals = vals[~np.isnan(vals)]
    return float(vals.mean()) if vals.size else float("nan")


def kendall_itemwise(metric: np.ndarray, human: np.ndarray, variant: str = "b") -> float:
    """Item-wise Kendall: tau per row (segment) across columns (systems), averaged.

    Rows where tau is undefined (a constant side, fewer than two non-NaN pairs) are skipped.
    """
    metric = np.atleast_2d(np.asarray(metric, float))
    human = np.atleast_2d(np.asarray(human, float))
    if metric.shape != human.shape:
        raise ValueError(f"paired scores differ in shape: {metric.shape} and {human.shape}.")
    return _nanmean(_itemwise_taus(metric, human, variant))


def kendall_grouped(metric: np.ndarray, human: np.ndarray, groups: np.ndarray,
                    variant: str = "b") -> float:
    """Item-wise Kendall over judged rows: tau within each group (segment id) of rows,
    averaged over the groups where it is defined (groups of one row never are).

    Equals ``kendall_itemwise`` applied to each group on its own, in O(n log n): rows are sorted
    by group once and groups of equal size are evaluated together.
    """
    metric, human = np.asarray(metric, float).ravel(), np.asarray(human, float).ravel()
    groups = np.asarray(groups).ravel()
    if not metric.shape == human.shape == groups.shape:
        raise ValueError("metric, human and groups differ in length.")
    order = np.argsort(groups, kind="stable")
    g = groups[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if g.size else np.empty(0, int)
    sizes = np.diff(np.r_[starts, g.size])
    taus = []
    for k in np.unique(sizes[sizes >= 2]):
        rows = order[starts[sizes == k][:, None] + np.arange(k)]
        taus.append(_itemwise_taus(metric[rows], human[rows], variant))
    return _nanmean(np.concatenate(taus)) if taus else float("nan")


def kendall_flat(metric: np.ndarray, human: np.ndarray, variant: str = "b") -> float:
    """Flattened Kendall: tau over all (segment, system) cells as one list."""
    return kendall(np.ravel(metric), np.ravel(human), variant)


STATISTICS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "pearson": pearson, "spearman": spearman, "kendall": kendall, "accuracy": pairwise_accuracy,
    "kendall_c": partial(kendall, variant="c"), "kendall_23": partial(kendall, variant="23"),
    "accuracy_23": partial(kendall, variant="acc23"),
}


def _unit_rows(a: np.ndarray) -> np.ndarray:
    """Each row scaled to a maximum magnitude of 1, centred, then scaled to unit length: no
    intermediate overflows or underflows whatever the data's finite scale (scores times 1e300
    or 1e-300 give the coefficient of the unscaled scores)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        big = np.abs(a).max(axis=1, keepdims=True)
        a = a / np.where(big > 0, big, 1.0)
        a = a - a.mean(axis=1, keepdims=True)
        norm = np.sqrt(np.einsum("ij,ij->i", a, a))[:, None]
        return a / np.where(norm > 0, norm, 1.0)


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson of every row pair, NaN for a row that is constant or holds an infinity.

    Rows are standardised first (:func:`_unit_rows`), so the products never overflow (scipy's
    ``pearsonr`` normalises the same way); the coefficient is clipped to [-1, 1], where it lies
    mathematically: rounding in the last bit (1.0000000000000002) is not a correlation.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    bad = ((x.min(1) == x.max(1)) | (y.min(1) == y.max(1))
           | ~np.isfinite(x).all(1) | ~np.isfinite(y).all(1))
    with np.errstate(invalid="ignore"):
        r = np.einsum("ij,ij->i", _unit_rows(x), _unit_rows(y))
    return np.where(bad, np.nan, np.clip(r, -1.0, 1.0))
