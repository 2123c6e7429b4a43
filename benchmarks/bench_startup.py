"""``mtstrata score -m bleu`` against sacreBLEU's command line, as whole processes.

Both score every system of WMT17 de-en with BLEU the way their users run them
(``sacrebleu REF -i SYS... -m bleu`` and ``mtstrata score -r REF -i SYS... -m bleu``), in
turn, ``--rounds`` pairs after one untimed run of each (so byte-compiled modules exist, as
installed). The CPU time of each process (user + system, its children included) is read with
``resource.getrusage(RUSAGE_CHILDREN)``, the figure ``/usr/bin/time`` prints; the median of each
and the median of the pairwise ratios are printed. A small input (``--segments 3``) shows the
start-up alone. On a shared machine, read the ratio of pairs, not single times.

Run: ``.venv/bin/python -m benchmarks.bench_startup [--data DIR] [--rounds 7]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from tools import _cli

_BESIDE = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT = Path(os.environ.get("MTSTRATA_DATA") or (_BESIDE if _BESIDE.is_dir() else
                                                   "/work/shared/data")) / "wmt17_toen_da" / "de-en"


def cpu_of(cmd: list[str]) -> float:
    """CPU seconds (user + system) of one run of ``cmd`` and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def inputs(data: Path, segments: int | None, tmp: Path) -> tuple[Path, list[Path]]:
    """The reference and system files, cut to their first ``segments`` lines if asked."""
    ref, systems = data / "ref.txt", sorted((data / "sys").glob("*.txt"))
    if segments is None:
        return ref, systems
    cut = []
    for f in [ref, *systems]:
        out = tmp / f.name
        lines = f.read_text(encoding="utf-8").splitlines(keepends=True)[:segments]
        out.write_text("".join(lines), encoding="utf-8")
        cut.append(out)
    return cut[0], cut[1:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="a WMT17 language-pair folder")
    ap.add_argument("--rounds", type=int, default=7, help="timed pairs")
    ap.add_argument("--segments", type=int, default=None, help="first N segments only")
    args = ap.parse_args()
    _cli.wmt_pair(args.data)
    bindir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        ref, systems = inputs(args.data, args.segments, Path(tmp))
        theirs = [str(bindir / "sacrebleu"), str(ref), "-i", *map(str, systems), "-m", "bleu"]
        ours = [str(bindir / "mtstrata"), "score", "-r", str(ref), "-i", *map(str, systems),
                "-m", "bleu", "-q"]
        cpu_of(theirs), cpu_of(ours)  # untimed: byte-compile both
        a, b = [], []
        for _ in range(args.rounds):
            b.append(cpu_of(theirs))
            a.append(cpu_of(ours))
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    n = args.segments or "all"
    print(f"{len(systems)} systems x {n} segments, {args.rounds} alternating pairs, "
          "CPU seconds (user+sys, whole process) median [min-max]:")
    print(f"  mtstrata score -m bleu  {statistics.median(a):.3f} [{min(a):.3f}-{max(a):.3f}]")
    print(f"  sacrebleu -m bleu       {statistics.median(b):.3f} [{min(b):.3f}-{max(b):.3f}]")
    print(f"  ratio (pairwise median) {statistics.median(ratios):.3f} "
          f"[{min(ratios):.3f}-{max(ratios):.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main, "bench_startup"))
