"""Cost of the constituents layer (link-grammar) per text, against the spaCy parse, and the
parser's outcome on the texts (complete parses, null links, past the time limit).

Reads the first ``--limit`` lines of a WMT pair's reference and system outputs (by default
../shared/data/wmt17_toen_da/de-en, read in place, never copied), keeps the distinct texts,
and in one process with no cache:

1. spaCy: ``annotate_texts`` of the tokens and dependencies (what DP-HWCM reads; the parser
   runs) over the texts, timed per batch, model load outside the timed region;
2. link-grammar: the constituents provider over the same segments (their spaCy tokens), each
   text timed alone, dictionary load outside the timed region.

Prints texts per second, the median, 95th percentile and maximum milliseconds per text of
each, the ratio, the share of each outcome (``full``, ``nulls``, ``panic``, ``timeout``,
``long``, ``failed``, ``empty``) and the predicted time of a run (texts / rate). One core
(``--jobs 1``); a shared machine's load moves the figures, and a parse near the time limit
(the library's own timer) can expire in one run and not in another (``panic``, ``timeout``).

Usage: python benchmarks/bench_constituents.py [--data DIR] [--limit N] [--time-limit S]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from mtstrata.layers import AnnotationOptions, annotate_texts
from mtstrata.layers import constituents as cp
from mtstrata.segment import Layer
from tools import _cli

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt17_toen_da" / "de-en"


def read_texts(data: Path, limit: int) -> list[str]:
    """The distinct non-empty texts of the first ``limit`` lines of every file of the pair."""
    files = [data / "ref.txt", *sorted((data / "sys").glob("*.txt"))]
    texts: list[str] = []
    for f in files:
        texts.extend(f.read_text(encoding="utf-8").splitlines()[:limit])
    return list(dict.fromkeys(t for t in texts if t.strip()))


def summary(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=20)[-1] if len(ms) > 1 else ms[0]
    total = sum(ms) / 1000
    return (f"{name:13} {len(ms) / total:8.1f} texts/s  median {statistics.median(ms):7.1f} ms"
            f"  p95 {q:7.1f} ms  max {max(ms):8.1f} ms  total {total:7.1f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--limit", type=_cli.positive, default=100, help="lines per file (default 100)")
    ap.add_argument("--time-limit", type=_cli.positive, default=5,
                    help="seconds per parse (default 5)")
    args = ap.parse_args()
    _cli.wmt_pair(args.data)  # a pair directory with text, before any model loads
    texts = read_texts(args.data, args.limit)
    print(f"{len(texts)} distinct texts from {args.data} (first {args.limit} lines a file)")
    opts = AnnotationOptions(use_cache=False, jobs=1, quiet=True)
    annotate_texts(texts[:20], [Layer.TOKENS, Layer.DEP], opts)  # load the model (untimed)
    spacy_ms: list[float] = []
    segs = {}
    for i in range(0, len(texts), 50):  # batches, as a run sends them; time shared per text
        part = texts[i:i + 50]
        t0 = time.perf_counter()
        got, _ = annotate_texts(part, [Layer.TOKENS, Layer.DEP], opts)
        dt = (time.perf_counter() - t0) * 1000 / len(part)
        spacy_ms.extend([dt] * len(part))
        segs.update(got)
    provider = cp.LinkGrammar(time_limit=args.time_limit)
    print("parser:", provider.signature(frozenset({cp.CONSTITUENTS})))
    cp.parse(provider, segs[texts[0]])  # load the dictionary (untimed)
    lg_ms: list[float] = []
    outcome: Counter[str] = Counter()
    nulls: Counter[int] = Counter()
    for t in texts:
        t0 = time.perf_counter()
        v = cp.parse(provider, segs[t])
        lg_ms.append((time.perf_counter() - t0) * 1000)
        outcome[v.status] += 1
        if v.parsed:
            nulls[min(v.nulls, 3)] += 1
    print(summary("spacy (dep)", spacy_ms))
    print(summary("link-grammar", lg_ms))
    print(f"link-grammar / spacy: {sum(lg_ms) / sum(spacy_ms):.1f} x the time per text")
    n = len(texts)
    print("outcome: " + ", ".join(f"{k} {outcome[k]} ({100 * outcome[k] / n:.1f}%)"
                                  for k in cp.STATUSES if outcome[k]))
    print("null links of the parsed: " + ", ".join(
        f"{'3+' if k == 3 else k}: {nulls[k]}" for k in sorted(nulls)))
    rate = n / (sum(lg_ms) / 1000)
    print(f"predicted: {rate:.1f} texts/s a core; 10,000 distinct texts in "
          f"{10_000 / rate / 60:.0f} min on one core")


if __name__ == "__main__":
    sys.exit(_cli.run(main, "bench_constituents"))
