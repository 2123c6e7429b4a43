"""``report --freq-corpus``: peak memory against the size of the frequency corpus.

Builds a one-system BLEU report of the sample with no frequency corpus, then with frequency
corpora of growing size (WMT17 de-en's reference, repeated: ``--mb`` sizes), each as a whole
process, and prints each run's peak resident memory (``ru_maxrss`` of the child) and its growth
over the run without a corpus. The corpus is counted line by line, so the growth follows its
vocabulary (here one, repeated), not its size. Bar: the growth of the largest file within 2 MB
of the smallest's (the earlier reader held the file whole: 240 MB more for a 19.5 MB file).

Run: ``.venv/bin/python benchmarks/bench_freq_corpus.py [--data DIR] [--mb 5 20 80]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_BESIDE = ROOT.parent / "shared" / "data"
DEFAULT = Path(os.environ.get("MTSTRATA_DATA") or (_BESIDE if _BESIDE.is_dir() else
                                                   "/work/shared/data")) / "wmt17_toen_da" / "de-en"


def peak_kb(extra: list[str], out: Path) -> int:
    """Peak RSS (KB) of one report process (run alone: RUSAGE_CHILDREN's max is its own)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    cmd = [sys.executable, "-m", "mtstrata", "report", "-r", str(ROOT / "sample" / "ref.A.txt"),
           "-i", str(ROOT / "sample" / "sys" / "neural.txt"), "-m", "bleu", "-q", "--out",
           str(out), *extra]
    r = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True, text=True,
                       check=True)
    return int(r.stdout.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="a WMT pair folder (ref.txt)")
    ap.add_argument("--mb", type=float, nargs="+", default=[5, 20, 80])
    a = ap.parse_args()
    ref = (a.data / "ref.txt").read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.html"
        base = peak_kb([], out)
        print(f"no frequency corpus: peak {base / 1024:.0f} MB")
        growths: list[float] = []
        for mb in a.mb:
            f = Path(tmp) / f"freq{mb}.txt"
            with open(f, "wb") as fh:
                while fh.tell() < mb * 2**20:
                    fh.write(ref)
            size = f.stat().st_size / 2**20
            peak = peak_kb(["--freq-corpus", str(f)], out)
            grow = (peak - base) / 1024
            growths.append(grow)
            print(f"frequency corpus {size:6.1f} MB: peak {peak / 1024:.0f} MB, growth "
                  f"{grow:.1f} MB ({grow / size:.2f}x the file)")
            f.unlink()
        spread = max(growths) - growths[0]
        print(f"growth from the smallest to the largest file: {spread:+.1f} MB (bar < 2 MB: "
              f"{'met' if spread < 2 else 'NOT met'})")


if __name__ == "__main__":
    main()
