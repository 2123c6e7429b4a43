"""Corpus-level counting engine of the linguistic-element metrics (vectorised with numpy).

The measures of :mod:`~mtstrata.metrics.linguistic.overlap` (and Bllip) only need, for every
segment, every reference and every element type ``t``::

    hits_t = Σ_i min(cnt_hyp(i, t), cnt_ref(i, t))     hyp_t = Σ_i cnt_hyp(i, t)
    ref_t  = Σ_i cnt_ref(i, t)

This module computes these three ``(n_segments, n_types)`` tables for a whole corpus at once:
each item is given an integer id (one vocabulary per run, shared by the extractors), every
(segment, type, item) of one *side* (the hypotheses of a system, or the j-th references)
becomes one 64-bit key ``segment << 40 | type << 32 | item``, and the hits are the smaller
counts of the keys present on both sides (a sorted search), summed per (segment, type) with
``bincount``.

Why: a run scores many metrics (``SP-Op(*)``, ``SP-Op(NN)``, ...) over many systems that share
the references. A side is encoded once and reused (the references by every system), and the
tables of a (hypotheses, references) pair are reused by every metric built on the same
extractor; only the tiny per-metric arithmetic remains. All of it is per-run state held by the
run's :class:`~mtstrata.metrics.prepared.Prepared` sides: the item vocabulary and the encoded
references by the references, a system's encoded side and count tables by its hypotheses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mtstrata.cache import gc_paused
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.elements import Extractor, Vocab
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Segment

_SEG_SHIFT = 40
_TYPE_SHIFT = 32
_MAX_SEGMENTS = 1 << (63 - _SEG_SHIFT)
_MAX_TYPES = 1 << (_SEG_SHIFT - _TYPE_SHIFT)
_MAX_ITEMS = 1 << _TYPE_SHIFT


@dataclass(frozen=True)
class Side:
    """The encoded items of one side: sorted unique keys, their counts, totals per type."""

    keys: np.ndarray  # int64, sorted
    counts: np.ndarray  # int64, aligned with keys
    totals: np.ndarray  # (n_segments, n_types) int64


@dataclass(frozen=True)
class PairCounts:
    """Count tables of hypotheses against up to ``R`` references per segment.

    ``hits`` and ``ref`` are ``(n, R, T)``, ``hyp`` is ``(n, T)``; ``valid[i, j]`` says whether
    segment ``i`` has a j-th reference (several references may vary in number per segment).
    """

    hits: np.ndarray
    hyp: np.ndarray
    ref: np.ndarray
    valid: np.ndarray


def vocabulary(ex: Extractor, refs: Prepared) -> Vocab:
    """The item vocabulary of ``ex`` in the run of ``refs``: one for every extractor and every
    side scored against these references (an item's id means nothing outside the extractor's
    sides, so sharing costs nothing, and a side's word ids are looked up once)."""
    return refs.state(("vocab",), Vocab)


def encode(ex: Extractor, c: Columns, n: int, vocab: Vocab) -> Side:
    """The side of the segments of ``c`` (``n`` rows) under ``ex``."""
    n_types = len(ex.types)
    if n > _MAX_SEGMENTS or n_types > _MAX_TYPES:
        raise ValueError(f"corpus too large for the counting engine: {n} segments, "
                         f"{n_types} types (limits {_MAX_SEGMENTS}, {_MAX_TYPES})")
    ex.check(c.segs)
    with gc_paused():  # many small objects, no cycles: the collector's full scans only cost
        r, t, i = ex.encode(ex, c, vocab)
    if len(vocab) >= _MAX_ITEMS:
        raise ValueError(f"more than {_MAX_ITEMS} distinct {ex.name} items: the counting "
                         "engine's 32-bit item ids would collide")
    return make_side(r, t, i, n, n_types)


def make_side(rows: np.ndarray, types: np.ndarray, items: np.ndarray, n: int, n_types: int
              ) -> Side:
    """A side from parallel arrays of (row, type index, item id), one entry per occurrence."""
    totals = np.bincount(rows * n_types + types, minlength=n * n_types)
    keys, c = np.unique((rows << _SEG_SHIFT) | (types << _TYPE_SHIFT) | items,
                        return_counts=True)
    return Side(keys, c.astype(np.int64), totals.astype(np.int64).reshape(n, n_types))


def hyp_side(ex: Extractor, hyps: Prepared, refs: Prepared) -> Side:
    """The encoded side of the hypotheses (items numbered by the references' vocabulary)."""
    return hyps.state(("side", ex.name, refs.uid), lambda: encode(
        ex, hyp_columns(hyps), len(hyps), vocabulary(ex, refs)))


def hyp_columns(hyps: Prepared) -> Columns:
    """The token columns of the hypotheses, read once for every extractor."""
    return hyps.state(("columns",), lambda: Columns(hyps.items, range(len(hyps))))


def ref_columns(refs: Prepared, j: int) -> Columns:
    """The token columns of every segment's j-th reference (rows without one left out)."""
    def build() -> Columns:
        rows = [i for i, rs in enumerate(refs) if len(rs) > j]
        return Columns([refs[i][j] for i in rows], rows)

    return refs.state(("columns", j), build)


def pooled_side(sides: Sequence[Side], n: int, n_types: int) -> Side:
    """Multiset union of several sides: the maximum count of every key."""
    if len(sides) == 1:
        return sides[0]
    keys = np.concatenate([s.keys for s in sides])
    c = np.concatenate([s.counts for s in sides])
    order = np.lexsort((c, keys))  # by key, then count: the last of each run is the max
    keys, c = keys[order], c[order]
    # the last of each run of equal keys (no key at all: every reference is empty)
    last = np.append(keys[1:] != keys[:-1], True) if len(keys) else np.zeros(0, dtype=bool)
    keys, c = keys[last], c[last]
    flat = (keys >> _SEG_SHIFT) * n_types + ((keys >> _TYPE_SHIFT) & (_MAX_TYPES - 1))
    totals = np.bincount(flat, weights=c, minlength=n * n_types)
    return Side(keys, c, totals.astype(np.int64).reshape(n, n_types))


def reference_sides(ex: Extractor, refs: Prepared) -> tuple[list[Side], np.ndarray]:
    """One side per reference position j (row i holds segment i's j-th reference, if any) and
    the ``(n, R)`` mask of the positions that exist; built once per run."""
    return refs.state(("ref-sides", ex.name), lambda: _reference_sides(ex, refs))


def _reference_sides(ex: Extractor, refs: Prepared) -> tuple[list[Side], np.ndarray]:
    n = len(refs)
    vocab = vocabulary(ex, refs)
    n_refs = max((len(rs) for rs in refs), default=1)
    sides = []
    valid = np.zeros((n, n_refs), dtype=bool)
    for j in range(n_refs):
        c = ref_columns(refs, j)
        valid[c.rows, j] = True
        sides.append(encode(ex, c, n, vocab))
    return sides, valid


def item_ids(keys: np.ndarray) -> np.ndarray:
    """The item ids (vocabulary indices) of encoded keys."""
    return keys & (_MAX_ITEMS - 1)


def side_hits(h: Side, r: Side, n: int, n_types: int, weights: np.ndarray | None = None
              ) -> np.ndarray:
    """``Σ_i min(cnt_hyp, cnt_ref)`` per (segment, type), each item weighted by
    ``weights[item id]`` if given (NIST's information)."""
    if not len(h.keys) or not len(r.keys):
        return np.zeros((n, n_types), dtype=np.int64 if weights is None else float)
    pos = np.searchsorted(r.keys, h.keys)
    np.minimum(pos, len(r.keys) - 1, out=pos)
    match = r.keys[pos] == h.keys
    k = h.keys[match]
    flat = (k >> _SEG_SHIFT) * n_types + ((k >> _TYPE_SHIFT) & (_MAX_TYPES - 1))
    w = np.minimum(h.counts[match], r.counts[pos[match]])
    if weights is not None:
        return np.bincount(flat, weights=w * weights[item_ids(k)],
                           minlength=n * n_types).reshape(n, n_types)
    return np.bincount(flat, weights=w, minlength=n * n_types).astype(np.int64).reshape(
        n, n_types)


def pair_counts(ex: Extractor, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]],
                pooled: bool = False) -> PairCounts:
    """Count tables of ``hyps`` against their references (``pooled``: against their union).

    Raises:
        ValueError: different numbers of hypotheses and reference sets, or a segment without
            references.
    """
    n = len(hyps)
    if len(refs) != n:
        raise ValueError(f"{n} hypotheses but {len(refs)} reference sets")
    if any(not rs for rs in refs):
        raise ValueError("at least one reference is needed for every segment")
    hyps, refs = prepared(hyps), prepared(refs)
    return hyps.state(("pairs", ex.name, pooled, refs.uid),
                      lambda: _pair_counts(ex, hyps, refs, pooled))


def _pair_counts(ex: Extractor, hyps: Prepared, refs: Prepared, pooled: bool) -> PairCounts:
    n = len(hyps)
    n_refs = max((len(rs) for rs in refs), default=1)
    n_types = len(ex.types)
    hs = hyp_side(ex, hyps, refs)
    ref_sides, valid = reference_sides(ex, refs)
    if pooled and n_refs > 1:
        ref_sides = [refs.state(("pooled", ex.name), lambda: pooled_side(ref_sides, n, n_types))]
        valid = np.ones((n, 1), dtype=bool)
    hits = np.stack([side_hits(hs, r, n, n_types) for r in ref_sides], axis=1)
    ref = np.stack([r.totals for r in ref_sides], axis=1)
    return PairCounts(hits, hs.totals, ref, valid)
