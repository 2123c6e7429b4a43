"""The providers of Japanese (GiNZA), Chinese (udchinese's UDPipe model) and Czech
(cs_core_news_sm): conversion on hand-built input, registration and plans without a model,
then one shared pipeline per model on a few sentences."""

from __future__ import annotations

import pytest

from mtstrata import lock
from mtstrata.cli import main
from mtstrata.errors import MissingLayerError, ModelError
from mtstrata.layers import PROVIDERS, plan
from mtstrata.layers import czech_backend as cs
from mtstrata.layers import ginza_backend as ja
from mtstrata.layers import udchinese_backend as zh
from mtstrata.segment import Layer

ALL = [Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER]


def _doc(words, heads, deps, pos, lemmas=None, tags=None, spaces=None):
    """A spaCy Doc built by hand (no model)."""
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.blank("xx")
    return Doc(nlp.vocab, words=words, spaces=spaces, heads=heads, deps=deps, pos=pos,
               lemmas=lemmas or words, tags=tags)


# ------------------------------------------------------------------ conversion, no model
CONLLU = """# text = 我看完了。
1\t我\t我\tPRON\tPN\t_\t2\tnsubj\t_\tSpaceAfter=No
2\t看\t看\tVERB\tVV\t_\t0\troot\t_\tSpaceAfter=No
3\t完\t完\tVERB\tVV\t_\t2\tflat:vv\t_\tSpaceAfter=No
4\t。\t。\tPUNCT\t.\t_\t2\tpunct\t_\tSpaceAfter=No

# text = 书好。
1\t书\t書\tNOUN\tNN\t_\t2\tnsubj\t_\tSpaceAfter=No
2\t好\t好\tADJ\tVA\t_\t0\tROOT\t_\tSpaceAfter=No
3\t。\t。\tPUNCT\t.\t_\t2\tpunct\t_\tSpaceAfter=No

"""


def test_udpipe_output_becomes_one_segment_with_heads_over_it():
    s = zh.to_segment("我看完了。书好。", CONLLU)
    assert [t.form for t in s.tokens] == ["我", "看", "完", "。", "书", "好", "。"]
    assert s.sent_starts == (0, 4)
    assert [t.head for t in s.tokens] == [2, 0, 2, 2, 6, 0, 6]  # shifted by the words before
    assert [t.deprel for t in s.tokens] == ["nsubj", "root", "flat:vv", "punct", "nsubj",
                                            "root", "punct"]
    assert s.tokens[4].lemma == "書" and s.tokens[4].xpos == "NN"
    assert s.is_consistent() and s.layers == zh.PROVIDES
    assert dict(s.schemes) == {"pos": "upos", "dep": "ud"}
    assert zh.to_segment("", "").tokens == ()


def test_ginza_doc_becomes_a_segment_with_the_common_entity_set():
    from spacy.tokens import Span as SpacySpan

    doc = _doc(["山田", "さん", "が", "昨日", "東京", "に", "来", "た", "。"],
               heads=[1, 6, 1, 6, 6, 4, 6, 6, 6],
               deps=["compound", "nsubj_bunsetu", "case", "obl", "obl", "case", "ROOT",
                     "aux", "punct"],
               pos=["PROPN", "NOUN", "ADP", "NOUN", "PROPN", "ADP", "VERB", "AUX", "PUNCT"],
               lemmas=["山田", "さん", "が", "昨日", "東京", "に", "来る", "た", "。"],
               tags=["名詞-固有名詞-人名-姓"] + ["_"] * 8, spaces=[False] * 9)
    doc.ents = [SpacySpan(doc, 0, 1, "Person"), SpacySpan(doc, 1, 2, "Title_Other"),
                SpacySpan(doc, 3, 4, "Date"), SpacySpan(doc, 4, 5, "City")]
    s = ja.to_segment(doc.text, doc)
    assert [(e.start, e.end, e.label) for e in s.entities] == [(0, 1, "PER"), (4, 5, "LOC")]
    assert s.tokens[1].deprel == "nsubj"  # a _bunsetu label reads as its relation
    assert s.tokens[6].head == 0 and s.tokens[6].deprel == "root"
    assert s.tokens[6].lemma == "来る" and s.tokens[0].xpos == "名詞-固有名詞-人名-姓"
    assert dict(s.schemes) == {"pos": "upos", "dep": "ud", "ner": "conll"}


def test_the_entity_maps_give_only_the_common_set():
    for mapping in (ja.NE_MAP, cs.NE_MAP):
        assert set(mapping.values()) <= {"PER", "LOC", "ORG", "MISC"}
    assert "Date" not in ja.NE_MAP and "Money" not in ja.NE_MAP
    assert ja.NE_MAP["Country"] == "LOC" and ja.NE_MAP["Company"] == "ORG"


def test_czech_doc_becomes_a_segment_without_xpos():
    from spacy.tokens import Span as SpacySpan

    doc = _doc(["Havel", "přijel", "do", "Prahy", "v", "pondělí", "."],
               heads=[1, 1, 3, 1, 5, 1, 1],
               deps=["nsubj", "ROOT", "case", "obl", "case", "obl", "punct"],
               pos=["PROPN", "VERB", "ADP", "PROPN", "ADP", "NOUN", "PUNCT"],
               lemmas=["Havel", "přijet", "do", "Praha", "v", "pondělí", "."])
    doc.ents = [SpacySpan(doc, 0, 1, "PERSON"), SpacySpan(doc, 3, 4, "GPE"),
                SpacySpan(doc, 5, 6, "DATE")]
    s = cs.to_segment(doc.text, doc)
    assert [(e.start, e.label) for e in s.entities] == [(0, "PER"), (3, "LOC")]
    assert {t.xpos for t in s.tokens} == {None}
    assert s.tokens[3].lemma == "Praha" and s.tokens[1].deprel == "root"


