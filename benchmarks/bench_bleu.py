"""Issue 2 bar: BLEU over WMT17 de-en (11 systems x 3004 segments) against sacreBLEU.

Times, in the same process and run, (a) mtstrata's path through ``scoring.compute`` (one call
for all systems: each distinct reference is tokenised once) and (b) ``sacrebleu.corpus_bleu``
called once per system, and checks the scores are equal. Peak memory is measured in a fresh
child process running only mtstrata's path (its peak RSS, via ``resource.getrusage``). Also
chrF (and TER with ``--ter``), for information.
Run: ``.venv/bin/python benchmarks/bench_bleu.py [--ter]``.
"""

from __future__ import annotations

import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import sacrebleu

from mtstrata import metrics, scoring
from mtstrata.metrics import bleu as _b
from mtstrata.metrics import sacre as _s

DATA = Path(os.environ.get("MTSTRATA_DATA", "/work/shared/data")) / "wmt17_toen_da" / "de-en"


def load() -> tuple[dict[str, list[str]], list[str]]:
    ref = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()
    systems = {p.stem: p.read_text(encoding="utf-8").splitlines()
               for p in sorted((DATA / "sys").glob("*.txt"))}
    return systems, ref


def ours(spec: str, systems: dict[str, list[str]], ref: list[str]) -> dict[str, float]:
    run = scoring.compute(systems, [ref], [metrics.create(spec)])
    return {s: run.score(s, 0).value for s in systems}


def best_of(n: int, fn) -> tuple[float, object]:
    times, out = [], None
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its 'tokenized period' notes
    if len(sys.argv) > 1 and sys.argv[1] == "--memory-child":
        systems, ref = load()
        ours("bleu", systems, ref)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        return
    systems, ref = load()
    n_seg = len(ref)
    print(f"WMT17 de-en: {len(systems)} systems x {n_seg} segments")
    rows = [("bleu", lambda h: sacrebleu.corpus_bleu(h, [ref]).score),
            ("chrf", lambda h: sacrebleu.corpus_chrf(h, [ref]).score),
            ("ter", lambda h: sacrebleu.corpus_ter(h, [ref]).score)]
    if "--ter" not in sys.argv:  # sacreBLEU's TER takes ~10 minutes here: opt in
        rows = rows[:2]
    for spec, theirs in rows:

        def run_ours(spec=spec):
            _b._REF_CACHE.clear()
            _s._REF_CACHE.clear()  # cold: every run tokenises the references again
            return ours(spec, systems, ref)

        t_ours, got = best_of(3 if spec != "ter" else 1, run_ours)
        t_sacre, want = best_of(3 if spec != "ter" else 1,
                                lambda theirs=theirs: {s: theirs(h) for s, h in systems.items()})
        equal = all(abs(got[s] - want[s]) < 1e-9 for s in systems)
        print(f"{spec:5}  mtstrata {t_ours:7.2f} s   sacreBLEU {t_sacre:7.2f} s   "
              f"ratio {t_ours / t_sacre:5.2f}   scores equal: {equal}")
        if not equal:
            for s in systems:
                print(f"   {s}: {got[s]!r} vs {want[s]!r}")
    out = subprocess.run([sys.executable, __file__, "--memory-child"], capture_output=True,
                         text=True, check=True)
    print(f"peak memory of mtstrata BLEU over the whole set: {float(out.stdout):.0f} MB "
          "(child process, max RSS, interpreter and libraries included)")


if __name__ == "__main__":
    main()
