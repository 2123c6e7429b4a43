"""The French provider (spacy-fr): one shared load of the pinned fr_core_news_sm (skipped,
saying so, when it is absent) for the conversion of its Doc, and its licence in `models`."""

from __future__ import annotations

import pytest

from mtstrata.cli import main
from mtstrata.layers.spacy_fr import NE_MAP, PROVIDES, SpacyFrench
from mtstrata.metrics.linguistic.extractors import CONLL_TYPES
from mtstrata.segment import Layer


def test_its_entity_types_are_the_common_set():
    assert set(NE_MAP.values()) == set(CONLL_TYPES)


@pytest.fixture(scope="module")
def french():
    try:
        return SpacyFrench()
    except Exception as e:
        pytest.skip(f"fr_core_news_sm is not installed ({e}); `mtstrata models --install`")


def test_the_pipeline_annotates_french(french):
    (seg,) = french.annotate(["Le chat dormait. Emmanuel Macron a donné un livre à Paris."],
                             PROVIDES)
    assert seg.sent_starts == (0, 4)
    assert [(t.form, t.upos, t.head, t.deprel) for t in seg.tokens[:4]] == [
        ("Le", "DET", 2, "det"), ("chat", "NOUN", 3, "nsubj"), ("dormait", "VERB", 0, "root"),
        (".", "PUNCT", 3, "punct")]
    assert seg.tokens[2].lemma == "dormir"
    assert ("PER", 4, 6) in [(e.label, e.start, e.end) for e in seg.entities]
    assert dict(seg.schemes) == {"pos": "upos", "dep": "ud", "ner": "conll"}
    (one,) = french.annotate_sentences([["Il", "pleut", "."]])
    assert [t.form for t in one.tokens] == ["Il", "pleut", "."]
    assert french.signature(frozenset({Layer.TOKENS})).endswith("tokenizer.conv1")


def test_models_names_the_licence_and_the_languages(french, capsys):
    assert main(["models"]) in (0, 2)
    out = capsys.readouterr().out
    assert "LGPL-LR" in out
    assert "fr   spacy-fr: tokens lemma pos dep ner" in out
    assert "ru   natasha: tokens lemma pos dep ner" in out
    assert "de   hanta: tokens lemma pos" in out
