"""The stored form of each layer of a text, and the assembly of a segment from its layers.

Every layer has a **codec** (:class:`Codec`), registered under the layer's name
(:data:`CODECS`): how its value is written as one payload (a cache row, what a worker sends
back), read back and checked. The built-in layers' codecs are below (JSON text; the ``emb``
layer float16 bytes); a layer of another kind registers its own with :func:`register_codec`
in the module that defines it (JSON when it registers none). The annotation cache stores the
payloads (:mod:`mtstrata.cache`), workers send them, and every segment of a run is built from
them (:class:`SegmentAssembler`), whether they were cached or just computed. Part of every
provider's code version (:data:`mtstrata.layers.code.CODE`).
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
import struct
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from mtstrata.segment import FIELDS, Embedding, ExtraLayer, Frame, Layer, Segment, Span, Token

_COMPACT = {"ensure_ascii": False, "separators": (",", ":")}


class Codec:
    """How one layer's value is stored: :meth:`encode` from a segment, :meth:`decode` back,
    :meth:`valid` for a payload read back (a row edited by hand or damaged is a miss,
    recomputed, never a crash or a number). The default is JSON text of any value.

    Attributes:
        column: the layer is a column of the segment's tokens (forms, lemmas, tags, heads):
            the assembler builds the tokens from the columns together.
        shape_key: a codec whose payloads have a shape that every row of one layer shares (the
            width of the ``emb`` vectors) names it; the cache records the shape of a layer's
            first rows under ``"<shape_key> <layer key>"`` and treats rows of another shape as
            misses (:meth:`shape`).
    """

    column: ClassVar[bool] = False
    shape_key: ClassVar[str] = ""

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str | bytes:
        return json.dumps(seg.value(layer), **_COMPACT)  # type: ignore[arg-type]

    def decode(self, payload: str | bytes) -> Any:
        return json.loads(payload)

    def valid(self, payload: object) -> bool:
        if not isinstance(payload, str):
            return False
        try:
            json.loads(payload)
        except (ValueError, RecursionError):
            return False
        return True

    def shape(self, payload: object) -> object:
        """The shape of a payload (None: the codec has none, or the payload is no row)."""
        return None


def _array(item: str) -> str:
    return rf"{_O}(?:{item}(?:{_C}{item})*)?{_E}"


# "[", ",", "]" as the codecs write them (compact: a row spaced otherwise is a miss)
_O, _C, _E = r"\[", ",", r"\]"
_STR = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # (unrolled: no alternation per character)
_STRN, _INT, _INTN = f"(?:{_STR}|null)", r"\d+", r"(?:\d+|null)"
_SPAN = rf"{_O}{_INT}{_C}{_INT}{_C}{_STR}{_E}"


class _Form(Codec):
    """JSON text of one shape, checked by one regular expression (in C, without decoding it a
    second time: nesting deeper than the layer's fails it too): no floats, no booleans (a
    head, an index or a span bound is a non-negative integer)."""

    form: ClassVar[re.Pattern[str]]

    def valid(self, payload: object) -> bool:
        return isinstance(payload, str) and self.form.fullmatch(payload) is not None


class _Tokens(_Form):
    column = True
    form = re.compile(rf"{_O}{_array(_STR)}(?:{_C}{_array(_INT)})?{_E}", re.DOTALL)

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str:
        v: list[Any] = [[t.form for t in seg.tokens]]
        if sentences_from is Layer.TOKENS:
            v.append(list(seg.sent_starts))
        return json.dumps(v, **_COMPACT)  # type: ignore[arg-type]


class _Lemma(_Form):
    column = True
    form = re.compile(_array(_STRN), re.DOTALL)

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str:
        return json.dumps([t.lemma for t in seg.tokens], **_COMPACT)  # type: ignore[arg-type]


class _Pos(_Form):
    column = True
    form = re.compile(rf"{_O}{_array(_STRN)}{_C}{_array(_STRN)}{_E}", re.DOTALL)

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str:
        return json.dumps([[t.upos for t in seg.tokens], [t.xpos for t in seg.tokens]],
                          **_COMPACT)  # type: ignore[arg-type]


class _Dep(_Form):
    column = True
    form = re.compile(rf"{_O}{_array(_INTN)}{_C}{_array(_STRN)}(?:{_C}{_array(_INT)})?{_E}",
                      re.DOTALL)

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str:
        v: list[Any] = [[t.head for t in seg.tokens], [t.deprel for t in seg.tokens]]
        if sentences_from is Layer.DEP:
            v.append(list(seg.sent_starts))
        return json.dumps(v, **_COMPACT)  # type: ignore[arg-type]


class _Spans(_Form):
    form = re.compile(_array(_SPAN), re.DOTALL)

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str:
        return json.dumps([[x.start, x.end, x.label] for x in seg.value(layer)],
                          **_COMPACT)  # type: ignore[arg-type]

    def decode(self, payload: str | bytes) -> tuple[Span, ...]:
        return tuple(Span(*x) for x in json.loads(payload))


class _Frames(_Form):
    form = re.compile(_array(rf"{_O}{_INT}{_C}{_array(_SPAN)}{_E}"), re.DOTALL)

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> str:
        return json.dumps([[f.predicate, [[a.start, a.end, a.label] for a in f.args]]
                           for f in seg.frames], **_COMPACT)  # type: ignore[arg-type]

    def decode(self, payload: str | bytes) -> tuple[Frame, ...]:
        return tuple(Frame(p, tuple(Span(*a) for a in args)) for p, args in json.loads(payload))


EMB_MAGIC = b"mtsE1"


def emb_payload(e: Embedding) -> bytes:
    """One text's ``emb`` layer as bytes: its tokens (JSON) and float16 vectors, sentence
    vector first."""
    toks = json.dumps(list(e.tokens), ensure_ascii=False).encode()
    arr = np.vstack([e.sentence[None, :], e.vectors]).astype(np.float16)
    return (EMB_MAGIC + struct.pack("<II", len(toks), arr.shape[1]) + toks
            + arr.tobytes())


def emb_from_payload(blob: bytes) -> Embedding:
    """The inverse of :func:`emb_payload` (ValueError when the bytes are not one)."""
    if not isinstance(blob, bytes) or not blob.startswith(EMB_MAGIC):
        raise ValueError("not an emb payload")
    n, dim = struct.unpack_from("<II", blob, len(EMB_MAGIC))
    at = len(EMB_MAGIC) + 8
    tokens = tuple(json.loads(blob[at:at + n]))
    arr = np.frombuffer(blob, dtype=np.float16, offset=at + n).reshape(len(tokens) + 1, dim)
    return Embedding(tokens, arr[1:], arr[0])


def checked_emb(blob: bytes) -> Embedding:
    """:func:`emb_from_payload` of a row read back: its tokens text, its vectors finite and of
    a width (ValueError otherwise: a NaN or inf vector scored EMB-F 0.0, silently)."""
    e = emb_from_payload(blob)
    if not all(isinstance(t, str) for t in e.tokens) or e.sentence.shape[0] < 1:
        raise ValueError("not an emb payload")
    if not (np.isfinite(e.vectors).all() and np.isfinite(e.sentence).all()):
        raise ValueError("non-finite vector")
    return e


def emb_width(blob: object) -> int | None:
    """The vector width an emb payload's header states (None: not an emb payload)."""
    if not isinstance(blob, bytes) or not blob.startswith(EMB_MAGIC) or \
            len(blob) < len(EMB_MAGIC) + 8:
        return None
    return int(struct.unpack_from("<I", blob, len(EMB_MAGIC) + 4)[0])


