"""The provider contract: one description of every producer of a layer.

Three kinds of object produce layers, each registered its own way and computing its own way:
annotators (spaCy, stanza, a plugin's: ``--annotator``) fill the backend layers from raw text,
role labellers (rules, learned, a plugin's: ``--srl``) fill ``srl`` from the backend layers, and
the embedding model fills ``emb`` from raw text. The plan (:class:`mtstrata.layers.Plan`) and
the cache see them through one contract, :class:`LayerProvider`: each declares

* what it **assigns** (the layers it can fill) and the **label scheme** of each labelled one;
* what each of those layers **requires** (a backend layer indexes its tokens; the role labeller
  reads tokens, lemmas, tags and dependencies; the embedding model reads raw text);
* its **parameters** (the fields it was built with: ``spacy:batch_size=128``);
* the **code** it runs: the units of mtstrata's conversion code it declares
  (:data:`mtstrata.layers.providers.CODE`) and the modules the provenance lock records for its
  class (``mtstrata/data/provenance.lock``);
* its **signature** for a set of its layers (a metric's ``ann`` fact) and for one layer (the
  cache key), both ending with the mark of edited or other-distribution code
  (:func:`released`).

An adapter per kind (:class:`AnnotatorProvider`, :class:`LabellerProvider`,
:class:`EmbedderProvider`) gives that contract to the objects the registries build, so a
plugin's annotator or labeller keeps its plain protocol (:class:`mtstrata.layers.Annotator`,
:class:`mtstrata.layers.Labeller`). Which kind assigns a layer is :func:`kind_of`: the one table
the plan resolves through, instead of tests of ``srl`` and ``emb`` in each place that asks.
Signatures are exactly those the plan made before the contract: no cache key nor ``ann`` fact
moved with it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from mtstrata.segment import ExtraLayer, Layer
from mtstrata.signature import PROVIDER_KINDS

#: the kinds of producer, in the order a run computes them (a labeller reads what the
#: annotator gives; the embedding model reads raw text; a plugin layer's provider reads what
#: the others gave): signatures list them in this order
KINDS = PROVIDER_KINDS
#: the kind of producer that assigns a layer (every other layer: the annotator)
_KIND = {Layer.SRL: "labeller", Layer.EMB: "embedder"}
#: the layers the rule and learned labellers read (what a plan assumes of a labeller it has not
#: chosen yet)
SRL_NEEDS = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP})


def kind_of(layer: Layer) -> str:
    """The kind of producer (one of :data:`KINDS`) that assigns ``layer``."""
    if isinstance(layer, ExtraLayer):
        return "extra"
    return _KIND.get(layer, "annotator")


def default_requires(layer: Layer) -> frozenset[Layer]:
    """What ``layer`` requires before its producer is chosen: what every producer of its kind
    requires (an annotator's layers their tokens, a labeller :data:`SRL_NEEDS`, the
    embedding model nothing)."""
    kind = kind_of(layer)
    if kind == "labeller":
        return SRL_NEEDS
    if kind in ("embedder", "extra") or layer is Layer.TOKENS:
        return frozenset()
    return frozenset({Layer.TOKENS})  # a backend layer indexes its tokens


_SPECIAL = re.compile(r"[\\<>;]")


@dataclass(frozen=True)
class LayerKey:
    """What a layer's cached rows are keyed by, as a value: the layer's name, its provider's
    signature and the keys of the layers that provider requires (sorted by name), rendered
    ``NAME=SIGNATURE<KEY;KEY>`` (:meth:`mtstrata.layers.Plan.layer_key`). ``\\``, ``<``, ``>``
    and ``;`` in a signature are escaped with ``\\``, so any signature round-trips through
    :meth:`parse`; the built-in providers' signatures hold none of them, so their keys are the
    strings they always were (the cache rows stay found)."""

    layer: str
    signature: str
    requires: tuple[LayerKey, ...] = ()

    def render(self) -> str:
        key = self.layer + "=" + _SPECIAL.sub(r"\\\g<0>", self.signature)
        if self.requires:
            key += "<" + ";".join(r.render() for r in self.requires) + ">"
        return key

    @classmethod
    def parse(cls, text: str) -> LayerKey:
        """The value of a rendered key (a ValueError for text no key renders as)."""
        key, end = cls._read(text, 0)
        if end != len(text):
            raise ValueError(f"not a layer key: {text!r}")
        return key

    @classmethod
    def _read(cls, text: str, i: int) -> tuple[LayerKey, int]:
        eq = text.find("=", i)
        if eq < 0:
            raise ValueError(f"not a layer key: {text!r}")
        sig: list[str] = []
        j = eq + 1
        while j < len(text) and text[j] not in "<>;":
            if text[j] == "\\":
                j += 1
                if j == len(text):
                    raise ValueError(f"not a layer key: {text!r}")
            sig.append(text[j])
            j += 1
        requires = []
        if j < len(text) and text[j] == "<":
            while True:
                sub, j = cls._read(text, j + 1)
                requires.append(sub)
                if j < len(text) and text[j] == ";":
                    continue
                if j < len(text) and text[j] == ">":
                    j += 1
                    break
                raise ValueError(f"not a layer key: {text!r}")
        return cls(text[i:eq], "".join(sig), tuple(requires)), j


def released(producer: Any, sig: str) -> str:
    """A producer's signature, ending with what its code is when its own version does not say
    it: ``.code-HASH`` for mtstrata's code edited since the provenance lock recorded it
    (:func:`mtstrata.layers.providers.code_mark`), ``.dist-NAME==VERSION`` for another
    distribution's (a plugin's release). mtstrata's recorded code adds nothing."""
    from mtstrata.layers.providers import code_mark
    from mtstrata.signature import plugin_fact

    mark, dist = code_mark(type(producer)), plugin_fact(type(producer))
    return sig + (f".code-{mark}" if mark else "") + (f".dist-{dist}" if dist else "")


