"""Metrics. Each module of this package registers its metrics in :data:`REGISTRY` on import.

Use :func:`create` to build a metric from a spec such as ``"bleu:smooth=exp"`` or
``"SP-Op(*)"`` and :func:`from_signature` to rebuild one from its signature.
"""

from __future__ import annotations

from mtstrata import signature as _sig
from mtstrata.metrics.base import Metric, MetricBase, Score
from mtstrata.registry import Registry

REGISTRY: Registry[Metric] = Registry(
    "metric", list_command="mtstrata list metrics", plugin_package="mtstrata.metrics"
)


def create(spec: str) -> Metric:
    """Build a metric from ``NAME[:key=value,...]`` (unknown names raise with suggestions)."""
    return REGISTRY.create(spec)


def from_signature(sig: str) -> Metric:
    """Rebuild the metric described by a signature made by ``Metric.signature()``."""
    name, params, _run = _sig.parse(sig)
    spec = name + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")
    return REGISTRY.create(spec)


__all__ = ["REGISTRY", "Metric", "MetricBase", "Score", "create", "from_signature"]
