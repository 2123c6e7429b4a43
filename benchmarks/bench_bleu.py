"""Issue 2 bar: BLEU over WMT17 de-en (11 systems x 3004 segments) against sacreBLEU.

Times, in the same process and run, (a) mtstrata's path through ``scoring.compute`` (one call
for all systems, as the CLI does: each distinct reference is tokenised and counted once) and
(b) ``sacrebleu.corpus_bleu`` called once per system, and checks that the scores are equal.
Both sides start cold on every repetition: our reference cache and our tokenizer instance
(whose ``lru_cache`` would otherwise remember every hypothesis of the previous repetition) are
dropped, as sacreBLEU builds a fresh tokenizer on every ``corpus_bleu`` call. The one-off cost
of importing the metric registry is printed separately (it is not part of either timing).

Peak memory is measured in fresh child processes (peak RSS, ``VmHWM``, interpreter and
libraries included), one running only mtstrata's path, one only sacreBLEU's.

chrF is compared the same way on the whole set, and NIST against nltk's ``corpus_nist`` (on
sacreBLEU 13a tokens, tokenising included on both sides). TER is slow in both tools (~7 ms a
segment in sacreBLEU), so it is compared on the first ``--ter-segments`` segments (default
300) of every system only; the printed line says so. The other metrics of issue 2 are timed
on our side only.

The in-process ratios call sacreBLEU's API once per system, so sacreBLEU tokenises the
reference again for each system. Its command line, as its users run it on many systems
(``sacrebleu REF -i SYS... -m bleu chrf``), reads and counts the reference once. It is
compared last, as whole processes (start-up included, modules byte-compiled as installed)
on the whole set: ``sacrebleu`` against
``mtstrata score`` with the same systems and metrics, alternating, ``--cli-rounds`` pairs,
scores checked equal to sacreBLEU's 4 printed decimals.

Run: ``.venv/bin/python -m benchmarks.bench_bleu [--repeat 3] [--ter-segments 300]``
(``--segments N`` for a quick slice while developing; the bar is the whole set).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import sacrebleu

from mtstrata import metrics, scoring, tokenizers
from tools import _cli

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("MTSTRATA_DATA", "/work/shared/data")) / "wmt17_toen_da" / "de-en"
SACRE: dict[str, Callable] = {
    "bleu": sacrebleu.corpus_bleu,
    "chrf": sacrebleu.corpus_chrf,
    "ter": sacrebleu.corpus_ter,
}


def load(n: int | None = None) -> tuple[dict[str, list[str]], list[str]]:
    """The systems (file stem -> lines) and the reference, first ``n`` segments if given."""
    if not (DATA / "ref.txt").exists():
        sys.exit(f"WMT17 de-en data not found at {DATA} (set MTSTRATA_DATA to its parent dir).")
    ref = (DATA / "ref.txt").read_text(encoding="utf-8").splitlines()[:n]
    systems = {p.stem: p.read_text(encoding="utf-8").splitlines()[:n]
               for p in sorted((DATA / "sys").glob("*.txt"))}
    return systems, ref


def cold() -> None:
    """Forget everything a previous repetition left behind on our side (reference state is
    per run already)."""
    tokenizers.preprocessor.cache_clear()


def ours(spec: str, systems: dict[str, list[str]], ref: list[str]) -> dict[str, float]:
    metric = metrics.create(spec)
    run = scoring.compute(systems, [ref], [metric])
    return {s: run.score(s, 0).value for s in systems}


def nltk_nist(hyps: list[str], ref: list[str]) -> float:
    """nltk's corpus_nist on sacreBLEU 13a tokens (a fresh tokenizer, as corpus_bleu uses)."""
    from nltk.translate.nist_score import corpus_nist
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tok = Tokenizer13a()
    return corpus_nist([[tok(r.rstrip()).split()] for r in ref],
                       [tok(h.rstrip()).split() for h in hyps], 5)


def theirs(spec: str, systems: dict[str, list[str]], ref: list[str]) -> dict[str, float]:
    if spec == "nist":
        return {s: nltk_nist(h, ref) for s, h in systems.items()}
    fn = SACRE[spec]
    kwargs = {"force": True} if spec == "bleu" else {}  # silence the tokenised-period warning
    return {s: fn(h, [ref], **kwargs).score for s, h in systems.items()}


def best_of(n: int, fn: Callable[[], dict[str, float]]) -> tuple[float, dict[str, float]]:
    times, out = [], {}
    for _ in range(n):
        cold()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def compare(spec: str, systems: dict[str, list[str]], ref: list[str], repeat: int,
            label: str) -> bool:
    t_ours, got = best_of(repeat, lambda: ours(spec, systems, ref))
    t_sacre, want = best_of(repeat, lambda: theirs(spec, systems, ref))
    diff = max(abs(got[s] - want[s]) for s in systems)
    equal = diff <= 1e-9
    tool = "nltk     " if spec == "nist" else "sacreBLEU"
    print(f"{spec:8} {label}: mtstrata {t_ours:6.2f} s   {tool} {t_sacre:6.2f} s   "
          f"ratio {t_ours / t_sacre:4.2f}   scores equal: {equal} (max |diff| {diff:.1e})")
    if not equal:
        for s in systems:
            print(f"    {s}: mtstrata {got[s]!r}  sacreBLEU {want[s]!r}")
    return equal


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB.

    Linux: ``VmHWM`` of /proc/self/status, which starts afresh at ``exec``. Not ``ru_maxrss``:
    Linux carries it over from the parent through fork and exec, so a child would report the
    benchmark parent's own peak.
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # elsewhere: bytes on macOS
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def child_peak(side: str) -> float:
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_bleu", "--memory-child", side],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout.strip().splitlines()[-1])


