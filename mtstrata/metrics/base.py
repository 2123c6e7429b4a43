"""The metric contract.

A metric turns one segment (hypothesis + its references) into a small fixed-length vector of
additive statistics; ``score`` turns any *sum* of such rows (one segment, a corpus, a bootstrap
resample, a subset) into a number. Everything downstream (corpus scores, sentence scores,
confidence intervals, paired tests, hill climbing) works on these numpy arrays without
re-tokenising or re-annotating. Metrics that are means of sentence scores return
``[score, 1]``.

Metrics are frozen dataclasses whose fields are their parameters; :class:`MetricBase` derives the
signature and the default batch and sentence-level methods from that.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from mtstrata import signature as _sig
from mtstrata.errors import ConfigError
from mtstrata.registry import format_value
from mtstrata.segment import Layer, Segment


@dataclass(frozen=True)
class Capabilities:
    """What a metric instance declares about itself; the run reads these instead of probing
    attributes (planning, scoring, parallelism, listings, reports)."""

    #: the layers its statistics read (the run annotates them)
    layers: frozenset[Layer]
    #: the label scheme each labelled layer must have (checked by the plan before any model)
    schemes: dict[Layer, str]
    #: a segment's statistics depend on the other segments of the batch (NIST's information
    #: weights, idf): one segment scored alone may differ from its row in a corpus
    corpus_dependent: bool
    #: it runs a model of its own while scoring: such a run is scored in one process
    runs_model: bool
    #: the value of a perfect score (100 for BLEU, chrF, TER; inf for NIST)
    scale: float
    higher_is_better: bool
    #: the longest segment (in words) it accepts, or None
    max_words: int | None
    #: the score of a hypothesis against itself depends on its length (METEOR's fragmentation)
    identity_depends_on_length: bool
    #: the provider (by registered name) a layer must come from, where the metric names one
    #: (an EMB metric's ``model``): the run's plan takes it
    providers: dict[Layer, str] = field(default_factory=dict)


@runtime_checkable
class Metric(Protocol):
    """What every metric provides (see the module docstring)."""

    higher_is_better: ClassVar[bool]
    requires: ClassVar[frozenset[Layer]]

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray: ...

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray: ...

    def score(self, stats: np.ndarray) -> float: ...

    def segment_scores(self, stats: np.ndarray) -> np.ndarray: ...

    def details(self, stats: np.ndarray) -> dict[str, float]: ...

    def signature(self) -> str: ...

    def display_name(self) -> str: ...

    def capabilities(self) -> Capabilities: ...

    def check_run(self, plan: Any) -> None: ...

    def segment_metric(self) -> Any: ...


class MetricBase:
    """Defaults for frozen-dataclass metrics.

    Subclasses set ``name`` (the registered name, which must resolve back through the
    registry), ``higher_is_better``, ``requires`` and implement ``stats`` and ``score``.
    ``stats_batch`` can be overridden where whole-corpus work is faster (tokenise each distinct
    reference once); ``segment_scores`` where a vectorised formula exists.
    """

    name: ClassVar[str] = ""
    #: the version of the metric's definition (``def:N`` in the signature): bump it whenever
    #: the numbers change for the same parameters, regenerate its golden entry
    #: (``python -m tools.update_golden NAME`` in the source repository), add a CHANGELOG line
    definition: ClassVar[int] = 1
    higher_is_better: ClassVar[bool] = True
    requires: ClassVar[frozenset[Layer]] = frozenset()
    #: the number depends on the target language beyond the layers it reads (a stemmer or a
    #: thesaurus of one language): its signature names the language, as those of metrics over
    #: layers do (:func:`depends_on_language`)
    language_bound: ClassVar[bool] = False
    #: the target languages it can compute for (None: any); a run in another is refused
    #: before any work (:func:`mtstrata.scoring.check_language`)
    languages: ClassVar[frozenset[str] | None] = None
    #: parameters whose default depends on the target language: ``{param: {language: value}}``
    #: (``"*"``: every language not listed; the field's default is English's, or any other
    #: language's not listed). :func:`mtstrata.metrics.create` fills those a spec leaves
    #: unset with the values of the language it is read in; they are signed as any parameter
    language_defaults: ClassVar[dict[str, dict[str, str]]] = {}
    #: parameters added after signatures were first written, left out of the signature at
    #: their old behaviour's value (``{param: value}``): every signature made before them
    #: still names the same metric
    implicit: ClassVar[dict[str, Any]] = {}
    #: the value of a perfect score (for error rates: of a rate of one); 100 for the metrics
    #: sacreBLEU reports in percent (BLEU, chrF, TER) and those defined as BLEU; inf for NIST
    scale: ClassVar[float] = 1.0
    #: the longest segment (in words) the metric accepts: alignment-based metrics take time or
    #: memory growing with the square of the length, so a runaway line is refused up front
    max_words: ClassVar[int | None] = None
    #: whether the metric runs a model of its own while scoring (the embedding metrics): such a
    #: run is scored in one process (see ``mtstrata.scoring``)
    runs_model: ClassVar[bool] = False
    #: see :class:`Capabilities` (a metric whose answer depends on its parameters overrides it
    #: with a property)
    corpus_dependent: ClassVar[bool] = False
    identity_depends_on_length: ClassVar[bool] = False
    #: libraries whose code computes the numbers (their versions go into the signature)
    libraries: ClassVar[tuple[str, ...]] = ()
    #: label schemes the metric's element inventories are written for (checked by the plan)
    schemes: ClassVar[dict[Layer, str]] = {}
    #: fields left out of the signature (e.g. performance knobs that never change a number)
    signature_exclude: ClassVar[frozenset[str]] = frozenset()
    #: names of the statistic columns of fixed-width metrics (others override stat_names)
    statistics: ClassVar[tuple[str, ...]] = ()
    #: parameters that change only ``score``/``details``, never a statistic (e.g. smoothing)
    score_only: ClassVar[frozenset[str]] = frozenset()
    #: parameters that only add or remove named columns (e.g. BLEU's max_order): a column of
    #: a given name has the same values whatever they are
    width_params: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        """Every numeric parameter must be a finite number (NaN and inf are refused here;
        each metric checks its own ranges after calling this)."""
        assert dataclasses.is_dataclass(self)
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, float) and not math.isfinite(v):
                raise ConfigError(f"{self.display_name()}: {f.name}={v} is not a finite "
                                  "number; give a finite value (see `mtstrata list metrics`).")

    def stat_names(self) -> tuple[str, ...]:
        """Names of the statistic columns, in order (unique within the metric)."""
        return self.statistics

    def capabilities(self) -> Capabilities:
        """This instance's :class:`Capabilities`, from its declarations."""
        return Capabilities(
            layers=frozenset(self.requires), schemes=dict(self.schemes),
            corpus_dependent=bool(self.corpus_dependent), runs_model=bool(self.runs_model),
            scale=float(self.scale), higher_is_better=bool(self.higher_is_better),
            max_words=self.max_words,
            identity_depends_on_length=bool(self.identity_depends_on_length),
            providers=dict(self.layer_providers()))

    def layer_providers(self) -> dict[Layer, str]:
        """The provider each of its layers must come from (none by default: the run's)."""
        return {}

    def check_run(self, plan: Any) -> None:
        """Refuse, before any annotation, a run plan this metric cannot be computed under
        (``plan`` is None when the run annotates nothing); any plan by default."""

    def segment_metric(self) -> Any:
        """The metric whose ``score`` of one row is a segment score (BLEU's sentence BLEU
        forces effective order); this one by default."""
        return self

    def stats_family(self) -> type:
        """The class whose statistics these are (a preset subclass such as chrF++ shares its
        base's)."""
        return type(self)

    def stats_key(self) -> tuple[Any, ...]:
        """What the statistics' column values depend on: the class and every parameter that is
        neither score-only nor a width parameter."""
        assert dataclasses.is_dataclass(self)
        skip = self.score_only | self.width_params
        return (self.stats_family(), *((f.name, getattr(self, f.name))
                                       for f in dataclasses.fields(self) if f.name not in skip))

    # Subclasses define ``stats_batch`` (or ``stats``) and ``score(stats) -> float``.

    def stats(self, hyp: Segment, refs: Sequence[Segment]) -> np.ndarray:
        """Statistics of one segment: the one-row case of :meth:`stats_batch`."""
        return self.stats_batch([hyp], [refs])[0]

    def stats_batch(self, hyps: Sequence[Segment], refs: Sequence[Sequence[Segment]]
                    ) -> np.ndarray:
        """Statistics of every segment as an ``(n_segments, k)`` float array."""
        if len(hyps) != len(refs):
            raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} reference sets")
        stats = self.stats  # type: ignore[attr-defined]
        rows = [stats(h, r) for h, r in zip(hyps, refs, strict=True)]
        if not rows:
            return np.zeros((0, 0))
        return np.vstack(rows).astype(float, copy=False)

    def segment_scores(self, stats: np.ndarray) -> np.ndarray:
        """Sentence-level scores: ``score`` of each row."""
        score = self.score  # type: ignore[attr-defined]
        return np.array([score(row) for row in np.atleast_2d(stats)], dtype=float)

    def corpus_score(self, stats: np.ndarray) -> float:
        """Score of the summed rows."""
        return float(self.score(np.atleast_2d(stats).sum(axis=0)))  # type: ignore[attr-defined]

    def details(self, stats: np.ndarray) -> dict[str, float]:
        """Extra values for error analysis (per-type scores, P/R, BP), from summed stats."""
        return {}

    def display_name(self) -> str:
        return self.name

    def params(self) -> list[tuple[str, str]]:
        assert dataclasses.is_dataclass(self)
        return [
            (f.name, format_value(getattr(self, f.name)))
            for f in dataclasses.fields(self)
            if f.init and f.name not in self.signature_exclude
            and not (f.name in self.implicit and getattr(self, f.name) == self.implicit[f.name])
        ]

    def signature(self) -> str:
        """``NAME|key:value|...|def:N|...|version:V``: every parameter, under sacreBLEU's key
        where it means the same (:data:`mtstrata.signature.SACRE_KEYS`), the definition
        version, what its code is when it is not the recorded code (:func:`code_facts`), the
        versions of the libraries that compute the numbers, and mtstrata's version."""
        return _sig.build(self.display_name(), _sig.to_keys(type(self), self.params()),
                          self.definition, **code_facts(type(self)),
                          **{lib: _sig.library_version(lib) for lib in self.libraries})


