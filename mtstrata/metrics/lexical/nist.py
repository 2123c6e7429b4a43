"""NIST (Doddington 2002), n = 5, on additive statistics; equal to nltk's ``corpus_nist``.

NIST weights each matched n-gram by its information in the *reference corpus*,
``info(w_1..w_n) = log2(count(w_1..w_{n-1}) / count(w_1..w_n))`` (for unigrams the numerator is
the number of reference words), and multiplies the sum over orders of the information-weighted
precisions by a length penalty ``exp(β log²(min(L_sys / L_ref, 1)))`` with β set so that a
system output 2/3 as long as the references is penalised by 0.5.

Because the information weights come from the whole reference corpus of a run, the statistics of
a segment depend on that corpus (they are additive over segments *given* it; corpus scores,
resampling and paired tests are exact). :meth:`NIST.stats_batch` computes the weights from every
reference it is given; :meth:`NIST.stats` of a lone segment uses that segment's references only.

Statistics, for ``N = max_order``: ``[num_1..N, den_1..N, sys_len, ref_len_1..N]`` where
``num_n`` is the information of the clipped matching n-grams, ``den_n`` the number of
hypothesis n-grams, and ``ref_len_n`` the length of the reference chosen for order n (nltk picks
the reference with the best (precision, numerator, denominator, length) per order; with one
reference all are equal). Tokens are sacreBLEU's ``13a`` by default (``tok``, ``lc``).

The counting is :func:`mtstrata.metrics.linguistic.ngrams.nist_rows`, shared with ``SP-lNIST``
and ``SP-pNIST``: the n-grams of a whole system at once (numpy), the references' tables and
information weights once per run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.lexical.bleu import _preprocessor, tokenize
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.elements import Extractor, Occurrences, Vocab
from mtstrata.metrics.linguistic.ngrams import nist_rows, stream_ngrams
from mtstrata.segment import Segment


def _token_stream(tok: str, lc: bool, order: int) -> Extractor:
    """The extractor of the 1..``order``-grams of sacreBLEU's ``tok`` tokens (one per setting,
    kept for the process: its name keys the run's per-extractor state)."""
    key = (tok, lc, order)
    ex = _STREAMS.get(key)
    if ex is None:
        def encode(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
            return stream_ngrams(c, vocab, [tokenize(s.text, tok, lc).split() for s in c.segs],
                                 order)

        ex = _STREAMS[key] = Extractor(f"nist-tokens:{tok}:{lc}:{order}", encode,
                                       tuple(str(n) for n in range(1, order + 1)), frozenset(),
                                       "n-grams of sacreBLEU's tokens")
    return ex


_STREAMS: dict[tuple[str, bool, int], Extractor] = {}


def nist_stat_names(max_order: int) -> tuple[str, ...]:
    """``num_n`` (information-weighted matches), ``den_n`` (hypothesis n-grams), ``sys_len`` and
    ``ref_len_n`` (the length of the reference chosen for order n)."""
    o = range(1, max_order + 1)
    return (*(f"num_{n}" for n in o), *(f"den_{n}" for n in o), "sys_len",
            *(f"ref_len_{n}" for n in o))


def nist_score(stats: np.ndarray, max_order: int = 5) -> float:
    """NIST of summed statistics (nltk's ``corpus_nist`` formula)."""
    s = np.asarray(stats, dtype=float)
    prec = sum(s[n] / s[max_order + n] for n in range(max_order) if s[max_order + n] > 0)
    sys_len = s[2 * max_order] * max_order  # nltk sums the lengths once per order
    ref_len = s[2 * max_order + 1:].sum()
    if ref_len <= 0:
        return 0.0
    ratio = sys_len / ref_len
    if 0 < ratio < 1:
        beta = math.log(0.5) / math.log(1.5) ** 2
        penalty = math.exp(beta * math.log(ratio) ** 2)
    else:
        penalty = max(min(ratio, 1.0), 0.0)
    return float(prec * penalty)


@REGISTRY.register("nist", description="NIST information-weighted n-gram precision "
                   "(Doddington 2002), n=5; equal to nltk's corpus_nist")
@dataclass(frozen=True)
class NIST(MetricBase):
    """NIST over sacreBLEU-tokenised words.

    >>> from mtstrata.segment import Segment
    >>> m = NIST(max_order=1)
    >>> s = Segment.from_text("a b")
    >>> m.score(m.stats(s, [s]))  # each word carries log2(2 words / 1 occurrence) = 1 bit
    1.0
    """

    tok: str = "13a"
    lc: bool = False
    max_order: int = 5

    name: ClassVar[str] = "nist"
    scale: ClassVar[float] = float("inf")  # information-weighted: no upper bound
    libraries: ClassVar[tuple[str, ...]] = ("sacrebleu",)
    width_params: ClassVar[frozenset[str]] = frozenset({"max_order"})

    def stat_names(self) -> tuple[str, ...]:
        return nist_stat_names(self.max_order)
    #: the statistics depend on the reference corpus of the batch (information weights)
    corpus_dependent: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.max_order <= 9:
            raise ConfigError(f"nist: max_order must be between 1 and 9, not {self.max_order} "
                              "(NIST is defined with n = 5; e.g. nist:max_order=5).")
        _preprocessor(self.tok, self.lc)  # an unknown tokenizer fails now, not mid-run

    def display_name(self) -> str:
        return "NIST"

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        # the n-grams of every segment, the information weights and the reference sides are
        # counted for the whole run by the linguistic metrics' engine (references once per run)
        return nist_rows(_token_stream(self.tok, self.lc, self.max_order), hyps, refs,
                         self.max_order)

    def score(self, stats: np.ndarray) -> float:
        return nist_score(stats, self.max_order)
