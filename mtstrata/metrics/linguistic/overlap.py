"""Overlap and Matching over linguistic elements, and the SP-, DP-, NE-, SR- families.

Giménez & Màrquez (2010), "Towards similarity measures based on multiple linguistic layers"
(slides "Overlap among Linguistic Elements"). For an element type ``t``::

    O(t) = Σ_i min(cnt_hyp(i,t), cnt_ref(i,t)) / Σ_i max(cnt_hyp(i,t), cnt_ref(i,t))

(multiset Jaccard; the slide prints ``count_hyp`` in the numerator, the reference implementation
and we use ``min``). *Overlap* metrics take the words inside the elements as items, *Matching*
metrics the whole elements. ``(*)`` is the micro-average over all types,
``Σ_t hits_t / Σ_t total_t``; ``avg=macro`` averages the per-type values instead. The ``meas``
parameter gives precision ``Σ min / Σ cnt_hyp``, recall ``Σ min / Σ cnt_ref`` or
``F = 2PR/(P+R)`` (which is ``2 Σ min / (Σ cnt_hyp + Σ cnt_ref)``) in place of the Jaccard ratio.

Empty sides: a type empty on both sides is undefined and left out; one side empty gives 0.
A segment with nothing to compare at all has an undefined score: it is left out of the system
mean and its sentence score is NaN.

Several references (``refs``): ``max`` (Asiya) scores the segment against each reference and
keeps the best; ``pooled`` compares with the multiset union (max counts) of the references.
The system score is the mean of the segment scores (Asiya).

Statistics: ``[Σ segment score, number of defined segments]`` followed by ``[hits, hyp, ref]``
per type of the metric (for the reference that was kept), so the corpus score, resampling and
the per-type breakdown of ``details()`` (corpus-level micro values, e.g. ``SP-Op(NN)``) need no
recomputation. The counting itself is done for a whole corpus at once by
:mod:`~mtstrata.metrics.linguistic.counts` and shared by the metrics built on the same
extractor.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import MetricBase
from mtstrata.metrics.linguistic import extractors as ex
from mtstrata.metrics.linguistic.counts import pair_counts
from mtstrata.metrics.linguistic.elements import COARSE_POS, OUTSIDE, Extractor
from mtstrata.segment import Layer, Segment

Meas = Literal["jac", "p", "r", "f"]
_NAN = float("nan")


def measure(hits: float, hyp: float, ref: float, meas: str) -> float:
    """One value of the measure from summed counts (NaN if both sides are empty)."""
    if hyp + ref <= 0:
        return _NAN
    if meas == "jac":
        return hits / (hyp + ref - hits)
    if meas == "p":
        return hits / hyp if hyp > 0 else 0.0
    if meas == "r":
        return hits / ref if ref > 0 else 0.0
    return 2.0 * hits / (hyp + ref)


def measure_array(hits: np.ndarray, hyp: np.ndarray, ref: np.ndarray, meas: str
                  ) -> np.ndarray:
    """:func:`measure` elementwise over arrays of counts (NaN where both sides are empty)."""
    hits, hyp, ref = (np.asarray(x, dtype=float) for x in (hits, hyp, ref))
    with np.errstate(invalid="ignore", divide="ignore"):
        if meas == "jac":
            v = hits / (hyp + ref - hits)
        elif meas == "p":
            v = np.where(hyp > 0, hits / hyp, 0.0)
        elif meas == "r":
            v = np.where(ref > 0, hits / ref, 0.0)
        else:
            v = 2.0 * hits / (hyp + ref)
    return np.where(hyp + ref > 0, v, _NAN)


def best_reference(values: np.ndarray, valid: np.ndarray, pick: str = "max") -> np.ndarray:
    """Index of the kept reference per segment: the best (``pick="max"``) or worst defined
    value, the first reference on ties and when no value is defined."""
    defined = valid & ~np.isnan(values)
    fill = -np.inf if pick == "max" else np.inf
    v = np.where(defined, values, fill)
    return np.argmax(v, axis=1) if pick == "max" else np.argmin(v, axis=1)


def defined_mean(stats: np.ndarray) -> float:
    """Corpus score of ``[sum of values, number of defined segments, ...]`` statistics: the
    mean over the segments where the metric is defined (NaN if none is)."""
    return float(stats[0] / stats[1]) if stats[1] > 0 else _NAN


def defined_means(stats: np.ndarray) -> np.ndarray:
    """Segment scores of rows of such statistics (NaN where undefined)."""
    st = np.atleast_2d(stats)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(st[:, 1] > 0, st[:, 0] / np.where(st[:, 1] > 0, st[:, 1], 1), _NAN)


@dataclass(frozen=True)
class ElementOverlap(MetricBase):
    """Overlap / Matching of one element extractor (base of all the families).

    >>> from mtstrata import metrics
    >>> from mtstrata.segment import Segment
    >>> m = metrics.create("SP-Op(*)")
    >>> hyp = Segment.from_words("the cat sat", xpos="DT NN VBD".split())
    >>> ref = Segment.from_words("the dog sat", xpos="DT NN VBD".split())
    >>> m.score(m.stats(hyp, [ref]))  # DT 1/1, NN 0/2, VBD 1/1: 2 of 4
    0.5

    Subclasses set ``prefix`` (the Asiya name before the type), ``elements`` (the extractor),
    ``requires`` and whether the name carries a type.
    """

    t: str = "*"
    avg: Literal["micro", "macro"] = "micro"
    meas: Meas = "jac"
    refs: Literal["max", "pooled"] = "max"

    prefix: ClassVar[str] = ""
    elements: ClassVar[Extractor]
    typed: ClassVar[bool] = True  # False: a name without "(t)" (Ol, SR-Or, ...)
    star_star: ClassVar[bool] = False  # NE-Oe(**): includes the words outside entities
    signature_exclude = frozenset({"t"})  # the type is part of the name

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if "elements" in cls.__dict__:  # the layers are the extractor's
            cls.requires = cls.elements.layers

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.t in ("*", "**"):
            if self.t == "**" and not self.star_star:
                raise ConfigError(f"{self.prefix}(**) does not exist; use {self.prefix}(*).")
            return
        if not self.typed:
            raise ConfigError(f"{self.prefix} takes no type; write it without parentheses.")
        object.__setattr__(self, "t", self.extractor().resolve(self._alias(self.t)))

    # ----------------------------------------------------------- configuration
    def _alias(self, t: str) -> str:
        return t

    def extractor(self) -> Extractor:
        return self.elements

    def type_indices(self) -> list[int]:
        ex = self.extractor()
        if self.t == "**":
            return list(range(len(ex.types)))
        if self.t == "*" and self.star_star:  # (*): entity words only, (**) all words
            return [i for i, name in enumerate(ex.types) if name != OUTSIDE]
        if self.t == "*":
            return list(range(len(ex.types)))
        return [ex.types.index(self.t)]

    def display_name(self) -> str:
        return f"{self.prefix}({self.t})" if self.typed else self.prefix

    def stat_names(self) -> tuple[str, ...]:
        """``score_sum`` and ``defined`` (segments), then hits/hyp/ref counts per type."""
        types = self.extractor().types
        return ("score_sum", "defined", *(f"{k}:{types[i]}" for i in self.type_indices()
                                          for k in ("hits", "hyp", "ref")))

    # ----------------------------------------------------------- statistics
    def _values(self, hits: np.ndarray, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """Segment values from ``(..., k)`` count arrays over the selected types."""
        if self.avg == "micro":
            return measure_array(hits.sum(-1), hyp.sum(-1), ref.sum(-1), self.meas)
        per = measure_array(hits, hyp, ref, self.meas)
        n_def = (~np.isnan(per)).sum(-1)
        total = np.where(np.isnan(per), 0.0, per).sum(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n_def > 0, total / np.maximum(n_def, 1), _NAN)

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        sel = np.array(self.type_indices())
        pc = pair_counts(self.extractor(), hyps, refs, pooled=self.refs == "pooled")
        n = len(hyps)
        hits, ref = pc.hits[:, :, sel], pc.ref[:, :, sel]
        hyp = pc.hyp[:, sel]
        vals = self._values(hits, np.broadcast_to(hyp[:, None, :], hits.shape), ref)
        b = best_reference(vals, pc.valid)
        rows = np.arange(n)
        s = vals[rows, b]
        defined = ~np.isnan(s)
        out = np.empty((n, 2 + 3 * len(sel)))
        out[:, 0] = np.where(defined, s, 0.0)
        out[:, 1] = defined
        out[:, 2::3] = hits[rows, b]
        out[:, 3::3] = hyp
        out[:, 4::3] = ref[rows, b]
        return out

    def score(self, stats: np.ndarray) -> float:
        return defined_mean(stats)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return defined_means(stats)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """Corpus-level micro P, R, F and (for ``(*)``) the value of every type seen."""
        c = np.asarray(stats[2:], dtype=float)
        hits, hyp, ref = c[0::3].sum(), c[1::3].sum(), c[2::3].sum()
        out = {f"{self.display_name()} {k.upper()}": measure(hits, hyp, ref, k)
               for k in ("p", "r", "f")}
        if self.typed and self.t in ("*", "**"):
            names = self.extractor().types
            for k, ti in enumerate(self.type_indices()):
                h, p, r = c[3 * k:3 * k + 3]
                if p + r > 0:
                    out[f"{self.prefix}({names[ti]})"] = measure(h, p, r, self.meas)
        return out


# ------------------------------------------------------------------ families
def _register(cls: type[ElementOverlap], description: str, examples: tuple[str, ...] = ()
              ) -> type[ElementOverlap]:
    """Register a family under its Asiya name (with ``(t)`` when it carries a type)."""
    layers = tuple(sorted(str(x) for x in cls.requires))
    if cls.typed:
        REGISTRY.add_family(f"{cls.prefix}(t)", rf"{re.escape(cls.prefix)}\((.+)\)", cls,
                            description, layers, examples)
    else:
        REGISTRY.add(cls.prefix, cls, description, layers)
    return cls


def _family(name: str, prefix: str, elements: Extractor, description: str,
            examples: tuple[str, ...] = (), base: type[ElementOverlap] | None = None,
            **attrs: object) -> type[ElementOverlap]:
    """A family that is only its name and extractor: the class is made and registered here."""
    cls = type(name, (base or ElementOverlap,), {
        "prefix": prefix, "elements": elements, "__module__": __name__, "__qualname__": name,
        **attrs})
    cls = dataclass(frozen=True)(cls)
    globals()[name] = cls  # importable (and picklable) by name
    return _register(cls, description, examples)


class _Roles(ElementOverlap):
    """Role names on the command line may drop Asiya's ``AM-`` (``SR-Or(TMP)``)."""

    def _alias(self, t: str) -> str:
        up = t.upper()
        return "AM-" + up if re.fullmatch(r"[A-Z]{3}", up) and up != "OTH" else t


