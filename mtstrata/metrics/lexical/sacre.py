"""chrF, chrF++ (Popović 2015, 2017) and TER (Snover et al. 2006) through sacreBLEU.

sacreBLEU is the reference implementation of all three. mtstrata uses sacreBLEU's per-segment
sufficient statistics (``_compute_segment_statistics``: chrF's character and word n-gram
matches per order, TER's ``[edits, average reference length]``) as our additive statistics,
with one exception: chrF's character statistics are counted for a whole system at once by
:mod:`~mtstrata.metrics.lexical.chars`, the same numbers counted faster (tested against
sacreBLEU's counting). Scores come from
sacreBLEU's ``_compute_score_from_stats`` on the summed statistics, so corpus
scores equal ``corpus_score`` and single rows equal ``sentence_score``; bootstrap resamples,
paired tests and the metric-set search work on the same arrays as for every other metric.
Reference preprocessing is computed once per distinct reference set and reused for every
system. Scores are on sacreBLEU's 0-100 scale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.helpers import extract_word_ngrams
from sacrebleu.metrics.ter import TER

from mtstrata.errors import ConfigError, InputError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.lexical import chars
from mtstrata.metrics.prepared import Prepared, prepared
from mtstrata.segment import Segment
from mtstrata.tokenizers import check_sacrebleu

#: bounds of chrF's parameters: the work per segment grows with the orders, and beta ** 2 must
#: stay a float (beta = 2 ** 600 ended in an OverflowError)
MAX_CHAR_ORDER = 20
MAX_WORD_ORDER = 9
MAX_BETA = 10**6


@lru_cache(maxsize=64)
def _configured(metric: Any) -> Any:
    """The sacreBLEU object configured as ``metric`` (equal metrics share one; it holds no
    per-run state), after checking that sacreBLEU is the pinned version (its functions used
    here are not public API)."""
    check_sacrebleu()
    return metric._impl()

class _Sacre(MetricBase):
    """Shared plumbing; subclasses define ``_impl()`` (a configured sacreBLEU metric)."""

    display: ClassVar[str] = ""
    scale: ClassVar[float] = 100.0
    libraries: ClassVar[tuple[str, ...]] = ("sacrebleu",)

    def display_name(self) -> str:
        return self.display

    def _impl(self) -> Any:
        raise NotImplementedError

    def _metric(self) -> Any:
        return _configured(self)

    def _ref_info(self, refs: Sequence[Segment]) -> Any:
        if not refs:
            raise ValueError(f"{self.display} needs at least one reference")
        m = self._metric()
        return m._extract_reference_info([m._preprocess_segment(r.text) for r in refs])

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        refs = prepared(refs)
        # references preprocessed once per run (sacreBLEU's _cache_references), every system
        # scored against them
        infos = refs.state((type(self).__name__, "refs", self.signature()),
                           lambda: [self._ref_info(rs) for rs in refs])
        rows = self._rows(prepared(hyps), refs, infos)
        if not rows:
            return np.zeros((0, 0))
        return np.array(rows, dtype=float)

    def _rows(self, hyps: Prepared, refs: Prepared, infos: list) -> list:
        """sacreBLEU's statistics of each hypothesis against its prepared references."""
        m = self._metric()
        return [m._compute_segment_statistics(m._preprocess_segment(h.text), info)
                for h, info in zip(hyps, infos, strict=True)]

    def _stats_for_sacre(self, stats: np.ndarray) -> list:
        return [float(x) for x in stats]

    def score(self, stats: np.ndarray) -> float:
        return float(self._metric()._compute_score_from_stats(
            self._stats_for_sacre(np.asarray(stats))).score)


