"""The German provider (hanta): HanTa's tags as STTS and universal POS tags on hand-built input
(no model), the plan refusing the layers German lacks with one paragraph naming them, and one
shared load of the pinned tagger (skipped, saying so, when it is absent)."""

from __future__ import annotations

import pytest

from mtstrata.cli import main
from mtstrata.layers.hanta_backend import (
    PROVIDES,
    STTS_UPOS,
    HantaAnnotator,
    stts,
    to_segment,
)
from mtstrata.metrics.linguistic.extractors import UPOS
from mtstrata.segment import Layer


def test_hantas_tags_as_stts_and_upos():
    assert [stts(t) for t in ("VV(FIN)", "ADJ(A)", "VA(PP)", "NNA", "NE", "$.")] == [
        "VVFIN", "ADJA", "VAPP", "NN", "NE", "$."]
    assert set(STTS_UPOS.values()) <= set(UPOS)
    seg = to_segment("Die Gute saß. Ja!", [["Die", "Gute", "saß", "."], ["Ja", "!"]], PROVIDES,
                     [[("der", "ART"), ("Gute", "NNA"), ("sitzen", "VV(FIN)"), (".", "$.")],
                      [("ja", "PTKANT"), ("!", "$.")]])
    assert [(t.xpos, t.upos) for t in seg.tokens] == [
        ("ART", "DET"), ("NN", "NOUN"), ("VVFIN", "VERB"), ("$.", "PUNCT"),
        ("PTKANT", "ADV"), ("$.", "PUNCT")]
    assert [t.lemma for t in seg.tokens][:3] == ["der", "Gute", "sitzen"]
    assert seg.sent_starts == (0, 4) and all(t.head is None for t in seg.tokens)
    assert dict(seg.schemes) == {"pos": "upos"}
    # an unknown tag is X; tokens alone carry no tags
    assert to_segment("x", [["x"]], PROVIDES, [[("x", "ZZ")]]).tokens[0].upos == "X"
    assert to_segment("x", [["x"]], frozenset({Layer.TOKENS})).tokens[0].xpos is None


@pytest.fixture(scope="module")
def hanta():
    try:
        return HantaAnnotator()
    except Exception as e:
        pytest.skip(f"hanta is not installed ({e}); `mtstrata models --install`")


def test_the_tagger_annotates_german(hanta):
    (seg,) = hanta.annotate(["Die Katze saß auf der Matte. Sie schlief!"], PROVIDES)
    assert seg.sent_starts == (0, 7)
    assert [(t.lemma, t.xpos, t.upos) for t in seg.tokens[:3]] == [
        ("der", "ART", "DET"), ("Katze", "NN", "NOUN"), ("sitzen", "VVFIN", "VERB")]
    (one,) = hanta.annotate_sentences([["Das", "ist", "gut", "."]])
    assert [t.xpos for t in one.tokens] == ["PDS", "VAFIN", "ADJD", "$."]
    assert "hanta-1.2.1.morphmodel_ger" in hanta.signature(frozenset({Layer.POS}))
    assert "hanta" not in hanta.signature(frozenset({Layer.TOKENS}))


@pytest.mark.parametrize(("spec", "layer"), [("DP-Or(*)", "dep"), ("Bllip", "dep"),
                                             ("NE-Oe(*)", "ner"), ("SP-Oc(*)", "chunks")])
def test_german_refuses_the_layers_it_lacks(hanta, spec, layer, tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("Die Katze saß auf der Matte.\n", encoding="utf-8")
    code = main(["score", "-r", str(ref), "-i", str(ref), "--lang", "de", "-m", spec,
                 "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert f"'hanta' does not provide the layer(s) {layer}" in err


def test_german_computes_the_families_over_pos_and_lemmas(hanta, tmp_path, capsys):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("Die Katze saß auf der Matte.\n", encoding="utf-8")
    hyp.write_text("Eine Katze sitzt auf der Matte.\n", encoding="utf-8")
    assert main(["score", "-r", str(ref), "-i", str(hyp), "--lang", "de", "-m", "SP-Op(*)",
                 "SP-pBLEU", "Ol-lem", "METEOR-st", "--no-cache", "-q"]) == 0
    out = capsys.readouterr().out
    assert "tags:upos" in out and "stemmer:german" in out and "lang:de" in out
