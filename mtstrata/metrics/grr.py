"""4-GRR, the decomposable n-gram recognition rate of Chiang et al. (2008, eq. 6 and Figure 2).

For a hypothesis ``h`` and a reference ``r`` (METRICS.md §1.3)::

    GRR_N(h, r) = max over monotone alignments of
                  (Σ_{k=1..N} M_k - α·I - β·D) / Σ_{k=1..N} |g_k(r)|,   |g_k(r)| = max(0, |r|-k+1)

where ``M_k`` counts the matched k-grams (runs of consecutive matches), ``I`` the insertions and
``D`` the deletions. The maximum is a Viterbi search over the paper's automaton with states
``(i, m)``, ``0 ≤ i ≤ |r|``, ``0 ≤ m ≤ N-1`` (``i`` reference words consumed, ``m`` the length of
the current run of matches, capped): a *match* reads ``r_{i+1}`` with weight ``m+1`` (it completes
one k-gram for every ``k ≤ m+1``) and goes to ``(i+1, min(m+1, N-1))``; a *deletion* reads nothing,
weight ``-β``, to ``(i+1, 0)``; a *substitution* reads any word, weight 0, to ``(i+1, 0)``; an
*insertion* reads any word, weight ``-α``, to ``(i, 0)``. Defaults ``α = 1``, ``β = 0``, ``N = 4``.
With ``N = 1``, ``α = 1``, ``β = 0`` this is WRR = 1 - WER.

Statistics of one segment: ``[numerator, denominator]``; the corpus score is the summed
numerators over the summed denominators, so the corpus score is a fixed-weight combination of
segment scores (decomposable: raising one segment's numerator never lowers the corpus score).

The search is vectorised with numpy over reference positions (and, in ``stats_batch``, over
blocks of segments of similar length): one step per hypothesis word, the deletion closure
(chains of epsilon moves) as a running maximum. Tokens are sacreBLEU's
(``tok=13a`` by default, ``lc`` lowercases), as for BLEU and WRR. With several references the one
giving the highest segment ratio is used (ties: the first). A segment whose reference is empty
has denominator 0; alone it scores 1 if the hypothesis is empty too, else 0 (as WRR).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.bleu import tokenize
from mtstrata.segment import Segment

_NEG = -np.inf


def grr_numerator(hyp: Sequence[str], ref: Sequence[str], order: int = 4, alpha: float = 1.0,
                  beta: float = 0.0) -> float:
    """Best automaton path weight ``max (Σ_k M_k - α·I - β·D)`` (Viterbi, see module doc).

    Args:
        hyp: Hypothesis tokens.
        ref: Reference tokens.
        order: Largest n-gram order ``N`` (``N = 4`` for 4-GRR, 1 for WRR).
        alpha: Insertion penalty ``α``.
        beta: Deletion penalty ``β``.

    Returns:
        The numerator of the recognition rate (can be negative).
    """
    n_ref = len(ref)
    if n_ref == 0:
        return -alpha * len(hyp)
    # integer ids so that the match mask is one vectorised comparison per hypothesis word
    ids: dict[str, int] = {}
    ref_ids = np.array([ids.setdefault(w, len(ids)) for w in ref])
    top = order - 1
    pos = np.arange(n_ref + 1, dtype=float)
    gains = np.arange(1, order + 1, dtype=float)  # match weight m + 1 for m = 0..N-1

    def close(v: np.ndarray) -> None:
        # deletions: (k, *) -> (i, 0) for k < i at cost β (i - k); a running maximum
        g = v.max(axis=1) + beta * pos
        acc = np.maximum.accumulate(g)
        np.maximum(v[1:, 0], acc[:-1] - beta * pos[1:], out=v[1:, 0])

    v = np.full((n_ref + 1, order), _NEG)
    v[0, 0] = 0.0
    close(v)
    for w in hyp:
        best = v.max(axis=1)
        nxt = np.full_like(v, _NEG)
        nxt[:, 0] = best - alpha  # insertion
        nxt[1:, 0] = np.maximum(nxt[1:, 0], best[:-1])  # substitution
        wid = ids.get(w)
        if wid is not None:
            hit = ref_ids == wid
            if hit.any():
                cand = np.where(hit[:, None], v[:-1, :] + gains, _NEG)  # match from (i, m)
                if top == 0:
                    np.maximum(nxt[1:, 0], cand[:, 0], out=nxt[1:, 0])
                else:
                    # m -> min(m + 1, N - 1)
                    np.maximum(nxt[1:, 1:], cand[:, :top], out=nxt[1:, 1:])
                    np.maximum(nxt[1:, top], cand[:, top], out=nxt[1:, top])
        close(nxt)
        v = nxt
    return float(v[n_ref].max())


def grr_numerators(pairs: Sequence[tuple[Sequence[str], Sequence[str]]], order: int = 4,
                   alpha: float = 1.0, beta: float = 0.0, block: int = 256) -> np.ndarray:
    """:func:`grr_numerator` of many ``(hyp, ref)`` pairs, vectorised across pairs too.

    Pairs are sorted by hypothesis length and run in blocks of ``block``: every step of the
    search advances all pairs of a block at once on a ``(block, |r|max + 1, N)`` array (pairs
    whose hypothesis is exhausted keep their state). Same numbers as the one-pair search.
    """
    out = np.zeros(len(pairs))
    if not pairs:
        return out
    vocab: dict[str, int] = {}
    enc = [([vocab.setdefault(w, len(vocab)) for w in h],
            [vocab.setdefault(w, len(vocab)) for w in r]) for h, r in pairs]
    order_idx = sorted(range(len(pairs)), key=lambda k: (len(enc[k][0]), len(enc[k][1])))
    top = order - 1
    gains = np.arange(1, order + 1, dtype=float)
    for start in range(0, len(order_idx), block):
        idx = order_idx[start:start + block]
        b = len(idx)
        h_len = np.array([len(enc[k][0]) for k in idx])
        r_len = np.array([len(enc[k][1]) for k in idx])
        hmax, rmax = int(h_len.max()), int(r_len.max())
        hyp_ids = np.full((b, max(hmax, 1)), -2)
        ref_ids = np.full((b, max(rmax, 1)), -1)
        for row, k in enumerate(idx):
            h, r = enc[k]
            hyp_ids[row, :len(h)] = h
            ref_ids[row, :len(r)] = r
        ref_ids = ref_ids[:, :rmax]
        pos = np.arange(rmax + 1, dtype=float)

        def close(v: np.ndarray, pos: np.ndarray = pos) -> None:
            g = v.max(axis=2) + beta * pos
            acc = np.maximum.accumulate(g, axis=1)
            np.maximum(v[:, 1:, 0], acc[:, :-1] - beta * pos[1:], out=v[:, 1:, 0])

        v = np.full((b, rmax + 1, order), _NEG)
        v[:, 0, 0] = 0.0
        close(v)
        for j in range(hmax):
            best = v.max(axis=2)
            nxt = np.full_like(v, _NEG)
            nxt[:, :, 0] = best - alpha
            np.maximum(nxt[:, 1:, 0], best[:, :-1], out=nxt[:, 1:, 0])
            hit = ref_ids == hyp_ids[:, j:j + 1]
            cand = np.where(hit[:, :, None], v[:, :-1, :] + gains, _NEG)
            if top == 0:
                np.maximum(nxt[:, 1:, 0], cand[:, :, 0], out=nxt[:, 1:, 0])
            else:
                np.maximum(nxt[:, 1:, 1:], cand[:, :, :top], out=nxt[:, 1:, 1:])
                np.maximum(nxt[:, 1:, top], cand[:, :, top], out=nxt[:, 1:, top])
            close(nxt)
            active = j < h_len
            v[active] = nxt[active]
        out[idx] = v[np.arange(b), r_len].max(axis=1)
    return out


def grr_denominator(ref_len: int, order: int) -> int:
    """``Σ_{k=1..N} max(0, |r| - k + 1)``: the reference's k-gram counts."""
    return sum(max(0, ref_len - k + 1) for k in range(1, order + 1))


