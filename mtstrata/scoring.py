"""One scoring run: texts in, per-segment statistics and scores out.

The flow: the layers needed are the union of the metrics' ``requires``;
every distinct text (references and hypotheses, deduplicated) is annotated once; then each
metric computes an ``(n_segments, k)`` statistics array per system, from which corpus scores,
sentence scores, details and everything in :mod:`mtstrata.combine` derive.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mtstrata import progress
from mtstrata import signature as _sig
from mtstrata.errors import ConfigError, InputError, check_encodable
from mtstrata.layers import AnnotationOptions, annotate_texts, plan_run
from mtstrata.layers.executors import forked_map, parse_executor, resolve_jobs
from mtstrata.metrics.base import Metric, Score
from mtstrata.metrics.prepared import Prepared
from mtstrata.segment import Layer, Segment


@dataclass
class Run:
    """Statistics of every (system, metric) pair of one run, plus what made them."""

    systems: list[str]
    metrics: list[Metric]
    stats: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)
    signatures: list[str] = field(default_factory=list)
    #: text -> its annotated segment (only with ``compute(..., keep_segments=True)``)
    segments: dict[str, Segment] = field(default_factory=dict)
    #: what annotated the run's layers ("" when no metric needs annotation)
    annotation: str = ""

    def score(self, system: str, i: int, *, sentence_level: bool = False,
              details: bool = False) -> Score:
        m = self.metrics[i]
        st = self.stats[(system, i)]
        total = st.sum(axis=0)
        return Score(
            system=system,
            metric=m.display_name(),
            value=float(m.score(total)),
            signature=self.signatures[i],
            higher_is_better=m.higher_is_better,
            scale=m.capabilities().scale,
            details=m.details(total) if details else {},
            segments=[float(x) for x in m.segment_scores(st)] if sentence_level else None,
        )

    def segment_signature(self, i: int) -> str:
        """The signature of metric ``i``'s segment scores: the run's signature of the metric
        whose ``score`` of one row they are (``segment_metric()``, e.g. BLEU's sentence BLEU
        says ``eff:yes``), with the same run facts; the corpus signature for most metrics."""
        from mtstrata.metrics.provenance import segment_signature  # (a --sentence-level run's)

        return segment_signature(self.metrics[i], self.signatures[i])

    def scores(self, *, sentence_level: bool = False, details: bool = False) -> list[Score]:
        return [
            self.score(s, i, sentence_level=sentence_level, details=details)
            for s in self.systems
            for i in range(len(self.metrics))
        ]


def corpus_score(m: Metric, stats: np.ndarray) -> float:
    """A metric's corpus score from its per-segment statistics: the score of their sum, as
    :meth:`Run.score` gives it (commands that print the number from a run's statistics, such
    as ``compare``, compute it here, on the path the provenance lock digests:
    :data:`mtstrata.metrics.provenance_lock.RUN_PATH`)."""
    return float(m.score(np.asarray(stats).sum(axis=0)))


#: the longest segment (in characters) sent to an annotator: spaCy refuses a million characters
#: (E088) and its parser needs about 1 GB per 100,000
MAX_ANNOTATED_CHARS = 100_000


def check_limits(systems: Mapping[str, Sequence[str]], refs: Sequence[Sequence[str]],
                 metrics: Sequence[Metric], annotated: bool) -> None:
    """Refuse, before any work, segments longer than a metric (or the annotator) can take in
    bounded time and memory, naming the segment."""
    limits = [(m.capabilities().max_words, m.display_name()) for m in metrics]
    words = min(((n, name) for n, name in limits if n), default=None)
    sides = [(f"reference {j + 1}", s) for j, s in enumerate(refs)] + list(systems.items())
    for side, lines in sides:
        for i, text in enumerate(lines):
            if annotated:  # a lone surrogate (Python API only) cannot be annotated or cached
                check_encodable(text, f"segment {i + 1} of {side}")
            if annotated and len(text) > MAX_ANNOTATED_CHARS:
                raise InputError(
                    f"segment {i + 1} of {side} has {len(text):,} characters; the annotator "
                    f"takes at most {MAX_ANNOTATED_CHARS:,} per segment. Split the line, or "
                    "score it with lexical metrics only.")
            if words and len(text) > words[0] and len(text.split()) > words[0]:
                raise InputError(
                    f"segment {i + 1} of {side} has {len(text.split()):,} words; {words[1]} "
                    f"aligns words in time and memory growing with the square of the length "
                    f"and takes at most {words[0]:,}. Split the line, or leave {words[1]} out.")


def layers_needed(metrics: Sequence[Metric]) -> tuple[set[Layer], dict[Layer, str]]:
    """The union of the metrics' layers and the label scheme each labelled one must have."""
    needed: set[Layer] = set()
    schemes: dict[Layer, str] = {}
    for m in metrics:
        caps = m.capabilities()
        needed |= caps.layers
        for layer, scheme in caps.schemes.items():
            if schemes.setdefault(layer, scheme) != scheme:
                raise ConfigError(f"the metrics need {layer} labels in two schemes ({scheme} "
                                  f"and {schemes[layer]}); score them in separate runs.")
    return needed, schemes


