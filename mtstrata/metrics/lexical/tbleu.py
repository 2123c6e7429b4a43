"""tBLEU, tolerant BLEU (Libovický and Pecina 2014, WMT14 metrics task).

1. *Affix distance* of a reference word ``w_r`` and a test word ``w_t``: with ``S`` their longest
   common substring, ``w = prefix + S + suffix``,
   ``AD = min{1, (Lev(prefix_r, prefix_t) + Lev(suffix_r, suffix_t)) / |S|}`` if ``|S| > 0``
   else 1. The paper prints ``max{1, …}``, but its own example (vzpomenou / zapomenout = 3/7)
   needs ``min``. When several placements of a longest common substring exist the paper does
   not say which to use; we take the one giving the smallest AD.
2. *Alignment*: minimum-weight maximum bipartite matching of reference and test words with
   weights AD (``scipy.optimize.linear_sum_assignment``).
3. *Corrected sentence*: a test word matched with ``AD ≤ ε`` is replaced by its reference word
   and weighted ``v = 1 - AD``; every other word keeps itself and weight 1. The matching is only
   computed when some pair of different words can have ``AD ≤ ε`` (an exact bound, see
   :func:`_may_correct`): otherwise no matching could correct anything. With ``ε = 0.05`` that
   needs words of 20 characters or more, so on English the corrected sentence is almost always
   the hypothesis itself; larger ``ε`` (the paper's Figure 2 goes to 0.5) corrects more.
4. *n-gram precision*: a clipped matching n-gram of the corrected sentence counts
   ``Σ v / n`` instead of 1 (when an n-gram occurs more often than the reference allows, its
   highest-weight occurrences are the ones kept; ties: the earlier). The rest is BLEU
   (sacreBLEU's ``compute_bleu``: brevity penalty on the closest reference length, smoothing).
   Several references: each is aligned on its own and each hypothesis n-gram takes the
   reference giving it the highest weight.

``ε = 0`` corrects nothing (AD = 0 only for equal words) and gives exactly BLEU. Default
``ε = 0.05``, the paper's WMT14 setting. Statistics have BLEU's layout with fractional
``correct_n``, so corpus scores are BLEU's micro-average. Tokens are sacreBLEU's (``tok=13a``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np
from sacrebleu.metrics.bleu import BLEU as _SacreBLEU

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.lexical.bleu import BLEU, _bp
from mtstrata.metrics.lexical.wer import levenshtein
from mtstrata.segment import Segment
from mtstrata.tokenizers import tokenize


def affix_distance(w_r: str, w_t: str) -> float:
    """Affix distance of two words (see the module docstring), in ``[0, 1]``."""
    if w_r == w_t:
        return 0.0
    return _affix_distance(w_r, w_t)


@lru_cache(maxsize=1 << 20)  # a pure function of two words, asked for the same pairs often
def _affix_distance(w_r: str, w_t: str) -> float:
    if set(w_r).isdisjoint(w_t):
        ad = 1.0
    else:
        # longest common substring: every end position (i, j) of a longest one
        best, ends = 0, []
        prev = [0] * (len(w_t) + 1)
        for i, a in enumerate(w_r, 1):
            cur = [0] * (len(w_t) + 1)
            for j, b in enumerate(w_t, 1):
                if a == b:
                    k = cur[j] = prev[j - 1] + 1
                    if k > best:
                        best, ends = k, [(i, j)]
                    elif k == best:
                        ends.append((i, j))
            prev = cur
        ad = 1.0
        for i, j in ends:
            edits = (levenshtein(w_r[:i - best], w_t[:j - best])
                     + levenshtein(w_r[i:], w_t[j:]))
            ad = min(ad, edits / best)
    return ad


def _may_correct(hyp: Sequence[str], ref: Sequence[str], eps: float) -> bool:
    """Whether some pair of different words has ``AD <= eps`` (then the matching matters).

    Exact shortcut, not a heuristic: for different words the prefix and suffix edits number at
    least 1 and at least the length difference, and ``|S| <= min length``; so ``AD <= eps``
    needs ``min length >= 1/eps`` and ``|length difference| <= eps * min length``. Only pairs
    passing that test get their affix distance computed.
    """
    slack = 1e-12
    long_r = {w for w in ref if len(w) * eps >= 1 - slack}
    if not long_r:
        return False
    long_t = {w for w in hyp if len(w) * eps >= 1 - slack}
    for r in long_r:
        for t in long_t:
            if r != t and abs(len(r) - len(t)) <= eps * min(len(r), len(t)) + slack \
                    and affix_distance(r, t) <= eps:
                return True
    return False


def correct_sentence(hyp: Sequence[str], ref: Sequence[str], eps: float
                     ) -> tuple[list[str], list[float]]:
    """The corrected test sentence and its word weights against one reference."""
    words, weights = list(hyp), [1.0] * len(hyp)
    if not hyp or not ref or eps <= 0:
        return words, weights  # AD <= 0 only for equal words: nothing to correct
    if not _may_correct(hyp, ref, eps):
        return words, weights  # whatever the matching, no word would be corrected
    cost = np.array([[affix_distance(r, t) for t in hyp] for r in ref])
    from scipy.optimize import linear_sum_assignment  # lazy: scipy is slow to import

    rows, cols = linear_sum_assignment(cost)
    for rj, ti in zip(rows, cols, strict=True):
        ad = cost[rj, ti]
        if ad <= eps and ref[rj] != hyp[ti]:
            words[ti] = ref[rj]
            weights[ti] = 1.0 - ad
    return words, weights


def weighted_matches(words: Sequence[str], weights: Sequence[float], ref_counts: Counter,
                     max_order: int) -> list[dict[int, float]]:
    """Per order, the weight ``Σ v / n`` of each clipped matching n-gram, keyed by position."""
    out: list[dict[int, float]] = []
    for n in range(1, max_order + 1):
        groups: dict[tuple[str, ...], list[tuple[float, int]]] = defaultdict(list)
        for p in range(len(words) - n + 1):
            g = tuple(words[p:p + n])
            if g in ref_counts:
                groups[g].append((-sum(weights[p:p + n]) / n, p))
        got: dict[int, float] = {}
        for g, occ in groups.items():
            occ.sort()
            for neg, p in occ[:ref_counts[g]]:
                got[p] = -neg
        out.append(got)
    return out


@dataclass(frozen=True)
class TBLEU(BLEU):
    """Tolerant BLEU: BLEU over affix-distance-corrected, weighted test sentences.

    With ``eps=0`` nothing is corrected and tBLEU is BLEU:

    >>> from mtstrata.segment import Segment
    >>> hyp = Segment.from_text("the cats sat on a mat")
    >>> ref = Segment.from_text("the cat sat on the mat")
    >>> t, b = TBLEU(eps=0.0, smooth="none", max_order=1), BLEU(smooth="none", max_order=1)
    >>> t.score(t.stats(hyp, [ref])) == b.score(b.stats(hyp, [ref]))
    True
    """

    eps: float = 0.05

    name: ClassVar[str] = "tBLEU"
    _counting: ClassVar[str] = "tBLEU"  # weighted matches: its own _ref_entry and _row
    max_words: ClassVar[int | None] = 2000  # quadratic alignment

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= self.eps <= 1.0:
            raise ConfigError(f"tBLEU: eps (the affix-distance threshold) must be in [0, 1], "
                              f"not {self.eps}; the paper's default is 0.05.")

    def display_name(self) -> str:
        return "tBLEU"

    def _ref_entry(self, refs: Sequence[Segment]) -> list[tuple[list[str], Counter]]:  # type: ignore[override]
        if not refs:
            raise ValueError("tBLEU needs at least one reference")
        out = []
        for r in refs:
            toks = tokenize(r.text, self.tok, self.lc).split()
            counts: Counter = Counter()
            for n in range(1, self.max_order + 1):
                counts.update(tuple(toks[p:p + n]) for p in range(len(toks) - n + 1))
            out.append((toks, counts))
        return out

    def _row(self, hyp: str, entry: list[tuple[list[str], Counter]]) -> list[float]:  # type: ignore[override]
        h = tokenize(hyp, self.tok, self.lc).split()
        best: list[dict[int, float]] = [{} for _ in range(self.max_order)]
        lens = []
        for rt, counts in entry:
            lens.append(len(rt))
            words, weights = correct_sentence(h, rt, self.eps)
            for n, got in enumerate(weighted_matches(words, weights, counts, self.max_order)):
                b = best[n]
                for p, w in got.items():
                    if w > b.get(p, 0.0):
                        b[p] = w
        hyp_len = len(h)
        correct = [sum(b.values()) for b in best]
        total = [max(0, hyp_len - n) for n in range(self.max_order)]
        ref_len = self._ref_len(hyp_len, tuple(lens))
        return [hyp_len, ref_len, *correct, *total, min(hyp_len, ref_len), ref_len]

    def _precision_part(self, stats: np.ndarray) -> tuple[float, float, float]:
        o = self.max_order
        # fractional matches: not rounded (BLEU rounds its integer counts)
        correct = [float(x) for x in stats[2:2 + o]]
        total = [int(round(x)) for x in stats[2 + o:2 + 2 * o]]
        hyp_len, ref_len = int(round(stats[0])), float(stats[1])
        average = self.ref_length == "average"
        if not average:
            ref_len = int(round(ref_len))
        # a fractional (average) reference length: sacreBLEU takes integer lengths only, so
        # its precision part is computed with BP 1 and the brevity penalty applied here, as BLEU
        bleu = _SacreBLEU.compute_bleu(correct, total, hyp_len,
                                       hyp_len if average else ref_len,
                                       smooth_method=self.smooth,
                                       smooth_value=self.smooth_value,
                                       effective_order=self.eff, max_ngram_order=o).score
        if average:
            bleu *= _bp(hyp_len, ref_len)
        return bleu, hyp_len, ref_len


REGISTRY.add("tBLEU", TBLEU, description="tolerant BLEU: affix-distance alignment corrects "
             "inflection errors with weights (Libovický & Pecina 2014); eps=0 is BLEU")
