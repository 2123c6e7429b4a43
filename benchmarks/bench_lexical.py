"""Issue 5 bars: 4-GRR/WRR, tBLEU, ROUGE/GTM and METEOR over WMT17 de-en (11 x 3004 segments).

Each group is timed through mtstrata's user path (``scoring.compute`` over all systems, fresh
metric objects, tBLEU's affix-distance cache cleared first). METEOR-sy is timed against nltk's
``meteor_score`` called directly on the same segments in the same run (its input tokenised
beforehand, outside its timing, so the comparison favours nltk; WordNet is loaded once, before
both timings; the two are alternated and each keeps its best of two runs).
Bars: 4-GRR+WRR < 30 s, tBLEU < 60 s, ROUGE+GTM < 30 s, METEOR <= 1.2 x nltk.
Run: ``.venv/bin/python -m benchmarks.bench_lexical [--segments N]``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

from mtstrata import metrics, scoring
from mtstrata.metrics.lexical import tbleu
from mtstrata.tokenizers import tokenize
from tools import _cli

DATA = Path(os.environ.get("MTSTRATA_DATA", "/work/shared/data")) / "wmt17_toen_da" / "de-en"

GROUPS = [
    ("4-GRR + WRR", ["4-GRR", "wrr"], 30.0),
    ("tBLEU", ["tBLEU"], 60.0),
    ("ROUGE + GTM", ["ROUGE-L", "ROUGE-W", "GTM-1", "GTM-1.2", "GTM-2", "GTM-3"], 30.0),
]


def load(n: int | None) -> tuple[dict[str, list[str]], list[str]]:
    ref = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()[:n]
    systems = {p.stem: p.read_text(encoding="utf-8").splitlines()[:n]
               for p in sorted((DATA / "sys").glob("*.txt"))}
    return systems, ref


def run(specs: list[str], systems: dict[str, list[str]], ref: list[str]
        ) -> tuple[float, dict[str, dict[str, float]]]:
    t0, c0 = time.perf_counter(), time.process_time()
    ms = [metrics.create(s) for s in specs]
    out = scoring.compute(systems, [ref], ms)
    elapsed = time.perf_counter() - t0
    run.cpu = time.process_time() - c0  # type: ignore[attr-defined]
    scores = {spec: {s: out.score(s, k).value for s in systems} for k, spec in enumerate(specs)}
    return elapsed, scores


def nltk_direct(systems: dict[str, list[str]], ref: list[str], wn) -> tuple[float, list[float]]:
    from nltk.translate.meteor_score import meteor_score

    ref_t = [tokenize(r).split() for r in ref]
    hyp_t = {s: [tokenize(h).split() for h in hs] for s, hs in systems.items()}
    t0 = time.perf_counter()
    means = []
    for s in systems:
        vals = [meteor_score([r], h, wordnet=wn) for h, r in zip(hyp_t[s], ref_t, strict=True)]
        means.append(sum(vals) / len(vals))
    return time.perf_counter() - t0, means


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--segments", type=int, default=None, help="first N segments only")
    ap.add_argument("--skip-meteor", action="store_true")
    args = ap.parse_args()
    _cli.wmt_pair(DATA, "MTSTRATA_DATA")
    systems, ref = load(args.segments)
    print(f"WMT17 de-en: {len(systems)} systems x {len(ref)} segments; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall times suffer when it is "
          "above the core count: CPU times of this process are printed too)")
    ok = True
    for label, specs, bar in GROUPS:
        tbleu._affix_distance.cache_clear()
        t, scores = run(specs, systems, ref)
        passed = t < bar
        ok &= passed
        print(f"{label:12} {t:7.2f} s wall  {run.cpu:7.2f} s CPU   bar < {bar:.0f} s (wall): "
              f"{'PASS' if passed else 'FAIL'}")
        for spec, per in scores.items():
            vals = sorted(per.values())
            print(f"    {spec:8} system scores: min {vals[0]:.4f}  max {vals[-1]:.4f}")
    if not args.skip_meteor:
        from mtstrata.wordnet import load_wordnet

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            t0 = time.perf_counter()
            wn = load_wordnet()
            wn.synsets("warm")  # first look-up loads the lemma index
            print(f"WordNet load (once, outside both timings): {time.perf_counter() - t0:.1f} s")
        # alternate and keep the best of two each: the first pass warms WordNet's caches
        t_nltk, direct = nltk_direct(systems, ref, wn)
        t_ours, scores = run(["METEOR-sy"], systems, ref)
        t_nltk = min(t_nltk, nltk_direct(systems, ref, wn)[0])
        t_ours = min(t_ours, run(["METEOR-sy"], systems, ref)[0])
        ours = list(scores["METEOR-sy"].values())
        diff = max(abs(a - b) for a, b in zip(ours, direct, strict=True))
        ratio = t_ours / t_nltk
        passed = ratio <= 1.2
        ok &= passed
        print(f"METEOR-sy    {t_ours:7.2f} s   nltk meteor_score direct {t_nltk:7.2f} s   ratio "
              f"{ratio:4.2f}   bar <= 1.2: {'PASS' if passed else 'FAIL'}   max |score diff| "
              f"{diff:.1e}")
    print("all bars met" if ok else "SOME BARS MISSED")


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_lexical"))