# ------------------------------------------------------------------ registry and plans
@pytest.mark.parametrize(("name", "language"), [("ginza", "ja"), ("udchinese", "zh"),
                                                ("cs-spacy", "cs")])
def test_each_is_the_default_provider_of_its_language(name, language):
    entry, _ = PROVIDERS.lookup(name)
    assert entry.factory.languages == frozenset({language}) and entry.factory.default
    if name == "cs-spacy" and lock.installed_version("cs-core-news-sm") is None:
        # the optional model (non-commercial licence) is never installed unasked: a Czech run
        # with linguistic layers stops, naming it
        with pytest.raises(ModelError, match="optional model cs_core_news_sm"):
            plan([Layer.LEMMA, Layer.DEP], language=language)
        return
    p = plan([Layer.LEMMA, Layer.DEP], language=language)
    assert p.provider_of(Layer.TOKENS).name == name
    assert p.provider_of(Layer.DEP) is p.provider_of(Layer.TOKENS)
    assert p.schemes_of({Layer.DEP}) == {Layer.DEP: "ud"}


def test_chinese_has_no_entity_layer_and_english_models_stay_english():
    with pytest.raises(MissingLayerError, match="ner"):
        plan([Layer.NER], language="zh")
    with pytest.raises(MissingLayerError, match="serves ja"):
        plan([Layer.DEP], annotator="ginza", language="en")


@pytest.mark.parametrize("spec", ["ginza:batch_size=0", "udchinese:batch_size=0",
                                  "cs-spacy:batch_size=0"])
def test_a_bad_batch_size_is_refused(spec):
    with pytest.raises(ModelError, match="batch_size must be >= 1"):
        plan([Layer.TOKENS], annotator=spec, language=spec.split("-")[0][:2]
             .replace("gi", "ja").replace("ud", "zh"))


def test_a_bad_batch_size_on_the_command_line_exits_2(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("我看完了。\n", encoding="utf-8")
    code = main(["annotate", "-i", str(ref), "-l", "tokens", "--lang", "zh",
                 "--annotator", "udchinese:batch_size=0",
                 "--cache", str(tmp_path / "c.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and "batch_size must be >= 1" in err and "Traceback" not in err


def test_the_czech_model_is_optional_and_named_non_commercial(monkeypatch):
    from mtstrata.commands._install import pip_models

    entry = lock.model("cs_core_news_sm")
    assert "non-commercial" in entry["optional"]
    assert "cs_core_news_sm" not in {m["name"] for m in pip_models()}
    assert {"ja_ginza", "udchinese", "ufal.udpipe"} <= {m["name"] for m in pip_models()}
    monkeypatch.setattr(cs.lock, "installed_version",
                        lambda pkg: None if pkg == cs.PACKAGE else "1")
    with pytest.raises(ModelError, match="non-commercial.*--require-hashes"):
        cs.CzechAnnotator()


# ------------------------------------------------------------------ the models themselves
needs = {name: pytest.mark.skipif(lock.installed_version(pkg) is None,
                                  reason=f"{pkg} is not installed")
         for name, pkg in (("ja", "ja-ginza"), ("zh", "udchinese"), ("cs", "cs-core-news-sm"))}


@pytest.fixture(scope="module")
def ginza():
    return ja.GinzaAnnotator()


@pytest.fixture(scope="module")
def udchinese():
    return zh.UDChineseAnnotator()


@pytest.fixture(scope="module")
def czech():
    return cs.CzechAnnotator()


@needs["ja"]
def test_ginza_on_japanese_text(ginza):
    s, empty = ginza.annotate(["今日は東京大学の山田さんに会いました。雨が降った。", ""])
    assert "東京大学" in s.words and s.tokens[s.words.index("会い")].lemma == "会う"
    assert len(s.sent_starts) == 2 and s.is_consistent()
    assert ("PER", "山田") in {(e.label, s.words[e.start]) for e in s.entities}
    assert empty.tokens == ()
    assert ginza.signature(frozenset({Layer.DEP})).startswith("ginza-5.3.0.ja_ginza-5.3.0.")


@needs["zh"]
def test_udchinese_on_chinese_text(udchinese):
    s, empty = udchinese.annotate(["我把这本书看完了。他说：“明天会下雨吗？”", ""])
    assert s.words[:5] == ["我", "把", "这", "本", "书"]
    assert s.tokens[4].lemma == "書"  # traditional characters
    assert len(s.sent_starts) == 2 and s.is_consistent()
    assert empty.tokens == ()
    (given,) = udchinese.annotate_sentences([["我", "看", "完", "了", "。"]])
    assert given.words == ["我", "看", "完", "了", "。"] and given.is_consistent()


@needs["cs"]
def test_czech_on_czech_text(czech):
    s, = czech.annotate(["Václav Havel byl prezident."])
    assert s.tokens[2].lemma == "být" and s.is_consistent()
    assert [(e.label, s.words[e.start]) for e in s.entities] == [("PER", "Václav")]
    (given,) = czech.annotate_sentences([["Praha", "je", "město", "."]])
    assert given.words == ["Praha", "je", "město", "."]
