"""Human correlation across years: metric sets selected (and fitted) on one year's judgments,
measured on another year's, beside chrF (issue 29).

Data (read from ``--data``, default ``$MTSTRATA_DATA`` or ``../shared/data``; never copied):

* WMT17 into-English DA (``wmt17_toen_da``: 7 pairs, system and segment judgments; text
  lowercased and tokenised);
* WMT19 into-English DA (``wmt19_da_sys``: de, fi, gu, kk, lt, ru, zh into English; system
  judgments only; text cased and detokenised, as users' text comes).

**No judgment of WMT21 or later is read**: a data folder named so is refused (the project's
checks use them).

Procedures, each measured in both directions (fit on WMT17 -> measure on WMT19, and WMT19 ->
WMT17) at system level (Pearson, pairwise accuracy, Kendall; per pair and averaged):

* ``chrF``, and the best single candidate of the fit year (by the objective);
* hill-climbed ULC sets (:func:`mtstrata.combine.search.hill_climb`, forward-backward, scored
  leave-one-pair-out inside the fit year) for each objective and each way of putting members
  on one scale (``--fits``: frozen min-max, frozen within-pair SD, z within the run);

and at segment level by language pair held out (WMT17 only has segment judgments): each WMT17
pair measured with the procedure fitted on the *other* six WMT17 pairs plus all of WMT19
(item-wise Kendall over judged rows grouped by segment, flat Kendall and Pearson).

Score tables are cached per pair in ``--tables`` (``mtstrata.combine.table.cached_table``: a
column is served only under the signature today's code gives it), so a rerun takes minutes;
embedding columns are computed only with ``--emb`` (slow: the emb layer). Writes ``--json``
(every figure) and prints the tables; ``--results FILE`` rewrites the generated section
``cross-year`` of RESULTS.md (:mod:`results_doc`).

Usage::

    nice -n 10 python scripts/cross_year.py [--data DIR] [--tables DIR] [--cache FILE]
        [--emb] [--score-only] [--json OUT.json] [--results RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtstrata.combine.search import hill_climb
from mtstrata.combine.stats import kendall, kendall_grouped, pairwise_accuracy, pearson
from mtstrata.combine.table import LEXICAL_CANDIDATES, ScoreTable, cached_table
from mtstrata.combine.ulc import Combiner
from mtstrata.errors import InputError
from mtstrata.layers import AnnotationOptions

YEARS = {"wmt17": "wmt17_toen_da", "wmt19": "wmt19_da_sys"}
INTO_EN = {"wmt17": ["cs-en", "de-en", "fi-en", "lv-en", "ru-en", "tr-en", "zh-en"],
           "wmt19": ["de-en", "fi-en", "gu-en", "kk-en", "lt-en", "ru-en", "zh-en"]}
#: TER is left out: sacreBLEU's TER takes 45 s per 3,000-segment system here (the other 41
#: text candidates together about 3 s): 150 WMT17+WMT19 systems would take two hours
TEXT = LEXICAL_CANDIDATES
EMB = ("EMB-cos", "EMB-F")
BASELINE = "chrf"
SYS_STATS = ("pearson", "accuracy", "kendall")
SEG_STATS = ("kendall_item", "kendall_flat", "pearson")
#: a data folder of WMT21 or later (never read: the project's checks use those judgments)
LATER = re.compile(r"wmt[-_]?(2[1-9]|[3-9]\d)", re.IGNORECASE)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


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


def load_tables(dirs: Sequence[Path], specs: Sequence[str], tables: Path,
                annotation: AnnotationOptions) -> list[ScoreTable]:
    """The cached score table of every pair holding ``specs`` (missing columns computed)."""
    out = []
    for d in dirs:
        t0 = time.time()
        out.append(cached_table(d, specs, tables, annotation,
                                on_compute=lambda lp, todo, d=d: log(
                                    f"{d.parent.name}/{lp}: computing {len(todo)} metrics")))
        log(f"{d.parent.name}/{d.name}: {len(specs)} metrics ready ({time.time() - t0:.0f} s)")
    return out


# ------------------------------------------------------------------------- measuring
Scorer = Callable[[ScoreTable], tuple[np.ndarray, np.ndarray]]


def single(metric: str) -> Scorer:
    """Oriented system scores and segment matrix of one metric."""
    def f(t: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
        sign = 1.0 if t.higher[metric] else -1.0
        return sign * t.sys_scores[metric], sign * t.seg_scores[metric]
    return f


def combined(c: Combiner) -> Scorer:
    """A set's system scores and segment matrix, combined over the whole pair (a run)."""
    def f(t: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
        return (c.combine({m: t.sys_scores[m] for m in c.metrics}, "sys"),
                c.combine({m: t.seg_scores[m] for m in c.metrics}, "seg"))
    return f


def measure(scorer: Scorer, tables: Sequence[ScoreTable], seg: bool = False
            ) -> dict[str, dict[str, float]]:
    """Per pair: system Pearson, pairwise accuracy, Kendall; with ``seg`` the segment-level
    item-wise Kendall (judged rows grouped by segment), flat Kendall and Pearson."""
    out: dict[str, dict[str, float]] = {}
    for t in tables:
        sys_, segm = scorer(t)
        h = t.sys_human
        r = {"pearson": pearson(sys_, h), "accuracy": pairwise_accuracy(sys_, h),
             "kendall": kendall(sys_, h)}
        if seg and len(t.seg_human):
            j = t.judged(segm)
            r.update(seg_kendall_item=kendall_grouped(j, t.seg_human, t.seg_idx),
                     seg_kendall_flat=kendall(j, t.seg_human), seg_pearson=pearson(j, t.seg_human))
        out[t.lp] = {k: float(v) for k, v in r.items()}
    return out


def average(per_pair: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in per_pair.values() for k in r})
    return {k: float(np.nanmean([r[k] for r in per_pair.values() if k in r])) for k in keys}


