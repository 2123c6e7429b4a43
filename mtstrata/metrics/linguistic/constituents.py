"""The CP family: similarity of constituency trees (Giménez & Màrquez 2010; Liu & Gildea 2005).

Over the ``constituents`` layer (:mod:`mtstrata.layers.constituents`: link-grammar's trees over
the run's tokens, phrase labels only, words directly under phrases):

* ``CP-Oc(t)``: the generic overlap (:mod:`~mtstrata.metrics.linguistic.overlap`) of the
  words inside constituents of type ``t``: a word counts once for every constituent of that
  type it is in (nested NPs count it again: elements embed); ``(*)`` over every type.
* ``CP-Op(t)``: the overlap of words by the phrase that holds them directly (their lowest
  constituent; ``O`` for a word outside every constituent). Asiya's CP-Op groups words by the
  part of speech the parse gives them (its parser's preterminals); link-grammar's trees have
  no preterminals, and the lowest phrase is the category its tree gives each word.
* ``CP-STM-n`` (Liu & Gildea 2005, "subtree metric")::

      STM-n = (1/n) Σ_{d=1..n} Σ_{t ∈ sub_d(hyp)} count_clip(t) / Σ_{t ∈ sub_d(hyp)} count(t)

  ``count(t)``: the occurrences of subtree ``t`` in the hypothesis's tree; ``count_clip(t)``:
  the same, clipped to the most times ``t`` occurs in any single reference's tree (as BLEU
  clips n-grams). A subtree of depth ``d`` is rooted at a constituent and holds, level by
  level, every child down to ``d`` levels: its label at depth 1, the labels of its children at
  depth 2 (a word is the unlabelled slot ``_``: the trees have no part-of-speech level, so the
  slot takes its place), and so on. Labels only, no words (Liu & Gildea's subtrees are
  unlexicalised). A depth that the hypothesis has no subtree of is left out of the average
  (as BLEU's effective order). ``CP-STMi-n`` is depth ``n`` alone.

**Texts without a tree** (the parser's time limit, too long, unreadable: the layer's status):
never an empty tree counted as a match. A reference without a tree is left out of the
references; a segment none of whose references has one is undefined (left out of every
system's mean alike). A hypothesis whose parse failed scores 0 (``unparsed=zero``, the
default: an output the parser cannot read has no structure to match) or is left out
(``unparsed=skip``); an empty hypothesis scores 0 like any other family's.

The system score is the mean of the defined segment scores (Asiya). Statistics:
``[Σ segment score, defined segments]`` then the counts per type (CP-Op/Oc: hits, hyp, ref of
the kept reference) or per depth (STM: clipped and total subtrees), for ``details``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.layers.constituents import CONSTITUENTS, LABELS, Constituents, constituents_of
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.linguistic.columns import Columns
from mtstrata.metrics.linguistic.counts import pair_counts
from mtstrata.metrics.linguistic.elements import OUTSIDE, Extractor, Occurrences, Vocab, extractor
from mtstrata.metrics.linguistic.overlap import (
    ElementOverlap,
    _register,
    best_reference,
    defined_mean,
    defined_means,
)
from mtstrata.segment import Layer, Segment

_NAN = float("nan")
#: the deepest subtrees of CP-STM (Asiya's CP-STM-l: l = 1..9)
MAX_DEPTH = 9
DEPTHS = tuple(str(d) for d in range(1, MAX_DEPTH + 1))
#: a word's place in a subtree, and the start of a list of children (never a lower-cased word)
SLOT, START = "\x00_", "\x00("
_LAYERS = frozenset({Layer.TOKENS, CONSTITUENTS})
UNPARSED_RULES = ("zero", "skip")


def tree_of(seg: Segment) -> Constituents:
    """The segment's tree (KeyError: it has no constituents layer)."""
    return constituents_of(seg)


