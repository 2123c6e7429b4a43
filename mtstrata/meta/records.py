"""Meta-evaluation records of metrics (and saved ULC sets) on score tables.

One record per (language pair, metric, level, statistic): ``{"lp", "metric", "level",
"statistic", "value", "signature"}``, plus ``"low"``, ``"high"``, ``"seed"``, ``"resamples"``
for statistics with a percentile bootstrap interval, and what the statistic rests on:
``"n_systems"`` (system level: systems with both a metric and a human score) or
``"n_segments"`` (judged rows) and ``"n_items"`` (segments with at least two judged systems,
what item-wise Kendall averages over); ``"warning"`` when a statistic rests on few items
(item-wise Kendall on fewer than :data:`MIN_ITEMS` items or under :data:`MIN_ITEM_SHARE` of the
judged segments). ``metric`` is the canonical name
(:mod:`mtstrata.meta.names`), ``signature`` the metric's full signature on that pair (an
``avg`` row: the one signature of its pairs, or the list of them when the pairs differ, e.g.
in their number of references or, for external scores, their files). Correlations of
lower-is-better metrics (WER, TER) are computed on the negated score, so for every metric a
positive value means agreement with the humans. ``lp == "avg"`` rows average a statistic over
the language pairs that have it, unweighted (``"average"`` says so; their counts are the sums
over those pairs); ``lp == "pooled"`` rows give system-level pairwise accuracy pooled over all
system pairs of all language pairs (mt-metrics-eval's global accuracy, Kocmi et al. 2021):
agreeing pairs over all pairs, so a pair with many systems weighs more.

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

from mtstrata.meta.bootstrap import bootstrap_ci
from mtstrata.meta.stats import (
    kendall,
    kendall_grouped,
    pairwise_accuracy,
    pearson,
    spearman,
)
from mtstrata.meta.table import ScoreTable
from mtstrata.meta.wmt_records import wmt_records
from mtstrata.metrics.setfile import Combiner


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
    resamples: int | None = None  # bootstrap resamples of the interval
    pairs: int | None = None  # avg / pooled rows: language pairs
    n_systems: int | None = None  # sys level: systems with a metric and a human score
    n_segments: int | None = None  # seg level: judged rows with a metric score
    n_items: int | None = None  # seg level: segments with at least two judged systems
    average: str | None = None  # avg / pooled rows: how the pairs are combined
    warning: str | None = None  # the statistic rests on few items
    n_pairs: int | None = None  # acc_eq: pairs compared
    epsilon: float | None = None  # acc_eq: the calibrated tie threshold (metric units)
    baseline: float | None = None  # acc_eq: a constant metric's value (human-tied share)
    permutations: int | None = None  # SPA: permutations of its pairwise p-values
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
    for key, name, ulc in record_items(metrics, ulcs, names):
        sys_, judged = metric_arrays(table, key, ulc)
        sig = (signatures or {}).get(name, table.signatures.get(key))
        h = table.sys_human
        counts = {"sys": {"n_systems": int((~(np.isnan(sys_) | np.isnan(h))).sum())},
                  "seg": segment_counts(judged, table.seg_human, table.seg_idx)}

        def rec(level: str, stat: str, value: float, ci: tuple[float, float] | None = None,
                name: str = name, sig: str | None = sig,
                counts: dict[str, dict[str, int]] = counts, **fields: object) -> None:
            lo, hi = ci if ci is not None else (None, None)
            c = dict(counts[level])
            segments = c.pop("judged_segments", 0)
            if fields:  # a statistic that states its own counts
                c = {}
            warning = fields.pop("warning", None)
            if stat == "kendall_itemwise":
                warning = few_items(c["n_items"], segments)
            out.append(Correlation(
                table.lp, name, level, stat, float(value), lo, hi,
                seed if ci is not None else None, n if ci is not None else None,
                signature=sig, **c, warning=warning, **fields))  # type: ignore[arg-type]

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
        wmt_records(rec, table.systems, judged, table.seg_human, table.seg_sys, table.seg_idx)
    return out


#: item-wise Kendall on fewer items than this, or on a smaller share of the judged segments
#: than MIN_ITEM_SHARE, carries a warning (WMT17 cs-en: 33 of 525 segments)
MIN_ITEMS = 50
MIN_ITEM_SHARE = 0.10
AVERAGE = "unweighted mean over language pairs"
POOLED = ("pairwise accuracy pooled over all system pairs of all language pairs "
          "(mt-metrics-eval global accuracy)")


def record_items(metrics: Sequence[str], ulcs: Mapping[str, Combiner] | None,
                 names: Mapping[str, str] | None) -> list[tuple[str, str, Combiner | None]]:
    """(table key, record name, ULC set or None) of every metric and set, in record order."""
    items: list[tuple[str, str, Combiner | None]] = [
        (m, (names or {}).get(m, m), None) for m in metrics]
    return items + [(k, k, c) for k, c in (ulcs or {}).items()]


def segment_counts(judged: np.ndarray, human: np.ndarray, seg_idx: np.ndarray
                   ) -> dict[str, int]:
    """What segment-level statistics rest on: judged rows with both scores (``n_segments``),
    segments with at least two of them (``n_items``) and distinct judged segments."""
    ok = ~(np.isnan(judged) | np.isnan(human))
    _, per = np.unique(np.asarray(seg_idx)[ok], return_counts=True)
    return {"n_segments": int(ok.sum()), "n_items": int((per >= 2).sum()),
            "judged_segments": int(per.size)}


def few_items(n_items: int, segments: int) -> str | None:
    """The warning of an item-wise statistic resting on few items, or None."""
    if n_items >= MIN_ITEMS and n_items >= MIN_ITEM_SHARE * segments:
        return None
    return (f"rests on {n_items} item(s) (segments with at least two judged systems) of "
            f"{segments} judged segments: fewer than {MIN_ITEMS} or under "
            f"{MIN_ITEM_SHARE:.0%}")


def _sum(vals: Sequence[int | None]) -> int | None:
    return None if any(v is None for v in vals) else sum(v for v in vals if v is not None)


def with_average(records: Sequence[Correlation]) -> list[Correlation]:
    """The records plus ``lp="avg"`` rows: the unweighted mean of each metric/level/statistic
    over the pairs where it is defined, with the counts summed over those pairs."""
    acc: dict[tuple[str, str, str], list[Correlation]] = defaultdict(list)
    for r in records:
        if r.defined:
            acc[(r.metric, r.level, r.statistic)].append(r)
    avg = []
    for (m, lv, s), rs in acc.items():
        items = _sum([r.n_items for r in rs])
        segs = _sum([r.n_segments for r in rs])
        avg.append(Correlation(
            "avg", m, lv, s, float(np.mean([r.value for r in rs])), pairs=len(rs),
            n_systems=_sum([r.n_systems for r in rs]), n_segments=segs, n_items=items,
            n_pairs=_sum([r.n_pairs for r in rs]),
            average=AVERAGE, signature=_one_or_all([r.signature for r in rs
                                                   if isinstance(r.signature, str)]),
            warning=("averaged over pairs of which some carry a warning"
                     if any(r.warning for r in rs) else None)))
    return [*records, *avg]


def pooled_accuracy(tables: Sequence[ScoreTable], metrics: Sequence[str],
                    ulcs: Mapping[str, Combiner] | None = None, *,
                    names: Mapping[str, str] | None = None,
                    records: Sequence[Correlation] = ()) -> list[Correlation]:
    """``lp="pooled"`` records: each metric's system-level pairwise accuracy over the system
    pairs of every table together (agreeing pairs / pairs, pairs never across tables), signed
    as the metric's per-pair ``records`` are."""
    from mtstrata.meta.stats import pair_counts

    out = []
    for key, name, ulc in record_items(metrics, ulcs, names):
        agree = total = systems = 0
        for t in tables:
            c = pair_counts(metric_arrays(t, key, ulc)[0], t.sys_human)
            agree, total = agree + int(c.concordant + c.both_ties), total + int(c.pairs)
            systems += int(c.n)
        sigs = [r.signature for r in records if r.metric == name and r.level == "sys"
                and r.lp not in ("avg", "pooled") and isinstance(r.signature, str)]
        out.append(Correlation("pooled", name, "sys", "accuracy",
                               agree / total if total else float("nan"), pairs=len(tables),
                               n_systems=systems, average=POOLED,
                               signature=_one_or_all(sigs)))
    return out


def _one_or_all(sigs: Sequence[str]) -> str | tuple[str, ...] | None:
    distinct = tuple(dict.fromkeys(sigs))
    return None if not distinct else distinct[0] if len(distinct) == 1 else distinct


def signature_lines(records: Sequence[Correlation]) -> list[str]:
    """``metric  signature`` for each metric of per-pair records (``metric [lp]  signature``
    where a metric's signature differs between pairs; ``metric (segments)  signature`` where
    its segment-level records have another, e.g. BLEU's sentence BLEU, ``eff:yes``)."""
    per: dict[str, dict[str, list[str]]] = {}
    for r in records:
        if r.lp not in ("avg", "pooled") and isinstance(r.signature, str):
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
