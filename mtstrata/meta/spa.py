"""Soft pairwise accuracy (SPA; Thompson et al. 2024), the system-level statistic of the WMT24
and WMT25 metrics tasks (mt-metrics-eval's ``PairwiseConfidenceError``, reported as 1 - PCE).

SPA compares, over every pair of systems, how confident the humans and the metric are that one
system is better than the other. For a (systems x segments) score matrix X and systems i < j:

* the observed difference is T_ij = sum_s (X_is - X_js) (sums; the same as means);
* a paired permutation test over segments draws N sign vectors sigma (one per permutation,
  shared by every pair and by both the human and the metric matrix) and counts
  c_ij = #{r : sum_s sigma_rs (X_is - X_js) >= T_ij}; p_ij = c_ij / N is the p-value of
  "system i is better than system j";
* SPA = 1 - mean over pairs of |p^human_ij - p^metric_ij|.

The sign vectors are mt-metrics-eval's: ``numpy.random.default_rng(4)`` draws an (N, n)
float32 matrix of uniforms u and a segment is swapped (sigma = -1) where u <= 0.5 (rounding to
the nearest integer, half to even); N = 1000. So SPA here and there use the same permutations.

**Ties by a rule.** sum_s sigma_rs (X_is - X_js) >= T_ij holds exactly when the sum of
X_is - X_js over the swapped segments is <= 0. That sum is computed in float64, and a value
within its rounding-error bound, (n + 1) 2^-52 (sum_s |X_is| + sum_s |X_js|), is taken as 0
(a tie, which counts): scores whose true non-zero differences exceed the bound (any grid of
1e-6 with sums up to 1e6) are compared exactly. mt-metrics-eval sums in float32 and compares
the two sums, so its last bit decides the permutations that tie (0.4-1.1% of them on metric
scores with three decimals; SPA moves by up to 2e-4).

**Conventions.** Systems are taken in the order given; ``meta`` sorts them by name
(:func:`by_name`), as the reference values of mt-metrics-eval here were computed. The order
matters only through ties: reversing a pair gives p_ji = 1 - p_ij + t_ij, t_ij the share of
tying permutations (mt-metrics-eval's order is a Python set's, which changes between runs).
The matrix holds the segments judged for every system (mt-metrics-eval reshapes the judged
cells into a matrix and fails, or misaligns, when the judged segments differ between systems);
``meta`` reports how many. A metric's system score is implied by its segment scores on those
segments, not read from a system-level file.
"""

from __future__ import annotations

import numpy as np

PERMUTATIONS = 1000  #: mt-metrics-eval's number of permutations
MASK_SEED = 4  #: its fixed seed of the sign vectors
_EPS = 2.0 ** -52
_BLOCK = 1 << 22  # floats per block of permutation sums


def swapped(n_segments: int, permutations: int = PERMUTATIONS) -> np.ndarray:
    """(permutations, n_segments) booleans, True where a permutation swaps the segment's two
    systems: mt-metrics-eval's sign vectors (seed 4, float32 uniforms, u <= 0.5 swapped)."""
    u = np.random.default_rng(MASK_SEED).random((permutations, n_segments), dtype=np.float32)
    return u <= np.float32(0.5)


