"""BLEU (Papineni et al. 2002) and BLEU-SBP (Chiang et al. 2008, eq. 4) on additive statistics.

Statistics of one segment, for ``N = max_order``::

    [hyp_len, ref_len, correct_1..N, total_1..N, sbp_min, sbp_ref]

``correct_n`` is the number of hypothesis n-grams clipped by the maximum count of that n-gram
in any single reference, ``total_n`` the number of hypothesis n-grams, ``ref_len`` the effective
reference length chosen by ``ref_length`` (``closest``: the reference length closest to the
hypothesis length, the shorter on ties, as sacreBLEU; ``shortest``; ``average``). For BLEU-SBP,
``sbp_min = min(|c|, |r|)`` and ``sbp_ref = |r|`` with the same effective reference length.

Corpus BLEU is ``BP * exp(mean_n log p_n)`` of the summed statistics, computed by sacreBLEU's
``BLEU.compute_bleu`` (so smoothing ``none | floor | add-k | exp`` and effective order mean what
they mean there and the numbers are sacreBLEU's to the last bit; with ``ref_length=average``,
whose fractional length sacreBLEU's score object refuses, the smoothed precisions come from
``compute_bleu`` and the same brevity penalty is applied here). Tokenisation and lowercasing
are sacreBLEU's own (``tok=13a`` by default, ``none``, ``intl``, ``char``, ...).

Segment scores are sacreBLEU's sentence BLEU (``sentence_bleu``, ``sacrebleu -sl``): effective
order is always on for one segment (sacreBLEU's ``-sl`` forces it too), so an exact match shorter
than ``max_order`` words scores 100, not 0. Their signature is the metric's with ``eff:yes``
(:meth:`BLEU.segment_metric`); the corpus score follows ``eff`` (default ``no``, as sacreBLEU's
corpus BLEU). BLEU-SBP and tBLEU score their segments the same way.

BLEU-SBP replaces the brevity penalty by the strict one, ``φ(Σ min(|c_i|, |r_i|) / Σ |r_i|)``
with ``φ(x) = exp(1 - 1/x)`` and ``φ(0) = 0``: a long sentence can no longer pay for a short
one, which makes the metric decomposable enough for Chiang et al.'s scenarios (§3.1).

Reusable helpers: :func:`ngram_counts` (the tokenised n-gram multiset of a string and its
length) and :func:`token_ngrams` (the same from a token list) are what tBLEU and the stream
BLEUs build on; tokenisation is :func:`mtstrata.tokenizers.tokenize` (sacreBLEU's).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from sacrebleu.metrics.bleu import BLEU as _SacreBLEU

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Segment
from mtstrata.tokenizers import TOK_DEFAULTS, preprocessor, tokenize


def token_ngrams(tokens: Sequence[str], max_order: int = 4) -> Counter:
    """The multiset of the 1..max_order-grams of ``tokens``, each a tuple of tokens.

    The same multiset as sacreBLEU's ``extract_all_word_ngrams`` (a test checks it), built with
    ``zip`` over shifted views, which is faster than slicing one tuple per position.
    """
    grams: list[tuple[str, ...]] = list(zip(tokens))
    for n in range(2, max_order + 1):
        grams += zip(*[tokens[i:] for i in range(n)])
    return Counter(grams)


def ngram_counts(text: str, max_order: int = 4, tok: str = "13a", lc: bool = False
                 ) -> tuple[Counter, int]:
    """The n-gram multiset BLEU counts for one segment: the reusable helper (tBLEU, streams).

    Args:
        text: the raw segment.
        max_order: highest n-gram order N.
        tok: sacreBLEU tokenizer name (``13a``, ``none``, ``intl``, ``char``, ...).
        lc: lowercase before tokenising.

    Returns:
        ``(counts, length)``: a Counter of every 1..N-gram of the tokenised text (keys are
        tuples of tokens, so ``len(key)`` is the order) and the number of tokens.
    """
    tokens = tokenize(text, tok, lc).split()
    return token_ngrams(tokens, max_order), len(tokens)


@dataclass(frozen=True)
class BLEU(MetricBase):
    """BLEU with sacreBLEU's tokenizers and smoothing, on additive n-gram statistics.

    >>> from mtstrata.segment import Segment
    >>> m = BLEU(max_order=2, smooth="none")
    >>> row = m.stats(Segment.from_text("the cat sat"), [Segment.from_text("the cat sat down")])
    >>> dict(zip(m.stat_names(), row.tolist()))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'hyp_len': 3.0, 'ref_len': 4.0, 'correct_1': 3.0, 'correct_2': 2.0, 'total_1': 3.0,
     'total_2': 2.0, 'sbp_min': 3.0, 'sbp_ref': 4.0}
    >>> round(m.score(row), 4)  # precisions 3/3 and 2/2, brevity penalty exp(1 - 4/3)
    71.6531
    >>> m = BLEU()  # segment scores are sacreBLEU's sentence_bleu (effective order)
    >>> s = Segment.from_text("lanzmann wrote .")
    >>> exact = m.stats(s, [s])
    >>> m.score(exact), round(float(m.segment_scores(exact)[0]), 9)  # no 4-gram: 0 w/o eff.
    (0.0, 100.0)
    """

    tok: str = "13a"
    #: sacreBLEU's tokenizer of the run's language where it chooses one (zh, ja, ko)
    language_defaults: ClassVar[dict[str, dict[str, str]]] = TOK_DEFAULTS
    lc: bool = False
    smooth: Literal["none", "floor", "add-k", "exp"] = "exp"
    smooth_value: float | None = None
    max_order: int = 4
    ref_length: Literal["closest", "shortest", "average"] = "closest"
    eff: bool = False

    name: ClassVar[str] = "bleu"
    #: 2: segment scores with effective order, as sacreBLEU's sentence_bleu (0.2.0)
    definition: ClassVar[int] = 2
    scale: ClassVar[float] = 100.0
    libraries: ClassVar[tuple[str, ...]] = ("sacrebleu",)
    score_only: ClassVar[frozenset[str]] = frozenset({"smooth", "smooth_value", "eff"})
    width_params: ClassVar[frozenset[str]] = frozenset({"max_order"})
    #: who counts the matches: BLEU and BLEU-SBP of one run share a system's counts (tBLEU,
    #: whose ``_row`` weighs matches, counts its own)
    _counting: ClassVar[str] = "BLEU"

    def stat_names(self) -> tuple[str, ...]:
        o = range(1, self.max_order + 1)
        return ("hyp_len", "ref_len", *(f"correct_{n}" for n in o), *(f"total_{n}" for n in o),
                "sbp_min", "sbp_ref")

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.max_order <= 9:
            raise ConfigError(f"bleu: max_order must be between 1 and 9, not {self.max_order}.")
        if self.smooth_value is not None and self.smooth_value <= 0 and self.smooth in (
                "floor", "add-k"):
            raise ConfigError(f"bleu: smooth_value must be > 0 for smooth={self.smooth} (it "
                              f"replaces a zero count), not {self.smooth_value}; e.g. "
                              "'bleu:smooth=floor,smooth_value=0.1'.")
        if self.smooth_value is None:  # the value sacreBLEU would use: named in the signature
            default = _SacreBLEU.SMOOTH_DEFAULTS[self.smooth]
            object.__setattr__(self, "smooth_value", None if default is None else float(default))
        preprocessor(self.tok, self.lc)

    def display_name(self) -> str:
        return "BLEU"

    # -- statistics ---------------------------------------------------------------------
    def _ref_entry(self, refs: Sequence[Segment]) -> tuple[dict, tuple[int, ...]]:
        """Merged clipping counts (max over references) and the reference lengths."""
        if not refs:
            raise ValueError(f"{self.display_name()} needs at least one reference")
        clip: dict = {}
        lens = []
        for r in refs:
            counts, n = ngram_counts(r.text, self.max_order, self.tok, self.lc)
            lens.append(n)
            if len(refs) == 1:
                clip = counts
                break
            for g, c in counts.items():
                if c > clip.get(g, 0):
                    clip[g] = c
        return clip, tuple(lens)

    def _ref_table(self, refs: Prepared[Sequence[Segment]]) -> list:
        """:meth:`_ref_entry` of every segment, built once per run (shared by the systems, and
        by BLEU and BLEU-SBP: the entries do not depend on the reference-length rule)."""
        key = (self._counting, "refs", self.tok, self.lc, self.max_order)
        return refs.state(key, lambda: [self._ref_entry(rs) for rs in refs])

    def _ref_len(self, hyp_len: int, lens: tuple[int, ...]) -> float:
        if self.ref_length == "closest":
            return min(lens, key=lambda r: (abs(r - hyp_len), r))
        if self.ref_length == "shortest":
            return min(lens)
        return sum(lens) / len(lens)

    def _matches(self, hyp: str, clip: dict) -> tuple[int, list[int]]:
        """(hypothesis length, clipped matches per order) of one hypothesis."""
        counts, hyp_len = ngram_counts(hyp, self.max_order, self.tok, self.lc)
        correct = [0] * self.max_order
        # only shared n-grams matter; the key-view intersection runs in C
        for g in counts.keys() & clip.keys():
            c, m = counts[g], clip[g]
            correct[len(g) - 1] += c if c < m else m
        return hyp_len, correct

    def _from_matches(self, hyp_len: int, correct: list[int], lens: tuple[int, ...]
                      ) -> list[float]:
        total = [max(0, hyp_len - n) for n in range(self.max_order)]
        ref_len = self._ref_len(hyp_len, lens)
        return [hyp_len, ref_len, *correct, *total, min(hyp_len, ref_len), ref_len]

    def _row(self, hyp: str, entry: tuple[dict, tuple[int, ...]]) -> list[float]:
        return self._from_matches(*self._matches(hyp, entry[0]), entry[1])

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        refs, hyps = prepared(refs), prepared(hyps)
        table = self._ref_table(refs)
        if self._counting != "BLEU":
            rows = [self._row(h.text, e) for h, e in zip(hyps, table, strict=True)]
        else:  # a system's matches are counted once per run, whatever the variant
            key = ("bleu-matches", self.tok, self.lc, self.max_order, refs.uid)
            matches = hyps.state(key, lambda: [self._matches(h.text, e[0])
                                               for h, e in zip(hyps, table, strict=True)])
            rows = [self._from_matches(n, c, e[1]) for (n, c), e in zip(matches, table,
                                                                         strict=True)]
        return np.array(rows, dtype=float).reshape(len(rows), 2 * self.max_order + 4)

    # -- scores -------------------------------------------------------------------------
    def _precision_part(self, stats: np.ndarray) -> tuple[float, float, float]:
        """(BLEU score in [0, 100], hyp_len, ref_len) from summed statistics."""
        o = self.max_order
        correct = [int(round(x)) for x in stats[2:2 + o]]
        total = [int(round(x)) for x in stats[2 + o:2 + 2 * o]]
        hyp_len, ref_len = int(round(stats[0])), float(stats[1])
        if self.ref_length != "average":  # integer lengths, exactly as sacreBLEU sums them
            ref_len = int(round(ref_len))
            return self._sacre_bleu(correct, total, hyp_len, ref_len), hyp_len, ref_len
        # sacreBLEU's score object only takes integer lengths and the average reference length
        # is fractional: take its precision part (reference length := hypothesis length, so its
        # BP is 1) and apply the same brevity penalty formula here
        precisions = self._sacre_bleu(correct, total, hyp_len, hyp_len)
        return precisions * _bp(hyp_len, ref_len), hyp_len, ref_len

    def _sacre_bleu(self, correct: list[int], total: list[int], hyp_len: int, ref_len: int
                    ) -> float:
        return _SacreBLEU.compute_bleu(correct, total, hyp_len, ref_len,
                                       smooth_method=self.smooth, smooth_value=self.smooth_value,
                                       effective_order=self.eff,
                                       max_ngram_order=self.max_order).score

    def score(self, stats: np.ndarray) -> float:
        return float(self._precision_part(np.asarray(stats, dtype=float))[0])

    def segment_metric(self) -> BLEU:
        """The metric whose ``score`` of one segment's row is that segment's score: this one
        with effective order, as sacreBLEU's ``sentence_bleu`` and ``-sl`` (its signature says
        ``eff:yes``)."""
        return self if self.eff else dataclasses.replace(self, eff=True)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence BLEU of every row, with effective order (sacreBLEU's ``sentence_bleu``)."""
        score = self.segment_metric().score
        return np.array([score(row) for row in np.atleast_2d(stats)], dtype=float)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        s = np.asarray(stats, dtype=float)
        o = self.max_order
        out = {f"p{n + 1}": (100.0 * s[2 + n] / s[2 + o + n] if s[2 + o + n] else 0.0)
               for n in range(o)}
        out["BP"] = _bp(s[0], s[1])
        out["ratio"] = float(s[0] / s[1]) if s[1] else 0.0
        out["hyp_len"], out["ref_len"] = float(s[0]), float(s[1])
        return out


