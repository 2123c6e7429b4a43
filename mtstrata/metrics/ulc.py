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
(:class:`~mtstrata.metrics.setfile.Combiner`): the uniform ULC of Giménez & Màrquez (2010), or
another kind of set (:func:`~mtstrata.metrics.setfile.load_set`).

A set records its members' full signatures (``provenance.signatures``,
:mod:`mtstrata.metrics.provenance`): definition version, parameters, library and model
versions, and the annotator and role labeller of the member's layers (``ann:``). A run that
would compute a member differently (another definition, tokenizer, library version, annotator,
model or labeller, e.g. ``--srl rules`` for a set fitted on the learned labeller's roles) is
refused before any annotation, naming the member and both signatures: the set's own facts when
it is built, the annotation facts when the run's plan is known (:meth:`ULCMetric.check_run`,
called by :func:`mtstrata.scoring.compute`; ``meta`` runs the same check for ``--ulc`` sets,
:func:`check_set`). The ULC's own signature names the set by its content, never by the path it
was given (:func:`set_name`), and the sha256 of its file:
``ULC|set:ULC-lex|sha256:...|def:1|version:0.2.0``.

Bundled sets (``mtstrata/data/sets``, built by ``tools/make_sets.py`` (source tree), which runs the
nested procedure ``search --nested`` over each set's pool on WMT17 and WMT19 into-English; see
each file's ``provenance``): ``ULC`` (text and linguistic metrics, English targets),
``ULC-lex`` (text metrics only), ``ULC-emb`` (text and embedding metrics, English targets) and
``ULC-years`` (text, soft role matching and embedding candidates, English targets). Each
description quotes its set's nested estimate on an unseen year (tests/test_set_claims.py reads
it from the file); no set is shown to beat chrF there (README, RESULTS.md, issue 36).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from mtstrata import signature as _sig
from mtstrata.errors import ConfigError, UnknownNameError
from mtstrata.metrics import REGISTRY
from mtstrata.metrics.base import Metric, MetricBase, code_facts
from mtstrata.metrics.members import check_records
from mtstrata.metrics.provenance import build_members, check_members, is_external, plan_for
from mtstrata.metrics.setfile import Combiner, load_set
from mtstrata.registry import Registry
from mtstrata.segment import Layer, Segment

#: the bundled metric sets: name -> a function giving the set file's path. Each is also a
#: metric (``-m NAME``). mtstrata's own are :data:`BUNDLED`; another distribution bundles a set
#: file through the entry-point group ``mtstrata.sets`` (a function returning its path,
#: registered under the entry point's name)
SETS: Registry[Callable[[], Path]] = Registry("metric set", list_command="mtstrata list metrics",
                                             entry_points="mtstrata.sets")
#: mtstrata's own bundled sets: name -> file in mtstrata/data/sets (tools/make_sets.py)
BUNDLED = {"ULC": "ULC.json", "ULC-lex": "ULC-lex.json", "ULC-emb": "ULC-emb.json",
           "ULC-years": "ULC-years.json"}
SETS_DIR = Path(__file__).resolve().parent.parent / "data" / "sets"
for _name, _file in BUNDLED.items():
    SETS.add(_name, lambda file=_file: SETS_DIR / file)


