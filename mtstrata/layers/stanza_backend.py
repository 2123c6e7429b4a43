"""Optional annotator: stanza (Qi et al., 2020, "Stanza: A Python NLP Toolkit for Many Human
Languages", ACL demos) with English models from a local directory.

Nothing is ever downloaded: the pipeline is built with ``download_method=None`` from the
directory the user gives (``--annotator stanza:dir=DIR``), which must hold stanza's
``resources.json`` and an ``en/`` model tree (as ``stanza.download("en", model_dir=DIR)``
writes them on a machine with network). Install the extra with ``pip install torch==2.13.0``
(the CPU build) then
``pip install 'mtstrata[stanza]'``.

Conversion to :class:`~mtstrata.segment.Segment` (:func:`to_segment`) works on any stanza
``Document``, including one read from CoNLL-U without a model: words (multi-word tokens are
split as stanza splits them, e.g. ``It's`` -> ``It`` ``'s``) give the tokens; ``head`` becomes
1-based over the whole segment (each sentence's heads shifted by the words before it, 0 stays
the root), ``deprel`` is stanza's Universal Dependencies label lowercased; ``xpos`` is the PTB
tag of the English models. Entities come from the tokens' BIOES tags (stanza's own
``build_ents``) and cover the words of their tokens. Stanza has no chunker: the chunks layer is
not provided (the plan says so before anything loads).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Span, Token

PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER})
#: stanza's English models: UD relations, PTB xpos, OntoNotes entities
SCHEMES: Mapping[Layer, str] = {Layer.POS: "ptb", Layer.DEP: "ud", Layer.NER: "ontonotes"}
LANG = "en"
HOW_TO_GET = (
    "On a machine with network access run `python -c \"import stanza; "
    "stanza.download('en', model_dir='DIR')\"`, copy DIR here and pass --annotator stanza:dir=DIR "
    "(mtstrata never downloads).")

# stanza processors each layer needs (mwt splits contractions before tagging)
_NEEDS: dict[Layer, tuple[str, ...]] = {
    Layer.TOKENS: ("tokenize", "mwt"),
    Layer.POS: ("tokenize", "mwt", "pos"),
    Layer.LEMMA: ("tokenize", "mwt", "pos", "lemma"),
    Layer.DEP: ("tokenize", "mwt", "pos", "lemma", "depparse"),
    Layer.NER: ("tokenize", "mwt", "ner"),
}
_ORDER = ("tokenize", "mwt", "pos", "lemma", "depparse", "ner")


def processors_for(layers: frozenset[Layer]) -> tuple[str, ...]:
    """The stanza processors ``layers`` need, in pipeline order."""
    need = {p for layer in layers for p in _NEEDS.get(layer, ())}
    return tuple(p for p in _ORDER if p in need)


def check_model_dir(model_dir: str | None) -> Path:
    """The model directory, or a :class:`ModelError` saying how to obtain one."""
    if not model_dir:
        raise ModelError("the stanza annotator needs its models in a local directory: pass "
                         f"--annotator stanza:dir=DIR. {HOW_TO_GET}")
    d = Path(model_dir)
    if not (d / "resources.json").is_file() or not (d / LANG).is_dir():
        raise ModelError(f"stanza:dir={model_dir}: no stanza English models there (expected "
                         f"{d / 'resources.json'} and {d / LANG}/). {HOW_TO_GET}")
    return d


@PROVIDERS.register("stanza", description="stanza with English models from a local "
                     "directory (stanza:dir=DIR); UD dependency labels",
                     layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class StanzaAnnotator(ProviderBase):
    """Annotates texts with stanza models from a local directory (``stanza:dir=DIR``)."""

    dir: str | None = None
    batch_size: int = 64

    name: ClassVar[str] = "stanza"
    #: the units of mtstrata's conversion code it runs (:data:`mtstrata.layers.code.CODE`)
    code: ClassVar[tuple[str, ...]] = ("stanza",)
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"en"})
    _nlp: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        d = check_model_dir(self.dir)  # before importing torch: fail fast
        version = lock.installed_version("stanza")
        if version is None:
            raise ModelError("--annotator stanza needs the optional stanza extra: "
                             "`pip install torch==2.13.0` (CPU build) then "
                             "`pip install 'mtstrata[stanza]'`.")
        # the models are the user's: their resources.json identifies them in the signature
        res = hashlib.sha256((d / "resources.json").read_bytes()).hexdigest()[:12]
        object.__setattr__(self, "_base", f"stanza-{version}.{LANG}-res{res}")

    #: stanza's tokenizer splits sentences
    sentences_from: ClassVar[Layer] = Layer.TOKENS

    def signature(self, layers: frozenset[Layer]) -> str:
        from mtstrata.layers.code import version

        procs = processors_for(frozenset(layers) | {Layer.TOKENS})
        return (f"{self._base}.{'+'.join(procs)}"  # type: ignore[attr-defined]
                f".conv{version('stanza')}")

    def _load(self, processors: tuple[str, ...]) -> Any:
        """The pipeline of ``processors`` (built once per set, never downloading)."""
        if processors not in self._nlp:
            import stanza

            try:
                self._nlp[processors] = stanza.Pipeline(
                    lang=LANG, dir=str(self.dir), processors=",".join(processors),
                    download_method=None, logging_level="WARN")
            except Exception as e:  # stanza raises many types for a broken model tree
                raise ModelError(f"cannot load the stanza models from {self.dir} "
                                 f"({type(e).__name__}: {e}). {HOW_TO_GET}") from None
        return self._nlp[processors]

    def annotate(self, texts: Iterable[str], layers: frozenset[Layer]) -> Iterator[Segment]:
        """Segments of ``texts``, in order (batched through ``bulk_process``)."""
        layers = frozenset(layers) | {Layer.TOKENS}
        nlp = self._load(processors_for(layers))
        it = iter(texts)
        while chunk := list(itertools.islice(it, self.batch_size)):
            for text, doc in zip(chunk, nlp.bulk_process(chunk), strict=True):
                yield to_segment(text, doc, layers)

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments annotated afresh from their texts, in order."""
        return self.annotate((s.text for s in segments), layers)