# ------------------------------------------------------------------------- procedures
def best_single(tables: Sequence[ScoreTable], candidates: Sequence[str], objective: str) -> str:
    """The candidate with the best mean objective on ``tables``."""
    stat = {"sys_pearson": "pearson", "accuracy": "accuracy", "sys_kendall": "kendall"}[objective]

    def score(m: str) -> float:
        return float(np.nanmean([r[stat] for r in measure(single(m), tables).values()]))
    return max(candidates, key=lambda m: (score(m), m))


Fitted = tuple[Scorer, list[str], object]  # scorer, members, the set (or the metric name)
Procedure = Callable[[Sequence[ScoreTable]], Fitted]


def procedures(candidates: Sequence[str], objectives: Sequence[str], fits: Sequence[str]
               ) -> dict[str, Procedure]:
    """Name -> fit(tables) -> (scorer, members, what was fitted)."""
    procs: dict[str, Procedure] = {
        "chrF": lambda tables: (single(BASELINE), [BASELINE], BASELINE)}
    for obj in objectives:
        def one(tables: Sequence[ScoreTable], obj: str = obj) -> Fitted:
            m = best_single(tables, candidates, obj)
            return single(m), [m], m
        procs[f"best single ({obj})"] = one
        for fit in fits:
            def climb(tables: Sequence[ScoreTable], obj: str = obj, fit: str = fit) -> Fitted:
                ms = hill_climb(tables, candidates, obj, fit=fit)
                return combined(ms), ms.metrics, ms
            procs[f"ULC {fit} ({obj})"] = climb
    procs["learned ridge+ (alpha leave-one-pair-out)"] = learned(candidates)
    return procs


