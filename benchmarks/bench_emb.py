"""Benchmark of the ``emb`` layer: embedding WMT17 de-en (reference + 11 systems, ~32k distinct
texts) into an empty vector cache, then the cached rerun.

Prints: distinct texts, model load time, encoding rate (sentences/s, model load excluded and
included), peak RSS of the process, cached rerun time and the speed-up. Targets (issue 12):
>= 150 sentences/s on a 2-core machine, peak RSS < 1.5 GB, cached rerun >= 20x faster.

The machine is shared: the load average at start and end is printed with the figures, since
other processes' CPU use slows encoding directly (torch uses every core it gets); the CPU time
of the encoding gives the rate per CPU-second, from which the rate on idle cores is estimated
(printed as an estimate).

Usage: python -m benchmarks.bench_emb [--data DIR/de-en] [--limit N] [--jobs 2] [--cache PATH]
(``--limit``: the first N distinct texts only, in file order; default all.)
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from tools import _cli


def texts_of(pair: Path) -> list[str]:
    out = (pair / "ref.txt").read_text(encoding="utf-8").splitlines()
    for f in sorted((pair / "sys").glob("*.txt")):
        out += f.read_text(encoding="utf-8").splitlines()
    return list(dict.fromkeys(out))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data/wmt17_toen_da/de-en")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", default="", help="vector cache (default: a new temporary file)")
    args = ap.parse_args()
    _cli.wmt_pair(Path(args.data))

    from mtstrata.layers import embedding as emb

    texts = texts_of(Path(args.data))
    if args.limit:
        texts = texts[:args.limit]
    tmp = tempfile.TemporaryDirectory()
    cache = args.cache or os.path.join(tmp.name, "annotations.sqlite")
    load0 = os.getloadavg()[0]

    from mtstrata.layers import AnnotationOptions, annotate_texts
    from mtstrata.segment import Layer

    opts = AnnotationOptions(cache=cache, jobs=args.jobs, quiet=True)
    t = time.perf_counter()
    if args.jobs == 1:
        emb.encoder()  # model load and sha256 check, timed apart (workers load their own)
    load_s = time.perf_counter() - t
    t, cpu = time.perf_counter(), time.process_time()
    annotate_texts(texts, {Layer.EMB}, opts, keep=False)
    cold = time.perf_counter() - t
    cpu = time.process_time() - cpu  # CPU seconds of this process (not of its workers)
    t = time.perf_counter()
    again, _ = annotate_texts(texts, {Layer.EMB}, opts)
    warm = time.perf_counter() - t
    assert len(again) == len(texts)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    size = Path(cache).stat().st_size / 2**20
    print(f"distinct texts        {len(texts)}")
    print(f"model load + sha256   {load_s:.1f} s")
    print(f"cold encoding         {cold:.1f} s = {len(texts) / cold:.0f} sentences/s "
          f"({len(texts) / (cold + load_s):.0f}/s with the model load), {args.jobs} worker "
          "process(es) of one torch thread")
    print(f"CPU time of encoding  {cpu:.1f} s: {len(texts) / cpu:.0f} sentences per CPU-second, "
          f"i.e. ~{len(texts) / cpu * args.jobs:.0f}/s if {args.jobs} cores were ours alone "
          "(an estimate, not a measurement)")
    print(f"cached rerun          {warm:.2f} s = {(cold + load_s) / warm:.0f}x faster than the "
          f"cold run with load ({cold / warm:.0f}x without)")
    print(f"peak RSS              {rss:.0f} MiB")
    print(f"cache file            {size:.0f} MiB (float16)")
    print(f"load average          {load0:.1f} at start, {os.getloadavg()[0]:.1f} at end "
          f"({os.cpu_count()} CPUs)")
    tmp.cleanup()


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_emb"))
