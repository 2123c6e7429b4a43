"""The Russian annotator: natasha's models (slovnet morphology, syntax and NER over navec
vectors) with razdel's sentences and tokens and pymorphy3's lemmas, as pinned in
``models.lock``; the default provider for Russian (``--lang ru``).

The models are those natasha 1.6.0 ships (``natasha/data``: ``slovnet_morph_news_v1``,
``slovnet_syntax_news_v1``, ``slovnet_ner_news_v1``, ``navec_news_v1_1B_250K_300d_100q``); they
are loaded from the installed package's directory with slovnet's and navec's own loaders,
without importing ``natasha`` itself (it imports pymorphy2, whose lemmatiser fails on Python
3.11 and later). Nothing is downloaded. The pipeline is natasha's ``Doc``: razdel splits the
text into sentences and each sentence into tokens; the morphology tagger gives each token a
universal POS tag and features, the syntax parser its head and Universal Dependencies relation
(per sentence), the NER tagger typed character spans over the text (PER, LOC, ORG); lemmas are
natasha's rule (``natasha.morph.lemma``) over pymorphy3's OpenCorpora analyses: the analysis
whose POS and features agree best with the tagger's, lower-cased, ``ё`` read as ``е``
(:func:`lemmatize`, ported with the OpenCorpora-to-UD tables of natasha/kmike's
russian-tagsets, MIT licence).

Conversion (:func:`to_segment`): tokens in order over the segment's sentences; ``upos`` the
tagger's universal tag; ``xpos`` none (the models give no language-specific tag); ``head``
1-based over the whole segment (each sentence's heads shifted by the tokens before it, 0 the
root); ``deprel`` the parser's UD label (``flat:name``, ``nsubj:pass`` kept whole); entities
the tokens a span covers entirely (natasha's ``envelop_spans``), their type mapped to the
common entity set (:data:`NE_MAP`: PER LOC ORG as they are). The layers' schemes: ``upos``
for ``pos``, ``ud`` for ``dep``, ``conll`` for ``ner``.

CoNLL-U text (already split into sentences and words) is annotated without razdel by
:meth:`NatashaAnnotator.annotate_sentences`, one segment per sentence with the given words.
"""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from mtstrata.errors import ModelError
from mtstrata.layers._pinned import HOW_TO_INSTALL, check_installed
from mtstrata.layers.provider import PROVIDERS, ProviderBase
from mtstrata.segment import Layer, Segment, Span, Token

PROVIDES = frozenset({Layer.TOKENS, Layer.LEMMA, Layer.POS, Layer.DEP, Layer.NER})
SCHEMES: Mapping[Layer, str] = {Layer.POS: "upos", Layer.DEP: "ud", Layer.NER: "conll"}
#: the pinned distributions it runs (models.lock), by what they give
PACKAGES = ("natasha", "slovnet", "navec", "razdel", "pymorphy3", "pymorphy3-dicts-ru",
            "dawg2-python")
#: the model files inside the natasha package
FILES = {"morph": "model/slovnet_morph_news_v1.tar", "syntax": "model/slovnet_syntax_news_v1.tar",
         "ner": "model/slovnet_ner_news_v1.tar",
         "navec": "emb/navec_news_v1_1B_250K_300d_100q.tar"}
#: natasha's entity types -> the common entity set (PER LOC ORG MISC)
NE_MAP = {"PER": "PER", "LOC": "LOC", "ORG": "ORG"}
#: the components each layer needs (razdel always: it makes the tokens)
_NEEDS: dict[Layer, tuple[str, ...]] = {
    Layer.TOKENS: (),
    Layer.POS: ("morph",),
    Layer.LEMMA: ("morph", "lemmas"),
    Layer.DEP: ("syntax",),
    Layer.NER: ("ner",),
}
_ORDER = ("morph", "lemmas", "syntax", "ner")



def components_for(layers: frozenset[Layer]) -> tuple[str, ...]:
    need = {c for layer in layers for c in _NEEDS.get(layer, ())}
    return tuple(c for c in _ORDER if c in need)


def data_dir() -> Path | None:
    """natasha's model directory, found without importing natasha (None: not installed)."""
    spec = importlib.util.find_spec("natasha")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data"




@PROVIDERS.register("natasha", description="natasha (slovnet morphology, syntax, NER; "
                    "pymorphy3 lemmas): the default for Russian; UD tags and relations, "
                    "PER/LOC/ORG entities", layers=tuple(sorted(x.value for x in PROVIDES)))