def learned(candidates: Sequence[str]) -> Procedure:
    """Ridge with non-negative weights (:mod:`mtstrata.combine.learned`), penalty chosen
    leave-one-pair-out inside the fit tables; the segment model only where at least two fit
    pairs have segment judgments (else its segment scores are undefined)."""
    from mtstrata.combine.learned import LearnedSet, fit_level

    def fit(tables: Sequence[ScoreTable]) -> Fitted:
        sys_level, sys_info = fit_level(tables, candidates, "sys")
        judged = [t for t in tables if len(t.seg_human)]
        seg_level, seg_info = (fit_level(judged, candidates, "seg") if len(judged) >= 2
                               else (None, None))

        def f(t: ScoreTable) -> tuple[np.ndarray, np.ndarray]:
            seg = (seg_level.apply(t.seg_scores) if seg_level is not None
                   else np.full(t.seg_scores[candidates[0]].shape, np.nan))
            return sys_level.apply(t.sys_scores), seg
        members = [n.metric for n, w in zip(sys_level.norms, sys_level.weights, strict=True)
                   if w > 0]
        fitted = (LearnedSet(seg_level, sys_level, {"fit": {"sys": sys_info, "seg": seg_info}})
                  if seg_level is not None else None)
        return f, members, fitted
    return fit


def across_years(procs: Mapping[str, Callable], years: Mapping[str, list[ScoreTable]]
                 ) -> dict[str, dict[str, object]]:
    """Every procedure fitted on one year, measured on the other (system level)."""
    out: dict[str, dict[str, object]] = {}
    for name, fit in procs.items():
        out[name] = {}
        for a, b in (("wmt17", "wmt19"), ("wmt19", "wmt17")):
            scorer, members, _ = fit(years[a])
            per = measure(scorer, years[b])
            out[name][f"{a}->{b}"] = {"members": members, "pairs": per, "avg": average(per)}
        log(f"{name}: " + "; ".join(f"{k} sys r {v['avg']['pearson']:.3f} acc "
                                    f"{v['avg']['accuracy']:.3f}"
                                    for k, v in out[name].items()))
    return out


def by_pair(procs: Mapping[str, Callable], years: Mapping[str, list[ScoreTable]]
            ) -> dict[str, dict[str, object]]:
    """Segment level, each WMT17 pair held out: fitted on the other WMT17 pairs and WMT19."""
    out: dict[str, dict[str, object]] = {}
    t17 = years["wmt17"]
    for name, fit in procs.items():
        per, members = {}, {}
        for k, t in enumerate(t17):
            scorer, ms, _ = fit([*t17[:k], *t17[k + 1:], *years["wmt19"]])
            per.update(measure(scorer, [t], seg=True))
            members[t.lp] = ms
        out[name] = {"pairs": per, "avg": average(per), "members": members}
        log(f"{name}: held-out pairs seg kendall item {out[name]['avg']['seg_kendall_item']:.4f}")
    return out


def choose(result: Mapping[str, Any], usable: Callable[[str], bool]) -> str:
    """The procedure to bundle, by held-out figures only: the highest system Pearson averaged
    over both directions, among the usable procedures whose held-out-pair segment figures
    (flat Kendall and Pearson) are not below chrF's."""
    ay, bp = result["across_years"], result["by_pair"]

    def sys_r(name: str) -> float:
        return float(np.mean([ay[name][d]["avg"]["pearson"] for d in ay[name]]))

    base = bp["chrF"]["avg"]
    ok = [n for n in ay if usable(n) and all(
        bp[n]["avg"][k] >= base[k] for k in ("seg_kendall_flat", "seg_pearson"))]
    if not ok:
        raise SystemExit("no usable procedure is at least chrF's level at segment level held "
                         "out: nothing to bundle")
    return max(ok, key=lambda n: (sys_r(n), n))


def _f(v: object) -> str:
    return "n/a" if not isinstance(v, float) or np.isnan(v) else f"{v:.3f}"


