"""End to end: the real spaCy pipeline through mtstrata.layers, then every LE family.

Needs the pinned spaCy model (marked ``spacy``). Annotation goes through the documented layers
API, ``annotate_texts(texts, layers, options) -> ({text: Segment}, annotator signature)``.
"""

from __future__ import annotations

import math

import pytest

from mtstrata import metrics
from mtstrata.segment import Layer

pytestmark = pytest.mark.spacy

SENT = "The European Commission approved the new budget in Brussels on Tuesday."
PARA = "The European Commission passed the new budget in Brussels on Tuesday."
OTHER = "Heavy rain kept most fans at home, so the stadium stayed almost empty."

# Families whose items are words: an unrelated sentence must score low on them.
WORD_FAMILIES = ["Ol", "Ol-lem", "SP-Op(*)", "SP-Oc(*)", "DP-Oc(*)", "DP-Or(*)", "DP-Ol(*)",
                 "DP-HWCM_w-4", "DP-Ld", "NE-Oe(**)", "Bllip"]
# Families over categories / relations / entities: only identity and ordering are checked.
OTHER_FAMILIES = ["DP-HWCM_c-4", "DP-HWCM_r-4", "NE-Oe(*)", "NE-Me(*)"]
SR_FAMILIES = ["SR-Or(*)", "SR-Mr(*)", "SR-Orv(*)", "SR-Mrv(*)", "SR-Or", "SR-Orv", "SR-Ov"]
BASE_LAYERS = {Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER, Layer.CHUNKS}


def _annotate(layers: set[Layer]) -> dict:
    from mtstrata.layers import AnnotationOptions, annotate_texts

    # the spaCy backend and the SRL labeller are part of the build: a missing layer is a failure
    segs, sig = annotate_texts([SENT, PARA, OTHER], layers,
                               AnnotationOptions(use_cache=False, quiet=True))
    assert sig, "an annotator signature is expected"
    return segs


@pytest.fixture(scope="module")
def segs() -> dict:
    return _annotate(BASE_LAYERS)


def _score(spec, segs, hyp, ref):
    m = metrics.create(spec)
    return m.score(m.stats(segs[hyp], [segs[ref]]))


@pytest.mark.parametrize("spec", WORD_FAMILIES + OTHER_FAMILIES)
def test_identity_is_one(spec, segs):
    assert _score(spec, segs, SENT, SENT) == pytest.approx(1.0)


@pytest.mark.parametrize("spec", WORD_FAMILIES)
def test_unrelated_is_low_and_paraphrase_between(spec, segs):
    unrelated = _score(spec, segs, OTHER, SENT)
    para = _score(spec, segs, PARA, SENT)
    assert math.isnan(unrelated) or unrelated < 0.3, unrelated
    assert unrelated < para <= 1.0, (unrelated, para)  # SP-Oc: the changed verb is in no chunk


def test_entities_found(segs):
    labels = {e.label for e in segs[SENT].entities}
    assert {"ORG", "GPE", "DATE"} & labels


@pytest.fixture(scope="module")
def srl_segs() -> dict:
    return _annotate(BASE_LAYERS | {Layer.SRL})


def test_frames_found(srl_segs):
    frames = srl_segs[SENT].frames
    assert frames, "the labeller should find the predicate 'approved'"
    assert {"A0", "A1"} <= {a.label.replace("ARG", "A") for f in frames for a in f.args}


@pytest.mark.parametrize("spec", SR_FAMILIES)
def test_semantic_roles_identity_and_unrelated(spec, srl_segs):
    assert _score(spec, srl_segs, SENT, SENT) == pytest.approx(1.0)
    unrelated = _score(spec, srl_segs, OTHER, SENT)
    if spec != "SR-Or":  # role labels alone (A0, A1, ...) are shared by unrelated sentences
        assert math.isnan(unrelated) or unrelated < 0.3, unrelated


@pytest.mark.parametrize("spec,changed", [("SR-Or(*)", False), ("SR-Mr(*)", False),
                                          ("SR-Or", False), ("SR-Orv(*)", True),
                                          ("SR-Mrv(*)", True), ("SR-Orv", True),
                                          ("SR-Ov", True)])
def test_semantic_roles_paraphrase(spec, changed, srl_segs):
    # PARA only swaps the predicate (approved -> passed): the arguments are the same, so only
    # the families keyed by the predicate may drop below 1
    para = _score(spec, srl_segs, PARA, SENT)
    assert (para < 1.0) if changed else para == pytest.approx(1.0)