@dataclass(frozen=True)
class ChrF(_Sacre):
    """chrF: character n-gram F-score (word n-grams too for chrF++).

    >>> from mtstrata.segment import Segment
    >>> m = ChrF(char_order=1)
    >>> row = m.stats(Segment.from_text("ab"), [Segment.from_text("ab")])
    >>> dict(zip(m.stat_names(), row.tolist())), m.score(row)
    ({'char1_hyp': 2.0, 'char1_ref': 2.0, 'char1_match': 2.0}, 100.0)
    """

    char_order: int = 6
    word_order: int = 0
    beta: int = 2
    lc: bool = False
    ws: bool = False
    eps: bool = False

    name: ClassVar[str] = "chrf"
    display: ClassVar[str] = "chrF"
    score_only: ClassVar[frozenset[str]] = frozenset({"beta", "eps"})
    width_params: ClassVar[frozenset[str]] = frozenset({"char_order", "word_order"})

    def stat_names(self) -> tuple[str, ...]:
        """(hyp, ref, match) counts per order: character orders, then word orders (the layout
        of sacreBLEU's chrF statistics)."""
        orders = [f"char{n}" for n in range(1, self.char_order + 1)] + [
            f"word{n}" for n in range(1, self.word_order + 1)]
        return tuple(f"{o}_{k}" for o in orders for k in ("hyp", "ref", "match"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.char_order < 0 or self.word_order < 0 or self.char_order + self.word_order < 1:
            raise ConfigError(
                f"{self.name}: char_order={self.char_order}, word_order={self.word_order} leave "
                "no n-gram to count; both must be >= 0 and at least one >= 1 (chrF: "
                "char_order=6,word_order=0; chrF++: char_order=6,word_order=2).")
        if self.char_order > MAX_CHAR_ORDER or self.word_order > MAX_WORD_ORDER:
            raise ConfigError(  # work per segment grows with the orders (char_order=1e8 hung)
                f"{self.name}: char_order={self.char_order}, word_order={self.word_order}; "
                f"chrF counts at most {MAX_CHAR_ORDER}-character and {MAX_WORD_ORDER}-word "
                "n-grams (chrF: char_order=6,word_order=0; chrF++: char_order=6,word_order=2).")
        if not 0 <= self.beta <= MAX_BETA:
            raise ConfigError(f"{self.name}: beta must be between 0 and {MAX_BETA:,} (recall "
                              f"weight; 2 by default), not {self.beta}.")

    def _ref_info(self, refs: Sequence[Segment]) -> list[list[Counter]]:
        """The word n-grams of each reference (sacreBLEU's ``_extract_reference_info`` without
        the character n-grams, which :mod:`~.chars` counts for the whole run)."""
        if not refs:
            raise ValueError(f"{self.display} needs at least one reference")
        m = self._metric()
        infos = []
        for r in refs:
            words = m._remove_punctuation(m._preprocess_segment(r.text)) if self.word_order \
                else []
            infos.append([extract_word_ngrams(words, n) for n in range(1, self.word_order + 1)])
        return infos

    def _rows(self, hyps: Prepared, refs: Prepared, infos: list) -> list:
        """sacreBLEU's ``_compute_segment_statistics``, step for step, with the character part
        shared: chrF and chrF++ of one run count the same character n-gram matches of each
        (hypothesis, reference) pair, so those are computed once per system (hypothesis-side
        state) and chrF++ adds only its word n-grams. Equal to sacreBLEU (tests/test_sacre.py,
        both metrics in one run, 1-3 references)."""
        m = self._metric()
        texts = [m._preprocess_segment(h.text) for h in hyps]
        key = (self.char_order, self.ws, self.lc)

        def char_side() -> chars.RefChars:
            return chars.reference_chars([[m._preprocess_segment(r.text) for r in rs]
                                          for rs in refs], self.char_order, self.ws)

        def char_matches() -> list[list[list[int]]]:  # [segment][reference] -> flat (h, r, m)
            side = refs.state(("chrf-char-refs", *key), char_side)
            return chars.char_stats(texts, side, self.ws).tolist()

        per_system = hyps.state(("chrf-char-matches", *key, refs.uid), char_matches)
        rows = []
        for text, info, per_ref in zip(texts, infos, per_system, strict=True):
            words = []
            if self.word_order > 0:
                hwords = m._remove_punctuation(text)
                words = [extract_word_ngrams(hwords, n) for n in range(1, self.word_order + 1)]
            best: list[int] = []
            best_f = -1.0
            for ref_words, cstats in zip(info, per_ref, strict=False):  # R >= refs
                stats = list(cstats)
                for h, r in zip(words, ref_words, strict=True):
                    stats.extend(m._get_match_statistics(h, r))
                f = m._compute_f_score(stats)
                if f > best_f:
                    best_f, best = f, stats
            rows.append(best)
        return rows

    def _impl(self) -> CHRF:
        return CHRF(char_order=self.char_order, word_order=self.word_order, beta=self.beta,
                    lowercase=self.lc, whitespace=self.ws, eps_smoothing=self.eps)

    def _stats_for_sacre(self, stats: np.ndarray) -> list:
        return [int(round(x)) for x in stats]  # match counts: integers, as sacreBLEU sums them

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """Mean n-gram precision and recall over the orders with counts on both sides: the two
        numbers chrF is the F-beta of (without ``eps``; Popović 2015)."""
        s = np.asarray(stats, dtype=float).reshape(-1, 3)  # (hyp, ref, match) per order
        used = s[(s[:, 0] > 0) & (s[:, 1] > 0)]
        if not len(used):
            return {"P": 0.0, "R": 0.0}
        return {"P": float(100 * np.mean(used[:, 2] / used[:, 0])),
                "R": float(100 * np.mean(used[:, 2] / used[:, 1]))}


@dataclass(frozen=True)
class ChrFpp(ChrF):
    word_order: int = 2

    name: ClassVar[str] = "chrf++"
    display: ClassVar[str] = "chrF++"

    def stats_family(self) -> type:
        return ChrF  # chrF with word_order=2


@dataclass(frozen=True)
class Ter(_Sacre):
    """Translation edit rate with shifts (tercom semantics, sacreBLEU's implementation).

    >>> from mtstrata.segment import Segment
    >>> m = Ter()
    >>> m.score(m.stats(Segment.from_text("the cat sat"), [Segment.from_text("the cat sat down")]))
    25.0
    """

    norm: bool = False
    no_punct: bool = False
    asian: bool = False
    case: bool = False

    name: ClassVar[str] = "ter"
    display: ClassVar[str] = "TER"
    #: sacreBLEU's shift search tries up to 1,000 shifts per round, each with a beam edit
    #: distance, for up to one round per word: about n^2 work with a large constant. A
    #: hostile pair (many words from a small vocabulary) takes seconds at a few hundred words
    #: and minutes near 2,000 (README gives the times), so segments are limited to 250 words
    #: (checked before any work by scoring.check_limits on whitespace words, and here on TER's
    #: own tokens, which normalisation may multiply).
    max_words: ClassVar[int | None] = 250
    statistics: ClassVar[tuple[str, ...]] = ("edits", "ref_len")
    higher_is_better: ClassVar[bool] = False
    #: edits / reference words * 100: a hypothesis longer than its reference costs more than
    #: 100 (sacreBLEU's and tercom's semantics, kept; 28,471 measured on plain inputs)
    range: ClassVar[tuple[float, float]] = (0.0, float("inf"))

    def _impl(self) -> TER:
        return TER(normalized=self.norm, no_punct=self.no_punct, asian_support=self.asian,
                   case_sensitive=self.case)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        return {"edits": float(stats[0]), "ref_len": float(stats[1])}

    def _checked(self, text: str, side: str) -> str:
        """TER's preprocessed ``text``, refused when longer than :attr:`max_words` tokens."""
        out = self._metric()._preprocess_segment(text)
        n = len(out.split())
        if self.max_words is not None and n > self.max_words:
            raise InputError(
                f"a {side} segment has {n:,} words after TER's tokenization ({text[:60]!r}...); "
                f"TER's shift search takes time growing with the square of the length and takes "
                f"at most {self.max_words:,} words per segment. Split the line, or leave TER out.")
        return out

    def _ref_info(self, refs: Sequence[Segment]) -> Any:
        if not refs:
            raise ValueError(f"{self.display} needs at least one reference")
        return self._metric()._extract_reference_info(
            [self._checked(r.text, "reference") for r in refs])

    def _rows(self, hyps: Prepared, refs: Prepared, infos: list) -> list:
        m = self._metric()
        return [m._compute_segment_statistics(self._checked(h.text, "hypothesis"), info)
                for h, info in zip(hyps, infos, strict=True)]


REGISTRY.add("chrf", ChrF, "character n-gram F-score (Popović 2015), sacreBLEU's")
REGISTRY.add("chrf++", ChrFpp, "chrF plus word 1-2-grams (Popović 2017), sacreBLEU's")
REGISTRY.add("ter", Ter, "translation edit rate with shifts (Snover et al. 2006), sacreBLEU's")
