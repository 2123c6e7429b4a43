"""Every registered metric stays within its declared range (``mtstrata list metrics``;
:func:`mtstrata.commands.list.declared_range`) on generated inputs (issue 27: TER 28,471,
WER/PER 284, WRR/4-GRR -283 and ULC -27 to 2.7 were printed while the listing said 0-100 and
0-1). The segments are annotated by hand (random words, trees, spans, frames and unit vectors),
so no model is loaded; segment scores and the corpus score are both checked."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtstrata import metrics
from mtstrata.commands.list import declared_range, format_range
from mtstrata.layers.constituents import CONSTITUENTS, Constituents
from mtstrata.segment import Embedding, Layer, Segment, Span

VOCAB = ["the", "cat", "a", "sat", "mat", "on", ".", ",", "dog", "Dog", "ran", "'s", "-", "1"]
UPOS = ["DET", "NOUN", "VERB", "ADP", "PUNCT", "PROPN", "ADJ"]
XPOS = ["DT", "NN", "VBD", "IN", ".", "NNP", "JJ"]
DEPS = ["det", "nsubj", "root", "prep", "pobj", "punct", "amod"]
LABELS = ["PERSON", "GPE", "DATE"]
ROLES = ["A0", "A1", "AM-TMP"]


def _entries() -> list[tuple[str, str]]:
    """(registry entry name, spec) of every metric and family example."""
    out = []
    for e in metrics.REGISTRY.entries():
        for spec in (e.examples if e.pattern is not None else [e.name]):
            out.append((e.name, spec))
    return sorted(set(out))


ENTRIES = _entries()


@st.composite
def segments(draw: st.DrawFn) -> Segment:
    n = draw(st.integers(0, 9))
    words = draw(st.lists(st.sampled_from(VOCAB), min_size=n, max_size=n))
    tags = draw(st.lists(st.integers(0, len(UPOS) - 1), min_size=n, max_size=n))
    heads = ([0] + [draw(st.integers(1, i)) for i in range(1, n)])[:n]  # a tree rooted at word 1

    def spans(labels: list[str]) -> list[tuple[int, int, str]]:
        cuts = sorted(set(draw(st.lists(st.integers(0, n), max_size=4))))
        return [(a, b, draw(st.sampled_from(labels))) for a, b in zip(cuts, cuts[1:])
                if draw(st.booleans())]
    frames = ([(draw(st.integers(0, n - 1)), spans(ROLES))] if n and draw(st.booleans())
              else [])
    seg = Segment.from_words(words, lemmas=[w.lower() for w in words],
                             upos=[UPOS[t] for t in tags], xpos=[XPOS[t] for t in tags],
                             heads=heads, deprels=["root" if h == 0 else DEPS[t]
                                                   for h, t in zip(heads, tags)],
                             entities=spans(LABELS), chunks=spans(["NP", "VP"]), frames=frames)
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    vecs = rng.standard_normal((n, 8))
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)
    sent = vecs.sum(axis=0) if n else np.zeros(8)
    sent = sent / (np.linalg.norm(sent) or 1.0)
    emb = Embedding(tuple(words), vecs.astype(np.float16), sent.astype(np.float16))
    layers = (Layer.NER, Layer.CHUNKS, Layer.SRL, Layer.EMB)
    out = Segment(seg.text, seg.tokens, seg.entities, seg.chunks, seg.frames,
                  seg.sent_starts, seg.layers | frozenset(layers), seg.schemes, emb)
    # a constituency tree: the whole text, phrases under it, one nested again; or none (the
    # parser's time ran out), or the empty text's
    if not n:
        tree = Constituents("empty")
    elif draw(st.booleans()) or draw(st.booleans()):
        phrases = spans(["NP", "VP", "PP"])
        inner = [Span(a, b, lab) for a, b, lab in spans(["NP", "ADJP"])
                 if any(p[0] <= a and b <= p[1] for p in phrases)][:1]
        outer = [Span(a, b, lab) for a, b, lab in phrases]
        nested = sorted([*outer, *inner], key=lambda x: (x.start, -(x.end - x.start)))
        nulls = draw(st.integers(0, 2))
        tree = Constituents("nulls" if nulls else "full", (Span(0, n, "S"), *nested), nulls)
    else:
        tree = Constituents("timeout")
    return out.with_value(CONSTITUENTS, tree.as_value())


def corpora(nrefs: int) -> st.SearchStrategy:
    return st.integers(1, 4).flatmap(lambda k: st.tuples(
        st.lists(segments(), min_size=k, max_size=k),
        st.lists(st.lists(segments(), min_size=nrefs, max_size=nrefs), min_size=k, max_size=k)))


def _within(v: float, lo: float, hi: float) -> bool:
    tol = 1e-9 * max(1.0, abs(v))  # floating-point rounding of a bound (e.g. 1.0000000000000002)
    return math.isnan(v) or lo - tol <= v <= hi + tol


@pytest.mark.parametrize("name,spec", ENTRIES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_scores_stay_within_the_declared_range(name, spec, data):
    m = metrics.create(spec)
    lo, hi = declared_range(name, m)
    hyps, refs = data.draw(corpora(data.draw(st.integers(1, 2))))
    stats = m.stats_batch(hyps, refs)
    seg = [m.score(row) for row in stats]
    corpus = m.score(stats.sum(axis=0))
    bad = [v for v in [*seg, corpus] if not _within(v, lo, hi)]
    assert not bad, f"{spec}: {bad} outside the declared {format_range(lo, hi)}"


@pytest.mark.parametrize("spec,hyp,ref,declared", [
    ("ter", "a b c d e f g h", "a", "[0, inf)"), ("wer", "a b c d", "a", "[0, inf)"),
    ("per", "a b c d", "a", "[0, inf)"), ("wrr", "a b c d", "a", "(-inf, 1]"),
    ("4-GRR", "a b c d", "a", "(-inf, 1]")])
def test_unbounded_rates_are_declared_unbounded(spec, hyp, ref, declared):
    """The ranges are not merely wide enough: these numbers do leave 0-100 / 0-1."""
    m = metrics.create(spec)
    v = m.score(m.stats(Segment.from_text(hyp), [Segment.from_text(ref)]))
    assert format_range(*declared_range(spec if spec != "4-GRR" else "4-GRR", m)) == declared
    assert v > m.scale or v < 0


def test_list_metrics_prints_the_declared_ranges(capsys):
    from mtstrata.cli import main

    assert main(["list", "metrics"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()}
    assert "[0, inf)" in lines["ter"] and "[0, 100]" in lines["bleu"]
    assert "(-inf, 1]" in lines["wrr"] and "(-inf, inf)" in lines["ULC"]



def test_every_bundled_set_is_declared_unbounded(capsys):
    """A set normalises its members by bounds fitted on a sample: a system outside that
    sample's range leaves 0-1 (ULC-years scores the sample's 'neural' system 1.21), so every
    bundled set is declared (-inf, inf), as an instance and in `list metrics`."""
    from mtstrata.cli import main
    from mtstrata.metrics.ulc import BUNDLED

    assert main(["list", "metrics"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines() if ln.strip()}
    for name in BUNDLED:
        assert format_range(*declared_range(name, metrics.create(name))) == "(-inf, inf)", name
        assert "(-inf, inf)" in lines[name], lines[name]