def code_facts(cls: type) -> dict[str, str]:
    """The signature facts naming a metric class's code when the definition version alone does
    not: ``plugin:DIST==VERSION`` for another distribution's metric (its release), and
    ``code:HASH`` for mtstrata's own when its modules are not those the provenance lock
    records (edited since: :func:`mtstrata.layers.code.code_mark`). Neither for
    mtstrata's recorded code: its signatures are what they always were."""
    from mtstrata.layers.code import code_mark

    facts = {}
    mark = code_mark(cls)
    if mark:
        facts["code"] = mark
    plugin = _sig.plugin_fact(cls)
    if plugin:
        facts["plugin"] = plugin
    return facts


def projection(variant: Any, base: Any) -> np.ndarray | None:
    """The columns of ``base``'s statistics that are ``variant``'s, if declared so.

    A variant is a projection of a base when both have the same :meth:`~MetricBase.stats_key`
    (same class, same parameters except score-only and width ones) and the variant's statistic
    names are a subset of the base's: then every column of the variant has the values of the
    base's column of that name. Nothing is guessed from values.
    """
    if not (hasattr(variant, "stats_key") and hasattr(base, "stats_key")):
        return None
    if variant.stats_key() != base.stats_key():
        return None
    pos = {n: i for i, n in enumerate(base.stat_names())}
    names = variant.stat_names()
    if not all(n in pos for n in names):
        return None
    return np.array([pos[n] for n in names], dtype=int)


