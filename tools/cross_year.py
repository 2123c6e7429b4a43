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

Each candidate pool (``--pools``; :data:`POOLS`) is the pool of one bundled set
(:data:`SET_OF_POOL`; ``wide``, item 4's candidates added to ``all``, is measured only), and
issue 29's ``tools/make_sets.py`` fitted each set's chosen procedure again on both years (it now
builds the sets with ``search --nested`` instead; this script writes RESULTS.md's sections).

Score tables are cached per pair in ``--tables`` (``mtstrata.meta.table_cache.cached_table``: a
column is served only under the signature today's code gives it), so a rerun takes minutes once
the annotation (spaCy, the learned labeller, the emb layer: ``--cache``) is cached. Writes
``--json-dir`` (every figure, ``cross_year.<pool>.json``) and prints the tables; ``--results
FILE`` rewrites the generated sections ``cross-year-sets`` and ``cross-year`` of RESULTS.md
(:mod:`results_doc`; the text: :mod:`cross_year_report`); ``--from-json`` writes them from an
earlier run's figures without computing.

Usage::

    nice -n 10 python -m tools.cross_year [--data DIR] [--tables DIR] [--cache FILE]
        [--pools lex ling emb all wide] [--wmt17-judged SCRATCH] [--score-only]
        [--json-dir DIR] [--from-json] [--results RESULTS.md]
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mtstrata.combine.procedures import (
    BASELINE,
    Procedure,
    average,
    measure,
    procedures,
    single,
)
from mtstrata.layers import AnnotationOptions
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable
from mtstrata.meta.table_cache import LEXICAL_CANDIDATES, cached_table
from mtstrata.output import atomic_write
from tools import _cli
from tools.cross_year_data import YEARS, judged_subset, pair_dirs, read_pool
from tools.cross_year_report import bundlable, choose, section, sets_section

#: TER is left out: sacreBLEU's TER takes 45 s per 3,000-segment system here (the other 41
#: text candidates together about 3 s): 150 WMT17+WMT19 systems would take two hours
#: ROUGE-L/W and GTM-1 (cheap: ~0.5 s a system) joined after a first run without them, whose
#: best procedure reached +0.012 mean system Pearson over chrF: the choice of candidates saw
#: these held-out figures (said in the RESULTS section)
LATE = ("ROUGE-L", "ROUGE-W", "GTM-1")
TEXT = (*LEXICAL_CANDIDATES, *LATE)
EMB = ("EMB-cos", "EMB-F")
#: METEOR (WordNet synonyms) and soft role matching (the learned labeller's arguments compared in
#: the emb layer's vector space): the linguistic candidates of issue 29's item 3
LING = ("METEOR-sy", "SR-Mrs(*)")
#: the Asiya families over spaCy's layers and the learned labeller, hard matching (the candidates
#: of the WMT17-only ULC before issue 29)
ASIYA = ("SP-Op(*)", "SP-Oc(*)", "SP-pBLEU", "Ol-lem", "SP-lBLEU",
         "DP-Or(*)", "DP-Oc(*)", "DP-HWCM_c-4", "DP-HWCM_r-4", "DP-HWCM_w-4",
         "NE-Oe(*)", "NE-Oe(**)", "NE-Me(*)", "SR-Or(*)", "SR-Mr(*)", "SR-Orv(*)", "SR-Or")
#: issue 29's item 4 (signal for close systems): idf-weighted and one-sided token matching, and
#: soft (emb-vector) matching of whole entities and chunks beside SR-Mrs' role arguments
CLOSE = ("EMB-F:idf=yes", "EMB-P", "EMB-R", "NE-Mes(*)", "SP-Ocs(*)")
#: candidate pools, each the pool of one bundled set (``--pools``)
POOLS = {"lex": TEXT, "ling": (*TEXT, "METEOR-sy", *ASIYA), "emb": (*TEXT, *EMB),
         "all": (*TEXT, *EMB, *LING), "wide": (*TEXT, *EMB, *LING, *ASIYA, *CLOSE)}
#: the bundled set each pool is for (``wide``: item 4's candidates added to ``all``, measured;
#: it did not help the held-out years, see RESULTS.md's cross-year-sets section)
SET_OF_POOL = {"lex": "ULC-lex", "ling": "ULC", "emb": "ULC-emb", "all": "ULC-years",
               "wide": None}
#: single metrics compared in the cross-year-sets section: hard matching and its soft (or idf)
#: form
SOFT_VS_HARD = (("SR-Mr(*)", "SR-Mrs(*)"), ("NE-Me(*)", "NE-Mes(*)"), ("SP-Oc(*)", "SP-Ocs(*)"),
                ("EMB-F", "EMB-F:idf=yes"))
SYS_STATS = ("pearson", "accuracy", "kendall")
#: the hill climbing's objectives (issue 29 item 2: pairwise accuracy and Kendall beside Pearson)
OBJECTIVES = ("sys_pearson", "accuracy", "sys_kendall")
SEG_STATS = ("kendall_item", "kendall_flat", "pearson")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


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


#: the ridge penalties tried when the held-out year chooses it (wider than leave-one-pair-out's
#: grid, whose smallest value was chosen at system level)
YEAR_ALPHAS = (1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0)


def alpha_by_year(candidates: Sequence[str], years: Mapping[str, list[ScoreTable]],
                  alphas: Sequence[float] = YEAR_ALPHAS) -> dict[str, Any]:
    """The system-level ridge penalty chosen by the held-out year: for each penalty, the
    model fitted on one year and measured on the other (both directions, system Pearson
    averaged over the pairs); the chosen one has the best mean of the two directions."""
    from mtstrata.combine.learned import fit_level

    curve = {}
    for a in alphas:
        r = {}
        for x, y in (("wmt17", "wmt19"), ("wmt19", "wmt17")):
            level, _ = fit_level(years[x], candidates, "sys", alphas=(a,))
            r[f"{x}->{y}"] = float(np.mean([pearson(level.apply(t.sys_scores), t.sys_human)
                                            for t in years[y]]))
        r["mean"] = float(np.mean(list(r.values())))
        curve[repr(a)] = r
        log(f"ridge alpha {a:g}: " + "; ".join(f"{k} {v:.4f}" for k, v in r.items()))
    best = max(alphas, key=lambda a: (curve[repr(a)]["mean"], a))
    return {"alphas": curve, "chosen": best,
            "at_grid_edge": best in (min(alphas), max(alphas))}


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


def diff_interval(proc: Procedure, years: Mapping[str, list[ScoreTable]], n: int = 1000,
                  seed: int = 12345) -> dict[str, list[float]]:
    """Per direction, the seeded paired-bootstrap 95% interval of (procedure - chrF) system
    Pearson averaged over the measured pairs: the systems of each pair resampled, the same
    resample for both."""
    out = {}
    for a, b in (("wmt17", "wmt19"), ("wmt19", "wmt17")):
        scorer = proc(years[a])[0]
        rng = np.random.default_rng(seed)
        diffs = np.zeros(n)
        for t in years[b]:
            x, y, h = scorer(t)[0], single(BASELINE)(t)[0], t.sys_human
            for r, idx in enumerate(rng.integers(0, len(h), size=(n, len(h)))):
                diffs[r] += (pearson(x[idx], h[idx]) - pearson(y[idx], h[idx])) / len(years[b])
        out[f"{a}->{b}"] = [float(np.nanpercentile(diffs, 2.5)),
                            float(np.nanpercentile(diffs, 97.5))]
    return out


def run_pool(pool: str, candidates: Sequence[str], years: Mapping[str, list[ScoreTable]],
             objectives: Sequence[str], fits: Sequence[str]) -> dict[str, Any]:
    """Every figure of one candidate pool, and the interval of the procedure it would bundle."""
    log(f"pool {pool}: {len(candidates)} candidates")
    procs = procedures(candidates, objectives, fits)
    result: dict[str, Any] = {
        "pool": pool, "set": SET_OF_POOL.get(pool), "candidates": list(candidates),
        "across_years": across_years(procs, years), "by_pair": by_pair(procs, years),
        "learned_alpha_by_year": alpha_by_year(candidates, years),
        "singles": {m: {y: average(measure(single(m), ts, seg=True)) for y, ts in years.items()}
                    for pair in SOFT_VS_HARD for m in pair if m in candidates}}
    try:  # the interval of the procedure that would be bundled
        name = choose(result, bundlable)
        result["bundled_interval"] = {"procedure": name, "n": 1000, "seed": 12345,
                                      **diff_interval(procs[name], years)}
    except SystemExit:
        pass
    return result


def main() -> int:
    """The command: bad input is one paragraph and exit code 2 (:func:`tools._cli.run`)."""
    return _cli.run(_main, "cross_year", "--data names the folder holding "
                    "wmt17_toen_da/ and wmt19_da_sys/; --tables, --json-dir and "
                    "--wmt17-judged name directories (created when missing).")


def _main() -> int:
    p = _cli.parser("cross_year", __doc__)
    p.add_argument("--data", type=Path,
                   default=Path(os.environ.get("MTSTRATA_DATA", "../shared/data")))
    p.add_argument("--tables", type=_cli.directory,
                   default=Path.home() / ".cache/mtstrata/tables")
    p.add_argument("--cache", help="annotation cache file (the spaCy, role and emb layers)")
    p.add_argument("--pools", nargs="+", choices=list(POOLS), default=list(POOLS),
                   help="candidate pools, one per bundled set: " + "; ".join(
                       f"{k} -> {v}" for k, v in SET_OF_POOL.items()))
    p.add_argument("--extra", nargs="+", default=[], metavar="SPEC",
                   help="more candidate metrics (specs) for every pool")
    p.add_argument("--objectives", nargs="+", default=list(OBJECTIVES))
    p.add_argument("--fits", nargs="+", default=["minmax", "pairsd", "z"])
    p.add_argument("--score-only", action="store_true", help="fill the table cache and stop")
    p.add_argument("--wmt17-judged", type=_cli.directory, metavar="SCRATCH",
                   help="measure WMT17 on its judged segments only (copies written under "
                   "SCRATCH, outside the repository; see judged_subset)")
    p.add_argument("--json-dir", type=_cli.directory,
                   help="write every figure here, one cross_year.<pool>.json per pool")
    p.add_argument("--results", type=_cli.existing_file,
                   help="rewrite the cross-year sections of this file")
    p.add_argument("--from-json", action="store_true", help="compute nothing: read the figures "
                   "of --json-dir (an earlier run) and write the sections")
    args = p.parse_args()
    if args.from_json:
        if not args.json_dir:
            p.error("--from-json reads --json-dir DIR")
        return write_results({k: read_pool(args.json_dir, k) for k in args.pools},
                             args.results)
    if args.wmt17_judged:
        _cli.outside_repository(args.wmt17_judged, "--wmt17-judged")
    pools = {k: list(dict.fromkeys([*POOLS[k], *args.extra])) for k in args.pools}
    union = list(dict.fromkeys(m for c in pools.values() for m in c))
    annotation = AnnotationOptions(cache=args.cache, quiet=True)
    dirs = {y: pair_dirs(args.data, y) for y in YEARS}
    if args.wmt17_judged:
        dirs["wmt17"] = judged_subset(dirs["wmt17"], args.wmt17_judged)
    years = {y: load_tables(d, union, args.tables, annotation) for y, d in dirs.items()}
    if args.score_only:
        return 0
    results = {}
    for pool, candidates in pools.items():
        results[pool] = run_pool(pool, candidates, years, args.objectives, args.fits)
        results[pool]["wmt17_judged"] = bool(args.wmt17_judged)
        if args.json_dir:
            atomic_write(args.json_dir / f"cross_year.{pool}.json",
                         json.dumps(results[pool], indent=1, allow_nan=True))
    return write_results(results, args.results)


def write_results(results: Mapping[str, Mapping[str, Any]], path: Path | None) -> int:
    """Print the cross-year sections (and rewrite them in ``path``)."""
    sections = {"cross-year-sets": sets_section(results)}
    if "all" in results:
        sections["cross-year"] = section(results["all"])
    for lines in sections.values():
        print("\n".join(lines))
    if path:
        from tools.results_doc import write_sections

        write_sections(path, "tools/cross_year.py", sections)
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
