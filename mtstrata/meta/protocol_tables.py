"""A protocol's tasks (:mod:`mtstrata.meta.protocols`) on ``meta``'s score tables: each task's
values and counts per metric, and its significance test between two metrics as blocks of draws
(:data:`mtstrata.meta.protocol_run.Draw`), then the whole protocol run
(:func:`run_protocol`).

Values: pooled system accuracy (agreeing system pairs over all pairs, pairs within each
language pair), system and segment Pearson (judged rows), SPA
(:func:`mtstrata.meta.wmt_records.spa_value`) and item-wise acc_eq. Tests: PERM-BOTH for
Pearson (:func:`mtstrata.meta.sigdiff.perm_both_draws`) and for pooled accuracy (both metrics
z-scored over every system of every pair, systems swapped, counts compared as integers), cell
swaps for SPA (:func:`mtstrata.meta.spa.judged_test_draws`), pair swaps for acc_eq
(:func:`mtstrata.meta.acc_eq.pairs_test_draws`, each metric at its own epsilon).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mtstrata.meta import spa as _spa
from mtstrata.meta.acc_eq import acc_eq, pairs_test_draws
from mtstrata.meta.protocol_run import (
    Draw,
    TaskResult,
    average,
    average_ranks,
    run_task,
)
from mtstrata.meta.protocols import Protocol, Task, tasks
from mtstrata.meta.sigdiff import perm_both_draws, zscore
from mtstrata.meta.stats import _row_counts, pair_counts, pearson
from mtstrata.meta.wmt_records import spa_value

#: per language pair: metric -> oriented (system scores, judged segment scores)
Arrays = Mapping[str, Mapping[str, tuple[np.ndarray, np.ndarray]]]


@dataclass
class ProtocolResult:
    """A protocol run: its tasks' results, the overall means, ranks and p-values."""

    protocol: Protocol
    lps: list[str]
    results: list[TaskResult]
    average: dict[str, float]
    ranks: dict[str, int]
    pvalues: dict[tuple[str, str], float]
    resamples: int
    seed: int
    left_out: dict[str, list[str]]  # metric -> tasks where it is undefined


def _pooled_value(tables: Sequence[Any], arrays: Arrays, m: str) -> tuple[float, int]:
    agree = total = systems = 0
    for t in tables:
        c = pair_counts(arrays[t.lp][m][0], t.sys_human)
        agree, total = agree + int(c.concordant + c.both_ties), total + int(c.pairs)
        systems += int(c.n)
    return (agree / total if total else float("nan")), systems


def task_values(task: Task, tables: Sequence[Any], arrays: Arrays, metrics: Sequence[str]
                ) -> tuple[dict[str, float], dict[str, dict[str, Any]]]:
    """(metric -> value, metric -> the counts and fields it rests on) of one task."""
    d = task.definition
    values: dict[str, float] = {}
    counts: dict[str, dict[str, Any]] = {}
    if d.pooled:
        for m in metrics:
            values[m], n = _pooled_value(tables, arrays, m)
            counts[m] = {"n_systems": n}
        return values, counts
    t = next(x for x in tables if x.lp == task.lp)
    for m in metrics:
        sys_, judged = arrays[t.lp][m]
        if d.statistic == "pearson" and d.level == "sys":
            values[m] = pearson(sys_, t.sys_human)
            counts[m] = {"n_systems": int((~(np.isnan(sys_) | np.isnan(t.sys_human))).sum())}
        elif d.statistic == "pearson":
            values[m] = pearson(judged, t.seg_human)
            counts[m] = {"n_segments": int((~(np.isnan(judged) | np.isnan(t.seg_human))).sum())}
        elif d.statistic == "spa":
            values[m], segs, _ = spa_value(judged, t.seg_human, _spa.by_name(t.seg_sys, t.systems),
                                           t.seg_idx, len(t.systems))
            counts[m] = {"n_systems": len(t.systems), "n_segments": segs}
        else:
            r = acc_eq(judged, t.seg_human, t.seg_idx)
            values[m] = r.value
            counts[m] = {"n_items": r.rows, "n_pairs": r.pairs, "epsilon": r.epsilon,
                         "baseline": r.baseline}
    return values, counts