def _bp(hyp_len: float, ref_len: float) -> float:
    if hyp_len <= 0:
        return 0.0
    return 1.0 if hyp_len > ref_len else math.exp(1.0 - ref_len / hyp_len)


@dataclass(frozen=True)
class BLEUSBP(BLEU):
    """BLEU with Chiang et al.'s strict brevity penalty (eq. 4); shortest reference length.

    >>> from mtstrata.segment import Segment
    >>> m = BLEUSBP(max_order=2, smooth="none")
    >>> hyp = Segment.from_text("a b c d e")
    >>> round(m.score(m.stats(hyp, [Segment.from_text("a b c d e f")])), 2)  # exp(1 - 6/5)
    81.87
    """

    ref_length: Literal["closest", "shortest", "average"] = "shortest"

    name: ClassVar[str] = "bleu-sbp"

    def display_name(self) -> str:
        return "BLEU-SBP"

    def score(self, stats: np.ndarray) -> float:
        s = np.array(stats, dtype=float)
        s[1] = s[0]  # reference length := hypothesis length, so sacreBLEU's BP is 1 and its
        # score is the (smoothed) geometric mean of the precisions, in [0, 100]; dividing BLEU
        # by its BP instead loses everything when that BP underflows
        precisions = self._precision_part(s)[0]
        if precisions == 0.0:
            return 0.0
        x = s[-2] / s[-1] if s[-1] else 0.0
        sbp = math.exp(1.0 - 1.0 / x) if x > 0 else 0.0
        return float(precisions * sbp)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        out = super().details(stats)
        s = np.asarray(stats, dtype=float)
        x = s[-2] / s[-1] if s[-1] else 0.0
        out["SBP"] = math.exp(1.0 - 1.0 / x) if x > 0 else 0.0
        return out


REGISTRY.add("bleu", BLEU, description="BLEU (Papineni et al. 2002) on sacreBLEU's tokenizers; "
             "equal to sacreBLEU's corpus and sentence BLEU")
REGISTRY.add("bleu-sbp", BLEUSBP, description="BLEU with the strict brevity penalty (Chiang et "
             "al. 2008, eq. 4)")