class _Schemed(ElementOverlap):
    """A family whose element inventory is written for one label scheme of a layer, with
    another inventory for the scheme every other language's providers give: the parameter
    ``param`` names the scheme (signed when it is not English's, the old behaviour), its
    default is the run's language's (:mod:`mtstrata.languages`), and the plan checks that the
    layer comes in it."""

    layer: ClassVar[Layer]
    param: ClassVar[str]
    inventories: ClassVar[dict[str, Extractor]]

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        if "inventories" in cls.__dict__:
            english, other = cls.inventories
            cls.language_defaults = {cls.param: {"en": english, "*": other}}
            cls.implicit = {cls.param: english}

    @property
    def scheme(self) -> str:
        return str(getattr(self, self.param))

    @property
    def schemes(self) -> dict[Layer, str]:  # type: ignore[override]
        return {self.layer: self.scheme}

    def __post_init__(self) -> None:
        if self.scheme not in self.inventories:
            raise ConfigError(f"{self.prefix}: {self.param}={self.scheme!r}; give "
                              + " or ".join(f"{self.param}={k}" for k in self.inventories)
                              + ".")
        super().__post_init__()

    def extractor(self) -> Extractor:
        return self.inventories[self.scheme]


@dataclass(frozen=True)
class SPOp(_Schemed):
    """``SP-Op(t)``: ``t`` a PTB tag or one of Asiya's coarse groups (J N P R V W F); with
    ``tags=upos`` (every language but English) a universal POS tag."""

    tags: Literal["ptb", "upos"] = "ptb"
    prefix = "SP-Op"
    elements = ex.POS
    layer = Layer.POS
    param = "tags"
    inventories = {"ptb": ex.POS, "upos": ex.POS_UPOS}  # PTB tags (and Asiya's groups of them)

    def extractor(self) -> Extractor:
        if self.tags == "upos":
            if self.t.upper() in COARSE_POS:
                raise ConfigError(f"SP-Op({self.t}): Asiya's coarse groups J N P R V W F are "
                                  "groups of Penn Treebank tags; with tags=upos name a "
                                  "universal POS tag (NOUN, VERB, ADJ...) or (*).")
            return ex.POS_UPOS
        # the coarse groups (J, N, ...) are not PTB tags, so one name serves both inventories
        return ex.POS_COARSE if self.t.upper() in COARSE_POS else ex.POS


