"""The statistics of the WMT23-WMT25 metrics tasks as ``meta`` records: soft pairwise accuracy
(:mod:`mtstrata.meta.spa`, system level, from segment scores) and tie-calibrated pairwise
accuracy (:mod:`mtstrata.meta.acc_eq`) at each of mt-metrics-eval's groupings.

Statistics (named as the other records are):

* ``sys.spa``: SPA over the systems, on the segments judged (and scored by the metric) for every
  system: ``n_systems``, ``n_segments`` (those segments), ``permutations`` (1000). A warning
  says how many judged rows of other segments were left out; with no such segment SPA is
  undefined.
* ``seg.acc_eq_flat`` (average_by none: every judged row against every other),
  ``seg.acc_eq_itemwise`` (average_by item: the systems of each segment; the WMT tasks' choice)
  and ``seg.acc_eq_syswise`` (average_by sys: the segments of each system): the value,
  ``epsilon`` (the calibrated tie threshold, in the metric's units), ``baseline`` (what a
  constant metric scores: the share of pairs the humans tie), ``n_pairs`` (pairs compared),
  ``n_segments`` (judged rows), and ``n_items`` (itemwise: segments with two or more judged
  systems) or ``n_systems`` (syswise: systems with two or more judged segments).
  ``acc_eq_flat`` is left undefined, with a warning, above :data:`FLAT_PAIRS` pairs (its cost
  grows with their number: 27 million pairs take about 10 s and 1.2 GB per metric).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from mtstrata.meta import spa as _spa
from mtstrata.meta.acc_eq import acc_eq

#: acc_eq_flat is computed up to this many pairs of judged rows
FLAT_PAIRS = 10_000_000

#: statistic -> mt-metrics-eval's average_by
GROUPING = {"acc_eq_flat": "none", "acc_eq_itemwise": "item", "acc_eq_syswise": "sys"}


def spa_value(judged: np.ndarray, seg_human: np.ndarray, seg_sys: np.ndarray,
              seg_idx: np.ndarray, n_systems: int) -> tuple[float, int, str | None]:
    """(SPA, segments used, warning or None) of a metric's judged-row scores."""
    ok = ~(np.isnan(judged) | np.isnan(seg_human))
    segs, cols = _spa.common_segments(seg_sys[ok], seg_idx[ok], n_systems)
    rows = int(ok.sum())
    if n_systems < 2 or not segs.size:
        return float("nan"), 0, (f"no segment is judged (and scored) for all {n_systems} "
                                 "systems: SPA needs one matrix of systems x segments")
    h = _spa.matrix(seg_human[ok], seg_sys[ok], cols, n_systems, segs.size)
    m = _spa.matrix(judged[ok], seg_sys[ok], cols, n_systems, segs.size)
    left = rows - segs.size * n_systems
    warning = None if not left else (
        f"on the {segs.size} segments judged for all {n_systems} systems; {left} judged "
        "row(s) of other segments left out")
    return _spa.spa(h, m), int(segs.size), warning


def _flat_pairs(judged: np.ndarray, human: np.ndarray) -> int:
    n = int((~(np.isnan(judged) | np.isnan(human))).sum())
    return n * (n - 1) // 2


def wmt_records(rec: Callable[..., None], systems: list[str], judged: np.ndarray,
                seg_human: np.ndarray, seg_sys: np.ndarray, seg_idx: np.ndarray) -> None:
    """Add the SPA record and, with segment judgments, the three acc_eq records of one metric
    through ``rec(level, statistic, value, **fields)``; SPA's systems in sorted-name order."""
    n_sys = len(systems)
    if not len(seg_human):
        return
    value, segs, warning = spa_value(judged, seg_human, _spa.by_name(seg_sys, systems), seg_idx,
                                     n_sys)
    rec("sys", "spa", value, n_systems=n_sys, n_segments=segs,
        permutations=_spa.PERMUTATIONS, warning=warning)
    ok = ~(np.isnan(judged) | np.isnan(seg_human))
    for stat, groups in (("acc_eq_flat", None), ("acc_eq_itemwise", seg_idx),
                         ("acc_eq_syswise", seg_sys)):
        extra: dict[str, object] = {"n_segments": int(ok.sum())}
        if stat == "acc_eq_flat" and _flat_pairs(judged, seg_human) > FLAT_PAIRS:
            n = _flat_pairs(judged, seg_human)
            rec("seg", stat, float("nan"), n_pairs=n, warning=(
                f"not computed: {n:,} pairs of judged rows, above the limit of "
                f"{FLAT_PAIRS:,} (about 10 s and 1.2 GB per metric at 27 million)"), **extra)
            continue
        r = acc_eq(judged, seg_human, groups)
        if stat == "acc_eq_itemwise":
            extra["n_items"] = r.rows
        elif stat == "acc_eq_syswise":
            extra["n_systems"] = r.rows
        rec("seg", stat, r.value, n_pairs=r.pairs, epsilon=r.epsilon, baseline=r.baseline,
            **extra)