@lru_cache(maxsize=16)
def _file_sha256(path: str, mtime_ns: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def set_name(given: str, path: Path, digest: str) -> str:
    """What a set is called in signatures: by its content, never by the path it was given.
    The bundled set of that name or, for a file, the bundled set with these bytes
    (``ULC-lex``), else the file's name (``set.json``): the same file signs alike whether named
    ``-m ulc:set.json``, by a full path or through ``meta --ulc``; its sha256 beside it names
    the content."""
    names = SETS.names()
    for key in names:
        if given.lower() == key.lower():
            return key
    for key in names:
        f = set_path(key)
        if f.is_file() and _file_sha256(str(f), f.stat().st_mtime_ns) == digest:
            return key
    return path.name


def set_path(name: str) -> Path:
    """The file of a bundled set name, or ``name`` itself as a path."""
    try:
        entry, _ = SETS.lookup(name)
    except UnknownNameError:
        return Path(name)
    return Path(entry.factory())


@dataclass(frozen=True)
class _Loaded:
    """What a set file gives its metric: the combination, its members (built) and where each
    member's statistics lie among the metric's columns."""

    combiner: Combiner
    specs: tuple[str, ...]
    members: tuple[Metric, ...]
    slices: tuple[slice, ...]

    @classmethod
    def of(cls, combiner: Combiner, specs: tuple[str, ...], members: tuple[Metric, ...]
           ) -> _Loaded:
        widths = [len(m.stat_names()) for m in members]  # type: ignore[attr-defined]
        ends = np.cumsum([0, *widths])
        return cls(combiner, specs, members,
                   tuple(slice(int(a), int(b)) for a, b in zip(ends, ends[1:], strict=False)))


@dataclass(frozen=True)
class ULCMetric(MetricBase):
    """The combination of a saved metric set's members.

    Args:
        set: a bundled set name (``ULC``, ``ULC-lex``, ``ULC-emb``) or the path of a set file.
        sha256: the expected sha256 of the set file (from a signature); empty: any. A file
            that changed since the signature was made is refused.
        norm: the set's normalisation (from a signature); empty: the file's. A set that
            standardises within the run (``norm:z``, :class:`~mtstrata.metrics.setfile.
            MetricSet`) names it in the signature and is :attr:`corpus_dependent`: its numbers
            exist for a whole run (``meta``), not for one system, and asking for one system's
            is refused.

    >>> m = ULCMetric("ULC-lex")
    >>> m.signature().startswith("ULC|set:ULC-lex|sha256:")
    True
    """

    name: ClassVar[str] = "ULC"
    higher_is_better: ClassVar[bool] = True
    #: a combination of members normalised by bounds fitted on a sample (or weighted by a
    #: learned model): a system outside that sample's range leaves [0, 1], so it is unbounded
    range: ClassVar[tuple[float, float]] = (-float("inf"), float("inf"))
    signature_exclude: ClassVar[frozenset[str]] = frozenset()

    #: how the set was named (what is read); two instances of the same content are equal
    set: str = field(default="ULC", compare=False)
    sha256: str = ""
    norm: str = ""
    #: what the set file gives, built once with the instance
    loaded: _Loaded = field(init=False, compare=False, repr=False)
    #: the set's name in signatures (:func:`set_name`: by content, not by path)
    signed_as: str = field(init=False, compare=False, repr=False, default="")

    def __post_init__(self) -> None:
        path = set_path(self.set)
        combiner, digest = load_set(path)
        if self.sha256 and self.sha256.lower() != digest:
            raise ConfigError(
                f"the metric set {path} has sha256 {digest}, the signature names "
                f"{self.sha256}: the file changed since that number was computed. Use the "
                "set file the signature was made with.")
        norm = str(getattr(combiner, "norm", "minmax"))
        if self.norm and self.norm != norm:
            raise ConfigError(f"the metric set {path} normalises with {norm!r}, the signature "
                              f"names {self.norm!r}: use the set file the signature was made "
                              "with.")
        specs = tuple(combiner.metrics)
        # every member against the set's record first (one check for every kind of member)
        check_records(specs, combiner.provenance, str(path), external=False)
        members = build_members(specs, str(path))
        # the annotation facts are checked when the run's plan is known (check_run)
        check_members(specs, members, _saved(combiner), str(path), annotated=False)
        # the normalised fields (the file's digest and norm, named in the signature) and the
        # loaded set: what the generated __init__ of a frozen dataclass cannot compute
        object.__setattr__(self, "sha256", digest)
        object.__setattr__(self, "norm", norm)
        object.__setattr__(self, "loaded", _Loaded.of(combiner, specs, members))
        object.__setattr__(self, "signed_as", set_name(self.set, path, digest))

    @property
    def combiner(self) -> Combiner:
        return self.loaded.combiner

    @property
    def specs(self) -> tuple[str, ...]:
        return self.loaded.specs

    @property
    def members(self) -> tuple[Metric, ...]:
        return self.loaded.members

    # the capabilities are the members' (and the combination's, for corpus dependence)
    @property  # type: ignore[override]
    def requires(self) -> frozenset[Layer]:
        return frozenset().union(*(m.requires for m in self.members))

    @property  # type: ignore[override]
    def schemes(self) -> dict[Layer, str]:
        return {k: v for m in self.members for k, v in getattr(m, "schemes", {}).items()}

    @property  # type: ignore[override]
    def max_words(self) -> int | None:
        limits = [w for m in self.members if (w := getattr(m, "max_words", None))]
        return min(limits) if limits else None

    @property  # type: ignore[override]
    def runs_model(self) -> bool:
        return any(getattr(m, "runs_model", False) for m in self.members)

    @property  # type: ignore[override]
    def corpus_dependent(self) -> bool:
        # a member's statistics depend on the run's references (NIST), or the set's
        # combination on the other systems of the run (norm z)
        return bool(getattr(self.combiner, "corpus_dependent", False)) or any(
            getattr(m, "corpus_dependent", False) for m in self.members)

    @property  # type: ignore[override]
    def identity_depends_on_length(self) -> bool:
        return any(getattr(m, "identity_depends_on_length", False) for m in self.members)

    def check_run(self, plan: Any) -> None:
        """Refuse a run whose annotation plan (``mtstrata.layers.Plan``, None when the run
        annotates nothing) would compute a member differently from the set's record."""
        check_members(self.specs, self.members, _saved(self.combiner), str(set_path(self.set)),
                      plan)

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
                for spec, m, sl in zip(self.specs, self.members, self.loaded.slices,
                                       strict=True)}

    def _whole_run_only(self, what: str) -> None:
        """Refuse one system's numbers of a set that standardises within the run (norm z)."""
        if self.norm == "z":
            raise ConfigError(
                f"the metric set {self.set} standardises its members within the whole run "
                f"(norm z): the {what} of one system alone are not its numbers. Evaluate it "
                "with `mtstrata meta --ulc SET.json`, which combines every system of a pair "
                "together, or use a set with frozen bounds (norm minmax).")

    def score(self, stats: np.ndarray) -> float:
        """ULC of the members' corpus scores (system-level normalisation)."""
        self._whole_run_only("corpus score")
        parts = {k: np.asarray(v) for k, v in self.member_scores(np.asarray(stats)).items()}
        return float(self.combiner.combine(parts, "sys"))

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """ULC of the members' segment scores (segment-level normalisation)."""
        self._whole_run_only("segment scores")
        st = np.atleast_2d(stats)
        parts = {spec: np.asarray(m.segment_scores(st[:, sl]), dtype=float)
                 for spec, m, sl in zip(self.specs, self.members, self.loaded.slices,
                                        strict=True)}
        return np.asarray(self.combiner.combine(parts, "seg"), dtype=float)

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """Each member's own score (before normalisation), keyed by its spec."""
        return self.member_scores(np.asarray(stats))

    # ------------------------------------------------------------------ names
    def display_name(self) -> str:
        for key in SETS.names():
            if self.set.lower() == key.lower():
                return key
        return f"ULC:{Path(self.set).stem}"

    def params(self) -> list[tuple[str, str]]:
        out = [("set", self.signed_as), ("sha256", self.sha256)]
        return out + [("norm", self.norm)] if self.norm not in ("", "minmax") else out

    def signature(self) -> str:
        return _sig.build("ULC", self.params(), self.definition, **code_facts(type(self)))


