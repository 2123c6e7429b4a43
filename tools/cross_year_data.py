"""The data of ``tools/cross_year.py``: the into-English pair folders of each year (never a
folder of WMT21 or later), WMT17 restricted to its judged segments, and the figures an earlier
run wrote (``--json-dir``)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mtstrata.errors import InputError

YEARS = {"wmt17": "wmt17_toen_da", "wmt19": "wmt19_da_sys"}
INTO_EN = {"wmt17": ["cs-en", "de-en", "fi-en", "lv-en", "ru-en", "tr-en", "zh-en"],
           "wmt19": ["de-en", "fi-en", "gu-en", "kk-en", "lt-en", "ru-en", "zh-en"]}
#: a data folder of WMT21 or later (never read: the project's checks use those judgments)
LATER = re.compile(r"wmt[-_]?(2[1-9]|[3-9]\d)", re.IGNORECASE)


def pair_dirs(data: Path, year: str) -> list[Path]:
    """The into-English pair folders of ``year`` under ``data`` (every one must exist)."""
    root = data / YEARS[year]
    if LATER.search(str(root.resolve())):
        raise InputError("is a folder of WMT21 or later judgments, which this work never "
                         "reads (the project tests on them); pass the WMT17/WMT19 data.",
                         str(root))
    dirs = [root / lp for lp in INTO_EN[year]]
    missing = [str(d) for d in dirs if not (d / "sys_scores.tsv").is_file()]
    if missing:
        raise InputError(f"missing pairs {missing}; pass --data with {YEARS[year]}/ "
                         "(see shared/data/*/SOURCE.md).", str(root))
    return dirs


def judged_subset(dirs: Sequence[Path], scratch: Path) -> list[Path]:
    """Copies of the pairs restricted to their judged segments (the distinct segment indices
    of ``seg_scores.tsv``, in order; every scored system; segment indices renumbered), under
    ``scratch/<dataset>_judged/``: the embedding layer over every segment of every WMT17
    system does not fit a 2-core machine's afternoon, over the judged ones (~500 a pair) it
    does. System scores are then computed over those segments only (for every metric alike).
    ``scratch`` must lie outside the repository (data is never committed)."""
    from mtstrata.meta.data import read_dev_corpus

    out = []
    for d in dirs:
        c = read_dev_corpus(d)
        idx = sorted({i for _, i, _ in c.seg_rows})
        pos = {i: k for k, i in enumerate(idx)}
        dst = scratch / f"{d.parent.name}_judged" / d.name
        (dst / "sys").mkdir(parents=True, exist_ok=True)

        def lines(xs: Sequence[str]) -> str:
            return "".join(f"{x}\n" for x in xs)
        for j, ref in enumerate(c.refs):
            (dst / ("ref.txt" if j == 0 else f"ref.{j}.txt")).write_text(
                lines([ref[i] for i in idx]), encoding="utf-8")
        for name, hyp in c.systems.items():
            (dst / "sys" / f"{name}.txt").write_text(lines([hyp[i] for i in idx]),
                                                      encoding="utf-8")
        (dst / "sys_scores.tsv").write_text("system\thuman_score\n" + "".join(
            f"{n}\t{h!r}\n" for n, h in c.sys_human.items()), encoding="utf-8")
        (dst / "seg_scores.tsv").write_text("system\tsegment_index\thuman_score\n" + "".join(
            f"{n}\t{pos[i]}\t{h!r}\n" for n, i, h in c.seg_rows), encoding="utf-8")
        out.append(dst)
    return out


def read_pool(json_dir: Path, pool: str) -> dict[str, Any]:
    """The figures of one pool written by an earlier run (``--json-dir``)."""
    path = json_dir / f"cross_year.{pool}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the figures of pool {pool!r} ({e}); run "
                         f"python -m tools.cross_year --pools {pool} --json-dir {json_dir} first.",
                         str(path)) from None
    if not isinstance(data, dict) or data.get("pool", pool) != pool or not {
            "candidates", "across_years", "by_pair"} <= set(data):
        raise InputError(f"not the figures of pool {pool!r} written by tools/cross_year.py; "
                         "run it again with --json-dir.", str(path))
    return data

