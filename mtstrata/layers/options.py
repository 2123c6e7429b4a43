"""How a run annotates, as its options give it, and the run's one plan.

The command line names providers by option (``--annotator`` the provider of the tokens,
``--srl`` the provider of roles); :class:`AnnotationOptions` carries them with the cache,
parallelism and output settings, and :func:`with_plan` resolves the run's plan once, which
every part of the run then uses (:func:`plan_run`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace

from mtstrata.errors import ConfigError
from mtstrata.layers.executors import check_jobs, parse_executor
from mtstrata.layers.planning import DEFAULT_LANGUAGE, Plan, plan
from mtstrata.segment import Layer


@dataclass(frozen=True)
class AnnotationOptions:
    """How a run annotates: its providers, cache, parallelism, output."""

    #: the provider of the tokens (and of every layer it gives), a spec: "spacy",
    #: "spacy:jobs=2", "stanza:dir=/models"; None: the language's default
    annotator: str | None = None
    #: the provider of srl (None: the default, learned: benchmarks/bench_srl.py)
    labeller: str | None = None
    cache: str | None = None  # None: the default location; see mtstrata.cache
    use_cache: bool = True
    jobs: int | None = None  # worker processes; None: the usable cores (executors.resolve_jobs)
    allow_unlocked: bool = False
    quiet: bool = False
    executor: str = "local"  # local | dask | dask:tcp://HOST:PORT (see layers.executors)
    language: str = DEFAULT_LANGUAGE
    #: refuse references plainly written in another script than the language's
    #: (:func:`mtstrata.languages.check_script`); False: ``--other-script``, signed
    check_script: bool = True
    #: what the references are called in the script check's message (their file)
    references: str | None = field(default=None, compare=False)
    #: the provider of other layers: (layer, spec) pairs
    choices: tuple[tuple[Layer, str], ...] = ()
    #: the run's plan, resolved once for every metric of the run (:func:`with_plan`) and passed
    #: down with the options: :func:`plan_run` returns it for any layers it covers and refuses
    #: others (a run is never planned twice)
    plan: Plan | None = field(default=None, compare=False, repr=False)


def plan_run(layers: Collection[Layer], options: AnnotationOptions | None = None,
             schemes: Mapping[Layer, str] | None = None) -> Plan:
    """The plan of a run that needs ``layers``: the run's own (``options.plan``) when it has
    one, which must cover them (a ConfigError otherwise: never a second, silent plan); else
    one resolved now from the options (checked before any model loads)."""
    options = options or AnnotationOptions()
    parse_executor(options.executor)  # a bad executor or --jobs fails before anything loads
    check_jobs(options.jobs)
    have = options.plan
    if have is not None:
        if not have.covers(layers, schemes):
            asked = ", ".join(sorted(str(x) for x in layers)) + "".join(
                f", {k} in the {v} scheme" for k, v in sorted((schemes or {}).items(),
                                                             key=lambda kv: kv[0].value))
            raise ConfigError(
                f"internal error: the run's plan does not produce what a part of the run asks "
                f"for ({asked}): its plan must be made for every metric it computes or signs; "
                "report it.")
        return have
    # --jobs is the number of worker processes (a local pool or a Dask cluster), each
    # running its own single-process copy of the providers
    choices = {Layer.SRL: options.labeller, **dict(options.choices)}
    return plan(layers, options.annotator, schemes, choices=choices, language=options.language,
                allow_unlocked=options.allow_unlocked or None)


def with_plan(options: AnnotationOptions | None, layers: Collection[Layer],
              schemes: Mapping[Layer, str] | None = None) -> AnnotationOptions:
    """``options`` carrying the plan of a run whose metrics need ``layers`` (in ``schemes``),
    resolved here once and checked before any model loads (``options`` as they are when no
    layer is needed)."""
    options = options or AnnotationOptions()
    if not layers:
        return options
    return replace(options, plan=plan_run(layers, replace(options, plan=None), schemes))
