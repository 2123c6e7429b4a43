"""A saved metric set (ULC) as a metric: ``-m ulc:SET.json``, ``-m ULC``, ``-m ULC-lex``,
``-m ULC-emb``.

The members are built from the specs the set names; their statistics are computed side by
side (the ULC's statistics are the members' columns, concatenated), so everything that works
on additive statistics works unchanged: a corpus score is the combination of the members'
corpus scores computed from summed statistics, a bootstrap or randomisation resample resums
every member's statistics and recombines them (``compare -m ulc:SET.json`` runs the tests it
runs for BLEU).

* corpus (system) score: ``combine({member: member.score(summed stats)}, "sys")``, with the
  set's system-level normalisation (``ulc_sys``);
* segment scores: ``combine({member: member.segment_scores(stats)}, "seg")``, with the
  segment-level normalisation (``ulc``).

These are exactly what ``meta`` computes from the members' score columns, so a number printed
by ``score`` is the one ``meta`` correlates. The combination itself is the set's
(:class:`~mtstrata.combine.ulc.Combiner`): the uniform ULC of Giménez & Màrquez (2010), or
another kind of set (:func:`~mtstrata.combine.ulc.load_set`).

A set records its members' full signatures (``provenance.signatures``); a member whose
signature differs from what this installation computes (another mtstrata or sacreBLEU
version, another tokenizer) is refused, naming both signatures. The ULC's own signature names
the set and the sha256 of its file: ``ULC|set:ULC-lex|sha256:...|version:0.1.0``.

Bundled sets (``mtstrata/data/sets``, built by ``scripts/make_sets.py``; see each file's
``provenance``): ``ULC`` (text and linguistic metrics, English targets), ``ULC-lex`` (text
metrics only) and ``ULC-emb`` (text and embedding metrics, English targets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mtstrata import signature as _sig
from mtstrata.combine.ulc import Combiner, load_set
from mtstrata.errors import ConfigError, MtstrataError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import Metric, MetricBase
from mtstrata.segment import Layer, Segment

#: bundled sets: name -> file in mtstrata/data/sets
BUNDLED = {"ULC": "ULC.json", "ULC-lex": "ULC-lex.json", "ULC-emb": "ULC-emb.json"}
SETS_DIR = Path(__file__).resolve().parent.parent / "data" / "sets"


def set_path(name: str) -> Path:
    """The file of a bundled set name, or ``name`` itself as a path."""
    for key, file in BUNDLED.items():
        if name.lower() == key.lower():
            return SETS_DIR / file
    return Path(name)


@dataclass(frozen=True)
class ULCMetric(MetricBase):
    """The combination of a saved metric set's members.

    Args:
        set: a bundled set name (``ULC``, ``ULC-lex``, ``ULC-emb``) or the path of a set file.
        sha256: the expected sha256 of the set file (from a signature); empty: any. A file
            that changed since the signature was made is refused.

    >>> m = ULCMetric("ULC-lex")
    >>> m.signature().startswith("ULC|set:ULC-lex|sha256:")
    True
    """

    name: ClassVar[str] = "ULC"
    higher_is_better: ClassVar[bool] = True
    signature_exclude: ClassVar[frozenset[str]] = frozenset()

    set: str = "ULC"
    sha256: str = ""
    combiner: Combiner = field(init=False, compare=False, repr=False)
    members: tuple[Metric, ...] = field(init=False, compare=False, repr=False)
    specs: tuple[str, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        path = set_path(self.set)
        combiner, digest = load_set(path)
        if self.sha256 and self.sha256.lower() != digest:
            raise ConfigError(
                f"the metric set {path} has sha256 {digest}, the signature names "
                f"{self.sha256}: the file changed since that number was computed. Use the "
                "set file the signature was made with.")
        specs = tuple(combiner.metrics)
        members = tuple(_member(spec, path) for spec in specs)
        _check_signatures(specs, members, combiner.provenance, path)
        put = object.__setattr__
        put(self, "sha256", digest)
        put(self, "combiner", combiner)
        put(self, "members", members)
        put(self, "specs", specs)
        # what the run needs is what the members need
        put(self, "requires", frozenset().union(*(m.requires for m in members)))
        schemes: dict[Layer, str] = {}
        for m in members:
            schemes.update(getattr(m, "schemes", {}))
        put(self, "schemes", schemes)
        limits = [w for m in members if (w := getattr(m, "max_words", None))]
        put(self, "max_words", min(limits) if limits else None)
        put(self, "runs_model", any(getattr(m, "runs_model", False) for m in members))
        put(self, "corpus_dependent", any(getattr(m, "corpus_dependent", False)
                                          for m in members))
        put(self, "identity_depends_on_length",
            any(getattr(m, "identity_depends_on_length", False) for m in members))
        widths = [len(m.stat_names()) for m in members]  # type: ignore[attr-defined]
        ends = np.cumsum([0, *widths])
        put(self, "_slices", tuple(slice(int(a), int(b)) for a, b in zip(ends, ends[1:],
                                                                          strict=False)))

    # ------------------------------------------------------------------ statistics
    def stat_names(self) -> tuple[str, ...]:
        """The members' statistic names, each prefixed by the member's position."""
        return tuple(f"{i}.{n}" for i, m in enumerate(self.members)
                     for n in m.stat_names())  # type: ignore[attr-defined]

    def stats_key(self) -> tuple[Any, ...]:
        return (type(self), self.sha256)

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        """The members' statistics side by side (same hypotheses and references objects, so a
        run's prepared reference state is shared)."""
        parts = [np.atleast_2d(np.asarray(m.stats_batch(hyps, refs), dtype=float))
                 for m in self.members]
        if not len(hyps):
            return np.zeros((0, len(self.stat_names())))
        return np.hstack(parts)

    # ------------------------------------------------------------------ scores
    def member_scores(self, stats: np.ndarray) -> dict[str, float]:
        """Each member's score of summed statistics, by spec."""
        return {spec: float(m.score(stats[sl]))
                for spec, m, sl in zip(self.specs, self.members, self._slices,  # type: ignore[attr-defined]
                                       strict=True)}

    def score(self, stats: np.ndarray) -> float:
        """ULC of the members' corpus scores (system-level normalisation)."""
        parts = {k: np.asarray(v) for k, v in self.member_scores(np.asarray(stats)).items()}
        return float(self.combiner.combine(parts, "sys"))

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """ULC of the members' segment scores (segment-level normalisation)."""
        st = np.atleast_2d(stats)
        parts = {spec: np.asarray(m.segment_scores(st[:, sl]), dtype=float)
                 for spec, m, sl in zip(self.specs, self.members, self._slices,  # type: ignore[attr-defined]
                                        strict=True)}
        return np.asarray(self.combiner.combine(parts, "seg"), dtype=float)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """Each member's own score (before normalisation), keyed by its spec."""
        return self.member_scores(np.asarray(stats))

    # ------------------------------------------------------------------ names
    def display_name(self) -> str:
        for key in BUNDLED:
            if self.set.lower() == key.lower():
                return key
        return f"ULC:{Path(self.set).stem}"

    def params(self) -> list[tuple[str, str]]:
        return [("set", self.set), ("sha256", self.sha256)]

    def signature(self) -> str:
        return _sig.build("ULC", self.params(), self.definition)


