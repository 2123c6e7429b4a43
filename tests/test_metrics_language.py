"""Metrics read in a language: the families whose inventories are written for English's label
schemes compare the universal schemes elsewhere (SP- universal POS tags, DP-Or universal UD
relations, NE- the common entity set), METEOR-st stems with nltk's Snowball stemmer of the
language, and the lexical metrics take sacreBLEU's tokenizer of the language; each signed by
its parameter, and English's signatures unchanged. Hand-built segments only: no model."""

from __future__ import annotations

import argparse

import pytest

from mtstrata import languages, metrics
from mtstrata.cli import main
from mtstrata.commands.options import run_language
from mtstrata.errors import ConfigError
from mtstrata.layers import AnnotationOptions
from mtstrata.scoring import check_language
from mtstrata.segment import Layer, Segment, Span
from mtstrata.signature import Signature


def _seg(words, upos=None, xpos=None, heads=None, rels=None, entities=()):
    return Segment.from_words(words, upos=upos, xpos=xpos, heads=heads, deprels=rels,
                              entities=[(e.start, e.end, e.label) for e in entities])


def test_english_signatures_do_not_change():
    for spec in ("SP-Op(*)", "DP-Or(*)", "NE-Oe(**)", "NE-Me(*)", "SP-pBLEU", "SP-pNIST",
                 "METEOR-st", "bleu"):
        sig = Signature.parse(metrics.create(spec).signature())
        assert not {"tags", "rels", "ents", "stemmer"} & set(sig.params), spec
        assert sig.params.get("tok", "13a") == "13a"


@pytest.mark.parametrize(("spec", "key", "value", "layer", "scheme"), [
    ("SP-Op(*)", "tags", "upos", Layer.POS, "upos"),
    ("SP-pBLEU", "tags", "upos", Layer.POS, "upos"),
    ("SP-pNIST", "tags", "upos", Layer.POS, "upos"),
    ("DP-Or(*)", "rels", "ud", Layer.DEP, "ud"),
    ("NE-Oe(**)", "ents", "conll", Layer.NER, "conll"),
    ("NE-Me(*)", "ents", "conll", Layer.NER, "conll"),
])
def test_a_spec_read_in_another_language_compares_the_universal_scheme(spec, key, value,
                                                                       layer, scheme):
    for lang in ("ru", "de", "fr"):
        m = metrics.create(spec, language=lang)
        assert Signature.parse(m.signature()).params[key] == value
        assert m.capabilities().schemes == {layer: scheme}
        assert metrics.from_signature(m.signature()) == m  # the parameter is signed
    assert metrics.create(spec).capabilities().schemes[layer] != scheme  # English's


def test_a_parameter_given_in_the_spec_is_kept():
    m = metrics.create("SP-Op(*):tags=ptb", language="ru")
    assert m.tags == "ptb" and m.capabilities().schemes == {Layer.POS: "ptb"}
    assert metrics.create("bleu:tok=intl", language="zh").tok == "intl"


def test_specs_are_read_in_the_run_language():
    with languages.in_language("ru"):
        assert metrics.create("SP-Op(*)").tags == "upos"
        assert languages.current() == "ru"
    assert metrics.create("SP-Op(*)").tags == "ptb" and languages.current() == "en"


def test_the_tokenizer_is_sacrebleus_choice_for_the_language():
    from sacrebleu.metrics.bleu import BLEU

    from mtstrata.tokenizers import BY_LANGUAGE

    assert BY_LANGUAGE == BLEU._TOKENIZER_MAP
    for spec in ("bleu", "nist", "wer", "gtm", "ROUGE-L", "METEOR-ex", "tBLEU", "4-GRR"):
        assert metrics.create(spec, language="zh").tok == "zh", spec
        assert metrics.create(spec, language="ru").tok == "13a", spec


def test_upos_overlap_counts_universal_tags():
    m = metrics.create("SP-Op(*)", language="ru")
    hyp = _seg(["кошка", "спит"], upos=["NOUN", "VERB"], xpos=["_", "_"])
    ref = _seg(["кошка", "сидит"], upos=["NOUN", "VERB"], xpos=["_", "_"])
    assert m.score(m.stats(hyp, [ref])) == pytest.approx(1 / 3)  # NOUN 1/1, VERB 0/2
    assert metrics.create("SP-Op(NOUN)", language="ru").score(
        metrics.create("SP-Op(NOUN)", language="ru").stats(hyp, [ref])) == 1.0
    with pytest.raises(ConfigError, match="coarse groups"):
        metrics.create("SP-Op(N)", language="ru")
    with pytest.raises(ConfigError, match="choose one of: ptb, upos"):
        metrics.create("SP-Op(*):tags=stts")


