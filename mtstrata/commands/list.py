"""``mtstrata list metrics|annotators``: what can be asked for."""

from __future__ import annotations

import argparse
import math
from typing import Any

from mtstrata import metrics
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter

INF = math.inf
#: declared score ranges of metrics whose classes (owned elsewhere) declare none. ULC is the
#: mean of members normalised by bounds fitted on a sample: a system outside that sample's
#: range goes below 0 or above 1 (measured -27 to 2.7 on plain inputs), so it is unbounded.
#: EMB-* are (best-reference, greedy-matched) cosines: -1 to 1.
RANGES: dict[str, tuple[float, float]] = {
    "ULC": (-INF, INF), "ULC-lex": (-INF, INF), "ULC-emb": (-INF, INF), "ULC-years": (-INF, INF),
    "EMB-cos": (-1.0, 1.0), "EMB-F": (-1.0, 1.0), "EMB-P": (-1.0, 1.0), "EMB-R": (-1.0, 1.0),
}


def declared_range(name: str, factory: Any) -> tuple[float, float]:
    """The documented (lowest, highest) score of the metric registered as ``name`` (a metric
    instance or its registry factory): the class's ``range`` if it declares one, else
    :data:`RANGES`, else 0 to its ``scale`` (the value of a perfect score).
    tests/test_ranges.py checks every registered metric against it on generated inputs."""
    declared = getattr(factory, "range", None)
    if declared is not None:
        return (float(declared[0]), float(declared[1]))
    if name in RANGES:
        return RANGES[name]
    return (0.0, float(getattr(factory, "scale", 1.0)))


def format_range(lo: float, hi: float) -> str:
    """``[0, 100]``, ``[0, inf)``, ``(-inf, 1]``."""
    def num(v: float) -> str:
        return "inf" if v == INF else "-inf" if v == -INF else f"{v:g}"
    return (("(" if lo == -INF else "[") + num(lo) + ", " + num(hi)
            + (")" if hi == INF else "]"))


@COMMANDS.register("list")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "list", formatter_class=Formatter, help="list metrics or annotators",
                       description="List registered metrics, or annotators and role labellers.")
    p.add_argument("what", choices=["metrics", "annotators"], help="what to list")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.what == "annotators":
        from mtstrata.layers import ANNOTATORS, LABELLERS

        for title, reg in (("annotators (--annotator SPEC)", ANNOTATORS),
                           ("semantic-role labellers (--srl NAME)", LABELLERS)):
            print(title + ":")
            for e in sorted(reg.entries(), key=lambda e: e.name):
                schemes = getattr(e.factory, "schemes", None)
                extra = (" schemes " + ",".join(f"{k}={v}" for k, v in sorted(
                    (str(k), v) for k, v in schemes.items()))) if schemes else ""
                layers = e.layers or tuple(sorted(str(x) for x in getattr(e.factory, "needs", ())))
                print(f"  {e.name:8s} [{','.join(layers)}]{extra}  {e.description}")
        return 0
    entries = sorted(metrics.REGISTRY.entries(), key=lambda e: e.name.lower())
    width = max((len(e.name) for e in entries), default=10)
    for e in entries:
        layers = ",".join(e.layers) if e.layers else "text"
        scale = format_range(*declared_range(e.name, e.factory))
        print(f"{e.name.ljust(width)}  {scale:11s}  [{layers}]  {e.description}")
    return 0
