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

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Candidate:
    """An argument candidate: head token, span ``[start, end)``, and how it hangs off ``p``."""

    head: int
    start: int
    end: int
    up: int  # 0: a dependent of p; k > 0: a dependent of p's k-th ancestor; -k: that ancestor
    kind: str = ""  # "": the subtree; "alone": the head token alone


class Tree:
    """Heads, children and subtree extents of one segment (0-based; -1 for a root)."""

    __slots__ = ("seg", "n", "head", "kids", "lo", "hi", "dep", "form", "lemma", "tag", "lower")

    def __init__(self, seg: Segment):
        toks = seg.tokens
        self.seg = seg
        self.n = n = len(toks)
        self.head = [(t.head or 0) - 1 for t in toks]
        self.dep = [(t.deprel or "").lower() for t in toks]
        self.form = [t.form for t in toks]
        self.lower = [t.form.lower() for t in toks]
        self.lemma = [(t.lemma or t.form).lower() for t in toks]
        self.tag = [t.xpos or t.upos or "" for t in toks]
        self.kids: list[list[int]] = [[] for _ in range(n)]
        for i, h in enumerate(self.head):
            if 0 <= h < n and h != i:
                self.kids[h].append(i)
        self.lo = list(range(n))
        self.hi = list(range(1, n + 1))
        # extents bottom-up; the visited guard keeps a malformed (cyclic) head column finite
        order, seen = [], [False] * n
        for r in range(n):
            if self.head[r] < 0 or self.head[r] >= n or self.head[r] == r:
                stack = [r]
                while stack:
                    k = stack.pop()
                    if not seen[k]:
                        seen[k] = True
                        order.append(k)
                        stack.extend(self.kids[k])
        for k in reversed(order):
            for c in self.kids[k]:
                if seen[c]:
                    self.lo[k] = min(self.lo[k], self.lo[c])
                    self.hi[k] = max(self.hi[k], self.hi[c])

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
    t = tree.seg.tokens[i]
    return tree.tag[i] in PREDICATE_TAGS or t.upos in ("VERB", "AUX")


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
         "tdh=" + t + d + htag, "u=" + (tree.seg.tokens[i].upos or "")]
    f.extend("k=" + k for k in kids)
    f.extend("tk=" + t + k for k in kids)
    return f


def candidate_tuples(tree: Tree, p: int) -> list[tuple[int, int, int, int, str]]:
    """Argument candidates of ``p`` as ``(head, start, end, up, kind)`` (see :class:`Candidate`)."""
    out: list[tuple[int, int, int, int, str]] = []
    tag, dep, lo_, hi_, kids = tree.tag, tree.dep, tree.lo, tree.hi, tree.kids
    below = p
    for up, a in enumerate([p, *tree.ancestors(p)]):
        for c in kids[a]:
            if c == below and up:
                continue
            if tag[c] in PUNCT_TAGS:
                continue
            lo, hi = tree.trim(lo_[c], hi_[c])
            if lo <= p < hi:  # a non-projective branch around p: the head alone
                lo, hi = c, c + 1
            out.append((c, lo, hi, up, ""))
            if not up and dep[c] in ("dobj", "attr") and tag[c].startswith("NN") \
                    and hi - lo > 1:  # the noun alone: a light verb's AM-PRR ("make a profit")
                out.append((c, c, c + 1, 0, "alone"))
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
WH_WORDS = ("who", "which", "that", "whom", "whose", "where", "when", "why")


def _bucket(n: int) -> str:
    return str(n) if n < 4 else ("4-7" if n < 8 else "8+")


