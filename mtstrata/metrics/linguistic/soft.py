"""SR-Mrs: soft matching of semantic-role arguments in the vector space of the ``emb`` layer.

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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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


def arguments(seg: Segment, v: Vectors, roles: set[str] | None) -> dict[str, np.ndarray]:
    """Role -> ``(n_args, dim)`` unit vectors of the segment's arguments of that role."""
    tv = token_vectors(seg, v)
    found: dict[str, list[np.ndarray]] = {}
    for fr in seg.frames:
        for a in fr.args:
            role = a.label if a.label in ex.SR_ARG.types else "other"
            if roles is not None and role not in roles:
                continue
            m = tv[a.start:a.end].mean(axis=0) if a.end > a.start else np.zeros(tv.shape[1])
            n = np.linalg.norm(m)
            found.setdefault(role, []).append(m / n if n > 0 else m)
    return {r: np.vstack(x) for r, x in found.items()}


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
class SRMrs(EmbBase):
    """Soft matching of role arguments (see the module docstring)."""

    t: str = "*"
    threshold: float = 0.7
    meas: Meas = "jac"

    name: ClassVar[str] = "SR-Mrs"
    # the emb layer too: the run computes and caches it, and its provider's version is in ann:
    requires: ClassVar[frozenset[Layer]] = frozenset({Layer.TOKENS, Layer.SRL, Layer.EMB})
    statistics: ClassVar[tuple[str, ...]] = ("score_sum", "defined", "hits", "hyp", "ref")
    signature_exclude = frozenset({"jobs", "t"})  # the role is part of the name

    def __post_init__(self) -> None:
        super().__post_init__()
        if not -1.0 <= self.threshold <= 1.0:
            raise ConfigError(f"{self.display_name()}: threshold={self.threshold} is not a "
                              "cosine; give a value in [-1, 1] (default 0.7).")
        if self.t != "*":
            up = self.t.upper()
            role = "AM-" + up if re.fullmatch(r"[A-Z]{3}", up) and up != "OTH" else self.t
            object.__setattr__(self, "t", ex.SR_ARG.resolve(role))

    def display_name(self) -> str:
        return f"SR-Mrs({self.t})"

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        hv, rv, _ = self.sides(hyps, refs)
        roles = None if self.t == "*" else {self.t}
        out = np.zeros((len(hv), 5))
        for i, (h, rs) in enumerate(zip(hyps, refs, strict=True)):
            ha = arguments(h, hv[i], roles)
            best: tuple[float, float, float, float] | None = None
            for r, vr in zip(rs, rv[i], strict=True):
                c = soft_counts(ha, arguments(r, vr, roles), self.threshold)
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


def _make(t: str, **kw: object) -> SRMrs:
    return SRMrs(t=t, **kw)  # type: ignore[arg-type]


_make.__annotations__ = {"threshold": float, "meas": Meas, "model": str, "weights": str,
                         "jobs": int, "return": SRMrs}
REGISTRY.add_family("SR-Mrs(t)", r"SR-Mrs\((.+)\)", _make,
                    "soft matching of whole arguments of role t by emb-vector cosine >= "
                    "threshold (default 0.7), (*) all roles", ("emb", "srl"),
                    examples=("SR-Mrs(*)", "SR-Mrs(A1)"))