@dataclass(frozen=True)
class NatashaAnnotator(ProviderBase):
    """Annotates Russian texts with natasha's pinned models (``natasha:batch_size=64``)."""

    batch_size: int = 64
    allow_unlocked: bool = False

    name: ClassVar[str] = "natasha"
    code: ClassVar[tuple[str, ...]] = ("natasha",)
    assigns: ClassVar[frozenset[Layer]] = PROVIDES
    schemes: ClassVar[Mapping[Layer, str]] = SCHEMES
    languages: ClassVar[frozenset[str] | None] = frozenset({"ru"})
    default: ClassVar[bool] = True
    _models: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ModelError(f"natasha: batch_size must be >= 1; got {self.batch_size}.")
        versions, unlocked = check_installed(PACKAGES, self.allow_unlocked, "the natasha "
                                             "annotator (Russian)")
        object.__setattr__(self, "versions", versions)
        object.__setattr__(self, "unlocked", unlocked)

    def signature(self, layers: frozenset[Layer]) -> str:
        """The libraries and models the components of ``layers`` run, and the version of the
        conversion code (:data:`mtstrata.layers.code.CODE`)."""
        from mtstrata.layers.code import version

        v = self.versions  # type: ignore[attr-defined]
        parts = [f"natasha-{v['natasha']}", f"razdel-{v['razdel']}"]
        comps = components_for(frozenset(layers))
        if set(comps) - {"lemmas"}:
            parts.append(f"slovnet-{v['slovnet']}.navec-{v['navec']}")
        parts += [c + "_news_v1" if c != "lemmas" else
                  f"pymorphy3-{v['pymorphy3']}.dicts-{v['pymorphy3-dicts-ru']}" for c in comps]
        sig = ".".join(parts) + f".conv{version('natasha')}"
        return sig + (".unlocked" if self.unlocked else "")  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ models
    def _model(self, part: str) -> Any:
        if part == "lemmas":
            return _analyzer()
        if part not in self._models:
            d = data_dir()
            if d is None or not (d / FILES[part]).is_file():
                raise ModelError(f"natasha's model file {FILES[part]} is missing from the "
                                 f"installed package; reinstall it with `{HOW_TO_INSTALL}`.")
            if part == "navec":
                from navec import Navec

                self._models[part] = Navec.load(d / FILES[part])
            else:
                import slovnet

                cls = {"morph": slovnet.Morph, "syntax": slovnet.Syntax, "ner": slovnet.NER}
                model = cls[part].load(d / FILES[part], batch_size=self.batch_size)
                self._models[part] = model.navec(self._model("navec"))
        return self._models[part]

    # ------------------------------------------------------------------ annotation
    def annotate(self, texts: Iterable[str], layers: frozenset[Layer]) -> Iterator[Segment]:
        """Segments of ``texts``, in order (razdel's sentences and tokens)."""
        layers = frozenset(layers) | {Layer.TOKENS}
        it = iter(texts)
        while chunk := list(itertools.islice(it, self.batch_size * 4)):
            split = [split_text(t) for t in chunk]
            yield from self._convert(chunk, split, layers, texts_for_ner=chunk)

    def annotate_sentences(self, sentences: Sequence[Sequence[str]],
                           layers: Iterable[Layer] = PROVIDES) -> list[Segment]:
        """One segment per given sentence of words (CoNLL-U text: the words are the tokens;
        the segment's text is the words joined by spaces, which the NER tagger reads)."""
        layers = frozenset(layers) | {Layer.TOKENS}
        texts, split = [], []
        for words in sentences:
            toks, pos = [], 0
            for w in words:
                toks.append((pos, pos + len(w), w))
                pos += len(w) + 1
            texts.append(" ".join(words))
            split.append([toks])
        return list(self._convert(texts, split, layers, texts_for_ner=texts))

    def _convert(self, texts: list[str], split: list[list[list[tuple[int, int, str]]]],
                 layers: frozenset[Layer], texts_for_ner: list[str]) -> Iterator[Segment]:
        comps = components_for(layers)
        flat = [[w for _, _, w in sent] for sents in split for sent in sents]
        morph = syntax = None
        if "morph" in comps:
            morph = [[(t.pos, t.feats) for t in m.tokens]
                     for m in self._model("morph").map(flat)]
        if "syntax" in comps:
            syntax = [[(int(t.id), int(t.head_id), t.rel) for t in m.tokens]
                      for m in self._model("syntax").map(flat)]
        spans = None
        if "ner" in comps:
            spans = [[(s.start, s.stop, s.type) for s in m.spans]
                     for m in self._model("ner").map(texts_for_ner)]
        lemmas = self._model("lemmas") if "lemmas" in comps else None
        k = 0
        for i, (text, sents) in enumerate(zip(texts, split, strict=True)):
            n = len(sents)
            yield to_segment(text, sents, layers,
                             morph=morph[k:k + n] if morph is not None else None,
                             syntax=syntax[k:k + n] if syntax is not None else None,
                             spans=spans[i] if spans is not None else None,
                             analyzer=lemmas)
            k += n

    def pipe(self, segments: Iterable[Segment], layers: frozenset[Layer], *, jobs: int = 1,
             quiet: bool = True) -> Iterator[Segment]:
        """The segments annotated afresh from their texts, in order."""
        return self.annotate((s.text for s in segments), layers)


