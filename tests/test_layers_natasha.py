"""The Russian provider (natasha): conversion of what the models give into layers on
hand-built input (no model), natasha's lemma rule on a stand-in analyser, and one shared load
of the pinned models for what only they can show (skipped, saying so, when they are absent)."""

from __future__ import annotations

import pytest

from mtstrata.layers import plan
from mtstrata.layers.natasha_backend import (
    PROVIDES,
    NatashaAnnotator,
    components_for,
    lemmatize,
    split_text,
    to_segment,
)
from mtstrata.segment import Layer, Span

TEXT = "Мама мыла раму. Путин прилетел в Москву."
SENTS = [[(0, 4, "Мама"), (5, 9, "мыла"), (10, 14, "раму"), (14, 15, ".")],
         [(16, 21, "Путин"), (22, 30, "прилетел"), (31, 32, "в"), (33, 39, "Москву"),
          (39, 40, ".")]]
MORPH = [[("NOUN", {}), ("VERB", {}), ("NOUN", {}), ("PUNCT", {})],
         [("PROPN", {}), ("VERB", {}), ("ADP", {}), ("PROPN", {}), ("PUNCT", {})]]
SYNTAX = [[(1, 2, "nsubj"), (2, 0, "root"), (3, 2, "obj"), (4, 2, "punct")],
          [(1, 2, "nsubj"), (2, 0, "root"), (3, 4, "case"), (4, 2, "obl"), (5, 2, "punct")]]


class _Analyzer:
    """pymorphy3's analyses as natasha's rule reads them: (normal form, UD POS, features)."""

    def forms(self, word):
        return {"мыла": (("мыло", "NOUN", (("Case", "Gen"),)),
                         ("мыть", "VERB", (("Tense", "Past"), ("Gender", "Fem")))),
                "елки": (("ёлка", "NOUN", (("Number", "Plur"),)),)}.get(word, ())


def test_layers_from_what_the_models_give():
    seg = to_segment(TEXT, SENTS, PROVIDES, morph=MORPH, syntax=SYNTAX,
                     spans=[(16, 21, "PER"), (33, 39, "LOC"), (0, 2, "ORG")],
                     analyzer=_Analyzer())
    assert [t.form for t in seg.tokens] == ["Мама", "мыла", "раму", ".", "Путин", "прилетел",
                                            "в", "Москву", "."]
    assert seg.sent_starts == (0, 4)
    # heads over the whole segment: the second sentence's shifted by four tokens
    assert [t.head for t in seg.tokens] == [2, 0, 2, 2, 6, 0, 8, 6, 6]
    assert seg.tokens[5].deprel == "root" and seg.tokens[7].deprel == "obl"
    assert [t.upos for t in seg.tokens][:3] == ["NOUN", "VERB", "NOUN"]
    assert all(t.xpos is None for t in seg.tokens)
    # a span covering part of a token covers no token (natasha's envelop)
    assert seg.entities == (Span(4, 5, "PER"), Span(7, 8, "LOC"))
    assert dict(seg.schemes) == {"pos": "upos", "dep": "ud", "ner": "conll"}
    assert seg.tokens[1].lemma == "мыть" and seg.tokens[0].lemma == "мама"


def test_only_the_layers_asked_are_filled():
    seg = to_segment(TEXT, SENTS, frozenset({Layer.TOKENS}))
    assert seg.layers == {Layer.TOKENS} and seg.tokens[0].upos is None
    assert seg.tokens[0].head is None and seg.entities == ()
    assert components_for(frozenset({Layer.LEMMA})) == ("morph", "lemmas")
    assert components_for(frozenset({Layer.DEP, Layer.NER})) == ("syntax", "ner")


def test_natashas_lemma_rule():
    a = _Analyzer()
    assert lemmatize(a, "мыла", "VERB", {"Tense": "Past", "Gender": "Fem"}) == "мыть"
    assert lemmatize(a, "мыла", "NOUN", {"Case": "Gen"}) == "мыло"  # equal analysis
    assert lemmatize(a, "Ёлки", "NOUN", {}) == "елка"  # looked up and given lower case, ё as е
    assert lemmatize(a, "Кошкин", "PROPN", {}) == "кошкин"  # no analysis: the word
    # PROPN reads as NOUN, AUX as VERB in the choice
    assert lemmatize(a, "мыла", "AUX", {}) == "мыть"


def test_the_plan_takes_natasha_for_russian_and_refuses_what_it_lacks():
    from mtstrata.errors import MissingLayerError

    try:
        p = plan({Layer.POS, Layer.DEP, Layer.NER}, language="ru")
    except Exception as e:  # the models are not installed: the plan says so (ModelError)
        pytest.skip(f"natasha is not installed: {e}")
    assert p.provider_of(Layer.DEP).name == "natasha"
    assert p.schemes_of({Layer.POS, Layer.DEP, Layer.NER}) == {
        Layer.POS: "upos", Layer.DEP: "ud", Layer.NER: "conll"}
    with pytest.raises(MissingLayerError, match="chunks"):
        plan({Layer.CHUNKS}, language="ru")
    with pytest.raises(MissingLayerError, match="ptb"):
        plan({Layer.POS}, schemes={Layer.POS: "ptb"}, language="ru")


@pytest.fixture(scope="module")
def natasha():
    try:
        return NatashaAnnotator()
    except Exception as e:
        pytest.skip(f"natasha is not installed ({e}); `mtstrata models --install`")


def test_the_models_annotate_russian(natasha):
    text = "Кошка сидела на коврике. Владимир Путин прилетел в Москву."
    (seg,) = natasha.annotate([text], PROVIDES)
    assert seg.sent_starts == (0, 5)
    assert [t.upos for t in seg.tokens[:2]] == ["NOUN", "VERB"]
    assert seg.tokens[1].lemma == "сидеть" and seg.tokens[1].deprel == "root"
    assert [(e.label, e.start, e.end) for e in seg.entities] == [("PER", 5, 7), ("LOC", 9, 10)]
    assert split_text("") == []
    # CoNLL-U text: the given words are the tokens
    (one,) = natasha.annotate_sentences([["Мама", "мыла", "раму", "."]])
    assert [t.form for t in one.tokens] == ["Мама", "мыла", "раму", "."]
    assert one.tokens[1].lemma == "мыть"
    sig = natasha.signature(frozenset({Layer.LEMMA}))
    assert "pymorphy3-2.0.6" in sig and "morph_news_v1" in sig and "syntax" not in sig