def to_segment(text: str, doc: Any, layers: frozenset[Layer]) -> Segment:
    """Convert a stanza ``Document`` to our :class:`Segment` with ``layers`` filled."""
    lemma, pos, dep = Layer.LEMMA in layers, Layer.POS in layers, Layer.DEP in layers
    tokens: list[Token] = []
    sent_starts: list[int] = []
    where: dict[int, int] = {}  # id(stanza word) -> 0-based index in the segment
    for sent in doc.sentences:
        offset = len(tokens)
        sent_starts.append(offset)
        for w in sent.words:
            where[id(w)] = len(tokens)
            head = None
            if dep:
                head = 0 if not w.head else w.head + offset
            tokens.append(Token(
                form=w.text,
                lemma=w.lemma if lemma else None,
                upos=w.upos if pos else None,
                xpos=w.xpos if pos else None,
                head=head,
                deprel=(w.deprel or "").lower() if dep else None,
            ))
    entities: tuple[Span, ...] = ()
    if Layer.NER in layers:
        spans = []
        for e in doc.build_ents():
            idx = [where[id(w)] for w in e.words]
            spans.append(Span(min(idx), max(idx) + 1, e.type))
        entities = tuple(sorted(spans, key=lambda s: (s.start, s.end)))
    got = frozenset({Layer.TOKENS} | (layers & PROVIDES))
    return Segment(text=text, tokens=tuple(tokens), entities=entities,
                   sent_starts=tuple(sent_starts) or (0,), layers=got,
                   schemes=tuple(sorted((k.value, v) for k, v in SCHEMES.items() if k in got)))
