"""``mtstrata compare``: significance of system differences against a baseline."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

import numpy as np

from mtstrata import corpus, metrics, progress, scoring, tokenized
from mtstrata import output as _output
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter
from mtstrata.commands.options import add_annotation_options, annotation_options, system_names
from mtstrata.errors import ConfigError, InputError
from mtstrata.meta.significance import DEFAULT_N, p_text

TESTS = ("bs", "ar", "sign")
#: sacreBLEU's defaults: 1000 bootstrap resamples, 10,000 randomisation trials
DEFAULT_SEED = 12345  # sacreBLEU's default SACREBLEU_SEED
COLUMNS = ["metric", "system", "baseline", "score", "baseline_score", "delta", "delta_low",
           "delta_high", "bs_p_two_sided", "bs_p_one_sided", "ar_p_two_sided", "sign_wins",
           "sign_losses", "sign_p_two_sided", "bs_resamples", "ar_trials", "seed", "signature"]


@COMMANDS.register("compare")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare", help="significance tests of systems against a baseline",
        formatter_class=Formatter,
        description="Paired bootstrap resampling (Koehn 2004), approximate randomisation "
        "(Riezler & Maxwell 2005) and the sign test over segment scores, each system against "
        "the baseline, from per-segment statistics (BLEU is resampled correctly: corpus "
        "scores are recomputed from summed statistics). The bootstrap and randomisation "
        "p-values are sacreBLEU's --paired-bs and --paired-ar (two-sided; the same draws for "
        "the same seed, default 12345, and sacreBLEU's defaults of 1000 resamples and 10,000 "
        "trials): equal to sacreBLEU's on the same data. For each system: its score, the "
        "baseline's, the difference with its 95% bootstrap interval, and the p-values; the "
        "smallest p n draws can give is 1/(n+1), printed as '<= 1/(n+1)'. JSON/TSV also give "
        "bs_p_one_sided, the share of resamples in which the system is not better than the "
        "baseline (Koehn's one-sided figure).")
    p.add_argument("-r", "--ref", action="append", required=True, metavar="REF",
                   help="a reference file (repeat for several references)")
    p.add_argument("-i", "--input", nargs="+", action="extend", required=True, metavar="HYP",
                   help="hypothesis files, one per system (named by the file stem; repeat -i "
                   "to add more)")
    p.add_argument("-b", "--baseline", required=True, metavar="SYSTEM",
                   help="the baseline: a system name (file stem) or one of the -i files")
    p.add_argument("-m", "--metrics", nargs="+", action="extend", metavar="METRIC",
                   help="metric specs (default: bleu; see `mtstrata list metrics`)")
    p.add_argument("--test", nargs="+", choices=TESTS, default=list(TESTS),
                   help="bs: paired bootstrap, ar: approximate randomisation, sign: sign test")
    p.add_argument("-n", "--resamples", type=int, default=None, metavar="N",
                   help="bootstrap resamples and randomisation trials (default: sacreBLEU's, "
                   "1000 resamples and 10,000 trials)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed of the resampling (sacreBLEU's SACREBLEU_SEED; default "
                   f"{DEFAULT_SEED} as there)")
    p.add_argument("--format", "-f", choices=["text", "json", "tsv"], default="text",
                   help="text: a table with a header and the signatures; json: strict JSON "
                   "records; tsv: one table with one header")
    add_annotation_options(p)
    p.set_defaults(func=run)


def compare_stats(metric: Any, stats: dict[str, np.ndarray], baseline: str, tests: list[str],
                  n: int | None, seed: int) -> list[dict[str, Any]]:
    """Records of every non-baseline system against ``baseline`` for one metric.

    ``bs_p_two_sided``/``bs_p_one_sided`` and the system interval are :func:`~mtstrata.
    combine.significance.paired_bootstrap`'s (sacreBLEU's ``--paired-bs`` and Koehn's share);
    the difference's interval is the 2.5/97.5 percentiles of the resampled differences over
    the same resamples; ``ar_p_two_sided`` is sacreBLEU's ``--paired-ar``. ``n`` None:
    sacreBLEU's defaults (:data:`DEFAULT_N`).
    """
    from mtstrata.meta.significance import (
        approximate_randomization,
        paired_bootstrap,
        resampled_scores,
        sign_test,
    )

    n_bs, n_ar = (DEFAULT_N["bs"], DEFAULT_N["ar"]) if n is None else (n, n)
    score, hib = metric.score, bool(metric.higher_is_better)
    others = {s: st for s, st in stats.items() if s != baseline}
    base_st = stats[baseline]
    base_seg = metric.segment_scores(base_st) if "sign" in tests else None
    base_score = scoring.corpus_score(metric, base_st)
    base_resampled = resampled_scores(score, base_st, n_bs, seed) if "bs" in tests else None
    out: list[dict[str, Any]] = []
    for name, st in progress.track(others.items(), f"comparing ({metric.display_name()})",
                                   unit="system"):
        value = scoring.corpus_score(metric, st)
        r: dict[str, Any] = {"metric": metric.display_name(), "system": name,
                             "baseline": baseline, "score": value,
                             "baseline_score": base_score, "delta": value - base_score,
                             "seed": seed}
        if "bs" in tests:
            bs = paired_bootstrap(score, base_st, {name: st}, n=n_bs, seed=seed,
                                  higher_is_better=hib)
            diff = resampled_scores(score, st, n_bs, seed) - base_resampled
            ok = diff[~np.isnan(diff)]
            low, high = np.quantile(ok, [0.025, 0.975]) if len(ok) else (math.nan, math.nan)
            r.update(delta_low=float(low), delta_high=float(high),
                     bs_p_two_sided=bs[name].p_two_sided, bs_p_one_sided=bs[name].p_one_sided,
                     bs_resamples=n_bs)
        if "ar" in tests:
            r["ar_p_two_sided"] = approximate_randomization(score, base_st, st, n=n_ar,
                                                            seed=seed).p
            r["ar_trials"] = n_ar
        if "sign" in tests:
            seg = metric.segment_scores(st)
            a, b = (seg, base_seg) if hib else (base_seg, seg)
            t = sign_test(a, b)
            r.update(sign_wins=t.wins, sign_losses=t.losses, sign_p_two_sided=t.p)
        out.append(r)
    return out


def run(args: argparse.Namespace) -> int:
    from mtstrata.meta.significance import check_resampling

    progress.configure(quiet=args.quiet)
    if not {"bs", "ar"} & set(args.test) and (args.resamples is not None
                                               or args.seed is not None):
        raise ConfigError("-n/--resamples and --seed do nothing with --test sign alone (the "
                          "sign test draws nothing). Leave them out, or add --test bs or ar.")
    args.seed = DEFAULT_SEED if args.seed is None else args.seed
    built = [metrics.create(spec) for spec in (args.metrics or ["bleu"])]
    refs, hyps = corpus.read_inputs(args.ref, args.input)
    corpus.check_aligned(refs, hyps)
    for t in ("bs", "ar"):
        if t in args.test:
            check_resampling(DEFAULT_N[t] if args.resamples is None else args.resamples,
                             args.seed, len(refs[0].lines))
    names = system_names(hyps)
    base = next((h.stem for h in hyps if args.baseline in (h.stem, h.path)), None)
    if base is None:
        raise InputError(f"baseline {args.baseline!r} is not one of the systems {names}; pass "
                         "its file stem or include its file in -i.")
    if len(names) < 2:
        raise InputError("compare needs the baseline and at least one other system in -i.")
    tokenized.warn_files([*refs, *hyps])
    run_ = scoring.compute({h.stem: h.lines for h in hyps}, [r.lines for r in refs], built,
                           annotation_options(args))
    records: list[dict[str, Any]] = []
    for i, m in enumerate(built):
        stats = {s: run_.stats[(s, i)] for s in names}
        for r in compare_stats(m, stats, base, args.test, args.resamples, args.seed):
            records.append({**r, "signature": run_.signatures[i],
                            "higher_is_better": bool(m.higher_is_better)})
    if args.format == "json":
        sys.stdout.write(_output.dumps(records))
    elif args.format == "tsv":
        sys.stdout.write(_output.tsv(COLUMNS, [[r.get(c) for c in COLUMNS] for r in records]))
    else:
        sys.stdout.write(format_compare(records))
    return 0


def format_compare(records: list[dict[str, Any]]) -> str:
    """A table with a header (one row per metric and system), then the signatures."""
    if not records:
        return "nothing to compare\n"
    first = records[0]
    header = ["metric", "system", "score", "baseline", "delta", "95% CI of delta", "bs p",
              "ar p", "sign +/-", "sign p"]
    rows = []
    for r in records:
        ci = (f"[{r['delta_low']:+.4f}, {r['delta_high']:+.4f}]" if "delta_low" in r
              and not math.isnan(r["delta_low"]) else "–")
        rows.append([
            r["metric"] + ("" if r["higher_is_better"] else " ↓"), r["system"],
            _num(r["score"]), _num(r["baseline_score"]), _num(r["delta"], "+"), ci,
            p_text(r.get("bs_p_two_sided"), r.get("bs_resamples")),
            p_text(r.get("ar_p_two_sided"), r.get("ar_trials")),
            f"{r['sign_wins']}/{r['sign_losses']}" if "sign_wins" in r else "–",
            p_text(r.get("sign_p_two_sided"))])
    widths = [max(len(str(x[k])) for x in [header, *rows]) for k in range(len(header))]
    draws = [f"{first[k]:,} {what}" for k, what in (("bs_resamples", "bootstrap resamples"),
                                                     ("ar_trials", "randomisation trials"))
             if k in first]
    lines = [f"baseline {first['baseline']}; " + ", ".join([*draws, f"seed {first['seed']}"]),
             *("  ".join(str(c).ljust(w) if k < 2 else str(c).rjust(w)
                         for k, (c, w) in enumerate(zip(x, widths, strict=True)))
               for x in [header, *rows]),
             "",
             "bs p: paired bootstrap, two-sided (sacreBLEU's --paired-bs); ar p: approximate "
             "randomisation, two-sided (sacreBLEU's --paired-ar); sign: segments better/worse "
             "than the baseline, exact two-sided p; ↓: lower is better; the interval is the "
             "2.5-97.5 percentiles of the resampled difference (system - baseline)."]
    if any(r["delta"] == 0 and ("bs_p_two_sided" in r or "ar_p_two_sided" in r)
           for r in records):
        lines.append("A zero difference gets the smallest p, as in sacreBLEU (only larger "
                     "resampled differences count): it is no evidence of a difference.")
    sigs = list(dict.fromkeys((r["metric"], r["signature"]) for r in records))
    lines += [f"{m}: {s}" for m, s in sigs]
    return "\n".join(lines) + "\n"


def _num(v: float, sign: str = "") -> str:
    return f"{v:{sign}.4f}" if v is not None and math.isfinite(v) else "–"
