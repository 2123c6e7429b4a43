"""Corpus-level encoders of the dependency-tree elements (``dep-rel``, ``hwcm-{w,c,r}``).

Same items as the per-segment extractors of :mod:`mtstrata.metrics.elements` and
:mod:`mtstrata.metrics.hwcm` (the tests check that every score is equal), computed for a whole
side at once with numpy over the concatenated tokens of its segments, following the head
pointers level by level instead of walking each tree in Python:

- ``dep-rel``: the words of the subtree of each node, typed by the node's relation, are the
  pairs (ancestor-or-self ``a`` of token ``j``: type ``rel(a)``, item ``word(j)``);
- ``hwcm-x``: the chain of length k ending at token ``j`` is the chain of length k-1 ending at
  its head followed by ``label(j)``; it gets an id from the pair (prefix chain id, label id)
  coded as one integer, so no chain string is built.

A malformed parse with a cycle in its heads is walked at most as many steps as the segment has
tokens (the per-segment extractors stop at the same bound, though not always after the same
items: such parses do not come out of a parser).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain

import numpy as np

from mtstrata.metrics.elements import Extractor, TypeIndex, check_layers
from mtstrata.metrics.lecounts import ENCODERS, Side, make_side, vocabulary
from mtstrata.segment import Segment

_LABELS: dict[str, Callable[[Segment], list[str]]] = {
    "hwcm-w": lambda s: [t.form.lower() for t in s.tokens],
    "hwcm-c": lambda s: [t.upos or "" for t in s.tokens],
    "hwcm-r": lambda s: [(t.deprel or "").lower() for t in s.tokens],
}


def _trees(ex: Extractor, rows: Sequence[int], segs: Sequence[Segment]
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row of every token, global index of its head (-1 for a root), its segment's length."""
    for seg in segs:
        check_layers(ex, seg)
    lens = np.array([len(s.tokens) for s in segs], dtype=np.int64)
    total = int(lens.sum())
    heads = np.fromiter((t.head or 0 for s in segs for t in s.tokens), dtype=np.int64,
                        count=total)
    offset = np.repeat(np.cumsum(lens) - lens, lens)
    parent = np.where(heads > 0, offset + heads - 1, -1)
    return np.repeat(np.asarray(rows, dtype=np.int64), lens), parent, np.repeat(lens, lens)


def _encode_dep_rel(ex: Extractor, rows: Sequence[int], segs: Sequence[Segment], n: int
                    ) -> Side:
    seg_of, parent, seg_len = _trees(ex, rows, segs)
    lookup = vocabulary(ex).__getitem__
    words = np.fromiter(map(lookup, (t.form.lower() for s in segs for t in s.tokens)),
                        dtype=np.int64, count=len(parent))
    tix = TypeIndex(ex.types).__getitem__
    rel = np.fromiter(map(tix, ((t.deprel or "").lower() for s in segs for t in s.tokens)),
                      dtype=np.int64, count=len(parent))
    tok = np.arange(len(parent), dtype=np.int64)  # the word
    cur = tok.copy()  # the ancestor whose relation types it
    out_r, out_t, out_i = [], [], []
    step = 0
    while len(tok):
        out_r.append(seg_of[tok])
        out_t.append(rel[cur])
        out_i.append(words[tok])
        step += 1
        cur = parent[cur]
        keep = (cur >= 0) & (step < seg_len[tok])
        tok, cur = tok[keep], cur[keep]
    return make_side(np.concatenate(out_r), np.concatenate(out_t), np.concatenate(out_i), n,
                     len(ex.types))


def _encode_chains(ex: Extractor, rows: Sequence[int], segs: Sequence[Segment], n: int
                   ) -> Side:
    seg_of, parent, _ = _trees(ex, rows, segs)
    lookup = vocabulary(ex).__getitem__
    label = _LABELS[ex.name]
    first = np.fromiter(map(lookup, chain.from_iterable(label(s) for s in segs)),
                        dtype=np.int64, count=len(parent))
    out_r, out_t, out_i = [seg_of], [np.zeros_like(first)], [first]
    ids = first
    for k in range(1, len(ex.types) - 1):  # chain lengths 2..4 (the last type is "other")
        ok = np.nonzero((parent >= 0) & (ids[np.maximum(parent, 0)] >= 0))[0]
        if not len(ok):
            break
        codes = (ids[parent[ok]] << 32) | first[ok]
        uniq, inv = np.unique(codes, return_inverse=True)
        # int keys never equal the label strings sharing the vocabulary
        mapped = np.fromiter(map(lookup, uniq.tolist()), dtype=np.int64, count=len(uniq))
        ids = np.full(len(parent), -1, dtype=np.int64)
        ids[ok] = mapped[inv.ravel()]
        out_r.append(seg_of[ok])
        out_t.append(np.full(len(ok), k, dtype=np.int64))
        out_i.append(ids[ok])
    return make_side(np.concatenate(out_r), np.concatenate(out_t), np.concatenate(out_i), n,
                     len(ex.types))


ENCODERS["dep-rel"] = _encode_dep_rel
for _name in _LABELS:
    ENCODERS[_name] = _encode_chains
