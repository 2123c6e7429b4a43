"""Metric against metric: does metric A correlate better with the humans than metric B?

The two tests mt-metrics-eval (``mt_metrics_eval/stats.py``) offers, written here from their
definitions, and its significance clusters:

* **PERM-BOTH** (Deutsch et al. 2021, mt-metrics-eval's ``PermutationSigDiff``): both metrics'
  scores are z-scored over the items the statistic sees (so that a swap mixes comparable
  numbers); each of ``k`` resamples swaps the two metrics' scores item by item with probability
  1/2, and the statistic is recomputed for both hybrids with the statistic's own grouping
  (none, by item, by system: a correlation per group, averaged over the groups where it is
  defined). ``delta`` is statistic(A) - statistic(B); ``p`` (for "A correlates better than B")
  is the share of resamples whose hybrid difference is at least ``delta``. As there, a
  resample on which a hybrid's statistic is undefined counts it as 0. mt-metrics-eval may stop
  early at a multiple of 1000 resamples (p below 0.02 or above 0.5); here every resample is
  drawn (at 1000 resamples, its default, the two agree). The swaps are seeded
  (``numpy.random.default_rng(seed)``, afresh for each pair of metrics).
* **Williams' test** (Williams 1959; Graham & Baldwin 2014), mt-metrics-eval's
  ``WilliamsSigDiff`` / ``WilliamsTest``, for Pearson over ungrouped items: with r1, r2 the
  metrics' correlations with the humans, r12 theirs with each other and n the items,
  t = (r1 - r2) sqrt((n-1)(1+r12)) / sqrt(2 (n-1)/(n-3) K + ((r1+r2)/2)^2 (1-r12)^3),
  K = 1 - r1^2 - r2^2 - r12^2 + 2 r1 r2 r12, and the one-sided p is the Student t survival
  function of t with n - 3 degrees of freedom (scipy). mt-metrics-eval takes |t| (the p of
  whichever metric is ahead); here the sign is kept, so ``p`` always reads "A better than B":
  it is mt-metrics-eval's p when A is ahead and 1 minus it when A is behind. Two deliberate
  differences: r1, r2, r12 and n come from the items judged with both metrics (mt-metrics-eval
  takes r12 over every cell and counts unjudged cells in n, so its p is too small: WMT17 de-en
  segments, chrF vs METEOR-sy, 0.000 there and 0.203 here); and a constant metric's
  correlation is undefined, so its test is NaN (mt-metrics-eval counts it r = 0 and returns a
  finite p).
* **Clusters** (mt-metrics-eval's ``AssignRanks``, the ranks of the WMT metrics tasks):
  metrics sorted by decreasing statistic; a metric starts a new rank when a metric of its
  current rank (listed before it) correlates significantly better (p <= alpha).

**Ties by a rule.** For discrete statistics many resamples equal delta mathematically (with 14
systems pairwise accuracy moves in steps of 1/91), and ``d >= delta`` in floating point would
count an arbitrary subset of them. Here the observed statistic and the resampled ones come from
the same code, and a resampled difference equal to delta counts on both sides ("at least" and
"at most"): as integers for pairwise accuracy (:func:`steps_of`), within :data:`TIE_TOL` for
the correlations. So two statistics that are affine functions of each other (tau-b and
accuracy without ties) give the same p, and p can only be larger than with ties dropped, by the
tie share. mt-metrics-eval compares floats (``c2 - c1 >= delta``); this is a deliberate
difference (WMT17 de-en, METEOR-sy vs chrF: Kendall p 0.892 but accuracy p 0.760 from the same
permutations before the rule).

The resampled statistics are vectorised over the resamples where that is cheap (Pearson,
Spearman, system-level Kendall and pairwise accuracy, item-wise Kendall: equal to the
statistic row by row, tested). ``meta --versus`` runs these over its tables:
:mod:`mtstrata.meta.versus`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from mtstrata.meta.stats import CHUNK, _pearson_rows, kendall, kendall_grouped, pearson

Statistic = Callable[[np.ndarray, np.ndarray], float]
GroupedStatistic = Callable[[np.ndarray, np.ndarray, "np.ndarray | None"], float]


@dataclass(frozen=True)
class SigDiff:
    """One test of ``metric`` against ``versus`` on one statistic of one language pair.
    ``delta`` is metric minus versus; ``p`` is for "metric correlates better than versus";
    ``resamples`` is the number of permutations drawn (PERM-BOTH only)."""

    lp: str
    level: str
    statistic: str  # named as in the correlation records
    test: str  # "perm-both" or "williams"
    metric: str
    versus: str
    delta: float
    p: float
    resamples: int | None = None

    def to_dict(self) -> dict[str, object]:
        """Strict JSON: NaN as null; ``resamples`` only for the permutation test."""
        out: dict[str, object] = {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in (("lp", self.lp), ("level", self.level),
                         ("statistic", self.statistic), ("test", self.test),
                         ("metric", self.metric), ("versus", self.versus),
                         ("delta", self.delta), ("p", self.p))}
        if self.resamples is not None:
            out["resamples"] = self.resamples
        return out


def zscore(x: np.ndarray) -> np.ndarray:
    """(x - mean) / std (population std, scipy's ``zscore``); a constant side is centred only
    (its statistic is undefined whatever the scale). Overflow-safe: the scores are first
    divided by their largest magnitude (the z-scores do not depend on the scale), so one finite
    but huge score (1e200, whose square overflows) gives finite z-scores, not NaN."""
    x = np.asarray(x, float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        big = np.abs(x).max() if x.size else 0.0
        if np.isfinite(big) and big > 0:
            x = x / big
        sd = x.std()
        return (x - x.mean()) / (sd if sd > 0 else 1.0)


def grouped(stat: Statistic) -> GroupedStatistic:
    """``stat`` averaged over groups (mt-metrics-eval's ``average_by`` "item" or "sys"): its
    value in every group of at least two items, averaged over the groups where it is defined
    (NaN if none); without groups, ``stat`` over all items."""
    if stat is kendall:  # item-wise Kendall: groups of equal size evaluated together
        return lambda x, y, g: kendall(x, y) if g is None else kendall_grouped(x, y, g)

    def fn(x: np.ndarray, y: np.ndarray, g: np.ndarray | None) -> float:
        if g is None:
            return stat(x, y)
        vals = np.array([stat(x[g == v], y[g == v]) for v in np.unique(g)
                         if (g == v).sum() >= 2])
        vals = vals[~np.isnan(vals)]
        return float(vals.mean()) if vals.size else float("nan")

    fn.stat = stat  # type: ignore[attr-defined]
    return fn


#: the most item pairs per row for which the rank statistics compare a row's pairs directly,
#: vectorised over the resamples (system level); longer rows go through scipy, one at a time
ROW_PAIRS = 5000


def _itemwise_rows(x: np.ndarray, human: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Item-wise Kendall (:func:`~mtstrata.meta.stats.kendall_grouped`) of every row of
    ``x``: the groups of each size, of every row, evaluated together."""
    from mtstrata.meta.stats import _itemwise_taus

    order = np.argsort(groups, kind="stable")
    g = groups[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if g.size else np.empty(0, int)
    sizes = np.diff(np.r_[starts, g.size])
    rows = x.shape[0]
    taus = []
    for k in np.unique(sizes[sizes >= 2]):
        idx = order[starts[sizes == k][:, None] + np.arange(k)]  # (groups of size k, k)
        hs = np.broadcast_to(human[idx], (rows, *idx.shape)).reshape(-1, k)
        taus.append(_itemwise_taus(x[:, idx].reshape(-1, k), hs, "b").reshape(rows, -1))
    if not taus:
        return np.full(rows, np.nan)
    t = np.concatenate(taus, axis=1)
    ok = ~np.isnan(t)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok.any(1), np.where(ok, t, 0.0).sum(1) / ok.sum(1), np.nan)


def _on_rows(stat: Statistic, fn: GroupedStatistic, x: np.ndarray, human: np.ndarray,
             groups: np.ndarray | None) -> np.ndarray:
    """The statistic of every row of ``x`` (rows x items), NaN where it is undefined. Pearson,
    Spearman, short-row Kendall and pairwise accuracy, and item-wise Kendall are vectorised
    over the rows (the same numbers as the statistic row by row, tested); anything else is
    computed row by row. The observed statistics and the resampled ones both come from here:
    one code path, so equal values are equal floats."""
    from mtstrata.meta.stats import _row_counts, _sps, _tau, pairwise_accuracy, spearman

    n = x.shape[1]
    if groups is None and stat in (pearson, spearman):
        if stat is spearman:
            x, human = _sps().rankdata(x, axis=1), _sps().rankdata(human)
        return _pearson_rows(x, np.broadcast_to(human, x.shape))
    if (groups is None and stat in (kendall, pairwise_accuracy)
            and 0 < n * (n - 1) // 2 <= ROW_PAIRS):
        step = max(1, CHUNK // (n * (n - 1) // 2))
        parts = []
        for b in range(0, len(x), step):
            c = _row_counts(x[b:b + step], np.broadcast_to(human, x[b:b + step].shape))
            with np.errstate(invalid="ignore", divide="ignore"):
                parts.append(_tau(c, "b") if stat is kendall else np.where(
                    c.pairs > 0, (c.concordant + c.both_ties) / c.pairs, np.nan))
        return np.concatenate(parts)
    if groups is not None and stat is kendall:
        return _itemwise_rows(x, human, groups)
    return np.array([fn(row, human, groups) for row in x], float)


def _on_hybrids(stat: Statistic, fn: GroupedStatistic, x: np.ndarray, human: np.ndarray,
                groups: np.ndarray | None) -> np.ndarray:
    """:func:`_on_rows` with an undefined statistic counted as 0 (mt-metrics-eval's convention
    for a resample)."""
    return np.nan_to_num(_on_rows(stat, fn, x, human, groups), nan=0.0)


#: the tie rule of every permutation p-value here: a resampled difference within TIE_TOL of
#: the observed one is equal to it, counted on both sides (at least and at most delta). The
#: statistics lie in [-1, 1] and are computed with an error of about n x 1e-16; the steps
#: between their distinct values (2/n0 for tau-b without ties, 12/(n(n^2-1)) for Spearman)
#: are far above 1e-9 for the sizes tested. Counting statistics compare integers instead.
TIE_TOL = 1e-9


def steps_of(stat: Statistic, n_items: int, groups: np.ndarray | None = None) -> int | None:
    """The number of steps per unit of a counting statistic (its values times this number are
    integers: pairwise accuracy over n items, n(n-1)/2), or None for a continuous one."""
    from mtstrata.meta.stats import pairwise_accuracy

    if stat is pairwise_accuracy and groups is None and n_items >= 2:
        return n_items * (n_items - 1) // 2
    return None


def at_least(draws: np.ndarray, delta: float, steps: int | None = None) -> np.ndarray:
    """Which resampled differences are at least ``delta`` under the tie rule: as integers
    (``steps`` per unit: a counting statistic) or within :data:`TIE_TOL`."""
    draws = np.asarray(draws, float)
    if steps:
        return np.rint(draws * steps) >= round(delta * steps)
    return draws >= delta - TIE_TOL


def at_most(draws: np.ndarray, delta: float, steps: int | None = None) -> np.ndarray:
    """Which resampled differences are at most ``delta`` under the tie rule."""
    draws = np.asarray(draws, float)
    if steps:
        return np.rint(draws * steps) <= round(delta * steps)
    return draws <= delta + TIE_TOL


def _swaps(n_items: int, k: int, seed: int) -> Iterator[np.ndarray]:
    """Seeded (rows x n_items) boolean swap masks, ``k`` rows in all, a bounded block at a
    time (True: the hybrid takes the other metric's score there)."""
    rng = np.random.default_rng(seed)
    step = max(1, CHUNK // max(n_items, 1))
    for done in range(0, k, step):
        yield rng.integers(2, size=(min(step, k - done), n_items), dtype=bool)


def perm_both_draws(stat: Statistic, human: np.ndarray, metric: np.ndarray,
                    versus: np.ndarray, *, groups: np.ndarray | None = None, k: int = 1000,
                    seed: int = 12345) -> tuple[float, np.ndarray]:
    """(observed delta, the ``k`` resampled hybrid differences) of PERM-BOTH; items with a
    NaN on any side are left out first (mt-metrics-eval's filtering of missing gold scores).
    The delta is NaN (and no resample is drawn) when either statistic is undefined. The delta
    and the resamples come from the same code (:func:`_on_rows`)."""
    human, metric, versus = (np.asarray(a, float).ravel() for a in (human, metric, versus))
    keep = ~(np.isnan(human) | np.isnan(metric) | np.isnan(versus))
    groups = None if groups is None else np.asarray(groups).ravel()[keep]
    human, a, b = human[keep], zscore(metric[keep]), zscore(versus[keep])
    fn = grouped(stat)
    if not human.size:
        return float("nan"), np.empty(0)
    obs = _on_rows(stat, fn, np.vstack([a, b]), human, groups)
    delta = float(obs[0] - obs[1])
    if math.isnan(delta):
        return delta, np.empty(0)
    diffs = []
    for w in _swaps(human.size, k, seed):
        ha, hb = np.where(w, b, a), np.where(w, a, b)
        diffs.append(_on_hybrids(stat, fn, ha, human, groups)
                     - _on_hybrids(stat, fn, hb, human, groups))
    return delta, np.concatenate(diffs)


def perm_both(stat: Statistic, human: np.ndarray, metric: np.ndarray, versus: np.ndarray, *,
              groups: np.ndarray | None = None, k: int = 1000, seed: int = 12345
              ) -> tuple[float, float, float]:
    """PERM-BOTH: (delta = stat(metric) - stat(versus), p for "metric better", p for "versus
    better"). Both p-values come from the same resamples: a swap and its complement are
    equally likely, so the differences are symmetric under the null and "versus better" is
    the share at most ``delta``. Resampled differences equal to delta (:func:`at_least`: as
    integers for a counting statistic, within :data:`TIE_TOL` otherwise) count on both sides,
    so two statistics that are affine functions of each other give the same p. NaN p-values
    when delta is undefined."""
    delta, d = perm_both_draws(stat, human, metric, versus, groups=groups, k=k, seed=seed)
    if math.isnan(delta):
        return delta, float("nan"), float("nan")
    n = int((~(np.isnan(np.asarray(human, float)) | np.isnan(np.asarray(metric, float))
               | np.isnan(np.asarray(versus, float)))).sum())
    steps = steps_of(stat, n, groups)
    return (delta, float(at_least(d, delta, steps).mean()),
            float(at_most(d, delta, steps).mean()))


def williams(human: np.ndarray, metric: np.ndarray, versus: np.ndarray
             ) -> tuple[float, float, float]:
    """Williams' test of two dependent Pearson correlations sharing the human side:
    (delta = r(metric) - r(versus), one-sided p for "metric better", for "versus better"),
    on the items where all three scores are present (n counts those only). NaN when a
    correlation is undefined (a constant metric: mt-metrics-eval takes r = 0), fewer than four
    items, or K < 0 (rounding with |r| = 1)."""
    human, metric, versus = (np.asarray(a, float).ravel() for a in (human, metric, versus))
    keep = ~(np.isnan(human) | np.isnan(metric) | np.isnan(versus))
    human, metric, versus = human[keep], metric[keep], versus[keep]
    n = human.size
    r1, r2 = pearson(metric, human), pearson(versus, human)
    r12 = pearson(metric, versus)
    delta = r1 - r2
    if n < 4 or any(math.isnan(r) for r in (r1, r2, r12)):
        return delta, float("nan"), float("nan")
    big_k = 1 - r1**2 - r2**2 - r12**2 + 2 * r1 * r2 * r12
    den2 = 2 * (n - 1) / (n - 3) * big_k + ((r1 + r2) / 2) ** 2 * (1 - r12) ** 3
    if not den2 > 0:
        return delta, float("nan"), float("nan")
    t = (r1 - r2) * math.sqrt((n - 1) * (1 + r12)) / math.sqrt(den2)
    from scipy.stats import t as student_t  # lazy: scipy is slow to import

    return delta, float(student_t.sf(t, n - 3)), float(student_t.sf(-t, n - 3))


def ranks(values: dict[str, float], p_better: Callable[[str, str], float],
          alpha: float = 0.05) -> dict[str, int]:
    """Significance clusters (mt-metrics-eval's ``AssignRanks``): metrics by decreasing value
    (undefined ones left out); ``p_better(a, b)`` is the p of "a correlates better than b"."""
    order = sorted((m for m, v in values.items() if not math.isnan(v)),
                   key=lambda m: -values[m])
    out: dict[str, int] = {}
    rank, start = 1, 0
    for i, m in enumerate(order):
        if any(p_better(order[j], m) <= alpha for j in range(start, i)):
            rank, start = rank + 1, i
        out[m] = rank
    return out