def metric_signatures(metrics: Sequence[Metric], nrefs: int, the_plan: Any = None,
                      annotation: AnnotationOptions | None = None) -> list[str]:
    """Each metric's signature in a run with ``nrefs`` references annotated by ``the_plan``:
    the metric's own signature plus the run facts (``nrefs``; ``ann``: what produced the
    metric's own layers, whatever else the run needed; ``lang`` for a number that depends on
    the target language: :func:`mtstrata.metrics.provenance.run_facts`). A plugin's metric
    names its distribution and release in its own signature (``plugin:DIST==VERSION``)."""
    from mtstrata.metrics.provenance import run_facts

    language = annotation.language if annotation is not None else None
    checked = annotation.check_script if annotation is not None else True
    return [_sig.add_run_facts(m.signature(), **run_facts(m, the_plan, nrefs, language,
                                                          checked)) for m in metrics]


def check_language(metrics: Sequence[Metric], refs: Sequence[Sequence[str]],
                   annotation: AnnotationOptions | None, where: str = "the references") -> None:
    """Before any work: a run whose numbers depend on its target language refuses references
    plainly written in another script (:func:`mtstrata.languages.check_script`), unless told
    to go on (``--other-script``)."""
    from mtstrata.languages import DEFAULT, check_script
    from mtstrata.metrics.base import depends_on_language

    options = annotation or AnnotationOptions()
    language = options.language or DEFAULT
    for m in metrics:
        langs = getattr(m, "languages", None)
        if langs is not None and language not in langs:
            raise ConfigError(
                f"{m.display_name()} computes for {', '.join(sorted(langs))} only (its "
                f"resources are of that language), not for the run's language {language!r}: "
                "its number would be silently wrong. Leave it out, or check --lang.")
    if options.check_script and any(depends_on_language(m) for m in metrics):
        check_script((t for stream in refs for t in stream), language,
                     options.references or where)


def with_choices(options: AnnotationOptions | None, metrics: Sequence[Metric]
                 ) -> AnnotationOptions | None:
    """``options`` choosing the providers the metrics name for their layers
    (:attr:`~mtstrata.metrics.base.Capabilities.providers`: an EMB metric's encoder), which the
    run's plan then takes. Two metrics naming two providers of one layer are refused."""
    from dataclasses import replace

    named: dict[Layer, tuple[str, str]] = {}
    for m in metrics:
        for layer, name in m.capabilities().providers.items():
            other = named.setdefault(layer, (name, m.display_name()))
            if other[0] != name:
                raise ConfigError(
                    f"{other[1]} and {m.display_name()} need the {layer} layer from two "
                    f"providers ({other[0]} and {name}); score them in separate runs.")
    if not named:
        return options
    options = options or AnnotationOptions()
    chosen = dict(options.choices)
    for layer, (name, who) in named.items():
        if chosen.get(layer, name) != name:
            raise ConfigError(f"{who} needs the {layer} layer from {name}, but the run chose "
                              f"{chosen[layer]}; score it in a separate run.")
        chosen[layer] = name
    # (a plan the options carry was made with these choices: with_plan; a metric checks it)
    return replace(options, choices=tuple(sorted(chosen.items(), key=lambda kv: kv[0].value)))


def run_signatures(metrics: Sequence[Metric], nrefs: int,
                   annotation: AnnotationOptions | None = None) -> list[str]:
    """The signatures :func:`compute` gives ``metrics`` with ``nrefs`` references and these
    annotation options, without annotating or scoring anything (the plan is checked, no
    model is loaded): what a cache of computed scores is keyed by."""
    needed, schemes = layers_needed(metrics)
    annotation = with_choices(annotation, metrics)
    the_plan = plan_run(needed, annotation, schemes) if needed else None
    return metric_signatures(metrics, nrefs, the_plan, annotation)


