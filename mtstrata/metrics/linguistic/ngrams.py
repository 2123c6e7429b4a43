"""N-grams of token streams through the counting engine, and NIST over them.

A *stream* is one list of tokens per segment: sacreBLEU's tokens of the text (``nist``), or a
token attribute (lemmas, POS tags: ``SP-lNIST``, ``SP-lBLEU``, ...). Its 1..N-grams are the
items of an :class:`~mtstrata.metrics.linguistic.elements.Extractor` typed by their order and
counted for a whole corpus by :mod:`~mtstrata.metrics.linguistic.counts`: unigrams get ids by
their string; an n-gram of order k is the pair (id of its (k-1)-gram prefix, id of its last
token), so no n-gram is ever built as a string or a tuple.

NIST (Doddington 2002; nltk's ``corpus_nist``): each matched n-gram weighs its information in
all references of the run, ``log2(count(prefix) / count(n-gram))`` (for unigrams the numerator
is the number of reference words); per order the reference with the best (precision,
numerator, denominator, length) is taken. Statistics ``[num_1..N, den_1..N, sys_len,
ref_len_1..N]`` as :mod:`mtstrata.metrics.lexical.nist` defines them.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, islice

import numpy as np

from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.counts import (
    hyp_side,
    item_ids,
    reference_sides,
    side_hits,
    vocabulary,
)
from mtstrata.metrics.linguistic.elements import Extractor, Occurrences, Vocab
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Segment


def stream_ngrams(c: Columns, vocab: Vocab, toks: list[list[str]], order: int) -> Occurrences:
    """The 1..``order``-grams of each segment's token stream ``toks[k]``, typed by their order
    (type ``n - 1`` for order n); only the distinct pairs of a side go through the vocabulary's
    dictionary."""
    lens = np.array([len(t) for t in toks], dtype=np.int64)
    uni = np.fromiter(map(vocab.__getitem__, chain.from_iterable(toks)), dtype=np.int64,
                      count=int(lens.sum()))
    seg_of = np.repeat(c.rows, lens)
    end = np.repeat(np.cumsum(lens), lens)  # one past the last token of each token's segment
    start = np.arange(len(uni), dtype=np.int64)
    rows, types, items = [seg_of], [np.zeros_like(uni)], [uni]
    ids = uni  # the id of the k-gram starting at each token (-1: none)
    for k in range(1, order):
        pos = np.nonzero((ids >= 0) & (start + k < end))[0]  # the k-th next token exists
        if not len(pos):
            break
        longer = np.full(len(uni), -1, dtype=np.int64)
        longer[pos] = vocab.pairs(ids[pos], uni[pos + k])
        ids = longer
        rows.append(seg_of[pos])
        types.append(np.full(len(pos), k, dtype=np.int64))
        items.append(ids[pos])
    return np.concatenate(rows), np.concatenate(types), np.concatenate(items)


def information(ex: Extractor, refs: Prepared) -> np.ndarray:
    """Information of every n-gram over all references of the run (Doddington eq. 2):
    log2(count(prefix) / count(n-gram)); the unigram prefix count is the number of reference
    words. Indexed by item id; computed once per run."""
    def build() -> np.ndarray:
        sides, _valid = reference_sides(ex, refs)
        vocab = vocabulary(ex, refs)
        size = len(vocab)  # every reference item has an id below this
        freq = np.zeros(size)
        for s in sides:
            freq += np.bincount(item_ids(s.keys), weights=s.counts, minlength=size)
        words = float(sum(s.totals[:, 0].sum() for s in sides))
        # an n-gram is the pair (prefix id, last token id) coded as an int; a unigram a string
        prefix = np.fromiter((k >> 32 if isinstance(k, int) else -1
                              for k in islice(vocab, size)), dtype=np.int64, count=size)
        num = np.where(prefix >= 0, freq[np.maximum(prefix, 0)], words)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(freq > 0, np.log2(num / np.where(freq > 0, freq, 1)), 0.0)

    return refs.state(("nist-information", ex.name), build)


def nist_rows(ex: Extractor, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]],
              order: int) -> np.ndarray:
    """NIST statistics of every segment over the n-grams (orders 1..``order``, types 0..order-1)
    of the stream ``ex``, information weights from every reference of the run."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
    if any(not rs for rs in refs):
        raise ValueError("NIST needs at least one reference")
    hyps, refs = prepared(hyps), prepared(refs)
    n, n_types = len(hyps), len(ex.types)
    hs = hyp_side(ex, hyps, refs)
    sides, valid = reference_sides(ex, refs)
    info = information(ex, refs)
    nums = np.stack([side_hits(hs, s, n, n_types, info) for s in sides], axis=1)[..., :order]
    r_len = np.stack([s.totals[:, 0] for s in sides], axis=1).astype(float)
    # per order, the reference with the best (precision, numerator, denominator, length): the
    # denominator is the same for every reference, so: the largest numerator, then the longest
    # reference; an absent reference never wins (lexsort: last key first)
    best = np.lexsort((np.broadcast_to(r_len[:, :, None], nums.shape), nums,
                       np.broadcast_to(valid[:, :, None], nums.shape)), axis=1)[:, -1, :]
    rows = np.arange(n)[:, None]
    out = np.zeros((n, 3 * order + 1))
    out[:, :order] = nums[rows, best, np.arange(order)[None, :]]
    out[:, order:2 * order] = hs.totals[:, :order]
    out[:, 2 * order] = hs.totals[:, 0]
    out[:, 2 * order + 1:] = r_len[rows, best]
    return out
