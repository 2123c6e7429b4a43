"""``meta --protocol``: a WMT metrics task's protocol (:mod:`mtstrata.meta.protocols`) run over
``meta``'s score tables, as mt-metrics-eval's ``TaskSet.Run`` then ``AverageCorrs`` and
``AverageCorrMatrix`` run it.

For each task: every metric's value; metrics ordered by (-value, name); with resamples, the
significance test of every pair i < j in that order (p that the metric above correlates
better), drawn in blocks of the protocol's size and stopped early at a block's end when
p < early_min or p > early_max; ranks by mt-metrics-eval's ``AssignRanks`` at p <= pval.
Overall: each metric's weighted mean of its normalised task values (only metrics defined in
every task); the null distribution of a difference of two metrics' means is the weighted sum
over tasks of their resampled differences, draw by draw (a task stopped early repeats its
draws up to the longest); clusters by ``AssignRanks`` again. Without resamples every metric is
its own rank (mt-metrics-eval's k = 0).

Ties by rule: within a task, counting statistics (accuracy, SPA, acc_eq) compare integers; the
correlations and the weighted sums compare within :data:`mtstrata.meta.sigdiff.TIE_TOL`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtstrata.meta.protocols import Protocol, Task, normalised
from mtstrata.meta.sigdiff import TIE_TOL

#: a block of draws: (n, generator) -> (delta, n draws, denominator or None for floats)
Draw = Callable[[int, np.random.Generator], tuple[Any, np.ndarray, int | None]]


@dataclass
class TaskResult:
    """One task's values, order, ranks and tests."""

    task: Task
    values: dict[str, float]
    counts: dict[str, dict[str, int]]
    order: list[str] = field(default_factory=list)
    ranks: dict[str, int] = field(default_factory=dict)
    #: (metric above, metric below) -> (p, draws used, the draws as differences of values)
    tests: dict[tuple[str, str], tuple[float, int, np.ndarray]] = field(default_factory=dict)


def assign_ranks(order: Sequence[str], p: Callable[[str, str], float], pval: float
                 ) -> dict[str, int]:
    """mt-metrics-eval's ``AssignRanks``: walking down ``order``, a metric opens a new rank
    when a metric of the current rank (from its first member) beats it at p <= pval."""
    ranks: dict[str, int] = {}
    rank, start = 1, 0
    for i, m in enumerate(order):
        if any(p(order[j], m) <= pval for j in range(start, i)):
            rank, start = rank + 1, i
        ranks[m] = rank
    return ranks


def _p(delta: Any, draws: np.ndarray, denominator: int | None) -> float:
    if denominator is not None:
        return float(np.mean(draws >= delta))
    return float(np.mean(draws >= delta - TIE_TOL))


def drawn(draw: Draw, k: int, seed: int | Sequence[int], protocol: Protocol
          ) -> tuple[float, int, np.ndarray]:
    """(p, draws used, the draws as value differences) of one test: blocks of
    ``protocol.block_size`` from one seeded generator until ``k`` or an early stop."""
    rng = np.random.default_rng(seed)
    parts: list[np.ndarray] = []
    delta: Any = None
    den: int | None = None
    done = 0
    while done < k:
        n = min(protocol.block_size, k - done)
        delta, block, den = draw(n, rng)
        if not len(block):
            return float("nan"), 0, np.empty(0)
        parts.append(block)
        done += n
        p = _p(delta, np.concatenate(parts), den)
        if done % protocol.block_size == 0 and not (
                protocol.early_min <= p <= protocol.early_max):
            break
    draws = np.concatenate(parts)
    p = _p(delta, draws, den)
    values = draws.astype(float) / den if den else draws.astype(float)
    return p, done, values


def run_task(task: Task, values: dict[str, float], counts: dict[str, dict[str, int]],
             draw_for: Callable[[str, str], Draw], protocol: Protocol, *, k: int,
             seed: int | Sequence[int]) -> TaskResult:
    """Order, tests and ranks of one task's defined values."""
    res = TaskResult(task, values, counts)
    res.order = sorted((m for m, v in values.items() if not math.isnan(v)),
                       key=lambda m: (-values[m], m))
    for i, a in enumerate(res.order):
        for b in res.order[i + 1:]:
            if k:
                res.tests[(a, b)] = drawn(draw_for(a, b), k, seed, protocol)
    # k = 0: mt-metrics-eval's significance matrix of zeros, every metric its own rank
    res.ranks = assign_ranks(res.order, lambda a, b: res.tests[(a, b)][0] if k else 0.0,
                             protocol.pval)
    return res


def task_draws(res: TaskResult, a: str, b: str) -> np.ndarray:
    """The resampled differences a - b of one task (either order stored)."""
    if (a, b) in res.tests:
        return res.tests[(a, b)][2]
    return -res.tests[(b, a)][2]


def average(results: Sequence[TaskResult]) -> dict[str, float]:
    """mt-metrics-eval's ``AverageCorrs``: each metric's weighted sum of normalised values,
    for the metrics defined in every task; by decreasing value (ties: the first task's
    order)."""
    if not results:
        return {}
    common = [m for m in results[0].order if all(m in r.order for r in results)]
    avg = {m: sum(r.task.weight * normalised(r.task.definition.statistic, r.values[m])
                  for r in results) for m in common}
    return dict(sorted(avg.items(), key=lambda kv: -kv[1]))


def average_ranks(results: Sequence[TaskResult], avg: dict[str, float], k: int,
                  pval: float) -> tuple[dict[str, int], dict[tuple[str, str], float]]:
    """mt-metrics-eval's ``AverageCorrMatrix``: (ranks, p of every pair above/below)."""
    order = list(avg)
    ps: dict[tuple[str, str], float] = {}
    if k:
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                per = []
                for r in results:
                    lo, hi = (-1.0, 1.0) if r.task.definition.statistic == "pearson" else (0, 1)
                    per.append(r.task.weight * task_draws(r, a, b) / (hi - lo))
                longest = max(len(d) for d in per)
                null = sum(np.resize(d, longest) for d in per)
                ps[(a, b)] = float(np.mean(null >= avg[a] - avg[b] - TIE_TOL))
    ranks = assign_ranks(order, lambda a, b: ps[(a, b)] if k else 0.0, pval)
    return ranks, ps
