"""Build the bundled metric sets ``mtstrata/data/sets/ULC.json``, ``ULC-lex.json`` and
``ULC-emb.json``.

Both are selected with mtstrata's own hill climbing (:func:`mtstrata.combine.search.
hill_climb`, forward-backward, scored on held-out language pairs) on the WMT17 into-English
DA data (``../shared/data/wmt17_toen_da``):

* ``ULC-lex``: text metrics only (``LEXICAL_CANDIDATES`` plus TER), every WMT17 pair;
* ``ULC``: the text candidates plus linguistic ones (``LINGUISTIC_CANDIDATES``, English
  annotation by the locked spaCy model and the learned SRL labeller), on the pairs given with
  ``--ling-pairs`` (annotation is the slow step: ~100 texts/s/core).

Each file records in ``provenance`` what made it: the mtstrata version, every member's full
signature, the dev pairs, the candidates, objective and mode, and the dev correlations of the
selected set (system-level Pearson and segment-level Pearson per pair and averaged, computed by
``mtstrata meta``'s code on the same tables). Nothing is typed in by hand.

Usage::

    python scripts/make_sets.py --data ../shared/data/wmt17_toen_da \\
        [--only ULC-lex] [--pairs cs-en de-en fi-en] [--ling-pairs de-en cs-en fi-en] \\
        [--cache ANN.sqlite] [--tables DIR] [--import-tables DIR...]

The bundled files were made with ``--pairs cs-en de-en fi-en lv-en --ling-pairs cs-en de-en
fi-en lv-en`` (see their ``provenance``): the four dev pairs of RESULTS.md.
``ULC-years`` (issue 29) is built apart, from the figures of ``scripts/cross_year.py``: the
procedure with the best held-out figures across WMT17 and WMT19 (:func:`build_years`), fitted
again on both years::

    python scripts/cross_year.py --emb --ling --wmt17-judged SCRATCH --json CY.json [--tables DIR]
    python scripts/make_sets.py --only ULC-years --cross-year CY.json --wmt17-judged SCRATCH \
        [--tables DIR] [--cache ANN.sqlite]

(``SCRATCH``: a folder outside the repository for the judged-segment copies of WMT17.)
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
from pathlib import Path

import numpy as np

from mtstrata._version import __version__
from mtstrata.combine.report import table_records, with_average
from mtstrata.combine.search import hill_climb
from mtstrata.combine.table import LEXICAL_CANDIDATES, cached_table
from mtstrata.layers import AnnotationOptions
from mtstrata.metrics.ulc import BUNDLED, SETS_DIR

TEXT_CANDIDATES = (*LEXICAL_CANDIDATES, "ter")
LINGUISTIC_CANDIDATES = (
    "SP-Op(*)", "SP-Oc(*)", "SP-pBLEU", "Ol-lem", "SP-lBLEU",
    "DP-Or(*)", "DP-Oc(*)", "DP-HWCM_c-4", "DP-HWCM_r-4", "DP-HWCM_w-4",
    "NE-Oe(*)", "NE-Oe(**)", "NE-Me(*)",
    "SR-Or(*)", "SR-Mr(*)", "SR-Orv(*)", "SR-Or",
)
#: the embedding metrics (the emb layer: the pinned all-MiniLM-L6-v2)
EMB_CANDIDATES = ("EMB-F", "EMB-P", "EMB-R", "EMB-F:idf=yes", "EMB-cos")
OBJECTIVE = "sys_pearson"
MODE = "forward-backward"


def import_tables(dirs: list[Path], sources: list[str], tables: str,
                  annotation: AnnotationOptions | None = None) -> dict[str, list[str]]:
    """Copy into the ``tables`` cache the metric columns that other score-table caches
    (``sources``) hold for the same corpus (the content hash of the pair as it is on disk now,
    same systems) under exactly the **full run signature** this installation would give them
    (:func:`mtstrata.scoring.run_signatures`: definition, parameters, library versions,
    ``nrefs``, and ``ann:``, the annotator, providers and labeller of ``annotation``): a
    column is taken exactly when today's code would compute the same numbers. Nothing else is
    taken, not even from the first source (a column under another signature is left out and
    recomputed by the build).

    Returns:
        pair directory name -> the columns imported.
    """
    from mtstrata.combine.data import read_dev_corpus
    from mtstrata.combine.table import (
        ScoreTable,
        _cached,
        corpus_hash,
        load_table,
        metric_signatures_of,
        save_table,
        table_path,
    )
    from mtstrata.errors import MtstrataError
    from mtstrata.metrics import create

    imported: dict[str, list[str]] = {}
    for d in dirs:
        corpus = read_dev_corpus(d)
        content = corpus_hash(corpus)
        target = table_path(tables, d)
        current = _cached(target, corpus)  # an empty table unless the target is this corpus
        taken: list[str] = []
        for src in sources:
            p = table_path(src, d)
            if not p.is_file():
                continue
            other = load_table(p)
            if other.content != content or other.systems != current.systems:
                print(f"{p}: another corpus than {d}, not used", file=sys.stderr)
                continue
            for m in other.metrics():
                try:
                    want = metric_signatures_of([create(m)], len(corpus.refs), annotation)[0]
                except MtstrataError as e:  # a metric this installation cannot build
                    print(f"{p}: {m} not imported ({e})", file=sys.stderr)
                    continue
                if other.signatures.get(m) != want or current.signatures.get(m) == want:
                    continue
                current.add(m, other.sys_scores[m], other.seg_scores[m], other.higher[m])
                current.signatures[m] = want
                if m in other.stat_names:
                    current.stat_names[m] = other.stat_names[m]
                taken.append(m)
        imported[d.name] = taken
        if taken and isinstance(current, ScoreTable):
            Path(tables).mkdir(parents=True, exist_ok=True)
            save_table(current, target)
    return imported


def build(name: str, dirs: list[Path], candidates: tuple[str, ...], args: argparse.Namespace,
          note: str) -> Path:
    """Score every candidate on ``dirs``, search, save the set with its provenance."""
    annotation = AnnotationOptions(cache=args.cache, quiet=False)
    tables = []
    for d in dirs:
        print(f"{name}: scoring {d.name} ({len(candidates)} candidates)", file=sys.stderr,
              flush=True)
        tables.append(cached_table(d, list(candidates), args.tables, annotation))
    ms = hill_climb(tables, list(candidates), OBJECTIVE, mode=MODE)
    records = with_average([r for t in tables for r in table_records(
        t, [], {name: ms}, n=0)])
    dev = {f"{r.lp}.{r.level}.{r.statistic}": round(r.value, 4) for r in records
           if r.statistic == "pearson" and np.isfinite(r.value)}
    best_single = {}
    for t in tables:  # the best single candidate per pair, for comparison
        recs = table_records(t, list(candidates), None, n=0)
        sys_r = [(r.value, r.metric) for r in recs if r.level == "sys"
                 and r.statistic == "pearson" and np.isfinite(r.value)]
        best_single[t.lp] = {"metric": max(sys_r)[1], "sys.pearson": round(max(sys_r)[0], 4)}
    ms = dataclasses.replace(ms, provenance={
        "mtstrata": __version__,
        "name": name,
        "built": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "script": "scripts/make_sets.py",
        "data": "WMT17 into-English DA (newstest2017; system and segment direct assessment)",
        "dev": [f"{d.parent.name}/{d.name}" for d in dirs],
        "objective": OBJECTIVE,
        "mode": MODE,
        "folds": 0,
        "candidates": list(candidates),
        "signatures": {m: tables[0].signatures[m] for m in ms.metrics},
        "dev_correlations": dev,
        "best_single_candidate": best_single,
        "note": note,
    })
    SETS_DIR.mkdir(parents=True, exist_ok=True)
    out = SETS_DIR / BUNDLED[name]
    ms.save(out)
    print(f"{name}: {len(ms.metrics)} members {ms.metrics}; dev {dev}; written {out}",
          file=sys.stderr)
    return out


def _without_zero_weights(fitted: object) -> object:
    """A learned set without the members weighted zero at both levels (they add nothing but
    their computation; a uniform set is returned as it is)."""
    from mtstrata.combine.learned import LearnedSet, Level

    if not isinstance(fitted, LearnedSet):
        return fitted
    keep = [i for i, (a, b) in enumerate(zip(fitted.seg.weights, fitted.sys.weights,
                                             strict=True)) if a > 0 or b > 0]

    def level(lv: Level) -> Level:
        return Level(tuple(lv.norms[i] for i in keep), tuple(lv.weights[i] for i in keep),
                     lv.alpha)
    return LearnedSet(level(fitted.seg), level(fitted.sys), fitted.provenance)


def build_years(args: argparse.Namespace) -> Path:
    """``ULC-years``: the procedure of ``scripts/cross_year.py`` with the best held-out figures
    (its ``--json`` output, ``--cross-year``; :func:`cross_year.choose`: system Pearson
    averaged over WMT17 -> WMT19 and WMT19 -> WMT17, segment figures of the held-out pairs not
    below chrF's), among those that give a set usable as a metric of one system (not chrF
    alone, not a single metric, not a set standardised within the run), run again on both
    years (all 14 pairs). Its provenance holds the held-out figures that chose it, chrF's
    beside them, and the in-sample figures of the final fit."""
    import json

    import cross_year as cy
    from cross_year_report import bundlable, choose

    from mtstrata.combine.report import metric_arrays
    from mtstrata.combine.stats import pearson
    from mtstrata.commands.search import set_signatures

    result = json.loads(Path(args.cross_year).read_text(encoding="utf-8"))
    name = choose(result, bundlable)
    candidates = list(result["candidates"])
    annotation = AnnotationOptions(cache=args.cache, quiet=True)
    dirs = {y: cy.pair_dirs(args.years_data, y) for y in cy.YEARS}
    if args.wmt17_judged:  # as cross_year.py --wmt17-judged (the tables of its figures)
        dirs["wmt17"] = cy.judged_subset(dirs["wmt17"], args.wmt17_judged)
    by_year = {y: cy.load_tables(d, candidates, Path(args.tables), annotation)
               for y, d in dirs.items()}
    tables = [t for ts in by_year.values() for t in ts]
    procs = cy.procedures(candidates, ["sys_pearson", "accuracy"], ["minmax", "pairsd"])
    alpha_year = result.get("learned_alpha_by_year")
    if name.startswith("learned") and alpha_year:  # the system penalty: by the held-out year
        procs[name] = cy.learned(candidates, sys_alpha=float(alpha_year["chosen"]))
    else:
        procs["learned ridge+ (alpha leave-one-pair-out)"] = cy.learned(candidates)
    _, _, fitted = procs[name](tables)
    if not hasattr(fitted, "save"):
        raise SystemExit(f"{name}: the final fit gave no set (fewer than two judged pairs)")
    fitted = _without_zero_weights(fitted)
    in_sample = {f"{y}/{t.lp}": round(pearson(metric_arrays(t, "", fitted)[0], t.sys_human), 4)
                 for y, ts in by_year.items() for t in ts}
    held = {"across_years": {d: {"avg": result["across_years"][name][d]["avg"],
                                 "chrF_avg": result["across_years"]["chrF"][d]["avg"],
                                 "members": result["across_years"][name][d]["members"]}
                             for d in ("wmt17->wmt19", "wmt19->wmt17")},
            "by_pair_wmt17_segment": {"avg": result["by_pair"][name]["avg"],
                                      "chrF_avg": result["by_pair"]["chrF"]["avg"]}}
    prov = {
        "mtstrata": __version__, "name": "ULC-years",
        "built": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "script": "scripts/make_sets.py", "procedures": "scripts/cross_year.py",
        "data": "WMT17 into-English DA (newstest2017, 7 pairs, system and segment judgments; "
                "lowercased, tokenised" + ("; system scores over the judged segments only"
                                           if args.wmt17_judged else "")
                + ") and WMT19 into-English DA (newstest2019, 7 pairs, system judgments; "
                "cased, detokenised); no judgment of WMT21 or later",
        "years": ["WMT17", "WMT19"],
        "dev": [f"{d.parent.name}/{d.name}" for ds in dirs.values() for d in ds],
        "procedure": name, "candidates": candidates,
        **({"system_alpha_by_held_out_year": alpha_year} if name.startswith("learned")
           and alpha_year else {}),
        "chosen_by": "held-out figures of scripts/cross_year.py (cross_year.choose)",
        "held_out": held,
        "signatures": set_signatures(tables[0], list(fitted.metrics)),
        "in_sample_sys_pearson": in_sample,
        "note": "English targets with embedding members (the emb layer's pinned "
                "all-MiniLM-L6-v2); selected by figures on the year it was not fitted on",
    }
    out = SETS_DIR / BUNDLED["ULC-years"]
    dataclasses.replace(fitted, provenance=prov).save(out)  # type: ignore[type-var]
    print(f"ULC-years: {name}: members {fitted.metrics}; written {out}", file=sys.stderr)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/data/wmt17_toen_da"))
    p.add_argument("--only", choices=list(BUNDLED), help="build one set only")
    p.add_argument("--pairs", nargs="+", help="pairs of ULC-lex (default: every pair)")
    p.add_argument("--ling-pairs", nargs="+", default=["de-en", "cs-en", "fi-en"],
                   help="pairs scored with the linguistic candidates (ULC)")
    p.add_argument("--emb-pairs", nargs="+", default=["cs-en", "de-en", "fi-en", "lv-en"],
                   help="pairs of ULC-emb")
    p.add_argument("--cache", help="annotation cache file (default: mtstrata's)")
    p.add_argument("--tables", default=str(Path.home() / ".cache/mtstrata/tables"),
                   help="score-table cache directory")
    p.add_argument("--years-data", type=Path, default=None,
                   help="ULC-years: the folder holding wmt17_toen_da and wmt19_da_sys "
                   "(default: the parent of --data)")
    p.add_argument("--cross-year", metavar="JSON",
                   help="ULC-years: the --json output of scripts/cross_year.py (same tables)")
    p.add_argument("--wmt17-judged", type=Path, metavar="SCRATCH",
                   help="ULC-years: WMT17 on its judged segments only, as cross_year.py "
                   "--wmt17-judged (copies under SCRATCH, outside the repository)")
    p.add_argument("--import-tables", nargs="+", default=[], metavar="DIR",
                   help="other score-table caches whose metrics (same corpus, same signature) "
                   "are copied into --tables first")
    args = p.parse_args()
    if args.only == "ULC-years":
        if not args.cross_year:
            p.error("--only ULC-years needs --cross-year JSON (scripts/cross_year.py --json)")
        args.years_data = args.years_data or args.data.parent
        build_years(args)
        return 0
    pairs = sorted(d for d in args.data.iterdir() if (d / "sys_scores.tsv").is_file())
    if not pairs:
        print(f"no language pairs under {args.data}", file=sys.stderr)
        return 2
    if args.import_tables:
        got = import_tables(pairs, args.import_tables, args.tables,
                            AnnotationOptions(cache=args.cache, quiet=False))
        print(f"imported: {got}", file=sys.stderr)
    if args.only in (None, "ULC-lex"):
        lex = [d for d in pairs if not args.pairs or d.name in args.pairs]
        build("ULC-lex", lex, TEXT_CANDIDATES, args,
              "text metrics only: usable for any target language" + (
                  "" if len(lex) == len(pairs) else f"; selected on {len(lex)} of the "
                  f"{len(pairs)} WMT17 into-English pairs, the ones scored in the time "
                  "available (the dev pairs of RESULTS.md are cs, de, fi, lv)"))
    if args.only in (None, "ULC"):
        ling = [d for d in pairs if d.name in args.ling_pairs]
        all_pairs = len(ling) == len(pairs)
        build("ULC", ling, (*TEXT_CANDIDATES, *LINGUISTIC_CANDIDATES), args,
              "text and linguistic metrics (English targets: spaCy en_core_web_sm annotation "
              "and the learned SRL labeller)" + ("" if all_pairs else
              f"; selected on {len(ling)} of the {len(pairs)} WMT17 into-English pairs, the "
              "ones annotated in the time available (the dev pairs of RESULTS.md are cs, de, fi, "
              "lv)"))
    if args.only in (None, "ULC-emb"):  # ULC-years only with --only (it needs --cross-year)
        emb = [d for d in pairs if d.name in args.emb_pairs]
        build("ULC-emb", emb, (*TEXT_CANDIDATES, *EMB_CANDIDATES), args,
              "text and embedding metrics (English targets: the emb layer's pinned "
              "all-MiniLM-L6-v2), selected for system-level Pearson (RESULTS.md, embedding "
              "section: the same set as ULC-sys (text+emb))")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
