"""``meta --versus``: the metric-vs-metric tests of :mod:`mtstrata.meta.sigdiff` (and of SPA
and acc_eq: :mod:`mtstrata.meta.spa`, :mod:`mtstrata.meta.acc_eq`) run over ``meta``'s score
tables, the significance clusters (:class:`Rank`), the ``--versus`` option resolved, and the
tests and clusters as text and TSV (JSON: each record's ``to_dict``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mtstrata.meta.sigdiff import SigDiff, Statistic, perm_both, ranks, williams
from mtstrata.meta.stats import kendall, pearson


def pairs_to_test(names: Sequence[str], versus: str) -> list[tuple[str, str]]:
    """(metric, versus) pairs: every other metric against ``versus``, or with ``"all"`` every
    ordered pair (both directions: a p for each metric being the better)."""
    if versus == "all":
        return [(a, b) for a in names for b in names if a != b]
    return [(a, versus) for a in names if a != versus]


def _stat_table() -> dict[tuple[str, str], tuple[Statistic, bool]]:
    """(level, statistic as the correlation records name it) -> (statistic, grouped by
    item): every statistic ``meta`` reports, with its grouping."""
    from mtstrata.meta.stats import pairwise_accuracy, spearman

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


def resolve_versus(given: str, names: dict[str, str],
                   canonical: Callable[[str], str | None] | None = None) -> str:
    """The record name ``--versus`` means: ``all``, a record name, or a metric spec resolved as
    ``-m`` resolves it (``canonical``: spec -> its record name, None if it is not a spec;
    ``names``: spec or name -> record name of this run). So ``bleu:max_order=4`` names BLEU
    whichever spelling ``-m`` used. Anything else is refused, naming the metrics evaluated."""
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
    resolved = canonical(given) if canonical is not None else None
    if resolved in evaluated:
        return resolved  # type: ignore[return-value]
    raise InputError(f"--versus {given}: not a metric of this run; the metrics evaluated "
                     f"(-m, --ulc) are {', '.join(evaluated)}. Name one of them, add it with "
                     f"-m {given}, or give --versus all to test every pair.")


def wmt_tests(table: object, arrays: dict[str, tuple[np.ndarray, np.ndarray]],
              pairs: Sequence[tuple[str, str]], *, k: int, seed: int) -> list[SigDiff]:
    """The tests of SPA (cell swaps, ``perm-both``) and of item-wise acc_eq (pair swaps,
    ``perm-pairs``) for every (metric, versus) of ``pairs`` on one table with segment
    judgments; each unordered pair resampled once (``seed``). p-values from integer counts:
    ties are exact. acc_eq_flat and acc_eq_syswise are not tested (pair swaps over millions
    of pairs)."""
    from mtstrata.meta import spa as _spa
    from mtstrata.meta.acc_eq import acc_eq, pairs_test_draws

    t = table
    human, seg_idx = t.seg_human, t.seg_idx  # type: ignore[attr-defined]
    seg_sys = _spa.by_name(t.seg_sys, t.systems)  # type: ignore[attr-defined]
    n_sys = len(t.systems)  # type: ignore[attr-defined]
    eps = {m: acc_eq(arrays[m][1], human, seg_idx).epsilon for pair in pairs for m in pair}
    done: dict[tuple[str, str, str], tuple[float, float, float]] = {}
    out: list[SigDiff] = []
    for a, b in pairs:
        for stat, test in (("spa", "perm-both"), ("acc_eq_itemwise", "perm-pairs")):
            if (stat, b, a) in done:
                d, p_b, p_a = done[(stat, b, a)]
                done[(stat, a, b)] = (-d, p_a, p_b)
            else:
                x, y = arrays[a][1], arrays[b][1]
                if stat == "spa":
                    draws = _spa.judged_test_draws(human, x, y, seg_sys, seg_idx, n_sys,
                                                   k=k, seed=seed)
                else:
                    draws = pairs_test_draws(human, x, y, seg_idx, (eps[a], eps[b]), k=k,
                                             seed=seed)
                done[(stat, a, b)] = _p_pair(*draws)
            d, p_a, _ = done[(stat, a, b)]
            out.append(SigDiff(t.lp, "sys" if stat == "spa" else "seg",  # type: ignore[attr-defined]
                               stat, test, a, b, d, p_a, k))
    return out


def _p_pair(delta: int, draws: np.ndarray, denominator: int) -> tuple[float, float, float]:
    """(delta, p for the first better, p for the second better) from integer draws."""
    if not denominator or not len(draws):
        nan = float("nan")
        return nan, nan, nan
    return (delta / denominator, float(np.mean(draws >= delta)),
            float(np.mean(draws <= delta)))


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
             f"perm-both: PERM-BOTH permutation test (Deutsch et al. 2021; SPA: cells "
             f"swapped), {k} resamples, seed {seed}; perm-pairs: acc_eq's pair outcomes "
             "swapped (mt-metrics-eval's PairwisePermutationSigDiff); williams: Williams' "
             "test, one-sided (Pearson only), on the rows both metrics score (mt-metrics-eval "
             "counts unjudged cells in n) and undefined for a constant metric "
             "(mt-metrics-eval: r = 0); resampled differences equal to delta count on both "
             "sides"]
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
    from mtstrata.meta.records import metric_arrays, record_items

    items = record_items(specs, ulcs, names)  # type: ignore[arg-type]
    pairs = pairs_to_test([name for _, name, _ in items], versus)
    tests: list[SigDiff] = []
    for t in tables:
        arrays = {name: metric_arrays(t, key, ulc)  # type: ignore[arg-type]
                  for key, name, ulc in items}
        tests += table_tests(t.lp, t.sys_human, t.seg_human, t.seg_idx,  # type: ignore[attr-defined]
                             arrays, pairs, k=k, seed=seed)
        if len(t.seg_human):  # type: ignore[attr-defined]
            tests += wmt_tests(t, arrays, pairs, k=k, seed=seed)
    values = {(r.lp, r.metric, r.level, r.statistic): r.value  # type: ignore[attr-defined]
              for r in records}
    return tests, (clusters(tests, values) if versus == "all" else [])
