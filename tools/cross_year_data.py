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
from tools.cross_year_report import SEG_CHECKS

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
    """The figures of one pool written by an earlier run (``--json-dir``), checked against the
    layout the RESULTS.md sections read (:func:`layout_problem`) before anything is written."""
    path = json_dir / f"cross_year.{pool}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"cannot read the figures of pool {pool!r} ({e}); run "
                         f"python -m tools.cross_year --pools {pool} --json-dir {json_dir} "
                         "first.", str(path)) from None
    problem = layout_problem(data, pool)
    if problem:
        raise InputError(f"not the figures of pool {pool!r} written by tools/cross_year.py "
                         f"({problem}); run it again with --pools {pool} --json-dir "
                         f"{json_dir}.", str(path))
    return data


# ---------------------------------------------------------------- the figures' layout
NUM = "a number"
#: one direction of one procedure (``across_years[NAME]["wmt17->wmt19"]``)
_DIRECTION = {"avg": {"pearson": NUM, "accuracy": NUM}, "members": [str],
              "pairs": {"*": {"pearson": NUM}}}
#: what :mod:`tools.cross_year_report` reads of a pool's figures (``?``: may be absent; ``*``:
#: any key; extra keys are allowed)
LAYOUT: dict[str, Any] = {
    "?pool": str, "?set": (str, None), "?wmt17_judged": bool, "candidates": [str],
    "across_years": {"*": {"wmt17->wmt19": _DIRECTION, "wmt19->wmt17": _DIRECTION}},
    "by_pair": {"*": {"avg": {"*": NUM}}},
    "?bundled_interval": {"procedure": str, "n": NUM, "seed": NUM, "wmt17->wmt19": [NUM],
                          "wmt19->wmt17": [NUM]},
    "?learned_alpha_by_year": {"alphas": {"*": {"wmt17->wmt19": NUM, "wmt19->wmt17": NUM,
                                                "mean": NUM}}, "chosen": NUM},
    "?singles": {"*": {"wmt17": {"*": NUM}, "wmt19": {"*": NUM}}},
}


def _shape_problem(value: Any, shape: Any, where: str) -> str | None:
    """Where ``value`` first departs from ``shape``, or None."""
    def kind(v: Any) -> str:
        return ("null" if v is None else "a list" if isinstance(v, list) else
                "an object" if isinstance(v, dict) else "a number" if isinstance(
                    v, (int, float)) and not isinstance(v, bool) else type(v).__name__)

    if shape == NUM:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"{where} is {kind(value)}, not a number"
    if isinstance(shape, tuple):  # one of
        ok = any(value is None if s is None else isinstance(value, s) for s in shape)
        return None if ok else f"{where} is {kind(value)}"
    if isinstance(shape, type):
        ok = isinstance(value, shape)
        return None if ok else f"{where} is {kind(value)}, not {shape.__name__}"
    if isinstance(shape, list):
        if not isinstance(value, list):
            return f"{where} is {kind(value)}, not a list"
        return next((p for k, v in enumerate(value)
                     if (p := _shape_problem(v, shape[0], f"{where}[{k}]"))), None)
    if not isinstance(value, dict):
        return f"{where or 'the file'} is {kind(value)}, not an object"
    if "*" in shape:
        return next((p for k, v in value.items()
                     if (p := _shape_problem(v, shape["*"], f"{where}.{k}".lstrip(".")))), None)
    for key, sub in shape.items():
        name = key.lstrip("?")
        if name not in value:
            if key.startswith("?"):
                continue
            return f"{where + '.' if where else ''}{name} is missing"
        p = _shape_problem(value[name], sub, f"{where}.{name}".lstrip("."))
        if p:
            return p
    return None


def layout_problem(data: Any, pool: str) -> str | None:
    """What makes ``data`` other than the figures of ``pool`` (None: it is them): the shape of
    :data:`LAYOUT`, and the ties between its parts that the sections rely on (chrF measured,
    every procedure at both levels over chrF's pairs, intervals of two ends)."""
    problem = _shape_problem(data, LAYOUT, "")
    if problem:
        return problem
    if data.get("pool", pool) != pool:
        return f"pool is {data['pool']!r}"
    ay, bp = data["across_years"], data["by_pair"]
    if "chrF" not in ay or "chrF" not in bp:
        return "chrF, the baseline, is not among the procedures"
    if set(ay) != set(bp):
        return (f"the procedures differ between across_years and by_pair "
                f"({sorted(set(ay) ^ set(bp))[:3]})")
    for name, r in bp.items():  # what the choice of a procedure compares with chrF's
        missing = [k for k in SEG_CHECKS if k not in r["avg"]]
        if missing:
            return f"by_pair.{name}.avg holds no {missing[0]}"
    for name, r in ay.items():
        for d in ("wmt17->wmt19", "wmt19->wmt17"):
            if set(r[d]["pairs"]) != set(ay["chrF"][d]["pairs"]):
                return f"across_years.{name}.{d}.pairs are not chrF's pairs"
    iv = data.get("bundled_interval")
    if iv and any(len(iv[d]) != 2 for d in ("wmt17->wmt19", "wmt19->wmt17")):
        return "bundled_interval holds an interval that is not two numbers"
    curve = data.get("learned_alpha_by_year")
    if curve:
        try:
            [float(a) for a in curve["alphas"]]
        except ValueError:
            return "learned_alpha_by_year.alphas has a key that is not a number"
    return None