def _saved(combiner: Combiner) -> object:
    prov = combiner.provenance
    return dict(prov["signatures"]) if isinstance(prov, Mapping) and isinstance(
        prov.get("signatures"), Mapping) else None


def is_set_spec(spec: str) -> bool:
    """Whether ``spec`` names a metric set (``ulc:SET.json``, ``ULC:set=...``, a bundled set),
    however it is spaced or cased: what a set may not hold as a member (a set naming itself
    would recurse)."""
    name = spec.strip().partition(":")[0].strip().lower()
    return name == "ulc" or name in SETS


def check_set(combiner: Combiner, path: str | Path, options: Any = None) -> None:
    """The member check of ``-m ulc:SET`` for a set read by ``meta --ulc`` (any kind), under
    the run's annotation ``options``: every member against the set's record
    (:func:`mtstrata.metrics.members.check_records`: external members' score files by their
    sha256, nested sets refused), then the computed members' signatures."""
    check_records(combiner.metrics, combiner.provenance, str(path), external=True)
    specs = [s for s in combiner.metrics if not is_external(s)]
    members = build_members(specs, str(path))
    check_members(specs, members, _saved(combiner), str(path), plan_for(members, options))


def _ulc_lex() -> ULCMetric:
    return ULCMetric("ULC-lex")


REGISTRY.add("ULC", ULCMetric, "uniform linear combination of the bundled set ULC (text and "
             "linguistic metrics, English); nested estimate on an unseen year (WMT17 <-> "
             "WMT19), system Pearson set - chrF +0.027 [-0.011, +0.054]: not shown to beat "
             "chrF; ulc:SET.json for a set saved by `search --out`",
             layers=("members' layers",))
REGISTRY.add("ULC-lex", _ulc_lex, "uniform linear combination of the bundled set ULC-lex (text "
             "metrics only, any target language); nested estimate on an unseen year (WMT17 <-> "
             "WMT19), system Pearson set - chrF -0.012 [-0.044, +0.013]: not shown to beat "
             "chrF")


def _ulc_emb() -> ULCMetric:
    return ULCMetric("ULC-emb")


REGISTRY.add("ULC-emb", _ulc_emb, "uniform linear combination of the bundled set ULC-emb (text "
             "and embedding metrics, English); nested estimate on an unseen year (WMT17 <-> "
             "WMT19), system Pearson set - chrF +0.001 [-0.039, +0.036]: not shown to beat "
             "chrF (better on an unseen WMT17 pair: +0.041 [+0.000, +0.091])",
             layers=("emb",))


def _ulc_years() -> ULCMetric:
    return ULCMetric("ULC-years")

REGISTRY.add("ULC-years", _ulc_years, "uniform linear combination of the bundled set ULC-years "
             "(text, soft role matching and embedding candidates, English); nested estimate on "
             "an unseen year (WMT17 <-> WMT19), system Pearson set - chrF +0.020 [-0.020, "
             "+0.059]: not shown to beat chrF (better on an unseen WMT17 pair: +0.059 [+0.008, "
             "+0.121])",
             layers=("emb", "srl"))


def _set_metric(name: str) -> Callable[[], ULCMetric]:
    def make() -> ULCMetric:
        return ULCMetric(name)
    return make


# the sets other distributions bundle are metrics too
for _entry in SETS.entries():
    if _entry.name not in BUNDLED:
        REGISTRY.add(_entry.name, _set_metric(_entry.name), _entry.description or
                     f"combination of the bundled set {_entry.name}",
                     layers=("members' layers",))
