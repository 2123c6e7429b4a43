"""Dependency trees and the candidates of the learned role labeller.

Both classifiers of :mod:`mtstrata.layers.srl.learned` see the same layers: tokens, lemmas, PTB
tags and ClearNLP dependencies (spaCy's English models). This module finds what they classify;
:mod:`~mtstrata.layers.srl.features` describes it.

* **Predicate candidates**: every token whose tag is a verb tag (``VB*``) or a tag a verb is
  often mistagged as (``NN``, ``JJ``, ...), or whose universal tag is ``VERB``/``AUX``.
* **Argument candidates** of a predicate ``p`` (the pruning of Xue & Palmer 2004 carried over
  to dependency trees): the dependents of ``p`` and the dependents of each of its ancestors,
  each standing for the span of its subtree (a PP with its preposition, a clause with its
  marker), and each ancestor itself, standing for its subtree minus the branch that holds ``p``
  (the antecedent of a relative clause, the noun of a reduced relative). Punctuation at the
  edges of a span is trimmed.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from mtstrata.segment import Segment

#: tags that can hold a verbal predicate (the tagger mistags verbs as nouns and adjectives)
PREDICATE_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "NN", "JJ", "NNS", "NNP",
                            "VBX", "AFX", "MD", "RB", "IN", "UH"})
PUNCT_TAGS = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", "$", "#"})
#: punctuation trimmed from the edges of a span (PropBank keeps quotes and brackets inside)
TRIM_TAGS = frozenset({",", ".", ":", "HYPH", "NFP"})
MAX_UP = 6  # ancestors climbed from a predicate
_FORM, _LEMMA, _UPOS, _XPOS, _HEAD, _DEPREL = (attrgetter(a) for a in (
    "form", "lemma", "upos", "xpos", "head", "deprel"))
#: the kinds of candidate: "" the subtree, "alone" the head token alone
KINDS = ("", "alone")


@dataclass(frozen=True, slots=True)
class Candidate:
    """An argument candidate: head token, span ``[start, end)``, and how it hangs off ``p``."""

    head: int
    start: int
    end: int
    up: int  # 0: a dependent of p; k > 0: a dependent of p's k-th ancestor; -k: that ancestor
    kind: str = ""  # one of KINDS


class Tree:
    """Heads, children and subtree extents of one segment (0-based; -1 for a root).

    Read-only columns, one item per token, stored as tuples: a batch keeps hundreds of trees
    alive, and tuples of plain items are soon dropped from the garbage collector's watch
    (lists would be walked by every full collection).
    """

    __slots__ = ("seg", "n", "head", "kids", "lo", "hi", "dep", "form", "lemma", "tag", "lower",
                 "upos", "well_formed")

    def __init__(self, seg: Segment):
        toks = seg.tokens
        self.seg = seg
        self.n = n = len(toks)
        self.head = head = tuple([(h or 0) - 1 for h in map(_HEAD, toks)])
        self.dep = tuple([(d or "").lower() for d in map(_DEPREL, toks)])
        self.form = form = tuple(map(_FORM, toks))
        self.lower = tuple(map(str.lower, form))
        self.lemma = tuple([(lem or f).lower() for lem, f in zip(map(_LEMMA, toks), form)])
        upos = tuple(map(_UPOS, toks))
        self.upos = tuple([u or "" for u in upos])
        self.tag = tuple([x or u or "" for x, u in zip(map(_XPOS, toks), upos)])
        kids: list[list[int]] = [[] for _ in range(n)]
        roots = []
        for i, h in enumerate(head):
            if 0 <= h < n and h != i:
                kids[h].append(i)
            else:
                roots.append(i)
        lo, hi = list(range(n)), list(range(1, n + 1))
        # extents bottom-up: nodes in breadth-first order from the roots (a node of a malformed,
        # cyclic head column is never reached), then each passed on to its head from the last
        order = list(roots)
        for k in order:  # grows while it is read: each reached node once (one head each)
            order.extend(kids[k])
        for k in reversed(order):
            h = head[k]
            if 0 <= h < n and h != k:
                if lo[k] < lo[h]:
                    lo[h] = lo[k]
                if hi[k] > hi[h]:
                    hi[h] = hi[k]
        self.kids: tuple[tuple[int, ...], ...] = tuple(map(tuple, kids))
        self.lo, self.hi = tuple(lo), tuple(hi)
        #: every token reached from a root, and every root's head is 0 (none out of range,
        #: none its own): the forest as the rule labeller reads it (srl.label_frames)
        self.well_formed = len(order) == n and all(not toks[r].head for r in roots)

    def ancestors(self, i: int) -> list[int]:
        out, seen = [], {i}
        h = self.head[i]
        while 0 <= h < self.n and h not in seen and len(out) < MAX_UP:
            out.append(h)
            seen.add(h)
            h = self.head[h]
        return out

    def trim(self, lo: int, hi: int) -> tuple[int, int]:
        while hi - lo > 1 and self.tag[lo] in TRIM_TAGS:
            lo += 1
        while hi - lo > 1 and self.tag[hi - 1] in TRIM_TAGS:
            hi -= 1
        return lo, hi

    def voice(self, p: int) -> str:
        if any(self.dep[k] in ("auxpass", "nsubjpass", "csubjpass") for k in self.kids[p]):
            return "pass"
        if self.tag[p] == "VBN" and self.dep[p] in ("acl", "amod", "advcl", "conj"):
            return "pass?"
        return "act"


def is_predicate_candidate(tree: Tree, i: int) -> bool:
    return tree.tag[i] in PREDICATE_TAGS or tree.upos[i] in ("VERB", "AUX")


def predicate_candidates(tree: Tree) -> list[int]:
    """The tokens :func:`is_predicate_candidate` accepts, in order."""
    tag, upos = tree.tag, tree.upos
    return [i for i in range(tree.n) if tag[i] in PREDICATE_TAGS or upos[i] in ("VERB", "AUX")]


def candidate_tuples(tree: Tree, p: int, ancestors: list[int] | None = None
                     ) -> list[tuple[int, int, int, int, str]]:
    """Argument candidates of ``p`` as ``(head, start, end, up, kind)`` (see :class:`Candidate`);
    ``ancestors`` is ``tree.ancestors(p)`` if the caller has it."""
    out: list[tuple[int, int, int, int, str]] = []
    tag, dep, lo_, hi_, kids = tree.tag, tree.dep, tree.lo, tree.hi, tree.kids
    below = p
    for up, a in enumerate([p, *(tree.ancestors(p) if ancestors is None else ancestors)]):
        for c in kids[a]:
            if c == below and up:
                continue
            if tag[c] in PUNCT_TAGS:
                continue
            lo, hi = lo_[c], hi_[c]
            if tag[lo] in TRIM_TAGS or tag[hi - 1] in TRIM_TAGS:
                lo, hi = tree.trim(lo, hi)
            if lo <= p < hi:  # a non-projective branch around p: the head alone
                lo, hi = c, c + 1
            out.append((c, lo, hi, up, ""))
            if not up and dep[c] in ("dobj", "attr") and tag[c].startswith("NN") \
                    and hi - lo > 1:  # the noun alone: a light verb's AM-PRR ("make a profit")
                out.append((c, c, c + 1, 0, KINDS[1]))
        if up:
            lo, hi = lo_[a], hi_[a]
            if lo_[below] > a:
                hi = min(hi, lo_[below])
            else:
                lo = max(lo, hi_[below])
            if lo <= a < hi:
                lo, hi = tree.trim(lo, hi)
                out.append((a, lo, hi, -up, ""))
            below = a
    return out


def candidates(tree: Tree, p: int) -> list[Candidate]:
    """Argument candidates of predicate ``p`` (module docstring)."""
    return [Candidate(*c) for c in candidate_tuples(tree, p)]


def predicate_info(tree: Tree, p: int) -> tuple[str, str, str, str]:
    """(lemma, voice, tag, subcategorisation: the relations of its dependents in order)."""
    subcat = " ".join(tree.dep[k] for k in tree.kids[p]
                      if tree.dep[k] not in ("punct", "aux", "auxpass", "neg", "cc", "prt"))
    return tree.lemma[p], tree.voice(p), tree.tag[p], subcat


def span_head(tree: Tree, start: int, end: int) -> int:
    """The first token of ``[start, end)`` whose head lies outside it."""
    for i in range(start, end):
        if not start <= tree.head[i] < end:
            return i
    return start