def _pooled_draw(tables: Sequence[Any], arrays: Arrays, a: str, b: str) -> Draw:
    """PERM-BOTH of pooled accuracy: systems of every pair in one vector, z-scored over it."""
    parts = []
    for t in tables:
        h, x, y = t.sys_human, arrays[t.lp][a][0], arrays[t.lp][b][0]
        ok = ~(np.isnan(h) | np.isnan(x) | np.isnan(y))
        parts.append((h[ok], x[ok], y[ok]))
    bounds = np.cumsum([0, *(len(p[0]) for p in parts)])
    h = np.concatenate([p[0] for p in parts])
    za, zb = zscore(np.concatenate([p[1] for p in parts])), zscore(
        np.concatenate([p[2] for p in parts]))

    def agree(rows: np.ndarray) -> np.ndarray:
        out = np.zeros(len(rows), np.int64)
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            if hi - lo >= 2:
                c = _row_counts(rows[:, lo:hi], np.broadcast_to(h[lo:hi], (len(rows), hi - lo)))
                out += (c.concordant + c.both_ties).astype(np.int64)
        return out

    pairs = int(sum((hi - lo) * (hi - lo - 1) // 2
                    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)))

    def draw(n: int, rng: np.random.Generator) -> tuple[int, np.ndarray, int | None]:
        obs = agree(np.vstack([za, zb]))
        w = rng.integers(2, size=(n, h.size), dtype=bool)
        d = agree(np.where(w, zb, za)) - agree(np.where(w, za, zb))
        return int(obs[0] - obs[1]), d, (pairs or None)

    return draw


def draw_for(task: Task, tables: Sequence[Any], arrays: Arrays, eps: dict[tuple[str, str], float]
             ) -> Callable[[str, str], Draw]:
    """The test of one task between two metrics, as a block-drawing function."""
    d = task.definition
    t = next((x for x in tables if x.lp == task.lp), None)

    def make(a: str, b: str) -> Draw:
        if d.pooled:
            return _pooled_draw(tables, arrays, a, b)
        assert t is not None
        (sa, ja), (sb, jb) = arrays[t.lp][a], arrays[t.lp][b]

        def draw(n: int, rng: np.random.Generator) -> tuple[Any, np.ndarray, int | None]:
            if d.statistic == "pearson":
                x, y, h = (sa, sb, t.sys_human) if d.level == "sys" else (ja, jb, t.seg_human)
                delta, ds = perm_both_draws(pearson, h, x, y, k=n, seed=rng)  # type: ignore[arg-type]
                return delta, ds, None
            if d.statistic == "spa":
                got = _spa.judged_test_draws(t.seg_human, ja, jb,
                                             _spa.by_name(t.seg_sys, t.systems), t.seg_idx,
                                             len(t.systems), k=n, seed=rng)
            else:
                got = pairs_test_draws(t.seg_human, ja, jb, t.seg_idx,
                                       (eps[(t.lp, a)], eps[(t.lp, b)]), k=n, seed=rng)
            return got[0], got[1], (got[2] or None)

        return draw

    return make


def run_protocol(protocol: Protocol, tables: Sequence[Any], arrays: Arrays,
                 metrics: Sequence[str], *, k: int, seed: int) -> ProtocolResult:
    """Every task on the tables' pairs, the weighted means and the overall clusters."""
    lps = sorted(t.lp for t in tables)
    results = []
    eps: dict[tuple[str, str], float] = {}
    for task in tasks(protocol, lps):
        values, counts = task_values(task, tables, arrays, metrics)
        if task.definition.statistic == "acc_eq":
            eps.update({(task.lp, m): c["epsilon"] for m, c in counts.items()})  # type: ignore[misc]
        results.append(run_task(task, values, counts, draw_for(task, tables, arrays, eps),
                                protocol, k=k, seed=(seed, task.index)))
    avg = average(results)
    ranks, ps = average_ranks(results, avg, k, protocol.pval)
    left = {m: [r.task.label for r in results if m not in r.order] for m in metrics}
    return ProtocolResult(protocol, lps, results, avg, ranks, ps, k, seed,
                          {m: v for m, v in left.items() if v})