class _Emb(Codec):
    """float16 vectors behind a small header (:func:`emb_payload`); rows of one layer share
    their width (a width is a fact of the model: a row of another is damaged or edited)."""

    shape_key = "emb_width"

    def encode(self, seg: Segment, layer: Layer | ExtraLayer, sentences_from: Layer) -> bytes:
        if seg.emb is None:
            raise ValueError("the segment holds no emb layer")
        return emb_payload(seg.emb)

    def decode(self, payload: str | bytes) -> Embedding:
        return emb_from_payload(payload)  # type: ignore[arg-type]

    def valid(self, payload: object) -> bool:
        try:
            checked_emb(payload)  # type: ignore[arg-type]
        except (ValueError, TypeError, struct.error, RecursionError):
            return False
        return True

    def shape(self, payload: object) -> object:
        return emb_width(payload)


#: layer name -> its codec (the built-in layers'; others register theirs)
CODECS: dict[str, Codec] = {
    Layer.TOKENS.value: _Tokens(), Layer.LEMMA.value: _Lemma(), Layer.POS.value: _Pos(),
    Layer.DEP.value: _Dep(), Layer.NER.value: _Spans(), Layer.CHUNKS.value: _Spans(),
    Layer.SRL.value: _Frames(), Layer.EMB.value: _Emb()}