@dataclass(frozen=True)
class GRR(MetricBase):
    """N-gram recognition rate (Chiang et al. 2008), decomposable, on ``[num, den]`` rows."""

    alpha: float = 1.0
    beta: float = 0.0
    order: int = 4
    tok: str = "13a"
    lc: bool = False

    name: ClassVar[str] = "grr"

    def __post_init__(self) -> None:
        if not 1 <= self.order <= 9:
            raise ConfigError(f"4-GRR: order must be between 1 and 9, not {self.order}; "
                              "write e.g. 'grr:order=4'.")
        if self.alpha < 0 or self.beta < 0:
            raise ConfigError(f"4-GRR: alpha and beta are penalties and must be >= 0, got "
                              f"alpha={self.alpha}, beta={self.beta}.")

    def display_name(self) -> str:
        return "4-GRR"

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        if not refs:
            raise ValueError("4-GRR needs at least one reference")
        h = tokenize(hyp.text, self.tok, self.lc).split()
        best: tuple[float, float, float] | None = None
        for r in refs:
            rt = tokenize(r.text, self.tok, self.lc).split()
            num = grr_numerator(h, rt, self.order, self.alpha, self.beta)
            den = float(grr_denominator(len(rt), self.order))
            ratio = _ratio(num, den)
            if best is None or ratio > best[0]:
                best = (ratio, num, den)
        assert best is not None
        return np.array([best[1], best[2]], dtype=float)

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        toks: dict[str, list[str]] = {}

        def tk(text: str) -> list[str]:
            t = toks.get(text)
            if t is None:
                t = toks[text] = tokenize(text, self.tok, self.lc).split()
            return t

        pairs, owner = [], []
        for k, (h, rs) in enumerate(zip(hyps, refs, strict=True)):
            if not rs:
                raise ValueError("4-GRR needs at least one reference")
            ht = tk(h.text)
            for r in rs:
                pairs.append((ht, tk(r.text)))
                owner.append(k)
        nums = grr_numerators(pairs, self.order, self.alpha, self.beta)
        out = np.zeros((len(hyps), 2))
        best = np.full(len(hyps), -np.inf)
        for (_, rt), k, num in zip(pairs, owner, nums, strict=True):
            den = float(grr_denominator(len(rt), self.order))
            ratio = _ratio(float(num), den)
            if ratio > best[k]:
                best[k] = ratio
                out[k] = (num, den)
        return out

    def score(self, stats: np.ndarray) -> float:
        return _ratio(float(stats[0]), float(stats[1]))

    def details(self, stats: np.ndarray) -> dict[str, float]:
        return {"numerator": float(stats[0]), "denominator": float(stats[1])}


def _ratio(num: float, den: float) -> float:
    if den == 0:
        return 1.0 if num >= 0 else 0.0
    return num / den


REGISTRY.add("4-GRR", GRR, "n-gram recognition rate, Viterbi over Chiang et al. (2008)'s "
             "automaton; decomposable (summed numerators / denominators)")
REGISTRY.add("grr", GRR, "alias of 4-GRR")
