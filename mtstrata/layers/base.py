"""Annotators, role labellers, label schemes and the annotation plan.

Annotators (spaCy, stanza, ...) and semantic-role labellers are registered like metrics: a
backend is one module that decorates its class with ``@ANNOTATORS.register(name)`` (or
``@LABELLERS.register``) and is built from a spec string, ``--annotator stanza:dir=/models``.
Each declares the layers it ``provides`` and the **label scheme** of each labelled layer
(``dep``: ClearNLP or UD relations; ``pos``: PTB tags; ``ner``: OntoNotes types): the scheme is
part of the contract, since the element inventories and the role rules are written for one.
Consumers that need a scheme declare it (a labeller's ``schemes``, a metric's ``schemes``) and
:func:`plan` fails before any model is loaded when the chosen annotator cannot provide it.

Every layer has a provider (:mod:`mtstrata.layers.providers`): the annotator for the backend
layers, the labeller for roles, the embedding model for ``emb``. A metric's signature names
exactly what produced *its* layers (:meth:`Plan.signature`), so one number has one signature
whatever else ran beside it; the cache keys each layer by its provider (:meth:`Plan.layer_key`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from mtstrata.errors import MissingLayerError
from mtstrata.registry import Registry, parse_spec
from mtstrata.segment import Frame, Layer, Segment

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

#: The layers the rule labeller reads (kept for callers that build segments for it by hand).
SRL_NEEDS = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP})


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
    """What a run must do: the providers of its layers.

    ``annotator`` provides the backend layers (tokens, lemma, pos, dep, ner, chunks),
    ``labeller`` the roles (srl), ``embedder`` the sentence-embedding layer (emb). Each layer's
    provider (:meth:`provider`) declares what it requires and a signature; the cache keys a
    layer of a text by :meth:`layer_key`, and a metric's signature names what produced its
    layers by :meth:`signature`.
    """

    annotator: Annotator | None
    backend_layers: frozenset[Layer]
    labeller: Labeller | None = None
    schemes: Mapping[Layer, str] = field(default_factory=dict)
    embedder: Any = None

    @property
    def srl(self) -> bool:
        return self.labeller is not None

    @property
    def layers(self) -> frozenset[Layer]:
        """Every layer the plan produces."""
        return self.backend_layers | ({Layer.SRL} if self.labeller else set()) | (
            {Layer.EMB} if self.embedder is not None else set())

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

    def _requires(self, layer: Layer) -> frozenset[Layer]:
        if layer is Layer.EMB:
            return frozenset()
        if layer is Layer.SRL:
            return self.labeller.needs if self.labeller is not None else SRL_NEEDS
        if layer is Layer.TOKENS:
            return frozenset()
        return frozenset({Layer.TOKENS})  # a backend layer indexes its tokens

    def layers_for(self, layers: Collection[Layer]) -> frozenset[Layer]:
        """The annotator layers that produce ``layers`` (what the labeller reads included)."""
        return self.closure(layers) - {Layer.SRL, Layer.EMB}

    def provider(self, layer: Layer) -> Provider:
        """The provider of ``layer`` in this plan."""
        from mtstrata.layers.providers import Provider, version

        if layer is Layer.EMB:
            if self.embedder is None:
                raise MissingLayerError("this plan does not produce the emb layer.")
            return Provider(layer, frozenset(), _released(self.embedder, self.embedder.signature),
                            self.embedder.name)
        if layer is Layer.SRL:
            if self.labeller is None:
                raise MissingLayerError("this plan has no role labeller.")
            # the version names the labeller ("rules-3"); a plugin's that does not is prefixed
            # with its name, so two labellers never share a signature (nor cached roles)
            lab, v = self.labeller.name, str(self.labeller.version)
            v = v if v.startswith(f"{lab}-") else f"{lab}-{v}"
            return Provider(layer, self._requires(layer),
                            _released(self.labeller, f"srl-{v}.conv{version('srl')}"), lab)
        if self.annotator is None or layer not in self.annotator.provides:
            raise MissingLayerError(f"this plan does not produce the {layer} layer.")
        one = getattr(self.annotator, "layer_signature", None)
        sig = one(layer) if one is not None else self.annotator.signature(frozenset({layer}))
        return Provider(layer, self._requires(layer), _released(self.annotator, sig),
                        self.annotator.name)

    def layer_key(self, layer: Layer) -> str:
        """What a layer's cached rows are keyed by: its provider's signature and the keys of
        the layers that provider requires (so a change anywhere upstream changes the key)."""
        p = self.provider(layer)
        key = f"{layer.value}={p.signature}"
        if p.requires:
            key += "<" + ";".join(self.layer_key(r) for r in
                                  sorted(p.requires, key=lambda x: x.value)) + ">"
        return key

    def keys(self, layers: Collection[Layer]) -> dict[Layer, str]:
        """:meth:`layer_key` of each layer of the closure of ``layers``."""
        return {layer: self.layer_key(layer) for layer in self.closure(layers)}

    def signature(self, layers: Collection[Layer] | None = None) -> str:
        """What produced ``layers`` (default: everything the plan produces), for a metric's
        ``ann`` signature fact: the annotator's signature for exactly the backend layers they
        need (library, model, components, mtstrata's conversion version), then the role
        labeller's (``+srl-...``) and the embedding model's (``+emb-...``) when they are
        among them. One number has one signature whatever else ran beside it."""
        want = self.closure(self.layers if layers is None else layers)
        parts = []
        backend = want - {Layer.SRL, Layer.EMB}
        if backend and self.annotator is not None:
            parts.append(_released(self.annotator, self.annotator.signature(backend)))
        if Layer.SRL in want and self.labeller is not None:
            parts.append(self.provider(Layer.SRL).signature)
        if Layer.EMB in want and self.embedder is not None:
            parts.append(_released(self.embedder, self.embedder.signature))
        return "+".join(parts)

    def schemes_of(self, layers: Collection[Layer]) -> dict[Layer, str]:
        """The label scheme of each labelled layer among ``layers``."""
        have = dict(self.annotator.schemes) if self.annotator is not None else {}
        if self.labeller is not None:
            have[Layer.SRL] = "propbank"
        return {k: v for k, v in have.items() if k in layers}

    def sentences_from(self) -> Layer:
        """The layer whose provider splits sentences (see :func:`mtstrata.cache.layer_payloads`)."""
        return getattr(self.annotator, "sentences_from", Layer.TOKENS)


def _released(provider: Any, sig: str) -> str:
    """A provider's signature, ending with what its code is when its own version does not say
    it: ``.code-HASH`` for mtstrata's code edited since the provenance lock recorded it
    (:func:`mtstrata.layers.providers.code_mark`), ``.dist-NAME==VERSION`` for another
    distribution's (a plugin's release). mtstrata's recorded code adds nothing."""
    from mtstrata.layers.providers import code_mark
    from mtstrata.signature import plugin_fact

    mark, dist = code_mark(type(provider)), plugin_fact(type(provider))
    return sig + (f".code-{mark}" if mark else "") + (f".dist-{dist}" if dist else "")


