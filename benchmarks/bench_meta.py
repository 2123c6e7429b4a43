"""Benchmark of the meta-evaluation statistics (issue 14, first bar): time and peak memory.

The statistics that ``mtstrata meta`` computes per language pair and metric (meta/records.py):
system-level Pearson with a bootstrap CI, Spearman, Kendall tau-b and pairwise accuracy;
segment-level Pearson with a bootstrap CI over the judged rows, flattened Kendall and item-wise
Kendall (rows grouped by segment); plus, per pair, a bootstrap CI of segment-level Kendall for
one metric (chrF). Bootstrap: 1000 resamples (``--boot``).

Data: the 7 WMT17 into-English pairs (560 judged rows each, 3,920 in all) scored by 20 lexical
metrics on the judged rows only (sentence scores; the system scores are each metric's corpus
score over a system's judged rows, not over the whole test set: building full score tables is
the expensive part of ``meta`` and is not measured here). Rows are tiled 1x, 4x, 16x (copy k
of a row gets segment id ``id + k * n_segments``, so items keep their size).

Layouts: ``per-pair`` evaluates the 7 pairs one after another as ``meta`` does (560 x k rows
per pair); ``pooled`` evaluates all 3,920 x k rows as one pair (16x = 62,720 rows, the size of
a WMT21-like set). Each run is a fresh child process; "peak" is its VmHWM (peak resident set),
"stats" is the peak minus the VmHWM after imports and data loading (mostly one bootstrap
chunk, constant), "rank" the tracemalloc peak of flattened Kendall, pairwise accuracy and
item-wise Kendall of one metric's segment rows (the part that was quadratic). ``old`` runs
the O(n^2) definitions that meta/stats.py had before (tests/stats_oracles.py; OLD), at 1x
only; on the pooled layout its Kendall CI draws 20 resamples (each OLD Kendall of 3,920 rows
takes about 0.1 s; the peak is per resample, so it is the same as with 1000).

Usage: python -m benchmarks.bench_meta [--data DIR] [--scales 1,4,16] [--boot 1000]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

from mtstrata.meta import bootstrap, stats
from tests.stats_oracles import (  # the tests' reference definitions
    old_accuracy,
    old_bootstrap_ci,
    old_grouped,
    old_kendall,
)
from tools import _cli

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("bleu", "bleu:max_order=1,smooth=exp", "bleu:max_order=2,smooth=exp",
           "bleu:max_order=3,smooth=exp", "bleu:max_order=4,smooth=floor",
           "bleu:max_order=4,smooth=add-k", "bleu:max_order=4,smooth=none",
           "bleu-sbp:max_order=2", "bleu-sbp:max_order=4", "nist:max_order=1",
           "nist:max_order=3", "nist", "chrf", "chrf++", "chrf:char_order=2",
           "chrf:char_order=3,beta=1", "wer", "per", "grr:order=1", "grr:order=2")
KENDALL_CI_METRIC = METRICS.index("chrf")







IMPLS = {
    "new": (stats.kendall, stats.pairwise_accuracy, stats.kendall_grouped,
            bootstrap.bootstrap_ci),
    "old": (old_kendall, old_accuracy, old_grouped, old_bootstrap_ci),
}


# --- data ----------------------------------------------------------------------------------
def prepare(data: str, path: Path) -> None:
    """Score the judged rows of every pair with METRICS and save the arrays to ``path``."""
    from mtstrata.meta.data import read_dev_corpus
    from mtstrata.metrics import create
    from mtstrata.scoring import compute

    arrays: dict[str, np.ndarray] = {}
    for lp_dir in sorted(glob.glob(f"{data}/*/")):
        c = read_dev_corpus(lp_dir)
        lp = c.lp
        rows = c.seg_rows
        ms = [create(s) for s in METRICS]
        run = compute({"judged": [c.systems[s][i] for s, i, _ in rows]},
                      [[c.refs[0][i] for _, i, _ in rows]], ms)
        names = np.array([s for s, _, _ in rows])
        systems = [s for s in c.systems if (names == s).any()]
        raw = [run.stats[("judged", k)] for k in range(len(ms))]
        sign = np.array([1.0 if m.higher_is_better else -1.0 for m in ms])[:, None]
        arrays[f"{lp}/seg"] = sign * np.vstack([m.segment_scores(r) for m, r in zip(ms, raw,
                                                                                     strict=True)])
        arrays[f"{lp}/sys"] = sign * np.array([[m.score(r[names == s].sum(0)) for s in systems]
                                               for m, r in zip(ms, raw, strict=True)])
        arrays[f"{lp}/human"] = np.array([h for _, _, h in rows])
        arrays[f"{lp}/seg_idx"] = np.array([i for _, i, _ in rows])
        arrays[f"{lp}/sys_human"] = np.array([c.sys_human[s] for s in systems])
    np.savez(path, **arrays)


def load(path: Path, scale: int, pooled: bool) -> list[dict[str, np.ndarray]]:
    z = np.load(path)
    lps = sorted({k.split("/")[0] for k in z.files})
    pairs = [{k: z[f"{lp}/{k}"] for k in ("seg", "sys", "human", "seg_idx", "sys_human")}
             for lp in lps]
    if pooled:  # one pair: rows of every pair, segment ids kept apart
        off = np.cumsum([0] + [p["seg_idx"].max() + 1 for p in pairs[:-1]])
        pairs = [{"seg": np.hstack([p["seg"] for p in pairs]),
                  "human": np.concatenate([p["human"] for p in pairs]),
                  "seg_idx": np.concatenate([p["seg_idx"] + o for p, o in zip(pairs, off,
                                                                              strict=True)]),
                  "sys": pairs[0]["sys"], "sys_human": pairs[0]["sys_human"]}]
    for p in pairs:
        span = p["seg_idx"].max() + 1
        p["seg"] = np.tile(p["seg"], scale)
        p["human"] = np.tile(p["human"], scale)
        p["seg_idx"] = np.concatenate([p["seg_idx"] + k * span for k in range(scale)])
    return pairs


# --- child: the measured run ---------------------------------------------------------------
def vm_hwm_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource  # ru_maxrss: KB on Linux

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(path: Path, impl: str, scale: int, pooled: bool, boot: int, kboot: int
          ) -> dict[str, object]:
    kendall, accuracy, grouped, bootstrap = IMPLS[impl]
    pairs = load(path, scale, pooled)
    base = vm_hwm_mb()
    t = time.perf_counter()
    checks = []
    for p in pairs:
        h, hs = p["sys_human"], p["human"]
        for k in range(len(p["seg"])):
            sys_, seg = p["sys"][k], p["seg"][k]
            bootstrap(stats.pearson, sys_, h, n=boot, seed=12345)
            stats.spearman(sys_, h)
            kendall(sys_, h)
            accuracy(sys_, h)
            v, _, _ = bootstrap(stats.pearson, seg, hs, n=boot, seed=12345)
            checks.append(v + kendall(seg, hs) + grouped(seg, hs, p["seg_idx"]))
        checks.append(sum(bootstrap(kendall, p["seg"][KENDALL_CI_METRIC], hs, n=kboot,
                                    seed=12345)))
    dt = time.perf_counter() - t
    tracemalloc.start()  # working memory of the rank statistics alone (no bootstrap)
    for p in pairs:
        seg = p["seg"][KENDALL_CI_METRIC]
        kendall(seg, p["human"])
        accuracy(seg, p["human"])
        grouped(seg, p["human"], p["seg_idx"])
    rank_mb = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return {"impl": impl, "scale": scale, "layout": "pooled" if pooled else "per-pair",
            "pairs": len(pairs), "rows": int(sum(len(p["human"]) for p in pairs)),
            "rows_per_pair": int(max(len(p["human"]) for p in pairs)),
            "metrics": len(pairs[0]["seg"]), "kendall_boot": kboot, "time_s": dt, "base_mb": base,
            "rank_mb": rank_mb, "peak_mb": vm_hwm_mb(), "checksum": float(np.nansum(checks))}


def run_child(path: Path, impl: str, scale: int, pooled: bool, boot: int, kboot: int
              ) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.bench_meta", "--child", str(path), "--impl", impl,
           "--scales",
           str(scale), "--boot", str(boot), "--kendall-boot", str(kboot)]
    cmd += ["--pooled"] if pooled else []
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "OMP_NUM_THREADS": "1",
                              "OPENBLAS_NUM_THREADS": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/work/shared/data/wmt17_toen_da")
    ap.add_argument("--scales", default="1,4,16")
    ap.add_argument("--old-scales", default="1", help="scales for the OLD O(n^2) code")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--old-pooled-kendall-boot", type=int, default=20,
                    help="resamples of the Kendall CI for OLD on the pooled layout (each OLD "
                    "Kendall of 3,920 rows takes ~0.1 s; memory is per resample)")
    ap.add_argument("--kendall-boot", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--pooled", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--impl", default="new", help=argparse.SUPPRESS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.child:
        _cli.wmt_dataset(Path(args.data))
    if args.child:
        kboot = args.boot if args.kendall_boot is None else args.kendall_boot
        print(json.dumps(child(Path(args.child), args.impl, int(args.scales), args.pooled,
                               args.boot, kboot)))
        return
    scales = [int(s) for s in args.scales.split(",")]
    old_scales = [int(s) for s in args.old_scales.split(",") if s]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "judged.npz"
        t = time.perf_counter()
        prepare(args.data, path)
        print(f"scored the judged rows with {len(METRICS)} metrics "
              f"({time.perf_counter() - t:.1f} s, not measured below)\n")
        head = (f"{'layout':8} {'impl':7} {'scale':>5} {'rows/pair':>9} {'rows':>6} "
                f"{'time s':>7} {'peak MB':>8} {'base MB':>8} {'stats MB':>8} {'rank MB':>8}")
        print(head)
        print("-" * len(head))
        results = []
        for pooled in (False, True):
            runs = [("new", s) for s in scales]
            runs += [("old", s) for s in old_scales]
            for impl, s in runs:
                kboot = args.old_pooled_kendall_boot if pooled and impl == "old" else args.boot
                r = run_child(path, impl, s, pooled, args.boot, kboot)
                results.append(r)
                label = "OLD n^2" if impl == "old" else impl
                print(f"{r['layout']:8} {label:7} {s:>4}x {r['rows_per_pair']:>9} "
                      f"{r['rows']:>6} {r['time_s']:>7.2f} {r['peak_mb']:>8.1f} "
                      f"{r['base_mb']:>8.1f} {r['peak_mb'] - r['base_mb']:>8.1f} "
                      f"{r['rank_mb']:>8.2f}"
                      + (f"  (Kendall CI: {kboot} resamples)" if kboot != args.boot else ""),
                      flush=True)
    new = {(r["layout"], r["scale"]): r for r in results if r["impl"] == "new"}
    old = {(r["layout"], r["scale"]): r for r in results if r["impl"] == "old"}
    for key, r in old.items():
        if key in new and r["kendall_boot"] == new[key]["kendall_boot"]:
            same = np.isclose(r["checksum"], new[key]["checksum"], rtol=1e-9, atol=1e-9)
            print(f"\nOLD and new values at {key[1]}x ({key[0]}): "
                  f"{'equal' if same else 'DIFFERENT'} (sum of all statistics "
                  f"{new[key]['checksum']:.9f} vs {r['checksum']:.9f})")
    worst = max(r["peak_mb"] for r in new.values())
    print(f"bar: peak memory of the statistics part < 1024 MB at every scale: "
          f"{'yes' if worst < 1024 else 'NO'} (max {worst:.0f} MB)")


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_meta"))
