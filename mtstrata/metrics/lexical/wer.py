"""Word error rates: WER, PER, and WRR = 1 - WER (Chiang et al. 2008, eq. 5).

All three share the additive statistics ``[errors, ref_len]`` and are micro-averaged at the
corpus level (summed errors over summed reference lengths), which makes them decomposable.

* **WER**: Levenshtein distance between the hypothesis and reference token sequences
  (substitutions, deletions, insertions all cost 1) over the reference length.
* **PER** (position-independent, Tillmann et al. 1997): the bag-of-words version,
  ``errors = |r| - matches + max(0, |h| - |r|)`` with ``matches`` the multiset intersection.
* **WRR**: ``max (M - I) / |r|`` over monotone alignments, which equals ``1 - WER``
 ; it is the unigram case of 4-GRR.

Tokens are sacreBLEU's (``tok=13a`` by default; ``lc`` lowercases). With several references
the one with the lowest error rate is used (ties: the shorter reference). An empty reference
against an empty hypothesis has no errors; against a non-empty one, every hypothesis token is an
insertion (the rate of such a segment alone is then reported as 1, or 0 for WRR).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.segment import Segment
from mtstrata.tokenizers import TOK_DEFAULTS, preprocessor, tokenize


def levenshtein(a: Sequence[str], b: Sequence[str]) -> int:
    """Word-level edit distance (unit costs).

    Bit-parallel (Myers 1999, in Hyyrö's 2001 formulation for the global distance): one column
    of the dynamic programme is held as two bit vectors of vertical +1/-1 deltas over the
    shorter sequence, so each word of the longer one costs a few integer operations instead of
    a Python loop over the other sequence. A test checks it against the textbook table.
    """
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if not m:
        return len(a)
    peq: dict[str, int] = {}  # word -> bit mask of its positions in b
    bit = 1
    for w in b:
        peq[w] = peq.get(w, 0) | bit
        bit <<= 1
    mask = (1 << m) - 1
    high = 1 << (m - 1)
    pv, mv, dist = mask, 0, m  # D[i][0] = i: every vertical delta is +1
    for w in a:
        eq = peq.get(w, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & high:
            dist += 1
        elif mh & high:
            dist -= 1
        # D[0][j] = j: the top row's horizontal delta is +1, shifted in as the low bit
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return dist


def position_independent_errors(hyp: Sequence[str], ref: Sequence[str]) -> int:
    """PER errors: unmatched reference words plus the hypothesis's excess length."""
    matches = sum((Counter(hyp) & Counter(ref)).values())
    return len(ref) - matches + max(0, len(hyp) - len(ref))


@dataclass(frozen=True)
class _ErrorRate(MetricBase):
    tok: str = "13a"
    #: sacreBLEU's tokenizer of the run's language where it chooses one (zh, ja, ko)
    language_defaults: ClassVar[dict[str, dict[str, str]]] = TOK_DEFAULTS
    lc: bool = False

    higher_is_better: ClassVar[bool] = False
    display: ClassVar[str] = ""
    libraries: ClassVar[tuple[str, ...]] = ("sacrebleu",)
    statistics: ClassVar[tuple[str, ...]] = ("errors", "ref_len")
    #: errors / reference words: a hypothesis longer than its reference has more errors than
    #: the reference has words, so the rate has no upper bound (284 measured on plain inputs)
    range: ClassVar[tuple[float, float]] = (0.0, float("inf"))

    def __post_init__(self) -> None:
        super().__post_init__()
        preprocessor(self.tok, self.lc)  # an unknown tokenizer fails now, not mid-run

    def display_name(self) -> str:
        return self.display

    def _errors(self, hyp: list[str], ref: list[str]) -> int:
        return levenshtein(hyp, ref)

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        if not refs:
            raise ValueError(f"{self.display} needs at least one reference")
        h = tokenize(hyp.text, self.tok, self.lc).split()
        best: tuple[float, int, int] | None = None
        for r in refs:
            rt = tokenize(r.text, self.tok, self.lc).split()
            e = self._errors(h, rt)
            rate = e / len(rt) if rt else (0.0 if not h else float("inf"))
            cand = (rate, len(rt), e)
            if best is None or cand < best:
                best = cand
        assert best is not None
        return np.array([best[2], best[1]], dtype=float)

    def _rate(self, stats: np.ndarray) -> float:
        errors, ref_len = float(stats[0]), float(stats[1])
        if ref_len == 0:
            return 0.0 if errors == 0 else 1.0
        return errors / ref_len

    def score(self, stats: np.ndarray) -> float:
        return self._rate(stats)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        return {"errors": float(stats[0]), "ref_len": float(stats[1])}


@REGISTRY.register("wer", description="word error rate: Levenshtein edits / reference length "
                   "(micro-averaged)")
@dataclass(frozen=True)
class WER(_ErrorRate):
    """Word error rate.

    >>> from mtstrata.segment import Segment
    >>> m = WER()
    >>> m.score(m.stats(Segment.from_text("the cat sat"), [Segment.from_text("the cat sat down")]))
    0.25
    """

    name = "wer"
    display = "WER"


@REGISTRY.register("per", description="position-independent error rate (bag of words; "
                   "Tillmann et al. 1997)")
@dataclass(frozen=True)
class PER(_ErrorRate):
    """Position-independent error rate: word order does not count.

    >>> from mtstrata.segment import Segment
    >>> m = PER()
    >>> m.score(m.stats(Segment.from_text("sat the cat"), [Segment.from_text("the cat sat")]))
    0.0
    """

    name = "per"
    display = "PER"

    def _errors(self, hyp: list[str], ref: list[str]) -> int:
        return position_independent_errors(hyp, ref)


@REGISTRY.register("wrr", description="word recognition rate 1 - WER (Chiang et al. 2008, "
                   "eq. 5), micro-averaged")
@dataclass(frozen=True)
class WRR(_ErrorRate):
    name = "wrr"
    display = "WRR"
    higher_is_better: ClassVar[bool] = True
    #: 1 - WER: at most 1, and unbounded below (-283 measured on plain inputs)
    range: ClassVar[tuple[float, float]] = (-float("inf"), 1.0)

    def score(self, stats: np.ndarray) -> float:
        return 1.0 - self._rate(stats)
