"""The Czech annotator: the third-party spaCy pipeline ``cs_core_news_sm`` as pinned in
``models.lock``; the provider for Czech (``--lang cs``), **optional and for non-commercial
use only**.

``cs_core_news_sm`` 0.2.1 (published on PyPI by "trackme518"; not an Explosion model) is a
spaCy 3.8 pipeline trained on UD Czech-PDTC and the Czech Named Entity Corpus 2.0, under
**CC BY-NC-SA 3.0**: the licence of its training data forbids commercial use, so the set-up
does not install it; ``mtstrata models`` names it as optional and non-commercial, and a run
in Czech without it stops naming the command that installs it. Its components: a
morphologizer (universal POS tag and features), a parser (UD relations, sentences), a trained
lemmatizer and an entity recogniser (OntoNotes-like types: PERSON, GPE, ORG...). Everything
is inside the wheel: nothing is downloaded. The whole pipeline runs for any layer.

Conversion (:func:`to_segment`): tokens in order (whitespace dropped); ``upos`` the universal
tag; ``xpos`` none (the pipeline has no language-specific tagger); ``head`` 1-based, 0 the
root; ``deprel`` the UD relation lower-cased; entities mapped to the common entity set
(:data:`NE_MAP`: PER LOC ORG MISC; dates, numbers, quantities, addresses' numbers and e-mail
addresses are no named entities there and are left out). Schemes: ``upos`` for ``pos``,
``ud`` for ``dep``, ``conll`` for ``ner``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers._pinned import check_installed
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Span, Token

MODEL = "cs_core_news_sm"
PACKAGE = "cs-core-news-sm"
LICENCE = "CC BY-NC-SA 3.0 (non-commercial use only)"
PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER})
SCHEMES: Mapping[Layer, str] = {Layer.POS: "upos", Layer.DEP: "ud", Layer.NER: "conll"}
INSTALL = ("pip install --no-deps --require-hashes -r FILE, FILE holding the line "
           "'cs-core-news-sm==0.2.1 --hash=sha256:<the sha256 of models.lock>' "
           f"(licence {LICENCE}: installed only on request)")
#: the pipeline's entity types -> the common entity set (others are left out)
NE_MAP: Mapping[str, str] = {
    "PERSON": "PER", "ORG": "ORG", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC",
    "EVENT": "MISC", "PRODUCT": "MISC", "WORK_OF_ART": "MISC", "MISC": "MISC",
}


@PROVIDERS.register("cs-spacy", description="cs_core_news_sm (third-party spaCy pipeline; "
                    f"{LICENCE}; optional): Czech; UD tags and relations, entities mapped to "
                    "PER/LOC/ORG/MISC", layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class CzechAnnotator(ProviderBase):
    """Annotates Czech texts with the pinned ``cs_core_news_sm`` (``cs-spacy``)."""

    batch_size: int = 64
    allow_unlocked: bool = False

    name: ClassVar[str] = "cs-spacy"
    code: ClassVar[tuple[str, ...]] = ("cs-spacy",)
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"cs"})
    default: ClassVar[bool] = True
    sentences_from: ClassVar[Layer] = Layer.DEP
    _nlp: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ModelError(f"cs-spacy: batch_size must be >= 1; got {self.batch_size}.")
        if lock.installed_version(PACKAGE) is None:
            raise ModelError(
                f"the Czech annotator needs the optional model {MODEL} (licence {LICENCE}), "
                f"which is not installed. If your use is non-commercial, install it with: "
                f"{INSTALL}; or leave out the metrics over linguistic layers.")
        versions, unlocked = check_installed((PACKAGE,), self.allow_unlocked,
                                             "the Czech annotator")
        object.__setattr__(self, "version", versions[PACKAGE])
        object.__setattr__(self, "unlocked", unlocked)

    def signature(self, layers: frozenset[Layer]) -> str:
        """The pipeline, spaCy and the version of the conversion code."""
        from mtstrata.layers.code import version

        sig = (f"spacy-{lock.installed_version('spacy') or '?'}.{MODEL}-"
               f"{self.version}.conv{version('cs-spacy')}")  # type: ignore[attr-defined]
        return sig + (".unlocked" if self.unlocked else "")  # type: ignore[attr-defined]

    def bundle(self, layers: frozenset[Layer]) -> frozenset[Layer]:
        """Every layer: the whole pipeline runs for any of them."""
        return PROVIDES

    def _load(self) -> Any:
        if "nlp" not in self._nlp:
            import spacy

            try:
                self._nlp["nlp"] = spacy.load(MODEL)
            except (OSError, ImportError, ValueError) as e:
                raise ModelError(f"cannot load the spaCy pipeline {MODEL}: {e}. Reinstall it: "
                                 f"{INSTALL}.") from None
        return self._nlp["nlp"]

    def annotate(self, texts: Iterable[str], layers: frozenset[Layer] = PROVIDES
                 ) -> Iterator[Segment]:
        """Segments of ``texts``, in order."""
        nlp = self._load()
        it = iter(texts)
        while chunk := list(itertools.islice(it, self.batch_size * 4)):
            for text, doc in zip(chunk, nlp.pipe(chunk, batch_size=self.batch_size),
                                 strict=True):
                yield to_segment(text, doc)

    def annotate_sentences(self, sentences: Iterable[list[str]]) -> list[Segment]:
        """One segment per given sentence of words (CoNLL-U text: the words are the tokens,
        run through every component but the tokenizer; the text is the words joined by
        spaces)."""
        from spacy.tokens import Doc

        nlp = self._load()
        docs = [Doc(nlp.vocab, words=list(w)) for w in sentences]
        return [to_segment(d.text, d) for d in nlp.pipe(docs, batch_size=self.batch_size)]

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments annotated afresh from their texts, in order."""
        return self.annotate(s.text for s in segments)


def to_segment(text: str, doc: Any) -> Segment:
    """Convert the pipeline's ``Doc`` to a :class:`Segment` with every layer."""
    toks = [t for t in doc if not t.is_space]
    index = {t.i: k for k, t in enumerate(toks)}
    tokens = []
    for t in toks:
        h = t.head
        while h.is_space and h.head.i != h.i:
            h = h.head
        head = 0 if h.i == t.i or h.i not in index else index[h.i] + 1
        tokens.append(Token(form=t.text, lemma=t.lemma_, upos=t.pos_, xpos=None, head=head,
                            deprel=t.dep_.lower() if head else "root"))
    starts = sorted({index[s.start] for s in doc.sents if s.start in index} | {0})
    entities = []
    for e in doc.ents:
        label = NE_MAP.get(e.label_)
        inside = [index[i] for i in range(e.start, e.end) if i in index]
        if label is not None and inside:
            entities.append(Span(inside[0], inside[-1] + 1, label))
    return Segment(text=text, tokens=tuple(tokens), entities=tuple(entities),
                   sent_starts=tuple(starts) if toks else (0,), layers=PROVIDES,
                   schemes=tuple(sorted((k.value, v) for k, v in SCHEMES.items())))