@dataclass(frozen=True)
class DPOr(_Schemed):
    """``DP-Or(t)``: ClearNLP relations in English, universal UD relations (subtypes left out:
    ``nsubj:pass`` is ``nsubj``) with ``rels=ud`` (every other language)."""

    rels: Literal["clearnlp", "ud"] = "clearnlp"
    prefix = "DP-Or"
    elements = ex.DEP_REL
    layer = Layer.DEP
    param = "rels"
    inventories = {"clearnlp": ex.DEP_REL, "ud": ex.DEP_REL_UD}


@dataclass(frozen=True)
class _Entities(_Schemed):
    """NE- families: OntoNotes types in English, the common set PER LOC ORG MISC with
    ``ents=conll`` (every other language's providers map their types to it)."""

    ents: Literal["ontonotes", "conll"] = "ontonotes"
    layer = Layer.NER
    param = "ents"


@dataclass(frozen=True)
class NEOe(_Entities):
    prefix = "NE-Oe"
    elements = ex.NE_WORD
    star_star = True
    inventories = {"ontonotes": ex.NE_WORD, "conll": ex.NE_WORD_CONLL}


@dataclass(frozen=True)
class NEMe(_Entities):
    prefix = "NE-Me"
    elements = ex.NE_ENTITY
    inventories = {"ontonotes": ex.NE_ENTITY, "conll": ex.NE_ENTITY_CONLL}


