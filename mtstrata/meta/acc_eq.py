"""Tie-calibrated pairwise accuracy (acc_eq; Deutsch, Foster & Freitag 2023, "Ties Matter"),
the segment-level statistic of the WMT23-WMT25 metrics tasks (mt-metrics-eval's
``KendallWithTiesOpt`` with variant acc23, computed here from its definition).

Rows ("groups") are formed as mt-metrics-eval's ``average_by`` forms them: ``none`` one row of
every judged cell, ``item`` one row per segment (its judged systems), ``sys`` one row per
system (its judged segments). Within a row every unordered pair of cells with a human and a
metric score is compared. For a threshold epsilon >= 0 a pair is correct when

* the metric's difference exceeds epsilon and has the sign of the humans' (non-zero) one, or
* the metric's difference is at most epsilon (a metric tie) and the humans tie exactly;

acc(epsilon) is the share of correct pairs in each row, averaged over the rows that have a pair
(each row counts once, whatever its number of pairs). acc_eq is its maximum over epsilon in
{0} and every distinct |metric difference| of a pair, at the smallest maximising epsilon; at
epsilon = 0 it is acc23. The all-tied ``baseline`` is what a constant metric scores: the share
of pairs the humans tie, averaged over rows.

**Exact counts.** Each row's correct pairs are integers; the average over rows is compared
across thresholds exactly (a common denominator, the lcm of the rows' pair counts), so the
maximum and its epsilon do not depend on rounding. mt-metrics-eval keeps a running float sum
and can pick a later threshold of exactly the same accuracy (values agree within 1e-12).
Only the whole set of pairs is supported (its ``sample_rate`` 1.0, which every WMT task uses).

Cost: O(P log P) time for P pairs and about 20 bytes per pair (``none`` on 7,378 judged cells:
27 million pairs).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

GROUPINGS = ("none", "item", "sys")
_BLOCK = 1 << 22  # pairs per block


@dataclass(frozen=True)
class AccEq:
    """acc_eq of one metric: the value, its epsilon (metric units), the pairs compared, the
    rows with a pair, and the all-tied baseline (all NaN when no row has a pair)."""

    value: float
    epsilon: float
    pairs: int
    rows: int
    baseline: float


def _rows(groups: np.ndarray | None, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(cell order sorted by group, start of each group in it); one group without groups."""
    if groups is None:
        return np.arange(n), np.zeros(1 if n else 0, int)
    groups = np.asarray(groups).ravel()
    order = np.argsort(groups, kind="stable")
    g = groups[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if n else np.empty(0, int)
    return order, starts


def _long_row(m: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(i, j) of the pairs i < j of a row of ``m`` cells, first cell by first cell, a bounded
    block at a time (never the m(m-1)/2 index arrays at once)."""
    firsts = np.arange(m - 1)
    per = m - 1 - firsts  # pairs opened by each first cell
    ends = np.cumsum(per)
    lo = 0
    while lo < m - 1:
        hi = int(np.searchsorted(ends, ends[lo] - per[lo] + _BLOCK, side="right"))
        hi = max(hi, lo + 1)
        a = np.repeat(firsts[lo:hi], per[lo:hi])
        start = np.repeat(ends[lo:hi] - per[lo:hi], per[lo:hi])
        b = np.arange(start[0], start[0] + a.size) - start + a + 1
        yield a, b
        lo = hi


def pair_blocks(groups: np.ndarray | None, n: int
                ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(first cells, second cells, row ids) of every unordered pair of cells within a row,
    rows numbered in group order, a bounded block of pairs at a time."""
    order, starts = _rows(groups, n)
    sizes = np.diff(np.r_[starts, n])
    for m in np.unique(sizes[sizes >= 2]):
        rows = np.flatnonzero(sizes == m)
        i, j = np.triu_indices(int(m), 1) if m * (m - 1) // 2 <= _BLOCK else (None, None)
        if i is not None:
            per = max(1, _BLOCK // i.size)
            for lo in range(0, rows.size, per):
                r = rows[lo:lo + per]
                cells = order[starts[r][:, None] + np.arange(m)]
                yield cells[:, i].ravel(), cells[:, j].ravel(), np.repeat(r, i.size)
            continue
        for r in rows:  # a long row (none, sys)
            cells = order[starts[r]:starts[r] + m]
            for a, b in _long_row(int(m)):
                yield cells[a], cells[b], np.full(a.size, r)


def row_sizes(groups: np.ndarray | None, n: int) -> np.ndarray:
    """Cells per row, rows in group order."""
    _, starts = _rows(groups, n)
    return np.diff(np.r_[starts, n])


def _outcomes(metric: np.ndarray, human: np.ndarray, a: np.ndarray, b: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: |metric difference|, humans tie, correct while untied."""
    dh = human[a] - human[b]
    dm = metric[a] - metric[b]
    correct = ((dh > 0) & (dm > 0)) | ((dh < 0) & (dm < 0))
    return np.abs(dm), dh == 0, correct


def clean(metric: np.ndarray, human: np.ndarray, groups: np.ndarray | None
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Float cells without those holding a NaN on either side (and their groups)."""
    metric, human = np.asarray(metric, float).ravel(), np.asarray(human, float).ravel()
    if metric.shape != human.shape:
        raise ValueError(f"paired scores differ in length: {metric.size} and {human.size}.")
    keep = ~(np.isnan(metric) | np.isnan(human))
    g = None if groups is None else np.asarray(groups).ravel()[keep]
    return metric[keep], human[keep], g


def acc_eq(metric: np.ndarray, human: np.ndarray, groups: np.ndarray | None = None) -> AccEq:
    """acc_eq of judged cells (``groups``: each cell's row id; None: one row). Cells with a
    NaN on either side are left out."""
    metric, human, groups = clean(metric, human, groups)
    sizes = row_sizes(groups, metric.size)
    pairs = sizes * (sizes - 1) // 2
    used = pairs > 0
    if not used.any():
        nan = float("nan")
        return AccEq(nan, nan, 0, 0, nan)
    classes, cls_of_row = np.unique(pairs[used], return_inverse=True)
    row_cls = np.full(sizes.size, -1)
    row_cls[used] = cls_of_row
    base = np.zeros(classes.size, np.int64)  # correct pairs at epsilon 0, per class
    ties = np.zeros(sizes.size, np.int64)  # human-tied pairs, per row
    moves: dict[tuple[int, int], list[np.ndarray]] = {}
    for a, b, r in pair_blocks(groups, metric.size):
        d, hz, ok = _outcomes(metric, human, a, b)
        gain = hz.astype(np.int8) - ok.astype(np.int8)  # correct count change when tied
        k = row_cls[r]
        zero = d == 0
        base += np.bincount(k, weights=ok | (zero & hz), minlength=classes.size).astype(
            np.int64)
        ties += np.bincount(r, weights=hz, minlength=sizes.size).astype(np.int64)
        move = (gain != 0) & ~zero
        for sign in (1, -1):
            sel = move & (gain == sign)
            for kk in np.unique(k[sel]):
                moves.setdefault((int(kk), sign), []).append(d[sel & (k == kk)])
    sorted_moves = {key: np.sort(np.concatenate(v)) for key, v in moves.items()}
    n_rows = int(used.sum())
    eps, best = _maximise(sorted_moves, classes, base, n_rows)
    baseline = float(np.mean(ties[used] / pairs[used]))
    return AccEq(best, eps, int(pairs.sum()), n_rows, baseline)


def _maximise(moves: dict[tuple[int, int], np.ndarray], classes: np.ndarray,
              base: np.ndarray, n_rows: int) -> tuple[float, float]:
    """(smallest maximising epsilon, the maximum) from the sorted |differences| of the pairs
    whose correctness changes when tied (``moves[(class, +1 or -1)]``), the classes (pairs per
    row) and their correct counts at epsilon 0. Values are evaluated in floats first (counts
    exact, one division per class), then the candidates within 1e-9 of the maximum are
    compared exactly."""
    parts = [v for v in moves.values() if v.size]
    cand = np.unique(np.concatenate([np.zeros(1), *parts]))

    def counts(k: int, at: np.ndarray) -> np.ndarray:
        out = np.full(at.size, int(base[k]), np.int64)
        for sign in (1, -1):
            ds = moves.get((k, sign))
            if ds is not None:
                out += sign * np.searchsorted(ds, at, side="right")
        return out

    values = np.zeros(cand.size)
    for k in range(classes.size):
        values += counts(k, cand) / float(classes[k])
    values /= n_rows
    near = np.flatnonzero(values >= values.max() - 1e-9)
    lcm = math.lcm(*(int(x) for x in classes))
    exact = [0] * near.size
    for k in range(classes.size):
        mult = lcm // int(classes[k])
        for i, t in enumerate(counts(k, cand[near]).tolist()):
            exact[i] += mult * t
    top = max(exact)
    pick = near[exact.index(top)]  # the first: the smallest epsilon
    return float(cand[pick]), top / (lcm * n_rows)


#: the most pairs the pair-swapping permutation test takes (it holds every pair's outcome)
TEST_PAIRS = 5_000_000


def correct_at(metric: np.ndarray, human: np.ndarray, groups: np.ndarray | None,
               epsilon: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row of each pair, pairs per row, whether each pair is correct at ``epsilon``) over
    the cells given (already cleaned of NaN), pairs in :func:`pair_blocks` order."""
    sizes = row_sizes(groups, metric.size)
    rows, correct = [], []
    for a, b, r in pair_blocks(groups, metric.size):
        d, hz, ok = _outcomes(metric, human, a, b)
        rows.append(r)
        correct.append(np.where(d > epsilon, ok, hz))
    cat = (lambda x, dt: np.concatenate(x) if x else np.empty(0, dt))  # noqa: E731
    return cat(rows, int), sizes * (sizes - 1) // 2, cat(correct, bool)


def pairs_test_draws(human: np.ndarray, metric: np.ndarray, versus: np.ndarray,
                     groups: np.ndarray | None, eps: tuple[float, float], *, k: int,
                     seed: int) -> tuple[int, np.ndarray, int]:
    """mt-metrics-eval's pair-swapping permutation test of acc_eq (``PairwisePermutationSigDiff``):
    each metric's pair outcomes at its own epsilon (``eps``, calibrated on its own cells);
    each of ``k`` resamples takes every pair's outcome from one metric or the other with a fair
    coin, independently per pair of each row, and the two hybrids' acc23 (row averages) are
    differenced. Cells with a NaN on any side are left out first.

    Returns:
        (observed difference, the ``k`` resampled differences, the denominator): integers
        over the denominator (lcm of the rows' pair counts times the rows), so ties are exact.
    """
    human, metric, versus = (np.asarray(a, float).ravel() for a in (human, metric, versus))
    keep = ~(np.isnan(human) | np.isnan(metric) | np.isnan(versus))
    g = None if groups is None else np.asarray(groups).ravel()[keep]
    h, m, v = human[keep], metric[keep], versus[keep]
    rows, per_row, c1 = correct_at(m, h, g, eps[0])
    c2 = correct_at(v, h, g, eps[1])[2]
    used = per_row > 0
    if not used.any():
        return 0, np.empty(0, np.int64), 0
    lcm = math.lcm(*(int(x) for x in np.unique(per_row[used])))
    denominator = lcm * int(used.sum())
    big = lcm >= 2**62
    mult = np.array([lcm // int(x) if x else 0 for x in per_row], object if big else np.int64)
    weight = (c1.astype(np.int64) - c2.astype(np.int64)) * mult[rows]
    differ = weight != 0
    e = weight[differ]
    delta = int(e.sum())
    rng = np.random.default_rng(seed)
    small = not big and int(np.abs(e).sum()) < 2**52  # integer sums in float64 are exact below 2^53
    out = np.empty(k, np.int64 if small else object)
    step = max(1, (1 << 22) // max(e.size, 1))
    for lo in range(0, k, step):
        swap = rng.integers(2, size=(min(step, k - lo), e.size), dtype=bool)
        moved = (np.rint(swap.astype(float) @ e.astype(float)).astype(np.int64) if small
                 else swap.astype(object) @ e.astype(object))
        out[lo:lo + swap.shape[0]] = delta - 2 * moved
    return delta, out, denominator
