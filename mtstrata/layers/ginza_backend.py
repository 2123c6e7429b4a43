"""The Japanese annotator: GiNZA's spaCy pipeline ``ja_ginza`` as pinned in ``models.lock``; the
default provider for Japanese (``--lang ja``).

``ja_ginza`` 5.3.0 (Megagon Labs, MIT) is a spaCy 3.8 pipeline trained on UD_Japanese-BCCWJ
r2.8 and GSK2014-A: SudachiPy (with the ``sudachidict_core`` dictionary) splits the text into
words, in Sudachi's split mode C (long units: ``東京大学`` is one word, where UD_Japanese-GSD
has ``東京`` ``大学``) and gives each its dictionary form (the lemma: ``会い`` -> ``会う``) and
Sudachi's part of speech (``xpos``: ``動詞-一般``); the morphologizer gives the universal POS
tag, the parser the head, the UD relation and the sentences, the entity recogniser typed
spans of Sekine's extended named entity hierarchy (ENE, 189 types). Everything is inside the
wheels: nothing is downloaded. The whole pipeline runs for any layer (a text is parsed once,
every layer comes with it: :meth:`GinzaAnnotator.bundle`), so a layer never depends on what
else a run asked for.

Conversion (:func:`to_segment`): tokens in order (whitespace tokens dropped, as for spaCy's
English pipeline); ``upos`` the universal tag; ``xpos`` Sudachi's tag; ``head`` 1-based over the
segment, 0 the root; ``deprel`` the parser's UD relation lower-cased (GiNZA's ``_bunsetu``
variants of its training labels, should one come out, read as the relation itself); entities
mapped to the common entity set (:data:`NE_MAP`: PER LOC ORG MISC; ENE's numeric and temporal
expressions, titles and common-noun classes such as ``Dish`` or ``Mammal`` are no named entities
in that set and are left out). Schemes: ``upos`` for ``pos``, ``ud`` for ``dep``, ``conll``
for ``ner``.

The tokens are words, not characters: sacreBLEU's ``ja-mecab`` tokenizer (MeCab with IPAdic)
splits more finely than Sudachi's mode C, so the lexical metrics and the linguistic ones count
different units (docs/languages.md, "Japanese").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mtstrata import lock
from mtstrata.errors import ModelError
from mtstrata.layers._pinned import HOW_TO_INSTALL, check_installed
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Span, Token

MODEL = "ja_ginza"
PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER})
SCHEMES: Mapping[Layer, str] = {Layer.POS: "upos", Layer.DEP: "ud", Layer.NER: "conll"}
#: the pinned distributions it runs (models.lock), the model first
PACKAGES = ("ja-ginza", "ginza", "SudachiPy", "SudachiDict-core")

_PER = {"Person"}
_ORG = {
    "Cabinet", "Company", "Company_Group", "Corporation_Other", "Ethnic_Group_Other", "Family",
    "Government", "International_Organization", "Military", "Organization_Other",
    "Political_Organization_Other", "Political_Party", "Pro_Sports_Organization",
    "Public_Institution", "Research_Institute", "School", "Show_Organization",
    "Sports_League", "Sports_Organization_Other",
}
_LOC = {
    "Airport", "Amusement_Park", "Archaeological_Place_Other", "Astral_Body_Other", "Bay",
    "Bridge", "Canal", "Car_Stop", "City", "Constellation", "Continental_Region", "Country",
    "County", "Domestic_Region", "Facility_Other", "GOE_Other", "GPE_Other",
    "Geological_Region_Other", "Island", "Lake", "Line_Other", "Location_Other", "Mountain",
    "Museum", "Park", "Planet", "Port", "Province", "Railroad", "Region_Other", "River",
    "Road", "Sea", "Spa", "Sports_Facility", "Station", "Theater", "Tumulus", "Tunnel",
    "Water_Route", "Worship_Place", "Zoo",
}
_MISC = {
    "Aircraft", "Award", "Book", "Broadcast_Program", "Car", "Character", "Conference",
    "Culture", "Doctrine_Method_Other", "Earthquake", "Event_Other", "Game", "God",
    "Incident_Other", "Language_Other", "Law", "Magazine", "Movement", "Movie", "Music",
    "Name_Other", "National_Language", "Nationality", "Natural_Disaster", "Newspaper",
    "Occasion_Other", "Plan", "Printing_Other", "Product_Other", "Religion",
    "Religious_Festival", "Rule_Other", "Ship", "Show", "Spaceship", "Sport", "Style",
    "Theory", "Train", "Treaty", "Vehicle_Other", "War", "Weapon", "Art_Other",
}
#: ENE types -> the common entity set; a type not here is no named entity in it (dates,
#: quantities, ``N_*`` counts, titles, kinds of animal, dish or colour...) and is left out
NE_MAP: Mapping[str, str] = {**{t: "PER" for t in _PER}, **{t: "ORG" for t in _ORG},
                             **{t: "LOC" for t in _LOC}, **{t: "MISC" for t in _MISC}}


@PROVIDERS.register("ginza", description="GiNZA (ja_ginza, SudachiPy): the default for "
                    "Japanese; UD tags and relations, entities mapped to PER/LOC/ORG/MISC",
                    layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class GinzaAnnotator(ProviderBase):
    """Annotates Japanese texts with the pinned GiNZA pipeline (``ginza:batch_size=64``)."""

    batch_size: int = 64
    allow_unlocked: bool = False

    name: ClassVar[str] = "ginza"
    code: ClassVar[tuple[str, ...]] = ("ginza",)
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"ja"})
    default: ClassVar[bool] = True
    #: the parser splits sentences
    sentences_from: ClassVar[Layer] = Layer.DEP
    _nlp: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ModelError(f"ginza: batch_size must be >= 1; got {self.batch_size}.")
        versions, unlocked = check_installed(PACKAGES, self.allow_unlocked,
                                             "the GiNZA annotator (Japanese)")
        object.__setattr__(self, "versions", versions)
        object.__setattr__(self, "unlocked", unlocked)

    def signature(self, layers: frozenset[Layer]) -> str:
        """The pipeline, its tokenizer and dictionary, spaCy, and the version of the
        conversion code (the same for every layer: the whole pipeline runs)."""
        from mtstrata.layers.code import version

        v = self.versions  # type: ignore[attr-defined]
        sig = (f"ginza-{v['ginza']}.{MODEL}-{v['ja-ginza']}.sudachipy-{v['SudachiPy']}"
               f".sudachidict_core-{v['SudachiDict-core']}"
               f".spacy-{lock.installed_version('spacy') or '?'}.conv{version('ginza')}")
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
                raise ModelError(f"cannot load the GiNZA pipeline {MODEL}: {e}. Reinstall it "
                                 f"with `{HOW_TO_INSTALL}`.") from None
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

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments annotated afresh from their texts, in order."""
        return self.annotate(s.text for s in segments)


def to_segment(text: str, doc: Any) -> Segment:
    """Convert GiNZA's ``Doc`` to a :class:`Segment` with every layer (see the module
    docstring)."""
    toks = [t for t in doc if not t.is_space]
    index = {t.i: k for k, t in enumerate(toks)}
    tokens = []
    for t in toks:
        h = t.head
        while h.is_space and h.head.i != h.i:
            h = h.head
        head = 0 if h.i == t.i or h.i not in index else index[h.i] + 1
        rel = t.dep_.lower().removesuffix("_bunsetu")
        tokens.append(Token(form=t.text, lemma=t.lemma_, upos=t.pos_, xpos=t.tag_, head=head,
                            deprel=rel if head else "root"))
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
