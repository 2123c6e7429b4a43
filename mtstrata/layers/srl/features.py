"""Candidates and features of the learned role labeller (shared by training and labelling).

Both classifiers of :mod:`mtstrata.layers.srl.learned` see the same layers: tokens, lemmas, PTB
tags and ClearNLP dependencies (spaCy's English models).

* **Predicate candidates**: every token whose tag is a verb tag (``VB*``) or a tag a verb is
  often mistagged as (``NN``, ``JJ``, ...), or whose universal tag is ``VERB``/``AUX``.
* **Argument candidates** of a predicate ``p`` (the pruning of Xue & Palmer 2004 carried over
  to dependency trees): the dependents of ``p`` and the dependents of each of its ancestors,
  each standing for the span of its subtree (a PP with its preposition, a clause with its
  marker), and each ancestor itself, standing for its subtree minus the branch that holds ``p``
  (the antecedent of a relative clause, the noun of a reduced relative). Punctuation at the
  edges of a span is trimmed.

Features are strings (one-hot), distinct within an instance; combinations of the predicate
lemma, voice, the dependency path and the head word carry most of the signal. Training builds
the strings; labelling computes their columns in the model directly (:class:`PredicateEncoder`
here, :class:`~mtstrata.layers.srl.linear.ArgumentEncoder`), the same columns in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from mtstrata.segment import Frame, Segment

if TYPE_CHECKING:
    from mtstrata.layers.srl.linear import Vocabulary

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


def predicate_features(tree: Tree, i: int) -> list[str]:
    """Features of token ``i`` for predicate identification."""
    kids = sorted({tree.dep[k] for k in tree.kids[i]})
    h = tree.head[i]
    htag = tree.tag[h] if 0 <= h < tree.n else "ROOT"
    prev = tree.tag[i - 1] if i else "BOS"
    nxt = tree.tag[i + 1] if i + 1 < tree.n else "EOS"
    t, d, lem = tree.tag[i], tree.dep[i], tree.lemma[i]
    f = ["b", "t=" + t, "d=" + d, "l=" + lem, "w=" + tree.lower[i], "ht=" + htag,
         "td=" + t + d, "lt=" + lem + t, "ld=" + lem + d, "pt=" + prev, "nt=" + nxt,
         "tdh=" + t + d + htag, "u=" + tree.upos[i]]
    f.extend("k=" + k for k in kids)
    f.extend("tk=" + t + k for k in kids)
    return f


# ----------------------------------------------------------------------------- as columns
# Labelling needs the model's column of each feature, not the string (see srl_linear, which
# holds the argument features' encoder). The predicate features' encoder is here, next to the
# strings it mirrors; tests/test_srl_fast.py holds the two to the same columns.
MINUS = repeat(-1)  # the default of every lookup by map(dict.get, dicts, keys, MINUS)
MAX_CACHED = 50_000  # entries of an encoder's memo table (emptied beyond: memory stays bounded)


def cached(table: dict, key: tuple, make: Callable[..., Any]) -> Any:
    """``table[key]``, computed as ``make(*key)`` the first time."""
    got = table.get(key)
    if got is None:
        if len(table) >= MAX_CACHED:
            table.clear()
        got = table[key] = make(*key)
    return got


class PredicateEncoder:
    """Columns of :func:`predicate_features` (variable length: a pair per dependent label)."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        self._one = {k: vocab.sub(k + "=") for k in ("t", "d", "l", "w", "ht", "pt", "nt", "u",
                                                      "k")}
        self._b = vocab.get("b")
        self._rows: dict[tuple, tuple[int, ...]] = {}

    def _row(self, t: str, d: str, lem: str, low: str, htag: str, prev: str, nxt: str,
             upos: str, kids: tuple[str, ...]) -> tuple[int, ...]:
        """The columns of a token from its pieces (``kids``: its dependents' labels)."""
        sub, one = self.vocab.sub, self._one
        labels = sorted(set(kids))
        dicts = (one["t"], one["d"], one["l"], one["w"], one["ht"], sub("td=" + t), sub("lt=", t),
                 sub("ld=", d), one["pt"], one["nt"], sub("tdh=" + t + d), one["u"])
        return (self._b, *map(dict.get, dicts, (t, d, lem, low, htag, d, lem, lem, prev, nxt,
                                                htag, upos), MINUS),
                *map(one["k"].get, labels, MINUS), *map(sub("tk=" + t).get, labels, MINUS))

    def encode(self, tree: Tree, out: list[int], lengths: list[int]) -> list[int]:
        """The predicate candidates of ``tree`` (:func:`predicate_candidates`); the columns of
        each are appended to ``out`` (-1: unknown) and their number to ``lengths``.

        Rows are kept per their pieces (a token's tag, label, words, neighbours' tags and
        dependents' labels): in MT output most candidate tokens repeat."""
        tag, dep, lemma, lower, upos, head = tree.tag, tree.dep, tree.lemma, tree.lower, \
            tree.upos, tree.head
        n, rows, kids = tree.n, self._rows, tree.kids
        tokens = predicate_candidates(tree)
        for i in tokens:
            h = head[i]
            key = (tag[i], dep[i], lemma[i], lower[i], tag[h] if 0 <= h < n else "ROOT",
                   tag[i - 1] if i else "BOS", tag[i + 1] if i + 1 < n else "EOS", upos[i],
                   tuple(map(dep.__getitem__, kids[i])))  # dependents' labels (_row sorts)
            row = rows.get(key) or cached(rows, key, self._row)
            out += row
            lengths.append(len(row))
        return tokens


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