def compute(
    systems: Mapping[str, Sequence[str]],
    refs: Sequence[Sequence[str]],
    metrics: Sequence[Metric],
    annotation: AnnotationOptions | None = None,
    reduce: Callable[[int, np.ndarray], Any] | None = None,
    *,
    keep_segments: bool = False,
) -> Run:
    """Compute statistics of every metric for every system.

    Args:
        systems: system name -> hypothesis segments.
        refs: reference *streams* (sacreBLEU's convention): ``refs[j][i]`` is reference j of
            segment i.
        metrics: built metrics.
        annotation: how to annotate when a metric needs linguistic layers.
        reduce: if given, ``run.stats[(system, i)]`` holds ``reduce(i, stats)`` instead of the
            statistics (e.g. only the scores): memory then holds one system's statistics of
            one metric at a time instead of all of them.
        keep_segments: keep every annotated text in ``Run.segments`` (for error analysis).
    """
    if not refs:
        raise InputError("at least one reference is needed (-r FILE).")
    n = len(refs[0])
    for name, hyps in systems.items():
        if len(hyps) != n:
            raise InputError(f"system {name!r} has {len(hyps)} segments, the references {n}.")
    for stream in refs:
        if len(stream) != n:
            raise InputError("reference streams differ in length.")
    needed, schemes = layers_needed(metrics)
    check_limits(systems, refs, metrics, bool(needed))
    texts = list(dict.fromkeys([t for s in refs for t in s]
                               + [t for h in systems.values() for t in h]))
    check_language(metrics, refs, annotation)
    annotation = with_choices(annotation, metrics)
    the_plan = plan_run(needed, annotation, schemes) if needed else None
    for m in metrics:  # a metric set refuses, before any annotation, a plan it was not fitted on
        m.check_run(the_plan)
    segs, ann_sig = annotate_texts(texts, needed, annotation, the_plan)
    # the run's state: what metrics prepare from the references lives as long as the run, what
    # they derive from a system's hypotheses (shared by the metrics) as long as its turn
    ref_segs = Prepared([[segs[stream[i]] for stream in refs] for i in range(n)], annotation)
    run = Run(systems=list(systems), metrics=list(metrics),
              segments=segs if keep_segments else {}, annotation=ann_sig)
    run.signatures = metric_signatures(metrics, len(refs), the_plan, annotation)
    todo = _system_stats(systems, segs, ref_segs, metrics, annotation)
    for name, per_metric in progress.track(todo, "scoring", len(systems), unit="system"):
        for i, stats in enumerate(per_metric):
            run.stats[(name, i)] = stats if reduce is None else reduce(i, stats)
    return run


@dataclass(frozen=True)
class _Turns:
    """What scoring one system reads: the run's segments, references, metrics and systems."""

    segs: dict[str, Segment]
    refs: Prepared
    metrics: Sequence[Metric]
    options: AnnotationOptions | None
    systems: Mapping[str, Sequence[str]]

    def one_system(self, name: str) -> tuple[str, list[np.ndarray]]:
        """Every metric's statistics of one system."""
        hyp_segs = Prepared([self.segs[h] for h in self.systems[name]], self.options)
        n = len(self.systems[name])
        return name, [_contract(m, m.stats_batch(hyp_segs, self.refs), n) for m in self.metrics]


def _contract(m: Metric, stats: object, n: int) -> np.ndarray:
    """A metric's statistics as the contract says: one row per segment, one column per named
    statistic (a plugin's metric that breaks it is named by the command line, exit 2)."""
    k = len(m.stat_names())
    shape = getattr(stats, "shape", None)
    if not isinstance(stats, np.ndarray) or shape != (n, k):
        raise ValueError(f"the metric {m.display_name()} returned statistics of shape {shape} "
                         f"for {n} segments, not ({n}, {k}): one row per segment, one column "
                         f"per statistic {m.stat_names()}")
    return stats


#: the scoring runs under way in this process, by run id: a forked worker finds its run's
#: state here (it sees the parent's memory as it was when the pool forked) from the id sent
#: with each task; each run adds and removes only its own entry, so runs nested in another
#: (e.g. by a ``reduce`` callback) or interleaved do not disturb each other
_RUNS: dict[int, _Turns] = {}
_RUN_IDS = itertools.count()


def _forked_system(task: tuple[int, str]) -> tuple[str, list[np.ndarray]]:
    """Every metric's statistics of one system of run ``task[0]``, in a forked worker."""
    run_id, name = task
    return _RUNS[run_id].one_system(name)


def _system_stats(systems: Mapping[str, Sequence[str]], segs: dict[str, Segment],
                  ref_segs: Prepared, metrics: Sequence[Metric],
                  options: AnnotationOptions | None) -> Iterator[tuple[str, list[np.ndarray]]]:
    """``(system, statistics of each metric)``, in the systems' order.

    With ``--jobs N`` (N > 1, the local executor) the systems after the first are scored by N
    forked worker processes, each reading the run's segments and the reference state the first
    system built here (so it is built once). Not when a metric declares it runs a model of its
    own while scoring (``runs_model``: torch's thread pools do not survive a fork, and each
    worker would load the model): those runs score in this process. The embedding metrics do
    not: their vectors are a layer, computed and cached before scoring like the others.
    """
    # never more workers than the systems left to score after the first, nor than the cores
    jobs = min(resolve_jobs(options.jobs) if options is not None else 1, len(systems) - 1,
               os.cpu_count() or 1)
    forked = (jobs > 1 and len(systems) > 2 and options is not None
              and parse_executor(options.executor)[0] == "local"
              and not any(m.capabilities().runs_model for m in metrics))
    turns = _Turns(segs, ref_segs, metrics, options, systems)
    names = iter(systems)
    if not forked:
        for name in names:
            yield turns.one_system(name)
        return
    run_id = next(_RUN_IDS)
    _RUNS[run_id] = turns
    try:
        yield turns.one_system(next(names))  # builds the reference state once, before forking
        yield from forked_map(_forked_system, ((run_id, n) for n in names), jobs, "scoring")
    finally:
        del _RUNS[run_id]
