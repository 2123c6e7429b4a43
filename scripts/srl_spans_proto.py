"""Prototype: argument candidates the parse's subtrees do not give (measurements only, issue 39).

Not part of the package. Reads the parsed shared dev section cached by
``scripts/srl_ctx_proto.py`` (/tmp/srl39/parsed.pkl: derived data, never committed) and

1. characterises, on the training documents only, the gold arguments of verbal predicates
   (``srl_eval.NOT_ARGUMENTS`` left out, as train_srl does) that no candidate of
   ``tree.candidate_tuples`` covers exactly, by construction (``--what classes``);
2. measures candidate generators beyond the subtrees: candidate recall on the gold arguments
   and candidates per predicate (``--what recall``, training or ``--held`` held-out documents).

Generators (each adds to the subtree candidates "base"):

* ``raw``: every candidate's subtree untrimmed as well (no punctuation/preposition trimming);
* ``nodes``: the (trimmed) subtree of every token of the sentence not containing the predicate;
* ``drop``: each candidate's head with its first or last k dependents' subtrees dropped;
* ``sib``: unions of two or three adjacent candidates with the same head above;
* ``all``: raw + drop + sib;
* ``winN``: every contiguous span of at most N tokens not containing the predicate.

Uncovered gold arguments, training documents (5,884 gold arguments, 768 = 13.1% not covered;
held-out: 1,106, 132 = 11.9%), ``--what classes``:

=====  =====  ==================================================================
count  share  construction (of the uncovered)
=====  =====  ==================================================================
  201  26.2%  whole subtree of a token off the predicate's path (not a candidate)
  164  21.4%  two adjacent sibling subtrees under one head (coordination, verb + particle..)
  118  15.4%  subtree minus edge dependents (other relations)
   85  11.1%  several subtrees with different heads (parse attachment errors)
   50   6.5%  three or more adjacent sibling subtrees under one head
   46   6.0%  subtree minus edge dependents, a prep dropped
   44   5.7%  subtree minus the predicate's part (relative clauses, reduced relatives)
   22   2.9%  subtree minus edge dependents, conj/cc dropped
   21   2.7%  subtree minus edge dependents, relcl/acl dropped
    7   0.9%  subtree minus dependents on both sides
    7   0.9%  trimmed subtree off the predicate's path
    3   0.4%  subtree minus edge punctuation
=====  =====  ==================================================================

No uncovered gold argument crosses or contains the predicate except through "subtree minus the
predicate's part" (0 "crosses the predicate" rows).

Candidate recall on gold arguments and cost (``--what recall [--held]``):

=========  ==================  =================  ==========================
generator  recall (training)   recall (held-out)  candidates/predicate (h.o.)
=========  ==================  =================  ==========================
base       0.869               0.881              7.1
raw        0.869               0.881              7.1
nodes      0.905               0.911              19.8
drop       0.892               0.909              10.9
sib        0.902               0.905              11.0
all        0.920               0.929              14.8
all+nodes  0.955               0.959              27.5
win8       0.970               0.972              112.0
win15      0.990               0.990              154.4
=========  ==================  =================  ==========================

``raw`` adds nothing (trimming never loses a gold span the untrimmed one would give). The
repairs (``all``) lift the recall cap by 0.048 held out for about twice the candidates (with
every token's subtree, ``all+nodes``, by 0.078 for 3.9x); spans
scored directly (``win8``) lift it by 0.091 for 16x the candidates, which the sparse linear
scorer's per-candidate cost (0.4-0.9 ms per sentence today) would multiply.

Argument P/R/F1 (CoNLL-2005 style, predicates from the shipped model) of train_srl's sparse
classifier (``srl_ctx_proto`` variant A without the dense block) with each generator's extra
candidates (``--what f1 --gen G [--tune]``; an extra candidate's head is its first token whose
head lies outside it, ``up`` the level of the predicate's ancestor it hangs under, kind
``rep``; training rows labelled by exact span as in train_srl):

=========  ==================  ==================
generator  tuning slice        held-out
=========  ==================  ==================
base       0.697/0.625/0.659   0.730/0.675/0.701
all        0.713/0.617/0.662
sib        0.702/0.618/0.657
drop       0.707/0.623/0.662   0.737/0.668/0.701
nodes      0.695/0.628/0.660
=========  ==================  ==================

(``drop`` chosen on the slice: tied with ``all`` at fewer candidates.) The extra candidates
raise the recall cap but not the recall: the sparse features cannot tell the right repaired
span from its subtree (the extra rows are mostly near-duplicates labelled NONE), so
precision moves a little and F1 stays at 0.701 held out. Reaching the 12% needs a scorer with
span-boundary evidence (the contextual first/last-word vectors of variant A's dense block, or
a BIO tagger over predicate-marked input); not tried here for lack of time, nor ``win8``
through the classifier (16x the rows).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from pathlib import Path

import srl_eval
import srl_propbank as pb

from mtstrata.layers.srl import tree as T

CACHE = Path("/tmp/srl39")
MAX_DROP = 3
BASE_TUPLES = T.candidate_tuples  # the parse's subtree candidates (before any patch)


def gold_frames(s):
    """(predicate, set of gold argument spans) of the sentence's verbal frames."""
    return [(f.predicate, {(a.start, a.end) for a in f.args
                           if a.label not in srl_eval.NOT_ARGUMENTS})
            for f in s.frames if f.verbal]


