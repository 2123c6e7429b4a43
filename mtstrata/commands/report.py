"""``mtstrata report``: one self-contained HTML file for error analysis."""

from __future__ import annotations

import argparse
import os

from mtstrata import corpus, progress, tokenized
from mtstrata.commands import COMMANDS
from mtstrata.commands._help import Formatter
from mtstrata.commands.options import add_annotation_options, annotation_options, system_names
from mtstrata.console import warn
from mtstrata.errors import InputError

DEFAULT_METRICS = ["bleu", "chrf", "ter"]


@COMMANDS.register("report")
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", formatter_class=Formatter,
        help="write an HTML report for error analysis (one self-contained file)",
        description="Score the systems and write one HTML file that opens offline: an "
        "overview (scores as `score` prints them, bootstrap intervals, significance against the "
        "baseline, where metrics disagree on the ranking) and the provenance, readable without "
        "JavaScript; per-type tables and charts of every linguistic family; compare-mt's "
        "analyses (word F-measure by frequency and by length bucket; a metric, sentence BLEU by "
        "default, and the length ratio by length bucket; the histogram of segment-score "
        "differences between two systems and the segments that separate them most; salient "
        "word n-grams, lemmas, POS n-grams, entity types and role labels between two systems, "
        "with counts); a "
        "segment explorer (worst segments, largest differences, lexical-vs-linguistic "
        "disagreement, segments with a given tag, entity type or role) and a segment view "
        "(source, references, each system layer by layer, two systems side by side with their "
        "word alignments).")
    p.add_argument("-r", "--ref", action="append", required=True, metavar="REF",
                   help="a reference file (repeat for several references)")
    p.add_argument("-i", "--input", nargs="+", action="extend", required=True, metavar="HYP",
                   help="hypothesis files, one per system (named by the file stem)")
    p.add_argument("-s", "--source", metavar="SRC",
                   help="the source file (line i: what segment i translates), shown in the "
                   "segment view and searched by the explorer; not scored")
    p.add_argument("-b", "--baseline", metavar="SYSTEM",
                   help="the system the others are compared with (default: the first -i)")
    p.add_argument("-m", "--metrics", nargs="+", action="extend", metavar="METRIC",
                   help="metric specs (default: bleu chrf ter); add linguistic families for "
                   "the per-layer charts, e.g. 'SP-Op(*)' 'NE-Oe(*)' 'SR-Or(*)', and sets: "
                   "ULC, ulc:SET.json")
    p.add_argument("--out", "-o", required=True, metavar="REPORT.html",
                   help="the HTML file to write")
    p.add_argument("--pair", nargs=2, metavar=("A", "B"),
                   help="the two systems of the score differences, the examples and the "
                   "salient n-gram/lemma/POS/entity/role analyses "
                   "(default: the first -i that is not the baseline, and the baseline)")
    p.add_argument("--sentence-metric", metavar="METRIC",
                   help="the metric of the sentence-level analyses (by length bucket, score "
                   "differences, examples): one of -m, by spec or name (default: BLEU if "
                   "given, else the first)")
    p.add_argument("--freq-corpus", metavar="FILE",
                   help="a training-side text file (one sentence a line) whose word counts "
                   "define the frequency buckets (default: reference 1)")
    p.add_argument("--json", metavar="FILE",
                   help="also write the analyses (buckets, sentence-level analyses, salient "
                   "types) as JSON to FILE")
    p.add_argument("-n", "--resamples", type=int, default=None, metavar="N",
                   help="bootstrap resamples and randomisation trials (default: as `compare` "
                   "and sacreBLEU, 1000 resamples and 10,000 trials)")
    p.add_argument("--seed", type=int, default=12345, help="random seed of the resampling")
    add_annotation_options(p)
    p.set_defaults(func=run)