_JSON = Codec()


#: layer name -> the plugin that registered its codec (None: mtstrata's own)
CODEC_OWNERS: dict[str, Any] = {}
#: checks every codec registration passes, installed by the provider registry (which knows the
#: plugins: :func:`mtstrata.layers.provider.check_codec`): each gets the layer's name and the
#: registering module's, and returns the plugin to record as its owner (None: mtstrata's own)
#: or raises
CODEC_CHECKS: list[Callable[[str, str], Any]] = []


def register_codec(layer: ExtraLayer, codec: Codec) -> None:
    """Store the layer ``layer`` with ``codec`` (called by the module that defines the layer;
    registering it again with a codec of the same class is a no-op). A plugin (another
    distribution, while its entry point loads) may not register one over a built-in layer or
    another distribution's (:data:`CODEC_CHECKS`)."""
    caller = sys._getframe(1).f_globals.get("__name__", "") or ""
    plugin = None
    for check in CODEC_CHECKS:
        plugin = check(layer.value, caller) or plugin
    CODEC_OWNERS.setdefault(layer.value, plugin)
    have = CODECS.get(layer.value)
    if have is not None and type(have) is not type(codec):
        raise ValueError(f"the layer {layer} has a codec already ({type(have).__name__})")
    CODECS[layer.value] = codec


def codec_of(layer: Layer | ExtraLayer) -> Codec:
    """The codec of ``layer`` (JSON for a layer of another kind that registered none)."""
    return CODECS.get(layer.value, _JSON)


def layer_payloads(seg: Segment, layers: Iterable[Layer | ExtraLayer],
                   sentences_from: Layer = Layer.DEP) -> dict[Layer | ExtraLayer, str | bytes]:
    """The payload of each of ``layers`` of ``seg`` (what one cache row holds).

    ``sentences_from`` is the layer whose provider splits sentences: the parser's dependency
    layer for spaCy, the tokenizer for stanza; ``seg.sent_starts`` is stored with that layer
    only, so a tokens row never carries a parser's sentence starts.
    """
    return {layer: codec_of(layer).encode(seg, layer, sentences_from) for layer in layers}


def drop_other_shapes(layer: Layer | ExtraLayer, found: dict[str, dict[Any, str | bytes]],
                      want: object) -> None:
    """Drop the rows of ``layer`` (in ``found``: text -> layer -> payload) whose shape is not
    ``want``, the layer's (recorded when it was first stored; None: the shape most rows have):
    such a row is damaged or edited, a miss, where comparing it with others failed."""
    codec = codec_of(layer)
    shapes = {t: codec.shape(p[layer]) for t, p in found.items() if layer in p}
    if want is None and shapes:
        counts: dict[object, int] = {}
        for w in shapes.values():
            counts[w] = counts.get(w, 0) + 1
        want = max(counts, key=lambda w: counts[w])
    for t, w in shapes.items():
        if w != want:
            del found[t][layer]