def base(tree, p):
    return {(lo, hi) for _, lo, hi, _, _ in BASE_TUPLES(tree, p)}


def raw(tree, p):
    out = set()
    for c, _lo, _hi, up, _ in BASE_TUPLES(tree, p):
        if up >= 0:
            lo2, hi2 = tree.lo[c], tree.hi[c]
            if not lo2 <= p < hi2:
                out.add((lo2, hi2))
    return out


def nodes(tree, p):
    out = set()
    for x in range(tree.n):
        lo, hi = tree.trim(tree.lo[x], tree.hi[x])
        if not lo <= p < hi:
            out.add((lo, hi))
    return out


def drop(tree, p):
    """A candidate head with its first or last k dependents (and their subtrees) dropped."""
    out = set()
    for c, lo, hi, up, _ in BASE_TUPLES(tree, p):
        if up < 0:
            continue
        kids = sorted(tree.kids[c])
        left = [k for k in kids if k < c]
        right = [k for k in kids if k > c]
        for k in range(1, min(MAX_DROP, len(right)) + 1):
            h2 = tree.lo[right[-k]]
            if h2 > lo:
                out.add(tree.trim(lo, h2))
        for k in range(1, min(MAX_DROP, len(left)) + 1):
            l2 = tree.hi[left[k - 1]]
            if l2 < hi:
                out.add(tree.trim(l2, hi))
    return {(a, b) for a, b in out if not a <= p < b}


def sib(tree, p):
    """Unions of two or three candidates adjacent in the sentence with the same head above."""
    by_head = {}
    for c, lo, hi, up, _ in BASE_TUPLES(tree, p):
        if up >= 0:
            by_head.setdefault(tree.head[c], []).append((lo, hi))
    out = set()
    for spans in by_head.values():
        spans.sort()
        for i in range(len(spans)):
            for j in (i + 1, i + 2):
                if j < len(spans):
                    lo, hi = spans[i][0], spans[j][1]
                    if not lo <= p < hi:
                        out.add((lo, hi))
    return out


def window(n):
    def gen(tree, p):
        return {(a, b) for a in range(tree.n) for b in range(a + 1, min(tree.n, a + n) + 1)
                if not a <= p < b}
    return gen


GENERATORS = {"base": None, "raw": raw, "nodes": nodes, "drop": drop, "sib": sib,
              "all": (raw, drop, sib), "all+nodes": (raw, drop, sib, nodes),
              "win8": window(8), "win15": window(15)}


def classify(tree, p, a, b):
    """The construction of a gold span ``[a, b)`` no base candidate gives."""
    if a <= p < b:
        if b - a == 1:
            return "the predicate itself"
        return "crosses the predicate"
    for x in range(a, b):
        if (tree.lo[x], tree.hi[x]) == (a, b):
            return "whole subtree, not on the predicate's path"
        if tree.trim(tree.lo[x], tree.hi[x]) == (a, b):
            return "trimmed subtree, not on the predicate's path"
    roots = [i for i in range(a, b) if not a <= tree.head[i] < b]
    if len(roots) == 1:
        r = roots[0]
        lo, hi = tree.lo[r], tree.hi[r]
        if lo <= p < hi and (a, b) != (lo, hi):
            return "subtree minus the predicate's part"
        if (lo, hi) != (a, b):
            lost = [tree.dep[k] for k in tree.kids[r]
                    if not (a <= tree.lo[k] and tree.hi[k] <= b)]
            if a == lo or b == hi:
                tag = ("prep" if "prep" in lost else "relcl/acl" if {"relcl", "acl"} & set(lost)
                       else "conj/cc" if {"conj", "cc"} & set(lost)
                       else "punct" if set(lost) <= {"punct"} else "other")
                return f"subtree minus edge dependents ({tag})"
            return "subtree minus dependents on both sides"
        return "subtree (other)"
    heads = {tree.head[i] for i in roots}
    if len(heads) == 1:
        return f"adjacent siblings under one head ({min(len(roots), 3)})"
    return "several subtrees, different heads"


