"""Head-word chain matching, ``DP-HWCM_{w,c,r}-n`` and ``DP-HWCMi_{w,c,r}-n``.

Liu & Gildea (2005) compare the *head-word chains* of the hypothesis and reference parses: every
downward path of 1..4 nodes of the dependency tree (a node, its child, its grandchild...). As in
Asiya (Giménez & Màrquez 2010) a chain's elements are word forms (``w``),
grammatical categories (``c``, the universal POS tag) or dependency relations (``r``); chains of
each length ``k`` form the element type ``k`` of the generic overlap
(:mod:`mtstrata.metrics.linguistic.overlap`)::

    HWCM_x-n  = Σ_{k<=n} Σ_i min(cnt_hyp, cnt_ref) / Σ_{k<=n} Σ_i max(cnt_hyp, cnt_ref)
    HWCMi_x-n = the same with k = n alone

``avg=macro`` averages the per-length values instead (Liu & Gildea's original averages over
lengths, with precision: ``avg=macro,meas=p``). Each downward path of k nodes ends at a unique
node, so the chains of length k are the nodes with at least k-1 ancestors, read top-down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.elements import Extractor, Occurrences, Vocab, concat, extractor
from mtstrata.metrics.linguistic.overlap import ElementOverlap, Meas, measure
from mtstrata.segment import Layer

MAX_CHAIN = 4
LENGTHS = tuple(str(k) for k in range(1, MAX_CHAIN + 1))


def chains(ex: Extractor, c: Columns, vocab: Vocab, labels: str) -> Occurrences:
    """Every downward path of 1..MAX_CHAIN nodes, typed by its length.

    The chain of length k ending at token j is the chain of length k-1 ending at j's head
    followed by j's label in the token column ``labels`` (words, upos, rels): its id is that of
    the pair (prefix chain id, label id), so chains are built level by level without strings.
    """
    parent = c.parent
    first = c.ids(labels, vocab)
    parts = [(c.seg_of, np.zeros_like(first), first)]
    ids = first  # the chain of the current length ending at each token (-1: none)
    for k in range(1, MAX_CHAIN):  # chain lengths 2..MAX_CHAIN
        ok = np.nonzero((parent >= 0) & (ids[np.maximum(parent, 0)] >= 0))[0]
        if not len(ok):
            break
        longer = np.full(len(parent), -1, dtype=np.int64)
        longer[ok] = vocab.pairs(ids[parent[ok]], first[ok])
        ids = longer
        parts.append((c.seg_of[ok], np.full(len(ok), k, dtype=np.int64), ids[ok]))
    return concat(parts)


@extractor("hwcm-w", LENGTHS, [Layer.TOKENS, Layer.DEP], "head-word chains of word forms")
def HWCM_W(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return chains(ex, c, vocab, "words")


@extractor("hwcm-c", LENGTHS, [Layer.TOKENS, Layer.POS, Layer.DEP],
           "head-word chains of categories (UPOS)")
def HWCM_C(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return chains(ex, c, vocab, "upos")


@extractor("hwcm-r", LENGTHS, [Layer.TOKENS, Layer.DEP], "head-word chains of relations")
def HWCM_R(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    return chains(ex, c, vocab, "rels")


_ELEMENTS = {"w": HWCM_W, "c": HWCM_C, "r": HWCM_R}


@dataclass(frozen=True)
class HWCM(ElementOverlap):
    """``DP-HWCM_x-n`` (lengths 1..n, cumulative) or ``DP-HWCMi_x-n`` (length n alone).

    >>> from mtstrata.segment import Segment
    >>> hyp = Segment.from_words("the cat sat", heads=[2, 3, 0])
    >>> ref = Segment.from_words("the dog sat", heads=[2, 3, 0])
    >>> m = HWCM(x="w", n=2)
    >>> m.score(m.stats(hyp, [ref]))  # words 2 of 4, chains {cat-the, sat-cat}: 0 of 4
    0.25
    """

    x: Literal["w", "c", "r"] = "w"
    n: int = 4
    alone: bool = False

    prefix = "DP-HWCM"
    signature_exclude = frozenset({"t", "x", "n", "alone"})  # all three are in the name

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.x not in ("w", "c", "r"):
            raise ConfigError(f"HWCM elements are w, c or r, not {self.x!r}.")
        if not 1 <= self.n <= MAX_CHAIN:
            raise ConfigError(f"HWCM chain length must be 1..{MAX_CHAIN}, not {self.n}.")

    @property
    def requires(self) -> frozenset[Layer]:  # type: ignore[override]
        return self.extractor().layers

    def extractor(self) -> Extractor:
        return _ELEMENTS[self.x]

    def type_indices(self) -> list[int]:
        return [self.n - 1] if self.alone else list(range(self.n))

    def display_name(self) -> str:
        return f"DP-HWCM{'i' if self.alone else ''}_{self.x}-{self.n}"

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """The base details plus the value of every chain length (cumulative forms)."""
        out = super().details(stats)
        c = stats[2:]
        if not self.alone:
            for k in range(self.n):
                h, p, r = c[3 * k:3 * k + 3]
                if p + r > 0:
                    out[f"DP-HWCMi_{self.x}-{k + 1}"] = measure(h, p, r, self.meas)
        return out


def _cumulative(x: str, n: str, avg: Literal["micro", "macro"] = "micro", meas: Meas = "jac",
                refs: Literal["max", "pooled"] = "max") -> HWCM:
    return HWCM(avg=avg, meas=meas, refs=refs, x=x, n=int(n), alone=False)  # type: ignore[arg-type]


def _alone(x: str, n: str, avg: Literal["micro", "macro"] = "micro", meas: Meas = "jac",
           refs: Literal["max", "pooled"] = "max") -> HWCM:
    return HWCM(avg=avg, meas=meas, refs=refs, x=x, n=int(n), alone=True)  # type: ignore[arg-type]


REGISTRY.add_family(
    "DP-HWCM_{w,c,r}-n", r"DP-HWCM_([wcr])-([1-4])", _cumulative,
    "head-word chain overlap, chains of 1..n words / categories / relations (Liu & Gildea "
    "2005); pos for _c only",
    ("tokens", "dep", "pos"), ("DP-HWCM_w-4", "DP-HWCM_c-2", "DP-HWCM_r-3"),
)
REGISTRY.add_family(
    "DP-HWCMi_{w,c,r}-n", r"DP-HWCMi_([wcr])-([1-4])", _alone,
    "head-word chain overlap, chains of exactly n words / categories / relations",
    ("tokens", "dep", "pos"), ("DP-HWCMi_w-2", "DP-HWCMi_c-3"),
)
