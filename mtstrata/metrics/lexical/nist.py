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

**Choosing the reference as nltk does (def:2).** With several references, nltk takes per order
the reference with the largest ``(precision, numerator, denominator, length)`` tuple of *its*
floats: its weights are ``math.log(x, 2)`` and its numerators sums in the hypothesis' n-gram
order. Two references whose information sums are equal, or nearly, can compare either way by
the last bits of the floats, and the chosen reference's length moves the length penalty (by up
to 0.9 on one segment, 1e-5 relative on a corpus). So wherever two references' numerators are
within 1e-9 (relative) of the best, :func:`_nltk_choice` recomputes that segment and order
exactly as nltk does and takes nltk's reference and numerator: ``nist`` equals nltk's
``corpus_nist`` for any number of references (tested with ties).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.counts import hyp_side, reference_sides, side_hits
from mtstrata.metrics.linguistic.elements import Extractor, Occurrences, Vocab
from mtstrata.metrics.linguistic.ngrams import information, nist_rows, stream_ngrams
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Segment
from mtstrata.tokenizers import TOK_DEFAULTS, preprocessor, tokenize

#: numerators this close (relative) to the best are compared as nltk computes them
TIE_TOLERANCE = 1e-9


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
    #: sacreBLEU's tokenizer of the run's language where it chooses one (zh, ja, ko)
    language_defaults: ClassVar[dict[str, dict[str, str]]] = TOK_DEFAULTS
    lc: bool = False
    max_order: int = 5

    name: ClassVar[str] = "nist"
    #: 2: with several references, the reference nltk chooses where numerators (nearly) tie
    definition: ClassVar[int] = 2
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
        preprocessor(self.tok, self.lc)  # an unknown tokenizer fails now, not mid-run

    def display_name(self) -> str:
        return "NIST"

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        # the n-grams of every segment, the information weights and the reference sides are
        # counted for the whole run by the linguistic metrics' engine (references once per run)
        ex = _token_stream(self.tok, self.lc, self.max_order)
        rows = nist_rows(ex, hyps, refs, self.max_order)
        if max((len(rs) for rs in refs), default=1) > 1:
            self._resolve_ties(ex, rows, prepared(hyps), prepared(refs))
        return rows

    def _resolve_ties(self, ex: Extractor, rows: np.ndarray, hyps: Prepared,
                      refs: Prepared) -> None:
        """Where two references' numerators are within :data:`TIE_TOLERANCE` of the best,
        take nltk's choice (numerator and reference length) for that segment and order."""
        n, o = len(hyps), self.max_order
        hs = hyp_side(ex, hyps, refs)
        sides, valid = reference_sides(ex, refs)
        info = information(ex, refs)
        nums = np.stack([side_hits(hs, s, n, len(ex.types), info) for s in sides],
                        axis=1)[..., :o]
        nums = np.where(valid[:, :, None], nums, -np.inf)
        best = nums.max(axis=1, keepdims=True)
        close = np.abs(nums - best) <= TIE_TOLERANCE * np.abs(best)
        todo = np.argwhere((close.sum(axis=1) >= 2) & (best[:, 0, :] > 0))
        for i, k in todo:
            num, ref_len = _nltk_choice(self, hyps[i], refs, int(i), int(k) + 1)
            rows[i, k] = num
            rows[i, 2 * o + 1 + k] = ref_len

    def score(self, stats: np.ndarray) -> float:
        return nist_score(stats, self.max_order)


def _tokens(m: NIST, seg: Segment) -> list[str]:
    return tokenize(seg.text, m.tok, m.lc).split()


def _ngrams(toks: list[str], k: int) -> Counter:
    """The k-grams of ``toks`` in order of first occurrence (none when shorter than k)."""
    return Counter(zip(*[toks[j:] for j in range(k)]))


def _nltk_freq(m: NIST, refs: Prepared) -> tuple[Counter, int, list[list[list[str]]]]:
    """nltk's ``ngram_freq`` (every 1..N-gram of every reference), the reference word count
    and every reference's tokens, built once per run when a tie needs them."""
    def build() -> tuple[Counter, int, list[list[list[str]]]]:
        freq: Counter = Counter()
        words = 0
        tokens = [[_tokens(m, r) for r in rs] for rs in refs]
        for rs in tokens:
            for toks in rs:
                for k in range(1, m.max_order + 1):
                    freq.update(_ngrams(toks, k))
                words += len(toks)
        return freq, words, tokens

    return refs.state(("nist-nltk-freq", m.tok, m.lc, m.max_order), build)


def _nltk_choice(m: NIST, hyp: Segment, refs: Prepared, i: int, k: int) -> tuple[float, int]:
    """(numerator, reference length) of the reference nltk's ``corpus_nist`` takes for order
    ``k`` of segment ``i``: its floats, computed in its order, compared as its tuples."""
    freq, words, tokens = _nltk_freq(m, refs)
    hyp_ngrams = _ngrams(_tokens(m, hyp), k)
    den = sum(hyp_ngrams.values())
    scored = []
    for toks in tokens[i]:
        overlap = hyp_ngrams & _ngrams(toks, k)
        num = sum(math.log((freq[g[:-1]] if len(g) > 1 and g[:-1] in freq else words)
                           / freq[g], 2) * c for g, c in overlap.items())
        scored.append((0 if den == 0 else num / den, num, den, len(toks)))
    _prec, num, _den, ref_len = max(scored)
    return float(num), ref_len
