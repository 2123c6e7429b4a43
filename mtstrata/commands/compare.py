"""``mtstrata compare``: significance of system differences against a baseline."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from mtstrata import corpus, metrics, scoring
from mtstrata.commands.score import add_annotation_options, annotation_options
from mtstrata.errors import InputError

TESTS = ("bs", "ar", "sign")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare", help="significance tests of systems against a baseline",
        description="Paired bootstrap resampling (Koehn 2004), approximate randomisation "
        "(Riezler & Maxwell 2005) and the sign test over segment scores, each system against "
        "the baseline, from per-segment statistics (BLEU is resampled correctly: corpus "
        "scores are recomputed from summed statistics). Seeded; the seed is printed.")
    p.add_argument("-r", "--ref", action="append", required=True, metavar="REF")
    p.add_argument("-i", "--input", nargs="+", required=True, metavar="HYP",
                   help="hypothesis files, one per system (named by the file stem)")
    p.add_argument("-b", "--baseline", required=True, metavar="SYSTEM",
                   help="the baseline: a system name (file stem) or one of the -i files")
    p.add_argument("-m", "--metrics", nargs="+", action="extend", metavar="METRIC")
    p.add_argument("--test", nargs="+", choices=TESTS, default=list(TESTS),
                   help="bs: paired bootstrap, ar: approximate randomisation, sign: sign test")
    p.add_argument("-n", "--resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--format", "-f", choices=["text", "json"], default="text")
    add_annotation_options(p)
    p.set_defaults(func=run)


def compare_stats(metric: object, stats: dict[str, np.ndarray], baseline: str, tests: list[str],
                  n: int, seed: int) -> list[dict[str, object]]:
    """Records of every non-baseline system against ``baseline`` for one metric."""
    from mtstrata.combine.significance import (
        approximate_randomization,
        paired_bootstrap,
        sign_test,
    )

    score = metric.score  # type: ignore[attr-defined]
    hib = bool(metric.higher_is_better)  # type: ignore[attr-defined]
    others = {s: st for s, st in stats.items() if s != baseline}
    bs = paired_bootstrap(score, stats[baseline], others, n=n, seed=seed,
                          higher_is_better=hib) if "bs" in tests else {}
    base_seg = metric.segment_scores(stats[baseline])  # type: ignore[attr-defined]
    out: list[dict[str, object]] = []
    for name, st in others.items():
        r: dict[str, object] = {"metric": metric.display_name(),  # type: ignore[attr-defined]
                                "system": name, "baseline": baseline,
                                "score": score(st.sum(0)),
                                "baseline_score": score(stats[baseline].sum(0)), "seed": seed,
                                "n": n}
        r["delta"] = float(r["score"]) - float(r["baseline_score"])  # type: ignore[arg-type]
        if name in bs:
            r.update(bs_p=bs[name]["p"], bs_low=bs[name]["low"], bs_high=bs[name]["high"])
        if "ar" in tests:
            r["ar_p"] = approximate_randomization(score, st, stats[baseline], n=n,
                                                  seed=seed)["p"]
        if "sign" in tests:
            seg = metric.segment_scores(st)  # type: ignore[attr-defined]
            a, b = (seg, base_seg) if hib else (base_seg, seg)
            t = sign_test(a, b)
            r.update(sign_wins=t["wins"], sign_losses=t["losses"], sign_p=t["p"])
        out.append(r)
    return out


def run(args: argparse.Namespace) -> int:
    built = [metrics.create(spec) for spec in (args.metrics or ["bleu"])]
    refs = corpus.read_all(args.ref)
    hyps = corpus.read_all(args.input)
    corpus.check_aligned(refs, hyps)
    names = [h.stem for h in hyps]
    base = next((h.stem for h in hyps if args.baseline in (h.stem, h.path)), None)
    if base is None:
        raise InputError(f"baseline {args.baseline!r} is not one of the systems {names}; pass "
                         "its file stem or include its file in -i.")
    if len(names) < 2:
        raise InputError("compare needs the baseline and at least one other system in -i.")
    run_ = scoring.compute({h.stem: h.lines for h in hyps}, [r.lines for r in refs], built,
                           annotation_options(args))
    records: list[dict[str, object]] = []
    for i, m in enumerate(built):
        stats = {s: run_.stats[(s, i)] for s in names}
        records += compare_stats(m, stats, base, args.test, args.resamples, args.seed)
    if args.format == "json":
        sys.stdout.write(json.dumps(records, indent=1) + "\n")
    else:
        sys.stdout.write(format_compare(records))
    return 0


def format_compare(records: list[dict[str, object]]) -> str:
    """One line per (metric, system)."""
    lines = []
    for r in records:
        cells = [f"{r['metric']:<8} {r['system']:<24} {float(r['score']):9.4f} "  # type: ignore[arg-type]
                 f"(base {float(r['baseline_score']):.4f}, delta {float(r['delta']):+.4f})"]  # type: ignore[arg-type]
        if "bs_p" in r:
            cells.append(f"bs p={float(r['bs_p']):.4f} "  # type: ignore[arg-type]
                         f"[{float(r['bs_low']):.4f},{float(r['bs_high']):.4f}]")  # type: ignore[arg-type]
        if "ar_p" in r:
            cells.append(f"ar p={float(r['ar_p']):.4f}")  # type: ignore[arg-type]
        if "sign_p" in r:
            cells.append(f"sign {int(r['sign_wins'])}+/{int(r['sign_losses'])}- "  # type: ignore[call-overload]
                         f"p={float(r['sign_p']):.4f}")  # type: ignore[arg-type]
        lines.append("  ".join(cells))
    if records:
        lines.append(f"\nbaseline {records[0]['baseline']}; {records[0]['n']} resamples, seed "
                     f"{records[0]['seed']}; bs p: one-sided (system not better), ar p: "
                     "two-sided, sign: exact two-sided over segment scores")
    return "\n".join(lines) + "\n"
