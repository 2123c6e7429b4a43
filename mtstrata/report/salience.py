"""compare-mt's salient n-grams between two systems, and the same for the linguistic layers.

Definitions follow compare-mt (``compare_mt/ngram_utils.py``, ``stat_utils.py``),
re-implemented here:

* :func:`compare_ngrams`: per sentence, the reference n-grams (n = 1..4) are counted; each
  output n-gram, in order, *matches* if an unused copy is left in the reference (then one copy
  is used). Matches are summed per *label* n-gram: the n-gram itself, or the n-gram of the
  words' labels (POS tags) when labels are given. Reference totals are summed the same way.
* :func:`salient`: compare-mt's smoothed ratio of two systems' match counts,
  ``(a + alpha) / (a + b + 2 alpha)`` (alpha = 1: Laplace); near 1: system A gets the type right
  more often, near 0: system B does. The largest and the smallest are reported, each with its
  counts (A's matches, B's matches, occurrences in the reference).

The linguistic layers use the same two steps on the annotations:

* lemmas: n-grams of lemmas (lower-cased), matched like words;
* POS n-grams: word n-grams (the annotation's tokens, case kept) matched, counted under their
  POS n-gram (compare-mt's labels);
* entity types: an entity matches a reference entity of the same type and the same words
  (lower-cased; each reference entity once), counted under its type;
* role labels: an argument matches a reference argument with the same predicate lemma, role
  and words (lower-cased; each once), counted under its role label;
* constituent types: a constituent matches a reference constituent of the same label and the
  same words (lower-cased; each once), counted under its label (a text without a tree has
  none: its reference constituents are counted, none matches).

All are against reference 1 (compare-mt takes one reference).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mtstrata.segment import Layer, Segment

#: n-gram lengths and the number of types reported per direction (compare-mt's defaults:
#: 1-4, 50; 20 here keeps the page short)
MIN_N, MAX_N, REPORT_LENGTH, ALPHA = 1, 4, 20, 1.0

Key = tuple[str, ...]


def ngrams(words: Sequence[str], labels: Sequence[str] | None = None, min_n: int = MIN_N,
           max_n: int = MAX_N) -> list[tuple[Key, Key]]:
    """Every (word n-gram, label n-gram) of a sentence, shortest first."""
    if labels is not None and len(labels) != len(words):
        raise ValueError(f"{len(labels)} labels for {len(words)} words")
    lab = labels if labels is not None else words
    return [(tuple(words[i:i + n]), tuple(lab[i:i + n]))
            for n in range(min_n, max_n + 1) for i in range(len(words) - n + 1)]


def compare_ngrams(ref: Sequence[Sequence[str]], out: Sequence[Sequence[str]],
                   ref_labels: Sequence[Sequence[str]] | None = None,
                   out_labels: Sequence[Sequence[str]] | None = None, min_n: int = MIN_N,
                   max_n: int = MAX_N) -> tuple[Counter[Key], Counter[Key]]:
    """Matched output n-grams and reference n-grams, counted per label n-gram."""
    match: Counter[Key] = Counter()
    total: Counter[Key] = Counter()
    for k, (r, o) in enumerate(zip(ref, out, strict=True)):
        rgrams = ngrams(r, ref_labels[k] if ref_labels is not None else None, min_n, max_n)
        left = Counter(w for w, _ in rgrams)
        total.update(lab for _, lab in rgrams)
        for w, lab in ngrams(o, out_labels[k] if out_labels is not None else None, min_n,
                             max_n):
            if left[w] > 0:
                left[w] -= 1
                match[lab] += 1
    return match, total


def match_items(ref: Sequence[Sequence[tuple[str, Key]]], out: Sequence[Sequence[tuple[str, Key]]]
                ) -> tuple[Counter[Key], Counter[Key]]:
    """Labelled items (label, identity) per sentence: an output item matches an unused
    reference item with the same label and identity; counts per label."""
    match: Counter[Key] = Counter()
    total: Counter[Key] = Counter()
    for r, o in zip(ref, out, strict=True):
        left = Counter(r)
        total.update((lab,) for lab, _ in r)
        for item in o:
            if left[item] > 0:
                left[item] -= 1
                match[(item[0],)] += 1
    return match, total


def salient(a: Mapping[Key, int], b: Mapping[Key, int], ref: Mapping[Key, int],
            alpha: float = ALPHA, length: int = REPORT_LENGTH) -> dict[str, Any]:
    """compare-mt's salient features: ``(a + alpha) / (a + b + 2 alpha)`` of every type either
    system matched; the ``length`` largest where A matched more often (A better) and the
    ``length`` smallest where B did (B better), with counts (ties are in neither list)."""
    rows = [{"type": " ".join(k), "score": round((a.get(k, 0) + alpha) /
                                                 (a.get(k, 0) + b.get(k, 0) + 2 * alpha), 6),
             "a": a.get(k, 0), "b": b.get(k, 0), "ref": ref.get(k, 0)}
            for k in set(a) | set(b)]
    # ties: the more frequent first, then by name (a stable, documented order)
    rows.sort(key=lambda r: (-r["score"], -(r["a"] + r["b"]), r["type"]))
    better_b = sorted(rows, key=lambda r: (r["score"], -(r["a"] + r["b"]), r["type"]))
    return {"alpha": alpha, "n_types": len(rows),
            "a_better": [r for r in rows if r["a"] > r["b"]][:length],
            "b_better": [r for r in better_b if r["b"] > r["a"]][:length]}


def _lower(seq: Iterable[str | None]) -> list[str]:
    return [(x or "").lower() for x in seq]


def lemma_seq(seg: Segment) -> list[str]:
    """The lemmas of a segment (the form where there is no lemma), lower-cased."""
    return _lower(t.lemma or t.form for t in seg.tokens)


def pos_seq(seg: Segment) -> list[str]:
    """The POS tag of every token (fine-grained where there is one)."""
    return [t.xpos or t.upos or "?" for t in seg.tokens]


def entity_items(seg: Segment) -> list[tuple[str, Key]]:
    """Each entity as (type, its words lower-cased)."""
    return [(e.label, tuple(_lower(t.form for t in seg.tokens[e.start:e.end])))
            for e in seg.entities]


def role_items(seg: Segment) -> list[tuple[str, Key]]:
    """Each argument as (role, (predicate lemma, its words lower-cased...))."""
    out = []
    for f in seg.frames:
        pred = (seg.tokens[f.predicate].lemma or seg.tokens[f.predicate].form).lower()
        for a in f.args:
            out.append((a.label, (pred, *_lower(t.form for t in seg.tokens[a.start:a.end]))))
    return out


def constituent_items(seg: Segment) -> list[tuple[str, Key]]:
    """Each constituent as (label, its words lower-cased); none for a text without a tree."""
    from mtstrata.layers.constituents import constituents_of

    v = constituents_of(seg)
    n = len(seg.tokens)
    return [(c.label, tuple(_lower(t.form for t in seg.tokens[min(c.start, n):min(c.end, n)])))
            for c in v.spans] if v.parsed else []


def pair_analyses(ref: Sequence[Sequence[str]], out_a: Sequence[Sequence[str]],
                  out_b: Sequence[Sequence[str]],
                  segs: Callable[[int, str], Segment | None] | None = None,
                  n: int = 0) -> dict[str, Any]:
    """Salient words n-grams, and, when ``segs(i, side)`` gives the annotated segment of
    reference 1 (``"ref"``), system A (``"a"``) or B (``"b"``) at i, salient lemma n-grams, POS
    n-grams, entity types, role labels and constituent types (each only where every segment
    has its layer)."""
    from mtstrata.layers.constituents import CONSTITUENTS

    ma, tot = compare_ngrams(ref, out_a)
    mb, _ = compare_ngrams(ref, out_b)
    out = {"words": salient(ma, mb, tot)}
    if segs is None:
        return out
    sides = {side: [segs(i, side) for i in range(n)] for side in ("ref", "a", "b")}
    if any(s is None for v in sides.values() for s in v):
        return out
    have = frozenset.intersection(*(s.layers for v in sides.values() for s in v))
    if Layer.LEMMA in have:
        lem = {k: [lemma_seq(s) for s in v] for k, v in sides.items()}
        la, lt = compare_ngrams(lem["ref"], lem["a"])
        lb, _ = compare_ngrams(lem["ref"], lem["b"])
        out["lemmas"] = salient(la, lb, lt)
    if Layer.POS in have:
        w = {k: [[t.form for t in s.tokens] for s in v] for k, v in sides.items()}
        p = {k: [pos_seq(s) for s in v] for k, v in sides.items()}
        pa, pt = compare_ngrams(w["ref"], w["a"], p["ref"], p["a"])
        pb, _ = compare_ngrams(w["ref"], w["b"], p["ref"], p["b"])
        out["pos"] = salient(pa, pb, pt)
    for name, layer, items in (("entities", Layer.NER, entity_items),
                               ("roles", Layer.SRL, role_items),
                               ("constituents", CONSTITUENTS, constituent_items)):
        if layer not in have:
            continue
        ref_items = [items(s) for s in sides["ref"]]
        ea, et = match_items(ref_items, [items(s) for s in sides["a"]])
        eb, _ = match_items(ref_items, [items(s) for s in sides["b"]])
        out[name] = salient(ea, eb, et)
    return out
