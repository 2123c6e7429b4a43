"""The provider contract and the one registry of providers.

A **provider** fills layers of segments, as a spaCy component does (``Language.factory``
declares what it ``assigns`` and ``requires``): the spaCy and stanza pipelines (tokens,
lemmas, tags, dependencies, entities, chunks from raw text), the role labellers (``srl`` from
those layers), the sentence-embedding model (``emb`` from raw text), a plugin's provider of a
layer of its own. Every one is registered once in :data:`PROVIDERS` (by the module that
defines it, or by another distribution through the entry-point group ``mtstrata.providers``)
and declares, on its class:

* ``assigns``: the layers it can fill, and ``schemes``: the label scheme of each labelled one;
* ``needs``: the layers it reads (empty: the raw text), and ``input_schemes``: the schemes it
  needs of them (the rule labeller reads ClearNLP relations);
* ``runs``: where it computes, ``"worker"`` (in the run's annotation worker pool, together with
  the providers of the same text before it) or ``"main"`` (in the run's process; it may start
  processes of its own, as the embedding model does);
* ``languages``: the target languages it serves (None: any);
* ``default``: whether it is the provider of its layers when a run chooses none (per
  language);
* ``code``: the units of mtstrata's conversion code it runs
  (:data:`mtstrata.layers.code.CODE`), which its signature carries;
* ``signature(layers)``: what its output for ``layers`` depends on (library, model, components,
  code versions), and ``pipe(segments, layers)``: the segments with ``layers`` filled.

The plan (:mod:`mtstrata.layers.planning`) resolves each layer of a run to a provider from this
registry and the driver (:func:`mtstrata.layers.annotate_texts`) computes, stores and reads
every layer the same way, through its codec (:mod:`mtstrata.payloads`). Adding a provider, or
a layer of a new kind with its codec, is one module.

:class:`ProviderBase` gives the declarations their defaults; :class:`Labeller` (a provider of
``srl`` from :meth:`Labeller.label`) and :class:`ComputedLayer` (a provider of one layer of
another kind, named after it, from :meth:`ComputedLayer.compute`) are the two shapes most
providers take.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from mtstrata import payloads as _payloads
from mtstrata.registry import Registry
from mtstrata.segment import ExtraLayer, Frame, Layer, Segment

#: Label schemes by name (what a ``schemes`` mapping may say).
SCHEMES = {
    "clearnlp": "ClearNLP dependency relations (spaCy's English models)",
    "ud": "Universal Dependencies relations (stanza)",
    "ptb": "Penn Treebank part-of-speech tags (plus universal POS tags)",
    "upos": "universal POS tags (UD; the language's own fine tags, where given, beside them)",
    "ontonotes": "OntoNotes 5 entity types",
    "conll": "the common entity set PER, LOC, ORG, MISC (CoNLL-2002/2003's types; "
             "docs/languages.md)",
    "propbank": "PropBank semantic roles",
}
#: where a provider computes (see the module docstring)
RUNS = ("worker", "main")

#: every provider: this package's modules register theirs on import, other distributions
#: through the entry-point group ``mtstrata.providers``
PROVIDERS: Registry[Any] = Registry("provider", list_command="mtstrata list annotators",
                                    plugin_package="mtstrata.layers",
                                    entry_points="mtstrata.providers")


def _declared(factory: Any) -> frozenset[Layer | ExtraLayer]:
    """The layers of other kinds a registered provider declares (a provider named after its
    layer, :class:`ComputedLayer`: that layer, a built-in one's name included)."""
    got = getattr(factory, "assigns", frozenset())
    if isinstance(got, property):
        name = getattr(factory, "name", "")
        return frozenset({Layer(name) if name in {x.value for x in Layer}
                          else ExtraLayer(name)})
    return frozenset(x for x in got if isinstance(x, ExtraLayer))


def check_plugin_layer(plugin: Any, layer: str, what: str, factory: Any = None) -> None:
    """Refuse a layer ``plugin`` (a :class:`mtstrata.plugins.Plugin`) declares, by a provider
    (``factory``) or a codec (``what`` says which), when its name is a built-in layer's
    (:class:`Layer`, or a layer of another kind a built-in provider gives, ``constituents``) or
    the layer of another distribution's provider or codec: its rows would be read, keyed and
    decoded as the other's."""
    from mtstrata import payloads, plugins

    PROVIDERS._load_builtins()
    clash = ""
    if layer in {x.value for x in Layer}:
        clash = f"mtstrata's built-in layer {layer}"
    for key, e in PROVIDERS._exact.items():
        if e.factory is factory or layer not in {x.value for x in _declared(e.factory)}:
            continue
        other = plugins.owner(PROVIDERS.kind, key)
        if other is None:
            clash = clash or f"mtstrata's built-in layer {layer} (of the provider {e.name})"
        elif other.dist != plugin.dist:
            clash = clash or (f"the layer {layer} of the provider {e.name} of the distribution "
                              f"{other.dist} {other.version}")
    holder = payloads.CODEC_OWNERS.get(layer, plugin)
    if not clash and (holder is None or holder.dist != plugin.dist):
        clash = (f"mtstrata's built-in layer {layer} (its codec)" if holder is None else
                 f"the layer {layer} whose codec the distribution {holder.dist} "
                 f"{holder.version} registers")
    if clash:
        raise plugins.PluginError(
            f"{plugin.describe()} {what} the layer {layer!r}, which is {clash}: a layer of a "
            "plugin's own needs a name of its own. Rename the layer (its provider's name) in "
            "that distribution, or uninstall it.")


def check_codec(layer: str, caller: str) -> Any:
    """:data:`mtstrata.payloads.CODEC_CHECKS`' check: a codec a plugin registers (while its
    entry point loads, from a module outside mtstrata) passes :func:`check_plugin_layer`; its
    plugin is the codec's owner (None: mtstrata's own)."""
    from mtstrata import plugins

    plugin = plugins.current()
    if plugin is None or caller.partition(".")[0] == "mtstrata":
        return None
    check_plugin_layer(plugin, layer, "registers a codec for")
    return plugin


_payloads.CODEC_CHECKS.append(check_codec)


def _vet(name: str, factory: Any) -> None:
    """What a plugin's provider may not claim besides a built-in provider's name (checked by
    the registry): its ``name``, when it differs from the name it is registered under, being a
    built-in provider's; a layer of its own named as a built-in or another distribution's
    layer (:func:`check_plugin_layer`)."""
    from mtstrata import plugins

    plugin = plugins.current()
    own = getattr(factory, "name", None)
    if isinstance(own, str) and own.lower() != name.lower() and \
            own.lower() in PROVIDERS._exact and plugins.owner(PROVIDERS.kind, own) is None:
        raise plugins.PluginError(
            f"{plugin.describe()} registers a provider named {own!r}, which is the built-in "
            f"provider {own}: a plugin cannot pass for mtstrata. Rename it in that "
            "distribution, or uninstall it.")
    try:
        layers = _declared(factory)
    except ValueError as e:
        raise plugins.PluginError(f"{plugin.describe()} declares a layer no provider can "
                                  f"give: {e}. Rename it in that distribution.") from None
    for layer in layers:
        check_plugin_layer(plugin, layer.value, "declares", factory)


PROVIDERS.vet = _vet


@runtime_checkable
class Provider(Protocol):
    """What the plan, the driver and the cache know of a provider (see the module docstring).
    :class:`ProviderBase` gives every attribute but ``name``, ``assigns``, :meth:`signature`
    and :meth:`pipe` a default."""

    name: str
    assigns: frozenset[Layer]
    schemes: Mapping[Layer, str]
    needs: frozenset[Layer]
    input_schemes: Mapping[Layer, str]
    runs: str
    languages: frozenset[str] | None
    default: bool
    code: tuple[str, ...]

    def requires(self, layer: Layer) -> frozenset[Layer]: ...

    def bundle(self, layers: frozenset[Layer]) -> frozenset[Layer]: ...

    def signature(self, layers: frozenset[Layer]) -> str: ...

    def layer_signature(self, layer: Layer) -> str: ...

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]: ...


