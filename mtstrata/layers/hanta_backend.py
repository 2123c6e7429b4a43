"""The German annotator: the Hanover Tagger (HanTa, Wartena 2019) for STTS tags and lemmas, over
spaCy's German tokenizer and rule-based sentence splitter, as pinned in ``models.lock``; the
default provider for German (``--lang de``).

No German dependency parser or entity recogniser installs on the project's machines (the
German spaCy pipelines on the package index are placeholders; models/MODELS.md), so this
provider gives **tokens, lemmas and POS only**: the metrics over dependencies (DP-, Bllip),
entities (NE-), chunks (SP-Oc) and roles (SR-) are refused for German by the plan, naming the
missing layer. No model is downloaded: HanTa's ``morphmodel_ger.pgz`` is inside its wheel, and
spaCy's German tokenizer is rules in spaCy itself (``spacy.blank("de")``, with the
``sentencizer``: a sentence ends at ``.``, ``!``, ``?`` and the like).

Conversion (:func:`to_segment`): spaCy's tokens (whitespace tokens left out) in order; per
sentence, HanTa's ``tag_sent`` gives each word a lemma and a tag in HanTa's spelling of STTS
(``VV(FIN)``, ``ADJ(A)``, ``NNA`` for a nominalised adjective), written as STTS in ``xpos``
(:func:`stts`: ``VVFIN``, ``ADJA``, ``NN``) and mapped to a universal POS tag in ``upos``
(:data:`STTS_UPOS`: each STTS tag's most frequent UPOS in UD German-GSD's development section;
docs/languages.md). The ``pos`` layer's scheme is ``upos``.

CoNLL-U text (already split into sentences and words) is tagged with the given words by
:meth:`HantaAnnotator.annotate_sentences`, one segment per sentence.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from mtstrata.errors import ModelError
from mtstrata.layers._pinned import check_installed
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Token

PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS})
SCHEMES: Mapping[Layer, str] = {Layer.POS: "upos"}
PACKAGES = ("hanta", "spacy")
MODEL = "morphmodel_ger.pgz"

#: STTS -> universal POS: the most frequent UPOS of each STTS tag among the words of UD
#: German-GSD's development section (snapshot 297fcf3; docs/languages.md gives the counts);
#: the tags absent there by their kin (APPRART, split into two words in UD, as APPR; PIDAT as
#: PIAT; PROAV as PAV; VAIMP, VMPP as VAFIN, VMFIN); the ties (FM, ITJ) by UD's definitions
STTS_UPOS = {
    "$(": "PUNCT", "$,": "PUNCT", "$.": "PUNCT", "ADJA": "ADJ", "ADJD": "ADJ", "ADV": "ADV",
    "APPO": "ADP", "APPR": "ADP", "APPRART": "ADP", "APZR": "ADP", "ART": "DET",
    "CARD": "NUM", "FM": "X", "ITJ": "INTJ", "KOKOM": "ADP", "KON": "CCONJ", "KOUI": "ADP",
    "KOUS": "SCONJ", "NE": "PROPN", "NN": "NOUN", "PAV": "ADV", "PROAV": "ADV",
    "PDAT": "DET", "PDS": "PRON", "PIAT": "DET", "PIDAT": "DET", "PIS": "PRON",
    "PPER": "PRON", "PPOSAT": "DET", "PPOSS": "PRON", "PRELAT": "PRON", "PRELS": "PRON",
    "PRF": "PRON", "PTKA": "ADV", "PTKANT": "ADV", "PTKNEG": "PART", "PTKVZ": "ADP",
    "PTKZU": "PART", "PWAT": "DET", "PWAV": "ADV", "PWS": "PRON", "TRUNC": "NOUN",
    "VAFIN": "AUX", "VAIMP": "AUX", "VAINF": "AUX", "VAPP": "AUX", "VMFIN": "AUX",
    "VMINF": "AUX", "VMPP": "AUX", "VVFIN": "VERB", "VVIMP": "VERB", "VVINF": "VERB",
    "VVIZU": "VERB", "VVPP": "VERB", "XY": "X",
}
#: HanTa's tags that are no STTS tag, as STTS
_HANTA_STTS = {"NNA": "NN", "NNI": "NN", "UNKNOWN": "XY"}
#: what each layer runs
_NEEDS: dict[Layer, tuple[str, ...]] = {
    Layer.TOKENS: (), Layer.POS: ("hanta",), Layer.LEMMA: ("hanta",)}


def stts(tag: str) -> str:
    """HanTa's tag as STTS: ``VV(FIN)`` -> ``VVFIN``, ``ADJ(A)`` -> ``ADJA``, ``NNA`` -> ``NN``."""
    tag = tag.replace("(", "").replace(")", "")
    return _HANTA_STTS.get(tag, tag)