def test_upos_stream_bleu_reads_the_universal_tags():
    m = metrics.create("SP-pBLEU", language="de")
    hyp = _seg(["a", "b", "c", "d"], upos=["DET", "NOUN", "VERB", "ADV"], xpos=list("wxyz"))
    ref = _seg(["e", "f", "g", "h"], upos=["DET", "NOUN", "VERB", "ADV"], xpos=list("pqrs"))
    assert m.score(m.stats(hyp, [ref])) == pytest.approx(100.0)
    english = metrics.create("SP-pBLEU")
    assert english.score(english.stats(hyp, [ref])) == 0.0  # the fine tags differ


def test_ud_relations_are_typed_by_their_universal_part():
    m = metrics.create("DP-Or(nsubj)", language="ru")
    hyp = _seg(["он", "был", "убит"], heads=[3, 3, 0], rels=["nsubj:pass", "aux:pass", "root"])
    ref = _seg(["он", "убит"], heads=[2, 0], rels=["nsubj", "root"])
    assert m.score(m.stats(hyp, [ref])) == 1.0  # nsubj:pass is nsubj
    assert "nsubj" in metrics.create("DP-Or(*)", language="ru").extractor().types


def test_common_entity_types():
    m = metrics.create("NE-Me(*)", language="fr")
    hyp = _seg(["Marie", "à", "Paris"], entities=[Span(0, 1, "PER"), Span(2, 3, "LOC")])
    ref = _seg(["Marie", "vit", "Paris"], entities=[Span(0, 1, "PER"), Span(2, 3, "ORG")])
    assert m.score(m.stats(hyp, [ref])) == pytest.approx(1 / 3)
    assert set(m.extractor().types) == {"LOC", "MISC", "ORG", "PER", "other"}


def test_meteor_st_stems_with_the_snowball_stemmer_of_the_language():
    from nltk.stem.snowball import SnowballStemmer
    from nltk.translate.meteor_score import meteor_score

    from mtstrata.metrics.lexical.meteor import _NoSynonyms

    m = metrics.create("METEOR-st", language="ru")
    assert m.stemmer == "russian" and m.languages == frozenset({"ru"})
    pairs = [("Кошки сидели на старом коврике .", "Кошка сидела на старом коврике у двери ."),
             ("Он читает книги", "Она читала книгу вчера")]
    for hyp, ref in pairs:
        got = m.score(m.stats(Segment.from_text(hyp), [Segment.from_text(ref)]))
        want = meteor_score([ref.split()], hyp.split(), stemmer=SnowballStemmer("russian"),
                            wordnet=_NoSynonyms())
        assert got == pytest.approx(want, abs=1e-12)
    # a fixed value (golden): stems match where the exact stage does not
    got = m.score(m.stats(Segment.from_text(pairs[0][0]), [Segment.from_text(pairs[0][1])]))
    assert got == pytest.approx(0.754985754985755)
    assert metrics.create("METEOR-st", language="de").stemmer == "german"
    with pytest.raises(ConfigError, match="Snowball"):
        metrics.create("METEOR-st:stemmer=klingon")


def test_a_stemmer_of_another_language_is_refused():
    m = metrics.create("METEOR-st:stemmer=russian")
    with pytest.raises(ConfigError, match="computes for ru only.*'de'"):
        check_language([m], [["Die Katze"]], AnnotationOptions(language="de"))
    # a language nltk has no stemmer for: METEOR-st stays English's, refused
    with pytest.raises(ConfigError, match="computes for en only"):
        check_language([metrics.create("METEOR-st", language="zh")], [["猫"]],
                       AnnotationOptions(language="zh"))


def test_the_run_language_comes_from_the_pairs():
    ns = argparse.Namespace
    assert run_language(ns(lang=None, data=["x/wmt21_enru_mqm/en-ru"])) == "ru"
    assert run_language(ns(lang="de", data=["x/en-ru"])) == "de"
    assert run_language(ns(lang=None, data=["x/de-en", "y/en-ru"])) == "en"  # several
    assert run_language(ns(lang=None)) == "en"


@pytest.mark.parametrize("spec", ["SP-Op(*):tags=stts", "DP-Or(*):rels=tiger",
                                  "NE-Oe(*):ents=x", "METEOR-st:stemmer=x", "SP-Op(N)"])
def test_bad_scheme_parameters_are_usage_errors(spec, tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("Кошка сидит.\n", encoding="utf-8")
    code = main(["score", "-r", str(ref), "-i", str(ref), "--lang", "ru", "-m", spec,
                 "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