def cli(metric_names: list[str], rounds: int) -> bool:
    """Both command lines as whole processes on the whole set, alternating; the median ratio
    of wall times, and whether every score agrees to sacreBLEU's 4 printed decimals."""
    ref, syss = DATA / "ref.txt", sorted((DATA / "sys").glob("*.txt"))
    bindir = Path(sys.executable).parent
    theirs_cmd = [str(bindir / "sacrebleu"), str(ref), "-i", *map(str, syss), "-m",
                  *metric_names, "-f", "json", "-w", "4", "-q"]
    ours_cmd = [sys.executable, "-m", "mtstrata", "score", "-r", str(ref), "-i",
                *map(str, syss), "-m", *metric_names, "-f", "json", "-q"]
    # as installed for users: byte-compiled modules (pip compiles sacreBLEU's; a checkout
    # writes ours on the first run), so an untimed first run of each, and bytecode allowed
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for cmd in (theirs_cmd, ours_cmd):
        subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    ratios, ok = [], True
    for _ in range(rounds):
        walls, outs = [], []
        for cmd in (theirs_cmd, ours_cmd):
            t = time.perf_counter()
            r = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
            walls.append(time.perf_counter() - t)
            outs.append(json.loads(r.stdout))
        ratios.append(walls[1] / walls[0])
        mine = {(Path(x["system"]).name, x["metric"]): x["score"] for x in outs[1]["scores"]}
        for row in outs[0]:
            name = Path(row["system"]).stem
            for col, value in row.items():
                if col != "system":
                    key = (name, "chrF" if col.startswith("chrF") else col)
                    ok &= key in mine and f"{mine[key]:.4f}" == value
        print(f"  sacrebleu {walls[0]:5.2f} s   mtstrata score {walls[1]:5.2f} s   "
              f"ratio {ratios[-1]:.2f}")
    print(f"CLI -m {' '.join(metric_names)}: median ratio {statistics.median(ratios):.2f} over "
          f"{rounds} round(s); scores equal to 4 decimals: {ok}")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs (BLEU, chrF)")
    ap.add_argument("--ter-segments", type=int, default=300)
    ap.add_argument("--segments", type=int, default=None,
                    help="only the first N segments (quick runs while developing)")
    ap.add_argument("--cli-rounds", type=int, default=3,
                    help="alternating pairs of whole-process CLI runs (0: skip)")
    ap.add_argument("--memory-child", choices=["ours", "sacrebleu"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    _cli.wmt_pair(DATA, "MTSTRATA_DATA")
    if args.memory_child:
        systems, ref = load()
        (ours if args.memory_child == "ours" else theirs)("bleu", systems, ref)
        print(peak_rss_mb())
        return

    t0 = time.perf_counter()
    metrics.create("bleu")  # imports every metric module once (registry discovery)
    print(f"metric registry import (one-off, excluded below): {time.perf_counter() - t0:.2f} s")
    systems, ref = load(args.segments)
    print(f"WMT17 de-en: {len(systems)} systems x {len(ref)} segments, 1 reference; "
          f"best of {args.repeat}, cold caches on both sides")
    ok = compare("bleu", systems, ref, args.repeat, f"{len(ref):4} segments")
    ok &= compare("chrf", systems, ref, max(1, args.repeat - 1), f"{len(ref):4} segments")
    n = args.ter_segments
    sub = {s: h[:n] for s, h in systems.items()}
    sub_ref = ref[:n]
    ok &= compare("ter", sub, sub_ref, max(1, args.repeat - 1), f"{len(sub_ref):4} segments")
    ok &= compare("nist", systems, ref, 1, f"{len(ref):4} segments")
    for spec in ("bleu-sbp", "chrf++", "wer", "per", "wrr"):
        t_ours, _ = best_of(1, lambda spec=spec: ours(spec, systems, ref))
        print(f"{spec:8} {len(ref):4} segments: mtstrata {t_ours:6.2f} s (no reference tool run)")
    peak_ours, peak_sacre = child_peak("ours"), child_peak("sacrebleu")
    print(f"peak memory, BLEU over the whole set (child process peak RSS, interpreter and "
          f"libraries included): mtstrata {peak_ours:.0f} MB, sacreBLEU {peak_sacre:.0f} MB")
    if args.cli_rounds > 0:
        print("command lines, whole processes, all systems x all segments (sacreBLEU reads "
              "and counts the reference once):")
        for names in (["bleu"], ["chrf"], ["bleu", "chrf"]):
            ok &= cli(names, args.cli_rounds)
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_bleu"))
