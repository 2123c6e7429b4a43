"""The test suite's wall time and its slowest tests, as `make test` (or `make check`) runs it.

    python -m benchmarks.bench_suite [--workers 2] [--quick] [--top 15]

One whole-process run of pytest from the repository's root (``-n WORKERS``; ``--quick``: the
quick tier, ``-m "not slow and not wheel"``, as ``make check``), timed from start to exit;
prints the total, the counts pytest reports and the ``--top`` slowest test phases. The wheel
test needs ``MTSTRATA_WHEELHOUSE`` (``make test`` sets it). The figure goes into
docs/development.md ("Tests"), with the machine's load.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

from tools import _cli

_DURATION = re.compile(r"^\s*(\d+\.\d+)s (call|setup|teardown)\s+(\S+)")
_SUMMARY = re.compile(r"^=* ?(.*\b(passed|failed)\b.*) in [\d.]+s")


def command(workers: int, quick: bool, top: int) -> list[str]:
    """The pytest command line measured."""
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--durations={top}"]
    if workers:
        argv += ["-n", str(workers)]
    if quick:
        argv += ["-m", "not slow and not wheel"]
    return argv


def slowest(output: str) -> list[tuple[float, str, str]]:
    """(seconds, phase, test) of pytest's ``--durations`` section, slowest first."""
    rows = [(float(m[1]), m[2], m[3]) for line in output.splitlines()
            if (m := _DURATION.match(line))]
    return sorted(rows, key=lambda r: -r[0])


def main() -> int:
    ap = _cli.parser("bench_suite", __doc__)
    ap.prog = "python -m benchmarks.bench_suite"
    ap.add_argument("--workers", type=int, default=2, metavar="N",
                    help="pytest-xdist processes (0: one process; default 2, as make test)")
    ap.add_argument("--quick", action="store_true", help="the quick tier (make check)")
    ap.add_argument("--top", type=_cli.positive, default=15, metavar="K",
                    help="slowest test phases to print (default 15)")
    a = ap.parse_args()
    if a.workers < 0:
        ap.error(f"--workers must be 0 or more, not {a.workers}")
    argv = command(a.workers, a.quick, a.top)
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=_cli.REPOSITORY, capture_output=True, text=True,
                       env={**os.environ}, check=False)
    wall = time.perf_counter() - t0
    summary = next((m[1] for line in p.stdout.splitlines()[::-1]
                    if (m := _SUMMARY.match(line))), "no summary (see pytest's output)")
    load = os.getloadavg()[0]
    print(f"suite: {' '.join(argv[1:])}")
    print(f"wall time {wall:.0f} s ({wall / 60:.1f} min), {summary}; load average at the end "
          f"{load:.1f} on {os.cpu_count()} cores")
    print(f"slowest {a.top} test phases:")
    for secs, phase, test in slowest(p.stdout)[:a.top]:
        print(f"  {secs:7.1f} s  {phase:8s} {test}")
    failed = [line for line in p.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
    for line in failed:
        print(line)
    if p.returncode != 0:
        print(f"bench_suite: pytest exited {p.returncode}", file=sys.stderr)
    return p.returncode


if __name__ == "__main__":
    sys.exit(_cli.run(main, "bench_suite"))
