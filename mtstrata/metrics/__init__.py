"""Metrics. Each module of this package registers its metrics in :data:`REGISTRY` on import;
other distributions add theirs through the entry-point group ``mtstrata.metrics``.

Use :func:`create` to build a metric from a spec such as ``"bleu:smooth=exp"`` or
``"SP-Op(*)"`` and :func:`from_signature` to rebuild one from its signature (mtstrata's, or
sacreBLEU's for BLEU, chrF and TER).
"""

from __future__ import annotations

import re
import warnings

from mtstrata import signature as _sig
from mtstrata._version import __version__
from mtstrata.errors import ConfigError
from mtstrata.metrics.base import Metric, MetricBase, Score
from mtstrata.registry import Registry

REGISTRY: Registry[Metric] = Registry(
    "metric", list_command="mtstrata list metrics", plugin_package="mtstrata.metrics",
    entry_points="mtstrata.metrics")
#: metrics whose numbers sacreBLEU computes: their signatures may be sacreBLEU's own
SACREBLEU_METRICS = frozenset({"bleu", "chrf", "chrf++", "ter"})


class SignatureVersionWarning(UserWarning):
    """A signature was made by another version of mtstrata (or of sacreBLEU)."""


def create(spec: str, language: str | None = None) -> Metric:
    """Build a metric from ``NAME[:key=value,...]`` (unknown names raise with suggestions),
    read in ``language`` (default: the language of the run, :func:`mtstrata.languages.current`):
    the parameters the spec leaves unset whose default depends on the language take that
    language's value (:func:`mtstrata.metrics.base.language_params`: ``SP-Op(*)`` read in
    Russian compares universal POS tags, ``bleu`` read in Chinese tokenises with ``zh``).

    ``ulc:PATH.json`` (a path, not ``key=value``) is the metric set saved at PATH
    (:mod:`mtstrata.metrics.ulc`).
    """
    name, sep, rest = spec.strip().partition(":")
    if sep and name.strip().lower() == "ext":  # not a parameter list: a directory of scores
        raise ConfigError(
            f"-m {spec.strip()} names scores computed elsewhere (mt-metrics-eval files "
            "DIR/<lp>/NAME-REF.seg.score), which only `mtstrata meta` and `mtstrata search` read, "
            "per language pair of --data; this command computes its metrics: choose them from "
            "`mtstrata list metrics`.")
    if sep and name.strip().lower() == "ulc" and "=" not in rest:
        if not rest.strip():
            raise ConfigError("'ulc:' needs the path of a metric set: -m ulc:SET.json.")
        from mtstrata.metrics.ulc import ULCMetric

        return ULCMetric(set=rest.strip())  # type: ignore[return-value]
    from mtstrata import languages
    from mtstrata.metrics.base import language_params
    from mtstrata.registry import parse_spec

    lang = language or languages.current()
    if lang != languages.LEGACY:
        base, given = parse_spec(spec)
        entry, _ = REGISTRY.lookup(base)
        extra = language_params(entry.factory, lang, given)
        if extra:
            spec = spec.strip()
            spec += ("," if given else "" if spec.endswith(":") else ":") + ",".join(
                f"{k}={v}" for k, v in extra.items())
    return REGISTRY.create(spec)


def _sacre_name(name: str, params: dict[str, str]) -> tuple[str, dict[str, str]]:
    """sacreBLEU's metric names (``BLEU``, ``chrF2``, ``chrF2++``, ``TER``; none in a bare
    signature) as registered names and the parameters they imply."""
    m = re.fullmatch(r"chrF(\d+)(\+*)", name)
    if m:
        return "chrf++" if m.group(2) else "chrf", {"beta": m.group(1), **params}
    if name:
        return name, params
    if "nc" in params:  # a bare signature does not say beta: sacreBLEU's default, 2
        return "chrf++" if params.get("nw") == "2" else "chrf", params
    if params.get("tok") == "tercom" or "norm" in params:
        return "ter", params
    if "smooth" in params:
        return "bleu", params
    raise ConfigError("a signature without a metric name that is not sacreBLEU's BLEU, chrF "
                      "or TER; give it as NAME|key:value|...")


