"""``mtstrata score --format mtme``: a scoring run as mt-metrics-eval score files.

mt-metrics-eval (Freitag et al.) keeps one file per metric and level, ``<lp>.seg.score`` and
``<lp>.sys.score`` with ``system<TAB>score`` rows (segment rows in segment order); the files
are written by :func:`mtstrata.combine.data.write_mtme`. Metric variants that display alike
(every BLEU displays as ``BLEU``) are named by their spec (``bleu:smooth=floor``) to stay apart.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from mtstrata.combine.data import write_mtme
from mtstrata.errors import InputError


def write_run(out_dir: str | os.PathLike[str] | None, lp: str, run: object,
              specs: Sequence[str]) -> list[Path]:
    """Write every metric of a :class:`mtstrata.scoring.Run` as MTME files.

    Args:
        out_dir: output directory (created if missing).
        lp: language-pair label used as the file prefix.
        run: the scoring run.
        specs: the metric specs, in the run's metric order.

    Returns:
        The paths written.

    Raises:
        InputError: no ``--out`` directory.
    """
    if not out_dir:
        raise InputError("--format mtme writes files: pass the directory with --out DIR.")
    displays = [m.display_name() for m in run.metrics]  # type: ignore[attr-defined]
    paths: list[Path] = []
    for i, spec in enumerate(specs):
        name = displays[i] if displays.count(displays[i]) == 1 else spec
        seg = {}
        sys_ = {}
        for s in run.systems:  # type: ignore[attr-defined]
            sc = run.score(s, i, sentence_level=True)  # type: ignore[attr-defined]
            seg[s] = sc.segments or []
            sys_[s] = sc.value
        paths += write_mtme(out_dir, lp, name, seg, sys_)
    return paths
