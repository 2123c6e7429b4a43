"""Plain per-segment definitions of the linguistic elements, written for the tests only.

They follow the definitions of METRICS.md §2 node by node in Python, independently of the
vectorised extractors of mtstrata.metrics.linguistic, which the tests compare against them
(items of each segment, as decoded by ``elements.items``).
"""

from __future__ import annotations

from collections import Counter

from mtstrata.metrics.linguistic.columns import norm_role
from mtstrata.metrics.linguistic.elements import OTHER, SEP, coarse_pos
from mtstrata.segment import Segment


def _words(s: Segment) -> list[str]:
    return [t.form.lower() for t in s.tokens]


def _ancestors(s: Segment, i: int) -> list[int]:
    """i's ancestors, nearest first (at most len(tokens) steps: cyclic heads stop)."""
    out, j = [], i
    for _ in range(len(s.tokens) - 1):
        h = s.tokens[j].head
        if not h:
            break
        j = h - 1
        out.append(j)
    return out


def _bag(pairs) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for t, item in pairs:
        out.setdefault(t, Counter())[item] += 1
    return out


def _typed(types: tuple[str, ...], label: str) -> str:
    return label if label in types else OTHER


def word(s: Segment, types) -> dict[str, Counter]:
    return _bag(("word", w) for w in _words(s))


def pos(s: Segment, types) -> dict[str, Counter]:
    return _bag((_typed(types, t.xpos or ""), w) for t, w in zip(s.tokens, _words(s)))


def pos_coarse(s: Segment, types) -> dict[str, Counter]:
    return _bag((coarse_pos(t.xpos or ""), w) for t, w in zip(s.tokens, _words(s)))


def dep_depth(s: Segment, types) -> dict[str, Counter]:
    return _bag((types[min(len(_ancestors(s, i)), 9)], w) for i, w in enumerate(_words(s)))


def dep_rel(s: Segment, types) -> dict[str, Counter]:
    w = _words(s)
    rel = [_typed(types, (t.deprel or "").lower()) for t in s.tokens]
    return _bag((rel[a], w[i]) for i in range(len(w)) for a in [i, *_ancestors(s, i)])


def chains(labels: list[str]):
    def fn(s: Segment, types) -> dict[str, Counter]:
        lab = labels_of(s, labels)
        out = []
        for i in range(len(lab)):
            path = [i, *_ancestors(s, i)][:4]
            for k in range(1, len(path) + 1):
                out.append((str(k), SEP.join(lab[j] for j in reversed(path[:k]))))
        return _bag(out)
    return fn


def labels_of(s: Segment, which) -> list[str]:
    if which == "words":
        return _words(s)
    if which == "upos":
        return [t.upos or "" for t in s.tokens]
    return [(t.deprel or "").lower() for t in s.tokens]


def dep_pair(s: Segment, types) -> dict[str, Counter]:
    w = _words(s)
    return _bag(("pair", (w[t.head - 1] if t.head else "ROOT") + SEP + w[i])
                for i, t in enumerate(s.tokens))


def dep_triple(s: Segment, types) -> dict[str, Counter]:
    w = _words(s)
    return _bag(("triple", SEP.join([(t.deprel or "").lower(), w[t.head - 1], w[i]]))
                for i, t in enumerate(s.tokens) if t.head)


def _spans(s: Segment, spans, types, outside: str | None) -> dict[str, Counter]:
    w = _words(s)
    inside = set()
    out = []
    for sp in spans:
        for k in range(sp.start, min(sp.end, len(w))):
            inside.add(k)
            out.append((_typed(types, sp.label.upper()), w[k]))
    if outside:
        out += [(outside, x) for k, x in enumerate(w) if k not in inside]
    return _bag(out)


def chunk(s: Segment, types) -> dict[str, Counter]:
    return _spans(s, s.chunks, types, "O")


def ne_word(s: Segment, types) -> dict[str, Counter]:
    return _spans(s, s.entities, types, "O")


def _args(s: Segment):
    for f in s.frames:
        t = s.tokens[f.predicate]
        verb = (t.lemma if t.lemma is not None else t.form).lower()
        for a in f.args:
            yield norm_role(a.label), verb, a.start, a.end


def sr_word(s: Segment, types) -> dict[str, Counter]:
    w = _words(s)
    return _bag((_typed(types, r), x) for r, _v, a, b in _args(s) for x in w[a:b])


def sr_word_v(s: Segment, types) -> dict[str, Counter]:
    w = _words(s)
    return _bag((_typed(types, r), v + SEP + x) for r, v, a, b in _args(s) for x in w[a:b])


def sr_arg_v(s: Segment, types) -> dict[str, Counter]:
    w = _words(s)
    return _bag((_typed(types, r), v + SEP + " ".join(w[a:b])) for r, v, a, b in _args(s))


ORACLES = {
    "word": word, "pos": pos, "pos-coarse": pos_coarse, "dep-depth": dep_depth,
    "dep-rel": dep_rel, "dep-pair": dep_pair, "dep-triple": dep_triple, "chunk": chunk,
    "ne-word": ne_word, "sr-word": sr_word, "sr-word-v": sr_word_v, "sr-arg-v": sr_arg_v,
    "hwcm-w": chains("words"), "hwcm-c": chains("upos"), "hwcm-r": chains("rels"),
}
