"""The stored form of each layer of a text: one JSON payload per layer (the ``emb`` layer:
float16 bytes), and the assembly of a :class:`~mtstrata.segment.Segment` from its layers'
payloads. The annotation cache stores these payloads (:mod:`mtstrata.cache`), workers send
them, and every segment of a run is built from them, whether they were cached or just
computed. Part of every provider's code version (:data:`mtstrata.layers.providers.CODE`).
"""

from __future__ import annotations

import contextlib
import gc
import json
import re
import struct
import threading
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from mtstrata.segment import Embedding, ExtraLayer, Frame, Layer, Segment, Span, Token


def layer_payloads(seg: Segment, layers: Iterable[Layer], sentences_from: Layer = Layer.DEP
                   ) -> dict[Layer, str]:
    """The JSON payload of each of ``layers`` of ``seg`` (what one cache row holds).

    ``sentences_from`` is the layer whose provider splits sentences: the parser's dependency
    layer for spaCy, the tokenizer for stanza; ``seg.sent_starts`` is stored with that layer
    only, so a tokens row never carries a parser's sentence starts.
    """
    out: dict[Layer, str] = {}
    toks = seg.tokens
    for layer in layers:
        if isinstance(layer, ExtraLayer):  # a plugin layer: the JSON text its provider gave
            out[layer] = dict(seg.extra)[layer.value]
            continue
        if layer is Layer.TOKENS:
            v: Any = [[t.form for t in toks]]
            if sentences_from is Layer.TOKENS:
                v.append(list(seg.sent_starts))
        elif layer is Layer.LEMMA:
            v = [t.lemma for t in toks]
        elif layer is Layer.POS:
            v = [[t.upos for t in toks], [t.xpos for t in toks]]
        elif layer is Layer.DEP:
            v = [[t.head for t in toks], [t.deprel for t in toks]]
            if sentences_from is Layer.DEP:
                v.append(list(seg.sent_starts))
        elif layer in (Layer.NER, Layer.CHUNKS):
            spans = seg.entities if layer is Layer.NER else seg.chunks
            v = [[x.start, x.end, x.label] for x in spans]
        elif layer is Layer.SRL:
            v = [[f.predicate, [[a.start, a.end, a.label] for a in f.args]] for f in seg.frames]
        else:
            raise ValueError(f"the {layer} layer has no JSON payload")
        out[layer] = json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return out


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


def drop_other_widths(found: dict[str, dict[Layer, str | bytes]], want: int | None) -> None:
    """Drop the emb rows (of ``found``: text -> layer -> payload) whose vectors have another
    width than ``want``, the layer's (recorded when it was first stored; None: the width most
    rows have). A width is a fact of the model, so such a row is damaged or edited: it is a
    miss, where comparing its vectors with others failed."""
    widths = {t: emb_width(p[Layer.EMB]) for t, p in found.items() if Layer.EMB in p}
    if want is None and widths:
        counts: dict[int | None, int] = {}
        for w in widths.values():
            counts[w] = counts.get(w, 0) + 1
        want = max(counts, key=lambda w: counts[w])
    for t, w in widths.items():
        if w != want:
            del found[t][Layer.EMB]


def valid_row(layer: Layer, payload: object) -> bool:
    """Whether a row read back from the cache is one :func:`layer_payloads` (or
    :func:`emb_payload`) could have written: JSON of the layer's shape and types, as
    :func:`layer_payloads` spells it (checked by one regular expression per layer, in C, without
    decoding it a second time: nesting deeper than the layer's fails it too); emb vectors
    finite. A row edited by hand or damaged is a miss (recomputed), never a crash or a number;
    rows just computed are not checked (they are ours)."""
    if layer is Layer.EMB:
        try:
            checked_emb(payload)  # type: ignore[arg-type]
        except (ValueError, TypeError, struct.error, RecursionError):
            return False
        return True
    if isinstance(layer, ExtraLayer):  # a plugin layer's: any JSON text
        try:
            json.loads(payload)  # type: ignore[arg-type]
        except (ValueError, TypeError, RecursionError):
            return False
        return isinstance(payload, str)
    form = _ROW_FORMS.get(layer)
    return isinstance(payload, str) and form is not None and form.fullmatch(payload) is not None