@dataclass(frozen=True)
class DPLd(ElementOverlap):
    """``DP-Ld``: labelled dependency triples, F-measure by default."""

    meas: Meas = "f"
    prefix = "DP-Ld"
    elements = ex.DEP_TRIPLE
    typed = False


_register(SPOp, "overlap of words by POS tag t (PTB tag or group J N P R V W F; outside "
          "English a universal POS tag: tags=upos), (*) all",
          ("SP-Op(*)", "SP-Op(N)", "SP-Op(.)"))
_register(DPLd, "labelled dependency triples (rel, head, dep) P/R/F, F by default "
          "(Owczarzak et al. 2007)")
_family("Ol", "Ol", ex.WORD, "lexical overlap: multiset Jaccard of word forms (Giménez & "
        "Màrquez 2010)", typed=False)
_family("OlLemma", "Ol-lem", ex.LEMMA, "lexical overlap of lemmas", typed=False)
_family("SPOc", "SP-Oc", ex.CHUNK, "overlap of words by chunk type t (O: outside chunks), "
        "(*) all", ("SP-Oc(*)", "SP-Oc(NP)"),
        definition=2)  # 2 (mtstrata 0.2.0): the O type for words outside chunks
_family("DPOc", "DP-Oc", ex.DEP_CAT, "overlap of words by grammatical category (UPOS) t, "
        "(*) all", ("DP-Oc(*)", "DP-Oc(NOUN)"))
_register(DPOr, "overlap of the words under each node with relation t (ClearNLP; outside "
          "English a universal UD relation: rels=ud), (*) all", ("DP-Or(*)", "DP-Or(punct)"))
_family("DPOl", "DP-Ol", ex.DEP_DEPTH, "overlap of words at tree depth t (0..8, 9+), (*) all",
        ("DP-Ol(*)", "DP-Ol(1)"))
_register(NEOe, "overlap of words in entities of type t (OntoNotes; outside English PER LOC "
          "ORG MISC: ents=conll), (*) entity words, (**) all words", ("NE-Oe(*)", "NE-Oe(**)"))
_register(NEMe, "matching of whole entities of type t (OntoNotes; outside English PER LOC ORG "
          "MISC: ents=conll), (*) all", ("NE-Me(*)",))
_family("SROr", "SR-Or", ex.SR_WORD, "overlap of words in arguments of role t, (*) all",
        ("SR-Or(*)", "SR-Or(A1)"), base=_Roles)
_family("SRMr", "SR-Mr", ex.SR_ARG, "matching of whole arguments of role t, (*) all",
        ("SR-Mr(*)",), base=_Roles)
_family("SROrv", "SR-Orv", ex.SR_WORD_V, "overlap of predicate##word in arguments of role t, "
        "(*) all", ("SR-Orv(*)",), base=_Roles)
_family("SRMrv", "SR-Mrv", ex.SR_ARG_V, "matching of predicate##argument of role t, (*) all",
        ("SR-Mrv(*)",), base=_Roles)
_family("SRRoles", "SR-Or", ex.SR_ROLE, "overlap of semantic role labels", typed=False)
_family("SRRolesV", "SR-Orv", ex.SR_ROLE_V, "overlap of predicate##role labels", typed=False)
_family("SRVerbs", "SR-Ov", ex.SR_VERB, "overlap of predicate lemmas", typed=False)