def from_signature(sig: str, *, strict: bool = False) -> Metric:
    """Rebuild the metric described by a signature.

    Reads mtstrata's signatures (``Metric.signature()``, and run signatures with ``nrefs``,
    ``ann``...) and sacreBLEU's for BLEU, chrF and TER (``nrefs:1|case:mixed|eff:no|tok:13a|
    smooth:exp|version:2.6.0``, with or without the ``BLEU|`` name; a signature of one of these
    metrics without a ``sacrebleu:`` key is sacreBLEU's own). A signature made by another
    version of mtstrata (of sacreBLEU, for one of sacreBLEU's) may give other numbers: it is a
    :class:`SignatureVersionWarning`, or a :class:`~mtstrata.errors.ConfigError` with
    ``strict=True``, as is, with ``strict=True``, a signature naming another version of a
    library the metric uses (``nltk:``, ``torch:``...). A signature of another definition of
    the metric (``def:N``, see :mod:`mtstrata.signature`) is always refused, with or without a
    ``sacrebleu:`` key (a signature with a ``def`` is mtstrata's, never sacreBLEU's): this
    installation computes other numbers.
    """
    name, params, run = _sig.parse(sig)
    name, params = _sacre_name(name, params)
    entry, _ = REGISTRY.lookup(name)
    canonical = entry.name.lower()
    # sacreBLEU's own signatures name no sacrebleu version and no def: a def is mtstrata's
    is_sacre = canonical in SACREBLEU_METRICS and "sacrebleu" not in run and "def" not in run
    if is_sacre and "smooth" in params:  # sacreBLEU's floor[0.10]
        m = re.fullmatch(r"([\w-]+)\[([\d.]+)\]", params["smooth"])
        if m:
            params = {**params, "smooth": m.group(1), "smooth_value": m.group(2)}
    tool, have = ("sacreBLEU", _sig.library_version("sacrebleu")) if is_sacre else (
        "mtstrata", __version__)
    made = run.get("version", run.get("v"))
    if made is not None and made != have:
        msg = (f"signature made by {tool} {made}, this is {tool} {have}: the rebuilt metric "
               f"may give other numbers ({sig})")
        if strict:
            raise ConfigError(msg + "; install that version, or rebuild without strict.")
        warnings.warn(msg, SignatureVersionWarning, stacklevel=2)
    if strict:  # every library a signature names, at the version installed here
        other = [f"{lib} {run[lib]} (installed: {_sig.library_version(lib)})"
                 for lib in _sig.LIBRARIES if lib in run and run[lib] != _sig.library_version(lib)]
        if other:
            raise ConfigError(f"signature made with {', '.join(other)}: the rebuilt metric may "
                              f"give other numbers ({sig}); install those versions, or rebuild "
                              "without strict.")
    cls = type(REGISTRY.create(name))
    if not is_sacre:  # sacreBLEU's own signatures describe sacreBLEU's metric: no def
        check_definition(cls, run, sig)
    try:
        params = _sig.from_keys(cls, params)
    except ValueError as e:
        raise ConfigError(f"signature {sig!r}: {e}") from None
    spec = name + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
    return REGISTRY.create(spec)


def check_definition(cls: type, run: dict[str, str], sig: str) -> None:
    """Refuse a signature whose ``def`` is not the definition ``cls`` computes."""
    have = str(getattr(cls, "definition", _sig.LEGACY_DEFINITION))
    made = _sig.definition_of(run)
    if made != have:
        raise ConfigError(
            f"signature {sig!r} names definition {made} of its metric; this installation "
            f"computes definition {have}, which gives other numbers (see CHANGELOG.md). "
            "Install the mtstrata version that made the signature to reproduce them.")


__all__ = ["REGISTRY", "Metric", "MetricBase", "Score", "SignatureVersionWarning",
           "check_definition", "create", "from_signature"]
