"""Regenerate the out-of-year section of RESULTS.md: every metric family on the 7 WMT19
into-English DA pairs (system level; WMT19 has no segment judgments here), and every metric set
selected on WMT17 applied to them frozen: a year, a test set, systems and (for gu-en, kk-en,
lt-en) language pairs that no selection saw.

Tables (the ``.npz`` tables ``mtstrata meta --tables`` keeps) are read from ``--tables`` and
only missing metrics are computed (annotation: the spaCy model of models.lock and the learned
role labeller, cached in ``--cache``; embeddings beside it). Computing them from scratch is
what ``mtstrata meta --data <the 7 pairs> -m <the metrics below> --tables DIR`` does; the
round-2 run split it into a text + linguistic job and an embedding job on one core each.

The sets, all frozen (selection and normalisation on WMT17 only):

* ``ULC``, ``ULC-lex`` and ``ULC-emb``: the sets shipped in the package (``-m ULC``);
* ``ULC-ling-sys`` / ``ULC-ling-seg``: the round-2 search over text + linguistic candidates,
  re-run here on the cached WMT17 tables exactly as ``tools/results_linguistic.py`` does;
* the sets with embedding members written by ``tools/emb_results.py`` (``--emb-sets``,
  ``set_*.json``); a set with a member not in the WMT19 tables is listed as not computed.

WMT19 text is cased and detokenised, the WMT17 files lowercased and tokenised: the sets'
normalisation meets scores of another regime (stated in the section). Written between
``<!-- wmt19:begin -->`` and ``<!-- wmt19:end -->`` of ``--out`` (appended before the round-1
coverage section if absent).

Usage: python -m tools.results_wmt19 [--data DIR] [--tables DIR] [--cache FILE]
       [--emb-sets DIR] [--ling-tables DIR] [--ref-tables DIR] [--out RESULTS.md]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from mtstrata.combine.search import hill_climb
from mtstrata.layers import AnnotationOptions
from mtstrata.meta.bootstrap import bootstrap_ci, compare_metrics
from mtstrata.meta.records import metric_arrays
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable
from mtstrata.meta.table_cache import cached_table
from mtstrata.metrics.setfile import Combiner, load_set
from tools.emb_results import TEXT as EMB_TEXT
from tools.make_results import DEV, LING, N_BOOT, SEED, corr_section, log
from tools.results_doc import check_data, write_sections
from tools.results_linguistic import REFERENCE
from tools.results_linguistic import tables as tables17

ROOT = Path(__file__).resolve().parent.parent
PAIRS = ["de-en", "fi-en", "gu-en", "kk-en", "lt-en", "ru-en", "zh-en"]
#: BLEU, chrF, the text members of the bundled sets, and every text candidate of
#: tools/emb_results.py (its learned set has them all as members)
TEXT = list(dict.fromkeys(["bleu", "chrf", "wer", "ROUGE-L", "ROUGE-W", *EMB_TEXT]))
EMB = ["EMB-F", "EMB-P", "EMB-R", "EMB-F:idf=yes", "EMB-cos"]
#: the rows of the per-metric table (the other text candidates are there for the sets)
SHOW = ["bleu", "chrf", "chrf:char_order=2,beta=1", "chrf:char_order=3,beta=1", "wer", "ROUGE-L",
        "ROUGE-W", "grr:order=2", *LING, *EMB]


def sets_to_test(args: argparse.Namespace) -> tuple[dict[str, Combiner], list[str]]:
    """The frozen sets, and lines saying how each was made."""
    sets: dict[str, Combiner] = {}
    how: list[str] = []
    for name in ("ULC", "ULC-lex", "ULC-emb"):
        combiner, digest = load_set(ROOT / "mtstrata" / "data" / "sets" / f"{name}.json")
        if "WMT19" in (combiner.provenance or {}).get("years", []):  # fitted on WMT19
            how.append(f"`{name}`: the bundled set is fitted on WMT17 and WMT19 (issue 29): "
                       "not measured here; its held-out figures are in the cross-year section")
            continue
        sets[name] = combiner
        how.append(f"`{name}`: the bundled set (sha256 {digest[:12]}…), members "
                   + ", ".join(f"`{m}`" for m in sets[name].metrics))
    w17 = [Path(args.data, "wmt17_toen_da", lp) for lp in DEV]
    dev = tables17(w17, args.ling_tables, args.ref_tables, AnnotationOptions(quiet=True),
                   REFERENCE)
    cands = [*REFERENCE, *LING]
    for name, objective in (("ULC-ling-sys", "sys_pearson"), ("ULC-ling-seg", "seg_pearson")):
        sets[name] = hill_climb(list(dev.values()), cands, objective)
        how.append(f"`{name}`: {objective.replace('_', ' ')} search over {len(cands)} text + "
                   "linguistic candidates on WMT17 " + ", ".join(DEV) + ", members "
                   + ", ".join(f"`{m}`" for m in sets[name].metrics))
    for path in sorted(Path(args.emb_sets).glob("set_*.json")):
        combiner, digest = load_set(path)
        name = path.stem.removeprefix("set_")
        sets[name] = combiner
        how.append(f"`{name}`: `tools/emb_results.py` ({path.name}, sha256 {digest[:12]}…), "
                   f"{len(combiner.metrics)} members")
    return sets, how


def set_section(sets: dict[str, Combiner], t19: dict[str, ScoreTable]) -> list[str]:
    md = ["### Metric sets frozen on WMT17, system-level Pearson on WMT19", "",
          f"Per pair: Pearson [95% bootstrap interval over systems] and Δ against chrF with its "
          f"paired-bootstrap interval ({N_BOOT} resamples, seed {SEED}); `*`: one-sided "
          "p < 0.05 (the set is better).", "",
          "| set | " + " | ".join(t19) + " | avg | Δ vs chrF avg | better / worse than chrF "
          "(p<0.05) |", "|---|" + "---|" * (len(t19) + 3)]
    for name, combiner in sets.items():
        missing = sorted({m for m in combiner.metrics for t in t19.values()
                          if m not in t.sys_scores})
        if missing:
            md.append(f"| {name} | not computed: {len(missing)} member(s) ("
                      f"{', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}) not in "
                      "the WMT19 tables |" + " |" * (len(t19) + 2))
            continue
        cells, vals, deltas, better, worse = [], [], [], 0, 0
        for t in t19.values():
            arrays = metric_arrays(t, name, combiner)
            v, lo, hi = bootstrap_ci(pearson, arrays[0], t.sys_human, n=N_BOOT, seed=SEED)
            c = compare_metrics(pearson, arrays[0], metric_arrays(t, "chrf")[0], t.sys_human,
                                n=N_BOOT, seed=SEED)
            vals.append(v)
            deltas.append(c.delta)
            better += c.p < 0.05
            worse += c.p > 0.95
            cells.append(f"{v:.3f} [{lo:.2f}, {hi:.2f}]; Δ {c.delta:+.3f}"
                         f"{'*' if c.p < 0.05 else ''}")
        md.append(f"| {name} | " + " | ".join(cells) + f" | **{np.mean(vals):.3f}** | "
                  f"{np.mean(deltas):+.3f} | {better} / {worse} of {len(t19)} |")
    chrf = [pearson(metric_arrays(t, "chrf")[0], t.sys_human) for t in t19.values()]
    md += ["| chrf (baseline) | " + " | ".join(f"{v:.3f}" for v in chrf)
           + f" | **{np.mean(chrf):.3f}** | | |", ""]
    return md


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--tables", default="/work/tables19")
    ap.add_argument("--cache", default="/work/cache-w19.sqlite")
    ap.add_argument("--emb-sets", default=str(ROOT / "build"))
    ap.add_argument("--ling-tables", default="/work/tables17-ling")
    ap.add_argument("--ref-tables", default="/work/tables17-ref")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "RESULTS.md"))
    args = ap.parse_args()
    check_data(args.data, "wmt19_da_sys", "wmt17_toen_da")  # before anything is computed or created
    t0 = time.perf_counter()
    options = AnnotationOptions(cache=args.cache, jobs=args.jobs, quiet=True)
    metrics = [*TEXT, *LING, *EMB]
    t19 = {lp: cached_table(Path(args.data, "wmt19_da_sys", lp), metrics, args.tables, options,
                            on_compute=lambda lp, todo: log(f"{lp}: computing {len(todo)}"))
           for lp in PAIRS}
    sets, how = sets_to_test(args)
    n_sys = sum(len(t.systems) for t in t19.values())
    md = ["## Another year: WMT19 into-English, system level (round 2)", "",
          f"Generated by `tools/results_wmt19.py` on "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} ({time.perf_counter() - t0:.0f}"
          f" s from cached tables). WMT19 DA system-level z-scores of the 7 into-English pairs "
          f"({n_sys} systems; every output of every system scored, cased and detokenised text "
          "as released). Nothing here was selected or tuned on WMT19: gu-en, kk-en and lt-en "
          "are language pairs WMT17 does not have. The sets were selected and normalised on "
          "WMT17's lowercased, tokenised text; here they meet raw text.", "",
          "Sets tested:", "", *[f"* {h}" for h in how], ""]
    md += corr_section("WMT19: every metric family", t19, SHOW, seg=False)[2:]
    md += set_section(sets, t19)
    write_sections(Path(args.out), "tools/results_wmt19.py", {"wmt19": md})


if __name__ == "__main__":
    from tools.results_doc import run_script

    raise SystemExit(run_script(main, "tools/results_wmt19.py"))
