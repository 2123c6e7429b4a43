"""Results of the emb layer on WMT17 into-English DA: EMB metrics, SR-Mrs, and ULC / learned
combinations with embedding members, selected on 4 pairs and tested on the 3 others.

What is computed (say so wherever the figures are quoted):

* **Full tables first**: ``--full-tables`` names directories of score tables over every output
  of every system (the ``.npz`` tables of ``mtstrata meta --tables``; round 2 made them with
  ``mtstrata meta --data <the 7 pairs> -m <the 46 text candidates> EMB-F EMB-P EMB-R
  EMB-F:idf=yes EMB-cos --tables DIR``). They are only read here. When they hold every
  candidate on every pair, everything (single metrics, the selection, the tests) uses them:
  system scores over all segments, segment scores at the judged rows, NIST and idf weights
  from all references, as in RESULTS.md.
* **Otherwise, a sample**: segment scores are computed at the judged rows (560 per pair; NIST
  and EMB-F:idf=yes then take their corpus weights from the judged rows' references) and
  system scores on a seeded sample of ``--sample`` segments per pair (every metric on the same
  sample), and the selection runs on that; a figure that could still be read from the full
  tables is, and the others are marked ``†``.

Usage: python -m tools.emb_results [--data DIR] [--sample 300] [--full-tables DIR ...]
       [--out build/emb_results.md] [--results RESULTS.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from mtstrata._version import __version__
from mtstrata.combine.learned import fit_learned, format_weights
from mtstrata.combine.search import format_trace, hill_climb
from mtstrata.layers import AnnotationOptions
from mtstrata.meta.bootstrap import bootstrap_ci, compare_metrics
from mtstrata.meta.data import DevCorpus, read_dev_corpus
from mtstrata.meta.stats import pearson
from mtstrata.meta.table import ScoreTable
from mtstrata.meta.table_cache import LEXICAL_CANDIDATES, build_table, load_table, table_path
from tools.results_doc import write_sections

SEED = 12345
N_BOOT = 1000
PAIRS = ["cs-en", "de-en", "fi-en", "lv-en", "ru-en", "tr-en", "zh-en"]
DEV = ["cs-en", "de-en", "fi-en", "lv-en"]  # as tools/make_results.py
TEST = ["ru-en", "tr-en", "zh-en"]
EMB = ["EMB-F", "EMB-P", "EMB-R", "EMB-F:idf=yes", "EMB-cos"]
TEXT = [*LEXICAL_CANDIDATES, "wrr", "ROUGE-L", "ROUGE-W", "GTM-1", "tBLEU"]
SOFT = ["SR-Mr(*)", "SR-Mrs(*)", "SR-Or(*)"]


def sample_index(corpus: DevCorpus, size: int) -> np.ndarray:
    """The seeded sample of segments of a pair (the same for every metric)."""
    rng = np.random.default_rng(SEED)
    return np.sort(rng.choice(corpus.n_segments, min(size, corpus.n_segments), replace=False))


def hybrid_table(corpus: DevCorpus, specs: list[str], sample: int, ann: AnnotationOptions
                 ) -> ScoreTable:
    """System scores on the sample, segment scores at the judged rows (NaN elsewhere)."""
    idx = sample_index(corpus, sample)
    sub = DevCorpus(corpus.lp, [[r[i] for i in idx] for r in corpus.refs],
                    {s: [h[i] for i in idx] for s, h in corpus.systems.items()},
                    corpus.sys_human, [])
    rows = corpus.seg_rows
    judged = DevCorpus(corpus.lp, [[r[i] for _, i, _ in rows] for r in corpus.refs],
                       {"J": [corpus.systems[s][i] for s, i, _ in rows]}, {"J": 0.0},
                       [("J", k, h) for k, (_, _, h) in enumerate(rows)])
    t_sys, _ = build_table(sub, specs, ann)
    t_seg, _ = build_table(judged, specs, ann)
    out = ScoreTable.from_corpus(corpus)
    n_sys, n_seg = len(out.systems), corpus.n_segments
    for m in specs:
        seg = np.full((n_sys, n_seg), np.nan)
        seg[out.seg_sys, out.seg_idx] = t_seg.seg_scores[m][0]
        out.add(m, t_sys.sys_scores[m], seg, t_sys.higher[m])
        out.signatures[m] = t_sys.signatures[m]
    return out


def judged_table(corpus: DevCorpus, specs: list[str], ann: AnnotationOptions) -> ScoreTable:
    """Segment scores at the judged rows only (for the annotated soft-matching metrics)."""
    rows = corpus.seg_rows
    judged = DevCorpus(corpus.lp, [[r[i] for _, i, _ in rows] for r in corpus.refs],
                       {"J": [corpus.systems[s][i] for s, i, _ in rows]}, {"J": 0.0},
                       [("J", k, h) for k, (_, _, h) in enumerate(rows)])
    t, _ = build_table(judged, specs, ann)
    return t


def full_tables(data: Path, dirs: list[str]) -> dict[str, ScoreTable]:
    """Per pair, the metrics of every table found in ``dirs`` (all segments), merged."""
    out: dict[str, ScoreTable] = {}
    for lp in PAIRS:
        for d in dirs:
            p = table_path(d, data / lp)
            if not p.is_file():
                continue
            t = load_table(p)
            if lp not in out:
                out[lp] = t
                continue
            if t.systems != out[lp].systems:
                raise SystemExit(f"{p}: other systems than the other tables of {lp}")
            for m in t.metrics():
                out[lp].add(m, t.sys_scores[m], t.seg_scores[m], t.higher[m])
    return out


#: the same metric under the spec the full tables key it by
ALIAS = {"bleu:max_order=4,smooth=exp": "bleu"}


def sys_level(full: dict[str, ScoreTable], t: ScoreTable, lp: str, name: str,
              combiner: object | None = None) -> tuple[np.ndarray, np.ndarray, bool]:
    """(oriented system scores, human scores, on all segments?) of a metric or a set."""
    f = full.get(lp)
    need = combiner.metrics if combiner is not None else [name]  # type: ignore[attr-defined]
    if f is not None and all(ALIAS.get(m, m) in f.sys_scores for m in need):
        if combiner is not None:
            return (combiner.combine({m: f.sys_scores[ALIAS.get(m, m)] for m in need},  # type: ignore
                                     "sys"), f.sys_human, True)
        key = ALIAS.get(name, name)
        return (1.0 if f.higher[key] else -1.0) * f.sys_scores[key], f.sys_human, True
    return oriented(t, name, combiner)[0], t.sys_human, False


def ci(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    return bootstrap_ci(pearson, x, y, n=N_BOOT, seed=SEED)


def fmt(v: float, lo: float | None = None, hi: float | None = None) -> str:
    if np.isnan(v):
        return "–"
    return f"{v:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None and not np.isnan(lo) else "")


def oriented(t: ScoreTable, name: str, combiner: object | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    if combiner is not None:
        ms = combiner.metrics  # type: ignore[attr-defined]
        sys_ = combiner.combine({m: t.sys_scores[m] for m in ms}, "sys")  # type: ignore
        seg = combiner.combine({m: t.judged(t.seg_scores[m]) for m in ms}, "seg")  # type: ignore
        return sys_, seg
    s = 1.0 if t.higher[name] else -1.0
    return s * t.sys_scores[name], s * t.judged(t.seg_scores[name])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data/wmt17_toen_da")
    ap.add_argument("--sample", type=int, default=300)
    ap.add_argument("--out", default="build/emb_results.md")
    ap.add_argument("--cache", default="/work/cache-emb/ann.sqlite")
    ap.add_argument("--no-soft", action="store_true")
    ap.add_argument("--results", help="also write the tables into this RESULTS.md, between "
                    "the markers <!-- emb:begin --> and <!-- emb:end -->")
    ap.add_argument("--full-tables", nargs="*", default=["/work/tables17-emb",
                                                         "/work/tables17-ref"])
    args = ap.parse_args()
    ann = AnnotationOptions(cache=args.cache, quiet=True)
    t0 = time.time()
    corpora = {lp: read_dev_corpus(Path(args.data) / lp) for lp in PAIRS}
    full = full_tables(Path(args.data), args.full_tables)
    complete = all(lp in full and all(m in full[lp].sys_scores for m in TEXT + EMB)
                   for lp in PAIRS)
    if complete:  # every candidate on all segments: the protocol of RESULTS.md throughout
        tables = {lp: full[lp] for lp in PAIRS}
        scope = ("System level: Pearson of corpus scores over all segments (every output of "
                 "every system); the selection in section 3 runs on these tables too.")
    else:
        tables = {lp: hybrid_table(c, TEXT + EMB, args.sample, ann)
                  for lp, c in corpora.items()}
        for lp, f in full.items():
            if f.systems != tables[lp].systems:
                raise SystemExit(f"{lp}: the full tables list other systems")
        scope = ("System level: Pearson of corpus scores over all segments (every output of "
                 "every system), except where marked `†`: corpus scores on a seeded sample of "
                 f"{args.sample} segments per pair (a metric or set with a member not computed "
                 "on all segments; the selection in section 3 runs on the sample).")
    print(f"tables {time.time() - t0:.0f} s", flush=True)
    lines = ["# Embedding metrics on WMT17 into-English DA (tools/emb_results.py)", "",
             "Segment level: Pearson on the 560 judged rows of each pair. " + scope +
             f" 95% percentile bootstrap intervals, {N_BOOT} resamples, seed {SEED}.", ""]
    data: dict[str, object] = {}

    # 1. single metrics, all pairs
    show = ["chrf", "bleu:max_order=4,smooth=exp", *EMB]
    for level in ("seg", "sys"):
        lines += [f"## {level}-level Pearson, every pair", "",
                  "| metric | " + " | ".join(PAIRS) + " | avg |",
                  "|---" * (len(PAIRS) + 2) + "|"]
        for m in show:
            vals = []
            cells = []
            for lp in PAIRS:
                t = tables[lp]
                if level == "seg":
                    v, lo, hi = ci(oriented(t, m)[1], t.seg_human)
                    cells.append(fmt(v, lo, hi))
                else:
                    x, h, whole = sys_level(full, t, lp, m)
                    v, lo, hi = ci(x, h)
                    cells.append(fmt(v) + ("" if whole else " †"))
                vals.append(v)
                data[f"{level}/{m}/{lp}"] = [v, lo, hi]
            data[f"{level}/{m}/avg"] = float(np.nanmean(vals))
            lines.append(f"| {m} | " + " | ".join(cells) + f" | **{np.nanmean(vals):.3f}** |")
        lines.append("")

    # 2. soft matching (annotated, judged rows only)
    if not args.no_soft:
        lines += ["## Soft role-argument matching (segment Pearson, judged rows)", "",
                  "| metric | " + " | ".join(PAIRS) + " | avg |", "|---" * (len(PAIRS) + 2) + "|"]
        soft = {lp: judged_table(c, SOFT, ann) for lp, c in corpora.items()}
        for m in SOFT:
            vals = [pearson(soft[lp].seg_scores[m][0], soft[lp].seg_human) for lp in PAIRS]
            data[f"seg/{m}/avg"] = float(np.nanmean(vals))
            lines.append(f"| {m} | " + " | ".join(fmt(v) for v in vals)
                         + f" | **{np.nanmean(vals):.3f}** |")
        for lp in PAIRS:
            c = compare_metrics(pearson, soft[lp].seg_scores["SR-Mrs(*)"][0],
                                soft[lp].seg_scores["SR-Mr(*)"][0], soft[lp].seg_human,
                                n=N_BOOT, seed=SEED)
            data[f"soft-vs-hard/{lp}"] = [c.delta, c.low, c.high, c.p]
        lines += ["", "SR-Mrs(*) - SR-Mr(*) (paired bootstrap): " + "; ".join(
            f"{lp} {data[f'soft-vs-hard/{lp}'][0]:+.3f} [{data[f'soft-vs-hard/{lp}'][1]:+.3f}, "
            f"{data[f'soft-vs-hard/{lp}'][2]:+.3f}]" for lp in PAIRS), ""]
        print(f"soft {time.time() - t0:.0f} s", flush=True)

    # 3. combinations selected on DEV, tested on TEST
    dev = [tables[lp] for lp in DEV]
    combos: dict[str, object] = {}
    for obj, tag in (("seg_pearson", "seg"), ("sys_pearson", "sys")):
        combos[f"ULC-{tag} (text)"] = hill_climb(dev, TEXT, obj)
        combos[f"ULC-{tag} (text+emb)"] = hill_climb(dev, TEXT + EMB, obj)
    def prov(specs: list[str]) -> dict[str, object]:  # as `mtstrata search` records it
        return {"mtstrata": __version__, "dev": DEV, "seed": SEED,
                "sample": None if complete else args.sample,
                "signatures": {m: dev[0].signatures[m] for m in specs}}

    for name in list(combos):
        ms = combos[name]
        combos[name] = dataclasses.replace(ms, provenance=prov(ms.metrics))  # type: ignore
    combos["learned (text+emb)"] = fit_learned(dev, TEXT + EMB, provenance=prov(TEXT + EMB))
    combos["learned (chrf+emb)"] = fit_learned(dev, ["chrf", *EMB], provenance=prov(["chrf", *EMB]))
    lines += ["## Combinations selected on cs-en, de-en, fi-en, lv-en; tested on ru-en, tr-en, "
              "zh-en", ""]
    for name, cmb in combos.items():
        desc = (format_weights(cmb) if name.startswith("learned")  # type: ignore[arg-type]
                else format_trace(cmb))  # type: ignore[arg-type]
        lines += [f"### {name}", "", "```", desc, "```", ""]
    for level in ("seg", "sys"):
        lines += [f"### Unseen pairs, {level} level: Pearson [95% CI] and difference to chrF "
                  "[paired 95% CI]", "", "| metric | " + " | ".join(TEST) + " | avg |",
                  "|---" * (len(TEST) + 2) + "|"]
        for name in ["chrf", "EMB-F", *combos]:
            cells, vals = [], []
            for lp in TEST:
                t = tables[lp]
                whole = True
                if level == "sys":
                    x, h, whole = sys_level(full, t, lp, name, combos.get(name))
                    c0, _, c_whole = sys_level(full, t, lp, "chrf")
                    if whole != c_whole:  # compare on the same segments
                        x, c0 = oriented(t, name, combos.get(name))[0], oriented(t, "chrf")[0]
                        h, whole = t.sys_human, False
                else:
                    x, h = oriented(t, name, combos.get(name))[1], t.seg_human
                    c0 = oriented(t, "chrf")[1]
                v, lo, hi = ci(x, h)
                vals.append(v)
                cell = fmt(v, lo, hi) + ("" if whole else " †")
                if name != "chrf":
                    d = compare_metrics(pearson, x, c0, h, n=N_BOOT, seed=SEED)
                    cell += f"; Δ {d.delta:+.3f} [{d.low:+.3f}, {d.high:+.3f}]"
                    data[f"test/{level}/{name}/{lp}/vs-chrf"] = [d.delta, d.low, d.high, d.p]
                data[f"test/{level}/{name}/{lp}"] = [v, lo, hi]
                cells.append(cell)
            data[f"test/{level}/{name}/avg"] = float(np.nanmean(vals))
            lines.append(f"| {name} | " + " | ".join(cells) + f" | **{np.nanmean(vals):.3f}** |")
        lines.append("")
    lines.append(f"(computed in {time.time() - t0:.0f} s on a shared 2-core machine)")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    Path(args.out).with_suffix(".json").write_text(json.dumps(data, indent=1))
    for name, cmb in combos.items():
        slug = name.replace(" ", "_").replace("(", "").replace(")", "").replace("+", "-")
        cmb.save(Path(args.out).parent / f"set_{slug}.json")  # type: ignore[attr-defined]
    if args.results:  # the tables into RESULTS.md, between the markers (the rest untouched)
        body = [ln.replace("## ", "### ", 1) if ln.startswith("#") else ln for ln in lines[2:]]
        write_sections(Path(args.results), "tools/emb_results.py", {"embedding": body})
    print("\n".join(lines))


if __name__ == "__main__":
    from tools.results_doc import run_script

    raise SystemExit(run_script(main, "tools/emb_results.py"))
