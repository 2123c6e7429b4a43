"""Meta-evaluation records of metrics (and saved ULC sets) on score tables.

One record per (language pair, metric, level, statistic): ``{"lp", "metric", "level",
"statistic", "value", "signature"}``, plus ``"low"``, ``"high"``, ``"seed"``, ``"n"`` for
statistics with a percentile bootstrap interval. ``metric`` is the canonical name
(:mod:`mtstrata.combine.names`), ``signature`` the metric's full signature on that pair (an
``avg`` row: the one signature of its pairs, or the list of them when the pairs differ, e.g.
in their number of references or, for external scores, their files). Correlations of
lower-is-better metrics (WER, TER) are computed on the negated score, so for every metric a
positive value means agreement with the humans. ``lp == "avg"`` rows average a statistic over
the language pairs that have it.

Levels and statistics:

* ``sys``: Pearson (with CI), Spearman, Kendall tau-b, pairwise accuracy over systems.
* ``seg``: Pearson over the judged rows (WMT17 DA protocol, with CI), flattened Kendall over the
  judged rows, and item-wise Kendall over the segments with at least two judged systems (few in
  WMT17, where a segment is mostly judged for one system).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

import numpy as np

from mtstrata.combine.bootstrap import bootstrap_ci
from mtstrata.combine.stats import (
    kendall,
    kendall_grouped,
    pairwise_accuracy,
    pearson,
    spearman,
)
from mtstrata.combine.table import ScoreTable
from mtstrata.combine.ulc import Combiner


@dataclass(frozen=True)
class Correlation:
    """One meta-evaluation statistic of one metric on one language pair (``lp="avg"``: the
    mean over the pairs where it is defined, ``pairs`` of them). ``value`` is NaN when the
    statistic is undefined (a constant metric or human score, too few items)."""

    lp: str
    metric: str
    level: str  # "sys" or "seg"
    statistic: str  # pearson, spearman, kendall, accuracy, kendall_flat, kendall_itemwise
    value: float
    low: float | None = None  # 95% percentile bootstrap interval
    high: float | None = None
    seed: int | None = None
    n: int | None = None  # resamples
    pairs: int | None = None
    #: the metric's signature (avg rows: a tuple when the pairs' signatures differ)
    signature: str | tuple[str, ...] | None = None

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)

    def to_dict(self) -> dict[str, object]:
        """Strict-JSON record: fields that do not apply are left out, undefined values are
        ``None`` (``null``), never NaN."""
        out: dict[str, object] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if v is None and f.name not in ("value", "low", "high"):
                continue
            if isinstance(v, float) and math.isnan(v):
                v = None
            if isinstance(v, tuple):
                v = list(v)
            if v is not None or f.name == "value":
                out[f.name] = v
        return out





def metric_arrays(table: ScoreTable, metric: str, ulc: Combiner | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Oriented ``(system scores, judged segment scores)`` of a metric or of a ULC set."""
    if ulc is not None:
        sys_ = ulc.combine(table.sys_scores, "sys")
        return sys_, table.judged(ulc.combine({m: table.seg_scores[m] for m in ulc.metrics}))
    sign = 1.0 if table.higher[metric] else -1.0
    return sign * table.sys_scores[metric], sign * table.judged(table.seg_scores[metric])


def table_records(table: ScoreTable, metrics: Sequence[str], ulcs: dict[str, Combiner] | None
                  = None, *, n: int = 1000, seed: int = 12345,
                  names: Mapping[str, str] | None = None,
                  signatures: Mapping[str, str] | None = None) -> list[Correlation]:
    """Records of every metric (and every named ULC set) on one table.

    ``names`` maps a metric's table key (its spec) to the name its records carry (default:
    the key); ``signatures`` maps a record name to its signature (default: the table's
    signature of the key).
    """
    out: list[Correlation] = []
    items: list[tuple[str, str, Combiner | None]] = [
        (m, (names or {}).get(m, m), None) for m in metrics]
    items += [(k, k, c) for k, c in (ulcs or {}).items()]
    for key, name, ulc in items:
        sys_, judged = metric_arrays(table, key, ulc)
        sig = (signatures or {}).get(name, table.signatures.get(key))
        h = table.sys_human

        def rec(level: str, stat: str, value: float, ci: tuple[float, float] | None = None,
                name: str = name, sig: str | None = sig) -> None:
            lo, hi = ci if ci is not None else (None, None)
            out.append(Correlation(table.lp, name, level, stat, float(value), lo, hi,
                                   seed if ci is not None else None,
                                   n if ci is not None else None, signature=sig))

        def rec_pearson(level: str, x: np.ndarray, y: np.ndarray) -> None:
            if n:  # with a seeded percentile bootstrap interval
                v, lo, hi = bootstrap_ci(pearson, x, y, n=n, seed=seed)
                rec(level, "pearson", v, (lo, hi))
            else:
                rec(level, "pearson", pearson(x, y))

        rec_pearson("sys", sys_, h)
        rec("sys", "spearman", spearman(sys_, h))
        rec("sys", "kendall", kendall(sys_, h))
        rec("sys", "accuracy", pairwise_accuracy(sys_, h))
        if len(table.seg_human):
            hs = table.seg_human
            rec_pearson("seg", judged, hs)
            rec("seg", "kendall_flat", kendall(judged, hs))
            rec("seg", "kendall_itemwise", kendall_grouped(judged, hs, table.seg_idx))
    return out