class ProviderBase:
    """The defaults of the declarations (see the module docstring). A subclass sets at least
    ``name`` and ``assigns`` and defines :meth:`signature` and :meth:`pipe`."""

    name: ClassVar[str]
    assigns: ClassVar[frozenset[Layer]]
    schemes: ClassVar[Mapping[Layer, str]] = {}
    needs: ClassVar[frozenset[Layer]] = frozenset()
    input_schemes: ClassVar[Mapping[Layer, str]] = {}
    runs: ClassVar[str] = "worker"
    languages: ClassVar[frozenset[str] | None] = None
    default: ClassVar[bool] = False
    code: ClassVar[tuple[str, ...]] = ()
    #: the layer whose rows carry the segment's sentence starts (see
    #: :func:`mtstrata.payloads.layer_payloads`): a provider of tokens that splits sentences
    sentences_from: ClassVar[Layer] = Layer.TOKENS

    def requires(self, layer: Layer) -> frozenset[Layer]:
        """What ``layer`` is computed from: what the provider reads; for a provider that reads
        raw text, its tokens (a layer it assigns indexes them), or nothing for the tokens."""
        if self.needs:
            return self.needs
        return frozenset({Layer.TOKENS}) if (Layer.TOKENS in self.assigns
                                             and layer is not Layer.TOKENS) else frozenset()

    def bundle(self, layers: frozenset[Layer]) -> frozenset[Layer]:
        """The layers to compute when ``layers`` are missing (default: those)."""
        return frozenset(layers)

    def layer_signature(self, layer: Layer) -> str:
        return self.signature(frozenset({layer}))  # type: ignore[attr-defined, no-any-return]

    def fits(self, text: str, seg: Segment) -> bool:
        """Whether the layers it gives, read back from the cache into ``seg``, are its output
        for ``text`` (False: a row of another text, a miss: computed again). Default: yes."""
        return True

    def params(self) -> dict[str, Any]:
        """The fields it was built with (none for a provider that is no dataclass)."""
        if not dataclasses.is_dataclass(self):
            return {}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.init and f.repr}


