"""4-GRR, the decomposable n-gram recognition rate of Chiang et al. (2008, eq. 6, §4.3).

For a hypothesis ``h`` and a reference ``r``::

    GRR_N(h, r) = max over monotone alignments of
                  (Σ_{k=1..N} M_k - α·I - β·D) / Σ_{k=1..N} |g_k(r)|,   |g_k(r)| = max(0, |r|-k+1)

where ``M_k`` counts the matched k-grams (runs of consecutive matches), ``I`` the insertions and
``D`` the deletions. The maximum is a Viterbi search over the paper's automaton with states
``(i, m)``, ``0 ≤ i ≤ |r|``, ``0 ≤ m ≤ N-1`` (``i`` reference words consumed, ``m`` the length of
the current run of matches, capped): a *match* reads ``r_{i+1}`` with weight ``m+1`` (it completes
one k-gram for every ``k ≤ m+1``) and goes to ``(i+1, min(m+1, N-1))``; a *deletion* reads nothing,
weight ``-β``, to ``(i+1, 0)``; a *substitution* reads any word, weight 0, to ``(i+1, 0)``; an
*insertion* reads any word, weight ``-α``, to ``(i, 0)``. Final states ``(|r|, m)``. Defaults
``α = 1``, ``β = 0``, ``N = 4`` (the paper's). With ``N = 1``, ``α = 1``, ``β = 0`` this is
WRR = 1 - WER (eq. 5).

Statistics of one segment: ``[numerator, denominator]``; the corpus score is the summed
numerators over the summed denominators ("as in micro-averaged recall", §4.3). Denominators do
not depend on the hypothesis, so the corpus score is a fixed-weight combination of segment
scores (decomposable: raising one segment's score never lowers the corpus score).

Speed: the search runs for a whole batch of segments at once. Segments are sorted by hypothesis
length and cut into blocks; each block is an ``(N, segments, |r|+1)`` numpy array of path
weights (run length outermost), advanced one hypothesis word per step for all segments together
(a segment whose hypothesis has ended keeps its values); the chain of deletions (epsilon moves)
is a running maximum along the reference axis. Padding positions beyond a reference's end are
never read, since every transition moves forward in ``i``.

Tokens are sacreBLEU's (``tok=13a`` by default, ``lc`` lowercases), as for BLEU and WRR. With
several references the one giving the highest segment ratio is used (ties: the shorter
reference, as WRR). A segment with an empty reference has denominator 0; alone it scores 1 if
its numerator is 0 (empty hypothesis), else 0 (as WRR).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.prepared import prepared
from mtstrata.segment import Segment
from mtstrata.tokenizers import TOK_DEFAULTS, tokenize

_NEG = -np.inf
_BLOCK = 128  # segments advanced together; larger blocks pad more, smaller ones cost more calls


def grr_numerators(pairs: Sequence[tuple[Sequence[str], Sequence[str]]], order: int = 4,
                   alpha: float = 1.0, beta: float = 0.0) -> np.ndarray:
    """Best automaton path weight ``max (Σ_k M_k - α·I - β·D)`` of every (hyp, ref) pair.

    Args:
        pairs: ``(hypothesis tokens, reference tokens)`` pairs.
        order: Largest n-gram order ``N`` (4 for 4-GRR, 1 for WRR).
        alpha: Insertion penalty ``α``.
        beta: Deletion penalty ``β``.

    Returns:
        One numerator per pair (can be negative), in the order of ``pairs``.
    """
    vocab: dict[str, int] = {}
    hyps = [np.array([vocab.setdefault(w, len(vocab)) for w in h], dtype=np.int64)
            for h, _ in pairs]
    refs = [np.array([vocab.setdefault(w, len(vocab)) for w in r], dtype=np.int64)
            for _, r in pairs]
    out = np.empty(len(pairs))
    by_len = sorted(range(len(pairs)), key=lambda k: (len(hyps[k]), len(refs[k])))
    for s in range(0, len(by_len), _BLOCK):
        idx = by_len[s:s + _BLOCK]
        out[idx] = _block([hyps[k] for k in idx], [refs[k] for k in idx], order, alpha, beta)
    return out


def grr_numerator(hyp: Sequence[str], ref: Sequence[str], order: int = 4, alpha: float = 1.0,
                  beta: float = 0.0) -> float:
    """The numerator of one pair (see :func:`grr_numerators`)."""
    return float(grr_numerators([(hyp, ref)], order, alpha, beta)[0])


def _block(hyps: list[np.ndarray], refs: list[np.ndarray], order: int, alpha: float,
           beta: float) -> np.ndarray:
    n = len(hyps)
    hyp_len = np.array([len(h) for h in hyps])
    ref_len = np.array([len(r) for r in refs])
    steps, width = int(hyp_len.max()), int(ref_len.max())
    hyp = np.full((n, steps), -1, dtype=np.int64)  # -1 and -2: padding that never matches
    ref = np.full((n, width), -2, dtype=np.int64)
    for k in range(n):
        hyp[k, :hyp_len[k]] = hyps[k]
        ref[k, :ref_len[k]] = refs[k]
    top = order - 1
    bpos = beta * np.arange(width + 1, dtype=float)

    def close(v: np.ndarray) -> None:
        # deletions: (k, any m) -> (i, 0) for k < i at cost β (i - k), as a running maximum
        if width == 0:
            return
        acc = np.maximum.accumulate(v.max(axis=0) + bpos, axis=1)
        np.maximum(v[0, :, 1:], acc[:, :-1] - bpos[1:], out=v[0, :, 1:])

    # path weights v[m, segment, i]: the run length m outermost, so the maximum over it is an
    # element-wise maximum of contiguous planes (a reduction over a short last axis is slow)
    v = np.full((order, n, width + 1), _NEG)
    v[0, :, 0] = 0.0
    close(v)
    nxt = np.empty_like(v)
    cand = np.empty((order, n, width))
    for t in range(steps):
        best = v.max(axis=0)
        nxt.fill(_NEG)
        np.subtract(best, alpha, out=nxt[0])  # insertion
        np.maximum(nxt[0, :, 1:], best[:, :-1], out=nxt[0, :, 1:])  # substitution
        miss = ref != hyp[:, t:t + 1]
        for m in range(order):  # match from (i, m): weight m + 1
            np.add(v[m, :, :-1], m + 1, out=cand[m])
            np.copyto(cand[m], _NEG, where=miss)
        if top == 0:
            np.maximum(nxt[0, :, 1:], cand[0], out=nxt[0, :, 1:])
        else:  # run length m -> min(m + 1, N - 1)
            np.maximum(nxt[1:, :, 1:], cand[:top], out=nxt[1:, :, 1:])
            np.maximum(nxt[top, :, 1:], cand[top], out=nxt[top, :, 1:])
        close(nxt)
        done = hyp_len <= t  # these hypotheses have ended: keep their values
        if done.any():
            nxt[:, done] = v[:, done]
        v, nxt = nxt, v
    return v[:, np.arange(n), ref_len].max(axis=0)


def grr_denominator(ref_len: int, order: int) -> int:
    """``Σ_{k=1..N} max(0, |r| - k + 1)``: the number of the reference's k-grams."""
    return sum(max(0, ref_len - k + 1) for k in range(1, order + 1))