def _array(item: str) -> str:
    return rf"{_O}(?:{item}(?:{_C}{item})*)?{_E}"


# "[", ",", "]" as layer_payloads writes them (compact: a row spaced otherwise is a miss)
_O, _C, _E = r"\[", ",", r"\]"
_STR = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # (unrolled: no alternation per character)
_STRN, _INT, _INTN = f"(?:{_STR}|null)", r"\d+", r"(?:\d+|null)"
_SPAN = rf"{_O}{_INT}{_C}{_INT}{_C}{_STR}{_E}"
#: the JSON text :func:`layer_payloads` writes for each layer (no floats, no booleans: a head,
#: an index or a span bound is a non-negative integer)
_ROW_FORMS = {layer: re.compile(form, re.DOTALL) for layer, form in {
    Layer.TOKENS: rf"{_O}{_array(_STR)}(?:{_C}{_array(_INT)})?{_E}",
    Layer.LEMMA: _array(_STRN),
    Layer.POS: rf"{_O}{_array(_STRN)}{_C}{_array(_STRN)}{_E}",
    Layer.DEP: rf"{_O}{_array(_INTN)}{_C}{_array(_STRN)}(?:{_C}{_array(_INT)})?{_E}",
    Layer.NER: _array(_SPAN),
    Layer.CHUNKS: _array(_SPAN),
    Layer.SRL: _array(rf"{_O}{_INT}{_C}{_array(_SPAN)}{_E}"),
}.items()}


class SegmentAssembler:
    """Builds a :class:`Segment` from its layers' payloads, sharing equal tokens between
    segments (a corpus repeats them: building each distinct one once is most of a warm run's
    time). Returns None for payloads that do not fit together (a damaged row)."""

    def __init__(self) -> None:
        self.tokens: dict[tuple[object, ...], Token] = {}
        self.layer_sets: dict[frozenset[Layer], frozenset[Layer]] = {}

    def __call__(self, text: str, payloads: Mapping[Layer, str | bytes],
                 schemes: Mapping[Layer, str]) -> Segment | None:
        try:
            return self._build(text, payloads, schemes)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, struct.error):
            return None

    def _build(self, text: str, payloads: Mapping[Layer, str | bytes],
               schemes: Mapping[Layer, str]) -> Segment | None:
        d = {k: v for k, v in payloads.items() if isinstance(k, Layer) and k is not Layer.EMB}
        raw = {k: json.loads(v) for k, v in d.items()}
        extra = tuple(sorted((k.value, str(v)) for k, v in payloads.items()
                             if isinstance(k, ExtraLayer)))
        tok = raw.get(Layer.TOKENS)
        forms: list[str] = tok[0] if tok is not None else []
        n = len(forms)
        none = [None] * n
        lemma = raw.get(Layer.LEMMA, none)
        upos, xpos = raw.get(Layer.POS, (none, none))
        dep = raw.get(Layer.DEP)
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
        emb = emb_from_payload(payloads[Layer.EMB]) if Layer.EMB in payloads else None  # type: ignore[arg-type]
        key_ = frozenset(payloads)
        layers = self.layer_sets.setdefault(key_, key_)
        seg = Segment(
            text=text, tokens=tuple(tokens),
            entities=tuple(Span(*x) for x in raw.get(Layer.NER, ())),
            chunks=tuple(Span(*x) for x in raw.get(Layer.CHUNKS, ())),
            frames=tuple(Frame(p, tuple(Span(*a) for a in args))
                         for p, args in raw.get(Layer.SRL, ())),
            sent_starts=tuple(starts), layers=layers,
            schemes=tuple(sorted((k.value, v) for k, v in schemes.items() if k in layers)),
            emb=emb, extra=extra)
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