def valid_row(layer: Layer | ExtraLayer, payload: object) -> bool:
    """Whether a row read back from the cache is one the layer's codec could have written. A
    row edited by hand or damaged is a miss (recomputed), never a crash or a number; rows just
    computed are not checked (they are ours)."""
    return codec_of(layer).valid(payload)


class SegmentAssembler:
    """Builds a :class:`Segment` from its layers' payloads, sharing equal tokens between
    segments (a corpus repeats them: building each distinct one once is most of a warm run's
    time). Returns None for payloads that do not fit together (a damaged row)."""

    def __init__(self) -> None:
        self.tokens: dict[tuple[object, ...], Token] = {}
        self.layer_sets: dict[frozenset[Any], frozenset[Any]] = {}

    def __call__(self, text: str, payloads: Mapping[Any, str | bytes],
                 schemes: Mapping[Layer, str]) -> Segment | None:
        try:
            return self._build(text, payloads, schemes)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, struct.error,
                RecursionError):
            return None

    def _build(self, text: str, payloads: Mapping[Any, str | bytes],
               schemes: Mapping[Layer, str]) -> Segment | None:
        cols: dict[Layer, Any] = {}
        values: dict[Any, Any] = {}
        for layer, v in payloads.items():
            codec = codec_of(layer)
            (cols if codec.column else values)[layer] = codec.decode(v)
        tok = cols.get(Layer.TOKENS)
        forms: list[str] = tok[0] if tok is not None else []
        n = len(forms)
        none = [None] * n
        lemma = cols.get(Layer.LEMMA, none)
        upos, xpos = cols.get(Layer.POS, (none, none))
        dep = cols.get(Layer.DEP)
        heads, rels = (dep[0], dep[1]) if dep is not None else (none, none)
        if not all(len(c) == n for c in (lemma, upos, xpos, heads, rels)):
            return None
        memo = self.tokens
        tokens = []
        for row in zip(forms, lemma, upos, xpos, heads, rels, strict=True):
            t = memo.get(row)
            if t is None:
                t = memo[row] = Token(*row)
            tokens.append(t)
        starts = (dep[2] if dep is not None and len(dep) > 2 else
                  tok[1] if tok is not None and len(tok) > 1 else (0,))
        key_ = frozenset(payloads)
        layers = self.layer_sets.setdefault(key_, key_)
        fields = {FIELDS[k]: v for k, v in values.items() if isinstance(k, Layer)}
        extra = tuple(sorted((k.value, v) for k, v in values.items()
                             if isinstance(k, ExtraLayer)))
        seg = Segment(
            text=text, tokens=tuple(tokens), sent_starts=tuple(starts), layers=layers,
            schemes=tuple(sorted((k.value, v) for k, v in schemes.items() if k in layers)),
            extra=extra, **fields)
        return seg if seg.is_consistent() else None


class _GcPauses:
    """How many :func:`gc_paused` blocks are open in this process, and whether the collector
    was enabled before the first one opened (the state the last one to close restores)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open = 0
        self.was_enabled = False


_GC_PAUSES = _GcPauses()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while many small objects are built.

    Decoding tens of thousands of segments creates millions of lists and tokens that are all
    kept; every allocation threshold then triggers a collection that walks them all again.
    Nothing built here has cycles, so nothing is lost by pausing it.

    The collector is process-wide, so the pauses are counted: blocks may nest or overlap (in
    threads, or in generators closed in any order), the collector stays off until the last one
    closes, and then it is as the caller had it (a collector the caller disabled stays so).
    """
    p = _GC_PAUSES
    with p.lock:
        if p.open == 0:
            p.was_enabled = gc.isenabled()
            gc.disable()
        p.open += 1
    try:
        yield
    finally:
        with p.lock:
            p.open -= 1
            if p.open == 0 and p.was_enabled:
                gc.enable()