@runtime_checkable
class LayerProvider(Protocol):
    """What the plan and the cache know of a producer of layers (see the module docstring).

    Attributes:
        kind: one of :data:`KINDS`.
        target: the object that computes (an annotator, a labeller, the embedding model).
    """

    kind: ClassVar[str]
    target: Any

    @property
    def name(self) -> str: ...

    @property
    def assigns(self) -> frozenset[Layer]: ...

    @property
    def schemes(self) -> Mapping[Layer, str]: ...

    @property
    def code(self) -> tuple[str, ...]: ...

    def requires(self, layer: Layer) -> frozenset[Layer]: ...

    def params(self) -> dict[str, Any]: ...

    def modules(self) -> frozenset[str]: ...

    def signature(self, layers: frozenset[Layer]) -> str: ...

    def layer_signature(self, layer: Layer) -> str: ...


@dataclass(frozen=True)
class _Adapter:
    """What every kind shares: name, code, parameters and modules read off the target."""

    target: Any
    kind: ClassVar[str] = ""

    @property
    def name(self) -> str:
        return str(self.target.name)

    @property
    def code(self) -> tuple[str, ...]:
        return tuple(getattr(type(self.target), "code", ()))

    def params(self) -> dict[str, Any]:
        """The fields the target was built with (none for a target that is no dataclass)."""
        if not dataclasses.is_dataclass(self.target):
            return {}
        return {f.name: getattr(self.target, f.name)
                for f in dataclasses.fields(self.target) if f.init and f.repr}

    def modules(self) -> frozenset[str]:
        """The modules the provenance lock records for the target's class (none: a plugin's,
        whose release its signature names instead)."""
        from mtstrata.layers.providers import recorded_modules

        return recorded_modules(type(self.target))

    def layer_signature(self, layer: Layer) -> str:
        return self.signature(frozenset({layer}))