def with_average(records: Sequence[Correlation]) -> list[Correlation]:
    """The records plus ``lp="avg"`` rows (mean of each metric/level/statistic over pairs)."""
    acc: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    sigs: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for r in records:
        if r.defined:
            acc[(r.metric, r.level, r.statistic)].append(r.value)
            if isinstance(r.signature, str):
                sigs[(r.metric, r.level, r.statistic)].append(r.signature)
    avg = [Correlation("avg", m, lv, s, float(np.mean(v)), pairs=len(v),
                       signature=_one_or_all(sigs[(m, lv, s)]))
           for (m, lv, s), v in acc.items()]
    return [*records, *avg]


def _one_or_all(sigs: Sequence[str]) -> str | tuple[str, ...] | None:
    distinct = tuple(dict.fromkeys(sigs))
    return None if not distinct else distinct[0] if len(distinct) == 1 else distinct


def signature_lines(records: Sequence[Correlation]) -> list[str]:
    """``metric  signature`` for each metric of per-pair records (``metric [lp]  signature``
    where a metric's signature differs between pairs; ``metric (segments)  signature`` where
    its segment-level records have another, e.g. BLEU's sentence BLEU, ``eff:yes``)."""
    per: dict[str, dict[str, list[str]]] = {}
    for r in records:
        if r.lp != "avg" and isinstance(r.signature, str):
            label = r.metric + (" (segments)" if r.level == "seg" else "")
            lps = per.setdefault(label, {}).setdefault(r.signature, [])
            if r.lp not in lps:
                lps.append(r.lp)
    for label in [k for k in per if k.endswith(" (segments)")]:
        if per[label] == per.get(label[:-len(" (segments)")]):
            del per[label]
    rows = []
    for metric, by_sig in per.items():
        for sig, lps in by_sig.items():
            rows.append((metric if len(by_sig) == 1 else f"{metric} [{','.join(lps)}]", sig))
    width = max((len(label) for label, _ in rows), default=0)
    return [f"{label.ljust(width)}  {sig}" for label, sig in rows]


#: what each column of the text table is, in mt-metrics-eval's terms
STATISTIC_NAMES = {
    "sys.pearson": "Pearson r over systems",
    "sys.spearman": "Spearman rho over systems",
    "sys.kendall": "Kendall tau-b over systems",
    "sys.accuracy": "pairwise accuracy (Agreement, Kocmi et al. 2021)",
    "seg.pearson": "Pearson r over the judged segments (average_by none)",
    "seg.kendall_flat": "Kendall tau-b over the judged segments (average_by none)",
    "seg.kendall_itemwise": "Kendall tau-b per segment over its judged systems, averaged "
                            "(average_by item)",
}

TSV_COLUMNS = ("lp", "metric", "level", "statistic", "value", "low", "high", "seed", "n",
               "pairs", "signature")


def format_tsv(records: Sequence[Correlation]) -> str:
    """One record a line (:data:`TSV_COLUMNS`); undefined numbers are empty cells; an ``avg``
    row whose pairs differ in signature lists them separated by `` ; ``."""
    from mtstrata.output import tsv

    rows = []
    for r in records:
        sig = " ; ".join(r.signature) if isinstance(r.signature, tuple) else r.signature
        rows.append([r.lp, r.metric, r.level, r.statistic, r.value, r.low, r.high, r.seed,
                     r.n, r.pairs, sig])
    return tsv(list(TSV_COLUMNS), rows)


def format_records(records: Sequence[Correlation]) -> str:
    """A text table: one row per (lp, metric), one column per level/statistic."""
    cols = list(dict.fromkeys(f"{r.level}.{r.statistic}" for r in records))
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for r in records:
        cell = f"{r.value:.3f}" if r.defined else "–"  # undefined: not a number to print
        if r.low is not None and r.high is not None and r.defined:
            cell += f" [{r.low:.3f},{r.high:.3f}]"
        rows.setdefault((r.lp, r.metric), {})[f"{r.level}.{r.statistic}"] = cell
    header = ["lp", "metric", *cols]
    body = [[lp, m, *(cells.get(c, "-") for c in cols)] for (lp, m), cells in rows.items()]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in
                       enumerate(zip(x, widths, strict=True))) for x in [header, *body]]
    seeds = {r.seed for r in records if r.seed is not None}
    if seeds:
        lines.append(f"\n[low,high]: 95% percentile bootstrap, seed {seeds.pop()}")
    named = [f"  {c}: {STATISTIC_NAMES[c]}" for c in cols if c in STATISTIC_NAMES]
    if named:
        lines += ["", "statistics (as mt-metrics-eval computes them):", *named]
    sigs = signature_lines(records)
    if sigs:
        lines += ["", "signatures:", *(f"  {x}" for x in sigs)]
    return "\n".join(lines) + "\n"
