"""Annotators, role labellers, label schemes and the annotation plan.

Annotators (spaCy, stanza, ...) and semantic-role labellers are registered like metrics: a
backend is one module that decorates its class with ``@ANNOTATORS.register(name)`` (or
``@LABELLERS.register``) and is built from a spec string, ``--annotator stanza:dir=/models``.
Each declares the layers it ``provides`` and the **label scheme** of each labelled layer
(``dep``: ClearNLP or UD relations; ``pos``: PTB tags; ``ner``: OntoNotes types): the scheme is
part of the contract, since the element inventories and the role rules are written for one.
Consumers that need a scheme declare it (a labeller's ``schemes``, a metric's ``schemes``) and
:func:`plan` fails before any model is loaded when the chosen annotator cannot provide it.

Every layer has a provider, each seen through one contract (:mod:`mtstrata.layers.contract`):
the annotator for the backend layers, the labeller for roles, the embedding model for ``emb``;
the plan is the resolved mapping from each layer of a run to its provider. A metric's
signature names exactly what produced *its* layers (:meth:`Plan.signature`), so one number has
one signature whatever else ran beside it; the cache keys each layer by its provider
(:meth:`Plan.layer_key`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from mtstrata.errors import MissingLayerError
from mtstrata.layers.contract import (
    KINDS,
    SRL_NEEDS,
    LayerKey,
    LayerProvider,
    as_provider,
    default_requires,
    kind_of,
)
from mtstrata.registry import Registry, parse_spec
from mtstrata.segment import Frame, Layer, Segment
from mtstrata.signature import Ann

if TYPE_CHECKING:
    from mtstrata.layers.providers import Provider

#: Label schemes by name (what a ``schemes`` mapping may say).
SCHEMES = {
    "clearnlp": "ClearNLP dependency relations (spaCy's English models)",
    "ud": "Universal Dependencies relations (stanza)",
    "ptb": "Penn Treebank part-of-speech tags (plus universal POS tags)",
    "ontonotes": "OntoNotes 5 entity types",
    "propbank": "PropBank semantic roles",
}


@runtime_checkable
class Annotator(Protocol):
    """A backend that turns raw texts into annotated segments.

    Attributes:
        name: the registered name (``spacy``, ``stanza``).
        provides: the layers it can fill.
        schemes: the label scheme of each labelled layer it fills.
    """

    name: ClassVar[str]
    provides: ClassVar[frozenset[Layer]]
    schemes: ClassVar[Mapping[Layer, str]]

    def signature(self, layers: frozenset[Layer]) -> str:
        """Library, model and model version, and the components ``layers`` need."""
        ...

    def annotate(self, texts: Sequence[str], layers: frozenset[Layer]) -> Iterator[Segment]:
        """One :class:`Segment` per text, in order, with ``layers`` filled."""
        ...


@runtime_checkable
class Labeller(Protocol):
    """A semantic-role labeller over an annotator's layers.

    Attributes:
        name: the registered name (``rules``, ``learned``).
        version: goes into annotator signatures and cache keys.
        needs: the layers it reads.
        dep_scheme: the dependency label scheme it is written or trained for.
    """

    name: str
    version: str
    needs: frozenset[Layer]
    dep_scheme: str

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        """The frames of each segment."""
        ...


#: annotators and role labellers: this package's modules register theirs on import, other
#: distributions through the entry-point groups ``mtstrata.annotators``/``mtstrata.labellers``
ANNOTATORS: Registry[Any] = Registry("annotator", list_command="mtstrata list annotators",
                                     plugin_package="mtstrata.layers",
                                     entry_points="mtstrata.annotators")
LABELLERS: Registry[Any] = Registry("role labeller", list_command="mtstrata list annotators",
                                    plugin_package="mtstrata.layers",
                                    entry_points="mtstrata.labellers")
#: providers of plugin layers (:class:`mtstrata.segment.ExtraLayer`), one per layer, registered
#: under the layer's name through the entry-point group ``mtstrata.layer_providers``
LAYER_PROVIDERS: Registry[Any] = Registry("layer provider",
                                          list_command="mtstrata list annotators",
                                          plugin_package="mtstrata.layers",
                                          entry_points="mtstrata.layer_providers")

#: (SRL_NEEDS, the layers the rule labeller reads, is kept here for callers that build
#: segments for it by hand)
__all__ = ["ANNOTATORS", "LABELLERS", "SCHEMES", "SRL_NEEDS", "Annotator", "Labeller", "Plan",
           "add_frames", "create_annotator", "plan"]


def create_annotator(spec: str, **defaults: Any) -> Annotator:
    """Build an annotator from its spec (``stanza:dir=/models``); ``defaults`` (e.g. ``jobs``
    from the command line) fill parameters the annotator has and the spec does not set."""
    name, params = parse_spec(spec)
    entry, _groups = ANNOTATORS.lookup(name)
    fields = getattr(entry.factory, "__dataclass_fields__", {})
    extra = ",".join(f"{k}={v}" for k, v in defaults.items()
                     if k in fields and k not in params and v is not None)
    return ANNOTATORS.create(spec + ((":" if ":" not in spec else ",") + extra if extra else ""))


@dataclass(frozen=True)
class Plan:
    """What a run must do: the resolved mapping from each of its layers to its provider.

    Every producer of a layer (annotator, role labeller, embedding model, a plugin's) is seen
    through one contract (:class:`mtstrata.layers.contract.LayerProvider`): what it assigns and
    requires, its parameters, its code and its signature. :func:`plan` resolves the layers a
    run needs to providers (:func:`mtstrata.layers.contract.kind_of` says which kind assigns a
    layer); the cache keys a layer of a text by :meth:`layer_key`, and a metric's signature
    names what produced its layers by :meth:`signature`.
    """

    providers: Mapping[Layer, LayerProvider] = field(default_factory=dict)
    schemes: Mapping[Layer, str] = field(default_factory=dict)

    @classmethod
    def of(cls, annotator: Annotator | None = None, backend_layers: Collection[Layer] = (),
           labeller: Labeller | None = None, schemes: Mapping[Layer, str] | None = None,
           embedder: Any = None) -> Plan:
        """The plan of given producers (no check: :func:`plan` checks what it resolves)."""
        chosen: dict[Layer, LayerProvider] = {}
        if annotator is not None:
            ann = as_provider(annotator, "annotator")
            chosen.update((x, ann) for x in backend_layers)
        for target, kind in ((labeller, "labeller"), (embedder, "embedder")):
            if target is not None:
                prov = as_provider(target, kind)
                chosen.update((x, prov) for x in prov.assigns)
        return cls(chosen, dict(schemes or {}))

    @property
    def producers(self) -> tuple[LayerProvider, ...]:
        """The distinct providers of the plan, in the order of :data:`KINDS`, and by name within
        a kind (plugin layers: the order their providers were built in is a set's)."""
        seen = list({id(p): p for p in self.providers.values()}.values())
        return tuple(sorted(seen, key=lambda p: (KINDS.index(p.kind), p.name)))

    def by_kind(self, kind: str) -> LayerProvider | None:
        """The plan's provider of that kind (None: the plan has none)."""
        return next((p for p in self.producers if p.kind == kind), None)

    def _target(self, kind: str) -> Any:
        p = self.by_kind(kind)
        return None if p is None else p.target

    @property
    def annotator(self) -> Annotator | None:
        return self._target("annotator")  # type: ignore[no-any-return]

    @property
    def labeller(self) -> Labeller | None:
        return self._target("labeller")  # type: ignore[no-any-return]

    @property
    def embedder(self) -> Any:
        return self._target("embedder")

    @property
    def backend_layers(self) -> frozenset[Layer]:
        """The layers the annotator fills in this plan."""
        return self.of_kind("annotator", self.providers)

    @property
    def srl(self) -> bool:
        return self.labeller is not None

    @property
    def layers(self) -> frozenset[Layer]:
        """Every layer the plan produces."""
        return frozenset(self.providers)

    @staticmethod
    def of_kind(kind: str, layers: Collection[Layer]) -> frozenset[Layer]:
        """The layers among ``layers`` that a provider of ``kind`` assigns."""
        return frozenset(x for x in layers if kind_of(x) == kind)

    def closure(self, layers: Collection[Layer]) -> frozenset[Layer]:
        """``layers`` and every layer their providers require, recursively."""
        out: set[Layer] = set()
        todo = list(layers)
        while todo:
            layer = todo.pop()
            if layer not in out:
                out.add(layer)
                todo.extend(self._requires(layer))
        return frozenset(out)

    def _provider_of(self, layer: Layer) -> LayerProvider | None:
        """The provider of ``layer``: the plan's, else one of its providers that can assign it
        (an annotator's layer that came along with those asked: see ``bundle``)."""
        found = self.providers.get(layer)
        if found is None:
            found = next((p for p in self.producers if layer in p.assigns), None)
        return found

    def _requires(self, layer: Layer) -> frozenset[Layer]:
        prov = self._provider_of(layer)
        return prov.requires(layer) if prov is not None else default_requires(layer)

    def extra_order(self, layers: Collection[Layer]) -> list[Layer]:
        """The plugin layers among ``layers`` in the order a run computes them: each after the
        plugin layers it reads (then by name). A cycle is refused (MissingLayerError)."""
        depth: dict[Layer, int] = {}

        def of(x: Layer, path: tuple[Layer, ...]) -> int:
            if x in path:
                raise MissingLayerError(
                    "the plugin layers " + " -> ".join(str(y) for y in (*path, x)) + " read "
                    "each other, so none can be computed first. Fix the needs of their "
                    "providers (entry points mtstrata.layer_providers), or uninstall the "
                    "plugin.")
            if x not in depth:
                ups = [r for r in self._requires(x) if kind_of(r) == "extra"]
                depth[x] = 1 + max((of(r, (*path, x)) for r in ups), default=-1)
            return depth[x]

        mine = self.of_kind("extra", layers)
        return sorted(mine, key=lambda x: (of(x, ()), x.value))

    def layers_for(self, layers: Collection[Layer]) -> frozenset[Layer]:
        """The annotator layers that produce ``layers`` (what the labeller reads included)."""
        return self.of_kind("annotator", self.closure(layers))

    def provider(self, layer: Layer) -> Provider:
        """The provider of ``layer`` in this plan."""
        from mtstrata.layers.providers import Provider

        prov = self._provider_of(layer)
        if prov is None:
            raise MissingLayerError(f"this plan does not produce the {layer} layer.")
        return Provider(layer, self._requires(layer), prov.layer_signature(layer), prov.name)

    def layer_key(self, layer: Layer) -> str:
        """What a layer's cached rows are keyed by: its provider's signature and the keys of
        the layers that provider requires (so a change anywhere upstream changes the key),
        rendered by :class:`~mtstrata.layers.contract.LayerKey`."""
        return self.layer_key_value(layer).render()

    def layer_key_value(self, layer: Layer) -> LayerKey:
        """:meth:`layer_key` as a value."""
        p = self.provider(layer)
        return LayerKey(layer.value, p.signature, tuple(
            self.layer_key_value(r) for r in sorted(p.requires, key=lambda x: x.value)))

    def keys(self, layers: Collection[Layer]) -> dict[Layer, str]:
        """:meth:`layer_key` of each layer of the closure of ``layers``."""
        return {layer: self.layer_key(layer) for layer in self.closure(layers)}

    def signature(self, layers: Collection[Layer] | None = None) -> str:
        """What produced ``layers`` (default: everything the plan produces), for a metric's
        ``ann`` signature fact: each provider's signature for exactly the layers of the
        closure it assigns, in the order of :data:`KINDS` (the annotator's names library,
        model, components and mtstrata's conversion version; then the role labeller's
        ``+srl-...``, the embedding model's ``+emb-...`` and plugin layers' ``+NAME-...``),
        rendered by :class:`mtstrata.signature.Ann`. One number has one signature whatever else
        ran beside it."""
        return self.ann(layers).render()

    def ann(self, layers: Collection[Layer] | None = None) -> Ann:
        """:meth:`signature` as a value (:class:`mtstrata.signature.Ann`): each producer's
        kind and signature, which :meth:`~mtstrata.signature.Ann.parse` reads back."""
        want = self.closure(self.layers if layers is None else layers)
        return Ann(tuple((p.kind, p.signature(mine)) for p in self.producers
                         if (mine := self.of_kind(p.kind, want))))

    def schemes_of(self, layers: Collection[Layer]) -> dict[Layer, str]:
        """The label scheme of each labelled layer among ``layers``."""
        have: dict[Layer, str] = {}
        for p in self.producers:
            have.update(p.schemes)
        return {k: v for k, v in have.items() if k in layers}

    def sentences_from(self) -> Layer:
        """The layer whose provider splits sentences (see :func:`mtstrata.cache.layer_payloads`)."""
        return getattr(self.annotator, "sentences_from", Layer.TOKENS)


def plan(layers: Collection[Layer], annotator: Annotator | str = "spacy",
         labeller: Labeller | str = "learned", schemes: Mapping[Layer, str] | None = None,
         embedder: Any = None, **defaults: Any) -> Plan:
    """Resolve each of ``layers``, and each layer their providers require, to its provider,
    and check the label schemes consumers need.

    Providers are chosen in the order of :data:`KINDS` (what the labeller reads is known before
    it is built: :func:`mtstrata.layers.contract.default_requires`), each only when a layer
    needs one.

    Args:
        layers: the union of the layers the requested metrics require.
        annotator: an annotator or its spec (``spacy``, ``stanza:dir=DIR``).
        labeller: the role labeller or its name, used when ``layers`` holds SRL.
        schemes: label schemes the metrics need (e.g. ``{Layer.DEP: "clearnlp"}``).
        embedder: the provider of the emb layer (default: the pinned sentence-embedding
            model, :class:`mtstrata.layers.embedding.EmbeddingProvider`), used when ``layers``
            holds EMB.
        defaults: parameters an annotator built from its spec takes when the spec does not set
            them (:func:`create_annotator`).

    Raises:
        UnknownNameError: no annotator or labeller of that name.
        MissingLayerError: the annotator does not provide a layer, or a layer in the scheme a
            consumer needs; raised before any model is loaded.
    """
    want = frozenset(layers)
    schemes = dict(schemes or {})
    extras: dict[Layer, LayerProvider] = {}
    while todo := Plan.of_kind("extra", want) - extras.keys():  # (one may read another)
        extras.update((x, as_provider(LAYER_PROVIDERS.create(x.value), "extra")) for x in todo)
        want |= {r for x in todo for r in extras[x].requires(x)}
    base = Plan(schemes=schemes).layers_for(want)
    if base and isinstance(annotator, str):
        annotator = create_annotator(annotator, **defaults)
    lab: Labeller | None = None
    if Plan.of_kind("labeller", want):
        lab = LABELLERS.create(labeller) if isinstance(labeller, str) else labeller
    if Plan.of_kind("embedder", want) and embedder is None:
        from mtstrata.layers.embedding import EmbeddingProvider

        embedder = EmbeddingProvider()
    p = Plan.of(None, (), lab, schemes, embedder if Plan.of_kind("embedder", want) else None)
    p = Plan({**p.providers, **extras}, schemes)
    p.extra_order(extras)  # (refuses plugin layers that read each other)
    base = p.layers_for(want)
    if not base:
        return p
    assert not isinstance(annotator, str)
    _check(annotator, base, lab, schemes)
    return Plan({**Plan.of(annotator, base, lab, schemes, p.embedder).providers, **extras},
                schemes)


def _check(annotator: Annotator, base: frozenset[Layer], lab: Labeller | None,
           schemes: Mapping[Layer, str]) -> None:
    """The annotator provides ``base``, in the schemes its consumers need."""
    missing = base - annotator.provides
    if missing:
        others = [e.name for e in ANNOTATORS
                  if missing <= getattr(e.factory, "provides", frozenset())]
        raise MissingLayerError(
            f"the annotator {annotator.name!r} does not provide the layer(s) "
            f"{', '.join(sorted(str(x) for x in missing))} that the requested metrics need. "
            + (f"Use --annotator {others[0]}." if others else
               "No installed annotator does; choose metrics that need other layers "
               "(see `mtstrata list metrics`)."))
    needed = [(layer, scheme, "the requested metrics") for layer, scheme in schemes.items()]
    if lab is not None:
        needed.append((Layer.DEP, lab.dep_scheme, f"the role labeller {lab.name!r}"))
    for layer, scheme, who in needed:
        have = annotator.schemes.get(layer)
        if layer in base and have != scheme:
            others = [e.name for e in ANNOTATORS
                      if getattr(e.factory, "schemes", {}).get(layer) == scheme]
            raise MissingLayerError(
                f"{who} need(s) {layer} labels in the {scheme} scheme "
                f"({SCHEMES.get(scheme, scheme)}), but the annotator {annotator.name!r} gives "
                f"{have or 'no'} labels: its scores would be silently empty or wrong. "
                + (f"Use --annotator {others[0]}, or choose metrics that do not need {layer} "
                   f"labels." if others else f"Choose metrics that do not need {layer} labels."))


def add_frames(segs: Sequence[Segment], labeller: Labeller) -> list[Segment]:
    """``segs`` with the labeller's frames and :attr:`Layer.SRL` declared (even if no frame)."""
    import dataclasses

    frames = labeller.label(segs)
    return [dataclasses.replace(s, frames=tuple(f), layers=s.layers | {Layer.SRL},
                                schemes=tuple(sorted(dict(s.schemes, srl="propbank").items())))
            for s, f in zip(segs, frames, strict=True)]