@dataclass(frozen=True)
class AnnotatorProvider(_Adapter):
    """An annotator: assigns the backend layers it ``provides``; its signature names the
    library, model and components the layers need (``layer_signature`` when it has one)."""

    kind: ClassVar[str] = "annotator"

    @property
    def assigns(self) -> frozenset[Layer]:
        return frozenset(self.target.provides)

    @property
    def schemes(self) -> Mapping[Layer, str]:
        return dict(self.target.schemes)

    def requires(self, layer: Layer) -> frozenset[Layer]:
        return frozenset() if layer is Layer.TOKENS else frozenset({Layer.TOKENS})

    def signature(self, layers: frozenset[Layer]) -> str:
        return released(self.target, self.target.signature(layers))

    def layer_signature(self, layer: Layer) -> str:
        one = getattr(self.target, "layer_signature", None)
        sig = one(layer) if one is not None else self.target.signature(frozenset({layer}))
        return released(self.target, sig)


@dataclass(frozen=True)
class LabellerProvider(_Adapter):
    """A role labeller: assigns ``srl`` (PropBank scheme) from the layers it ``needs``. Its
    signature is ``srl-<version>.conv<the srl unit's version>``; a version that does not name
    the labeller (a plugin's) is prefixed with its name, so two labellers never share a
    signature (nor cached roles)."""

    kind: ClassVar[str] = "labeller"

    @property
    def assigns(self) -> frozenset[Layer]:
        return frozenset({Layer.SRL})

    @property
    def schemes(self) -> Mapping[Layer, str]:
        return {Layer.SRL: "propbank"}

    def requires(self, layer: Layer) -> frozenset[Layer]:
        return frozenset(self.target.needs)

    def signature(self, layers: frozenset[Layer]) -> str:
        from mtstrata.layers.providers import version

        lab, v = self.name, str(self.target.version)
        v = v if v.startswith(f"{lab}-") else f"{lab}-{v}"
        return released(self.target, f"srl-{v}.conv{version('srl')}")


@dataclass(frozen=True)
class EmbedderProvider(_Adapter):
    """The sentence-embedding model: assigns ``emb`` from raw text; its signature names the
    model, its weights and the pooling code
    (:attr:`mtstrata.layers.embedding.ModelInfo.signature`), and starts ``emb-`` (prefixed to
    another model's that does not), so that the ``ann`` fact reads its kind back."""

    kind: ClassVar[str] = "embedder"

    @property
    def assigns(self) -> frozenset[Layer]:
        return frozenset({Layer.EMB})

    @property
    def schemes(self) -> Mapping[Layer, str]:
        return {}

    def requires(self, layer: Layer) -> frozenset[Layer]:
        return frozenset()

    def signature(self, layers: frozenset[Layer]) -> str:
        sig = str(self.target.signature)
        return released(self.target, sig if sig.startswith("emb-") else f"emb-{sig}")


@dataclass(frozen=True)
class ExtraProvider(_Adapter):
    """The provider of a plugin layer (:class:`mtstrata.segment.ExtraLayer`), an entry of
    :data:`mtstrata.layers.base.LAYER_PROVIDERS`: ``name`` is the layer's, ``needs`` what it
    reads, ``compute(segments)`` one JSON value per segment. Its signature is
    ``<name>-<version>``, then the release of its distribution (``.dist-NAME==VERSION``)."""

    kind: ClassVar[str] = "extra"

    @property
    def assigns(self) -> frozenset[Layer]:
        return frozenset({ExtraLayer(self.name)})  # type: ignore[arg-type]

    @property
    def schemes(self) -> Mapping[Layer, str]:
        return {}

    def requires(self, layer: Layer) -> frozenset[Layer]:
        return frozenset(self.target.needs)

    def signature(self, layers: frozenset[Layer]) -> str:
        return released(self.target, f"{self.name}-{self.target.version}")


#: the adapter of each kind
ADAPTERS: dict[str, type[_Adapter]] = {
    "annotator": AnnotatorProvider, "labeller": LabellerProvider, "embedder": EmbedderProvider,
    "extra": ExtraProvider}


def as_provider(target: Any, kind: str) -> LayerProvider:
    """``target`` (an annotator, a labeller, an embedding model) seen through the contract;
    an object that already is one is returned as it is."""
    if isinstance(target, _Adapter):
        return target  # type: ignore[return-value]
    return ADAPTERS[kind](target)  # type: ignore[return-value]