@PROVIDERS.register("hanta", description="HanTa (STTS tags mapped to UD, lemmas) over spaCy's "
                    "German rules: the default for German; no dependencies, no entities",
                    layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class HantaAnnotator(ProviderBase):
    """Annotates German texts: spaCy's German tokenizer and sentencizer, HanTa's tags and
    lemmas (``hanta:batch_size=256``)."""

    batch_size: int = 256
    allow_unlocked: bool = False

    name: ClassVar[str] = "hanta"
    code: ClassVar[tuple[str, ...]] = ("hanta",)
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"de"})
    default: ClassVar[bool] = True
    _models: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ModelError(f"hanta: batch_size must be >= 1; got {self.batch_size}.")
        versions, unlocked = check_installed(PACKAGES, self.allow_unlocked,
                                             "the hanta annotator (German)")
        object.__setattr__(self, "versions", versions)
        object.__setattr__(self, "unlocked", unlocked)

    def signature(self, layers: frozenset[Layer]) -> str:
        from mtstrata.layers.code import version

        v = self.versions  # type: ignore[attr-defined]
        sig = f"spacy-{v['spacy']}.de-rules+sentencizer"
        if frozenset(layers) & {Layer.POS, Layer.LEMMA}:
            sig += f".hanta-{v['hanta']}.{MODEL.removesuffix('.pgz')}"
        sig += f".conv{version('hanta')}"
        return sig + (".unlocked" if self.unlocked else "")  # type: ignore[attr-defined]

    def _tokenizer(self) -> Any:
        if "nlp" not in self._models:
            import spacy

            nlp = spacy.blank("de")
            nlp.add_pipe("sentencizer")
            self._models["nlp"] = nlp
        return self._models["nlp"]

    def _tagger(self) -> Any:
        if "hanta" not in self._models:
            try:
                from HanTa import HanoverTagger
            except ImportError:
                raise ModelError("the hanta annotator needs HanTa (pinned in models.lock); "
                                 "install it with `mtstrata models --install`.") from None
            self._models["hanta"] = HanoverTagger.HanoverTagger(MODEL)
        return self._models["hanta"]

    def annotate(self, texts: Iterable[str], layers: frozenset[Layer]) -> Iterator[Segment]:
        """Segments of ``texts``, in order."""
        layers = frozenset(layers) | {Layer.TOKENS}
        nlp = self._tokenizer()
        mine, theirs = itertools.tee(texts)
        for text, doc in zip(mine, nlp.pipe(theirs, batch_size=self.batch_size), strict=True):
            sents = [[t.text for t in s if not t.is_space] for s in doc.sents]
            yield self._segment(text, [s for s in sents if s], layers)

    def annotate_sentences(self, sentences: Sequence[Sequence[str]],
                           layers: Iterable[Layer] = PROVIDES) -> list[Segment]:
        """One segment per given sentence of words (CoNLL-U text)."""
        layers = frozenset(layers) | {Layer.TOKENS}
        return [self._segment(" ".join(words), [list(words)], layers) for words in sentences]

    def _segment(self, text: str, sents: list[list[str]], layers: frozenset[Layer]) -> Segment:
        tagged = None
        if layers & {Layer.POS, Layer.LEMMA}:
            tagger = self._tagger()
            tagged = [[(lemma, tag) for _w, lemma, tag in tagger.tag_sent(s, taglevel=1)]
                      for s in sents]
        return to_segment(text, sents, layers, tagged)

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        return self.annotate((s.text for s in segments), layers)


def to_segment(text: str, sentences: Sequence[Sequence[str]], layers: frozenset[Layer],
               tagged: Sequence[Sequence[tuple[str, str]]] | None = None) -> Segment:
    """A :class:`Segment` of ``text`` from its sentences of words and HanTa's (lemma, tag) of
    each word (see the module docstring)."""
    pos, lemma = Layer.POS in layers, Layer.LEMMA in layers
    tokens: list[Token] = []
    starts: list[int] = []
    for k, words in enumerate(sentences):
        starts.append(len(tokens))
        for j, form in enumerate(words):
            lem, tag = tagged[k][j] if tagged is not None else (None, None)
            fine = stts(tag) if tag is not None else None
            tokens.append(Token(form=form, lemma=lem if lemma else None,
                                upos=STTS_UPOS.get(fine, "X") if pos and fine else None,
                                xpos=fine if pos else None))
    got = frozenset({Layer.TOKENS} | (layers & PROVIDES))
    return Segment(text=text, tokens=tuple(tokens), sent_starts=tuple(starts) or (0,),
                   layers=got,
                   schemes=tuple(sorted((k.value, v) for k, v in SCHEMES.items() if k in got)))