def split_text(text: str) -> list[list[tuple[int, int, str]]]:
    """razdel's sentences of ``text``, each a list of (start, stop, token) with offsets into
    ``text`` (natasha's ``Doc.segment``)."""
    from razdel import sentenize, tokenize

    if not text.strip():
        return []
    return [[(s.start + t.start, s.start + t.stop, t.text) for t in tokenize(s.text)]
            for s in sentenize(text)]


def to_segment(text: str, sentences: Sequence[Sequence[tuple[int, int, str]]],
               layers: frozenset[Layer], *,
               morph: Sequence[Sequence[tuple[str, dict[str, str]]]] | None = None,
               syntax: Sequence[Sequence[tuple[int, int, str]]] | None = None,
               spans: Sequence[tuple[int, int, str]] | None = None,
               analyzer: Any = None) -> Segment:
    """A :class:`Segment` of ``text`` from its sentences of (start, stop, word) and what the
    models gave: per sentence, each word's (UPOS, features) and (id, head id, relation); the
    entity spans over the text (see the module docstring). ``analyzer`` (pymorphy3's) makes
    the lemmas."""
    pos, lemma, dep = Layer.POS in layers, Layer.LEMMA in layers, Layer.DEP in layers
    tokens: list[Token] = []
    starts: list[int] = []
    where: list[tuple[int, int]] = []
    for k, sent in enumerate(sentences):
        offset = len(tokens)
        starts.append(offset)
        tags = morph[k] if morph is not None and (pos or lemma) else None
        arcs = syntax[k] if syntax is not None and dep else None
        for j, (start, stop, form) in enumerate(sent):
            upos, feats = tags[j] if tags is not None else (None, {})
            head, rel = None, None
            if arcs is not None:
                _id, h, r = arcs[j]
                head, rel = (offset + h if h else 0), (r.lower() if h else "root")
            tokens.append(Token(
                form=form,
                lemma=lemmatize(analyzer, form, upos or "X", feats) if lemma else None,
                upos=upos if pos else None, xpos=None, head=head, deprel=rel))
            where.append((start, stop))
    entities: tuple[Span, ...] = ()
    if Layer.NER in layers:
        found = []
        for s, e, label in spans or ():
            inside = [i for i, (a, b) in enumerate(where) if s <= a and b <= e]
            if inside:
                found.append(Span(inside[0], inside[-1] + 1, NE_MAP.get(label, "MISC")))
        entities = tuple(sorted(found, key=lambda x: (x.start, x.end)))
    got = frozenset({Layer.TOKENS} | (layers & PROVIDES))
    return Segment(text=text, tokens=tuple(tokens), entities=entities,
                   sent_starts=tuple(starts) or (0,), layers=got,
                   schemes=tuple(sorted((k.value, v) for k, v in SCHEMES.items() if k in got)))