def command_line(args: argparse.Namespace, baseline: str) -> list[str]:
    """The command that rebuilds this report, with the defaults it ran with spelled out."""
    from mtstrata.layers.planning import default_name
    from mtstrata.segment import Layer

    cmd = ["mtstrata", "report"]
    for r in args.ref:
        cmd += ["-r", r]
    if args.source:
        cmd += ["-s", args.source]
    cmd += ["-i", *args.input, "-b", baseline, "-m", *(args.metrics or DEFAULT_METRICS),
            *(["-n", str(args.resamples)] if args.resamples is not None else []),
            "--seed", str(args.seed), "--annotator", args.annotator or default_name(Layer.TOKENS),
            "--srl", args.srl or default_name(Layer.SRL)]
    if args.allow_unlocked:
        cmd.append("--allow-unlocked")
    if args.pair:
        cmd += ["--pair", *args.pair]
    if args.freq_corpus:
        cmd += ["--freq-corpus", args.freq_corpus]
    if args.sentence_metric:
        cmd += ["--sentence-metric", args.sentence_metric]
    return [*cmd, "--out", args.out]


def read_source(path: str | None, n: int) -> corpus.TextFile | None:
    """The source file, checked to have one line per segment (exit 2 otherwise)."""
    if path is None:
        return None
    src = corpus.read_all([path])[0]
    if len(src.lines) != n:
        raise InputError(f"the source has {len(src.lines)} lines and the references and "
                         f"hypotheses {n}. Line i of the source must be what segment i "
                         "translates: check for a missing or extra line, or a source of another "
                         "test set.", src.path, min(len(src.lines), n) + 1)
    return src


def run(args: argparse.Namespace) -> int:
    from mtstrata.report import build_report
    from mtstrata.report.html import check_writable, write_html

    progress.configure(quiet=args.quiet)
    check_writable(args.out)  # before any work
    if args.json:
        check_writable(args.json)
        if os.path.abspath(args.json) == os.path.abspath(args.out):
            raise InputError("--json and --out name the same file; give two files.", args.json)
    extra = [f"{o} -" for o, v in (("-s", args.source), ("--freq-corpus", args.freq_corpus))
             if v == "-"]
    if extra and (len(extra) > 1 or "-" in [*args.ref, *args.input]):  # before reading any
        raise InputError(f"'-' (standard input) is given twice ({', '.join(extra)} and -r/-i "
                         "-); it can be read only once. Give all but one of them as files.")
    refs, hyps = corpus.read_inputs(args.ref, args.input)
    n = corpus.check_aligned(refs, hyps)
    src = read_source(args.source, n)
    from mtstrata.report.buckets import count_words

    # counted line by line: a frequency corpus may be a whole training corpus
    freq = count_words(corpus.iter_lines(args.freq_corpus)) if args.freq_corpus else None
    names = system_names(hyps)
    base = names[0] if args.baseline is None else next(
        (h.stem for h in hyps if args.baseline in (h.stem, h.path)), None)
    if base is None:
        raise InputError(f"baseline {args.baseline!r} is not one of the systems {names}; pass "
                         "its file stem or include its file in -i.")
    msg = corpus.empty_line_warning([*refs, *hyps, *([src] if src else [])])
    if msg:
        warn(msg, advisory=True)  # empty segments are scored as documented: -q silences it
    tokenized_files = tokenized.warn_files([*refs, *hyps])
    data = build_report([r.lines for r in refs], {h.stem: h.lines for h in hyps},
                        args.metrics or DEFAULT_METRICS, base, annotation_options(args),
                        resamples=args.resamples, seed=args.seed,
                        command=command_line(args, base),
                        source=src.lines if src else None, pair=args.pair,
                        freq_corpus=freq, freq_name=args.freq_corpus, warnings=tokenized_files,
                        sentence_metric=args.sentence_metric)
    path = write_html(data, args.out)
    if args.json:
        from mtstrata.output import atomic_write, dumps

        atomic_write(args.json, dumps(data["analyses"]) + "\n")
    print(f"written {path} ({path.stat().st_size / 2**20:.1f} MB)")
    return 0
