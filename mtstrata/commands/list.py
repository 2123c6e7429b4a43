"""``mtstrata list metrics``: what can be asked for."""

from __future__ import annotations

import argparse

from mtstrata import metrics


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("list", help="list metrics", description="List registered metrics.")
    p.add_argument("what", choices=["metrics"], help="what to list")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    entries = sorted(metrics.REGISTRY.entries(), key=lambda e: e.name.lower())
    width = max((len(e.name) for e in entries), default=10)
    for e in entries:
        layers = ",".join(e.layers) if e.layers else "text"
        print(f"{e.name.ljust(width)}  [{layers}]  {e.description}")
    return 0