class Labeller(ProviderBase):
    """A semantic-role labeller: a provider of ``srl`` (PropBank roles) from the layers it
    ``needs`` (ClearNLP relations: ``dep_scheme``). A subclass sets ``name``, ``version`` and
    defines :meth:`label`. Its signature is ``srl-<name>-<version>.conv<the srl unit>``, so two
    labellers never share cached roles."""

    assigns: ClassVar[frozenset[Layer]] = frozenset({Layer.SRL})
    schemes: ClassVar[Mapping[Layer, str]] = {Layer.SRL: "propbank"}
    needs: ClassVar[frozenset[Layer]] = frozenset(
        {Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP})
    dep_scheme: ClassVar[str] = "clearnlp"
    languages: ClassVar[frozenset[str] | None] = frozenset({"en"})
    code: ClassVar[tuple[str, ...]] = ("srl",)
    version: Any = ""

    @property
    def input_schemes(self) -> Mapping[Layer, str]:  # type: ignore[override]
        return {Layer.DEP: self.dep_scheme}

    def label(self, segments: Sequence[Segment]) -> list[tuple[Frame, ...]]:
        """The frames of each segment."""
        raise NotImplementedError(f"the labeller {self.name!r} defines no label()")

    def signature(self, layers: frozenset[Layer]) -> str:
        from mtstrata.layers.code import version

        v = str(self.version)
        v = v if v.startswith(f"{self.name}-") else f"{self.name}-{v}"
        return f"srl-{v}.conv{version('srl')}"

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        for chunk in _chunks(segments, 1000):
            yield from add_frames(chunk, self)


def add_frames(segs: Sequence[Segment], labeller: Labeller) -> list[Segment]:
    """``segs`` with the labeller's frames and :attr:`Layer.SRL` declared (even if no frame)."""
    frames = labeller.label(segs)
    return [dataclasses.replace(s, frames=tuple(f), layers=s.layers | {Layer.SRL},
                                schemes=tuple(sorted(dict(s.schemes, srl="propbank").items())))
            for s, f in zip(segs, frames, strict=True)]


