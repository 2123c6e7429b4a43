"""``meta --versus``: the metric-vs-metric tests of :mod:`mtstrata.meta.sigdiff` run over
``meta``'s score tables, the ``--versus`` option resolved, and the tests and clusters as text
and TSV (JSON: each record's ``to_dict``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from mtstrata.meta.sigdiff import Rank, SigDiff, clusters, pairs_to_test, table_tests


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
    human, seg_sys, seg_idx = t.seg_human, t.seg_sys, t.seg_idx  # type: ignore[attr-defined]
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
             "test, one-sided (Pearson only); resampled differences equal to delta count "
             "on both sides"]
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
