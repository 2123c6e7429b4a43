"""Annotation throughput: mtstrata (cold and warm cache) against bare spaCy ``nlp.pipe``.

Reads every text of a WMT language pair (the reference and all system outputs; by default
../shared/data/wmt17_toen_da/de-en, read in place, never copied), counts the distinct texts,
then in one run:

1. bare spaCy: ``spacy.load`` of the pinned model with only the components the layers need,
   ``nlp.pipe`` over the distinct texts (docs consumed, nothing converted or stored);
2. mtstrata cold: ``annotate_texts`` over all texts with an empty cache (dedup, conversion to
   Segment, JSON, sqlite writes included);
3. mtstrata warm: the same call again, every text from the cache.

An untimed warm-up (spaCy import, 200 texts) comes first; model loading is inside the timed
region of 1 and 2 alike. Bars (issue 3): cold throughput
>= 0.9 x bare; warm >= 20 x faster than cold; peak RSS < 1.5 GB. Prints every figure.

``--whole`` (with ``--jobs N``) times instead what a user runs, as whole processes (start-up,
imports, cluster start and model loads included on both sides): ``mtstrata annotate`` of the
pair's files with one process, then with ``--executor E --jobs N``, each with an empty cache.
In the default (in-process) comparison the one-process run finds spaCy already imported by the
warm-up, while Dask's spawned workers import it again; whole processes pay the same imports.
This machine's speed drifts within minutes: ``--rounds N`` alternates the two N times and
reports the median of the rounds' ratios.

Usage: python -m benchmarks.bench_annotate [--data DIR] [--limit N] [--layers ...] [--jobs N]
[--executor local|dask|dask:ADDRESS] [--whole [--rounds N]] [--costs]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mtstrata.layers import AnnotationOptions, annotate_texts, plan
from mtstrata.layers.spacy_backend import MODEL, components_for
from mtstrata.segment import Layer
from tools import _cli

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt17_toen_da" / "de-en"


def read_texts(data: Path, limit: int | None) -> tuple[list[str], int]:
    """All reference and system texts (first ``limit`` lines of each file) and the file count."""
    files = [data / "ref.txt", *sorted((data / "sys").glob("*.txt"))]
    texts: list[str] = []
    for f in files:
        lines = f.read_text(encoding="utf-8").splitlines()
        texts.extend(lines[:limit] if limit else lines)
    return texts, len(files)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bare_spacy(texts: list[str], components: tuple[str, ...], jobs: int) -> float:
    """Seconds for spacy.load + nlp.pipe over ``texts`` with only ``components`` enabled."""
    import spacy

    t0 = time.perf_counter()
    nlp = spacy.load(MODEL)
    for c in list(nlp.pipe_names):
        if c not in components:
            nlp.disable_pipe(c)
    kw = {"batch_size": 256, **({"n_process": jobs} if jobs > 1 else {})}
    n = 0
    for doc in nlp.pipe(texts, **kw):
        n += len(doc)
    secs = time.perf_counter() - t0
    del nlp
    gc.collect()
    return secs


def whole_process(data: Path, limit: int | None, layers: list[str], executor: str, jobs: int,
                  rounds: int = 1) -> None:
    """``mtstrata annotate`` as a user runs it: one process, then ``executor`` with ``jobs``
    workers (``rounds`` times, alternating); wall seconds of each whole process, each round's
    throughput ratio and their median."""
    files = [data / "ref.txt", *sorted((data / "sys").glob("*.txt"))]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    with tempfile.TemporaryDirectory() as tmp:
        if limit:  # slices of the files, written to the temporary directory
            cut = []
            for k, f in enumerate(files):
                dest = Path(tmp, f"{k}.txt")
                dest.write_text("\n".join(f.read_text(encoding="utf-8").splitlines()[:limit])
                                + "\n", encoding="utf-8")
                cut.append(dest)
            files = cut
        ratios = []
        for k in range(rounds):
            secs = {}
            for name, extra in (("one process", []),
                                (f"{executor} --jobs {jobs}", ["--executor", executor, "--jobs",
                                                               str(jobs)])):
                cache = Path(tmp, f"{len(secs)}.sqlite")
                cmd = [sys.executable, "-m", "mtstrata", "annotate", "-i", *map(str, files),
                       "-l", *layers, "--cache", str(cache), "-q", *extra]
                t0 = time.perf_counter()
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                secs[name] = time.perf_counter() - t0
                cache.unlink(missing_ok=True)
                if r.returncode:
                    sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-3000:]}")
                print(f"mtstrata annotate, {name:>18}: {secs[name]:7.1f} s (whole process)")
            one, many = secs.values()
            ratios.append(one / many)
            print(f"round {k + 1}: {executor} with {jobs} workers vs one process: "
                  f"{ratios[-1]:.2f}x throughput", flush=True)
    ratio = statistics.median(ratios)
    print(f"{executor} with {jobs} workers vs one process, whole processes, median of "
          f"{len(ratios)} round(s): {ratio:.2f}x throughput  (bar >= 1.7x: "
          f"{'PASS' if ratio >= 1.7 else 'FAIL'}; rounds: "
          f"{', '.join(f'{x:.2f}x' for x in ratios)})")


def per_text_costs(segs: dict, tmp: Path) -> None:
    """Microseconds per text of what a worker adds to annotation (the JSON payload of each
    layer) and of what the one driver does per text (building the segment from the payloads,
    the sqlite cache write of one row per layer): the driver's cost bounds the number of
    workers it can keep busy (1 / driver cost per text)."""
    from mtstrata.cache import Cache, SegmentAssembler, layer_payloads

    seq = list(segs.values())
    layers = sorted(seq[0].layers, key=lambda x: x.value)
    keys = {x: f"costs/{x.value}" for x in layers}
    t0 = time.perf_counter()
    payloads = [layer_payloads(s, layers) for s in seq]
    enc = (time.perf_counter() - t0) / len(seq) * 1e6
    build = SegmentAssembler()
    t0 = time.perf_counter()
    for s, p in zip(seq, payloads):
        build(s.text, p, {})
    dec = (time.perf_counter() - t0) / len(seq) * 1e6
    cache = Cache(str(tmp / "costs.sqlite"))
    t0 = time.perf_counter()
    for i in range(0, len(seq), 1000):
        cache.put_layers(keys, [(s.text, p) for s, p in zip(seq[i:i + 1000],
                                                             payloads[i:i + 1000])])
    put = (time.perf_counter() - t0) / len(seq) * 1e6
    cache.close()
    kb = sum(len(v) for p in payloads for v in p.values()) / len(payloads) / 1024
    print(f"per text: worker JSON encode {enc:.0f} us; driver decode {dec:.0f} us + cache "
          f"write {put:.0f} us (transactions of 1000, {len(layers)} rows a text); {kb:.1f} KiB "
          "of JSON on the wire")
    print(f"one driver can absorb about {1e6 / (dec + put):,.0f} texts/s, i.e. about "
          f"{1e6 / (dec + put) / 100:.0f} spaCy workers at ~100 texts/s each")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, help="first N lines of each file (a small slice)")
    ap.add_argument("--layers", nargs="+", default=["tokens", "lemma", "pos", "dep", "ner",
                                                    "chunks"])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--executor", default="local",
                    help="local | dask | dask:ADDRESS; with --jobs > 1 a one-process local run "
                    "is timed too and the throughput ratio printed (issue 14 bar >= 1.7x)")
    ap.add_argument("--costs", action="store_true",
                    help="also print the driver's per-text costs (decode, cache write) and the "
                    "workers' (encode), which bound how many workers one driver can feed")
    ap.add_argument("--whole", action="store_true",
                    help="with --jobs N: time `mtstrata annotate` as whole processes, one "
                    "process against --executor with N workers (module docstring)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="with --whole: alternating pairs of runs; prints the median ratio")
    a = ap.parse_args()
    _cli.wmt_pair(a.data)
    if a.rounds < 1:
        ap.error(f"--rounds must be 1 or more, not {a.rounds}")
    if a.whole:
        if a.jobs < 2:
            sys.exit("--whole compares one process with --jobs N workers: give --jobs 2 or more")
        whole_process(a.data, a.limit, a.layers, a.executor, a.jobs, a.rounds)
        return 0
    layers = {Layer(x) for x in a.layers}
    texts, nfiles = read_texts(a.data, a.limit)
    distinct = list(dict.fromkeys(texts))
    components = components_for(plan(layers, "spacy").layers)
    print(f"data: {a.data} ({nfiles} files: reference + {nfiles - 1} systems)")
    print(f"texts: {len(texts)}, distinct: {len(distinct)}, words (distinct, whitespace): "
          f"{sum(len(t.split()) for t in distinct)}")
    print(f"layers: {' '.join(sorted(x.value for x in layers))}; spaCy components: "
          f"{'+'.join(components)}; jobs: {a.jobs}")

    # untimed warm-up: the spaCy import and the first read of the model files (OS cache) would
    # otherwise be charged to whichever run goes first
    bare_spacy(distinct[:200], components, 1)
    bare = bare_spacy(distinct, components, a.jobs)
    print(f"bare spaCy nlp.pipe : {bare:8.1f} s  {len(distinct) / bare:8.1f} texts/s")

    if a.jobs > 1:
        with tempfile.TemporaryDirectory() as tmp:
            one = AnnotationOptions(cache=str(Path(tmp) / "one.sqlite"), quiet=True)
            t0 = time.perf_counter()
            annotate_texts(texts, layers, one)
            single = time.perf_counter() - t0
        print(f"mtstrata one process: {single:8.1f} s  {len(distinct) / single:8.1f} texts/s")
    with tempfile.TemporaryDirectory() as tmp:
        opts = AnnotationOptions(cache=str(Path(tmp) / "bench.sqlite"), jobs=a.jobs, quiet=True,
                                 executor=a.executor)
        t0 = time.perf_counter()
        cold_segs, sig = annotate_texts(texts, layers, opts)
        cold = time.perf_counter() - t0
        print(f"mtstrata cold cache : {cold:8.1f} s  {len(distinct) / cold:8.1f} texts/s")
        del cold_segs
        gc.collect()
        t0 = time.perf_counter()
        warm_segs, sig2 = annotate_texts(texts, layers, opts)
        warm = time.perf_counter() - t0
        assert sig == sig2 and len(warm_segs) == len(distinct)
        print(f"mtstrata warm cache : {warm:8.1f} s  {len(distinct) / warm:8.1f} texts/s")
        size = (Path(tmp) / "bench.sqlite").stat().st_size / 2**20
        if a.costs:
            per_text_costs(warm_segs, Path(tmp))
    peak = peak_rss_mb()
    ratio, speedup = bare / cold, cold / warm
    print(f"annotator signature : {sig}")
    print(f"cache file          : {size:.1f} MiB")
    print(f"cold / bare throughput: {ratio:.3f}  (bar >= 0.9: "
          f"{'PASS' if ratio >= 0.9 else 'FAIL'})")
    print(f"warm speed-up vs cold : {speedup:.1f}x  (bar >= 20x: "
          f"{'PASS' if speedup >= 20 else 'FAIL'})")
    if a.jobs > 1:
        print(f"{a.executor} with {a.jobs} workers vs one process: {single / cold:.2f}x "
              f"throughput  (bar >= 1.7x: {'PASS' if single / cold >= 1.7 else 'FAIL'}; cluster "
              "start-up included)")
    print(f"peak RSS (this process): {peak:.0f} MiB  (bar < 1536 MiB: "
          f"{'PASS' if peak < 1536 else 'FAIL'})"
          + ("" if a.jobs == 1 else "  [worker processes not included]"))
    return 0


if __name__ == "__main__":  # (the guard matters: Dask workers are spawned processes)
    sys.exit(_cli.run(main, "bench_annotate"))
