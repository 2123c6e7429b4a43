"""ROUGE-L and ROUGE-W (Lin 2004, "ROUGE: a package for automatic evaluation of summaries", §3).

For a hypothesis ``Y`` of ``n`` tokens and a reference ``X`` of ``m`` tokens:

* **ROUGE-L**: ``R = LCS(X, Y) / m``, ``P = LCS(X, Y) / n`` with LCS the longest common
  subsequence (computed here with a bit-parallel LCS over machine words held in Python ints).
* **ROUGE-W**: the weighted LCS with weighting ``f(k) = k^w`` (``w = 1.2``, as the ROUGE-1.5.5
  reference tool's ``-w 1.2``) that rewards consecutive matches: Lin's dynamic programme with
  ``c(i, j) = c(i-1, j-1) + f(k+1) - f(k)`` on a match that extends a run of ``k``; then
  ``R = f⁻¹(WLCS / f(m))``, ``P = f⁻¹(WLCS / f(n))``.

Both give ``F = P·R / ((1 - α)·P + α·R)`` (ROUGE-1.5.5's ``-p α``, default ``α = 0.5``, which is
F1). As in the reference tool, the system score is the **mean of per-segment scores** (each
segment is one "summary"), so per-segment statistics are ``[P, R, F, 1]`` and the corpus score is
``ΣF / Σ1``; ``details`` gives the mean P and R. Several references: ``multi=avg`` averages the
per-reference P, R, F (ROUGE-1.5.5's default ``-f A``), ``multi=max`` takes the reference with
the best F (``-f B``).

Tokens are sacreBLEU's (``tok=13a``); ``lc`` lowercases (ROUGE-1.5.5 lowercases only with its
own preprocessing, so it is an explicit parameter here). No stemming or stop-word removal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.segment import Segment
from mtstrata.tokenizers import TOK_DEFAULTS, tokenize


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (bit-parallel over positions of ``b``).

    Each position of ``b`` is one bit; ``v`` has a 0 bit where the LCS row grows. One addition,
    subtraction and a few masks per token of ``a`` (Hyyrö's formulation of Allison-Dix).
    """
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for j, w in enumerate(b):
        masks[w] = masks.get(w, 0) | (1 << j)
    full = (1 << len(b)) - 1
    v = full
    for w in a:
        u = v & masks.get(w, 0)
        v = ((v + u) | (v - u)) & full
    return len(b) - bin(v).count("1")


def wlcs(a: Sequence[str], b: Sequence[str], weight: float = 1.2) -> float:
    """Weighted LCS of Lin (2004, §3.3) with ``f(k) = k^weight``."""
    if not a or not b:
        return 0.0
    m = len(b)
    prev_c = [0.0] * (m + 1)
    prev_w = [0] * (m + 1)
    for x in a:
        cur_c = [0.0] * (m + 1)
        cur_w = [0] * (m + 1)
        for j in range(1, m + 1):
            if x == b[j - 1]:
                k = prev_w[j - 1]
                cur_c[j] = prev_c[j - 1] + (k + 1) ** weight - k ** weight
                cur_w[j] = k + 1
            elif prev_c[j] > cur_c[j - 1]:
                cur_c[j] = prev_c[j]
            else:
                cur_c[j] = cur_c[j - 1]
        prev_c, prev_w = cur_c, cur_w
    return prev_c[m]


def f_measure(p: float, r: float, alpha: float) -> float:
    """ROUGE-1.5.5's ``P·R / ((1 - α)·P + α·R)`` (0 when either is 0)."""
    if p <= 0 or r <= 0:
        return 0.0
    return p * r / ((1 - alpha) * p + alpha * r)


#: the largest ROUGE-W weight exponent: a 2,000-word length ** 64 is ~1e211, still a float
MAX_W = 64.0

@dataclass(frozen=True)
class _Rouge(MetricBase):
    alpha: float = 0.5
    multi: Literal["avg", "max"] = "avg"
    tok: str = "13a"
    #: sacreBLEU's tokenizer of the run's language where it chooses one (zh, ja, ko)
    language_defaults: ClassVar[dict[str, dict[str, str]]] = TOK_DEFAULTS
    lc: bool = False

    display: ClassVar[str] = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 0.0 <= self.alpha <= 1.0:
            raise ConfigError(f"{self.display}: alpha must be in [0, 1], not {self.alpha}.")

    statistics: ClassVar[tuple[str, ...]] = ("p_sum", "r_sum", "f_sum", "segments")
    max_words: ClassVar[int | None] = 2000  # quadratic (weighted) LCS table
    libraries: ClassVar[tuple[str, ...]] = ("sacrebleu",)  # its tokenizers

    def display_name(self) -> str:
        return self.display

    def _pr(self, hyp: list[str], ref: list[str]) -> tuple[float, float]:
        raise NotImplementedError

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        if not refs:
            raise ValueError(f"{self.display} needs at least one reference")
        h = tokenize(hyp.text, self.tok, self.lc).split()
        rows = []
        for r in refs:
            p, rc = self._pr(h, tokenize(r.text, self.tok, self.lc).split())
            rows.append((p, rc, f_measure(p, rc, self.alpha)))
        if self.multi == "max":
            p, rc, f = max(rows, key=lambda t: t[2])
        else:
            p, rc, f = (sum(col) / len(rows) for col in zip(*rows, strict=True))
        return np.array([p, rc, f, 1.0])

    def score(self, stats: np.ndarray) -> float:
        return float(stats[2] / stats[3]) if stats[3] else 0.0

    def details(self, stats: np.ndarray) -> dict[str, float]:
        n = float(stats[3]) or 1.0
        return {"P": float(stats[0]) / n, "R": float(stats[1]) / n}


@REGISTRY.register("ROUGE-L", description="longest-common-subsequence F (Lin 2004), mean over "
                   "segments")
@dataclass(frozen=True)
class RougeL(_Rouge):
    """ROUGE-L: F of the longest common subsequence.

    >>> from mtstrata.segment import Segment
    >>> m = RougeL()
    >>> m.score(m.stats(Segment.from_text("a b c d"), [Segment.from_text("a b x d")]))
    0.75
    """

    name: ClassVar[str] = "ROUGE-L"
    display: ClassVar[str] = "ROUGE-L"

    def _pr(self, hyp: list[str], ref: list[str]) -> tuple[float, float]:
        lcs = lcs_length(hyp, ref)
        return (lcs / len(hyp) if hyp else 0.0, lcs / len(ref) if ref else 0.0)


@REGISTRY.register("ROUGE-W", description="weighted LCS F, f(k) = k^w, w = 1.2 (Lin 2004), mean "
                   "over segments")
@dataclass(frozen=True)
class RougeW(_Rouge):
    w: float = 1.2

    name: ClassVar[str] = "ROUGE-W"
    display: ClassVar[str] = "ROUGE-W"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1.0 <= self.w <= MAX_W:  # lengths ** w must stay finite (w=1e308 overflowed)
            raise ConfigError(f"ROUGE-W: the weight exponent w must be between 1 and {MAX_W:g}, "
                              f"not {self.w}.")

    def _pr(self, hyp: list[str], ref: list[str]) -> tuple[float, float]:
        if not hyp or not ref:
            return 0.0, 0.0
        c = wlcs(ref, hyp, self.w)  # Lin: rows are the reference X, columns the candidate Y
        inv = 1.0 / self.w
        return ((c / len(hyp) ** self.w) ** inv, (c / len(ref) ** self.w) ** inv)