def section(result: Mapping[str, object]) -> list[str]:
    """The ``cross-year`` section of RESULTS.md from :func:`main`'s result."""
    ay, bp = result["across_years"], result["by_pair"]
    assert isinstance(ay, dict) and isinstance(bp, dict)
    base = ay["chrF"]
    lines = [
        "", "### Across years: fitted on one year, measured on the other (issue 29)", "",
        "`scripts/cross_year.py` (score tables cached per pair). Into-English DA only: WMT17 "
        "(7 pairs, lowercased and tokenised text; system and segment judgments) and WMT19 (7 "
        "pairs, cased and detokenised; system judgments only); no judgment of WMT21 or later "
        f"was read. Candidates: {len(result['candidates'])} "  # type: ignore[arg-type]
        "(the text variants of `LEXICAL_CANDIDATES`" + (
            ", EMB-cos, EMB-F" if "EMB-cos" in result["candidates"] else "")  # type: ignore[operator]
        + "; TER left out for time). System level: the procedure is run on all pairs of one "
        "year (selection scored leave-one-pair-out inside it) and measured on every pair of "
        "the other, averaged over its 7 pairs. Segment level: each WMT17 pair measured with "
        "the procedure run on the other six WMT17 pairs and all of WMT19 (item-wise Kendall "
        "over the judged rows grouped by segment: WMT17 judged one translation of most "
        "segments, so few groups have two rows; flat Kendall and Pearson beside it). "
        "Differences are to chrF in the same column.", "",
        "| procedure | 17->19 sys r | acc | 19->17 sys r | acc | mean sys r vs chrF | "
        "held-out pairs: seg Kendall item / flat / r |",
        "|---|---|---|---|---|---|---|"]
    for name, r in ay.items():
        a, b = r["wmt17->wmt19"]["avg"], r["wmt19->wmt17"]["avg"]
        ba, bb = base["wmt17->wmt19"]["avg"], base["wmt19->wmt17"]["avg"]
        d = (a["pearson"] + b["pearson"] - ba["pearson"] - bb["pearson"]) / 2
        s = bp[name]["avg"]
        lines.append(
            f"| {name} | {_f(a['pearson'])} | {_f(a['accuracy'])} | {_f(b['pearson'])} | "
            f"{_f(b['accuracy'])} | {d:+.3f} | {_f(s.get('seg_kendall_item'))} / "
            f"{_f(s.get('seg_kendall_flat'))} / {_f(s.get('seg_pearson'))} |")
    lines += ["", "Members chosen (17->19 / 19->17):", ""]
    for name, r in ay.items():
        if name != "chrF":
            lines.append(f"* {name}: {', '.join(r['wmt17->wmt19']['members'])} / "
                         f"{', '.join(r['wmt19->wmt17']['members'])}")
    for direction in ("wmt17->wmt19", "wmt19->wmt17"):
        pairs = list(base[direction]["pairs"])
        lines += ["", f"System Pearson per pair, {direction.replace('->', ' -> ')}:", "",
                  "| procedure | " + " | ".join(pairs) + " |",
                  "|---|" + "---|" * len(pairs)]
        for name, r in ay.items():
            lines.append(f"| {name} | " + " | ".join(
                _f(r[direction]["pairs"][lp]["pearson"]) for lp in pairs) + " |")
    return [*lines, ""]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path,
                   default=Path(os.environ.get("MTSTRATA_DATA", "../shared/data")))
    p.add_argument("--tables", type=Path, default=Path.home() / ".cache/mtstrata/tables")
    p.add_argument("--cache", help="annotation cache file (the emb layer)")
    p.add_argument("--emb", action="store_true", help=f"add the embedding candidates {EMB}")
    p.add_argument("--objectives", nargs="+", default=["sys_pearson", "accuracy"])
    p.add_argument("--fits", nargs="+", default=["minmax", "pairsd", "z"])
    p.add_argument("--score-only", action="store_true", help="fill the table cache and stop")
    p.add_argument("--json", type=Path, help="write every figure here")
    p.add_argument("--results", type=Path, help="rewrite the cross-year section of this file")
    args = p.parse_args()
    candidates = [*TEXT, *(EMB if args.emb else ())]
    annotation = AnnotationOptions(cache=args.cache, quiet=True)
    try:
        years = {y: load_tables(pair_dirs(args.data, y), candidates, args.tables, annotation)
                 for y in YEARS}
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    if args.score_only:
        return 0
    procs = procedures(candidates, args.objectives, args.fits)
    result = {"candidates": candidates, "across_years": across_years(procs, years),
              "by_pair": by_pair(procs, years)}
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, allow_nan=True), encoding="utf-8")
    lines = section(result)
    print("\n".join(lines))
    if args.results:
        from results_doc import write_sections

        write_sections(args.results, "scripts/cross_year.py", {"cross-year": lines})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
