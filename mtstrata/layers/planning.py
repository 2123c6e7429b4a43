"""The plan of a run: each layer it needs resolved to a provider, checked before any model loads.

:func:`plan` resolves every layer the run's metrics need, and every layer their providers
read, to a provider of :data:`~mtstrata.layers.provider.PROVIDERS`, by one rule for every
layer:

1. the provider the run chose for that layer (``--annotator`` chooses the provider of the
   tokens, ``--srl`` the provider of ``srl``);
2. else, when the layer can come with the tokens (a provider of the tokens assigns it), the
   provider of the run's tokens: a layer that indexes tokens comes from the provider that
   made them (one provider owns the tokens of a run);
3. else the layer's default provider for the run's language (the one registered with
   ``default``; or the only one there is).

It then checks, before any model loads, that each provider serves the run's language, gives
each labelled layer in the scheme its consumers need (the metrics' ``schemes``, the
providers' ``input_schemes``), and that no layers read each other in a circle. The plan is
made once per run and passed down (:func:`mtstrata.layers.with_plan`); the cache keys each
layer of a text by :meth:`Plan.layer_key`, and a metric's ``ann`` signature fact names what
produced its layers (:meth:`Plan.signature`), so one number has one signature whatever else
ran beside it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from mtstrata.errors import MissingLayerError
from mtstrata.languages import DEFAULT
from mtstrata.layers.provider import PROVIDERS, SCHEMES, LayerKey, ann_kind, ann_part, released
from mtstrata.registry import parse_spec
from mtstrata.segment import Layer
from mtstrata.signature import PROVIDER_KINDS, Ann

#: the language of a run that names none
DEFAULT_LANGUAGE = DEFAULT


@dataclass(frozen=True)
class Plan:
    """What a run must do: the provider of each of its layers, the label schemes its
    consumers need, and its target language (see the module docstring)."""

    providers: Mapping[Layer, Any] = field(default_factory=dict)
    schemes: Mapping[Layer, str] = field(default_factory=dict)
    language: str = DEFAULT_LANGUAGE

    @property
    def layers(self) -> frozenset[Layer]:
        """Every layer the plan produces."""
        return frozenset(self.providers)

    @property
    def producers(self) -> tuple[Any, ...]:
        """The distinct providers of the plan in the order an ``ann`` fact lists them (the
        provider of the tokens first, then roles, vectors and others, by name within each)."""
        seen = list({id(p): p for p in self.providers.values()}.values())
        return tuple(sorted(seen, key=lambda p: (PROVIDER_KINDS.index(ann_kind(p)), p.name)))

    def provider_of(self, layer: Layer) -> Any:
        """The provider of ``layer``: the plan's, else one of its providers that assigns it (a
        layer that came along with those asked: see ``bundle``); None: none does."""
        found = self.providers.get(layer)
        if found is None:
            found = next((p for p in self.producers if layer in p.assigns), None)
        return found

    def requires(self, layer: Layer) -> frozenset[Layer]:
        """What ``layer`` is computed from (MissingLayerError: the plan does not produce it)."""
        p = self.provider_of(layer)
        if p is None:
            raise MissingLayerError(f"this plan does not produce the {layer} layer.")
        return frozenset(p.requires(layer))

    def closure(self, layers: Collection[Layer]) -> frozenset[Layer]:
        """``layers`` and every layer their providers require, recursively."""
        out: set[Layer] = set()
        todo = list(layers)
        while todo:
            layer = todo.pop()
            if layer not in out:
                out.add(layer)
                todo.extend(self.requires(layer))
        return frozenset(out)

    def order(self, layers: Collection[Layer]) -> list[Any]:
        """The providers of ``layers`` (their closure) in the order a run computes them: each
        after the providers of what it reads (then as :attr:`producers` lists them)."""
        want = self.closure(layers)
        mine = [p for p in self.producers if any(self.provider_of(x) is p for x in want)]
        depth: dict[int, int] = {}

        def of(p: Any, path: tuple[Any, ...]) -> int:
            if any(q is p for q in path):
                raise MissingLayerError(
                    "the providers " + " -> ".join(q.name for q in (*path, p)) + " read each "
                    "other's layers, so none can be computed first. Fix their needs, or "
                    "uninstall the plugin that registers them.")
            if id(p) not in depth:
                ups = {id(q): q for x in p.needs if (q := self.provider_of(x)) is not None
                       and q is not p}
                depth[id(p)] = 1 + max((of(q, (*path, p)) for q in ups.values()), default=-1)
            return depth[id(p)]

        return sorted(mine, key=lambda p: of(p, ()))

    def layer_key(self, layer: Layer) -> str:
        """What a layer's cached rows are keyed by: its provider's signature and the keys of
        the layers it requires (a change anywhere upstream changes the key), rendered by
        :class:`~mtstrata.layers.provider.LayerKey`."""
        return self.layer_key_value(layer).render()

    def layer_key_value(self, layer: Layer) -> LayerKey:
        """:meth:`layer_key` as a value."""
        p = self.provider_of(layer)
        if p is None:
            raise MissingLayerError(f"this plan does not produce the {layer} layer.")
        return LayerKey(layer.value, released(p, p.layer_signature(layer)), tuple(
            self.layer_key_value(r) for r in sorted(p.requires(layer), key=lambda x: x.value)))

    def keys(self, layers: Collection[Layer]) -> dict[Layer, str]:
        """:meth:`layer_key` of each layer of the closure of ``layers``."""
        return {layer: self.layer_key(layer) for layer in self.closure(layers)}

    def signature(self, layers: Collection[Layer] | None = None) -> str:
        """What produced ``layers`` (default: everything the plan produces), for a metric's
        ``ann`` signature fact: each provider's signature for exactly the layers of the closure
        it produces, in the order of :attr:`producers`, rendered by
        :class:`mtstrata.signature.Ann`."""
        return self.ann(layers).render()

    def ann(self, layers: Collection[Layer] | None = None) -> Ann:
        """:meth:`signature` as a value (:class:`mtstrata.signature.Ann`)."""
        want = self.closure(self.layers if layers is None else layers)
        parts = []
        for p in self.producers:
            mine = frozenset(x for x in want if self.provider_of(x) is p)
            if mine:
                parts.append(ann_part(p, mine))
        return Ann(tuple(parts))

    def schemes_of(self, layers: Collection[Layer]) -> dict[Layer, str]:
        """The label scheme of each labelled layer among ``layers``."""
        have: dict[Layer, str] = {}
        for p in self.producers:
            have.update((k, v) for k, v in p.schemes.items() if self.provider_of(k) is p)
        return {k: v for k, v in have.items() if k in layers}

    def sentences_from(self) -> Layer:
        """The layer whose rows carry sentence starts (see
        :func:`mtstrata.payloads.layer_payloads`): the tokens' provider's say."""
        p = self.provider_of(Layer.TOKENS)
        return getattr(p, "sentences_from", Layer.TOKENS) if p is not None else Layer.TOKENS

    def covers(self, layers: Collection[Layer], schemes: Mapping[Layer, str] | None = None
               ) -> bool:
        """Whether this plan produces ``layers`` (and what they read) in ``schemes``."""
        try:
            closed = self.closure(layers)
        except MissingLayerError:
            return False
        return closed <= self.layers | {x for p in self.producers for x in p.assigns} and all(
            self.schemes_of({k}).get(k) == v for k, v in (schemes or {}).items() if k in closed)


def build(spec: Any, **defaults: Any) -> Any:
    """The provider of a spec (``stanza:dir=/models``), or ``spec`` itself when it is one;
    ``defaults`` (``jobs`` from the command line...) fill parameters it has and the spec does
    not set."""
    if not isinstance(spec, str):
        return spec
    name, params = parse_spec(spec)
    entry, _groups = PROVIDERS.lookup(name)
    fields = getattr(entry.factory, "__dataclass_fields__", {})
    extra = ",".join(f"{k}={v}" for k, v in defaults.items()
                     if k in fields and k not in params and v is not None)
    return PROVIDERS.create(spec + ((":" if ":" not in spec else ",") + extra if extra else ""))


def candidates(layer: Layer, language: str) -> list[Any]:
    """The registered factories that assign ``layer``, those serving ``language`` first."""
    out = [e.factory for e in PROVIDERS.entries() if layer in assigned_layers(e.factory)]
    return sorted(out, key=lambda f: not _serves(f, language))


def assigned_layers(factory: Any) -> frozenset[Layer]:
    """The layers a registered provider (its class or factory) assigns."""
    got = getattr(factory, "assigns", frozenset())
    if isinstance(got, property):  # (a provider named after its layer: ComputedLayer)
        from mtstrata.segment import layer_named

        try:
            return frozenset({layer_named(factory.name)})
        except ValueError:
            return frozenset()
    return frozenset(got)


def default_name(layer: Layer, language: str = DEFAULT_LANGUAGE) -> str | None:
    """The name of the provider a run in ``language`` that chooses none takes for ``layer``
    (None: there is no such one)."""
    usable = [f for f in candidates(layer, language) if _serves(f, language)]
    pick = next((f for f in usable if getattr(f, "default", False)),
                usable[0] if len(usable) == 1 else None)
    return None if pick is None else next(e.name for e in PROVIDERS.entries()
                                          if e.factory is pick)


def _serves(provider: Any, language: str) -> bool:
    langs = getattr(provider, "languages", None)
    return langs is None or language in langs


def plan(layers: Collection[Layer], annotator: Any = None,
         schemes: Mapping[Layer, str] | None = None, *,
         choices: Mapping[Layer, Any] | None = None, language: str = DEFAULT_LANGUAGE,
         **defaults: Any) -> Plan:
    """Resolve each of ``layers``, and each layer their providers read, to a provider (see the
    module docstring), and check what the run needs of them.

    Args:
        layers: the union of the layers the requested metrics require.
        annotator: the provider of the tokens, or its spec (``spacy``, ``stanza:dir=DIR``;
            None: the language's default).
        schemes: label schemes the metrics need (e.g. ``{Layer.DEP: "clearnlp"}``).
        choices: the provider (or its spec) of any other layer, by layer (None: the default).
        language: the run's target language.
        defaults: parameters a provider built from its spec takes when the spec does not set
            them (:func:`build`).

    Raises:
        UnknownNameError: no provider of that name.
        MissingLayerError: no provider gives a layer, or not in the scheme a consumer needs, or
            not for the run's language; raised before any model is loaded.
    """
    chosen = {k: v for k, v in {**(choices or {}), Layer.TOKENS: annotator}.items()
              if v is not None}
    built: dict[str, Any] = {}  # one object per spec: it serves every layer it is chosen for

    def make(spec: Any) -> Any:
        key = spec if isinstance(spec, str) else f"id:{id(spec)}"
        if key not in built:
            built[key] = build(spec, **defaults)
        return built[key]

    providers: dict[Layer, Any] = {}

    def resolve(layer: Layer) -> Any:
        if layer in chosen:
            return make(chosen[layer])
        found = candidates(layer, language)
        if any(Layer.TOKENS in assigned_layers(f) for f in found) and layer is not Layer.TOKENS:
            tok = providers.get(Layer.TOKENS) or resolve(Layer.TOKENS)
            providers.setdefault(Layer.TOKENS, tok)
            if layer not in tok.assigns:
                _missing(tok, frozenset({layer}), language)
            return tok
        name = default_name(layer, language)
        if name is None:
            raise MissingLayerError(_no_provider(layer, language, found))
        return make(name)

    todo = list(layers)
    while todo:
        layer = todo.pop()
        if layer not in providers:
            providers[layer] = p = resolve(layer)
            todo.extend(p.requires(layer))
    result = Plan(providers, dict(schemes or {}), language)
    _check(result, dict(schemes or {}))
    return result


def _no_provider(layer: Layer, language: str, found: list[Any]) -> str:
    if not found:
        return (f"no installed provider gives the {layer} layer that the requested metrics "
                "need; choose metrics that need other layers (see `mtstrata list metrics`).")
    usable = [f for f in found if _serves(f, language)]
    if not usable:
        served = "; ".join(f"{f.name} serves {', '.join(sorted(f.languages))}" for f in found)
        return (f"no installed provider gives the {layer} layer for the language "
                f"{language!r} ({served}), so the metrics that need it cannot be computed for "
                f"{language!r} text. Leave them out, or check --lang (`mtstrata list "
                "annotators` lists the providers and their languages).")
    names = ", ".join(sorted(f.name for f in usable))
    return (f"the {layer} layer has several providers for the language {language!r} ({names}) "
            "and none is its default; choose one.")


def _missing(provider: Any, missing: frozenset[Layer], language: str) -> None:
    # only an annotator of the run's language is worth naming
    others = [e.name for e in PROVIDERS.entries()
              if Layer.TOKENS in (got := assigned_layers(e.factory)) and missing <= got
              and _serves(e.factory, language)]
    raise MissingLayerError(
        f"the annotator {provider.name!r} does not provide the layer(s) "
        f"{', '.join(sorted(str(x) for x in missing))} that the requested metrics need. "
        + (f"Use --annotator {others[0]}." if others else
           f"No installed annotator of the language {language!r} does; choose metrics that "
           "need other layers (see `mtstrata list metrics`)."))


def _check(p: Plan, schemes: Mapping[Layer, str]) -> None:
    """What the plan's consumers need: each labelled layer in their scheme, every provider
    for the run's language, no circle of providers."""
    for q in p.producers:
        if not _serves(q, p.language):
            mine = sorted(str(x) for x, v in p.providers.items() if v is q)
            raise MissingLayerError(
                f"the provider {q.name!r} of the layer(s) {', '.join(mine)} serves "
                f"{', '.join(sorted(q.languages))}, not the run's language {p.language!r}: "
                "its layers of such text would be silently wrong. Choose metrics that do not "
                "need them, or a provider for that language (`mtstrata list annotators`).")
    needed = [(layer, scheme, "the requested metrics") for layer, scheme in schemes.items()]
    for q in p.producers:
        needed += [(layer, scheme, f"the provider {q.name!r}")
                   for layer, scheme in q.input_schemes.items()]
    for layer, scheme, who in needed:
        prov = p.provider_of(layer)
        if layer not in p.layers or prov is None:
            continue
        have = prov.schemes.get(layer)
        if have != scheme:
            others = [e.name for e in PROVIDERS.entries()
                      if getattr(e.factory, "schemes", {}).get(layer) == scheme
                      and not isinstance(getattr(e.factory, "schemes", {}), property)]
            raise MissingLayerError(
                f"{who} need(s) {layer} labels in the {scheme} scheme "
                f"({SCHEMES.get(scheme, scheme)}), but the annotator {prov.name!r} gives "
                f"{have or 'no'} labels: its scores would be silently empty or wrong. "
                + (f"Use --annotator {others[0]}, or choose metrics that do not need {layer} "
                   f"labels." if others else f"Choose metrics that do not need {layer} labels."))
    p.order(p.layers)  # (refuses providers that read each other)