@dataclass(frozen=True)
class Tree:
    """A tree's constituents (spans clipped to the segment) with, for each, its parent (-1:
    top level) and its children in order: ``("c", constituent)`` or ``("w", token)``."""

    labels: list[str]
    children: list[list[tuple[str, int]]]
    lowest: list[int]  # per token: its lowest constituent (-1: none)


def build_tree(v: Constituents, n_tokens: int) -> Tree:
    """The :class:`Tree` of a parsed segment's spans (pre-order)."""
    spans = [(min(s.start, n_tokens), min(max(s.end, s.start), n_tokens), s.label)
             for s in v.spans]
    labels = [lab for _, _, lab in spans]
    parent = []
    stack: list[int] = []
    for k, (a, b, _) in enumerate(spans):
        while stack and not (spans[stack[-1]][0] <= a and b <= spans[stack[-1]][1]):
            stack.pop()
        parent.append(stack[-1] if stack else -1)
        stack.append(k)
    lowest = [-1] * n_tokens
    for k, (a, b, _) in enumerate(spans):  # pre-order: a deeper one comes later
        for i in range(a, b):
            lowest[i] = k
    kids: list[list[tuple[int, str, int]]] = [[] for _ in spans]
    for k, p in enumerate(parent):
        if p >= 0:
            kids[p].append((spans[k][0], "c", k))
    for i, k in enumerate(lowest):
        if k >= 0:
            kids[k].append((i, "w", i))
    children = [[(kind, x) for _, kind, x in sorted(ks, key=lambda e: (e[0], e[1] == "w"))]
                for ks in kids]
    return Tree(labels, children, lowest)


def _parsed_trees(c: Columns) -> list[tuple[int, int, Tree]]:
    """(row, first token in the columns, tree) of each segment of the side that has a tree."""
    out = []
    for k, seg in enumerate(c.segs):
        v = tree_of(seg)
        if v.parsed:
            out.append((int(c.rows[k]), int(c.offset[k]), build_tree(v, len(seg.tokens))))
    return out


def _occurrences(rows: list[int], types: list[int], items: list[int]) -> Occurrences:
    return (np.array(rows, dtype=np.int64), np.array(types, dtype=np.int64),
            np.array(items, dtype=np.int64))


@extractor("cp-phrase", LABELS + (OUTSIDE,), _LAYERS,
           "words by the constituent that holds them directly (O: outside every one)")
