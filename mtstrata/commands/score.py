"""``mtstrata score``: score hypothesis files against references."""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from mtstrata import corpus, metrics, progress, scoring, tokenized
from mtstrata import output as _output
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter
from mtstrata.commands.options import add_annotation_options, annotation_options, system_names
from mtstrata.console import warn
from mtstrata.errors import ConfigError
from mtstrata.metrics.base import Score

DEFAULT_METRICS = ["bleu"]


@COMMANDS.register("score")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score", formatter_class=Formatter,
        help="score hypothesis files against references",
        description="Score each hypothesis file (a system, named by the file's stem) against "
        "the references. Files are UTF-8, one segment per line; '-' reads standard input.",
    )
    p.add_argument("-r", "--ref", action="append", required=True, metavar="REF",
                   help="a reference file (repeat for several references)")
    p.add_argument("-i", "--input", nargs="+", action="extend", required=True, metavar="HYP",
                   help="hypothesis files, one per system (repeat -i to add more)")
    p.add_argument("-m", "--metrics", nargs="+", action="extend", metavar="METRIC",
                   help="metric specs, e.g. bleu 'bleu:smooth=exp' chrf ter "
                   "(default: bleu; see `mtstrata list metrics`)")
    p.add_argument("--format", "-f", choices=["text", "json", "tsv", "mtme"], default="text",
                   help="text: a table and the signatures; json: strict JSON (null where "
                   "undefined); tsv: one table, one header (level sys|seg, segments from 0); "
                   "mtme: mt-metrics-eval files <out>/<lp>/<NAME>-<REF>.{seg,sys}.score, NAME "
                   "the metric's full spec, and the manifest mtstrata-metrics.tsv (merged)")
    p.add_argument("--out", metavar="DIR", help="output directory of --format mtme (only)")
    p.add_argument("--lp", default=None,
                   help="language pair (SRC-TGT) of --format mtme: the subdirectory of --out "
                   "(default: xx-yy)")
    p.add_argument("--sentence-level", action="store_true",
                   help="also output the score of every segment")
    p.add_argument("--confidence", action="store_true",
                   help="bootstrap 95%% confidence interval of every system's score, as "
                   "sacreBLEU's --confidence: the mean of the resampled scores ± half the "
                   "width of their 2.5-97.5 percentile range")
    p.add_argument("--confidence-n", type=int, default=None, metavar="N",
                   help="bootstrap resamples of --confidence (default: 1000)")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed of --confidence (default: 12345, sacreBLEU's)")
    p.add_argument("--signatures", metavar="FILE",
                   help="write the signatures (one 'METRIC: signature' line each) to FILE and "
                   "print one line naming it instead of them (text format)")
    p.add_argument("--details", action="store_true",
                   help="also output per-type values for error analysis (e.g. SP-Op(NN))")
    add_annotation_options(p)
    p.set_defaults(func=run)


def check_modes(args: argparse.Namespace) -> None:
    """Refuse options that do nothing with the options they come with (exit 2, before any
    work): ``--out``/``--lp`` without ``--format mtme``; ``--confidence``, ``--details`` and
    ``--sentence-level`` with it (its files hold segment and system scores only);
    ``--confidence-n``/``--seed`` without ``--confidence``."""
    mtme = args.format == "mtme"
    useless = []
    if not mtme:
        useless += [f"{o} (it belongs to --format mtme)" for o, v in
                    (("--out", args.out), ("--lp", args.lp)) if v is not None]
    else:
        useless += [f"{o} (--format mtme writes segment and system scores only)" for o, v in
                    (("--confidence", args.confidence), ("--details", args.details),
                     ("--sentence-level", args.sentence_level)) if v]
    if not args.confidence:
        useless += [f"{o} (it belongs to --confidence)" for o, v in
                    (("--confidence-n", args.confidence_n), ("--seed", args.seed))
                    if v is not None]
    if args.signatures is not None and args.format != "text":
        useless.append("--signatures (the json, tsv and mtme outputs carry each signature in "
                       "their records)")
    if useless:
        raise ConfigError("options that do nothing here: " + "; ".join(useless)
                          + ". Leave them out, or add the option they belong to.")


def run(args: argparse.Namespace) -> int:
    progress.configure(quiet=args.quiet)
    check_modes(args)
    if args.signatures is not None:
        _output.check_output_path(args.signatures)  # before any work
    built = [metrics.create(spec) for spec in (args.metrics or DEFAULT_METRICS)]
    if args.sentence_level:  # a parameter the segment scores would not honour is refused
        from mtstrata.metrics.provenance import check_segment_level

        for spec, m in zip(args.metrics or DEFAULT_METRICS, built, strict=True):
            check_segment_level(spec, m)
    refs, hyps = corpus.read_inputs(args.ref, args.input)
    corpus.check_aligned(refs, hyps)
    system_names(hyps)
    n_boot = 1000 if args.confidence_n is None else args.confidence_n
    seed = 12345 if args.seed is None else args.seed
    if args.confidence:
        from mtstrata.meta.significance import check_resampling

        check_resampling(n_boot, seed, len(refs[0].lines))
    if args.format == "mtme":
        from mtstrata.meta.mtme import prepare_run

        prepare_run(args.out, "xx-yy" if args.lp is None else args.lp, built, args.ref)
    msg = corpus.empty_line_warning([*refs, *hyps])
    if msg:
        warn(msg, advisory=True)  # empty segments are scored as documented: -q silences it
    tokenized.warn_files([*refs, *hyps])
    result = scoring.compute(
        {h.stem: h.lines for h in hyps},
        [r.lines for r in refs],
        built,
        annotation_options(args),
    )
    specs = args.metrics or DEFAULT_METRICS
    names = [m.display_name() for m in built]
    # variants that display alike (every BLEU is "BLEU") are labelled by their specs
    labels = [specs[i] if names.count(n) > 1 else n for i, n in enumerate(names)]
    if args.format == "mtme":
        from mtstrata.meta.mtme import write_run

        for path in write_run(args.out, "xx-yy" if args.lp is None else args.lp, result, args.ref):
            print(path)
        return 0
    scores = result.scores(sentence_level=args.sentence_level, details=args.details)
    if args.confidence:
        scores = with_confidence(result, scores, n_boot, seed)
    scores = [dataclasses.replace(s, metric=labels[k % len(built)]) for k, s in enumerate(scores)]
    # segment scores may have a signature of their own (BLEU's are sentence BLEU, eff:yes)
    seg_sigs = {labels[i]: result.segment_signature(i) for i in range(len(built))
                if args.sentence_level and result.segment_signature(i) != result.signatures[i]}
    counts = None
    if args.details or args.signatures is not None:  # not loaded by a plain run
        from mtstrata.commands._score_output import detail_counts, write_signatures

        counts = detail_counts(result, labels) if args.details else None
    if args.signatures is not None:
        out = format_text(scores, seg_sigs, counts, signatures=False)
        out += write_signatures(args.signatures, scores, seg_sigs)
    else:
        out = {"text": format_text, "json": format_json, "tsv": format_tsv}[args.format](
            scores, seg_sigs, counts)
    if args.confidence and args.format == "text":
        out += (f"μ ± : mean of {n_boot} bootstrap resamples (seed {seed}) ± half "
                "the width of their 95% interval, as sacreBLEU's --confidence\n")
    sys.stdout.write(out)
    return 0


def with_confidence(run: scoring.Run, scores: list[Score], n: int, seed: int) -> list[Score]:
    """``scores`` (in ``run.scores()`` order) with bootstrap intervals: every system and metric
    resampled with the same ``n`` draws of segments (``seed``); the interval is sacreBLEU's
    (sorted resampled scores at positions n//40 and n - n//40 - 1), ``ci_mean`` their mean."""
    from mtstrata.meta.significance import resample_counts

    counts = resample_counts(len(run.stats[(run.systems[0], 0)]), n, seed)
    out = []
    k = len(run.metrics)
    for j, s in enumerate(progress.track(scores, "bootstrap", unit="score")):
        m, st = run.metrics[j % k], run.stats[(s.system, j % k)]
        vals = np.sort(np.array([m.score(row) for row in counts @ st], dtype=float))
        vals = vals[~np.isnan(vals)]
        if len(vals) == 0:
            out.append(dataclasses.replace(s, ci=(math.nan, math.nan), ci_mean=math.nan))
            continue
        lo = len(vals) // 40
        out.append(dataclasses.replace(s, ci=(float(vals[lo]), float(vals[len(vals) - lo - 1])),
                                       ci_mean=float(vals.mean())))
    return out


if TYPE_CHECKING:
    from mtstrata.commands._score_output import Counts


def format_json(scores: list[Score], seg_sigs: Mapping[str, str] | None = None,
                counts: Counts | None = None) -> str:
    """Strict JSON (undefined numbers are null); segment lists are indexed from 0. A metric
    whose segment scores have another signature than its corpus score (BLEU: sentence BLEU,
    ``eff:yes``) has it under ``segment_signature``; with ``--details``, the counts behind
    each per-type value under ``detail_counts`` (``[matched, hypothesis, reference]``)."""
    recs = []
    for s in scores:
        d = s.to_dict()
        c = (counts or {}).get((s.system, s.metric))
        if c and s.details:
            d["detail_counts"] = {k: list(c[k]) for k in s.details if k in c}
        if s.segments is not None and (seg_sigs or {}).get(s.metric):
            d["segment_signature"] = (seg_sigs or {})[s.metric]
        recs.append(d)
    return _output.dumps({"scores": recs})


TSV_HEADER = ["system", "metric", "level", "segment", "score", "ci_low", "ci_high", "signature"]


def format_tsv(scores: list[Score], seg_sigs: Mapping[str, str] | None = None,
               counts: Counts | None = None) -> str:
    """One table, one header: ``level`` is ``sys`` for corpus scores and details (empty
    ``segment``) and ``seg`` for segment scores (``segment`` counts from 0, as
    ``seg_scores.tsv`` and mt-metrics-eval do); an undefined score is an empty cell, and so
    is the interval without ``--confidence``. Each row's signature is that of its number
    (``seg_sigs``: a metric's segment signature where it differs). The counts of
    ``--details`` are in the text and JSON outputs (this table keeps its columns)."""
    rows: list[list[object]] = []
    for s in scores:
        lo, hi = s.ci or (None, None)
        rows.append([s.system, s.metric, "sys", "", s.value, lo, hi, s.signature])
        rows += [[s.system, detail_name(s.metric, k), "sys", "", v, None, None, s.signature]
                 for k, v in s.details.items()]
    for s in scores:
        sig = (seg_sigs or {}).get(s.metric, s.signature)
        rows += [[s.system, s.metric, "seg", j, v, None, None, sig]
                 for j, v in enumerate(s.segments or [])]
    return _output.tsv(TSV_HEADER, rows)


def _segment_rows(scores: list[Score], fmt: Callable[[float], str]) -> list[str]:
    """The text output's segment table (after a blank line), when scores carry segment
    values; segments count from 0."""
    if all(s.segments is None for s in scores):
        return []
    return ["", "system\tmetric\tsegment (from 0)\tscore"] + [
        f"{s.system}\t{s.metric}\t{j}\t{fmt(v)}"
        for s in scores for j, v in enumerate(s.segments or [])]


def detail_name(metric: str, key: str) -> str:
    """A detail's display name: per-type keys name themselves (``SP-Op(NN)``), others
    (``p1``, ``BP``) are qualified by their metric (``BLEU/p1``)."""
    return key if key.startswith(metric.split("(")[0] + "(") else f"{metric}/{key}"


def format_text(scores: list[Score], seg_sigs: Mapping[str, str] | None = None,
                counts: Counts | None = None, signatures: bool = True) -> str:
    """A table: one row per metric (details indented below it, each with its counts
    ``matched/hypothesis/reference`` when ``counts`` has them), one column per system; ``↓``
    marks metrics where lower is better; signatures below (a metric's segment scores' own
    signature, where it differs, as ``METRIC (segments): ...``); ``signatures`` False: the
    table alone (``--signatures FILE`` writes them to a file)."""
    counts = counts or {}

    def detail(x: str, m: str, k: str) -> str:
        if (x, m) not in by or k not in by[(x, m)].details:
            return "-"
        c = counts.get((x, m), {}).get(k)
        return _fmt(by[(x, m)].details[k]) + (f" ({c[0]}/{c[1]}/{c[2]})" if c else "")

    systems = list(dict.fromkeys(s.system for s in scores))
    metrics_ = list(dict.fromkeys(s.metric for s in scores))
    by = {(s.system, s.metric): s for s in scores}
    header = ["metric", *systems]
    rows = []
    for m in metrics_:
        first = next(s for s in scores if s.metric == m)
        rows.append([m + ("" if first.higher_is_better else " ↓"),
                     *[_with_ci(by[(x, m)]) if (x, m) in by else "-" for x in systems]])
        keys = list(dict.fromkeys(k for s in scores if s.metric == m for k in s.details))
        for k in keys:
            rows.append(["  " + detail_name(m, k), *[detail(x, m, k) for x in systems]])
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    lines: list[str] = []
    for r in [header, *rows]:
        lines.append("  ".join(cell.ljust(w) if k == 0 else cell.rjust(w)
                               for k, (cell, w) in enumerate(zip(r, widths, strict=True))))
    lines.append("")
    if counts and any(s.details for s in scores):
        lines += ["(m/h/r): elements matched / in the hypotheses / in the references", ""]
    if signatures:
        from mtstrata.commands._score_output import signature_lines

        lines += signature_lines(scores, seg_sigs)
    else:
        lines.pop()  # the blank line before them
    return "\n".join(lines + _segment_rows(scores, _fmt)) + "\n"


def _with_ci(s: Score) -> str:
    """The value, and with --confidence sacreBLEU's ``(μ = mean ± half-width)``."""
    if s.ci is None or s.ci_mean is None:
        return _fmt(s.value)
    if not all(math.isfinite(v) for v in (*s.ci, s.ci_mean)):
        return f"{_fmt(s.value)} (μ –)"
    return f"{_fmt(s.value)} (μ = {s.ci_mean:.4f} ± {(s.ci[1] - s.ci[0]) / 2:.4f})"


def _fmt(v: float) -> str:
    return f"{v:.4f}" if math.isfinite(v) else "–"
