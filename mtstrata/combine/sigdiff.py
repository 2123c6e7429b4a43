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
  it is mt-metrics-eval's p when A is ahead and 1 minus it when A is behind.
* **Clusters** (mt-metrics-eval's ``AssignRanks``, the ranks of the WMT metrics tasks):
  metrics sorted by decreasing statistic; a metric starts a new rank when a metric of its
  current rank (listed before it) correlates significantly better (p <= alpha).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from mtstrata.combine.stats import CHUNK, _pearson_rows, kendall, kendall_grouped, pearson

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
    (its statistic is undefined whatever the scale)."""
    x = np.asarray(x, float)
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


def _on_hybrids(fn: GroupedStatistic, x: np.ndarray, human: np.ndarray,
                groups: np.ndarray | None) -> np.ndarray:
    """The statistic of every row of ``x`` (resamples x items), 0 where it is undefined
    (mt-metrics-eval's convention for a resample)."""
    if groups is None and getattr(fn, "stat", None) is pearson:  # vectorised over the rows
        vals = _pearson_rows(x, np.broadcast_to(human, x.shape))
    else:
        vals = np.array([fn(row, human, groups) for row in x], float)
    return np.nan_to_num(vals, nan=0.0)


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
    The delta is NaN (and no resample is drawn) when either statistic is undefined."""
    human, metric, versus = (np.asarray(a, float).ravel() for a in (human, metric, versus))
    keep = ~(np.isnan(human) | np.isnan(metric) | np.isnan(versus))
    groups = None if groups is None else np.asarray(groups).ravel()[keep]
    human, a, b = human[keep], zscore(metric[keep]), zscore(versus[keep])
    fn = grouped(stat)
    delta = fn(a, human, groups) - fn(b, human, groups)
    if math.isnan(delta):
        return delta, np.empty(0)
    diffs = []
    for w in _swaps(human.size, k, seed):
        ha, hb = np.where(w, b, a), np.where(w, a, b)
        diffs.append(_on_hybrids(fn, ha, human, groups) - _on_hybrids(fn, hb, human, groups))
    return delta, np.concatenate(diffs)


def perm_both(stat: Statistic, human: np.ndarray, metric: np.ndarray, versus: np.ndarray, *,
              groups: np.ndarray | None = None, k: int = 1000, seed: int = 12345
              ) -> tuple[float, float, float]:
    """PERM-BOTH: (delta = stat(metric) - stat(versus), p for "metric better", p for "versus
    better"). Both p-values come from the same resamples: a swap and its complement are
    equally likely, so the differences are symmetric under the null and "versus better" is
    the share at most ``delta``. NaN p-values when delta is undefined."""
    delta, d = perm_both_draws(stat, human, metric, versus, groups=groups, k=k, seed=seed)
    if math.isnan(delta):
        return delta, float("nan"), float("nan")
    return delta, float((d >= delta).mean()), float((d <= delta).mean())


def williams(human: np.ndarray, metric: np.ndarray, versus: np.ndarray
             ) -> tuple[float, float, float]:
    """Williams' test of two dependent Pearson correlations sharing the human side:
    (delta = r(metric) - r(versus), one-sided p for "metric better", for "versus better").
    NaN when a correlation is undefined, fewer than four items, or K < 0 (rounding with
    |r| = 1)."""
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


def pairs_to_test(names: Sequence[str], versus: str) -> list[tuple[str, str]]:
    """(metric, versus) pairs: every other metric against ``versus``, or with ``"all"`` every
    ordered pair (both directions: a p for each metric being the better)."""
    if versus == "all":
        return [(a, b) for a in names for b in names if a != b]
    return [(a, versus) for a in names if a != versus]


def _stat_table() -> dict[tuple[str, str], tuple[Statistic, bool]]:
    """(level, statistic as the correlation records name it) -> (statistic, grouped by
    item): every statistic ``meta`` reports, with its grouping."""
    from mtstrata.combine.stats import pairwise_accuracy, spearman

    return {("sys", "pearson"): (pearson, False), ("sys", "spearman"): (spearman, False),
            ("sys", "kendall"): (kendall, False), ("sys", "accuracy"): (pairwise_accuracy, False),
            ("seg", "pearson"): (pearson, False), ("seg", "kendall_flat"): (kendall, False),
            ("seg", "kendall_itemwise"): (kendall, True)}


def table_tests(lp: str, sys_human: np.ndarray, seg_human: np.ndarray, seg_idx: np.ndarray,
                arrays: dict[str, tuple[np.ndarray, np.ndarray]],
                pairs: Sequence[tuple[str, str]], *, k: int = 1000, seed: int = 12345
                ) -> list[SigDiff]:
    """Every test of one language pair: for each statistic of ``meta`` (segment level only with
    segment judgments), PERM-BOTH for every (metric, versus) of ``pairs``, and Williams' test
    for Pearson. ``arrays``: name -> oriented (system scores, judged segment scores). Each
    unordered pair is resampled once, with a generator seeded afresh (``seed``): both
    directions come from the same draws."""
    out: list[SigDiff] = []
    for (level, name), (stat, by_item) in _stat_table().items():
        if level == "seg" and not len(seg_human):
            continue
        human = sys_human if level == "sys" else seg_human
        col = 0 if level == "sys" else 1
        perm: dict[tuple[str, str], tuple[float, float]] = {}
        will: dict[tuple[str, str], tuple[float, float]] = {}
        for a, b in pairs:
            if (a, b) not in perm:
                d, pa, pb = perm_both(stat, human, arrays[a][col], arrays[b][col],
                                      groups=seg_idx if by_item else None, k=k, seed=seed)
                perm[(a, b)], perm[(b, a)] = (d, pa), (-d, pb)
                if name == "pearson":
                    d, pa, pb = williams(human, arrays[a][col], arrays[b][col])
                    will[(a, b)], will[(b, a)] = (d, pa), (-d, pb)
            out.append(SigDiff(lp, level, name, "perm-both", a, b, *perm[(a, b)], k))
            if name == "pearson":
                out.append(SigDiff(lp, level, name, "williams", a, b, *will[(a, b)]))
    return out


@dataclass(frozen=True)
class Rank:
    """A metric's significance cluster on one statistic of one pair (1: the top cluster)."""

    lp: str
    level: str
    statistic: str
    ranked_by: str  # the test: "perm-both" or "williams"
    metric: str
    rank: int
    alpha: float = 0.05

    def to_dict(self) -> dict[str, object]:
        return {f: getattr(self, f) for f in ("lp", "level", "statistic", "ranked_by", "metric",
                                              "rank", "alpha")}


def clusters(tests: Sequence[SigDiff], values: dict[tuple[str, str, str, str], float],
             alpha: float = 0.05) -> list[Rank]:
    """Significance clusters of every (lp, level, statistic, test) whose tests cover every
    ordered pair of its metrics (``--versus all``). ``values``: (lp, metric, level, statistic)
    -> the correlation."""
    groups: dict[tuple[str, str, str, str], dict[tuple[str, str], float]] = {}
    for t in tests:
        groups.setdefault((t.lp, t.level, t.statistic, t.test), {})[(t.metric, t.versus)] = t.p
    out: list[Rank] = []
    for (lp, level, stat, test), ps in groups.items():
        names = sorted({m for pair in ps for m in pair})
        if len(ps) != len(names) * (len(names) - 1):
            continue  # not every pair tested
        vals = {m: values.get((lp, m, level, stat), float("nan")) for m in names}
        got = ranks(vals, lambda a, b, ps=ps: ps[(a, b)], alpha)
        out += [Rank(lp, level, stat, test, m, r, alpha) for m, r in got.items()]
    return out


def resolve_versus(given: str, names: dict[str, str]) -> str:
    """The record name ``--versus`` means: ``all``, a record name, or a spec given with
    ``-m`` (``names``: spec or name -> record name). Anything else is refused, naming the
    metrics evaluated."""
    from mtstrata.errors import InputError

    evaluated = list(dict.fromkeys(names.values()))
    if len(evaluated) < 2:
        raise InputError(f"--versus {given}: a metric-vs-metric test needs at least two "
                         f"metrics, and this run evaluates {len(evaluated)} "
                         f"({', '.join(evaluated) or 'none'}); add metrics with -m or --ulc.")
    if given == "all":
        return given
    if given in names:
        return names[given]
    folded = [n for n in evaluated if n.casefold() == given.casefold()]
    if len(folded) == 1:
        return folded[0]
    raise InputError(f"--versus {given}: not a metric of this run; the metrics evaluated "
                     f"(-m, --ulc) are {', '.join(evaluated)}. Name one of them, add it with "
                     f"-m {given}, or give --versus all to test every pair.")


def format_tests(tests: Sequence[SigDiff], rank_list: Sequence[Rank], seed: int) -> str:
    """The text section of the tests and clusters."""
    if not tests:
        return ""
    k = next((t.resamples for t in tests if t.resamples is not None), 0)
    head = ["lp", "level", "statistic", "test", "metric", "versus", "delta", "p"]
    body = [[t.lp, t.level, t.statistic, t.test, t.metric, t.versus,
             "–" if math.isnan(t.delta) else f"{t.delta:+.3f}",
             "–" if math.isnan(t.p) else f"{t.p:.4f}"] for t in tests]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    lines = ["", "metric vs metric (p: the metric correlates better than versus; delta: "
             "metric minus versus):",
             *("  ".join(c.rjust(w) if i >= 6 else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths, strict=True)))
               for r in [head, *body]),
             f"perm-both: PERM-BOTH permutation test (Deutsch et al. 2021), {k} resamples, "
             f"seed {seed}; williams: Williams' test, one-sided (Pearson only)"]
    by: dict[tuple[str, str, str, str], list[Rank]] = {}
    for r in rank_list:
        by.setdefault((r.lp, r.level, r.statistic, r.ranked_by), []).append(r)
    if by:
        lines += ["", "significance clusters (rank 1 best; a new rank where a metric of the "
                  "rank above beats it at p <= 0.05, as the WMT metrics tasks rank):"]
        for (lp, level, stat, test), rs in by.items():
            groups: dict[int, list[str]] = {}
            for r in rs:
                groups.setdefault(r.rank, []).append(r.metric)
            lines.append(f"  {lp} {level}.{stat} {test}: " + "; ".join(
                f"{rank}: {', '.join(ms)}" for rank, ms in groups.items()))
    return "\n".join(lines) + "\n"


def format_tests_tsv(tests: Sequence[SigDiff], rank_list: Sequence[Rank]) -> str:
    """Two more TSV tables after a blank line each: the tests, then the clusters."""
    from mtstrata.output import tsv

    if not tests:
        return ""
    cols = ["lp", "level", "statistic", "test", "metric", "versus", "delta", "p", "resamples"]
    out = "\n" + tsv(cols, [[t.lp, t.level, t.statistic, t.test, t.metric, t.versus, t.delta,
                              t.p, t.resamples] for t in tests])
    if rank_list:
        rc = ["lp", "level", "statistic", "ranked_by", "metric", "rank", "alpha"]
        out += "\n" + tsv(rc, [[getattr(r, c) for c in rc] for r in rank_list])
    return out


def meta_tests(tables: Sequence[object], specs: Sequence[str], ulcs: dict[str, object],
               names: dict[str, str], records: Sequence[object], versus: str, *,
               k: int = 1000, seed: int = 12345) -> tuple[list[SigDiff], list[Rank]]:
    """``meta --versus``: the tests of every table (:func:`table_tests`) and, for ``all``,
    the significance clusters of each statistic."""
    from mtstrata.combine.report import metric_arrays, record_items

    items = record_items(specs, ulcs, names)  # type: ignore[arg-type]
    pairs = pairs_to_test([name for _, name, _ in items], versus)
    tests: list[SigDiff] = []
    for t in tables:
        arrays = {name: metric_arrays(t, key, ulc)  # type: ignore[arg-type]
                  for key, name, ulc in items}
        tests += table_tests(t.lp, t.sys_human, t.seg_human, t.seg_idx,  # type: ignore[attr-defined]
                             arrays, pairs, k=k, seed=seed)
    values = {(r.lp, r.metric, r.level, r.statistic): r.value  # type: ignore[attr-defined]
              for r in records}
    return tests, (clusters(tests, values) if versus == "all" else [])
