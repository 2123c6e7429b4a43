"""The whole evaluation of a WMT pair against the bare parse of its texts (issue 14 bar: <= 1.2x).

In one run, on WMT17 de-en by default (the reference and every system output, read in place):

1. **bare parse**: a fresh process loads the pinned spaCy model with the components the
   metrics need and runs ``nlp.pipe`` over the distinct texts (docs consumed, nothing kept):
   the least any tool that parses these texts must spend;
2. **mtstrata**: a fresh process runs ``mtstrata score -r REF -i SYS... -m METRICS`` with an
   empty annotation cache (annotation, the role labeller, 20 metrics, output), as a user runs it.

Both are whole processes (start-up and model loading included) timed by wall clock and CPU
(user + sys of the process and its children), with ``--jobs`` workers for both (``n_process``
for the bare parse). The ratio is mtstrata / bare. Prints every figure.

This machine's speed drifts by up to 40% within minutes, so one pair of runs can say 0.85x or
1.27x for the same code. ``--rounds N`` runs the pair N times, alternating (bare, mtstrata, bare,
...), and reports each round's ratio and their median: each ratio compares runs minutes apart.

Usage: python -m benchmarks.bench_eval [--data DIR] [--limit N] [--jobs N] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import _cli

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "wmt17_toen_da" / "de-en"
#: 20 metrics: lexical and linguistic (every layer: POS, chunks, dependencies, entities, roles)
METRICS = ["bleu", "bleu-sbp", "nist", "chrf", "chrf++", "wer", "per", "4-GRR", "ROUGE-L",
           "Ol-lem", "SP-Op(*)", "SP-Oc(*)", "SP-pBLEU", "DP-Or(*)", "DP-HWCM_r-4", "DP-Ld",
           "Bllip", "NE-Oe(*)", "SR-Or(*)", "SR-Mrv(*)"]

BARE = """
import sys, spacy
from mtstrata.layers import plan
from mtstrata.layers.spacy_backend import MODEL, components_for
from mtstrata.metrics import create
metrics = [create(m) for m in sys.argv[3:]]
layers = set().union(*(m.requires for m in metrics))
comps = components_for(plan(layers, "spacy").layers)
texts = list(dict.fromkeys(open(sys.argv[1], encoding="utf-8").read().split("\\n")))
nlp = spacy.load(MODEL)
for c in list(nlp.pipe_names):
    if c not in comps:
        nlp.disable_pipe(c)
jobs = int(sys.argv[2])
kw = {"n_process": jobs} if jobs > 1 else {}
n = sum(len(d) for d in nlp.pipe(texts, batch_size=256, **kw))
print(len(texts), n, "+".join(comps))
"""


def timed(cmd: list[str], **kw: object) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """(wall seconds, CPU seconds of the child and its descendants, result)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-3000:]}")
    return wall, cpu, r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, help="first N lines of each file (a quick check)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1, help="alternating pairs of runs")
    a = ap.parse_args()
    _cli.wmt_pair(a.data)
    if a.rounds < 1:
        ap.error(f"--rounds must be 1 or more, not {a.rounds}")
    ref, systems = a.data / "ref.txt", sorted((a.data / "sys").glob("*.txt"))
    with tempfile.TemporaryDirectory() as tmp:
        if a.limit:  # slices of the files, written to the temporary directory
            cut = Path(tmp, "cut")
            (cut / "sys").mkdir(parents=True)
            for f in [ref, *systems]:
                dest = cut / f.relative_to(a.data)
                lines = f.read_text(encoding="utf-8").splitlines()[:a.limit]
                dest.write_text("\n".join(lines) + "\n", encoding="utf-8")
            ref, systems = cut / "ref.txt", sorted((cut / "sys").glob("*.txt"))
        texts = Path(tmp, "texts.txt")
        lines = [ln for f in [ref, *systems]
                 for ln in f.read_text(encoding="utf-8").splitlines()]
        texts.write_text("\n".join(lines), encoding="utf-8")
        py = sys.executable
        print(f"data: {a.data}{f' (first {a.limit} lines)' if a.limit else ''}: reference + "
              f"{len(systems)} systems, {len(lines)} texts; --jobs {a.jobs}")
        print(f"metrics ({len(METRICS)}): {' '.join(METRICS)}")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        ratios = []
        for k in range(a.rounds):
            b_wall, b_cpu, r = timed([py, "-c", BARE, str(texts), str(a.jobs), *METRICS],
                                     env=env)
            n, words, comps = r.stdout.split()
            print(f"bare parse    : {b_wall:7.1f} s wall {b_cpu:7.1f} s CPU  ({n} distinct "
                  f"texts, {words} tokens; spaCy {comps})")
            cache = Path(tmp, f"cold{k}.sqlite")
            cmd = [py, "-m", "mtstrata", "score", "-r", str(ref), "-i", *map(str, systems),
                   "-m", *METRICS, "--cache", str(cache), "--jobs", str(a.jobs), "-q"]
            m_wall, m_cpu, r = timed(cmd, env=env)
            cache.unlink()
            print(f"mtstrata score: {m_wall:7.1f} s wall {m_cpu:7.1f} s CPU  (cold cache, "
                  f"{len(r.stdout.splitlines())} lines of output)")
            ratios.append(m_wall / b_wall)
            print(f"round {k + 1}: mtstrata / bare parse: {ratios[-1]:.2f}x wall, "
                  f"{m_cpu / b_cpu:.2f}x CPU", flush=True)
    ratio = statistics.median(ratios)
    print(f"median over {len(ratios)} round(s): {ratio:.2f}x wall  (bar <= 1.2x: "
          f"{'PASS' if ratio <= 1.2 else 'FAIL'}; rounds: "
          f"{', '.join(f'{x:.2f}x' for x in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main, "bench_eval"))
