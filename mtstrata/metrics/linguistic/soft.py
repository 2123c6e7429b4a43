"""Soft matching of whole elements in the vector space of the ``emb`` layer: SR-Mrs (role
arguments), NE-Mes (named entities), SP-Ocs (chunks).

SR-Mr(t) (:mod:`~mtstrata.metrics.linguistic.overlap`) matches whole arguments of role ``t`` as
strings: "the automobile" and "the car" as A1 do not match. SR-Mrs(t) represents each argument
by the normalised mean of the contextual vectors of its tokens (``emb`` layer; a token of the
annotator is given the mean vector of the 13a tokens that overlap it in the text) and matches
the arguments of the same role one to one, greedily by decreasing cosine; a pair counts its
cosine as a (soft) hit when the cosine is at least ``threshold`` (default 0.7), nothing
otherwise. With ``hits`` the summed cosines of the kept pairs and ``hyp``/``ref`` the numbers of
arguments, the segment value is Asiya's Jaccard ``hits / (hyp + ref - hits)`` (``meas``: p, r, f
as in the Overlap families); identical arguments give 1, as in SR-Mr.

``(*)`` pools all roles (micro); ``SR-Mrs(A1)``, ``SR-Mrs(TMP)`` one role. A segment without
arguments of the selected roles on either side is undefined (left out of the mean, NaN
sentence score), one side empty gives 0. Several references: the best is kept. Statistics:
``[score_sum, defined, hits, hyp, ref]``; the corpus score is the mean of the defined segment
scores (Asiya).

The same matcher (:class:`SoftSpans`) over the other families whose elements are typed spans:
``NE-Mes(t)`` matches whole named entities of type ``t`` (NE-Me(t) with cosines: "General
Motors Co" ~ "General Motors"; a PERSON never matches an ORG) and ``SP-Ocs(t)`` whole chunks of
type ``t`` (spaCy's chunks are noun phrases). The dependency families (DP-) have no span
elements (their elements are words, relations and head-word chains) and have no soft form.
"""

from __future__ import annotations

import abc
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from mtstrata.errors import ConfigError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.embedding._common import EmbBase, Vectors
from mtstrata.metrics.linguistic import extractors as ex
from mtstrata.metrics.linguistic.overlap import Meas, defined_mean, defined_means, measure
from mtstrata.segment import Layer, Segment


def char_spans(text: str, forms: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each token form occurs in ``text``, in order (None if it cannot be found)."""
    out: list[tuple[int, int] | None] = []
    pos = 0
    for f in forms:
        i = text.find(f, pos)
        if i < 0:
            out.append(None)
            continue
        out.append((i, i + len(f)))
        pos = i + len(f)
    return out


def token_vectors(seg: Segment, v: Vectors) -> np.ndarray:
    """One vector per annotator token: the mean of the overlapping emb tokens (0 if none)."""
    dim = v.sent.shape[0]
    mine = char_spans(seg.text, [t.form for t in seg.tokens])
    theirs = char_spans(seg.text, v.tokens)
    out = np.zeros((len(seg.tokens), dim))
    for i, a in enumerate(mine):
        if a is None:
            continue
        idx = [j for j, b in enumerate(theirs) if b is not None and b[0] < a[1] and a[0] < b[1]]
        if idx:
            out[i] = v.tok[idx].mean(axis=0)
    return out


def span_vectors(seg: Segment, v: Vectors, spans: Iterable[tuple[str, int, int]],
                 types: set[str] | None) -> dict[str, np.ndarray]:
    """Type -> ``(n, dim)`` unit vectors of the segment's spans (``(type, start, end)`` over
    annotator tokens, in order) of the selected types: each the normalised mean of its tokens'
    vectors."""
    tv = token_vectors(seg, v)
    found: dict[str, list[np.ndarray]] = {}
    for typ, start, end in spans:
        if types is not None and typ not in types:
            continue
        m = tv[start:end].mean(axis=0) if end > start else np.zeros(tv.shape[1])
        n = np.linalg.norm(m)
        found.setdefault(typ, []).append(m / n if n > 0 else m)
    return {r: np.vstack(x) for r, x in found.items()}


def role_spans(seg: Segment) -> Iterator[tuple[str, int, int]]:
    """The role arguments of every frame (a role outside the inventory counts as "other")."""
    for fr in seg.frames:
        for a in fr.args:
            yield (a.label if a.label in ex.SR_ARG.types else "other"), a.start, a.end


def soft_counts(h: dict[str, np.ndarray], r: dict[str, np.ndarray], threshold: float
                ) -> tuple[float, float, float]:
    """(soft hits, hyp arguments, ref arguments): greedy one-to-one matching per role."""
    hits = 0.0
    for role in sorted(h.keys() & r.keys()):  # a set's order follows PYTHONHASHSEED: fixed
        sim = h[role] @ r[role].T
        used_h: set[int] = set()
        used_r: set[int] = set()
        for k in np.argsort(-sim, axis=None, kind="stable"):
            i, j = divmod(int(k), sim.shape[1])
            if sim[i, j] < threshold:
                break
            if i in used_h or j in used_r:
                continue
            used_h.add(i)
            used_r.add(j)
            hits += min(float(sim[i, j]), 1.0)
    return hits, float(sum(len(x) for x in h.values())), float(sum(len(x) for x in r.values()))


@dataclass(frozen=True)
class SoftSpans(EmbBase, abc.ABC):
    """Soft one-to-one matching of typed spans in the emb layer's vector space (see the module
    docstring); subclasses say which spans (:meth:`spans`) and how a type is named."""

    t: str = "*"
    threshold: float = 0.7
    meas: Meas = "jac"

    name: ClassVar[str] = "soft-spans"
    statistics: ClassVar[tuple[str, ...]] = ("score_sum", "defined", "hits", "hyp", "ref")
    signature_exclude = frozenset({"jobs", "t"})  # the type is part of the name

    def __post_init__(self) -> None:
        super().__post_init__()
        if not -1.0 <= self.threshold <= 1.0:
            raise ConfigError(f"{self.display_name()}: threshold={self.threshold} is not a "
                              "cosine; give a value in [-1, 1] (default 0.7).")
        if self.t != "*":
            object.__setattr__(self, "t", self.resolve(self.t))

    @abc.abstractmethod
    def resolve(self, t: str) -> str:
        """The inventory spelling of a type the user named (ConfigError if unknown)."""

    @abc.abstractmethod
    def spans(self, seg: Segment) -> Iterable[tuple[str, int, int]]:
        """``(type, start, end)`` of the segment's spans, over annotator tokens."""

    def display_name(self) -> str:
        return f"{self.name}({self.t})"

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        hv, rv, _ = self.sides(hyps, refs)
        types = None if self.t == "*" else {self.t}
        out = np.zeros((len(hv), 5))
        for i, (h, rs) in enumerate(zip(hyps, refs, strict=True)):
            ha = span_vectors(h, hv[i], self.spans(h), types)
            best: tuple[float, float, float, float] | None = None
            for r, vr in zip(rs, rv[i], strict=True):
                c = soft_counts(ha, span_vectors(r, vr, self.spans(r), types), self.threshold)
                val = measure(*c, self.meas)
                if best is None or (not np.isnan(val) and (np.isnan(best[0]) or val > best[0])):
                    best = (val, *c)
            assert best is not None
            val, hits, nh, nr = best
            out[i] = (0.0 if np.isnan(val) else val, 0.0 if np.isnan(val) else 1.0,
                      hits, nh, nr)
        return out

    def score(self, stats: np.ndarray) -> float:
        return defined_mean(stats)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        return defined_means(stats)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        c = np.asarray(stats, dtype=float)
        return {f"{self.display_name()} {k.upper()}": measure(c[2], c[3], c[4], k)
                for k in ("p", "r", "f")}


