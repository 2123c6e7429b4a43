"""Build the bundled metric sets ``mtstrata/data/sets/ULC-lex.json``, ``ULC.json``,
``ULC-emb.json`` and ``ULC-years.json`` across years (issue 29).

Each set is the procedure of ``scripts/cross_year.py`` with the best held-out figures over its
own candidate pool (:func:`cross_year_report.choose`: the mean of the system Pearson measured on
WMT19 after a run on WMT17 and on WMT17 after a run on WMT19, among the procedures usable as a
set whose held-out-pair segment figures are not below chrF's), run again on both years (all 14
into-English pairs, :func:`build_set`):

* ``ULC-lex``: pool ``lex``, text metrics only (usable for any target language);
* ``ULC``: pool ``ling``, text metrics plus METEOR-sy and the Asiya families (English targets:
  spaCy, the learned role labeller, WordNet);
* ``ULC-emb``: pool ``emb``, text metrics plus EMB-cos and EMB-F (the emb layer);
* ``ULC-years``: pool ``all``, text, METEOR-sy, SR-Mrs(*) and the embedding metrics.

A pool without a usable procedure (``choose`` finds none at chrF's held-out segment level: so
far ``ling``) leaves its set's file as it is, and says so.

Each file records in ``provenance`` what made it: the data and years, the candidates, the
procedure and its objective, the held-out figures that chose it with chrF's beside them, every
member's full signature and the in-sample figures of the final fit. Nothing is typed in by
hand. Usage::

    python scripts/cross_year.py --wmt17-judged SCRATCH --json-dir CY [--tables DIR] \
        [--cache ANN.sqlite]
    python scripts/make_sets.py --cross-year CY --wmt17-judged SCRATCH [--only ULC-lex] \
        [--tables DIR] [--cache ANN.sqlite]

(``SCRATCH``: a folder outside the repository for the judged-segment copies of WMT17; the same
``--tables`` and ``--cache`` as cross_year.py's, so every column is served from its cache.)
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import sys
from pathlib import Path

from mtstrata._version import __version__
from mtstrata.errors import InputError
from mtstrata.layers import AnnotationOptions
from mtstrata.metrics.ulc import BUNDLED, SETS_DIR

#: what each set's provenance says of its members' layers
NOTES = {
    "ULC-lex": "text metrics only: usable for any target language",
    "ULC": "text and linguistic metrics (English targets: spaCy en_core_web_sm annotation, the "
           "learned role labeller, WordNet)",
    "ULC-emb": "text and embedding metrics (English targets: the emb layer's pinned "
               "all-MiniLM-L6-v2)",
    "ULC-years": "text, linguistic (METEOR-sy; SR-Mrs(*): the learned labeller's role "
                 "arguments matched in the emb layer's vector space) and embedding metrics "
                 "(English targets: spaCy, the learned role labeller, WordNet and the emb "
                 "layer's pinned all-MiniLM-L6-v2)",
}


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


def build_set(name: str, args: argparse.Namespace) -> Path | None:
    """Set ``name``: the procedure of ``scripts/cross_year.py`` with the best held-out figures
    over the set's pool (its ``cross_year.<pool>.json`` in ``--cross-year``; :func:`cross_year.
    choose`: system Pearson averaged over WMT17 -> WMT19 and WMT19 -> WMT17, segment figures of
    the held-out pairs not below chrF's), among those that give a set usable as a metric of one
    system (not chrF alone, not a single metric, not a set standardised within the run), run
    again on both years (all 14 pairs). Its provenance holds the held-out figures that chose it,
    chrF's beside them, and the in-sample figures of the final fit."""

    import cross_year as cy
    from cross_year_report import bundlable, choose

    from mtstrata.combine.report import metric_arrays
    from mtstrata.combine.stats import pearson
    from mtstrata.commands.search import set_signatures

    pool = next(k for k, v in cy.SET_OF_POOL.items() if v == name)
    result = cy.read_pool(Path(args.cross_year), pool)
    try:
        procedure = choose(result, bundlable)
    except SystemExit as e:  # the pool has no procedure to bundle: the current file stays
        print(f"{name}: not rebuilt, {SETS_DIR / BUNDLED[name]} kept: {e}", file=sys.stderr)
        return None
    candidates = list(result["candidates"])
    annotation = AnnotationOptions(cache=args.cache, quiet=True)
    dirs = {y: cy.pair_dirs(args.data, y) for y in cy.YEARS}
    if args.wmt17_judged:  # as cross_year.py --wmt17-judged (the tables of its figures)
        dirs["wmt17"] = cy.judged_subset(dirs["wmt17"], args.wmt17_judged)
    by_year = {y: cy.load_tables(d, candidates, Path(args.tables), annotation)
               for y, d in dirs.items()}
    tables = [t for ts in by_year.values() for t in ts]
    procs = cy.procedures(candidates, cy.OBJECTIVES, ["minmax", "pairsd"])
    alpha_year = result.get("learned_alpha_by_year")
    if procedure.startswith("learned") and alpha_year:  # the system penalty: by held-out year
        procs[procedure] = cy.learned(candidates, sys_alpha=float(alpha_year["chosen"]))
    else:
        procs["learned ridge+ (alpha leave-one-pair-out)"] = cy.learned(candidates)
    _, _, fitted = procs[procedure](tables)
    if not hasattr(fitted, "save"):
        raise SystemExit(f"{name}: {procedure}: the final fit gave no set (fewer than two "
                         "judged pairs)")
    fitted = _without_zero_weights(fitted)
    in_sample = {f"{y}/{t.lp}": round(pearson(metric_arrays(t, "", fitted)[0], t.sys_human), 4)
                 for y, ts in by_year.items() for t in ts}
    ay = result["across_years"]
    held = {"across_years": {d: {"avg": ay[procedure][d]["avg"],
                                 "chrF_avg": ay["chrF"][d]["avg"],
                                 "members": ay[procedure][d]["members"]}
                             for d in ("wmt17->wmt19", "wmt19->wmt17")},
            "by_pair_wmt17_segment": {"avg": result["by_pair"][procedure]["avg"],
                                      "chrF_avg": result["by_pair"]["chrF"]["avg"]},
            **({"interval_vs_chrF": result["bundled_interval"]}
               if result.get("bundled_interval", {}).get("procedure") == procedure else {})}
    prov = {
        "mtstrata": __version__, "name": name,
        "built": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "script": "scripts/make_sets.py", "procedures": "scripts/cross_year.py",
        "data": "WMT17 into-English DA (newstest2017, 7 pairs, system and segment judgments; "
                "lowercased, tokenised" + ("; system scores over the judged segments only"
                                           if args.wmt17_judged else "")
                + ") and WMT19 into-English DA (newstest2019, 7 pairs, system judgments; "
                "cased, detokenised); no judgment of WMT21 or later",
        "years": ["WMT17", "WMT19"],
        "dev": [f"{d.parent.name}/{d.name}" for ds in dirs.values() for d in ds],
        "pool": pool, "procedure": procedure, "candidates": candidates,
        **({"system_alpha_by_held_out_year": alpha_year} if procedure.startswith("learned")
           and alpha_year else {}),
        "chosen_by": "held-out figures of scripts/cross_year.py (cross_year.choose)",
        "held_out": held,
        "signatures": set_signatures(tables[0], list(fitted.metrics)),
        "in_sample_sys_pearson": in_sample,
        "note": NOTES[name] + "; selected by figures on the year it was not fitted on",
    }
    out = SETS_DIR / BUNDLED[name]
    dataclasses.replace(fitted, provenance=prov).save(out)  # type: ignore[type-var]
    print(f"{name}: {procedure}: members {fitted.metrics}; written {out}", file=sys.stderr)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=Path("../shared/data"),
                   help="the folder holding wmt17_toen_da and wmt19_da_sys")
    p.add_argument("--cross-year", metavar="DIR", required=True,
                   help="the --json-dir of scripts/cross_year.py (same tables)")
    p.add_argument("--only", choices=list(NOTES), help="build one set only")
    p.add_argument("--cache", help="annotation cache file (default: mtstrata's)")
    p.add_argument("--tables", default=str(Path.home() / ".cache/mtstrata/tables"),
                   help="score-table cache directory (cross_year.py's)")
    p.add_argument("--wmt17-judged", type=Path, metavar="SCRATCH",
                   help="WMT17 on its judged segments only, as cross_year.py --wmt17-judged "
                   "(copies under SCRATCH, outside the repository)")
    args = p.parse_args()
    try:
        for name in [args.only] if args.only else list(NOTES):
            build_set(name, args)
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