# ------------------------------------------------------------------ lemmas (natasha's rule)
#: OpenCorpora part of speech -> UD (kmike's russian-tagsets, as natasha's morph.vocab)
OC_UD_POS = {
    "ADJF": "ADJ", "ADJS": "ADJ", "ADVB": "ADV", "COMP": "ADV", "VERB": "VERB", "GRND": "VERB",
    "INFN": "VERB", "PRTF": "VERB", "PRTS": "VERB", "NOUN": "NOUN", "NPRO": "PRON",
    "NUMR": "NUM", "NUMB": "NUM", "Apro": "DET", "CONJ": "CCONJ", "INTJ": "INTJ",
    "PART": "PRCL", "PNCT": "PUNCT", "PRCL": "PART", "PREP": "ADP",
}
#: OpenCorpora grammeme -> (UD feature, value), as natasha's OC_UD_INDEX (built from its
#: OC_UD_FEATS list, where the later entry of a grammeme wins: PRTS is VerbForm=Part)
OC_UD_FEATS = {
    "anim": ("Animacy", "Anim"), "inan": ("Animacy", "Inan"), "impf": ("Aspect", "Imp"),
    "perf": ("Aspect", "Perf"), "ablt": ("Case", "Ins"), "accs": ("Case", "Acc"),
    "datv": ("Case", "Dat"), "gent": ("Case", "Gen"), "gen1": ("Case", "Gen"),
    "gen2": ("Case", "Gen"), "loct": ("Case", "Loc"), "loc2": ("Case", "Loc"),
    "nomn": ("Case", "Nom"), "voct": ("Case", "Nom"), "COMP": ("Degree", "Cmp"),
    "Supr": ("Degree", "Sup"), "femn": ("Gender", "Fem"), "masc": ("Gender", "Masc"),
    "neut": ("Gender", "Neut"), "impr": ("Mood", "Imp"), "indc": ("Mood", "Ind"),
    "plur": ("Number", "Plur"), "sing": ("Number", "Sing"), "NUMB": ("NumForm", "Digit"),
    "1per": ("Person", "1"), "2per": ("Person", "2"), "3per": ("Person", "3"),
    "excl": ("Person", "2"), "incl": ("Person", "1"), "futr": ("Tense", "Fut"),
    "past": ("Tense", "Past"), "pres": ("Tense", "Pres"), "ADJS": ("Variant", "Brev"),
    "PRTS": ("VerbForm", "Part"), "GRND": ("VerbForm", "Conv"), "INFN": ("VerbForm", "Inf"),
    "PRTF": ("VerbForm", "Part"), "VERB": ("VerbForm", "Fin"), "actv": ("Voice", "Act"),
    "pssv": ("Voice", "Pass"), "Abbr": ("Abbr", "Yes"),
}
_NORMAL_POS = {"PROPN": "NOUN", "AUX": "VERB", "SCONJ": "CCONJ"}
#: the features the choice of an analysis compares (natasha's: Animacy, Voice... ignored)
_FEATS = ("Aspect", "Case", "Gender", "NumForm", "Number", "Person", "Tense", "Variant")


@lru_cache(maxsize=1)
def _analyzer() -> Any:
    import pymorphy3

    return _Cached(pymorphy3.MorphAnalyzer())


class _Cached:
    """pymorphy3's analyses of a word, each as (normal form, UD POS, UD features), memoised
    (natasha's MorphVocab keeps 10,000; the analyses are a pure function of the word)."""

    def __init__(self, analyzer: Any) -> None:
        self.analyzer = analyzer
        self.forms = lru_cache(maxsize=100_000)(self._forms)

    def _forms(self, word: str) -> tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]:
        out = []
        for p in self.analyzer.parse(word):
            tag = p.tag
            feats = dict(OC_UD_FEATS[g] for g in tag._grammemes_tuple if g in OC_UD_FEATS)
            out.append((p.normal_form, OC_UD_POS.get(tag._POS, "X"), tuple(feats.items())))
        return tuple(out)


def _normal_word(word: str) -> str:
    return word.lower().replace("ё", "е")


def lemmatize(analyzer: Any, word: str, pos: str, feats: Mapping[str, str]) -> str:
    """natasha's lemma of ``word`` tagged ``pos`` with ``feats``: the normal form of the
    analysis equal in POS and features, else of the one agreeing best (POS, PROPN read as
    NOUN, AUX as VERB, SCONJ as CCONJ, plus each compared feature that agrees; the first on
    ties; none agreeing at all: the word itself), lower-cased with ``ё`` as ``е``."""
    word = _normal_word(word)
    feats = dict(feats)
    best, score = None, 0
    for normal, fpos, ffeats in analyzer.forms(word):
        fd = dict(ffeats)
        if fpos == pos and fd == feats:
            return _normal_word(normal)
        sim = int(_NORMAL_POS.get(fpos, fpos) == _NORMAL_POS.get(pos, pos)) + sum(
            fd[k] == feats[k] for k in fd.keys() & feats.keys() if k in _FEATS)
        if sim > score:
            best, score = normal, sim
    return _normal_word(best) if best is not None else word
