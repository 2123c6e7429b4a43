"""Backend-neutral annotated segments.

A :class:`Segment` is one line of input (a hypothesis or a reference) with whatever linguistic
layers an annotator filled in. Tokens follow CoNLL-U conventions: ``head`` is 1-based over the
tokens of the *whole segment* with 0 for a root, so a segment holding several sentences is a
forest with one root per sentence, and ``sent_starts`` records where each sentence begins.

Segments are immutable and round-trip through JSON (the annotation cache stores them that way;
no pickle). ``Segment.from_words`` builds annotated segments by hand for tests.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np


class Layer(str, enum.Enum):
    """The linguistic layers an annotator can fill and a metric can require."""

    TOKENS = "tokens"
    LEMMA = "lemma"
    POS = "pos"  # universal (upos) and fine-grained (xpos) tags
    DEP = "dep"  # head and relation per token
    NER = "ner"  # typed entity spans
    CHUNKS = "chunks"  # noun / base chunks
    SRL = "srl"  # predicates with typed argument spans
    EMB = "emb"  # contextual token vectors and a sentence vector (mtstrata.layers.embedding)

    def __str__(self) -> str:
        return self.value


_EXTRA_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


@dataclass(frozen=True, slots=True)
class ExtraLayer:
    """A layer of another kind than the built-in :class:`Layer` ones, named by its value (as a
    :class:`Layer`'s, so that its rows are keyed like theirs: ``NAME=<provider signature>``):
    constituents, a plugin's layer. Its provider is registered like every other
    (:data:`mtstrata.layers.provider.PROVIDERS`), and its stored form is the codec registered
    for its name (:func:`mtstrata.payloads.register_codec`; JSON by default). A segment holds
    its decoded value (:meth:`Segment.value`)."""

    value: str

    def __post_init__(self) -> None:
        if not _EXTRA_NAME.fullmatch(self.value) or self.value in {x.value for x in Layer}:
            raise ValueError(f"{self.value!r} cannot name a layer: a layer is named in "
                             "lower case (letters, digits and single hyphens) and not as a "
                             "built-in layer (" + ", ".join(x.value for x in Layer) + ")")

    def __str__(self) -> str:
        return self.value


def layer_named(name: str) -> Layer | ExtraLayer:
    """The layer of that name: a built-in :class:`Layer`, else an :class:`ExtraLayer`
    (ValueError for a name no layer can have)."""
    try:
        return Layer(name)
    except ValueError:
        return ExtraLayer(name)


#: where a segment holds the value of each built-in layer that is not a token column
FIELDS = {Layer.NER: "entities", Layer.CHUNKS: "chunks", Layer.SRL: "frames", Layer.EMB: "emb"}


@dataclass(frozen=True, slots=True)
class Token:
    """One token. ``head`` is 1-based over the segment's tokens, 0 for a root, None if unparsed."""

    form: str
    lemma: str | None = None
    upos: str | None = None
    xpos: str | None = None
    head: int | None = None
    deprel: str | None = None


@dataclass(frozen=True, slots=True)
class Span:
    """Tokens ``start`` (inclusive) to ``end`` (exclusive), 0-based, with a label."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class Frame:
    """A predicate (0-based token index) and its labelled argument spans (PropBank roles)."""

    predicate: int
    args: tuple[Span, ...] = ()


@dataclass(frozen=True, eq=False)
class Embedding:
    """The ``emb`` layer of one text: its 13a tokens, one vector per token and a sentence
    vector (see :mod:`mtstrata.layers.embedding`). Equal when every value is bit-identical."""

    tokens: tuple[str, ...]
    vectors: np.ndarray  # (len(tokens), dim) float16
    sentence: np.ndarray  # (dim,) float16

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Embedding) and self.tokens == other.tokens
                and self.vectors.dtype == other.vectors.dtype
                and self.vectors.tobytes() == other.vectors.tobytes()
                and self.sentence.tobytes() == other.sentence.tobytes())

    def __hash__(self) -> int:
        return hash((self.tokens, self.sentence.tobytes()))


@dataclass(frozen=True, slots=True)
class Segment:
    """An annotated segment. ``layers`` says which layers are filled (empty: raw text only)."""

    text: str
    tokens: tuple[Token, ...] = ()
    entities: tuple[Span, ...] = ()
    chunks: tuple[Span, ...] = ()
    frames: tuple[Frame, ...] = ()
    sent_starts: tuple[int, ...] = (0,)
    layers: frozenset[Layer] = field(default_factory=frozenset)
    #: the label scheme of each labelled layer, e.g. ``{"dep": "clearnlp", "pos": "ptb"}``
    #: (as ``(layer, scheme)`` pairs; see mtstrata.layers.provider.SCHEMES)
    schemes: tuple[tuple[str, str], ...] = ()
    #: the ``emb`` layer (None unless :attr:`Layer.EMB` is filled); not part of the JSON form
    emb: Embedding | None = None
    #: the layers of other kinds (:class:`ExtraLayer`) filled: ``(name, value)`` pairs, sorted
    #: by name (a value as its layer's codec decodes it)
    extra: tuple[tuple[str, Any], ...] = ()

    def __hash__(self) -> int:  # (a layer value may be a list: hashed by what identifies it)
        return hash((self.text, self.tokens, self.layers))

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_text(cls, text: str) -> Segment:
        """A segment with no annotation: what lexical metrics work on."""
        return cls(text=text)

    @classmethod
    def from_words(
        cls,
        words: Sequence[str] | str,
        *,
        lemmas: Sequence[str] | None = None,
        upos: Sequence[str] | None = None,
        xpos: Sequence[str] | None = None,
        heads: Sequence[int] | None = None,
        deprels: Sequence[str] | None = None,
        entities: Iterable[tuple[int, int, str]] = (),
        chunks: Iterable[tuple[int, int, str]] = (),
        frames: Iterable[tuple[int, Iterable[tuple[int, int, str]]]] = (),
        sent_starts: Sequence[int] = (0,),
    ) -> Segment:
        """Build an annotated segment by hand (tests, examples); no model is loaded.

        ``words`` may be a whitespace-separated string. Heads are 1-based, 0 = root.
        ``frames`` are ``(predicate_index, [(start, end, role), ...])``.
        """
        if isinstance(words, str):
            words = words.split()
        n = len(words)
        for name, seq in (("lemmas", lemmas), ("upos", upos), ("xpos", xpos),
                          ("heads", heads), ("deprels", deprels)):
            if seq is not None and len(seq) != n:
                raise ValueError(f"{name} has {len(seq)} items for {n} words")
        toks = tuple(
            Token(
                form=w,
                lemma=lemmas[i] if lemmas is not None else None,
                upos=upos[i] if upos is not None else None,
                xpos=xpos[i] if xpos is not None else None,
                head=heads[i] if heads is not None else None,
                deprel=deprels[i] if deprels is not None else None,
            )
            for i, w in enumerate(words)
        )
        layers = {Layer.TOKENS}
        if lemmas is not None:
            layers.add(Layer.LEMMA)
        if upos is not None or xpos is not None:
            layers.add(Layer.POS)
        if heads is not None:
            layers.add(Layer.DEP)
        ents = tuple(Span(s, e, lab) for s, e, lab in entities)
        chs = tuple(Span(s, e, lab) for s, e, lab in chunks)
        frs = tuple(Frame(p, tuple(Span(s, e, lab) for s, e, lab in args)) for p, args in frames)
        if ents:
            layers.add(Layer.NER)
        if chs:
            layers.add(Layer.CHUNKS)
        if frs:
            layers.add(Layer.SRL)
        return cls(
            text=" ".join(words),
            tokens=toks,
            entities=ents,
            chunks=chs,
            frames=frs,
            sent_starts=tuple(sent_starts),
            layers=frozenset(layers),
        )

    def with_layers(self, *layers: Layer) -> Segment:
        """The same segment declaring extra filled layers (e.g. an empty NER result)."""
        return Segment(self.text, self.tokens, self.entities, self.chunks, self.frames,
                       self.sent_starts, self.layers | frozenset(layers), self.schemes, self.emb,
                       self.extra)

    def value(self, layer: Layer | ExtraLayer) -> Any:
        """The value of a layer that is not a token column: entities, chunks, frames, the
        embedding, or the decoded value of a layer of another kind (a KeyError when the segment
        does not hold that one)."""
        if isinstance(layer, ExtraLayer):
            return self.extra_layer(layer.value)
        return getattr(self, FIELDS[layer])

    def with_value(self, layer: Layer | ExtraLayer, value: Any) -> Segment:
        """The same segment holding ``value`` as ``layer`` (declared filled): what a provider
        that adds a layer to segments returns."""
        if isinstance(layer, ExtraLayer):
            extra = tuple(sorted({**dict(self.extra), layer.value: value}.items()))
            return replace(self, extra=extra, layers=self.layers | {layer})
        return replace(self, layers=self.layers | {layer}, **{FIELDS[layer]: value})

    def extra_layer(self, name: str) -> Any:
        """The value of the layer of another kind ``name``, or a KeyError when the segment
        does not hold it."""
        for k, v in self.extra:
            if k == name:
                return v
        raise KeyError(f"the segment holds no {name!r} layer")

    # ----------------------------------------------------------------- views
    @property
    def words(self) -> list[str]:
        return [t.form for t in self.tokens]

    def children(self) -> list[list[int]]:
        """0-based child indices of every token (dependency layer)."""
        kids: list[list[int]] = [[] for _ in self.tokens]
        for i, t in enumerate(self.tokens):
            if t.head:
                kids[t.head - 1].append(i)
        return kids

    def is_consistent(self) -> bool:
        """Whether every index points inside the segment (heads, spans, predicates, sentence
        starts): what a damaged cache row or a hand edit could break."""
        n = len(self.tokens)
        if any(t.head is not None and not 0 <= t.head <= n for t in self.tokens):
            return False
        spans = [*self.entities, *self.chunks, *(a for f in self.frames for a in f.args)]
        if any(not 0 <= s.start <= s.end <= n for s in spans):
            return False
        if any(not 0 <= f.predicate < n for f in self.frames):
            return False
        return all(0 <= s <= max(n, 1) for s in self.sent_starts)

    def roots(self) -> list[int]:
        return [i for i, t in enumerate(self.tokens) if t.head == 0]

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": [[t.form, t.lemma, t.upos, t.xpos, t.head, t.deprel] for t in self.tokens],
            "entities": [[s.start, s.end, s.label] for s in self.entities],
            "chunks": [[s.start, s.end, s.label] for s in self.chunks],
            "frames": [[f.predicate, [[a.start, a.end, a.label] for a in f.args]]
                       for f in self.frames],
            "sent_starts": list(self.sent_starts),
            # the emb layer's vectors are stored by the annotation cache, not in JSON
            "layers": sorted(layer.value for layer in self.layers
                             if isinstance(layer, Layer) and layer is not Layer.EMB),
            **({"schemes": dict(self.schemes)} if self.schemes else {}),
            **({"extra": dict(self.extra)} if self.extra else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Segment:
        return cls(
            text=d["text"],
            tokens=tuple(Token(*t) for t in d.get("tokens", ())),
            entities=tuple(Span(*s) for s in d.get("entities", ())),
            chunks=tuple(Span(*s) for s in d.get("chunks", ())),
            frames=tuple(Frame(p, tuple(Span(*a) for a in args))
                         for p, args in d.get("frames", ())),
            sent_starts=tuple(d.get("sent_starts", (0,))),
            layers=frozenset([*(Layer(x) for x in d.get("layers", ())),
                              *(ExtraLayer(x) for x in d.get("extra", {}))]),
            schemes=tuple(sorted(d.get("schemes", {}).items())),
            extra=tuple(sorted(d.get("extra", {}).items())),
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, s: str) -> Segment:
        return cls.from_dict(json.loads(s))
