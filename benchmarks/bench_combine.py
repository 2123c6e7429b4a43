"""Benchmark of mtstrata.combine on the WMT17 DA data (issue 6 bars).

1. Hill climbing over >= 40 candidate metric variants on the 7 WMT17 into-English pairs, from
   cached score tables (bar: < 10 s). Tables missing from the cache are computed first (minutes;
   not part of the timed figure).
2. A 1000-resample bootstrap CI of one metric (BLEU) on one system's 3004 de-en segments
   (bar: < 2 s), and of a segment-level Pearson correlation.
3. Paired bootstrap, 1000 resamples, 11 de-en systems (bar: < 5 s).

Usage: python -m benchmarks.bench_combine [--data DIR] [--tables DIR]
"""

from __future__ import annotations

import argparse
import glob
import time
from pathlib import Path

import numpy as np

from mtstrata.combine.search import hill_climb
from mtstrata.meta.bootstrap import bootstrap_ci
from mtstrata.meta.data import read_dev_corpus
from mtstrata.meta.significance import paired_bootstrap
from mtstrata.meta.stats import pearson
from mtstrata.meta.table_cache import LEXICAL_CANDIDATES, cached_table
from mtstrata.metrics import create
from mtstrata.scoring import compute
from tools import _cli


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/work/shared/data/wmt17_toen_da")
    ap.add_argument("--tables", default="/tmp/h5-tables")
    args = ap.parse_args()
    _cli.wmt_dataset(Path(args.data))
    lps = sorted(glob.glob(f"{args.data}/*/"))
    cands = list(LEXICAL_CANDIDATES)

    t = time.perf_counter()
    tables = [cached_table(d, cands, args.tables,
                           on_compute=lambda lp, todo: print(f"  computing {lp}: {len(todo)}"))
              for d in lps]
    print(f"load {len(tables)} cached tables: {time.perf_counter() - t:.2f} s")
    for mode in ("reference", "forward-backward"):
        for obj in ("sys_pearson", "seg_pearson"):
            t = time.perf_counter()
            ms = hill_climb(tables, cands, obj, mode=mode)
            dt = time.perf_counter() - t
            print(f"hill climbing {mode:16} {obj:11}: {len(cands)} candidates x {len(tables)} "
                  f"pairs, {len(ms.trace)} steps, {len(ms.metrics)} selected: {dt:.2f} s")

    corpus = read_dev_corpus(f"{args.data}/de-en")
    bleu = create("bleu")
    run = compute(corpus.systems, corpus.refs, [bleu])
    stats = {s: run.stats[(s, 0)] for s in corpus.systems}
    names = list(stats)
    one = stats[names[0]]
    t = time.perf_counter()
    res = paired_bootstrap(bleu.score, one, {names[0]: one}, n=1000, seed=12345)[names[0]]
    dt = time.perf_counter() - t
    print(f"bootstrap CI of BLEU, 1000 resamples, {len(one)} segments: "
          f"{res.score:.2f} [{res.low:.2f}, {res.high:.2f}]: {dt:.2f} s")
    seg = np.concatenate([bleu.segment_scores(stats[s]) for s in names[:1]])
    rng = np.random.default_rng(0)
    noisy = seg + rng.normal(scale=10, size=len(seg))  # a second score list to correlate with
    t = time.perf_counter()
    v, lo, hi = bootstrap_ci(pearson, seg, noisy, n=1000, seed=12345)
    print(f"bootstrap CI of a Pearson r, 1000 resamples, {len(seg)} items: "
          f"{v:.3f} [{lo:.3f}, {hi:.3f}]: {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    pb = paired_bootstrap(bleu.score, stats[names[0]], {s: stats[s] for s in names[1:]},
                          n=1000, seed=12345)
    dt = time.perf_counter() - t
    sig = sum(r.p_two_sided < 0.05 for r in pb.values())
    print(f"paired bootstrap, 1000 resamples, {len(names)} systems x {len(one)} segments: "
          f"{dt:.2f} s ({sig} of {len(pb)} significantly better than {names[0]})")


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_combine"))
