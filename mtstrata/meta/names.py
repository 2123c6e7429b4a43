"""Canonical metric names and the signatures of what ``meta`` and ``search`` evaluate.

A metric is named by what it is, not by how the user spelled it: its display name, plus the
parameters that differ from that metric's defaults (``bleu`` and ``BLEU:max_order=4`` are both
``BLEU``; ``bleu:max_order=2,smooth=floor`` is ``BLEU:smooth=floor,max_order=2``). The name
builds the same metric again (``metrics.create(canonical_name(m))``); the signature says
everything else (definition, library versions, annotator...). Metric sets are named by their
set (``ULC-lex``, ``ULC:<file stem>``), external scores ``ext:NAME``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from mtstrata import signature as _sig

#: the signature name of scores computed elsewhere and read from mt-metrics-eval files
EXTERNAL_SIGNATURE = "EXT"


def canonical_name(metric: object) -> str:
    """The display name plus every parameter that differs from the metric's defaults."""
    name = metric.display_name()  # type: ignore[attr-defined]
    if hasattr(metric, "combiner") or not hasattr(metric, "params"):
        return name  # a metric set: its display name names the set (the signature its file)
    try:
        defaults = dict(type(metric)().params())
    except Exception:  # noqa: BLE001 - a metric without defaults: every parameter is named
        defaults = {}
    diff = [f"{k}={v}" for k, v in metric.params() if defaults.get(k) != v]
    return name + (":" + ",".join(diff) if diff else "")


def external_name(spec: str) -> str:
    """``ext:DIR/NAME`` -> ``ext:NAME`` (the directory goes into the signature); ``ext:`` read
    by the one rule of :func:`mtstrata.metrics.provenance.is_external` (spaces, case)."""
    from mtstrata.metrics.provenance import external_target

    return "ext:" + external_target(spec).rstrip("/").rpartition("/")[2]


def _sha256(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def external_signature(spec: str, seg_path: str | os.PathLike[str]) -> str:
    """What an external metric's numbers are: the files read and their sha256 (the ``.sys``
    file when present, else ``sys:mean-of-seg``)."""
    seg = Path(seg_path).resolve()
    sys_path = seg.with_name(seg.name[:-len(".seg.score")] + ".sys.score")
    items = [("name", external_name(spec)[4:]), ("seg", str(seg)), ("seg_sha256", _sha256(seg))]
    if sys_path.is_file():
        items += [("sys", str(sys_path)), ("sys_sha256", _sha256(sys_path))]
    else:
        items.append(("sys", "mean-of-seg"))
    return _sig.build(EXTERNAL_SIGNATURE, items)


def set_signature(path: str | os.PathLike[str], digest: str) -> str:
    """A metric set file's signature, in the form of ``ULCMetric.signature`` (the set, named by
    its content, and the sha256 of its bytes), for sets read by ``meta --ulc``."""
    from pathlib import Path

    from mtstrata.metrics.ulc import ULCMetric, set_name

    return _sig.build("ULC", [("set", set_name(str(path), Path(path), digest)),
                              ("sha256", digest)], ULCMetric.definition)


def dev_names(dirs: Sequence[str | os.PathLike[str]]) -> list[str]:
    """``dataset/pair`` of each ``--data`` directory (what ``search`` records as its dev pairs
    and ``search --nested --outer year`` groups by): the dataset is the directory's parent,
    named by its folder, and two different parents of one folder name are told apart by as
    many of their own parents as it takes (``a/y1/de-en``, ``b/y1/de-en``): two datasets
    never become one (one outer "year", one dev pair listed twice)."""
    paths = [Path(d).resolve() for d in dirs]
    parents = list(dict.fromkeys(p.parent for p in paths))
    depth = 1
    while len({_tail(p, depth) for p in parents}) < len(parents):
        depth += 1
    return [f"{_tail(p.parent, depth)}/{p.name}" for p in paths]


def _tail(path: Path, depth: int) -> str:
    """The last ``depth`` parts of ``path`` (all of it when it has no more)."""
    parts = path.parts
    return str(path) if depth >= len(parts) else "/".join(parts[-depth:])