def _member(spec: str, path: Path) -> Metric:
    from mtstrata.metrics import create

    if spec.lower().startswith(("ulc:", "ext:")) or spec.lower() in {k.lower() for k in BUNDLED}:
        raise ConfigError(
            f"the metric set {path} names {spec!r}, which this version cannot compute as a "
            "member (external scores and nested sets are for `mtstrata meta --ulc` only). "
            "Build the set from mtstrata metrics to use it with -m.")
    try:
        return create(spec)
    except MtstrataError as e:
        raise ConfigError(f"the metric set {path} names a metric this version cannot build: "
                          f"{e} Rebuild the set (mtstrata search --out) with metrics from "
                          "`mtstrata list metrics`.") from None


def _check_signatures(specs: Sequence[str], members: Sequence[Metric],
                      provenance: Mapping[str, object], path: Path) -> None:
    """Every member's saved signature must be the one this installation computes."""
    saved = provenance.get("signatures") if isinstance(provenance, Mapping) else None
    if not isinstance(saved, Mapping):
        raise ConfigError(
            f"the metric set {path} records no member signatures (provenance.signatures), so "
            "its numbers cannot be traced; rebuild it with `mtstrata search --out`, which "
            "records them.")
    for spec, m in zip(specs, members, strict=True):
        want, have = saved.get(spec), m.signature()
        if want != have:
            raise ConfigError(
                f"the metric set {path} was built with member {spec!r} as {want!r}; this "
                f"installation computes {have!r}. Its normalisation was fitted on other "
                "numbers: rebuild the set with this version (mtstrata search --out, or "
                "scripts/make_sets.py for the bundled sets), or install the version it names.")


def member_signatures(specs: Sequence[str], options: object = None) -> dict[str, str]:
    """The full signature of each member spec, as a set records it (``provenance.signatures``)
    and as a run would compute it."""
    return {spec: _member(spec, Path("(new set)")).signature() for spec in specs}


def _ulc_lex() -> ULCMetric:
    return ULCMetric("ULC-lex")


REGISTRY.add("ULC", ULCMetric, "uniform linear combination of the bundled set ULC (text and "
             "linguistic metrics, English); ulc:SET.json for a set saved by `search --out`",
             layers=("members' layers",))
REGISTRY.add("ULC-lex", _ulc_lex, "uniform linear combination of the bundled set ULC-lex (text "
             "metrics only, any target language)")


def _ulc_emb() -> ULCMetric:
    return ULCMetric("ULC-emb")


REGISTRY.add("ULC-emb", _ulc_emb, "uniform linear combination of the bundled set ULC-emb (text "
             "and embedding metrics, English)", layers=("emb",))