def pair_index(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of every pair i < j, row by row (the upper triangle's order)."""
    return np.triu_indices(n_systems, 1)


def p_counts(x: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """c_ij for every pair i < j (upper-triangle order) of the (systems x segments) matrix
    ``x``, or of a stack (batch, systems, segments): the number of permutations whose permuted
    difference is at least the observed one, ties counted (see the module docstring)."""
    x = np.asarray(x, float)
    stack = x if x.ndim == 3 else x[None]
    b, s, n = stack.shape
    i, j = pair_index(s)
    f = flips.astype(float)
    mag = np.abs(stack).sum(axis=2)  # (b, s)
    tol = (n + 1) * _EPS * (mag[:, i] + mag[:, j])  # (b, pairs)
    out = np.zeros((b, i.size), dtype=np.int64)
    step = max(1, _BLOCK // max(f.shape[0] * max(i.size, s), 1))  # bounds (N, step, pairs)
    for lo in range(0, b, step):
        part = stack[lo:lo + step]
        sums = (f @ part.reshape(-1, n).T).reshape(f.shape[0], -1, s)  # (N, batch, s)
        diff = sums[:, :, i] - sums[:, :, j]  # (N, batch, pairs)
        out[lo:lo + step] = (diff <= tol[lo:lo + step][None]).sum(axis=0)
    return out if x.ndim == 3 else out[0]


def p_values(x: np.ndarray, permutations: int = PERMUTATIONS) -> np.ndarray:
    """The (systems x systems) matrix of p_ij (upper triangle; NaN elsewhere), as
    mt-metrics-eval's ``compute_pairwise_p_values`` lays it out."""
    x = np.asarray(x, float)
    s = x.shape[0]
    out = np.full((s, s), np.nan)
    i, j = pair_index(s)
    out[i, j] = p_counts(x, swapped(x.shape[1], permutations)) / permutations
    return out


def spa_steps(n_systems: int, permutations: int = PERMUTATIONS) -> int:
    """SPA times this number is an integer: permutations x pairs."""
    return permutations * n_systems * (n_systems - 1) // 2


def spa_from_counts(human_counts: np.ndarray, metric_counts: np.ndarray,
                    permutations: int = PERMUTATIONS) -> np.ndarray:
    """SPA x :func:`spa_steps`, an integer (of every row of a stack of metric counts):
    steps minus the summed |c^human - c^metric|."""
    h = np.asarray(human_counts, np.int64)
    m = np.asarray(metric_counts, np.int64)
    return h.shape[-1] * permutations - np.abs(m - h).sum(axis=-1)


def spa(human: np.ndarray, metric: np.ndarray, permutations: int = PERMUTATIONS) -> float:
    """SPA of a metric's (systems x segments) scores against the humans' (same shape, no
    missing cell; higher is better on both sides). NaN with fewer than two systems or no
    segment."""
    human, metric = np.asarray(human, float), np.asarray(metric, float)
    if human.shape != metric.shape or human.ndim != 2:
        raise ValueError(f"SPA needs two (systems x segments) matrices of one shape, got "
                         f"{human.shape} and {metric.shape}.")
    s, n = human.shape
    if s < 2 or n < 1:
        return float("nan")
    flips = swapped(n, permutations)
    steps = spa_steps(s, permutations)
    got = spa_from_counts(p_counts(human, flips), p_counts(metric, flips), permutations)
    return float(got) / steps


def by_name(seg_sys: np.ndarray, systems: list[str]) -> np.ndarray:
    """Judged rows' system positions renumbered so that the systems are in sorted-name order
    (SPA's fixed order: see the module docstring)."""
    rank = np.empty(len(systems), int)
    rank[np.argsort(np.array(systems, dtype=object), kind="stable")] = np.arange(len(systems))
    return rank[np.asarray(seg_sys, int)]


def common_segments(seg_sys: np.ndarray, seg_idx: np.ndarray, n_systems: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The segments judged exactly once for every one of ``n_systems`` systems (sorted), and
    for each judged row its column among them (-1 for a row of another segment)."""
    seg_sys, seg_idx = np.asarray(seg_sys, int), np.asarray(seg_idx, int)
    if not seg_idx.size or n_systems < 1:
        return np.empty(0, int), np.full(seg_idx.size, -1)
    cells = np.unique(seg_idx * n_systems + seg_sys, return_counts=True)
    once = cells[0][cells[1] == 1]
    per = np.bincount(once // n_systems, minlength=int(seg_idx.max()) + 1)
    twice = np.unique(cells[0][cells[1] > 1] // n_systems)
    ok = per == n_systems
    ok[twice] = False
    segs = np.flatnonzero(ok)
    col = np.full(int(seg_idx.max()) + 1, -1)
    col[segs] = np.arange(segs.size)
    return segs, col[seg_idx]


def matrix(values: np.ndarray, seg_sys: np.ndarray, columns: np.ndarray, n_systems: int,
           n_columns: int) -> np.ndarray:
    """Judged-row ``values`` laid out as (systems x common segments); rows of other segments
    (column -1) left out."""
    keep = columns >= 0
    out = np.full((n_systems, n_columns), np.nan)
    out[np.asarray(seg_sys)[keep], columns[keep]] = np.asarray(values, float)[keep]
    return out


def test_draws(human: np.ndarray, metric: np.ndarray, versus: np.ndarray, *, k: int,
               seed: int | np.random.Generator, permutations: int = PERMUTATIONS
               ) -> tuple[int, np.ndarray, int]:
    """mt-metrics-eval's significance test of SPA (``PermutationSigDiff`` with SPA inside,
    perm_test ``scores``): both metrics' (systems x segments) scores z-scored over all cells;
    each of ``k`` resamples swaps the two metrics cell by cell with a fair coin and computes
    SPA of both hybrids with the same sign vectors (the humans' p-values do not change).

    Returns:
        (observed SPA difference, the ``k`` resampled differences, the denominator
        :func:`spa_steps`): integers, so ties are exact.
    """
    from mtstrata.meta.sigdiff import zscore

    human = np.asarray(human, float)
    s, n = human.shape
    steps = spa_steps(s, permutations)
    a = zscore(np.asarray(metric, float).ravel()).reshape(s, n)
    b = zscore(np.asarray(versus, float).ravel()).reshape(s, n)
    flips = swapped(n, permutations)
    hc = p_counts(human, flips)
    obs = spa_from_counts(hc, p_counts(np.stack([a, b]), flips), permutations)
    delta = int(obs[0] - obs[1])
    rng = np.random.default_rng(seed)
    out = np.empty(k, np.int64)
    step = 16
    for lo in range(0, k, step):
        w = rng.integers(2, size=(min(step, k - lo), s, n), dtype=bool)
        hybrids = np.concatenate([np.where(w, b, a), np.where(w, a, b)])
        got = spa_from_counts(hc, p_counts(hybrids, flips), permutations)
        out[lo:lo + w.shape[0]] = got[:w.shape[0]] - got[w.shape[0]:]
    return delta, out, steps


def judged_test_draws(human: np.ndarray, metric: np.ndarray, versus: np.ndarray,
                      seg_sys: np.ndarray, seg_idx: np.ndarray, n_systems: int, *, k: int,
                      seed: int | np.random.Generator) -> tuple[int, np.ndarray, int]:
    """:func:`test_draws` of two metrics' judged-row scores, on the segments judged (and
    scored by both) for every system; denominator 0 (no draw) when there is none."""
    ok = ~(np.isnan(human) | np.isnan(metric) | np.isnan(versus))
    segs, cols = common_segments(seg_sys[ok], seg_idx[ok], n_systems)
    if n_systems < 2 or not segs.size:
        return 0, np.empty(0, np.int64), 0
    lay = [matrix(v[ok], seg_sys[ok], cols, n_systems, segs.size)
           for v in (human, metric, versus)]
    return test_draws(*lay, k=k, seed=seed)
