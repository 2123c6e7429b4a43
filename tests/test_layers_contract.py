"""The provider contract: every producer of a layer declares what it assigns and requires, its
parameters, its code and its signature, and the plan is the mapping from layer to provider.
No model loads (annotators are built, never run)."""

from __future__ import annotations

import dataclasses

import pytest

from mtstrata.errors import MissingLayerError
from mtstrata.layers import LABELLERS, Plan, plan
from mtstrata.layers.base import ANNOTATORS
from mtstrata.layers.contract import (
    SRL_NEEDS,
    LayerProvider,
    as_provider,
    default_requires,
    kind_of,
)
from mtstrata.layers.embedding import EmbeddingProvider
from mtstrata.layers.spacy_backend import SpacyAnnotator
from mtstrata.segment import Layer


class Like:
    """What the plan reads of the spaCy annotator (its class attributes), no model."""

    name, provides, schemes = SpacyAnnotator.name, SpacyAnnotator.provides, SpacyAnnotator.schemes

    def signature(self, layers: frozenset[Layer]) -> str:
        return "like." + "+".join(sorted(x.value for x in layers))


class PluginLabeller:
    """A labeller of another kind of code: a plain object with the labeller protocol."""

    name, version, needs, dep_scheme = "other", "7", frozenset({Layer.TOKENS}), "clearnlp"

    def label(self, segments):
        return [() for _ in segments]


def _unchecked(cls: type) -> object:
    """An annotator with its default fields, its model directory not checked (stanza refuses
    to be built without one; the contract reads only its declarations and fields)."""
    obj = object.__new__(cls)
    for f in dataclasses.fields(cls):
        value = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        object.__setattr__(obj, f.name, value)
    return obj


def _own_providers() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = [("embedder", EmbeddingProvider())]
    out += [("annotator", _unchecked(e.factory)) for e in ANNOTATORS.entries()
            if e.factory.__module__.startswith("mtstrata.")]
    out += [("labeller", LABELLERS.create(e.name)) for e in LABELLERS.entries()
            if e.factory.__module__.startswith("mtstrata.")]
    return out


@pytest.mark.parametrize(("kind", "target"), _own_providers(),
                         ids=lambda x: x if isinstance(x, str) else type(x).__name__)
def test_every_provider_declares_the_contract(kind, target):
    prov = as_provider(target, kind)
    assert isinstance(prov, LayerProvider) and prov.kind == kind
    assert prov.assigns and all(kind_of(x) == kind for x in prov.assigns)
    # the code it runs: declared units of mtstrata's conversion code, and the modules the
    # provenance lock records for its class (its own module among them)
    from mtstrata.layers import providers

    assert prov.code and set(prov.code) <= set(providers.CODE)
    assert type(target).__module__ in prov.modules()
    # its parameters are the fields it was built with
    fields = {f.name for f in dataclasses.fields(target) if f.init and f.repr}  # type: ignore[arg-type]
    assert set(prov.params()) == fields
    for layer in prov.assigns:
        assert layer not in prov.requires(layer)


def test_the_embedder_and_the_labellers_require_what_they_read():
    emb = as_provider(EmbeddingProvider(), "embedder")
    assert emb.assigns == {Layer.EMB} and emb.requires(Layer.EMB) == frozenset()
    assert emb.params() == {"model": EmbeddingProvider().model}
    rules = as_provider(LABELLERS.create("rules"), "labeller")
    assert rules.assigns == {Layer.SRL} and rules.requires(Layer.SRL) == SRL_NEEDS
    assert rules.schemes == {Layer.SRL: "propbank"}
    ann = as_provider(Like(), "annotator")
    assert ann.requires(Layer.TOKENS) == frozenset()
    assert ann.requires(Layer.DEP) == {Layer.TOKENS}
    assert ann.params() == {}  # not a dataclass: no parameters to name