@dataclass(frozen=True)
class GRR(MetricBase):
    """N-gram recognition rate (Chiang et al. 2008), decomposable, on ``[num, den]`` rows.

    >>> from mtstrata.segment import Segment
    >>> m = GRR()
    >>> m.stats(Segment.from_text("the cat sat"), [Segment.from_text("the cat sat down")]).tolist()
    [6.0, 10.0]

    (1-, 2- and 3-grams matched: 3 + 2 + 1 of the reference's 4 + 3 + 2 + 1 n-grams.)
    """

    alpha: float = 1.0
    beta: float = 0.0
    order: int = 4
    tok: str = "13a"
    #: sacreBLEU's tokenizer of the run's language where it chooses one (zh, ja, ko)
    language_defaults: ClassVar[dict[str, dict[str, str]]] = TOK_DEFAULTS
    lc: bool = False

    name: ClassVar[str] = "4-GRR"
    max_words: ClassVar[int | None] = 2000  # quadratic alignment
    libraries: ClassVar[tuple[str, ...]] = ("sacrebleu",)
    statistics: ClassVar[tuple[str, ...]] = ("numerator", "denominator")
    #: matched n-grams minus alpha x inserted words over the reference's n-grams: at most 1, and
    #: unbounded below for a hypothesis much longer than its reference (-283 measured)
    range: ClassVar[tuple[float, float]] = (-float("inf"), 1.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.order <= 9:
            raise ConfigError(f"4-GRR: order must be between 1 and 9, not {self.order}; "
                              "write e.g. '4-GRR:order=4'.")
        if self.alpha < 0 or self.beta < 0:
            raise ConfigError(f"4-GRR: alpha and beta are penalties and must be >= 0, got "
                              f"alpha={self.alpha}, beta={self.beta}; e.g. '4-GRR:alpha=1,beta=0'.")

    def display_name(self) -> str:
        return "4-GRR"

    def _tokens(self, text: str) -> tuple[str, ...]:
        return tuple(tokenize(text, self.tok, self.lc).split())

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        refs = prepared(refs)
        ref_toks = refs.state(("GRR", "refs", self.tok, self.lc), lambda: [
            [self._tokens(r.text) for r in rs] for rs in refs])
        pairs: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
        owner: list[int] = []
        for k, (h, rts) in enumerate(zip(hyps, ref_toks, strict=True)):
            if not rts:
                raise ValueError("4-GRR needs at least one reference")
            ht = self._tokens(h.text)
            for rt in rts:
                pairs.append((ht, rt))
                owner.append(k)
        nums = grr_numerators(pairs, self.order, self.alpha, self.beta)
        out = np.zeros((len(hyps), 2))
        best: list[tuple[float, int] | None] = [None] * len(hyps)
        for p, k in enumerate(owner):
            den = grr_denominator(len(pairs[p][1]), self.order)
            key = (_ratio(nums[p], den), -den)  # highest ratio, then the shorter reference
            if best[k] is None or key > best[k]:  # type: ignore[operator]
                best[k] = key
                out[k] = (nums[p], den)
        return out

    def score(self, stats: np.ndarray) -> float:
        return _ratio(float(stats[0]), float(stats[1]))

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        st = np.atleast_2d(np.asarray(stats, dtype=float))
        return np.array([_ratio(a, b) for a, b in st], dtype=float)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        return {"numerator": float(stats[0]), "denominator": float(stats[1])}


def _ratio(num: float, den: float) -> float:
    if den == 0:
        return 1.0 if num >= 0 else 0.0
    return float(num / den)


REGISTRY.add("4-GRR", GRR, "n-gram recognition rate: Viterbi over Chiang et al. (2008)'s "
             "automaton; decomposable (summed numerators / denominators)")
REGISTRY.add("grr", GRR, "alias of 4-GRR")