@dataclass(frozen=True)
class Score:
    """One system's score on one metric. Data only: formatting lives in the CLI."""

    system: str
    metric: str
    value: float
    signature: str
    higher_is_better: bool = True
    details: dict[str, float] = field(default_factory=dict)
    segments: list[float] | None = None
    ci: tuple[float, float] | None = None  # bootstrap 95% interval (score --confidence)
    ci_mean: float | None = None  # mean of the bootstrap resamples
    scale: float = 1.0  # the value of a perfect score (100 for BLEU, chrF, TER ...)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; an undefined number (NaN, an infinity) is None, so that
        ``json.dumps(..., allow_nan=False)`` always works (strict JSON has no NaN)."""
        d: dict[str, Any] = {
            "system": self.system,
            "metric": self.metric,
            "score": _finite(self.value),
            "signature": self.signature,
            "scale": _finite(self.scale),
            "higher_is_better": self.higher_is_better,
        }
        if self.details:
            d["details"] = {k: _finite(v) for k, v in self.details.items()}
        if self.ci is not None:
            d["ci"] = [_finite(v) for v in self.ci]
        if self.ci_mean is not None:
            d["ci_mean"] = _finite(self.ci_mean)
        if self.segments is not None:
            d["segments"] = [_finite(v) for v in self.segments]  # segment 0 first
        return d


def _finite(v: float) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def language_params(cls: type, language: str, given: Any = ()) -> dict[str, str]:
    """The parameters ``cls`` takes in ``language`` that are not ``given`` (its
    ``language_defaults``), where they differ from the field's own default."""
    out = {}
    fields = {f.name: f for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
    for param, by in getattr(cls, "language_defaults", {}).items():
        if param in given or param not in fields:
            continue
        value = by.get(language, by.get("*"))
        if value is not None and value != format_value(fields[param].default):
            out[param] = value
    return out


def depends_on_language(m: Any) -> bool:
    """Whether ``m``'s number depends on the run's target language: it reads linguistic layers
    (each made by a provider for that language) or is ``language_bound``."""
    return bool(getattr(m, "requires", ())) or bool(getattr(m, "language_bound", False))
