"""The French annotator: spaCy's official French pipeline ``fr_core_news_sm`` 3.8.0, pinned in
``models.lock``; the default provider for French (``--lang fr``).

The pipeline (tok2vec, morphologizer, parser, attribute ruler, lemmatizer, NER) was trained on
UD French-Sequoia (licence LGPL-LR, which ``mtstrata models`` names) and WikiNER; it gives
universal POS tags, Universal Dependencies relations and the entity types PER, LOC, ORG, MISC,
which are the common entity set as they are. No chunks: spaCy's French noun chunks are not the
CoNLL-2000 chunks SP-Oc compares, so SP-Oc is refused for French by the plan. The pipeline runs
whole (every component: the parser splits the sentences, which the NER and the lemmatizer's
rules read).

Conversion (:func:`to_segment`): spaCy's tokens (whitespace tokens left out); ``upos`` spaCy's
``pos_``; ``xpos`` its ``tag_`` (the same universal tag in this pipeline); heads 1-based over the
segment, 0 the root; ``deprel`` the UD label (``ROOT`` written ``root``; subtypes kept:
``obl:arg``, ``aux:tense``); entities over their tokens. Schemes: ``upos``, ``ud``, ``conll``.
CoNLL-U text is annotated with its own words by :meth:`SpacyFrench.annotate_sentences`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mtstrata.errors import ModelError
from mtstrata.layers._pinned import check_installed
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Span, Token

MODEL = "fr_core_news_sm"
PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER})
SCHEMES: Mapping[Layer, str] = {Layer.POS: "upos", Layer.DEP: "ud", Layer.NER: "conll"}
PACKAGES = ("fr-core-news-sm", "spacy")
#: the pipeline's entity types -> the common entity set (the same four)
NE_MAP = {"PER": "PER", "LOC": "LOC", "ORG": "ORG", "MISC": "MISC"}


@PROVIDERS.register("spacy-fr", description=f"spaCy with the pinned {MODEL} (LGPL-LR): the "
                    "default for French; UD tags and relations, PER/LOC/ORG/MISC entities",
                    layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class SpacyFrench(ProviderBase):
    """Annotates French texts with the pinned ``fr_core_news_sm`` (``spacy-fr:batch_size=64``)."""

    batch_size: int = 64
    allow_unlocked: bool = False

    name: ClassVar[str] = "spacy-fr"
    code: ClassVar[tuple[str, ...]] = ("spacy-fr",)
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"fr"})
    default: ClassVar[bool] = True
    #: the parser splits the sentences
    sentences_from: ClassVar[Layer] = Layer.DEP
    _nlp: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ModelError(f"spacy-fr: batch_size must be >= 1; got {self.batch_size}.")
        versions, unlocked = check_installed(PACKAGES, self.allow_unlocked,
                                             "the spacy-fr annotator (French)")
        object.__setattr__(self, "versions", versions)
        object.__setattr__(self, "unlocked", unlocked)

    def signature(self, layers: frozenset[Layer]) -> str:
        from mtstrata.layers.code import version

        v = self.versions  # type: ignore[attr-defined]
        if frozenset(layers) - {Layer.TOKENS}:
            sig = f"spacy-{v['spacy']}.{MODEL}-{v['fr-core-news-sm']}.all"
        else:
            sig = f"spacy-{v['spacy']}.{MODEL}-{v['fr-core-news-sm']}.tokenizer"
        sig += f".conv{version('spacy-fr')}"
        return sig + (".unlocked" if self.unlocked else "")  # type: ignore[attr-defined]

    def bundle(self, layers: frozenset[Layer]) -> frozenset[Layer]:
        """Every layer once the pipeline runs (it runs whole)."""
        return PROVIDES if frozenset(layers) - {Layer.TOKENS} else frozenset(layers)

    def _load(self, whole: bool) -> Any:
        if whole not in self._nlp:
            import spacy

            try:
                nlp = spacy.load(MODEL)
            except OSError as e:
                raise ModelError(f"cannot load the spaCy model {MODEL}: {e}. Reinstall it "
                                 "with `mtstrata models --install`.") from None
            if not whole:
                for c in nlp.pipe_names:
                    nlp.disable_pipe(c)
            self._nlp[whole] = nlp
        return self._nlp[whole]

    def annotate(self, texts: Iterable[str], layers: frozenset[Layer]) -> Iterator[Segment]:
        layers = frozenset(layers) | {Layer.TOKENS}
        nlp = self._load(bool(layers - {Layer.TOKENS}))
        mine, theirs = itertools.tee(texts)
        for text, doc in zip(mine, nlp.pipe(theirs, batch_size=self.batch_size), strict=True):
            yield to_segment(text, doc, layers)

    def annotate_sentences(self, sentences: Sequence[Sequence[str]],
                           layers: Iterable[Layer] = PROVIDES) -> list[Segment]:
        """One segment per given sentence of words (CoNLL-U text: spaCy's tokenizer is not
        run; the parser may still split a sentence, as it would in a text)."""
        from spacy.tokens import Doc

        layers = frozenset(layers) | {Layer.TOKENS}
        nlp = self._load(True)
        docs = [Doc(nlp.vocab, words=list(w)) for w in sentences]
        return [to_segment(d.text, d, layers) for d in nlp.pipe(docs)]

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        return self.annotate((s.text for s in segments), layers)


def to_segment(text: str, doc: Any, layers: frozenset[Layer]) -> Segment:
    """Convert a spaCy ``Doc`` of the French pipeline (see the module docstring)."""
    dep, pos, lemma = Layer.DEP in layers, Layer.POS in layers, Layer.LEMMA in layers
    toks = [t for t in doc if not t.is_space]
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
            form=t.text, lemma=t.lemma_ if lemma else None,
            upos=t.pos_ if pos else None, xpos=(t.tag_ or None) if pos else None, head=head,
            deprel=(t.dep_ if head else "root") if dep else None))
    starts: tuple[int, ...] = (0,)
    if dep and toks:
        starts = tuple(sorted({index[s.start] for s in doc.sents if s.start in index} | {0}))
    entities: tuple[Span, ...] = ()
    if Layer.NER in layers:
        spans = []
        for e in doc.ents:
            inside = [index[i] for i in range(e.start, e.end) if i in index]
            if inside:
                spans.append(Span(inside[0], inside[-1] + 1, NE_MAP.get(e.label_, "MISC")))
        entities = tuple(spans)
    got = frozenset({Layer.TOKENS} | (layers & PROVIDES))
    return Segment(text=text, tokens=tuple(tokens), entities=entities, sent_starts=starts,
                   layers=got,
                   schemes=tuple(sorted((k.value, v) for k, v in SCHEMES.items() if k in got)))