def _path(tree: Tree, p: int, c: Candidate) -> tuple[str, str]:
    """(full path, short path) of dependency labels from ``p`` to the candidate's head."""
    k = abs(c.up)
    ups = []
    x = p
    for _ in range(k):
        ups.append(tree.dep[x])
        x = tree.head[x]
    down = [] if c.up < 0 else [tree.dep[c.head]]
    full = "^".join(ups) + "|" + "v".join(down)
    short = f"{k}^|" + "v".join(down)
    return full, short


def argument_features(tree: Tree, p: int, c: Candidate, pfeat: tuple[str, str, str, str]
                      ) -> list[str]:
    """Features of candidate ``c`` of ``p``; ``pfeat`` = (lemma, voice, tag, subcat)."""
    plem, voice, ptag, subcat = pfeat
    h = c.head
    full, short = _path(tree, p, c)
    dep = (tree.dep[h] if c.up >= 0 else "ANC") + ("_" + c.kind[:3] if c.kind else "")
    pos = "L" if c.end <= p else ("R" if c.start > p else "O")
    htag, hlem = tree.tag[h], tree.lemma[h]
    # the content word of a PP / clause: the object of the preposition, the marker of a clause
    content = hlem
    ctag = htag
    mark = ""
    for k in tree.kids[h]:
        dk = tree.dep[k]
        if dk in ("pobj", "pcomp") and c.up >= 0:
            content, ctag = tree.lemma[k], tree.tag[k]
        elif dk in ("mark", "advmod") and k < h and not mark:
            mark = tree.lower[k]
    kids = " ".join(sorted({tree.dep[k] for k in tree.kids[h]})) if c.up >= 0 else ""
    n = c.end - c.start
    length = str(n) if n < 4 else ("4-7" if n < 8 else "8+")
    dist = abs(h - p)
    dist_s = str(dist) if dist < 4 else ("4-7" if dist < 8 else "8+")
    first, last = tree.lower[c.start], tree.lower[c.end - 1]
    f = ["b", "path=" + full, "sp=" + short, "dep=" + dep, "pos=" + pos, "ht=" + htag,
         "hl=" + hlem, "cl=" + content, "ct=" + ctag, "len=" + length, "dist=" + dist_s,
         "fw=" + first, "lw=" + last, "ft=" + tree.tag[c.start], "mk=" + mark,
         "pl=" + plem, "pt=" + ptag, "v=" + voice,
         "dvp=" + dep + voice + pos, "pathv=" + full + voice + pos,
         "pl_path=" + plem + "|" + full, "pl_dep=" + plem + "|" + dep + "|" + voice,
         "pl_hl=" + plem + "|" + hlem, "pl_cl=" + plem + "|" + hlem + "|" + content,
         "dep_hl=" + dep + "|" + hlem, "dep_cl=" + dep + "|" + content,
         "dep_mk=" + dep + "|" + mark, "pt_dep=" + ptag + dep + pos,
         "pdep=" + tree.dep[p] + "|" + short, "sc=" + subcat + "|" + dep + pos,
         "pl_sc=" + plem + "|" + subcat, "pl_v_sc_dep=" + plem + voice + subcat + dep,
         "kids=" + kids, "dep_kids=" + dep + "|" + kids, "up=" + str(c.up),
         "kind=" + c.kind, "kind_dep=" + c.kind + "|" + dep, "kind_pl=" + c.kind + "|" + plem]
    if tree.lower[h] in ("who", "which", "that", "whom", "whose", "where", "when", "why"):
        f.append("wh=" + tree.lower[h] + dep)
    return f


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


def argument_instances(tree: Tree, p: int, rule: Frame | None = None
                       ) -> Iterator[tuple[Candidate, list[str]]]:
    """Every candidate of ``p`` with its features.

    ``rule`` is the rule labeller's frame for ``p`` (:mod:`mtstrata.layers.srl.rules`), if any: its
    label for the candidate's span, and for a span with the candidate's head, are features
    (the rules carry PropBank knowledge that a small training set does not show).
    """
    info = predicate_info(tree, p)
    exact = {(a.start, a.end): a.label for a in rule.args} if rule else {}
    by_head = {span_head(tree, a.start, a.end): a.label for a in rule.args} if rule else {}
    r0 = "rp" if rule else "nrp"
    own = {tree.dep[k] for k in tree.kids[p]}
    subj = "S" if own & {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"} else "s"
    obj = "O" if "dobj" in own else "o"
    for c in candidates(tree, p):
        f = argument_features(tree, p, c, info)
        f.extend(("own=" + subj + obj + f[2], "own_full=" + subj + obj + f[1],
                  "own_v=" + subj + obj + info[1] + f[2]))
        r = exact.get((c.start, c.end), "-")
        rh = by_head.get(c.head, "-")
        f.extend((r0, "r=" + r, "rh=" + rh, "r_rh=" + r + rh, "r_dep=" + r + f[3]))
        yield c, f
