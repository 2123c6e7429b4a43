"""The token and span columns of one side of a run (its segments, flattened).

Every element extractor reads a side through :class:`Columns`: the tokens of all its segments
concatenated (lower-cased words, lemmas, tags, relations, head pointers as indices into the
same columns) and the span tables of its entities, chunks and semantic-role arguments. Each
attribute is read from the segments on first use only. A single segment is the one-row case,
so the extractors have one implementation for a segment and for a corpus.

>>> from mtstrata.segment import Segment
>>> c = Columns([Segment.from_words("The cat sat")], [0])
>>> c.words
['the', 'cat', 'sat']
>>> c.seg_of.tolist()
[0, 0, 0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from mtstrata.segment import Segment


@dataclass(frozen=True)
class SpanTable:
    """Labelled token spans of a side: ``start``/``end`` index the side's token columns."""

    row: np.ndarray  # the segment row of each span
    start: np.ndarray
    end: np.ndarray  # one past the last token
    label: list[str]

    def tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """(span index, token index) of every token inside every span."""
        lens = np.maximum(self.end - self.start, 0)
        span = np.repeat(np.arange(len(lens)), lens)
        first = np.repeat(np.cumsum(lens) - lens, lens)
        return span, self.start[span] + np.arange(len(span)) - first

    def texts(self, words: list[str]) -> list[str]:
        """The words of each span joined by spaces."""
        return [" ".join(words[s:e]) for s, e in zip(self.start.tolist(), self.end.tolist())]


@dataclass(frozen=True)
class ArgTable(SpanTable):
    """Semantic-role arguments (``label``: the normalised role) with their predicates."""

    verb: list[str]  # the predicate lemma of each argument
    frame_row: np.ndarray  # the segment row of each frame
    frame_verb: list[str]


class Columns:
    """Token attributes and span tables of one side; segment ``k`` sits at row ``rows[k]``."""

    def __init__(self, segs: Sequence[Segment], rows: Sequence[int]):
        self.segs = segs
        self.toks = [t for s in segs for t in s.tokens]
        lens = np.array([len(s.tokens) for s in segs], dtype=np.int64)
        self.offset = np.cumsum(lens) - lens  # first token of each segment
        self.rows = np.asarray(rows, dtype=np.int64)
        self.seg_of = np.repeat(self.rows, lens)
        self.seg_len = np.repeat(lens, lens)
        self.tok_offset = np.repeat(self.offset, lens)  # first token of each token's segment
        self._ids: dict[tuple[str, int], tuple[Any, np.ndarray]] = {}

    def ids(self, attr: str, vocab: Any) -> np.ndarray:
        """The ids in ``vocab`` (a :class:`~.elements.Vocab`) of the token column ``attr``,
        looked up once per column and vocabulary (read-only: extractors share it)."""
        got = self._ids.get((attr, id(vocab)))
        if got is None:  # the vocabulary is kept with its ids, so its id() is not reused
            ids = vocab.ids(getattr(self, attr))
            ids.flags.writeable = False
            got = self._ids[(attr, id(vocab))] = (vocab, ids)
        return got[1]

    @cached_property
    def words(self) -> list[str]:
        return [t.form.lower() for t in self.toks]

    @cached_property
    def lemmas(self) -> list[str]:
        return [(t.lemma or "").lower() for t in self.toks]

    @cached_property
    def upos(self) -> list[str]:
        return [t.upos or "" for t in self.toks]

    @cached_property
    def xpos(self) -> list[str]:
        return [t.xpos or "" for t in self.toks]

    @cached_property
    def rels(self) -> list[str]:
        return [(t.deprel or "").lower() for t in self.toks]

    @cached_property
    def parent(self) -> np.ndarray:
        """Index of each token's head in the columns, -1 for a root."""
        heads = np.fromiter((t.head or 0 for t in self.toks), dtype=np.int64,
                            count=len(self.toks))
        return np.where(heads > 0, self.tok_offset + heads - 1, -1)

    def _spans(self, attr: str) -> SpanTable:
        row, start, end, label = [], [], [], []
        for k, seg in enumerate(self.segs):
            base, size = int(self.offset[k]), len(seg.tokens)
            for sp in getattr(seg, attr):
                row.append(int(self.rows[k]))
                # clipped to the segment, as slicing its words would be
                start.append(base + min(sp.start, size))
                end.append(base + min(max(sp.end, sp.start), size))
                label.append(sp.label.upper())
        return SpanTable(np.array(row, dtype=np.int64), np.array(start, dtype=np.int64),
                         np.array(end, dtype=np.int64), label)

    @cached_property
    def entities(self) -> SpanTable:
        return self._spans("entities")

    @cached_property
    def chunks(self) -> SpanTable:
        return self._spans("chunks")

    @cached_property
    def args(self) -> ArgTable:

        row, start, end, role, verb, frow, fverb = [], [], [], [], [], [], []
        for k, seg in enumerate(self.segs):
            base, size, r = int(self.offset[k]), len(seg.tokens), int(self.rows[k])
            for f in seg.frames:
                t = seg.tokens[f.predicate]
                v = (t.lemma if t.lemma is not None else t.form).lower()
                frow.append(r)
                fverb.append(v)
                for a in f.args:
                    row.append(r)
                    role.append(norm_role(a.label))
                    verb.append(v)
                    start.append(base + min(a.start, size))
                    end.append(base + min(max(a.end, a.start), size))
        return ArgTable(np.array(row, dtype=np.int64), np.array(start, dtype=np.int64),
                        np.array(end, dtype=np.int64), role, verb,
                        np.array(frow, dtype=np.int64), fverb)


def norm_role(label: str) -> str:
    """PropBank role in Asiya's spelling: C-/R- prefixes stripped, ARG0 -> A0, ARGM-X -> AM-X."""
    lab = label.upper()
    if lab[:2] in ("C-", "R-"):
        lab = lab[2:]
    if lab.startswith("ARGM"):
        lab = "AM" + lab[4:]
    elif lab.startswith("ARG"):
        lab = "A" + lab[3:]
    return lab