def CP_PHRASE(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    words = c.ids("words", vocab)
    tix = ex.type_index
    rows, types, items = [], [], []
    for row, base, tree in _parsed_trees(c):
        for i, k in enumerate(tree.lowest):
            rows.append(row)
            types.append(tix[tree.labels[k]] if k >= 0 else tix[OUTSIDE])
            items.append(int(words[base + i]))
    return _occurrences(rows, types, items)


@extractor("cp-const", LABELS, _LAYERS,
           "words of every constituent, by its label (nested constituents count them again)")
def CP_CONST(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    words = c.ids("words", vocab)
    tix = ex.type_index
    rows, types, items = [], [], []
    for row, base, tree in _parsed_trees(c):
        inside: list[list[int]] = [[] for _ in tree.labels]

        def collect(k: int, into: list[int], tree: Tree = tree) -> None:
            for kind, x in tree.children[k]:
                if kind == "w":
                    into.append(x)
                else:
                    collect(x, into)

        for k, lab in enumerate(tree.labels):
            collect(k, inside[k])
            t = tix[lab]
            for i in inside[k]:
                rows.append(row)
                types.append(t)
                items.append(int(words[base + i]))
    return _occurrences(rows, types, items)


def subtrees(tree: Tree, vocab: Vocab, depth: int = MAX_DEPTH) -> list[tuple[int, int]]:
    """(depth - 1, id) of every subtree of depth 1..``depth`` (see the module docstring): at
    each constituent, its subtree of each depth up to its height (a word counts as a level)."""
    slot, start = vocab[SLOT], vocab[START]
    n = len(tree.labels)
    label = [vocab[lab] for lab in tree.labels]
    height = [0] * n
    for k in reversed(range(n)):  # children come after their parent in pre-order
        height[k] = 1 + max((1 if kind == "w" else height[x] for kind, x in tree.children[k]),
                            default=0)
    sub: list[list[int]] = [[label[k]] for k in range(n)]  # sub[k][d-1]: the depth-d subtree
    out = [(0, label[k]) for k in range(n)]
    for d in range(2, depth + 1):
        for k in reversed(range(n)):
            if height[k] < d:
                continue
            seq = start
            for kind, x in tree.children[k]:
                part = slot if kind == "w" else sub[x][min(d - 1, height[x]) - 1]
                seq = vocab[(seq << 32) | part]
            sub[k].append(vocab[(label[k] << 32) | seq])
            out.append((d - 1, sub[k][d - 1]))
    return out


@extractor("cp-subtree", DEPTHS, _LAYERS,
           "subtrees of the constituency tree, by depth (labels only; a word is a slot)")
def CP_SUBTREE(ex: Extractor, c: Columns, vocab: Vocab) -> Occurrences:
    rows, types, items = [], [], []
    for row, _base, tree in _parsed_trees(c):
        for t, i in subtrees(tree, vocab):
            rows.append(row)
            types.append(t)
            items.append(i)
    return _occurrences(rows, types, items)


# ------------------------------------------------------------------ which sides have trees
def ref_trees(refs: Sequence[Sequence[Segment]]) -> np.ndarray:
    """``(n, R)``: whether segment i's j-th reference exists and has a tree."""
    width = max((len(rs) for rs in refs), default=1)
    out = np.zeros((len(refs), width), dtype=bool)
    for i, rs in enumerate(refs):
        for j, r in enumerate(rs):
            out[i, j] = tree_of(r).parsed
    return out


def hyp_failed(hyps: Sequence[Segment]) -> np.ndarray:
    """Whether each hypothesis has words but no tree (the parser failed on it)."""
    return np.array([not (v := tree_of(h)).parsed and v.status != "empty" for h in hyps],
                    dtype=bool)


def _check_layers(segs: Sequence[Segment]) -> None:
    CP_PHRASE.check(segs)


# ------------------------------------------------------------------ CP-Op, CP-Oc
@dataclass(frozen=True)
class _CPOverlap(ElementOverlap):
    """CP-Op / CP-Oc: the generic overlap, with the rule for texts without a tree."""

    unparsed: Literal["zero", "skip"] = "zero"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.unparsed not in UNPARSED_RULES:
            raise ConfigError(f"{self.display_name()}: unparsed is zero or skip, not "
                              f"{self.unparsed!r}.")

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        _check_layers(list(hyps) + [r for rs in refs for r in rs])
        sel = np.array(self.type_indices())
        pooled = self.refs == "pooled"
        pc = pair_counts(self.extractor(), hyps, refs, pooled=pooled)
        n = len(hyps)
        have = ref_trees(refs)
        valid = have.any(axis=1)[:, None] if pooled else pc.valid & have[:, :pc.valid.shape[1]]
        hits, ref = pc.hits[:, :, sel], pc.ref[:, :, sel]
        hyp = pc.hyp[:, sel]
        vals = self._values(hits, np.broadcast_to(hyp[:, None, :], hits.shape), ref)
        vals = np.where(valid, vals, _NAN)  # a reference without a tree is no reference
        b = best_reference(vals, valid)
        rows = np.arange(n)
        s = vals[rows, b]
        if self.unparsed == "skip":
            s = np.where(hyp_failed(hyps), _NAN, s)
        defined = ~np.isnan(s)
        out = np.zeros((n, 2 + 3 * len(sel)))
        out[:, 0] = np.where(defined, s, 0.0)
        out[:, 1] = defined
        keep = defined[:, None]
        out[:, 2::3] = np.where(keep, hits[rows, b], 0)
        out[:, 3::3] = np.where(keep, hyp, 0)
        out[:, 4::3] = np.where(keep, ref[rows, b], 0)
        return out


@dataclass(frozen=True)
class CPOc(_CPOverlap):
    """``CP-Oc(t)``: words inside constituents of type ``t`` (nested ones count them again).

    >>> from mtstrata.layers.constituents import Constituents
    >>> from mtstrata.segment import Segment, Span
    >>> def seg(words, spans):
    ...     s = Segment.from_words(words)
    ...     tree = Constituents("full", tuple(Span(*x) for x in spans))
    ...     return s.with_value(CONSTITUENTS, tree.as_value())
    >>> hyp = seg("the cat sat", [(0, 3, "S"), (0, 2, "NP"), (2, 3, "VP")])
    >>> ref = seg("the dog sat", [(0, 3, "S"), (0, 2, "NP"), (2, 3, "VP")])
    >>> m = CPOc()
    >>> m.score(m.stats(hyp, [ref]))  # S 2 of 4, NP 1 of 3, VP 1 of 1: 4 of 8
    0.5
    """

    prefix = "CP-Oc"
    elements = CP_CONST
    requires = _LAYERS


@dataclass(frozen=True)
class CPOp(_CPOverlap):
    """``CP-Op(t)``: words whose lowest constituent is of type ``t`` (``O``: none)."""

    prefix = "CP-Op"
    elements = CP_PHRASE
    requires = _LAYERS


_register(CPOc, "overlap of the words inside constituents of type t (link-grammar's trees; "
          "nested ones count again), (*) all", ("CP-Oc(*)", "CP-Oc(NP)", "CP-Oc(VP)"))
_register(CPOp, "overlap of words by the constituent that holds them directly (O: none), "
          "(*) all", ("CP-Op(*)", "CP-Op(NP)"))


# ------------------------------------------------------------------ CP-STM
@dataclass(frozen=True)
class CPSTM(MetricBase):
    """``CP-STM-n`` (depths 1..n averaged) or ``CP-STMi-n`` (depth n alone): Liu & Gildea's
    subtree metric (see the module docstring).

    >>> from mtstrata.layers.constituents import Constituents
    >>> from mtstrata.segment import Segment, Span
    >>> def seg(words, spans):
    ...     s = Segment.from_words(words)
    ...     tree = Constituents("full", tuple(Span(*x) for x in spans))
    ...     return s.with_value(CONSTITUENTS, tree.as_value())
    >>> hyp = seg("the cat sat", [(0, 3, "S"), (0, 2, "NP"), (2, 3, "VP")])
    >>> ref = seg("the cat", [(0, 2, "S"), (0, 2, "NP")])
    >>> m = CPSTM(n=2)
    >>> m.score(m.stats(hyp, [ref]))  # depth 1: S NP (VP) 2 of 3; depth 2: NP(_ _) (S, VP) 1 of 3
    0.5
    """

    n: int = 4
    alone: bool = False
    unparsed: Literal["zero", "skip"] = "zero"

    requires: ClassVar[frozenset[Layer]] = _LAYERS  # type: ignore[assignment]
    signature_exclude = frozenset({"n", "alone"})  # both are in the name

    def __post_init__(self) -> None:
        super().__post_init__()
        if not 1 <= self.n <= MAX_DEPTH:
            raise ConfigError(f"CP-STM depth must be 1..{MAX_DEPTH}, not {self.n}.")
        if self.unparsed not in UNPARSED_RULES:
            raise ConfigError(f"{self.display_name()}: unparsed is zero or skip, not "
                              f"{self.unparsed!r}.")

    def display_name(self) -> str:
        return f"CP-STM{'i' if self.alone else ''}-{self.n}"

    def depths(self) -> list[int]:
        return [self.n - 1] if self.alone else list(range(self.n))

    def stat_names(self) -> tuple[str, ...]:
        return ("score_sum", "defined", *(f"{k}:{d + 1}" for d in self.depths()
                                          for k in ("clipped", "hyp")))

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        _check_layers(list(hyps) + [r for rs in refs for r in rs])
        sel = np.array(self.depths())
        # clipped to the most times a subtree occurs in any single reference: the multiset
        # union (max counts) of the references, the pooled side
        pc = pair_counts(CP_SUBTREE, hyps, refs, pooled=True)
        clipped = pc.hits[:, 0, :][:, sel].astype(float)
        total = pc.hyp[:, sel].astype(float)
        any_ref = ref_trees(refs).any(axis=1)
        ref_total = pc.ref[:, 0, :][:, sel].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            per = np.where(total > 0, clipped / np.where(total > 0, total, 1), _NAN)
        has = total > 0
        k = has.sum(axis=1)
        s = np.where(k > 0, np.where(has, per, 0.0).sum(axis=1) / np.maximum(k, 1),
                     np.where(ref_total > 0, 0.0, _NAN))  # nothing in the hypothesis: 0
        if self.unparsed == "skip":
            s = np.where(hyp_failed(hyps), _NAN, s)
        s = np.where(any_ref, s, _NAN)  # no reference has a tree: undefined
        defined = ~np.isnan(s)
        out = np.zeros((len(hyps), 2 + 2 * len(sel)))
        out[:, 0] = np.where(defined, s, 0.0)
        out[:, 1] = defined
        out[:, 2::2] = np.where(defined[:, None], clipped, 0.0)
        out[:, 3::2] = np.where(defined[:, None], total, 0.0)
        return out

    def score(self, stats: np.ndarray) -> float:
        return defined_mean(stats)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return defined_means(stats)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """The corpus precision of the subtrees of each depth (clipped over total)."""
        c = np.asarray(stats[2:], dtype=float)
        out = {}
        for k, d in enumerate(self.depths()):
            clip, tot = c[2 * k], c[2 * k + 1]
            if tot > 0:
                out[f"CP-STMi-{d + 1}"] = clip / tot
        return out


def _cumulative(n: str, unparsed: Literal["zero", "skip"] = "zero") -> CPSTM:
    return CPSTM(n=int(n), alone=False, unparsed=unparsed)


def _alone(n: str, unparsed: Literal["zero", "skip"] = "zero") -> CPSTM:
    return CPSTM(n=int(n), alone=True, unparsed=unparsed)


REGISTRY.add_family(
    "CP-STM-n", rf"CP-STM-([1-{MAX_DEPTH}])", _cumulative,
    "syntactic tree matching: clipped precision of constituency subtrees of depth 1..n, "
    "averaged over depths (Liu & Gildea 2005; link-grammar's trees)",
    ("constituents", "tokens"), ("CP-STM-4", "CP-STM-1", "CP-STM-9"))
REGISTRY.add_family(
    "CP-STMi-n", rf"CP-STMi-([1-{MAX_DEPTH}])", _alone,
    "syntactic tree matching, subtrees of depth n alone", ("constituents", "tokens"),
    ("CP-STMi-2", "CP-STMi-4"))


def describe_tree(seg: Segment) -> str:
    """A segment's tree in brackets over its tokens (for messages and reports)."""
    v = tree_of(seg)
    if not v.parsed:
        return f"({v.status})"
    tree = build_tree(v, len(seg.tokens))
    words = [t.form for t in seg.tokens]

    def render(k: int) -> str:
        parts = [words[x] if kind == "w" else render(x) for kind, x in tree.children[k]]
        return f"({tree.labels[k]} {' '.join(parts)})"

    tops = [k for k in range(len(tree.labels)) if not _inside_any(k, v)]
    out: list[str] = []
    covered = {i for i, k in enumerate(tree.lowest) if k >= 0}
    i = 0
    spans = v.spans
    for k in tops:
        while i < spans[k].start:
            if i not in covered:
                out.append(words[i])
            i += 1
        out.append(render(k))
        i = max(i, spans[k].end)
    out.extend(words[j] for j in range(i, len(words)) if j not in covered)
    return " ".join(out)


def _inside_any(k: int, v: Constituents) -> bool:
    s = v.spans[k]
    return any(p.start <= s.start and s.end <= p.end for p in v.spans[:k])

