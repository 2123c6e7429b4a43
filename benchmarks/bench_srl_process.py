"""What an SR- metric costs with each role labeller, as whole processes (``mtstrata score``).

Both sides run ``mtstrata score -r REF -i SYS -m SR-Or(*) --srl NAME --cache COLD --jobs J -q``
on the first ``--limit`` lines of a WMT17 pair (reference + ``--systems`` systems), with an empty
annotation cache each time (parse, roles and scoring all paid, start-up included: what a user's
first SR- run costs), alternating the labellers for ``--rounds`` pairs after one untimed run of
each (byte-compiled modules, warm file cache). Printed per run: wall and CPU seconds (the
process and its workers), per distinct text; then the median wall ratio of the pairs. A
``--limit 0`` run shows the start-up alone (no text).

The bar of the contextual labeller: at most 2x the learned labeller's time (whole process,
2 cores: ``--jobs 2``). On a shared machine, read the ratio of pairs, not single times.

Run: ``.venv/bin/python -m benchmarks.bench_srl_process [--data LPDIR] [--limit 500]
[--systems 1] [--jobs 2] [--rounds 3] [--labellers learned contextual]``
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

ROOT = Path(__file__).resolve().parent.parent
_BESIDE = ROOT.parent / "shared" / "data"
DEFAULT = Path(os.environ.get("MTSTRATA_DATA") or (_BESIDE if _BESIDE.is_dir() else
                                                   "/work/shared/data")) / "wmt17_toen_da" / "de-en"


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cut(data: Path, limit: int, systems: int, tmp: Path) -> tuple[Path, list[Path], int]:
    """The reference and the first ``systems`` systems cut to ``limit`` lines; distinct texts."""
    files = [data / "ref.txt", *sorted((data / "sys").glob("*.txt"))[:systems]]
    out, texts = [], set()
    for k, f in enumerate(files):
        lines = f.read_text(encoding="utf-8").splitlines()[:limit]
        texts.update(lines)
        dest = tmp / f"{k}.txt"
        dest.write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
        out.append(dest)
    return out[0], out[1:], len(texts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--limit", type=int, default=500)
    ap.add_argument("--systems", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--labellers", nargs=2, default=["learned", "contextual"])
    a = ap.parse_args()
    _cli.wmt_pair(a.data)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        ref, systems, n = cut(a.data, a.limit, a.systems, tmp)
        print(f"{a.data}: first {a.limit} lines, reference + {len(systems)} system(s): {n} "
              f"distinct texts; --jobs {a.jobs}; SR-Or(*)")

        def run(labeller: str, k: int) -> tuple[float, float]:
            cache = tmp / f"cold-{labeller}-{k}.sqlite"
            cmd = [sys.executable, "-m", "mtstrata", "score", "-r", str(ref), "-i",
                   *map(str, systems), "-m", "SR-Or(*)", "--srl", labeller, "--cache",
                   str(cache), "--jobs", str(a.jobs), "-q"]
            try:
                return timed(cmd, env)
            finally:
                cache.unlink(missing_ok=True)

        for lab in a.labellers:
            run(lab, -1)  # untimed
        ratios = []
        for k in range(a.rounds):
            got = {}
            for lab in a.labellers:
                wall, cpu = run(lab, k)
                got[lab] = wall
                per = f", {1000 * wall / n:.2f} ms wall per text" if n else ""
                print(f"round {k + 1} {lab:>10}: {wall:6.1f} s wall {cpu:6.1f} s CPU{per}",
                      flush=True)
            ratios.append(got[a.labellers[1]] / got[a.labellers[0]])
            print(f"round {k + 1}: {a.labellers[1]} / {a.labellers[0]} = {ratios[-1]:.2f}x wall")
    med = statistics.median(ratios)
    print(f"median {a.labellers[1]} / {a.labellers[0]} over {len(ratios)} rounds: {med:.2f}x "
          f"wall (bar <= 2x: {'PASS' if med <= 2 else 'FAIL'}; rounds "
          f"{', '.join(f'{x:.2f}x' for x in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(_cli.run(main, "bench_srl_process"))