def test_the_plan_maps_each_layer_to_its_provider():
    p = plan({Layer.POS, Layer.SRL, Layer.EMB}, Like(), "rules", embedder=EmbeddingProvider())
    assert p.layers == {Layer.SRL, Layer.EMB} | SRL_NEEDS
    assert {p.providers[x].kind for x in SRL_NEEDS} == {"annotator"}
    assert len({id(p.providers[x]) for x in SRL_NEEDS}) == 1  # one annotator for all of them
    assert p.providers[Layer.SRL].kind == "labeller" and p.providers[Layer.EMB].kind == "embedder"
    assert [x.kind for x in p.producers] == ["annotator", "labeller", "embedder"]  # KINDS order
    assert p.backend_layers == SRL_NEEDS and p.labeller is p.providers[Layer.SRL].target
    # plans compare by what they resolved to, as they did when they held the producers
    same = plan({Layer.POS, Layer.SRL, Layer.EMB}, p.annotator, p.labeller, embedder=p.embedder)
    assert same == p and plan({Layer.POS}, p.annotator) != p


def test_the_signature_joins_the_providers_in_pipeline_order():
    lab = LABELLERS.create("rules")
    p = plan({Layer.POS, Layer.SRL}, Like(), lab)
    ann = as_provider(p.annotator, "annotator")
    srl = as_provider(lab, "labeller")
    assert p.signature({Layer.SRL}) == ann.signature(SRL_NEEDS) + "+" + srl.signature(
        frozenset({Layer.SRL}))
    assert p.signature({Layer.POS}) == "like.pos+tokens"
    # the cache key of the roles names the labeller and, recursively, what it read
    key = p.layer_key(Layer.SRL)
    assert key.startswith(f"srl={srl.layer_signature(Layer.SRL)}<")
    assert p.layer_key(Layer.DEP) in key


def test_a_plugin_labeller_is_resolved_like_the_built_in_ones():
    p = plan({Layer.SRL}, Like(), PluginLabeller())
    assert p.layers == {Layer.SRL, Layer.TOKENS}  # it reads tokens only
    assert p.provider(Layer.SRL).signature.startswith("srl-other-7.conv")
    assert p.provider(Layer.SRL).requires == {Layer.TOKENS}


def test_layers_without_a_provider():
    p = Plan.of(labeller=LABELLERS.create("rules"))
    assert p.layers == {Layer.SRL} and p.annotator is None
    # what the labeller reads has no provider yet: the plan still knows what it requires
    assert p.closure({Layer.SRL}) == {Layer.SRL} | SRL_NEEDS
    assert default_requires(Layer.SRL) == SRL_NEEDS and default_requires(Layer.EMB) == set()
    with pytest.raises(MissingLayerError, match="does not produce the pos layer"):
        p.provider(Layer.POS)
    with pytest.raises(MissingLayerError, match="does not produce the emb layer"):
        Plan().provider(Layer.EMB)


def test_a_layer_key_is_a_value_that_round_trips():
    from hypothesis import given
    from hypothesis import strategies as st

    from mtstrata.layers.contract import LayerKey

    names = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
    sigs = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
    keys = st.recursive(st.builds(LayerKey, names, sigs),
                        lambda sub: st.builds(LayerKey, names, sigs,
                                              st.lists(sub, min_size=1, max_size=3).map(tuple)),
                        max_leaves=6)

    @given(keys)
    def round_trip(key):
        assert LayerKey.parse(key.render()) == key

    round_trip()
    # the plan's keys are those values rendered, and a built-in signature is written as it is
    p = plan({Layer.SRL}, Like(), "rules")
    value = LayerKey.parse(p.layer_key(Layer.SRL))
    assert value == p.layer_key_value(Layer.SRL)
    assert value.signature == p.provider(Layer.SRL).signature
    assert [r.layer for r in value.requires] == sorted(x.value for x in SRL_NEEDS)
    with pytest.raises(ValueError, match="not a layer key"):
        LayerKey.parse("pos=a<b")
