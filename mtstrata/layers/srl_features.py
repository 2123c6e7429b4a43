"""Candidates and features of the learned role labeller (shared by training and labelling).

Both classifiers of :mod:`mtstrata.layers.srl_learned` see the same layers: tokens, lemmas, PTB
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
lemma, voice, the dependency path and the head word carry most of the signal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat
from operator import attrgetter
from typing import Any

import numpy as np

from mtstrata.layers.srl_linear import Vocabulary
from mtstrata.segment import Frame, Segment

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

    ``rule`` is the rule labeller's frame for ``p`` (:mod:`mtstrata.layers.srl`), if any: its
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


# ----------------------------------------------------------------------------- as column ids
# Labelling needs only the model's column of each feature, not the string. The encoders below
# compute ``vocabulary.get(string)`` for the strings above from their pieces (one dict lookup
# of a piece the tree already holds, see srl_linear.Vocabulary), in the same order, so the
# sparse rows, and every float sum over them, are those of the strings. Any change to the
# features above must be mirrored here (tests/test_srl_fast.py compares the two).

#: the argument features in the order of :func:`argument_instances`, each with its block: P
#: the predicate's, H the candidate head's, S the candidate span's, X the pair's
ARGUMENT_LAYOUT = tuple(tuple(item.split(":")) for item in (
    "b:P path:X sp:X dep:H pos:X ht:H hl:H cl:H ct:H len:S dist:X fw:S lw:S ft:S mk:H pl:P "
    "pt:P v:P dvp:X pathv:X pl_path:X pl_dep:X pl_hl:X pl_cl:X dep_hl:H dep_cl:H dep_mk:H "
    "pt_dep:X pdep:X sc:X pl_sc:P pl_v_sc_dep:X kids:H dep_kids:H up:X kind:H kind_dep:H "
    "kind_pl:X wh:H own:X own_full:X own_v:X r0:P r:X rh:X r_rh:X r_dep:X").split())
#: the pair features (block X) as the encoder emits them: the group of the predicate's
#: tag-level context (tag, voice, label, own dependents) with the rule's, then the lemma's
#: with the distance
PAIR_GROUPS = (("path", "sp", "pos", "dvp", "pathv", "pt_dep", "pdep", "own", "own_full",
                "own_v", "up", "r", "rh", "r_rh", "r_dep"),
               ("pl_path", "pl_dep", "pl_hl", "pl_cl", "sc", "pl_v_sc_dep", "kind_pl", "dist"))
WH_WORDS = ("who", "which", "that", "whom", "whose", "where", "when", "why")


def _bucket(n: int) -> str:
    return str(n) if n < 4 else ("4-7" if n < 8 else "8+")


_MINUS = repeat(-1)  # the default of every lookup by map(dict.get, dicts, keys, _MINUS)
MAX_CACHED = 50_000  # entries of an encoder's memo table (emptied beyond: memory stays bounded)


def _cached(table: dict, key: tuple, make: Callable[..., Any]) -> Any:
    """``table[key]``, computed as ``make(*key)`` the first time."""
    got = table.get(key)
    if got is None:
        if len(table) >= MAX_CACHED:
            table.clear()
        got = table[key] = make(*key)
    return got


class PredicateEncoder:
    """Columns of :func:`predicate_features` (variable length: one pair per dependent label)."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        self._one = {k: vocab.sub(k + "=") for k in ("t", "d", "l", "w", "ht", "pt", "nt", "u",
                                                      "k")}
        self._b = vocab.get("b")
        self._tags: dict[tuple, tuple[tuple[dict[str, int], ...], dict[str, int]]] = {}
        self._rows: dict[tuple, tuple[int, ...]] = {}

    def _tag(self, t: str, d: str) -> tuple[tuple[dict[str, int], ...], dict[str, int]]:
        """The dicts of the features after "b" for a token of tag ``t`` and label ``d``, in
        order, and that of "tk" (keyed by a dependent's label)."""
        sub, one = self.vocab.sub, self._one
        return (one["t"], one["d"], one["l"], one["w"], one["ht"], sub("td=" + t), sub("lt=", t),
                sub("ld=", d), one["pt"], one["nt"], sub("tdh=" + t + d), one["u"]), \
            sub("tk=" + t)

    def _row(self, t: str, d: str, lem: str, low: str, htag: str, prev: str, nxt: str,
             upos: str, labels: tuple[str, ...]) -> tuple[int, ...]:
        """The columns of a token from its pieces (``labels``: its dependents', sorted)."""
        dicts, tk = _cached(self._tags, (t, d), self._tag)
        return (self._b, *map(dict.get, dicts, (t, d, lem, low, htag, d, lem, lem, prev, nxt,
                                                htag, upos), _MINUS),
                *map(self._one["k"].get, labels, _MINUS), *map(tk.get, labels, _MINUS))

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
                   tuple(sorted({dep[k] for k in kids[i]})) if kids[i] else ())
            row = rows.get(key) or _cached(rows, key, self._row)
            out += row
            lengths.append(len(row))
        return tokens