class ComputedLayer(ProviderBase):
    """The provider of one layer of another kind (:class:`~mtstrata.segment.ExtraLayer`),
    named after it: a subclass sets ``name``, ``version``, ``needs`` and defines
    :meth:`compute` (one value per segment, which the layer's codec stores: JSON unless the
    module registers another, :func:`mtstrata.payloads.register_codec`). Its signature is
    ``<name>-<version>``; it is the default provider of its layer."""

    default: ClassVar[bool] = True
    version: Any = ""

    @property
    def assigns(self) -> frozenset[Layer]:  # type: ignore[override]
        return frozenset({ExtraLayer(self.name)})  # type: ignore[arg-type]

    def compute(self, segments: Sequence[Segment]) -> list[Any]:
        raise NotImplementedError(f"the provider {self.name!r} defines no compute()")

    def signature(self, layers: frozenset[Layer]) -> str:
        return f"{self.name}-{self.version}"

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        (layer,) = self.assigns
        for chunk in _chunks(segments, 1000):
            values = self.compute(chunk)
            if len(values) != len(chunk):
                raise ValueError(f"the provider {self.name!r} gave {len(values)} values for "
                                 f"{len(chunk)} segments")
            yield from (s.with_value(layer, v) for s, v in zip(chunk, values, strict=True))


def _chunks(items: Iterable[Segment], size: int) -> Iterator[list[Segment]]:
    chunk: list[Segment] = []
    for s in items:
        chunk.append(s)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def released(provider: Any, sig: str) -> str:
    """A provider's signature, ending with what its code is when its own version does not say
    it: ``.code-HASH`` for mtstrata's code edited since the provenance lock recorded it
    (:func:`mtstrata.layers.code.code_mark`), ``.dist-NAME==VERSION`` for another
    distribution's (a plugin's release). mtstrata's recorded code adds nothing."""
    from mtstrata.layers.code import code_mark
    from mtstrata.signature import plugin_fact

    mark, dist = code_mark(type(provider)), plugin_fact(type(provider))
    return sig + (f".code-{mark}" if mark else "") + (f".dist-{dist}" if dist else "")


def ann_kind(provider: Any) -> str:
    """How an ``ann`` signature fact names the provider's part
    (:class:`mtstrata.signature.Ann`): ``annotator`` for the provider of the tokens (its part
    comes first and has no head), ``labeller`` for a provider of roles (``srl-...``),
    ``embedder`` for the embedding model's (``emb-...``), ``extra`` for any other
    (``NAME-...``). A rendering rule of the signature, not a kind the run branches on."""
    assigns = frozenset(provider.assigns)
    if Layer.TOKENS in assigns:
        return "annotator"
    if assigns == {Layer.SRL}:
        return "labeller"
    if assigns == {Layer.EMB}:
        return "embedder"
    return "extra"


def ann_part(provider: Any, layers: frozenset[Layer]) -> tuple[str, str]:
    """The provider's part of an ``ann`` fact for ``layers``: its :func:`ann_kind` and its
    signature (:func:`released`), with the head its kind is read back by (``srl-``,
    ``emb-``) put in front of a signature that lacks it (a plugin's embedding model)."""
    from mtstrata.signature import KIND_HEADS

    kind, sig = ann_kind(provider), provider.signature(frozenset(layers))
    head = KIND_HEADS.get(kind, "")
    return kind, released(provider, sig if sig.startswith(head) else head + sig)


_SPECIAL = re.compile(r"[\\<>;]")


@dataclass(frozen=True)
class LayerKey:
    """What a layer's cached rows are keyed by, as a value: the layer's name, its provider's
    signature and the keys of the layers that provider requires (sorted by name), rendered
    ``NAME=SIGNATURE<KEY;KEY>`` (:meth:`mtstrata.layers.planning.Plan.layer_key`). ``\\``, ``<``,
    ``>`` and ``;`` in a signature are escaped with ``\\``, so any signature round-trips
    through :meth:`parse`; the built-in providers' signatures hold none of them."""

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
