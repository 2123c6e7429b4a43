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


def allowed(typ: Any) -> str:
    """What a parameter of type ``typ`` accepts, as a spec writes it: ``a|b`` (a choice),
    ``yes|no``, ``int``, ``number``, ``text``, ``A+B+...`` (a tuple), ``... or none``."""
    import types
    import typing

    origin = typing.get_origin(typ)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(typ)
        kinds = [allowed(a) for a in args if a is not type(None)]
        return " or ".join(kinds) + (" or none" if type(None) in args else "")
    if origin is typing.Literal:
        return "|".join(str(c) for c in typing.get_args(typ))
    if origin is tuple:
        inner = (typing.get_args(typ) or (str,))[0]
        return f"{allowed(inner)}+{allowed(inner)}+..."
    return {bool: "yes|no", int: "int", float: "number", str: "text"}.get(typ, str(typ))


def parameters(entry: Any, factory: Any = None, skip: frozenset[str] = frozenset()
               ) -> list[tuple[str, str, str]] | None:
    """(name, default, allowed values) of every parameter a spec can set for a registry
    entry (``bleu:smooth=floor``), read from its factory's signature and type hints (a
    family's name groups, such as ``t`` of ``SP-Op(t)``, are in the name, not listed). None
    when the factory does not say (keyword arguments it passes on unseen)."""
    import dataclasses
    import inspect
    import typing

    from mtstrata.registry import format_value

    factory = entry.factory if factory is None else factory
    try:
        sig = inspect.signature(factory)
        hints = typing.get_type_hints(factory)
    except (TypeError, ValueError, NameError):
        return None
    params = list(sig.parameters.values())
    groups = entry.pattern.groups if entry.pattern is not None and not skip else 0
    named = frozenset(p.name for p in params[:groups]) | skip  # the name's groups
    if any(p.kind is p.VAR_KEYWORD for p in params):  # passed on: to the class it returns?
        target = hints.get("return")
        if not (isinstance(target, type) and dataclasses.is_dataclass(target)):
            return None
        return parameters(entry, target, named | {"_"})
    out = []
    for p in params:
        if (p.name in named or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                or p.default is p.empty):
            continue
        out.append((p.name, format_value(p.default), allowed(hints.get(p.name, str))))
    return out


def format_parameters(entry: Any) -> list[str]:
    """The indented lines under a metric in ``list metrics``: ``name=default (allowed)``,
    never split across lines; an empty default as ``""``."""
    params = parameters(entry)
    if params is None:
        return ["    parameters: see the metric's documentation"]
    if not params:
        return []
    empty = '""'
    items = [f"{n}={d or empty} ({a})" for n, d, a in params]
    lines, line = [], "    parameters:"
    for k, item in enumerate(items):
        item += "," if k + 1 < len(items) else ""
        if len(line) + 1 + len(item) > 100 and not line.endswith(":"):
            lines.append(line)
            line = "      " + item
        else:
            line += " " + item
    return [*lines, line]


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
                       description="List registered metrics (score range, layers, and the "
                       "parameters a spec can set, with their defaults and allowed values), or "
                       "annotators and role labellers.")
    p.add_argument("what", choices=["metrics", "annotators"], help="what to list")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.what == "annotators":
        from mtstrata.layers.planning import assigned_layers
        from mtstrata.layers.provider import PROVIDERS

        print("providers (each fills the layers after ->, reading those in brackets; "
              "--annotator SPEC chooses the provider of the tokens, --srl NAME that of srl; "
              "the others are chosen per layer and language, default marked *):")
        for e in sorted(PROVIDERS.entries(), key=lambda e: e.name):
            f = e.factory
            assigns = sorted(str(x) for x in assigned_layers(f))
            reads = sorted(str(x) for x in getattr(f, "needs", ())) or ["text"]
            langs = getattr(f, "languages", None)
            schemes = getattr(f, "schemes", None)
            extra = (" schemes " + ",".join(f"{k}={v}" for k, v in sorted(
                (str(k), v) for k, v in schemes.items()))) if isinstance(schemes, dict) and \
                schemes else ""
            star = "*" if getattr(f, "default", False) else " "
            print(f"  {e.name:10s}{star} [{','.join(reads)}] -> {','.join(assigns)}  "
                  f"languages {','.join(sorted(langs)) if langs else 'any'}{extra}  "
                  f"{e.description}")
        return 0
    entries = sorted(metrics.REGISTRY.entries(), key=lambda e: e.name.lower())
    width = max((len(e.name) for e in entries), default=10)
    for e in entries:
        layers = ",".join(e.layers) if e.layers else "text"
        scale = format_range(*declared_range(e.name, e.factory))
        print(f"{e.name.ljust(width)}  {scale:11s}  [{layers}]  {e.description}")
        for line in format_parameters(e):
            print(line)
    print("Set a parameter in the spec: NAME:key=value,key=value (e.g. bleu:smooth=floor, "
          "'SP-Op(*):meas=f').")
    return 0

