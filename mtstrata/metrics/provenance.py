"""What computes a metric's numbers in a run, as one string: its *full signature*.

A metric's own signature (``Metric.signature()``) names its definition, parameters and the
libraries that compute it; in a run, the layers it reads were produced by an annotator and a
role labeller (and, through them, models), named by the run fact ``ann:`` that
:meth:`mtstrata.layers.Plan.signature` gives for exactly the metric's layers. The full signature
is both, without the facts of the data (``nrefs``)::

    SR-Or(*)|avg:micro|meas:jac|refs:max|def:1|ann:spacy-...+srl-learned-1|version:0.2.0

Metric sets record it per member (``provenance.signatures``) and compare it with what a run
would compute (:func:`differences`); score tables record it per metric. Two full signatures
describe the same computation when everything but mtstrata's release (``version``) and the
data's facts (``nrefs``) is equal: the definition version (``def``, read as 1 when absent,
as in signatures made before 0.2.0), every parameter, every library version and the
annotator/labeller. A release that changed a number changed a definition or a provider
version, which these compare.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mtstrata import signature as _sig
from mtstrata.errors import ConfigError, ModelError, MtstrataError
from mtstrata.metrics.base import Metric
from mtstrata.segment import Layer

#: run facts that do not change how a number is computed
IGNORED = frozenset({"version", "v", "nrefs"})


#: the prefix of an external metric's spec, ``ext:DIR/NAME`` (scores read from files)
EXTERNAL = "ext:"


def is_external(spec: str) -> bool:
    """Whether ``spec`` names external scores, however it is spaced or cased (``ext:``,
    `` EXT:``): the one rule of sets, their checks and ``meta``."""
    return spec.strip().lower().startswith(EXTERNAL)


def external_target(spec: str) -> str:
    """``DIR/NAME`` of an external spec (what follows ``ext:``)."""
    return spec.strip()[len(EXTERNAL):]


def plan_for(members: Iterable[Metric], options: Any = None) -> Any:
    """The annotation plan a run of ``members`` would use with ``options``
    (``mtstrata.layers.AnnotationOptions``; None: the defaults), or None when no member needs
    a layer. Cheap: no model is loaded."""
    from mtstrata.layers import plan_run

    needed: set[Layer] = set()
    schemes: dict[Layer, str] = {}
    for m in members:
        caps = m.capabilities()
        needed |= caps.layers
        for layer, scheme in caps.schemes.items():
            schemes.setdefault(layer, scheme)
    return plan_run(needed, options, schemes) if needed else None


def run_facts(m: Metric, plan: Any, nrefs: int | None = None, language: str | None = None,
              script_checked: bool = True) -> dict[str, str]:
    """The run facts of ``m``'s numbers, in the order a signature lists them: ``nrefs`` (when
    given), ``ann`` (what produced its own layers), ``lang`` (the target language, for a
    number that depends on it: :func:`~mtstrata.metrics.base.depends_on_language`; default
    the plan's) and ``script:unchecked`` when the run was told to skip the script check."""
    from mtstrata.languages import DEFAULT
    from mtstrata.metrics.base import depends_on_language

    facts = {} if nrefs is None else {"nrefs": str(nrefs)}
    if m.requires and plan is not None:
        facts["ann"] = plan.signature(m.requires)
    if depends_on_language(m):
        facts["lang"] = language or getattr(plan, "language", None) or DEFAULT
        if not script_checked:
            facts["script"] = "unchecked"
    return facts


def full_signature(m: Metric, plan: Any, language: str | None = None,
                   script_checked: bool = True) -> str:
    """``m``'s signature with the providers of its own layers (``ann:``) and its language."""
    return _sig.add_run_facts(m.signature(), **run_facts(m, plan, None, language,
                                                         script_checked))


def segment_signature(m: Metric, sig: str) -> str:
    """The signature of ``m``'s segment scores, given ``sig``, that of its corpus score (the
    metric's own or a run's, with its run facts): ``sig`` with the name, parameters and facts
    of ``m.segment_metric()``'s own signature in place of ``m``'s (BLEU's segment scores are
    sentence BLEU, ``eff:yes``), its run facts kept; ``sig`` itself for a metric whose segment
    scores are its own."""
    seg = m.segment_metric()
    if seg is m:
        return sig
    value, own, new = (_sig.Signature.parse(x) for x in (sig, m.signature(), seg.signature()))
    head = _without_version(own.parts)
    if value.name != own.name or value.parts[:len(head)] != head:
        raise ValueError(f"{sig!r} is not a signature of {m.signature()!r}")
    return _sig.Signature(new.name, (*_without_version(new.parts),
                                     *value.parts[len(head):])).render()


def _without_version(parts: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return parts[:-1] if parts and parts[-1][0] == "version" else parts


def check_segment_level(spec: str, m: Metric) -> None:
    """Refuse a spec that sets a parameter its metric's segment scores do not honour (they are
    ``m.segment_metric()``'s: ``bleu:eff=no``, since sentence BLEU uses effective order), for
    a run that prints segment scores (exit 2, naming the parameter and the fix)."""
    import dataclasses

    from mtstrata.registry import format_value, parse_spec

    seg = m.segment_metric()
    if seg is m or not dataclasses.is_dataclass(m):
        return
    _, given = parse_spec(spec)
    for key, raw in given.items():
        if hasattr(m, key) and getattr(seg, key) != getattr(m, key):
            raise ConfigError(
                f"-m {spec}: {m.display_name()}'s segment scores are computed with "
                f"{key}={format_value(getattr(seg, key))} (their signature says so: "
                f"{segment_signature(m, m.signature())}), so --sentence-level cannot honour "
                f"{key}={raw}, which applies to its corpus score only. Leave {key}={raw} out "
                "to print segment scores, or leave out --sentence-level.")


def _key(sig: str, ignore: Iterable[str] = ()) -> tuple[str, dict[str, str]]:
    """A full signature's name, and what computes its number as ``{key: value}``: each
    parameter, each run fact but ``ignore`` and :data:`IGNORED`, the ``ann`` fact as one
    entry per producer (``ann labeller``: the role labeller's signature)."""
    value = _sig.Signature.parse(sig)
    run = value.run
    ignore = set(ignore) | ({"lang"} if "ann" in set(ignore) else set())
    facts = {k: v for k, v in run.items() if k not in IGNORED and k not in ignore}
    facts[_sig.DEF_KEY] = _sig.definition_of(run)
    if not {"lang", "ann"} & set(ignore) and ("ann" in run or "lang" in run):  # (before
        # languages were part of a run: English)
        from mtstrata.languages import LEGACY

        facts["lang"] = run.get("lang", LEGACY)
    if "ann" in facts:
        try:
            ann = _sig.Ann.parse(facts["ann"])
        except ValueError:  # (not an ann mtstrata writes: compared as it is)
            pass
        else:
            del facts["ann"]
            seen: dict[str, int] = {}
            for kind, producer in ann.parts:  # (plugin layers: "ann extra", "ann extra 2")
                seen[kind] = seen.get(kind, 0) + 1
                facts[f"ann {kind}" + (f" {seen[kind]}" if seen[kind] > 1 else "")] = producer
    return value.name, {**{f"param {k}": v for k, v in value.params.items()}, **facts}


def differences(saved: str, have: str, ignore: Iterable[str] = ()) -> list[str]:
    """How two full signatures differ in what computes the number (empty: the same
    computation), leaving out the run facts ``ignore``, the ``ann`` fact compared producer
    by producer: ``['def:1 -> def:2', 'ann labeller:srl-rules-3.conv2 -> ann
    labeller:srl-learned-1...']``."""
    (n1, a), (n2, b) = _key(saved, ignore), _key(have, ignore)
    out = [f"name {n1} -> {n2}"] if n1 != n2 else []
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            out.append(f"{k}:{a.get(k, '(none)')} -> {k}:{b.get(k, '(none)')}")
    return out


def member_signatures(specs: Sequence[str], options: Any = None) -> dict[str, str]:
    """The full signature of each metric spec under ``options`` (what a set records)."""
    from mtstrata.metrics import create

    built = {s: create(s) for s in specs}
    plan = plan_for(built.values(), options)
    language = getattr(options, "language", None)
    return {s: full_signature(m, plan, language) for s, m in built.items()}


def check_members(specs: Sequence[str], members: Sequence[Metric], saved: Any, where: str,
                  plan: Any = None, *, annotated: bool = True) -> None:
    """Refuse members whose recorded full signature (``saved[spec]``) is not the computation
    of this installation (with ``plan``'s annotator and labeller when ``annotated``),
    naming the member and both signatures."""
    if not isinstance(saved, dict):
        raise ConfigError(
            f"the metric set {where} records no member signatures (provenance.signatures), so "
            "its numbers cannot be traced; rebuild it with `mtstrata search --out`, which "
            "records them.")
    for spec, m in zip(specs, members, strict=True):
        want = saved.get(spec)
        if not isinstance(want, str) or not want:
            raise ConfigError(
                f"the metric set {where} records no signature of its member {spec!r}; rebuild "
                "it with `mtstrata search --out`, which records every member's.")
        if m.requires and "ann" not in _sig.Signature.parse(want).run:
            raise ConfigError(
                f"the metric set {where} records no annotator or role labeller for its member "
                f"{spec!r} ({want!r}: a set of mtstrata before 0.2.0, or one recorded before "
                "the member read annotated layers): which annotation its numbers came from is "
                "unknown. Refit it (`mtstrata search "
                "--out`; the bundled sets: `python -m tools.make_sets`), or, after checking "
                "that its members' numbers are unchanged, re-record it with `python -m "
                "tools.record_sets SET.json --verify LPDIR...` (the pairs it was fitted on; "
                "both tools are in the mtstrata source repository).")
        have = full_signature(m, plan) if annotated else m.signature()
        diff = differences(want, have, () if annotated else ("ann",))
        if diff:
            raise ConfigError(
                f"the metric set {where} was built with member {spec!r} as {want!r}; this "
                f"run computes {have!r} ({'; '.join(diff)}). Its normalisation was fitted on "
                "other numbers: run with the annotator and role labeller it names (--annotator,"
                " --srl), rebuild the set with this version (mtstrata search --out, or "
                "`python -m tools.make_sets` for the bundled sets), or install the version it "
                "names. If the member's numbers did not change, `python -m tools.record_sets "
                "SET.json --verify LPDIR...` re-records it after checking that on its dev pairs "
                "(both tools are in the mtstrata source repository).")


def build_members(specs: Sequence[str], where: str) -> tuple[Metric, ...]:
    """The members of a set, refusing specs a set cannot hold as a computed member."""
    from mtstrata.metrics import create
    from mtstrata.metrics.ulc import is_set_spec

    out = []
    for spec in specs:
        if is_external(spec) or is_set_spec(spec):
            raise ConfigError(
                f"the metric set {where} names {spec!r}, which is "
                + ("external scores" if is_external(spec) else
                   "a metric set") + ", not a metric a set computes as its member (nested sets "
                "would be computed recursively, a set naming itself without end; external "
                "scores are read only by `mtstrata meta`). Build the set from mtstrata metrics "
                "(`mtstrata list metrics`).")
        try:
            out.append(create(spec))
        except ModelError:
            raise  # this environment lacks a library or model: its message names the fix
        except MtstrataError as e:
            raise ConfigError(f"the metric set {where} names a metric this version cannot "
                              f"build: {e} Rebuild the set (mtstrata search --out) with "
                              "metrics from `mtstrata list metrics`.") from None
    return tuple(out)