def plan(layers: Collection[Layer], annotator: Annotator | str = "spacy",
         labeller: Labeller | str = "learned", schemes: Mapping[Layer, str] | None = None,
         embedder: Any = None) -> Plan:
    """Plan the providers of ``layers`` and check the label schemes consumers need.

    Args:
        layers: the union of the layers the requested metrics require.
        annotator: an annotator or its spec (``spacy``, ``stanza:dir=DIR``).
        labeller: the role labeller or its name, used when ``layers`` holds SRL.
        schemes: label schemes the metrics need (e.g. ``{Layer.DEP: "clearnlp"}``).
        embedder: the provider of the emb layer (default: the pinned sentence-embedding
            model, :class:`mtstrata.layers.embedding.EmbeddingProvider`), used when ``layers``
            holds EMB.

    Raises:
        UnknownNameError: no annotator or labeller of that name.
        MissingLayerError: the annotator does not provide a layer, or a layer in the scheme a
            consumer needs; raised before any model is loaded.
    """
    want = frozenset(layers)
    lab: Labeller | None = None
    if Layer.SRL in want:
        lab = LABELLERS.create(labeller) if isinstance(labeller, str) else labeller
    emb = None
    if Layer.EMB in want:
        if embedder is None:
            from mtstrata.layers.embedding import EmbeddingProvider

            embedder = EmbeddingProvider()
        emb = embedder
    p = Plan(None, frozenset(), lab, dict(schemes or {}), emb)
    base = p.layers_for(want)
    if not base:
        return Plan(None, frozenset(), lab, p.schemes, emb)
    if isinstance(annotator, str):
        annotator = create_annotator(annotator)
    _check(annotator, base, lab, p.schemes)
    return Plan(annotator, base, lab, p.schemes, emb)


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
