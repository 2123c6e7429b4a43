"""Overlap / Matching families on hand-made segments (golden values: METRICS.md §2, slides)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mtstrata import metrics
from mtstrata.errors import ConfigError, MissingLayerError
from mtstrata.metrics.linguistic.columns import norm_role
from mtstrata.metrics.linguistic.elements import EXTRACTORS, items
from mtstrata.segment import Layer, Segment

# The slides' example (lower-cased), tokens as printed on the slide.
HYP = ("on tuesday several missiles and mortar shells fell in southern israel , but there were "
       "no casualties .")
REF = ("several qassam rockets and mortar shells fell today , tuesday , in southern israel "
       "without causing any casualties .")
# Role sets printed on the slide: hyp A1 = several..shells, TMP = on tuesday, LOC = in southern
# israel; ref A1 = several..shells (fell) + any casualties (causing), A0 = several..shells
# (causing), TMP = today, LOC = in southern israel, ADV = without causing any casualties.
HYP_FRAMES = [(7, [(2, 7, "A1"), (0, 2, "AM-TMP"), (8, 11, "AM-LOC")])]
REF_FRAMES = [(6, [(0, 6, "ARG1"), (7, 8, "ARGM-TMP"), (11, 14, "ARGM-LOC"), (14, 18, "ARGM-ADV")]),
              (15, [(0, 6, "ARG0"), (16, 18, "C-ARG1")])]


def slide_pair() -> tuple[Segment, Segment]:
    hyp = Segment.from_words(HYP, lemmas=HYP.split(), frames=HYP_FRAMES)
    ref = Segment.from_words(REF, lemmas=REF.split(), frames=REF_FRAMES)
    return hyp, ref


def score(spec: str, hyp: Segment, refs: list[Segment]) -> float:
    m = metrics.create(spec)
    return m.score(m.stats(hyp, refs))


@pytest.mark.parametrize("spec, expected", [
    ("Ol", 12 / 25), ("Ol:meas=p", 12 / 18), ("Ol:meas=r", 12 / 19),
    ("Ol:meas=f", 2 * 12 / (18 + 19)), ("Ol-lem", 12 / 25),
    ("SR-Or(*)", 7 / 25), ("SR-Or(A1)", 4 / 9), ("SR-Or(A0)", 0 / 6), ("SR-Or(TMP)", 0 / 3),
    ("SR-Or(LOC)", 3 / 3), ("SR-Or(AM-ADV)", 0 / 4),
    # macro over the five roles present: (4/9 + 0 + 0 + 1 + 0) / 5
    ("SR-Or(*):avg=macro", (4 / 9 + 1) / 5),
])
def test_slide_golden(spec, expected):
    hyp, ref = slide_pair()
    assert score(spec, hyp, [ref]) == pytest.approx(expected, abs=1e-12)


def test_slide_per_role_details():
    hyp, ref = slide_pair()
    m = metrics.create("SR-Or(*)")
    d = m.details(m.stats(hyp, [ref])[None, :].sum(axis=0))
    want = {"SR-Or(A1)": 4 / 9, "SR-Or(A0)": 0.0, "SR-Or(AM-TMP)": 0.0, "SR-Or(AM-LOC)": 1.0,
            "SR-Or(AM-ADV)": 0.0}
    for k, v in want.items():
        assert d[k] == pytest.approx(v)
    assert "SR-Or(A2)" not in d  # empty on both sides: undefined, left out
    assert d["SR-Or(*) P"] == pytest.approx(7 / 10) and d["SR-Or(*) R"] == pytest.approx(7 / 22)


def test_role_labels_predicates_and_matching():
    hyp, ref = slide_pair()
    # role labels: hyp {A1, TMP, LOC}, ref {A1, TMP, LOC, ADV, A0, A1} -> 3 / 6
    assert score("SR-Or", hyp, [ref]) == pytest.approx(3 / 6)
    # predicates: hyp {fell}, ref {fell, causing} -> 1/2
    assert score("SR-Ov", hyp, [ref]) == pytest.approx(1 / 2)
    # verb##role: fell##A1, fell##TMP, fell##LOC shared; ref adds fell##ADV, causing##A0/A1
    assert score("SR-Orv", hyp, [ref]) == pytest.approx(3 / 6)
    # whole arguments: only "in southern israel" (LOC) matches; 3 hyp + 6 ref args
    assert score("SR-Mr(*)", hyp, [ref]) == pytest.approx(1 / 8)
    assert score("SR-Mrv(*)", hyp, [ref]) == pytest.approx(1 / 8)
    # verb##word: A1 hits several/and/mortar/shells under fell only ("any casualties" is causing's)
    assert score("SR-Orv(A1)", hyp, [ref]) == pytest.approx(4 / 9)


def test_role_normalisation():
    assert [norm_role(x) for x in ("ARG0", "C-ARG1", "R-ARGM-LOC", "AM-TMP", "A2")] == [
        "A0", "A1", "AM-LOC", "AM-TMP", "A2"]


def _tagged(words: str, tags: str, **kw) -> Segment:
    return Segment.from_words(words, xpos=tags.split(), **kw)


def test_pos_overlap_fine_coarse_and_details():
    hyp = _tagged("the cats sat quickly", "DT NNS VBD RB")
    ref = _tagged("the cat sat down", "DT NN VBD RP")
    # NNS: cats vs {} -> 0/1; NN: {} vs cat -> 0/1; DT 1/1; VBD 1/1; RB 0/1; RP 0/1 -> 2/6
    assert score("SP-Op(*)", hyp, [ref]) == pytest.approx(2 / 6)
    assert score("SP-Op(DT)", hyp, [ref]) == 1.0
    # coarse group N: cats vs cat -> 0 / 2
    assert score("SP-Op(N)", hyp, [ref]) == 0.0
    m = metrics.create("SP-Op(*)")
    d = m.details(m.stats(hyp, [ref]))
    assert d["SP-Op(NNS)"] == 0.0 and d["SP-Op(VBD)"] == 1.0 and "SP-Op(JJ)" not in d


def test_unknown_tag_goes_to_other():
    hyp = _tagged("a b", "ZZ DT")
    ref = _tagged("a b", "ZZ DT")
    m = metrics.create("SP-Op(*)")
    d = m.details(m.stats(hyp, [ref]))
    assert d["SP-Op(other)"] == 1.0


def test_dependency_families():
    # "the old man slept": the->man det, old->man amod, man->slept nsubj, slept root
    hyp = Segment.from_words("the old man slept", upos=["DET", "ADJ", "NOUN", "VERB"],
                             heads=[3, 3, 4, 0], deprels=["det", "amod", "nsubj", "ROOT"])
    ref = Segment.from_words("the man slept", upos=["DET", "NOUN", "VERB"],
                             heads=[2, 3, 0], deprels=["det", "nsubj", "ROOT"])
    assert {d: dict(c) for d, c in items(EXTRACTORS["dep-depth"], hyp).items()} == {
        "0": {"slept": 1}, "1": {"man": 1}, "2": {"the": 1, "old": 1}}
    # nsubj subtree: {the, old, man} vs {the, man} -> 2/3; root subtree: 4 words vs 3 -> 3/4;
    # det 1/1; amod {old} vs {} 0/1 -> (2 + 3 + 1 + 0) / (3 + 4 + 1 + 1)
    assert score("DP-Or(*)", hyp, [ref]) == pytest.approx(6 / 9)
    assert score("DP-Or(nsubj)", hyp, [ref]) == pytest.approx(2 / 3)
    # depth 0 {slept}/{slept}, 1 {man}/{man}, 2 {the, old}/{the} -> (1 + 1 + 1) / (1 + 1 + 2)
    assert score("DP-Ol(*)", hyp, [ref]) == pytest.approx(3 / 4)
    assert score("DP-Oc(ADJ)", hyp, [ref]) == 0.0
    # triples: (det, man, the), (nsubj, slept, man) shared; (amod, man, old) extra
    assert score("DP-Ld", hyp, [ref]) == pytest.approx(2 * 2 / (3 + 2))
    assert score("DP-Ld:meas=p", hyp, [ref]) == pytest.approx(2 / 3)


def test_named_entities():
    hyp = Segment.from_words("john smith visited new york", entities=[(0, 2, "PERSON"),
                                                                      (3, 5, "GPE")])
    ref = Segment.from_words("john visited new york city", entities=[(0, 1, "PERSON"),
                                                                     (2, 5, "GPE")])
    # PERSON {john, smith}/{john} 1/2; GPE {new, york}/{new, york, city} 2/3
    assert score("NE-Oe(*)", hyp, [ref]) == pytest.approx(3 / 5)
    assert score("NE-Oe(PERSON)", hyp, [ref]) == pytest.approx(1 / 2)
    # (**) adds the outside words: {visited}/{visited} -> 4 / 6
    assert score("NE-Oe(**)", hyp, [ref]) == pytest.approx(4 / 6)
    # whole entities: no entity string matches
    assert score("NE-Me(*)", hyp, [ref]) == 0.0
    same = Segment.from_words("john visited new york city", entities=[(0, 1, "PERSON")])
    assert score("NE-Me(PERSON)", same, [ref]) == 1.0


def test_chunks():
    hyp = Segment.from_words("the dog barked", chunks=[(0, 2, "NP"), (2, 3, "VP")])
    ref = Segment.from_words("a dog barked", chunks=[(0, 2, "NP"), (2, 3, "VP")])
    assert score("SP-Oc(*)", hyp, [ref]) == pytest.approx(2 / 4)
    assert score("SP-Oc(NP)", hyp, [ref]) == pytest.approx(1 / 3)


def test_several_references_max_and_pooled():
    hyp = Segment.from_words("a b c d")
    r1 = Segment.from_words("a x y z")
    r2 = Segment.from_words("a b y z")
    assert score("Ol", hyp, [r1, r2]) == pytest.approx(2 / 6)  # the best reference, r2
    assert score("Ol", hyp, [r2, r1]) == pytest.approx(2 / 6)
    # pooled: union {a, b, x, y, z} -> hits {a, b} over 4 + 5 - 2
    assert score("Ol:refs=pooled", hyp, [r1, r2]) == pytest.approx(2 / 7)
    sig = metrics.create("Ol:refs=pooled").signature()
    assert "refs:pooled" in sig and metrics.from_signature(sig).refs == "pooled"


def test_system_score_is_mean_of_segment_scores_and_undefined_left_out():
    m = metrics.create("NE-Oe(PERSON)")
    a = Segment.from_words("john ran", entities=[(0, 1, "PERSON")])
    b = Segment.from_words("mary ran", entities=[(0, 1, "PERSON")])
    empty = Segment.from_words("it rained").with_layers(Layer.NER)
    st = m.stats_batch([a, a, empty], [[a], [b], [empty]])
    seg = m.segment_scores(st)
    assert seg[0] == 1.0 and seg[1] == 0.0 and math.isnan(seg[2])
    assert m.score(st.sum(axis=0)) == pytest.approx(0.5)


def test_missing_layer_and_bad_names():
    with pytest.raises(MissingLayerError, match="ner"):
        score("NE-Oe(*)", Segment.from_words("a b"), [Segment.from_words("a b")])
    with pytest.raises(ConfigError, match="PERSON"):
        metrics.create("NE-Oe(PERSN)")
    with pytest.raises(ConfigError):
        metrics.create("SP-Op(**)")


def test_items_of_one_segment():
    s = Segment.from_words("a B a")
    assert items(EXTRACTORS["word"], s) == {"word": {"a": 2, "b": 1}}


def test_batch_equals_rows():
    hyp, ref = slide_pair()
    m = metrics.create("SR-Or(*)")
    np.testing.assert_array_equal(m.stats_batch([hyp, ref], [[ref], [hyp]]),
                                  np.vstack([m.stats(hyp, [ref]), m.stats(ref, [hyp])]))


WORDS = st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=12)


@given(WORDS, WORDS)
@settings(max_examples=60, deadline=None)
def test_measure_properties(h, r):
    hyp, ref = Segment.from_words(h), Segment.from_words(r)
    jac, p, rec, f = (score(f"Ol:meas={x}", hyp, [ref]) for x in ("jac", "p", "r", "f"))
    assert 0.0 <= jac <= min(p, rec) + 1e-12 and jac <= f + 1e-12
    assert min(p, rec) - 1e-12 <= f <= max(p, rec) + 1e-12
    # symmetry of the Jaccard ratio, and P and R swap with the sides
    assert score("Ol", ref, [hyp]) == pytest.approx(jac)
    assert score("Ol:meas=r", ref, [hyp]) == pytest.approx(p)


def test_stream_bleu_equals_sacrebleu_on_the_streams():
    import sacrebleu

    from tests.conftest import hand_segments

    segs = hand_segments()
    hyps, refs = segs, segs[1:] + segs[:1]
    for spec, attr in (("SP-pBLEU", "xpos"), ("SP-lBLEU", "lemma")):
        m = metrics.create(spec)
        ours = m.score(m.stats_batch(hyps, [[r] for r in refs]).sum(axis=0))

        def stream(s, attr=attr):
            vals = [getattr(t, attr) for t in s.tokens]
            return " ".join(v.lower() for v in vals) if attr == "lemma" else " ".join(vals)

        ref = sacrebleu.corpus_bleu([stream(h) for h in hyps], [[stream(r) for r in refs]],
                                    tokenize="none")
        assert ours == pytest.approx(ref.score, abs=1e-9)  # BLEU's 0-100 scale
        assert m.score(m.stats(hyps[0], [hyps[0]])) == pytest.approx(100.0)