def patch_candidates(gens):
    """Make ``tree.candidate_tuples`` add the generators' spans (kind ``rep``), so that
    ``features.argument_instances`` scores them with the shipped features: the head is the
    span's first token whose head lies outside it, ``up`` the level of the predicate's
    ancestor it hangs under (its negative when the head is that ancestor)."""

    def tuples(tree, p, ancestors=None):
        out = BASE_TUPLES(tree, p, ancestors)
        have = {(lo, hi) for _, lo, hi, _, _ in out}
        chain = [p, *(tree.ancestors(p) if ancestors is None else ancestors)]
        level = {x: j for j, x in enumerate(chain)}
        extra = set()
        for g in gens:
            extra |= g(tree, p)
        for lo, hi in sorted(extra - have):
            h = T.span_head(tree, lo, hi)
            if h in level:
                if level[h]:
                    out.append((h, lo, hi, -level[h], "rep"))
                continue
            x, seen = tree.head[h], 0
            while 0 <= x < tree.n and x not in level and seen < tree.n:
                x, seen = tree.head[x], seen + 1
            if x in level:
                out.append((h, lo, hi, level[x], "rep"))
        return out

    T.candidate_tuples = tuples


def f1(gen, tune):
    """Argument P/R/F1 of srl_ctx_proto's variant A without the dense block (= train_srl's
    sparse classifier) over the base candidates plus ``gen``'s."""
    import srl_ctx_proto as ctx

    gens = () if GENERATORS[gen] is None else GENERATORS[gen]
    patch_candidates(gens if isinstance(gens, tuple) else (gens,))
    sys.argv = ["srl_ctx_proto", "--dims", "0", *(["--tune"] if tune else [])]
    ctx.main()


def load():
    sents, segs = pickle.loads((CACHE / "parsed.pkl").read_bytes())
    return sents, segs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--what", choices=("classes", "recall", "f1"), default="recall")
    ap.add_argument("--tune", action="store_true", help="f1 on train_srl's tuning slice")
    ap.add_argument("--held", action="store_true", help="held-out documents (recall only)")
    ap.add_argument("--gen", nargs="*", default=list(GENERATORS))
    a = ap.parse_args()
    if a.what == "f1":
        return f1(a.gen[0], a.tune)
    sents, segs = load()
    held = a.held and a.what == "recall"
    use = [k for k, s in enumerate(sents) if pb.is_held_out(s.document) == held]
    if a.what == "classes":
        classes, total, miss = Counter(), 0, 0
        for k in use:
            tree = T.Tree(segs[k])
            for p, gold in gold_frames(sents[k]):
                cands = base(tree, p)
                total += len(gold)
                for g in gold - cands:
                    miss += 1
                    classes[classify(tree, p, *g)] += 1
        print(f"documents: training; gold args {total}, not covered {miss} "
              f"({100 * miss / total:.1f}%)")
        for c, n in classes.most_common():
            print(f"{n:6d}  {100 * n / miss:5.1f}% of uncovered  {c}")
        return
    for name in a.gen:
        gen = GENERATORS[name]
        gens = () if gen is None else gen if isinstance(gen, tuple) else (gen,)
        total = hit = n_pred = n_cand = 0
        for k in use:
            tree = T.Tree(segs[k])
            for p, gold in gold_frames(sents[k]):
                cands = base(tree, p)
                for g in gens:
                    cands |= g(tree, p)
                n_pred += 1
                n_cand += len(cands)
                total += len(gold)
                hit += len(gold & cands)
        where = "held-out" if held else "training"
        print(f"{name:6s} {where} recall {hit / total:.3f} ({hit}/{total}) "
              f"candidates/predicate {n_cand / n_pred:.1f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