class PredicateEncoder:
    """Columns of :func:`predicate_features` (variable length: one pair per dependent label)."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        self._one = {k: vocab.sub(k + "=") for k in ("t", "d", "l", "w", "ht", "pt", "nt", "u",
                                                      "k")}

    def encode(self, tree: Tree, i: int, out: list[int]) -> int:
        """Append the columns of token ``i`` to ``out`` (-1: unknown); return how many."""
        sub, one = self.vocab.sub, self._one
        h = tree.head[i]
        htag = tree.tag[h] if 0 <= h < tree.n else "ROOT"
        prev = tree.tag[i - 1] if i else "BOS"
        nxt = tree.tag[i + 1] if i + 1 < tree.n else "EOS"
        t, d, lem = tree.tag[i], tree.dep[i], tree.lemma[i]
        out += (self.vocab.get("b"), one["t"].get(t, -1), one["d"].get(d, -1),
                one["l"].get(lem, -1), one["w"].get(tree.lower[i], -1),
                one["ht"].get(htag, -1), sub("td=" + t).get(d, -1), sub("lt=", t).get(lem, -1),
                sub("ld=", d).get(lem, -1), one["pt"].get(prev, -1), one["nt"].get(nxt, -1),
                sub("tdh=" + t + d).get(htag, -1), one["u"].get(tree.seg.tokens[i].upos or "", -1))
        kids = sorted({tree.dep[k] for k in tree.kids[i]})
        out += [one["k"].get(k, -1) for k in kids]
        tk = sub("tk=" + t)
        out += [tk.get(k, -1) for k in kids]
        return 13 + 2 * len(kids)


class ArgumentEncoder:
    """Columns of :func:`argument_instances`, a fixed-width row per candidate.

    Rows are assembled from four blocks (:data:`ARGUMENT_LAYOUT`): the predicate's features
    (once per predicate), the candidate head's and span's (once per tree), and the pair's
    (looked up by pieces in dicts chosen once per predicate).
    """

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        sub, get = vocab.sub, vocab.get
        self._one = {k: sub(k + "=") for k in ("path", "sp", "dep", "ht", "hl", "cl", "ct", "fw",
                                               "lw", "ft", "mk", "kids", "r", "rh", "kind")}
        self._len = [get("len=" + _bucket(n)) for n in range(9)]
        self._dist = [get("dist=" + _bucket(n)) for n in range(9)]
        self._up = {u: get(f"up={u}") for u in range(-MAX_UP, MAX_UP + 1)}
        self._pos = {pos: get("pos=" + pos) for pos in "LRO"}
        self.columns = {b: [k for k, (_, blk) in enumerate(ARGUMENT_LAYOUT) if blk == b]
                        for b in "PHSX"}

    def _head(self, tree: Tree, h: int, down: bool, kind: str) -> tuple[tuple[int, ...], str,
                                                                         str, str]:
        """(H block, dep, head lemma, "lemma|content") of a candidate head."""
        one, get = self._one, self.vocab.get
        dep = (tree.dep[h] if down else "ANC") + ("_" + kind[:3] if kind else "")
        htag, hlem = tree.tag[h], tree.lemma[h]
        content, ctag, mark = hlem, htag, ""
        for k in tree.kids[h]:
            dk = tree.dep[k]
            if dk in ("pobj", "pcomp") and down:
                content, ctag = tree.lemma[k], tree.tag[k]
            elif dk in ("mark", "advmod") and k < h and not mark:
                mark = tree.lower[k]
        kids = " ".join(sorted({tree.dep[k] for k in tree.kids[h]})) if down else ""
        low = tree.lower[h]
        block = (one["dep"].get(dep, -1), one["ht"].get(htag, -1), one["hl"].get(hlem, -1),
                 one["cl"].get(content, -1), one["ct"].get(ctag, -1), one["mk"].get(mark, -1),
                 get("dep_hl=" + dep + "|" + hlem), get("dep_cl=" + dep + "|" + content),
                 get("dep_mk=" + dep + "|" + mark), one["kids"].get(kids, -1),
                 get("dep_kids=" + dep + "|" + kids), one["kind"].get(kind, -1),
                 get("kind_dep=" + kind + "|" + dep),
                 get("wh=" + low + dep) if low in WH_WORDS else -1)
        return block, dep, hlem, hlem + "|" + content

    def _span(self, tree: Tree, lo: int, hi: int) -> tuple[int, ...]:
        """The S block (length, first and last word, first tag) of ``[lo, hi)``."""
        one = self._one
        return (self._len[min(hi - lo, 8)], one["fw"].get(tree.lower[lo], -1),
                one["lw"].get(tree.lower[hi - 1], -1), one["ft"].get(tree.tag[lo], -1))

    def encode(self, items: Iterable[tuple[Tree, int, Frame | None]]
               ) -> tuple[list[int], list[tuple[int, int]], np.ndarray]:
        """Rows of every candidate of each ``(tree, predicate, rule frame)`` (in order).

        Returns the item of each row, its span ``(start, end)`` and the ``(rows, columns)``
        array of ids (-1: unknown), ordered as :func:`argument_instances` would emit them.
        """
        sub, one, dist_ids, up_ids = self.vocab.sub, self._one, self._dist, self._up
        path_d, sp_d, r_d, rh_d = one["path"], one["sp"], one["r"], one["rh"]
        blocks: dict[str, list[tuple[int, ...]]] = {"P": [], "H": [], "S": []}
        index: dict[str, list[int]] = {"P": [], "H": [], "S": []}
        cross: list[tuple[int, ...]] = []
        owner: list[int] = []
        spans: list[tuple[int, int]] = []
        last = None
        for n, (tree, p, rule) in enumerate(items):
            if tree is not last:  # head and span blocks are shared by a tree's predicates
                last, heads, extents = tree, {}, {}
            plem, voice, ptag, subcat = predicate_info(tree, p)
            own = {tree.dep[k] for k in tree.kids[p]}
            so = ("S" if own & {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"} else "s") \
                + ("O" if "dobj" in own else "o")
            chain = [tree.dep[x] for x in [p, *tree.ancestors(p)]]
            ups = ["^".join(chain[:k]) + "|" for k in range(len(chain))]
            exact = {(a.start, a.end): a.label for a in rule.args} if rule else {}
            by_head = {span_head(tree, a.start, a.end): a.label for a in rule.args} if rule \
                else {}
            get = self.vocab.get
            index_p = len(blocks["P"])
            blocks["P"].append((get("b"), get("pl=" + plem), get("pt=" + ptag), get("v=" + voice),
                                get("pl_sc=" + plem + "|" + subcat), get("rp" if rule else "nrp")))
            by_pos = {pos: (sub("dvp=", voice + pos), sub("pathv=", voice + pos),
                            sub("pt_dep=" + ptag, pos), sub("sc=" + subcat + "|", pos))
                      for pos in "LRO"}
            pos_ids = self._pos
            pl_path, pl_hl = sub("pl_path=" + plem + "|"), sub("pl_hl=" + plem + "|")
            pl_cl, pl_dep = sub("pl_cl=" + plem + "|"), sub("pl_dep=" + plem + "|", "|" + voice)
            pdep, pl_v_sc = sub("pdep=" + tree.dep[p] + "|"), sub("pl_v_sc_dep=" + plem + voice
                                                                  + subcat)
            own_sp, own_path = sub("own=" + so + "sp="), sub("own_full=" + so + "path=")
            own_v = sub("own_v=" + so + voice + "sp=")
            kind_pl = {kind: get("kind_pl=" + kind + "|" + plem) for kind in ("", "alone")}
            by_r: dict[str, tuple[int, dict[str, int], dict[str, int]]] = {}
            for h, lo, hi, up, kind in candidate_tuples(tree, p):
                head = heads.get((h, up >= 0, kind))
                if head is None:
                    block, dep, hlem, hc = self._head(tree, h, up >= 0, kind)
                    head = heads[(h, up >= 0, kind)] = (len(blocks["H"]), dep, hlem, hc)
                    blocks["H"].append(block)
                index_h, dep, hlem, hc = head
                index_s = extents.get((lo, hi))
                if index_s is None:
                    index_s = extents[(lo, hi)] = len(blocks["S"])
                    blocks["S"].append(self._span(tree, lo, hi))
                k, down = (up, tree.dep[h]) if up >= 0 else (-up, "")
                full, short = ups[k] + down, f"{k}^|" + down
                pos = "L" if hi <= p else ("R" if lo > p else "O")
                dvp, pathv, pt_dep, sc = by_pos[pos]
                r, rh = exact.get((lo, hi), "-"), by_head.get(h, "-")
                rr = by_r.get(r)
                if rr is None:
                    rr = by_r[r] = (r_d.get(r, -1), sub("r_rh=" + r), sub("r_dep=" + r + "dep="))
                cross.append((
                    path_d.get(full, -1), sp_d.get(short, -1), pos_ids[pos],
                    dist_ids[min(abs(h - p), 8)], dvp.get(dep, -1), pathv.get(full, -1),
                    pl_path.get(full, -1), pl_dep.get(dep, -1), pl_hl.get(hlem, -1),
                    pl_cl.get(hc, -1), pt_dep.get(dep, -1), pdep.get(short, -1),
                    sc.get(dep, -1), pl_v_sc.get(dep, -1), up_ids[up], kind_pl[kind],
                    own_sp.get(short, -1), own_path.get(full, -1), own_v.get(short, -1),
                    rr[0], rh_d.get(rh, -1), rr[1].get(rh, -1), rr[2].get(dep, -1)))
                index["P"].append(index_p)
                index["H"].append(index_h)
                index["S"].append(index_s)
                owner.append(n)
                spans.append((lo, hi))
        ids = np.full((len(cross), len(ARGUMENT_LAYOUT)), -1, dtype=np.int64)
        if cross:
            ids[:, self.columns["X"]] = cross
            for b in "PHS":
                ids[:, self.columns[b]] = np.array(blocks[b], dtype=np.int64)[index[b]]
        return owner, spans, ids
