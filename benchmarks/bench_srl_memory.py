"""Peak memory of the contextual role labeller against segment length.

For each length (words), a fresh process parses one segment of that many words (the spaCy
annotator: tokens, lemmas, tags, dependencies), loads the labeller (``--srl contextual``: its
encoder and tagger), then labels the segment; it prints the peak resident set size before
labelling (the parse and the models), after it, and the difference: what labelling one segment
of that length costs. The text is English prose cut to the length (sentences joined, so a
long segment is several sentences; ``--run-on`` makes it one sentence, the parser's worst
case). Needs the emb extra and the pinned spaCy model.

Run: ``.venv/bin/python -m benchmarks.bench_srl_memory [--words 10,50,200,800,2000]
[--run-on]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

from tools import _cli  # noqa: E402  (after the thread settings)

ROOT = Path(__file__).resolve().parents[1]
PROSE = ("The committee approved the new budget after a long debate on Tuesday . "
         "Officials said the plan would raise taxes on large companies and cut spending "
         "on defence . Critics argued that the measures came too late to help the families "
         "who lost their homes during the crisis . The minister promised to publish the "
         "figures before the end of the month , when parliament meets again .")


def text_of(words: int, run_on: bool = False) -> str:
    """``words`` words of :data:`PROSE`, repeated as needed (its full stops made commas with
    ``run_on``: one sentence)."""
    pool = [("," if w == "." and run_on else w) for w in PROSE.split()]
    return " ".join(pool[i % len(pool)] for i in range(words))


def lengths(text: str) -> list[int]:
    """``--words``: comma-separated whole numbers of 1 or more."""
    out = [_cli.positive(x.strip()) for x in text.split(",") if x.strip()]
    if not out:
        raise argparse.ArgumentTypeError(f"{text!r} names no length (e.g. 10,50,200)")
    return out


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # (KiB on Linux)


def child(words: int, run_on: bool) -> dict[str, float]:
    """In a fresh process: parse, load, then label one segment of ``words`` words."""
    import torch

    from mtstrata.layers import PROVIDERS, Labeller, build

    torch.set_num_threads(1)
    (seg,) = build("spacy").annotate([text_of(words, run_on)], Labeller.needs)
    lab = PROVIDERS.create("contextual")
    lab.load()
    lab.label(list(build("spacy").annotate(["The cat sat on the mat ."], Labeller.needs)))
    before = _peak_mb()
    t0 = time.perf_counter()
    (frames,) = lab.label([seg])
    return {"words": len(seg.tokens), "frames": len(frames), "before": before,
            "after": _peak_mb(), "seconds": time.perf_counter() - t0}


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_srl_memory",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=lengths, default=[10, 50, 200, 800, 2000],
                    metavar="N,N,...", help="segment lengths in words (default 10,50,200,800,"
                    "2000)")
    ap.add_argument("--run-on", action="store_true", help="one sentence per segment")
    ap.add_argument("--child", type=_cli.positive, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child(a.child, a.run_on)))
        return
    shape = "one sentence" if a.run_on else "sentences of about 15 words"
    print(f"contextual labeller, one segment per process ({shape}); peak RSS in MB")
    print(f"{'words':>6} {'tokens':>6} {'frames':>6} {'before':>8} {'after':>8} "
          f"{'labelling':>9} {'seconds':>8}")
    for n in a.words:
        r = subprocess.run([sys.executable, "-m", "benchmarks.bench_srl_memory", "--child",
                            str(n), *(["--run-on"] if a.run_on else [])],
                           capture_output=True, text=True, cwd=ROOT, check=False)
        if r.returncode != 0:
            raise SystemExit(f"the process measuring {n} words failed: "
                             f"{' '.join(r.stderr.strip().splitlines()[-1:])}")
        got = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"{n:>6} {got['words']:>6} {got['frames']:>6} {got['before']:>8.0f} "
              f"{got['after']:>8.0f} {got['after'] - got['before']:>9.0f} "
              f"{got['seconds']:>8.2f}")


if __name__ == "__main__":
    sys.exit(_cli.run(main, "bench_srl_memory"))
