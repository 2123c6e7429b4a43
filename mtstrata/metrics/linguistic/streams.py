"""BLEU and NIST over lemma and part-of-speech streams: ``SP-lBLEU``, ``SP-pBLEU``,
``SP-lNIST``, ``SP-pNIST``.

Giménez & Màrquez (2010) and the WMT08 metrics table ("PoS-BLEU") apply BLEU (Papineni et al.
2002) and NIST (Doddington 2002) to the sequence of lemmas or of fine POS tags
instead of the words, on BLEU's 0-100 scale. Lemmas are lower-cased like the other LE
metrics; tags are kept as they are; a missing value is ``_``.

BLEU statistics are the additive ``[hyp_len, ref_len, correct_1..4, total_1..4]`` with clipping by
the maximum count in any single reference (the multiset union of the references) and the closest
reference length (ties: the shorter); the score is sacreBLEU's ``BLEU.compute_bleu`` on their sum,
so corpus scores equal sacreBLEU's on the same streams.

NIST statistics are those of :mod:`mtstrata.metrics.lexical.nist` (``[num_1..5, den_1..5, sys_len,
ref_len_1..5]``, information weights from every reference of the batch, per order the reference
with the best (precision, numerator, denominator, length), as nltk's ``corpus_nist``), scored by
its ``nist_score``. As for NIST, the statistics depend on the reference corpus of the batch.

The n-grams (orders 1..5) of each stream are the items of one extractor per stream, counted for
the whole corpus by :mod:`~mtstrata.metrics.linguistic.counts` (shared by the BLEU and NIST
variants; :mod:`~mtstrata.metrics.linguistic.ngrams`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from sacrebleu.metrics.bleu import BLEU

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.lexical.nist import nist_score, nist_stat_names
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.counts import pair_counts, reference_sides
from mtstrata.metrics.linguistic.elements import Extractor, Occurrences, Vocab, extractor
from mtstrata.metrics.linguistic.ngrams import nist_rows, stream_ngrams
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Layer, Segment

ORDER = 4  # BLEU
NIST_ORDER = 5
ORDERS = tuple(str(k) for k in range(1, NIST_ORDER + 1))


@extractor("stream-lemma", ORDERS, [Layer.TOKENS, Layer.LEMMA], "n-grams of the lemma stream")
def LEMMA_STREAM(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    # joined and split like sacreBLEU's whitespace tokens (a lemma may hold a space)
    return stream_ngrams(c, vocab, [" ".join((t.lemma or "_").lower() for t in s.tokens).split()
                                    for s in c.segs], NIST_ORDER)


@extractor("stream-pos", ORDERS, [Layer.TOKENS, Layer.POS], "n-grams of the fine POS stream")
def POS_STREAM(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return stream_ngrams(c, vocab, [" ".join(t.xpos or "_" for t in s.tokens).split()
                                    for s in c.segs], NIST_ORDER)


@extractor("stream-upos", ORDERS, [Layer.TOKENS, Layer.POS],
           "n-grams of the universal POS stream")
def UPOS_STREAM(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return stream_ngrams(c, vocab, [" ".join(t.upos or "_" for t in s.tokens).split()
                                    for s in c.segs], NIST_ORDER)


class _TagStream:
    """SP-pBLEU and SP-pNIST compare the stream of the fine tags in English (PTB: ``tags=ptb``)
    and of the universal POS tags in every other language (``tags=upos``, :mod:`mtstrata.
    languages`): a language's own fine tags are not one inventory across languages, and the
    Russian provider gives none. ``tags`` is the scheme the POS layer must be in."""

    tags: str
    language_defaults: ClassVar[dict[str, dict[str, str]]] = {
        "tags": {"en": "ptb", "*": "upos"}}
    implicit: ClassVar[dict[str, str]] = {"tags": "ptb"}

    @property
    def schemes(self) -> dict[Layer, str]:
        return {Layer.POS: self.tags}

    @property
    def stream(self) -> Extractor:  # type: ignore[override]
        return POS_STREAM if self.tags == "ptb" else UPOS_STREAM

    def _check_tags(self) -> None:
        if self.tags not in ("ptb", "upos"):
            from mtstrata.errors import ConfigError

            raise ConfigError(f"{self.name}: tags={self.tags!r}; give tags=ptb (Penn Treebank "
                              "fine tags, English) or tags=upos (universal POS tags).")


def _ref_lengths(ex: Extractor, refs: Prepared) -> tuple[np.ndarray, np.ndarray]:
    sides, valid = reference_sides(ex, refs)
    return np.stack([s.totals[:, 0] for s in sides], axis=1).astype(float), valid


@dataclass(frozen=True)
class StreamBLEU(MetricBase):
    """BLEU over a stream of token attributes (lemmas or POS tags).

    >>> from mtstrata.segment import Segment
    >>> hyp = Segment.from_words("dogs bark loudly now", xpos="NNS VBP RB RB".split())
    >>> ref = Segment.from_words("cats sleep quietly here", xpos="NNS VBP RB RB".split())
    >>> from mtstrata import metrics
    >>> m = metrics.create("SP-pBLEU")
    >>> round(m.score(m.stats(hyp, [ref])), 6)  # the same tag sequence
    100.0
    """

    scale: ClassVar[float] = 100.0
    libraries: ClassVar[tuple[str, ...]] = ("sacrebleu",)
    smooth: Literal["none", "floor", "add-k", "exp"] = "exp"

    stream: ClassVar[Extractor]
    statistics: ClassVar[tuple[str, ...]] = (
        "hyp_len", "ref_len", *(f"correct_{n}" for n in range(1, ORDER + 1)),
        *(f"total_{n}" for n in range(1, ORDER + 1)))
    score_only: ClassVar[frozenset[str]] = frozenset({"smooth"})

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        ex = self.stream
        hyps, refs = prepared(hyps), prepared(refs)
        pc = pair_counts(ex, hyps, refs, pooled=True)  # clipping by the max count in any ref
        n = len(hyps)
        h_len = pc.hyp[:, 0].astype(float)
        r_len, valid = _ref_lengths(ex, refs)
        # closest reference length, the shorter on ties
        cost = np.where(valid, np.abs(r_len - h_len[:, None]) * (2.0 * r_len.max(initial=0) + 2)
                        + r_len, np.inf)
        out = np.empty((n, 2 + 2 * ORDER))
        out[:, 0] = h_len
        out[:, 1] = r_len[np.arange(n), np.argmin(cost, axis=1)]
        out[:, 2:2 + ORDER] = pc.hits[:, 0, :ORDER]
        out[:, 2 + ORDER:] = pc.hyp[:, :ORDER]
        return out

    def score(self, stats: np.ndarray) -> float:
        s = [int(x) for x in stats]
        return BLEU.compute_bleu(s[2:2 + ORDER], s[2 + ORDER:], s[0], s[1],
                                 smooth_method=self.smooth).score


@dataclass(frozen=True)
class StreamNIST(MetricBase):
    """NIST (n = 5) over a stream of token attributes (lemmas or POS tags)."""

    stream: ClassVar[Extractor]
    #: the statistics depend on the reference corpus of the batch (information weights)
    corpus_dependent: ClassVar[bool] = True
    scale: ClassVar[float] = float("inf")  # information-weighted: no upper bound
    statistics: ClassVar[tuple[str, ...]] = nist_stat_names(NIST_ORDER)

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        return nist_rows(self.stream, hyps, refs, NIST_ORDER)

    def score(self, stats: np.ndarray) -> float:
        return nist_score(stats, NIST_ORDER)


def _layers(stream: Extractor) -> tuple[str, ...]:
    return tuple(sorted(x.value for x in stream.layers))


@REGISTRY.register("SP-lBLEU", "BLEU over the lemma stream", _layers(LEMMA_STREAM))
@dataclass(frozen=True)
class LemmaBLEU(StreamBLEU):
    name: ClassVar[str] = "SP-lBLEU"
    stream: ClassVar[Extractor] = LEMMA_STREAM
    requires: ClassVar[frozenset[Layer]] = LEMMA_STREAM.layers


@REGISTRY.register("SP-pBLEU", "BLEU over the fine POS tag stream (PoS-BLEU); universal POS "
                   "tags outside English (tags=upos)", _layers(POS_STREAM))
@dataclass(frozen=True)
class PosBLEU(_TagStream, StreamBLEU):
    tags: Literal["ptb", "upos"] = "ptb"
    name: ClassVar[str] = "SP-pBLEU"
    requires: ClassVar[frozenset[Layer]] = POS_STREAM.layers

    def __post_init__(self) -> None:
        super().__post_init__()
        self._check_tags()


@REGISTRY.register("SP-lNIST", "NIST (n=5) over the lemma stream", _layers(LEMMA_STREAM))
@dataclass(frozen=True)
class LemmaNIST(StreamNIST):
    name: ClassVar[str] = "SP-lNIST"
    stream: ClassVar[Extractor] = LEMMA_STREAM
    requires: ClassVar[frozenset[Layer]] = LEMMA_STREAM.layers


@REGISTRY.register("SP-pNIST", "NIST (n=5) over the fine POS tag stream; universal POS tags "
                   "outside English (tags=upos)", _layers(POS_STREAM))
@dataclass(frozen=True)
class PosNIST(_TagStream, StreamNIST):
    tags: Literal["ptb", "upos"] = "ptb"
    name: ClassVar[str] = "SP-pNIST"
    requires: ClassVar[frozenset[Layer]] = POS_STREAM.layers

    def __post_init__(self) -> None:
        super().__post_init__()
        self._check_tags()
