"""HTML report on a full WMT test set: build time, file size, and the page in headless Chromium.

Builds ``mtstrata report`` for WMT17 de-en (11 systems x 3004 segments; read in place from
../shared/data/wmt17_toen_da/de-en, never copied) with 10 metrics, text and linguistic, the
annotations read from the cache (``--cache``; warm it first with ``mtstrata annotate -i ... -m
<the linguistic metrics> --cache FILE``: the build time bar is for cached annotations). Then
opens the file in Debian's Chromium (headless, Playwright) and measures:

1. build: scoring, tests (``--resamples``), charts and the HTML written;  bar < 60 s;
2. file size;                  bar <= 11.7 MB (the size before the basic bundle, issue 28);
3. interactive: from navigation to the page's ready mark (data inflated and parsed, every
   chart drawn, the explorer filled);                                   bar < 5 s;
4. a filter over all segments (every system, every segment: an entity-type filter, a text
   search, the two-system difference ranking), the page's own timing of computeRows;
                                                                         bar < 200 ms each.

Prints every figure. Usage: python -m benchmarks.bench_report [--data DIR] [--cache FILE]
[--out FILE] [--resamples N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from tools import _cli

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "wmt17_toen_da" / "de-en"
METRICS = ["bleu", "chrf", "wer", "Ol-lem", "SP-Op(*)", "SP-Oc(*)", "DP-Or(*)", "DP-HWCM_c-4",
           "NE-Oe(*)", "SR-Or(*)"]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def build(data: Path, cache: str | None, out: Path, resamples: int) -> tuple[float, float, list]:
    from mtstrata.corpus import read_all
    from mtstrata.layers import AnnotationOptions
    from mtstrata.report import build_report
    from mtstrata.report.html import write_html

    refs = read_all([str(data / "ref.txt")])
    hyps = read_all([str(p) for p in sorted((data / "sys").glob("*.txt"))])
    src = read_all([str(data / "src.txt")])[0].lines if (data / "src.txt").is_file() else None
    t0, c0 = time.perf_counter(), time.process_time()
    report = build_report([r.lines for r in refs], {h.stem: h.lines for h in hyps}, METRICS,
                          hyps[0].stem, AnnotationOptions(cache=cache, quiet=True),
                          resamples=resamples, command=["bench_report.py"], source=src)
    write_html(report, out)
    return (time.perf_counter() - t0, time.process_time() - c0,
            report["provenance"]["timings"])


def browse(out: Path) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    figures: dict[str, float] = {}
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(profile, executable_path="/usr/bin/chromium",
                                                   headless=True, args=ARGS)
        page = ctx.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        # interactive: from the navigation to the first click answered (an explorer row
        # clicked, its segment view shown), as a user would find it
        t0 = time.perf_counter()
        page.goto(out.as_uri(), wait_until="commit", timeout=120_000)
        page.locator("#seg-table tbody tr").first.click(timeout=120_000)
        page.wait_for_selector("#seg-view b", timeout=120_000)
        figures["interactive_s"] = time.perf_counter() - t0
        page.wait_for_selector("body[data-indexed]", timeout=120_000)
        for mark in ("start", "loaded", "ready", "charts", "indexed"):  # the page's own clock (ms)
            figures[f"page_{mark}_ms"] = float(page.get_attribute("body", f"data-{mark}") or
                                               "nan")

        def filter_ms() -> float:
            return float(page.get_attribute("#filter-time", "data-ms") or "nan")

        figures["rows_all"] = float(page.get_attribute("#row-count", "data-count") or "nan")
        ne = [o for o in page.locator("#tag option").all_inner_texts() if o.startswith("NE:")]
        page.select_option("#tag", ne[0])
        figures["filter_entity_ms"] = filter_ms()
        figures["rows_entity"] = float(page.get_attribute("#row-count", "data-count") or "nan")
        page.select_option("#tag", "")
        page.fill("#search", "the government")
        figures["filter_text_ms"] = filter_ms()
        page.fill("#search", "")
        page.select_option("#mode", "diff")
        figures["rank_difference_ms"] = filter_ms()
        page.select_option("#mode", "lexling")
        figures["rank_lexling_ms"] = filter_ms()
        ctx.close()
    figures["console_errors"] = float(len(errors))
    for e in errors:
        print("console error:", e, file=sys.stderr)
    return figures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--cache", help="annotation cache (warm: the bar is for cached annotations)")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "bench_report.html")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--reuse", action="store_true",
                    help="do not build: measure the existing --out file in the browser")
    args = ap.parse_args()
    _cli.wmt_pair(args.data)
    n_sys = len(list((args.data / "sys").glob("*.txt")))
    print(f"data {args.data} ({n_sys} systems), {len(METRICS)} metrics: {' '.join(METRICS)}; "
          f"{args.resamples} resamples")
    if not args.reuse:
        secs, cpu, laps = build(args.data, args.cache, args.out, args.resamples)
        print(f"build {secs:.1f} s wall, {cpu:.1f} s CPU of this process (bar < 60 s)  "
              f"{'OK' if secs < 60 else 'MISSED'}; load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} CPUs")
        for lap in laps:
            print(f"  {lap['phase']}: {lap['wall_s']} s wall, {lap['cpu_s']} s CPU")
    size = args.out.stat().st_size / 2**20
    print(f"file {args.out.stat().st_size / 1e6:.2f} MB = {size:.2f} MiB (bar <= 11.7 MB)  "
          f"{'OK' if args.out.stat().st_size <= 11.7e6 else 'MISSED'}")
    f = browse(args.out)
    print(f"interactive {f['interactive_s']:.2f} s (bar < 5 s)  "
          f"{'OK' if f['interactive_s'] < 5 else 'MISSED'}; page clock from navigation: page "
          f"parsed and scripts compiled {f['page_start_ms']:.0f} ms, data inflated and "
          f"parsed {f['page_loaded_ms']:.0f} ms, overview+explorer ready {f['page_ready_ms']:.0f}"
          f" ms, per-layer charts {f['page_charts_ms']:.0f} ms, element index "
          f"{f['page_indexed_ms']:.0f} ms")
    for k in ("filter_entity_ms", "filter_text_ms", "rank_difference_ms", "rank_lexling_ms"):
        print(f"{k} {f[k]:.1f} ms over {f['rows_all']:.0f} rows (bar < 200 ms)  "
              f"{'OK' if f[k] < 200 else 'MISSED'}")
    print(f"entity filter kept {f['rows_entity']:.0f} rows; console errors: "
          f"{f['console_errors']:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_cli.run(main, "bench_report"))