@dataclass(frozen=True)
class SRMrs(SoftSpans):
    """Soft matching of role arguments (see the module docstring)."""

    name: ClassVar[str] = "SR-Mrs"
    # the emb layer too: the run computes and caches it, and its provider's version is in ann:
    requires: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS, Layer.SRL, Layer.EMB})

    def resolve(self, t: str) -> str:
        up = t.upper()
        return ex.SR_ARG.resolve("AM-" + up if re.fullmatch(r"[A-Z]{3}", up) and up != "OTH"
                                 else t)

    def spans(self, seg: Segment) -> Iterable[tuple[str, int, int]]:
        return role_spans(seg)


@dataclass(frozen=True)
class NEMes(SoftSpans):
    """Soft matching of whole named entities of the same type (NE-Me(t) with cosines)."""

    name: ClassVar[str] = "NE-Mes"
    requires: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS, Layer.NER, Layer.EMB})

    def resolve(self, t: str) -> str:
        return ex.NE_ENTITY.resolve(t)

    def spans(self, seg: Segment) -> Iterable[tuple[str, int, int]]:
        return ((e.label, e.start, e.end) for e in seg.entities)


@dataclass(frozen=True)
class SPOcs(SoftSpans):
    """Soft matching of whole chunks of the same type (the chunks of SP-Oc(t) as units)."""

    name: ClassVar[str] = "SP-Ocs"
    requires: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS, Layer.CHUNKS, Layer.EMB})

    def resolve(self, t: str) -> str:
        return ex.CHUNK.resolve(t)

    def spans(self, seg: Segment) -> Iterable[tuple[str, int, int]]:
        return ((c.label, c.start, c.end) for c in seg.chunks)


def _family(cls: type[SoftSpans], layers: tuple[str, ...], what: str,
            examples: tuple[str, ...]) -> None:
    def make(t: str, **kw: object) -> SoftSpans:
        return cls(t=t, **kw)  # type: ignore[arg-type]

    make.__annotations__ = {"threshold": float, "meas": Meas, "model": str, "weights": str,
                            "jobs": int, "return": cls}
    REGISTRY.add_family(f"{cls.name}(t)", rf"{re.escape(cls.name)}\((.+)\)", make,
                        f"soft matching of {what} by emb-vector cosine >= threshold "
                        "(default 0.7), (*) all types", layers, examples=examples)


_family(SRMrs, ("emb", "srl"), "whole arguments of role t", ("SR-Mrs(*)", "SR-Mrs(A1)"))
_family(NEMes, ("emb", "ner"), "whole named entities of type t", ("NE-Mes(*)",
                                                                   "NE-Mes(PERSON)"))
_family(SPOcs, ("emb", "chunks"), "whole chunks of type t", ("SP-Ocs(*)", "SP-Ocs(NP)"))
