"""compare-mt's sentence-level analyses: a metric by sentence-length bucket, the histogram of
segment-score differences between two systems, and the segments that separate them most.

* :func:`by_length`: sentences by the length of reference 1 in words (13a tokens, as the word
  buckets of :mod:`mtstrata.report.buckets`; compare-mt's length cut-offs), per bucket and
  system: the number of sentences, the mean segment score of the chosen metric (sentence BLEU
  by default; compare-mt's ``score_measure=sentbleu``), the metric computed on the bucket's
  sentences as a corpus (summed statistics), and the length ratio, output words / reference
  words (compare-mt's ``lengthdiff`` analysis as one number). An empty bucket has no score
  (``None``: "no data"), never 0.
* :func:`differences`: per segment, the score of system A minus that of B, oriented so that a
  positive difference means A is better (a lower-is-better metric's difference is negated);
  how many segments each wins, ties, and a histogram of the differences in bins relative to the
  metric's scale (a perfect score): ties, up to 5%, 5-10%, 10-20%, 20-50% and over 50% of it on
  each side.
* :func:`separating`: the segments with the largest difference each way (the static
  examples, compare-mt's ``--compare_sentence_examples``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mtstrata.report.buckets import LENGTH_CUTOFFS, bucket_names, bucket_of

if TYPE_CHECKING:
    from mtstrata.scoring import Run

#: the histogram's bin edges, as fractions of the metric's scale (a perfect score)
DIFF_EDGES = (0.05, 0.1, 0.2, 0.5)
#: segments shown each way in the static examples
N_EXAMPLES = 5


def _num(v: float, digits: int = 4) -> float | None:
    return round(float(v), digits) if math.isfinite(v) else None


def by_length(ref: Sequence[Sequence[str]], outs: Mapping[str, Sequence[Sequence[str]]],
              seg_scores: Mapping[str, Sequence[float | None]],
              corpus_score: Callable[[str, list[int]], float] | None = None,
              cutoffs: Sequence[int] = LENGTH_CUTOFFS) -> dict[str, Any]:
    """Per reference-length bucket and system: sentences, mean segment score (undefined
    segment scores left out), the bucket's corpus score (``corpus_score(system, indices)``)
    and the length ratio (output / reference words); ``None`` where the bucket is empty."""
    nb = len(cutoffs) + 1
    which = [bucket_of(len(r), cutoffs) for r in ref]
    members = [[i for i, b in enumerate(which) if b == k] for k in range(nb)]
    per_sys: dict[str, list[dict[str, Any]]] = {}
    for name, out in outs.items():
        rows = []
        for idx in members:
            vals = [v for v in (seg_scores[name][i] for i in idx)
                    if v is not None and math.isfinite(v)]
            ref_words = sum(len(ref[i]) for i in idx)
            out_words = sum(len(out[i]) for i in idx)
            rows.append({
                "sentences": len(idx), "ref_words": ref_words, "out_words": out_words,
                "mean": _num(sum(vals) / len(vals)) if vals else None,
                "corpus": _num(corpus_score(name, idx)) if idx and corpus_score else None,
                "ratio": _num(out_words / ref_words) if ref_words else None})
        per_sys[name] = rows
    return {"buckets": bucket_names(cutoffs), "sentences": [len(m) for m in members],
            "systems": per_sys}


def _diffs(a: Sequence[float | None], b: Sequence[float | None], higher: bool) -> np.ndarray:
    """A minus B per segment, positive where A is better; NaN where either is undefined."""
    x = np.array([np.nan if v is None else v for v in a], dtype=float)
    y = np.array([np.nan if v is None else v for v in b], dtype=float)
    return (x - y) if higher else (y - x)


def differences(a: Sequence[float | None], b: Sequence[float | None], higher: bool,
                scale: float) -> dict[str, Any]:
    """Wins, ties and the histogram of the oriented differences (see the module's doc)."""
    d = _diffs(a, b, higher)
    ok = d[~np.isnan(d)]
    edges = [scale * e for e in DIFF_EDGES]
    bins: list[dict[str, Any]] = []
    # B's side, largest loss first; then ties; then A's side
    lows = [*edges[::-1]]
    for k, lo in enumerate(lows):
        hi = math.inf if k == 0 else lows[k - 1]
        bins.append({"side": "b", "from": -hi if math.isfinite(hi) else None, "to": -lo,
                     "count": int(np.sum((ok < -lo) & (ok >= -hi)))})
    bins.append({"side": "b", "from": -edges[0], "to": 0.0,
                 "count": int(np.sum((ok < 0) & (ok >= -edges[0])))})
    bins.append({"side": "tie", "from": 0.0, "to": 0.0, "count": int(np.sum(ok == 0))})
    ups = [0.0, *edges]
    for k, lo in enumerate(ups):
        hi = ups[k + 1] if k + 1 < len(ups) else math.inf
        bins.append({"side": "a", "from": lo, "to": hi if math.isfinite(hi) else None,
                     "count": int(np.sum((ok > lo) & (ok <= hi)))})
    return {"a_wins": int(np.sum(ok > 0)), "b_wins": int(np.sum(ok < 0)),
            "ties": int(np.sum(ok == 0)), "undefined": int(np.sum(np.isnan(d))),
            "mean": _num(float(ok.mean())) if len(ok) else None, "scale": scale,
            "bins": bins}


def separating(a: Sequence[float | None], b: Sequence[float | None], higher: bool,
               n: int = N_EXAMPLES) -> dict[str, list[dict[str, Any]]]:
    """The ``n`` segments where A is most better than B and the ``n`` where B is most better
    than A (by the oriented difference; ties of it by segment number)."""
    d = _diffs(a, b, higher)
    idx = [i for i in range(len(d)) if not np.isnan(d[i])]

    def row(i: int) -> dict[str, Any]:
        return {"segment": i, "diff": _num(d[i]), "a": a[i], "b": b[i]}

    best_a = sorted((i for i in idx if d[i] > 0), key=lambda i: (-d[i], i))[:n]
    best_b = sorted((i for i in idx if d[i] < 0), key=lambda i: (d[i], i))[:n]
    return {"a_better": [row(i) for i in best_a], "b_better": [row(i) for i in best_b]}


def analyses(run: Run, i: int, label: str, ref: Sequence[Sequence[str]],
             outs: Mapping[str, Sequence[Sequence[str]]], pair: tuple[str, str]
             ) -> dict[str, Any]:
    """The three analyses for metric ``i`` of ``run`` (named ``label``): by length for every
    system, differences and examples for ``pair`` (none when the pair is one system)."""
    m = run.metrics[i]
    stats = {s: np.asarray(run.stats[(s, i)]) for s in run.systems}
    seg = {s: [_num(v) for v in np.asarray(m.segment_scores(st), dtype=float)]
           for s, st in stats.items()}

    def corpus(system: str, idx: list[int]) -> float:
        return float(m.score(stats[system][idx].sum(0)))

    scale = float(m.capabilities().scale)
    out: dict[str, Any] = {"metric": label, "higher": bool(m.higher_is_better),
                           "by_length": by_length(ref, outs, seg, corpus)}
    a, b = pair
    if a != b:
        if not math.isfinite(scale) or scale <= 0:  # no perfect score: the largest difference
            d = _diffs(seg[a], seg[b], m.higher_is_better)
            scale = float(np.nanmax(np.abs(d))) if np.any(~np.isnan(d)) else 1.0
        out["pair"] = [a, b]
        out["differences"] = differences(seg[a], seg[b], m.higher_is_better, scale or 1.0)
        out["examples"] = separating(seg[a], seg[b], m.higher_is_better)
    return out
