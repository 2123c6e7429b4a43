"""Provenance by construction, measured: one cache row per layer, each text parsed once, the
embedding layer on every core. Three figures, each from whole ``mtstrata`` processes (imports,
model loads and the cache included), alternating the two sides of a comparison:

(a) **A superset serves a subset.** ``mtstrata score -m 'SP-Op(*)'`` on held-out de-en
    segments (the last ``--lines`` lines of WMT17 de-en: the reference and online-B.0) with a
    cache that ``mtstrata annotate -m 'SR-Or(*)' 'NE-Oe(*)'`` filled, against the same run on
    a fresh cache (a new file each round). Bar: at least 3x faster. Before layers had
    providers the cache was keyed by the exact set of components that ran, so this run missed
    it (1x). Note: on a fresh cache, spaCy now computes every layer of a text at once (parse
    once; ``spacy:complete=no`` computes only the tags), so the cold side is printed with
    ``complete=no`` too.
(b) **The newcomer's sequence parses each text once**: ``score -m 'SR-Or(*)'``, then
    ``'SR-Or(*)' 'NE-Oe(*)'``, then ``'SP-Op(*)'`` alone, on the reference and 3 de-en systems,
    one cache. The texts each run annotated are read from its own summary line and printed;
    bar: every distinct text annotated by the backend exactly once over the three runs.
(c) **Cold EMB on two cores.** ``score -m EMB-F --no-cache`` on the reference and 2 systems
    of de-en (all 3,004 lines, the size of a real evaluation; ``--emb-lines N``: the first N):
    ``--jobs 2`` (two worker processes of one torch thread each)
    against ``--jobs 1`` (one torch thread: what the default was before ``--jobs`` defaulted
    to the cores), or against another checkout's code with ``--baseline DIR`` (run with
    ``PYTHONPATH=DIR`` and its own default). Bar: at least 1.7x faster.

Usage: python -m benchmarks.bench_provenance [--data DIR/de-en] [--lines 600] [--rounds 3]
    [--only a b c] [--emb-lines N] [--seq-lines N] [--baseline DIR]
The machine may be shared: the load average is printed with each figure.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools import _cli

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("MTSTRATA_DATA", ROOT.parent / "shared" / "data")
                    ) / "wmt17_toen_da" / "de-en"
SYSTEMS = ("online-B.0", "uedin-nmt.4723", "KIT.4951")


CPU: list[float] = []  # CPU seconds (user + system) of each run, its worker processes included


def mtstrata(args: list[str], env: dict[str, str], pythonpath: Path = ROOT
             ) -> tuple[float, str]:
    """Run ``mtstrata ARGS`` as a whole process; its wall time and standard error (its CPU
    time is appended to :data:`CPU`)."""
    e = dict(os.environ, **env, PYTHONPATH=str(pythonpath))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "mtstrata", *args], env=e, text=True,
                       capture_output=True, cwd=tempfile.gettempdir())  # (no ./mtstrata)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if r.returncode != 0:
        raise SystemExit(f"mtstrata {' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
    return wall, r.stderr


def slice_files(data: Path, tmp: Path, names: list[str], first: int | None, last: int | None
                ) -> list[Path]:
    """The reference and systems cut to a slice, as files in ``tmp``."""
    out = []
    for name in names:
        src = data / "ref.txt" if name == "ref" else data / "sys" / f"{name}.txt"
        lines = src.read_text(encoding="utf-8").splitlines()
        lines = lines[-last:] if last else lines[:first] if first else lines
        dst = tmp / f"{name}.txt"
        dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(dst)
    return out


def alternate(a: list[str], b: list[str], rounds: int, env_a, env_b, before=None,
              path_b: Path = ROOT) -> list[tuple[float, float]]:
    """``rounds`` pairs of wall times, A then B, whole processes (``before()`` first)."""
    pairs = []
    for _ in range(rounds):
        if before:
            before()
        ta, _ = mtstrata(a, env_a())
        if before:
            before()
        tb, _ = mtstrata(b, env_b(), path_b)
        pairs.append((ta, tb))
    return pairs


def report(title: str, pairs: list[tuple[float, float]], bar: float) -> None:
    """Each pair as "B vs A (B/A)": how many times faster A (the first command) was."""
    ratios = [b / a for a, b in pairs]
    med = statistics.median(ratios)
    print(f"{title}: " + ", ".join(f"{b:.1f} s vs {a:.1f} s ({b / a:.2f}x)" for a, b in pairs)
          + f"; median {med:.2f}x (bar >= {bar}x: {'PASS' if med >= bar else 'FAIL'}); "
          f"load average {os.getloadavg()[0]:.1f}")


def bench_a(data: Path, tmp: Path, lines: int, rounds: int) -> None:
    ref, hyp = slice_files(data, tmp, ["ref", "online-B.0"], None, lines)
    warm = tmp / "warm.sqlite"
    fresh = tmp / "fresh.sqlite"
    wall, _ = mtstrata(["annotate", "-i", str(ref), str(hyp), "-m", "SR-Or(*)", "NE-Oe(*)",
                        "--cache", str(warm), "-q"], {})
    print(f"(a) {lines} held-out de-en segments (last lines; reference + online-B.0): "
          f"annotated for SR-Or(*) and NE-Oe(*) in {wall:.1f} s")

    def clear() -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(str(fresh) + suffix).unlink(missing_ok=True)

    score = ["score", "-r", str(ref), "-i", str(hyp), "-m", "SP-Op(*)", "-q"]
    for spec in ("spacy", "spacy:complete=no"):
        pairs = alternate(score + ["--cache", str(warm)],
                          score + ["--cache", str(fresh), "--annotator", spec], rounds,
                          dict, dict, clear)
        report(f"    SP-Op(*) warm vs fresh cache ({spec})", pairs, 3.0)


def annotated(stderr: str) -> int:
    """Texts the backend annotated in one run, from its summary line."""
    return sum(int(n) for n, what in re.findall(r"(\d+) texts annotated for (\S+)", stderr))


def bench_b(data: Path, tmp: Path, lines: int | None) -> None:
    files = slice_files(data, tmp, ["ref", *SYSTEMS], lines, None)
    distinct = len({t for f in files for t in f.read_text(encoding="utf-8").splitlines()})
    cache = tmp / "seq.sqlite"
    base = ["score", "-r", str(files[0]), "-i", *map(str, files[1:]), "--cache", str(cache)]
    total = 0
    print(f"(b) the newcomer's sequence, reference + {len(SYSTEMS)} de-en systems"
          f"{f' (first {lines} lines)' if lines else ''}: {distinct} distinct texts")
    for metrics in (["SR-Or(*)"], ["SR-Or(*)", "NE-Oe(*)"], ["SP-Op(*)"]):
        wall, err = mtstrata(base + ["-m", *metrics], {})
        n = annotated(err)
        total += n
        print(f"    {' '.join(metrics):20s} {wall:6.1f} s, texts parsed: {n}")
    print(f"    parses over the sequence: {total} for {distinct} texts (bar: each text once: "
          f"{'PASS' if total == distinct else 'FAIL'})")


def bench_c(data: Path, tmp: Path, lines: int, rounds: int, baseline: Path | None) -> None:
    files = slice_files(data, tmp, ["ref", *SYSTEMS[:2]], lines, None)
    distinct = len({t for f in files for t in f.read_text(encoding="utf-8").splitlines()})
    cmd = ["score", "-r", str(files[0]), "-i", *map(str, files[1:]), "-m", "EMB-F",
           "--no-cache", "-q"]
    new = cmd + ["--jobs", "2"]
    old = cmd if baseline else cmd + ["--jobs", "1"]
    del CPU[:]
    pairs = alternate(new, old, rounds, dict, dict, path_b=baseline or ROOT)
    what = f"the code in {baseline} with its default" if baseline else "--jobs 1"
    report(f"(c) cold EMB-F, {distinct} distinct texts: --jobs 2 vs {what}", pairs, 1.7)
    print("    CPU seconds (workers included), --jobs 2 vs the other: " + ", ".join(
        f"{a:.1f} vs {b:.1f}" for a, b in zip(CPU[0::2], CPU[1::2], strict=True)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--lines", type=int, default=600, help="(a): the last N lines")
    ap.add_argument("--seq-lines", type=int, default=None, help="(b): the first N lines")
    ap.add_argument("--emb-lines", type=int, default=None, help="(c): the first N lines "
                    "(default: all)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", nargs="+", choices=["a", "b", "c"], default=["a", "b", "c"])
    ap.add_argument("--baseline", type=Path, help="(c): a checkout of the code to compare with")
    a = ap.parse_args()
    _cli.wmt_pair(a.data)
    if a.rounds < 1:
        print("--rounds must be at least 1", file=sys.stderr)
        return 2
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        if "a" in a.only:
            bench_a(a.data, tmp, a.lines, a.rounds)
        if "b" in a.only:
            bench_b(a.data, tmp, a.seq_lines)
        if "c" in a.only:
            bench_c(a.data, tmp, a.emb_lines, a.rounds, a.baseline)
    return 0


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_provenance"))
