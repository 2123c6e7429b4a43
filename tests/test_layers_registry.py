"""The provider contract and its one registry: every provider declares what it assigns and
reads, where it runs, its languages, its parameters, its code and its signature; the plan maps
each layer to a provider by one rule. No model loads (providers are built, never run)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from mtstrata.errors import MissingLayerError
from mtstrata.layers import PROVIDERS, Labeller, Plan, ProviderBase, plan
from mtstrata.layers.code import CODE, recorded_modules
from mtstrata.layers.embedding import Embedder
from mtstrata.layers.provider import RUNS, LayerKey, Provider, ann_kind, released
from mtstrata.layers.spacy_backend import SpacyAnnotator
from mtstrata.segment import Layer

SRL_NEEDS = Labeller.needs
PACKAGE = Path(__file__).resolve().parents[1] / "mtstrata"


class Like(ProviderBase):
    """What the plan reads of the spaCy annotator (its declarations), no model."""

    name, assigns, schemes = SpacyAnnotator.name, SpacyAnnotator.assigns, SpacyAnnotator.schemes

    def signature(self, layers: frozenset[Layer]) -> str:
        return "like." + "+".join(sorted(x.value for x in layers))

    def pipe(self, segments, layers, *, jobs=1, quiet=True):
        raise AssertionError("no model runs here")


class PluginLabeller(Labeller):
    """A labeller of another kind of code, reading the tokens only."""

    name, version, needs = "other", "7", frozenset({Layer.TOKENS})
    languages = None

    def label(self, segments):
        return [() for _ in segments]


def _unchecked(cls: type) -> object:
    """A provider with its default fields, its model directory not checked (stanza refuses
    to be built without one; the contract reads only its declarations and fields)."""
    obj = object.__new__(cls)
    for f in dataclasses.fields(cls):
        value = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        object.__setattr__(obj, f.name, value)
    return obj


def _own_providers() -> list[object]:
    return [_unchecked(e.factory) for e in PROVIDERS.entries()
            if e.factory.__module__.startswith("mtstrata.")]


@pytest.mark.parametrize("target", _own_providers(), ids=lambda x: type(x).__name__)
def test_every_provider_declares_the_contract(target):
    assert isinstance(target, Provider) and target.assigns and target.runs in RUNS
    assert target.languages is None or target.languages
    # the code it runs: declared units of mtstrata's conversion code, and the modules the
    # provenance lock records for its class (its own module among them)
    assert target.code and set(target.code) <= set(CODE)
    assert type(target).__module__ in recorded_modules(type(target))
    # its parameters are the fields it was built with
    fields = {f.name for f in dataclasses.fields(target) if f.init and f.repr}  # type: ignore[arg-type]
    assert set(target.params()) == fields
    for layer in target.assigns:
        assert layer not in target.requires(layer)


def test_every_layer_has_one_default_provider_for_english():
    for layer in Layer:
        defaults = [e.name for e in PROVIDERS.entries() if layer in e.factory.assigns
                    and e.factory.default and "en" in (e.factory.languages or {"en"})]
        assert len(defaults) == 1, (layer, defaults)


def test_the_embedder_and_the_labellers_require_what_they_read():
    emb = Embedder()
    assert emb.assigns == {Layer.EMB} and emb.requires(Layer.EMB) == frozenset()
    assert emb.params() == {"model": Embedder().model} and emb.runs == "main"
    rules = PROVIDERS.create("rules")
    assert rules.assigns == {Layer.SRL} and rules.requires(Layer.SRL) == SRL_NEEDS
    assert rules.schemes == {Layer.SRL: "propbank"} and rules.input_schemes == {
        Layer.DEP: "clearnlp"}
    ann = Like()
    assert ann.requires(Layer.TOKENS) == frozenset()
    assert ann.requires(Layer.DEP) == {Layer.TOKENS}
    assert ann.params() == {}  # not a dataclass: no parameters to name


def test_the_plan_maps_each_layer_to_its_provider():
    p = plan({Layer.POS, Layer.SRL, Layer.EMB}, Like(),
             choices={Layer.SRL: "rules", Layer.EMB: Embedder()})
    assert p.layers == {Layer.SRL, Layer.EMB} | SRL_NEEDS
    assert len({id(p.providers[x]) for x in SRL_NEEDS}) == 1  # one provider for all of them
    assert [ann_kind(x) for x in p.producers] == ["annotator", "labeller", "embedder"]
    assert [x.name for x in p.order(p.layers)][-1] == "rules"  # after what it reads
    # plans compare by what they resolved to
    same = plan({Layer.POS, Layer.SRL, Layer.EMB}, p.providers[Layer.POS],
                choices={x: p.providers[x] for x in (Layer.SRL, Layer.EMB)})
    assert same == p and plan({Layer.POS}, p.providers[Layer.POS]) != p


def test_a_layer_the_tokens_provider_gives_comes_from_it():
    """One provider owns the tokens of a run: the layers that index them come from it."""
    p = plan({Layer.NER, Layer.DEP}, Like())
    assert {p.providers[x].name for x in p.layers} == {"spacy"}
    with pytest.raises(MissingLayerError, match="does not provide the layer"):
        plan({Layer.CHUNKS}, type("NoChunks", (Like,), {"assigns": frozenset(
            {Layer.TOKENS, Layer.POS})})())


def test_the_signature_joins_the_providers_in_pipeline_order():
    lab = PROVIDERS.create("rules")
    p = plan({Layer.POS, Layer.SRL}, Like(), choices={Layer.SRL: lab})
    assert p.signature({Layer.SRL}) == Like().signature(SRL_NEEDS) + "+" + released(
        lab, lab.signature(frozenset({Layer.SRL})))
    assert p.signature({Layer.POS}) == "like.pos+tokens"
    # the cache key of the roles names the labeller and, recursively, what it read
    key = p.layer_key(Layer.SRL)
    assert key.startswith(f"srl={released(lab, lab.layer_signature(Layer.SRL))}<")
    assert p.layer_key(Layer.DEP) in key


def test_a_plugin_labeller_is_resolved_like_the_built_in_ones():
    p = plan({Layer.SRL}, Like(), choices={Layer.SRL: PluginLabeller()})
    assert p.layers == {Layer.SRL, Layer.TOKENS}  # it reads tokens only
    assert p.layer_key_value(Layer.SRL).signature.startswith("srl-other-7.conv")
    assert p.requires(Layer.SRL) == {Layer.TOKENS}


def test_layers_without_a_provider():
    p = Plan({Layer.SRL: PROVIDERS.create("rules")})
    with pytest.raises(MissingLayerError, match="does not produce the pos layer"):
        p.requires(Layer.POS)
    with pytest.raises(MissingLayerError, match="does not produce the [a-z]+ layer"):
        p.closure({Layer.SRL})  # what the labeller reads has no provider in this plan
    with pytest.raises(MissingLayerError, match="does not produce the emb layer"):
        Plan().layer_key(Layer.EMB)


def test_a_run_plan_serves_what_it_covers_and_refuses_the_rest():
    from mtstrata.errors import ConfigError
    from mtstrata.layers import AnnotationOptions, plan_run, with_plan

    options = with_plan(AnnotationOptions(annotator=Like()), {Layer.POS})  # type: ignore[arg-type]
    assert plan_run({Layer.TOKENS}, options) is options.plan
    with pytest.raises(ConfigError, match="internal error: the run.s plan does not produce"):
        plan_run({Layer.SRL}, options)  # never a second, silent plan


def test_the_driver_and_the_plan_branch_on_no_layer_and_no_kind():
    """The modules that plan, run, store and read layers name no particular layer but the
    tokens (which one provider owns): each layer is its provider's and its codec's."""
    for rel in ("layers/__init__.py", "layers/planning.py", "layers/executors.py", "cache.py"):
        tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
        named = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name) and n.value.id == "Layer"}
        assert named <= {"TOKENS"}, (rel, named)
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
        assert not strings & {"annotator", "labeller", "embedder", "extra"}, rel


def test_a_layer_key_is_a_value_that_round_trips():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    names = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
    sigs = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
    keys = st.recursive(st.builds(LayerKey, names, sigs),
                        lambda sub: st.builds(LayerKey, names, sigs,
                                              st.lists(sub, min_size=1, max_size=3).map(tuple)),
                        max_leaves=6)

    @settings(max_examples=60, deadline=None)
    @given(keys)
    def round_trip(key):
        assert LayerKey.parse(key.render()) == key

    round_trip()
    # the plan's keys are those values rendered, and a built-in signature is written as it is
    p = plan({Layer.SRL}, Like(), choices={Layer.SRL: "rules"})
    value = LayerKey.parse(p.layer_key(Layer.SRL))
    assert value == p.layer_key_value(Layer.SRL)
    rules = PROVIDERS.create("rules")
    assert value.signature == released(rules, rules.layer_signature(Layer.SRL))
    assert [r.layer for r in value.requires] == sorted(x.value for x in SRL_NEEDS)
    with pytest.raises(ValueError, match="not a layer key"):
        LayerKey.parse("pos=a<b")
