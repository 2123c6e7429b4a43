"""chrF's character statistics of a whole system at once (vectorised with numpy).

sacreBLEU counts, for each (hypothesis, reference) pair and each order n, the character n-grams
of both sides (``extract_all_char_ngrams``: whitespace removed unless ``ws``) and gives
``(hyp, ref, match)``: the hypothesis' n-gram count (0 when the reference has none), the
reference's, and ``Σ_g min(cnt_hyp(g), cnt_ref(g))``. This module gives the same numbers for
every segment of a system in a few array passes instead of a Counter per segment and order:

- every line becomes code points, all lines of a side concatenated;
- the run's references number their n-grams order by order: an n-gram is the id of its
  (n-1)-gram prefix and its last code point, ``id << 21 | cp``, and the sorted distinct keys
  of order n are the ids of order n (built once per run, shared by every system);
- a hypothesis n-gram gets the id of the same reference n-gram, or none: one absent from every
  reference of the run matches nothing, and neither does any n-gram it is the prefix of;
- ``segment << 32 | id`` keys with their counts per side, and the matches are the smaller
  counts of the keys on both sides (a sorted search), summed per segment with ``bincount``.

The hypothesis and reference counts need no n-grams at all: a line of ``L`` characters has
``max(0, L - n + 1)`` n-grams of order n. Equal to sacreBLEU's counting (tests/test_sacre.py:
repeated n-grams, empty and all-space sides, orders past the length, 1-3 references).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_CP_BITS = 21  # every Unicode code point is below 2**21
_SEG_SHIFT = 32


@dataclass(frozen=True)
class Lines:
    """The code points of several lines, concatenated, with each line's start and length."""

    codes: np.ndarray  # int64
    start: np.ndarray
    length: np.ndarray

    @classmethod
    def of(cls, texts: Sequence[str], ws: bool) -> Lines:
        lines = list(texts) if ws else ["".join(t.split()) for t in texts]
        # surrogatepass: a lone surrogate (text read with errors="surrogateescape") still counts
        # as the one character it is for Python's slicing
        raw = "".join(lines).encode("utf-32-le", "surrogatepass")
        length = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
        return cls(np.frombuffer(raw, dtype="<u4").astype(np.int64), np.cumsum(length) - length,
                   length)

    def positions(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(line, first character) of every n-gram of every line."""
        count = np.maximum(self.length - n + 1, 0)
        line = np.repeat(np.arange(len(count)), count)
        first = np.repeat(np.cumsum(count) - count, count)
        return line, self.start[line] + np.arange(len(line)) - first


@dataclass(frozen=True)
class RefChars:
    """The run's reference side: n-gram ids per order and the counted keys of each position."""

    vocab: list[np.ndarray]  # per order: the sorted distinct keys (index = id)
    sides: list[list[tuple[np.ndarray, np.ndarray]]]  # [j][order]: sorted keys, counts
    length: np.ndarray  # (n, R) characters of each reference (0 where there is none)
    valid: np.ndarray  # (n, R): segment i has a j-th reference


def _ids(lines: Lines, order: int, vocab: list[np.ndarray]
         ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per order: (line, id) of every n-gram of ``lines`` that has an id in ``vocab`` (the
    others, absent from every reference, match nothing)."""
    out = []
    cur = np.full(len(lines.codes), -1, dtype=np.int64)  # id of the gram starting there
    for n in range(1, order + 1):
        line, pos = lines.positions(n)
        prev = cur[pos] if n > 1 else np.zeros(len(pos), dtype=np.int64)
        known = prev >= 0
        line, pos, prev = line[known], pos[known], prev[known]
        keys = (prev << _CP_BITS) | lines.codes[pos + n - 1]
        ids, found = _lookup(vocab[n - 1], keys)
        cur[:] = -1
        cur[pos[found]] = ids[found]
        out.append((line[found], ids[found]))
    return out


def _lookup(table: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index in the sorted ``table``, whether there) of each key. The keys are searched in
    sorted order (each search starts where the last ended, so less of the table is searched)."""
    if not len(table):
        return np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=bool)
    order = np.argsort(keys)
    ids = np.empty(len(keys), dtype=np.int64)
    ids[order] = np.searchsorted(table, keys[order])
    np.minimum(ids, len(table) - 1, out=ids)
    return ids, table[ids] == keys


def _vocabulary(sides: Sequence[Lines], order: int) -> list[np.ndarray]:
    """The ids of every n-gram of the references, order by order."""
    vocab: list[np.ndarray] = []
    curs = [np.full(len(s.codes), -1, dtype=np.int64) for s in sides]
    for n in range(1, order + 1):
        keys, where = [], []
        for s, cur in zip(sides, curs, strict=True):
            _line, pos = s.positions(n)
            prev = cur[pos] if n > 1 else np.zeros(len(pos), dtype=np.int64)
            keys.append((prev << _CP_BITS) | s.codes[pos + n - 1])
            where.append(pos)
        voc, inv = np.unique(np.concatenate(keys), return_inverse=True)
        if len(voc) >= 1 << _SEG_SHIFT:
            raise ValueError(f"more than {1 << _SEG_SHIFT} distinct character {n}-grams in the "
                             "references: the 32-bit ids of chrF's counting would collide")
        vocab.append(voc)
        parts = np.split(inv.ravel(), np.cumsum([len(k) for k in keys])[:-1])
        for cur, part, pos in zip(curs, parts, where, strict=True):
            cur[pos] = part
    return vocab


def _counted(line: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keys, counts = np.unique((line << _SEG_SHIFT) | ids, return_counts=True)
    return keys, counts.astype(np.int64)


def reference_chars(refs: Sequence[Sequence[str]], order: int, ws: bool) -> RefChars:
    """The reference side of a run: ``refs[i]`` are segment i's (preprocessed) references."""
    n = len(refs)
    n_refs = max((len(rs) for rs in refs), default=1)
    valid = np.zeros((n, n_refs), dtype=bool)
    length = np.zeros((n, n_refs), dtype=np.int64)
    sides, rows = [], []
    for j in range(n_refs):
        r = [i for i, rs in enumerate(refs) if len(rs) > j]
        valid[r, j] = True
        side = Lines.of([refs[i][j] for i in r], ws)
        length[r, j] = side.length
        sides.append(side)
        rows.append(np.asarray(r, dtype=np.int64))
    vocab = _vocabulary(sides, order)
    counted = [[_counted(rw[line], ids) for line, ids in _ids(side, order, vocab)]
               for side, rw in zip(sides, rows, strict=True)]
    return RefChars(vocab, counted, length, valid)


def char_stats(hyps: Sequence[str], refs: RefChars, ws: bool) -> np.ndarray:
    """``(n, R, 3 * order)`` int64: the flat ``(hyp, ref, match)`` per order of every
    (hypothesis, j-th reference) pair, as sacreBLEU's ``_get_match_statistics`` gives them
    (rows of missing references are zeros)."""
    n, n_refs = refs.valid.shape
    order = len(refs.vocab)
    side = Lines.of(hyps, ws)
    if len(side.length) != n:
        raise ValueError(f"{len(side.length)} hypotheses but {n} reference sets")
    out = np.zeros((n, n_refs, order, 3), dtype=np.int64)
    grams = [_counted(line, ids) for line, ids in _ids(side, order, refs.vocab)]
    for k, (hkeys, hcounts) in enumerate(grams):
        hyp_total = np.maximum(side.length - k, 0)
        for j in range(n_refs):
            ref_total = np.maximum(refs.length[:, j] - k, 0)
            out[:, j, k, 0] = np.where(ref_total > 0, hyp_total, 0)
            out[:, j, k, 1] = ref_total
            rkeys, rcounts = refs.sides[j][k]
            if len(hkeys) and len(rkeys):
                pos = np.searchsorted(rkeys, hkeys)
                np.minimum(pos, len(rkeys) - 1, out=pos)
                match = rkeys[pos] == hkeys
                w = np.minimum(hcounts[match], rcounts[pos[match]])
                out[:, j, k, 2] = np.bincount(hkeys[match] >> _SEG_SHIFT, weights=w,
                                              minlength=n).astype(np.int64)
    out[~refs.valid] = 0
    return out.reshape(n, n_refs, 3 * order)