class ArgumentEncoder:
    """Columns of :func:`argument_instances`, a fixed-width row per candidate.

    Rows are assembled from four blocks (:data:`ARGUMENT_LAYOUT`): the predicate's features
    (once per predicate), the candidate head's and span's (once per tree), and the pair's, in
    :data:`PAIR_GROUPS`: the groups that depend on the predicate's tag-level context and on
    the rule's labels repeat a lot and are kept per their pieces; the lemma's are looked up.
    """

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        sub, get = vocab.sub, vocab.get
        self._one = {k: sub(k + "=") for k in ("dep", "path", "sp", "pos", "ht", "hl", "cl",
                                               "ct", "fw", "lw", "ft", "mk", "kids", "r", "rh",
                                               "kind")}
        self._len = [get("len=" + _bucket(n)) for n in range(9)]
        self._dist = [get("dist=" + _bucket(n)) for n in range(9)]
        self._up = {u: get(f"up={u}") for u in range(-MAX_UP, MAX_UP + 1)}
        self._b = get("b")
        where = {name: k for k, (name, _) in enumerate(ARGUMENT_LAYOUT)}
        self.columns = {b: [k for k, (_, blk) in enumerate(ARGUMENT_LAYOUT) if blk == b]
                        for b in "PHS"}
        self.columns["X"] = [where[name] for group in PAIR_GROUPS for name in group]
        self._tables: dict[str, dict[tuple, Any]] = {k: {} for k in ("tag", "lemma", "dep", "r",
                                                                     "head")}

    # lookups shared by predicates (or heads) with the same pieces, made on first use
    def _tag_context(self, ptag: str, voice: str, pdep: str, so: str
                     ) -> tuple[int, int, dict[str, tuple], dict[tuple, tuple[int, ...]]]:
        """(pt, v, per position the dicts of the tag group, the tag groups met so far)."""
        sub, get, one = self.vocab.sub, self.vocab.get, self._one
        pdep_d, own_sp, own_path = sub("pdep=" + pdep + "|"), sub("own=" + so + "sp="), \
            sub("own_full=" + so + "path=")
        own_v = sub("own_v=" + so + voice + "sp=")
        by_pos = {pos: (one["path"], one["sp"], one["pos"], sub("dvp=", voice + pos),
                        sub("pathv=", voice + pos), sub("pt_dep=" + ptag, pos), pdep_d, own_sp,
                        own_path, own_v, self._up) for pos in "LRO"}
        return get("pt=" + ptag), get("v=" + voice), by_pos, {}

    def _lemma_context(self, plem: str, voice: str, subcat: str) -> tuple:
        """(pl, pl_sc, then the dicts of the lemma group, "sc" per position)."""
        sub, get = self.vocab.sub, self.vocab.get
        return (get("pl=" + plem), get("pl_sc=" + plem + "|" + subcat),
                sub("pl_path=" + plem + "|"), sub("pl_dep=" + plem + "|", "|" + voice),
                sub("pl_hl=" + plem + "|"), sub("pl_cl=" + plem + "|"),
                sub("pl_v_sc_dep=" + plem + voice + subcat),
                {k: get("kind_pl=" + k + "|" + plem) for k in KINDS},
                {pos: sub("sc=" + subcat + "|", pos) for pos in "LRO"})

    def _dep_context(self, dep: str, kind: str) -> tuple:
        one, sub = self._one, self.vocab.sub
        return ((one["dep"], one["ht"], one["hl"], one["cl"], one["ct"], one["mk"],
                 sub("dep_hl=" + dep + "|"), sub("dep_cl=" + dep + "|"),
                 sub("dep_mk=" + dep + "|"), one["kids"], sub("dep_kids=" + dep + "|")),
                one["kind"].get(kind, -1), self.vocab.get("kind_dep=" + kind + "|" + dep))

    def _head_block(self, dep: str, kind: str, htag: str, hlem: str, content: str, ctag: str,
                    mark: str, kids: str, wh: str) -> tuple[int, ...]:
        """The H block of a candidate head from its pieces (``wh``: its word if a wh-word)."""
        dicts, kind_id, kind_dep = _cached(self._tables["dep"], (dep, kind), self._dep_context)
        return (*map(dict.get, dicts, (dep, htag, hlem, content, ctag, mark, hlem, content, mark,
                                       kids, kids), _MINUS),
                kind_id, kind_dep, self.vocab.get("wh=" + wh + dep) if wh else -1)

    def _rule_group(self, r: str, rh: str, dep: str) -> tuple[int, ...]:
        sub = self.vocab.sub
        return (self._one["r"].get(r, -1), self._one["rh"].get(rh, -1),
                sub("r_rh=" + r).get(rh, -1), sub("r_dep=" + r + "dep=").get(dep, -1))

    def _head(self, tree: Tree, h: int, down: bool, kind: str, out: list[int]
              ) -> tuple[str, str, str]:
        """Append the H block of a candidate head to ``out``; return (dep, lemma, lemma|content)."""
        dep = (tree.dep[h] if down else "ANC") + ("_" + kind[:3] if kind else "")
        htag, hlem = tree.tag[h], tree.lemma[h]
        content, ctag, mark, kids = hlem, htag, "", ""
        if tree.kids[h]:
            for k in tree.kids[h]:
                dk = tree.dep[k]
                if dk in ("pobj", "pcomp") and down:
                    content, ctag = tree.lemma[k], tree.tag[k]
                elif dk in ("mark", "advmod") and k < h and not mark:
                    mark = tree.lower[k]
            if down:
                kids = " ".join(sorted({tree.dep[k] for k in tree.kids[h]}))
        low = tree.lower[h]
        key = (dep, kind, htag, hlem, content, ctag, mark, kids, low if low in WH_WORDS else "")
        block = self._tables["head"].get(key) or _cached(self._tables["head"], key,
                                                         self._head_block)
        out += block
        return dep, hlem, hlem + "|" + content

    def encode(self, items: Iterable[tuple[Tree, int, Frame | None]]
               ) -> tuple[list[int], list[int], list[int], np.ndarray]:
        """Rows of every candidate of each ``(tree, predicate, rule frame)`` (in order).

        Returns the item of each row, its span (starts, ends) and the ``(rows, columns)`` array
        of ids (-1: unknown), ordered as :func:`argument_instances` would emit them. (Flat
        lists of ints, not tuples: fewer objects for the garbage collector to walk.)
        """
        one, tables, dist = self._one, self._tables, self._dist
        rule_groups = tables["r"]
        h_width = len(self.columns["H"])
        p_block: list[int] = []
        h_block: list[int] = []
        p_index: list[int] = []
        h_index: list[int] = []
        cross: list[int] = []
        owner: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        # the span block from token columns: first word, last word, first tag (see _assemble)
        words: dict[str, list[int]] = {"fw": [], "lw": [], "ft": []}
        offsets: list[int] = []  # of each row's tree in those columns
        last = None
        for n, (tree, p, rule) in enumerate(items):
            if tree is not last:  # head blocks are shared by a tree's predicates
                last, heads, offset = tree, {}, len(words["fw"])
                dep = tree.dep
                for name, column in (("fw", tree.lower), ("lw", tree.lower), ("ft", tree.tag)):
                    words[name] += map(one[name].get, column, _MINUS)
            plem, voice, ptag, subcat = predicate_info(tree, p)
            own = {dep[k] for k in tree.kids[p]}
            so = ("S" if own & {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"} else "s") \
                + ("O" if "dobj" in own else "o")
            pt_id, v_id, tag_dicts, tag_groups = _cached(
                tables["tag"], (ptag, voice, dep[p], so), self._tag_context)
            pl_id, pl_sc_id, pl_path, pl_dep, pl_hl, pl_cl, pl_v_sc, kind_pl, sc_pos = _cached(
                tables["lemma"], (plem, voice, subcat), self._lemma_context)
            p_block += (self._b, pl_id, pt_id, v_id, pl_sc_id,
                        self.vocab.get("rp" if rule else "nrp"))
            if len(tag_groups) >= MAX_CACHED:
                tag_groups.clear()
            anc = tree.ancestors(p)
            chain = [dep[x] for x in [p, *anc]]
            ups = ["^".join(chain[:k]) + "|" for k in range(len(chain))]
            exact = {(a.start, a.end): a.label for a in rule.args} if rule else {}
            by_head = {span_head(tree, a.start, a.end): a.label for a in rule.args} if rule \
                else {}
            cands = candidate_tuples(tree, p, anc)
            for h, lo, hi, up, kind in cands:
                head = heads.get((h, up >= 0, kind))
                if head is None:
                    head = heads[(h, up >= 0, kind)] = \
                        (len(h_block) // h_width, *self._head(tree, h, up >= 0, kind, h_block))
                index_h, hdep, hlem, hc = head
                h_index.append(index_h)
                k, down = (up, dep[h]) if up >= 0 else (-up, "")
                full, short = ups[k] + down, f"{k}^|" + down
                pos = "L" if hi <= p else ("R" if lo > p else "O")
                r, rh = (exact.get((lo, hi), "-"), by_head.get(h, "-")) if exact else ("-", "-")
                group = tag_groups.get((full, short, pos, hdep, up, r, rh))
                if group is None:
                    group = tag_groups[(full, short, pos, hdep, up, r, rh)] = (*map(
                        dict.get, tag_dicts[pos],
                        (full, short, pos, hdep, full, hdep, short, short, full, short, up),
                        _MINUS), *_cached(rule_groups, (r, rh, hdep), self._rule_group))
                cross += group
                sc = sc_pos[pos]  # (a test of a dict is much cheaper than a lookup in it)
                cross += (pl_path.get(full, -1) if pl_path else -1,
                          pl_dep.get(hdep, -1) if pl_dep else -1,
                          pl_hl.get(hlem, -1) if pl_hl else -1, pl_cl.get(hc, -1) if pl_cl else -1,
                          sc.get(hdep, -1) if sc else -1, pl_v_sc.get(hdep, -1) if pl_v_sc else -1,
                          kind_pl[kind], dist[min(abs(h - p), 8)])
                starts.append(lo)
                ends.append(hi)
            p_index += [n] * len(cands)
            owner += [n] * len(cands)
            offsets += [offset] * len(cands)
        ids = self._assemble(cross, (p_block, p_index), (h_block, h_index))
        self._span_block(ids, starts, ends, offsets, words)
        return owner, starts, ends, ids

    def _assemble(self, cross: list[int], *blocks: tuple[list[int], list[int]]) -> np.ndarray:
        """The ``(rows, columns)`` array: X from ``cross``, P and H from (table, row index)."""
        cols = self.columns
        rows = len(cross) // len(cols["X"])
        ids = np.empty((rows, len(ARGUMENT_LAYOUT)), dtype=np.int64)
        ids[:, cols["X"]] = np.fromiter(cross, np.int64, len(cross)).reshape(-1, len(cols["X"]))
        for b, (table, index) in zip("PH", blocks):
            flat = np.fromiter(table, np.int64, len(table)).reshape(-1, len(cols[b]))
            ids[:, cols[b]] = flat[np.fromiter(index, np.intp, len(index))]
        return ids

    def _span_block(self, ids: np.ndarray, starts: list[int], ends: list[int],
                    offsets: list[int], words: dict[str, list[int]]) -> None:
        """Fill the S columns of ``ids``: the length bucket, then the token columns' ids at the
        first and last token of each span (``offsets``: where its tree's tokens begin)."""
        lo = np.fromiter(starts, np.intp, len(starts))
        hi = np.fromiter(ends, np.intp, len(ends))
        first = lo + np.fromiter(offsets, np.intp, len(offsets))
        column = {name: np.fromiter(v, np.int64, len(v)) for name, v in words.items()}
        lengths = np.array(self._len, dtype=np.int64)
        ids[:, self.columns["S"]] = np.stack(
            [lengths[np.minimum(hi - lo, 8)], column["fw"][first],
             column["lw"][first + (hi - lo - 1)], column["ft"][first]], axis=1)
